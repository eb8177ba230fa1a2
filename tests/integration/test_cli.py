"""The command line itself: help, version, usage errors, and that the
manual, docs/ and --help describe every option, plan key and exit code."""
import json
import os
import re

from common import SRC, AbevTestCase


def schema_keys(schema, prefix=""):
    """Dotted names of every property the plan schema allows."""
    keys = set()
    for name, sub in schema.get("properties", {}).items():
        keys.add(prefix + name)
        if sub.get("type") == "object" and "properties" in sub:
            keys |= schema_keys(sub, prefix + name + ".")
    return keys


class Cli(AbevTestCase):
    def test_version(self):
        cp = self.abev("--version", check=0)
        self.assertRegex(cp.stdout, r"^abev \d+\.\d+\.\d+\n$")

    def test_help_forms_agree(self):
        a = self.abev("help", "run", check=0).stdout
        b = self.abev("run", "--help", check=0).stdout
        self.assertEqual(a, b)
        self.assertIn("--out", a)
        self.assertIn("--dry-run", a)
        self.assertIn("--quiet", a)
        main = self.abev("--help", check=0).stdout
        self.assertIn("run PLAN --out DIR", main)

    def test_every_command_has_help(self):
        main = self.abev("--help", check=0).stdout
        for cmd in ("run", "report", "compare", "export", "results", "guard", "keygen",
                    "verify", "pack"):
            a = self.abev("help", cmd, check=0).stdout
            b = self.abev(cmd, "--help", check=0).stdout
            self.assertEqual(a, b, cmd)
            self.assertTrue(a.startswith("usage: abev " + cmd), cmd)
            self.assertIn(cmd, main)
        with open(os.path.join(SRC, "abev.1")) as f:
            man = f.read()
        for cmd in ("run", "report", "compare", "export", "results", "guard", "keygen",
                    "verify", "pack", "help"):
            self.assertIn(f".B abev {cmd}", man.replace("\\-", "-"))

    def test_exit_codes_in_help(self):
        # One table says them: in brief at the end of --help (abev's, run's,
        # bench's), whole in `abev help exit-codes`; the same codes in each.
        whole = self.abev("help", "exit-codes", check=0).stdout
        codes = ["0", "1", "2", "3", "4", "5", "6", "7", "8", r"128\+N"]
        for args in (["--help"], ["run", "--help"], ["bench", "--help"]):
            text = self.abev(*args, check=0).stdout
            brief = text[text.index("Exit codes (the first that applies"):]
            self.assertEqual(re.findall(r"(?m)^  (\S+)", brief),
                             re.findall(r"(?m)^  (\S+) ", whole), args)
            for code in codes:
                self.assertRegex(brief, rf"(?m)^\s+{code}\s", args)
            for sig in ("SIGINT 130", "SIGTERM 143"):
                self.assertIn(sig, brief.replace("\n       ", ""), args)

    def test_usage_errors_exit_2(self):
        for args in ([], ["frobnicate"], ["run"], ["run", "p.json"],
                     ["run", "p.json", "--out"], ["run", "p.json", "--out", "x", "--bogus"],
                     ["help", "nothing"]):
            cp = self.abev(*args)
            self.assertEqual(cp.returncode, 2, args)
            self.assertTrue(cp.stderr, args)

    def test_short_n_means_name_in_every_command(self):
        # -n names a command in bench and init (hyperfine's -n); abev run, whose
        # --dry-run it once was, refuses it and says what to type instead.
        plan = os.path.join(SRC, "examples", "demo", "plan.json")
        cp = self.abev("run", "-n", plan, check=2)
        self.assertIn("'-n' is abev bench's and 'abev run' does not take it", cp.stderr)
        self.assertIn("--dry-run", cp.stderr)
        self.abev("init", "--from-bench", "-n", "base", "-n", "cand", "true", "true",
                  "--out", self.path("p.json"), check=0)
        plan_doc = self.load("p.json")
        self.assertEqual([v["name"] for v in plan_doc["variants"]], ["base", "cand"])

    def test_docs_cover_plan_keys_and_exit_codes(self):
        with open(os.path.join(SRC, "evidence-schema", "plan.schema.json")) as f:
            schema = json.load(f)
        keys = schema_keys(schema)
        for sub in schema.get("$defs", {}).values():
            keys |= schema_keys(sub)
        with open(os.path.join(SRC, "abev.1")) as f:
            man = f.read().replace("\\-", "-")
        with open(os.path.join(SRC, "docs", "plan-keys.md")) as f:
            plan_keys = f.read()
        with open(os.path.join(SRC, "docs", "exit-codes.md")) as f:
            exit_codes = f.read()
        guide = ""
        for name in ["README.md"] + sorted(f"docs/{n}" for n in os.listdir(
                os.path.join(SRC, "docs")) if n.endswith(".md")):
            with open(os.path.join(SRC, name), encoding="utf-8") as f:
                guide += f.read()
        self.assertGreater(len(keys), 15)
        for key in sorted(keys):
            leaf = key.split(".")[-1]
            self.assertIn(leaf, man, f"abev.1 does not mention plan key {key}")
            self.assertIn(leaf, plan_keys, f"docs/plan-keys.md does not mention plan key {key}")
        for code in ("130", "143"):
            self.assertIn(code, man)
            self.assertIn(code, exit_codes)
        for code in ("5", "6", "7"):
            self.assertRegex(man, rf"(?m)^\.B {code}$")
            self.assertIn(f"| {code} |", exit_codes)
        for opt in ("--out", "--quiet", "--json", "--dry-run", "--format", "--help", "--version",
                    "--host-label", "--insecure-key-mode", "ABEV_SIGNING_KEY"):
            self.assertIn(opt, man)
        run_help = self.abev("help", "run", check=0).stdout
        for opt in ("--bundle", "--host-label", "--insecure-key-mode", "ABEV_SIGNING_KEY"):
            self.assertIn(opt, run_help)
            self.assertIn(opt, guide, f"neither README.md nor docs/ mentions {opt}")
