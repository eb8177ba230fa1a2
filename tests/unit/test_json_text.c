/*
 * Unit tests of json_text.c: a table of texts with the one message each
 * must give (file, line:column, JSON path and what is wrong) or none —
 * strings in keys and values, escapes that look like \u0000 but are not,
 * brackets inside strings, the depth limit at and past its edge, a byte
 * order mark, numbers JSON forbids — and the line and column of an offset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "util/json_text.h"
#include "util/usage.h"

static char last_error[512];
static int nerrors;

static void capture(const char *prefix, const char *msg)
{
	(void)prefix;
	snprintf(last_error, sizeof(last_error), "%s", msg);
	nerrors++;
}

static void test_check(void **state)
{
	static const struct {
		const char *text;
		const char *want;   /* NULL: accepted */
	} cases[] = {
		{ "{\"name\":\"caf\xc3\xa9\"}", NULL },
		{ "{\"name\":\"x\xffy\"}", "p.json:1:11: name: byte 0xff is not UTF-8 (expected UTF-8 text)" },
		/* a key: placed at the object holding it */
		{ "{\"env\":{\"\xc0\xaf\":\"1\"}}", "p.json:1:10: env: a key: byte 0xc0 is not UTF-8" },
		{ "{\"a\":[\"ok\",\n \"\xed\xa0\x80\"]}", "p.json:2:3: a[1]: byte 0xed is not UTF-8" },
		{ "{\"a\":\"\xf4\x90\x80\x80\"}", "p.json:1:7: a: byte 0xf4 is not UTF-8" },   /* > U+10FFFF */
		{ "{\"a\":\"\xe0\x80\xaf\"}", "p.json:1:7: a: byte 0xe0 is not UTF-8" },       /* overlong */
		{ "{\"v\":[{\"c\":[\"a\",\"a\\u0000b\"]}]}",
		  "p.json:1:19: v[0].c[1]: \\u0000 (a NUL character) in a string" },
		{ "{\"a\\u0000\":1}", "p.json:1:4: (top level): a key: \\u0000" },
		/* a backslash, then u0000: no NUL */
		{ "{\"c\":[\"a\\\\u0000b\"]}", NULL },
		{ "{\"c\":\"\\\"\\u0000\"}", "p.json:1:9: c: \\u0000" },
		{ "{\"c\":\"\\u00001\"}", "p.json:1:7: c: \\u0000" },
		{ "{\"c\":\"\\u0001 \\u000\"}", NULL },
		/* brackets and quotes in strings neither nest nor end anything */
		{ "{\"a\":\"[[[[{{{{\\\"]]\",\"b\":[1,2,\"\xff\"]}", "p.json:1:31: b[2]: byte 0xff" },
		{ "\"\xff\"", "p.json:1:2: (top level): byte 0xff" },
		{ "\xef\xbb\xbf{}", "p.json:1:1: the file starts with a UTF-8 byte order mark" },
		{ "[[[[\"x\"]]]]", NULL },
		{ "[[[[[\"x\"]]]]]", "p.json:1:5: [0][0][0][0]: nesting deeper than 4 levels" },
		{ "{\"a\":{\"b\":[{\"c\":{}}]}}", "p.json:1:17: a.b[0].c: nesting deeper than 4 levels" },
		/* numbers as JSON writes them; cJSON would read 01, 1. and -.5 (strtod) */
		{ "{\"a\":[0,-0,1,-12,0.5,1e3,1E+2,-1.25e-3,true,false,null]}", NULL },
		{ "{\"s\":{\"runs\":01}}", "p.json:1:14: s.runs: '01' is not a JSON number: a leading zero" },
		{ "[1,-00]", "p.json:1:4: [1]: '-00' is not a JSON number: a leading zero" },
		{ "{\"a\":+1}", "p.json:1:6: a: '+1' is not a JSON number: a leading '+'" },
		{ "{\"a\":.5}", "a: '.5' is not a JSON number: no digit before '.'" },
		{ "{\"a\":-.5}", "a: '-.5' is not a JSON number: no digit before '.'" },
		{ "{\"a\":1.}", "a: '1.' is not a JSON number: no digit after '.'" },
		{ "{\"a\":1.e5}", "a: '1.e5' is not a JSON number: no digit after '.'" },
		{ "{\"a\":0x1F}", "a: '0x1F' is not a JSON number: a hexadecimal number" },
		{ "{\"a\":1e}", "a: '1e' is not a JSON number: no digit in the exponent" },
		{ "{\"a\":1e+}", "a: '1e+' is not a JSON number: no digit in the exponent" },
		{ "{\"a\":NaN}", "a: 'NaN' is not a JSON number: NaN and Infinity" },
		{ "{\"a\":-Infinity}", "a: '-Infinity' is not a JSON number: NaN and Infinity" },
		{ "{\"a\":-}", "a: '-' is not a JSON number: no digit" },
		{ "{\"a\":12ab}", "a: '12ab' is not a JSON number: characters after the number" },
		{ "{\"a\":\"01\"}", NULL },
		/* a word that starts no number, and a bare word as a key: left to cJSON */
		{ "{\"a\":tru}", NULL },
		{ "{01:1}", NULL },
		/* malformed otherwise: left to cJSON */
		{ "{\"a\":\"unterminated", NULL },
		{ "]]]}}}", NULL },
		{ "", NULL },
	};
	(void)state;
	set_error_routine(capture);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r;
		last_error[0] = '\0';
		nerrors = 0;
		r = json_text_check("p.json", cases[i].text, strlen(cases[i].text), 4);
		if (!cases[i].want && (r != 0 || nerrors))
			fail_msg("case %zu: refused: %s", i, last_error);
		if (cases[i].want && (r != -1 || nerrors != 1 || !strstr(last_error, cases[i].want)))
			fail_msg("case %zu: got %d '%s', want '%s'", i, r, last_error, cases[i].want);
	}
	set_error_routine(NULL);
}

/* A deep path is cut rather than fill the line; depth is bounded, not recursed. */
static void test_deep(void **state)
{
	static char text[200001];
	(void)state;
	memset(text, '[', 100000);
	memset(text + 100000, ']', 100000);
	set_error_routine(capture);
	nerrors = 0;
	assert_int_equal(json_text_check("d.json", text, 200000, JSON_TEXT_MAX_DEPTH), -1);
	assert_int_equal(nerrors, 1);
	assert_non_null(strstr(last_error, "d.json:1:65: [0][0][0][0][0][0][0][0]...: nesting deeper than 64"));
	set_error_routine(NULL);
}

static void test_line_col(void **state)
{
	size_t line, col;
	(void)state;
	json_text_line_col("ab\ncd\n", 0, &line, &col);
	assert_int_equal(line, 1);
	assert_int_equal(col, 1);
	json_text_line_col("ab\ncd\n", 4, &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_line_col),
	};
	return cmocka_run_group_tests_name("json_text", tests, NULL, NULL);
}
