/* Unit tests of the load guard: verdicts at, over and under each limit,
 * unknown figures and the optional foreign limit, overlaps and pauses,
 * each with a reason carrying the numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "guards/guard.h"

static void test_verdicts(void **state)
{
	static const struct {
		double wait, fwait, wait_limit, foreign, resolution, limit;
		enum guard_verdict want;
		const char *needle;
		const char *overlap;
		const char *paused;
	} cases[] = {
		/* contention alone, the foreign limit off (the default) */
		{ 1.2, -1, 10, 1.00, 0.01, -1, GUARD_PASS, "waited for a CPU 1.2 % of the run (cgroup; what other processes used of its CPUs is unknown, so all of it is judged), within the limit of 10 %", NULL, NULL },
		{ 10.0, -1, 10, -1, 0, -1, GUARD_PASS, "within the limit of 10 %", NULL, NULL },
		{ 48.6, -1, 10, 0.9, 0.01, -1, GUARD_FAIL, "48.6 % of the run (cgroup; what other processes used of its CPUs is unknown, so all of it is judged), over the limit of 10 % (load.max_cpu_wait_pct)", NULL, NULL },
		/* a multi-threaded run's own threads: the wait is theirs, not others' */
		{ 100.0, 0.3, 10, 0.01, 0.02, -1, GUARD_PASS, "waited for a CPU 100.0 % of the run (cgroup), at most 0.3 % of it on other processes (they used 0.01 cores of its 2 CPU(s)), within the limit of 10 %", NULL, NULL },
		{ 27.0, 0.0, 10, 0.00, 0.02, -1, GUARD_PASS, "at most 0.0 % of it on other processes", NULL, NULL },
		/* a burner on its CPUs: the wait others caused is over the limit */
		{ 60.0, 40.0, 10, 0.40, 0.02, -1, GUARD_FAIL, "at most 40.0 % of it on other processes (they used 0.40 cores of its 2 CPU(s)), over the limit of 10 %", NULL, NULL },
		{ 10.5, 10.0, 10, 0.40, 0.02, -1, GUARD_PASS, "within the limit of 10 %", NULL, NULL },
		/* one busy core of two: a foreign load that slowed nothing is kept */
		{ 0.4, -1, 10, 1.00, 0.02, -1, GUARD_PASS, "within", NULL, NULL },
		/* the second, optional limit */
		{ 0.5, -1, 10, 0.10, 0.01, 0.50, GUARD_PASS, "0.10 cores (±0.01), within the limit of 0.50", NULL, NULL },
		{ 0.5, -1, 10, 0.93, 0.03, 0.50, GUARD_FAIL, "used 0.93 cores (±0.03), over the limit of 0.50", NULL, NULL },
		/* a 20 ms run on 2 CPUs at 100 Hz: one tick of noise is not load */
		{ 0.5, -1, 10, 0.90, 1.00, 0.50, GUARD_PASS, "(±1.00), within the limit", NULL, NULL },
		{ 0.5, -1, 10, 0.60, -1.0, 0.50, GUARD_FAIL, "(±0.00)", NULL, NULL },
		/* unknown figures */
		{ -1, -1, 10, -1.0, 0.01, 0.25, GUARD_UNCHECKED, "foreign CPU load unknown", NULL, NULL },
		{ -1, -1, 10, 0.9, 0.01, -1, GUARD_UNCHECKED, "CPU wait unknown", NULL, NULL },
		{ -1, -1, 10, 0.10, 0.01, 0.25, GUARD_PASS, "CPU wait unknown", NULL, NULL },
		{ 20, -1, 10, -1.0, 0.01, 0.25, GUARD_FAIL, "over the limit of 10 %", NULL, NULL },
		/* something the plan wants the run alone with: fails whatever the figures */
		{ 0.1, -1, 10, 0.0, 0.01, -1, GUARD_FAIL, "within the limit of 10 % (load.max_cpu_wait_pct); overlapped pid 7",
		  "overlapped pid 7 'k6 run x' (load.exclusive '*k6 run*')", NULL },
		{ -1, -1, 10, -1.0, 0.01, -1, GUARD_FAIL, "CPU wait unknown", "overlapped another abev run", NULL },
		/* a pause inside the window: fails whatever the figures */
		{ 0.1, -1, 10, 0.0, 0.01, -1, GUARD_FAIL, "within the limit of 10 % (load.max_cpu_wait_pct); paused during the run",
		  NULL, "paused during the run: abev was stopped and continued 1 time(s)" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct guard_result r = { 0 };
		struct load_figures f = {
			.cpu_wait_pct = cases[i].wait,
			.cpu_wait_source = "cgroup",
			.foreign_wait_pct = cases[i].fwait,
			/* the cores others used on the run's CPUs: the foreign column */
			.foreign_busy_cores = cases[i].foreign,
			.run_cpus = 2,
			.max_cpu_wait_pct = cases[i].wait_limit,
			.foreign_cpu = cases[i].foreign,
			.resolution = cases[i].resolution,
			.max_foreign_cpu = cases[i].limit,
			.overlap = cases[i].overlap,
			.paused = cases[i].paused,
		};
		guard_load(&f, &r);
		assert_string_equal(guard_kind_name(r.kind), "load");
		assert_int_equal(r.verdict, cases[i].want);
		if (!strstr(r.reason, cases[i].needle))
			fail_msg("case %zu: '%s' lacks '%s'", i, r.reason, cases[i].needle);
		guard_result_release(&r);
		guard_result_release(&r);
	}
	assert_string_equal(guard_verdict_name(GUARD_UNCHECKED), "unchecked");
}

