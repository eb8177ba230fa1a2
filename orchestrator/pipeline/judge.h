/*
 * judge: decides whether an invocation that ran counts. After the runner
 * has measured a process, the judge gathers the result files the plan's
 * results.files pattern names (copying into the invocation's directory
 * those written elsewhere), reads them, extracts the plan's metrics, and
 * runs the guards — exit_code, min_executed, metrics, test_set — filling
 * the invocation's tests, results, metrics and guards and turning its
 * status to failed when a guard does not pass. It also holds what the run
 * left in its directory to the plan's limits.max_files, directories
 * counted (failing the invocation past it), removes the directories it
 * left empty, and applies the load guard (judge_load()), which discards a
 * run that would otherwise count. Repeating a discarded slot is the
 * runner's; links and odd names left by the run are evname_tidy()'s.
 */
#ifndef ABEV_JUDGE_H
#define ABEV_JUDGE_H

#include "record/invocation.h"
#include "plan/plan.h"

struct judge;
struct dirat;

/* The plan is borrowed for the judge's life. NULL with *err (caller frees) on failure. */
struct judge *judge_new(const struct plan *plan, char **err);
void judge_free(struct judge *j);

/*
 * Notes which files inv's results pattern already matches before its
 * process starts (inv->results_files and inv->cwd must be set). After the
 * run, a file that is still there unchanged — same inode, size and
 * modification and change times — was not written by this invocation and
 * is ignored as stale, so a results folder shared between runs is not
 * counted twice. Comparing against a snapshot rather than against the
 * start time keeps this exact whatever the file system's clock granularity.
 */
void judge_before(struct judge *j, const struct invocation *inv);

/* Receives run-level notes (ownership passes to the callee). */
typedef void (*judge_note_fn)(void *ctx, char *note);

/*
 * For an invocation that is not judged (interrupted): holds what it left
 * in its directory to limits.max_files, and removes the directories it
 * left empty, as judge_invocation() does, so that the evidence can still
 * be sealed; the notes name what was removed and inv->reason says why.
 */
void judge_limit_files(struct judge *j, struct invocation *inv, const struct dirat *root,
		       judge_note_fn note, void *ctx);

/*
 * Judges inv, whose process figures and status are set (status INV_OK
 * for any process that exited, whatever its code). root is the evidence
 * directory. Stale result files (see judge_before()) are ignored with a note;
 * so is a match that is not a regular file reached without a link (a
 * symlink, FIFO, device or socket: never opened), and a file matched
 * again under another name (same device and inode). Entries past
 * limits.max_files (files, directories, anything else) are removed
 * before any result file is read, and the invocation fails with the count
 * and the limit; then directories left empty are removed, with a note.
 */
void judge_invocation(struct judge *j, struct invocation *inv, const struct dirat *root,
		      judge_note_fn note, void *ctx);

/*
 * Applies the load guard to inv once it is judged: a recorded run that
 * would otherwise count (compare_counts()) gets a load guard result, and
 * when that fails, status INV_DISCARDED with the guard's reason and
 * whether the slot is repeated (attempt, 1-based, against the plan's
 * max_repeats). keep_loaded (borrowed, or NULL): why a run whose load
 * figures alone are over the limits is kept all the same; it then passes,
 * marked loaded. Returns 1 when inv is discarded, 0 when it stands.
 */
int judge_load(struct judge *j, struct invocation *inv, unsigned attempt,
	       const char *keep_loaded);

#endif
