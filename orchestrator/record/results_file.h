/*
 * results_file: what one test-result file said — its format, counts from
 * the results themselves and its own counters, the notes of the
 * cross-check — as the invocation record keeps it. results/ reads the
 * files.
 */
#ifndef ABEV_RESULTS_FILE_H
#define ABEV_RESULTS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

enum results_format { RESULTS_TRX, RESULTS_JUNIT };

struct results_counts {
	int64_t total;     /* leaf results */
	int64_t executed;  /* total minus skipped minus results without an outcome */
	int64_t passed;
	int64_t failed;
	int64_t errors;
	int64_t skipped;
	int64_t other;
};

struct results_file {
	char *path;
	enum results_format format;
	char *outcome;             /* TRX ResultSummary@outcome; NULL for JUnit or when absent */
	/*
	 * TRX: the run was aborted (a crashed test host): the first line of
	 * the RunInfo text that says so, as dotnet wrote it, or "ResultSummary
	 * outcome 'Aborted'" without one; NULL otherwise. Also one of the
	 * notes, which is how the evidence keeps it.
	 */
	char *aborted;
	char *start, *finish;      /* TRX Times@start/@finish; JUnit first testsuite@timestamp (start); NULL if absent */
	struct results_counts counts;    /* from the results themselves */
	int has_declared;
	struct results_counts declared;  /* the file's own counters (TRX Counters; JUnit root or summed top suites), -1 where absent */
	char **notes;              /* cross-check disagreements and oddities, one line each */
	size_t nnotes, notes_alloc;
	/* The SHA-256 and size of the bytes the figures were parsed from, hashed in that read. */
	int hashed;
	unsigned char sha256[SHA256_LEN];
	uint64_t bytes;
};
#define RESULTS_FILE_INIT { 0 }

void results_file_release(struct results_file *f);
const char *results_file_format_name(enum results_format f);   /* "trx", "junit" */
void results_file_counts_add(struct results_counts *sum, const struct results_counts *c);

#endif
