/*
 * Unit tests of stats. Every expected figure comes from a computation
 * outside this C code, named where it is pinned: Python's statistics
 * module for the descriptive figures; complete enumeration in Python
 * (itertools over every assignment of the pooled values to the two sides,
 * U counted from the values themselves; every one of the 2^n sign
 * vectors for Wilcoxon) for the exact p-values, which agree with scipy's
 * exact tests wherever scipy has one (no ties); separate Python dynamic
 * programmes and textbook normal formulas (cross-checked with scipy) at
 * and past the exact limits; a Python reimplementation of the documented
 * bootstrap (splitmix64, draw order, type-7 quantile) for its intervals.
 * The scripts were run once and are not part of abev.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/stats.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/rng.h"

/* Relative closeness; both zero counts as close. */
static void check_close(const char *what, const char *field, double got, double want, double rel)
{
	double scale = fabs(want) > fabs(got) ? fabs(want) : fabs(got);

	if (!(fabs(got - want) <= rel * scale))
		fail_msg("%s: %s is %.17g, want %.17g", what, field, got, want);
}

struct median_case {
	const char *what;
	double v[8];
	size_t n;
	double median, min, max;
};

static const struct median_case median_cases[] = {
	{ "odd, unsorted", { 3, 1, 2 }, 3, 2, 1, 3 },
	{ "even: mean of the two middle values", { 4, 1, 3, 2 }, 4, 2.5, 1, 4 },
	{ "even, two", { 0.25, 0.75 }, 2, 0.5, 0.25, 0.75 },
	{ "single", { 7.5 }, 1, 7.5, 7.5, 7.5 },
	{ "duplicates", { 5, 1, 5, 5, 1 }, 5, 5, 1, 5 },
	{ "negative", { -3, -1, -2, -10, 4, 0 }, 6, -1.5, -10, 4 },
};

static void test_median_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(median_cases); i++) {
		const struct median_case *c = &median_cases[i];
		double copy[8];
		struct summary s;

		memcpy(copy, c->v, sizeof(copy));
		stats_summary(copy, c->n, &s);
		print_message("case: %s\n", c->what);
		assert_int_equal(s.n, c->n);
		assert_true(s.median == c->median);
		assert_true(s.min == c->min);
		assert_true(s.max == c->max);
		/* The input is not reordered. */
		assert_memory_equal(copy, c->v, sizeof(copy));
		/* stats_median() agrees on finite samples. */
		assert_true(stats_median(c->v, c->n) == c->median);
	}
}

