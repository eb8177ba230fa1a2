/*
 * Unit tests of stats_exact. The expected figures come from outside the
 * module's own code: hand computation for the small cases (named where
 * they are pinned), and complete enumeration here in the test for the
 * rest — every one of the 2^n sign vectors for W+, every assignment of
 * the pooled ranks to the two sides for U, and every Walsh average or
 * pairwise difference, stored and sorted. That is how R's
 * wilcox.test(conf.int = TRUE) builds its exact intervals (qsignrank,
 * qwilcox, then diffs[qu] and diffs[ql + 1]); the one difference is at a
 * tail probability exactly equal to (1 - level) / 2, where R takes one
 * order statistic further in than the coverage needs, and below the
 * smallest attainable level, where R returns a narrower interval with a
 * warning and this module says it has none (ok = 0).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/stats.h"
#include "decide/stats_exact.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/rng.h"

static const double levels[] = { 0.5, 0.8, 0.9, 0.95, 0.98, 0.99 };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Uniform in [lo, hi), from the test's own seeded stream. */
static double uniform(uint64_t *rng, double lo, double hi)
{
	return lo + (hi - lo) * (double)(rng_next(rng) >> 11) * 0x1p-53;
}

/* Every Walsh average (a + b) / 2, i <= j, sorted; count in *m. Caller frees. */
static double *all_walsh(const double *d, size_t n, size_t *m)
{
	double *w = xcalloc(n * (n + 1) / 2 + 1, sizeof(*w));

	*m = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[(*m)++] = (d[i] + d[j]) / 2;
	qsort(w, *m, sizeof(*w), cmp_double);
	return w;
}

/* Every difference y[j] - x[i], sorted. Caller frees. */
static double *all_diffs(const double *x, size_t nx, const double *y, size_t ny)
{
	double *w = xcalloc(nx * ny + 1, sizeof(*w));
	size_t m = 0;

	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			w[m++] = y[j] - x[i];
	qsort(w, m, sizeof(*w), cmp_double);
	return w;
}

static double sorted_median(const double *w, size_t m)
{
	return m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
}

/*
 * The largest k with cnt[0] + ... + cnt[k-1] <= tail * total (counts
 * exact, in integers), and that sum in *below.
 */
static size_t expected_k(const uint64_t *cnt, size_t top, uint64_t total, double tail,
			 uint64_t *below)
{
	uint64_t acc = 0;
	size_t k = 0;

	*below = 0;
	for (size_t s = 0; s <= top; s++) {
		if ((double)(acc + cnt[s]) > tail * (double)total * (1 + 1e-12))
			break;
		acc += cnt[s];
		k = s + 1;
		*below = acc;
	}
	return k;
}

/*
 * iv against the stored, sorted pairs w[0..m): the k-th smallest and
 * largest, their median, and coverage to within cov_tol.
 */
static void check_interval_against(const char *what, const struct stats_exact_interval *iv,
				   const double *w, size_t m, size_t k, double coverage,
				   double cov_tol, size_t n_used)
{
	if (iv->n_used != n_used)
		fail_msg("%s: n_used %zu, want %zu", what, iv->n_used, n_used);
	if (!(iv->point == sorted_median(w, m)))
		fail_msg("%s: point %.17g, want %.17g", what, iv->point, sorted_median(w, m));
	if (iv->k != k)
		fail_msg("%s: k %zu, want %zu", what, iv->k, k);
	if (k == 0) {
		if (iv->ok || !isnan(iv->lo) || !isnan(iv->hi) || !isnan(iv->coverage))
			fail_msg("%s: want not ok with NaN lo, hi, coverage", what);
		return;
	}
	if (!iv->ok || !iv->exact)
		fail_msg("%s: ok %d exact %d, want 1 1", what, iv->ok, iv->exact);
	if (!(iv->lo == w[k - 1]) || !(iv->hi == w[m - k]))
		fail_msg("%s: [%.17g, %.17g], want [%.17g, %.17g]", what, iv->lo, iv->hi,
			 w[k - 1], w[m - k]);
	if (!(fabs(iv->coverage - coverage) <= cov_tol))
		fail_msg("%s: coverage %.17g, want %.17g", what, iv->coverage, coverage);
}

/* ---- Inverse normal ---- */

