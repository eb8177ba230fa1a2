/* Unit tests of the min_executed, exit_code, test_set and metrics guards: each
 * verdict, and reasons that carry the numbers and the names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guards/guard.h"
#include "results/metrics.h"

static void test_min_executed(void **state)
{
	static const struct {
		int64_t executed, total, required;
		size_t nfiles, refused;
		enum guard_verdict want;
		const char *needle;
	} cases[] = {
		{ 5, 6, 3, 1, 0, GUARD_PASS, "5 of 6 test(s) executed in 1 file(s), 3 required" },
		{ 3, 3, 3, 2, 0, GUARD_PASS, "3 of 3" },
		{ 0, 4, 1, 1, 0, GUARD_FAIL, "0 of 4 test(s) executed in 1 file(s), fewer than the 1 required" },
		{ 2, 9, 3, 3, 0, GUARD_FAIL, "fewer than the 3 required" },
		{ 0, 0, 1, 0, 0, GUARD_FAIL, "no result file matched '/r/*.trx'" },
		{ 9, 9, 1, 2, 1, GUARD_UNCHECKED, "1 of 2 result file(s) could not be read" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct guard_result r = { 0 };
		guard_min_executed(cases[i].executed, cases[i].total, cases[i].required,
				   cases[i].nfiles, cases[i].refused, "/r/*.trx", NULL, &r);
		assert_string_equal(guard_kind_name(r.kind), "min_executed");
		assert_int_equal(r.verdict, cases[i].want);
		assert_non_null(strstr(r.reason, cases[i].needle));
		guard_result_release(&r);
	}
	/* A crashed test host: what the result file said comes first. */
	{
		struct guard_result r = { 0 };
		guard_min_executed(0, 0, 1, 1, 0, "/r/*.trx", "Test host process crashed", &r);
		assert_int_equal(r.verdict, GUARD_FAIL);
		assert_string_equal(r.reason, "test run aborted: Test host process crashed; "
				    "0 of 0 test(s) executed in 1 file(s), fewer than the 1 required");
		guard_result_release(&r);
	}
}

static void test_tests_passed(void **state)
{
	struct guard_result r = { 0 };
	const struct test_failure_view v[] = {
		{ "Ns.A.One", "Failed", "Assert.Equal() Failure: Values differ", 0 },
		{ "Ns.Flaky.Two", "Failed", "", 1 },
		{ "Ns.B.Three", "Timeout", "", 0 },
		{ "Ns.B.Four", "failure", "expected 1", 0 },
		{ "Ns.B.Five", "Aborted", "", 0 },
	};
	(void)state;

	guard_tests_passed(0, 0, NULL, 0, 2, 0, &r);
	assert_string_equal(guard_kind_name(r.kind), "tests_passed");
	assert_int_equal(r.verdict, GUARD_PASS);
	assert_string_equal(r.reason, "no test failed in 2 file(s)");
	guard_result_release(&r);

	/* A failure names its test, its outcome as written and its message; three at most. */
	guard_tests_passed(4, 1, v, 5, 1, 0, &r);
	assert_int_equal(r.verdict, GUARD_FAIL);
	assert_string_equal(r.reason, "4 test(s) failed: Ns.A.One (Failed: Assert.Equal() Failure: "
			    "Values differ), Ns.B.Three (Timeout), Ns.B.Four (failure: expected 1) "
			    "and 1 more; 1 known failure(s) allowed: Ns.Flaky.Two (Failed)");
	guard_result_release(&r);

	/* Only known failures: it passes, and says so. */
	guard_tests_passed(0, 1, v + 1, 1, 1, 0, &r);
	assert_int_equal(r.verdict, GUARD_PASS);
	assert_string_equal(r.reason, "no test failed in 1 file(s); 1 known failure(s) allowed: "
			    "Ns.Flaky.Two (Failed)");
	guard_result_release(&r);

	/* A refused file could hide a failure; a failure read in the others still fails. */
	guard_tests_passed(0, 0, NULL, 0, 1, 1, &r);
	assert_int_equal(r.verdict, GUARD_UNCHECKED);
	guard_result_release(&r);
	guard_tests_passed(1, 0, v, 1, 1, 1, &r);
	assert_int_equal(r.verdict, GUARD_FAIL);
	guard_result_release(&r);
	guard_tests_passed(0, 0, NULL, 0, 0, 0, &r);
	assert_int_equal(r.verdict, GUARD_UNCHECKED);
	assert_string_equal(r.reason, "no result file was read");
	guard_result_release(&r);
}

