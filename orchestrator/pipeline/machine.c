/*
 * machine: the real machine behind struct machine_ops (machine.h): each
 * operation is the run/, measure/ or util/ function (or system call) it
 * stands for, and nothing more.
 */
#include "pipeline/machine.h"

#include "measure/overlap.h"
#include "measure/peers.h"
#include "measure/sysstat.h"
#include "run/proc.h"
#include "util/clock.h"

static int real_run(void *arg, const struct proc_spec *spec, struct proc_result *res)
{
	(void)arg;
	return proc_run(spec, res);
}

static int real_cpustat(void *arg, const struct cpulist *cpus, struct cpustat *out)
{
	(void)arg;
	return sysstat_cpustat_read_set(cpus, out);
}

static int64_t real_now(void *arg)
{
	(void)arg;
	return mono_ns();
}

static int real_sleep(void *arg, int64_t ns, void (*tick)(void *, int64_t), void *tick_arg)
{
	(void)arg;
	return proc_sleep(ns, tick, tick_arg);
}

static void real_utc(void *arg, struct timespec *out)
{
	(void)arg;
	clock_gettime(CLOCK_REALTIME, out);
}

static void real_loadavg(void *arg, struct loadavg *out)
{
	(void)arg;
	sysstat_loadavg_read(out);
}

static void real_overlap_scan(void *arg, struct overlap_watch *w)
{
	(void)arg;
	overlap_watch_scan(w);
}

static void real_peers_look(void *arg, struct peers *p, struct peers_look *out)
{
	(void)arg;
	peers_look_now(p, out);
}

const struct machine_ops *machine_real(void)
{
	static const struct machine_ops real = {
		.run = real_run,
		.cpustat = real_cpustat,
		.now = real_now,
		.sleep = real_sleep,
		.utc = real_utc,
		.loadavg = real_loadavg,
		.overlap_scan = real_overlap_scan,
		.peers_look = real_peers_look,
		.arg = NULL,
	};
	return &real;
}
