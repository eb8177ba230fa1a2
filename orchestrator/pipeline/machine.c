/*
 * machine: the real machine behind struct machine_ops (machine.h): each
 * operation is the run/, measure/ or util/ function it stands for.
 */
#include "pipeline/machine.h"

#include "run/proc.h"
#include "measure/sysstat.h"
#include "util/clock.h"

static int real_run(void *arg, const struct proc_spec *spec, struct proc_result *res)
{
	(void)arg;
	return proc_run(spec, res);
}

static int real_cpustat(void *arg, const struct cpulist *cpus, struct cpustat *out)
{
	(void)arg;
	return cpustat_read_set(cpus, out);
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

const struct machine_ops *machine_real(void)
{
	static const struct machine_ops real = {
		.run = real_run,
		.cpustat = real_cpustat,
		.now = real_now,
		.sleep = real_sleep,
		.arg = NULL,
	};
	return &real;
}
