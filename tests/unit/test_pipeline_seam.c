/* Unit tests of the pipeline's seam (pipeline/machine.h): the whole runner
 * — plan, schedule, runs, judge, load guard, comparison, decision — driven
 * on the scripted machine (fake_machine.h), whose every effect comes from
 * a script: each run's wall time, CPU wait and outcome per variant, what
 * overlapped it, the load averages, the monotonic and UTC clocks and
 * every sleep. What these tests assert — the decision of a gate, which
 * runs were discarded, the order of the spawns, what a run that could not
 * start or timed out does to the plan — cannot move with the machine's
 * load. test_pipeline.c drives the waits for a quieter machine, repeats
 * of balanced rounds and looks. The evidence is real: written, sealed and
 * read back from a scratch directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline/runner.h"
#include "run/proc.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "fake_machine.h"

/* The script of base's runs b and cand's c, nb and nc of them. */
#define SCRIPT(b, nb, c, nc) { .variants = { "base", "cand" }, .runs = { (b), (c) }, \
			       .nruns = { (nb), (nc) } }

/* A plan of base and cand; schedule and load are the inside of their objects; rest, more keys. */
static char *plan_text(const char *schedule, const char *load, const char *rest)
{
	return fm_plan_text("base", "cand", schedule, load, rest);
}

/* Runs text's plan on m; the outcome and the result.json read back in *sx. */
static void run_scripted(struct fm_scratch *sx, const char *text, struct fm_machine *m)
{
	fm_scratch_run(sx, "seam", text, m);
}

/*
 * Each invocation in order as "<variant letter><status letter>", upper
 * case for a warmup: "bo" base ok, "cd" cand discarded, "Ct" a cand
 * warmup timed out, "ce" could not start.
 */
static void assert_invocations(const struct fm_scratch *sx, const char *want)
{
	char got[256] = "";
	size_t n = 0;

	for (int i = 0; i < fm_ninvs(sx) && n + 3 < sizeof(got); i++) {
		const cJSON *inv = fm_inv_at(sx, i);
		int warm = !strcmp(fm_str_of(inv, "phase"), "warmup");
		const char *status = fm_str_of(inv, "status");
		char s = !strcmp(status, "exec_failed") ? 'e' : status[0];

		got[n++] = (char)(fm_str_of(inv, "variant")[0] - (warm ? 'a' - 'A' : 0));
		got[n++] = (char)(s - (warm ? 'a' - 'A' : 0));
	}
	got[n] = '\0';
	if (strcmp(got, want))
		fail_msg("invocations %s, want %s", got, want);
}

/* Every recorded run of a variant from ms, one a round. */
static void script_runs(struct fm_run *runs, const int *ms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		runs[i] = (struct fm_run){ .wall_ns = ms[i] * MS, .outcome = PROC_EXITED };
}

/* The gate test_verdict.py's gate_plan() sets: wall ≤ +15 %, seven rounds, alternate. */
static char *gate_plan(void)
{
	return plan_text("\"runs\": 7, \"order\": \"alternate\"",
			 "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64, \"max_repeats\": 0",
			 "\"gates\": {\"wall\": {\"max_regression_pct\": 15}}");
}

/*
 * The gates decide on the scripted figures alone: twice as slow is
 * rejected, +0.5 % accepted, noise straddling the limit inconclusive —
 * the cases test_verdict.py runs on real sleeps.
 */