static void test_median_empty(void **state)
{
	struct summary s;
	double v[1] = { 42 };

	(void)state;
	memset(&s, 0xff, sizeof(s));
	stats_summary(v, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(s.median == 0 && s.min == 0 && s.max == 0);
	stats_summary(NULL, 0, &s);
	assert_int_equal(s.n, 0);
}

/* A larger sample, checked against sorting: quickselect's partitions and both middles. */
static void test_median_large(void **state)
{
	static const double nan_inf[] = { NAN, 4, INFINITY, 1, -INFINITY, 3, 2 };
	uint64_t rng = 3;
	(void)state;

	for (size_t n = 1; n <= 300; n += 7) {
		double *v = xcalloc(n, sizeof(*v)), *s = xcalloc(n, sizeof(*s));
		struct summary sum;

		for (size_t i = 0; i < n; i++)
			v[i] = (double)rng_below(&rng, n / 3 + 1);   /* many ties */
		memcpy(s, v, n * sizeof(*s));
		stats_summary(s, n, &sum);
		if (stats_median(v, n) != sum.median)
			fail_msg("n = %zu: stats_median %.17g, sorted median %.17g", n,
				 stats_median(v, n), sum.median);
		assert_memory_equal(s, v, n * sizeof(*s));
		free(v);
		free(s);
	}
	/* Non-finite values are dropped: the median of 1 2 3 4. */
	assert_true(stats_median(nan_inf, ARRAY_SIZE(nan_inf)) == 2.5);
	assert_true(isnan(stats_median(nan_inf, 1)));
	assert_true(isnan(stats_median(NULL, 0)));
}

static void test_change_pct(void **state)
{
	int valid = -1;

	(void)state;
	assert_true(stats_change_pct(2.0, 3.0, &valid) == 50.0);
	assert_int_equal(valid, 1);
	assert_true(stats_change_pct(4.0, 3.0, &valid) == -25.0);
	assert_int_equal(valid, 1);
	assert_true(stats_change_pct(1.5, 1.5, &valid) == 0.0);
	assert_int_equal(valid, 1);
	assert_true(stats_change_pct(0.0, 3.0, &valid) == 0.0);
	assert_int_equal(valid, 0);
}

/* ---- describe ---- */

struct desc_case {
	const char *what;
	double v[8];
	size_t n;
	struct stats_desc want;   /* n, median, min, max, mean, sd, mad, cv */
};

/* Python: statistics.median, fmean, stdev, median(|v - median|), stdev / |fmean|. */
static const struct desc_case desc_cases[] = {
	{ "1..5", { 1, 2, 3, 4, 5 }, 5,
	  { 5, 3, 1, 5, 3, 1.5811388300841898, 1, 0.5270462766947299 } },
	{ "even, one high", { 2.5, 3.5, 3.0, 10.0 }, 4,
	  { 4, 3.25, 2.5, 10, 4.75, 3.523729085310996, 0.5, 0.741837702170736 } },
	{ "negative: cv uses |mean|", { -4, -2, -3, -1 }, 4,
	  { 4, -2.5, -4, -1, -2.5, 1.2909944487358056, 1, 0.5163977794943222 } },
	{ "one value: sd, mad and cv 0", { 7 }, 1, { 1, 7, 7, 7, 7, 0, 0, 0 } },
	{ "large offset: no cancellation", { 1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4, 1e9 + 5, 1e9 + 6 }, 6,
	  { 6, 1e9 + 3.5, 1e9 + 1, 1e9 + 6, 1e9 + 3.5, 1.8708286933869707, 1.5, 1.8708286868390703e-09 } },
	{ "mean 0: cv 0", { 0.5, -0.5, 1.5, -1.5 }, 4,
	  { 4, 0, -1.5, 1.5, 0, 1.2909944487358056, 1, 0 } },
	{ "mad 0", { 3, 3, 3, 3, 9 }, 5, { 5, 3, 3, 9, 4.2, 2.6832815729997477, 0, 0.6388765649999399 } },
	{ "timings", { 0.101, 0.097, 0.103, 0.099, 0.250, 0.100, 0.098 }, 7,
	  { 7, 0.1, 0.097, 0.25, 0.12114285714285714, 0.056854869540578404,
	    0.0020000000000000018, 0.4693208570566614 } },
	{ "non-finite values dropped: as 1..5", { 1, NAN, 2, INFINITY, 3, 4, -INFINITY, 5 }, 8,
	  { 5, 3, 1, 5, 3, 1.5811388300841898, 1, 0.5270462766947299 } },
	{ "nothing finite: zeros", { NAN, INFINITY }, 2, { 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ "empty: zeros", { 0 }, 0, { 0, 0, 0, 0, 0, 0, 0, 0 } },
};

static void test_describe(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(desc_cases); i++) {
		const struct desc_case *c = &desc_cases[i];
		const struct stats_desc *w = &c->want;
		struct stats_desc d;

		memset(&d, 0xff, sizeof(d));
		stats_describe(c->v, c->n, &d);
		if (d.n != w->n)
			fail_msg("%s: n is %zu, want %zu", c->what, d.n, w->n);
		check_close(c->what, "median", d.median, w->median, 1e-15);
		check_close(c->what, "min", d.min, w->min, 0);
		check_close(c->what, "max", d.max, w->max, 0);
		check_close(c->what, "mean", d.mean, w->mean, 1e-15);
		check_close(c->what, "sd", d.sd, w->sd, 1e-12);
		check_close(c->what, "mad", d.mad, w->mad, 1e-12);
		check_close(c->what, "cv", d.cv, w->cv, 1e-12);
	}
}

/* ---- outliers ---- */

struct outlier_case {
	const char *what;
	double v[12];
	size_t n;
	unsigned char want[12];
};

/*
 * Modified z-scores from Python (statistics.median): 10..16 with 24 has
 * median 13.5, MAD 2 and z(24) = 0.6745 * 10.5 / 2 = 3.54; 23.5 gives 3.37.
 */
static const struct outlier_case outlier_cases[] = {
	{ "z 3.54 is flagged", { 10, 11, 12, 13, 14, 15, 16, 24 }, 8, { 0, 0, 0, 0, 0, 0, 0, 1 } },
	{ "z 3.37 is not", { 10, 11, 12, 13, 14, 15, 16, 23.5 }, 8, { 0 } },
	{ "low side, z 3.88", { 10, 11, 12, 13, 14, 15, 16, 1 }, 8, { 0, 0, 0, 0, 0, 0, 0, 1 } },
	{ "timings: one slow run, z 50.6", { 0.101, 0.097, 0.103, 0.099, 0.250, 0.100, 0.098 }, 7,
	  { 0, 0, 0, 0, 1, 0, 0 } },
	{ "both sides", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, -90 }, 11,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1 } },
	/*
	 * MAD 0 (more than half the values equal): the mean absolute deviation
	 * stands in, scaled by 1.2533 (Iglewicz and Hoaglin): 5 5 5 5 100 has
	 * median 5, meanAD 19 and M(100) = 95 / (1.2533 * 19) = 3.99; 10 10 10 10
	 * 11 11 has meanAD 1/3 and M(11) = 2.39; one value repeated has none.
	 */
	{ "MAD 0: 100 among 5s is flagged", { 5, 5, 5, 5, 100 }, 5, { 0, 0, 0, 0, 1 } },
	{ "MAD 0: 11 among 10s is not", { 10, 10, 10, 10, 11, 11 }, 6, { 0 } },
	{ "constant: nothing", { 7, 7, 7, 7 }, 4, { 0 } },
	{ "non-finite values: not flagged, not counted", { 10, 11, NAN, 12, 13, 14, 15, INFINITY, 16, 24 }, 10,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } },
	{ "one value", { 3 }, 1, { 0 } },
};

static void test_outliers(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(outlier_cases); i++) {
		const struct outlier_case *c = &outlier_cases[i];
		unsigned char flags[12];

		memset(flags, 0xaa, sizeof(flags));
		stats_outliers(c->v, c->n, flags);
		for (size_t k = 0; k < c->n; k++)
			if (flags[k] != c->want[k])
				fail_msg("%s: flag %zu (%g) is %u, want %u", c->what, k, c->v[k],
					 flags[k], c->want[k]);
		/* Nothing past n is written. */
		for (size_t k = c->n; k < ARRAY_SIZE(flags); k++)
			assert_int_equal(flags[k], 0xaa);
	}
	stats_outliers(NULL, 0, NULL);
}

/* ---- Mann-Whitney ---- */

struct mw_case {
	const char *what;
	double x[8];
	size_t nx;
	double y[8];
	size_t ny;
	double u, p;
};

