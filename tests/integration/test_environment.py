"""What a run inherited is evidence too: metadata.json records abev's whole
environment and each variant's, with the values of names that look secret
(and of the --passphrase-env variable) as their SHA-256 only; the report
lists, per variant, the variables known to change a runtime; `abev compare`
and `abev report DIR1 DIR2` warn when those differ between two evidence
directories."""
import hashlib
import os
import subprocess

from common import ABEV, AbevTestCase, helper_plan

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


class SecretsWithheld(AbevTestCase):
    """No program abev starts inherits its signing key (ABEV_SIGNING_KEY: the
    key's text or path) or the --passphrase-env variable: not the runs, nor
    prepare, setup, cleanup or versions commands. A plan that sets such a
    name for a variant on purpose still sets it."""

    def dump(self, step):
        return ["sh", "-c", f"env > '{self.tmp}/env-{step}-'$$; echo {step}"]

    def plan(self):
        p = {"schema": "abev.plan/1", "name": "withheld",
             "variants": [{"name": n, "command": self.dump("run")} for n in ("a", "b")],
             "schedule": {"runs": 2, "warmups": 0, "prepare": self.dump("prepare"),
                          "setup": self.dump("setup"), "cleanup": self.dump("cleanup")},
             "versions": {"env": self.dump("version")},
             "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0}}
        p["variants"][1]["env"] = {"ABEV_SIGNING_KEY": "set-by-the-plan"}
        return p

    def test_key_and_passphrase_reach_no_child(self):
        pw = SECRET + "-pass"
        env = {"OUR_PW": pw, "PLAIN_SETTING": "visible"}
        keydir = self.path("k")
        self.abev("keygen", "--out", keydir, "--passphrase-env", "OUR_PW", env=env, check=0)
        with open(keydir + ".key", encoding="utf-8") as f:
            key_text = f.read()
        body = "".join(l for l in key_text.splitlines() if l and not l.startswith("-----"))
        # Signed by the key's text in the environment (self.abev() would add --unsigned).
        e = dict(os.environ, ABEV_SIGNING_KEY=key_text, **env)
        cp = subprocess.run([ABEV, "run", self.write_plan(self.plan()), "--out", self.path("ev"),
                             "--passphrase-env", "OUR_PW"], capture_output=True, text=True,
                            env=e, stdin=subprocess.DEVNULL, timeout=300)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        rep = self.load("ev", "result.json")["report"]
        self.assertEqual((rep["signed"], rep["key_source"]), (True, "environment"))
        dumps = {}
        for name in sorted(os.listdir(self.tmp)):
            if name.startswith("env-"):
                with open(self.path(name), encoding="utf-8", errors="replace") as f:
                    dumps[name] = f.read()
        steps = {n.split("-")[1] for n in dumps}
        self.assertEqual(steps, {"run", "prepare", "setup", "cleanup", "version"})
        # 2 variants x 2 runs, each with its prepare; a setup and cleanup each;
        # versions once per variant.
        self.assertEqual(sum(n.startswith("env-run-") for n in dumps), 4)
        for name, text in dumps.items():
            self.assertIn("PLAIN_SETTING=visible", text, name)
            self.assertNotIn(pw, text, name)
            self.assertNotIn("OUR_PW=", text, name)
            self.assertNotIn(body[:24], text, name)
            lines = [l for l in text.splitlines() if l.startswith("ABEV_SIGNING_KEY=")]
            # Only what variant b's plan entry set on purpose, never abev's own.
            self.assertIn(lines, ([], ["ABEV_SIGNING_KEY=set-by-the-plan"]), name)
        self.assertTrue(any("ABEV_SIGNING_KEY=set-by-the-plan" in t for t in dumps.values()))
        # And so nowhere in the evidence either.
        for root, _, files in os.walk(self.path("ev")):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    data = fh.read()
                self.assertNotIn(pw.encode(), data, f)
                self.assertNotIn(body[:24].encode(), data, f)
