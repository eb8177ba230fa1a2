/*
 * guard: the contract every check that judges a run follows. A guard
 * looks at what was measured and returns pass, fail, or could-not-check,
 * always with a one-line reason that carries the numbers it judged by.
 * Guards never run processes or write evidence; the runner does both.
 * One file a guard in guards/ (the result type is record/guard_result.h),
 * and one row of guards_table (guards.c) saying when it applies and how
 * it judges a guard_input; pipeline/judge.c fills the input from what it
 * read of an invocation, runs the table and decides what the verdicts
 * mean for the run.
 */
#ifndef ABEV_GUARD_H
#define ABEV_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "record/guard_result.h"


/*
 * load: the contention check. What slows a run is time its processes
 * spent ready to run but waiting for a CPU: cpu_wait_pct, that time as a
 * percentage of the run's wall time (< 0: unknown), measured as
 * cpu_wait_source says ("cgroup", "schedstat"). Only the part of it that
 * other processes can have caused counts against the run:
 * foreign_wait_pct (sysstat_foreign_wait_ns(); < 0: unknown), bounded by
 * the CPU time they used on the run's CPUs — a multi-threaded run's own
 * threads waiting for each other are the workload, not contention. Over
 * max_cpu_wait_pct fails; when foreign_wait_pct is unknown the whole
 * cpu_wait_pct is judged, and the reason says so.
 *
 * The foreign-load limit is a second, optional one (max_foreign_cpu < 0:
 * none): foreign_cpu is the average number of cores other processes kept
 * busy (< 0: unknown), resolution how far off that figure can be (the run
 * fails only when foreign_cpu - resolution is over the limit, so a short
 * run is not thrown away for a tick of noise).
 *
 * Unchecked when no limit in force could be judged.
 */
struct load_figures {
	double cpu_wait_pct;
	const char *cpu_wait_source;   /* borrowed, may be NULL */
	double foreign_wait_pct;
	double foreign_busy_cores;     /* others' CPU on the run's CPUs, in cores; < 0: unknown */
	unsigned run_cpus;
	double max_cpu_wait_pct;
	double foreign_cpu, resolution;
	double max_foreign_cpu;
	const char *overlap;           /* what else ran meanwhile (load.exclusive, another
	                                  abev; overlap_describe()), or NULL: borrowed */
	const char *paused;            /* the run's pauses (invocation_pauses_describe()),
	                                  or NULL: borrowed */
	/*
	 * Why a run whose figures are over the limits is kept all the same
	 * (the machine stayed busy through the wait for a quieter one, or the
	 * slot's last attempt), or NULL: borrowed. It keeps the run only when
	 * the figures are all that fail it: an overlap or a pause still does.
	 */
	const char *keep_loaded;
};
/* Returns 1 when the run's figures were over a limit (whether or not it was kept), else 0. */
int guard_load(const struct load_figures *f, struct guard_result *out);
/*
 * A round's balance: whether a run that waited wait_pct % of its wall time
 * for CPUs other processes held was loaded like each of its round's
 * counted runs (partners[0..n), the same share of theirs): other work then
 * lengthened every run of the round alike, and their ratio is a fair one.
 * Alike means the wall times the waits leave, 1 - wait, differ by no more
 * than the load limit allows one run on its own: the larger over the
 * smaller at most 1 / (1 - limit_pct / 100), so that 0 % beside 9 % is
 * alike at a 10 % limit and 50 % beside 56 % is not (2x against 2.27x).
 * 0 without a partner or with an unknown share (< 0).
 */
int guard_load_balanced(double wait_pct, const double *partners, size_t n, double limit_pct);

/*
 * min_executed: executed leaf results summed over the invocation's result
 * files must reach `required`. nfiles == 0 fails (no result file is not a
 * pass); refused > 0 (files that could not be read) makes it unchecked.
 * pattern names what was looked for, for the reason; aborted (may be
 * NULL) is what a result file said of a test run that was aborted (a
 * crashed test host: results_file.aborted), which a failure quotes first.
 */
void guard_min_executed(int64_t executed, int64_t total, int64_t required, size_t nfiles,
			size_t refused, const char *pattern, const char *aborted,
			struct guard_result *out);

/*
 * tests_passed: no failed, errored, aborted or timed-out test but those
 * the plan allows. unexpected counts the failures no known_failures
 * pattern matched, known those it did; v[0..n) are the first failures
 * read (either kind), for the reason. Unchecked when no result file was
 * read (nfiles) or some were refused and none of the rest failed.
 */
