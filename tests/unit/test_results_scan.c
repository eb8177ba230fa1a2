/*
 * Unit tests of results_scan: where a TRX's test definitions start, found
 * by a byte scan (results_scan_trx_definitions()). Each input is a file
 * written here; the want is the offset of the root's first TestDefinitions
 * child and the end of the root's start tag, found in the text by hand
 * (the marker strings below), or "none" / "not sure". What the names come
 * out as, end to end, is tests/integration/test_results_scan.py's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/results_reader.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/strbuf.h"

static const char *const root_start =
	"<TestRun id=\"1\" xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\">";

/* Scans text, written to a temporary file from start (a count of leading junk bytes skipped). */
static enum scan_result scan_text(const char *text, size_t len, off_t start, off_t *root_end,
				  off_t *defs_at)
{
	char path[] = "/tmp/abev-test-scan-XXXXXX";
	int fd = mkstemp(path);
	enum scan_result r;

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	*root_end = *defs_at = -1;
	r = results_scan_trx_definitions(fd, start, UINT64_MAX, root_end, defs_at);
	close(fd);
	return r;
}

static off_t offset_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);

	assert_non_null(p);
	return p - text;
}

/* A TRX: head, results, then definitions, as the vstest logger writes it. */
static void check_found(const char *text, const char *defs_marker, const char *root_marker)
{
	off_t root_end, defs_at;

	assert_int_equal(scan_text(text, strlen(text), 0, &root_end, &defs_at), SCAN_DEFS);
	assert_int_equal(defs_at, offset_of(text, defs_marker));
	assert_int_equal(root_end, offset_of(text, root_marker) + (off_t)strlen(root_marker));
}

static void test_after_the_results(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addf(&sb, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n%s<Times/>"
		    "<Results><UnitTestResult testId=\"a\" testName=\"T\" outcome=\"Passed\">"
		    "<Output><StdOut>x &lt;TestDefinitions&gt;</StdOut></Output>"
		    "</UnitTestResult></Results>\n  <TestDefinitions><UnitTest id=\"a\"/>"
		    "</TestDefinitions></TestRun>\n", root_start);
	check_found(sb.buf, "<TestDefinitions>", root_start);
	strbuf_release(&sb);
}

/*
 * What is no tag: a comment, a CDATA section and a processing instruction
 * holding a TestDefinitions and an end of Results; a '>' and a "/>" inside
 * attribute values, quoted either way; a TestDefinitions deeper than the
 * root's child. The one found is the root's child after all of them.
 */
static void test_what_is_no_tag(void **state)
{
	static const char text[] =
		"<?xml version=\"1.0\"?><!-- <TestDefinitions> --><?pi <TestDefinitions> ?>"
		"<TestRun a='x\"/>' b=\"y'>\">"
		"<Results>"
		"<UnitTestResult testName=\"a > b\" note='/>'><Output><StdOut><![CDATA["
		"</Results><TestDefinitions>]]></StdOut></Output></UnitTestResult>"
		"<!-- </Results> --><UnitTestResult testName=\"c\"/>"
		"</Results>"
		"<Extra><TestDefinitions/><TestDefinitions></TestDefinitions></Extra>"
		"<Other x=\"&gt;\"/>"
		"<TestDefinitions id=\"real\"></TestDefinitions></TestRun>";

	(void)state;
	check_found(text, "<TestDefinitions id=\"real\">", "b=\"y'>\">");
}

/* Prefixed names: t:TestRun, t:Results, t:TestDefinitions. */
static void test_prefixed(void **state)
{
	static const char text[] =
		"<t:TestRun xmlns:t=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\">"
		"<t:Results><t:UnitTestResult/></t:Results>"
		"<t:TestDefinitions><t:UnitTest id=\"a\"/></t:TestDefinitions></t:TestRun>";

	(void)state;
	check_found(text, "<t:TestDefinitions>", "2010\">");
}

/*
 * An element named Results inside the results: the scan cannot jump to the
 * first end of Results it meets, and reads the tags one by one instead.
 */
static void test_results_inside_results(void **state)
{
	static const char text[] =
		"<TestRun><Results><UnitTestResult><Output><Results>"
		"<TestDefinitions/></Results></Output></UnitTestResult>"
		"<UnitTestResult><Results/></UnitTestResult></Results>"
		"<TestDefinitions id=\"real\"/></TestRun>";

	(void)state;
	check_found(text, "<TestDefinitions id=\"real\"/>", "<TestRun>");
}

/*
 * A file larger than the scan's window (1 MiB), its tags and a CDATA
 * section split across windows, the definitions past several windows; and
 * read from an offset other than 0.
 */
