/*
 * Unit tests of results_sax: what the SAX2 push parser hands the dialects
 * — attribute values with their references decoded, captured output with
 * the blanks the reader before it kept or dropped, prefixed names — and
 * its refusals in abev's words: markup that libxml2 would buffer past
 * abev's limit, too many attributes, bytes XML does not allow. Inputs are
 * inline; a test of the core's counting lives in test_results.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "results/results.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "testutil.h"

static char *tmp;

struct got {
	size_t n;
	char *name[8];
	char *out[8];
};

static int keep(void *ctx, const struct test_case *tc)
{
	struct got *g = ctx;
	if (g->n < ARRAY_SIZE(g->name)) {
		g->name[g->n] = xstrdup(tc->name);
		g->out[g->n] = xstrndup(tc->stdout_text, tc->stdout_len);
		g->n++;
	}
	return 0;
}

static void got_release(struct got *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->name[i]);
		free(g->out[i]);
	}
	memset(g, 0, sizeof(*g));
}

static char *put(const char *name, const void *data, size_t len)
{
	tu_put(tmp, name, data, len);
	return path_join(tmp, name);
}

/* One test per case: its name and captured output as the callback sees them. */
struct text_case {
	const char *what;
	const char *xml;
	const char *name;
	const char *out;
};

static const struct text_case text_cases[] = {
	{ "references in an attribute: '&' comes back from libxml2's \"&#38;\"",
	  "<TestRun><Results><UnitTestResult testName=\"a&amp;b &#38; &lt;&#x41;&gt; &amp;#38; &quot;\" "
	  "outcome=\"Passed\"/></Results></TestRun>",
	  "a&b & <A> &#38; \"", "" },
	{ "attribute-value normalisation: a newline is a space, &#10; a newline",
	  "<testsuite><testcase name=\"x\ny&#10;z\"/></testsuite>", "x y\nz", "" },
	{ "references in captured text",
	  "<TestRun><Results><UnitTestResult testName=\"t\" outcome=\"Passed\"><Output>"
	  "<StdOut>1 &lt; 2 &amp;&amp; 3 &gt; 2&#33;</StdOut></Output></UnitTestResult></Results></TestRun>",
	  "t", "1 < 2 && 3 > 2!" },
	{ "blanks as the only content are kept",
	  "<testsuite><testcase name=\"t\"><system-out>  \n </system-out></testcase></testsuite>",
	  "t", "  \n " },
	{ "blanks around a CDATA section are dropped (NOBLANKS before)",
	  "<testsuite><testcase name=\"t\"><system-out>\n   <![CDATA[ x <y> ]]>\n  </system-out>"
	  "</testcase></testsuite>",
	  "t", " x <y> " },
	{ "blanks after text are kept",
	  "<testsuite><testcase name=\"t\"><system-out>a\n<![CDATA[b]]>\n  </system-out>"
	  "</testcase></testsuite>",
	  "t", "a\nb\n  " },
	{ "xml:space=\"preserve\" keeps them",
	  "<testsuite><testcase name=\"t\"><system-out xml:space=\"preserve\">\n <![CDATA[x]]>\n"
	  "</system-out></testcase></testsuite>",
	  "t", "\n x\n" },
	{ "text in an element inside the output is not captured",
	  "<testsuite><testcase name=\"t\"><system-out>a<b>hidden</b>c</system-out></testcase></testsuite>",
	  "t", "ac" },
	{ "an unbound prefix: the element is 'x:testcase', not a test case",
	  "<testsuite><x:testcase name=\"no\"/><testcase y:name=\"no\" name=\"yes\"/></testsuite>",
	  "yes", "" },
	{ "a namespaced root and results (VSTest's default namespace)",
	  "<t:TestRun xmlns:t=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\"><t:Results>"
	  "<t:UnitTestResult testName=\"ns\" outcome=\"Passed\"/></t:Results></t:TestRun>",
	  "ns", "" },
};

