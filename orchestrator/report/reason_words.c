/*
 * reason_words: the sentences of the comparison's reason codes
 * (reason_words.h). The wording is the one decide/ wrote into result.json
 * before the codes, so that report.md and the terminal read as they did.
 */
#include "report/reason_words.h"

#include <string.h>

#include "decide/units.h"
#include "util/alloc.h"
#include "util/strbuf.h"

/* Metric name of c, or NULL. */
static const struct cmp_metric *find_metric(const struct comparison *c, const char *name)
{
	for (size_t m = 0; m < c->nmetrics; m++)
		if (!strcmp(c->metrics[m].name, name))
			return &c->metrics[m];
	return NULL;
}

/* Variant name's sample under cm (want_ref: the reference's), or NULL. */
static const struct cmp_sample *find_sample(const struct cmp_metric *cm, const char *name,
					    int want_ref)
{
	for (size_t v = 0; cm && v < cm->nsamples; v++)
		if (want_ref ? cm->samples[v].is_reference : !strcmp(cm->samples[v].variant, name))
			return &cm->samples[v];
	return NULL;
}

static void add_interval_note(struct strbuf *sb, const struct comparison *c,
			      const struct cmp_sample *ref, const struct cmp_sample *s)
{
	size_t ref_n = ref ? ref->n : 0;
	double conf = c->gate_confidence * 100;

	switch (s->gi_note) {
	case REASON_NO_REFERENCE_RUN:
		strbuf_adds(sb, "no counted run of the reference");
		return;
	case REASON_NO_COUNTED_RUN:
		strbuf_adds(sb, "no counted run");
		return;
	case REASON_CHANGE_UNKNOWN:
		strbuf_adds(sb, s->change_note ? s->change_note : "no change can be computed");
		return;
	case REASON_NOT_POSITIVE:
		strbuf_addf(sb, "%zu counted run(s) of the reference and %zu of this variant have a "
			    "negative value of a lower-is-better metric, which a ratio cannot take; "
			    "judging the change on the other runs would hide them", s->gi_not_positive_ref,
			    s->gi_not_positive);
		return;
	case REASON_TOO_FEW_ROUNDS:
		strbuf_addf(sb, "needs at least %zu rounds for %.4g %% (has %zu; below %zu rounds "
			    "the interval is unpaired)", s->gi_needed, conf, s->pairs,
			    c->pairs_needed_ci);
		return;
	case REASON_TOO_FEW_RUNS:
		strbuf_addf(sb, "needs at least %zu runs a side for %.4g %% (has %zu and %zu)",
			    s->gi_needed, conf, ref_n, s->n);
		return;
	case REASON_TOO_FEW_ROUNDS_OR_RUNS:
		strbuf_addf(sb, "needs at least %zu rounds for %.4g %% (has %zu; the %zu and %zu "
			    "counted runs cannot give it unpaired either)", s->gi_needed, conf,
			    s->pairs, ref_n, s->n);
		return;
	default:
		break;
	}
	strbuf_adds(sb, s->gi_note ? reason_code_name(s->gi_note) : "?");
}

char *reason_words_interval(const struct comparison *c, const struct cmp_metric *cm,
			    const struct cmp_sample *s)
{
	struct strbuf sb = STRBUF_INIT;

	if (s->has_gi || !s->gi_note)
		return NULL;
	add_interval_note(&sb, c, find_sample(cm, NULL, 1), s);
	return strbuf_detach(&sb, NULL);
}

static const char *verdict_clause(enum gate_verdict v)
{
	switch (v) {
	case GATE_PASS: return "the whole interval is within the limit";
	case GATE_FAIL: return "the whole interval is beyond the limit";
	case GATE_INCONCLUSIVE: break;
	}
	return "the interval straddles the limit";
}

/* A change gate's: cm and s are its metric's and variant's. */
static void add_change(struct strbuf *sb, const struct comparison *c, const struct cmp_gate *g,
		       const struct cmp_metric *cm, const struct cmp_sample *s)
{
	int regression = g->kind == GATE_MAX_REGRESSION;
	double limit = regression == !cm->better_higher ? g->limit : -g->limit;
	int by_round = compare_gi_by_round(g->method);
	int joint = g->method && !strcmp(g->method, COMPARE_GI_JOINT);

	if (g->reason == REASON_NO_CHANGE) {
		strbuf_addf(sb, "%s %s: no change can be computed (%s)", g->variant, cm->name,
			    s && s->change_note ? s->change_note : "?");
		return;
	}
	strbuf_addf(sb, "%s %s changed ", g->variant, cm->name);
	units_add_pct(sb, g->observed);
	if (g->reason == REASON_NO_INTERVAL) {
		strbuf_adds(sb, ", but without an interval (");
		if (s)
			add_interval_note(sb, c, find_sample(cm, NULL, 1), s);
		strbuf_adds(sb, ") no limit of ");
		units_add_pct(sb, limit);
		strbuf_adds(sb, " can be judged");
		return;
	}
	strbuf_adds(sb, " [");
	units_add_pct(sb, g->lo);
	strbuf_adds(sb, ", ");
	units_add_pct(sb, g->hi);
	strbuf_addf(sb, "] (%s, %zu %s, exact %.1f %%) against %s limit of ",
		    joint ? "paired by round and unpaired" : by_round ? "paired by round" : "unpaired",
		    g->n,
		    by_round ? "rounds" : "runs a side", g->coverage * 100,
		    regression ? "a regression" : "an improvement");
	units_add_pct(sb, limit);
	strbuf_addf(sb, ": %s", verdict_clause(g->verdict));
	if (g->verdict != GATE_INCONCLUSIVE)
		return;
	if (g->n_needed)
		strbuf_addf(sb, "; about %zu %s would decide it at this noise", g->n_needed,
			    g->n_needed_paired ? "rounds" : "runs a side");
	else
		strbuf_adds(sb, "; the estimate sits on the limit: more rounds are unlikely to "
				"decide it");
}