static void test_gate_decides(void **state)
{
	static const int base[7] = { 200, 200, 200, 200, 200, 200, 200 };
	static const struct {
		int cand[7];
		const char *decision, *verdict;
	} cases[] = {
		{ { 400, 400, 400, 400, 400, 400, 400 }, "rejected", "fail" },
		{ { 201, 201, 201, 201, 201, 201, 201 }, "accepted", "pass" },
		{ { 200, 260, 210, 250, 230, 220, 240 }, "inconclusive", "inconclusive" },
	};
	char *text = gate_plan();
	(void)state;

	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct fm_run b[7], c[7];
		struct fm_machine sc = SCRIPT(b, 7, c, 7);
		struct fm_scratch sx;
		const cJSON *cmp, *gate, *iv;

		script_runs(b, base, 7);
		script_runs(c, cases[k].cand, 7);
		run_scripted(&sx, text, &sc);
		cmp = cJSON_GetObjectItem(sx.result, "comparison");
		gate = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp, "gates"), 0);
		iv = cJSON_GetObjectItem(gate, "interval");
		assert_string_equal(fm_str_of(cmp, "decision"), cases[k].decision);
		assert_string_equal(fm_str_of(gate, "verdict"), cases[k].verdict);
		assert_string_equal(fm_str_of(gate, "variant"), "cand");
		assert_string_equal(fm_str_of(sx.result, "status"), "completed");
		assert_int_equal(sx.outcome, RUNNER_PASSED);
		assert_int_equal(cJSON_GetArraySize(iv), 2);
		if (k == 0) {
			/* Every round +100 %: the interval is that one point. */
			assert_true(cJSON_GetArrayItem(iv, 0)->valuedouble > 99.99);
			assert_true(cJSON_GetArrayItem(iv, 1)->valuedouble < 100.01);
		} else if (k == 2) {
			assert_true(cJSON_GetArrayItem(iv, 0)->valuedouble < 15);
			assert_true(cJSON_GetArrayItem(iv, 1)->valuedouble > 15);
		}
		assert_string_equal(sc.spawns, "bcbcbcbcbcbcbc");
		fm_scratch_release(&sx);
	}
	free(text);
}

/*
 * The order of the spawns as the plan sets it — balanced (the default,
 * A B, B A) or alternate — warmups first, in the same order; and warmups
 * do not count: cand's warmups are ten times slower, and the tie is still
 * accepted on the recorded runs alone.
 */
static void test_order_and_warmups(void **state)
{
	static const int same[4] = { 100, 102, 98, 100 };
	static const struct {
		const char *schedule, *spawns, *invs;
	} cases[] = {
		{ "\"warmups\": 2, \"runs\": 4", "BCCBbccbbccb", "BOCOCOBObococobobococobo" },
		{ "\"warmups\": 2, \"runs\": 4, \"order\": \"alternate\"", "BCBCbcbcbcbc",
		  "BOCOBOCObocobocobocoboco" },
	};
	(void)state;

	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct fm_run b[4], c[4];
		struct fm_machine sc = SCRIPT(b, 4, c, 4);
		struct fm_scratch sx;
		char *text = plan_text(cases[k].schedule,
				       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64",
				       "\"gates\": {\"wall\": {\"max_regression_pct\": 15}}");
		const cJSON *cmp, *metric, *sample;

		sc.warmup_ns[0] = 100 * MS;
		sc.warmup_ns[1] = 1000 * MS;
		script_runs(b, same, 4);
		script_runs(c, same, 4);
		run_scripted(&sx, text, &sc);
		assert_string_equal(sc.spawns, cases[k].spawns);
		assert_invocations(&sx, cases[k].invs);
		cmp = cJSON_GetObjectItem(sx.result, "comparison");
		assert_string_equal(fm_str_of(cmp, "decision"), "accepted");
		/* Each variant's wall sample: the four recorded runs, no warmup. */
		metric = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp, "metrics"), 0);
		assert_string_equal(fm_str_of(metric, "name"), "wall");
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(metric, "variants")), 2);
		cJSON_ArrayForEach(sample, cJSON_GetObjectItem(metric, "variants"))
			assert_int_equal(fm_num_of(sample, "n"), 4);
		free(text);
		fm_scratch_release(&sx);
	}
}

/*
 * Contention scripted on some runs: exactly those are discarded and their
 * slot repeated — cand's second run, which waited 40 % on others' work
 * while its round's base run did not, and base's third, which a
 * load.exclusive process overlapped; every other run counts, unloaded.
 */
static void test_contention_discards_those_runs(void **state)
{
	static const int ms[5] = { 100, 100, 100, 100, 100 };
	struct fm_run b[5], c[5];
	struct fm_machine sc = SCRIPT(b, 5, c, 5);
	struct fm_scratch sx;
	char *text = plan_text("\"runs\": 4, \"order\": \"alternate\"",
			       "\"max_cpu_wait_pct\": 10, \"max_repeats\": 2, "
			       "\"exclusive\": [\"neighbour*\"]",
			       NULL);
	(void)state;

	script_runs(b, ms, 5);
	script_runs(c, ms, 5);
	c[1].wait_pct = 40;
	c[1].others_cores = 1;
	b[2].exclusive = 1;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_PASSED);
	assert_string_equal(fm_str_of(sx.result, "status"), "completed");
	assert_invocations(&sx, "bocobocdcobdbocoboco");
	assert_string_equal(sc.spawns, "bcbccbbcbc");
	assert_non_null(strstr(fm_str_of(fm_inv_at(&sx, 3), "reason"), "the slot is repeated"));
	assert_non_null(strstr(fm_str_of(fm_inv_at(&sx, 5), "reason"), "neighbour --busy"));
	assert_int_equal(fm_num_of(fm_inv_at(&sx, 4), "attempt"), 2);
	assert_int_equal(fm_num_of(fm_inv_at(&sx, 6), "attempt"), 2);
	for (int i = 0; i < fm_ninvs(&sx); i++)
		assert_false(cJSON_IsTrue(cJSON_GetObjectItem(fm_inv_at(&sx, i), "loaded")));
	free(text);
	fm_scratch_release(&sx);
}

