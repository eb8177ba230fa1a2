"""schedule.until "decided": rounds are added until every gate is pass or
fail, looking only after the pre-registered rounds, each look at the
Bonferroni share of the confidence; the run stops at the first look that
decides, and the evidence and the report state the design and the looks."""

from common import AbevTestCase


def plan(name, base, cand, schedule, gate_pct=5):
    """Variants print t=<this round's value> from their lists ($ABEV_ROUND)."""
    def script(values):
        return (f'set -- {" ".join(str(v) for v in values)}; '
                f'shift $((ABEV_ROUND - 1)); echo "t=$1"')
    return {
        "schema": "abev.plan/1", "name": name,
        "variants": [{"name": "base", "command": ["sh", "-c", script(base)]},
                     {"name": "cand", "command": ["sh", "-c", script(cand)]}],
        "schedule": dict(schedule, order="reverse"),
        "metrics": [{"name": "t", "source": "stdout", "unit": "ms", "pattern": "t=([0-9.]+)"}],
        "gates": {"t": {"max_regression_pct": gate_pct}},
        "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
    }


BASE = [100, 104, 96, 100, 102, 101, 99, 103, 98, 100, 105, 97, 101, 100, 102, 99]


class UntilDecided(AbevTestCase):
    def test_a_clear_regression_stops_at_the_first_look(self):
        # 20 % slower in every round. Default looks for 16 rounds at 95 %: 8, 12, 16
        # (3 looks, each at 1 - 0.05 / 3); the first already decides.
        cand = [round(v * 1.2, 3) for v in BASE]
        cp, res = self.run_plan(plan("clear", BASE, cand,
                                     {"until": "decided", "max_rounds": 16}), 5)
        cmp = res["comparison"]
        seq = cmp["sequential"]
        self.assertEqual(seq["looks"], [8, 12, 16])
        self.assertAlmostEqual(seq["look_confidence"], 1 - 0.05 / 3, delta=1e-12)
        self.assertAlmostEqual(cmp["confidence"], 1 - 0.05 / 3, delta=1e-12)
        self.assertEqual(seq["taken"], [{"round": 8, "decision": "rejected"}])
        self.assertEqual(seq["decided_after_round"], 8)
        self.assertEqual(seq["min_rounds"], 8)
        # 8 rounds of 2 variants ran, not 16.
        self.assertEqual(len(res["invocations"]), 16)
        self.assertEqual(max(i["round"] for i in res["invocations"]), 8)
        self.assertEqual(res["status"], "completed")
        self.assertTrue(any("decided after round 8 (look 1 of 3): rejected; the 16 slot(s) "
                            "after it were not run" in n for n in res["notes"]), res["notes"])
        gate = cmp["gates"][0]
        self.assertEqual((gate["verdict"], gate["method"]), ("fail", "wilcoxon_paired_and_mann_whitney"))
        self.assertIn("looks:    after round 8 rejected", cp.stdout)
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        self.assertIn("Sequential design (schedule.until decided): the gates were to be looked "
                      "at after rounds 8, 12 and 16 (3 looks), each at 98.33% confidence "
                      "(Bonferroni: 1 − 5% / 3)", report)
        self.assertIn("Looks taken: after round 8 rejected; every gate was decided after "
                      "round 8, and the run stopped there (of at most 16 rounds).", report)
        # The report renders again from the evidence alone, byte for byte.
        again = self.abev("report", self.path("ev"), check=0).stdout
        self.assertEqual(again, report)

    def test_no_difference_inside_the_limit_runs_to_max_rounds(self):
        # A/A within ±5 % noise against a 1 % gate: no look can decide; every
        # pre-registered look is taken and the run ends at max_rounds: inconclusive,
        # exit 6 (issue 39: an undecided gate is no pass).
        cp, res = self.run_plan(plan("same", BASE[:10], BASE[:10][::-1],
                                     {"until": "decided", "max_rounds": 10}, gate_pct=1), 6)
        seq = res["comparison"]["sequential"]
        self.assertEqual(seq["looks"], [7, 10])
        self.assertEqual([t["round"] for t in seq["taken"]], [7, 10])
        self.assertEqual({t["decision"] for t in seq["taken"]}, {"inconclusive"})
        self.assertIsNone(seq["decided_after_round"])
        self.assertEqual(len(res["invocations"]), 20)
        self.assertEqual(res["comparison"]["decision"], "inconclusive")
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        self.assertIn("no look decided every gate by max\\_rounds", report)

    def test_the_plans_looks_are_used(self):
        cand = [round(v * 1.5, 3) for v in BASE]
        _, res = self.run_plan(plan("own", BASE, cand, {"until": "decided", "min_rounds": 6,
                                                        "max_rounds": 12, "looks": [6, 9]}), 5)
        seq = res["comparison"]["sequential"]
        # max_rounds is always the last look: 3 looks, each at 1 - 0.05 / 3.
        self.assertEqual(seq["looks"], [6, 9, 12])
        # At 98.3 % six rounds cannot give a paired interval (2 / 64 > 1.67 %), but
        # the unpaired one (2 / C(12, 6) = 0.2 %) can: decided at the first look.
        self.assertEqual(seq["taken"], [{"round": 6, "decision": "rejected"}])
        self.assertEqual(seq["decided_after_round"], 6)
        self.assertEqual(len(res["invocations"]), 12)
        gi = res["comparison"]["metrics"][0]["variants"][1]["gate_interval"]
        self.assertEqual(gi["method"], "mann_whitney")


