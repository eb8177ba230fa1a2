"""What a run inherited is evidence too: metadata.json records abev's whole
environment and each variant's, with the values of names that look secret
(and of the --passphrase-env variable) as their SHA-256 only; the report
lists, per variant, the variables known to change a runtime; `abev compare`
and `abev report DIR1 DIR2` warn when those differ between two evidence
directories."""
import hashlib
import os

from common import AbevTestCase, helper_plan

SECRET = "hunter2-do-not-print"


def sha(text):
    return {"sha256": hashlib.sha256(text.encode()).hexdigest()}


class Environment(AbevTestCase):
    def plan(self):
        p = helper_plan([("ref", ["exit", "0"]), ("cand", ["exit", "0"])], name="env")
        p["variants"][1]["env"] = {"DOTNET_gcServer": "1"}
        return p

    def run_with(self, out, node_options, extra=None):
        env = {"NODE_OPTIONS": node_options, "MY_API_TOKEN": SECRET,
               "OUR_PW": SECRET + "-pass", "PLAIN_SETTING": "visible"}
        env.update(extra or {})
        keydir = self.path("k")
        if not os.path.exists(keydir + ".key"):
            self.abev("keygen", "--out", keydir, "--passphrase-env", "OUR_PW", env=env, check=0)
        cp, res = self.run_plan(self.plan(), 0, "--key", keydir + ".key",
                                "--passphrase-env", "OUR_PW", out=out, env=env)
        return cp, res

    def test_the_environment_is_recorded_with_secrets_hashed(self):
        cp, _ = self.run_with("ev", "--max-old-space-size=64")
        md = self.load("ev", "metadata.json")
        env = md["environment"]
        self.assertEqual(env["NODE_OPTIONS"], "--max-old-space-size=64")
        self.assertEqual(env["PLAIN_SETTING"], "visible")
        self.assertEqual(env["MY_API_TOKEN"], sha(SECRET))
        # Named by --passphrase-env: hashed whatever its name.
        self.assertEqual(env["OUR_PW"], sha(SECRET + "-pass"))
        self.assertEqual(list(env), sorted(env))
        ref, cand = md["variants"]
        self.assertNotIn("DOTNET_gcServer", ref["environment"])
        self.assertEqual(cand["environment"]["DOTNET_gcServer"], "1")
        self.assertEqual(cand["environment"]["ABEV_VARIANT"], "cand")
        self.assertEqual(cand["environment"]["MY_API_TOKEN"], sha(SECRET))
        # The secret is nowhere in the evidence or the output.
        for root, _, files in os.walk(self.path("ev")):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    self.assertNotIn(SECRET.encode(), fh.read(), f)
        self.assertNotIn(SECRET, cp.stdout + cp.stderr)
        # The report lists each variant's runtime variables, whoever set them.
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        lines = [l for l in report.splitlines() if l.startswith("- runtime variables")]
        self.assertEqual(len(lines), 2, report)
        self.assertIn("NODE\\_OPTIONS=--max-old-space-size=64", lines[0])
        self.assertNotIn("DOTNET\\_gcServer", lines[0])
        self.assertIn("DOTNET\\_gcServer=1", lines[1])

    def test_compare_and_report_warn_when_runtime_variables_differ(self):
        self.run_with("old", "--max-old-space-size=64")
        self.run_with("new", "--max-old-space-size=128")
        self.run_with("same", "--max-old-space-size=64")
        cp = self.abev("compare", self.path("old"), self.path("new"))
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertIn("runtime variable(s) differ between", cp.stderr)
        self.assertIn("abev's environment, NODE_OPTIONS: '--max-old-space-size=64' in "
                      f"{self.path('old')}, '--max-old-space-size=128' in {self.path('new')}",
                      cp.stderr)
        self.assertIn("variant 'cand', NODE_OPTIONS: ", cp.stderr)
        cp = self.abev("report", self.path("old"), self.path("new"))
        self.assertIn("runtime variable(s) differ between", cp.stderr)
        # The same settings: no warning.
        cp = self.abev("compare", self.path("old"), self.path("same"))
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertNotIn("differ between", cp.stderr)
