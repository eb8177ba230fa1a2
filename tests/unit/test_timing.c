/*
 * Unit tests of timing.c: hyperfine's block of one command's times on a
 * scripted comparison and records — the layout, the unit chosen from the
 * mean and kept for every figure, User and System as the means of the
 * counted runs' CPU times (not of the others), a single run, no run, an
 * escaped name, and the colours on and off.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "report/timing.h"
#include "util/compiler.h"
#include "util/strbuf.h"

/* Runs 1 and 3 count, with 10 and 14 ms; run 2 is another variant's, run 4 was discarded. */
static struct cmp_value values[] = { { .value = 10, .seq = 1 }, { .value = 14, .seq = 3 } };
static struct invocation invs[4];

static void script(struct cmp_sample *s, struct cmp_metric *m, struct comparison *c,
		   const char *variant, size_t n)
{
	*s = (struct cmp_sample){ .variant = variant, .is_reference = 1, .values = values,
				  .n = n, .mean = n == 1 ? 10 : 12, .sd = n == 1 ? 0 : 2.828,
				  .min = 10, .max = n == 1 ? 10 : 14 };
	*m = (struct cmp_metric){ .name = "wall", .unit = "ms", .source = "builtin",
				  .samples = s, .nsamples = 1 };
	*c = (struct comparison){ .metrics = m, .nmetrics = 1 };
	for (unsigned i = 0; i < ARRAY_SIZE(invs); i++) {
		invs[i] = (struct invocation){ .seq = i + 1 };
		invs[i].fig.user_ns = (int64_t)(i + 1) * 1000000;  /* 1, 2, 3, 4 ms */
		invs[i].fig.sys_ns = 500000;
	}
}

static void test_block(void **state)
{
	struct cmp_sample s;
	struct cmp_metric m;
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	script(&s, &m, &c, "gzip-1", 2);
	timing_add(&sb, &c, 0, invs, ARRAY_SIZE(invs), 0);
	/* User: runs 1 and 3 (1 and 3 ms), not 2 or 4. */
	assert_string_equal(sb.buf,
			    "Benchmark 1: gzip-1\n"
			    "  Time (mean \xc2\xb1 \xcf\x83):      12.0 ms \xc2\xb1   2.8 ms    "
			    "[User: 2.0 ms, System: 0.5 ms]\n"
			    "  Range (min \xe2\x80\xa6 max):    10.0 ms \xe2\x80\xa6  14.0 ms    "
			    "2 runs\n");
	strbuf_release(&sb);
}

static void test_single_and_none(void **state)
{
	struct cmp_sample s;
	struct cmp_metric m;
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	script(&s, &m, &c, "a", 1);
	timing_add(&sb, &c, 0, invs, ARRAY_SIZE(invs), 0);
	assert_string_equal(sb.buf, "Benchmark 1: a\n"
				    "  Time (abs \xe2\x89\xa1):         10.0 ms              "
				    "[User: 1.0 ms, System: 0.5 ms]\n");
	strbuf_reset(&sb);
	script(&s, &m, &c, "a", 0);
	timing_add(&sb, &c, 0, invs, ARRAY_SIZE(invs), 0);
	assert_string_equal(sb.buf, "Benchmark 1: a\n  Time: no counted run\n");
	strbuf_release(&sb);
}

/* A name cannot drive the terminal; the colours are hyperfine's, and only when asked. */
static void test_escaped_and_coloured(void **state)
{
	struct cmp_sample s;
	struct cmp_metric m;
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	script(&s, &m, &c, "x\033[2Jy", 2);
	timing_add(&sb, &c, 0, invs, ARRAY_SIZE(invs), 1);
	assert_non_null(strstr(sb.buf, "\033[1mBenchmark 1\033[0m: x\\x1b[2Jy\n"));
	assert_non_null(strstr(sb.buf, "\033[1;32m12.0 ms\033[0m"));
	assert_non_null(strstr(sb.buf, "\033[2m2 runs\033[0m"));
	assert_non_null(strstr(sb.buf, "[User: \033[34m2.0 ms\033[0m"));
	strbuf_reset(&sb);
	timing_add(&sb, &c, 0, invs, ARRAY_SIZE(invs), 0);
	assert_null(strchr(sb.buf, '\033'));
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block),
		cmocka_unit_test(test_single_and_none),
		cmocka_unit_test(test_escaped_and_coloured),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
