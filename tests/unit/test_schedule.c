/*
 * Unit tests of schedule.c: the fixed orders as tables of expected slots,
 * warmups before runs with rounds restarting at 1 (for sequential, per
 * variant), the balanced order's
 * slots and neighbours over a cycle, and the shuffle's
 * reproducibility (same seed, same order; pinned against an independent
 * implementation of splitmix64 + Fisher-Yates) and permutation property.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "run/schedule.h"
#include "util/alloc.h"
#include "util/compiler.h"

#define MAX_EXPECT 32

struct order_case {
	const char *what;
	enum run_order order;
	uint64_t seed;
	size_t nvariants;
	unsigned warmups, runs;
	size_t nslots;
	/* expected (variant, warmup, round) per slot */
	struct sched_slot want[MAX_EXPECT];
};

#define W(v, r) { v, 1, r }
#define R(v, r) { v, 0, r }

static const struct order_case order_cases[] = {
	{ "alternate, 3 runs: A B A B A B", RUN_ORDER_ALTERNATE, 1, 2, 0, 3, 6,
	  { R(0, 1), R(1, 1), R(0, 2), R(1, 2), R(0, 3), R(1, 3) } },
	{ "reverse, 3 runs: A B B A A B", RUN_ORDER_REVERSE, 1, 2, 0, 3, 6,
	  { R(0, 1), R(1, 1), R(1, 2), R(0, 2), R(0, 3), R(1, 3) } },
	{ "reverse, 3 variants", RUN_ORDER_REVERSE, 1, 3, 0, 2, 6,
	  { R(0, 1), R(1, 1), R(2, 1), R(2, 2), R(1, 2), R(0, 2) } },
	{ "alternate: warmups first, both phases from round 1", RUN_ORDER_ALTERNATE, 1, 2, 2, 2, 8,
	  { W(0, 1), W(1, 1), W(0, 2), W(1, 2), R(0, 1), R(1, 1), R(0, 2), R(1, 2) } },
	{ "reverse restarts with the recorded phase", RUN_ORDER_REVERSE, 1, 2, 1, 2, 6,
	  { W(0, 1), W(1, 1), R(0, 1), R(1, 1), R(1, 2), R(0, 2) } },
	{ "reverse, 2 warmups then 2 runs", RUN_ORDER_REVERSE, 1, 2, 2, 2, 8,
	  { W(0, 1), W(1, 1), W(1, 2), W(0, 2), R(0, 1), R(1, 1), R(1, 2), R(0, 2) } },
	{ "one variant", RUN_ORDER_REVERSE, 1, 1, 1, 2, 3, { W(0, 1), R(0, 1), R(0, 2) } },
	{ "sequential: each variant's warmups and runs, then the next's, rounds from 1",
	  RUN_ORDER_SEQUENTIAL, 1, 2, 1, 3, 8,
	  { W(0, 1), R(0, 1), R(0, 2), R(0, 3), W(1, 1), R(1, 1), R(1, 2), R(1, 3) } },
	{ "sequential, 3 variants, no warmup; the seed changes nothing", RUN_ORDER_SEQUENTIAL, 7,
	  3, 0, 2, 6, { R(0, 1), R(0, 2), R(1, 1), R(1, 2), R(2, 1), R(2, 2) } },
	{ "balanced, one variant", RUN_ORDER_BALANCED, 1, 1, 1, 2, 3,
	  { W(0, 1), R(0, 1), R(0, 2) } },
	{ "balanced, 2 variants: A B, B A, as reverse, from round 1 in each phase",
	  RUN_ORDER_BALANCED, 1, 2, 1, 3, 8,
	  { W(0, 1), W(1, 1), R(0, 1), R(1, 1), R(1, 2), R(0, 2), R(0, 3), R(1, 3) } },
	{ "balanced, 3 variants: each row, then its reverse", RUN_ORDER_BALANCED, 1, 3, 0, 7, 21,
	  { R(0, 1), R(1, 1), R(2, 1), R(2, 2), R(1, 2), R(0, 2), R(1, 3), R(2, 3), R(0, 3),
	    R(0, 4), R(2, 4), R(1, 4), R(2, 5), R(0, 5), R(1, 5), R(1, 6), R(0, 6), R(2, 6),
	    R(0, 7), R(1, 7), R(2, 7) } },
	{ "balanced, 4 variants: 0 1 3 2 and its shifts", RUN_ORDER_BALANCED, 1, 4, 0, 5, 20,
	  { R(0, 1), R(1, 1), R(3, 1), R(2, 1), R(1, 2), R(2, 2), R(0, 2), R(3, 2),
	    R(2, 3), R(3, 3), R(1, 3), R(0, 3), R(3, 4), R(0, 4), R(2, 4), R(1, 4),
	    R(0, 5), R(1, 5), R(3, 5), R(2, 5) } },
	/*
	 * Pinned from a separate implementation (Python) of splitmix64 +
	 * Fisher-Yates with rejection sampling; a change here changes every
	 * recorded shuffle, so it must be deliberate.
	 */
	{ "shuffle, seed 42, pinned", RUN_ORDER_SHUFFLE, 42, 3, 1, 3, 12,
	  { W(0, 1), W(2, 1), W(1, 1), R(1, 1), R(2, 1), R(0, 1),
	    R(2, 2), R(0, 2), R(1, 2), R(2, 3), R(0, 3), R(1, 3) } },
	{ "shuffle, seed 1, 4 variants, pinned", RUN_ORDER_SHUFFLE, 1, 4, 0, 3, 12,
	  { R(2, 1), R(0, 1), R(3, 1), R(1, 1), R(1, 2), R(2, 2), R(0, 2), R(3, 2),
	    R(3, 3), R(2, 3), R(0, 3), R(1, 3) } },
	{ "no variants", RUN_ORDER_SHUFFLE, 1, 0, 2, 3, 0, { { 0, 0, 0 } } },
};