static void test_text_and_attributes(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(text_cases); i++) {
		const struct text_case *c = &text_cases[i];
		struct results_file f = RESULTS_FILE_INIT;
		struct got g = { 0 };
		char *err = NULL, *p = put("case.xml", c->xml, strlen(c->xml));
		print_message("case: %s\n", c->what);
		if (results_parse(p, NULL, keep, &g, &f, &err) < 0)
			fail_msg("%s: refused: %s", c->what, err);
		assert_int_equal(f.counts.total, 1);
		assert_int_equal(g.n, 1);
		assert_string_equal(g.name[0], c->name);
		assert_string_equal(g.out[0], c->out);
		results_file_release(&f);
		got_release(&g);
		free(p);
	}
}

/* Without a callback nothing is captured, but counts and notes are the same. */
static void test_no_callback_same_counts(void **state)
{
	static const char xml[] =
		"<testsuites tests=\"3\"><testsuite name=\"s\"><testcase name=\"a\"><system-out>x</system-out>"
		"</testcase><testcase name=\"b\"><failure/></testcase></testsuite></testsuites>";
	struct results_file f1 = RESULTS_FILE_INIT, f2 = RESULTS_FILE_INIT;
	struct got g = { 0 };
	char *err = NULL, *p = put("nocb.xml", xml, strlen(xml));
	(void)state;
	assert_int_equal(results_parse(p, NULL, keep, &g, &f1, &err), 0);
	assert_int_equal(results_parse(p, NULL, NULL, NULL, &f2, &err), 0);
	assert_memory_equal(&f1.counts, &f2.counts, sizeof(f1.counts));
	assert_int_equal(f1.counts.total, 2);
	assert_int_equal(f1.counts.failed, 1);
	assert_int_equal(f1.nnotes, f2.nnotes);
	assert_int_equal(f1.nnotes, 1);
	assert_string_equal(f1.notes[0], f2.notes[0]);
	results_file_release(&f1);
	results_file_release(&f2);
	got_release(&g);
	free(p);
}

static int64_t cpu_ns(void)
{
	struct timespec ts;
	assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts), 0);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Writes head, n bytes of fill, then tail into name; returns its path. */
static char *put_long(const char *name, const char *head, char fill, size_t n, const char *tail)
{
	struct strbuf sb = STRBUF_INIT;
	char *p;
	strbuf_adds(&sb, head);
	strbuf_grow(&sb, n);
	memset(sb.buf + sb.len, fill, n);
	sb.len += n;
	sb.buf[sb.len] = '\0';
	strbuf_adds(&sb, tail);
	p = put(name, sb.buf, sb.len);
	strbuf_release(&sb);
	return p;
}

struct refusal {
	const char *name;
	const char *head;
	char fill;
	size_t n;
	const char *tail;
	const char *want;   /* after "<path>" */
};

#define KIB 1024
static const struct refusal refusals[] = {
	{ "long-attr.trx", "<TestRun a=\"", 'x', 300 * KIB, "\"/>",
	  ":1: element 'TestRun': an attribute value longer than 262144 bytes (abev's limit): "
	  "not a test-result file abev can read" },
	{ "long-tag.trx", "<TestRun", ' ', 300 * KIB, "/>",
	  ":1: element 'TestRun': a start tag longer than 262144 bytes" },
	{ "long-comment.xml", "<testsuites>\n<!--", '-', 0, "",
	  ":2: a comment longer than 8388608 bytes (abev's limit)" },
	{ "long-cdata.xml", "<testsuite><testcase name=\"t\"><system-out><![CDATA[", 'c', 9 * 1024 * KIB,
	  "]]></system-out></testcase></testsuite>", ":1: a CDATA section longer than 8388608 bytes" },
	{ "long-pi.xml", "<testsuites><?pi ", 'p', 9 * 1024 * KIB, "?></testsuites>",
	  ":1: a processing instruction longer than 8388608 bytes" },
	{ "long-end-tag.xml", "<testsuites></testsuites", ' ', 300 * KIB, ">",
	  ":1: an end tag longer than 262144 bytes" },
	/* A namespace error is read on; a fatal error after it still stops the read. */
	{ "namespace-then-fatal.xml", "<testsuite><x:testcase name=\"a\"/>\n<testcase>", ' ', 0,
	  "</testsuite>", ":2: not well-formed XML: Opening and ending tag mismatch: testcase line 2 and testsuite" },
	{ "control-char.xml", "<testsuite><testcase name=\"a\x01\"/>", ' ', 0, "</testsuite>",
	  ":1: a character XML does not allow" },
};

