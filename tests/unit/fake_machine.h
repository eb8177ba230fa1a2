/*
 * fake_machine: the scripted machine the pipeline's unit tests hand the
 * runner (pipeline/machine.h), and the scratch evidence they read back.
 * Every operation of struct machine_ops comes from a script: each run's
 * wall time, CPU wait, outcome and neighbour, the CPU load on the set, the
 * monotonic and UTC clocks, every sleep, the load averages and the other
 * abev runs (none) — so that what a test asserts cannot move with the
 * machine's load. It records what the runner asked of it: the spawns in
 * order, each one's start and end on the clock, the steps (setup, cleanup,
 * prepare) run, the time slept.
 * test_pipeline.c and test_pipeline_seam.c share it: an operation added to
 * machine.h is scripted here once. What a test checks, and the helpers
 * only one test needs, stay in the test. A script the runner outruns, or
 * evidence that cannot be read back, fails the test (cmocka asserts).
 */
#ifndef ABEV_FAKE_MACHINE_H
#define ABEV_FAKE_MACHINE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cJSON.h>

#include "pipeline/machine.h"
#include "pipeline/runner.h"
#include "run/proc.h"

#define MS 1000000LL
#define S (1000 * MS)

/* Where the scripted UTC clock starts (monotonic 0): 2030-01-02T03:04:05Z. */
#define FM_UTC_EPOCH 1893553445

/* The variants of every scripted plan: two. */
#define FM_VARIANTS 2

/* One run as the script has it; zero fields but the wall time: a clean run that exited 0. */
struct fm_run {
	int64_t wall_ns;
	double wait_pct;          /* share of the wall time it waited on CPUs others held */
	double others_cores;      /* cores other processes kept busy on its CPUs meanwhile */
	unsigned child_stops;     /* SIGSTOPs of its group: a paused run */
	enum proc_outcome outcome;
	int spawn_error;          /* abev itself could not run it: run() returns -1 */
	int exclusive;            /* a load.exclusive process ran beside it */
};

/*
 * The script of one runner_run() and what the runner did on it. The test
 * sets the script fields (the rest zero) and reads the record fields after.
 */
struct fm_machine {
	/* The script. */
	const char *variants[FM_VARIANTS]; /* each variant's name, its command's last word */
	/*
	 * The recorded runs: runs[v] those of variants[v], in order; or, with
	 * in_spawn_order set, runs[0] those of every variant in the order
	 * spawned (a drift that follows the clock, not the variant).
	 */
	const struct fm_run *runs[FM_VARIANTS];
	size_t nruns[FM_VARIANTS];
	int in_spawn_order;
	int64_t warmup_ns[FM_VARIANTS]; /* the wall time of each variant's warmups */
	double idle_load;          /* cores others keep busy on the set while abev sleeps */
	/*
	 * The exit code of each variant's steps — its setup, cleanup and
	 * prepare commands (proc_spec.capture set, cgroup_name the step's
	 * kind) — which take 1 ms each and print one line.
	 */
	int step_exit[FM_VARIANTS];

	/* The record. */
	size_t next[FM_VARIANTS];  /* recorded runs taken from runs[v] so far */
	char spawns[128];          /* a spawn a letter, its variant's first; upper case: a warmup */
	size_t nspawns;
	int64_t started[64], ended[64]; /* the clock at each spawn's start and end */
	char steps[64];            /* a step two letters: its kind's ('s', 'c', 'p'), its variant's */
	size_t nsteps;
	int64_t clock;             /* monotonic, ns */
	double busy_ns;            /* busy time of the CPU set so far, all processes */
	int64_t slept_ns;
	unsigned loadavg_reads;    /* each read's 1-minute average is 0.25 more than the last */
	int exclusive_pending;     /* the run just spawned had a neighbour to report */
};

/* The operations of m: each reads and advances m's script. Valid while m is. */
struct machine_ops fm_machine_ops(struct fm_machine *m);

/* The UTC label of the scripted monotonic time mono. */
void fm_utc_at(int64_t mono, struct timespec *ts);

/* The first CPU this process may run on: the variants are pinned to it (one CPU, exact figures). */
int fm_first_cpu(void);

/*
 * A plan named "scripted" of variants a and b (commands ["true", a] and
 * ["true", b], pinned to fm_first_cpu()); schedule and load are the inside
 * of their objects ("gap_seconds": 1 and "seed": 1 come first in the
 * schedule); rest, when not NULL, more top-level keys. Caller frees.
 */
char *fm_plan_text(const char *a, const char *b, const char *schedule, const char *load,
		   const char *rest);

/* A scratch directory for one run: lock directory and evidence. */
struct fm_scratch {
	char *dir;
	char out[96];              /* the evidence directory */
	cJSON *result;             /* its result.json */
	enum runner_outcome outcome;
};

/*
 * Runs the plan text on m in a new scratch directory (/tmp/abev-TAG-*,
 * its own ABEV_LOCK_DIR) and reads result.json back into sx.
 * fm_scratch_release() removes it.
 */
void fm_scratch_run(struct fm_scratch *sx, const char *tag, const char *text,
		    struct fm_machine *m);
void fm_scratch_release(struct fm_scratch *sx);

/* result.json's invocations: how many, and the i-th (which must be there). */
int fm_ninvs(const struct fm_scratch *sx);
const cJSON *fm_inv_at(const struct fm_scratch *sx, int i);

/* o's key as a string ("" when not one) or a number (-1 when not one). */
const char *fm_str_of(const cJSON *o, const char *key);
double fm_num_of(const cJSON *o, const char *key);

/* Whether some run-level note of result.json holds what. */
int fm_has_note(const struct fm_scratch *sx, const char *what);

#endif
