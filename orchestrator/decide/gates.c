/*
 * gates: the gates of a comparison judged on its samples — a change
 * gate against the interval of the ratio, a budget against the median's
 * order-statistic interval — the decision they make, and what the sample
 * size allows (the smallest p each test can give, the rounds an
 * inconclusive gate would need at the noise seen). compare.c calls it
 * once the samples are set against the reference.
 */
#include "decide/compare_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/stats.h"
#include "decide/stats_exact.h"
#include "util/alloc.h"

/*
 * How far an interval's end may lie past a limit and still count as at
 * it: a relative 1e-9. A change computed as (1.05 - 1) x 100 is
 * 5.000000000000004, which a limit of 5 % must take as 5 % — "at the
 * limit passes" — while no difference a measurement can show is this
 * small.
 */
#define COMPARE_LIMIT_REL_EPS 1e-9

/*
 * Judges a limit against an interval [lo, hi] where "bad" is above the
 * limit (bad_above) or below it: pass when the whole interval is on the
 * good side (an end at the limit, within COMPARE_LIMIT_REL_EPS, is on
 * it), fail when all of it is on the bad side.
 */
static enum gate_verdict judge_interval(double lo, double hi, double limit, int bad_above)
{
	double eps = COMPARE_LIMIT_REL_EPS * (fabs(limit) > 1 ? fabs(limit) : 1);

	if (bad_above)
		return hi <= limit + eps ? GATE_PASS : lo > limit + eps ? GATE_FAIL
									: GATE_INCONCLUSIVE;
	return lo >= limit - eps ? GATE_PASS : hi < limit - eps ? GATE_FAIL : GATE_INCONCLUSIVE;
}

/*
 * An inconclusive gate's interval, at the noise observed: its half-width
 * (log-ratio terms) shrinks about as 1/sqrt(n), so it clears the limit
 * once it is narrower than the distance from the estimate to the limit.
 * A rough guide, not a promise: the noise of more rounds is not known.
 * Sets g->n_needed (0 when the estimate sits on the limit: no number of
 * rounds is likely to decide it).
 */
static void estimate_needed(const struct cmp_sample *s, double limit_pct, struct cmp_gate *g)
{
	double rl = 1 + limit_pct / 100, h, d, n;

	g->n_needed_paired = compare_gi_by_round(s->gi_method);
	/* Unbounded (a run read nothing): no width to scale. */
	if (rl <= 0 || s->gi_lo <= 0 || s->gi_point <= 0 || isinf(s->gi_hi) || isinf(s->gi_point))
		return;
	h = (log(s->gi_hi) - log(s->gi_lo)) / 2;
	d = fabs(log(s->gi_point) - log(rl));
	if (h <= 0 || d < h / COMPARE_NEEDED_MAX_FACTOR)
		return;
	n = ceil((double)s->gi_n * (h / d) * (h / d));
	g->n_needed = n > (double)s->gi_n ? (size_t)n : s->gi_n + 1;
}

/* The code of a verdict on an interval: a change's, or a budget's median's. */
static enum reason_code verdict_code(enum gate_verdict v, int budget)
{
	switch (v) {
	case GATE_PASS: return budget ? REASON_BUDGET_WITHIN : REASON_INTERVAL_WITHIN_LIMIT;
	case GATE_FAIL: return budget ? REASON_BUDGET_BEYOND : REASON_INTERVAL_BEYOND_LIMIT;
	case GATE_INCONCLUSIVE: break;
	}
	return budget ? REASON_BUDGET_STRADDLES : REASON_INTERVAL_STRADDLES_LIMIT;
}

/* A change gate: regression (worse than limit) or improvement (better than limit). */
static void judge_change(const struct cmp_metric *cm, const struct cmp_sample *s,
			 struct cmp_gate *g)
{
	int lower = !cm->better_higher;
	/* In change-% terms the bad side of a regression limit L is +L (lower is better) or -L. */
	int regression = g->kind == GATE_MAX_REGRESSION;
	double limit = (regression == lower) ? g->limit : -g->limit;
	int bad_above = regression == lower;

