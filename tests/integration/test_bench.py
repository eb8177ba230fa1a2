"""abev bench and abev init: comparisons without a plan file, and starter
plans. A bench writes the evidence abev run writes (report, export and the
SHA256 manifest accept it), its plan reruns with abev run, hyperfine's
options reach the plan, a prepare step runs before every invocation, and
abev init writes plans that --dry-run accepts and that run.

Every bench passes --max-cpu-wait-pct 100: the machine is shared, and a
slot discarded for contention is not what these tests are about."""
import glob
import json
import os
import re
import shutil
import subprocess
import unittest

from common import ABEV, AbevTestCase

QUIET_LOAD = ("--max-cpu-wait-pct", "100")


class BenchTestCase(AbevTestCase):
    def run_in(self, *args, cwd=None, check=None, timeout=300):
        """abev with args in cwd (default: the scratch directory)."""
        cp = subprocess.run([ABEV, *args], capture_output=True, text=True, timeout=timeout,
                            cwd=cwd or self.tmp, stdin=subprocess.DEVNULL)
        if check is not None:
            self.assertEqual(cp.returncode, check,
                             f"abev {' '.join(args)} exited {cp.returncode}\n"
                             f"stdout:\n{cp.stdout}\nstderr:\n{cp.stderr}")
        return cp

    def bench(self, *args, check=0):
        return self.run_in("bench", *args, *QUIET_LOAD, check=check)

    def invocations(self, d):
        return self.load(d, "result.json")["invocations"]


