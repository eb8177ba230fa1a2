/*
 * progress: what a person watching `abev run` sees. On a terminal one
 * live line (invocation i of N, variant, phase, elapsed, the gap
 * countdown, an ETA) redrawn in place; elsewhere one line per finished
 * invocation; in quiet mode nothing. Everything goes to stderr, so that
 * stdout carries only the final summary.
 */
#ifndef ABEV_PROGRESS_H
#define ABEV_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "evidence.h"

enum progress_mode { PROGRESS_QUIET, PROGRESS_LINES, PROGRESS_LIVE };

struct progress {
	enum progress_mode mode;
	size_t total;          /* invocations planned, grows with repeats */
	size_t done;
	int64_t run_ns_sum;    /* wall time of finished invocations */
	double gap_seconds;
	/* the invocation in flight */
	size_t index;
	const char *variant;
	int warmup;
	unsigned round, attempt;
	int line_dirty;        /* a live line is on screen */
};

void progress_init(struct progress *p, enum progress_mode mode, size_t total, double gap_seconds);
void progress_start(struct progress *p, size_t index, const char *variant, int warmup,
		    unsigned round, unsigned attempt);
/* Called while the child runs. */
void progress_tick(struct progress *p, int64_t elapsed_ns);
/* Called while waiting out the gap; remaining_ns counts down. */
void progress_gap(struct progress *p, int64_t remaining_ns);
void progress_done(struct progress *p, const struct invocation *inv);
/* Clears the live line before other output. */
void progress_clear(struct progress *p);

#endif