static void test_normal_quantile(void **state)
{
	/* R: qnorm(p), printed with digits = 17. */
	static const struct { double p, z; } known[] = {
		{ 0.5, 0 },
		{ 0.975, 1.959963984540054 },
		{ 0.025, -1.959963984540054 },
		{ 0.995, 2.5758293035489004 },
		{ 0.9, 1.2815515655446004 },
		{ 1e-10, -6.3613409024040557 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		double z = stats_normal_quantile(known[i].p);

		if (!(fabs(z - known[i].z) <= 1e-14 * (1 + fabs(known[i].z))))
			fail_msg("quantile(%g) = %.17g, want %.17g", known[i].p, z, known[i].z);
	}
	/* Round trip through libm's erfc, over all three regions of AS 241. */
	for (double p = 1e-300; p < 0.5; p *= 1.37) {
		double z = stats_normal_quantile(p), back = 0.5 * erfc(-z / sqrt(2.0));

		/* z's rounding moves Phi(z) by about z^2 times as much, relatively. */
		if (!(fabs(back - p) <= 1e-15 * (4 + z * z) * p))
			fail_msg("Phi(quantile(%.17g)) = %.17g", p, back);
		/* Symmetric to the bit wherever 1 - p loses nothing of p. */
		if (1 - (1 - p) == p && !(stats_normal_quantile(1 - p) == -z))
			fail_msg("quantile(1 - %.17g) is not -quantile(%.17g)", p, p);
	}
	assert_true(stats_normal_quantile(0) == -INFINITY);
	assert_true(stats_normal_quantile(1) == INFINITY);
	assert_true(isnan(stats_normal_quantile(-0.1)));
	assert_true(isnan(stats_normal_quantile(1.5)));
	assert_true(isnan(stats_normal_quantile(NAN)));
}

/* ---- Wilcoxon signed-rank interval ---- */

struct wsr_case {
	const char *what;
	double d[10];
	size_t n;
	double level;
	int ok;
	size_t k, n_used;
	double lo, hi, point, coverage;
};

/*
 * By hand. 1..6: P(W+ <= 0) = 1/64 <= 0.025 < P(W+ <= 1) = 2/64, k = 1,
 * the smallest and largest Walsh averages. 1..8: P(W+ <= 3) = 5/256 <=
 * 0.025 < P(W+ <= 4) = 7/256, k = 4: the 4th smallest of 1, 1.5, 2, 2,
 * 2.5 ... is 2, the 4th largest of 8, 7.5, 7, 7 ... is 7. 1..5: P(W+ <=
 * 0) = 1/32 > 0.025, none at 95 %; at 90 % 1/32 <= 0.05, k = 1. The point
 * is the centre of symmetry of these symmetric samples.
 */
static const struct wsr_case wsr_cases[] = {
	{ "1..6 at 95 %", { 1, 2, 3, 4, 5, 6 }, 6, 0.95, 1, 1, 6, 1, 6, 3.5, 1 - 2.0 / 64 },
	{ "1..8 at 95 %", { 1, 2, 3, 4, 5, 6, 7, 8 }, 8, 0.95, 1, 4, 8, 2, 7, 4.5, 1 - 10.0 / 256 },
	{ "1..5 at 95 %: too few", { 1, 2, 3, 4, 5 }, 5, 0.95, 0, 0, 5, NAN, NAN, 3, NAN },
	{ "1..5 at 90 %", { 5, 4, 3, 2, 1 }, 5, 0.90, 1, 1, 5, 1, 5, 3, 1 - 2.0 / 32 },
	{ "non-finite values skipped: as 1..6", { NAN, 6, 1, INFINITY, 2, 3, -INFINITY, 4, 5 }, 9,
	  0.95, 1, 1, 6, 1, 6, 3.5, 1 - 2.0 / 64 },
	{ "nothing finite", { NAN, INFINITY }, 2, 0.95, 0, 0, 0, NAN, NAN, NAN, NAN },
	{ "empty", { 0 }, 0, 0.95, 0, 0, 0, NAN, NAN, NAN, NAN },
	/* Zeros are values: 0 x 6 has every Walsh average 0. */
	{ "all zero", { 0, 0, 0, 0, 0, 0 }, 6, 0.95, 1, 1, 6, 0, 0, 0, 1 - 2.0 / 64 },
	/* 1..6 scaled by -0.5: the interval negated and swapped. */
	{ "negative", { -0.5, -1, -1.5, -2, -2.5, -3 }, 6, 0.95, 1, 1, 6, -3, -0.5, -1.75,
	  1 - 2.0 / 64 },
};

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void test_wsr_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(wsr_cases); i++) {
		const struct wsr_case *c = &wsr_cases[i];
		struct stats_exact_interval iv;
		double copy[10];

		memcpy(copy, c->d, sizeof(copy));
		memset(&iv, 0x55, sizeof(iv));
		assert_int_equal(stats_wsr_interval(c->d, c->n, c->level, &iv), 0);
		assert_memory_equal(copy, c->d, sizeof(copy));
		if (iv.ok != c->ok || iv.k != c->k || iv.n_used != c->n_used || iv.exact != 1 ||
		    !same(iv.lo, c->lo) || !same(iv.hi, c->hi) || !same(iv.point, c->point) ||
		    !same(iv.coverage, c->coverage))
			fail_msg("%s: ok %d k %zu n %zu exact %d [%.17g, %.17g] point %.17g "
				 "coverage %.17g", c->what, iv.ok, iv.k, iv.n_used, iv.exact, iv.lo,
				 iv.hi, iv.point, iv.coverage);
	}
}

