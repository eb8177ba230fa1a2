/*
 * Unit tests of suggest.c: distances checked by hand (insertions,
 * deletions, substitutions, swaps, case, substring mode, the length
 * bound), a table of misspellings with the name each should bring up —
 * or none — and the order, ties, limits and duplicates of suggest_list().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "util/suggest.h"
#include "util/compiler.h"

/* As plan keys are compared: swaps are one edit, case counts. */
static void test_distance_typo(void **state)
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
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t d = suggest_distance(cases[i].a, cases[i].b, SUGGEST_SWAPS);
		if (d != cases[i].d)
			fail_msg("distance('%s', '%s') = %zu, want %zu", cases[i].a, cases[i].b, d,
				 cases[i].d);
		assert_int_equal(suggest_distance(cases[i].b, cases[i].a, SUGGEST_SWAPS), d);
	}
}

/* As test names are compared: no swaps, ASCII case ignored, whole or a part. */
static void test_distance_names(void **state)
{
	static const struct {
		const char *a, *b;
		int substring;
		size_t want;
	} cases[] = {
		{ "", "", 0, 0 },
		{ "", "abc", 0, 3 },
		{ "abc", "", 0, 3 },
		{ "kitten", "sitting", 0, 3 },
		{ "flaw", "lawn", 0, 2 },
		{ "gates", "gate", 0, 1 },
		{ "schedule", "shcedule", 0, 2 },    /* a swap is two edits here */
		{ "Parse", "parse", 0, 0 },          /* ASCII case does not count */
		{ "Prase", "Bench.Parse.Json", 1, 2 },
		{ "Parse", "Bench.Parse.Json", 1, 0 },
		{ "Parse", "Bench.Parse.Json", 0, 11 },
		{ "xyz", "Bench", 1, 3 },
		{ "", "anything", 1, 0 },
		{ "abc", "", 1, 3 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned how = SUGGEST_ANY_CASE | (cases[i].substring ? SUGGEST_PART : 0);
		size_t d = suggest_distance(cases[i].a, cases[i].b, how);
		if (d != cases[i].want)
			print_message("'%s' '%s' %d: %zu, want %zu\n", cases[i].a, cases[i].b,
				      cases[i].substring, d, cases[i].want);
		assert_int_equal(d, cases[i].want);
		if (!cases[i].substring)   /* symmetric */
			assert_int_equal(suggest_distance(cases[i].b, cases[i].a, how),
					 cases[i].want);
	}
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

/* Past SUGGEST_WORD_MAX characters neither a word nor a name is a typo of the other. */
static void test_nearest_long(void **state)
{
	char word[SUGGEST_WORD_MAX + 2], name[SUGGEST_WORD_MAX + 2];
	const char *names[1] = { name };
	(void)state;
	memset(word, 'a', sizeof(word) - 1);
	word[sizeof(word) - 1] = '\0';
	memcpy(name, word, sizeof(name));
	name[0] = 'b';
	assert_null(suggest_nearest(word, names, 1));
	word[SUGGEST_WORD_MAX] = '\0';
	name[SUGGEST_WORD_MAX] = '\0';
	assert_ptr_equal(suggest_nearest(word, names, 1), name);
	assert_int_equal(suggest_distance(word, word, SUGGEST_SWAPS), 0);
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

static void test_list_order(void **state)
{
	const char *const keys[] = { "schedule", "variants", "metrics", "gates", "load",
				     "limits", "name", "gates", NULL, "results" };
	const unsigned how = SUGGEST_ANY_CASE;
	const char *out[5];
	size_t n;
	(void)state;

	n = suggest_list("gate", keys, ARRAY_SIZE(keys), how, SIZE_MAX, out, 3);
	assert_int_equal(n, 3);
	assert_string_equal(out[0], "gates");        /* 1; its duplicate is dropped */
	assert_string_equal(out[1], "name");         /* 2 */
	assert_string_equal(out[2], "load");         /* 4, before "limits" (5) */
	/* Ties keep the candidates' order. */
	{
		const char *const tie[] = { "bbb", "abd", "abe", "abc" };
		n = suggest_list("abx", tie, ARRAY_SIZE(tie), how, SIZE_MAX, out, 2);
		assert_int_equal(n, 2);
		assert_string_equal(out[0], "abd");
		assert_string_equal(out[1], "abe");
	}
	/* A bound on the distance: only what is close. */
	n = suggest_list("shedule", keys, ARRAY_SIZE(keys), how, 2, out, 5);
	assert_int_equal(n, 1);
	assert_string_equal(out[0], "schedule");
	n = suggest_list("zzzzzzzz", keys, ARRAY_SIZE(keys), how, 2, out, 5);
	assert_int_equal(n, 0);
	n = suggest_list("gate", keys, ARRAY_SIZE(keys), how, SIZE_MAX, out, 0);
	assert_int_equal(n, 0);
	n = suggest_list("gate", keys, 0, how, SIZE_MAX, out, 5);
	assert_int_equal(n, 0);
}

static void test_list_substring(void **state)
{
	const char *const names[] = { "Suite.Lock.Contended", "Suite.Parse.Json",
				      "Suite.Parse.Xml", "Other.Format", "Suite.Lock.Free" };
	const unsigned how = SUGGEST_ANY_CASE | SUGGEST_PART;
	const char *out[SUGGEST_OUT_MAX];
	size_t n;
	(void)state;

	n = suggest_list("Prase", names, ARRAY_SIZE(names), how, SIZE_MAX, out, 2);
	assert_int_equal(n, 2);
	assert_string_equal(out[0], "Suite.Parse.Json");
	assert_string_equal(out[1], "Suite.Parse.Xml");
	n = suggest_list("Lock.Fre", names, ARRAY_SIZE(names), how, SIZE_MAX, out, 1);
	assert_int_equal(n, 1);
	assert_string_equal(out[0], "Suite.Lock.Free");
	/* More asked for than there is room: capped. */
	n = suggest_list("x", names, ARRAY_SIZE(names), how, SIZE_MAX, out, 100);
	assert_int_equal(n, ARRAY_SIZE(names));
}

static void test_bounds(void **state)
{
	char a[SUGGEST_LEN_MAX * 2 + 1], b[SUGGEST_LEN_MAX * 2 + 1];
	(void)state;
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	/* Past SUGGEST_LEN_MAX bytes nothing is compared. */
	b[SUGGEST_LEN_MAX + 10] = 'b';
	assert_int_equal(suggest_distance(a, b, 0), 0);
	b[SUGGEST_LEN_MAX - 1] = 'b';
	assert_int_equal(suggest_distance(a, b, 0), 1);
	assert_int_equal(suggest_distance(a, "", 0), SUGGEST_LEN_MAX);
	assert_int_equal(suggest_distance(a, b, SUGGEST_SWAPS | SUGGEST_ANY_CASE), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance_typo),
		cmocka_unit_test(test_distance_names),
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_nearest_long),
		cmocka_unit_test(test_message_macro),
		cmocka_unit_test(test_list_order),
		cmocka_unit_test(test_list_substring),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
