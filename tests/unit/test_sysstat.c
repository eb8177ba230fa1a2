/*
 * Unit tests of sysstat: the /proc/loadavg and /proc/stat parsers on fixed
 * text, and the foreign-load arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/cpulist.h"
#include "measure/sysstat.h"

#include <unistd.h>

struct loadavg_case {
	const char *text;
	int ok;
	double m1, m5, m15;
	long runnable, total;
};

static const struct loadavg_case loadavg_cases[] = {
	{ "0.52 0.58 0.59 2/1234 56789\n", 1, 0.52, 0.58, 0.59, 2, 1234 },
	{ "12.00 7.50 3.25 17/4096 1", 1, 12.0, 7.5, 3.25, 17, 4096 },
	{ "0.00 0.00 0.00 0/1 1\n", 1, 0, 0, 0, 0, 1 },
	{ "", 0, 0, 0, 0, 0, 0 },
	{ "0.52 0.58\n", 0, 0, 0, 0, 0, 0 },
	{ "0.52 0.58 0.59 2 1234\n", 0, 0, 0, 0, 0, 0 },
	{ "0.52 0.58 0.59 2/ 56789\n", 0, 0, 0, 0, 0, 0 },
	{ "a 0.58 0.59 2/1234 5\n", 0, 0, 0, 0, 0, 0 },
	{ "-1 0.58 0.59 2/1234 5\n", 0, 0, 0, 0, 0, 0 },
	{ "0.52x 0.58 0.59 2/1234 5\n", 0, 0, 0, 0, 0, 0 },
};

static void test_loadavg_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(loadavg_cases) / sizeof(loadavg_cases[0]); i++) {
		const struct loadavg_case *c = &loadavg_cases[i];
		struct loadavg la = { 1, 9, 9, 9, 9, 9 };
		int rc = sysstat_loadavg_parse(c->text, &la);
		if (c->ok) {
			assert_int_equal(rc, 0);
			assert_int_equal(la.valid, 1);
			assert_float_equal(la.m1, c->m1, 1e-9);
			assert_float_equal(la.m5, c->m5, 1e-9);
			assert_float_equal(la.m15, c->m15, 1e-9);
			assert_int_equal(la.runnable, c->runnable);
			assert_int_equal(la.total, c->total);
		} else {
			assert_int_equal(rc, -1);
			assert_int_equal(la.valid, 0);
		}
	}
}

struct cpustat_case {
	const char *text;
	int ok;
	uint64_t busy, total;
};

static const struct cpustat_case cpustat_cases[] = {
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	{ "cpu  100 20 30 1000 50 5 6 7 40 4\ncpu0 1 2 3 4 5 6 7 8 9 10\n", 1,
	  100 + 20 + 30 + 5 + 6 + 7, 100 + 20 + 30 + 5 + 6 + 7 + 1000 + 50 },
	/* guest time is already inside user: not counted twice */
	{ "cpu 1 0 0 0 0 0 0 0 999 999\n", 1, 1, 1 },
	/* old kernels: only four columns */
	{ "cpu 10 0 5 100\n", 1, 15, 115 },
	{ "cpu 18446744073709551615 0 0 0\n", 1, UINT64_MAX, UINT64_MAX },
	{ "cpu 1 2 3\n", 0, 0, 0 },
	{ "cpu0 1 2 3 4 5 6 7 8\n", 0, 0, 0 },
	{ "intr 1 2 3 4\n", 0, 0, 0 },
	{ "cpu 1 2 x 4\n", 0, 0, 0 },
	{ "cpu -1 2 3 4\n", 0, 0, 0 },
	{ "", 0, 0, 0 },
};

static void test_cpustat_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cpustat_cases) / sizeof(cpustat_cases[0]); i++) {
		const struct cpustat_case *c = &cpustat_cases[i];
		struct cpustat cs = { .valid = 1, .busy_ticks = 7, .total_ticks = 7 };
		int rc = sysstat_cpustat_parse(c->text, &cs);
		if (c->ok) {
			assert_int_equal(rc, 0);
			assert_int_equal(cs.valid, 1);
			assert_true(cs.busy_ticks == c->busy);
			assert_true(cs.total_ticks == c->total);
		} else {
			assert_int_equal(rc, -1);
			assert_int_equal(cs.valid, 0);
		}
	}
}

static void test_read_live(void **state)
{
	struct loadavg la;
	struct cpustat a, b;
	(void)state;
	assert_int_equal(sysstat_loadavg_read(&la), 0);
	assert_int_equal(la.valid, 1);
	assert_true(la.total >= 1);
	assert_int_equal(sysstat_cpustat_read(&a), 0);
	assert_int_equal(sysstat_cpustat_read(&b), 0);
	assert_true(a.valid && b.valid);
	assert_true(b.busy_ticks >= a.busy_ticks);
	assert_true(a.total_ticks >= a.busy_ticks);
	assert_true(sysstat_ticks_per_second() > 0);
}