/* A run over the limits that the runner keeps passes, saying so; an overlap still fails it. */
static void test_kept_under_load(void **state)
{
	static const struct {
		double fwait;
		const char *overlap;
		enum guard_verdict want;
		int over;
		const char *needle;
	} cases[] = {
		{ 48.0, NULL, GUARD_PASS, 1, "over the limit of 10 % (load.max_cpu_wait_pct); kept under load: the machine stayed busy" },
		{ 2.0, NULL, GUARD_PASS, 0, "within the limit of 10 % (load.max_cpu_wait_pct)" },
		{ 48.0, "overlapped another abev run", GUARD_FAIL, 1, "; overlapped another abev run" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct guard_result r = { 0 };
		struct load_figures f = {
			.cpu_wait_pct = 50, .cpu_wait_source = "cgroup", .foreign_wait_pct = cases[i].fwait,
			.foreign_busy_cores = 1.0, .run_cpus = 2, .max_cpu_wait_pct = 10,
			.foreign_cpu = 1.0, .resolution = 0.01, .max_foreign_cpu = -1,
			.overlap = cases[i].overlap, .keep_loaded = "the machine stayed busy",
		};
		assert_int_equal(guard_load(&f, &r), cases[i].over);
		assert_int_equal(r.verdict, cases[i].want);
		if (!strstr(r.reason, cases[i].needle))
			fail_msg("case %zu: '%s' lacks '%s'", i, r.reason, cases[i].needle);
		if (!cases[i].over && strstr(r.reason, "kept under load"))
			fail_msg("case %zu: '%s' kept a run within the limits", i, r.reason);
		guard_result_release(&r);
	}
}

/* A round's balance: the wall times the waits leave, compared as the single-run limit allows. */
static void test_balanced(void **state)
{
	const double none[] = { 0 }, nine[] = { 9 }, fifty[] = { 50 }, two[] = { 50, 52 },
		     unknown[] = { -1 }, mixed[] = { 50, 0 };
	(void)state;
	/* Alone in its round: nothing to be balanced with. */
	assert_int_equal(guard_load_balanced(30, none, 0, 10), 0);
	/* 0 % beside 9 %: within what one run may wait on its own at a 10 % limit. */
	assert_int_equal(guard_load_balanced(9, none, 1, 10), 1);
	assert_int_equal(guard_load_balanced(0, nine, 1, 10), 1);
	/* Exactly the limit: 1 - 0.1 against 1. */
	assert_int_equal(guard_load_balanced(10, none, 1, 10), 1);
	assert_int_equal(guard_load_balanced(10.5, none, 1, 10), 0);
	/* 50 % beside 55 %: 0.5 / 0.45 = 1.111, the limit, alike; beside 56 %: 1.136, not. */
	assert_int_equal(guard_load_balanced(55, fifty, 1, 10), 1);
	assert_int_equal(guard_load_balanced(56, fifty, 1, 10), 0);
	/* Hit on one side only. */
	assert_int_equal(guard_load_balanced(40, none, 1, 10), 0);
	/* Every partner must be alike. */
	assert_int_equal(guard_load_balanced(51, two, 2, 10), 1);
	assert_int_equal(guard_load_balanced(51, mixed, 2, 10), 0);
	/* An unknown share, or a run that did nothing but wait, is never balanced. */
	assert_int_equal(guard_load_balanced(51, unknown, 1, 10), 0);
	assert_int_equal(guard_load_balanced(-1, fifty, 1, 10), 0);
	assert_int_equal(guard_load_balanced(100, fifty, 1, 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_kept_under_load),
		cmocka_unit_test(test_balanced),
	};
	return cmocka_run_group_tests_name("guard_load", tests, NULL, NULL);
}
