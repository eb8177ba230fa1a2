/* quiet: waiting for a quieter machine before a recorded run (quiet.h). */
#include "pipeline/quiet.h"

/* A quarter core: what /proc/stat's ticks and abev's own polling can add. */
#define QUIET_SLACK 0.25

double quiet_limit(unsigned cpus, double need, double max_foreign_cpu)
{
	double limit;

	if (max_foreign_cpu >= 0)
		return max_foreign_cpu;
	if (!(need >= 1))
		need = 1;
	limit = (double)cpus - need + QUIET_SLACK;
	return limit < QUIET_SLACK ? QUIET_SLACK : limit;
}

void quiet_wait(const struct quiet_ops *ops, double limit, int64_t budget_ns,
		struct quiet_result *out)
{
	int64_t start = ops->now(ops->arg), poll = QUIET_POLL_FIRST_NS;

	*out = (struct quiet_result){ QUIET_GO, 0, -1, 0, 0 };
	for (;;) {
		int64_t left, nap;

		out->cores = ops->sample(ops->arg, QUIET_WINDOW_NS, &out->signo);
		out->waited_ns = ops->now(ops->arg) - start;
		if (out->signo) {
			out->outcome = QUIET_INTERRUPTED;
			return;
		}
		if (out->cores < 0) {
			out->outcome = QUIET_UNKNOWN;
			return;
		}
		if (out->cores <= limit) {
			out->outcome = QUIET_GO;
			return;
		}
		left = budget_ns - out->waited_ns;
		if (left <= 0) {
			out->outcome = QUIET_SPENT;
			return;
		}
		if (ops->show)
			ops->show(ops->arg, out->cores, limit, out->waited_ns);
		nap = poll < left ? poll : left;
		out->naps++;
		out->signo = ops->sleep(ops->arg, nap);
		if (out->signo) {
			out->waited_ns = ops->now(ops->arg) - start;
			out->outcome = QUIET_INTERRUPTED;
			return;
		}
		poll = poll * 2 < QUIET_POLL_MAX_NS ? poll * 2 : QUIET_POLL_MAX_NS;
	}
}
