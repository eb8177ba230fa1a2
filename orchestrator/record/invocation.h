/*
 * invocation: the central record of abev — one process abev started, as
 * the runner fills it in, the guards and the progress line read it, and
 * evidence.c serialises it into result.json — with its status names and
 * the overall status of a run. It holds data and frees it; it does no
 * I/O, runs nothing and knows no file format.
 */
#ifndef ABEV_INVOCATION_H
#define ABEV_INVOCATION_H

#include <stddef.h>
#include <stdint.h>

#include "record/file_read.h"
#include "record/guard_result.h"
#include "record/loadavg.h"
#include "record/metric_def.h"
#include "record/overlap_hit.h"
#include "record/proc_figures.h"
#include "record/proc_tree.h"
#include "record/results_file.h"
#include "util/hash.h"

/* Failed test names kept per invocation; the rest are counted. */
#define EVIDENCE_FAILED_TESTS_MAX 50
/* What of stderr.log a failed invocation's record keeps: its last lines, this much at most. */
#define INVOCATION_STDERR_TAIL_LINES 3
#define INVOCATION_STDERR_TAIL_BYTES 300
/* Executed tests whose duration an invocation keeps, in the order read; the rest are counted. */
#define EVIDENCE_TEST_TIMES_MAX 20000

enum inv_status {
	INV_OK,
	INV_FAILED,
	INV_TIMED_OUT,
	INV_DISCARDED,
	INV_EXEC_FAILED,
	INV_INTERRUPTED,
};

/*
 * How foreign_wait_ns — the wait wall_own takes out of wall time — was
 * found (measure/foreignwait.h). The values index invocation_wait_basis_names,
 * the names result.json writes (NULL: null).
 */
enum foreign_wait_basis {
	FOREIGN_WAIT_UNKNOWN,       /* null: no foreign wait (a zeroed record) */
	FOREIGN_WAIT_ONE_THREAD,    /* the threads' own waits, one thread at a time: exact */
	FOREIGN_WAIT_THREADS,       /* the threads' own waits, side by side: an estimate */
	FOREIGN_WAIT_FOREIGN_BUSY,  /* others' CPU time over the run's parallelism: an estimate */
	FOREIGN_WAIT_CGROUP,        /* the cgroup's "some" pressure: an estimate */
};
#define FOREIGN_WAIT_BASES 5
extern const char *const invocation_wait_basis_names[FOREIGN_WAIT_BASES];

/* What the plan's prepare command did before an invocation (prepare.c). */
struct invocation_prepare {
	char **argv;              /* as expanded */
	size_t argc;
	const char *status;       /* "ok", "failed", "timed_out", "exec_failed", "interrupted" (static) */
	int exit_code;            /* -1: null */
	int signal;               /* 0: null */
	int interrupt_signal;     /* abev received it while the command ran; 0: none */
	int64_t wall_ns;
	char *reason;             /* why not ok, or NULL */
	int64_t log_bytes, log_bytes_dropped; /* prepare.log: kept, read past the cap */
};

void invocation_prepare_free(struct invocation_prepare *p);

