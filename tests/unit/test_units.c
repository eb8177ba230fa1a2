/*
 * Unit tests of units: how a value is written for people (units_add) and
 * the scale a whole axis takes from its largest value (units_scale),
 * which must agree with the unit units_add() picks for that value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "units.h"

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
		cmocka_unit_test(test_scale),
	};
	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
