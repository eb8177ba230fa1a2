/*
 * guard: what every guard shares — the names of the verdicts as the
 * evidence writes them and the release of a result. It judges nothing
 * itself: each guard has its own file beside this one, and judge.c
 * decides which apply to an invocation.
 */
#define _POSIX_C_SOURCE 200809L
#include "guard.h"

#include <stdlib.h>

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
