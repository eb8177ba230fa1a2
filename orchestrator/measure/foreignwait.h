/*
 * foreignwait: the part of a run's CPU wait that other processes caused,
 * which wall_own takes out of wall time, and how it was found. Pure
 * arithmetic on figures measured elsewhere (taskdelay.h, sysstat.h,
 * cgroup.h): no I/O, no clock.
 *
 * The wait is the tree's own thread waits (run_delay, exact per thread)
 * where they could be read, else the cgroup's "some" pressure. A thread
 * waits only while every CPU it may use is held, by others or by the
 * run's own threads; what others held is bounded by the CPU time they
 * ran there (foreign_busy_ns), spread over as many of those CPUs as the
 * run could have kept busy itself: its threads' active time over the
 * wall (how many were runnable at once, on average), from 1 to run_cpus.
 * So
 *
 *     foreign wait = min(wait, bound / clamp(active / wall, 1, run_cpus))
 *
 * One thread at a time (one thread, or processes one after another;
 * active within FOREIGNWAIT_SERIAL_MAX of the wall): the divisor is 1,
 * every wait is on others, and the figure is the measured wait, exact;
 * the bound, which only guards against a counter that missed work, is
 * given the two ticks a CPU the counters can be off. Threads side by side: the wait of each is
 * measured, their lost wall time is an estimate (taskdelay.h), and where
 * they outnumber the CPUs the bound keeps their waiting on each other in
 * wall_own (on a quiet machine nothing is taken out); with r runnable
 * threads sharing C CPUs fairly with others the bound is the wall time
 * others cost them (r >= C) or above it (r < C, where the wait itself is
 * smaller).
 */
#ifndef ABEV_FOREIGNWAIT_H
#define ABEV_FOREIGNWAIT_H

#include <stdint.h>

#include "record/invocation.h"

/*
 * Threads at a time, on average, up to which a tree counts as running
 * one thread at a time: its active time can pass the wall time by the
 * moments before the clock starts and by how taskdelay extrapolates what
 * its readings missed; a helper thread that ran beside the main one 5 %
 * of the time could have made it wait no longer than that.
 */
#define FOREIGNWAIT_SERIAL_MAX 1.05

struct foreignwait_in {
	int64_t wall_ns;
	int64_t wait_ns;        /* the run's CPU wait (cpu_wait_ns); -1: unknown */
	int from_threads;       /* wait_ns is the threads' own (schedstat), not the cgroup's */
	int64_t active_ns;      /* the threads' sum (cpu + run_delay); -1: unknown */
	int64_t busy_ns;        /* foreign_busy_ns (whole ticks); -1: unknown */
	unsigned set_cpus;      /* run_cpus; 0: unknown */
	int64_t busy_fine_ns;   /* foreign_busy_fine_ns; -1: unknown */
};

struct foreignwait {
	int64_t ns;                       /* -1: unknown */
	enum foreign_wait_basis basis;    /* FOREIGN_WAIT_UNKNOWN with ns */
};

/*
 * The formula above. Unknown when the wait is, or both busy figures are;
 * the bound is the larger of busy_ns less its resolution and busy_fine_ns
 * (sysstat_foreign_bound_ns()).
 */
void foreignwait_estimate(const struct foreignwait_in *in, struct foreignwait *out);

#endif
