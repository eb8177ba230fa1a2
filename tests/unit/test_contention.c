/*
 * Unit tests of contention: the load of scripted runs — which count,
 * which were kept under load, the largest and median share of wall time
 * they waited on others, the waits for a quieter machine — and the
 * sentences the terminal and report.md both say it in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "record/invocation.h"
#include "report/contention.h"
#include "util/compiler.h"
#include "util/strbuf.h"

#define MS 1000000LL

/* A run of 100 ms that waited pct % of it on others (-1: not measured). */
static struct invocation run(int warmup, enum inv_status st, double pct, int loaded,
			     int64_t load_wait_ms)
{
	struct invocation v;

	memset(&v, 0, sizeof(v));
	v.warmup = warmup;
	v.status = st;
	v.fig.wall_ns = 100 * MS;
	v.foreign_wait_ns = pct < 0 ? -1 : (int64_t)(pct * MS);
	v.cpu_wait_ns = v.foreign_wait_ns;
	v.loaded = loaded;
	v.load_wait_ns = load_wait_ms * MS;
	return v;
}

/*
 * Warmups and discarded runs do not count, but the waits before them do;
 * the median is the loaded runs' own, and of all counted runs apart.
 */
static void test_count(void **state)
{
	struct invocation invs[] = {
		run(1, INV_OK, 90, 0, 0),             /* a warmup: not counted */
		run(0, INV_DISCARDED, 80, 0, 2250),   /* discarded: its wait is */
		run(0, INV_OK, 45, 1, 1250),
		run(0, INV_OK, 30, 1, 0),
		run(0, INV_OK, 2, 0, 0),
		run(0, INV_FAILED, 0, 0, 0),
		run(0, INV_OK, -1, 1, 0),             /* loaded, its wait unknown */
	};
	struct contention ct;

	(void)state;
	contention_count(&ct, invs, ARRAY_SIZE(invs));
	assert_int_equal(ct.counted, 5);
	assert_int_equal(ct.loaded, 3);
	assert_int_equal(ct.of_loaded.n, 2);
	assert_true(ct.of_loaded.max == 45);
	assert_true(ct.of_loaded.median == 37.5);
	assert_int_equal(ct.all.n, 4);
	assert_true(ct.all.max == 45);
	assert_true(ct.all.median == 16);
	assert_int_equal(ct.waits, 2);
	assert_int_equal(ct.waited_ns, 3500 * MS);
	assert_true(contention_seen(&ct));
}

/* Under 1 % of wall time, nothing loaded, no wait: nothing to speak of; at 1 %, there is. */
static void test_seen(void **state)
{
	struct invocation quiet[] = { run(0, INV_OK, 0.9, 0, 0), run(0, INV_OK, -1, 0, 0) };
	struct invocation waited[] = { run(0, INV_OK, 0, 0, 10) };
	struct invocation at[] = { run(0, INV_OK, 1, 0, 0) };
	struct contention ct;

	(void)state;
	contention_count(&ct, quiet, ARRAY_SIZE(quiet));
	assert_false(contention_seen(&ct));
	contention_count(&ct, waited, ARRAY_SIZE(waited));
	assert_true(contention_seen(&ct));
	contention_count(&ct, at, ARRAY_SIZE(at));
	assert_true(contention_seen(&ct));
	contention_count(&ct, NULL, 0);
	assert_false(contention_seen(&ct));
	assert_int_equal(ct.all.n, 0);
	assert_true(ct.all.max == -1);
}