class GatedPlanDecides(AbevTestCase):
    """Issue 39 §2: a plan with a gate and no runs runs until decided (at
    most 32 rounds); fixed runs that can never decide are refused before
    anything runs, with the fewest that can and the alternative."""

    def test_a_gate_without_runs_runs_until_decided(self):
        # 48 % slower in every round against a 5 % gate: the default 3 rounds
        # could never decide it; until decided, the first look (8) rejects it.
        base = (BASE * 2)[:32]
        cand = [round(v * 1.48, 3) for v in base]
        p = plan("default", base, cand, {})
        cp, res = self.run_plan(p, 5)
        self.assertEqual((res["schedule"]["runs"], res["schedule"]["runs_from"]), (32, "gates"))
        seq = res["comparison"]["sequential"]
        self.assertEqual(seq["looks"], [8, 12, 18, 27, 32])
        self.assertEqual((seq["max_rounds"], seq["decided_after_round"]), (32, 8))
        self.assertEqual(res["comparison"]["decision"], "rejected")
        self.assertEqual(len(res["invocations"]), 16)
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        self.assertIn("The plan has gates and gives no runs, so it ran until decided by "
                      "default (schedule.runs\\_from: gates).", report)
        # The dry run says so before anything runs.
        cp = self.abev("run", self.write_plan(p), "--dry-run", check=0)
        self.assertIn("# until decided: at most 32 rounds, the gates looked at after rounds "
                      "8, 12, 18, 27 and 32, each at 99 % (the plan has gates and gives no "
                      "runs)", cp.stdout)
        # A plan with runs runs them, and says who chose them.
        p["schedule"] = {"runs": 4, "order": "reverse"}
        _, res = self.run_plan(p, 5, out="fixed")
        self.assertEqual((res["schedule"]["runs"], res["schedule"]["runs_from"]), (4, "plan"))
        self.assertIsNone(res["comparison"]["sequential"])
        report = open(self.path("fixed", "report.md"), encoding="utf-8").read()
        self.assertNotIn("ran until decided by default", report)

    def test_runs_that_can_never_decide_are_refused(self):
        cases = [({"runs": 3}, "schedule.runs: 3 rounds can never decide a change gate at "
                  "95 %: give at least 4, or leave out runs (abev bench: -r) to run until every "
                  "gate is decided, at most 32 rounds"),
                 ({"until": "decided", "max_rounds": 3}, "schedule.max_rounds: 3 rounds can "
                  "never decide a change gate at 95 % a look (1 look): give at least 4")]
        for schedule, want in cases:
            with self.subTest(schedule=schedule):
                path = self.write_plan(plan("few", BASE, BASE, schedule))
                for args in (("--dry-run",), ("--unsigned", "--out", self.path("ev"))):
                    cp = self.abev("run", path, *args, check=None)
                    self.assertEqual(cp.returncode, 2, cp.stderr)
                    self.assertIn(want, cp.stderr)
                    self.assertFalse(cp.stdout.strip())
        # A budget needs 6 runs of the candidate for its median's interval.
        p = plan("budget", BASE, BASE, {"runs": 5})
        p["gates"] = {"t": {"budget": 200}}
        cp = self.abev("run", self.write_plan(p), "--dry-run", check=None)
        self.assertEqual(cp.returncode, 2, cp.stderr)
        self.assertIn("schedule.runs: 5 rounds can never decide a budget gate at 95 %: give "
                      "at least 6", cp.stderr)

    def test_bench_with_a_gate_and_no_runs_decides(self):
        # The same for abev bench: --max-regression without -r runs until decided.
        script = 'set -- {}; shift $((ABEV_ROUND - 1)); echo "t=$1"'
        base = " ".join(str(v) for v in (BASE * 2)[:32])
        cand = " ".join(str(round(v * 1.48, 3)) for v in (BASE * 2)[:32])
        args = ("--metric", "t[ms]=stdout:t=([0-9.]+)", "--max-regression", "t=5",
                "--max-cpu-wait-pct", "100", script.format(base), script.format(cand))
        cp = self.abev("bench", *args, "--out", self.path("bev"), "--quiet", check=None)
        self.assertEqual(cp.returncode, 5, cp.stdout + cp.stderr)
        res = self.load("bev", "result.json")
        self.assertEqual(res["schedule"]["runs_from"], "gates")
        self.assertEqual(res["comparison"]["sequential"]["decided_after_round"], 8)
        cp = self.abev("bench", "-r", "3", *args, "--out", self.path("bev3"), check=None)
        self.assertEqual(cp.returncode, 2, cp.stdout + cp.stderr)
        self.assertIn("3 rounds can never decide a change gate at 95 %: give at least 4",
                      cp.stderr)
