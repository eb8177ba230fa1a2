/* Unit tests of stats: medians over odd, even, single and empty samples, and the change in percent. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "stats.h"

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
	for (size_t i = 0; i < sizeof(median_cases) / sizeof(median_cases[0]); i++) {
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_table),
		cmocka_unit_test(test_median_empty),
		cmocka_unit_test(test_change_pct),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