/* One process abev started. Strings are owned; release with invocation_release(). */
struct invocation {
	unsigned seq;            /* 1-based execution order */
	char *variant;
	int warmup;
	unsigned round;          /* 1-based within the phase */
	unsigned attempt;        /* 1, then 2.. for repeats of a discarded slot */
	enum inv_status status;
	char *reason;            /* one line on why the status is not ok, or NULL */
	char **argv;
	size_t argc;
	char *cwd;
	char *dir;               /* relative to the evidence root: runs/<variant>/<phase>-<round>[-attempt-<k>] */
	char start_utc[40];
	char end_utc[40];
	struct proc_figures fig; /* wall, CPU, peak RSS, faults, switches */
	struct proc_tree procs;  /* each process of the tree (written to result.json, not read back) */
	int exit_code;           /* -1: null */
	int signal;              /* 0: null */
	int core_dumped;
	int timed_out;
	char *exec_error;
	/*
	 * The last lines of stderr.log (at most INVOCATION_STDERR_TAIL_LINES
	 * and _BYTES, valid UTF-8) when the invocation did not pass, for the
	 * decision to say why; NULL when it passed or wrote nothing there.
	 */
	char *stderr_tail;
	struct loadavg load_before, load_after;
	double foreign_cpu;      /* < 0: null */
	double foreign_cpu_resolution; /* < 0: null; how far off foreign_cpu can be */
	double max_foreign_cpu;  /* the threshold it was judged by (0: no limit) */
	int64_t cpu_wait_ns;     /* -1: null; time the child's tree was runnable but not running */
	char *cpu_wait_source;   /* "schedstat", "cgroup", or NULL with cpu_wait_note saying why */
	char *cpu_wait_note;     /* why cpu_wait_ns is null, or what it leaves out; or NULL */
	int64_t tree_wait_ns;    /* -1: null; wall the tree's threads lost waiting (measure/taskdelay.h) */
	int64_t tree_active_ns;  /* -1: null; their sum (cpu + run_delay) */
	int64_t cgroup_cpu_wait_ns; /* -1: null; the cgroup's cpu.pressure "some" during the run */
	double max_cpu_wait_pct; /* the threshold it was judged by */
	int64_t system_cpu_wait_ns; /* -1: null; /proc/pressure/cpu "some" during the run */
	/*
	 * The CPUs the run could use (its cpus, else abev's own) and the CPU
	 * time other processes used on them meanwhile (-1: null); the part of
	 * cpu_wait_ns that foreign work can have caused (sysstat_foreign_wait_ns(),
	 * -1: null) is what the load guard judges.
	 */
	unsigned run_cpus;       /* 0: unknown */
	int64_t foreign_busy_ns;
	/*
	 * The same time in nanoseconds from the scheduler's accounting (-1:
	 * null), and its source ("schedstat", "cpuacct"; NULL: none): ticks
	 * round a run of a few ticks to nothing (measure/sysstat.h).
	 */
	int64_t foreign_busy_fine_ns;
	char *foreign_busy_fine_source;
	int64_t foreign_wait_ns;
	enum foreign_wait_basis foreign_wait_basis;
	char *cpus;              /* the CPU list the child was pinned to, or NULL */
	/*
	 * The wait for a quieter machine before it (pipeline/quiet.h): time
	 * spent, 0 when abev did not wait; and whether it is kept although its
	 * load figures were over the limits (the wait's budget was spent, or
	 * it was the slot's last attempt).
	 */
	int64_t load_wait_ns;
	int loaded;
	unsigned leftovers_killed;
	/* Pauses inside the measured window (proc.h): its figures include them. */
	unsigned stops_abev, stops_child;
	int64_t suspended_ns;
	/* What else ran meanwhile: load.exclusive matches and other abev runs (overlap.h) */
	struct overlap_hit *overlaps;
	size_t noverlaps;
	unsigned overlaps_unnamed; /* past OVERLAP_HITS_MAX */
	/*
	 * test.log [0] and stderr.log [1]: bytes kept, read past
	 * limits.max_log_bytes, and left out between the head and the tail
	 * (limits.log_keep_bytes); and the whole stream's size and SHA-256
	 * (lowercase hex), when recorded (sha256 not empty; older evidence
	 * has neither).
	 */
	char *output;            /* the variant's "output" (plan_output_text()), or NULL: older evidence */
	struct invocation_log {
		int64_t bytes_written, bytes_dropped, bytes_left_out;
		int64_t bytes_total;
		char sha256[SHA256_HEX_LEN + 1];
	} logs[2];
	/*
	 * test.log [0] and stderr.log [1] as a metric read them, or stderr.log
	 * as read for stderr_tail, hashed in that read, for the ledger to hold
	 * each file to the bytes its figures or tail came from (hashed 0: not
	 * read whole). Not written to result.json: the manifest lists those
	 * bytes.
	 */
	struct file_read logs_read[2];
	/*
	 * The .NET runtime figure files (dotnet-<pid>.json) a metric read,
	 * each by its name in dir, hashed in that read, for the ledger to hold
	 * the same way. Not written to result.json.
	 */
	struct file_read_named *dotnet_read;
	size_t ndotnet_read;
	int cgroup_valid;
	int64_t cg_memory_peak_bytes;   /* -1: null */
	int64_t cg_cpu_usage_ns;        /* -1: null */
	char *cgroup_note;       /* why cgroup is null, or why memory_peak is null */
	char *results_files;     /* the expanded results pattern, or NULL */
	int has_tests;           /* results were looked for: tests holds their sum */
	struct results_counts tests;
	struct results_file *results;   /* per file read; path relative to the evidence root */
	size_t nresults, results_alloc;
	char **failed_tests;     /* names of failed and errored tests, at most EVIDENCE_FAILED_TESTS_MAX */
	size_t nfailed_tests;
	size_t failed_tests_omitted; /* failed tests past that cap */
	/*
	 * The same tests, with their outcome as the file writes it ("Failed",
	 * "Timeout", "failure"), the first line of their message ("" when
	 * none) and whether results.known_failures allows them. Evidence
	 * written before abev kept them has none (ntest_failures 0).
	 */
	struct invocation_test_failure {
		char *name, *outcome, *message;
		int known;
	} *test_failures;
	size_t ntest_failures;
	/*
	 * The duration of each executed test the result files give one for
	 * (TRX duration, JUnit time), in the order read: the report's
	 * per-test changes. At most EVIDENCE_TEST_TIMES_MAX; test_times_omitted
	 * counts the rest.
	 */
	struct invocation_test_time {
		char *name;
		double ms;
	} *test_times;
	size_t ntest_times, test_times_alloc, test_times_omitted;
	struct metric_value *metrics;   /* recorded runs only */
	size_t nmetrics;
	struct guard_result *guards;    /* in the order they ran */
	size_t nguards, guards_alloc;
	struct invocation_prepare *prepare; /* the plan's prepare step, or NULL: none */
};