static void test_bad_level(void **state)
{
	static const double bad[] = { 0, 1, -0.5, 1.5, NAN, INFINITY };
	static const double d[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct stats_exact_interval iv;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(stats_wsr_interval(d, 8, bad[i], &iv), -1);
		assert_false(iv.ok);
		assert_true(isnan(iv.lo) && isnan(iv.hi) && isnan(iv.point));
		assert_int_equal(stats_mw_interval(d, 4, d + 4, 4, bad[i], &iv), -1);
		assert_false(iv.ok);
		assert_int_equal(stats_wsr_interval_n_needed(bad[i]), 0);
		assert_int_equal(stats_mw_interval_n_needed(bad[i]), 0);
		assert_int_equal(stats_wsr_interval_n_preferred(bad[i]), 0);
	}
}

/*
 * n = 1..12 against complete enumeration: W+'s distribution from all 2^n
 * sign vectors of the ranks, every Walsh average of random data (distinct
 * values, then many ties), at each level. Coverage is a dyadic fraction
 * here, so it must match to the bit.
 */
static void test_wsr_enumerated(void **state)
{
	uint64_t rng = 11;

	(void)state;
	for (size_t n = 1; n <= 12; n++) {
		size_t top = n * (n + 1) / 2;
		uint64_t *cnt = xcalloc(top + 1, sizeof(*cnt)), total = UINT64_C(1) << n;

		for (uint64_t mask = 0; mask < total; mask++) {
			size_t w = 0;

			for (size_t r = 0; r < n; r++)
				if (mask >> r & 1)
					w += r + 1;
			cnt[w]++;
		}
		for (int tied = 0; tied <= 1; tied++) {
			double d[12], *walsh;
			size_t m;

			for (size_t i = 0; i < n; i++)
				d[i] = tied ? (double)rng_below(&rng, 4) - 1 : uniform(&rng, -3, 5);
			walsh = all_walsh(d, n, &m);
			for (size_t l = 0; l < ARRAY_SIZE(levels); l++) {
				struct stats_exact_interval iv;
				uint64_t below;
				size_t k = expected_k(cnt, top, total, (1 - levels[l]) / 2, &below);
				char what[64];

				snprintf(what, sizeof(what), "n = %zu%s, level %g", n,
					 tied ? " (ties)" : "", levels[l]);
				assert_int_equal(stats_wsr_interval(d, n, levels[l], &iv), 0);
				/* Dyadic fractions: coverage to the bit. */
				check_interval_against(what, &iv, walsh, m, k,
						       1 - 2 * ((double)below / (double)total), 0,
						       n);
			}
			free(walsh);
		}
		free(cnt);
	}
}

/* ---- Mann-Whitney interval ---- */

/*
 * By hand: x = 1 2 3, y = 4 5 6: the nine differences are 1 2 2 3 3 3 4
 * 4 5 (median 3); P(U <= 0) = 1/20 > 0.025, none at 95 %. At 90 % the
 * tail is 0.05 = 1/20: k = 1, [1, 5], coverage 0.9. With a fourth value
 * a side (x 0, y 7), P(U <= 0) = 1/70: k = 1, [1, 7], 1 - 2/70.
 */
