/*
 * Unit tests of units: values scaled to a readable unit, percentages
 * without "-0", a row's shared scale, and the scale a whole axis takes
 * from its largest value (units_scale), which must agree with the unit
 * units_add() picks for that value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/units.h"
#include "util/compiler.h"
#include "util/strbuf.h"

struct value_case {
	double v;
	const char *unit, *want;
};

static const struct value_case value_cases[] = {
	{ 17.2, "ms", "17.2 ms" },
	{ 0.017, "s", "17.0 ms" },
	{ 1080, "ms", "1.08 s" },
	{ 632.4, "ms", "632 ms" },
	{ 0.5, "ms", "500 \xc2\xb5s" },
	{ 999.9, "ns", "1000 ns" },
	{ 1500, "ns", "1.50 \xc2\xb5s" },
	{ 2.5, "us", "2.50 \xc2\xb5s" },
	{ 98983936, "bytes", "94.4 MiB" },
	{ 1023, "bytes", "1023 B" },
	{ 1536, "B", "1.50 KiB" },
	{ 3.0 * 1024 * 1024 * 1024, "bytes", "3.00 GiB" },
	{ 4.3715, "ops/s", "4.37 ops/s" },
	{ 228.754, "", "229" },
	{ 10773905, "count", "10773905 count" },
	{ -0.0001, "ms", "-100 ns" },
	{ 0, "ms", "0 ms" },
	{ 0, "bytes", "0 B" },
	{ 0, "", "0" },
	{ NAN, "ms", "n/a" },
};

static void test_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(value_cases) / sizeof(value_cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		units_add(&sb, value_cases[i].v, value_cases[i].unit);
		print_message("case %zu: %g %s\n", i, value_cases[i].v, value_cases[i].unit);
		assert_string_equal(sb.buf, value_cases[i].want);
		strbuf_release(&sb);
	}
}

static void test_percent(void **state)
{
	static const struct { double v; const char *want; } cases[] = {
		{ -11.764705, "-11.76%" }, { 19.24, "+19.24%" }, { -0.0, "+0.00%" },
		{ -0.004, "+0.00%" }, { 0.005, "+0.01%" }, { 234.6, "+234.60%" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		units_add_pct(&sb, cases[i].v);
		assert_string_equal(sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
}

/* A row shares the scale of its median: 1.08 s beside 0.97 s, not 966 ms. */
static void test_row_scale(void **state)
{
	struct units_scale sc;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	units_pick(1080, "ms", &sc);
	assert_string_equal(sc.name, "s");
	units_add_in(&sb, 1080, &sc);
	strbuf_adds(&sb, " ");
	units_add_in(&sb, 966.4, &sc);
	strbuf_adds(&sb, " ");
	units_add_in(&sb, 12345, &sc);
	assert_string_equal(sb.buf, "1.08 0.97 12.35");
	strbuf_reset(&sb);
	units_pick(98983936, "bytes", &sc);
	assert_string_equal(sc.name, "MiB");
	units_add_in(&sb, 98983936, &sc);
	assert_string_equal(sb.buf, "94.4");
	strbuf_reset(&sb);
	units_pick(3.5, "ops/s", &sc);
	assert_string_equal(sc.name, "ops/s");
	units_add_in(&sb, 3.5, &sc);
	assert_string_equal(sb.buf, "3.50");
	strbuf_reset(&sb);
	units_pick(-0.0001, "ms", &sc);
	units_add_in(&sb, -0.0000001, &sc);
	assert_string_equal(sb.buf, "0");
	strbuf_release(&sb);
}

static void test_scale(void **state)
{
	static const struct {
		const char *unit;
		double v;
		const char *shown, *scaled_unit;
		double factor;
	} cases[] = {
		{ "ms", 17.25, "17.2 ms", "ms", 1 },
		{ "ms", 2500, "2.50 s", "s", 1e-3 },
		{ "ms", 0.5, "500 \xc2\xb5s", "\xc2\xb5s", 1e3 },
		{ "ns", 12, "12.0 ns", "ns", 1 },
		{ "s", 1e-7, "100 ns", "ns", 1e9 },
		{ "bytes", 512, "512 B", "B", 1 },
		{ "bytes", 3 * 1048576.0, "3.00 MiB", "MiB", 1 / 1048576.0 },
		{ "B", 2048, "2.00 KiB", "KiB", 1 / 1024.0 },
		{ "ops/s", 123456, "123456 ops/s", "ops/s", 1 },
		{ "", 5, "5.00", "", 1 },
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double f = 0;
		const char *u = units_scale(cases[i].unit, cases[i].v, &f);

		strbuf_reset(&sb);
		units_add(&sb, cases[i].v, cases[i].unit);
		assert_string_equal(sb.buf, cases[i].shown);
		assert_string_equal(u, cases[i].scaled_unit);
		assert_true(fabs(f / cases[i].factor - 1) < 1e-12);
		/* The unit units_add() wrote is the one units_scale() names. */
		assert_true(!*u || strstr(sb.buf, u));
	}
	/* A non-finite value keeps the unit; a NULL unit is an empty one. */
	{
		double f = 0;
		assert_string_equal(units_scale("ms", NAN, &f), "ms");
		assert_true(f == 1);
		assert_string_equal(units_scale(NULL, 3, &f), "");
	}
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_row_scale),
		cmocka_unit_test(test_scale),
	};
	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
