"""What the report and the evidence record beyond the figures: the
environment a plan or variants file set, the names of failed tests, and
how to reproduce the run (the directory it ran from, the plan's SHA-256)."""
import hashlib
import os
import subprocess

from common import ABEV, DEMO, HELPER, AbevTestCase, helper_plan


class ReportContent(AbevTestCase):
    def test_variants_file_environment_is_recorded(self):
        with open(self.path("variants.txt"), "w") as f:
            f.write("baseline|SDK=1.5|\ncandidate|SDK=2.0 GC=server|\n")
        plan = {
            "schema": "abev.plan/1", "name": "env",
            "base": {"command": [HELPER, "env", "SDK", "GC"], "env": {"MODE": "{variant}"}},
            "variants_file": "variants.txt",
            "schedule": {"runs": 1},
            "load": {"max_foreign_cpu": 64, "max_repeats": 0},
        }
        p = self.write_plan(plan)
        self.abev("run", p, "--out", self.path("ev"), check=0)
        md = self.load("ev", "metadata.json")
        env = {v["name"]: v["env"] for v in md["variants"]}
        self.assertEqual(env["baseline"], {"MODE": "{variant}", "SDK": "1.5"})
        self.assertEqual(env["candidate"], {"MODE": "{variant}", "SDK": "2.0", "GC": "server"})

    def test_reproduce_names_the_directory_and_the_plan(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        with open(p, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        cp = subprocess.run([ABEV, "run", "plan.json", "--out", "ev", "--unsigned"],
                            cwd=self.tmp, capture_output=True, text=True,
                            stdin=subprocess.DEVNULL)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        res = self.load("ev", "result.json")
        self.assertEqual(res["report"]["plan_sha256"], digest)
        self.assertEqual(res["report"]["cwd"], os.path.realpath(self.tmp))
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        section = report.split("## Reproduce")[1].split("## ")[0]
        self.assertIn(f"SHA-256 `{digest}`", section)
        self.assertIn(f"cd {os.path.realpath(self.tmp)}\nabev run plan.json --out NEW_DIR "
                      "--unsigned\n", section)

    def test_failed_test_names_are_recorded(self):
        if not (DEMO and os.access(DEMO, os.X_OK)):
            self.skipTest("the demo suite is not built")
        plan = {
            "schema": "abev.plan/1", "name": "failing",
            "variants": [{"name": "a", "command": [DEMO, "--trx", "{run_dir}/s.trx"],
                          "env": {"DEMO_IMPL": "baseline", "DEMO_FAIL": "sort_uint32"}}],
            "schedule": {"runs": 1},
            "results": {"files": "{run_dir}/*.trx"},
            "allowed_exit_codes": [0, 1],
            "load": {"max_foreign_cpu": 64, "max_repeats": 0},
        }
        p = self.write_plan(plan)
        cp = self.abev("run", p, "--out", self.path("ev"))
        res = self.load("ev", "result.json")
        inv = res["invocations"][0]
        self.assertGreaterEqual(inv["tests"]["failed"] + inv["tests"]["errors"], 1, cp.stderr)
        self.assertIn("sort_uint32", inv["failed_tests"])
        self.assertEqual(inv["failed_tests_omitted"], 0)