/*
 * A candidate that cannot start: its first run fails to exec, and the plan
 * stops after round 1 (no later run would start either), failed, saying why.
 */
static void test_exec_failure_stops_the_plan(void **state)
{
	static const int ms[4] = { 100, 100, 100, 100 };
	struct fm_run b[4], c[4];
	struct fm_machine sc = SCRIPT(b, 4, c, 4);
	struct fm_scratch sx;
	char *text = plan_text("\"runs\": 4, \"order\": \"alternate\"",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64", NULL);
	(void)state;

	script_runs(b, ms, 4);
	script_runs(c, ms, 4);
	for (size_t i = 0; i < 4; i++)
		c[i].outcome = PROC_EXEC_FAILED;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_FAILED);
	assert_string_equal(fm_str_of(sx.result, "status"), "failed");
	assert_string_equal(sc.spawns, "bc");
	assert_invocations(&sx, "boce");
	assert_true(fm_has_note(&sx, "abev stopped the plan after round 1: every run of 'cand' "
				     "so far (1) could not start"));
	free(text);
	fm_scratch_release(&sx);
}

/*
 * A run that times out fails its slot, is neither repeated nor counted,
 * and the plan goes on to its end: the run is failed, and the comparison
 * is made of the rounds left.
 */
static void test_timeout_fails_that_run(void **state)
{
	static const int ms[4] = { 100, 100, 100, 100 };
	struct fm_run b[4], c[4];
	struct fm_machine sc = SCRIPT(b, 4, c, 4);
	struct fm_scratch sx;
	char *text = plan_text("\"runs\": 4, \"order\": \"alternate\", \"timeout_seconds\": 5",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64, "
			       "\"max_repeats\": 2",
			       NULL);
	(void)state;

	script_runs(b, ms, 4);
	script_runs(c, ms, 4);
	c[2].outcome = PROC_TIMED_OUT;
	c[2].wall_ns = 5000 * MS;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_FAILED);
	assert_string_equal(fm_str_of(sx.result, "status"), "failed");
	assert_string_equal(sc.spawns, "bcbcbcbc");
	assert_invocations(&sx, "bocobocoboctboco");
	assert_string_equal(fm_str_of(fm_inv_at(&sx, 5), "reason"),
			    "timed out after 5 s; stopped with SIGTERM; it was killed by SIGTERM");
	free(text);
	fm_scratch_release(&sx);
}

/*
 * abev itself could not run a process (the spawn failed, not the
 * command): it stops at once with a runtime error, and the evidence says
 * which slot it could not start.
 */
static void test_spawn_error_stops_abev(void **state)
{
	static const int ms[2] = { 100, 100 };
	struct fm_run b[2], c[2];
	struct fm_machine sc = SCRIPT(b, 2, c, 2);
	struct fm_scratch sx;
	char *text = plan_text("\"runs\": 2, \"order\": \"alternate\"",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64", NULL);
	(void)state;

	script_runs(b, ms, 2);
	script_runs(c, ms, 2);
	c[0].spawn_error = 1;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_ERROR);
	assert_string_equal(sc.spawns, "bc");
	assert_invocations(&sx, "bo");
	assert_true(fm_has_note(&sx, "abev stopped: could not start cand run 1"));
	free(text);
	fm_scratch_release(&sx);
}

/* The label the UTC clock gives the monotonic time mono. */
static void assert_utc(const char *got, int64_t mono)
{
	struct timespec ts;
	char want[UTC_STAMP_LEN];

	fm_utc_at(mono, &ts);
	utc_format(want, &ts);
	assert_string_equal(got, want);
}

/*
 * The times the evidence records are the machine's clocks: the run starts
 * at the scripted UTC epoch and ends when the script's clock says, each
 * invocation starts and ends when it was spawned and ended, and its load
 * averages are those read around it.
 */
