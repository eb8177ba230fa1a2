/* Unit tests of template: every construct rendered against one fixture
 * record (values, escaping, raw values, lists, scopes, sections, inverted
 * sections, comments, standalone lines), every error with its message,
 * template name and line, and the limits. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/template.h"
#include "util/compiler.h"
#include "util/strbuf.h"

/*
 * The fixture: root names, a list "rows" of three records (the second
 * shadows "outer"; the third has an empty "cells"), and an empty list.
 */
static struct template_ctx *fixture(void)
{
	struct template_ctx *c = template_ctx_new(), *r, *cell;

	template_set(c, "plain", "hello");
	template_set(c, "esc", "a\\|*_`<>[]b");
	template_set(c, "ctl", "a\tb\nc\x7f" "d\re");
	template_set(c, "md", "**bold**\n```\ncode\n```");
	template_set(c, "empty", "");
	template_set(c, "outer", "OUT");
	template_setf(c, "num", "%d-%s", 42, "x");
	template_set_bool(c, "yes", 1);
	template_set_bool(c, "no", 0);
	template_list(c, "none");

	r = template_add(c, "rows");
	template_set(r, "name", "r1");
	template_set(r, "only12", "1");
	template_set(template_add(r, "cells"), "c", "x");

	r = template_add(c, "rows");
	template_set(r, "name", "r2");
	template_set(r, "only12", "2");
	template_set(r, "outer", "shadow");
	template_set(template_add(r, "cells"), "c", "y");
	cell = template_add(r, "cells");
	template_set(cell, "c", "z");
	template_set(cell, "name", "cell");

	r = template_add(c, "rows");
	template_set(r, "name", "r3");
	template_list(r, "cells");
	return c;
}

struct render_case {
	const char *what;
	const char *tmpl;
	const char *want;
};

