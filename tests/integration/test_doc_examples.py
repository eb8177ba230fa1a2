"""Every abev command shown in the shell examples of README.md and of
docs/*.md and in the man page's EXAMPLES section is run here, in a scratch directory that holds
what the examples name (the demo plan, a small plan, result files, signed
evidence of several hosts and dates), so that a documented command that
stops working fails the suite. A command passes when it exits with a
documented success: 0, 5 (a run whose decision is rejected: the demo's
memory gate), 6 (inconclusive, which fails by default since issue 39: a
gate a busy machine's rounds could not decide, 0 before) or 7 (verify
without a key), and says no "error:". On a busy
machine a run may also lose slots to contention (exit 1, documented):
that is accepted when every invocation that did not pass was discarded,
none failed."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import unittest

from common import ABEV, DEMO, HELPER, SRC, AbevTestCase, helper_plan

GEN = os.path.join(SRC, "tests", "helpers", "gen_results.py")
OK = {0, 5, 6, 7}


def guide_files():
    """README.md, then every docs/*.md, as paths under SRC."""
    docs = sorted(n for n in os.listdir(os.path.join(SRC, "docs")) if n.endswith(".md"))
    return ["README.md"] + [os.path.join("docs", n) for n in docs]


def sh_blocks(name):
    """The abev command lines of each ```sh block of the file name (under SRC)."""
    with open(os.path.join(SRC, name), encoding="utf-8") as f:
        text = f.read()
    out = []
    for body in re.findall(r"```sh\n(.*?)```", text, re.S):
        cmds = [line.split("  #")[0].strip() for line in body.splitlines()
                if re.match(r"(\./)?abev ", line)]
        if cmds:
            out.append(cmds)
    return out


def man_examples():
    """The command lines of abev.1's EXAMPLES section, unescaped."""
    with open(os.path.join(SRC, "abev.1"), encoding="utf-8") as f:
        text = f.read()
    section = text.split(".SH EXAMPLES", 1)[1].split(".SH ", 1)[0]
    body = section.split(".nf\n", 1)[1].split(".fi", 1)[0]
    body = body.replace("\\-", "-").replace("\\(aq", "'").replace("\\(dq", '"')
    return [line.strip() for line in body.splitlines() if line.startswith("abev ")]


@unittest.skipUnless(DEMO and HELPER and SRC, "the demo suite, the helper or the source tree is not known")
class DocExamples(AbevTestCase):
    def setUp(self):
        super().setUp()
        self.box = self.path("box")
        os.makedirs(os.path.join(self.box, "examples", "demo"))
        shutil.copy(os.path.join(SRC, "examples", "demo", "plan.json"),
                    os.path.join(self.box, "examples", "demo", "plan.json"))
        # The demo plan runs ../../build/examples/demo-suite from its own directory.
        os.makedirs(os.path.join(self.box, "build", "examples"))
        os.symlink(DEMO, os.path.join(self.box, "build", "examples", "demo-suite"))
        os.makedirs(os.path.join(self.box, "tmp"))
        for name in ("big.txt", "f"):
            with open(os.path.join(self.box, name), "w") as f:
                f.write("abev documentation example\n" * 2000)
        with open(os.path.join(self.box, "pass.txt"), "w") as f:
            f.write("correct horse battery staple\n")
        os.makedirs(os.path.join(self.box, "TestResults"))
        for i in (1, 2):
            subprocess.run([sys.executable, GEN, "trx",
                            os.path.join(self.box, "TestResults", f"run{i}.trx"),
                            "--results", "4"], check=True, capture_output=True)
        with open(os.path.join(self.box, "Makefile"), "w") as f:
            f.write("test:\n\t@true\ntest-fast:\n\t@true\n")

    def small_plan(self, name="plan.json"):
        plan = helper_plan([("baseline", ["exit", "0"]), ("candidate", ["exit", "0"])], runs=2)
        with open(os.path.join(self.box, name), "w") as f:
            json.dump(plan, f)

    def evidence(self):
        """Signed evidence under the names the report and compare examples use."""
        self.small_plan("small.json")
        self.sh(f"{ABEV} keygen --out release-key")
        for out, label in (("ev", "a"), ("host-a/ev", "a"), ("host-b/ev", "b"),
                           ("last-month/ev", "a"), ("today/ev", "a"), ("old", "a"),
                           ("new", "a")):
            os.makedirs(os.path.dirname(os.path.join(self.box, out)), exist_ok=True)
            self.sh(f"{ABEV} run small.json --out {out} --key release-key.key "
                    f"--host-label {label}")

    def lost_to_contention(self, cp):
        """Exit 1 only because this shared machine was busy: every invocation
        that did not pass was discarded for contention (documented: exit 1,
        slots lost), none failed."""
        m = re.search(r"^evidence: (.*)$", cp.stdout, re.M)
        if cp.returncode != 1 or not m or "slot(s) lost after" not in cp.stdout:
            return False
        with open(os.path.join(self.box, m.group(1), "result.json"), encoding="utf-8") as f:
            invs = json.load(f)["invocations"]
        return all(i["status"] in ("ok", "discarded") for i in invs)

    def sh(self, line):
        cp = subprocess.run(["sh", "-c", line], cwd=self.box, capture_output=True, text=True,
                            timeout=600, stdin=subprocess.DEVNULL)
        if not self.lost_to_contention(cp):
            self.assertIn(cp.returncode, OK,
                          f"{line}\nstdout:\n{cp.stdout}\nstderr:\n{cp.stderr}")
        self.assertNotIn("error:", cp.stderr, f"{line}\nstderr:\n{cp.stderr}")
        return cp

    def run_block(self, cmds):
        for cmd in cmds:
            # /tmp first: the binary's own path may be under /tmp too.
            line = cmd.replace("/tmp/", os.path.join(self.box, "tmp") + "/")
            line = re.sub(r"^(\./)?abev ", lambda m: shlex.quote(ABEV) + " ", line)
            with self.subTest(command=cmd):
                self.sh(line)

    def test_readme_and_docs_examples(self):
        blocks = [(name, i, cmds) for name in guide_files()
                  for i, cmds in enumerate(sh_blocks(name))]
        self.assertGreaterEqual(len(sh_blocks("README.md")), 2)
        self.assertGreaterEqual(len(blocks), 5)
        for name, i, cmds in blocks:
            with self.subTest(file=name, block=i):
                self.tearDown()
                self.setUp()
                text = " ".join(cmds)
                if re.search(r"\b(report|compare|export) ", text) and " ev" in text:
                    self.evidence()
                if re.search(r"\brun plan\.json\b", text):
                    self.small_plan()
                self.run_block(cmds)

    def test_man_examples(self):
        cmds = man_examples()
        self.assertGreaterEqual(len(cmds), 5)
        self.run_block(cmds)


if __name__ == "__main__":
    unittest.main()