static void test_clocks_and_samples_recorded(void **state)
{
	static const int ms[2] = { 1500, 2500 };
	struct fm_run b[2], c[2];
	struct fm_machine sc = SCRIPT(b, 2, c, 2);
	struct fm_scratch sx;
	char *text = plan_text("\"runs\": 2, \"order\": \"alternate\"",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64", NULL);
	(void)state;

	script_runs(b, ms, 2);
	script_runs(c, ms, 2);
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_PASSED);
	assert_string_equal(fm_str_of(sx.result, "started_utc"),
			    "2030-01-02T03:04:05.000000+00:00");
	assert_utc(fm_str_of(sx.result, "ended_utc"), sc.clock);
	assert_int_equal(sc.nspawns, 4);
	for (int i = 0; i < 4; i++) {
		const cJSON *inv = fm_inv_at(&sx, i);
		const cJSON *before = cJSON_GetObjectItem(inv, "load_before");
		const cJSON *after = cJSON_GetObjectItem(inv, "load_after");

		assert_utc(fm_str_of(inv, "start_utc"), sc.started[i]);
		assert_utc(fm_str_of(inv, "end_utc"), sc.ended[i]);
		assert_int_equal(sc.ended[i] - sc.started[i], ms[i / 2] * MS);
		assert_true(fm_num_of(before, "1m") == 0.5 * i + 0.25);
		assert_true(fm_num_of(after, "1m") == 0.5 * i + 0.5);
	}
	/* Three gaps of 1 s and the 0.2 s look before the first recorded run. */
	assert_int_equal(sc.slept_ns, 3 * S + 200 * MS);
	free(text);
	fm_scratch_release(&sx);
}

/*
 * The steps go through the machine too. A setup that fails stops the
 * plan before any run: the other variants' setups have run, nothing is
 * measured, the run fails, and its note names the variant.
 */
static void test_failed_setup_runs_nothing(void **state)
{
	static const int ms[2] = { 100, 100 };
	struct fm_run b[2], c[2];
	struct fm_machine sc = SCRIPT(b, 2, c, 2);
	struct fm_scratch sx;
	char *text = plan_text("\"runs\": 2, \"order\": \"alternate\", "
			       "\"setup\": [\"true\", \"setup\"]",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64", NULL);
	(void)state;

	script_runs(b, ms, 2);
	script_runs(c, ms, 2);
	sc.step_exit[1] = 3;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_FAILED);
	assert_string_equal(fm_str_of(sx.result, "status"), "failed");
	assert_string_equal(sc.steps, "sbsc");
	assert_int_equal(sc.nspawns, 0);
	assert_int_equal(fm_ninvs(&sx), 0);
	assert_true(fm_has_note(&sx, "abev stopped the plan before its first invocation: the "
				     "setup command of 'cand' exited with code 3"));
	free(text);
	fm_scratch_release(&sx);
}

/*
 * A prepare step runs before every invocation; one that fails keeps its
 * invocation's command from running and fails that invocation, while the
 * other variant's runs go on.
 */
static void test_failed_prepare_fails_its_invocation(void **state)
{
	static const int ms[2] = { 100, 100 };
	struct fm_run b[2], c[2];
	struct fm_machine sc = SCRIPT(b, 2, c, 2);
	struct fm_scratch sx;
	char *text = plan_text("\"runs\": 2, \"order\": \"alternate\", "
			       "\"prepare\": [\"true\", \"prepare\"]",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64", NULL);
	(void)state;

	script_runs(b, ms, 2);
	script_runs(c, ms, 2);
	sc.step_exit[1] = 1;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_FAILED);
	assert_string_equal(sc.steps, "pbpcpbpc");
	assert_string_equal(sc.spawns, "bb");
	assert_invocations(&sx, "bocfbocf");
	free(text);
	fm_scratch_release(&sx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_decides),
		cmocka_unit_test(test_order_and_warmups),
		cmocka_unit_test(test_contention_discards_those_runs),
		cmocka_unit_test(test_exec_failure_stops_the_plan),
		cmocka_unit_test(test_timeout_fails_that_run),
		cmocka_unit_test(test_spawn_error_stops_abev),
		cmocka_unit_test(test_clocks_and_samples_recorded),
		cmocka_unit_test(test_failed_setup_runs_nothing),
		cmocka_unit_test(test_failed_prepare_fails_its_invocation),
	};
	if (proc_setup() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