static void test_refusals(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(refusals); i++) {
		const struct refusal *r = &refusals[i];
		struct results_file f = RESULTS_FILE_INIT;
		char *err = NULL, *p;
		int64_t c0;
		if (!strcmp(r->name, "long-comment.xml")) {
			/* "<!--" then 9 MiB of "x-" (no "-->"): a comment libxml2 holds whole. */
			struct strbuf sb = STRBUF_INIT;
			strbuf_adds(&sb, r->head);
			for (size_t k = 0; k < 9 * 512 * KIB; k++)
				strbuf_add(&sb, "x-", 2);
			strbuf_adds(&sb, "--></testsuites>");
			p = put(r->name, sb.buf, sb.len);
			strbuf_release(&sb);
		} else {
			p = put_long(r->name, r->head, r->fill, r->n, r->tail);
		}
		c0 = cpu_ns();
		assert_int_equal(results_parse(p, NULL, NULL, NULL, &f, &err), -1);
		print_message("case: %s -> %s (%.1f ms of CPU)\n", r->name, err, (cpu_ns() - c0) / 1e6);
		assert_int_equal(strncmp(err, p, strlen(p)), 0);
		assert_int_equal(strncmp(err + strlen(p), r->want, strlen(r->want)), 0);
		assert_null(f.path);
		free(err);
		free(p);
	}
}

/*
 * Long captured output, as text or as a CDATA section (which libxml2 holds
 * whole), is read and capped at the stdout limit, not refused as markup.
 */
static void test_long_output_is_read(void **state)
{
	static const char *const open_tag[] = { "<system-out>", "<system-out><![CDATA[" };
	static const char *const close_tag[] = { "</system-out>", "]]></system-out>" };
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(open_tag); i++) {
		struct results_file f = RESULTS_FILE_INIT;
		struct got g = { 0 };
		char *err = NULL, *head, *tail, *p;
		head = xasprintf("<testsuite><testcase name=\"t\">%s", open_tag[i]);
		tail = xasprintf("%s</testcase></testsuite>", close_tag[i]);
		p = put_long("long-out.xml", head, 'o', 2 * 1024 * KIB, tail);
		if (results_parse(p, NULL, keep, &g, &f, &err) < 0)
			fail_msg("%s refused: %s", open_tag[i], err);
		assert_int_equal(g.n, 1);
		assert_int_equal(strlen(g.out[0]), 64 * KIB);   /* RESULTS_LIMITS_DEFAULT's max_stdout */
		results_file_release(&f);
		got_release(&g);
		free(head);
		free(tail);
		free(p);
	}
}

/* The attribute limit: 4096 pass, 4097 are refused with the count. */
static void test_attribute_count(void **state)
{
	(void)state;
	for (int n = 4096; n <= 4097; n++) {
		struct strbuf sb = STRBUF_INIT;
		struct results_file f = RESULTS_FILE_INIT;
		char *err = NULL, *p;
		strbuf_adds(&sb, "<testsuite><testcase");
		for (int k = 0; k < n - 1; k++)
			strbuf_addf(&sb, " a%d=\"\"", k);
		strbuf_adds(&sb, " name=\"t\"/></testsuite>");
		p = put("attrs.xml", sb.buf, sb.len);
		if (n == 4096) {
			assert_int_equal(results_parse(p, NULL, NULL, NULL, &f, &err), 0);
			assert_int_equal(f.counts.total, 1);
			results_file_release(&f);
		} else {
			assert_int_equal(results_parse(p, NULL, NULL, NULL, &f, &err), -1);
			assert_non_null(strstr(err, ":1: element 'testcase' has 4097 attributes, more than 4096"));
			free(err);
		}
		strbuf_release(&sb);
		free(p);
	}
}

static int setup(void **state)
{
	(void)state;
	tmp = tu_tmpdir("results-sax");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rm_rf(tmp);
	free(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_and_attributes),
		cmocka_unit_test(test_no_callback_same_counts),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_long_output_is_read),
		cmocka_unit_test(test_attribute_count),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