static const struct render_case render_cases[] = {
	{ "text alone", "no tags { } }} here\n", "no tags { } }} here\n" },
	{ "empty template", "", "" },
	{ "value", "Hi {{plain}}!", "Hi hello!" },
	{ "blanks around a name", "{{ plain }}|{{\tplain\t}}", "hello|hello" },
	{ "printf value", "{{num}}", "42-x" },
	{ "empty value", "[{{empty}}]", "[]" },
	{ "escaped value", "{{esc}}", "a\\\\\\|\\*\\_\\`\\<\\>\\[\\]b" },
	{ "control characters", "{{ctl}}", "a\\tb\\nc\\x7fd\\re" },
	{ "raw triple", "{{{esc}}}", "a\\|*_`<>[]b" },
	{ "raw ampersand", "{{&esc}}|{{& md }}", "a\\|*_`<>[]b|**bold**\n```\ncode\n```" },
	{ "escaped markdown", "{{md}}", "\\*\\*bold\\*\\*\\n\\`\\`\\`\\ncode\\n\\`\\`\\`" },
	{ "list", "{{#rows}}<{{name}}>{{/rows}}", "<r1><r2><r3>" },
	{ "empty list", "a{{#none}}x{{/none}}b", "ab" },
	{ "nested lists, outer names",
	  "{{#rows}}{{name}}:{{#cells}}{{name}}.{{c}}@{{outer}};{{/cells}}|{{/rows}}",
	  "r1:r1.x@OUT;|r2:r2.y@shadow;cell.z@shadow;|r3:|" },
	{ "root names in a list", "{{#rows}}{{plain}}{{/rows}}", "hellohellohello" },
	{ "flag sections", "{{#yes}}Y{{/yes}}{{#no}}N{{/no}}", "Y" },
	{ "string sections", "{{#plain}}P{{plain}}{{/plain}}{{#empty}}E{{/empty}}", "Phello" },
	{ "absent section", "a{{#missing}}M{{missing}}{{/missing}}b", "ab" },
	{ "inverted sections",
	  "{{^missing}}1{{/missing}}{{^no}}2{{/no}}{{^empty}}3{{/empty}}{{^none}}4{{/none}}"
	  "{{^yes}}5{{/yes}}{{^plain}}6{{/plain}}{{^rows}}7{{/rows}}",
	  "1234" },
	{ "inverted in a list", "{{#rows}}{{^only12}}{{name}} lacks it{{/only12}}{{/rows}}",
	  "r3 lacks it" },
	{ "unknown name where nothing renders", "{{#none}}{{nope}}{{/none}}{{^yes}}{{nope}}{{/yes}}",
	  "" },
	{ "comment", "a{{! hidden }}b{{!}}c", "abc" },
	{ "comment over lines", "a{{! x\ny }} }}b", "a }}b" },
	{ "standalone lines", "{{#rows}}\n- {{name}}\n{{/rows}}\n", "- r1\n- r2\n- r3\n" },
	{ "standalone with blanks", "  {{#yes}}  \nin\n\t{{/yes}}\t\nend\n", "in\nend\n" },
	{ "standalone CRLF", "a\r\n{{#yes}}\r\nb\r\n  {{/yes}}\r\nc\r\n", "a\r\nb\r\nc\r\n" },
	{ "standalone last line without newline", "a\n{{#yes}}\nb\n{{/yes}}", "a\nb\n" },
	{ "standalone comment last line", "a\n  {{! c }}  ", "a\n" },
	{ "standalone comment first line", "{{! header }}\n# T\n", "# T\n" },
	{ "standalone comment over lines", "a\n {{! x\ny }}\nb\n", "a\nb\n" },
	{ "standalone inverted", "{{#none}}\nx\n{{/none}}\n{{^none}}\nnone\n{{/none}}\n", "none\n" },
	{ "standalone after standalone", "{{#yes}}\n{{#plain}}\nv\n{{/plain}}\n{{/yes}}\n", "v\n" },
	{ "not standalone: text before", "a {{#yes}}\nb{{/yes}} c\n", "a \nb c\n" },
	{ "not standalone: two tags", "{{#yes}}{{/yes}}\nx", "\nx" },
	{ "not standalone: value tags", "{{empty}}\n  {{plain}}  \n{{{empty}}}\n", "\n  hello  \n\n" },
	{ "not standalone: lone CR", "{{#yes}}\rx{{/yes}}", "\rx" },
	{ "table rows",
	  "| name | n |\n|---|---|\n{{#rows}}\n"
	  "| {{name}} | {{#only12}}{{only12}}{{/only12}}{{^only12}}-{{/only12}} |\n"
	  "{{/rows}}\n",
	  "| name | n |\n|---|---|\n| r1 | 1 |\n| r2 | 2 |\n| r3 | - |\n" },
};

static void test_render(void **state)
{
	struct template_ctx *c = fixture();
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(render_cases); i++) {
		const struct render_case *k = &render_cases[i];
		struct strbuf out = STRBUF_INIT;
		char *err = (char *)"unset";

		strbuf_adds(&out, "pre:");
		if (template_render(k->tmpl, strlen(k->tmpl), "t.md", c, &out, &err)) {
			print_error("case '%s': %s\n", k->what, err ? err : "(no message)");
			fail();
		}
		assert_null(err);
		if (strncmp(out.buf, "pre:", 4) || strcmp(out.buf + 4, k->want)) {
			print_error("case '%s': got '%s', want '%s'\n", k->what, out.buf + 4, k->want);
			fail();
		}
		assert_int_equal(out.len, 4 + strlen(k->want));
		strbuf_release(&out);
	}
	template_ctx_free(c);
}

struct error_case {
	const char *tmpl;
	const char *want;
};