/* The loaded runs' sentence: with a median where two or more were measured, none where none was. */
static void test_loaded_sentence(void **state)
{
	struct invocation two[] = {
		run(0, INV_OK, 45, 1, 0), run(0, INV_OK, 30, 1, 0), run(0, INV_OK, 0, 0, 0),
	};
	struct invocation one[] = { run(0, INV_OK, 12.34, 1, 0), run(0, INV_OK, 3, 0, 0) };
	struct invocation unknown[] = { run(0, INV_OK, -1, 1, 0) };
	static const char lead[] = "counted run(s) ran under load, kept and marked loaded: their "
				   "wall times include ";
	const struct {
		const struct invocation *invs;
		size_t n;
		const char *want_count, *want_rest;
	} cases[] = {
		{ two, ARRAY_SIZE(two), "2 of 3 ", "up to 45.0 % (median 37.5 %) waiting for CPUs "
		  "other work held" },
		{ one, ARRAY_SIZE(one), "1 of 2 ", "up to 12.3 % waiting for CPUs other work held" },
		{ unknown, ARRAY_SIZE(unknown), "1 of 1 ", "waiting for CPUs other work held (how "
		  "much was not measured)" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
		struct contention ct;

		contention_count(&ct, cases[i].invs, cases[i].n);
		contention_loaded(&sb, &ct);
		strbuf_addf(&want, "%s%s%s", cases[i].want_count, lead, cases[i].want_rest);
		print_message("case %zu\n", i);
		assert_string_equal(sb.buf, want.buf);
		strbuf_release(&sb);
		strbuf_release(&want);
	}
}

/* The other sentences, as the terminal and the report show them. */
static void test_sentences(void **state)
{
	struct invocation two[] = {
		run(0, INV_OK, 45, 1, 2250), run(0, INV_OK, 30, 1, 1250), run(0, INV_OK, 0, 0, 0),
	};
	struct invocation unknown[] = { run(0, INV_OK, -1, 1, 0) };
	struct strbuf sb = STRBUF_INIT;
	struct contention ct;

	(void)state;
	contention_count(&ct, two, ARRAY_SIZE(two));
	contention_waited(&sb, &ct, 60, "load.max_wait_seconds");
	assert_string_equal(sb.buf, "waited 3.5 s in all for a quieter machine, before 2 run(s) "
			    "(at most 60 s: load.max_wait_seconds)");
	strbuf_reset(&sb);
	contention_counted(&sb, &ct);
	assert_string_equal(sb.buf, "Counted runs waited up to 45.0 % (median 30.0 %) of their "
			    "wall time for CPUs other work held");
	strbuf_reset(&sb);
	/* No counted run's wait known: nothing to say. */
	contention_count(&ct, unknown, ARRAY_SIZE(unknown));
	contention_counted(&sb, &ct);
	assert_string_equal(sb.buf, "");
	contention_trust(&sb, &ct);
	assert_string_equal(sb.buf, "wall_own (wall less that wait) and CPU time (cpu) are not "
			    "lengthened by it: trust them over wall here");
	strbuf_release(&sb);
}

/*
 * "Trust them over wall" only where wall_own is exact by construction:
 * every run that waited on others ran one thread at a time. A run whose
 * wait was found otherwise, or that waited under 1 %, is counted apart.
 */
static void test_trust(void **state)
{
	static const struct {
		enum foreign_wait_basis basis[3];
		size_t contended, estimated;
		const char *want;
	} cases[] = {
		{ { FOREIGN_WAIT_ONE_THREAD, FOREIGN_WAIT_ONE_THREAD, FOREIGN_WAIT_THREADS }, 2, 0,
		  "wall_own (wall less that wait) and CPU time (cpu) are not lengthened by it: trust "
		  "them over wall here" },
		{ { FOREIGN_WAIT_ONE_THREAD, FOREIGN_WAIT_FOREIGN_BUSY, FOREIGN_WAIT_ONE_THREAD }, 2, 1,
		  "wall_own (wall less that wait) is an estimate for 1 of 2 run(s) that waited (their "
		  "threads ran side by side, or others' CPU time bounded the wait: docs/plan.md, "
		  "Contention) and CPU time (cpu) is not lengthened by it: compare both rather than "
		  "wall here" },
		{ { FOREIGN_WAIT_CGROUP, FOREIGN_WAIT_THREADS, FOREIGN_WAIT_ONE_THREAD }, 2, 2, NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		/* Two runs waited 40 % and 20 % on others, the third 0.5 %. */
		struct invocation invs[] = {
			run(0, INV_OK, 40, 1, 0), run(0, INV_OK, 20, 0, 0), run(0, INV_OK, 0.5, 0, 0),
		};
		struct strbuf sb = STRBUF_INIT;
		struct contention ct;

		for (size_t k = 0; k < ARRAY_SIZE(invs); k++)
			invs[k].foreign_wait_basis = cases[i].basis[k];
		contention_count(&ct, invs, ARRAY_SIZE(invs));
		assert_int_equal(ct.contended, cases[i].contended);
		assert_int_equal(ct.estimated, cases[i].estimated);
		contention_trust(&sb, &ct);
		if (cases[i].want)
			assert_string_equal(sb.buf, cases[i].want);
		else
			assert_non_null(strstr(sb.buf, "is an estimate for 2 of 2 run(s)"));
		strbuf_release(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_seen),
		cmocka_unit_test(test_loaded_sentence),
		cmocka_unit_test(test_sentences),
		cmocka_unit_test(test_trust),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
