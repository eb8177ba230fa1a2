/* Unit tests of the wait for a quieter machine (pipeline/quiet.h) on
 * scripted loads: a scripted clock, sampler and sleep stand for the
 * machine, so that every wait, back-off and outcome is exact. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pipeline/quiet.h"

#define MS 1000000LL

/* The machine as a script: the load each sample reads, in order. */
struct script {
	const double *loads;
	int nloads, next;
	int interrupt_at_sample;   /* 1-based sample that reports a signal, 0 none */
	int interrupt_at_sleep;    /* 1-based sleep cut short by a signal, 0 none */
	int64_t clock;
	int nsleeps, nshown;
	int64_t sleeps[32];
};

static double s_sample(void *arg, int64_t window_ns, int *signo)
{
	struct script *s = arg;
	double v = s->next < s->nloads ? s->loads[s->next] : s->loads[s->nloads - 1];

	s->clock += window_ns;
	if (++s->next == s->interrupt_at_sample)
		*signo = 2;
	return v;
}

static int s_sleep(void *arg, int64_t ns)
{
	struct script *s = arg;

	s->sleeps[s->nsleeps++] = ns;
	if (s->nsleeps == s->interrupt_at_sleep) {
		s->clock += ns / 2;
		return 15;
	}
	s->clock += ns;
	return 0;
}

static int64_t s_now(void *arg)
{
	return ((struct script *)arg)->clock;
}

static void s_show(void *arg, double cores, double limit, int64_t waited_ns)
{
	struct script *s = arg;

	(void)cores;
	(void)limit;
	(void)waited_ns;
	s->nshown++;
}

static void run(struct script *s, double limit, int64_t budget, struct quiet_result *r)
{
	struct quiet_ops ops = { s_sample, s_sleep, s_now, s_show, s };

	quiet_wait(&ops, limit, budget, r);
}

static void test_quiet_goes_at_once(void **state)
{
	static const double loads[] = { 0.1 };
	struct script s = { loads, 1, 0, 0, 0, 0, 0, 0, { 0 } };
	struct quiet_result r;

	(void)state;
	run(&s, 1.25, 60000 * MS, &r);
	assert_int_equal(r.outcome, QUIET_GO);
	assert_int_equal(r.waited_ns, QUIET_WINDOW_NS);
	assert_int_equal(r.naps, 0);
	assert_int_equal(s.nsleeps, 0);
	assert_int_equal(s.nshown, 0);
}

/* Busy for three samples, then quiet: waits with a back-off, then goes. */
static void test_waits_out_a_busy_spell(void **state)
{
	static const double loads[] = { 2.0, 1.9, 1.6, 0.4 };
	struct script s = { loads, 4, 0, 0, 0, 0, 0, 0, { 0 } };
	struct quiet_result r;

	(void)state;
	run(&s, 1.25, 60000 * MS, &r);
	assert_int_equal(r.outcome, QUIET_GO);
	assert_int_equal(s.nsleeps, 3);
	assert_int_equal(r.naps, 3);
	assert_int_equal(s.sleeps[0], 250 * MS);
	assert_int_equal(s.sleeps[1], 500 * MS);
	assert_int_equal(s.sleeps[2], 1000 * MS);
	assert_int_equal(s.nshown, 3);
	assert_int_equal(r.waited_ns, 4 * QUIET_WINDOW_NS + 1750 * MS);
	assert_true(r.cores == 0.4);
}

/* Never quiet: the back-off stops at its ceiling, the budget ends the wait. */
static void test_budget_spent(void **state)
{
	static const double loads[] = { 2.0 };
	struct script s = { loads, 1, 0, 0, 0, 0, 0, 0, { 0 } };
	struct quiet_result r;
	int64_t slept = 0;

	(void)state;
	run(&s, 1.25, 20000 * MS, &r);
	assert_int_equal(r.outcome, QUIET_SPENT);
	for (int i = 0; i < s.nsleeps; i++) {
		assert_true(s.sleeps[i] <= QUIET_POLL_MAX_NS);
		slept += s.sleeps[i];
	}
	assert_int_equal(s.sleeps[4], QUIET_POLL_MAX_NS);
	/* The last nap is cut to what is left: the wait ends right at the budget. */
	assert_int_equal(r.waited_ns, 20000 * MS + QUIET_WINDOW_NS);
	assert_int_equal(slept + (int64_t)(s.nsleeps + 1) * QUIET_WINDOW_NS, r.waited_ns);
	assert_true(r.cores == 2.0);
}

/* No budget: one look, no wait. */
static void test_no_budget(void **state)
{
	static const double loads[] = { 2.0 };
	struct script s = { loads, 1, 0, 0, 0, 0, 0, 0, { 0 } };
	struct quiet_result r;

	(void)state;
	run(&s, 1.25, 0, &r);
	assert_int_equal(r.outcome, QUIET_SPENT);
	assert_int_equal(s.nsleeps, 0);
	assert_int_equal(s.nshown, 0);
}

static void test_unknown_and_interrupted(void **state)
{
	static const double unknown[] = { -1 };
	static const double busy[] = { 2.0 };
	struct script s1 = { unknown, 1, 0, 0, 0, 0, 0, 0, { 0 } };
	struct script s2 = { busy, 1, 0, 0, 2, 0, 0, 0, { 0 } };
	struct script s3 = { busy, 1, 0, 2, 0, 0, 0, 0, { 0 } };
	struct quiet_result r;

	(void)state;
	run(&s1, 1.25, 60000 * MS, &r);
	assert_int_equal(r.outcome, QUIET_UNKNOWN);
	run(&s2, 1.25, 60000 * MS, &r);
	assert_int_equal(r.outcome, QUIET_INTERRUPTED);
	assert_int_equal(r.signo, 15);
	assert_int_equal(r.waited_ns, 2 * QUIET_WINDOW_NS + 250 * MS + 250 * MS);
	run(&s3, 1.25, 60000 * MS, &r);
	assert_int_equal(r.outcome, QUIET_INTERRUPTED);
	assert_int_equal(r.signo, 2);
}

static void test_limit(void **state)
{
	(void)state;
	/* A single-threaded run on 2 CPUs stands one busy core, not two. */
	assert_true(quiet_limit(2, 1.0, -1) == 1.25);
	assert_true(quiet_limit(2, 0.3, -1) == 1.25);
	/* A run that keeps 1.5 cores busy needs more of them free. */
	assert_true(quiet_limit(2, 1.5, -1) == 0.75);
	/* Pinned to one CPU, or needing every CPU: a quarter core. */
	assert_true(quiet_limit(1, 1.0, -1) == 0.25);
	assert_true(quiet_limit(2, 3.0, -1) == 0.25);
	/* The plan's own limit wins. */
	assert_true(quiet_limit(2, 1.0, 0.5) == 0.5);
	assert_true(quiet_limit(2, 1.0, 0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_goes_at_once),
		cmocka_unit_test(test_waits_out_a_busy_spell),
		cmocka_unit_test(test_budget_spent),
		cmocka_unit_test(test_no_budget),
		cmocka_unit_test(test_unknown_and_interrupted),
		cmocka_unit_test(test_limit),
	};
	return cmocka_run_group_tests_name("quiet", tests, NULL, NULL);
}