static const struct error_case error_cases[] = {
	{ "a\n{{nope}}", "t.md:2: unknown name 'nope': not set in this record or any enclosing one" },
	{ "{{#rows}}\n{{c}}\n{{/rows}}",
	  "t.md:2: unknown name 'c': not set in this record or any enclosing one" },
	{ "{{#rows}}\n\n{{only12}}{{/rows}}",
	  "t.md:3: unknown name 'only12': not set in this record or any enclosing one" },
	{ "{{#rows}}\n{{rows}}\n{{/rows}}",
	  "t.md:2: 'rows' is a list: use it in a section, not as a value" },
	{ "x {{{none}}}", "t.md:1: 'none' is a list: use it in a section, not as a value" },
	{ "\n\n{{yes}}", "t.md:3: 'yes' is a flag: use it in a section, not as a value" },
	{ "x\n{{#yes}}\ny\n", "t.md:2: '{{#yes}}' is never closed" },
	{ "{{#rows}}\n{{^no}}\n{{/no}}\n", "t.md:1: '{{#rows}}' is never closed" },
	{ "{{#rows}}\n{{^no}}\n{{/rows}}", "t.md:3: '{{/rows}}' does not close '{{^no}}' of line 2" },
	{ "a\n\n{{/x}}", "t.md:3: '{{/x}}' closes no open section" },
	{ "{{#yes}}{{/yes}}\n{{/yes}}", "t.md:2: '{{/yes}}' closes no open section" },
	{ "a\nb {{ name\n}\n", "t.md:2: unterminated '{{': no '}}' after it" },
	{ "x{{", "t.md:1: unterminated '{{': no '}}' after it" },
	{ "x\n{{! never closed }\n", "t.md:2: unterminated '{{': no '}}' after it" },
	{ "{{{x}}", "t.md:1: '{{{' closed by '}}' rather than '}}}'" },
	{ "{{}}", "t.md:1: empty name in a tag" },
	{ "\n{{ }}", "t.md:2: empty name in a tag" },
	{ "{{#}}{{/}}", "t.md:1: empty name in a tag" },
	{ "{{{ }}}", "t.md:1: empty name in a tag" },
	{ "{{& }}", "t.md:1: empty name in a tag" },
	{ "{{a b}}", "t.md:1: bad name 'a b': a name holds letters, digits, '_' and '-'" },
	{ "{{a.b}}", "t.md:1: bad name 'a.b': a name holds letters, digits, '_' and '-'" },
	{ "{{a\nb}}", "t.md:1: bad name 'a\\nb': a name holds letters, digits, '_' and '-'" },
	{ "{{{#x}}}", "t.md:1: bad name '#x': a name holds letters, digits, '_' and '-'" },
	{ "{{xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx}}",
	  "t.md:1: name 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' is longer "
	  "than 64 bytes" },
	{ "{{! a\nb\r\nc }}{{nope}}",
	  "t.md:3: unknown name 'nope': not set in this record or any enclosing one" },
	{ "{{#yes}}\r\n{{/yes}}\r\n\r\n{{nope}}",
	  "t.md:4: unknown name 'nope': not set in this record or any enclosing one" },
	{ "{{#yes}}\n{{#bad!}}\n{{/yes}}",
	  "t.md:2: bad name 'bad!': a name holds letters, digits, '_' and '-'" },
};

static void test_errors(void **state)
{
	struct template_ctx *c = fixture();
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(error_cases); i++) {
		const struct error_case *k = &error_cases[i];
		struct strbuf out = STRBUF_INIT;
		char *err = NULL;

		strbuf_adds(&out, "keep");
		if (template_render(k->tmpl, strlen(k->tmpl), "t.md", c, &out, &err) != -1) {
			print_error("case %zu ('%s') rendered '%s'\n", i, k->tmpl, out.buf);
			fail();
		}
		assert_non_null(err);
		if (strcmp(err, k->want)) {
			print_error("case %zu: got \"%s\", want \"%s\"\n", i, err, k->want);
			fail();
		}
		/* Whatever was rendered before the fault is taken back. */
		assert_string_equal(out.buf, "keep");
		assert_int_equal(out.len, 4);
		free(err);
		strbuf_release(&out);
	}
	template_ctx_free(c);
}

/*
 * template_check() refuses what template_render() refuses for its syntax, in the
 * same words, and passes what only a value would make fail.
 */
