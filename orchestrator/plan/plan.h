/*
 * plan: reads and validates an abev plan (JSON, schema "abev.plan/1", and
 * optionally a pipe-separated variants file) into plain structs (plan.c),
 * and expands the placeholders of command, env and pattern templates
 * (plan_expand.c).
 * It does not run anything and does not decide the order of runs
 * (schedule.c does).
 *
 * Every error names the file and the JSON path (`variants[1].command`) or
 * the line, and says what was expected; unknown keys are errors.
 */
#ifndef ABEV_PLAN_H
#define ABEV_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "record/gate_def.h"
#include "record/run_settings.h"
#include "results/metrics.h"

struct env_array;
struct errlist;

/* A plan file larger than this is refused. */
#define PLAN_MAX_BYTES (4u << 20)
/* Variant names: util/name_rule.h's rule, as a path component (not starting with '.'). */
/* Metric names: any characters but control characters, at most this long. */
#define PLAN_METRIC_NAME_MAX 128
/* The plan's name: any characters but control characters, at most this long. */
#define PLAN_NAME_TEXT_MAX 256
#define PLAN_MAX_METRICS 1000
/* Most rounds of schedule.warmups, runs, min_rounds and max_rounds. */
#define PLAN_MAX_ROUNDS 1000000
/*
 * schedule.max_rounds of a plan that gives a gate and no runs, and so
 * runs until "decided" by default: the looks at 95 % are then 8, 12, 18,
 * 27 and 32, each at 99 %.
 */
#define PLAN_DECIDED_MAX_ROUNDS 32
/* The most looks of schedule.until "decided". */
#define PLAN_MAX_LOOKS 64


/*
 * The order of a plan that names none: every variant runs in every slot of
 * a round equally often, so a machine drifting in time slows each alike.
 */
#define PLAN_ORDER_DEFAULT RUN_ORDER_BALANCED
/* The orders' names as messages list them. */
#define PLAN_ORDER_LIST "balanced, alternate, reverse, shuffle, sequential"

struct plan_env {
	char *key;
	char *value; /* template: may hold placeholders */
};

/*
 * "output": where a variant's command prints, hyperfine's --output. The
 * default records both streams in the run's logs (head and tail kept,
 * the whole hashed); the others are for a fair comparison with a command
 * that behaves differently on a pipe, a terminal or /dev/null.
 */
enum plan_output {
	PLAN_OUTPUT_LOG,      /* "log": test.log and stderr.log */
	PLAN_OUTPUT_NULL,     /* "null": /dev/null, nothing recorded */
	PLAN_OUTPUT_PIPE,     /* "pipe": read through pipes, discarded; size and SHA-256 kept */
	PLAN_OUTPUT_INHERIT,  /* "inherit": abev's own stdout and stderr */
	PLAN_OUTPUT_FILE,     /* a path with a '/': stdout whole to it, stderr as with "log" */
};

struct plan_variant {
	char *name;
	char *cwd;             /* absolute (relative cwd resolved against the plan's directory),
	                          canonical where it exists; plan_check() asks whether it does */
	char **command;        /* templates; command_len >= 1 */
	size_t command_len, command_alloc;
	struct plan_env *env;  /* the plan's additions, in file order */
	size_t env_len, env_alloc;
	/*
	 * "parameters": the scan values the variant was made with (abev bench
	 * -L/-P), name and value as text in file order, key and value taken
	 * literally (no placeholders). Recorded and exported; they change
	 * nothing in the run. NULL and 0 when there are none.
	 */
	struct plan_env *parameters;
	size_t parameters_len;
	char **assemblies;     /* glob templates ({variant} only), matched by metadata.c */
	size_t assemblies_len;
	char *cpus;            /* "cpus": canonical CPU list the variant is pinned to (its own,
	                          else schedule.cpus), or NULL: wherever abev may run */
	char **prepare;        /* "prepare": argv templates run before each of the variant's
	                          invocations, not measured (its own, else schedule.prepare);
	                          NULL and 0 when there is none */
	size_t prepare_len;
	char **setup, **cleanup; /* "setup", "cleanup": argv templates run once, before the
	                          variant's first invocation and after its last, not
	                          measured (its own, else the schedule's); NULL: none */
	size_t setup_len, cleanup_len;
	enum plan_output output;
	char *output_file;     /* PLAN_OUTPUT_FILE: absolute (relative to the plan's directory) */
	size_t listed_at;      /* its index in the plan's "variants" (a listed one), which
	                          messages name; 0 for one from the variants file */
};

