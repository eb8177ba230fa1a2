/*
 * progress: what a person watching `abev run` sees. On a terminal one
 * live line (invocation i of N, variant, phase, elapsed, the gap
 * countdown, the running median wall time of the variant's counted runs
 * with their number, an ETA) redrawn in place; elsewhere one line per finished
 * invocation; in quiet mode nothing. Everything goes to stderr, so that
 * stdout carries only the final summary.
 */
#ifndef ABEV_PROGRESS_H
#define ABEV_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "record/invocation.h"

struct strbuf;

enum progress_mode { PROGRESS_QUIET, PROGRESS_LINES, PROGRESS_LIVE };

/* The wall times (ms) of one variant's counted runs so far. */
struct progress_variant {
	const char *name;      /* borrowed from progress_start() */
	double *wall_ms;
	size_t n, alloc;
};

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
	int quiet_said;        /* lines mode: the wait for a quieter machine is said */
	struct progress_variant *variants;
	size_t nvariants, variants_alloc;
	FILE *out;             /* stderr unless a test sets another */
	size_t columns;        /* the live line's width; 0: ask the terminal each redraw */
};

void progress_init(struct progress *p, enum progress_mode mode, size_t total, double gap_seconds);
/* Frees what progress_done() kept; p may be used again after progress_init(). */
void progress_release(struct progress *p);
/* variant is borrowed until progress_release(): the plan's name. */
void progress_start(struct progress *p, size_t index, const char *variant, int warmup,
		    unsigned round, unsigned attempt);
/* Called while the child runs. */
void progress_tick(struct progress *p, int64_t elapsed_ns);
/* Called while waiting out the gap; remaining_ns counts down. */
void progress_gap(struct progress *p, int64_t remaining_ns);
/*
 * Called while waiting for a quieter machine (pipeline/quiet.h): cores
 * other processes keep busy on the run's CPUs, the limit, the time waited.
 * Live: the line says so; in lines mode once per invocation.
 */
void progress_quiet(struct progress *p, double cores, double limit, int64_t waited_ns);
/*
 * Counts inv (its variant's median takes its wall time when compare_counts()
 * says so); in lines mode prints its line. Live, the next redraw shows it.
 */
void progress_done(struct progress *p, const struct invocation *inv);
/*
 * The live line, without the terminal's control sequences: "[i/N] variant
 * run r | <what> | median 1.23 s (n=3)", "median -- (n=0)" before the
 * variant has a counted run. what is the elapsed time or the gap and the
 * ETA.
 */
void progress_line(const struct progress *p, const char *what, struct strbuf *sb);
/*
 * Cuts sb to fewer than columns characters (a UTF-8 sequence counts as one,
 * and is never split), so that the line does not wrap on a terminal that
 * wide. columns 0 leaves sb as it is.
 */
void progress_fit(struct strbuf *sb, size_t columns);
/* Clears the live line before other output. */
void progress_clear(struct progress *p);

#endif
