/*
 * results: streaming readers of the test-result files a run writes —
 * VSTest TRX and JUnit XML in their common dialects, told apart by the
 * root element — through libxml2's SAX2 push parser, in memory bounded by
 * the limits whatever the file's size. Counts come from the results
 * themselves (leaf rows of data-driven tests, not their parents); the
 * file's own counters are kept as a cross-check and every disagreement is
 * noted. Each leaf test is handed to a callback as it is read, so callers
 * keep only what they need. A TRX file that can be read twice is: first
 * for the classes of its test definitions, which the vstest logger writes
 * after the results, then for the results (see test_case.name).
 *
 * Hostile input is refused with a one-line reason naming the file and the
 * line: a DOCTYPE (so no external entity, external DTD or entity loop is
 * ever expanded), non-XML, bytes XML does not allow, an unknown root,
 * excessive depth, a tag over 256 KiB or with over 4096 attributes, a CDATA
 * section or comment over 8 MiB, an oversize file. It prints nothing: the
 * caller decides how to report.
 */
#ifndef ABEV_RESULTS_H
#define ABEV_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "record/results_file.h"

enum test_outcome {
	OUTCOME_PASSED,
	OUTCOME_FAILED,   /* an assertion failed (TRX Failed; JUnit <failure>) */
	OUTCOME_ERROR,    /* TRX Error/Timeout/Aborted or no outcome at all; JUnit <error> */
	OUTCOME_SKIPPED,  /* not executed: TRX NotExecuted/NotRunnable/Pending/InProgress; JUnit skipped/disabled/notrun */
	OUTCOME_OTHER,    /* executed, neither passed nor failed: Inconclusive, Warning, PassedButRunAborted, ... */
};


/* One leaf test as read; every pointer is borrowed for the callback's duration. */
struct test_case {
	/*
	 * The test's identity: its class and its name, "Namespace.Class.Method"
	 * (+ the data row's arguments), alike for every framework — TRX
	 * TestMethod@className (without its ", Assembly") joined to testName
	 * through testId, JUnit classname and name; the name alone when the
	 * file gives no class or the name already starts with it.
	 */
	const char *name;
	const char *written_name;  /* the name as the file writes it: TRX testName, JUnit name */
	const char *outcome_raw;   /* as written ("Passed", "NotExecuted", "failure"), NULL if absent */
	enum test_outcome outcome;
	int executed;
	double duration_s;         /* < 0: not given */
	const char *stdout_text;   /* captured stdout (TRX Output/StdOut, JUnit system-out), "" if none */
	size_t stdout_len;
	int stdout_truncated;      /* the capture hit limits.max_stdout */
	const char *parent;        /* name of the data-driven parent, or NULL */
	/*
	 * A failed, errored or other test's message: the first line with text
	 * of TRX ErrorInfo/Message, or of JUnit failure/error's message
	 * attribute (its text without one) — and where that line is only
	 * MSTest 4's header ("Assertion failed."), the lines after it too —
	 * one printable line of at most RESULTS_MESSAGE_MAX bytes (+ "..."
	 * when cut); "" when none is given or the test passed or did not run.
	 */
	const char *message;
};
#define RESULTS_MESSAGE_MAX 200

/* Returns 0 to go on, non-zero to stop reading (the parse then fails with "stopped"). */
typedef int (*results_test_fn)(void *ctx, const struct test_case *tc);

struct results_limits {
	uint64_t max_bytes;        /* larger files are refused */
	size_t max_stdout;         /* captured stdout per test */
	unsigned max_depth;        /* element nesting */
	size_t max_name;           /* a longer test name is truncated (and noted) */
	int sha256;                /* also hash the bytes the figures come from (out->sha256) */
};
#define RESULTS_MAX_BYTES_DEFAULT (1024ull << 20)
#define RESULTS_LIMITS_DEFAULT { RESULTS_MAX_BYTES_DEFAULT, 64 * 1024, 64, 4096, 0 }


/*
 * Reads the file at path (a regular file or a FIFO; at most
 * limits->max_bytes bytes) and fills *out (overwritten, not released
 * first), calling fn (may be NULL) for each leaf test in document order.
 * Returns 0, or -1 with *err set to one line "<path>:<line>: <reason>"
 * (or "<path>: <reason>" for the file as a whole: its size, no content)
 * (caller frees); *out is then released. fn may already have been called
 * for tests read before a failure: a caller that keeps what fn gives must
 * drop it when the parse fails.
 */
int results_parse(const char *path, const struct results_limits *limits, results_test_fn fn,
		  void *ctx, struct results_file *out, char **err);
/*
 * As results_parse(), from fd (borrowed: read from its current offset,
 * not closed), which must be a regular file within limits->max_bytes:
 * for callers that have opened the file themselves, with checks of their
 * own (judge.c: no links, no FIFOs). path only names the file.
 */
int results_parse_fd(int fd, const char *path, const struct results_limits *limits,
		     results_test_fn fn, void *ctx, struct results_file *out, char **err);

const char *results_outcome_name(enum test_outcome o);        /* "passed", "failed", "error", "skipped", "other" */

#endif
