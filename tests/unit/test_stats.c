/*
 * Unit tests of stats. Every expected figure comes from a computation
 * outside this C code, named where it is pinned: Python's statistics
 * module for the descriptive figures, by hand for the outliers' scores.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

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
	{ "MAD 0: nothing flagged, not even 100", { 5, 5, 5, 5, 100 }, 5, { 0 } },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_table),
		cmocka_unit_test(test_median_empty),
		cmocka_unit_test(test_median_large),
		cmocka_unit_test(test_change_pct),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_outliers),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
