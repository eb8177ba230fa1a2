/*
 * load guard: judges whether a run overlapped more foreign CPU load than
 * the plan allows. It only judges; repeating the slot is the runner's job.
 */
#define _POSIX_C_SOURCE 200809L
#include "guard.h"

#include <stdlib.h>

#include "util.h"

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

void guard_load(double foreign_cpu, double resolution, double max_foreign_cpu,
		struct guard_result *out)
{
	out->guard = "load";
	if (resolution < 0)
		resolution = 0;
	if (foreign_cpu < 0) {
		out->verdict = GUARD_UNCHECKED;
		out->reason = xasprintf("foreign CPU load unknown (/proc/stat unreadable); limit %.2f "
					"cores",
					max_foreign_cpu);
	} else if (foreign_cpu - resolution > max_foreign_cpu) {
		out->verdict = GUARD_FAIL;
		out->reason = xasprintf("other processes used %.2f cores (±%.2f) during the run, "
					"over the limit of %.2f (load.max_foreign_cpu)",
					foreign_cpu, resolution, max_foreign_cpu);
	} else {
		out->verdict = GUARD_PASS;
		out->reason = xasprintf("other processes used %.2f cores (±%.2f), within the limit "
					"of %.2f",
					foreign_cpu, resolution, max_foreign_cpu);
	}
}
