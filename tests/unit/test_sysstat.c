/*
 * Unit tests of sysstat: the /proc/loadavg and /proc/stat parsers on fixed
 * text, and the foreign-load arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sysstat.h"

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
		int rc = loadavg_parse(c->text, &la);
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
		struct cpustat cs = { 1, 7, 7 };
		int rc = cpustat_parse(c->text, &cs);
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
	assert_int_equal(loadavg_read(&la), 0);
	assert_int_equal(la.valid, 1);
	assert_true(la.total >= 1);
	assert_int_equal(cpustat_read(&a), 0);
	assert_int_equal(cpustat_read(&b), 0);
	assert_true(a.valid && b.valid);
	assert_true(b.busy_ticks >= a.busy_ticks);
	assert_true(a.total_ticks >= a.busy_ticks);
	assert_true(sysstat_ticks_per_second() > 0);
}

static void test_foreign_cpu(void **state)
{
	long hz = sysstat_ticks_per_second();
	struct cpustat before = { 1, 1000, 5000 };
	struct cpustat after = { 1, 1000 + (uint64_t)hz * 3, 9000 };
	struct cpustat invalid = { 0, 0, 0 };
	struct cpustat backwards = { 1, 999, 9000 };
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
		int r = psi_parse_some_total(cases[i].text, &us);
		assert_int_equal(r, cases[i].ok ? 0 : -1);
		if (cases[i].ok)
			assert_int_equal(us, cases[i].want);
	}
	assert_int_equal(psi_read_some_total("/nonexistent/cpu.pressure"), -1);
}

static void test_schedstat(void **state)
{
	int64_t ns = -1;
	(void)state;
	assert_int_equal(schedstat_parse_run_delay("5000 72679 1\n", &ns), 0);
	assert_int_equal(ns, 72679);
	assert_int_equal(schedstat_parse_run_delay("5000\n", &ns), -1);
	assert_int_equal(schedstat_parse_run_delay("x 1 2\n", &ns), -1);
	assert_int_equal(schedstat_parse_run_delay("1 -2 3\n", &ns), -1);
	/* Our own threads: readable where the kernel keeps schedstats. */
	if (access("/proc/self/schedstat", R_OK) == 0)
		assert_true(schedstat_run_delay(getpid()) >= 0);
	assert_int_equal(schedstat_run_delay(0x7ffffff0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loadavg_parse),
		cmocka_unit_test(test_cpustat_parse),
		cmocka_unit_test(test_read_live),
		cmocka_unit_test(test_foreign_cpu),
		cmocka_unit_test(test_psi_parse),
		cmocka_unit_test(test_schedstat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