static void test_foreign_cpu(void **state)
{
	long hz = sysstat_ticks_per_second();
	struct cpustat before = { .valid = 1, .busy_ticks = 1000, .total_ticks = 5000 };
	struct cpustat after = { .valid = 1, .busy_ticks = 1000 + (uint64_t)hz * 3, .total_ticks = 9000 };
	struct cpustat invalid = { .valid = 0 };
	struct cpustat backwards = { .valid = 1, .busy_ticks = 999, .total_ticks = 9000 };
	double ncpu = (double)sysconf(_SC_NPROCESSORS_ONLN);
	(void)state;
	/* 3 s of machine busy time in a 2 s window, 1 s of it ours: 1 core foreign. */
	assert_float_equal(sysstat_foreign_cpu(&before, &after, 1000000000LL, 2000000000LL),
			   1.0, 1e-9);
	/* nothing ours: 1.5 cores (at most every online CPU) */
	assert_float_equal(sysstat_foreign_cpu(&before, &after, 0, 2000000000LL),
			   ncpu < 1.5 ? ncpu : 1.5, 1e-9);
	/* 3 s booked in a 0.1 ms window (a tickless CPU's lump): never more than every CPU */
	assert_float_equal(sysstat_foreign_cpu(&before, &after, 0, 100000LL), ncpu, 1e-9);
	/* ours exceeds the machine's (tick granularity): clamped at 0 */
	assert_float_equal(sysstat_foreign_cpu(&before, &after, 5000000000LL, 2000000000LL),
			   0.0, 1e-12);
	assert_float_equal(sysstat_foreign_cpu(&before, &before, 0, 1000000), 0.0, 1e-12);
	assert_float_equal(sysstat_foreign_cpu(&invalid, &after, 0, 1000000), -1.0, 1e-12);
	assert_float_equal(sysstat_foreign_cpu(&before, &invalid, 0, 1000000), -1.0, 1e-12);
	assert_float_equal(sysstat_foreign_cpu(&before, &after, 0, 0), -1.0, 1e-12);
	assert_float_equal(sysstat_foreign_cpu(&before, &after, 0, -5), -1.0, 1e-12);
	assert_float_equal(sysstat_foreign_cpu(&before, &backwards, 0, 1000000), -1.0, 1e-12);
}

static void test_cpustat_parse_set(void **state)
{
	static const char text[] =
		"cpu  300 0 300 9000 0 0 0 0 0 0\n"
		"cpu0 100 0 100 3000 0 0 0 0 0 0\n"
		"cpu1 150 0 50 3000 0 0 0 0 0 0\n"
		"cpu3 50 0 150 3000 0 0 0 5 0 0\n"
		"intr 1 2 3\n"
		"cpu9 999 0 0 0\n";   /* not a CPU line: the cpuN lines end at intr */
	struct cpulist set = CPULIST_INIT;
	struct cpustat cs;
	char *why = NULL;
	(void)state;

	assert_int_equal(cpulist_parse("0,3", &set, &why), 0);
	assert_int_equal(sysstat_cpustat_parse_set(text, &set, &cs), 0);
	assert_int_equal(cs.valid, 1);
	assert_true(cs.busy_ticks == 600);
	assert_int_equal(cs.set_cpus, 2);
	assert_true(cs.set_busy_ticks == 200 + 205);
	/* CPU 2 has no line (offline): the set's figure is unknown, the machine's is not */
	assert_int_equal(cpulist_parse("1-2", &set, &why), 0);
	assert_int_equal(sysstat_cpustat_parse_set(text, &set, &cs), 0);
	assert_int_equal(cs.valid, 1);
	assert_int_equal(cs.set_cpus, 0);
	/* CPU 9's line comes after intr: not read as a CPU */
	assert_int_equal(cpulist_parse("9", &set, &why), 0);
	assert_int_equal(sysstat_cpustat_parse_set(text, &set, &cs), 0);
	assert_int_equal(cs.set_cpus, 0);
	/* a read cut short mid-line: the cut line does not count */
	assert_int_equal(cpulist_parse("3", &set, &why), 0);
	assert_int_equal(sysstat_cpustat_parse_set("cpu 1 2 3 4\ncpu3 50 0 150 3000\n", &set, &cs), 0);
	assert_int_equal(cs.set_cpus, 1);
	assert_int_equal(sysstat_cpustat_parse_set("cpu 1 2 3 4\ncpu3 50 0 150 30", &set, &cs), 0);
	assert_int_equal(cs.set_cpus, 0);
	/* a malformed CPU line leaves the set unknown */
	assert_int_equal(sysstat_cpustat_parse_set("cpu 1 2 3 4\ncpu3 50 x\n", &set, &cs), 0);
	assert_int_equal(cs.set_cpus, 0);
	/* no set: the machine's line only */
	assert_int_equal(sysstat_cpustat_parse_set(text, NULL, &cs), 0);
	assert_int_equal(cs.set_cpus, 0);
	assert_int_equal(sysstat_cpustat_parse_set("cpu0 1 2 3 4\n", &set, &cs), -1);
	assert_int_equal(cs.valid, 0);
}

