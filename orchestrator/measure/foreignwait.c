/*
 * foreignwait: the wait on other processes that wall_own takes out, and
 * its basis (the formula and where it is exact: foreignwait.h). Judging
 * it against a limit is the load guard's; reading the figures is
 * taskdelay's, sysstat's and cgroup's.
 */
#include "measure/foreignwait.h"

#include "measure/sysstat.h"

/* Whether the threads' own wait says the tree ran one thread at a time. */
static int serial(const struct foreignwait_in *in)
{
	return in->from_threads && in->active_ns >= 0 && in->wall_ns > 0 &&
	       (double)in->active_ns <= FOREIGNWAIT_SERIAL_MAX * (double)in->wall_ns;
}

/* How many CPUs the run could have kept busy itself: clamp(active / wall, 1, cpus). */
static double run_parallel(const struct foreignwait_in *in)
{
	double par;

	if (!in->from_threads || in->active_ns < 0 || in->wall_ns <= 0)
		return 1;
	par = (double)in->active_ns / (double)in->wall_ns;
	if (in->set_cpus && par > (double)in->set_cpus)
		par = (double)in->set_cpus;
	return par > 1 ? par : 1;
}

void foreignwait_estimate(const struct foreignwait_in *in, struct foreignwait *out)
{
	int64_t bound = sysstat_foreign_bound_ns(in->busy_ns, in->set_cpus, in->busy_fine_ns);
	double par, cap;

	out->ns = -1;
	out->basis = FOREIGN_WAIT_UNKNOWN;
	if (in->wait_ns < 0 || bound < 0)
		return;
	par = run_parallel(in);
	cap = (double)bound / par;
	/*
	 * A run of one thread at a time cannot have waited on itself: the
	 * bound only guards against a counter that missed work. Both figures
	 * of a thread pinned beside a loop are the same time, so they are
	 * given what whole ticks can be off (the nanosecond figure lags by a
	 * running task's slice) rather than flipping on it.
	 */
	if (serial(in))
		cap += (double)sysstat_set_resolution_ns(in->set_cpus ? in->set_cpus : 1);
	if ((double)in->wait_ns > cap) {
		out->ns = (int64_t)cap;
		out->basis = FOREIGN_WAIT_FOREIGN_BUSY;
		return;
	}
	out->ns = in->wait_ns;
	if (!in->from_threads)
		out->basis = FOREIGN_WAIT_CGROUP;
	else if (serial(in))
		out->basis = FOREIGN_WAIT_ONE_THREAD;
	else
		out->basis = FOREIGN_WAIT_THREADS;
}
