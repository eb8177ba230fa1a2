/*
 * guard_result: what a guard says of an invocation — pass, fail, or
 * could not check, with a one-line reason carrying the numbers it judged
 * by — and the kinds of guard with the names the evidence writes. The
 * record keeps it; guards/ produce it (guards/guard.h). Code tells guards
 * apart by kind; the names are for the evidence and the words.
 */
#ifndef ABEV_GUARD_RESULT_H
#define ABEV_GUARD_RESULT_H

enum guard_verdict {
	GUARD_PASS,
	GUARD_FAIL,
	GUARD_UNCHECKED, /* the figure needed was not available */
};

/* The guards, in the order a run is judged by them. */
enum guard_kind {
	GUARD_EXIT_CODE,
	GUARD_MIN_EXECUTED,
	GUARD_TESTS_PASSED,
	GUARD_METRICS,     /* every metric yielded a value */
	GUARD_TEST_SET,
	GUARD_LOAD,
	GUARD_KINDS
};

struct guard_result {
	enum guard_kind kind;
	enum guard_verdict verdict;
	char *reason;            /* one line, caller frees */
};

const char *guard_verdict_name(enum guard_verdict v);
/* The name result.json gives kind ("exit_code", "test_set", ...). */
const char *guard_kind_name(enum guard_kind kind);
/* The kind named name into *kind: 0, or -1 when no guard has that name. */
int guard_kind_parse(const char *name, enum guard_kind *kind);
/* Does kind judge the tests a run ran (min_executed, tests_passed, test_set)? */
int guard_kind_judges_tests(enum guard_kind kind);
void guard_result_release(struct guard_result *r);

#endif
