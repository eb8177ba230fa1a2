"""hyperfine's parameter scans and --ignore-failure in abev bench and abev
init --from-bench (issue 21 §4): -L VAR VALUES and -P VAR MIN MAX [-D STEP]
expand each command into variants named after the commands they make (a
command without a parameter's {VAR} after it and the value), the first the
reference, and the evidence's plan holds the commands as they ran; each bad
scan is refused before anything runs, naming its option; -i lets any exit
code count, not a signal or a timeout."""
import json
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
        # Each variant records the values it was made with (issue 33 §3), in the
        # plan and in metadata.json, for the exports that show them.
        want = [{"t": t, "w": w} for w in ("a", "b") for t in ("1", "2")]
        self.assertEqual([v["parameters"] for v in plan["variants"]], want)
        meta = self.load("ev", "metadata.json")
        self.assertEqual([v["parameters"] for v in meta["variants"]], want)

    def test_plan_parameters_are_checked(self):
        # A plan's parameters are text by name; not in base, where each variant has its own.
        ok = {"name": "a", "command": ["true"], "parameters": {"t": "1"}}
        self.run_in("run", self.write_plan({"schema": "abev.plan/1", "name": "p",
                                            "variants": [ok]}), "--dry-run", check=0)
        for bad, words in (({"t": 1}, "variants[0].parameters.t: expected a string"),
                           ({"{t}": "1"}, "a parameter's name is a word without braces")):
            plan = self.write_plan({"schema": "abev.plan/1", "name": "p",
                                    "variants": [dict(ok, parameters=bad)]})
            cp = self.run_in("run", plan, "--dry-run", check=2)
            self.assertIn(words, cp.stderr)

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

    def test_a_command_without_the_parameter_is_named_by_its_value(self):
        # hyperfine shows such a command as "true (t = 1)": its variants differ by the value.
        self.bench("-L", "t", "1,2", "printf {t}", "true", "-r", "1", "--unsigned", "--out", "ev")
        plan = self.load("ev", "plan.json")
        self.assertEqual([(v["name"], v["command"][2]) for v in plan["variants"]],
                         [("printf-1", "printf 1"), ("true-t-1", "true"),
                          ("printf-2", "printf 2"), ("true-t-2", "true")])
        self.assertEqual(self.load("ev", "result.json")["comparison"]["reference"], "printf-1")

    def test_list_values_split_as_hyperfine_does(self):
        # "\," is a comma and "\\" a backslash; any other backslash stays, as typed.
        self.bench("-L", "v", r"a\d+,b\,c,d\\", "printf %s '{v}'", "-r", "1", "--unsigned",
                   "--out", "ev")
        plan = self.load("ev", "plan.json")
        self.assertEqual([v["command"][2] for v in plan["variants"]],
                         [r"printf %s 'a\d+'", "printf %s 'b,c'", r"printf %s 'd\'"])
        with open(self.path("ev", "runs", plan["variants"][0]["name"], "run-1", "test.log")) as f:
            self.assertEqual(f.read(), r"a\d+")

    def test_decimal_range_named_by_a_template(self):
        self.bench("-P", "d", "0", "0.02", "-D", "0.01", "-n", "nap-{d}", "sleep {d}", "-r", "1",
                   "--unsigned", "--out", "ev", "--save-plan", "p.json")
        plan = self.load("ev", "plan.json")
        self.assertEqual([(v["name"], v["command"][2]) for v in plan["variants"]],
                         [("nap-0.00", "sleep 0.00"), ("nap-0.01", "sleep 0.01"),
                          ("nap-0.02", "sleep 0.02")])
        self.assertEqual(self.load("p.json")["variants"], plan["variants"])
        result = self.load("ev", "result.json")
        self.assertEqual(result["comparison"]["reference"], "nap-0.00")
        self.assertEqual(sorted(i["variant"] for i in result["invocations"]),
                         ["nap-0.00", "nap-0.01", "nap-0.02"])

    def test_each_bad_scan_refused_naming_its_option(self):
        for args, words in (
                (["-P", "t", "1", "3", "-D", "0", "echo {t}"], "-D 0: the step must be more than 0"),
                (["-P", "t", "1", "3", "-D", "-1", "echo {t}"], "-D -1: the step must be more"),
                (["-P", "t", "one", "3", "echo {t}"], "-P t: MIN 'one' is no number"),
                (["-P", "t", "1", "3x", "echo {t}"], "-P t: MAX '3x' is no number"),
                (["-L", "t", "1", "-L", "t", "2", "echo {t}"], "parameter 't' is scanned twice"),
                (["-L", "{t}", "1", "echo {t}"], "-L '{t}': a parameter's name is a word"),
                (["-P", "t", "1", "2", "echo"], "no command has '{t}' for -P t to replace"),
                (["-L", "a", "1,2,3,4,5", "-L", "b", "1,2,3,4", "echo {a}{b}"],
                 "the scan makes more than 16 commands"),
                (["-L", "t", "1,2,3,4,5,6,7,8,9", "echo {t}", "true {t}"],
                 "the scan makes more than 16 commands"),
                (["-L", "t", "1,2", "-n", "same", "echo {t}"],
                 "-n 'same' would name all 2 commands the scan makes alike: put {t} in it"),
                (["-P", "t", "1", "2", "-P", "u", "1", "2", "echo {t}{u}"],
                 "option '--parameter-scan' given more than once"),
                (["echo {t}", "-P", "t", "1"], "'--parameter-scan' needs 3 values: VAR MIN MAX")):
            with self.subTest(args=args):
                for cmd in (["bench", *QUIET_LOAD], ["init", "--from-bench"]):
                    cp = self.run_in(*cmd, "--out", "ev", *args, check=2)
                    self.assertIn(words, cp.stderr)
                    self.assertFalse(os.path.exists(self.path("ev")))

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
        # A run that timed out still fails too: -i allows exit codes, nothing else.
        self.run_in("init", "--from-bench", "-i", "-r", "1", "sleep 60", "--out", "t.json",
                    check=0)
        plan = self.load("t.json")
        self.assertEqual(plan["allowed_exit_codes"], list(range(256)))
        plan["schedule"].update(timeout_seconds=0.5, kill_grace_seconds=0.5)
        with open(self.path("t.json"), "w") as f:
            json.dump(plan, f)
        self.run_in("run", "t.json", "--out", "ev4", "--unsigned", *QUIET_LOAD, check=1)
        self.assertEqual([i["status"] for i in self.invocations("ev4")], ["timed_out"])
        # Without -i an exit code other than 0 fails the run, as before.
        cp = self.bench("exit 3", "-r", "2", "--unsigned", "--out", "ev3", check=1)
        self.assertIn("exited with code 3", cp.stdout)

    def test_help_names_the_scans(self):
        out = self.run_in("bench", "--help", check=0).stdout
        for opt in ("-L, --parameter-list VAR VALUES", "-P, --parameter-scan VAR MIN MAX",
                    "-D, --parameter-step-size STEP", "-i, --ignore-failure"):
            self.assertIn(opt, out)
        self.assertTrue(QUIET_LOAD)
