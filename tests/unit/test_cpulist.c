/* Unit tests of cpulist: CPU lists parsed, refused with a reason, and
 * formatted back in canonical form. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/cpulist.h"

static void test_parse_and_format(void **state)
{
	static const struct {
		const char *text, *canonical;
		unsigned count;
	} ok[] = {
		{ "0", "0", 1 },
		{ "0-1", "0-1", 2 },
		{ " 3, 1-2 ,2", "1-3", 3 },
		{ "0,2,4-5", "0,2,4-5", 4 },
		{ "1023", "1023", 1 },
		{ "5-5", "5", 1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct cpulist cl = CPULIST_INIT;
		char *why = NULL, *f;
		assert_int_equal(cpulist_parse(ok[i].text, &cl, &why), 0);
		assert_null(why);
		assert_int_equal(cl.count, ok[i].count);
		f = cpulist_format(&cl);
		assert_string_equal(f, ok[i].canonical);
		free(f);
	}
}

static void test_refused(void **state)
{
	static const struct {
		const char *text, *needle;
	} bad[] = {
		{ "", "is not a CPU list" },
		{ "-1", "is not a CPU list" },
		{ "0-", "is not a CPU list" },
		{ "0,,1", "is not a CPU list" },
		{ "a", "is not a CPU list" },
		{ "1 2", "is not a CPU list" },
		{ "3-1", "the range 3-1 runs backwards" },
		{ "1024", "numbered below 1024" },
		{ "99999999999999999999", "numbered below 1024" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cpulist cl = CPULIST_INIT;
		char *why = NULL;
		assert_int_equal(cpulist_parse(bad[i].text, &cl, &why), -1);
		assert_non_null(why);
		if (!strstr(why, bad[i].needle))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].text, why, bad[i].needle);
		assert_int_equal(cl.count, 0);
		free(why);
	}
}

static void test_has(void **state)
{
	struct cpulist cl = CPULIST_INIT;
	char *why = NULL;
	(void)state;
	assert_int_equal(cpulist_parse("1,3", &cl, &why), 0);
	assert_false(cpulist_has(&cl, 0));
	assert_true(cpulist_has(&cl, 1));
	assert_true(cpulist_has(&cl, 3));
	assert_false(cpulist_has(&cl, CPULIST_MAX));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_format),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_has),
	};
	return cmocka_run_group_tests_name("cpulist", tests, NULL, NULL);
}