class TestBench(BenchTestCase):
    def test_compares_commands_without_a_plan(self):
        cp = self.bench("sleep 0.01", "sleep 0.012", "-r", "3", "--out", "ev")
        self.assertRegex(cp.stdout, r"(?m)^decision: no decision")
        self.assertRegex(cp.stdout, r"(?m)^  sleep-0\.012 +wall ")
        self.assertIn("not signed", cp.stderr)
        plan = self.load("ev", "plan.json")
        self.assertEqual(plan["schema"], "abev.plan/1")
        self.assertEqual([v["name"] for v in plan["variants"]], ["sleep-0.01", "sleep-0.012"])
        self.assertEqual(plan["variants"][0]["command"], ["sh", "-c", "sleep 0.01"])
        self.assertEqual(plan["variants"][0]["cwd"], os.path.realpath(self.tmp))
        result = self.load("ev", "result.json")
        self.assertEqual(result["status"], "completed")
        self.assertEqual(result["comparison"]["reference"], "sleep-0.01")
        invs = result["invocations"]
        # No order given: none in the plan, whose default is balanced: A B, B A, A B.
        self.assertNotIn("order", plan["schedule"])
        self.assertEqual((result["schedule"]["order"], result["schedule"]["order_from"]),
                         ("balanced", "default"))
        self.assertEqual([i["variant"] for i in invs],
                         ["sleep-0.01", "sleep-0.012", "sleep-0.012", "sleep-0.01",
                          "sleep-0.01", "sleep-0.012"])
        self.assertTrue(all(i["status"] == "ok" and "prepare" not in i for i in invs))

        # The evidence is abev run's: the manifest checks, report and export read it.
        if shutil.which("sha256sum"):
            cp = subprocess.run(["sha256sum", "--quiet", "-c", "SHA256"], cwd=self.path("ev"),
                                capture_output=True, text=True)
            self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        rep = self.run_in("report", "ev", check=0)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertEqual(rep.stdout, f.read())
        csv = self.run_in("export", "ev", "--format", "csv", check=0)
        self.assertIn("sleep-0.012", csv.stdout)
        self.run_in("compare", "ev", "ev", check=0)

    def test_summary_says_times_include_the_shell(self):
        # hyperfine subtracts the shell's start-up; abev does not, and says so, but only
        # when the commands ran through sh -c.
        note = "note: times include the shell's start-up (sh -c); -N runs without a shell"
        cp = self.bench("true", "true", "-r", "2", "--out", "sh")
        self.assertIn(note, cp.stdout.splitlines())
        cp = self.bench("-N", "true", "true", "-r", "2", "--out", "nosh")
        self.assertNotIn("start-up", cp.stdout)

    def test_summary_columns_line_up_for_long_names(self):
        # Names wider than the default columns (12 and 16 characters; µ is two
        # bytes and one column): every row's columns start alike.
        cp = self.bench("-n", "b", "true", "-n", "a-very-long-variant-name", "true",
                        "--metric", "user cpu time µ-long=process:user", "-r", "2",
                        "--out", "ev")
        rows = [l for l in cp.stdout.splitlines() if l.startswith("  a-very-long")]
        self.assertGreaterEqual(len(rows), 4, cp.stdout)
        names = [n for n in ("wall", "cpu", "max_rss", "wall_own", "user cpu time µ-long")
                 if f" {n} " in cp.stdout]
        # The metric column starts one blank after the widest variant name,
        # the figures one blank after the widest metric name.
        metric_at = len("  a-very-long-variant-name ")
        figures_at = metric_at + len("user cpu time µ-long ")
        for row in rows:
            name = [n for n in names if row[metric_at:].startswith(n + " ")]
            self.assertEqual(len(name), 1, rows)
            self.assertEqual(row[metric_at + len(name[0]):figures_at].strip(), "", rows)
            self.assertNotEqual(row[figures_at], " ", rows)

    def test_hyperfines_options(self):
        # Those abev takes work as in hyperfine: names, no shell, exports at the end.
        out = self.path("ev")
        files = {k: self.path("x." + k) for k in ("json", "csv", "md")}
        self.abev("bench", "-r", "2", "--command-name", "one", "true", "--command-name", "two",
                  "--shell", "none", "true", "--out", out, "--export-json", files["json"],
                  "--export-csv", files["csv"], "--export-markdown", files["md"], check=0)
        with open(files["json"]) as f:
            doc = json.load(f)
        # hyperfine's files: the command line, a row per command (test_export_hyperfine.py).
        self.assertEqual([r["command"] for r in doc["results"]], ["true", "true"])
        self.assertEqual([len(r["times"]) for r in doc["results"]], [2, 2])
        with open(files["csv"]) as f:
            self.assertEqual(f.readline(), "command,mean,stddev,median,user,system,min,max\n")
        with open(files["md"], encoding="utf-8") as f:
            self.assertTrue(f.readline().startswith("| Command | Mean ["))
        res = self.load("ev", "result.json")
        self.assertEqual(res["invocations"][0]["argv"], ["true"])
        # An export file that exists is not replaced: refused before anything runs.
        cp = self.abev("bench", "true", "--export-csv", files["csv"], "--out", self.path("ev2"),
                       check=2)
        self.assertIn("already exists", cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev2")))
        # So is one abev could not create at the end (issue 33 §3): a missing
        # directory, or a file where the directory should be; no run is lost.
        for bad in ("no-such-dir/x.json", os.path.join(files["csv"], "x.json")):
            cp = self.abev("bench", "true", "--export-json", self.path(bad), "--out",
                           self.path("ev2"), check=2)
            self.assertIn(f"--export-json '{self.path(bad)}'", cp.stderr)
            self.assertFalse(os.path.exists(self.path("ev2")))
        # An export file inside the evidence this run writes (issue 29 §10): refused
        # before anything runs, as its manifest would not list it.
        for inside in ("ev3/x.json", "./ev3/sub/../x.json"):
            cp = self.abev("bench", "true", "--export-json", self.path(inside), "--out",
                           self.path("ev3"), check=2)
            self.assertIn("lies inside the evidence directory", cp.stderr)
            self.assertFalse(os.path.exists(self.path("ev3")))
        # Those it does not take are refused with what abev does instead.
        for args, words in ((["--conclude", "make"], "test.log and stderr.log"),
                            (["--input", "f"], "give the command its input itself"),
                            (["--time-unit", "ms"], "the unit that suits it"),
                            (["--show-output"], "test.log"),
                            (["-p", "make"], "abev spells it --prepare CMD"),
                            (["-V"], "'abev --version' prints abev's")):
            cp = self.abev("bench", *args, "true", "false", check=2)
            self.assertIn(f"'{args[0]}' is hyperfine's and 'abev bench' does not take it: ",
                          cp.stderr)
            self.assertIn(words, cp.stderr)
        cp = self.abev("bench", "--shell", "bash", "true", check=2)
        self.assertIn("'--shell' takes 'none' (-N) or 'sh'", cp.stderr)
        # As hyperfine: -N is --shell none, and 'default' is sh.
        for args in (["-N", "--shell", "sh"], ["--shell", "default", "-N"]):
            cp = self.abev("bench", *args, "true", check=2)
            self.assertIn("'-N' (--shell none) and '--shell sh' contradict each other",
                          cp.stderr)
        self.abev("bench", "-S", "default", "-r", "1", "true", "--out", self.path("ev4"),
                  check=0)
        self.assertEqual(self.load("ev4", "result.json")["invocations"][0]["argv"],
                         ["sh", "-c", "true"])
        # A Perl \d would match the letter d: refused, saying what to write.
        cp = self.abev("bench", "--metric", "t[ms]=stdout:t=(\\d+)", "true", check=2)
        self.assertIn("\\d and \\D are Perl's", cp.stderr)
        self.assertIn("use [0-9]", cp.stderr)
        # Unknown options get the nearest one.
        cp = self.abev("bench", "--warmpu", "1", "true", check=2)
        self.assertIn("did you mean '--warmup'?", cp.stderr)

    def test_until_decided_stops_when_the_gate_decides(self):
        # A command three times as slow against a 5 % gate on wall time: decided at a
        # look well before the 24 rounds allowed, and rejected.
        cp = self.bench("sleep 0.01", "sleep 0.03", "--until-decided", "24",
                        "--max-regression", "wall=5", "--max-regression", "max_rss=50",
                        "--unsigned", "--out", "ev", check=5)
        plan = self.load("ev", "plan.json")
        self.assertEqual(plan["schedule"]["until"], "decided")
        self.assertEqual(plan["schedule"]["max_rounds"], 24)
        self.assertNotIn("runs", plan["schedule"])
        self.assertEqual(plan["gates"], {"wall": {"max_regression_pct": 5},
                                         "max_rss": {"max_regression_pct": 50}})
        result = self.load("ev", "result.json")
        seq = result["comparison"]["sequential"]
        self.assertIsNotNone(seq["decided_after_round"])
        self.assertLess(seq["decided_after_round"], 24)
        self.assertEqual(seq["taken"][-1]["decision"], "rejected")
        rounds = {i["round"] for i in result["invocations"] if i["phase"] == "run"}
        self.assertEqual(max(rounds), seq["decided_after_round"])
        self.assertIn("looks:    after round", cp.stdout)
        self.assertRegex(cp.stdout, r"(?m)^decision: rejected")

    def test_inconclusive_exits_6_unless_it_may_pass(self):
        # Issue 39 §3: a gate that cannot be decided fails the run by default (exit
        # 6); --inconclusive-pass writes decision.inconclusive "pass": exit 0. The
        # candidate's figure spreads from 0 % to +30 % around a 15 % limit.
        cand = 'set -- 200 260 210 250 230 220 240; shift $((ABEV_ROUND - 1)); echo "t=$1"'
        args = ("echo t=200", cand, "-r", "7", "--metric", "t[ms]=stdout:t=([0-9.]+)",
                "--max-regression", "t=15", "--unsigned")
        cp = self.bench(*args, "--out", "ev", check=6)
        self.assertRegex(cp.stdout, r"(?m)^decision: inconclusive")
        self.assertEqual(self.load("ev", "result.json")["comparison"]["inconclusive"], "fail")
        self.assertNotIn("decision", self.load("ev", "plan.json"))
        cp = self.bench(*args, "--inconclusive-pass", "--out", "ev2", check=0)
        self.assertRegex(cp.stdout, r"(?m)^decision: inconclusive")
        self.assertEqual(self.load("ev2", "plan.json")["decision"], {"inconclusive": "pass"})
        self.assertEqual(self.load("ev2", "result.json")["comparison"]["inconclusive"], "pass")

    def test_default_out_is_named_after_the_commands(self):
        self.bench("true", "sleep 0.01", "-r", "1", "--quiet")
        dirs = glob.glob(self.path("abev-evidence", "*"))
        self.assertEqual(len(dirs), 1, dirs)
        self.assertRegex(os.path.basename(dirs[0]), r"^\d{8}T\d{6}Z-true-vs-sleep-0\.01$")
        self.assertEqual(self.load(dirs[0], "result.json")["status"], "completed")

    def test_saved_plan_reruns_with_abev_run(self):
        self.bench("sleep 0.01", "sleep 0.012", "-r", "2", "--out", "a", "--save-plan", "p.json",
                   "--unsigned")
        with open(self.path("p.json"), "rb") as f:
            saved = f.read()
        with open(self.path("a", "plan.json"), "rb") as f:
            self.assertEqual(f.read(), saved)
        cp = self.run_in("run", "p.json", "--out", "b", "--unsigned", *QUIET_LOAD, check=0)
        self.assertRegex(cp.stdout, r"(?m)^decision: ")
        with open(self.path("b", "plan.json"), "rb") as f:
            self.assertEqual(f.read(), saved)
        self.assertEqual(len(self.invocations("b")), 4)
        # The report's reproduce command names the saved plan.
        with open(self.path("a", "report.md"), encoding="utf-8") as f:
            self.assertIn("abev run p.json --out NEW_DIR --unsigned", f.read())
        # --save-plan never overwrites.
        self.bench("true", "true", "-r", "1", "--out", "c", "--save-plan", "p.json", check=2)
        self.assertFalse(os.path.exists(self.path("c")))

    def test_hyperfine_options_reach_the_plan(self):
        self.bench("-N", "-n", "first", "-n", "second", "-r", "2", "-w", "1", "--order",
                   "reverse", "--gap", "0.01", "--out", "ev", "--quiet",
                   "sh -c 'exit 0'", "printf '%s' '{not a placeholder}'")
        plan = self.load("ev", "plan.json")
        self.assertEqual([v["name"] for v in plan["variants"]], ["first", "second"])
        self.assertEqual(plan["variants"][0]["command"], ["sh", "-c", "exit 0"])
        self.assertEqual(plan["variants"][1]["command"],
                         ["printf", "%s", "{{not a placeholder}}"])
        self.assertEqual(plan["schedule"], {"warmups": 1, "runs": 2, "order": "reverse",
                                            "gap_seconds": 0.01})
        invs = self.invocations("ev")
        self.assertEqual([(i["variant"], i["phase"]) for i in invs],
                         [("first", "warmup"), ("second", "warmup"), ("first", "run"),
                          ("second", "run"), ("second", "run"), ("first", "run")])
        # Braces are taken literally: the command printed them.
        run = [i for i in invs if i["variant"] == "second"][0]
        with open(self.path("ev", run["dir"], "test.log"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "{not a placeholder}")

    def test_results_and_min_executed(self):
        junit = ("printf '<testsuite><testcase name=\"a\"/><testcase name=\"b\"/></testsuite>'"
                 " > \"$ABEV_RUN_DIR/r.xml\"")
        self.bench(junit, junit, "-r", "1", "--results", "{run_dir}/r.xml",
                   "--min-executed", "2", "--out", "ok", "--quiet")
        self.assertEqual([i["tests"]["executed"] for i in self.invocations("ok")], [2, 2])
        self.bench(junit, junit, "-r", "1", "--results", "{run_dir}/r.xml",
                   "--min-executed", "3", "--out", "few", "--quiet", check=1)

    def test_json(self):
        cp = self.bench("true", "true", "-r", "2", "--out", "ev", "--json")
        doc = json.loads(cp.stdout)
        self.assertEqual(doc, self.load("ev", "result.json")["comparison"])


class TestBenchPrepare(BenchTestCase):
    def test_prepare_runs_before_every_invocation(self):
        # Each measured run needs the marker that only the prepare step makes.
        self.bench("rm marker", "rm marker", "--prepare", "echo x >> count; touch marker",
                   "-w", "1", "-r", "2", "--out", "ev", "--quiet")
        invs = self.invocations("ev")
        self.assertEqual(len(invs), 6)
        with open(self.path("count"), encoding="utf-8") as f:
            self.assertEqual(len(f.read().splitlines()), 6)
        for i in invs:
            self.assertEqual(i["status"], "ok", i["reason"])
            self.assertEqual(i["prepare"]["status"], "ok")
            self.assertEqual(i["prepare"]["argv"][-1], "echo x >> count; touch marker")
            self.assertTrue(os.path.isfile(self.path("ev", i["dir"], "prepare.log")))
        self.assertEqual(self.load("ev", "plan.json")["schedule"]["prepare"],
                         ["sh", "-c", "echo x >> count; touch marker"])

    def test_prepare_per_command(self):
        self.bench("test \"$(cat f)\" = a", "test \"$(cat f)\" = b", "--prepare", "echo a > f",
                   "--prepare", "echo b > f", "-r", "2", "--out", "ev", "--quiet")
        self.assertTrue(all(i["status"] == "ok" for i in self.invocations("ev")))
        plan = self.load("ev", "plan.json")
        self.assertEqual([v["prepare"][-1] for v in plan["variants"]], ["echo a > f", "echo b > f"])
        self.bench("true", "true", "--prepare", "a", "--prepare", "b", "--prepare", "c",
                   check=2)

    def test_failed_prepare_fails_the_invocation(self):
        cp = self.bench("echo measured", "true", "--prepare", "echo no; exit 3",
                        "--prepare", "true", "-r", "1", "--out", "ev", check=1)
        first = self.invocations("ev")[0]
        self.assertEqual(first["status"], "failed")
        self.assertIn("prepare command exited with code 3", first["reason"])
        self.assertEqual(first["prepare"]["exit_code"], 3)
        with open(self.path("ev", first["dir"], "prepare.log"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "no\n")
        # The measured command did not run.
        self.assertFalse(os.path.exists(self.path("ev", first["dir"], "test.log")))
        self.assertEqual(self.invocations("ev")[1]["status"], "ok")
        self.assertIn("evidence:", cp.stdout)

    def test_plan_prepare_in_abev_run(self):
        plan = {"schema": "abev.plan/1", "name": "p",
                "variants": [{"name": "a", "command": ["sh", "-c", "rm m"]},
                             {"name": "b", "command": ["sh", "-c", "rm m"],
                              "prepare": ["sh", "-c", "touch m; echo own >> log"]}],
                "schedule": {"runs": 2, "prepare": ["touch", "m"]},
                "load": {"max_cpu_wait_pct": 100}}
        self.write_plan(plan)
        self.run_in("run", "plan.json", "--out", "ev", "--unsigned", "-q", check=0)
        invs = self.invocations("ev")
        # a b, b a: the plan names no order.
        self.assertEqual([i["prepare"]["argv"][0] for i in invs], ["touch", "sh", "sh", "touch"])
        with open(self.path("log"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "own\nown\n")


class TestBenchUsage(BenchTestCase):
    def test_usage_errors(self):
        for args, what in [((), "no command given"),
                           (("a", "b", "-r", "0"), "--runs"),
                           (("a", "b", "-r", "x"), "--runs"),
                           (("a", "b", "--gap", "-1"), "--gap"),
                           (("a", "b", "--order", "random"), "unknown order"),
                           (("a", "b", "--min-executed", "1"), "needs --results"),
                           (("a", "-n", "x", "-n", "y"), "2 names"),
                           (("-N", "echo 'x", "b"), "unclosed"),
                           (("a", "b", "--key", "k", "--unsigned"), "contradict"),
                           (("a", "b", "--bogus"), "unknown option"),
                           # The 17th command was an "unexpected argument".
                           (("true",) * 17, "more than 16 commands given: abev bench "
                            "compares at most 16"),
                           (("true",) * 40, "more than 16 commands given"),
                           # Was renamed to "x" silently.
                           (("-n", "../x", "true", "true"), "-n '../x' is not a valid "
                            "variant name (use letters, digits"),
                           (("-n", ".x", "true", "true"), "-n '.x' is not a valid"),
                           # Was accepted: 'a' and 'A' are one directory where case is ignored.
                           (("-n", "a", "true", "-n", "A", "true"),
                            "-n 'a' and -n 'A' name two commands alike"),
                           (("a", "b", "--until-decided", "8"), "needs a gate to decide: add "
                            "'--max-regression [METRIC=]P'"),
                           (("a", "b", "--until-decided", "8", "-r", "3",
                             "--max-regression", "5"), "leave out '--runs'"),
                           (("a", "b", "--until-decided", "0", "--max-regression", "5"),
                            "'--until-decided' must be a whole number"),
                           (("a", "b", "--max-regression", "wall=-3"),
                            "--max-regression 'wall=-3': expected [METRIC=]P"),
                           (("a", "b", "--max-regression", "5", "--max-regression",
                             "wall_own=7"),
                            "--max-regression given twice for 'wall_own'")]:
            with self.subTest(args=args):
                cp = self.run_in("bench", *args, check=2)
                self.assertIn(what, cp.stderr)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_out_must_not_exist(self):
        os.mkdir(self.path("ev"))
        cp = self.bench("true", "true", "--out", "ev", check=2)
        self.assertIn("already exists", cp.stderr)

    def test_min_and_max_runs_as_in_hyperfine(self):
        # With a gate, -M N is --until-decided N and -m N the rounds before the first look.
        self.bench("true", "true", "-M", "12", "-m", "7", "--max-regression", "wall=50",
                   "--unsigned", "--out", "ev", check=None)
        sched = self.load("ev", "plan.json")["schedule"]
        self.assertEqual((sched["until"], sched["max_rounds"], sched["min_rounds"]),
                         ("decided", 12, 7))
        self.assertNotIn("runs", sched)
        # Without one, a fixed count: -M's, else -m's.
        self.bench("true", "-M", "3", "--unsigned", "--out", "ev2")
        self.assertEqual(self.load("ev2", "plan.json")["schedule"]["runs"], 3)
        self.bench("true", "-m", "2", "-M", "4", "--unsigned", "--out", "ev3")
        self.assertEqual(self.load("ev3", "plan.json")["schedule"]["runs"], 4)
        # -m alone: hyperfine's is a floor under a time target abev has not got.
        for args, words in ((["-M", "3", "-r", "2"], "leave out '--runs'"),
                            (["-m", "5", "-M", "3"], "'-m' asks for more runs than '-M'"),
                            (["-m", "3"], "give '-r N' for exactly N runs"),
                            (["-m", "3", "--max-regression", "wall=5"], "'-m N -M MAX'")):
            cp = self.bench("true", *args, "--out", "bad", check=2)
            self.assertIn(words, cp.stderr)
        self.assertFalse(os.path.exists(self.path("bad")))

    def test_cpus_pins_every_command(self):
        # --cpus is the plan's schedule.cpus: each invocation records the CPUs it ran on.
        cpu = str(sorted(os.sched_getaffinity(0))[0])
        self.bench("true", "sh -c true", "-r", "2", "--cpus", cpu, "--unsigned",
                   "--out", "ev")
        self.assertEqual(self.load("ev", "plan.json")["schedule"]["cpus"], cpu)
        self.assertEqual({i["cpus"] for i in self.invocations("ev")}, {cpu})
        # A list that is none is refused before anything runs, naming the option; the
        # note on unsigned evidence is said only of evidence that was sealed.
        cp = self.bench("true", "--cpus", "3-1", "--out", "ev2", check=2)
        self.assertIn("--cpus: '3-1'", cp.stderr)
        self.assertNotIn("not signed", cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev2")))
        # A CPU abev may not run on is a problem of this machine, found before the first
        # run: in bench's plan, and in a plan's variant, even with --dry-run.
        away = max(os.sched_getaffinity(0)) + 1
        cp = self.bench("true", "--cpus", str(away), "--out", "ev3", check=2)
        self.assertIn(f"schedule.cpus: CPU {away} is not one abev may run on here",
                      cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev3")))
        self.run_in("init", "--from-bench", "true", "true", "--out", "p.json", check=0)
        plan = self.load("p.json")
        plan["variants"][1]["cpus"] = str(away)
        with open(self.path("p.json"), "w", encoding="utf-8") as f:
            json.dump(plan, f)
        cp = self.run_in("run", "p.json", "--dry-run", check=2)
        self.assertIn(f"p.json: variants[1].cpus: CPU {away} is not one abev may run on",
                      cp.stderr)
        self.assertIn("(variant 'true-2')", cp.stderr)

    def test_help(self):
        cp = self.run_in("bench", "--help", check=0)
        for opt in ("--runs", "--warmup", "--name", "--no-shell", "--prepare", "--gap",
                    "--order", "--results", "--min-executed", "--out", "--key", "--save-plan"):
            self.assertIn(opt, cp.stdout)
        self.assertIn("bench", self.run_in("--help", check=0).stdout)


class TestInit(BenchTestCase):
    KEYS = {"schema", "name", "description", "variants", "schedule", "results", "load",
            "metrics", "allowed_exit_codes", "gates", "decision"}

    def test_starter_plan_checks_and_runs(self):
        cp = self.run_in("init", check=0)
        self.assertIn("plan.json", cp.stdout)
        plan = self.load("plan.json")
        self.assertEqual(set(plan), self.KEYS)
        self.assertEqual(set(plan["schedule"]), {"warmups", "runs", "order", "seed",
                                                 "gap_seconds", "timeout_seconds",
                                                 "kill_grace_seconds"})
        self.assertEqual(set(plan["results"]), {"files", "min_executed"})
        self.assertIn("max_cpu_wait_pct", plan["load"])
        for v in plan["variants"]:
            self.assertEqual(set(v), {"name", "cwd", "command"})
        dry = self.run_in("run", "plan.json", "--dry-run", check=0)
        self.assertIn("baseline", dry.stdout)
        cp = self.run_in("run", "plan.json", "--out", "ev", "--unsigned", "-q", *QUIET_LOAD)
        # The example gate may judge either way, or stay inconclusive (exit 6 by
        # default), on a busy machine; the run itself must pass.
        self.assertIn(cp.returncode, (0, 5, 6), cp.stderr)
        result = self.load("ev", "result.json")
        self.assertEqual(result["status"], "completed")
        self.assertTrue(all(i["tests"]["executed"] == 1 for i in result["invocations"]))

    def test_refuses_to_overwrite(self):
        with open(self.path("plan.json"), "w", encoding="utf-8") as f:
            f.write("mine\n")
        cp = self.run_in("init", check=2)
        self.assertIn("already exists", cp.stderr)
        with open(self.path("plan.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "mine\n")

    def test_from_bench(self):
        # A starter has a gate: 4 rounds, the fewest that can decide it.
        self.run_in("init", "--from-bench", "-r", "4", "-n", "old", "--prepare", "true",
                    "sleep 0.01", "sleep 0.012", "--out", "b.json", check=0)
        plan = self.load("b.json")
        self.assertEqual([v["name"] for v in plan["variants"]], ["old", "sleep-0.012"])
        self.assertEqual(plan["variants"][1]["command"], ["sh", "-c", "sleep 0.012"])
        self.assertEqual(plan["schedule"]["runs"], 4)
        self.assertEqual(plan["schedule"]["prepare"], ["sh", "-c", "true"])
        self.assertNotIn("results", plan)
        self.run_in("run", "b.json", "--dry-run", check=0)
        cp = self.run_in("run", "b.json", "--out", "ev", "--unsigned", "-q", *QUIET_LOAD)
        self.assertIn(cp.returncode, (0, 5, 6), cp.stderr)
        self.assertEqual(len(self.invocations("ev")), 8)
        # The same generator as abev bench: the same variants and schedule.
        self.bench("-r", "4", "-n", "old", "--prepare", "true", "sleep 0.01", "sleep 0.012",
                   "--out", "bev", "--quiet")
        bench_plan = self.load("bev", "plan.json")
        # The bench records where it ran; init writes "." beside the plan in the same place.
        self.assertEqual([v["cwd"] for v in plan["variants"]], [".", "."])
        for v in bench_plan["variants"]:
            self.assertEqual(v.pop("cwd"), os.path.realpath(self.tmp))
        self.assertEqual(bench_plan["variants"],
                         [{k: v[k] for k in v if k != "cwd"} for v in plan["variants"]])
        for k, v in bench_plan["schedule"].items():
            self.assertEqual(plan["schedule"][k], v)

    def test_dotnet_starter(self):
        # Checked against real dotnet test in test_dotnet.py; here its shape.
        self.run_in("init", "--dotnet", "--out", "d.json", check=0)
        plan = self.load("d.json")
        self.assertEqual(set(plan), self.KEYS | {"versions", "dotnet_runtime"})
        self.assertEqual(set(plan["versions"]), {"dotnet", "runtimes", "packages"})
        self.assertEqual(plan["versions"]["dotnet"], ["dotnet", "--version"])
        self.assertEqual(plan["versions"]["runtimes"], ["dotnet", "--list-runtimes"])
        # The test host's runtime figures, from abev's startup hook.
        self.assertIs(plan["dotnet_runtime"], True)
        rt = [m for m in plan["metrics"] if m["source"] == "dotnet"]
        self.assertEqual([(m["field"], m["process"]) for m in rt],
                         [("allocated_bytes", "testhost*"), ("gc_pause_us", "testhost*"),
                          ("lock_contentions", "testhost*")])
        self.assertEqual(plan["results"], {"files": "{run_dir}/*.trx", "min_executed": 1})
        for v in plan["variants"]:
            self.assertEqual(v["command"][:3], ["dotnet", "test", "--no-build"])
            self.assertIn("trx;LogFileName={run_dir}/tests.trx", v["command"])
            # A hung test is named by dotnet's blame collector, before abev's timeout.
            hang = v["command"][v["command"].index("--blame-hang-timeout") + 1]
            self.assertRegex(hang, r"^[0-9]+s$")
            self.assertLess(int(hang[:-1]), plan["schedule"]["timeout_seconds"])
            self.assertEqual(v["env"]["MSBUILDDISABLENODEREUSE"], "1")
            self.assertEqual(v["env"]["DOTNET_CLI_USE_MSBUILD_SERVER"], "0")
            self.assertEqual(v["cwd"], f"../{v['name']}/tests/MyLibrary.Tests")
            self.assertEqual(v["assemblies"], ["bin/Release/net*/MyLibrary.Tests.dll"])
        # Rounds until its three gates are decided (issue 39), not a fixed number.
        self.assertEqual((plan["schedule"]["warmups"], plan["schedule"]["until"],
                          plan["schedule"]["max_rounds"]), (1, "decided", 32))
        self.assertNotIn("runs", plan["schedule"])
        # The test host's own memory and CPU are gated, not the dotnet CLI's.
        self.assertEqual(set(plan["gates"]), {"wall_own", "testhost_max_rss", "testhost_cpu"})
        named = {m["name"]: (m["field"], m["process"]) for m in plan["metrics"]
                 if "process" in m and m["source"] == "process"}
        self.assertEqual(named, {"testhost_max_rss": ("max_rss", "testhost*"),
                                 "testhost_cpu": ("cpu", "testhost*")})
        # Its variants' directories are the user's to fill in: the dry run names them.
        dry = self.run_in("run", "d.json", "--dry-run", check=2)
        self.assertIn("variants[0].cwd", dry.stderr)
        self.run_in("init", "--dotnet", "--from-bench", "true", "--out", "e.json", check=2)

    # obj/project.assets.json as NuGet writes it (trimmed): YamlDotNet comes through a
    # project reference, the test framework is a direct dependency.
    ASSETS = """{
  "version": 4,
  "targets": {
    "net10.0": {
      "xunit/2.9.3": {
        "type": "package"
      },
      "YamlDotNet/16.3.0": {
        "type": "package"
      }
    }
  },
  "libraries": {
    "Microsoft.NET.Test.Sdk/18.0.1": {
      "sha512": "x",
      "type": "package"
    },
    "Newtonsoft.Json/13.0.3": {
      "type": "package"
    },
    "xunit/2.9.3": {
      "type": "package"
    },
    "YamlDotNet/16.3.0": {
      "type": "package",
      "files": [
        "lib/net8.0/YamlDotNet.dll"
      ]
    },
    "MyLibrary/1.0.0": {
      "type": "project",
      "path": "../../src/MyLibrary/MyLibrary.csproj"
    }
  },
  "projectFileDependencyGroups": {
    "net10.0": [
      "Microsoft.NET.Test.Sdk >= 18.0.1",
      "MyLibrary >= 1.0.0",
      "xunit >= 2.9.3"
    ]
  },
  "project": {
    "frameworks": {
      "net10.0": {
        "dependencies": {
          "xunit": {
            "target": "Package",
            "version": "[2.9.3, )"
          }
        }
      }
    }
  }
}
"""

    def test_dotnet_packages(self):
        # The versions and assemblies of the project and the packages named, not every dll.
        self.run_in("init", "--dotnet", "--project", "test/Yaml.Tests", "--package", "YamlDotNet",
                    "--package", "Missing.Pkg", "--out", "d.json", check=0)
        plan = self.load("d.json")
        for v in plan["variants"]:
            self.assertEqual(v["cwd"], f"../{v['name']}/test/Yaml.Tests")
            self.assertEqual(v["assemblies"], ["bin/Release/net*/Yaml.Tests.dll",
                                               "bin/Release/net*/YamlDotNet.dll",
                                               "bin/Release/net*/Missing.Pkg.dll"])
        cmd = plan["versions"]["packages"]
        self.assertEqual(cmd[0], "awk")
        os.makedirs(self.path("proj", "obj"))
        with open(self.path("proj", "obj", "project.assets.json"), "w") as f:
            f.write(self.ASSETS)
        out = subprocess.run(cmd, cwd=self.path("proj"), capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        # Direct dependencies and the named package at their resolved versions, in
        # the file's order; the transitive Newtonsoft.Json left out.
        self.assertEqual(out.stdout.splitlines(),
                         ["Microsoft.NET.Test.Sdk 18.0.1", "xunit 2.9.3", "YamlDotNet 16.3.0",
                          "MyLibrary 1.0.0", "Missing.Pkg: not restored"])
        for bad in (["--package", "a b"], ["--package", "X", "--package", "x"],
                    ["--project", "../x"], ["--project", "/abs"], ["--project", "a/b c"]):
            cp = self.run_in("init", "--dotnet", *bad, "--out", "bad.json", check=2)
            self.assertRegex(cp.stderr, r"--package|--project|assembly name")
        self.run_in("init", "--package", "X", "--out", "bad.json", check=2)
        self.assertFalse(os.path.exists(self.path("bad.json")))

    def test_dotnet_mtp_detected(self):
        # How dotnet test asks for a TRX follows how it runs the project: VSTest's
        # logger, or Microsoft.Testing.Platform's --report-trx (global.json of the
        # project's directory or one above; after '--' when only the project opts in).
        def project(path, props=""):
            os.makedirs(self.path(path))
            with open(self.path(path, os.path.basename(path) + ".csproj"), "w") as f:
                f.write('<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup>'
                        f'<TargetFramework>net10.0</TargetFramework>{props}'
                        '</PropertyGroup></Project>\n')

        project("repo/tests/Plain.Tests")
        project("repo/tests/Runner.Tests", "<EnableMSTestRunner> true </EnableMSTestRunner>")
        project("repo/tests/Off.Tests", "<EnableMSTestRunner>false</EnableMSTestRunner>")
        project("mtp/tests/Xunit3.Tests")
        with open(self.path("mtp", "global.json"), "w") as f:
            f.write('{\n  // dotnet allows comments\n  "test": { "runner": '
                    '"Microsoft.Testing.Platform" }\n}\n')
        mtp = ["--report-trx", "--report-trx-filename", "tests.trx", "--results-directory",
               "{run_dir}"]
        # VSTest's blame collector names a hung test; MTP's would need an extension.
        vstest = ["--blame-hang-timeout", "1800s", "--logger",
                  "trx;LogFileName={run_dir}/tests.trx"]
        cases = (("repo", "tests/Plain.Tests", vstest),
                 ("repo", "tests/Off.Tests", vstest),
                 ("repo", "tests/Runner.Tests", ["--"] + mtp),
                 ("mtp", "tests/Xunit3.Tests", mtp))
        for i, (top, proj, tail) in enumerate(cases):
            out = self.path(f"m{i}.json")
            cp = subprocess.run([ABEV, "init", "--dotnet", "--project", proj, "--out", out],
                                cwd=self.path(top), capture_output=True, text=True)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            plan = self.load(f"m{i}.json")
            # The tests run in VSTest's testhost, or on MTP in the project's own program.
            host = "testhost*" if tail is vstest else os.path.basename(proj) + "*"
            self.assertEqual({m["process"] for m in plan["metrics"] if "process" in m}, {host})
            for v in plan["variants"]:
                self.assertEqual(v["command"], ["dotnet", "test", "--no-build", "-c",
                                                "Release"] + tail, proj)
                self.assertEqual(v["assemblies"],
                                 [f"bin/Release/net*/{os.path.basename(proj)}.dll"])
        # A directory without its one project file is refused, and nothing written.
        os.makedirs(self.path("repo", "empty"))
        cp = subprocess.run([ABEV, "init", "--dotnet", "--project", "empty", "--out", "x.json"],
                            cwd=self.path("repo"), capture_output=True, text=True)
        self.assertEqual(cp.returncode, 2, cp.stderr)
        self.assertIn("no .csproj", cp.stderr)
        self.assertFalse(os.path.exists(self.path("repo", "x.json")))

    def test_usage(self):
        self.run_in("init", "a", "b", check=2)
        self.run_in("init", "--from-bench", check=2)
        self.run_in("init", "--out", "no/such/dir/plan.json", check=2)
        self.assertFalse(os.path.exists(self.path("plan.json")))


if __name__ == "__main__":
    unittest.main()
