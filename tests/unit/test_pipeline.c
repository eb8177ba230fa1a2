/* Unit tests of the whole runner (pipeline/runner.h) on the scripted
 * machine (fake_machine.h): each run's figures, the load on the CPUs,
 * the clock and every sleep come from a script, so that repeats, discards,
 * balanced rounds, waits for a quieter machine, fail-fast, looks and the
 * run's status are exact — facts no busy machine can change. The evidence
 * is real: written, sealed and read back from a scratch directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/runner.h"
#include "run/proc.h"
#include "util/compiler.h"
#include "util/strbuf.h"
#include "fake_machine.h"

/* The script of runs n, spawned in that order whatever their variant (a, b). */
#define SCRIPT(runs, n) { .variants = { "a", "b" }, .runs = { (runs) }, .nruns = { (n) }, \
			  .in_spawn_order = 1 }

/*
 * A plan of a and b, no warmups; schedule, more of it; the load guard at
 * 10 % of CPU wait, two repeats and max_wait seconds of waiting; gates,
 * when not NULL, the plan's gates. Caller frees.
 */
static char *plan_text(const char *schedule, double max_wait, const char *gates)
{
	char *sched = xasprintf("\"warmups\": 0, %s", schedule);
	char *load = xasprintf("\"max_cpu_wait_pct\": 10, \"max_repeats\": 2, "
			       "\"max_wait_seconds\": %g", max_wait);
	char *gates_key = gates ? xasprintf("\"gates\": %s", gates) : NULL;
	char *text = fm_plan_text("a", "b", sched, load, gates_key);

	free(sched);
	free(load);
	free(gates_key);
	return text;
}

/* Runs text's plan on m in sc, and frees text. */
static void run_scripted(struct fm_scratch *sc, char *text, struct fm_machine *m)
{
	fm_scratch_run(sc, "pipeline", text, m);
	free(text);
}

/* The reason of an invocation's load guard. */
static const char *load_reason(const cJSON *inv)
{
	const cJSON *g;

	cJSON_ArrayForEach(g, cJSON_GetObjectItem(inv, "guards"))
		if (!strcmp(fm_str_of(g, "guard"), "load"))
			return fm_str_of(g, "reason");
	fail_msg("no load guard");
	return "";
}

/* Statuses in order, one letter each: o(k), d(iscarded), f(ailed); L after a loaded one. */
static void assert_statuses(const struct fm_scratch *sc, const char *want)
{
	char got[128] = "";
	size_t n = 0;

	for (int i = 0; i < fm_ninvs(sc) && n + 3 < sizeof(got); i++) {
		const cJSON *inv = fm_inv_at(sc, i);
		got[n++] = fm_str_of(inv, "status")[0];
		if (cJSON_IsTrue(cJSON_GetObjectItem(inv, "loaded")))
			got[n++] = 'L';
	}
	got[n] = '\0';
	if (strcmp(got, want))
		fail_msg("statuses %s, want %s", got, want);
}

/* The schedule most tests here run: two rounds, a then b. */
#define ALTERNATE_2 "\"runs\": 2, \"order\": \"alternate\""

#define CLEAN { .wall_ns = 10 * S }
#define HIT { .wall_ns = 10 * S, .wait_pct = 40, .others_cores = 1 }

/* A quiet machine: one look before the first recorded run, nothing discarded. */
static void test_quiet(void **state)
{
	static const struct fm_run runs[] = { CLEAN, CLEAN, CLEAN, CLEAN };
	struct fm_machine m = SCRIPT(runs, 4);
	struct fm_scratch sc;
	(void)state;

	run_scripted(&sc, plan_text(ALTERNATE_2, 60, NULL), &m);
	assert_int_equal(sc.outcome, RUNNER_PASSED);
	assert_string_equal(fm_str_of(sc.result, "status"), "completed");
	assert_statuses(&sc, "oooo");
	assert_string_equal(m.spawns, "abab");
	/* The look (0.2 s) found the machine quiet: no run records a wait. */
	for (int i = 0; i < 4; i++)
		assert_true(fm_num_of(fm_inv_at(&sc, i), "load_wait_ns") == 0);
	/* Three gaps of 1 s and one 0.2 s look: all the sleeping there was. */
	assert_int_equal(m.slept_ns, 3 * S + 200 * MS);
	fm_scratch_release(&sc);
}