static void test_mw_hand(void **state)
{
	static const double x3[] = { 1, 2, 3 }, y3[] = { 4, 5, 6 };
	static const double x4[] = { 0, 1, 2, 3 }, y4[] = { 4, 5, 6, 7 };
	static const double xn[] = { 0, NAN, 1, 2, INFINITY, 3 };
	struct stats_exact_interval iv;

	(void)state;
	assert_int_equal(stats_mw_interval(x3, 3, y3, 3, 0.95, &iv), 0);
	assert_false(iv.ok);
	assert_int_equal(iv.k, 0);
	assert_int_equal(iv.n_used, 6);
	assert_true(iv.exact);
	assert_true(iv.point == 3);
	assert_true(isnan(iv.lo) && isnan(iv.hi) && isnan(iv.coverage));

	assert_int_equal(stats_mw_interval(x3, 3, y3, 3, 0.90, &iv), 0);
	assert_true(iv.ok);
	assert_int_equal(iv.k, 1);
	assert_true(iv.lo == 1 && iv.hi == 5);
	assert_true(fabs(iv.coverage - 0.9) < 1e-12);

	assert_int_equal(stats_mw_interval(x4, 4, y4, 4, 0.95, &iv), 0);
	assert_true(iv.ok);
	assert_int_equal(iv.k, 1);
	assert_true(iv.lo == 1 && iv.hi == 7);
	assert_true(iv.point == 4);
	assert_true(fabs(iv.coverage - (1 - 2.0 / 70)) < 1e-15);
	/* Non-finite values are skipped: the same as x4 against y4. */
	assert_int_equal(stats_mw_interval(xn, ARRAY_SIZE(xn), y4, 4, 0.95, &iv), 0);
	assert_true(iv.ok && iv.lo == 1 && iv.hi == 7 && iv.n_used == 8);
	/* Swapping the sides negates the shift. */
	assert_int_equal(stats_mw_interval(y4, 4, x4, 4, 0.95, &iv), 0);
	assert_true(iv.ok && iv.lo == -7 && iv.hi == -1 && iv.point == -4);
	/* A side with nothing finite: no interval, no point. */
	assert_int_equal(stats_mw_interval(xn + 1, 1, y4, 4, 0.95, &iv), 0);
	assert_false(iv.ok);
	assert_true(isnan(iv.point));
	assert_int_equal(iv.n_used, 4);
	assert_int_equal(stats_mw_interval(NULL, 0, NULL, 0, 0.95, &iv), 0);
	assert_false(iv.ok);
	assert_int_equal(iv.n_used, 0);
}

/*
 * All nx, ny with nx + ny <= 12 against complete enumeration: U's
 * distribution from every choice of the nx ranks of x among the pooled
 * nx + ny, every difference of random data.
 */
static void test_mw_enumerated(void **state)
{
	uint64_t rng = 17;

	(void)state;
	for (size_t nx = 1; nx <= 11; nx++) {
		for (size_t ny = 1; nx + ny <= 12; ny++) {
			size_t nn = nx + ny, top = nx * ny;
			uint64_t *cnt = xcalloc(top + 1, sizeof(*cnt)), total = 0;
			double x[12], y[12], *diffs;

			for (uint64_t mask = 0; mask < UINT64_C(1) << nn; mask++) {
				size_t u = 0, ys = 0;

				/* Ranks from the smallest: an x beats the y's below it. */
				for (size_t r = 0; r < nn; r++) {
					if (mask >> r & 1)
						u += ys;
					else
						ys++;
				}
				if (nn - ys != nx)
					continue;
				cnt[u]++;
				total++;
			}
			for (size_t i = 0; i < nx; i++)
				x[i] = uniform(&rng, 0, 10);
			for (size_t j = 0; j < ny; j++)
				y[j] = uniform(&rng, 2, 12);
			diffs = all_diffs(x, nx, y, ny);
			for (size_t l = 0; l < ARRAY_SIZE(levels); l++) {
				struct stats_exact_interval iv;
				uint64_t below;
				size_t k = expected_k(cnt, top, total, (1 - levels[l]) / 2, &below);
				double cov = 1 - 2 * ((double)below / (double)total);
				char what[64];

				snprintf(what, sizeof(what), "%zu against %zu, level %g", nx, ny,
					 levels[l]);
				assert_int_equal(stats_mw_interval(x, nx, y, ny, levels[l], &iv),
						 0);
				/* 1 / C(nx + ny, nx) is not dyadic: coverage to rounding. */
				check_interval_against(what, &iv, diffs, nx * ny, k, cov, 1e-14,
						       nn);
			}
			free(diffs);
			free(cnt);
		}
	}
}

