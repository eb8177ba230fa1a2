/*
 * Unit tests of reason: every code of the comparison has one stable
 * snake_case name, a place and a description, and the name reads back
 * as the code (the table round trip result.json's readers rely on).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "record/reason.h"

static void test_round_trip(void **state)
{
	(void)state;
	for (int k = REASON_NONE + 1; k < REASON_CODES; k++) {
		const char *name = reason_code_name((enum reason_code)k);
		enum reason_code back = REASON_NONE;

		assert_non_null(name);
		if (strspn(name, "abcdefghijklmnopqrstuvwxyz_") != strlen(name) || name[0] == '_')
			fail_msg("code %d: '%s' is not snake_case", k, name);
		assert_int_equal(reason_code_parse(name, &back), 0);
		assert_int_equal(back, k);
		assert_true(strlen(reason_code_doc((enum reason_code)k)) > 10);
		for (int j = REASON_NONE + 1; j < k; j++)
			if (!strcmp(name, reason_code_name((enum reason_code)j)))
				fail_msg("codes %d and %d share the name '%s'", j, k, name);
	}
}

/* The names result.json writes today: a rename breaks every reader. */
static void test_stable_names(void **state)
{
	static const struct { enum reason_code code; const char *name; enum reason_place place; } cases[] = {
		{ REASON_INTERVAL_BEYOND_LIMIT, "interval_beyond_limit", REASON_IN_GATE },
		{ REASON_BUDGET_TOO_FEW_RUNS, "budget_too_few_runs", REASON_IN_GATE },
		{ REASON_METRIC_NOT_RECORDED, "metric_not_recorded", REASON_IN_GATE },
		{ REASON_TOO_FEW_ROUNDS, "too_few_rounds", REASON_IN_INTERVAL },
		{ REASON_NOT_POSITIVE, "not_positive", REASON_IN_INTERVAL },
		{ REASON_NOISY, "noisy", REASON_IN_WARNING },
		{ REASON_SLOT_EFFECT, "slot_effect", REASON_IN_WARNING },
		{ REASON_TEST_GUARD_FAILED, "test_guard_failed", REASON_IN_BLOCKING },
		{ REASON_NO_COUNTED_RUNS, "no_counted_runs", REASON_IN_MISSING },
		{ REASON_METRIC_NO_VALUE, "metric_no_value", REASON_IN_MISSING },
	};
	enum reason_code c = REASON_NOISY;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(reason_code_name(cases[i].code), cases[i].name);
		assert_int_equal(reason_code_place(cases[i].code), cases[i].place);
	}
	assert_null(reason_code_name(REASON_NONE));
	assert_null(reason_code_name(REASON_CODES));
	assert_int_equal(reason_code_parse("the whole interval is beyond the limit", &c), -1);
	assert_int_equal(reason_code_parse("", &c), -1);
	assert_int_equal(c, REASON_NOISY);
	assert_string_equal(reason_place_name(REASON_IN_MISSING), "missing");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_stable_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