static void add_budget(struct strbuf *sb, const struct comparison *c, const struct cmp_gate *g,
		       const struct cmp_metric *cm)
{
	switch (g->reason) {
	case REASON_BUDGET_NO_RUN:
		strbuf_addf(sb, "%s %s: no counted run to hold against the budget of %g %s",
			    g->variant, cm->name, g->limit, cm->unit);
		return;
	case REASON_BUDGET_TOO_FEW_RUNS:
		strbuf_addf(sb, "%s %s median %g %s, but the budget of %g %s needs at least %zu "
			    "counted runs for %.4g %% (has %zu)", g->variant, cm->name, g->observed,
			    cm->unit, g->limit, cm->unit, g->n_min, c->gate_confidence * 100, g->n);
		return;
	default:
		break;
	}
	strbuf_addf(sb, "%s %s median %g %s [%g, %g] (%zu runs, exact %.1f %%) against a budget "
		    "of %s%g %s: %s", g->variant, cm->name, g->observed, cm->unit, g->lo, g->hi,
		    g->n, g->coverage * 100, cm->better_higher ? "at least " : "at most ",
		    g->limit, cm->unit, verdict_clause(g->verdict));
}

char *reason_words_gate(const struct comparison *c, const struct cmp_gate *g)
{
	struct strbuf sb = STRBUF_INIT;
	const struct cmp_metric *cm = find_metric(c, g->metric);

	if (g->reason == REASON_METRIC_NOT_RECORDED || !cm)
		strbuf_addf(&sb, "metric '%s' was not recorded", g->metric);
	else if (g->kind == GATE_BUDGET)
		add_budget(&sb, c, g, cm);
	else
		add_change(&sb, c, g, cm, find_sample(cm, g->variant, 0));
	return strbuf_detach(&sb, NULL);
}

char *reason_words_warning(const struct cmp_warning *w)
{
	switch (w->code) {
	case REASON_NOISY:
		return xasprintf("%s of %s is noisy: coefficient of variation %.1f%% (over %.0f%%)",
				 w->metric, w->variant, w->value, w->limit);
	case REASON_SLOT_EFFECT:
		return xasprintf("%s of %s depends on its slot in the round: %+.2f%% when it ran "
				 "after another variant (p = %.4g)", w->metric, w->variant, w->value,
				 w->p);
	case REASON_OUTLIERS:
		return xasprintf("%s of %s has %zu outlier%s (modified z-score over %.1f), flagged "
				 "and kept", w->metric, w->variant, w->count,
				 w->count == 1 ? "" : "s", w->limit);
	default:
		break;
	}
	return xasprintf("%s of %s: %s", w->metric, w->variant,
			 w->code ? reason_code_name(w->code) : "?");
}

char *reason_words_blocking(const struct cmp_blocking *b)
{
	return xasprintf("%s run %u failed the %s guard: %s", b->variant, b->round,
			 guard_kind_name(b->guard),
			 b->guard_reason ? b->guard_reason : "no reason recorded");
}

/* What happened to runs of a status, as a sentence says it. */
static const char *status_words(enum inv_status st)
{
	switch (st) {
	case INV_OK: return "did not count";
	case INV_FAILED: return "failed";
	case INV_TIMED_OUT: return "timed out";
	case INV_DISCARDED: return "were discarded";
	case INV_EXEC_FAILED: return "could not start";
	case INV_INTERRUPTED: return "were interrupted";
	}
	return "did not count";
}

char *reason_words_missing(const struct cmp_missing *m)
{
	struct strbuf sb = STRBUF_INIT;

	switch (m->code) {
	case REASON_NO_RECORDED_RUN:
		return xasprintf("'%s' has no recorded run", m->variant);
	case REASON_METRIC_NO_VALUE:
		return xasprintf("metric '%s' has no value in any counted run of '%s'%s%s",
				 m->metric ? m->metric : "?", m->variant, m->reason ? ": " : "",
				 m->reason ? m->reason : "");
	case REASON_NO_COUNTED_RUNS:
		break;
	default:
		return xasprintf("'%s': %s", m->variant,
				 m->code ? reason_code_name(m->code) : "?");
	}
	strbuf_addf(&sb, "'%s' has no counted run: ", m->variant);
	if (m->runs == 1)
		strbuf_adds(&sb, "its one run");
	else if (m->shared == m->runs)
		strbuf_addf(&sb, "all %zu runs", m->runs);
	else
		strbuf_addf(&sb, "%zu of %zu runs", m->shared, m->runs);
	strbuf_addf(&sb, " %s: %s", status_words(m->status), m->reason ? m->reason : "?");
	if (m->shared < m->runs)
		strbuf_addf(&sb, ", %zu for other reasons", m->runs - m->shared);
	if (m->stderr_tail)
		strbuf_addf(&sb, "; its stderr ends: %s", m->stderr_tail);
	return strbuf_detach(&sb, NULL);
}

char *reason_words_no_decision(const struct comparison *c)
{
	switch (c->no_decision) {
	case REASON_INTERRUPTED:
		if (c->rounds_planned)
			return xasprintf("interrupted after %u of %u round%s", c->rounds_done,
					 c->rounds_planned, c->rounds_planned == 1 ? "" : "s");
		return xasprintf("interrupted after %u round%s", c->rounds_done,
				 c->rounds_done == 1 ? "" : "s");
	case REASON_NOTHING_COMPARED:
		return xstrdup("nothing could be compared: no gate had counted runs on both sides");
	default:
		return NULL;
	}
}