/* ---- n needed ---- */

static void test_n_needed(void **state)
{
	static const double d[64] = { 0 };
	uint64_t rng = 5;

	(void)state;
	assert_int_equal(stats_wsr_interval_n_needed(0.95), 6);
	assert_int_equal(stats_wsr_interval_n_needed(0.90), 5);
	assert_int_equal(stats_wsr_interval_n_needed(0.99), 8);   /* 2^-8 <= 0.005 < 2^-7 */
	assert_int_equal(stats_mw_interval_n_needed(0.95), 4);
	assert_int_equal(stats_mw_interval_n_needed(0.99), 5);    /* 1/252 <= 0.005 < 1/70 */
	assert_int_equal(stats_mw_interval_n_needed(0.90), 3);    /* 1/20 = 0.05 */
	/* The answer is the first n that stats_*_interval() accepts, at any level. */
	for (int i = 0; i < 200; i++) {
		double level = i == 0 ? 1 - 0x1p-53 : uniform(&rng, 0.01, 0.9999);
		size_t nw = stats_wsr_interval_n_needed(level);
		size_t nm = stats_mw_interval_n_needed(level);
		struct stats_exact_interval iv;

		assert_true(nw >= 1 && nw <= 64);
		assert_true(nm >= 1 && nm <= 32);
		stats_wsr_interval(d, nw, level, &iv);
		assert_true(iv.ok);
		stats_wsr_interval(d, nw - 1, level, &iv);
		assert_false(iv.ok);
		stats_mw_interval(d, nm, d, nm, level, &iv);
		assert_true(iv.ok);
		if (nm > 1) {
			stats_mw_interval(d, nm - 1, d, nm - 1, level, &iv);
			assert_false(iv.ok);
		}
	}
}

/*
 * Where the gates take the paired interval (issue 39 §2): the first
 * count of rounds at which its coverage is at most the unpaired one's of
 * as many runs a side — at 95 %, 7 (95.3 % against 96.2 %), not 6 (96.9
 * % against 95.9 %).
 */
static void test_n_preferred(void **state)
{
	static const double d[64] = { 0 };
	static const double lv[] = { 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999 };
	static const size_t want[] = { 5, 6, 7, 8, 8, 10, 11 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lv); i++) {
		size_t n = stats_wsr_interval_n_preferred(lv[i]);
		struct stats_exact_interval p, u;

		assert_int_equal(n, want[i]);
		assert_true(n >= stats_wsr_interval_n_needed(lv[i]));
		for (size_t m = stats_wsr_interval_n_needed(lv[i]); m <= n; m++) {
			stats_wsr_interval(d, m, lv[i], &p);
			stats_mw_interval(d, m, d, m, lv[i], &u);
			assert_true(p.ok && u.ok);
			if (m < n)
				assert_true(p.coverage > u.coverage);
			else
				assert_true(p.coverage <= u.coverage);
		}
	}
}

/* ---- Selection without storing every pair ---- */

/* Positions to check among m sorted values: both ends, the middle, and random ones. */
static void check_selection(const char *what, const double *w, size_t m, uint64_t *rng,
			    double (*kth)(const void *, uint64_t), const void *arg)
{
	uint64_t ks[40] = { 1, 2, m / 2, m / 2 + 1, m - 1, m };

	for (size_t i = 6; i < ARRAY_SIZE(ks); i++)
		ks[i] = 1 + rng_below(rng, m);
	for (size_t i = 0; i < ARRAY_SIZE(ks); i++) {
		double got = kth(arg, ks[i]);

		if (!(got == w[ks[i] - 1]))
			fail_msg("%s: k = %llu: %.17g, want %.17g", what,
				 (unsigned long long)ks[i], got, w[ks[i] - 1]);
	}
	assert_true(isnan(kth(arg, 0)));
	assert_true(isnan(kth(arg, (uint64_t)m + 1)));
}

struct sample { const double *d; size_t n; const double *y; size_t ny; };