/* U and exact p by complete enumeration in Python (see the top of this file). */
static const struct mw_case mw_cases[] = {
	{ "extreme, 3 a side: 2/C(6,3)", { 1, 2, 3 }, 3, { 4, 5, 6 }, 3, 0, 1.0 / 10 },
	{ "extreme, 4 a side: 2/C(8,4)", { 1, 2, 3, 4 }, 4, { 5, 6, 7, 8 }, 4, 0, 1.0 / 35 },
	{ "extreme, 5 a side: 2/C(10,5)", { 1, 2, 3, 4, 5 }, 5, { 6, 7, 8, 9, 10 }, 5, 0, 1.0 / 126 },
	{ "extreme, 6 a side: 2/C(12,6)", { 1, 2, 3, 4, 5, 6 }, 6, { 7, 8, 9, 10, 11, 12 }, 6, 0, 1.0 / 462 },
	{ "extreme, 7 a side: 2/C(14,7)", { 1, 2, 3, 4, 5, 6, 7 }, 7, { 8, 9, 10, 11, 12, 13, 14 }, 7, 0, 1.0 / 1716 },
	{ "extreme, 8 a side: 2/C(16,8)", { 1, 2, 3, 4, 5, 6, 7, 8 }, 8, { 9, 10, 11, 12, 13, 14, 15, 16 }, 8, 0, 1.0 / 6435 },
	{ "3v3 middle", { 1, 4, 5 }, 3, { 2, 3, 6 }, 3, 4, 1 },
	{ "4v4 one swap", { 1, 2, 3, 5 }, 4, { 4, 6, 7, 8 }, 4, 1, 2.0 / 35 },
	{ "5v5 middle", { 1, 2, 4, 6, 7 }, 5, { 3, 5, 8, 9, 10 }, 5, 5, 19.0 / 126 },
	{ "5v5 interleaved", { 1, 3, 5, 7, 9 }, 5, { 2, 4, 6, 8, 10 }, 5, 10, 29.0 / 42 },
	{ "6v6 two swaps", { 1.5, 2.5, 3.5, 4.5, 7.5, 8.5 }, 6, { 5, 6, 9, 10, 11, 12 }, 6, 4, 2.0 / 77 },
	{ "7v7 shift", { 10.1, 10.4, 10.2, 10.9, 10.3, 10.6, 11.2 }, 7, { 10.8, 11, 11.4, 10.5, 11.6, 11.3, 11.1 }, 7, 7, 15.0 / 572 },
	{ "8v8 noisy", { 101, 99, 103, 98, 105, 100, 102, 97 }, 8, { 104, 106, 99.5, 108, 107, 103.5, 109, 110 }, 8, 7, 1.0 / 143 },
	{ "8v8 x above: U = 64", { 20, 21, 22, 23, 24, 25, 26, 27 }, 8, { 1, 2, 3, 4, 5, 6, 7, 8 }, 8, 64, 1.0 / 6435 },
	{ "3v5 unequal", { 3, 7, 8 }, 3, { 1, 2, 4, 5, 6 }, 5, 12, 1.0 / 4 },
	{ "4v6 unequal, middle", { 2.2, 5.1, 6.3, 9 }, 4, { 1, 3.4, 4.8, 7.7, 8.1, 10.2 }, 6, 12, 1 },
	{ "2v7 unequal extreme", { 10, 11 }, 2, { 1, 2, 3, 4, 5, 6, 7 }, 7, 14, 1.0 / 18 },
	{ "1v4", { 2.5 }, 1, { 1, 2, 3, 4 }, 4, 2, 1 },
	{ "6v3 unequal", { 5, 6, 7, 8, 9, 1 }, 6, { 2, 3, 4 }, 3, 15, 1.0 / 6 },
	{ "4v4 ties", { 1, 2, 2, 3 }, 4, { 2, 3, 3, 4 }, 4, 3, 2.0 / 7 },
	{ "5v5 heavy ties", { 1, 1, 1, 2, 2 }, 5, { 1, 2, 2, 2, 3 }, 5, 6.5, 23.0 / 63 },
	{ "5v4 ties across", { 10, 10, 12, 12, 14 }, 5, { 10, 12, 15, 15 }, 4, 6, 8.0 / 21 },
	{ "4v4 all equal", { 5, 5, 5, 5 }, 4, { 5, 5, 5, 5 }, 4, 8, 1 },
	{ "6v6 ties, extreme", { 1, 1, 2, 2, 3, 3 }, 6, { 4, 4, 5, 5, 6, 6 }, 6, 0, 1.0 / 462 },
	{ "7v6 even-sized tie groups", { 1, 2, 2, 4, 5, 5, 9 }, 7, { 3, 3, 6, 7, 7, 8 }, 6, 12, 7.0 / 33 },
	{ "3v8 ties", { 4, 4, 9 }, 3, { 1, 2, 4, 5, 6, 7, 8, 9 }, 8, 12.5, 164.0 / 165 },
	{ "8v8 tie at the join", { 1, 2, 3, 4, 5, 6, 7, 8 }, 8, { 8, 8, 9, 10, 11, 12, 13, 14 }, 8, 1, 1.0 / 2145 },
};

static void test_mann_whitney_exact(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(mw_cases); i++) {
		const struct mw_case *c = &mw_cases[i];
		struct stats_mw r, s;

		memset(&r, 0xff, sizeof(r));
		assert_int_equal(stats_mann_whitney(c->x, c->nx, c->y, c->ny, &r), 0);
		check_close(c->what, "u", r.u, c->u, 0);
		check_close(c->what, "p", r.p, c->p, 1e-12);
		if (r.exact != 1)
			fail_msg("%s: not exact", c->what);
		/* Swapped: the same p, and U of the other side. */
		assert_int_equal(stats_mann_whitney(c->y, c->ny, c->x, c->nx, &s), 0);
		check_close(c->what, "swapped u", s.u, (double)(c->nx * c->ny) - c->u, 0);
		check_close(c->what, "swapped p", s.p, c->p, 1e-12);
	}
}

static void test_mann_whitney_refusals(void **state)
{
	static const double x[] = { 1, 2, 3 }, nan3[] = { NAN, NAN, INFINITY };
	static const double xn[] = { 1, NAN, 2, 3, -INFINITY }, y[] = { 4, 5, 6 };
	struct stats_mw r;

	(void)state;
	assert_int_equal(stats_mann_whitney(x, 3, y, 0, &r), -1);
	assert_true(r.p == 1 && r.u == 0 && r.exact == 0);
	assert_int_equal(stats_mann_whitney(NULL, 0, y, 3, &r), -1);
	assert_int_equal(stats_mann_whitney(nan3, 3, y, 3, &r), -1);
	/* Non-finite values are dropped: as 1 2 3 against 4 5 6. */
	assert_int_equal(stats_mann_whitney(xn, ARRAY_SIZE(xn), y, 3, &r), 0);
	check_close("NaN dropped", "p", r.p, 0.1, 1e-12);
	assert_true(r.u == 0);
}