/*
 * A gate on one metric: from a metric's own max_regression_pct,
 * max_improvement_pct or budget, or from the top-level "gates" object,
 * which also reaches the built-in wall, cpu and max_rss and derived rates.
 */
struct plan_gate {
	char *metric;
	enum gate_kind kind;
	double limit;
};

/* A command whose output records a tool's version, e.g. ["dotnet", "--version"]. */
struct plan_version {
	char *name;            /* [A-Za-z0-9._-], 1 to NAME_RULE_MAX characters */
	char **argv;           /* taken literally (no placeholders); argc >= 1, argv[0] non-empty */
	size_t argc;
};
/* At most this many entries in "versions". */
#define PLAN_MAX_VERSIONS 32

struct plan {
	char *path;            /* as given on the command line */
	char *dir;             /* absolute directory holding the plan */
	char *raw;             /* the plan file's exact bytes (copied to plan.json) */
	size_t raw_len;
	char *name;
	char *description;     /* or NULL */
	struct plan_variant *variants;
	size_t nvariants, variants_alloc;
	size_t nlisted;        /* variants[0..nlisted) come from "variants", the rest from the file */
	char *variants_file;   /* absolute path, or NULL */

	/*
	 * The schedule and the load limits the run records in result.json
	 * (run_settings.h): order (default PLAN_ORDER_DEFAULT), seed, warmups,
	 * runs, gap, timeout, step timeout (default PLAN_STEP_TIMEOUT_DEFAULT,
	 * or the timeout), cpus; max_cpu_wait_pct (default
	 * PLAN_MAX_CPU_WAIT_PCT_DEFAULT), max_foreign_cpu, max_repeats,
	 * max_wait_seconds (default PLAN_MAX_WAIT_SECONDS_DEFAULT), exclusive.
	 */
	struct run_settings set;

	/* the rest of the schedule */
	/*
	 * schedule.until "decided": rounds are added until every gate is
	 * decided or max_rounds is reached. The gates are looked at after the
	 * rounds in looks[] (ascending, the last is max_rounds), each at
	 * look_confidence = 1 - (1 - confidence) / nlooks, so that the chance
	 * of a wrong pass or fail over all the looks stays within 1 -
	 * confidence (Bonferroni).
	 */
	int until_decided;
	unsigned min_rounds, max_rounds;
	unsigned *looks;
	size_t nlooks;
	int looks_from_plan;   /* schedule.looks was given (else the default sequence) */
	double look_confidence;    /* 1 - (1 - confidence) / nlooks */
	/*
	 * set.order_from is PLAN_ORDER_FROM_SETUPS when the plan named no
	 * order and the setups of variants order_pair[0] and order_pair[1]
	 * may collide (plan_setups_collision()), so each variant runs after
	 * its own setup.
	 */
	size_t order_pair[2];
	double kill_grace_seconds; /* default 5: SIGTERM -> SIGKILL */
	char *run_as;          /* run_as (or --run-as): the user every command runs as, or NULL */
	const char *run_as_from; /* "plan" or "--run-as" (static), NULL without run_as */
	int dotnet_runtime;    /* dotnet_runtime: abev's startup hook goes into every run's .NET processes */
	char **prepare;        /* schedule.prepare (templates), or NULL; see plan_variant.prepare */
	size_t prepare_len;
	char **setup, **cleanup; /* schedule.setup, schedule.cleanup, or NULL; see plan_variant */
	size_t setup_len, cleanup_len;

