/* Unit tests of nearest: distances against hand-computed values (whole
 * and substring), the order and ties of the candidates returned, the
 * limits on distance and count, duplicates, and the bounds on length. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "nearest.h"
#include "util.h"

static void test_distance(void **state)
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
		{ "schedule", "shcedule", 0, 2 },
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
		size_t d = nearest_distance(cases[i].a, cases[i].b, cases[i].substring);
		if (d != cases[i].want)
			print_message("'%s' '%s' %d: %zu, want %zu\n", cases[i].a, cases[i].b,
				      cases[i].substring, d, cases[i].want);
		assert_int_equal(d, cases[i].want);
		if (!cases[i].substring)   /* symmetric */
			assert_int_equal(nearest_distance(cases[i].b, cases[i].a, 0), cases[i].want);
	}
}

static void test_nearest_order(void **state)
{
	const char *const keys[] = { "schedule", "variants", "metrics", "gates", "load",
				     "limits", "name", "gates", NULL, "results" };
	const char *out[5];
	size_t n;
	(void)state;

	n = nearest("gate", keys, ARRAY_SIZE(keys), 0, SIZE_MAX, out, 3);
	assert_int_equal(n, 3);
	assert_string_equal(out[0], "gates");        /* 1; its duplicate is dropped */
	assert_string_equal(out[1], "name");         /* 2 */
	assert_string_equal(out[2], "load");         /* 4, before "limits" (5) */
	/* Ties keep the candidates' order. */
	{
		const char *const tie[] = { "bbb", "abd", "abe", "abc" };
		n = nearest("abx", tie, ARRAY_SIZE(tie), 0, SIZE_MAX, out, 2);
		assert_int_equal(n, 2);
		assert_string_equal(out[0], "abd");
		assert_string_equal(out[1], "abe");
	}
	/* A bound on the distance: only what is close. */
	n = nearest("shedule", keys, ARRAY_SIZE(keys), 0, 2, out, 5);
	assert_int_equal(n, 1);
	assert_string_equal(out[0], "schedule");
	n = nearest("zzzzzzzz", keys, ARRAY_SIZE(keys), 0, 2, out, 5);
	assert_int_equal(n, 0);
	n = nearest("gate", keys, ARRAY_SIZE(keys), 0, SIZE_MAX, out, 0);
	assert_int_equal(n, 0);
	n = nearest("gate", keys, 0, 0, SIZE_MAX, out, 5);
	assert_int_equal(n, 0);
}

static void test_nearest_substring(void **state)
{
	const char *const names[] = { "Suite.Lock.Contended", "Suite.Parse.Json",
				      "Suite.Parse.Xml", "Other.Format", "Suite.Lock.Free" };
	const char *out[NEAREST_OUT_MAX];
	size_t n;
	(void)state;

	n = nearest("Prase", names, ARRAY_SIZE(names), 1, SIZE_MAX, out, 2);
	assert_int_equal(n, 2);
	assert_string_equal(out[0], "Suite.Parse.Json");
	assert_string_equal(out[1], "Suite.Parse.Xml");
	n = nearest("Lock.Fre", names, ARRAY_SIZE(names), 1, SIZE_MAX, out, 1);
	assert_int_equal(n, 1);
	assert_string_equal(out[0], "Suite.Lock.Free");
	/* More asked for than there is room: capped. */
	n = nearest("x", names, ARRAY_SIZE(names), 1, SIZE_MAX, out, 100);
	assert_int_equal(n, ARRAY_SIZE(names));
}

static void test_bounds(void **state)
{
	char a[NEAREST_LEN_MAX * 2 + 1], b[NEAREST_LEN_MAX * 2 + 1];
	(void)state;
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	/* Past NEAREST_LEN_MAX bytes nothing is compared. */
	b[NEAREST_LEN_MAX + 10] = 'b';
	assert_int_equal(nearest_distance(a, b, 0), 0);
	b[NEAREST_LEN_MAX - 1] = 'b';
	assert_int_equal(nearest_distance(a, b, 0), 1);
	assert_int_equal(nearest_distance(a, "", 0), NEAREST_LEN_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_nearest_order),
		cmocka_unit_test(test_nearest_substring),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
