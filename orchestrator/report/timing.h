/*
 * timing: one command's times told as hyperfine tells them, for abev
 * bench's terminal —
 *
 *     Benchmark 1: sleep-0.01
 *       Time (mean ± σ):     11.3 ms ±  0.2 ms    [User: 0.8 ms, System: 1.2 ms]
 *       Range (min … max):   10.9 ms … 11.8 ms    10 runs
 *
 * over the runs the comparison counted for wall time, so that the block
 * and the comparison below it are of the same runs. User and System are
 * the means of those runs' CPU times, which only the records hold. It
 * prints; it computes no statistic the comparison does not already hold.
 */
#ifndef ABEV_TIMING_H
#define ABEV_TIMING_H

#include <stddef.h>
#include <stdio.h>

#include "decide/compare.h"
#include "record/invocation.h"

struct strbuf;

/*
 * Appends the block of variant v (plan order; number is its 1-based
 * place) to sb: the lines above, each ending in a newline ("  Time: no
 * counted run" for a variant without one; "Time (abs ≡)" and no range
 * for a single run, as hyperfine). invs are the run's records (borrowed). The variant's name is
 * escaped; with colour, the figures carry hyperfine's colours.
 */
void timing_add(struct strbuf *sb, const struct comparison *c, size_t v,
		const struct invocation *invs, size_t ninvs, int colour);

/* timing_add() of every variant of c, in plan order, to f. */
void timing_print(FILE *f, const struct comparison *c, const struct invocation *invs,
		  size_t ninvs, int colour);

#endif