static void test_exit_code(void **state)
{
	static const int only0[] = { 0 }, some[] = { 0, 1, 3 };
	struct guard_result r = { 0 };
	(void)state;
	guard_exit_code(0, only0, 1, &r);
	assert_int_equal(r.verdict, GUARD_PASS);
	assert_string_equal(r.reason, "exited with code 0 (allowed: 0)");
	guard_result_release(&r);
	guard_exit_code(3, only0, 1, &r);
	assert_int_equal(r.verdict, GUARD_FAIL);
	assert_string_equal(r.reason, "exited with code 3 (allowed: 0)");
	guard_result_release(&r);
	guard_exit_code(3, some, 3, &r);
	assert_int_equal(r.verdict, GUARD_PASS);
	assert_string_equal(r.reason, "exited with code 3 (allowed: 0, 1, 3)");
	guard_result_release(&r);
}

static struct test_set *set_of(const char *const *names)
{
	struct test_set *s = test_set_new();
	for (; *names; names++)
		test_set_add(s, *names);
	test_set_seal(s);
	return s;
}

static void test_test_set(void **state)
{
	static const char *const base[] = { "T.c", "T.a", "T.b", "T.a", NULL };
	static const char *const same[] = { "T.a", "T.b", "T.a", "T.c", NULL };
	/* A multiset: the candidate ran T.a once where the reference ran it twice. */
	static const char *const once[] = { "T.a", "T.b", "T.c", NULL };
	static const char *const fewer[] = { "T.a", NULL };
	static const char *const other[] = { "T.a", "T.b", "T.c", "T.new\nline", NULL };
	struct test_set *ref = set_of(base), *s;
	struct guard_result r = { 0 };
	(void)state;

	assert_int_equal(test_set_size(ref), 4);
	s = set_of(same);
	guard_test_set(ref, "runs/baseline/run-1", s, &r);
	assert_int_equal(r.verdict, GUARD_PASS);
	assert_string_equal(r.reason, "ran the same 4 test(s) as runs/baseline/run-1");
	guard_result_release(&r);
	test_set_free(s);

	s = set_of(once);
	guard_test_set(ref, "runs/baseline/run-1", s, &r);
	assert_int_equal(r.verdict, GUARD_FAIL);
	assert_string_equal(r.reason, "not comparable: ran 3 test(s), runs/baseline/run-1 ran 4; "
				      "missing 1: 'T.a'");
	guard_result_release(&r);
	test_set_free(s);

	s = set_of(fewer);
	guard_test_set(ref, "runs/baseline/run-1", s, &r);
	assert_int_equal(r.verdict, GUARD_FAIL);
	assert_string_equal(r.reason, "not comparable: ran 1 test(s), runs/baseline/run-1 ran 4; "
				      "missing 3: 'T.a', 'T.b', 'T.c'");
	guard_result_release(&r);
	test_set_free(s);

	s = set_of(other);
	guard_test_set(ref, "runs/baseline/run-1", s, &r);
	assert_int_equal(r.verdict, GUARD_FAIL);
	assert_non_null(strstr(r.reason, "extra 1: 'T.new\\nline'"));
	assert_null(strchr(r.reason, '\n'));
	guard_result_release(&r);
	test_set_free(s);
	test_set_free(ref);
}

