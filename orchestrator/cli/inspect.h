/*
 * inspect: the verbs that read test-result files outside a run —
 * `abev results FILE...` (counts per file and in total, as a table or as
 * an abev.results/1 document; or, with --list, every test as metrics see
 * its name) and `abev guard min-executed`. It parses
 * through results.c, judges through guards/, and leaves exit codes to
 * main.c.
 */
#ifndef ABEV_INSPECT_H
#define ABEV_INSPECT_H

#include <stdint.h>

enum inspect_outcome {
	INSPECT_OK,          /* every file read; the guard (if any) passed */
	INSPECT_GUARD_FAILED,/* every file read; the guard failed */
	INSPECT_REFUSED,     /* a file could not be read or was refused */
};

struct inspect_options {
	int json;              /* print the abev.results/1 document */
	int64_t min_executed;  /* < 0: no guard */
	int guard_only;        /* print only the guard's verdict line */
	int list;              /* print every test instead of the counts (not with json) */
};

enum inspect_outcome inspect_results(const char *const *paths, int npaths,
				     const struct inspect_options *opt);

#endif