	/* results */
	char *results_files;   /* template or NULL */
	int64_t min_executed;  /* default 1 with results.files; -1 without (then never given) */
	/*
	 * results.known_failures: fnmatch(3) patterns of test names (class and
	 * method, as result.json names tests) allowed to fail; a failed test
	 * no pattern matches fails its run's tests_passed guard.
	 */
	char **known_failures;
	size_t nknown_failures, known_failures_alloc;

	/*
	 * The plan's metrics in file order, validated: patterns compile and
	 * have a capture group, and the implied units of the process and
	 * duration sources are filled in. NULL and 0 when absent.
	 */
	struct metric_def *metrics;
	size_t nmetrics;

	/* Exit codes that do not fail an invocation: 0..255, distinct, at least one; default { 0 }. */
	int *allowed_exit_codes;
	size_t nallowed_exit_codes;

	/*
	 * The plan's "versions" commands in file order, run in each variant's
	 * cwd and environment when metadata is collected. NULL and 0 when absent.
	 */
	struct plan_version *versions;
	size_t nversions;

	/* comparison and decision */
	size_t reference;      /* index of the reference variant; default 0 (the first) */
	struct plan_gate *gates;
	size_t ngates, gates_alloc;
	int acceptance;        /* decision.acceptance: the plan is an acceptance plan */
	int inconclusive_fails;/* decision.inconclusive: "fail" (exit 6, default) or "pass" */
	double confidence;     /* decision.confidence, default COMPARE_CONFIDENCE */
	unsigned resamples;    /* decision.bootstrap_resamples, default COMPARE_RESAMPLES */

	/* report.template: the plan's own report template, read at load, syntax checked */
	char *report_template;  /* its bytes, or NULL for abev's own */
	char *report_template_path; /* absolute, or NULL */
	size_t report_template_len;

	/* limits */
	unsigned max_files;    /* limits.max_files: entries (files, directories, ...) a run may
	                          leave in its directory;
	                          1..PLAN_MAX_FILES_CEILING, default PLAN_MAX_FILES_DEFAULT */
	double pattern_cpu_seconds; /* limits.pattern_cpu_seconds: > 0, <= 3600;
	                               default METRICS_PATTERN_CPU_SECONDS_DEFAULT */
	int64_t max_run_bytes; /* limits.max_run_bytes: bytes (st_size) of the files a run may
	                          leave in its directory, its logs not counted; >= 0,
	                          default PLAN_MAX_RUN_BYTES_DEFAULT */
	int64_t max_log_bytes; /* limits.max_log_bytes: bytes kept of each of test.log and
	                          stderr.log; >= 0, default PLAN_MAX_LOG_BYTES_DEFAULT */
	int64_t log_keep_bytes; /* limits.log_keep_bytes: bytes kept of each stream's start
	                           and of its end; 0: the whole stream; default
	                           PLAN_LOG_KEEP_BYTES_DEFAULT */
	int64_t max_step_log_bytes; /* limits.max_step_log_bytes: bytes kept of a prepare,
	                               setup or cleanup command's output */

	/*
	 * A partial plan (plan_load_partial()) whose "schedule" was refused in
	 * part: whether a variant without a prepare of its own is prepared is
	 * not known.
	 */
	int prepare_unknown;
};

/* Longest load.exclusive pattern. */
#define PLAN_EXCLUSIVE_PATTERN_MAX 256
/* Longest results.known_failures pattern (test names are cut at 4096 bytes). */
#define PLAN_TEST_PATTERN_MAX 4096

/*
 * load.max_cpu_wait_pct by default: a recorded run whose processes waited
 * for a CPU more than this share of its wall time is discarded. Measured
 * on a 2-core host (docs/plan.md, "Contention"): a single-threaded run beside a busy
 * loop on the other core waits about 1 %, one sharing the busy loop's core
 * about 50 %.
 */