	if (!s->has_change) {
		g->verdict = GATE_INCONCLUSIVE;
		g->reason = REASON_NO_CHANGE;
		return;
	}
	/* What the interval is of: the estimate, not the change of medians beside it. */
	g->has_observed = 1;
	g->observed = compare_estimate_pct(s);
	if (!s->has_gi) {
		g->verdict = GATE_INCONCLUSIVE;
		g->reason = REASON_NO_INTERVAL;
		g->note = s->gi_note;
		g->n_needed = s->gi_needed;
		g->n_needed_paired = s->pairs > 0;
		return;
	}
	g->has_interval = 1;
	g->method = s->gi_method;
	g->coverage = s->gi_coverage;
	g->n = s->gi_n;
	g->lo = (s->gi_lo - 1) * 100;
	g->hi = (s->gi_hi - 1) * 100;
	g->verdict = judge_interval(g->lo, g->hi, limit, bad_above);
	g->reason = verdict_code(g->verdict, 0);
	if (g->verdict == GATE_INCONCLUSIVE)
		estimate_needed(s, limit, g);
}

static void judge_budget(const struct comparison *c, const struct cmp_metric *cm,
			 const struct cmp_sample *s, struct cmp_gate *g)
{
	struct stats_median_ci iv;
	double *v;

	if (!s->n) {
		g->verdict = GATE_INCONCLUSIVE;
		g->reason = REASON_BUDGET_NO_RUN;
		return;
	}
	g->has_observed = 1;
	g->observed = s->median;
	g->n = s->n;
	v = compare_plain_values(s);
	/*
	 * The median's order-statistic interval: exact coverage for any
	 * distribution, where a bootstrap of 2 or 3 runs claims 95 % and
	 * gives less.
	 */
	if (stats_median_ci(v, s->n, c->gate_confidence, &iv) < 0 || !iv.ok) {
		g->verdict = GATE_INCONCLUSIVE;
		g->reason = REASON_BUDGET_TOO_FEW_RUNS;
		g->n_min = stats_median_ci_n_needed(c->gate_confidence);
	} else {
		g->has_interval = 1;
		g->method = "median_order_statistics";
		g->coverage = iv.coverage;
		g->lo = iv.lo;
		g->hi = iv.hi;
		g->verdict = judge_interval(iv.lo, iv.hi, g->limit, !cm->better_higher);
		g->reason = verdict_code(g->verdict, 1);
	}
	free(v);
}

/*
 * Whether gate k's judgement of variant v had anything to judge: counted
 * values of its metric for v and, for a change, for the reference.
 */
static int had_runs(const struct compare_config *cfg, const struct comparison *c, size_t m,
		    size_t v, enum gate_kind kind)
{
	const struct cmp_metric *cm;

	if (m == SIZE_MAX)
		return 0;
	cm = &c->metrics[m];
	return cm->samples[v].n && (kind == GATE_BUDGET || cm->samples[cfg->reference].n);
}