static double walsh_kth(const void *arg, uint64_t k)
{
	const struct sample *s = arg;
	return stats_walsh_kth(s->d, s->n, k);
}

static double diff_kth(const void *arg, uint64_t k)
{
	const struct sample *s = arg;
	return stats_diff_kth(s->d, s->n, s->y, s->ny, k);
}

/*
 * The gates' joint interval (stats_joint_interval()): the paired one at
 * half the error, keeping what its order statistics leave unspent, the
 * unpaired one at the rest, each as the function alone gives it; the
 * coverage is their Bonferroni bound and at least the level; the interval
 * is where they meet, the estimate the paired one within it. It exists
 * from stats_joint_interval_n_needed() rounds: 7 at 95 % (the paired
 * interval at 97.5 %), 8 at 97.5 %.
 */
static void test_joint(void **state)
{
	/* A slower candidate, noisier on its own than in its rounds' ratios. */
	static const double x[] = { 0.00, 0.31, -0.12, 0.05, 0.22, -0.30, 0.11, 0.02, -0.07, 0.16 };
	static const double lv[] = { 0.9, 0.95, 0.975, 0.99 };
	static const size_t need[] = { 6, 7, 8, 9 };
	double y[ARRAY_SIZE(x)], d[ARRAY_SIZE(x)];
	struct stats_joint_interval j;
	struct stats_exact_interval p, u;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(x); i++) {
		d[i] = 0.10 + 0.02 * (double)(i % 3) - 0.01 * (double)(i % 2);
		y[i] = x[i] + d[i];
	}
	for (size_t l = 0; l < ARRAY_SIZE(lv); l++) {
		double alpha = 1 - lv[l];

		assert_int_equal(stats_joint_interval_n_needed(lv[l]), need[l]);
		assert_int_equal(stats_joint_interval(d, need[l] - 1, x, need[l] - 1, y, need[l] - 1,
						      lv[l], &j), 0);
		assert_false(j.ok);
		assert_true(isnan(j.lo) && isnan(j.hi) && isnan(j.point));
		for (size_t n = need[l]; n <= ARRAY_SIZE(x); n++) {
			assert_int_equal(stats_joint_interval(d, n, x, n, y, n, lv[l], &j), 0);
			assert_true(j.ok);
			stats_wsr_interval(d, n, 1 - alpha / 2, &p);
			assert_true(p.lo == j.paired.lo && p.hi == j.paired.hi &&
				    p.coverage == j.paired.coverage && p.point == j.paired.point);
			stats_mw_interval(x, n, y, n, 1 - (alpha - (1 - p.coverage)), &u);
			assert_true(u.lo == j.unpaired.lo && u.hi == j.unpaired.hi &&
				    u.coverage == j.unpaired.coverage);
			assert_true(j.paired.coverage >= 1 - alpha / 2);
			assert_true(fabs(j.coverage - (p.coverage + u.coverage - 1)) < 1e-15);
			assert_true(j.coverage >= lv[l] - 1e-12);
			assert_false(j.disjoint);
			assert_true(j.lo == fmax(p.lo, u.lo) && j.hi == fmin(p.hi, u.hi));
			assert_true(j.lo <= j.point && j.point <= j.hi);
			/* Tighter than either alone: the paired one is, here. */
			assert_true(j.hi - j.lo <= p.hi - p.lo && j.hi - j.lo <= u.hi - u.lo);
		}
	}
	/*
	 * The parts are the caller's: rounds that show +1 while the sides'
	 * values show 0 (runs that are not those of the rounds) make two
	 * intervals that do not meet, and the interval is their hull.
	 */
	{
		static const double one[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, zero[10] = { 0 };
		static const double spread[10] = { 0.2, 0.6, 1, 1.4, 1.8, 0.4, 0.8, 1.2, 1.6, 1 };
		static const double at[10] = { 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 };

		assert_int_equal(stats_joint_interval(one, 10, zero, 10, zero, 10, 0.95, &j), 0);
		assert_true(j.ok && j.disjoint);
		assert_true(j.lo == 0 && j.hi == 1 && j.point == 1);
		/* They meet where the paired estimate is not: it is moved to the nearer end. */
		assert_int_equal(stats_joint_interval(spread, 10, zero, 10, at, 10, 0.95, &j), 0);
		assert_true(j.ok && !j.disjoint);
		assert_true(j.paired.point == 1 && j.lo == 0.5 && j.hi == 0.5 && j.point == 0.5);
	}
	/* Bad levels, as the two functions. */
	assert_int_equal(stats_joint_interval(d, 10, x, 10, y, 10, 1, &j), -1);
	assert_int_equal(stats_joint_interval(d, 10, x, 10, y, 10, 0, &j), -1);
	assert_int_equal(stats_joint_interval_n_needed(1), 0);
	assert_false(j.ok);
	/* Too few runs on a side for the unpaired part: no interval. */
	assert_int_equal(stats_joint_interval(d, 10, x, 1, y, 10, 0.95, &j), 0);
	assert_false(j.ok);
}

