"""`abev run PLAN --dry-run`: checks on this machine everything a plan names
that can be checked without running a test — each variant's program on the
PATH its child will have, its cwd, its assemblies patterns, the directory
of results.files — and reports every problem at once with exit 2, each
naming the variant and the key. Otherwise it prints the schedule, and with
--json the expanded plan, a valid plan itself."""
import json
import os
import stat

import schemas
from common import HELPER, AbevTestCase


class DryRunTest(AbevTestCase):
    def dry(self, p, *extra):
        return self.abev("run", self.write_plan(p), "--dry-run", *extra, timeout=60)

    def plan(self, variants, **extra):
        p = {"schema": "abev.plan/1", "name": "dry", "variants": variants,
             "schedule": {"runs": 2}}
        p.update(extra)
        return p

    def test_every_problem_named_at_once(self):
        """A missing program (slep), a missing cwd and an assemblies
        pattern that matches nothing: three lines, one run, exit 2."""
        marker = self.path("ran")
        p = self.plan([
            {"name": "typo", "command": ["slep", "1"]},
            {"name": "nowhere", "cwd": "no-such-dir", "command": ["true"]},
            {"name": "unbuilt", "command": [HELPER, "sleep", "0"],
             "assemblies": ["bin/*.dll"]},
            {"name": "fine", "command": ["sh", "-c", f"touch {marker}"]},
        ])
        cp = self.dry(p)
        self.assertEqual(cp.returncode, 2, cp.stderr)
        self.assertEqual(cp.stdout, "", "the schedule was printed")
        lines = cp.stderr.splitlines()
        self.assertEqual(len(lines), 3, cp.stderr)
        plan_path = self.path("plan.json")
        self.assertIn(f"{plan_path}: variants[0].command[0]: program 'slep' is not on the PATH",
                      lines[0])
        self.assertTrue(lines[0].endswith("(variant 'typo')"), lines[0])
        self.assertIn(f"variants[1].cwd: directory '{os.path.realpath(self.tmp)}/no-such-dir' "
                      "does not exist (variant 'nowhere')", lines[1])
        self.assertIn("variants[2].assemblies[0]: 'bin/*.dll' matches no file in "
                      f"'{os.path.realpath(self.tmp)}' (variant 'unbuilt')", lines[2])
        self.assertFalse(os.path.exists(marker), "a variant ran")
        # Once each is fixed the plan passes.
        os.mkdir(self.path("no-such-dir"))
        os.mkdir(self.path("bin"))
        open(self.path("bin", "x.dll"), "w").close()
        p["variants"][0]["command"][0] = "sleep"
        cp = self.dry(p)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertIn("# plan 'dry': 4 variant(s)", cp.stdout)
        self.assertEqual(len(cp.stdout.splitlines()), 1 + 4 * 2, cp.stdout)

    def test_program_paths(self):
        tools = self.path("tools")
        os.mkdir(tools)
        tool = os.path.join(tools, "mytool")
        with open(tool, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(tool, 0o644)
        p = self.plan([
            # found only on the PATH the variant's env sets
            {"name": "own-path", "command": ["mytool"], "env": {"PATH": tools}},
            {"name": "abevs-path", "command": ["mytool"]},
            # relative to the variant's cwd
            {"name": "relative", "cwd": "tools", "command": ["./mytool"]},
            # sh -c: the program of a plain command line is checked too
            {"name": "shell", "command": ["sh", "-c", "no-such-program-anywhere --x"]},
            # but not a shell builtin, nor a line the check cannot read without a shell
            {"name": "builtin", "command": ["sh", "-c", "exit 0"]},
            {"name": "compound", "command": ["sh", "-c", "cd . && no-such-program-anywhere"]},
            # decided by the run: not checked
            {"name": "per-run", "command": ["{run_dir}/built-by-the-run"]},
            {"name": "run-path", "command": ["x"], "env": {"PATH": "{run_dir}/bin"}},
        ])
        cp = self.dry(p)
        lines = cp.stderr.splitlines()
        self.assertEqual(cp.returncode, 2, cp.stderr)
        self.assertEqual(len(lines), 4, cp.stderr)
        self.assertIn("variants[0].command[0]: program 'mytool' is not an executable file "
                      "(variant 'own-path')", lines[0])
        self.assertIn("variants[1].command[0]: program 'mytool' is not on the PATH", lines[1])
        self.assertIn("variants[2].command[0]: program './mytool' is not an executable file "
                      "(variant 'relative')", lines[2])
        self.assertIn("variants[3].command[2]: program 'no-such-program-anywhere' is not on the "
                      "PATH", lines[3])
        self.assertIn("the shell would say 'not found' and exit 127 (variant 'shell')", lines[3])
        os.chmod(tool, stat.S_IRWXU)
        cp = self.dry(p)
        lines = cp.stderr.splitlines()
        self.assertEqual(len(lines), 2, cp.stderr)
        self.assertIn("(variant 'abevs-path')", lines[0])
        self.assertIn("(variant 'shell')", lines[1])

    def test_cwd_that_is_a_file(self):
        open(self.path("afile"), "w").close()
        cp = self.dry(self.plan([{"name": "a", "cwd": "afile", "command": ["true"]}]))
        self.assertEqual(cp.returncode, 2)
        self.assertIn("variants[0].cwd: '", cp.stderr)
        self.assertIn("afile' is not a directory (variant 'a')", cp.stderr)

    def test_results_directory(self):
        p = self.plan([{"name": "a", "command": ["true"]}, {"name": "b", "command": ["true"]}],
                      results={"files": "TestResults/*.trx"})
        cp = self.dry(p)
        self.assertEqual(cp.returncode, 2, cp.stderr)
        # Both variants share the cwd: said once.
        self.assertEqual(len(cp.stderr.splitlines()), 1, cp.stderr)
        self.assertIn(f"results.files: directory '{os.path.realpath(self.tmp)}/TestResults' "
                      "does not exist", cp.stderr)
        os.mkdir(self.path("TestResults"))
        self.assertEqual(self.dry(p).returncode, 0)
        p["results"]["files"] = "{run_dir}/out/*.xml"
        self.assertEqual(self.dry(p).returncode, 0)

    def test_variants_file_problems(self):
        with open(self.path("vars.txt"), "w") as f:
            f.write("x|A=1|\ny|A=2|\n")
        p = self.plan([], base={"command": ["slep"]}, variants_file="vars.txt")
        del p["variants"]
        cp = self.dry(p)
        self.assertEqual(cp.returncode, 2)
        lines = cp.stderr.splitlines()
        self.assertEqual(len(lines), 2, cp.stderr)
        self.assertIn("base.command[0]: program 'slep' is not on the PATH", lines[0])
        self.assertTrue(lines[0].endswith("(variant 'x')"), lines[0])
        self.assertTrue(lines[1].endswith("(variant 'y')"), lines[1])

    def test_variants_file_with_bom_crlf_and_quoted_pipe(self):
        # As a Windows editor saves it: a byte order mark (skipped, not part of the
        # first name) and CRLF; a quoted '|' is an argument, not a fourth field.
        with open(self.path("vars.txt"), "wb") as f:
            f.write(b"\xef\xbb\xbfa|X=1|--sep '|'\r\nb|X=2|\r\n")
        p = self.plan([], base={"command": ["true"]}, variants_file="vars.txt")
        del p["variants"]
        cp = self.dry(p, "--json")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        doc = json.loads(cp.stdout)
        self.assertEqual([v["name"] for v in doc["variants"]], ["a", "b"])
        self.assertEqual(doc["variants"][0]["command"], ["true", "--sep", "|"])
        self.assertEqual(doc["variants"][1]["env"], {"X": "2"})

    def test_run_refuses_a_missing_cwd_before_anything(self):
        """A real run checks cwd before it starts (not programs: a run
        records an exec failure as evidence)."""
        p = self.plan([{"name": "a", "cwd": "gone", "command": ["true"]}])
        out = self.path("ev")
        cp = self.abev("run", self.write_plan(p), "--out", out, timeout=60)
        self.assertEqual(cp.returncode, 2, cp.stderr)
        self.assertIn("variants[0].cwd: directory '", cp.stderr)
        self.assertFalse(os.path.exists(out))

    def test_json_is_the_expanded_plan(self):
        with open(self.path("vars.txt"), "w") as f:
            f.write("fast|MODE=fast|--quick\n")
        with open(self.path("report.md"), "w") as f:
            f.write("# {{plan_name}}\n")
        p = {
            "schema": "abev.plan/1", "name": "expanded",
            "variants": [{"name": "slow", "cwd": ".", "command": ["true", "{variant}"]}],
            "base": {"command": ["true"], "env": {"MODE": "x", "R": "{round}"}},
            "variants_file": "vars.txt",
            # 7: the fewest in which a budget, one of 3 gate judgements at
            # 98.33 % each (Bonferroni), can be decided.
            "schedule": {"runs": 7, "order": "shuffle", "seed": 7, "cpus": "0"},
            "metrics": [{"name": "w", "source": "process", "field": "wall",
                         "max_regression_pct": 5},
                        {"name": "t", "source": "stdout", "unit": "ms",
                         "pattern": "t=([0-9]+)", "derive": "rate"}],
            "gates": {"t (rate)": {"budget": 3}, "cpu": {"max_regression_pct": 20}},
            "report": {"template": "report.md"},
        }
        cp = self.dry(p, "--json")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        # stdout is the document alone; the schedule went to stderr
        doc = json.loads(cp.stdout)
        self.assertIn("# plan 'expanded'", cp.stderr)
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("plan", doc), [])
        real = os.path.realpath(self.tmp)
        self.assertEqual([v["name"] for v in doc["variants"]], ["slow", "fast"])
        fast = doc["variants"][1]
        self.assertEqual(fast["command"], ["true", "--quick"])
        self.assertEqual(fast["env"], {"MODE": "fast", "R": "{round}"})
        self.assertEqual(fast["cwd"], real)
        self.assertEqual(fast["cpus"], "0")
        self.assertNotIn("base", doc)
        self.assertNotIn("variants_file", doc)
        self.assertEqual(doc["schedule"]["warmups"], 0)
        self.assertEqual(doc["schedule"]["seed"], 7)
        self.assertEqual(doc["load"]["max_cpu_wait_pct"], 10)
        self.assertEqual(doc["limits"]["max_files"], 10000)
        self.assertEqual(doc["decision"]["bootstrap_resamples"], 10000)
        self.assertEqual(doc["reference"], "slow")
        self.assertEqual(doc["metrics"][0]["max_regression_pct"], 5)
        self.assertEqual(doc["gates"], {"t (rate)": {"budget": 3},
                                        "cpu": {"max_regression_pct": 20}})
        self.assertEqual(doc["report"]["template"], os.path.join(real, "report.md"))
        # It is a plan: read again it expands to itself.
        again = self.abev("run", self.write_plan(doc, name="again.json"), "--dry-run", "--json",
                          timeout=60)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(json.loads(again.stdout), doc)

    def test_json_keeps_what_runs_the_plan(self):
        # A plan that runs until decided stays one (not a fixed count of its ceiling),
        # its prepare steps and exclusive patterns are kept: the document runs as its
        # source would.
        p = {
            "schema": "abev.plan/1", "name": "kept",
            "variants": [{"name": "a", "command": ["true"], "prepare": ["true", "{round}"]},
                         {"name": "b", "command": ["true"]}],
            "schedule": {"until": "decided", "max_rounds": 40, "prepare": ["true"]},
            "load": {"exclusive": ["make *"]},
            "gates": {"wall": {"max_regression_pct": 5}},
        }
        cp = self.dry(p, "--json")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        doc = json.loads(cp.stdout)
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("plan", doc), [])
        sched = doc["schedule"]
        self.assertEqual((sched["until"], sched["max_rounds"]), ("decided", 40))
        self.assertNotIn("runs", sched)
        self.assertEqual(sched["looks"][-1], 40)
        self.assertEqual(sched["min_rounds"], sched["looks"][0])
        self.assertEqual([v["prepare"] for v in doc["variants"]], [["true", "{round}"], ["true"]])
        self.assertEqual(doc["load"]["exclusive"], ["make *"])
        again = self.abev("run", self.write_plan(doc, name="again.json"), "--dry-run", "--json",
                          timeout=60)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(json.loads(again.stdout), doc)
        self.assertEqual(again.stderr, cp.stderr.replace(self.path("plan.json"),
                                                         self.path("again.json")))