static void test_test_set_many(void **state)
{
	struct test_set *ref = test_set_new(), *got = test_set_new();
	struct guard_result r = { 0 };
	char name[32];
	(void)state;
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "t%03d", i);
		test_set_add(ref, name);
		if (i % 10)
			test_set_add(got, name);
	}
	test_set_seal(ref);
	test_set_seal(got);
	guard_test_set(ref, "runs/a/run-1", got, &r);
	assert_int_equal(r.verdict, GUARD_FAIL);
	assert_non_null(strstr(r.reason, "missing 10: 't000', 't010', 't020', 't030', 't040' and 5 more"));
	guard_result_release(&r);
	test_set_free(ref);
	test_set_free(got);
	test_set_free(NULL);
}

static void test_test_set_first(void **state)
{
	static const char *const names[] = { "T.a", "T.b", NULL };
	struct test_set *s = set_of(names);
	struct guard_result r = { 0 };
	(void)state;

	assert_int_equal(guard_test_set_first(s, 0, &r), 0);
	assert_string_equal(guard_kind_name(r.kind), "test_set");
	assert_int_equal(r.verdict, GUARD_UNCHECKED);
	assert_string_equal(r.reason, "ran 2 test(s); no reference set yet to compare with");
	guard_result_release(&r);
	assert_int_equal(guard_test_set_first(s, 1, &r), 1);
	assert_int_equal(r.verdict, GUARD_PASS);
	assert_string_equal(r.reason, "ran 2 test(s); the reference set for the other invocations");
	guard_result_release(&r);
	test_set_free(s);
}

static void test_metrics(void **state)
{
	struct metric_value v[3] = {
		{ .name = (char *)"wall", .ok = 1, .value = 1 },
		{ .name = (char *)"ops", .ok = 0, .why = (char *)"no match in test.log" },
		{ .name = (char *)"lat", .ok = 0, .why = (char *)"test 'X' not found" },
	};
	struct guard_result r = { 0 };
	(void)state;

	guard_metrics(v, 1, 0, &r);
	assert_string_equal(guard_kind_name(r.kind), "metrics");
	assert_int_equal(r.verdict, GUARD_PASS);
	assert_string_equal(r.reason, "all 1 metric(s) yielded");
	guard_result_release(&r);
	guard_metrics(v, 3, 0, &r);
	assert_int_equal(r.verdict, GUARD_FAIL);
	assert_string_equal(r.reason, "2 of 3 metric(s) not yielded: 'ops': no match in test.log; "
				      "'lat': test 'X' not found");
	guard_result_release(&r);
	guard_metrics(v, 2, 1, &r);
	assert_string_equal(r.reason, "1 of 2 metric(s) not yielded: 'ops': no match in test.log "
				      "(some tests were not kept: over the memory cap)");
	guard_result_release(&r);
}

/* Every kind has its own name, which reads back as that kind; nothing else does. */
static void test_guard_kinds(void **state)
{
	enum guard_kind k;

	(void)state;
	for (int i = 0; i < GUARD_KINDS; i++) {
		assert_int_equal(guard_kind_parse(guard_kind_name((enum guard_kind)i), &k), 0);
		assert_int_equal(k, i);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(guard_kind_name((enum guard_kind)i),
						guard_kind_name((enum guard_kind)j));
	}
	assert_int_equal(guard_kind_parse("metric", &k), -1);
	assert_int_equal(guard_kind_parse("", &k), -1);
	assert_string_equal(guard_kind_name(GUARD_KINDS), "unknown");
	assert_true(guard_kind_judges_tests(GUARD_TEST_SET));
	assert_true(guard_kind_judges_tests(GUARD_MIN_EXECUTED));
	assert_true(guard_kind_judges_tests(GUARD_TESTS_PASSED));
	assert_false(guard_kind_judges_tests(GUARD_METRICS));
	assert_false(guard_kind_judges_tests(GUARD_EXIT_CODE));
	assert_false(guard_kind_judges_tests(GUARD_LOAD));
}