/* A run hit where its round's other run was not is repeated; the repeat counts. */
static void test_one_sided_hit_repeated(void **state)
{
	static const struct fm_run runs[] = { CLEAN, CLEAN, CLEAN, HIT, CLEAN };
	struct fm_machine m = SCRIPT(runs, 5);
	struct fm_scratch sc;
	(void)state;

	run_scripted(&sc, plan_text(ALTERNATE_2, 60, NULL), &m);
	assert_int_equal(sc.outcome, RUNNER_PASSED);
	assert_statuses(&sc, "ooodo");
	assert_string_equal(m.spawns, "ababb");
	assert_non_null(strstr(fm_str_of(fm_inv_at(&sc, 3), "reason"), "the slot is repeated"));
	assert_int_equal(fm_num_of(fm_inv_at(&sc, 4), "attempt"), 2);
	fm_scratch_release(&sc);
}

/*
 * A round loaded alike: the first run is repeated while over the limit,
 * then kept on its last attempt; the second, loaded like it, is kept at
 * once, the guard saying why.
 */
static void test_balanced_round_kept(void **state)
{
	static const struct fm_run runs[] = { CLEAN, CLEAN, HIT, HIT, HIT, HIT };
	struct fm_machine m = SCRIPT(runs, 6);
	struct fm_scratch sc;
	(void)state;

	run_scripted(&sc, plan_text(ALTERNATE_2, 60, NULL), &m);
	assert_int_equal(sc.outcome, RUNNER_PASSED);
	assert_statuses(&sc, "ooddoLoL");
	assert_string_equal(m.spawns, "abaaab");
	assert_non_null(strstr(load_reason(fm_inv_at(&sc, 4)), "kept under load: the slot's "
							       "last attempt"));
	assert_non_null(strstr(load_reason(fm_inv_at(&sc, 5)), "kept under load: its round is "
							       "balanced: a run 2 waited 40.0 %"));
	fm_scratch_release(&sc);
}

/*
 * A machine never quiet: abev waits out its budget once (backing off), then
 * runs go ahead under load, kept and marked loaded; no slot is lost.
 */
static void test_never_quiet(void **state)
{
	static const struct fm_run runs[] = { HIT, HIT, HIT, HIT };
	struct fm_machine m = SCRIPT(runs, 4);
	struct fm_scratch sc;
	const cJSON *inv;
	(void)state;

	m.idle_load = 64;
	run_scripted(&sc, plan_text(ALTERNATE_2, 10, NULL), &m);
	assert_int_equal(sc.outcome, RUNNER_PASSED);
	assert_statuses(&sc, "oLoLoLoL");
	assert_string_equal(m.spawns, "abab");
	inv = fm_inv_at(&sc, 0);
	/* The whole budget, spent before the first run, no more. */
	assert_true(fm_num_of(inv, "load_wait_ns") >= 10 * S);
	assert_true(fm_num_of(inv, "load_wait_ns") <= 10 * S + 200 * MS);
	for (int i = 1; i < 4; i++)
		assert_true(fm_num_of(fm_inv_at(&sc, i), "load_wait_ns") == 0);
	assert_true(fm_has_note(&sc, "the machine stayed busy"));
	fm_scratch_release(&sc);
}

/*
 * Fail fast: every attempt of a's first slot was paused (stopped); a has no
 * counted run, so the plan stops there, failed, with the reason.
 */