static void test_check(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(error_cases); i++) {
		const struct error_case *k = &error_cases[i];
		char *err = NULL;
		int rc = template_check(k->tmpl, strlen(k->tmpl), "t.md", &err);

		if (strstr(k->want, "unknown name") || strstr(k->want, "is a list") ||
		    strstr(k->want, "is a flag") || strstr(k->want, "not set")) {
			/* Names are looked up only when rendering. */
			assert_int_equal(rc, 0);
			assert_null(err);
			continue;
		}
		if (rc != -1 || !err || strcmp(err, k->want)) {
			print_error("case %zu ('%s'): rc %d, \"%s\", want \"%s\"\n", i, k->tmpl, rc,
				    err ? err : "(none)", k->want);
			fail();
		}
		free(err);
	}
}

/* A name of exactly TMPL_NAME_MAX bytes is fine; TMPL_NAME_MAX + 1 is not. */
static void test_name_length(void **state)
{
	struct template_ctx *c = template_ctx_new();
	struct strbuf name = STRBUF_INIT, t = STRBUF_INIT, out = STRBUF_INIT;
	char *err = NULL;
	(void)state;

	for (int i = 0; i < TMPL_NAME_MAX; i++)
		strbuf_addch(&name, 'n');
	template_set(c, name.buf, "v");
	strbuf_addf(&t, "{{%s}}", name.buf);
	assert_int_equal(template_render(t.buf, t.len, "n.md", c, &out, &err), 0);
	assert_string_equal(out.buf, "v");
	strbuf_reset(&t);
	strbuf_addf(&t, "{{%sn}}", name.buf);
	assert_int_equal(template_render(t.buf, t.len, "n.md", c, &out, &err), -1);
	assert_non_null(strstr(err, "n.md:1: name 'nnnn"));
	assert_non_null(strstr(err, "' is longer than 64 bytes"));
	free(err);
	strbuf_release(&name);
	strbuf_release(&t);
	strbuf_release(&out);
	template_ctx_free(c);
}

/*
 * Sections nested TMPL_DEPTH_MAX deep render, each list level a scope of
 * its own; one more level is an error at the line of the tag that opens it.
 */
static void nested(struct strbuf *t, int depth)
{
	strbuf_reset(t);
	for (int i = 0; i < depth; i++)
		strbuf_addf(t, "{{#l%d}}\n", i);
	strbuf_adds(t, "{{v}}\n");
	for (int i = depth; i-- > 0;)
		strbuf_addf(t, "{{/l%d}}\n", i);
}

static void test_depth(void **state)
{
	struct template_ctx *c = template_ctx_new(), *r = c;
	struct strbuf t = STRBUF_INIT, out = STRBUF_INIT;
	char *err = NULL;
	(void)state;

	template_set(c, "v", "root");
	for (int i = 0; i < TMPL_DEPTH_MAX; i++) {
		char name[16];
		snprintf(name, sizeof(name), "l%d", i);
		r = template_add(r, name);
	}
	template_set(r, "v", "deepest");
	nested(&t, TMPL_DEPTH_MAX);
	assert_int_equal(template_render(t.buf, t.len, "d.md", c, &out, &err), 0);
	assert_null(err);
	assert_string_equal(out.buf, "deepest\n");

	nested(&t, TMPL_DEPTH_MAX + 1);
	strbuf_reset(&out);
	assert_int_equal(template_render(t.buf, t.len, "d.md", c, &out, &err), -1);
	assert_string_equal(err, "d.md:17: more than 16 sections open at once");
	assert_int_equal(out.len, 0);
	free(err);
	strbuf_release(&t);
	strbuf_release(&out);
	template_ctx_free(c);
}

