/*
 * Unit tests of colour.c: the decision on scripted inputs (a terminal or
 * not, NO_COLOR set, empty or unset, TERM dumb, unset or a real one, and
 * --color's three values over all of them), the words --color takes, and
 * the escapes colour_add() writes, or not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "util/colour.h"
#include "util/compiler.h"
#include "util/strbuf.h"

/* auto: a terminal with a known type, and NO_COLOR unset or empty. */
static void test_decide_auto(void **state)
{
	static const struct {
		int tty;
		const char *no_color, *term;
		int want;
	} cases[] = {
		{ 1, NULL, "xterm-256color", 1 },
		{ 1, "", "xterm", 1 },          /* an empty NO_COLOR does not count */
		{ 0, NULL, "xterm", 0 },        /* piped or redirected */
		{ 1, "1", "xterm", 0 },
		{ 1, "0", "xterm", 0 },         /* any value but empty */
		{ 1, NULL, "dumb", 0 },
		{ 1, NULL, NULL, 0 },           /* no TERM: as dumb */
		{ 1, NULL, "", 0 },
		{ 0, "1", "dumb", 0 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int got = colour_decide(COLOUR_AUTO, cases[i].tty, cases[i].no_color,
					cases[i].term);
		if (got != cases[i].want)
			fail_msg("case %zu: colour %d, want %d", i, got, cases[i].want);
	}
}

/* always and never hold whatever the stream and the environment say. */
static void test_decide_forced(void **state)
{
	(void)state;
	for (int tty = 0; tty < 2; tty++) {
		assert_int_equal(colour_decide(COLOUR_ALWAYS, tty, "1", "dumb"), 1);
		assert_int_equal(colour_decide(COLOUR_ALWAYS, tty, NULL, "xterm"), 1);
		assert_int_equal(colour_decide(COLOUR_NEVER, tty, NULL, "xterm"), 0);
		assert_int_equal(colour_decide(COLOUR_NEVER, tty, "", "xterm"), 0);
	}
}

static void test_when_parse(void **state)
{
	enum colour_when w = COLOUR_NEVER;

	(void)state;
	assert_int_equal(colour_when_parse("auto", &w), 0);
	assert_int_equal(w, COLOUR_AUTO);
	assert_int_equal(colour_when_parse("always", &w), 0);
	assert_int_equal(w, COLOUR_ALWAYS);
	assert_int_equal(colour_when_parse("never", &w), 0);
	assert_int_equal(w, COLOUR_NEVER);
	assert_int_equal(colour_when_parse("yes", &w), -1);
	assert_int_equal(colour_when_parse("", &w), -1);
	assert_int_equal(colour_when_parse("Always", &w), -1);
	assert_int_equal(w, COLOUR_NEVER);
}

/* A stream that is not a terminal gets none under auto. */
static void test_stream_not_tty(void **state)
{
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	assert_int_equal(colour_stream(COLOUR_AUTO, f), 0);
	assert_int_equal(colour_stream(COLOUR_ALWAYS, f), 1);
	fclose(f);
}

static void test_add(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	colour_add(&sb, 1, COLOUR_BOLD_GREEN, "12.3 ms");
	assert_string_equal(sb.buf, "\033[1;32m12.3 ms\033[0m");
	strbuf_reset(&sb);
	colour_add(&sb, 0, COLOUR_BOLD_GREEN, "12.3 ms");
	assert_string_equal(sb.buf, "12.3 ms");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide_auto),
		cmocka_unit_test(test_decide_forced),
		cmocka_unit_test(test_when_parse),
		cmocka_unit_test(test_stream_not_tty),
		cmocka_unit_test(test_add),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