/* The data the Python references were computed from, by the same formulas. */
static void mw_data(double *x, size_t nx, double *y, size_t ny)
{
	for (size_t i = 0; i < nx; i++)
		x[i] = (double)((i * 37) % 53);
	for (size_t j = 0; j < ny; j++)
		y[j] = (double)((j * 29) % 53 + 3);
}

struct mw_large_case {
	const char *what;
	size_t nx, ny;
	int ties;       /* mw_data() or values without ties */
	double u, p, rel;
	int exact;
};

/*
 * At and past STATS_MW_EXACT_MAX. Exact references: a plain numpy float64
 * knapsack over all 200 doubled mid-ranks (relative agreement 1e-13 with
 * scipy's exact test where scipy has one), and 2/C(200,100) from
 * math.comb. Normal references: the textbook formula with tie and
 * continuity corrections in Python, equal to scipy's mannwhitneyu
 * (asymptotic, use_continuity) to 1e-15.
 */
static const struct mw_large_case mw_large_cases[] = {
	{ "100 + 100 with ties, exact", 100, 100, 1, 4468.5, 0.19464028050276788, 1e-9, 1 },
	{ "60 + 140 with ties, exact", 60, 140, 1, 3677, 0.16378117876323267, 1e-9, 1 },
	{ "100 + 100 without ties, exact", 100, 100, 0, 4095, 0.02688258002783891, 1e-9, 1 },
	{ "101 + 100 with ties, normal", 101, 100, 1, 4545.5, 0.22151114729804425, 1e-12, 0 },
	{ "150 + 150 with ties, normal", 150, 150, 1, 9985, 0.09228216315556076, 1e-12, 0 },
};

static void test_mann_whitney_large(void **state)
{
	double x[200], y[200];
	struct stats_mw r, s;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(mw_large_cases); i++) {
		const struct mw_large_case *c = &mw_large_cases[i];

		if (c->ties) {
			mw_data(x, c->nx, y, c->ny);
		} else {
			for (size_t k = 0; k < c->nx; k++)
				x[k] = (double)k + 0.25 * (double)(k % 7) / 7;
			for (size_t k = 0; k < c->ny; k++)
				y[k] = (double)k + 9.5 + 0.5 * (double)(k % 5) / 5;
		}
		assert_int_equal(stats_mann_whitney(x, c->nx, y, c->ny, &r), 0);
		check_close(c->what, "u", r.u, c->u, 0);
		check_close(c->what, "p", r.p, c->p, c->rel);
		if (r.exact != c->exact)
			fail_msg("%s: exact is %d, want %d", c->what, r.exact, c->exact);
		assert_int_equal(stats_mann_whitney(y, c->ny, x, c->nx, &s), 0);
		check_close(c->what, "swapped u", s.u, (double)(c->nx * c->ny) - c->u, 0);
		check_close(c->what, "swapped p", s.p, r.p, 1e-12);
		assert_true(r.p >= 0 && r.p <= 1);
	}
	/* The extreme at the limit: 2 / C(200, 100), from Python's math.comb. */
	for (size_t k = 0; k < 100; k++) {
		x[k] = (double)k + 1;
		y[k] = (double)k + 101;
	}
	assert_int_equal(stats_mann_whitney(x, 100, y, 100, &r), 0);
	assert_int_equal(r.exact, 1);
	assert_true(r.u == 0);
	check_close("100 + 100 extreme", "p", r.p, 2.2087606931995028e-59, 1e-12);
	check_close("100 + 100 extreme", "min p", stats_mw_min_p(100, 100), 2.2087606931995028e-59, 1e-12);
	/* Past the limit, all values equal: no spread, p = 1. */
	for (size_t k = 0; k < 200; k++)
		x[k] = y[k] = 5;
	assert_int_equal(stats_mann_whitney(x, 101, y, 101, &r), 0);
	assert_true(r.exact == 0 && r.p == 1 && r.u == 101 * 101 / 2.0);
}

struct min_p_case {
	size_t nx, ny;
	double p;
};

/* 2 / math.comb(nx + ny, nx), capped at 1, in Python. */
static const struct min_p_case mw_min_p_cases[] = {
	{ 3, 3, 0.1 }, { 4, 4, 2.0 / 70 }, { 5, 5, 2.0 / 252 }, { 3, 5, 0.03571428571428571 },
	{ 1, 20, 0.09523809523809523 }, { 2, 2, 1.0 / 3 }, { 1, 1, 1 }, { 0, 5, 1 }, { 0, 0, 1 },
	{ 8, 8, 2.0 / 12870 },
};

static void test_min_p(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(mw_min_p_cases); i++) {
		const struct min_p_case *c = &mw_min_p_cases[i];

		check_close("stats_mw_min_p", "p", stats_mw_min_p(c->nx, c->ny), c->p, 1e-14);
		check_close("stats_mw_min_p swapped", "p", stats_mw_min_p(c->ny, c->nx), c->p, 1e-14);
	}
	/* 2 / 2^n */
	assert_true(stats_wsr_min_p(0) == 1);
	assert_true(stats_wsr_min_p(1) == 1);
	assert_true(stats_wsr_min_p(2) == 0.5);
	assert_true(stats_wsr_min_p(3) == 0.25);
	assert_true(stats_wsr_min_p(5) == 0.0625);
	assert_true(stats_wsr_min_p(6) == 0.03125);
	check_close("stats_wsr_min_p(200)", "p", stats_wsr_min_p(200), 1.2446030555722283e-60, 1e-15);
	assert_true(stats_wsr_min_p(5000) == 0);
	/* REFERENCE.md: the exact tests reach these p-values, and no smaller. */
	assert_true(stats_mw_min_p(3, 3) >= 0.05);
	assert_true(stats_wsr_min_p(5) >= 0.05);
}

struct n_needed_case {
	double alpha;
	size_t mw, wsr;
};

