/*
 * guard_result: the names of the verdicts as the evidence writes them
 * and the release of a result (guard_result.h).
 */
#include "record/guard_result.h"

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
