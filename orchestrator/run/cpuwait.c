/*
 * cpuwait: how long a child waited for a CPU while it ran. The figure of
 * choice is the growth of its cgroup's cpu.pressure "some" total (the
 * whole tree); without a cgroup, the wall time the tree's threads lost
 * by their run_delay (taskdelay.h), read at each tick and once more when
 * the child has exited but is not yet reaped (proc observes the exit with
 * waitid(WNOWAIT): once reaped the figures are gone). The machine's
 * /proc/pressure/cpu over the same window goes beside it for context. It
 * reads figures only: running and reaping the child are proc.c's, the
 * files themselves cgroup.c's, sysstat.c's and taskdelay.c's.
 */
#include "run/cpuwait.h"

#include <stdint.h>

#include "measure/cgroup.h"
#include "run/proc.h"
#include "measure/sysstat.h"

void cpuwait_start(struct cpuwait *w, const struct cgroup *cg)
{
	/* A new group starts at 0, but reading costs nothing and assumes nothing. */
	w->psi_before_us = cgroup_cpu_pressure_us(cg);
	w->sys_psi_before_us = sysstat_psi_read_some_total(PSI_SYSTEM_CPU);
}

void cpuwait_stop(struct cpuwait *w, const struct cgroup *cg, pid_t pid)
{
	/* The window closes with the child: what leftovers do later is not its wait. */
	w->psi_after_us = cgroup_cpu_pressure_us(cg);
	w->sys_psi_after_us = sysstat_psi_read_some_total(PSI_SYSTEM_CPU);
	taskdelay_sample(&w->tasks, pid);
}

void cpuwait_sample(struct cpuwait *w, pid_t pid)
{
	taskdelay_sample(&w->tasks, pid);
}

void cpuwait_release(struct cpuwait *w)
{
	taskdelay_release(&w->tasks);
}

/*
 * A pressure total's growth over the run in ns, or -1. At most the wall
 * time: the kernel's per-CPU aggregation can round a short window up.
 */
static int64_t psi_delta_ns(int64_t before_us, int64_t after_us, int64_t wall_ns)
{
	int64_t ns;
	if (before_us < 0 || after_us < before_us || after_us - before_us > INT64_MAX / 1000)
		return -1;
	ns = (after_us - before_us) * 1000;
	return ns < wall_ns ? ns : wall_ns;
}

void cpuwait_from_cgroup(const struct cpuwait *w, struct proc_result *res)
{
	int64_t ns = psi_delta_ns(w->psi_before_us, w->psi_after_us, res->fig.wall_ns);
	if (ns < 0)
		return;
	res->cpu_wait_ns = ns;
	res->cpu_wait_source = "cgroup";
	res->cpu_wait_note = NULL;
}

void cpuwait_finish(const struct cpuwait *w, struct proc_result *res)
{
	int64_t lost_ns = taskdelay_lost(&w->tasks, res->fig.wall_ns);

	res->tree_wait_ns = lost_ns;
	res->system_cpu_wait_ns = psi_delta_ns(w->sys_psi_before_us, w->sys_psi_after_us,
					       res->fig.wall_ns);
	/* Without the cgroup's pressure: the child's own threads, or why there is nothing. */
	if (res->cpu_wait_source)
		return;
	if (res->outcome == PROC_EXEC_FAILED) {
		res->cpu_wait_note = "the command was not executed";
	} else if (lost_ns >= 0) {
		res->cpu_wait_ns = lost_ns;
		res->cpu_wait_source = "schedstat";
		res->cpu_wait_note = "no cgroup CPU pressure: the wall time the run_delay of the "
				     "tree's threads (read every 0.1 s and at the exit) says it "
				     "lost, combined as docs/plan.md's Contention says";
	} else {
		res->cpu_wait_note = "neither a cgroup's cpu.pressure nor /proc/PID/schedstat "
				     "could be read (no cgroup v2, PSI off, or schedstats off)";
	}
}
