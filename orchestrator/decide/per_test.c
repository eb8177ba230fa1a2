/*
 * per_test: the tests whose duration changed most between the reference
 * and each variant, from the per-test times of the counted runs. Every
 * test is ranked on its medians; the exact tests and intervals are
 * computed only for the few kept.
 */
#include "decide/compare_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/stats.h"
#include "decide/stats_exact.h"
#include "util/alloc.h"
#include "util/strbuf.h"

/* One test's duration in one counted run: what per_test_changes() sorts and groups. */
struct test_time_entry {
	const char *name;      /* borrowed from the invocation */
	size_t variant;
	unsigned seq, round;
	double ms;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct test_time_entry *x = a, *y = b;
	int n = strcmp(x->name, y->name);

	if (n)
		return n;
	if (x->variant != y->variant)
		return x->variant < y->variant ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_change(const void *a, const void *b)
{
	const struct cmp_test_change *x = a, *y = b;
	double ax = fabs(x->change_pct), ay = fabs(y->change_pct);

	if (ax != ay)
		return ax < ay ? 1 : -1;
	return strcmp(x->test, y->test);
}

/*
 * A test's values for one variant, from e[0..n) (one name, sorted by
 * variant then seq): the durations of its counted runs in execution order,
 * a run that named the test twice counting once with the sum.
 */
static void test_sample(const struct test_time_entry *e, size_t n, size_t variant,
			struct cmp_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->values = xcalloc(n ? n : 1, sizeof(*s->values));
	for (size_t i = 0; i < n; i++) {
		if (e[i].variant != variant)
			continue;
		if (s->n && s->values[s->n - 1].seq == e[i].seq) {
			s->values[s->n - 1].value += e[i].ms;
			continue;
		}
		s->values[s->n].value = e[i].ms;
		s->values[s->n].seq = e[i].seq;
		s->values[s->n].round = e[i].round;
		s->n++;
	}
	if (s->n) {
		double *v = compare_plain_values(s);
		s->median = stats_median(v, s->n);
		free(v);
	}
}

/* A test's change for one variant before it is ranked, and where its entries are. */
struct test_candidate {
	struct cmp_test_change ch;
	size_t first, n;           /* its entries in the sorted list */
	size_t variant;
};

static int cmp_candidate(const void *a, const void *b)
{
	return cmp_change(&((const struct test_candidate *)a)->ch,
			  &((const struct test_candidate *)b)->ch);
}

/*
 * The medians and change of one test for variant v, from e[0..n) (one
 * name): 1 with *out filled when it can be ranked (a duration on both
 * sides, a positive reference median, one side at COMPARE_TEST_MIN_MS at
 * least). out->test is borrowed from the entries until the test is kept.
 */
static int test_medians(const struct compare_config *cfg, const struct test_time_entry *e,
			size_t n, size_t v, struct cmp_test_change *out)
{
	struct cmp_sample ref, s;
	int ranked;

	test_sample(e, n, cfg->reference, &ref);
	test_sample(e, n, v, &s);
	ranked = ref.n && s.n && ref.median > 0 &&
		 (ref.median >= COMPARE_TEST_MIN_MS || s.median >= COMPARE_TEST_MIN_MS);
	if (ranked)
		*out = (struct cmp_test_change){
			.test = (char *)e[0].name, .variant = cfg->variants[v],
			.n_ref = ref.n, .n = s.n, .ref_median_ms = ref.median,
			.median_ms = s.median,
			.change_pct = (s.median - ref.median) / ref.median * 100,
		};
	free(ref.values);
	free(s.values);
	return ranked;
}

/*
 * A kept test's statistics, those of the metrics: the exact Mann–Whitney
 * p, and the change gates' interval of the ratio (paired by round when it
 * can be).
 */
static void test_stats(const struct compare_config *cfg, const struct test_time_entry *e,
		       size_t n, size_t v, struct cmp_test_change *out)
{
	struct cmp_sample ref, s;
	double *rv, *sv, *logs, a, b;
	struct stats_mw mw;
	size_t k = 0;

	test_sample(e, n, cfg->reference, &ref);
	test_sample(e, n, v, &s);
	s.variant = cfg->variants[v];
	s.has_change = 1;
	s.change_pct = out->change_pct;
	rv = compare_plain_values(&ref);
	sv = compare_plain_values(&s);
	if (stats_mann_whitney(rv, ref.n, sv, s.n, &mw) == 0) {
		out->has_mw = 1;
		out->mw_p = mw.p;
	}
	/* The rounds' log-ratios on the change gates' scale: their interval (durations: lower is better). */
	logs = xcalloc(s.n, sizeof(*logs));
	for (size_t i = 0, j = 0; !cfg->unpaired && i < s.n && j < ref.n;) {
		if (ref.values[j].round != s.values[i].round) {
			if (ref.values[j].round < s.values[i].round)
				j++;
			else
				i++;
			continue;
		}
		a = compare_gate_log(ref.values[j].value, 0);
		b = compare_gate_log(s.values[i].value, 0);
		if (!isnan(a) && !isnan(b))
			logs[k++] = b - a;
		i++;
		j++;
	}
	compare_gate_interval(cfg, &ref, &s, 0, logs, k);
	if (s.has_gi) {
		out->has_gi = 1;
		out->gi_method = s.gi_method;
		out->gi_lo = s.gi_lo;
		out->gi_hi = s.gi_hi;
	}
	free(logs);
	free(rv);
	free(sv);
	free(ref.values);
	free(s.values);
}

/*
 * The tests whose duration changed most, per compared variant, from the
 * test_times of the counted runs (struct comparison). Every test is ranked
 * on its medians; the tests are computed only for the ones kept, so that a
 * suite of thousands of tests costs a sort, not thousands of exact tests.
 */
void per_test_changes(const struct compare_config *cfg, const struct invocation *invs,
		      size_t ninvs, const struct placement *pl, struct comparison *c)
{
	struct test_time_entry *e;
	struct test_candidate *all = NULL;
	size_t n = 0, nall = 0, alloc = 0;

	for (size_t i = 0; i < ninvs; i++)
		if (pl->variant[i] != SIZE_MAX && compare_counts(&invs[i]))
			n += invs[i].ntest_times;
	if (!n)
		return;
	e = xcalloc(n, sizeof(*e));
	n = 0;
	for (size_t i = 0; i < ninvs; i++) {
		if (pl->variant[i] == SIZE_MAX || !compare_counts(&invs[i]))
			continue;
		for (size_t t = 0; t < invs[i].ntest_times; t++)
			e[n++] = (struct test_time_entry){ invs[i].test_times[t].name, pl->variant[i],
							   invs[i].seq, invs[i].round,
							   invs[i].test_times[t].ms };
	}
	qsort(e, n, sizeof(*e), cmp_entry);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && !strcmp(e[b].name, e[a].name); b++)
			;
		c->tests_timed++;
		for (size_t v = 0; v < cfg->nvariants; v++) {
			struct cmp_test_change ch;
			if (v == cfg->reference || !test_medians(cfg, e + a, b - a, v, &ch))
				continue;
			ALLOC_GROW(all, nall + 1, alloc);
			all[nall++] = (struct test_candidate){ ch, a, b - a, v };
		}
	}
	/* Per variant in plan order, the largest changes first. */
	c->test_changes = xcalloc(cfg->nvariants * COMPARE_TEST_CHANGES_MAX + 1,
				  sizeof(*c->test_changes));
	if (nall)
		qsort(all, nall, sizeof(*all), cmp_candidate);
	for (size_t v = 0; v < cfg->nvariants; v++) {
		size_t kept = 0;
		for (size_t i = 0; i < nall && kept < COMPARE_TEST_CHANGES_MAX; i++) {
			struct cmp_test_change *t;
			if (all[i].variant != v)
				continue;
			t = &c->test_changes[c->ntest_changes++];
			*t = all[i].ch;
			t->test = xstrdup(all[i].ch.test);
			test_stats(cfg, e + all[i].first, all[i].n, v, t);
			kept++;
		}
	}
	free(all);
	free(e);
}