static void test_across_windows(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	off_t root_end, defs_at;
	size_t junk = 7;

	(void)state;
	for (size_t i = 0; i < junk; i++)
		strbuf_addch(&sb, 'j');
	strbuf_addf(&sb, "%s<Results>", root_start);
	for (unsigned i = 0; sb.len < (3u << 20) + 12345; i++) {
		strbuf_addf(&sb, "<UnitTestResult testId=\"%u\" testName=\"T%u %.*s\" outcome=\"Passed\">"
			    "<Output><StdOut><![CDATA[%.*s </Results> ]]></StdOut></Output>"
			    "</UnitTestResult>", i, i, (int)(i % 97), "> /> >>>>>>>>>>>>>>>>>>"
			    "////////////////////////////////////////////////////////////////////////"
			    "////////////", (int)(i % 50), "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<"
			    "<<<<<<<<<<");
	}
	strbuf_adds(&sb, "</Results><TestDefinitions><UnitTest id=\"1\"/></TestDefinitions></TestRun>");
	assert_int_equal(scan_text(sb.buf, sb.len, (off_t)junk, &root_end, &defs_at), SCAN_DEFS);
	assert_int_equal(defs_at, offset_of(sb.buf, "<TestDefinitions>"));
	assert_int_equal(root_end, offset_of(sb.buf, root_start) + (off_t)strlen(root_start));
	strbuf_release(&sb);
}

/* Nothing to read: not a TRX, a TRX without definitions, an empty root. */
static void test_none(void **state)
{
	static const char *const texts[] = {
		"<?xml version=\"1.0\"?><testsuites><testsuite><testcase name=\"a\"/></testsuite>"
		"</testsuites>",
		"<TestRun><Results><UnitTestResult/></Results><ResultSummary/></TestRun>",
		"<TestRun/>",
		/* Definitions only below the root's children: the reader takes none of them. */
		"<TestRun><Extra><TestDefinitions><UnitTest id=\"a\"/></TestDefinitions></Extra>"
		"</TestRun>",
	};
	off_t root_end, defs_at;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		assert_int_equal(scan_text(texts[i], strlen(texts[i]), 0, &root_end, &defs_at),
				 SCAN_NONE);
}

/* What the scan does not follow: the whole file is read for the definitions then. */
static void test_unsure(void **state)
{
	static const char utf16[] = "\xff\xfe<\0T\0e\0s\0t\0R\0u\0n\0/\0>\0";
	static const char *const texts[] = {
		"<!DOCTYPE TestRun [<!ENTITY x \"<TestDefinitions>\">]><TestRun>&x;</TestRun>",
		"\x4c\x6f\xa7\x94",                      /* EBCDIC "<?xm" */
		"",                                      /* empty */
		"<TestRun><Results>",                    /* unfinished */
		"<TestRun><Results><!-- never closed",
		"<TestRun a=\"never closed>",
		"</TestRun>",                            /* an end tag first */
		"just text",
	};
	off_t root_end, defs_at;

	(void)state;
	assert_int_equal(scan_text(utf16, sizeof(utf16) - 1, 0, &root_end, &defs_at), SCAN_UNSURE);
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		if (scan_text(texts[i], strlen(texts[i]), 0, &root_end, &defs_at) != SCAN_UNSURE)
			fail_msg("case %zu: %s: not SCAN_UNSURE", i, texts[i]);
	/* What the parse refuses by its size is not read to its end: a tag, a comment, the file. */
	{
		struct strbuf sb = STRBUF_INIT;
		size_t n = RESULTS_MARKUP_MAX + 2;

		strbuf_adds(&sb, "<TestRun a=\"");
		for (size_t k = 0; k < n; k++)
			strbuf_addch(&sb, 'x');
		strbuf_adds(&sb, "\"><TestDefinitions/></TestRun>");
		assert_int_equal(scan_text(sb.buf, sb.len, 0, &root_end, &defs_at), SCAN_UNSURE);
		strbuf_reset(&sb);
		strbuf_adds(&sb, "<TestRun><!--");
		for (size_t k = 0; k < RESULTS_HELD_MAX + 2; k++)
			strbuf_addch(&sb, 'x');
		strbuf_adds(&sb, "--><TestDefinitions/></TestRun>");
		assert_int_equal(scan_text(sb.buf, sb.len, 0, &root_end, &defs_at), SCAN_UNSURE);
		strbuf_release(&sb);
	}
	{
		static const char text[] = "<TestRun><Results></Results><TestDefinitions/></TestRun>";
		char path[] = "/tmp/abev-test-scan-XXXXXX";
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		unlink(path);
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		assert_int_equal(results_scan_trx_definitions(fd, 0, 10, &root_end, &defs_at),
				 SCAN_UNSURE);
		assert_int_equal(results_scan_trx_definitions(fd, 0, strlen(text), &root_end, &defs_at),
				 SCAN_DEFS);
		close(fd);
	}
	/* An fd that cannot be read from. */
	assert_int_equal(results_scan_trx_definitions(-1, 0, UINT64_MAX, &root_end, &defs_at),
			 SCAN_UNSURE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_after_the_results),
		cmocka_unit_test(test_what_is_no_tag),
		cmocka_unit_test(test_prefixed),
		cmocka_unit_test(test_results_inside_results),
		cmocka_unit_test(test_across_windows),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_unsure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
