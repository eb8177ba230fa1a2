/*
 * Unit tests of reason_words: each reason code with its numbers gives
 * the sentence report.md and the terminal have always printed — golden
 * texts, table-driven, one per code and each variant of its wording.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "report/reason_words.h"
#include "util/compiler.h"

/* One metric, wall in ms (lower is better), base the reference, cand too few rounds. */
static struct cmp_sample samples[2] = {
	{ .variant = "base", .is_reference = 1, .n = 3 },
	{ .variant = "cand", .n = 3, .has_change = 1, .pairs = 2, .gi_note = REASON_TOO_FEW_ROUNDS,
	  .gi_needed = 4, .change_note = "no counted run" },
};
static struct cmp_metric metric = { .name = "wall", .unit = "ms", .samples = samples,
				    .nsamples = 2 };
static const struct comparison cmp = { .confidence = 0.95, .gate_confidence = 0.95,
				       .gate_judgements = 1, .metrics = &metric, .nmetrics = 1,
				       .pairs_needed_ci = 6 };

#define CHANGE(kind_, limit_, verdict_, code_) \
	.metric = "wall", .variant = "cand", .kind = kind_, .limit = limit_, .verdict = verdict_, \
	.reason = code_

static const struct gate_case {
	struct cmp_gate g;
	const char *want;
} gate_cases[] = {
	{ { CHANGE(GATE_MAX_REGRESSION, 10, GATE_FAIL, REASON_INTERVAL_BEYOND_LIMIT),
	    .observed = 25.5, .lo = 20.1, .hi = 30.25, .method = "wilcoxon_paired",
	    .coverage = 0.961, .n = 8 },
	  "cand wall changed +25.50% [+20.10%, +30.25%] (paired by round, 8 rounds, exact 96.1 %) "
	  "against a regression limit of +10.00%: the whole interval is beyond the limit" },
	{ { CHANGE(GATE_MAX_REGRESSION, 10, GATE_PASS, REASON_INTERVAL_WITHIN_LIMIT),
	    .observed = -0.001, .lo = -2, .hi = 3, .method = "mann_whitney", .coverage = 0.971,
	    .n = 4 },
	  "cand wall changed +0.00% [-2.00%, +3.00%] (unpaired, 4 runs a side, exact 97.1 %) "
	  "against a regression limit of +10.00%: the whole interval is within the limit" },
	{ { CHANGE(GATE_MAX_REGRESSION, 10, GATE_INCONCLUSIVE, REASON_INTERVAL_STRADDLES_LIMIT),
	    .observed = 8, .lo = 5, .hi = 12, .method = "wilcoxon_paired", .coverage = 0.961,
	    .n = 8, .n_needed = 76, .n_needed_paired = 1 },
	  "cand wall changed +8.00% [+5.00%, +12.00%] (paired by round, 8 rounds, exact 96.1 %) "
	  "against a regression limit of +10.00%: the interval straddles the limit; about 76 "
	  "rounds would decide it at this noise" },
	{ { CHANGE(GATE_MAX_IMPROVEMENT, 20, GATE_INCONCLUSIVE, REASON_INTERVAL_STRADDLES_LIMIT),
	    .observed = -20, .lo = -25, .hi = -15, .method = "mann_whitney", .coverage = 0.971,
	    .n = 4 },
	  "cand wall changed -20.00% [-25.00%, -15.00%] (unpaired, 4 runs a side, exact 97.1 %) "
	  "against an improvement limit of -20.00%: the interval straddles the limit; the "
	  "estimate sits on the limit: more rounds are unlikely to decide it" },
	{ { CHANGE(GATE_MAX_REGRESSION, 10, GATE_INCONCLUSIVE, REASON_NO_INTERVAL),
	    .observed = 1, .note = REASON_TOO_FEW_ROUNDS, .n_needed = 4 },
	  "cand wall changed +1.00%, but without an interval (needs at least 4 rounds for 95 % "
	  "(has 2; below 6 rounds the interval is unpaired)) no limit of +10.00% can be judged" },
	{ { CHANGE(GATE_MAX_REGRESSION, 10, GATE_INCONCLUSIVE, REASON_NO_CHANGE) },
	  "cand wall: no change can be computed (no counted run)" },
	{ { CHANGE(GATE_BUDGET, 120, GATE_INCONCLUSIVE, REASON_BUDGET_NO_RUN) },
	  "cand wall: no counted run to hold against the budget of 120 ms" },
	{ { CHANGE(GATE_BUDGET, 120, GATE_INCONCLUSIVE, REASON_BUDGET_TOO_FEW_RUNS),
	    .observed = 130, .n = 5, .n_min = 6 },
	  "cand wall median 130 ms, but the budget of 120 ms needs at least 6 counted runs for "
	  "95 % (has 5)" },
	{ { CHANGE(GATE_BUDGET, 140, GATE_PASS, REASON_BUDGET_WITHIN), .observed = 130,
	    .lo = 129, .hi = 131.5, .method = "median_order_statistics", .coverage = 0.96875,
	    .n = 6 },
	  "cand wall median 130 ms [129, 131.5] (6 runs, exact 96.9 %) against a budget of at most "
	  "140 ms: the whole interval is within the limit" },
	{ { .metric = "rps", .variant = "cand", .kind = GATE_MAX_REGRESSION, .limit = 5,
	    .verdict = GATE_INCONCLUSIVE, .reason = REASON_METRIC_NOT_RECORDED },
	  "metric 'rps' was not recorded" },
};

