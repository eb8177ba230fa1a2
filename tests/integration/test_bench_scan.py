"""hyperfine's parameter scans and --ignore-failure in abev bench and abev
init --from-bench (issue 21 §4): -L VAR VALUES and -P VAR MIN MAX [-D STEP]
expand each command into variants named after the commands they make, the
first the reference, and the evidence's plan holds the commands as they ran;
-i lets any exit code count, not a signal."""
import os

from test_bench import QUIET_LOAD, BenchTestCase


class TestBenchScan(BenchTestCase):
    def test_list_scan_runs_each_value(self):
        self.bench("-L", "t", "1,2", "-L", "w", "a,b", "printf %s-{w} {t}", "-r", "1",
                   "--unsigned", "--out", "ev")
        plan = self.load("ev", "plan.json")
        # The commands vary fastest, then the first -L, then the next: hyperfine's order.
        self.assertEqual([v["command"] for v in plan["variants"]],
                         [["sh", "-c", c] for c in ("printf %s-a 1", "printf %s-a 2",
                                                    "printf %s-b 1", "printf %s-b 2")])
        self.assertEqual([v["name"] for v in plan["variants"]],
                         ["printf-s-a-1", "printf-s-a-2", "printf-s-b-1", "printf-s-b-2"])
        result = self.load("ev", "result.json")
        self.assertEqual(result["comparison"]["reference"], "printf-s-a-1")
        self.assertEqual(sorted(i["argv"][2] for i in result["invocations"]),
                         sorted(c[2] for c in (v["command"] for v in plan["variants"])))
        with open(self.path("ev", "runs", "printf-s-b-2", "run-1", "test.log")) as f:
            self.assertEqual(f.read(), "2-b")

    def test_prepare_gets_the_value_too(self):
        # As in hyperfine, {VAR} is replaced in --prepare: each variant prepares its own.
        self.bench("-L", "t", "1,2", "--prepare", "echo prep-{t}", "true {t}", "-r", "1",
                   "--unsigned", "--out", "ev")
        plan = self.load("ev", "plan.json")
        self.assertEqual([v["prepare"][2] for v in plan["variants"]], ["echo prep-1", "echo prep-2"])
        self.assertNotIn("prepare", plan["schedule"])
        with open(self.path("ev", "runs", "true-2", "run-1", "prepare.log")) as f:
            self.assertEqual(f.read(), "prep-2\n")

    def test_range_scan_with_names_and_step(self):
        self.run_in("init", "--from-bench", "-P", "ms", "10", "30", "-D", "10",
                    "-n", "sleep-{ms}ms", "sleep 0.0{ms}", "--out", "p.json", check=0)
        plan = self.load("p.json")
        self.assertEqual([(v["name"], v["command"][2]) for v in plan["variants"]],
                         [("sleep-10ms", "sleep 0.010"), ("sleep-20ms", "sleep 0.020"),
                          ("sleep-30ms", "sleep 0.030")])
        self.run_in("run", "p.json", "--dry-run", check=0)

    def test_scans_refused_with_the_reason(self):
        for args, words in (
                (["-L", "t", "1,2", "echo"], "no command has '{t}'"),
                (["-P", "t", "3", "1", "echo {t}"], "MIN is more than MAX"),
                (["-P", "t", "0", "1", "-D", "0.1", "-L", "u", "a", "echo {t}{u}"],
                 "cannot be given together"),
                (["-P", "t", "0", "0.5", "echo {t}"], "needs its step: add -D STEP"),
                (["-D", "2", "echo"], "-D sets the step of a -P range"),
                (["-P", "t", "1", "40", "echo {t}"], "more than 16 values"),
                (["-L", "t", "1,2", "-n", "a", "-n", "b", "-n", "c", "echo {t}"],
                 "3 names (-n) for the 2 commands"),
                (["-P", "a", "1", "2", "-P", "b", "1", "2", "echo {a}{b}"],
                 "option '--parameter-scan' given more than once")):
            cp = self.bench(*args, "--out", "ev", check=2)
            self.assertIn(words, cp.stderr, args)
            self.assertFalse(os.path.exists(self.path("ev")))
        cp = self.run_in("bench", "echo {t}", "-L", "t", check=2)
        self.assertIn("'--parameter-list' needs 2 values: VAR VALUES", cp.stderr)
        # A brace that names no scanned parameter stays as written.
        self.bench("-L", "t", "x", "echo {t} {other}", "-r", "1", "--unsigned", "--out", "ok")
        self.assertEqual(self.load("ok", "plan.json")["variants"][0]["command"][2],
                         "echo x {{other}}")

    def test_ignore_failure_counts_any_exit_code(self):
        cp = self.bench("-i", "exit 3", "true", "-r", "2", "--unsigned", "--out", "ev")
        self.assertNotIn("no counted run", cp.stdout)
        self.assertEqual(self.load("ev", "plan.json")["allowed_exit_codes"], list(range(256)))
        invs = self.invocations("ev")
        self.assertEqual({(i["status"], i["exit_code"]) for i in invs if i["argv"][2] == "exit 3"},
                         {("ok", 3)})
        # A run a signal killed still fails, and the decision says why.
        cp = self.bench("-i", "kill -KILL $$", "-r", "2", "--unsigned", "--out", "ev2", check=1)
        self.assertIn("killed by signal 9", cp.stdout)
        # Without -i an exit code other than 0 fails the run, as before.
        cp = self.bench("exit 3", "-r", "2", "--unsigned", "--out", "ev3", check=1)
        self.assertIn("exited with code 3", cp.stdout)

    def test_help_names_the_scans(self):
        out = self.run_in("bench", "--help", check=0).stdout
        for opt in ("-L, --parameter-list VAR VALUES", "-P, --parameter-scan VAR MIN MAX",
                    "-D, --parameter-step-size STEP", "-i, --ignore-failure"):
            self.assertIn(opt, out)
        self.assertTrue(QUIET_LOAD)