/*
 * Smallest n with min p strictly below alpha, by a loop over math.comb
 * and 2 / 2**n in Python. alpha = 0.1 exactly is the min p of 3 a side
 * (and 0.0625 that of 5 pairs): strictly below needs one more.
 */
static const struct n_needed_case n_needed_cases[] = {
	{ 0.05, 4, 6 }, { 0.1, 4, 5 }, { 0.1000001, 3, 5 }, { 0.0625, 4, 6 }, { 0.0626, 4, 5 },
	{ 0.01, 5, 8 }, { 0.001, 7, 11 }, { 1, 2, 2 }, { 2, 1, 1 }, { 1e-300, 502, 998 },
	{ 0, 0, 0 }, { -0.05, 0, 0 }, { NAN, 0, 0 },
};

static void test_n_needed(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(n_needed_cases); i++) {
		const struct n_needed_case *c = &n_needed_cases[i];
		size_t mw = stats_mw_n_needed(c->alpha), wsr = stats_wsr_n_needed(c->alpha);

		if (mw != c->mw || wsr != c->wsr)
			fail_msg("alpha %g: n needed %zu (MW) and %zu (Wilcoxon), want %zu and %zu",
				 c->alpha, mw, wsr, c->mw, c->wsr);
	}
}

/* ---- Hodges-Lehmann ---- */

struct hl_case {
	const char *what;
	double x[6];
	size_t nx;
	double y[6];
	size_t ny;
	double want;
};

/* By hand (and Python: statistics.median of all y - x). */
static const struct hl_case hl_cases[] = {
	{ "3 against 3: differences 1 2 2 3 3 3 4 4 5", { 1, 2, 3 }, 3, { 4, 5, 6 }, 3, 3 },
	{ "one pair: its difference", { 2 }, 1, { 5 }, 1, 3 },
	{ "one against two: mean of 1 and 3", { 0 }, 1, { 1, 3 }, 2, 2 },
	{ "same sample: 0, not -0", { 1, 2 }, 2, { 1, 2 }, 2, 0 },
	{ "y below x: negative", { 10, 11, 12 }, 3, { 7, 8 }, 2, -3.5 },
	{ "an outlier moves it little", { 10, 20, 30, 40 }, 4, { 11, 21, 31, 41, 1000 }, 5, 6 },
	{ "fractions", { 0.5, 1.25 }, 2, { 1.0, 2.0, 4.0 }, 3, 1.125 },
	{ "non-finite values dropped", { 1, NAN, 2, 3 }, 4, { INFINITY, 4, 5, 6 }, 4, 3 },
};

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void test_hodges_lehmann(void **state)
{
	static const double none[] = { NAN };
	uint64_t rng = 11;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(hl_cases); i++) {
		const struct hl_case *c = &hl_cases[i];
		double hl = stats_hodges_lehmann(c->x, c->nx, c->y, c->ny);

		check_close(c->what, "shift", hl, c->want, 0);
		assert_false(signbit(hl) && hl == 0);
	}
	assert_true(isnan(stats_hodges_lehmann(NULL, 0, hl_cases[0].y, 3)));
	assert_true(isnan(stats_hodges_lehmann(hl_cases[0].x, 3, none, 1)));

	/* Against the definition: sort all nx * ny differences (ties, negatives, unequal sizes). */
	for (int round = 0; round < 40; round++) {
		size_t nx = 1 + (size_t)rng_below(&rng, 30), ny = 1 + (size_t)rng_below(&rng, 30);
		double x[30], y[30], *d = xcalloc(nx * ny, sizeof(*d)), want;
		size_t m = nx * ny;

		for (size_t i = 0; i < nx; i++)
			x[i] = (double)rng_below(&rng, 40) / 4 - 3;
		for (size_t j = 0; j < ny; j++)
			y[j] = (double)rng_below(&rng, 40) / 3 - 2;
		for (size_t i = 0; i < nx; i++)
			for (size_t j = 0; j < ny; j++)
				d[i * ny + j] = y[j] - x[i];
		qsort(d, m, sizeof(*d), cmp_dbl);
		want = m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
		if (stats_hodges_lehmann(x, nx, y, ny) != want + 0.0)
			fail_msg("round %d (%zu x %zu): %.17g, want %.17g", round, nx, ny,
				 stats_hodges_lehmann(x, nx, y, ny), want);
		free(d);
	}
}

/* ---- Wilcoxon signed-rank ---- */

struct wsr_case {
	const char *what;
	double d[8];
	size_t n, n_used;
	double w_plus, p;
};

