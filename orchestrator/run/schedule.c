/*
 * schedule: the order of invocation slots, from the plan's order, seed,
 * warmups and runs. Pure computation: no I/O, no clock, no globals, so
 * the same plan gives the same schedule on every machine. Repeating
 * discarded slots is the runner's business.
 */
#include "run/schedule.h"

#include <stdlib.h>

#include "util/alloc.h"
#include "util/rng.h"

static void reverse(size_t *perm, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		size_t t = perm[i];
		perm[i] = perm[n - 1 - i];
		perm[n - 1 - i] = t;
	}
}

/*
 * Round r of the balanced order (schedule.h): row 0 of the Williams
 * square, 0, 1, n-1, 2, n-2, ..., shifted by the row's number; an odd n
 * needs each row and its reverse for every ordered pair of neighbours,
 * and still gets every slot equally often.
 */
static void williams_round(unsigned r, size_t *perm, size_t n)
{
	size_t cycle = n % 2 ? 2 * n : n, c = r % cycle;
	size_t row = n % 2 ? c / 2 : c;

	for (size_t k = 0; k < n; k++) {
		size_t first = k == 0 ? 0 : k % 2 ? (k + 1) / 2 : n - k / 2;
		perm[k] = (first + row) % n;
	}
	if (n % 2 && c % 2)
		reverse(perm, n);
}

/* One round's order into perm: every round starts from 0..n-1. */
static void round_order(enum run_order order, uint64_t *state, unsigned r,
			size_t *perm, size_t n)
{
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	if (order == RUN_ORDER_REVERSE && (r % 2) == 1) {
		reverse(perm, n);
	} else if (order == RUN_ORDER_BALANCED && n) {
		williams_round(r, perm, n);
	} else if (order == RUN_ORDER_SHUFFLE) {
		/* Fisher-Yates, from the end. */
		for (size_t i = n; i > 1; i--) {
			size_t j = (size_t)rng_below(state, i);
			size_t t = perm[i - 1];
			perm[i - 1] = perm[j];
			perm[j] = t;
		}
	}
}

/*
 * The sequential order: each variant's warmups and recorded runs, one
 * variant after another, in the plan's order of variants.
 */
static size_t sequential(size_t nvariants, unsigned warmups, unsigned runs,
			 struct sched_slot *slots)
{
	size_t k = 0;

	for (size_t v = 0; v < nvariants; v++)
		for (int phase = 0; phase < 2; phase++)
			for (unsigned r = 0; r < (phase == 0 ? warmups : runs); r++)
				slots[k++] = (struct sched_slot){ v, phase == 0, r + 1 };
	return k;
}

void schedule_build(enum run_order order, uint64_t seed, size_t nvariants,
		    unsigned warmups, unsigned runs,
		    struct sched_slot **slots, size_t *nslots)
{
	uint64_t state = seed;
	uint64_t rounds = (uint64_t)warmups + runs;
	size_t *perm = xcalloc(nvariants, sizeof(*perm));
	size_t k = 0;

	/* plan_load() caps the total far lower; this only guards the multiplication. */
	if (nvariants && rounds > SIZE_MAX / sizeof(**slots) / nvariants)
		die_oom();
	*slots = xcalloc((size_t)rounds * nvariants, sizeof(**slots));
	if (order == RUN_ORDER_SEQUENTIAL)
		k = sequential(nvariants, warmups, runs, *slots);
	for (int phase = 0; phase < 2 && order != RUN_ORDER_SEQUENTIAL; phase++) {
		unsigned nrounds = phase == 0 ? warmups : runs;
		for (unsigned r = 0; r < nrounds; r++) {
			round_order(order, &state, r, perm, nvariants);
			for (size_t i = 0; i < nvariants; i++) {
				(*slots)[k].variant = perm[i];
				(*slots)[k].warmup = phase == 0;
				(*slots)[k].round = r + 1;
				k++;
			}
		}
	}
	*nslots = k;
	free(perm);
}
