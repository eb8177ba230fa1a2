/*
 * Unit tests of json_skim.c: what it reads of a text is what cJSON reads
 * of the whole — for a table of texts, either the same tree as
 * cJSON_Parse() (strict JSON) or NULL, so that the caller parses the
 * whole (what cJSON takes but strict JSON does not: trailing commas,
 * control characters, leading zeros, text after the object, ...) — the
 * first of a name given twice, a key written with escapes, the member
 * only located, and the elements of an array one at a time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "util/json_skim.h"

static void test_same_as_cjson_or_none(void **state)
{
	static const struct {
		const char *text;
		int skimmed;   /* 0: left to cJSON */
	} cases[] = {
		{ "{}", 1 },
		{ " \t\r\n{ } \n", 1 },
		{ "{\"a\":1,\"b\":[true,false,null,-0.5e+3,\"x\"],\"c\":{\"d\":{}}}", 1 },
		{ "{\"s\":\"caf\xc3\xa9 \\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 \\ud83d\\ude00\"}", 1 },
		{ "{\"a\":[ ],\"b\":[[[]]]}", 1 },
		{ "{\"long\":\"0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop\"}", 1 },
		/* what cJSON reads but strict JSON does not have */
		{ "{\"a\":[1,]}", 0 },
		{ "{\"a\":1,}", 0 },
		{ "{\"a\":01}", 0 },
		{ "{\"a\":1.}", 0 },
		{ "{\"a\":-.5}", 0 },
		{ "{\"a\":+1}", 0 },
		{ "{\"a\":\"x\ty\"}", 0 },
		{ "{\"a\":\"\\x\"}", 0 },
		{ "{\"a\":\"\\ude00\"}", 0 },
		{ "{\"a\":\"\\ud83d\"}", 0 },
		{ "{\"a\":\"\\ud83dx\"}", 0 },
		{ "{\"a\":1} trailing", 0 },
		{ "{\"a\":1}{}", 0 },
		{ "\x01{\"a\":1}", 0 },
		{ "{\"a\":\x01 1}", 0 },
		{ "\xef\xbb\xbf{\"a\":1}", 0 },
		{ "[1,2]", 0 },
		{ "\"a\"", 0 },
		{ "", 0 },
		{ "{\"a\":1", 0 },
		{ "{\"a\" 1}", 0 },
		{ "{a:1}", 0 },
		{ "{\"a\":tru}", 0 },
		{ "{\"a\":nulls}", 0 },
		{ "{\"a\":1e}", 0 },
		{ "{\"a\":1.5.5}", 0 },
		{ "{\"a\":1234567890123456789012345678901234567890123456789012345678901234}", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *t = cases[i].text;
		struct json_skim sk = JSON_SKIM_INIT(NULL, NULL);
		cJSON *got = json_skim_object(t, strlen(t), &sk), *whole;

		if (!cases[i].skimmed) {
			if (got)
				fail_msg("case %zu: skimmed '%s'", i, t);
			continue;
		}
		whole = cJSON_ParseWithLength(t, strlen(t));
		if (!got || !whole || !cJSON_Compare(got, whole, 1))
			fail_msg("case %zu: '%s' not read as cJSON reads it", i, t);
		cJSON_Delete(got);
		cJSON_Delete(whole);
	}
}

static void test_members_asked_for(void **state)
{
	static const char text[] = "{\"status\":\"running\",\"unseal\\u0065d\":[\"runs/a\"],"
				   "\"big\":[1,2,3],\"status\":\"completed\",\"x\":{}}";
	static const char *const keys[] = { "status", "unsealed", NULL };
	struct json_skim sk = JSON_SKIM_INIT(keys, "big");
	cJSON *o;

	(void)state;
	o = json_skim_object(text, strlen(text), &sk);
	assert_non_null(o);
	assert_int_equal(cJSON_GetArraySize(o), 2);
	/* The first of a name given twice, as cJSON_GetObjectItem() finds in the whole. */
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "status")->valuestring, "running");
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "unsealed"),
					       0)->valuestring, "runs/a");
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "x"));
	assert_true(sk.found);
	assert_int_equal(sk.span.len, 7);
	assert_memory_equal(text + sk.span.off, "[1,2,3]", 7);
	assert_int_equal(sk.nelements, 3);
	cJSON_Delete(o);
	json_skim_release(&sk);
}

struct seen {
	double sum;
	size_t n, stop_at;
};

static int add(void *ctx, const json_node *e, size_t index)
{
	struct seen *s = ctx;

	assert_int_equal(index, s->n);
	s->sum += cJSON_GetObjectItemCaseSensitive(e, "v")->valuedouble;
	s->n++;
	return s->n == s->stop_at ? -7 : 0;
}

static void test_array_one_at_a_time(void **state)
{
	static const char text[] = "{\"invocations\": [ {\"v\": 1}, {\"v\": 2} ,\n\t{\"v\": 4}],"
				   "\"none\":[ ]}";
	struct json_skim sk = JSON_SKIM_INIT(NULL, "invocations");
	struct seen s = { 0, 0, 0 };
	const char *t;
	cJSON *o;

	(void)state;
	o = json_skim_object(text, strlen(text), &sk);
	assert_non_null(o);
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "invocations"));
	assert_int_equal(sk.nelements, 3);
	assert_int_equal(json_skim_array(text, &sk, add, &s), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.sum == 7);
	/* each's value stops it and is returned */
	s = (struct seen){ 0, 0, 2 };
	assert_int_equal(json_skim_array(text, &sk, add, &s), -7);
	assert_int_equal(s.n, 2);
	cJSON_Delete(o);
	json_skim_release(&sk);

	/* an empty array; a member that is no array has no elements */
	t = "{\"invocations\":[ ]}";
	o = json_skim_object(t, strlen(t), &sk);
	assert_non_null(o);
	assert_true(sk.found);
	assert_int_equal(sk.nelements, 0);
	s = (struct seen){ 0, 0, 0 };
	assert_int_equal(json_skim_array(t, &sk, add, &s), 0);
	assert_int_equal(s.n, 0);
	cJSON_Delete(o);
	t = "{\"invocations\":{\"v\":[1]}}";
	o = json_skim_object(t, strlen(t), &sk);
	assert_non_null(o);
	assert_true(sk.found);
	assert_int_equal(sk.nelements, 0);
	cJSON_Delete(o);
	/* a trailing comma in it: not strict, nothing kept */
	t = "{\"invocations\":[{\"v\":1},]}";
	assert_null(json_skim_object(t, strlen(t), &sk));
	assert_false(sk.found);
	assert_int_equal(sk.nelements, 0);
	json_skim_release(&sk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_cjson_or_none),
		cmocka_unit_test(test_members_asked_for),
		cmocka_unit_test(test_array_one_at_a_time),
	};
	return cmocka_run_group_tests_name("json_skim", tests, NULL, NULL);
}
