/*
 * schedule: turns a plan's variants, warmups, runs, order and seed into
 * the ordered list of invocation slots. Pure computation: no I/O, no clock.
 * Repeats of discarded slots are the runner's business, not this module's.
 */
#ifndef ABEV_SCHEDULE_H
#define ABEV_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"

struct sched_slot {
	size_t variant;   /* index into plan->variants */
	int warmup;       /* 1 for a warmup slot, 0 for a recorded run */
	unsigned round;   /* 1-based round within its phase */
};

/*
 * Fills *slots (caller frees) with warmups*nvariants warmup slots followed
 * by runs*nvariants recorded slots (but for sequential, below). Each phase starts from round 1:
 * alternate gives A B, A B; reverse reverses every other round (A B, B A);
 * balanced takes the rows of a Williams design in turn: row 0 is
 * 0, 1, n-1, 2, n-2, 3, ..., row i adds i (mod n) to each; for an even n
 * the n rows are a cycle, for an odd n each row is followed by its reverse
 * (2n rounds). Over a cycle every variant runs in every slot equally
 * often, and (even n) follows every other variant exactly once: two
 * variants give A B, B A, as reverse does; three give A B C, C B A,
 * B C A, A C B, C A B, B A C. shuffle draws each round's permutation from
 * a generator seeded with seed (splitmix64 + Fisher-Yates, identical on
 * every platform), warmup rounds first, then recorded rounds, from one
 * stream. sequential does not alternate: every warmup and recorded run of
 * the first variant, then of the second, and so on (hyperfine's order),
 * each variant's rounds numbered from 1, so that round r of each is still
 * what pairs them.
 */
void schedule_build(enum run_order order, uint64_t seed, size_t nvariants,
		    unsigned warmups, unsigned runs,
		    struct sched_slot **slots, size_t *nslots);

#endif