/* n_used, W+ and exact p by enumerating all 2^n sign vectors in Python. */
static const struct wsr_case wsr_cases[] = {
	{ "extreme, 3: 2/2^3", { 1, 2, 3 }, 3, 3, 6, 1.0 / 4 },
	{ "extreme negative, 3", { -1, -2, -3 }, 3, 3, 0, 1.0 / 4 },
	{ "extreme, 4: 2/2^4", { 1, 2, 3, 4 }, 4, 4, 10, 1.0 / 8 },
	{ "extreme negative, 4", { -1, -2, -3, -4 }, 4, 4, 0, 1.0 / 8 },
	{ "extreme, 5: 2/2^5", { 1, 2, 3, 4, 5 }, 5, 5, 15, 1.0 / 16 },
	{ "extreme negative, 5", { -1, -2, -3, -4, -5 }, 5, 5, 0, 1.0 / 16 },
	{ "extreme, 6: 2/2^6", { 1, 2, 3, 4, 5, 6 }, 6, 6, 21, 1.0 / 32 },
	{ "extreme negative, 6", { -1, -2, -3, -4, -5, -6 }, 6, 6, 0, 1.0 / 32 },
	{ "extreme, 7: 2/2^7", { 1, 2, 3, 4, 5, 6, 7 }, 7, 7, 28, 1.0 / 64 },
	{ "extreme negative, 7", { -1, -2, -3, -4, -5, -6, -7 }, 7, 7, 0, 1.0 / 64 },
	{ "extreme, 8: 2/2^8", { 1, 2, 3, 4, 5, 6, 7, 8 }, 8, 8, 36, 1.0 / 128 },
	{ "extreme negative, 8", { -1, -2, -3, -4, -5, -6, -7, -8 }, 8, 8, 0, 1.0 / 128 },
	{ "3 middle", { 1, -2, 3 }, 3, 3, 4, 3.0 / 4 },
	{ "4 middle", { 0.5, -1.5, 2.5, 3.5 }, 4, 4, 8, 3.0 / 8 },
	{ "5 middle", { -1, 2, -3, 4, 5 }, 5, 5, 11, 7.0 / 16 },
	{ "6 middle", { 0.1, -0.2, 0.3, 0.4, -0.5, 0.6 }, 6, 6, 14, 9.0 / 16 },
	{ "7 middle", { 1.1, -2.2, 3.3, -4.4, 5.5, 6.6, -7.7 }, 7, 7, 15, 15.0 / 16 },
	{ "8 middle", { -0.01, 0.02, 0.03, -0.04, 0.05, 0.06, 0.07, -0.08 }, 8, 8, 23, 35.0 / 64 },
	{ "8 log-ratios", { 0.012, -0.003, 0.021, 0.008, 0.015, -0.007, 0.019, 0.011 }, 8, 8, 33, 5.0 / 128 },
	{ "6 ties", { 1, 1, -1, 2, 2, 3 }, 6, 6, 19, 1.0 / 8 },
	{ "7 ties", { -2, 2, 2, 4, 4, -4, 5 }, 7, 7, 21, 21.0 / 64 },
	{ "8 ties, mostly negative", { -1, -1, -2, -2, -2, 3, -4, -4 }, 8, 8, 6, 7.0 / 64 },
	{ "zeros dropped: as extreme 6", { 0, 0, 1, 2, 3, 4, 5, 6 }, 8, 6, 21, 1.0 / 32 },
	{ "zeros and ties", { 0, 1, -1, 1, 2, 0, 2, 2 }, 8, 6, 19, 1.0 / 8 },
	{ "a zero and ties", { 0, -1, 1, 2, 3, 3 }, 6, 5, 13.5, 3.0 / 16 },
	{ "all zero", { 0, 0, 0 }, 3, 0, 0, 1 },
	{ "one non-zero", { 0, -3 }, 2, 1, 0, 1 },
};

static void test_wilcoxon_exact(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(wsr_cases); i++) {
		const struct wsr_case *c = &wsr_cases[i];
		struct stats_wsr r, s;
		double neg[8];

		memset(&r, 0xff, sizeof(r));
		assert_int_equal(stats_wilcoxon(c->d, c->n, &r), 0);
		if (r.n_used != c->n_used)
			fail_msg("%s: n_used %zu, want %zu", c->what, r.n_used, c->n_used);
		check_close(c->what, "w_plus", r.w_plus, c->w_plus, 0);
		check_close(c->what, "p", r.p, c->p, 1e-12);
		if (r.exact != 1)
			fail_msg("%s: not exact", c->what);
		/* Negated: the same p, W+ becomes W-. */
		for (size_t k = 0; k < c->n; k++)
			neg[k] = -c->d[k];
		assert_int_equal(stats_wilcoxon(neg, c->n, &s), 0);
		check_close(c->what, "negated w_plus", s.w_plus,
			    (double)(c->n_used * (c->n_used + 1)) / 2 - c->w_plus, 0);
		check_close(c->what, "negated p", s.p, c->p, 1e-12);
	}
}

static void test_wilcoxon_edges(void **state)
{
	static const double nonfinite[] = { 1, NAN, 2, 3, INFINITY, 4, 5, -INFINITY, 6 };
	struct stats_wsr r;

	(void)state;
	assert_int_equal(stats_wilcoxon(NULL, 0, &r), 0);
	assert_true(r.n_used == 0 && r.p == 1 && r.w_plus == 0 && r.exact == 1);
	/* Non-finite values are dropped like zeros: as 1..6, p = 2/2^6. */
	assert_int_equal(stats_wilcoxon(nonfinite, ARRAY_SIZE(nonfinite), &r), 0);
	assert_int_equal(r.n_used, 6);
	assert_true(r.w_plus == 21);
	check_close("non-finite dropped", "p", r.p, 1.0 / 32, 1e-12);
}

static void wsr_data(double *d, size_t n, double shift)
{
	for (size_t i = 0; i < n; i++)
		d[i] = (double)((i * 31) % 41) - 17.5 + shift;
}

struct wsr_large_case {
	const char *what;
	size_t n;
	double shift, w_plus, p, rel;
	int exact;
};

/*
 * At and past STATS_WSR_EXACT_MAX. Exact references: a Python knapsack
 * in exact integers over the doubled mid-ranks (counts summing to 2^n).
 * Normal references: the textbook formula with tie and continuity
 * corrections, equal to scipy's wilcoxon (approx, zero_method wilcox,
 * correction) to 1e-14.
 */
static const struct wsr_large_case wsr_large_cases[] = {
	{ "120 with ties, exact", 120, 0, 4455.5, 0.030281770987899578, 1e-12, 1 },
	{ "200 with ties, exact", 200, 0, 12317, 0.005496349780042732, 1e-12, 1 },
	{ "201 with ties, normal", 201, 0, 12387.5, 0.006741561359398689, 1e-12, 0 },
	{ "300 shifted, normal", 300, 3, 32723.5, 1.4777942587040178e-11, 1e-10, 0 },
};