void gates_judge(const struct compare_config *cfg, struct comparison *c)
{
	size_t fail = 0, inconclusive = 0, judged = 0;

	c->gates = xcalloc(cfg->ngates * cfg->nvariants + 1, sizeof(*c->gates));
	for (size_t k = 0; k < cfg->ngates; k++) {
		const struct compare_gate_def *gd = &cfg->gates[k];
		size_t m = compare_metric_index(c, gd->metric);

		for (size_t v = 0; v < cfg->nvariants; v++) {
			struct cmp_gate *g;
			if (v == cfg->reference)
				continue;
			g = &c->gates[c->ngates++];
			g->metric = gd->metric;
			g->variant = cfg->variants[v];
			g->kind = gd->kind;
			g->limit = gd->limit;
			if (m == SIZE_MAX) {
				g->verdict = GATE_INCONCLUSIVE;
				g->reason = REASON_METRIC_NOT_RECORDED;
			} else if (gd->kind == GATE_BUDGET) {
				judge_budget(c, &c->metrics[m], &c->metrics[m].samples[v], g);
			} else {
				judge_change(&c->metrics[m], &c->metrics[m].samples[v], g);
			}
			fail += g->verdict == GATE_FAIL;
			inconclusive += g->verdict == GATE_INCONCLUSIVE;
			judged += had_runs(cfg, c, m, v, gd->kind);
		}
	}
	/*
	 * Nothing to compare is not "the effect sits on the limit": no run
	 * counted on a side (nothing ran, a setup failed), so no decision.
	 */
	if (!c->ngates || !judged)
		c->decision = DECISION_NONE;
	else if (fail)
		c->decision = DECISION_REJECTED;
	else if (inconclusive)
		c->decision = DECISION_INCONCLUSIVE;
	else
		c->decision = DECISION_ACCEPTED;
	c->no_decision = c->ngates && !judged ? REASON_NOTHING_COMPARED : REASON_NONE;
}

void gates_interrupted(const struct compare_config *cfg, struct comparison *c)
{
	if (!cfg->interrupted)
		return;
	/* Stopped part-way, the rounds run are a glimpse, never a verdict: accepted least of all. */
	c->shown = c->decision;
	c->decision = DECISION_NONE;
	c->no_decision = REASON_INTERRUPTED;
}

/* Whether metric name is gated by cfg (any kind), or there are no gates and it is wall. */
static int sized(const struct compare_config *cfg, const char *name)
{
	if (!cfg->ngates)
		return !strcmp(name, COMPARE_WALL);
	for (size_t k = 0; k < cfg->ngates; k++)
		if (!strcmp(cfg->gates[k].metric, name))
			return 1;
	return 0;
}

/*
 * What the sample size allows: the worst case over the gated metrics
 * (wall when nothing is gated) and the compared variants — the fewest
 * counted runs and pairs, and the largest of the smallest p each test
 * can give with the values' ties as they are.
 */
void gates_sample_size(const struct compare_config *cfg, struct comparison *c)
{
	int first = 1;

	c->mw_n_needed = stats_mw_n_needed(c->alpha);
	c->wsr_n_needed = stats_wsr_n_needed(c->alpha);
	c->mw_min_p = 0;
	c->wsr_min_p = 0;
	for (size_t m = 0; m < c->nmetrics; m++) {
		const struct cmp_metric *cm = &c->metrics[m];
		const struct cmp_sample *ref = &cm->samples[cfg->reference];

		if (!sized(cfg, cm->name))
			continue;
		for (size_t v = 0; v < cm->nsamples; v++) {
			const struct cmp_sample *s = &cm->samples[v];
			size_t n = s->n < ref->n ? s->n : ref->n;
			double p = s->has_mw ? s->mw_min_p : stats_mw_min_p(ref->n, s->n);
			double wp = s->has_paired ? s->wsr_min_p : 1;

			/* A variant without counted runs has no comparison to qualify. */
			if (v == cfg->reference || !n)
				continue;
			if (first || n < c->min_n)
				c->min_n = n;
			if (first || s->pairs < c->min_pairs)
				c->min_pairs = s->pairs;
			if (first || wp > c->wsr_min_p)
				c->wsr_min_p = wp;
			if (first || p > c->mw_min_p) {
				c->mw_min_p = p;
				c->min_n_ref = ref->n;
				c->min_n_other = s->n;
				c->size_metric = cm->name;
			}
			first = 0;
		}
	}
	if (first) {
		c->mw_min_p = 1;
		c->wsr_min_p = 1;
		c->min_n = c->min_pairs = 0;
	}
	c->pairs_needed_ci = compare_gate_pairs_needed(cfg, c->gate_confidence);
	c->runs_needed_ci = stats_mw_interval_n_needed(c->gate_confidence);
}