static void test_orders(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(order_cases); i++) {
		const struct order_case *c = &order_cases[i];
		struct sched_slot *slots = NULL;
		size_t n = 0;

		schedule_build(c->order, c->seed, c->nvariants, c->warmups, c->runs, &slots, &n);
		if (n != c->nslots)
			fail_msg("%s: %zu slots, want %zu", c->what, n, c->nslots);
		for (size_t k = 0; k < n; k++) {
			const struct sched_slot *g = &slots[k], *w = &c->want[k];
			if (g->variant != w->variant || g->warmup != w->warmup || g->round != w->round)
				fail_msg("%s: slot %zu is (%zu, %s, %u), want (%zu, %s, %u)", c->what, k,
					 g->variant, g->warmup ? "warmup" : "run", g->round,
					 w->variant, w->warmup ? "warmup" : "run", w->round);
		}
		free(slots);
	}
}

static char *shuffle_string(uint64_t seed, size_t nvariants, unsigned warmups, unsigned runs)
{
	struct sched_slot *slots = NULL;
	size_t n = 0;
	char *s;

	schedule_build(RUN_ORDER_SHUFFLE, seed, nvariants, warmups, runs, &slots, &n);
	s = xcalloc(n + 1, 1);
	for (size_t k = 0; k < n; k++)
		s[k] = (char)('A' + slots[k].variant);
	free(slots);
	return s;
}

static void test_shuffle_seed(void **state)
{
	char *a = shuffle_string(7, 3, 0, 20);
	char *b = shuffle_string(7, 3, 0, 20);
	char *c = shuffle_string(8, 3, 0, 20);
	char *d = shuffle_string(7, 3, 0, 21);
	(void)state;

	assert_int_equal(strlen(a), 60);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	/* One more round appends; it does not reshuffle what came before. */
	assert_memory_equal(a, d, 60);
	/* Over 20 rounds a real shuffle does not keep one order. */
	size_t same = 0;
	for (size_t r = 1; r < 20; r++)
		same += !memcmp(a, a + 3 * r, 3);
	assert_true(same < 19);
	free(a);
	free(b);
	free(c);
	free(d);
}