static void test_wilcoxon_large(void **state)
{
	double d[300], neg[300];
	struct stats_wsr r, s;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(wsr_large_cases); i++) {
		const struct wsr_large_case *c = &wsr_large_cases[i];

		wsr_data(d, c->n, c->shift);
		assert_int_equal(stats_wilcoxon(d, c->n, &r), 0);
		assert_int_equal(r.n_used, c->n);
		check_close(c->what, "w_plus", r.w_plus, c->w_plus, 0);
		check_close(c->what, "p", r.p, c->p, c->rel);
		if (r.exact != c->exact)
			fail_msg("%s: exact is %d, want %d", c->what, r.exact, c->exact);
		for (size_t k = 0; k < c->n; k++)
			neg[k] = -d[k];
		assert_int_equal(stats_wilcoxon(neg, c->n, &s), 0);
		check_close(c->what, "negated p", s.p, r.p, 1e-12);
		assert_true(r.p >= 0 && r.p <= 1);
	}
	/* The extreme at the limit: 1..200 all positive, p = 2/2^200. */
	for (size_t k = 0; k < 200; k++)
		d[k] = (double)k + 1;
	assert_int_equal(stats_wilcoxon(d, 200, &r), 0);
	assert_true(r.exact == 1 && r.w_plus == 20100);
	check_close("200 extreme", "p", r.p, 1.2446030555722283e-60, 1e-12);
}

/* ---- bootstrap ---- */

static const double boot_ref[] = { 10.2, 10.5, 9.9, 10.1, 10.4, 10.0, 10.3, 10.6 };
static const double boot_x[] = { 11.1, 10.9, 11.4, 11.0, 11.3, 11.2, 10.8 };

struct boot_case {
	const char *what;
	int ratio;
	double level;
	unsigned resamples;
	uint64_t seed;
	double point, lo, hi;
};

/*
 * Bit for bit from a Python reimplementation of the documented procedure:
 * samples sorted, splitmix64 with rejection for the indices (reference
 * draws, then x draws, per resample), statistics.median, R type-7
 * quantiles. Different seeds move the ends.
 */
static const struct boot_case boot_cases[] = {
	{ "ratio, seed 1", 1, 0.95, 2000, 1, 1.0829268292682928, 1.0526315789473686, 1.118811881188119 },
	{ "ratio, seed 2", 1, 0.95, 2000, 2, 1.0829268292682928, 1.052132701421801, 1.118811881188119 },
	{ "ratio, seed 12345", 1, 0.95, 2000, 12345, 1.0829268292682928, 1.0480769230769231, 1.118811881188119 },
	{ "median, seed 1", 0, 0.95, 2000, 1, 11.1, 10.9, 11.3 },
};

static int run_boot(const struct boot_case *c, const double *ref, const double *x,
		    struct stats_interval *out)
{
	if (c->ratio)
		return stats_bootstrap_ratio(ref, ARRAY_SIZE(boot_ref), x, ARRAY_SIZE(boot_x),
					     c->level, c->resamples, c->seed, out);
	return stats_bootstrap_median(x, ARRAY_SIZE(boot_x), c->level, c->resamples, c->seed, out);
}

static void test_bootstrap_pinned(void **state)
{
	double ref_rev[ARRAY_SIZE(boot_ref)], x_rev[ARRAY_SIZE(boot_x)];
	(void)state;

	for (size_t k = 0; k < ARRAY_SIZE(boot_ref); k++)
		ref_rev[k] = boot_ref[ARRAY_SIZE(boot_ref) - 1 - k];
	for (size_t k = 0; k < ARRAY_SIZE(boot_x); k++)
		x_rev[k] = boot_x[ARRAY_SIZE(boot_x) - 1 - k];
	for (size_t i = 0; i < ARRAY_SIZE(boot_cases); i++) {
		const struct boot_case *c = &boot_cases[i];
		struct stats_interval a, b, r;

		memset(&a, 0x55, sizeof(a));
		memset(&b, 0xaa, sizeof(b));
		assert_int_equal(run_boot(c, boot_ref, boot_x, &a), 0);
		assert_int_equal(a.status, STATS_BOOT_OK);
		check_close(c->what, "point", a.point, c->point, 0);
		check_close(c->what, "lo", a.lo, c->lo, 0);
		check_close(c->what, "hi", a.hi, c->hi, 0);
		/* A clean shift: the interval holds the point estimate. */
		assert_true(a.lo <= a.point && a.point <= a.hi);
		/* The same seed again: bit-identical. */
		assert_int_equal(run_boot(c, boot_ref, boot_x, &b), 0);
		assert_memory_equal(&a.point, &b.point, sizeof(a.point));
		assert_memory_equal(&a.lo, &b.lo, sizeof(a.lo));
		assert_memory_equal(&a.hi, &b.hi, sizeof(a.hi));
		/* The order the runs were recorded in does not matter. */
		assert_int_equal(run_boot(c, ref_rev, x_rev, &r), 0);
		assert_true(r.lo == a.lo && r.hi == a.hi && r.point == a.point);
	}
	/* Another seed, another interval (pinned above: seed 1 and 2 differ at lo). */
	assert_true(boot_cases[0].lo != boot_cases[1].lo);
}

static void test_bootstrap_more(void **state)
{
	static const double x_nan[] = { 11.1, 10.9, 11.4, 11.0, NAN, 11.3, 11.2, 10.8 };
	static const double tiny[] = { 3, 1, 2 };
	struct stats_interval a;

	(void)state;
	/* Non-finite values are dropped; level 0.90; pinned from the same Python. */
	assert_int_equal(stats_bootstrap_ratio(boot_ref, ARRAY_SIZE(boot_ref), x_nan, ARRAY_SIZE(x_nan),
					       0.90, 500, 7, &a), 0);
	check_close("ratio, NaN dropped", "lo", a.lo, 1.0536326145870154, 0);
	check_close("ratio, NaN dropped", "hi", a.hi, 1.1099999999999999, 0);
	check_close("ratio, NaN dropped", "point", a.point, 1.0829268292682928, 0);
	/* Three values, 50% interval: the interpolation lands on order statistics. */
	assert_int_equal(stats_bootstrap_median(tiny, 3, 0.5, 1000, 99, &a), 0);
	assert_true(a.point == 2 && a.lo == 1 && a.hi == 3);
	/* One value: every resample is that value. */
	assert_int_equal(stats_bootstrap_ratio(tiny, 1, tiny + 1, 1, 0.95, 100, 5, &a), 0);
	assert_true(a.point == 1.0 / 3 && a.lo == a.point && a.hi == a.point);
	/* A wider level gives an interval at least as wide, from the same draws. */
	{
		struct stats_interval n90, n99;

		assert_int_equal(stats_bootstrap_ratio(boot_ref, 8, boot_x, 7, 0.90, 3000, 9, &n90), 0);
		assert_int_equal(stats_bootstrap_ratio(boot_ref, 8, boot_x, 7, 0.99, 3000, 9, &n99), 0);
		assert_true(n99.lo <= n90.lo && n90.hi <= n99.hi);
		assert_true(n99.hi - n99.lo > n90.hi - n90.lo);
	}
}