static void test_size_limits(void **state)
{
	struct template_ctx *c = template_ctx_new();
	struct strbuf big = STRBUF_INIT, out = STRBUF_INIT, t = STRBUF_INIT;
	char *err = NULL;
	(void)state;

	/* A template of exactly the limit renders; one byte more does not. */
	strbuf_grow(&big, TMPL_SIZE_MAX);
	memset(big.buf, 'x', TMPL_SIZE_MAX);
	big.len = TMPL_SIZE_MAX;
	big.buf[big.len] = '\0';
	assert_int_equal(template_render(big.buf, big.len, "big.md", c, &out, &err), 0);
	assert_int_equal(out.len, TMPL_SIZE_MAX);
	strbuf_addch(&big, 'x');
	strbuf_reset(&out);
	assert_int_equal(template_render(big.buf, big.len, "big.md", c, &out, &err), -1);
	assert_string_equal(err, "big.md: template of 1048577 bytes is larger than the limit "
			    "of 1048576");
	assert_int_equal(out.len, 0);
	free(err);
	err = NULL;

	/* 64 copies of a 1 MiB value fill the output exactly; the 65th is refused. */
	big.len--;
	big.buf[big.len] = '\0';
	template_set(c, "mib", big.buf);
	for (int i = 0; i < 64; i++)
		strbuf_adds(&t, "{{{mib}}}");
	strbuf_reset(&out);
	assert_int_equal(template_render(t.buf, t.len, "o.md", c, &out, &err), 0);
	assert_int_equal(out.len, (size_t)TMPL_OUTPUT_MAX);
	/* One byte more: a newline first, 63 raw copies, then an escaped one. */
	strbuf_reset(&t);
	strbuf_addch(&t, '\n');
	for (int i = 0; i < 63; i++)
		strbuf_adds(&t, "{{{mib}}}");
	strbuf_adds(&t, "{{mib}}");
	strbuf_reset(&out);
	strbuf_adds(&out, "keep");
	assert_int_equal(template_render(t.buf, t.len, "o.md", c, &out, &err), -1);
	assert_string_equal(err, "o.md:2: output larger than 67108864 bytes");
	assert_string_equal(out.buf, "keep");
	free(err);
	strbuf_release(&big);
	strbuf_release(&out);
	strbuf_release(&t);
	template_ctx_free(c);
}

/* Setting a name again replaces it, whatever kind it held. */
static void test_replace(void **state)
{
	struct template_ctx *c = template_ctx_new();
	struct strbuf out = STRBUF_INIT;
	const char *t = "{{#x}}[{{#x}}{{y}}{{/x}}]{{/x}}{{^x}}none{{/x}}";
	char *err = NULL;
	(void)state;

	template_set(c, "y", "root");
	template_set(c, "x", "one");
	template_set(c, "x", "two");
	assert_int_equal(template_render("{{x}}", 5, "r.md", c, &out, &err), 0);
	assert_string_equal(out.buf, "two");

	/* A list replaces a string; template_add appends to it. */
	template_set(template_add(c, "x"), "y", "a");
	template_set(template_add(c, "x"), "y", "b");
	strbuf_reset(&out);
	assert_int_equal(template_render(t, strlen(t), "r.md", c, &out, &err), 0);
	/* Inside a record of x, {{#x}} finds the root's list again. */
	assert_string_equal(out.buf, "[ab][ab]");

	/* template_list empties it; a string and a flag replace a list. */
	template_list(c, "x");
	strbuf_reset(&out);
	assert_int_equal(template_render(t, strlen(t), "r.md", c, &out, &err), 0);
	assert_string_equal(out.buf, "none");
	template_set_bool(c, "x", 1);
	strbuf_reset(&out);
	assert_int_equal(template_render(t, strlen(t), "r.md", c, &out, &err), 0);
	assert_string_equal(out.buf, "[root]");
	template_set(c, "x", NULL);
	strbuf_reset(&out);
	assert_int_equal(template_render(t, strlen(t), "r.md", c, &out, &err), 0);
	assert_string_equal(out.buf, "none");
	template_add(c, "x");
	template_setf(c, "x", "%s", "");
	strbuf_reset(&out);
	assert_int_equal(template_render(t, strlen(t), "r.md", c, &out, &err), 0);
	assert_string_equal(out.buf, "none");
	assert_null(err);
	strbuf_release(&out);
	template_ctx_free(c);
	template_ctx_free(NULL);
}

/* A made list: each record made as its body renders, the same as a list of them. */
static size_t fills;