static void test_read_live_set(void **state)
{
	struct cpulist set;
	struct cpustat cs;
	(void)state;

	sysstat_affinity(&set);
	assert_true(set.count >= 1);
	assert_int_equal(sysstat_cpustat_read_set(&set, &cs), 0);
	assert_int_equal(cs.valid, 1);
	assert_int_equal(cs.set_cpus, set.count);
	assert_true(cs.set_busy_ticks <= cs.busy_ticks);
}

static void test_foreign_wait(void **state)
{
	long hz = sysstat_ticks_per_second();
	int64_t tick = 1000000000 / hz;
	/* two CPUs: 1.5 s of busy time on them in a 1 s window */
	struct cpustat before = { .valid = 1, .set_busy_ticks = 100, .set_cpus = 2 };
	struct cpustat after = { .valid = 1, .set_busy_ticks = 100 + (uint64_t)hz * 3 / 2, .set_cpus = 2 };
	struct cpustat one = { .valid = 1, .set_busy_ticks = 200, .set_cpus = 1 };
	struct cpustat none = { .valid = 1 };
	(void)state;

	/* 1.2 s of it the run's own: 0.3 s foreign */
	assert_true(sysstat_foreign_busy_ns(&before, &after, 1200000000, 1000000000) ==
		    300000000);
	/* the run's own exceeds the ticks: 0 */
	assert_true(sysstat_foreign_busy_ns(&before, &after, 1600000000, 1000000000) == 0);
	/* a tickless lump: never more than every CPU of the set the whole window */
	assert_true(sysstat_foreign_busy_ns(&before, &after, 0, 100000) == 200000);
	/* unknown: no set, different sets, backwards, no window */
	assert_true(sysstat_foreign_busy_ns(&none, &after, 0, 1000000000) == -1);
	assert_true(sysstat_foreign_busy_ns(&before, &one, 0, 1000000000) == -1);
	assert_true(sysstat_foreign_busy_ns(&after, &before, 0, 1000000000) == -1);
	assert_true(sysstat_foreign_busy_ns(&before, &after, 0, 0) == -1);

	assert_true(sysstat_set_resolution_ns(2) == 4 * tick);
	/* no foreign work: nothing attributable (the run's own threads waiting for each other) */
	assert_true(sysstat_foreign_bound_ns(0, 2, -1) == 0);
	assert_true(sysstat_foreign_bound_ns(0, 2, 0) == 0);
	/* foreign work within the resolution: noise, not load */
	assert_true(sysstat_foreign_bound_ns(4 * tick, 2, -1) == 0);
	assert_true(sysstat_foreign_bound_ns(300000000 + 4 * tick, 2, -1) == 300000000);
	assert_true(sysstat_foreign_bound_ns(-1, 2, -1) == -1);
	/*
	 * Issue 30 §6: a 12 ms run beside a busy loop on its one CPU waited
	 * 6 ms; the ticks saw 1 of foreign work, under their 2-tick
	 * resolution, so the run was kept as "0.0 % on others". The
	 * nanosecond figure sees the 6.5 ms the loop ran.
	 */
	assert_true(sysstat_foreign_bound_ns(tick, 1, -1) == 0);
	assert_true(sysstat_foreign_bound_ns(tick, 1, 6500000) == 6500000);
	assert_true(sysstat_foreign_bound_ns(-1, 1, 2000000) == 2000000);
	/* the larger of the two bounds holds: ticks that saw more than a container's cpuacct */
	assert_true(sysstat_foreign_bound_ns(300000000 + 4 * tick, 2, 1000) == 300000000);
}