struct test_failure_view {
	const char *name, *outcome, *message;   /* outcome as written; message: its first line */
	int known;
};
void guard_tests_passed(size_t unexpected, size_t known, const struct test_failure_view *v,
			size_t n, size_t nfiles, size_t refused, struct guard_result *out);

/* exit_code: the exit code must be one of allowed[0..nallowed). */
void guard_exit_code(int exit_code, const int *allowed, size_t nallowed,
		     struct guard_result *out);

/*
 * test_set: the multiset of test names (qualified, results.h) an
 * invocation ran: a name added twice is there twice. Build with
 * test_set_add() (names are copied), then test_set_seal() once; compare
 * sealed sets with guard_test_set().
 */
struct test_set;
struct test_set *test_set_new(void);
void test_set_add(struct test_set *set, const char *name);
void test_set_seal(struct test_set *set);       /* sorts; duplicates stay */
size_t test_set_size(const struct test_set *set);
/*
 * The names added so far, in *n: sorted once sealed, as added before. Borrowed: valid until the next add, seal or free.
 */
const char *const *test_set_names(const struct test_set *set, size_t *n);
void test_set_free(struct test_set *set);
/*
 * Passes when got holds exactly the names of ref, each as many times;
 * otherwise fails naming (up to a few of) the tests missing from got and
 * those extra in it (a name once for each time it is missing or extra).
 * ref_label says where ref came from ("runs/baseline/run-1").
 */
void guard_test_set(const struct test_set *ref, const char *ref_label,
		    const struct test_set *got, struct guard_result *out);
/*
 * With no reference yet: got (sealed) becomes the reference when sound
 * (the invocation passed everything else) — returns 1 and passes; else
 * returns 0, unchecked.
 */
int guard_test_set_first(const struct test_set *got, int sound, struct guard_result *out);

/*
 * metrics: every one of values[0..n) (metrics_extract()'s) must have
 * been yielded; the reason names those that were not and why. capped
 * says some tests were not kept (over the memory cap).
 */
struct metric_value;
void guard_metrics(const struct metric_value *values, size_t n, int capped,
		   struct guard_result *out);

/*
 * What the guards judge one invocation by: a view pipeline/judge.c fills
 * from the invocation, its plan and what it read. Borrowed throughout.
 */
struct guard_input {
	/* exit_code: applies when the command exited (not killed, not unrun) */
	int exited;
	int exit_code;
	const int *allowed_codes;
	size_t nallowed_codes;
	/* min_executed, tests_passed: apply when the run's result files were looked for */
	int has_results;
	int64_t executed, total, min_executed;
	size_t nfiles, refused;        /* result files read, and refused */
	const char *results_pattern;
	const char *aborted;           /* what a result file said of an aborted run, or NULL */
	size_t unexpected, known;      /* failed tests, by whether the plan allows them */
	const struct test_failure_view *failures;
	size_t nfailures;
	/* metrics: applies when the plan's metrics were extracted */
	int has_metrics;
	const struct metric_value *metrics;
	size_t nmetrics;
	int capped;
	/*
	 * test_set: applies when names is set (every result file read, none
	 * refused): the run's names, sealed, and the reference so far (NULL:
	 * none yet). status_ok: the invocation itself ended ok.
	 */
	const struct test_set *names;
	const struct test_set *ref;
	const char *ref_label;
	int status_ok;
	/* load: applies when set */
	const struct load_figures *load;
};

/* What a guard did beyond its verdict, for the judge to act on. */
struct guard_effect {
	int took_reference;   /* test_set: names are now the reference (the judge keeps them) */
	int over_limits;      /* load: the figures were over a limit, kept or not */
};

/* When a guard is judged: once the run ended, or when its load is looked at. */
enum guard_phase {
	GUARD_PHASE_RUN,
	GUARD_PHASE_LOAD,
};

/*
 * One guard: its kind, phase, whether it has anything to judge in an
 * input, and its judge, which also sees the verdicts of the phase's
 * guards before it (before[0..nbefore)).
 */
struct guard_def {
	enum guard_kind kind;
	enum guard_phase phase;
	int (*applies)(const struct guard_input *in);
	void (*judge)(const struct guard_input *in, const struct guard_result *before,
		      size_t nbefore, struct guard_result *out, struct guard_effect *fx);
};

/* Every guard, in the order a run is judged by them (enum guard_kind's). */
extern const struct guard_def guards_table[GUARD_KINDS];

/*
 * Runs the guards of phase that apply to in, in order, into out (room for
 * GUARD_KINDS; the caller owns each reason); *fx (zeroed here) says what
 * they did beyond their verdicts. Returns how many ran.
 */
size_t guards_run(const struct guard_input *in, enum guard_phase phase,
		  struct guard_result *out, struct guard_effect *fx);

#endif