static void fill_y(const void *arg, size_t k, struct template_ctx *rec)
{
	const char *const *ys = arg;

	fills++;
	template_set(rec, "y", ys[k]);
}

static void test_made_list(void **state)
{
	static const char *const ys[] = { "a", "b" };
	struct template_ctx *c = template_ctx_new();
	struct strbuf out = STRBUF_INIT;
	const char *t = "{{#x}}[{{#x}}{{y}}{{/x}}]{{/x}}{{^x}}none{{/x}}";
	char *err = NULL;
	(void)state;

	template_set(c, "y", "root");
	template_list_made(c, "x", 2, fill_y, ys);
	fills = 0;
	assert_int_equal(template_render(t, strlen(t), "r.md", c, &out, &err), 0);
	/* Inside a made record the list is made again, each record on its own. */
	assert_string_equal(out.buf, "[ab][ab]");
	assert_int_equal(fills, 6);

	template_list_made(c, "x", 0, fill_y, ys);
	strbuf_reset(&out);
	assert_int_equal(template_render(t, strlen(t), "r.md", c, &out, &err), 0);
	assert_string_equal(out.buf, "none");

	/* An error in a made record's body: the render stops, nothing is kept. */
	template_list_made(c, "x", 2, fill_y, ys);
	strbuf_reset(&out);
	t = "{{#x}}\n{{nope}}{{/x}}";
	assert_int_equal(template_render(t, strlen(t), "r.md", c, &out, &err), -1);
	assert_string_equal(err, "r.md:2: unknown name 'nope': not set in this record or any "
			    "enclosing one");
	free(err);
	err = NULL;

	/* template_add makes it an ordinary list again. */
	t = "{{#x}}[{{#x}}{{y}}{{/x}}]{{/x}}{{^x}}none{{/x}}";
	template_set(template_add(c, "x"), "y", "c");
	strbuf_reset(&out);
	assert_int_equal(template_render(t, strlen(t), "r.md", c, &out, &err), 0);
	assert_string_equal(out.buf, "[c]");
	strbuf_release(&out);
	template_ctx_free(c);
}

/* NUL bytes of the template are text; the template name defaults. */
static void test_binary_text(void **state)
{
	struct template_ctx *c = fixture();
	struct strbuf out = STRBUF_INIT;
	static const char t[] = "a\0{{plain}}\0b";
	char *err = NULL;
	(void)state;

	assert_int_equal(template_render(t, sizeof(t) - 1, "z.md", c, &out, &err), 0);
	assert_int_equal(out.len, 9);
	assert_memory_equal(out.buf, "a\0hello\0b", 9);
	assert_int_equal(template_render("\n{{nope}}", 9, NULL, c, &out, &err), -1);
	assert_string_equal(err,
			    "template:2: unknown name 'nope': not set in this record or any enclosing one");
	free(err);
	strbuf_release(&out);
	template_ctx_free(c);
}

static void test_md_text(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	template_md_text(&sb, NULL);
	assert_int_equal(sb.len, 0);
	template_md_text(&sb, "x|y\x01z_");
	assert_string_equal(sb.buf, "x\\|y\\x01z\\_");
	/*
	 * The one escaping's policy: ESC, C1 (U+009B, the 8-bit CSI), a
	 * bidirectional override, a line separator and a byte that is not
	 * UTF-8 show as \xNN; Markdown's specials keep their backslash, and
	 * other UTF-8 is kept.
	 */
	strbuf_reset(&sb);
	template_md_text(&sb, "\x1b[2J\xc2\x9b" "1m\xe2\x80\xae" "a\xe2\x80\xa8" "b\x9b\\*\xc3\xa9");
	assert_string_equal(sb.buf, "\\x1b\\[2J\\xc2\\x9b1m\\xe2\\x80\\xaea\\xe2\\x80\\xa8" "b\\x9b\\\\\\*\xc3\xa9");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_name_length),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_size_limits),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_made_list),
		cmocka_unit_test(test_binary_text),
		cmocka_unit_test(test_md_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
