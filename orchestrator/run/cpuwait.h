/*
 * cpuwait: the CPU wait of one child run, for proc (see cpuwait.c). The
 * readings taken around the run, then the figures they give in a
 * proc_result. Internal to proc.
 */
#ifndef ABEV_CPUWAIT_H
#define ABEV_CPUWAIT_H

#include <stdint.h>
#include <sys/types.h>

#include "measure/taskdelay.h"

struct cgroup;
struct proc_result;

struct cpuwait {
	int64_t psi_before_us;      /* the cgroup's cpu.pressure at the start; -1 */
	int64_t sys_psi_before_us;  /* /proc/pressure/cpu then; -1 */
	int64_t psi_after_us;       /* the cgroup's cpu.pressure when the child exited; -1 */
	int64_t sys_psi_after_us;   /* /proc/pressure/cpu then; -1 */
	struct taskdelay tasks;     /* the tree's threads, read at each tick and at the exit */
};
#define CPUWAIT_INIT { -1, -1, -1, -1, TASKDELAY_INIT }

/* Just before the child is let go; cg may have no path (no cgroup). */
void cpuwait_start(struct cpuwait *w, const struct cgroup *cg);
/* While the child runs (each tick): reads its tree's threads. */
void cpuwait_sample(struct cpuwait *w, pid_t pid);
/* When the child has exited and is not yet reaped (pid still readable). */
void cpuwait_stop(struct cpuwait *w, const struct cgroup *cg, pid_t pid);
/*
 * With a cgroup, after res->wall_ns is set: res->cgroup_cpu_wait_ns from
 * the cgroup's pressure, when it could be read both times.
 */
void cpuwait_from_cgroup(const struct cpuwait *w, struct proc_result *res);
/*
 * Last: the machine's CPU wait, the tree's wall time lost waiting and
 * its active time (res->tree_wait_ns, tree_active_ns; taskdelay.h), and
 * res's cpu_wait_* from them, else from the cgroup's pressure, else why
 * it is unknown.
 */
void cpuwait_finish(const struct cpuwait *w, struct proc_result *res);
void cpuwait_release(struct cpuwait *w);

#endif
