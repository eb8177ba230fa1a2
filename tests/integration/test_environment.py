"""What a run inherited is evidence too: metadata.json records abev's whole
environment and each variant's, with the values of names that look secret
(and of the --passphrase-env variable) as their SHA-256 only; the report
lists, per variant, the variables known to change a runtime; `abev compare`
and `abev report DIR1 DIR2` warn when those differ between two evidence
directories."""
import hashlib
import json
import os
import subprocess

from common import ABEV, AbevTestCase, helper_plan, reseal

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

    def test_versions_side_by_side_a_row_per_package(self):
        # What a version command printed, per variant, as one table: a package
        # list a row per package, marked where the variants differ.
        p = self.plan()
        p["variants"][0]["env"] = {"LIB": "13.7.1"}
        p["variants"][1]["env"] = {"LIB": "16.3.0"}
        p["versions"] = {
            "packages": ["sh", "-c", 'printf "YamlDotNet %s\\nxunit 2.9.3\\n" "$LIB"'],
            "tool": ["sh", "-c", "echo tool 1.0"]}
        self.run_plan(p, 0)
        md = self.load("ev", "metadata.json")
        self.assertEqual(md["variants"][1]["versions"]["packages"]["output"],
                         "YamlDotNet 16.3.0\nxunit 2.9.3")
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        table = report.split("Versions, side by side:\n\n")[1].split("\n\n")[0]
        self.assertEqual(table.splitlines(), [
            "| Version | ref | cand | Same |",
            "|---|---|---|---|",
            "| packages: YamlDotNet | 13.7.1 | 16.3.0 | **no** |",
            "| packages: xunit | 2.9.3 | 2.9.3 | yes |",
            "| tool | tool 1.0 | tool 1.0 | yes |"])
        # Once: not again under each variant.
        self.assertNotIn("- packages:", report)

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


