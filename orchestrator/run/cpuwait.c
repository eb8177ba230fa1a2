/*
 * cpuwait: how long a child waited for a CPU while it ran. The figure of
 * choice is the wall time the tree's threads lost by their run_delay
 * (taskdelay.h), read at each tick and once more when the child has
 * exited but is not yet reaped (proc observes the exit with
 * waitid(WNOWAIT): once reaped the figures are gone): exact per thread.
 * The growth of the cgroup's cpu.pressure "some" total is the fallback
 * where no thread could be read; beside unpinned busy loops it read about
 * 40 % low, so where both exist it is kept as context only, as is the
 * machine's /proc/pressure/cpu over the same window. It
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
	res->cgroup_cpu_wait_ns = ns;
}

void cpuwait_finish(const struct cpuwait *w, struct proc_result *res)
{
	/* What wait4() counted: it also holds what the readings missed (taskdelay.h). */
	int64_t tree_cpu_ns = res->fig.user_ns + res->fig.sys_ns;
	int64_t lost_ns = taskdelay_lost(&w->tasks, res->fig.wall_ns, tree_cpu_ns);

	res->tree_wait_ns = lost_ns;
	res->tree_active_ns = taskdelay_active(&w->tasks, tree_cpu_ns);
	res->system_cpu_wait_ns = psi_delta_ns(w->sys_psi_before_us, w->sys_psi_after_us,
					       res->fig.wall_ns);
	res->cpu_wait_note = NULL;
	if (res->outcome == PROC_EXEC_FAILED) {
		res->cpu_wait_note = "the command was not executed";
	} else if (lost_ns >= 0) {
		res->cpu_wait_ns = lost_ns;
		res->cpu_wait_source = "schedstat";
	} else if (res->cgroup_cpu_wait_ns >= 0) {
		res->cpu_wait_ns = res->cgroup_cpu_wait_ns;
		res->cpu_wait_source = "cgroup";
		res->cpu_wait_note = "no thread's /proc/PID/task/TID/schedstat could be read: the "
				     "cgroup's cpu.pressure \"some\" time, which counts the tree as "
				     "waiting while any one thread waits and can read low beside "
				     "busy loops";
	} else {
		res->cpu_wait_note = "neither /proc/PID/schedstat nor a cgroup's cpu.pressure "
				     "could be read (schedstats off, no cgroup v2, or PSI off)";
	}
}
