/*
 * guard_result: what a guard says of an invocation — pass, fail, or
 * could not check, with a one-line reason carrying the numbers it judged
 * by. The record keeps it; guards/ produce it (guards/guard.h).
 */
#ifndef ABEV_GUARD_RESULT_H
#define ABEV_GUARD_RESULT_H

enum guard_verdict {
	GUARD_PASS,
	GUARD_FAIL,
	GUARD_UNCHECKED, /* the figure needed was not available */
};

struct guard_result {
	const char *guard;       /* the guard's name, static */
	enum guard_verdict verdict;
	char *reason;            /* one line, caller frees */
};

const char *guard_verdict_name(enum guard_verdict v);
void guard_result_release(struct guard_result *r);

#endif
