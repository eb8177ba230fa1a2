/*
 * metric_def: what a metric is — its definition as a plan gives it
 * (plan/ parses it, results/metrics.c applies it) and one value an
 * invocation yielded or did not, with the reason — and the one table of
 * the process figures a metric may name. Data, names and release only.
 */
#ifndef ABEV_METRIC_DEF_H
#define ABEV_METRIC_DEF_H

#include <stddef.h>

enum metric_source {
	METRIC_PROCESS,   /* field: wall, user, sys, cpu, max_rss, minflt, majflt, nvcsw, nivcsw */
	METRIC_STDOUT,    /* pattern over test.log */
	METRIC_STDERR,    /* pattern over stderr.log */
	METRIC_RESULTS,   /* pattern over the captured stdout of results whose name matches test */
	METRIC_DURATION,  /* duration of the results whose name matches test */
	METRIC_DOTNET,    /* field: a runtime figure of the .NET processes process selects */
};
/* How many sources there are (enum metric_source counts from 0). */
#define METRIC_SOURCE_COUNT 6
enum metric_match { MATCH_FIRST, MATCH_LAST, MATCH_SUM, MATCH_MEAN };

struct metric_def {
	char *name;             /* unique within the plan */
	char *unit;             /* "ms", "ops/s", ...; for process and duration sources implied and set by plan.c */
	int better_higher;      /* 0: lower is better (default) */
	enum metric_source source;
	char *field;            /* process and dotnet sources only */
	/*
	 * A glob naming processes of the run: process source, max_rss and cpu
	 * only, over the tree's command names (record/proc_tree.h:
	 * proc_tree_matches()), the metric then the largest peak RSS, or the
	 * sum of CPU time, of those it names that started none it names
	 * (proc_tree_starts_named()) (NULL: the whole tree as wait4()
	 * gives it); dotnet source, over the .NET processes' names (NULL:
	 * every one).
	 */
	char *process;
	char *test;             /* fnmatch glob over test names (results, duration); NULL otherwise */
	char *pattern;          /* ERE with one capture group (stdout, stderr, results) */
	enum metric_match match;/* default first */
	int derive_rate;        /* "derive": "rate" */
	double max_regression_pct; /* < 0: none */
	double max_improvement_pct;/* < 0: none */
	int has_budget;
	double budget;          /* absolute limit on a candidate's median, in unit */
};

/* One extracted value. */
struct metric_value {
	char *name;             /* the def's name, or "<name> (rate)" for a derived rate */
	char *unit;
	int better_higher;
	double max_regression_pct;
	int ok;                 /* 0: not yielded; why says why */
	double value;
	char *why;
	/*
	 * Not yielded because its test glob matched no test name read, while
	 * this many names near it were (0: none near, or another reason):
	 * the case of a typo, which no further run will mend.
	 */
	int no_test;
	size_t near_names;
};

void metric_def_values_free(struct metric_value *v, size_t n);

/*
 * The figures a process metric may name, the one table of them: field i
 * (< METRIC_PROCESS_FIELDS) is called metric_def_field_name(i) and comes in
 * metric_def_field_unit(i) ("ms", "bytes", "count"); both NULL past the end.
 * metric_def_field_index() is the i of a name, or -1 (also for NULL).
 */
enum metric_field {
	METRIC_FIELD_WALL, METRIC_FIELD_USER, METRIC_FIELD_SYS, METRIC_FIELD_CPU,
	METRIC_FIELD_MAX_RSS, METRIC_FIELD_MINFLT, METRIC_FIELD_MAJFLT, METRIC_FIELD_NVCSW,
	METRIC_FIELD_NIVCSW,
	METRIC_PROCESS_FIELDS
};
const char *metric_def_field_name(size_t i);
const char *metric_def_field_unit(size_t i);
int metric_def_field_index(const char *name);

/* Names for the enums, as written in plans. */
const char *metric_def_source_name(enum metric_source s);
const char *metric_def_match_name(enum metric_match m);

#endif
