/* Unit tests of the load guard: verdicts at, over and under the limit,
 * and an unknown figure, each with a reason carrying the numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "guard.h"

static void test_verdicts(void **state)
{
	static const struct {
		double foreign, resolution, limit;
		enum guard_verdict want;
		const char *needle;
	} cases[] = {
		{ 0.10, 0.01, 0.50, GUARD_PASS, "0.10 cores (±0.01), within the limit of 0.50" },
		{ 0.50, 0.00, 0.50, GUARD_PASS, "within the limit" },
		{ 0.93, 0.03, 0.50, GUARD_FAIL, "used 0.93 cores (±0.03) during the run, over the limit of 0.50" },
		/* a 20 ms run on 2 CPUs at 100 Hz: one tick of noise is not load */
		{ 0.90, 1.00, 0.50, GUARD_PASS, "(±1.00), within the limit" },
		{ 0.60, -1.0, 0.50, GUARD_FAIL, "(±0.00)" },
		{ -1.0, 0.01, 0.25, GUARD_UNCHECKED, "unknown" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct guard_result r = { 0 };
		guard_load(cases[i].foreign, cases[i].resolution, cases[i].limit, &r);
		assert_string_equal(r.guard, "load");
		assert_int_equal(r.verdict, cases[i].want);
		assert_non_null(strstr(r.reason, cases[i].needle));
		guard_result_release(&r);
		guard_result_release(&r);
	}
	assert_string_equal(guard_verdict_name(GUARD_UNCHECKED), "unchecked");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_verdicts) };
	return cmocka_run_group_tests_name("guard_load", tests, NULL, NULL);
}