#define PLAN_MAX_CPU_WAIT_PCT_DEFAULT 10.0

/*
 * schedule.step_timeout_seconds when the plan sets neither it nor
 * schedule.timeout_seconds: an hour, so that a setup, cleanup or prepare
 * step that hangs (a build waiting on a lock) ends. The measured command
 * has no such default: a test suite may run long.
 */
#define PLAN_STEP_TIMEOUT_DEFAULT 3600.0

/*
 * load.max_wait_seconds by default: what one run of a plan may spend in
 * all waiting for a quieter machine before recorded runs (pipeline/quiet.h).
 * A minute: a build or a test job beside it often ends within one, and a
 * machine busy for longer is busy for good — the runs then go ahead
 * under load, kept and marked.
 */
#define PLAN_MAX_WAIT_SECONDS_DEFAULT 60.0

/*
 * limits.max_files. The ceiling is what one evidence directory may hold
 * in all (EVIDENCE_MAX_FILES is ten times it); the default leaves room for a
 * hundred runs at the limit.
 */
#define PLAN_MAX_FILES_DEFAULT 10000
#define PLAN_MAX_FILES_CEILING 100000
/*
 * limits.max_log_bytes. Past it abev keeps reading the child's stream
 * (the child never blocks) but writes no more of it.
 */
#define PLAN_MAX_LOG_BYTES_DEFAULT (256LL * 1024 * 1024)
/*
 * limits.log_keep_bytes: a log keeps the first and the last this many
 * bytes of its stream and one line for the middle left out, so that the
 * evidence of a chatty command stays small and still shows how its output
 * began and ended. The tail is held in memory, hence the ceiling.
 */
#define PLAN_LOG_KEEP_BYTES_DEFAULT (8LL * 1024)
#define PLAN_LOG_KEEP_BYTES_CEILING (64LL * 1024 * 1024)
/*
 * limits.max_step_log_bytes: a prepare, setup or cleanup command's
 * output is held in memory before it is written, hence the ceiling.
 */
#define PLAN_MAX_STEP_LOG_BYTES_DEFAULT (1024LL * 1024)
#define PLAN_MAX_STEP_LOG_BYTES_CEILING (256LL * 1024 * 1024)
/*
 * limits.max_run_bytes: bounds what is hashed and sealed of one run
 * before a byte of it is read — by apparent size, so that a sparse file
 * of a terabyte that takes no disk still counts as the terabyte hashing
 * would read. A gibibyte: far above a test run's result files.
 */
#define PLAN_MAX_RUN_BYTES_DEFAULT (1024LL * 1024 * 1024)

#define PLAN_INIT { 0 }

/*
 * Reads and validates the plan at path. On error prints every problem
 * found (at most ERRLIST_KEEP, then how many more), each one line through
 * error() ("<file>: <json path>: <what was expected>"), and returns -1;
 * the plan is then released. A JSON syntax error is one line with the
 * line and column. Whether cwd, programs and files exist is plan_check()'s
 * business, not this one's. On success the plan owns all its strings
 * until plan_release().
 */
int plan_load(struct plan *plan, const char *path);
/*
 * plan_load() that goes on past the plan's errors, so that one pass can
 * also name what the plan names on this machine: each problem is added to
 * errors (the caller reports them; a file that cannot be read, or is no
 * JSON, is said at once through error()). Returns 0 for a whole plan, or
 * -1 when it has errors: the plan is then partial, holding only what was
 * read without one — the variants whose own keys were all valid (the
 * others left out), no refused run_as or results.files; nothing when the
 * file could not be read — for plan_check() to look at. A partial plan is
 * never run; it is the caller's to release either way.
 */
