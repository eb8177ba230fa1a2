/* Unit tests of progress: the live line's running median and n count only
 * the runs the comparison counts (no warmups, no discarded or crashed
 * runs), per variant, and say "--" before there is one. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "evidence/evidence.h"
#include "pipeline/progress.h"
#include "util/strbuf.h"

static void finish(struct progress *p, const char *variant, int warmup, enum inv_status status,
		   int exit_code, int64_t wall_ms)
{
	struct invocation inv;

	memset(&inv, 0, sizeof(inv));
	inv.variant = (char *)variant;
	inv.warmup = warmup;
	inv.status = status;
	inv.exit_code = exit_code;
	inv.fig.wall_ns = wall_ms * 1000000;
	progress_start(p, p->done, variant, warmup, 1, 1);
	progress_done(p, &inv);
}

static void expect_line(const struct progress *p, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	progress_line(p, "| 0.5s | ETA 1.0s", &sb);
	if (strcmp(sb.buf, want))
		print_message("got  '%s'\nwant '%s'\n", sb.buf, want);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void test_median_and_n(void **state)
{
	struct progress p;
	(void)state;

	progress_init(&p, PROGRESS_QUIET, 12, 0);
	progress_start(&p, 0, "a", 1, 1, 1);
	expect_line(&p, "[1/12] a warmup 1 | 0.5s | ETA 1.0s | median -- (n=0)");
	finish(&p, "a", 1, INV_OK, 0, 5000);            /* warmup: not counted */
	finish(&p, "a", 0, INV_OK, 0, 100);
	finish(&p, "b", 0, INV_OK, 0, 2000);
	finish(&p, "a", 0, INV_DISCARDED, 0, 9000);     /* discarded: not counted */
	finish(&p, "a", 0, INV_FAILED, -1, 9000);       /* killed: not counted */
	finish(&p, "a", 0, INV_OK, 0, 300);
	progress_start(&p, 6, "a", 0, 3, 1);
	expect_line(&p, "[7/12] a run 3 | 0.5s | ETA 1.0s | median 200 ms (n=2)");
	finish(&p, "a", 0, INV_OK, 0, 250);
	progress_start(&p, 7, "a", 0, 4, 2);
	expect_line(&p, "[8/12] a run 4 (repeat) | 0.5s | ETA 1.0s | median 250 ms (n=3)");
	progress_start(&p, 7, "b", 0, 2, 1);
	expect_line(&p, "[8/12] b run 2 | 0.5s | ETA 1.0s | median 2.00 s (n=1)");
	progress_start(&p, 7, "c", 0, 1, 1);
	expect_line(&p, "[8/12] c run 1 | 0.5s | ETA 1.0s | median -- (n=0)");
	progress_release(&p);
	progress_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_and_n),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