static void test_gates(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(gate_cases); i++) {
		char *got = reason_words_gate(&cmp, &gate_cases[i].g);

		if (strcmp(got, gate_cases[i].want))
			fail_msg("case %zu:\n got '%s'\nwant '%s'", i, got, gate_cases[i].want);
		free(got);
	}
}

static void test_interval_notes(void **state)
{
	static const struct {
		enum reason_code note;
		size_t needed, pairs, n, bad_ref, bad;
		const char *want;
	} cases[] = {
		{ REASON_NO_REFERENCE_RUN, 0, 0, 0, 0, 0, "no counted run of the reference" },
		{ REASON_NO_COUNTED_RUN, 0, 0, 0, 0, 0, "no counted run" },
		{ REASON_CHANGE_UNKNOWN, 0, 0, 0, 0, 0, "no counted run" },
		{ REASON_NOT_POSITIVE, 0, 6, 6, 0, 4,
		  "0 counted run(s) of the reference and 4 of this variant have a negative value of "
		  "a lower-is-better metric, which a ratio cannot take; judging the change on the "
		  "other runs would hide them" },
		{ REASON_TOO_FEW_RUNS, 4, 0, 3, 0, 0,
		  "needs at least 4 runs a side for 95 % (has 3 and 3)" },
		{ REASON_TOO_FEW_ROUNDS_OR_RUNS, 6, 5, 5, 0, 0,
		  "needs at least 6 rounds for 95 % (has 5; the 3 and 5 counted runs cannot give "
		  "it unpaired either)" },
	};
	struct cmp_sample s = samples[1];
	char *got;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		s.gi_note = cases[i].note;
		s.gi_needed = cases[i].needed;
		s.pairs = cases[i].pairs;
		s.n = cases[i].n;
		s.gi_not_positive_ref = cases[i].bad_ref;
		s.gi_not_positive = cases[i].bad;
		got = reason_words_interval(&cmp, &metric, &s);
		assert_non_null(got);
		if (strcmp(got, cases[i].want))
			fail_msg("case %zu:\n got '%s'\nwant '%s'", i, got, cases[i].want);
		free(got);
	}
	s.has_gi = 1;
	assert_null(reason_words_interval(&cmp, &metric, &s));
}