void invocation_release(struct invocation *inv);
/* Keeps a test's duration (ms), or counts it past EVIDENCE_TEST_TIMES_MAX. */
void invocation_add_test_time(struct invocation *inv, const char *name, double ms);
/*
 * cpu_wait_ns as a percentage of wall_ns, to 4 decimals (what result.json
 * records and the load guard judges), or -1 when either is unknown.
 */
double invocation_cpu_wait_pct(const struct invocation *inv);
/* foreign_wait_ns likewise. */
double invocation_foreign_wait_pct(const struct invocation *inv);
/* The cores others kept busy on the run's CPUs (foreign_busy_ns over wall), or -1 when unknown. */
double invocation_foreign_busy_cores(const struct invocation *inv);
/*
 * The wait the load guard judges: invocation_foreign_wait_pct(), or the
 * whole invocation_cpu_wait_pct() when that is unknown; -1 when neither is known.
 */
double invocation_judged_wait_pct(const struct invocation *inv);
const char *invocation_status_name(enum inv_status st);
/*
 * One line on the pauses inside the invocation's window (abev or the
 * child stopped and continued, the machine suspended), or NULL when there
 * were none. Caller frees.
 */
char *invocation_pauses_describe(const struct invocation *inv);

/* Overall status of the top-level result.json. */
enum run_status {
	RUN_RUNNING,      /* abev has not finished (or was killed without a chance to say so) */
	RUN_COMPLETED,
	RUN_FAILED,
	RUN_INTERRUPTED,
};
const char *invocation_run_status_name(enum run_status st);

#endif
