/*
 * missing: what a comparison lacks — why a variant has no counted run
 * (the reason most of its runs share, and what its stderr said last),
 * why a metric has no value — and the test guards that block
 * acceptance, which reject a candidate whose tests failed or changed
 * rather than leave it "inconclusive: too few runs". Codes and the
 * figures they rest on; report/reason_words.c words them.
 */
#include "decide/compare_parts.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/*
 * The test guards that block acceptance: a recorded run (not a warmup,
 * not a discarded attempt) whose tests_passed, test_set or min_executed
 * guard failed. Its figures do not count, so without this the decision
 * would only be "inconclusive: too few runs"; a candidate with a failing
 * test, or that quietly skips one, is rejected instead, and the entry
 * names the guard and keeps its reason (which names the tests).
 */
void missing_blocking(const struct invocation *invs, size_t ninvs, struct comparison *c)
{
	for (size_t i = 0; i < ninvs; i++) {
		const struct invocation *inv = &invs[i];

		if (inv->warmup || inv->status == INV_DISCARDED)
			continue;
		for (size_t k = 0; k < inv->nguards; k++) {
			const struct guard_result *g = &inv->guards[k];
			if (g->verdict != GUARD_FAIL || !guard_kind_judges_tests(g->kind))
				continue;
			if (c->nblocking == COMPARE_BLOCKING_MAX) {
				c->blocking_omitted++;
				continue;
			}
			ALLOC_GROW(c->blocking, c->nblocking + 1, c->blocking_alloc);
			c->blocking[c->nblocking++] = (struct cmp_blocking){
				.code = REASON_TEST_GUARD_FAILED, .variant = inv->variant,
				.round = inv->round, .guard = g->kind, .guard_reason = g->reason };
		}
	}
	if (c->nblocking) {
		c->decision = DECISION_REJECTED;
		c->no_decision = REASON_NONE;
	}
}

/* Distinct reasons why_uncounted() tells apart; runs of any other count as "other reasons". */
#define WHY_REASONS_MAX 16

/* The reason of inv's status: its first failing guard's, or its status. */
static const char *status_reason(const struct invocation *inv)
{
	return inv->reason ? inv->reason : invocation_status_name(inv->status);
}

/*
 * Why variant v has no counted run, into m: the reason most of its
 * recorded runs share (the first seen among equals), how many share it,
 * and what the first of them said last on stderr.
 */
static void why_uncounted(const char *v, const struct invocation *invs, size_t ninvs,
			  struct cmp_missing *m)
{
	/* The distinct reasons seen, counted, at most WHY_REASONS_MAX of them (the rest: "other"). */
	struct { const struct invocation *first; size_t n; } seen[WHY_REASONS_MAX];
	const struct invocation *best = NULL;
	size_t recorded = 0, best_n = 0, nseen = 0;

	for (size_t i = 0; i < ninvs; i++) {
		const struct invocation *a = &invs[i];
		size_t k;

		if (a->warmup || a->status == INV_DISCARDED || strcmp(a->variant, v))
			continue;
		recorded++;
		for (k = 0; k < nseen && strcmp(status_reason(seen[k].first), status_reason(a)); k++)
			;
		if (k == nseen && nseen < WHY_REASONS_MAX) {
			seen[nseen].first = a;
			seen[nseen++].n = 0;
		}
		if (k < nseen && ++seen[k].n > best_n) {
			best = seen[k].first;
			best_n = seen[k].n;
		}
	}
	m->runs = recorded;
	if (!recorded) {
		m->code = REASON_NO_RECORDED_RUN;
		return;
	}
	m->code = REASON_NO_COUNTED_RUNS;
	m->shared = best_n;
	m->status = best->status;
	m->reason = status_reason(best);
	m->stderr_tail = best->stderr_tail;
}

/* The metrics guard's reason in v's first counted run that failed it, or NULL. */
static const char *metrics_reason(const char *v, const struct invocation *invs, size_t ninvs)
{
	for (size_t i = 0; i < ninvs; i++) {
		if (strcmp(invs[i].variant, v) || !compare_counts(&invs[i]))
			continue;
		for (size_t k = 0; k < invs[i].nguards; k++)
			if (invs[i].guards[k].kind == GUARD_METRICS &&
			    invs[i].guards[k].verdict != GUARD_PASS && invs[i].guards[k].reason)
				return invs[i].guards[k].reason;
	}
	return NULL;
}

static struct cmp_missing *add_missing(struct comparison *c, const char *variant,
				       const char *metric, enum reason_code code)
{
	ALLOC_GROW(c->missing, c->nmissing + 1, c->missing_alloc);
	c->missing[c->nmissing] = (struct cmp_missing){ .variant = variant, .metric = metric,
							.code = code };
	return &c->missing[c->nmissing++];
}

/* Why figures are missing (struct comparison's missing), variant by variant. */
void missing_collect(const struct compare_config *cfg, const struct invocation *invs,
		     size_t ninvs, struct comparison *c)
{
	for (size_t v = 0; v < cfg->nvariants; v++) {
		const char *name = cfg->variants[v];
		size_t counted = 0;

		for (size_t i = 0; i < ninvs; i++)
			counted += !strcmp(invs[i].variant, name) && compare_counts(&invs[i]);
		if (!counted) {
			why_uncounted(name, invs, ninvs, add_missing(c, name, NULL, REASON_NONE));
			continue;
		}
		for (size_t m = NBUILTINS; m < c->nmetrics; m++) {
			if (c->metrics[m].samples[v].n)
				continue;
			add_missing(c, name, c->metrics[m].name, REASON_METRIC_NO_VALUE)->reason =
				metrics_reason(name, invs, ninvs);
		}
	}
}