static void release_all(struct guard_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		guard_result_release(&res[i]);
}

/* The table: one row per kind, in the enum's order, and the phases' guards run as they apply. */
static void test_guards_table(void **state)
{
	static const int allowed[] = { 0 };
	struct guard_result res[GUARD_KINDS];
	struct guard_effect fx;
	struct test_set *names = test_set_new(), *other = test_set_new();
	struct metric_value missing = { .name = (char *)"rps", .ok = 0, .why = (char *)"no match" };
	struct load_figures f = { .cpu_wait_pct = 30, .foreign_wait_pct = 30, .run_cpus = 1,
				  .max_cpu_wait_pct = 10, .foreign_cpu = -1, .max_foreign_cpu = -1 };
	struct guard_input in = { .exited = 1, .exit_code = 0, .allowed_codes = allowed,
				  .nallowed_codes = 1, .min_executed = 1, .status_ok = 1 };
	size_t n;
	(void)state;

	for (size_t i = 0; i < GUARD_KINDS; i++)
		assert_int_equal(guards_table[i].kind, (enum guard_kind)i);
	/* A command that exited, with nothing else to judge: exit_code alone. */
	n = guards_run(&in, GUARD_PHASE_RUN, res, &fx);
	assert_int_equal(n, 1);
	assert_int_equal(res[0].kind, GUARD_EXIT_CODE);
	assert_int_equal(res[0].verdict, GUARD_PASS);
	release_all(res, n);

	/* Results read, a metric not yielded, the first test set: all five, in order. */
	test_set_add(names, "A.t1");
	test_set_seal(names);
	in.has_results = 1;
	in.executed = in.total = 1;
	in.nfiles = 1;
	in.results_pattern = "*.trx";
	in.has_metrics = 1;
	in.metrics = &missing;
	in.nmetrics = 1;
	in.names = names;
	n = guards_run(&in, GUARD_PHASE_RUN, res, &fx);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(res[i].kind, (enum guard_kind)i);
	assert_int_equal(res[3].verdict, GUARD_FAIL);
	/* A metric not yielded says nothing of the tests: the set becomes the reference. */
	assert_int_equal(res[4].verdict, GUARD_PASS);
	assert_true(fx.took_reference);
	release_all(res, n);

	/* A failed exit code before it: the set is no reference, and the guard says so. */
	in.exit_code = 3;
	n = guards_run(&in, GUARD_PHASE_RUN, res, &fx);
	assert_int_equal(res[0].verdict, GUARD_FAIL);
	assert_int_equal(res[4].verdict, GUARD_UNCHECKED);
	assert_false(fx.took_reference);
	release_all(res, n);

	/* With a reference, the set is compared with it. */
	test_set_add(other, "A.t2");
	test_set_seal(other);
	in.exit_code = 0;
	in.ref = other;
	in.ref_label = "runs/a/run-1";
	n = guards_run(&in, GUARD_PHASE_RUN, res, &fx);
	assert_int_equal(res[4].verdict, GUARD_FAIL);
	assert_false(fx.took_reference);
	release_all(res, n);

	/* The load phase judges load alone, and only when there are figures. */
	assert_int_equal(guards_run(&in, GUARD_PHASE_LOAD, res, &fx), 0);
	in.load = &f;
	n = guards_run(&in, GUARD_PHASE_LOAD, res, &fx);
	assert_int_equal(n, 1);
	assert_int_equal(res[0].kind, GUARD_LOAD);
	assert_int_equal(res[0].verdict, GUARD_FAIL);
	assert_true(fx.over_limits);
	release_all(res, n);
	test_set_free(names);
	test_set_free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_kinds),
		cmocka_unit_test(test_min_executed),
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_tests_passed),
		cmocka_unit_test(test_test_set),
		cmocka_unit_test(test_test_set_many),
		cmocka_unit_test(test_test_set_first),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_guards_table),
	};
	return cmocka_run_group_tests_name("guards", tests, NULL, NULL);
}
