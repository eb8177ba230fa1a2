"""The verdict: the comparison in result.json and report.md recomputed here
from the invocations' raw figures; gates that reject, accept and stay
inconclusive, with their exit codes; --quiet and --json; and the commands
over existing evidence (report, export, compare)."""
import csv
import io
import json
import math
import os
import statistics
import subprocess
import unittest

from common import HELPER, AbevTestCase, reseal

# The figures the plan's stdout metric "t" takes per round, in ms: deterministic,
# so nothing here depends on how busy the machine is.
# Six rounds each, the fewest a 95 % paired interval allows; plans of 5 use the first 5.
T_BASE = [100, 104, 96, 100, 102, 101]
T_CAND = [110, 115, 105, 110, 112, 111]
# 20 % slower in every round: beyond a 5 % limit whatever the resample (T_CAND's
# interval starts at exactly +5 %, which is at the limit, not beyond it).
T_CAND_FAR = [120, 125, 115, 120, 122, 121]


def sh_plan(name, variants, runs=5, **extra):
    """A plan whose variants are sh scripts; $ABEV_ROUND picks each round's figure."""
    plan = {
        "schema": "abev.plan/1", "name": name,
        "variants": [{"name": n, "command": ["sh", "-c", script]} for n, script in variants],
        "schedule": {"runs": runs, "order": "reverse"},
        "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
    }
    plan.update(extra)
    return plan


def echo_round(values, skip_round=None):
    """A script printing t=<value of this round> (nothing in skip_round)."""
    vals = " ".join(str(v) for v in values)
    skip = f'[ "$ABEV_ROUND" = {skip_round} ] && exit 0; ' if skip_round else ""
    return f'{skip}set -- {vals}; shift $((ABEV_ROUND - 1)); echo "t=$1"'


def sleep_round(values_ms):
    """A script that sleeps this round's number of ms through the helper."""
    vals = " ".join(str(v) for v in values_ms)
    return f'set -- {vals}; shift $((ABEV_ROUND - 1)); exec "{HELPER}" sleep "$1"'


NOT_THE_ONE = "is not the one its invocations give"
T_METRIC = {"name": "t", "source": "stdout", "unit": "ms", "pattern": "t=([0-9.]+)"}


def counts(inv):
    """Whether a run counts, by the rule docs/decision.md states: a recorded run whose
    process exited and whose guards other than metrics passed."""
    if inv["phase"] != "run" or inv["status"] not in ("ok", "failed"):
        return False
    if inv["exit_code"] is None or inv["signal"] is not None:
        return False
    others = [g for g in inv["guards"] if g["guard"] != "metrics"]
    if any(g["verdict"] != "pass" for g in others):
        return False
    return inv["status"] == "ok" or any(g["guard"] == "metrics" and g["verdict"] != "pass"
                                        for g in inv["guards"])