static void test_shuffle_permutations(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 5, 8 };
	(void)state;
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (uint64_t seed = 0; seed < 50; seed++) {
			struct sched_slot *slots = NULL;
			size_t nv = sizes[s], n = 0;
			unsigned first_of[6] = { 0 };

			schedule_build(RUN_ORDER_SHUFFLE, seed, nv, 2, 20, &slots, &n);
			assert_int_equal(n, 22 * nv);
			for (size_t r = 0; r < 22; r++) {
				unsigned seen[8] = { 0 };
				for (size_t k = 0; k < nv; k++) {
					const struct sched_slot *sl = &slots[r * nv + k];
					assert_true(sl->variant < nv);
					seen[sl->variant]++;
					assert_int_equal(sl->warmup, r < 2);
					assert_int_equal(sl->round, r < 2 ? r + 1 : r - 1);
				}
				for (size_t v = 0; v < nv; v++)
					assert_int_equal(seen[v], 1);
				if (slots[r * nv].variant < ARRAY_SIZE(first_of))
					first_of[slots[r * nv].variant]++;
			}
			/* With 3 variants, 22 rounds never all start with the same one. */
			if (nv == 3)
				assert_true(first_of[0] < 22 && first_of[1] < 22 && first_of[2] < 22);
			free(slots);
		}
	}
}

/*
 * Over each cycle of the balanced order (n rounds for an even n, 2n for an
 * odd one) every variant runs in every slot equally often, so a machine
 * that drifts linearly in time adds the same to every variant's total;
 * and every ordered pair of different variants are neighbours in a round
 * equally often: once a cycle for an even n, twice for an odd one (each
 * row and its reverse). Warmups do not shift the recorded phase's cycle.
 */
static void test_balanced_cycle(void **state)
{
	enum { MAXN = 7 };
	(void)state;
	for (size_t nv = 1; nv <= MAXN; nv++) {
		unsigned cycle = (unsigned)(nv % 2 ? 2 * nv : nv);
		struct sched_slot *slots = NULL;
		size_t n = 0;

		schedule_build(RUN_ORDER_BALANCED, 1, nv, 3, 2 * cycle, &slots, &n);
		assert_int_equal(n, (3 + 2 * cycle) * nv);
		for (unsigned c = 0; c < 2; c++) {
			const struct sched_slot *run = slots + 3 * nv + (size_t)c * cycle * nv;
			unsigned in_slot[MAXN][MAXN] = { { 0 } }, pair[MAXN][MAXN] = { { 0 } };
			size_t when[MAXN] = { 0 };

			for (size_t k = 0; k < (size_t)cycle * nv; k++) {
				size_t v = run[k].variant, slot = k % nv;

				assert_int_equal(run[k].warmup, 0);
				assert_int_equal(run[k].round, c * cycle + k / nv + 1);
				in_slot[v][slot]++;
				when[v] += k;
				if (slot)
					pair[run[k - 1].variant][v]++;
			}
			for (size_t v = 0; v < nv; v++) {
				assert_int_equal(when[v], when[0]);
				for (size_t w = 0; w < nv; w++) {
					assert_int_equal(in_slot[v][w], cycle / nv);
					assert_int_equal(pair[v][w], v == w ? 0 : nv % 2 ? 2 : 1);
				}
			}
		}
		free(slots);
	}
}

/*
 * A plan that names no order runs in one where a linear drift of the
 * machine cancels between the variants: with two, every other round has
 * the candidate first, so over 16 rounds the variants' runs are as late
 * on average (the sum of their places in time is the same).
 */
static void test_default_order_cancels_drift(void **state)
{
	struct sched_slot *slots = NULL;
	size_t n = 0, when[2] = { 0, 0 };
	(void)state;

	schedule_build(PLAN_ORDER_DEFAULT, 1, 2, 0, 16, &slots, &n);
	assert_int_equal(n, 32);
	for (size_t k = 0; k < n; k++)
		when[slots[k].variant] += k;
	assert_int_equal(when[0], when[1]);
	free(slots);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_shuffle_seed),
		cmocka_unit_test(test_shuffle_permutations),
		cmocka_unit_test(test_balanced_cycle),
		cmocka_unit_test(test_default_order_cancels_drift),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
