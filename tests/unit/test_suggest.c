/*
 * Unit tests of suggest.c: distances checked by hand (insertions,
 * deletions, substitutions, swaps, the length cap), and a table of
 * misspellings with the name each should bring up — or none.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "suggest.h"
#include "util.h"

static void test_distance(void **state)
{
	static const struct {
		const char *a, *b;
		size_t d;
	} cases[] = {
		{ "", "", 0 },            { "abc", "abc", 0 },       { "", "abc", 3 },
		{ "abc", "", 3 },         { "kitten", "sitting", 3 }, { "alternat", "alternate", 1 },
		{ "gap_secs", "gap_seconds", 3 }, { "fial", "fail", 1 }, /* a swap is one edit */
		{ "ab", "ba", 1 },        { "abc", "ca", 3 },        /* OSA: no edit of a swapped pair */
		{ "Runs", "runs", 1 },    { "max", "mean", 2 },
	};
	char longer[SUGGEST_MAX_LEN + 2];
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t d = suggest_distance(cases[i].a, cases[i].b);
		if (d != cases[i].d)
			fail_msg("distance('%s', '%s') = %zu, want %zu", cases[i].a, cases[i].b, d,
				 cases[i].d);
		assert_int_equal(suggest_distance(cases[i].b, cases[i].a), d);
	}
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(suggest_distance(longer, "a"), SIZE_MAX);
	longer[SUGGEST_MAX_LEN] = '\0';
	assert_int_equal(suggest_distance(longer, longer), 0);
}

static void test_nearest(void **state)
{
	static const char *const keys[] = {
		"warmups", "runs", "order", "seed", "gap_seconds", "timeout_seconds",
		"kill_grace_seconds", "cpus",
	};
	static const char *const orders[] = { "alternate", "reverse", "shuffle" };
	static const char *const matches[] = { "first", "last", "sum", "mean" };
	static const struct {
		const char *word;
		const char *const *names;
		size_t n;
		const char *want; /* NULL: no suggestion */
	} cases[] = {
		{ "gap_secs", keys, ARRAY_SIZE(keys), "gap_seconds" },
		{ "ordr", keys, ARRAY_SIZE(keys), "order" },
		{ "warmup", keys, ARRAY_SIZE(keys), "warmups" },
		{ "timeout", keys, ARRAY_SIZE(keys), "timeout_seconds" }, /* a clipped name */
		{ "run", keys, ARRAY_SIZE(keys), "runs" },
		{ "cpu", keys, ARRAY_SIZE(keys), "cpus" },
		{ "colour", keys, ARRAY_SIZE(keys), NULL },
		{ "x", keys, ARRAY_SIZE(keys), NULL },
		{ "", keys, ARRAY_SIZE(keys), NULL },
		{ "runs", keys, ARRAY_SIZE(keys), NULL },              /* known: nothing to suggest */
		{ "alternat", orders, ARRAY_SIZE(orders), "alternate" },
		{ "Reverse", orders, ARRAY_SIZE(orders), "reverse" },
		{ "random", orders, ARRAY_SIZE(orders), NULL },
		{ "max", matches, ARRAY_SIZE(matches), NULL },         /* two of three letters off */
		{ "sums", matches, ARRAY_SIZE(matches), "sum" },
		{ "fist", matches, ARRAY_SIZE(matches), "first" },
		{ "lst", matches, ARRAY_SIZE(matches), "last" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got = suggest_nearest(cases[i].word, cases[i].names, cases[i].n);
		int ok = cases[i].want ? got && !strcmp(got, cases[i].want) : !got;
		if (!ok)
			fail_msg("nearest('%s') = %s, want %s", cases[i].word, got ? got : "(none)",
				 cases[i].want ? cases[i].want : "(none)");
	}
}

/* Of two names at the same distance the earlier wins; a nearer later one wins. */
static void test_ties(void **state)
{
	static const char *const names[] = { "bat", "cat", "cart" };
	(void)state;
	assert_string_equal(suggest_nearest("hat", names, 3), "bat");
	assert_string_equal(suggest_nearest("carts", names, 3), "cart");
	assert_null(suggest_nearest("hat", names, 0));
}

static void test_message_macro(void **state)
{
	char buf[128];
	const char *none = NULL;
	(void)state;
	snprintf(buf, sizeof(buf), "unknown 'x'" SUGGEST_FMT, SUGGEST_ARGS("y"));
	assert_string_equal(buf, "unknown 'x', did you mean 'y'?");
	snprintf(buf, sizeof(buf), "unknown 'x'" SUGGEST_FMT, SUGGEST_ARGS(none));
	assert_string_equal(buf, "unknown 'x'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_message_macro),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
