"""A plan's own errors and what it names that is missing on this machine,
in one pass (issue 21 §1): `abev run PLAN` and `abev run PLAN --dry-run`
report a misspelt key, a missing cwd and a program not on the PATH
together — the plan's errors in file order, then the machine's problems
variant by variant — exit 2, run nothing and create no evidence. A variant
refused for a key of its own is not looked for on the machine (what would
be said of it might only follow from the error)."""
import os

from common import AbevTestCase

PATH_PROBLEM = "variants[2].command[0]: program 'abev-no-such-program' is not on the PATH"


class PlanErrorsOnceTest(AbevTestCase):
    def plan(self, gates=None):
        """Three variants: one that would leave a marker if it ran, one in a
        directory that does not exist, one whose program is nowhere."""
        self.marker = self.path("ran")
        return {
            "schema": "abev.plan/1",
            "name": "once",
            "variants": [
                {"name": "base", "command": ["sh", "-c", f"touch {self.marker}"]},
                {"name": "moved", "cwd": "no-such-dir", "command": ["true"]},
                {"name": "typo", "command": ["abev-no-such-program", "--x"]},
            ],
            "schedule": {"runs": 1},
            "gates": gates if gates is not None else {"wal": {"max_regression_pct": 5}},
        }

    def refused(self, plan_path, *args):
        """abev run plan_path args: exit 2, nothing on stdout, nothing run,
        no evidence; the lines of stderr."""
        out = self.path("ev")
        cp = self.abev("run", plan_path, *args, timeout=60)
        self.assertEqual(cp.returncode, 2,
                         f"exit {cp.returncode}\nstdout:\n{cp.stdout}\nstderr:\n{cp.stderr}")
        self.assertEqual(cp.stdout, "", "the schedule was printed")
        self.assertFalse(os.path.exists(out), f"{out} was created")
        self.assertFalse(os.path.exists(self.marker), "a variant ran")
        return cp.stderr.splitlines()

    def assert_three(self, plan_path, lines):
        self.assertEqual(len(lines), 3, "\n".join(lines))
        self.assertEqual(lines[0], f"abev: error: {plan_path}: gates.wal: no metric is called "
                         "'wal', did you mean 'wall'? (expected one of: wall, cpu, max_rss, wall_own)")
        self.assertEqual(lines[1], f"abev: error: {plan_path}: variants[1].cwd: directory "
                         f"'{os.path.realpath(self.tmp)}/no-such-dir' does not exist "
                         "(variant 'moved')")
        self.assertTrue(lines[2].startswith(f"abev: error: {plan_path}: {PATH_PROBLEM}"),
                        lines[2])
        self.assertTrue(lines[2].endswith("(variant 'typo')"), lines[2])

    def test_typo_cwd_and_path_in_one_dry_run(self):
        plan_path = self.write_plan(self.plan())
        self.assert_three(plan_path, self.refused(plan_path, "--dry-run"))

    def test_typo_cwd_and_path_in_one_run(self):
        plan_path = self.write_plan(self.plan())
        self.assert_three(plan_path, self.refused(plan_path, "--unsigned", "--out",
                                                  self.path("ev")))

    def test_machine_problems_alone_are_all_reported(self):
        p = self.plan(gates={"wall": {"max_regression_pct": 5}})
        # As many rounds as a gate needs (one gate, two variants compared: 97.5 %
        # each): too few would be a plan problem of its own.
        p["schedule"]["runs"] = 5
        p["results"] = {"files": "TestResults/*.xml"}
        plan_path = self.write_plan(p)
        for args in (("--dry-run",), ("--unsigned", "--out", self.path("ev"))):
            with self.subTest(args[0]):
                lines = self.refused(plan_path, *args)
                # base's results directory (said once for the plan's directory), moved's
                # cwd, typo's program.
                self.assertEqual(len(lines), 3, "\n".join(lines))
                self.assertIn("results.files: directory '", lines[0])
                self.assertIn("variants[1].cwd: directory '", lines[1])
                self.assertIn(PATH_PROBLEM, lines[2])

    def test_a_fixed_plan_runs(self):
        p = self.plan()
        del p["gates"]
        os.mkdir(self.path("no-such-dir"))
        p["variants"][2]["command"] = ["true", "--x"]
        plan_path = self.write_plan(p)
        cp = self.abev("run", plan_path, "--dry-run", timeout=60)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertIn("# plan 'once': 3 variant(s)", cp.stdout)
        self.assertFalse(os.path.exists(self.marker), "a dry run ran a variant")
        out = self.path("ev")
        cp = self.abev("run", plan_path, "--unsigned", "--out", out, timeout=120)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "result.json")))
        self.assertTrue(os.path.exists(self.marker), "the variant did not run")

    def test_a_refused_variant_is_not_looked_for(self):
        """Its cwd is missing too, but only its own errors are said; the
        variant after it is named by its own index."""
        p = self.plan()
        del p["gates"]
        p["variants"][1]["comand"] = p["variants"][1].pop("command")
        plan_path = self.write_plan(p)
        lines = self.refused(plan_path, "--dry-run")
        self.assertEqual(len(lines), 3, "\n".join(lines))
        self.assertIn("variants[1].comand: unknown key, did you mean 'command'?", lines[0])
        self.assertIn("variants[1].command: missing", lines[1])
        self.assertIn(PATH_PROBLEM, lines[2])
        self.assertNotIn("no-such-dir", "\n".join(lines))

    def test_a_refused_schedule_leaves_programs_to_prepare(self):
        """A real run does not look for a program that a schedule.prepare
        could make when the schedule itself was refused; a dry run does."""
        p = self.plan(gates={"wall": {"max_regression_pct": 5}})
        os.mkdir(self.path("no-such-dir"))
        p["schedule"] = {"runs": 1, "prepare": ["make", 3]}
        plan_path = self.write_plan(p)
        lines = self.refused(plan_path, "--unsigned", "--out", self.path("ev"))
        self.assertEqual(lines, [f"abev: error: {plan_path}: schedule.prepare[1]: expected a "
                                 "string, found a number"])
        lines = self.refused(plan_path, "--dry-run")
        self.assertEqual(len(lines), 2, "\n".join(lines))
        self.assertIn(PATH_PROBLEM, lines[1])

    def test_run_as_with_plan_errors(self):
        """--run-as names a user the machine does not have: said beside the
        plan's errors."""
        plan_path = self.write_plan(self.plan())
        lines = self.refused(plan_path, "--dry-run", "--run-as", "abev-no-such-user")
        self.assertEqual(len(lines), 4, "\n".join(lines))
        self.assertIn("gates.wal: no metric is called 'wal'", lines[0])
        self.assertEqual(lines[1], f"abev: error: {plan_path}: run_as (--run-as): no user "
                         "'abev-no-such-user' on this machine")

    def test_the_plan_path_is_escaped_alike(self):
        # A path may hold anything: both kinds of line show it escaped the same way,
        # so that neither is split.
        plan_path = self.write_plan(self.plan(), name="p\nq.json")
        lines = self.refused(plan_path, "--dry-run")
        shown = plan_path.replace("\n", "\\n")
        self.assertEqual(len(lines), 3, "\n".join(lines))
        for line in lines:
            self.assertTrue(line.startswith(f"abev: error: {shown}: "), line)