static void test_fail_fast(void **state)
{
	static const struct fm_run runs[] = {
		{ .wall_ns = 10 * S, .child_stops = 1 },
		{ .wall_ns = 10 * S, .child_stops = 1 },
		{ .wall_ns = 10 * S, .child_stops = 1 },
	};
	struct fm_machine m = SCRIPT(runs, 3);
	struct fm_scratch sc;
	(void)state;

	run_scripted(&sc, plan_text("\"runs\": 3, \"order\": \"alternate\"", 60, NULL), &m);
	assert_int_equal(sc.outcome, RUNNER_FAILED);
	assert_string_equal(fm_str_of(sc.result, "status"), "failed");
	assert_statuses(&sc, "ddd");
	assert_string_equal(m.spawns, "aaa");
	assert_true(fm_has_note(&sc, "abev stopped the plan after a run 1"));
	fm_scratch_release(&sc);
}

/* schedule.until "decided": identical runs pass the gate at the first look, and the plan stops. */
static void test_until_decided(void **state)
{
	static struct fm_run runs[64];
	struct fm_machine m = SCRIPT(runs, 64);
	struct fm_scratch sc;
	(void)state;

	for (size_t i = 0; i < 64; i++)
		runs[i] = (struct fm_run)CLEAN;
	run_scripted(&sc,
		     plan_text("\"order\": \"alternate\", \"until\": \"decided\", "
			       "\"min_rounds\": 8, \"max_rounds\": 32",
			       60, "{\"wall\": {\"max_regression_pct\": 5}}"),
		     &m);
	assert_int_equal(sc.outcome, RUNNER_PASSED);
	/* The first look, after 8 rounds: 16 runs, no more. */
	assert_int_equal(m.next[0], 16);
	assert_int_equal(fm_ninvs(&sc), 16);
	fm_scratch_release(&sc);
}

/*
 * Two identical variants on a machine whose every run takes 0.5 % longer
 * than the one before (1 % a round). A plan that names no order runs them
 * A B, B A: the drift lands on each alike and an A/A gate at 0 % cannot
 * fail, its interval holding 0. In alternate order the later run is always
 * b's, every round's ratio is above 1, and the gate fails the same two
 * programs.
 */
static void test_default_order_drift_aa(void **state)
{
	enum { ROUNDS = 8 };
	static struct fm_run runs[2 * ROUNDS];
	static const struct {
		int keep_order;      /* the plan says "alternate"; else it names no order */
		const char *verdict; /* the gate's */
		const char *spawns;
	} cases[] = {
		{ 0, "inconclusive", "abbaabbaabbaabba" },
		{ 1, "fail", "abababababababab" },
	};
	(void)state;

	for (size_t i = 0; i < 2 * ROUNDS; i++)
		runs[i] = (struct fm_run){ .wall_ns = (int64_t)(10 * S *
								(1 + 0.005 * (double)i)) };
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct fm_machine m = SCRIPT(runs, 2 * ROUNDS);
		struct fm_scratch sc;
		const cJSON *cmp, *gate, *iv;
		char *schedule = xasprintf("\"runs\": %d%s", ROUNDS,
					   cases[k].keep_order ? ", \"order\": \"alternate\"" : "");

		run_scripted(&sc,
			     plan_text(schedule, 60, "{\"wall\": {\"max_regression_pct\": 0}}"),
			     &m);
		free(schedule);
		cmp = cJSON_GetObjectItem(sc.result, "comparison");
		gate = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp, "gates"), 0);
		iv = cJSON_GetObjectItem(gate, "interval");
		assert_string_equal(fm_str_of(gate, "verdict"), cases[k].verdict);
		assert_int_equal(cJSON_GetArraySize(iv), 2);
		if (!cases[k].keep_order) {
			assert_true(cJSON_GetArrayItem(iv, 0)->valuedouble < 0);
			assert_true(cJSON_GetArrayItem(iv, 1)->valuedouble > 0);
		} else {
			assert_string_equal(fm_str_of(cmp, "decision"), "rejected");
		}
		assert_string_equal(m.spawns, cases[k].spawns);
		fm_scratch_release(&sc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_one_sided_hit_repeated),
		cmocka_unit_test(test_balanced_round_kept),
		cmocka_unit_test(test_never_quiet),
		cmocka_unit_test(test_fail_fast),
		cmocka_unit_test(test_until_decided),
		cmocka_unit_test(test_default_order_drift_aa),
	};
	if (proc_setup() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
