/* Unit tests of progress: the live line's running median and n count only
 * the runs the comparison counts (no warmups, no discarded or crashed
 * runs), per variant, and say "--" before there is one; the live line fits
 * the terminal's width, so that "\r" and erase redraw it in place, and is
 * all a terminal shows while abev runs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
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

/* Characters (not bytes) after the last "\r\033[K" in out. */
static size_t last_line_chars(const char *out)
{
	const char *s = out, *p;
	size_t n = 0;

	while ((p = strstr(s, "\r\033[K")))
		s = p + 4;
	for (; *s && *s != '\n'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* A 51-character name at 40 and 80 columns: each redraw stays within the
 * width, the name is cut on a character boundary, and a finished run adds
 * no line of its own. */
static void test_live_fits_width(void **state)
{
	static const struct { size_t columns; const char *unit; size_t reps; } cases[] = {
		{ 80, "a-very-long-variant-name-that-fills-the-line-abcdef", 1 },
		{ 40, "a-very-long-variant-name-that-fills-the-line-abcdef", 1 },
		{ 40, "\xc3\xa9", 51 },     /* 51 two-byte characters */
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct progress p;
		struct invocation inv;
		char name[128] = "", *out = NULL;
		size_t outlen = 0;
		FILE *f = open_memstream(&out, &outlen);

		for (size_t r = 0; r < cases[i].reps; r++)
			strcat(name, cases[i].unit);
		assert_non_null(f);
		progress_init(&p, PROGRESS_LIVE, 12, 1.0);
		p.out = f;
		p.columns = cases[i].columns;
		progress_start(&p, 0, name, 0, 1, 1);
		progress_tick(&p, 500000000);
		fflush(f);
		assert_true(last_line_chars(out) < cases[i].columns);
		assert_true(last_line_chars(out) > 0);
		assert_true((unsigned char)out[outlen - 1] < 0xc0);   /* no half character */
		memset(&inv, 0, sizeof(inv));
		inv.variant = name;
		inv.status = INV_OK;
		inv.fig.wall_ns = 100000000;
		progress_done(&p, &inv);
		progress_gap(&p, 300000000);
		progress_clear(&p);
		assert_int_equal(fclose(f), 0);
		assert_null(strchr(out, '\n'));
		assert_null(strstr(out, "abev: ["));
		free(out);
		progress_release(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_and_n),
		cmocka_unit_test(test_live_fits_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