/*
 * 1500 values (1,125,750 Walsh averages) and 1000 against 1100 (1,100,000
 * differences), continuous and heavily tied, against the stored and
 * sorted pairs. Past the exact limits the intervals use the normal
 * approximation (exact = 0), still at least the level, and their ends
 * are the same stored order statistics.
 */
static void test_selection_large(void **state)
{
	uint64_t rng = 23;

	(void)state;
	for (int tied = 0; tied <= 1; tied++) {
		size_t n = 1500, nx = 1000, ny = 1100, m;
		double *d = xcalloc(n, sizeof(*d)), *x = xcalloc(nx, sizeof(*x));
		double *y = xcalloc(ny, sizeof(*y)), *w;
		struct sample sw = { d, n, NULL, 0 }, sd = { x, nx, y, ny };
		struct stats_exact_interval iv;

		for (size_t i = 0; i < n; i++)
			d[i] = tied ? (double)rng_below(&rng, 9) * 0.25 : uniform(&rng, -1, 3);
		for (size_t i = 0; i < nx; i++)
			x[i] = tied ? (double)rng_below(&rng, 5) : uniform(&rng, 10, 20);
		for (size_t j = 0; j < ny; j++)
			y[j] = tied ? (double)rng_below(&rng, 7) : uniform(&rng, 12, 25);

		w = all_walsh(d, n, &m);
		check_selection(tied ? "walsh, ties" : "walsh", w, m, &rng, walsh_kth, &sw);
		assert_int_equal(stats_wsr_interval(d, n, 0.95, &iv), 0);
		assert_true(iv.ok && !iv.exact && iv.n_used == n);
		assert_true(iv.coverage >= 0.95 && iv.coverage < 0.951);
		assert_true(iv.lo == w[iv.k - 1] && iv.hi == w[m - iv.k]);
		assert_true(iv.point == sorted_median(w, m));
		free(w);

		w = all_diffs(x, nx, y, ny);
		check_selection(tied ? "differences, ties" : "differences", w, nx * ny, &rng,
				diff_kth, &sd);
		assert_int_equal(stats_mw_interval(x, nx, y, ny, 0.95, &iv), 0);
		assert_true(iv.ok && !iv.exact && iv.n_used == nx + ny);
		assert_true(iv.coverage >= 0.95 && iv.coverage < 0.951);
		assert_true(iv.lo == w[iv.k - 1] && iv.hi == w[nx * ny - iv.k]);
		assert_true(iv.point == sorted_median(w, nx * ny));
		free(w);
		free(d);
		free(x);
		free(y);
	}
}

/* ---- Symmetry and equivariance ---- */

/*
 * Negating d negates and swaps the interval, bit for bit (rounding is
 * symmetric); scaling by 4 scales it exactly; adding a constant shifts it
 * (to rounding). Exchanging x and y does to the Mann-Whitney interval
 * what negating does to the Wilcoxon one. At and around the exact limits
 * too: n = 200 (exact) and 201 (normal), 100 + 100 and 100 + 101.
 */
