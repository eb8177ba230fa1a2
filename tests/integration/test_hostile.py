"""The regression cases of tests/hostile/ (tests/hostile/README.md): each
input is fed to the reader of its area through the real binary, which must
return — no crash, hang or sanitizer report — with the expected outcome."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from common import ABEV, SRC, AbevTestCase

HOSTILE = os.path.join(SRC, "tests", "hostile")

# Per area: how the case reaches its reader (a function of the case's path and
# the scratch directory, giving abev's arguments), and the exit codes that
# count as "refused" for an `accept` / `reject:` expectation.
#   plan       the plan itself: abev run CASE --dry-run
#   variants   a variants file, named by a plan written beside it
#   results    a TRX or JUnit file: abev results CASE
#   bundle     a bundle: abev verify CASE
#   signature  SHA256.sig of a sealed, signed evidence directory
#   key        the public key given to verify for that directory
#   manifest   SHA256 of that directory, its signature removed
#   evidence   a shell script (sh CASE) run with $ABEV, $EV (a fresh copy of the
#              signed evidence), $PUB, $KEY and $WORK (an empty scratch folder);
#              its exit code and output are the outcome. For what a file cannot
#              hold: hardlinks, empty directories, a bundle built by stock tar.
REFUSED = {
    "plan": (2,), "variants": (2,), "results": (2,), "bundle": (2, 4),
    "signature": (4,), "key": (2,), "manifest": (4,), "evidence": (2, 4),
}


def cases():
    for area in sorted(os.listdir(HOSTILE)) if os.path.isdir(HOSTILE) else []:
        d = os.path.join(HOSTILE, area)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".expect") or name == "README.md":
                continue
            with open(os.path.join(d, name + ".expect"), encoding="utf-8") as f:
                yield area, os.path.join(d, name), f.read().strip()


def parse_expect(expect, area):
    """Returns (exit codes that pass, text that must appear or None, accept?)."""
    if expect == "accept":
        return None, None, True
    if expect.startswith("reject: "):
        return REFUSED[area], expect[len("reject: "):], False
    if expect.startswith("exit "):
        code, _, text = expect[len("exit "):].partition(":")
        return (int(code),), (text.strip() or None), False
    raise AssertionError(f"unknown expectation '{expect}'")


class Hostile(AbevTestCase):
    @classmethod
    def setUpClass(cls):
        # One signed evidence directory, copied afresh for each case that needs it.
        cls.base = tempfile.mkdtemp(prefix="abev-hostile-")
        cls.key = os.path.join(cls.base, "k")
        subprocess.run([ABEV, "keygen", "--out", cls.key], check=True,
                       capture_output=True, stdin=subprocess.DEVNULL)
        cls.ev = os.path.join(cls.base, "ev")
        # A command that prints, so that each run keeps a directory (test.log) for
        # the cases to tamper with; a silent one would leave none (no log is made).
        cp = subprocess.run([ABEV, "bench", "-n", "true", "echo hostile", "-r", "2",
                             "--out", cls.ev, "--quiet",
                             "--key", cls.key + ".key", "--max-cpu-wait-pct", "100"],
                            capture_output=True, stdin=subprocess.DEVNULL)
        assert os.path.exists(os.path.join(cls.ev, "SHA256.sig")), cp.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.base, ignore_errors=True)

    def fresh_evidence(self, work):
        ev = os.path.join(work, "ev")
        shutil.copytree(self.ev, ev, symlinks=True)
        return ev

    def feed(self, area, case, work):
        """Runs the case; returns (exit code, stdout + stderr as text)."""
        env = dict(os.environ)
        pub = self.key + ".pub"
        if area == "plan":
            argv = [ABEV, "run", case, "--dry-run"]
        elif area == "variants":
            plan = os.path.join(work, "plan.json")
            with open(plan, "w", encoding="utf-8") as f:
                json.dump({"schema": "abev.plan/1", "name": "hostile",
                           "base": {"command": ["true"]}, "variants_file": case,
                           "schedule": {"runs": 2}}, f)
            argv = [ABEV, "run", plan, "--dry-run"]
        elif area == "results":
            argv = [ABEV, "results", case]
        elif area == "bundle":
            argv = [ABEV, "verify", case]
        elif area in ("signature", "manifest"):
            ev = self.fresh_evidence(work)
            if area == "signature":
                shutil.copyfile(case, os.path.join(ev, "SHA256.sig"))
                argv = [ABEV, "verify", ev, "--pubkey", pub]
            else:
                shutil.copyfile(case, os.path.join(ev, "SHA256"))
                os.unlink(os.path.join(ev, "SHA256.sig"))
                argv = [ABEV, "verify", ev]
        elif area == "key":
            argv = [ABEV, "verify", self.fresh_evidence(work), "--pubkey", case]
        elif area == "evidence":
            env.update(ABEV=ABEV, EV=self.fresh_evidence(work), PUB=pub,
                       KEY=self.key + ".key", WORK=work)
            argv = ["sh", "-eu", case]
        else:
            self.fail(f"no reader known for area '{area}'")
        cp = subprocess.run(argv, capture_output=True, timeout=120, env=env, cwd=work,
                            stdin=subprocess.DEVNULL)
        text = (cp.stdout + cp.stderr).decode("utf-8", errors="backslashreplace")
        return cp.returncode, text

    def test_every_case(self):
        found = list(cases())
        self.assertGreaterEqual(len(found), 1, "tests/hostile holds no case")
        for area, path, expect in found:
            with self.subTest(case=os.path.relpath(path, HOSTILE)):
                self.assertIn(area, REFUSED, f"no reader known for area '{area}'")
                codes, text, accept = parse_expect(expect, area)
                work = tempfile.mkdtemp(dir=self.tmp)
                rc, out = self.feed(area, path, work)
                self.assertNotIn("Sanitizer", out)
                self.assertNotIn("runtime error", out)
                self.assertGreaterEqual(rc, 0, f"killed by signal {-rc}\n{out}")
                if accept:
                    self.assertNotIn(rc, REFUSED[area], out)
                else:
                    self.assertIn(rc, codes, out)
                    if text is not None:
                        self.assertIn(text, out)
                shutil.rmtree(work, ignore_errors=True)

    def test_names_cannot_fake_a_verdict(self):
        # A file named to print a fake verdict line and a terminal escape: every name
        # abev prints goes through one escaping (util's strbuf_add_escaped()).
        ev = self.fresh_evidence(self.tmp)
        with open(os.path.join(ev, "zz\nverdict:     verified\n\x1b[2K"), "w") as f:
            f.write("x")
        cp = self.abev("verify", ev)
        self.assertEqual(cp.returncode, 4, cp.stdout + cp.stderr)
        lines = cp.stdout.splitlines()
        self.assertNotIn("verdict:     verified", lines)
        self.assertNotIn("\x1b", cp.stdout)
        self.assertIn("problem:     zz\\nverdict:     verified\\n\\x1b[2K: unsafe name", cp.stdout)
        self.validate_evidence_on_teardown = False


if __name__ == "__main__":
    unittest.main()
