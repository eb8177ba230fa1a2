/*
 * guard_result: the names of the verdicts and of the guards as the
 * evidence writes them, and the release of a result (guard_result.h).
 */
#include "record/guard_result.h"

#include <stdlib.h>
#include <string.h>

/* One row per guard kind: its name in the evidence, and whether it judges tests. */
static const struct {
	const char *name;
	int tests;
} guard_kinds[GUARD_KINDS] = {
	[GUARD_EXIT_CODE] = { "exit_code", 0 },
	[GUARD_MIN_EXECUTED] = { "min_executed", 1 },
	[GUARD_TESTS_PASSED] = { "tests_passed", 1 },
	[GUARD_METRICS] = { "metrics", 0 },
	[GUARD_TEST_SET] = { "test_set", 1 },
	[GUARD_LOAD] = { "load", 0 },
};

const char *guard_kind_name(enum guard_kind kind)
{
	return (unsigned)kind < GUARD_KINDS ? guard_kinds[kind].name : "unknown";
}

int guard_kind_parse(const char *name, enum guard_kind *kind)
{
	for (int k = 0; k < GUARD_KINDS; k++)
		if (!strcmp(name, guard_kinds[k].name)) {
			*kind = (enum guard_kind)k;
			return 0;
		}
	return -1;
}

int guard_kind_judges_tests(enum guard_kind kind)
{
	return (unsigned)kind < GUARD_KINDS && guard_kinds[kind].tests;
}

const char *guard_verdict_name(enum guard_verdict v)
{
	switch (v) {
	case GUARD_PASS: return "pass";
	case GUARD_FAIL: return "fail";
	case GUARD_UNCHECKED: return "unchecked";
	}
	return "unknown";
}

void guard_result_release(struct guard_result *r)
{
	if (!r)
		return;
	free(r->reason);
	r->reason = NULL;
}