/* The nanosecond sources of a set's CPU time, and the foreign time from two samples. */
static void test_foreign_fine(void **state)
{
	static const char schedstat[] =
		"version 15\ntimestamp 4297299139\n"
		"cpu0 0 0 0 0 0 0 1000000 20000 300\n"
		"domain0 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"cpu1 0 0 0 0 0 0 7000000 40000 500\n"
		"domain0 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	struct cpulist one = CPULIST_INIT, both = CPULIST_INIT, three = CPULIST_INIT;
	struct cpustat before = { .valid = 1, .set_cpus = 1, .set_run_ns = 1000, .run_source = "cpuacct" };
	struct cpustat after = { .valid = 1, .set_cpus = 1, .set_run_ns = 13001000, .run_source = "cpuacct" };
	struct cpustat other = after;
	uint64_t ns = 0;
	(void)state;

	cpulist_add(&one, 1);
	cpulist_add(&both, 0);
	cpulist_add(&both, 1);
	cpulist_add(&three, 3);
	assert_int_equal(sysstat_schedstat_cpus_parse(schedstat, &one, &ns), 0);
	assert_true(ns == 7000000);
	assert_int_equal(sysstat_schedstat_cpus_parse(schedstat, &both, &ns), 0);
	assert_true(ns == 8000000);
	assert_int_equal(sysstat_schedstat_cpus_parse(schedstat, &three, &ns), -1);
	/* before version 15 the fields meant other things */
	assert_int_equal(sysstat_schedstat_cpus_parse("version 14\ncpu0 0 0 0 0 0 0 1 2 3\n", &both, &ns), -1);
	assert_int_equal(sysstat_cpuacct_percpu_parse("100 200 300 \n", &both, &ns), 0);
	assert_true(ns == 300);
	assert_int_equal(sysstat_cpuacct_percpu_parse("100 200 300 \n", &three, &ns), -1);
	assert_int_equal(sysstat_cpuacct_percpu_parse("100 x\n", &both, &ns), -1);

	/* 13 ms on the CPU in a 13 ms window, 6.5 ms of it the run's own */
	assert_true(sysstat_foreign_busy_fine_ns(&before, &after, 6500000, 13000000) == 6500000);
	assert_true(sysstat_foreign_busy_fine_ns(&before, &after, 20000000, 13000000) == 0);
	/* never more than the set for the whole window */
	assert_true(sysstat_foreign_busy_fine_ns(&before, &after, 0, 1000000) == 1000000);
	/* different sources, none, backwards: unknown */
	other.run_source = "schedstat";
	assert_true(sysstat_foreign_busy_fine_ns(&before, &other, 0, 13000000) == -1);
	other.run_source = NULL;
	assert_true(sysstat_foreign_busy_fine_ns(&before, &other, 0, 13000000) == -1);
	assert_true(sysstat_foreign_busy_fine_ns(&after, &before, 0, 13000000) == -1);
}

static void test_psi_parse(void **state)
{
	static const struct {
		const char *text;
		int ok;
		int64_t want;
	} cases[] = {
		{ "some avg10=8.00 avg60=2.86 avg300=8.92 total=640300197\n"
		  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", 1, 640300197 },
		/* the "full" line first, or alone: only "some" counts */
		{ "full avg10=0.00 total=5\nsome avg10=0.00 total=7\n", 1, 7 },
		{ "full avg10=0.00 total=5\n", 0, 0 },
		{ "some avg10=0.00 total=\n", 0, 0 },
		{ "some avg10=0.00 total=12x\n", 0, 0 },
		{ "some avg10=0.00 total=99999999999999999999\n", 0, 0 },
		{ "", 0, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t us = -5;
		int r = sysstat_psi_parse_some_total(cases[i].text, &us);
		assert_int_equal(r, cases[i].ok ? 0 : -1);
		if (cases[i].ok)
			assert_int_equal(us, cases[i].want);
	}
	assert_int_equal(sysstat_psi_read_some_total("/nonexistent/cpu.pressure"), -1);
}

static void test_schedstat(void **state)
{
	int64_t cpu = -1, ns = -1;
	(void)state;
	assert_int_equal(sysstat_schedstat_parse("5000 72679 1\n", &cpu, &ns), 0);
	assert_int_equal(cpu, 5000);
	assert_int_equal(ns, 72679);
	assert_int_equal(sysstat_schedstat_parse("5000\n", &cpu, &ns), -1);
	assert_int_equal(sysstat_schedstat_parse("x 1 2\n", &cpu, &ns), -1);
	assert_int_equal(sysstat_schedstat_parse("1 -2 3\n", &cpu, &ns), -1);
	assert_int_equal(sysstat_schedstat_parse("-1 2 3\n", &cpu, &ns), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loadavg_parse),
		cmocka_unit_test(test_cpustat_parse),
		cmocka_unit_test(test_read_live),
		cmocka_unit_test(test_foreign_cpu),
		cmocka_unit_test(test_cpustat_parse_set),
		cmocka_unit_test(test_read_live_set),
		cmocka_unit_test(test_foreign_wait),
		cmocka_unit_test(test_foreign_fine),
		cmocka_unit_test(test_psi_parse),
		cmocka_unit_test(test_schedstat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