struct boot_refusal {
	const char *what;
	const double *ref, *x;
	size_t nref, nx;
	double level;
	unsigned resamples;
	enum stats_boot_status want;
};

static const double zeros[] = { 0, 0, 0 }, zero_one_two[] = { 0, 1, 2 }, only_nan[] = { NAN, INFINITY };

static const struct boot_refusal boot_refusals[] = {
	{ "empty reference", boot_ref, boot_x, 0, 7, 0.95, 100, STATS_BOOT_EMPTY },
	{ "NULL reference", NULL, boot_x, 0, 7, 0.95, 100, STATS_BOOT_EMPTY },
	{ "empty x", boot_ref, boot_x, 8, 0, 0.95, 100, STATS_BOOT_EMPTY },
	{ "nothing finite in x", boot_ref, only_nan, 8, 2, 0.95, 100, STATS_BOOT_EMPTY },
	{ "reference median 0", zeros, boot_x, 3, 7, 0.95, 100, STATS_BOOT_ZERO_REF },
	/* Median 1, but a resample of two or three zeros has median 0 (7 in 27). */
	{ "a resampled reference median 0", zero_one_two, boot_x, 3, 7, 0.95, 1000, STATS_BOOT_ZERO_REF },
	{ "level 0", boot_ref, boot_x, 8, 7, 0, 100, STATS_BOOT_BAD_ARGS },
	{ "level 1", boot_ref, boot_x, 8, 7, 1, 100, STATS_BOOT_BAD_ARGS },
	{ "level NaN", boot_ref, boot_x, 8, 7, NAN, 100, STATS_BOOT_BAD_ARGS },
	{ "no resamples", boot_ref, boot_x, 8, 7, 0.95, 0, STATS_BOOT_BAD_ARGS },
	{ "too many resamples", boot_ref, boot_x, 8, 7, 0.95, STATS_BOOT_MAX_RESAMPLES + 1,
	  STATS_BOOT_BAD_ARGS },
};

static void test_bootstrap_refusals(void **state)
{
	struct stats_interval a;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(boot_refusals); i++) {
		const struct boot_refusal *c = &boot_refusals[i];

		memset(&a, 0x55, sizeof(a));
		if (stats_bootstrap_ratio(c->ref, c->nref, c->x, c->nx, c->level, c->resamples, 1, &a) != -1)
			fail_msg("%s: accepted", c->what);
		if (a.status != c->want)
			fail_msg("%s: status %d (%s), want %d", c->what, (int)a.status,
				 stats_boot_status_name(a.status), (int)c->want);
		assert_true(a.point == 0 && a.lo == 0 && a.hi == 0);
		assert_true(strlen(stats_boot_status_name(a.status)) > 0);
	}
	assert_int_equal(stats_bootstrap_median(boot_x, 0, 0.95, 100, 1, &a), -1);
	assert_int_equal(a.status, STATS_BOOT_EMPTY);
	assert_int_equal(stats_bootstrap_median(boot_x, 7, 1.5, 100, 1, &a), -1);
	assert_int_equal(a.status, STATS_BOOT_BAD_ARGS);
	/* The median bootstrap has no reference: zeros are fine. */
	assert_int_equal(stats_bootstrap_median(zeros, 3, 0.95, 100, 1, &a), 0);
	assert_true(a.point == 0 && a.lo == 0 && a.hi == 0 && a.status == STATS_BOOT_OK);
	assert_string_not_equal(stats_boot_status_name(STATS_BOOT_EMPTY),
				stats_boot_status_name(STATS_BOOT_ZERO_REF));
}

/*
 * Symmetric data cannot look significant: 15 rounds up 10 % and 15 down
 * 10 % (ratios 1.1 and 1/1.1) are 30 ties of |log| in exact arithmetic,
 * and W+ is then exactly its mean: p = 1. Ranked on the raw doubles, whose
 * last bits differ, p was 0.0163.
 */
static void test_wilcoxon_ties_survive_rounding(void **state)
{
	double d[30];
	struct stats_wsr w;
	(void)state;

	for (size_t i = 0; i < 15; i++) {
		d[2 * i] = log(110.0 / 100.0);
		d[2 * i + 1] = log((100.0 / 1.1) / 100.0);
	}
	assert_true(fabs(d[0]) != fabs(d[1])); /* the floating-point split the test is about */
	assert_int_equal(stats_wilcoxon(d, 30, &w), 0);
	assert_int_equal(w.n_used, 30);
	assert_true(w.p > 0.999);
	/* A real difference still counts: all 30 up. */
	for (size_t i = 0; i < 30; i++)
		d[i] = log(1.1);
	assert_int_equal(stats_wilcoxon(d, 30, &w), 0);
	assert_true(w.p < 0.001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wilcoxon_ties_survive_rounding),
		cmocka_unit_test(test_median_table),
		cmocka_unit_test(test_median_empty),
		cmocka_unit_test(test_median_large),
		cmocka_unit_test(test_change_pct),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_mann_whitney_refusals),
		cmocka_unit_test(test_mann_whitney_large),
		cmocka_unit_test(test_min_p),
		cmocka_unit_test(test_n_needed),
		cmocka_unit_test(test_hodges_lehmann),
		cmocka_unit_test(test_wilcoxon_exact),
		cmocka_unit_test(test_wilcoxon_edges),
		cmocka_unit_test(test_wilcoxon_large),
		cmocka_unit_test(test_bootstrap_pinned),
		cmocka_unit_test(test_bootstrap_more),
		cmocka_unit_test(test_bootstrap_refusals),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