int plan_load_partial(struct plan *plan, const char *path, struct errlist *errors);
/*
 * The default looks of schedule.until "decided" at confidence conf (the
 * decision's, over all the looks) into looks (room for PLAN_MAX_LOOKS):
 * from the first round at which the paired interval reaches the per-look
 * confidence 1 - (1 - conf) / looks, and at least min_rounds, then half
 * as many again (at least 2 more) each time, and max_rounds last — 8, 12,
 * 18, 27, 32 for 0.95 and 32 rounds. That first look depends on how many
 * looks there are: a few passes settle it. Returns how many.
 */
size_t plan_default_looks(double conf, unsigned min_rounds, unsigned max_rounds,
			  unsigned *looks);
/*
 * plan_load() for a plan held in memory (abev bench builds one): path
 * names it in messages and its directory is what relative paths in it
 * resolve against; the len bytes of text (which need not end in a NUL
 * and must hold none) become the plan's raw bytes.
 */
int plan_parse(struct plan *plan, const char *path, const char *text, size_t len);
/* plan_load_partial() for a plan held in memory, as plan_parse(). */
int plan_parse_partial(struct plan *plan, const char *path, const char *text, size_t len,
		       struct errlist *errors);
void plan_release(struct plan *plan);

/* plan.set.order_from when abev chose "sequential" because the setups may collide. */
#define PLAN_ORDER_FROM_SETUPS "setups"
/*
 * The first pair of variants (a < b) whose setups may overwrite each
 * other's products into *a, *b: 1, or 0 when none does. Two setups
 * collide when both variants have one, their command lines differ once
 * their placeholders are expanded ({variant} and {run_dir} differ
 * between variants), and both run in the same cwd. Identical setups do
 * not collide: whichever runs last leaves what every variant expects.
 */
int plan_setups_collision(const struct plan *plan, size_t *a, size_t *b);

/*
 * A variant's "output" as the plan and the evidence write it: "log",
 * "null", "pipe", "inherit" or its file (absolute). Borrowed from v.
 */
const char *plan_output_text(const struct plan_variant *v);

/* Non-zero when exit code code is one of plan->allowed_exit_codes. */
int plan_exit_code_allowed(const struct plan *plan, int code);

/* The values placeholders expand to. All borrowed. */
struct plan_vars {
	const char *run_dir;  /* {run_dir}: absolute invocation directory */
	const char *variant;  /* {variant} */
	const char *phase;    /* {phase}: "warmup" or "run" */
	unsigned round;       /* {round}: 1-based within the phase */
};

/*
 * Expands {run_dir}, {variant}, {phase}, {round} in tmpl; "{{" and "}}"
 * stand for literal braces. Returns a new string (caller frees), or NULL
 * after error() for an unknown placeholder or an unbalanced brace — which
 * plan_load() already rejects, so NULL here means a caller bug.
 */
char *plan_expand(const char *tmpl, const struct plan_vars *vars);

/*
 * The environment of a variant's processes: abev's own, then the plan's
 * env with placeholders expanded from vars, in file order, added to env
 * (ENV_ARRAY_INIT at first; util/env.h). Caller frees env->v with
 * strv_free().
 */
void plan_variant_env(const struct plan_variant *v, const struct plan_vars *vars,
		      struct env_array *env);

/* Which placeholders a template may use: bit i for {run_dir}, {variant}, {phase}, {round}. */
#define PLAN_PH_ALL 0xfu
/* Assemblies are matched before the first run, when only the variant is known. */
#define PLAN_PH_VARIANT 0x2u
/* Not a placeholder: the template is a secret-looking value, and a reason quotes none of it. */
#define PLAN_PH_SECRET 0x10u

/* plan_check_template() for a template that may use only the allowed placeholders. */
int plan_template_check(const char *tmpl, unsigned allowed, char *why, size_t why_len);

/*
 * Checks a template without expanding it. Returns 0, or -1 and writes a
 * reason ("unknown placeholder '{foo}'") into why (at most why_len bytes).
 */
int plan_check_template(const char *tmpl, char *why, size_t why_len);

#endif
