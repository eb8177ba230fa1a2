"""`abev run` with test results, guards and metrics: the demo suite writes
a real TRX per run, and the evidence must carry its counts, the guards'
verdicts with their numbers, and the metrics from stdout, from the TRX
results' stdout and from test durations."""
import json
import os
import statistics
import time
import unittest

from common import DEMO, HELPER, AbevTestCase


@unittest.skipUnless(DEMO and os.access(DEMO, os.X_OK), "the demo suite is not built")
class RunWithResults(AbevTestCase):
    def plan(self, variants, runs=2, warmups=0, **extra):
        p = {
            "schema": "abev.plan/1", "name": "results",
            "variants": [
                {"name": n, "command": [DEMO, "--trx", "{run_dir}/suite.trx", *args],
                 "env": {"DEMO_IMPL": impl}}
                for n, impl, args in variants
            ],
            "schedule": {"runs": runs, "warmups": warmups},
            "results": {"files": "{run_dir}/*.trx"},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }
        p.update(extra)
        return p

    def run_it(self, plan, expect):
        p = self.write_plan(plan)
        self.abev("run", p, "--out", self.path("ev"), check=expect)
        return self.load("ev", "result.json")

    def guard(self, inv, name):
        found = [g for g in inv["guards"] if g["guard"] == name]
        self.assertEqual(len(found), 1, inv["guards"])
        return found[0]

    def test_counts_and_guards_pass(self):
        res = self.run_it(self.plan([("a", "baseline", []), ("b", "candidate", [])],
                                    warmups=1), 0)
        for inv in res["invocations"]:
            self.assertEqual(inv["status"], "ok", inv["reason"])
            self.assertEqual(inv["tests"], {"total": 6, "executed": 6, "passed": 6,
                                            "failed": 0, "errors": 0, "skipped": 0,
                                            "other": 0})
            self.assertEqual(len(inv["results"]), 1)
            self.assertEqual(inv["results"][0]["path"], inv["dir"] + "/suite.trx")
            names = [g["guard"] for g in inv["guards"]]
            if inv["phase"] == "run":
                self.assertEqual(names, ["exit_code", "min_executed", "tests_passed", "test_set",
                                         "load"])
            else:
                self.assertEqual(names, ["exit_code", "min_executed", "tests_passed"])
            self.assertTrue(self.guard(inv, "min_executed")["reason"].startswith(
                "6 of 6 test(s) executed in 1 file(s), 1 required"), inv["guards"])
        report = open(self.path("ev", "report.md")).read()
        self.assertIn("## Tests and guards", report)
        # Every guard of a recorded run passed: exit_code, min_executed, tests_passed,
        # test_set, load.
        self.assertIn(" | 5 pass |", report)

    def test_min_executed_above_the_test_count_fails_every_run(self):
        plan = self.plan([("a", "baseline", []), ("b", "candidate", [])])
        plan["results"]["min_executed"] = 7
        res = self.run_it(plan, 1)
        self.assertEqual(res["status"], "failed")
        for inv in res["invocations"]:
            self.assertEqual(inv["status"], "failed")
            g = self.guard(inv, "min_executed")
            self.assertEqual(g["verdict"], "fail")
            self.assertEqual(g["reason"], "6 of 6 test(s) executed in 1 file(s), fewer than "
                                          "the 7 required")
            self.assertIn("min_executed guard failed", inv["reason"])

    def test_no_result_file_fails(self):
        plan = self.plan([("a", "baseline", [])], runs=1)
        plan["results"]["files"] = "{run_dir}/*.nothing"
        res = self.run_it(plan, 1)
        g = self.guard(res["invocations"][0], "min_executed")
        self.assertEqual(g["verdict"], "fail")
        self.assertIn("no result file matched", g["reason"])

    def test_globstar_reads_a_trx_two_directories_deep(self):
        # results.files has `**` as assemblies have it: any number of directories.
        plan = self.plan([("a", "baseline", []), ("b", "candidate", [])], runs=1)
        for v in plan["variants"]:
            v["command"] = ["sh", "-c", "mkdir -p '{run_dir}/out/TestResults' && exec "
                            "\"$0\" --trx '{run_dir}/out/TestResults/suite.trx'", DEMO]
        plan["results"]["files"] = "{run_dir}/**/*.trx"
        p = self.write_plan(plan)
        cp = self.abev("run", p, "--out", self.path("ev"), check=0)
        res = self.load("ev", "result.json")
        for inv in res["invocations"]:
            self.assertEqual(inv["status"], "ok", inv["reason"])
            self.assertEqual(inv["tests"]["total"], 6)
            self.assertEqual([r["path"] for r in inv["results"]],
                             [inv["dir"] + "/out/TestResults/suite.trx"])
        self.assertNotIn("matched no file", cp.stderr)

    def test_a_pattern_matching_nothing_is_said_after_the_first_run(self):
        plan = self.plan([("a", "baseline", []), ("b", "candidate", [])], runs=2, warmups=1)
        plan["results"]["files"] = "{run_dir}/*/*.trx"
        p = self.write_plan(plan)
        cp = self.abev("run", p, "--out", self.path("ev"), check=1)
        res = self.load("ev", "result.json")
        said = [n for n in res["notes"] if "matched no file after the first run" in n]
        # Once, for the first (warmup) run, on the terminal and in the notes.
        self.assertEqual(len(said), 1, res["notes"])
        first = res["invocations"][0]
        self.assertEqual(first["phase"], "warmup")
        self.assertIn(f"({first['dir']})", said[0])
        self.assertIn("*/*.trx'", said[0])
        self.assertEqual(cp.stderr.count("matched no file after the first run"), 1, cp.stderr)

    def test_candidate_running_fewer_tests_is_not_comparable(self):
        res = self.run_it(self.plan([("base", "baseline", []),
                                     ("cand", "candidate", ["--only", "crc32"])]), 1)
        for inv in res["invocations"]:
            g = self.guard(inv, "test_set")
            if inv["variant"] == "base":
                self.assertEqual(g["verdict"], "pass")
            else:
                self.assertEqual(inv["tests"]["executed"], 1)
                self.assertEqual(inv["tests"]["skipped"], 5)
                self.assertEqual(g["verdict"], "fail")
                self.assertIn("not comparable", g["reason"])
                for missing in ("sort_uint32", "string_build", "matrix_multiply",
                                "prime_sieve", "distinct_keys"):
                    self.assertIn(f"'DemoSuite.{missing}'", g["reason"])
                self.assertEqual(inv["status"], "failed")

    def test_metrics_from_stdout_results_and_durations(self):
        # 6 rounds: the fewest a 95 % paired interval allows, so that the gate decides.
        plan = self.plan([("a", "baseline", []), ("b", "candidate", [])], runs=6)
        plan["metrics"] = [
            {"name": "sort (stdout)", "source": "stdout", "unit": "ms",
             "pattern": "BENCH sort_uint32_ms=([0-9.]+)"},
            {"name": "crc (trx stdout)", "source": "results", "test": "crc*", "unit": "ms",
             "pattern": "BENCH crc32_ms=([0-9.]+)", "derive": "rate"},
            {"name": "sieve (duration)", "source": "duration", "test": "prime_sieve"},
            {"name": "peak", "source": "process", "field": "max_rss",
             "max_regression_pct": 10},
        ]
        res = self.run_it(plan, 5)
        for inv in res["invocations"]:
            m = inv["metrics"]
            self.assertEqual(list(m), ["sort (stdout)", "crc (trx stdout)",
                                       "crc (trx stdout) (rate)", "sieve (duration)", "peak"])
            with open(self.path("ev", inv["dir"], "test.log")) as f:
                log = f.read()
            want = float(log.split("BENCH sort_uint32_ms=")[1].split()[0])
            self.assertAlmostEqual(m["sort (stdout)"], want)
            want = float(log.split("BENCH crc32_ms=")[1].split()[0])
            self.assertAlmostEqual(m["crc (trx stdout)"], want)
            self.assertAlmostEqual(m["crc (trx stdout) (rate)"], 1000.0 / want, places=6)
            self.assertGreater(m["sieve (duration)"], 0)
            self.assertEqual(m["peak"], inv["max_rss_bytes"])
            self.assertEqual(self.guard(inv, "metrics")["verdict"], "pass")
        report = open(self.path("ev", "report.md")).read()
        self.assertIn("## Comparison", report)
        for name in ("sort (stdout)", "crc (trx stdout)", "crc (trx stdout) (rate)",
                     "sieve (duration)", "peak"):
            self.assertIn(f"\n### {name}\n", report)
        # The candidate trades memory for speed: +200 % peak RSS is over the 10 % limit,
        # in every round: the gate fails, and the run exits 5.
        gate = res["comparison"]["gates"][0]
        self.assertEqual((gate["metric"], gate["variant"], gate["verdict"]), ("peak", "b", "fail"))
        self.assertEqual(res["comparison"]["decision"], "rejected")
        self.assertRegex(report, r"\n\| b \| peak \| [^|]+ \| [^|]+ \| ≤ \+10\.00% \| \*\*FAIL\*\* \|\n")
        # Per-test durations from the TRX: every executed test's, and the changes
        # recomputed from them (median over the counted runs, change against a's).
        times = {}
        for inv in res["invocations"]:
            self.assertEqual(len(inv["test_times"]), inv["tests"]["executed"])
            for name, ms in inv["test_times"]:
                times.setdefault((inv["variant"], name), []).append(ms)
        cmp = res["comparison"]
        self.assertEqual(cmp["tests_timed"], len({n for _, n in times}))
        changes = cmp["test_changes"]
        self.assertTrue(changes)
        self.assertEqual([abs(c["change_pct"]) for c in changes],
                         sorted((abs(c["change_pct"]) for c in changes), reverse=True))
        for c in changes:
            ref = statistics.median(times[("a", c["test"])])
            med = statistics.median(times[("b", c["test"])])
            self.assertEqual(c["variant"], "b")
            self.assertAlmostEqual(c["reference_median_ms"], ref, delta=1e-9)
            self.assertAlmostEqual(c["median_ms"], med, delta=1e-9)
            self.assertAlmostEqual(c["change_pct"], (med - ref) / ref * 100, delta=1e-6)
        self.assertIn("Tests whose duration changed most: of the "
                      f"{cmp['tests_timed']} tests the result files timed", report)
        self.assertIn(f"| b | {changes[0]['test'].replace('_', chr(92) + '_')} | 6 / 6 |",
                      report)

    def test_metric_not_yielded_fails_with_the_reason(self):
        plan = self.plan([("a", "baseline", [])], runs=1)
        plan["metrics"] = [{"name": "nope", "source": "stdout", "unit": "ms",
                            "pattern": "NOT THERE=([0-9]+)"}]
        res = self.run_it(plan, 1)
        inv = res["invocations"][0]
        self.assertIsNone(inv["metrics"]["nope"])
        g = self.guard(inv, "metrics")
        self.assertEqual(g["verdict"], "fail")
        self.assertIn("did not match test.log", g["reason"])

    def test_a_glob_matching_no_test_leaves_the_built_in_metrics(self):
        # One wrong test glob: that metric is missing from every run, every run fails
        # its metrics guard, and still counts for wall, cpu and max_rss (docs/decision.md), with
        # the test set judged as usual. A typo with a near name stops the plan after
        # the first round (fail fast), saying so.
        plan = self.plan([("a", "baseline", []), ("b", "candidate", [])], runs=3)
        plan["metrics"] = [{"name": "sieve", "source": "duration", "test": "prime_seive"}]
        res = self.run_it(plan, 1)
        self.assertEqual(len(res["invocations"]), 2)
        self.assertTrue(any("abev stopped the plan after round 1: metric 'sieve' matched no test"
                            in n and "prime_sieve" in n for n in res["notes"]), res["notes"])
        for inv in res["invocations"]:
            self.assertIsNone(inv["metrics"]["sieve"])
            self.assertEqual(self.guard(inv, "metrics")["verdict"], "fail")
            self.assertIn("prime_sieve", self.guard(inv, "metrics")["reason"])
            self.assertEqual(self.guard(inv, "test_set")["verdict"], "pass")
        by_name = {m["name"]: m for m in res["comparison"]["metrics"]}
        for name in ("wall", "cpu", "max_rss"):
            for s in by_name[name]["variants"]:
                self.assertEqual(s["n"], 1, (name, s))
        for s in by_name["sieve"]["variants"]:
            self.assertEqual(s["n"], 0)

    def test_result_files_written_elsewhere_are_copied_and_stale_ones_ignored(self):
        outdir = self.path("elsewhere")
        os.mkdir(outdir)
        stale = os.path.join(outdir, "old.trx")
        with open(stale, "w") as f:
            f.write('<TestRun><Results><UnitTestResult testName="x" outcome="Passed"/>'
                    '</Results></TestRun>')
        old = time.time() - 3600
        os.utime(stale, (old, old))
        plan = self.plan([("a", "baseline", [])], runs=2)
        plan["variants"][0]["command"] = [DEMO, "--trx", outdir + "/run-{round}.trx"]
        plan["results"]["files"] = outdir + "/*.trx"
        res = self.run_it(plan, 0)
        first, second = res["invocations"]
        self.assertEqual([r["path"] for r in first["results"]],
                         ["runs/a/run-1/results/run-1.trx"])
        # The second run sees run-1.trx from the first as stale, not as its own.
        self.assertEqual([r["path"] for r in second["results"]],
                         ["runs/a/run-2/results/run-2.trx"])
        self.assertTrue(os.path.isfile(self.path("ev", "runs/a/run-1/results/run-1.trx")))
        self.assertTrue(any("old.trx" in n and "unchanged, before this invocation" in n
                            for n in res["notes"]), res["notes"])
        self.assertTrue(any("run-1.trx" in n and n.startswith("runs/a/run-2")
                            for n in res["notes"]), res["notes"])

    def test_allowed_exit_codes(self):
        plan = self.plan([("a", "baseline", [])], runs=1)
        plan["variants"][0]["env"]["DEMO_FAIL"] = "crc32"
        res = self.run_it(plan, 1)
        inv = res["invocations"][0]
        self.assertEqual(inv["exit_code"], 1)
        self.assertEqual(self.guard(inv, "exit_code")["verdict"], "fail")
        self.assertEqual(inv["tests"]["failed"], 1)
        self.assertEqual(self.guard(inv, "tests_passed")["verdict"], "fail")
        # The code allowed, the failing test still fails the run: the guards are two.
        plan["allowed_exit_codes"] = [0, 1]
        p = self.write_plan(plan, "plan2.json")
        self.abev("run", p, "--out", self.path("ev2"), check=1)
        inv = self.load("ev2", "result.json")["invocations"][0]
        self.assertEqual(inv["status"], "failed")
        self.assertEqual(self.guard(inv, "exit_code")["reason"],
                         "exited with code 1 (allowed: 0, 1)")
        self.assertEqual(self.guard(inv, "tests_passed")["reason"],
                         "1 test(s) failed: DemoSuite.crc32 (Failed: "
                         + inv["test_failures"][0]["message"] + ")")
        self.assertTrue(inv["test_failures"][0]["message"].startswith("crc32 "))
        # A known failure the plan names passes both.
        plan["results"]["known_failures"] = ["DemoSuite.crc*"]
        p = self.write_plan(plan, "plan3.json")
        self.abev("run", p, "--out", self.path("ev3"), check=0)
        inv = self.load("ev3", "result.json")["invocations"][0]
        self.assertEqual(inv["status"], "ok")
        self.assertEqual(self.guard(inv, "tests_passed")["verdict"], "pass")


class GuardsWithoutResults(AbevTestCase):
    def test_plain_run_has_exit_code_and_load_guards(self):
        from common import helper_plan
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        self.abev("run", p, "--out", self.path("ev"), check=0)
        inv = self.load("ev", "result.json")["invocations"][0]
        self.assertIsNone(inv["tests"])
        self.assertEqual([g["guard"] for g in inv["guards"]], ["exit_code", "load"])
        lines = [f'{g["guard"]}: {g["verdict"]}: {g["reason"]}' for g in inv["guards"]]
        self.assertEqual(lines[0], "exit_code: pass: exited with code 0 (allowed: 0)")
        self.assertTrue(lines[1].startswith("load: pass: waited for a CPU "), lines[1])
        self.assertIn("; other processes used", lines[1])
        self.assertTrue(HELPER)