static void test_symmetry(void **state)
{
	static const size_t sizes[] = { 6, 7, 13, 40, 200, 201 };
	uint64_t rng = 31;

	(void)state;
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		size_t n = sizes[s], half = n / 2;
		double *d = xcalloc(n, sizeof(*d)), *neg = xcalloc(n, sizeof(*neg));
		double *scaled = xcalloc(n, sizeof(*scaled));
		double *shifted = xcalloc(n, sizeof(*shifted));
		struct stats_exact_interval a, b, c, e;

		for (size_t i = 0; i < n; i++) {
			d[i] = uniform(&rng, -0.2, 0.5);
			neg[i] = -d[i];
			scaled[i] = 4 * d[i];
			shifted[i] = d[i] + 1.5;
		}
		stats_wsr_interval(d, n, 0.95, &a);
		stats_wsr_interval(neg, n, 0.95, &b);
		stats_wsr_interval(scaled, n, 0.95, &c);
		stats_wsr_interval(shifted, n, 0.95, &e);
		assert_true(a.ok && b.ok && c.ok && e.ok);
		assert_int_equal(a.exact, n <= STATS_WSR_EXACT_MAX);
		assert_true(b.lo == -a.hi && b.hi == -a.lo && b.point == -a.point);
		assert_true(b.k == a.k && b.coverage == a.coverage);
		assert_true(c.lo == 4 * a.lo && c.hi == 4 * a.hi && c.point == 4 * a.point);
		assert_true(fabs(e.lo - (a.lo + 1.5)) < 1e-12 && fabs(e.hi - (a.hi + 1.5)) < 1e-12);
		assert_true(a.lo <= a.point && a.point <= a.hi);
		assert_true(a.coverage >= 0.95);

		/* 3 against 3 has no 95 % interval. */
		if (half >= 4) {
			stats_mw_interval(d, half, d + half, n - half, 0.95, &a);
			stats_mw_interval(d + half, n - half, d, half, 0.95, &b);
			assert_true(a.ok && b.ok);
			assert_int_equal(a.exact, n <= STATS_MW_EXACT_MAX);
			assert_true(b.lo == -a.hi && b.hi == -a.lo && b.point == -a.point);
			assert_true(b.k == a.k && b.coverage == a.coverage && a.coverage >= 0.95);
			assert_true(a.lo <= a.point && a.point <= a.hi);
		}
		free(d);
		free(neg);
		free(scaled);
		free(shifted);
	}
}

/*
 * The exact and approximate k meet at the limits: the normal
 * approximation (continuity-corrected) gives within one of what the exact
 * distribution gives just below, and coverage close to the level on both
 * sides.
 */
static void test_exact_limits(void **state)
{
	double *d = xcalloc(2 * STATS_WSR_EXACT_MAX + 2, sizeof(*d));
	struct stats_exact_interval a, b;

	(void)state;
	for (size_t i = 0; i < 2 * STATS_WSR_EXACT_MAX + 2; i++)
		d[i] = (double)i * 0.37 - 60;
	stats_wsr_interval(d, STATS_WSR_EXACT_MAX, 0.95, &a);
	stats_wsr_interval(d, STATS_WSR_EXACT_MAX + 1, 0.95, &b);
	assert_true(a.exact && !b.exact);
	/*
	 * 8445 at 200: a Python dynamic programme over integer counts of W+
	 * compared with the tail as an exact fraction. k grows by about 87 a
	 * value there.
	 */
	assert_int_equal(a.k, 8445);
	assert_true(b.k >= a.k + 85 && b.k <= a.k + 90);
	assert_true(a.coverage >= 0.95 && a.coverage < 0.9502);
	assert_true(b.coverage >= 0.95 && b.coverage < 0.9502);

	/* 4198 at 100 against 100, 435 at 30 against 40: the same in Python, for U. */
	stats_mw_interval(d, 30, d + 30, 40, 0.95, &a);
	assert_int_equal(a.k, 435);
	stats_mw_interval(d, 100, d + 100, 100, 0.95, &a);
	stats_mw_interval(d, 100, d + 100, 101, 0.95, &b);
	assert_true(a.exact && !b.exact);
	assert_int_equal(a.k, 4198);
	assert_true(b.k >= a.k + 40 && b.k <= a.k + 48);
	assert_true(a.coverage >= 0.95 && a.coverage < 0.951);
	assert_true(b.coverage >= 0.95 && b.coverage < 0.951);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normal_quantile),
		cmocka_unit_test(test_wsr_table),
		cmocka_unit_test(test_bad_level),
		cmocka_unit_test(test_wsr_enumerated),
		cmocka_unit_test(test_mw_hand),
		cmocka_unit_test(test_mw_enumerated),
		cmocka_unit_test(test_n_needed),
		cmocka_unit_test(test_n_preferred),
		cmocka_unit_test(test_joint),
		cmocka_unit_test(test_selection_large),
		cmocka_unit_test(test_symmetry),
		cmocka_unit_test(test_exact_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
