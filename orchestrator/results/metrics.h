/*
 * metrics: the numbers a comparison is about, taken from what a run
 * produced — its process figures, its stdout or stderr, the captured
 * stdout of individual test results, a test's own duration, or the
 * runtime figures of its .NET processes (dotnet_runtime.h) — by the
 * plan's metric definitions. POSIX extended regular expressions over the
 * text, METRICS_WINDOW bytes at a time (so a match may span lines, up to
 * half a window), within a CPU budget and a memory cap; the first capture group is the
 * number. A metric an invocation does not yield is reported with the
 * reason, never as a silent zero.
 *
 * Definitions are parsed by plan.c into struct metric_def; this module
 * compiles and applies them. It does not run processes or write files.
 */
#ifndef ABEV_METRICS_H
#define ABEV_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "record/file_read.h"
#include "record/metric_def.h"
#include "record/proc_figures.h"
#include "record/proc_tree.h"


/* What one invocation produced, as metrics see it. All borrowed. */
struct metric_test {
	const char *name;         /* qualified (results.h's test_case.name) */
	double duration_s;      /* < 0: not given */
	const char *stdout_text;
	size_t stdout_len;
	const char *written_name; /* as the file writes it, or NULL: the same */
};
struct dirat;
struct metric_inputs {
	/*
	 * When dir is set, the two paths are names beneath it, opened through
	 * it without following any link (a run cannot redirect abev's read
	 * to a file elsewhere); else plain paths, not followed at their last
	 * component.
	 */
	const struct dirat *dir;
	const char *stdout_path;   /* test.log */
	const char *stderr_path;   /* stderr.log */
	const char *run_dir;       /* the run directory, for dotnet metrics (dotnet_runtime.h) */
	struct proc_figures fig;
	const struct proc_tree *procs;    /* each process of the tree, for "process" globs; may be NULL */
	const struct metric_test *tests;  /* the results tests that match some metric's test glob */
	size_t ntests;
	/* Every test name read (duplicates allowed), for the nearest names when a glob matches none. */
	const char *const *test_names;
	size_t ntest_names;
	double pattern_cpu_seconds;  /* per metric and invocation; 0: the default */
	size_t pattern_memory_bytes; /* per metric and text; 0: the default */
	/*
	 * When set, metrics_extract() puts in reads[0] (stdout_path) and
	 * reads[1] (stderr_path) the SHA-256 and size of the bytes it matched
	 * the patterns against, hashed in the read they come from; a text no
	 * metric read, or one not read whole, is left with hashed 0.
	 */
	struct file_read *reads;
	/*
	 * When set, metrics_extract() puts in *dotnet_reads (caller frees;
	 * NULL when none) and *ndotnet_reads the .NET runtime figure files a
	 * metric read, each by its name in run_dir, hashed in the read its
	 * figures come from (dotnet_runtime.h: dotnet_rt_proc.file).
	 */
	struct file_read_named **dotnet_reads;
	size_t *ndotnet_reads;
};


/* Compiled definitions. */
struct metric_set;

/*
 * Compiles defs (borrowed; must outlive the set). Returns NULL with *err
 * set (caller frees) naming the metric and what is wrong with its pattern.
 */
struct metric_set *metrics_compile(const struct metric_def *defs, size_t ndefs, char **err);
void metrics_free(struct metric_set *set);
/*
 * Why pattern may not be used although regcomp() takes it, or NULL: a
 * back-reference (\1 .. \9, a GNU extension to EREs) makes matching time
 * unbounded, even within a window.
 */
const char *metrics_pattern_problem(const char *pattern);
/*
 * Non-zero when a test is wanted by some results/duration metric: its
 * test glob matches the qualified name or the name as the file writes it
 * (written, may be NULL), so that a glob written for NUnit's bare method
 * names before tests were named by class still matches.
 */
int metrics_wants_test(const struct metric_set *set, const char *name, const char *written);
/*
 * Extracts every metric (and derived rate) into *out (caller frees with
 * metric_def_values_free), in definition order. Text files are read up to
 * METRICS_MAX_TEXT bytes; a larger file yields "not yielded" with the reason.
 */
#define METRICS_MAX_TEXT (256u << 20)
/*
 * A pattern sees at most METRICS_WINDOW bytes of text per regexec() call,
 * and one metric's pattern may spend at most in->pattern_cpu_seconds of
 * CPU time (METRICS_PATTERN_CPU_SECONDS_DEFAULT when 0) on one
 * invocation: past it the metric is not yielded, with the reason.
 */
#define METRICS_WINDOW (8u << 10)
#define METRICS_PATTERN_CPU_SECONDS_DEFAULT 10.0
/*
 * Matching one text may grow abev's address space by at most
 * in->pattern_memory_bytes (METRICS_PATTERN_MEMORY_DEFAULT when 0): past
 * it the metric is not yielded, with the reason. The cap is abev's own
 * RLIMIT_AS, lowered around each regexec() call: the caller runs no other
 * thread meanwhile.
 */
#define METRICS_PATTERN_MEMORY_DEFAULT ((size_t)256 << 20)
void metrics_extract(const struct metric_set *set, const struct metric_inputs *in,
		     struct metric_value **out, size_t *nout);
/*
 * The metrics defs yield, in the order metrics_extract() gives them,
 * without values: name, unit and direction of each, derived rates
 * included (ok = 0). Caller frees with metric_def_values_free().
 */
void metrics_defs_outputs(const struct metric_def *defs, size_t ndefs, struct metric_value **out,
			  size_t *nout);



#endif
