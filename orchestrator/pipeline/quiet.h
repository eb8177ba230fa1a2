/*
 * quiet: waiting for a quieter machine before a recorded run. Other
 * processes that keep the run's CPUs busy make it wait for a CPU; rather
 * than run into that and throw the run away, abev looks at the foreign
 * load first and, above the limit, waits — backing off, within a budget
 * for the whole plan (load.max_wait_seconds) — and goes ahead when the
 * machine is quiet enough or the budget is spent. It decides only: the
 * samples, the sleeping, the clock and what is shown come through struct
 * quiet_ops, so that unit tests drive it with scripted loads. It neither
 * runs nor judges a run (run_slot.c, judge.c).
 */
#ifndef ABEV_QUIET_H
#define ABEV_QUIET_H

#include <stdint.h>

/* How long one sample of the foreign load looks, and how the polls back off. */
#define QUIET_WINDOW_NS   (200 * 1000000LL)
#define QUIET_POLL_FIRST_NS (250 * 1000000LL)
#define QUIET_POLL_MAX_NS (4000 * 1000000LL)

/*
 * What quiet_wait() needs of the world. sample: the cores other processes
 * kept busy on the run's CPUs over the next window_ns (it takes that
 * long), < 0 when unknown; *signo set when abev was interrupted meanwhile.
 * sleep: returns 0, or the signal that cut it short. now: a monotonic
 * clock. show: the live line while waiting (may be NULL).
 */
struct quiet_ops {
	double (*sample)(void *arg, int64_t window_ns, int *signo);
	int (*sleep)(void *arg, int64_t ns);
	int64_t (*now)(void *arg);
	void (*show)(void *arg, double cores, double limit, int64_t waited_ns);
	void *arg;
};

enum quiet_outcome {
	QUIET_GO,          /* the load was within the limit */
	QUIET_SPENT,       /* still over the limit, the budget is spent: run under load */
	QUIET_UNKNOWN,     /* the load cannot be read: run */
	QUIET_INTERRUPTED, /* abev received a signal (signo) */
};

struct quiet_result {
	enum quiet_outcome outcome;
	int64_t waited_ns;  /* time spent sampling and waiting */
	double cores;       /* the last sample: foreign cores on the run's CPUs, -1 unknown */
	unsigned naps;      /* times abev slept because the load was over the limit */
	int signo;
};

/*
 * Samples the foreign load and waits while it is over limit (cores), for
 * at most budget_ns (<= 0: one sample, no wait). Never fails.
 */
void quiet_wait(const struct quiet_ops *ops, double limit, int64_t budget_ns,
		struct quiet_result *out);

/*
 * The foreign load a run on cpus CPUs can stand: the cores left once the
 * run has what it needs (need: its parallelism, the CPU time of its last
 * counted run over its wall time, at least 1), with a quarter core of
 * slack; never below a quarter core. A plan's load.max_foreign_cpu (>= 0)
 * is the limit instead.
 */
double quiet_limit(unsigned cpus, double need, double max_foreign_cpu);

#endif