class PlanSecrets(AbevTestCase):
    """A secret the plan's env or a variants file's line sets — by a name
    that looks secret, or by a value that is one whatever the name: a URL
    naming a user, a connection string's password, a JWT — is hashed as an
    inherited one is, in metadata.json's "env" and "environment" alike, and
    shown hashed in report.md; abev writes it nowhere. plan.json is the
    user's plan file, kept byte for byte: a literal the plan itself holds
    stays there, and only there."""

    # In the plan file (and so in plan.json, the user's own file).
    IN_PLAN = {"API_TOKEN": "plan-token-q7Zr",
               "DATABASE": "Server=db;User Id=sa;Password =plan-pw-x4Kd;",
               # Issue 40 §6: names and values the rule missed before.
               "MYSQL_PWD": "plan-mysql-k3Jd",
               "STORAGE": "DefaultEndpointsProtocol=https;AccountName=a;"
                          "AccountKey=plan-acct-key-R8sw;",
               "NOTIFY": "https://hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H/"
                         "planHookSecret7Xy9Q2wE"}
    # In the variants file, which the evidence does not copy: nowhere at all.
    IN_VFILE = {"http_proxy": "http://bob:vfile-pass-m2Wt@proxy:3128",
                "MY_SESSION": "vfile-session-c9Lp",
                "ID": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ2ZmlsZS1qd3QifQ.vfile-jwt-sig-T5gh",
                "LDAP_BIND_PW": "vfile-ldap-u6Tn", "CREDS": "vfile-creds-p1Qa",
                "SIGNATURE": "vfile-sig-Z0oc", "SLACK_WEBHOOK": "vfile-hook-Lp4x"}
    VISIBLE = {"HTTP_URL": "http://host/", "PLAIN": "visible-value"}

    def literals(self, which):
        # The part of each value that must not be repeated.
        vfile = {"http_proxy": "vfile-pass-m2Wt", "MY_SESSION": "vfile-session-c9Lp",
                 "ID": "vfile-jwt-sig-T5gh", "LDAP_BIND_PW": "vfile-ldap-u6Tn",
                 "CREDS": "vfile-creds-p1Qa", "SIGNATURE": "vfile-sig-Z0oc",
                 "SLACK_WEBHOOK": "vfile-hook-Lp4x"}
        plan = {"API_TOKEN": "plan-token-q7Zr", "DATABASE": "plan-pw-x4Kd",
                "MYSQL_PWD": "plan-mysql-k3Jd", "STORAGE": "plan-acct-key-R8sw",
                "NOTIFY": "planHookSecret7Xy9Q2wE"}
        return dict(plan, **vfile) if which == "all" else vfile

    def plan(self):
        with open(self.path("vars.txt"), "w", encoding="utf-8") as f:
            f.write("cand|" + " ".join(f"{k}='{v}'" for k, v in self.IN_VFILE.items())
                    + " HTTP_URL=http://host/|\n")
        p = helper_plan([("ref", ["exit", "0"])], name="secrets")
        p["variants"][0]["env"] = dict(self.IN_PLAN, **self.VISIBLE)
        p["base"] = {"command": p["variants"][0]["command"]}
        p["variants_file"] = "vars.txt"
        return p

    def assert_nowhere(self, text, where, literals):
        for name, secret in literals.items():
            # assertFalse, not assertNotIn: a failure names the place, not the whole text
            self.assertFalse(secret in text, f"{name}'s value is in {where}")

    def test_plan_and_variants_file_secrets_are_hashed_everywhere(self):
        cp, _ = self.run_plan(self.plan(), 0)
        md = self.load("ev", "metadata.json")
        ref, cand = md["variants"]
        for k, v in self.IN_PLAN.items():
            self.assertEqual(ref["env"][k], sha(v), k)
            self.assertEqual(ref["environment"][k], sha(v), k)
        for k, v in self.IN_VFILE.items():
            self.assertEqual(cand["env"][k], sha(v), k)
            self.assertEqual(cand["environment"][k], sha(v), k)
        # What is no secret stays readable: a URL without a user, a plain value.
        self.assertEqual(ref["env"]["HTTP_URL"], "http://host/")
        self.assertEqual(cand["env"]["HTTP_URL"], "http://host/")
        self.assertEqual(ref["environment"]["PLAIN"], "visible-value")
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        self.assertIn("(secret, SHA-256 " + sha(self.IN_VFILE["ID"])["sha256"][:12], report)
        self.assertIn("PLAIN=visible-value", report.replace("\\", ""))
        # The terminal, and every file of the evidence but the user's plan.
        outputs = {"abev run": cp.stdout + cp.stderr}
        outputs["abev run --dry-run"] = self.abev("run", self.path("plan.json"), "--dry-run",
                                                  check=0).stdout
        outputs["abev report"] = self.abev("report", self.path("ev"), check=0).stdout
        # The run's report is what abev report renders from the files again.
        self.assertEqual(outputs["abev report"], report)
        outputs["abev compare"] = self.abev("compare", self.path("ev"), self.path("ev")).stdout
        for fmt in ("hyperfine", "csv", "junit", "json"):
            outputs["export " + fmt] = self.abev("export", self.path("ev"), "--format", fmt,
                                                 check=0).stdout
        for where, text in outputs.items():
            self.assert_nowhere(text, where, self.literals("all"))
        for root, _, files in os.walk(self.path("ev")):
            for f in files:
                with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                # plan.json is the plan file as the user wrote it (docs/evidence.md,
                # "What a run inherited"): its own literals stay in it; the variants file's do not.
                self.assert_nowhere(text, f, self.literals(
                    "vfile" if os.path.join(root, f) == self.path("ev", "plan.json") else "all"))

    def test_a_broken_placeholder_in_a_secret_is_not_quoted(self):
        # Issue 40 §6: "unknown placeholder '{…}'" quoted the inside of a secret's value.
        p = helper_plan([("ref", ["exit", "0"])], name="secrets")
        p["variants"][0]["env"] = {"API_TOKEN": "abc{plan-part-Hq2v}def"}
        cp = self.abev("run", self.write_plan(p), "--dry-run", check=2)
        self.assertIn("env.API_TOKEN", cp.stderr)
        self.assertIn("an unknown placeholder, not shown since the value looks secret",
                      cp.stderr)
        self.assertNotIn("plan-part-Hq2v", cp.stdout + cp.stderr)
        with open(self.path("vars.txt"), "w", encoding="utf-8") as f:
            f.write("cand|DB='Server=x;Password=pw{vfile-part-Wm3c}'|\n")
        p = helper_plan([("ref", ["exit", "0"])], name="secrets")
        p["base"] = {"command": p["variants"][0]["command"]}
        p["variants_file"] = "vars.txt"
        cp = self.abev("run", self.write_plan(p), "--dry-run", check=2)
        self.assertIn("not shown since the value looks secret", cp.stderr)
        self.assertNotIn("vfile-part-Wm3c", cp.stdout + cp.stderr)
        # A value that is no secret is quoted, as before.
        p = helper_plan([("ref", ["exit", "0"])], name="plain")
        p["variants"][0]["env"] = {"PLAIN": "a{typo}"}
        cp = self.abev("run", self.write_plan(p), "--dry-run", check=2)
        self.assertIn("unknown placeholder '{typo}'", cp.stderr)

    def test_report_of_older_evidence_hides_a_secret_it_recorded(self):
        # Evidence written before the plan's env was hashed held it as text: a
        # report made from it again shows it hashed all the same.
        self.run_plan(self.plan(), 0)
        path = self.path("ev", "metadata.json")
        md = self.load("ev", "metadata.json")
        md["variants"][1]["env"] = dict(self.IN_VFILE, HTTP_URL="http://host/")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(md, f)
        reseal(self.path("ev"))
        cp = self.abev("report", self.path("ev"), check=0)
        self.assert_nowhere(cp.stdout, "abev report", self.literals("vfile"))
        self.assertIn("(secret, SHA-256 " + sha(self.IN_VFILE["MY_SESSION"])["sha256"][:12],
                      cp.stdout)
        self.assertIn("http://host/", cp.stdout)