static void test_warnings_blocking_missing(void **state)
{
	static const struct cmp_warning warnings[] = {
		{ .code = REASON_NOISY, .metric = "wall", .variant = "cand", .value = 12.34,
		  .limit = 10 },
		{ .code = REASON_SLOT_EFFECT, .metric = "wall", .variant = "base", .value = -16.5,
		  .p = 2.0 / 252 },
		{ .code = REASON_OUTLIERS, .metric = "cpu", .variant = "cand", .count = 1,
		  .limit = 3.5 },
		{ .code = REASON_OUTLIERS, .metric = "cpu", .variant = "cand", .count = 2,
		  .limit = 3.5 },
	};
	static const char *const want_warnings[] = {
		"wall of cand is noisy: coefficient of variation 12.3% (over 10%)",
		"wall of base depends on its slot in the round: -16.50% when it ran after another "
		"variant (p = 0.007937)",
		"cpu of cand has 1 outlier (modified z-score over 3.5), flagged and kept",
		"cpu of cand has 2 outliers (modified z-score over 3.5), flagged and kept",
	};
	static const struct cmp_blocking blocking[] = {
		{ REASON_TEST_GUARD_FAILED, "cand", 1, GUARD_TEST_SET, "ran 7 tests, 1 fewer" },
		{ REASON_TEST_GUARD_FAILED, "cand", 6, GUARD_TESTS_PASSED, NULL },
	};
	static const char *const want_blocking[] = {
		"cand run 1 failed the test_set guard: ran 7 tests, 1 fewer",
		"cand run 6 failed the tests_passed guard: no reason recorded",
	};
	static const struct cmp_missing missing[] = {
		{ .variant = "cand", .code = REASON_NO_RECORDED_RUN },
		{ .variant = "cand", .code = REASON_NO_COUNTED_RUNS, .runs = 1, .shared = 1,
		  .status = INV_TIMED_OUT, .reason = "timed out after 60 s" },
		{ .variant = "cand", .code = REASON_NO_COUNTED_RUNS, .runs = 3, .shared = 3,
		  .status = INV_EXEC_FAILED, .reason = "exec_failed", .stderr_tail = "no such file" },
		{ .variant = "cand", .code = REASON_NO_COUNTED_RUNS, .runs = 3, .shared = 2,
		  .status = INV_FAILED, .reason = "exit_code guard failed: exited with code 1",
		  .stderr_tail = "boom" },
		{ .variant = "third", .metric = "t", .code = REASON_METRIC_NO_VALUE },
		{ .variant = "third", .metric = "t", .code = REASON_METRIC_NO_VALUE,
		  .reason = "metric 't' did not match test.log" },
	};
	static const char *const want_missing[] = {
		"'cand' has no recorded run",
		"'cand' has no counted run: its one run timed out: timed out after 60 s",
		"'cand' has no counted run: all 3 runs could not start: exec_failed; its stderr "
		"ends: no such file",
		"'cand' has no counted run: 2 of 3 runs failed: exit_code guard failed: exited with "
		"code 1, 1 for other reasons; its stderr ends: boom",
		"metric 't' has no value in any counted run of 'third'",
		"metric 't' has no value in any counted run of 'third': metric 't' did not match "
		"test.log",
	};
	char *got;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(warnings); i++) {
		got = reason_words_warning(&warnings[i]);
		assert_string_equal(got, want_warnings[i]);
		free(got);
	}
	for (size_t i = 0; i < ARRAY_SIZE(blocking); i++) {
		got = reason_words_blocking(&blocking[i]);
		assert_string_equal(got, want_blocking[i]);
		free(got);
	}
	for (size_t i = 0; i < ARRAY_SIZE(missing); i++) {
		got = reason_words_missing(&missing[i]);
		assert_string_equal(got, want_missing[i]);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gates),
		cmocka_unit_test(test_interval_notes),
		cmocka_unit_test(test_warnings_blocking_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
