/*
 * machine: what the pipeline needs of the machine it runs on — run a
 * process, read how busy a set of CPUs has been and what else ran (load
 * averages, load.exclusive processes, other abev runs), read the
 * monotonic and the UTC clock, sleep — as one small table of operations,
 * the way hyperfine's executor trait lets its tests run the benchmark
 * loop on a mock. The runner takes it
 * through runner_options (NULL: the real machine, machine_real()), and
 * run_slot.c makes every slot's run, its prepare step, each variant's
 * setup and cleanup, load sample, gap and wait for a quieter machine
 * through it, and runner.c its clocks and the wait for other abev runs,
 * so that unit tests drive repeats, discards, waits, fail-fast, looks,
 * failed steps and status on scripted runs and loads
 * (tests/unit/fake_machine.[ch], the one scripted machine: an operation
 * added here is scripted there). What the evidence needs of the host
 * (versions, hashes, metadata), the registration with other abev runs
 * (peers_join(), peers_blocker()) and the evidence's files stay real.
 */
#ifndef ABEV_MACHINE_H
#define ABEV_MACHINE_H

#include <stdint.h>
#include <time.h>

struct cpulist;
struct cpustat;
struct loadavg;
struct overlap_watch;
struct peers;
struct peers_look;
struct proc_spec;
struct proc_result;

struct machine_ops {
	/* proc_run(): runs spec to its end and fills *res. 0, or -1 after error(). */
	int (*run)(void *arg, const struct proc_spec *spec, struct proc_result *res);
	/* sysstat_cpustat_read_set(): the busy ticks of cpus (NULL: the machine's) so far. 0 or -1. */
	int (*cpustat)(void *arg, const struct cpulist *cpus, struct cpustat *out);
	/* mono_ns(): a monotonic clock, ns. */
	int64_t (*now)(void *arg);
	/*
	 * proc_sleep(): sleeps ns, calling tick (when not NULL) as time goes;
	 * 0, or the interrupt signal that cut it short.
	 */
	int (*sleep)(void *arg, int64_t ns, void (*tick)(void *, int64_t), void *tick_arg);
	/* clock_gettime(CLOCK_REALTIME): the UTC wall clock, a label only. */
	void (*utc)(void *arg, struct timespec *out);
	/* sysstat_loadavg_read(): the load averages now; out->valid 0 when unknown. */
	void (*loadavg)(void *arg, struct loadavg *out);
	/* overlap_watch_scan(): adds to w the load.exclusive processes running now. */
	void (*overlap_scan)(void *arg, struct overlap_watch *w);
	/* peers_look_now(): the other abev runs now (peers.h). */
	void (*peers_look)(void *arg, struct peers *p, struct peers_look *out);
	void *arg;
};

/*
 * The real machine: proc_run(), sysstat_cpustat_read_set(), mono_ns(),
 * proc_sleep(), CLOCK_REALTIME, sysstat_loadavg_read(), overlap_watch_scan(),
 * peers_look_now().
 */
const struct machine_ops *machine_real(void);

#endif