def wsr_interval(d, conf):
    """The exact Wilcoxon signed-rank interval of d's centre at conf: the k-th
    smallest and largest Walsh average, k from W+'s null distribution over all
    2^n sign patterns (counted, not approximated). (lo, hi, coverage)."""
    n = len(d)
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    counts = [1] + [0] * (n * (n + 1) // 2)
    for r in range(1, n + 1):
        counts = [counts[w] + (counts[w - r] if w >= r else 0) for w in range(len(counts))]
    total, cdf, k = 2 ** n, 0, 0
    while cdf + counts[k] <= (1 - conf) / 2 * total:
        cdf += counts[k]
        k += 1
    return walsh[k - 1], walsh[len(walsh) - k], 1 - 2 * cdf / total


def mw_interval(x, y, conf):
    """The exact Mann-Whitney interval of y's shift against x at conf: the k-th
    smallest and largest difference y_j - x_i, k from U's null distribution
    over all C(m + n, m) orderings (counted). (lo, hi, coverage)."""
    m, n = len(x), len(y)
    diffs = sorted(b - a for a in x for b in y)
    # dist[i][j]: the counts of U = 0, 1, ... for i values against j.
    dist = [[[1] for _ in range(n + 1)] for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            a, b = [0] * j + dist[i - 1][j], dist[i][j - 1]
            size = max(len(a), len(b))
            dist[i][j] = [(a[u] if u < len(a) else 0) + (b[u] if u < len(b) else 0)
                          for u in range(size)]
    counts, total = dist[m][n], math.comb(m + n, m)
    cdf, k = 0, 0
    while cdf + counts[k] <= (1 - conf) / 2 * total:
        cdf += counts[k]
        k += 1
    return diffs[k - 1], diffs[len(diffs) - k], 1 - 2 * cdf / total


def joint_interval(d, x, y, conf):
    """The change gates' interval from enough rounds: the paired one at half
    the error, the unpaired one at what is left, where they meet (their hull
    when they do not). (lo, hi, coverage: the Bonferroni bound)."""
    alpha = 1 - conf
    plo, phi, pcov = wsr_interval(d, 1 - alpha / 2)
    ulo, uhi, ucov = mw_interval(x, y, 1 - (alpha - (1 - pcov)))
    lo, hi = max(plo, ulo), min(phi, uhi)
    if lo > hi:
        lo, hi = min(plo, ulo), max(phi, uhi)
    return lo, hi, pcov + ucov - 1


def raw_values(res, metric, variant):
    out = []
    for inv in res["invocations"]:
        if inv["variant"] != variant or not counts(inv):
            continue
        if metric == "wall":
            v = inv["wall_ns"] / 1e6
        elif metric == "cpu":
            v = (inv["user_ns"] + inv["sys_ns"]) / 1e6
        elif metric == "max_rss":
            v = float(inv["max_rss_bytes"])
        else:
            v = inv["metrics"].get(metric)
            if v is None:
                continue
        out.append(v)
    return out


def fmt_plain(v):
    """units.c's digits, reimplemented: 0 to 3 decimals by magnitude."""
    a = abs(v)
    if a == 0:
        return "0"
    if a < 0.001:
        return f"{v:.3g}"
    d = 0 if a >= 100 else 1 if a >= 10 else 2 if a >= 1 else 3
    if round(a * 10 ** d) == 0:
        v = 0.0
    return f"{v:.{d}f}"


def fmt_value(v, unit):
    """units.c's scaling, reimplemented independently for the report check."""
    secs = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    if v == 0:
        return "0 B" if unit in ("bytes", "B") else f"0 {unit}" if unit else "0"
    if unit in secs:
        ns = v * secs[unit] * 1e9
        names = ["ns", "µs", "ms", "s"]
        k = 0
        while k + 1 < len(names) and abs(ns) >= 1000:
            ns /= 1000
            k += 1
        return f"{fmt_plain(ns)} {names[k]}"
    if unit in ("bytes", "B"):
        names = ["B", "KiB", "MiB", "GiB", "TiB"]
        k = 0
        while k + 1 < len(names) and abs(v) >= 1024:
            v /= 1024
            k += 1
        return f"{v:.0f} B" if k == 0 else f"{fmt_plain(v)} {names[k]}"
    return f"{fmt_plain(v)} {unit}" if unit else fmt_plain(v)


def pick(v, unit):
    """units.c's units_pick(), reimplemented: (divisor, name, decimals) of a row's scale."""
    def decimals(a):
        return 0 if a >= 100 else 1 if a >= 10 else 2 if a >= 1 else 3
    secs = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    a = abs(v)
    if unit in secs:
        per = secs[unit] * 1e9
        x, div, k = a * per, 1.0, 0
        names = ["ns", "µs", "ms", "s"]
        while k + 1 < len(names) and x >= 1000:
            x, div, k = x / 1000, div * 1000, k + 1
        return div / per, names[k], decimals(x)
    if unit in ("bytes", "B"):
        names = ["B", "KiB", "MiB", "GiB", "TiB"]
        x, div, k = a, 1.0, 0
        while k + 1 < len(names) and x >= 1024:
            x, div, k = x / 1024, div * 1024, k + 1
        return div, names[k], 0 if k == 0 else decimals(x)
    return 1.0, unit, decimals(a)


def in_scale(v, scale):
    div, _, d = scale
    x = v / div
    if round(abs(x) * 10 ** d) == 0:
        x = 0.0
    return f"{x:.{d}f}"


def told(point, lo, hi, unit):
    """summary.c's words for a ratio and its interval: turned over below 1,
    the word carrying the direction ("1.53× faster [1.40, 1.70]")."""
    if lo <= 1 <= hi:
        return f"no clear difference: {point:.2f}× [{lo:.2f}, {hi:.2f}]"
    more = point >= 1
    if unit in ("ns", "us", "µs", "ms", "s", "min", "h"):
        word = "slower" if more else "faster"
    elif unit in ("bytes", "B"):
        word = "larger" if more else "smaller"
    else:
        word = "higher" if more else "lower"
    if not more:
        point, lo, hi = 1 / point, 1 / hi, 1 / lo
    return f"{point:.2f}× {word} [{lo:.2f}, {hi:.2f}]"


def md(s):
    """report.c's escaping of table cells."""
    return "".join("\\" + c if c in "\\|*_`<>[]" else c for c in s)


class Verdict(AbevTestCase):
    def sample(self, cmp, metric, variant):
        m = [m for m in cmp["metrics"] if m["name"] == metric]
        self.assertEqual(len(m), 1, metric)
        s = [s for s in m[0]["variants"] if s["variant"] == variant]
        self.assertEqual(len(s), 1, variant)
        return m[0], s[0]

    def test_comparison_and_report_recomputed_from_the_invocations(self):
        plan = sh_plan("figures", [("base", echo_round(T_BASE)),
                                   ("cand", echo_round(T_CAND, skip_round=2))],
                       metrics=[T_METRIC])
        plan["schedule"]["warmups"] = 1
        # Round 2 of cand prints no t: that run fails its metrics guard, exit 1.
        cp_out, res = self.run_plan(plan, 1)
        cmp = res["comparison"]
        self.assertEqual(res["status"], "failed")
        self.assertEqual(cmp["reference"], "base")
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        for metric in ("wall", "cpu", "max_rss", "t"):
            ref = raw_values(res, metric, "base")
            for variant in ("base", "cand"):
                vals = raw_values(res, metric, variant)
                m, s = self.sample(cmp, metric, variant)
                with self.subTest(metric=metric, variant=variant):
                    # The one run without t still counts for everything else.
                    want_n = 4 if (metric, variant) == ("t", "cand") else 5
                    self.assertEqual(s["n"], want_n)
                    self.assertEqual(len(vals), want_n)
                    self.assertEqual([v["value"] for v in s["values"]], vals)
                    self.assertEqual(s["median"], statistics.median(vals))
                    self.assertEqual(s["min"], min(vals))
                    self.assertEqual(s["max"], max(vals))
                    self.assertAlmostEqual(s["mean"], statistics.fmean(vals), delta=1e-9 * abs(s["mean"]))
                    self.assertAlmostEqual(s["sd"], statistics.stdev(vals), delta=1e-9 * max(1, s["sd"]))
                    # The row, in the scale of its median, as units.c writes it.
                    sc = pick(s["median"], m["unit"])
                    section = report.split(f"\n### {md(metric)}\n")[1].split("\n### ")[0]
                    row = (f"| {variant} | {want_n} | {in_scale(s['median'], sc)} {md(sc[1])} | "
                           f"{in_scale(min(vals), sc)}–{in_scale(max(vals), sc)} {md(sc[1])} | ")
                    self.assertIn(row, section)
                    # The statistics detail is the appendix's, under the same heading.
                    detail = report.split("\n## Appendix: statistics\n")[1].split(
                        f"\n### {md(metric)}\n")[1].split("\n### ")[0].split("\n## ")[0]
                    runs = f"- {variant}, in execution order: " + ", ".join(
                        in_scale(v, sc) + (" (outlier)" if s["values"][i]["outlier"] else "")
                        for i, v in enumerate(vals)) + f" {md(sc[1])}"
                    # The spread, in the row's scale. The report formats the
                    # figures result.json holds, checked above against the raw
                    # values to 1e-9; formatting the recomputation instead can
                    # round the other way at a boundary (6.195 ms: 6.19 or 6.20).
                    self.assertAlmostEqual(s["mad"], statistics.median(
                        abs(v - statistics.median(vals)) for v in vals))
                    self.assertAlmostEqual(s["cv_pct"], statistics.stdev(vals) / abs(
                        statistics.fmean(vals)) * 100, delta=1e-9 * s["cv_pct"])
                    runs += (f"; mean {in_scale(s['mean'], sc)}, sd "
                             f"{in_scale(s['sd'], sc)}, MAD {in_scale(s['mad'], sc)}"
                             f" {md(sc[1])}, coefficient of variation {s['cv_pct']:.1f}%")
                    self.assertIn(runs, detail)
                    if variant == "cand":
                        self.assertIn(f"- cand against base: Mann–Whitney U = "
                                      f"{s['mann_whitney']['u']:g}, p = "
                                      f"{s['mann_whitney']['p']:.3g} (exact; the smallest "
                                      f"attainable is {s['mann_whitney']['min_p']:.3g})", detail)
                        pr = s["paired"]
                        self.assertIn(f"paired by round ({pr['pairs']} pairs): ratio median "
                                      f"{pr['ratio_median']:.3f}, range {pr['ratio_min']:.3f}–"
                                      f"{pr['ratio_max']:.3f}, Wilcoxon p = {pr['wilcoxon_p']:.3g}",
                                      detail)
                    if variant == "base":
                        self.assertIn(row + "reference |  |  |  |", section)
                        continue
                    change = (statistics.median(vals) - statistics.median(ref)) / abs(
                        statistics.median(ref)) * 100
                    self.assertAlmostEqual(s["change_pct"], change, delta=1e-9)
                    self.assertAlmostEqual(s["ratio"], statistics.median(vals) /
                                           statistics.median(ref), delta=1e-12)
                    # 5 rounds (4 for t): fewer than the paired interval needs (6), so
                    # the exact unpaired one (4 runs a side), and the cell says which.
                    gi = s["gate_interval"]
                    self.assertEqual(gi["method"], "mann_whitney")
                    self.assertIn("fewer paired rounds", gi["rule"])
                    self.assertGreaterEqual(gi["coverage"], 0.95)
                    lo, hi = gi["ratio"]
                    # The ratio printed is the estimate the interval surrounds.
                    self.assertLessEqual(lo, gi["point"])
                    self.assertLessEqual(gi["point"], hi)
                    # The change the gates judge (the estimate), the ratio in the
                    # terminal's words (summary.c), not as 0.652, then the medians'
                    # ratio as context.
                    est = (gi["point"] - 1) * 100
                    self.assertIn(f"| {0 if abs(est) < 0.005 else est:+.2f}% | "
                                  + md(told(gi["point"], lo, hi, m["unit"])) +
                                  f" (unpaired, exact {gi['coverage'] * 100:.1f} %) | "
                                  f"{s['ratio']:.3f}× "
                                  f"({0 if abs(change) < 0.005 else change:+.2f}%) |", section)
                    self.assertIn(told(gi["point"], lo, hi, m["unit"]), cp_out.stdout)
                    lo, hi = s["ratio_ci"]
                    self.assertLessEqual(lo, hi)
        # No "-0.00%", and every n/a says why.
        self.assertNotIn("-0.00%", report)
        self.assertNotIn("-0.0%", report)
        for cell in report.split("n/a")[1:]:
            self.assertTrue(cell.startswith(" ("), f"an n/a without a reason: n/a{cell[:40]}")
        # t: cand is 10% above base in every round it printed.
        _, t = self.sample(cmp, "t", "cand")
        self.assertEqual(t["values"][0]["value"], 110.0)
        self.assertEqual([v["round"] for v in t["values"]], [1, 3, 4, 5])
        self.assertAlmostEqual(t["change_pct"], 10.0, delta=1e-9)
        self.assertEqual(t["paired"]["pairs"], 4)
        self.assertEqual(cmp["decision"], "no decision")
        # No gate, so no decision; the wall-time ratio is given all the same, as not gated.
        self.assertIn("**Decision: no decision: the plan sets no gate; not a gated decision, "
                      "by wall time: ", report)
        # 5 runs a side: the smallest exact two-sided p is 2 / C(10, 5).
        self.assertAlmostEqual(cmp["sample_size"]["mann_whitney_min_p"], 2 / math.comb(10, 5))
        # ABBA order: each variant ran first in some rounds, so slots can be told apart.
        _, b = self.sample(cmp, "wall", "base")
        self.assertEqual([v["slot"] for v in b["values"]], [1, 2, 1, 2, 1])
        self.assertTrue(b["order_effect"]["testable"])

    def gate_plan(self, name, cand_ms, **extra):
        # 7 runs a side: one late wakeup among them cannot carry a resampled median
        # (it would need 4 of 7 draws) far enough to move the interval's 2.5% end.
        plan = sh_plan(name, [("base", sleep_round([200] * 7)),
                              ("cand", sleep_round(cand_ms))],
                       gates={"wall": {"max_regression_pct": 15}}, runs=7, **extra)
        plan["schedule"]["order"] = "alternate"
        return plan

    def test_one_change_in_every_place(self):
        """For every gated metric the terminal, report.md (its verdict table and
        the metric's own table) and result.json's gate give the same change,
        digit for digit: the estimate the gate judged, paired and unpaired (8
        rounds: two gate judgements at 97.5 % each) or unpaired (7), with the
        p-values of the tests that judged it; the ratio of the medians is context in the
        report alone (issue 39 §4)."""
        base = T_BASE + [99, 100]
        for runs, method in ((8, "wilcoxon_paired_and_mann_whitney"), (7, "mann_whitney")):
            with self.subTest(runs=runs):
                # t's rounds are not a constant factor: the medians' change
                # and the estimate part, so a mix-up shows.
                cand = [112, 115, 103, 108, 119, 111, 104, 110][:runs]
                plan = sh_plan(f"one-{runs}", [("base", echo_round(base)),
                                              ("cand", echo_round(cand))],
                               runs=runs, metrics=[T_METRIC],
                               gates={"t": {"max_regression_pct": 5},
                                      "cpu": {"max_regression_pct": 400}})
                out = f"ev{runs}"
                cp, res = self.run_plan(plan, None, out=out)
                report = open(self.path(out, "report.md"), encoding="utf-8").read()
                gates = res["comparison"]["gates"]
                self.assertEqual(sorted(g["metric"] for g in gates), ["cpu", "t"])
                for g in gates:
                    m, s = self.sample(res["comparison"], g["metric"], "cand")
                    gi = s["gate_interval"]
                    self.assertEqual((g["method"], gi["method"]), (method, method))
                    want = f"{g['observed']:+.2f}%"
                    self.assertEqual(want, f"{(gi['point'] - 1) * 100:+.2f}%")
                    term = [ln for ln in cp.stdout.splitlines()
                            if ln.split()[:2] == ["cand", g["metric"]]]
                    self.assertEqual(len(term), 1, cp.stdout)
                    self.assertIn(f"({want})", term[0])
                    p = (f"p={s['paired']['wilcoxon_p']:.2g} (paired), "
                         f"{s['mann_whitney']['p']:.2g} (unpaired)" if runs == 8 else
                         f"p={s['mann_whitney']['p']:.2g} (unpaired)")
                    self.assertIn(p, term[0])
                    top = [ln for ln in report.splitlines()
                           if ln.startswith(f"| cand | {g['metric']} | ")]
                    self.assertEqual(len(top), 1, report)
                    self.assertIn(f"({want})", top[0])
                    section = report.split(f"\n### {g['metric']}\n")[1].split("\n### ")[0]
                    row = [ln for ln in section.splitlines() if ln.startswith("| cand | ")]
                    self.assertEqual(len(row), 1, section)
                    cells = [c.strip() for c in row[0].split(" | ")]
                    self.assertEqual(cells[4], want)
                    self.assertEqual(cells[6], f"{s['ratio']:.3f}× ({s['change_pct']:+.2f}%)")
                if runs == 8:
                    _, t = self.sample(res["comparison"], "t", "cand")
                    self.assertNotEqual(f"{t['change_pct']:+.2f}",
                                        f"{(t['gate_interval']['point'] - 1) * 100:+.2f}")

    def test_evidence_from_before_the_joint_interval_keeps_its_rule(self):
        """Evidence written before the joint gate interval (gate intervals
        without "parts") is recomputed by the rule that decided it, the paired
        interval alone from 7 rounds at 95 %, so `abev report` and `export`
        months later say what it said, with no warning."""
        cand = [120, 125, 114, 121, 122, 120, 119, 121]
        plan = sh_plan("before-joint", [("base", echo_round(T_BASE + [99, 100])),
                                        ("cand", echo_round(cand))],
                       runs=8, metrics=[T_METRIC], gates={"t": {"max_regression_pct": 5}})
        _, res = self.run_plan(plan, 5)
        ev = self.path("ev")
        path = os.path.join(ev, "result.json")

        def rewrite(cmp):
            res["comparison"] = cmp
            with open(path, "w", encoding="utf-8") as f:
                json.dump(res, f, indent="\t")
            reseal(ev)

        def without_joint_keys(cmp):
            for m in cmp["metrics"]:
                for v in m["variants"]:
                    for k in ("parts", "disjoint"):
                        v.get("gate_interval", {}).pop(k, None)
            return cmp

        _, t = self.sample(res["comparison"], "t", "cand")
        self.assertEqual(t["gate_interval"]["method"], "wilcoxon_paired_and_mann_whitney")
        # As an older abev wrote it: read by the older rule, which gives other
        # figures than the ones recorded, and says so.
        rewrite(without_joint_keys(res["comparison"]))
        cp = self.abev("export", ev, "--format", "json", check=0)
        self.assertIn(NOT_THE_ONE, cp.stderr)
        old = json.loads(cp.stdout)
        _, t = self.sample(old, "t", "cand")
        gi = t["gate_interval"]
        self.assertEqual((gi["method"], gi["parts"], gi["disjoint"]), ("wilcoxon_paired", None, None))
        ref, got = raw_values(res, "t", "base"), raw_values(res, "t", "cand")
        lo, hi, coverage = wsr_interval([math.log(c / r) for r, c in zip(ref, got)], 0.95)
        self.assertAlmostEqual(gi["coverage"], coverage, delta=1e-12)
        self.assertAlmostEqual(gi["ratio"][0], math.exp(lo), delta=1e-12)
        self.assertAlmostEqual(gi["ratio"][1], math.exp(hi), delta=1e-12)
        # Evidence that older rule wrote is held to it: no warning, its words.
        rewrite(without_joint_keys(old))
        cp = self.abev("report", ev, check=0)
        self.assertNotIn(NOT_THE_ONE, cp.stderr)
        self.assertIn(f"(paired by round, 8 rounds, exact {coverage * 100:.1f} %)", cp.stdout)
        cp = self.abev("export", ev, "--format", "json", check=0)
        self.assertNotIn(NOT_THE_ONE, cp.stderr)

    def test_a_slower_candidate_is_rejected_with_exit_5(self):
        # Twice as slow against a 15 % limit: a busy machine's late wakeups (a
        # 200 ms sleep ran 243-287 ms beside two busy loops, its partner 284-348)
        # cannot bring the interval down to the limit, as +30 % could.
        cp, res = self.run_plan(self.gate_plan("slower", [400] * 7), 5)
        self.assertEqual(res["comparison"]["decision"], "rejected")
        self.assertEqual(res["status"], "completed")
        gate = res["comparison"]["gates"][0]
        self.assertEqual((gate["metric"], gate["variant"], gate["kind"], gate["verdict"]),
                         ("wall", "cand", "max_regression_pct", "fail"))
        self.assertGreater(gate["interval"][0], 15)
        # The gate's interval, recomputed from the raw figures: the exact Wilcoxon
        # signed-rank interval of the rounds' log-ratios (Walsh averages) at
        # 97.5 %, the exact Mann-Whitney one of the log values at the rest of
        # the 5 %, where they meet.
        ref = raw_values(res, "wall", "base")
        cand = raw_values(res, "wall", "cand")
        lo, hi, coverage = joint_interval([math.log(c / r) for r, c in zip(ref, cand)],
                                          [math.log(r) for r in ref],
                                          [math.log(c) for c in cand], 0.95)
        self.assertEqual((gate["method"], len(ref)), ("wilcoxon_paired_and_mann_whitney", 7))
        self.assertAlmostEqual(gate["coverage"], coverage, delta=1e-12)
        self.assertAlmostEqual(gate["interval"][0], (math.exp(lo) - 1) * 100, delta=1e-9)
        self.assertAlmostEqual(gate["interval"][1], (math.exp(hi) - 1) * 100, delta=1e-9)
        self.assertIn("decision: rejected: 1 of 1 gate failed", cp.stdout)
        line = [ln for ln in cp.stdout.splitlines() if ln.strip().startswith("cand") and " wall " in ln]
        self.assertEqual(len(line), 1, cp.stdout)
        self.assertIn("× slower [", line[0])
        self.assertIn("gate ≤ +15.00%: FAIL", line[0])
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        self.assertIn("**Decision: rejected: 1 of 1 gate failed.**", report)
        row = [ln for ln in report.splitlines() if ln.startswith("| cand | wall | ")]
        self.assertEqual(len(row), 1, report)
        self.assertIn("× slower [".replace("[", "\\["), row[0])
        self.assertTrue(row[0].endswith(" | ≤ +15.00% | **FAIL** |"), row[0])
        self.assertIn("| ≤ +15.00%: FAIL |", report)

    def test_a_candidate_within_one_percent_is_accepted(self):
        cp, res = self.run_plan(self.gate_plan("same", [201] * 7), 0)
        self.assertEqual(res["comparison"]["decision"], "accepted")
        self.assertEqual(res["comparison"]["gates"][0]["verdict"], "pass")
        self.assertIn("decision: accepted: all 1 gate passed", cp.stdout)
        # Not an acceptance plan: the report says that a pass decides nothing.
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        self.assertIn("a pass here implies no acceptance decision", report)

    def test_noise_straddling_the_limit_is_inconclusive(self):
        # Median +15%, spread from 0% to +30%: the interval cannot be on one side.
        cand = [200, 260, 210, 250, 230, 220, 240]
        # Inconclusive fails by default (issue 39 §3): a board gating on the exit
        # code must not take an undecided regression for a pass.
        cp, res = self.run_plan(self.gate_plan("noisy", cand), 6)
        self.assertEqual(res["comparison"]["decision"], "inconclusive")
        self.assertEqual(res["comparison"]["inconclusive"], "fail")
        self.assertEqual(res["comparison"]["gates"][0]["verdict"], "inconclusive")
        lo, hi = res["comparison"]["gates"][0]["interval"]
        self.assertLess(lo, 15)
        self.assertGreater(hi, 15)
        self.assertIn("decision: inconclusive", cp.stdout)
        # A plan may let an inconclusive decision pass, exit 0, the word alone telling it.
        plan = self.gate_plan("noisy-passes", cand, decision={"inconclusive": "pass",
                                                              "acceptance": True})
        cp, res = self.run_plan(plan, 0, out="ev2", plan_name="ev2.json")
        self.assertEqual(res["comparison"]["decision"], "inconclusive")
        self.assertEqual(res["comparison"]["inconclusive"], "pass")
        self.assertIn("decision: inconclusive", cp.stdout)
        self.assertTrue(res["comparison"]["acceptance"])
        report = open(self.path("ev2", "report.md"), encoding="utf-8").read()
        self.assertNotIn("implies no acceptance decision", report)

    def test_a_throughput_of_zero_is_the_worst_round(self):
        # Issue 39 §3: -40 % throughput in every round is rejected; the same runs
        # plus one round where the candidate reads 0 were inconclusive, exit 0. A
        # value of 0 on a higher-is-better metric is the worst a round can give.
        base = [1000, 1010, 990, 1005, 995, 1000, 1002, 998]
        cand = [round(b * 0.6) for b in base]
        metric = {"name": "ops", "source": "stdout", "unit": "1/s", "better": "higher",
                  "pattern": "t=([0-9.]+)"}
        for name, values in (("worse", cand), ("worse-and-zero", cand[:-1] + [0])):
            plan = sh_plan(name, [("base", echo_round(base)), ("cand", echo_round(values))],
                           runs=len(base), metrics=[metric],
                           gates={"ops": {"max_regression_pct": 5}})
            _, res = self.run_plan(plan, 5, out=name, plan_name=name + ".json")
            cmp = res["comparison"]
            self.assertEqual(cmp["decision"], "rejected", name)
            gate = cmp["gates"][0]
            self.assertEqual((gate["verdict"], gate["method"]),
                             ("fail", "wilcoxon_paired_and_mann_whitney"))
            self.assertLess(gate["interval"][1], -5)
            _, s = self.sample(cmp, "ops", "cand")
            self.assertEqual(s["paired"]["pairs"], len(base))
            self.assertEqual(s["paired"]["left_out"], [])

    def test_quiet_and_json(self):
        plan = sh_plan("quiet", [("base", echo_round(T_BASE)), ("cand", echo_round(T_CAND_FAR))],
                       metrics=[T_METRIC], gates={"t": {"max_regression_pct": 5}}, runs=6)
        cp, res = self.run_plan(plan, 5, "--quiet")
        self.assertEqual(cp.stdout.splitlines(),
                         ["decision: rejected: 1 of 1 gate failed",
                          f"evidence: {os.path.realpath(self.path('ev'))}"])
        cp, res = self.run_plan(plan, 5, "--json", out="ev2", plan_name="ev2.json")
        self.assertEqual(json.loads(cp.stdout), res["comparison"])
        self.assertIn("decision: rejected", cp.stderr)

    def signed_evidence(self):
        self.abev("keygen", "--out", self.path("k"), check=0)
        # 7 rounds: two gate judgements at 97.5 % each, where the budget's
        # median interval needs 7.
        plan = sh_plan("signed", [("base", echo_round(T_BASE + [99])),
                                  ("cand", echo_round(T_CAND_FAR + [119]))],
                       metrics=[T_METRIC], gates={"t": {"max_regression_pct": 5},
                                                  "wall": {"budget": 60000}}, runs=7)
        self.run_plan(plan, 5, "--key", self.path("k.key"))
        return self.path("ev")

    def test_report_renders_the_same_bytes_and_never_writes_into_the_evidence(self):
        ev = self.signed_evidence()
        with open(os.path.join(ev, "report.md"), "rb") as f:
            want = f.read()
        cp = subprocess.run([os.environ["ABEV"], "report", ev], capture_output=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        # Without --pubkey the one difference: "Signed" says it was not checked.
        self.assertEqual(cp.stdout.replace(b" (not signature-checked: rendered again by "
                                           b"`abev report` without `--pubkey`)", b""), want)
        self.assertIn(b"is not signature-checked", cp.stderr)
        self.abev("report", ev, "--pubkey", self.path("k.pub"), "--out", self.path("r.md"),
                  check=0)
        with open(self.path("r.md"), "rb") as f:
            self.assertEqual(f.read(), want)
        cp = self.abev("report", ev, "--out", os.path.join(ev, "again.md"), check=2)
        self.assertIn("never rewritten", cp.stderr)
        self.assertFalse(os.path.exists(os.path.join(ev, "again.md")))
        self.abev("verify", ev, "--pubkey", self.path("k.pub"), check=0)
        # Tampered evidence is refused when a key is given.
        with open(os.path.join(ev, "result.json"), "a") as f:
            f.write(" ")
        cp = self.abev("report", ev, "--pubkey", self.path("k.pub"), check=4)
        self.assertIn("result.json", cp.stderr)
        self.validate_evidence_on_teardown = False

    def test_report_of_a_run_that_never_finished(self):
        """abev killed outright leaves status running and no comparison: report
        renders what it left (the invocations from the journal), export and
        compare refuse with the reason."""
        import time
        plan = sh_plan("killed", [("base", sleep_round([100] * 5)),
                                  ("cand", sleep_round([100] * 5))])
        # A long gap after the first invocation: abev is killed while it waits,
        # once the journal holds that invocation.
        plan["schedule"]["gap_seconds"] = 60
        p = self.write_plan(plan)
        proc = subprocess.Popen([os.environ["ABEV"], "run", p, "--out", self.path("ev"),
                                 "--unsigned"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    with open(self.path("ev", "invocations.jsonl"), "rb") as f:
                        if f.read().endswith(b"\n"):
                            break
                except OSError:
                    pass
                time.sleep(0.02)
            proc.kill()
        finally:
            proc.wait()
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "running")
        self.assertIsNone(res["comparison"])
        self.assertEqual(res["invocations"], [])
        with open(self.path("ev", "report.md"), "rb") as f:
            self.assertIn(b"No decision yet", f.read())
        cp = self.abev("report", self.path("ev"), check=0)
        self.assertIn("No decision yet", cp.stdout)
        self.assertIn("| 1 | base | run 1 |", cp.stdout)
        self.assertIn("the 1 below are read from invocations.jsonl", cp.stdout)
        cp = self.abev("export", self.path("ev"), "--format", "csv", check=2)
        self.assertIn("its run did not finish (status running)", cp.stderr)

    def test_exports(self):
        ev = self.signed_evidence()
        res = self.load("ev", "result.json")
        cmp = res["comparison"]
        # hyperfine's shape, field by field, from the counted runs' wall times.
        doc = json.loads(self.abev("export", ev, "--format", "hyperfine", check=0).stdout)
        # command is the command line (what sh -c ran), as hyperfine writes it.
        lines = {}
        for i in res["invocations"]:
            lines.setdefault(i["variant"], i["argv"][2])
        self.assertEqual([r["command"] for r in doc["results"]], [lines["base"], lines["cand"]])
        for r, variant in zip(doc["results"], ("base", "cand")):
            self.assertEqual(set(r), {"command", "mean", "stddev", "median", "min", "max",
                                      "times", "user", "system", "exit_codes"})
            invs = [i for i in res["invocations"] if i["variant"] == variant and counts(i)]
            times = [i["wall_ns"] / 1e9 for i in invs]
            self.assertEqual(len(r["times"]), 7)
            for got, want in zip(r["times"], times):
                self.assertAlmostEqual(got, want, delta=1e-12)
            self.assertAlmostEqual(r["mean"], statistics.fmean(times), delta=1e-9)
            self.assertAlmostEqual(r["stddev"], statistics.stdev(times), delta=1e-9)
            self.assertAlmostEqual(r["median"], statistics.median(times), delta=1e-12)
            self.assertAlmostEqual(r["min"], min(times), delta=1e-12)
            self.assertAlmostEqual(r["max"], max(times), delta=1e-12)
            self.assertAlmostEqual(r["user"], statistics.fmean(i["user_ns"] / 1e9 for i in invs),
                                   delta=1e-9)
            self.assertAlmostEqual(r["system"],
                                   statistics.fmean(i["sys_ns"] / 1e9 for i in invs), delta=1e-9)
            self.assertEqual(r["exit_codes"], [0] * 7)
        # CSV: one row per invocation and metric.
        text = self.abev("export", ev, "--format", "csv", check=0).stdout
        rows = list(csv.DictReader(io.StringIO(text)))
        self.assertEqual(len(rows), len(res["invocations"]) * len(cmp["metrics"]))
        self.assertEqual({r["metric"] for r in rows}, {"wall", "cpu", "max_rss", "wall_own", "t"})
        for r in rows:
            if r["metric"] == "t":
                inv = [i for i in res["invocations"] if i["seq"] == int(r["seq"])][0]
                self.assertEqual(float(r["value"]), inv["metrics"]["t"])
        # JUnit: abev's own reader counts one testcase per gate, a failed gate a failure.
        self.abev("export", ev, "--format", "junit", "--out", self.path("gates.xml"), check=0)
        doc = json.loads(self.abev("results", self.path("gates.xml"), "--json", check=0).stdout)
        failed = sum(g["verdict"] == "fail" for g in cmp["gates"])
        self.assertEqual(doc["total"]["total"], len(cmp["gates"]))
        self.assertEqual(doc["total"]["failed"] + doc["total"]["errors"], failed)
        self.assertEqual(failed, 1)
        # JSON: the comparison itself.
        doc = json.loads(self.abev("export", ev, "--format", "json", check=0).stdout)
        self.assertEqual(doc, cmp)
        cp = self.abev("export", ev, "--format", "xml", check=2)
        self.assertIn("unknown format 'xml'", cp.stderr)

    def test_compare_two_evidence_directories(self):
        old = sh_plan("old plan", [("base", echo_round(T_BASE)), ("cand", echo_round(T_BASE))],
                      metrics=[T_METRIC, {"name": "only old", "source": "stdout", "unit": "ms",
                                          "pattern": "t=([0-9]+)"}])
        new = sh_plan("new plan", [("cand", echo_round(T_CAND)), ("extra", echo_round(T_CAND))],
                      metrics=[T_METRIC])
        self.run_plan(old, 0, out="old", plan_name="old.json")
        self.run_plan(new, 0, out="new", plan_name="new.json")
        cp = self.abev("compare", self.path("old"), self.path("new"), check=0)
        self.assertIn("shared variants: cand\n", cp.stdout)
        self.assertIn("shared metrics: wall, cpu, max_rss, t\n", cp.stdout)
        self.assertIn("only old (only in old)", cp.stdout)
        t_line = [ln for ln in cp.stdout.splitlines() if ln.strip().startswith("t ")]
        self.assertEqual(len(t_line), 1, cp.stdout)
        self.assertIn("100 ms → 110 ms", t_line[0])
        self.assertIn("(+10.00%)", t_line[0])
        doc = json.loads(self.abev("compare", self.path("old"), self.path("new"), "--json",
                                   check=0).stdout)
        import schemas
        self.assertEqual(schemas.errors("compare", doc), [])
        self.assertEqual([v["variant"] for v in doc["variants"]], ["cand"])
        _, s = self.sample(doc["variants"][0]["comparison"], "t", "new")
        self.assertAlmostEqual(s["change_pct"], 10.0, delta=1e-9)
        self.assertEqual(s["paired"]["pairs"], 0)
        # Nothing shared: refused, naming what each has.
        other = sh_plan("other", [("x", echo_round(T_BASE))])
        self.run_plan(other, 0, out="other", plan_name="other.json")
        cp = self.abev("compare", self.path("old"), self.path("other"), check=2)
        self.assertIn("share no variant name: old has base, cand; new has x", cp.stderr)
        cp = self.abev("compare", self.path("old"), self.path("nowhere"), check=2)
        self.assertIn("nowhere", cp.stderr)


if __name__ == "__main__":
    unittest.main()
