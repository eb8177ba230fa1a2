"""Reason codes (issue 32 §4): result.json records why the comparison says
what it says as a code with its numbers — a gate's reason, warnings, what
is missing — and report.md words them as it always has. Evidence written
before the codes, with sentences in those fields, still reports and
verifies, held to its figures: only a changed figure is called out."""
import json
import os

from common import AbevTestCase, reseal

# 9 rounds: 2 gates x 2 variants, each gate at 1 - 5 % / 4 (Bonferroni),
# at which the paired interval is as tight as the unpaired one from 9.
BASE = [100, 104, 96, 100, 102, 101, 99, 101, 100]
CAND = [120, 125, 115, 120, 122, 121, 119, 121, 120]  # 20 % slower in every round
ODD = [100, 101, 99, 100, 101, 400, 100, 99, 100]     # one outlier, and noisy for it
NOT_THE_ONE = "is not the one its invocations give"


def echo_round(values):
    vals = " ".join(str(v) for v in values)
    return f'set -- {vals}; shift $((ABEV_ROUND - 1)); echo "t=$1"'


def plan():
    return {
        "schema": "abev.plan/1", "name": "codes",
        "variants": [{"name": n, "command": ["sh", "-c", echo_round(v)]}
                     for n, v in (("base", BASE), ("cand", CAND), ("odd", ODD))],
        "schedule": {"runs": 9, "order": "reverse"},
        "metrics": [{"name": "t", "source": "stdout", "unit": "ms", "pattern": "t=([0-9.]+)"}],
        "gates": {"t": {"max_regression_pct": 5, "budget": 200}},
        "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
    }


class ReasonCodes(AbevTestCase):
    def gate(self, res, variant, kind):
        return [g for g in res["comparison"]["gates"]
                if (g["variant"], g["metric"], g["kind"]) == (variant, "t", kind)][0]

    def test_codes_and_numbers_in_result_json_words_in_the_report(self):
        cp, res = self.run_plan(plan(), 5)
        cmp = res["comparison"]
        self.assertEqual(cmp["decision"], "rejected")
        g = self.gate(res, "cand", "max_regression_pct")
        self.assertEqual((g["verdict"], g["reason"], g["method"], g["n"], g["note"], g["n_min"]),
                         ("fail", "interval_beyond_limit", "wilcoxon_paired_and_mann_whitney", 9,
                          None, None))
        self.assertGreater(g["interval"][0], 5)
        b = self.gate(res, "cand", "budget")
        self.assertEqual((b["verdict"], b["reason"], b["method"], b["n"]),
                         ("pass", "budget_within", "median_order_statistics", 9))
        self.assertEqual((cmp["confidence"], cmp["gate_judgements"]), (0.95, 4))
        self.assertAlmostEqual(cmp["gate_confidence"], 1 - 0.05 / 4)
        self.assertEqual(b["observed"], 120)
        self.assertIn(self.gate(res, "odd", "max_regression_pct")["reason"],
                      ("interval_within_limit", "interval_beyond_limit",
                       "interval_straddles_limit"))
        warnings = [w for w in cmp["warnings"] if (w["metric"], w["variant"]) == ("t", "odd")]
        self.assertIn({"code": "outliers", "metric": "t", "variant": "odd", "value": None,
                       "limit": 3.5, "p": None, "count": 1}, warnings)
        noisy = [w for w in warnings if w["code"] == "noisy"]
        self.assertEqual(len(noisy), 1)
        self.assertGreater(noisy[0]["value"], 10)
        self.assertEqual(noisy[0]["limit"], 10)
        self.assertEqual(cmp["blocking"], [])
        self.assertEqual(cmp["missing"], [])
        # The words, as report.md has always had them.
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        lo, hi = (f"{x:+.2f}%" for x in g["interval"])
        # (Markdown escapes the interval's brackets.)
        self.assertIn(f"**FAIL**: cand t changed {g['observed']:+.2f}% \\[{lo}, {hi}\\] (paired by "
                      f"round and unpaired, 9 rounds, exact {g['coverage'] * 100:.1f} %) against a "
                      "regression limit of +5.00%: the whole interval is beyond the limit.",
                      report)
        self.assertIn("t of odd has 1 outlier (modified z-score over 3.5), flagged and kept",
                      report)
        self.assertIn(f"t of odd is noisy: coefficient of variation {noisy[0]['value']:.1f}% "
                      "(over 10%)", report)

    def test_evidence_in_sentences_still_reports_and_verifies(self):
        self.run_plan(plan(), 5)
        ev = self.path("ev")
        with open(os.path.join(ev, "report.md"), encoding="utf-8") as f:
            sealed = f.read()
        before = self.abev("verify", ev, check=None)
        path = os.path.join(ev, "result.json")
        with open(path, encoding="utf-8") as f:
            res = json.load(f)
        # What abev wrote before reason codes: sentences, none of the codes' numbers.
        cmp = res["comparison"]
        for g in cmp["gates"]:
            g["reason"] = f"{g['variant']} t changed somehow: the words of an older abev"
            for k in ("n", "note", "n_min"):
                del g[k]
        for m in cmp["metrics"]:
            for v in m["variants"]:
                for k in ("not_positive_reference", "not_positive"):
                    v.get("gate_interval", {}).pop(k, None)
        cmp["warnings"] = ["t of odd has 1 outlier (modified z-score over 3.5), flagged and kept"]
        # Nor the levels of issue 39: the gates' intervals say theirs.
        del cmp["gate_confidence"], cmp["gate_judgements"], cmp["no_decision"]
        with open(path, "w", encoding="utf-8") as f:
            json.dump(res, f, indent="\t")
        reseal(ev)
        after = self.abev("verify", ev, check=None)
        self.assertEqual(after.returncode, before.returncode, after.stdout + after.stderr)
        cp = self.abev("report", ev, check=0)
        self.assertNotIn(NOT_THE_ONE, cp.stderr)
        # Reported from the invocations, in today's words.
        self.assertEqual(cp.stdout, sealed)
        # A changed figure is still called out.
        cmp["gates"][0]["observed"] += 1
        with open(path, "w", encoding="utf-8") as f:
            json.dump(res, f, indent="\t")
        reseal(ev)
        cp = self.abev("report", ev, check=0)
        self.assertIn(NOT_THE_ONE, cp.stderr)
