/*
 * Unit tests of results: TRX and JUnit counting on inline fixtures, the
 * per-test callback (names, outcomes, durations, stdout, parents), hostile
 * input (DOCTYPE/XXE/billion laughs, depth, size, FIFOs, non-XML), and
 * every file of the real corpus (ABEV_CORPUS, default ../shared/corpus)
 * pinned to counts verified by reading the files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "results/results.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/writefile.h"

static char tmpdir[] = "/tmp/abev-results-XXXXXX";

/*
 * CPU time of this process. A refusal must be cheap: that is judged by the
 * CPU it costs, which a busy machine does not stretch, not by its wall
 * time (bench/clock-accuracy.sh prints how long refusals take).
 */
static int64_t cpu_ns(void)
{
	struct timespec ts;
	assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts), 0);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- helpers ---- */

static char *fixture(const char *name, const void *data, size_t len)
{
	char *p = path_join(tmpdir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, data, len), 0);
	assert_int_equal(close(fd), 0);
	return p;
}

#define SEEN_MAX 64
struct seen_test {
	char *name, *written, *raw, *out, *parent, *message;
	enum test_outcome outcome;
	int executed, truncated;
	double duration;
	size_t out_len;
};
struct seen {
	size_t n, calls, stop_after;   /* stop_after: 0 never */
	struct seen_test t[SEEN_MAX];
};

static int collect(void *ctx, const struct test_case *tc)
{
	struct seen *s = ctx;
	s->calls++;
	assert_non_null(tc->name);
	assert_non_null(tc->stdout_text);
	assert_int_equal(strlen(tc->stdout_text), tc->stdout_len);
	if (s->n < SEEN_MAX) {
		struct seen_test *t = &s->t[s->n++];
		t->name = xstrdup(tc->name);
		t->written = xstrdup(tc->written_name);
		t->raw = tc->outcome_raw ? xstrdup(tc->outcome_raw) : NULL;
		t->out = xstrdup(tc->stdout_text);
		t->parent = tc->parent ? xstrdup(tc->parent) : NULL;
		assert_non_null(tc->message);
		assert_true(strlen(tc->message) <= RESULTS_MESSAGE_MAX + 3);
		t->message = xstrdup(tc->message);
		t->outcome = tc->outcome;
		t->executed = tc->executed;
		t->truncated = tc->stdout_truncated;
		t->duration = tc->duration_s;
		t->out_len = tc->stdout_len;
	}
	return s->stop_after && s->calls >= s->stop_after;
}

static void seen_release(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->t[i].name);
		free(s->t[i].written);
		free(s->t[i].raw);
		free(s->t[i].out);
		free(s->t[i].parent);
		free(s->t[i].message);
	}
	memset(s, 0, sizeof(*s));
}

static const struct seen_test *seen_find(const struct seen *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->t[i].name, name))
			return &s->t[i];
	fail_msg("test '%s' was not reported", name);
	return NULL;
}

static int has_note(const struct results_file *f, const char *needle)
{
	for (size_t i = 0; i < f->nnotes; i++)
		if (strstr(f->notes[i], needle))
			return 1;
	return 0;
}

static void print_notes(const struct results_file *f)
{
	for (size_t i = 0; i < f->nnotes; i++)
		print_message("  note: %s\n", f->notes[i]);
}

/* Redirects stderr to a file, so that a test can assert nothing was printed. */
struct stderr_capture {
	int saved;
	char *path;
};

static void stderr_begin(struct stderr_capture *c)
{
	int fd;
	c->path = path_join(tmpdir, "stderr.txt");
	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	assert_true(c->saved >= 0);
	fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	close(fd);
}

/* Restores stderr (so that cmocka's own messages are seen) and fails if anything was written. */
static void stderr_end_expect_silence(struct stderr_capture *c)
{
	struct stat st;
	int stat_rc;
	fflush(stderr);
	assert_true(dup2(c->saved, STDERR_FILENO) >= 0);
	close(c->saved);
	stat_rc = stat(c->path, &st);
	assert_int_equal(stat_rc, 0);
	if (st.st_size != 0) {
		struct strbuf sb = STRBUF_INIT;
		(void)read_file_capped(&sb, c->path, 4096);
		fail_msg("stderr was written: %s", sb.buf);
	}
	unlink(c->path);
	free(c->path);
}

/* results_parse with stderr captured around the call only. */
static int parse_silently(const char *path, const struct results_limits *lim, struct seen *s,
			  struct results_file *f, char **err)
{
	struct stderr_capture cap;
	int rc;
	stderr_begin(&cap);
	rc = results_parse(path, lim, s ? collect : NULL, s, f, err);
	stderr_end_expect_silence(&cap);
	return rc;
}

static int counts_equal(const struct results_counts *a, const struct results_counts *b)
{
	return a->total == b->total && a->executed == b->executed && a->passed == b->passed &&
	       a->failed == b->failed && a->errors == b->errors && a->skipped == b->skipped &&
	       a->other == b->other;
}

static void print_counts(const char *what, const struct results_counts *c)
{
	print_message("  %s: total=%lld executed=%lld passed=%lld failed=%lld errors=%lld "
		      "skipped=%lld other=%lld\n", what, (long long)c->total, (long long)c->executed,
		      (long long)c->passed, (long long)c->failed, (long long)c->errors,
		      (long long)c->skipped, (long long)c->other);
}

/* ---- counting fixtures ---- */

#define TRX_NS "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"

struct count_case {
	const char *file;
	const char *xml;
	enum results_format format;
	struct results_counts want;   /* total, executed, passed, failed, errors, skipped, other */
	const char *note;             /* a substring of a note; NULL: no notes at all */
};

static const struct count_case count_cases[] = {
	{ "trx-namespace-bom.trx",
	  "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	  "<TestRun id=\"1\" xmlns=\"" TRX_NS "\">\n"
	  "  <Times creation=\"2024-01-01T00:00:00\" start=\"2024-01-01T00:00:01\" finish=\"2024-01-01T00:00:09\"/>\n"
	  "  <Results>\n"
	  "    <UnitTestResult testName=\"A.pass\" outcome=\"Passed\" duration=\"00:00:01.5000000\"/>\n"
	  "    <UnitTestResult testName=\"A.fail\" outcome=\"Failed\" duration=\"00:00:00.25\"/>\n"
	  "    <UnitTestResult testName=\"A.skip\" outcome=\"NotExecuted\"/>\n"
	  "  </Results>\n"
	  "  <ResultSummary outcome=\"Failed\">\n"
	  "    <Counters total=\"3\" executed=\"2\" passed=\"1\" failed=\"1\" error=\"0\" timeout=\"0\""
	  " aborted=\"0\" notExecuted=\"1\"/>\n"
	  "  </ResultSummary>\n"
	  "</TestRun>\n",
	  RESULTS_TRX, { 3, 2, 1, 1, 0, 1, 0 }, NULL },
	{ "trx-prefixed-namespace.trx",
	  "<t:TestRun xmlns:t=\"" TRX_NS "\"><t:Results>"
	  "<t:UnitTestResult testName=\"P.one\" outcome=\"Passed\"/>"
	  "<t:UnitTestResult testName=\"P.two\" outcome=\"Passed\"/>"
	  "</t:Results></t:TestRun>",
	  RESULTS_TRX, { 2, 2, 2, 0, 0, 0, 0 }, NULL },
	{ "trx-legacy-order.trx",
	  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	  "<TestRun id=\"2\">\n"
	  "  <ResultSummary outcome=\"Warning\">\n"
	  "    <Counters total=\"3\" executed=\"3\" passed=\"1\" failed=\"0\" error=\"0\" timeout=\"1\""
	  " inconclusive=\"1\"/>\n"
	  "  </ResultSummary>\n"
	  "  <Results>\n"
	  "    <UnitTestResult testName=\"B.pass\" outcome=\"Passed\"/>\n"
	  "    <UnitTestResult testName=\"B.slow\" outcome=\"Timeout\"/>\n"
	  "    <UnitTestResult testName=\"B.maybe\" outcome=\"Inconclusive\"/>\n"
	  "  </Results>\n"
	  "</TestRun>\n",
	  RESULTS_TRX, { 3, 3, 1, 0, 1, 0, 1 }, NULL },
	{ "trx-datadriven.trx",
	  "<TestRun xmlns=\"" TRX_NS "\"><Results>\n"
	  " <UnitTestResult executionId=\"p\" testName=\"DataTest\" outcome=\"Failed\" resultType=\"DataDrivenTest\">\n"
	  "  <Output><StdOut>parent output</StdOut></Output>\n"
	  "  <InnerResults>\n"
	  "   <UnitTestResult executionId=\"r1\" parentExecutionId=\"p\" testName=\"DataTest (1)\" outcome=\"Passed\" resultType=\"DataDrivenDataRow\"/>\n"
	  "   <UnitTestResult executionId=\"r2\" parentExecutionId=\"p\" testName=\"DataTest (2)\" outcome=\"Failed\" resultType=\"DataDrivenDataRow\"/>\n"
	  "   <UnitTestResult executionId=\"r3\" parentExecutionId=\"p\" testName=\"DataTest (3)\" outcome=\"Passed\" resultType=\"DataDrivenDataRow\">"
	  "<Output><StdOut>row 3</StdOut></Output></UnitTestResult>\n"
	  "  </InnerResults>\n"
	  " </UnitTestResult>\n"
	  "</Results>\n"
	  "<ResultSummary outcome=\"Failed\"><Counters total=\"4\" executed=\"4\" passed=\"2\" failed=\"2\"/></ResultSummary>\n"
	  "</TestRun>\n",
	  RESULTS_TRX, { 3, 3, 2, 1, 0, 0, 0 },
	  "declared total=4 but 3 leaf results were counted (data-driven parents are not counted)" },
	{ "trx-empty-inner-results.trx",
	  "<TestRun><Results><UnitTestResult testName=\"E\" outcome=\"Passed\"><InnerResults/></UnitTestResult>"
	  "</Results></TestRun>",
	  RESULTS_TRX, { 1, 1, 1, 0, 0, 0, 0 }, NULL },
	{ "trx-aggregation.trx",
	  "<TestRun><Results>\n"
	  " <TestResultAggregation testName=\"Agg.one\" outcome=\"Passed\"/>\n"
	  " <TestResultAggregation testName=\"Agg.two\" outcome=\"Failed\"/>\n"
	  "</Results></TestRun>\n",
	  RESULTS_TRX, { 2, 2, 1, 1, 0, 0, 0 }, NULL },
	{ "trx-all-not-executed.trx",
	  "<TestRun xmlns=\"" TRX_NS "\"><Results>"
	  "<UnitTestResult testName=\"S.1\" outcome=\"NotExecuted\"/>"
	  "<UnitTestResult testName=\"S.2\" outcome=\"NotExecuted\"/>"
	  "<UnitTestResult testName=\"S.3\" outcome=\"NotRunnable\"/>"
	  "<UnitTestResult testName=\"S.4\" outcome=\"Pending\"/>"
	  "</Results><ResultSummary outcome=\"Completed\"><Counters total=\"4\" executed=\"0\" passed=\"0\""
	  " failed=\"0\" notExecuted=\"2\" notRunnable=\"1\" pending=\"1\"/></ResultSummary></TestRun>",
	  RESULTS_TRX, { 4, 0, 0, 0, 0, 4, 0 }, NULL },
	{ "trx-missing-outcome.trx",
	  "<TestRun><Results>"
	  "<UnitTestResult testName=\"M.none\" duration=\"00:00:02\"/>"
	  "<UnitTestResult testName=\"M.ok\" outcome=\"Passed\"/>"
	  "</Results></TestRun>",
	  RESULTS_TRX, { 2, 1, 1, 0, 1, 0, 0 },
	  "1 results without an outcome counted as errors (the TRX default)" },
	{ "trx-counters-disagree.trx",
	  "<TestRun><ResultSummary outcome=\"Completed\"><Counters total=\"10\" executed=\"10\" passed=\"10\""
	  " failed=\"0\"/></ResultSummary><Results><UnitTestResult testName=\"C.1\" outcome=\"Passed\"/>"
	  "</Results></TestRun>",
	  RESULTS_TRX, { 1, 1, 1, 0, 0, 0, 0 }, "declared passed=10 but 1 were counted" },
	{ "trx-every-outcome.trx",
	  "<TestRun><Results>"
	  "<UnitTestResult testName=\"o.Passed\" outcome=\"Passed\"/>"
	  "<UnitTestResult testName=\"o.Failed\" outcome=\"Failed\"/>"
	  "<UnitTestResult testName=\"o.Error\" outcome=\"Error\"/>"
	  "<UnitTestResult testName=\"o.Timeout\" outcome=\"Timeout\"/>"
	  "<UnitTestResult testName=\"o.Aborted\" outcome=\"Aborted\"/>"
	  "<UnitTestResult testName=\"o.NotExecuted\" outcome=\"NotExecuted\"/>"
	  "<UnitTestResult testName=\"o.NotRunnable\" outcome=\"NotRunnable\"/>"
	  "<UnitTestResult testName=\"o.Pending\" outcome=\"Pending\"/>"
	  "<UnitTestResult testName=\"o.InProgress\" outcome=\"InProgress\"/>"
	  "<UnitTestResult testName=\"o.Inconclusive\" outcome=\"Inconclusive\"/>"
	  "<UnitTestResult testName=\"o.Warning\" outcome=\"Warning\"/>"
	  "<UnitTestResult testName=\"o.PassedButRunAborted\" outcome=\"PassedButRunAborted\"/>"
	  "<UnitTestResult testName=\"o.Disconnected\" outcome=\"Disconnected\"/>"
	  "<UnitTestResult testName=\"o.Completed\" outcome=\"Completed\"/>"
	  "<UnitTestResult testName=\"o.Foo\" outcome=\"Foo\"/>"
	  "</Results></TestRun>",
	  RESULTS_TRX, { 15, 11, 1, 1, 3, 4, 6 },
	  "1 results with an unknown outcome (first 'Foo') counted as other" },
	{ "trx-stray-result-type.trx",
	  "<TestRun><Results><UnitTestResult testName=\"x\" outcome=\"Passed\"/>"
	  "<ManualTestResult testName=\"m\" outcome=\"Passed\"/></Results>"
	  "<TestDefinitions><UnitTest name=\"x\"/></TestDefinitions></TestRun>",
	  RESULTS_TRX, { 1, 1, 1, 0, 0, 0, 0 }, "1 elements among the results were not counted (first 'ManualTestResult')" },
	{ "trx-run-level-output-ignored.trx",
	  "<TestRun><Results/><ResultSummary outcome=\"Completed\"><Counters total=\"0\"/>"
	  "<Output><StdOut>run-level</StdOut></Output></ResultSummary></TestRun>",
	  RESULTS_TRX, { 0, 0, 0, 0, 0, 0, 0 }, NULL },

	{ "junit-testsuites.xml",
	  "<?xml version=\"1.0\"?>\n"
	  "<testsuites tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
	  " <testsuite name=\"s1\" tests=\"2\" failures=\"1\" timestamp=\"2024-02-02T10:00:00\">\n"
	  "  <testcase classname=\"pkg.A\" name=\"ok\" time=\"0.5\"/>\n"
	  "  <testcase classname=\"pkg.A\" name=\"bad\" time=\"1\"><failure message=\"x\">boom</failure></testcase>\n"
	  " </testsuite>\n"
	  " <testsuite name=\"s2\" tests=\"2\" skipped=\"1\" timestamp=\"2024-02-02T11:00:00\">\n"
	  "  <testcase name=\"bare\"/>\n"
	  "  <testcase classname=\"pkg.B\" name=\"skip\"><skipped/></testcase>\n"
	  " </testsuite>\n"
	  "</testsuites>\n",
	  RESULTS_JUNIT, { 4, 3, 2, 1, 0, 1, 0 }, NULL },
	{ "junit-testsuite-root.xml",
	  "<testsuite name=\"only\" tests=\"2\" failures=\"0\" errors=\"1\">"
	  "<testcase name=\"a\"/><testcase name=\"b\"><error message=\"e\"/></testcase></testsuite>",
	  RESULTS_JUNIT, { 2, 2, 1, 0, 1, 0, 0 }, NULL },
	{ "junit-nested.xml",
	  "<testsuites>\n"
	  " <testsuites>\n"
	  "  <testsuite name=\"outer\" tests=\"3\" failures=\"1\">\n"
	  "   <testsuite name=\"inner1\" tests=\"2\" failures=\"1\">\n"
	  "    <testcase classname=\"N\" name=\"i1\"/>\n"
	  "    <testcase classname=\"N\" name=\"i2\"><failure/></testcase>\n"
	  "   </testsuite>\n"
	  "   <testsuite name=\"inner2\" tests=\"1\"><testsuite name=\"deeper\" tests=\"1\">\n"
	  "    <testcase classname=\"N\" name=\"d1\"/>\n"
	  "   </testsuite></testsuite>\n"
	  "  </testsuite>\n"
	  " </testsuites>\n"
	  " <testsuite name=\"second\" tests=\"1\"><testcase name=\"s\"/></testsuite>\n"
	  "</testsuites>\n",
	  RESULTS_JUNIT, { 4, 4, 3, 1, 0, 0, 0 }, NULL },
	{ "junit-ctest.xml",
	  "<testsuite name=\"ctest\" tests=\"4\" failures=\"1\" disabled=\"1\" skipped=\"1\">\n"
	  " <testcase name=\"t1\" classname=\"t1\" time=\"0.01\" status=\"run\"/>\n"
	  " <testcase name=\"t2\" classname=\"t2\" time=\"0\" status=\"disabled\"/>\n"
	  " <testcase name=\"t3\" classname=\"t3\" time=\"0.2\" status=\"fail\"><failure message=\"Failed\"/></testcase>\n"
	  " <testcase name=\"t4\" classname=\"t4\" time=\"0\" status=\"notrun\"><skipped message=\"Unable to find executable\"/></testcase>\n"
	  "</testsuite>\n",
	  RESULTS_JUNIT, { 4, 2, 1, 1, 0, 2, 0 }, NULL },
	{ "junit-googletest.xml",
	  "<testsuites tests=\"4\" failures=\"0\" disabled=\"1\" skipped=\"2\" errors=\"0\">\n"
	  " <testsuite name=\"G\" tests=\"4\" failures=\"0\" disabled=\"1\" skipped=\"2\" errors=\"0\">\n"
	  "  <testcase name=\"Runs\" status=\"run\" result=\"completed\" time=\"0.001\" classname=\"G\"/>\n"
	  "  <testcase name=\"DISABLED_Off\" status=\"notrun\" result=\"suppressed\" time=\"0\" classname=\"G\"/>\n"
	  "  <testcase name=\"Skips\" status=\"run\" result=\"skipped\" time=\"0\" classname=\"G\"><skipped message=\"x\"/></testcase>\n"
	  "  <testcase name=\"SkipsBare\" status=\"run\" result=\"skipped\" classname=\"G\"/>\n"
	  " </testsuite>\n"
	  "</testsuites>\n",
	  RESULTS_JUNIT, { 4, 1, 1, 0, 0, 3, 0 }, NULL },
	{ "junit-failure-and-error.xml",
	  "<testsuite tests=\"3\" failures=\"1\" errors=\"1\">"
	  "<testcase name=\"both\"><failure/><error/></testcase>"
	  "<testcase name=\"twice\"><failure/><failure/></testcase>"
	  "<testcase name=\"behave\" status=\"failed\"/>"
	  "</testsuite>",
	  RESULTS_JUNIT, { 3, 3, 0, 2, 1, 0, 0 }, "suite '(unnamed)' declares failures=1 but 2 counted" },
	{ "junit-suite-disagrees.xml",
	  "<testsuites><testsuite name=\"s\" tests=\"5\" failures=\"2\"><testcase name=\"only\"/></testsuite></testsuites>",
	  RESULTS_JUNIT, { 1, 1, 1, 0, 0, 0, 0 }, "suite 's' declares tests=5 but 1 counted, failures=2 but 0 counted" },
	{ "junit-root-disagrees.xml",
	  "<testsuites tests=\"3\"><testsuite name=\"s\"><testcase name=\"only\"/></testsuite></testsuites>",
	  RESULTS_JUNIT, { 1, 1, 1, 0, 0, 0, 0 }, "testsuites declares tests=3 but 1 test cases were counted" },
	/* Suite-level errors with no testcase are not counted; the disagreement is a note. */
	{ "junit-suite-errors-only.xml",
	  "<testsuites tests=\"0\" errors=\"1\"><testsuite name=\"broken\" tests=\"0\" errors=\"1\"/></testsuites>",
	  RESULTS_JUNIT, { 0, 0, 0, 0, 0, 0, 0 }, "suite 'broken' declares errors=1 but 0 counted" },
	{ "junit-empty-testsuites.xml", "<testsuites/>", RESULTS_JUNIT, { 0, 0, 0, 0, 0, 0, 0 }, NULL },
	/* A namespace error is not fatal to libxml2: read on, and say so. */
	{ "junit-undeclared-prefix.xml",
	  "<testsuites><testsuite><x:testcase name=\"a\"/><testcase name=\"b\"/></testsuite></testsuites>",
	  RESULTS_JUNIT, { 1, 1, 1, 0, 0, 0, 0 },
	  "XML error at line 1 (read on): Namespace prefix x on testcase is not defined" },
	{ "junit-testcase-outside-suite-structure.xml",
	  "<testsuites><testsuite name=\"s\" tests=\"1\"><properties><testcase name=\"not-a-test\"/></properties>"
	  "<testcase name=\"t\"><system-err>e</system-err></testcase></testsuite></testsuites>",
	  RESULTS_JUNIT, { 1, 1, 1, 0, 0, 0, 0 }, NULL },
};

/* Writes the fixture of the count_cases row named file. Caller frees the path. */
static char *case_fixture(const char *file)
{
	for (size_t i = 0; i < ARRAY_SIZE(count_cases); i++)
		if (!strcmp(count_cases[i].file, file))
			return fixture(file, count_cases[i].xml, strlen(count_cases[i].xml));
	fail_msg("no fixture '%s'", file);
	return NULL;
}

static void test_count_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(count_cases); i++) {
		const struct count_case *c = &count_cases[i];
		struct results_file f = RESULTS_FILE_INIT;
		struct seen s = { 0 };
		char *err = NULL;
		char *p = fixture(c->file, c->xml, strlen(c->xml));
		print_message("case: %s\n", c->file);
		if (results_parse(p, NULL, collect, &s, &f, &err) != 0)
			fail_msg("%s refused: %s", c->file, err);
		assert_null(err);
		assert_string_equal(f.path, p);
		assert_int_equal(f.format, c->format);
		if (!counts_equal(&f.counts, &c->want)) {
			print_counts("got ", &f.counts);
			print_counts("want", &c->want);
			fail();
		}
		assert_int_equal(s.calls, (size_t)c->want.total);
		print_notes(&f);
		if (c->note)
			assert_true(has_note(&f, c->note));
		else
			assert_int_equal(f.nnotes, 0);
		for (size_t k = 0; k < f.nnotes; k++)
			assert_null(strchr(f.notes[k], '\n'));
		results_file_release(&f);
		results_file_release(&f);
		seen_release(&s);
		free(p);
	}
}

static const struct results_limits small_limits = { 1 << 20, 16, 64, 4096, 0 };

static void test_trx_details(void **state)
{
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL, *p;
	const struct seen_test *t;
	(void)state;

	/* Header fields, declared counters, durations. */
	p = case_fixture("trx-namespace-bom.trx");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	assert_string_equal(f.outcome, "Failed");
	assert_string_equal(f.start, "2024-01-01T00:00:01");
	assert_string_equal(f.finish, "2024-01-01T00:00:09");
	assert_true(f.has_declared);
	assert_int_equal(f.declared.total, 3);
	assert_int_equal(f.declared.executed, 2);
	assert_int_equal(f.declared.errors, 0);
	assert_int_equal(f.declared.skipped, 1);
	assert_int_equal(f.declared.other, 0);
	t = seen_find(&s, "A.pass");
	assert_true(t->duration > 1.4999 && t->duration < 1.5001);
	assert_string_equal(t->raw, "Passed");
	assert_null(t->parent);
	assert_string_equal(t->out, "");
	t = seen_find(&s, "A.skip");
	assert_int_equal(t->outcome, OUTCOME_SKIPPED);
	assert_false(t->executed);
	assert_true(t->duration < 0);
	results_file_release(&f);
	seen_release(&s);
	free(p);

	/* Data-driven rows: parentage, per-row stdout, the parent's own stdout is not a test's. */
	p = case_fixture("trx-datadriven.trx");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	assert_int_equal(s.n, 3);
	for (size_t i = 0; i < s.n; i++)
		assert_string_equal(s.t[i].parent, "DataTest");
	assert_string_equal(s.t[0].name, "DataTest (1)");
	assert_string_equal(seen_find(&s, "DataTest (3)")->out, "row 3");
	assert_int_equal(seen_find(&s, "DataTest (2)")->outcome, OUTCOME_FAILED);
	assert_true(has_note(&f, "declared executed=4 but 3 were counted"));
	assert_true(has_note(&f, "declared failed=2 but 1 were counted"));
	assert_int_equal(f.nnotes, 3);
	results_file_release(&f);
	seen_release(&s);
	free(p);

	/* A missing outcome is an error that was not executed, not a pass. */
	p = case_fixture("trx-missing-outcome.trx");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	t = seen_find(&s, "M.none");
	assert_null(t->raw);
	assert_int_equal(t->outcome, OUTCOME_ERROR);
	assert_false(t->executed);
	assert_true(t->duration == 2.0);
	assert_false(f.has_declared);
	assert_int_equal(f.declared.total, -1);
	assert_null(f.outcome);
	assert_null(f.start);
	results_file_release(&f);
	seen_release(&s);
	free(p);

	/* Every outcome's mapping. */
	p = case_fixture("trx-every-outcome.trx");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	{
		static const struct { const char *name; enum test_outcome o; int executed; } map[] = {
			{ "o.Passed", OUTCOME_PASSED, 1 }, { "o.Failed", OUTCOME_FAILED, 1 },
			{ "o.Error", OUTCOME_ERROR, 1 }, { "o.Timeout", OUTCOME_ERROR, 1 },
			{ "o.Aborted", OUTCOME_ERROR, 1 }, { "o.NotExecuted", OUTCOME_SKIPPED, 0 },
			{ "o.NotRunnable", OUTCOME_SKIPPED, 0 }, { "o.Pending", OUTCOME_SKIPPED, 0 },
			{ "o.InProgress", OUTCOME_SKIPPED, 0 }, { "o.Inconclusive", OUTCOME_OTHER, 1 },
			{ "o.Warning", OUTCOME_OTHER, 1 }, { "o.PassedButRunAborted", OUTCOME_OTHER, 1 },
			{ "o.Disconnected", OUTCOME_OTHER, 1 }, { "o.Completed", OUTCOME_OTHER, 1 },
			{ "o.Foo", OUTCOME_OTHER, 1 },
		};
		for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
			t = seen_find(&s, map[i].name);
			assert_int_equal(t->outcome, map[i].o);
			assert_int_equal(t->executed, map[i].executed);
			assert_string_equal(t->raw, map[i].name + 2);
		}
	}
	results_file_release(&f);
	seen_release(&s);
	free(p);
}

static void test_trx_stdout_and_durations(void **state)
{
	static const char xml[] =
		"<TestRun><Results>\n"
		"<UnitTestResult testName=\"short\" outcome=\"Passed\" duration=\"1.02:03:04.25\">"
		"<Output><StdOut>metric: 42 ms\n</StdOut><StdErr>not stdout</StdErr></Output></UnitTestResult>\n"
		"<UnitTestResult testName=\"long\" outcome=\"Passed\" duration=\"00:01:00\">"
		"<Output><StdOut>0123456789<![CDATA[abcdefghij]]>KLMNOP</StdOut></Output></UnitTestResult>\n"
		"<UnitTestResult testName=\"utf8\" outcome=\"Passed\" duration=\"bogus\">"
		"<Output><StdOut>\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9</StdOut></Output></UnitTestResult>\n"
		"<UnitTestResult testName=\"bad-minutes\" outcome=\"Passed\" duration=\"00:61:00\"/>\n"
		"</Results></TestRun>\n";
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL, *p = fixture("trx-stdout.trx", xml, strlen(xml));
	const struct seen_test *t;
	(void)state;
	assert_int_equal(results_parse(p, &small_limits, collect, &s, &f, &err), 0);
	t = seen_find(&s, "short");
	assert_string_equal(t->out, "metric: 42 ms\n");
	assert_false(t->truncated);
	assert_true(t->duration > 93784.2499 && t->duration < 93784.2501);
	t = seen_find(&s, "long");
	assert_string_equal(t->out, "0123456789abcdef");
	assert_int_equal(t->out_len, 16);
	assert_true(t->truncated);
	assert_true(t->duration == 60.0);
	t = seen_find(&s, "utf8");
	assert_int_equal(t->out_len, 16);       /* eight two-byte characters, none split */
	assert_true(t->truncated);
	assert_true(t->duration < 0);
	assert_true(seen_find(&s, "bad-minutes")->duration < 0);
	assert_true(has_note(&f, "2 results with an unreadable duration"));
	results_file_release(&f);
	seen_release(&s);
	free(p);
}

static void test_junit_details(void **state)
{
	static const char xml[] =
		"<testsuites>\n"
		"<testsuite name=\"t\" timestamp=\"2024-03-03T03:03:03\">\n"
		"<system-out>suite-level output</system-out>\n"
		"<testcase classname=\"C\" name=\"big\" time=\"1,234.5\"><system-out>line1\n<![CDATA[<b>x</b>]]></system-out></testcase>\n"
		"<testcase classname=\"C\" name=\"huge\" time=\"12,345,678.25\"/>\n"
		"<testcase classname=\"\" name=\"noclass\" time=\"0.125\"/>\n"
		"<testcase classname=\"C\" name=\"decimal-comma\" time=\"1,5\"/>\n"
		"<testcase classname=\"C\" name=\"bad-group\" time=\"12,34.5\"/>\n"
		"<testcase classname=\"C\" name=\"empty-time\" time=\"\"/>\n"
		"<testcase classname=\"C\" name=\"negative\" time=\"-1\"/>\n"
		"<testcase classname=\"C\" name=\"long-out\"><system-out>0123456789abcdefXYZ</system-out></testcase>\n"
		"<testcase classname=\"C\" name=\"both\"><failure/><error/></testcase>\n"
		"<testcase classname=\"C\" name=\"gtest\" status=\"notrun\"/>\n"
		"</testsuite>\n"
		"</testsuites>\n";
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL, *p = fixture("junit-details.xml", xml, strlen(xml));
	const struct seen_test *t;
	(void)state;
	assert_int_equal(results_parse(p, &small_limits, collect, &s, &f, &err), 0);
	assert_string_equal(f.start, "2024-03-03T03:03:03");
	assert_null(f.finish);
	assert_null(f.outcome);
	assert_false(f.has_declared);
	t = seen_find(&s, "C.big");
	assert_true(t->duration == 1234.5);
	assert_string_equal(t->out, "line1\n<b>x</b>");
	assert_null(t->raw);
	assert_int_equal(t->outcome, OUTCOME_PASSED);
	assert_true(seen_find(&s, "C.huge")->duration == 12345678.25);
	assert_true(seen_find(&s, "noclass")->duration == 0.125);
	assert_true(seen_find(&s, "C.decimal-comma")->duration < 0);
	assert_true(seen_find(&s, "C.bad-group")->duration < 0);
	assert_true(seen_find(&s, "C.empty-time")->duration < 0);
	assert_true(seen_find(&s, "C.negative")->duration < 0);
	assert_true(has_note(&f, "4 test cases with an unreadable time"));
	t = seen_find(&s, "C.long-out");
	assert_string_equal(t->out, "0123456789abcdef");
	assert_true(t->truncated);
	t = seen_find(&s, "C.both");
	assert_int_equal(t->outcome, OUTCOME_ERROR);
	assert_string_equal(t->raw, "error");
	assert_true(t->executed);
	t = seen_find(&s, "C.gtest");
	assert_int_equal(t->outcome, OUTCOME_SKIPPED);
	assert_string_equal(t->raw, "notrun");
	assert_false(t->executed);
	results_file_release(&f);
	seen_release(&s);
	free(p);

	/* Declared counts: the root's attributes, else the sum of the top-level suites. */
	p = case_fixture("junit-testsuites.xml");
	assert_int_equal(results_parse(p, NULL, NULL, NULL, &f, &err), 0);
	assert_true(f.has_declared);
	assert_int_equal(f.declared.total, 4);
	assert_int_equal(f.declared.skipped, 1);
	assert_int_equal(f.declared.executed, -1);
	assert_string_equal(f.start, "2024-02-02T10:00:00");
	results_file_release(&f);
	free(p);
	p = case_fixture("junit-nested.xml");
	assert_int_equal(results_parse(p, NULL, NULL, NULL, &f, &err), 0);
	assert_int_equal(f.declared.total, 4);      /* outer (3) + second (1); nested suites are not added again */
	assert_int_equal(f.declared.failed, 1);
	assert_int_equal(f.declared.errors, -1);
	results_file_release(&f);
	free(p);
	p = case_fixture("junit-ctest.xml");
	assert_int_equal(results_parse(p, NULL, NULL, NULL, &f, &err), 0);
	assert_int_equal(f.declared.skipped, 2);    /* ctest: disabled + skipped */
	results_file_release(&f);
	free(p);
	p = case_fixture("junit-suite-errors-only.xml");
	assert_int_equal(results_parse(p, NULL, NULL, NULL, &f, &err), 0);
	assert_int_equal(f.declared.errors, 1);
	assert_true(has_note(&f, "testsuites declares errors=1 but 0 were counted"));
	results_file_release(&f);
	free(p);
}

static void test_names_truncated(void **state)
{
	static const char xml[] =
		"<testsuite><testcase classname=\"pkg.Class\" name=\"method\"/>"
		"<testcase name=\"\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\"/><testcase name=\"short\"/></testsuite>";
	struct results_limits lim = RESULTS_LIMITS_DEFAULT;
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL, *p = fixture("names.xml", xml, strlen(xml));
	(void)state;
	lim.max_name = 5;
	assert_int_equal(results_parse(p, &lim, collect, &s, &f, &err), 0);
	assert_string_equal(s.t[0].name, "pkg.C");
	assert_string_equal(s.t[1].name, "\xC3\xA9\xC3\xA9");   /* 4 bytes: the third é would be split */
	assert_string_equal(s.t[2].name, "short");
	assert_true(has_note(&f, "2 test names longer than 5 bytes were truncated"));
	assert_int_equal(f.nnotes, 1);
	results_file_release(&f);
	seen_release(&s);
	free(p);
}

static void test_notes_capped(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct results_file f = RESULTS_FILE_INIT;
	char *err = NULL, *p;
	(void)state;
	strbuf_adds(&sb, "<testsuites>");
	for (int i = 0; i < 50; i++)
		strbuf_addf(&sb, "<testsuite name=\"s%d\" tests=\"9\"><testcase name=\"t\"/></testsuite>", i);
	strbuf_adds(&sb, "</testsuites>");
	p = fixture("many-notes.xml", sb.buf, sb.len);
	assert_int_equal(results_parse(p, NULL, NULL, NULL, &f, &err), 0);
	assert_int_equal(f.counts.total, 50);
	assert_int_equal(f.nnotes, 20);
	assert_string_equal(f.notes[0], "suite 's0' declares tests=9 but 1 counted");
	assert_string_equal(f.notes[19], "31 more notes not shown");
	results_file_release(&f);
	strbuf_release(&sb);
	free(p);
}

/* ---- hostile input ---- */

static const char billion_laughs[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE lolz [\n"
	" <!ENTITY lol \"lol\">\n"
	" <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
	" <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
	" <!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n"
	" <!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">\n"
	" <!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">\n"
	" <!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">\n"
	" <!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">\n"
	" <!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">\n"
	"]>\n"
	"<testsuites><testsuite name=\"&lol9;\"><testcase name=\"&lol9;\"/></testsuite></testsuites>\n";

#define DOCTYPE_REASON "DOCTYPE is not allowed in test results (possible external entity or entity expansion attack)"

struct hostile_case {
	const char *file;
	const char *data;
	size_t len;          /* 0: strlen(data) */
	const char *want;    /* the reason after "<path>" */
	size_t calls;        /* tests handed to the callback before the problem showed */
};

static const struct hostile_case hostile_cases[] = {
	{ "billion-laughs.xml", billion_laughs, 0, ":2: " DOCTYPE_REASON, 0 },
	{ "external-dtd.trx",
	  "<?xml version=\"1.0\"?><!DOCTYPE TestRun SYSTEM \"http://127.0.0.1:9/evil.dtd\"><TestRun/>", 0,
	  ":1: " DOCTYPE_REASON, 0 },
	{ "parameter-entity.xml",
	  "<!DOCTYPE x [\n<!ENTITY % p SYSTEM \"file:///etc/passwd\">\n%p;\n]>\n<testsuites/>", 0,
	  ":1: " DOCTYPE_REASON, 0 },
	{ "doctype-after-comments.xml",
	  "<?xml version=\"1.0\"?>\n<!-- one -->\n<?pi <!-- not a comment ?>\n<!-- two\n -- - -->\n"
	  "<!DOCTYPE testsuites>\n<testsuites/>", 0, ":6: " DOCTYPE_REASON, 0 },
	{ "doctype-utf16.xml",
	  /* "\uFEFF<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE a>\n<TestRun/>" in UTF-16LE */
	  "\xFF\xFE<\0?\0x\0m\0l\0 \0v\0e\0r\0s\0i\0o\0n\0=\0\"\0" "1\0.\0" "0\0\"\0 \0e\0n\0c\0o\0d\0i\0n\0g\0"
	  "=\0\"\0U\0T\0F\0-\0" "1\0" "6\0\"\0?\0>\0\n\0<\0!\0D\0O\0C\0T\0Y\0P\0E\0 \0a\0>\0\n\0<\0T\0e\0s\0t\0"
	  "R\0u\0n\0/\0>\0\n\0", 130, ":2: " DOCTYPE_REASON, 0 },
	{ "non-xml.bin", "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", 16,
	  ":1: not an XML document (no markup where it should begin)", 0 },
	{ "plain-text.txt", "total: 3 passed\n", 0, ":1: not an XML document (no markup where it should begin)", 0 },
	{ "markup-then-garbage.xml", "<testsuites>\n<testcase name=\"a\" <<>>\n</testsuites>", 0,
	  ":2: not well-formed XML: error parsing attribute name", 0 },
	{ "empty.xml", "", 0, ": file is empty", 0 },
	{ "unknown-root.xml", "<?xml version=\"1.0\"?>\n\n<foo><testcase/></foo>\n", 0,
	  ":3: unknown root element 'foo' (expected TestRun, testsuites or testsuite)", 0 },
	{ "html.html", "<html><body>not results</body></html>", 0,
	  ":1: unknown root element 'html' (expected TestRun, testsuites or testsuite)", 0 },
	{ "truncated.xml", "<testsuites>\n<testsuite name=\"a\">\n<testcase name=\"x\"/>\n", 0,
	  ":3: premature end of the document (truncated file?)", 1 },
	{ "undefined-entity.xml", "<testsuites>\n<testsuite name=\"&x;\"/></testsuites>", 0,
	  ":2: entity '&x;' is not defined: test results may use only &amp; &lt; &gt; &quot; &apos; "
	  "and character references", 0 },
	{ "mismatched.xml", "<testsuites>\n<testsuite>\n</testsuites>\n", 0,
	  ":3: not well-formed XML: Opening and ending tag mismatch: testsuite line 2 and testsuites", 0 },
};

static void test_hostile_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(hostile_cases); i++) {
		const struct hostile_case *c = &hostile_cases[i];
		struct results_file f = RESULTS_FILE_INIT;
		struct seen s = { 0 };
		char *err = NULL;
		char *p = fixture(c->file, c->data, c->len ? c->len : strlen(c->data));
		int64_t t0 = mono_ns(), c0 = cpu_ns();
		int rc = parse_silently(p, NULL, &s, &f, &err);
		int64_t ns = mono_ns() - t0, cpu = cpu_ns() - c0;
		print_message("case: %s -> %s (%.1f ms, %.1f ms of CPU)\n", c->file,
			      err ? err : "(accepted)", ns / 1e6, cpu / 1e6);
		assert_int_equal(rc, -1);
		assert_non_null(err);
		assert_int_equal(strncmp(err, p, strlen(p)), 0);
		assert_non_null(strstr(err + strlen(p), c->want));
		assert_int_equal(strncmp(err + strlen(p), c->want, strlen(c->want)), 0);
		assert_null(strchr(err, '\n'));
		assert_int_equal(s.calls, c->calls);
		assert_null(f.path);
		assert_int_equal(f.nnotes, 0);
		assert_true(cpu < 2000000000);
		seen_release(&s);
		free(err);
		free(p);
	}
}

/* A DOCTYPE naming local files: refused before anything is read from them. */
static void test_external_entity_never_read(void **state)
{
	static const char marker[] = "abev-secret-7f3a9c";
	char *secret = fixture("secret.txt", marker, strlen(marker));
	const char *targets[2] = { secret, "/etc/hostname" };
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	(void)state;
	assert_true(in >= 0);
	assert_true(inotify_add_watch(in, secret, IN_OPEN | IN_ACCESS) >= 0);
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		struct results_file f = RESULTS_FILE_INIT;
		struct seen s = { 0 };
		char *err = NULL, *want, *p;
		char *xml = xasprintf("<?xml version=\"1.0\"?>\n<!-- results -->\n"
				      "<!DOCTYPE TestRun [\n<!ENTITY h SYSTEM \"file://%s\">\n]>\n"
				      "<TestRun><Results><UnitTestResult testName=\"&h;\" outcome=\"Passed\">"
				      "<Output><StdOut>&h;</StdOut></Output></UnitTestResult></Results></TestRun>\n",
				      targets[i]);
		p = fixture("xxe.trx", xml, strlen(xml));
		assert_int_equal(parse_silently(p, NULL, &s, &f, &err), -1);
		want = xasprintf("%s:3: " DOCTYPE_REASON, p);
		assert_string_equal(err, want);   /* exactly this: no file content anywhere */
		assert_int_equal(s.calls, 0);
		assert_null(f.notes);
		free(want);
		free(err);
		free(xml);
		free(p);
	}
	{
		char ev[4096];
		ssize_t n = read(in, ev, sizeof(ev));
		assert_true(n < 0 && errno == EAGAIN);   /* the secret file was never opened */
	}
	close(in);
	free(secret);
}

/* "<!DOCTYPE" as text, or inside a prolog comment or PI, is no DOCTYPE. */
static void test_doctype_lookalikes_accepted(void **state)
{
	static const char xml[] =
		"<?xml version=\"1.0\"?>\n<!-- <!DOCTYPE html> -->\n<?x <!DOCTYPE y> ?>\n"
		"<TestRun><Results><UnitTestResult testName=\"html\" outcome=\"Passed\"><Output><StdOut>"
		"<![CDATA[<!DOCTYPE html><p>page</p>]]> &lt;!DOCTYPE again</StdOut></Output></UnitTestResult>"
		"</Results></TestRun>";
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL, *p = fixture("lookalike.trx", xml, strlen(xml));
	(void)state;
	if (results_parse(p, NULL, collect, &s, &f, &err) != 0)
		fail_msg("refused: %s", err);
	assert_int_equal(f.counts.passed, 1);
	assert_string_equal(s.t[0].out, "<!DOCTYPE html><p>page</p> <!DOCTYPE again");
	results_file_release(&f);
	seen_release(&s);
	free(p);
}

static void test_deep_nesting(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct results_limits lim = RESULTS_LIMITS_DEFAULT;
	struct results_file f = RESULTS_FILE_INIT;
	char *err = NULL, *p, *want;
	int64_t c0;
	(void)state;
	strbuf_adds(&sb, "<testsuites>\n");
	for (int i = 0; i < 100000; i++)
		strbuf_adds(&sb, "<a>");
	for (int i = 0; i < 100000; i++)
		strbuf_adds(&sb, "</a>");
	strbuf_adds(&sb, "</testsuites>\n");
	p = fixture("deep.xml", sb.buf, sb.len);
	c0 = cpu_ns();
	assert_int_equal(results_parse(p, NULL, NULL, NULL, &f, &err), -1);
	assert_true(cpu_ns() - c0 < 1000000000);
	want = xasprintf("%s:2: elements nested deeper than 64 levels", p);
	assert_string_equal(err, want);
	free(want);
	free(err);

	/* The limit is the caller's: a normal JUnit file under a tiny limit. */
	lim.max_depth = 2;
	free(p);
	p = fixture("depth3.xml", "<testsuites><testsuite><testcase/></testsuite></testsuites>", 59);
	assert_int_equal(results_parse(p, &lim, NULL, NULL, &f, &err), -1);
	assert_non_null(strstr(err, ":1: elements nested deeper than 2 levels"));
	free(err);
	lim.max_depth = 3;
	assert_int_equal(results_parse(p, &lim, NULL, NULL, &f, &err), 0);
	assert_int_equal(f.counts.total, 1);
	results_file_release(&f);
	strbuf_release(&sb);
	free(p);
}

static void test_size_limit(void **state)
{
	static const char xml[] = "<testsuite><testcase name=\"a\"/></testsuite>";   /* 43 bytes */
	struct results_limits lim = RESULTS_LIMITS_DEFAULT;
	struct results_file f = RESULTS_FILE_INIT;
	char *err = NULL, *want, *p = fixture("size.xml", xml, strlen(xml));
	(void)state;
	assert_int_equal(strlen(xml), 43);
	lim.max_bytes = 42;
	assert_int_equal(results_parse(p, &lim, NULL, NULL, &f, &err), -1);
	want = xasprintf("%s: file is 43 bytes, over the limit of 42", p);
	assert_string_equal(err, want);
	free(want);
	free(err);
	lim.max_bytes = 43;   /* exactly the limit is fine */
	assert_int_equal(results_parse(p, &lim, NULL, NULL, &f, &err), 0);
	assert_int_equal(f.counts.total, 1);
	results_file_release(&f);
	free(p);
}

static void test_not_files(void **state)
{
	struct results_file f = RESULTS_FILE_INIT;
	char *err = NULL, *missing = path_join(tmpdir, "missing.trx");
	(void)state;
	assert_int_equal(results_parse(tmpdir, NULL, NULL, NULL, &f, &err), -1);
	assert_non_null(strstr(err, "is a directory"));
	free(err);
	assert_int_equal(results_parse("/dev/null", NULL, NULL, NULL, &f, &err), -1);
	assert_string_equal(err, "/dev/null: not a regular file or FIFO");
	free(err);
	assert_int_equal(results_parse(missing, NULL, NULL, NULL, &f, &err), -1);
	assert_non_null(strstr(err, "cannot open: No such file or directory"));
	assert_int_equal(strncmp(err, missing, strlen(missing)), 0);
	free(err);
	free(missing);
}

static void test_callback_stops(void **state)
{
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL;
	char *p = case_fixture("junit-testsuites.xml");
	(void)state;
	s.stop_after = 2;
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), -1);
	assert_int_equal(s.calls, 2);
	assert_non_null(strstr(err, ": stopped"));
	assert_null(f.path);
	free(err);
	seen_release(&s);
	free(p);
}

/* A writer child that connects to the FIFO, writes head, then unit forever. */
static pid_t fifo_writer(const char *path, const char *head, const char *unit)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd;
		signal(SIGPIPE, SIG_DFL);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			_exit(1);
		if (write_all(fd, head, strlen(head)) < 0)
			_exit(0);
		for (;;)
			if (write_all(fd, unit, strlen(unit)) < 0)
				_exit(0);
	}
	return pid;
}

static void test_fifo(void **state)
{
	static const struct {
		const char *head, *unit, *want;
		uint64_t max_bytes;
	} cases[] = {
		{ "<testsuites>", "<testsuite>", ":1: elements nested deeper than 64 levels", 1 << 20 },
		{ "<testsuites><testsuite>", "<testcase name=\"x\"/>\n", ": more than 1048576 bytes, over the limit", 1 << 20 },
		{ "<?xml version=\"1.0\"?>\n<!DOCTYPE x [\n", "<!ENTITY a \"b\">\n", ":2: " DOCTYPE_REASON, 1 << 20 },
		/* over the limit within the first read, while the reader is being created */
		{ "<testsuites>", "<testcase/>", ": more than 10 bytes, over the limit", 10 },
	};
	/*
	 * On the stack, not the heap: the forked writers _exit() holding a
	 * copy of the heap, where valgrind counts a path kept only in a
	 * register as lost.
	 */
	char fifo[4096];
	(void)state;
	assert_true(snprintf(fifo, sizeof(fifo), "%s/results.fifo", tmpdir) < (int)sizeof(fifo));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct results_limits lim = RESULTS_LIMITS_DEFAULT;
		struct results_file f = RESULTS_FILE_INIT;
		struct pollfd pfd;
		char *err = NULL;
		int64_t t0, c0;
		int st;
		pid_t pid = fifo_writer(fifo, cases[i].head, cases[i].unit);
		/* Holding a read end lets the writer connect; wait until data is there. */
		int holder = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		assert_true(holder >= 0);
		pfd.fd = holder;
		pfd.events = POLLIN;
		assert_int_equal(poll(&pfd, 1, 10000), 1);
		lim.max_bytes = cases[i].max_bytes;
		t0 = mono_ns();
		c0 = cpu_ns();
		assert_int_equal(parse_silently(fifo, &lim, NULL, &f, &err), -1);
		print_message("fifo case %zu: %s (%.1f ms, %.1f ms of CPU)\n", i, err,
			      (mono_ns() - t0) / 1e6, (cpu_ns() - c0) / 1e6);
		/* Stopped at the limit: reading the endless writer would never end. */
		assert_true(cpu_ns() - c0 < 5000000000LL);
		assert_int_equal(strncmp(err, fifo, strlen(fifo)), 0);
		assert_string_equal(err + strlen(fifo), cases[i].want);
		free(err);
		close(holder);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
	}

	/*
	 * A writer that comes late and writes nothing: the reader waits for it
	 * (as cat(1) does) rather than taking the not-yet-opened FIFO for an
	 * empty file, then reports the empty input.
	 */
	{
		struct results_file f = RESULTS_FILE_INIT;
		char *err = NULL, *want;
		int64_t t0 = mono_ns();
		int status;
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct timespec ts = { 0, 200 * 1000 * 1000 };
			nanosleep(&ts, NULL);
			int fd = open(fifo, O_WRONLY | O_CLOEXEC);
			_exit(fd < 0 ? 1 : 0);
		}
		assert_int_equal(results_parse(fifo, NULL, NULL, NULL, &f, &err), -1);
		assert_true(mono_ns() - t0 >= 150000000);
		want = xasprintf("%s: file is empty", fifo);
		assert_string_equal(err, want);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		free(err);
		free(want);
	}
	unlink(fifo);
}

static void test_names(void **state)
{
	struct results_counts sum = { 1, 1, 1, 0, 0, 0, 0 };
	const struct results_counts add = { 5, 4, 1, 1, 1, 1, 1 };
	(void)state;
	assert_string_equal(results_file_format_name(RESULTS_TRX), "trx");
	assert_string_equal(results_file_format_name(RESULTS_JUNIT), "junit");
	assert_string_equal(results_outcome_name(OUTCOME_PASSED), "passed");
	assert_string_equal(results_outcome_name(OUTCOME_FAILED), "failed");
	assert_string_equal(results_outcome_name(OUTCOME_ERROR), "error");
	assert_string_equal(results_outcome_name(OUTCOME_SKIPPED), "skipped");
	assert_string_equal(results_outcome_name(OUTCOME_OTHER), "other");
	results_file_counts_add(&sum, &add);
	assert_int_equal(sum.total, 6);
	assert_int_equal(sum.executed, 5);
	assert_int_equal(sum.passed, 2);
	assert_int_equal(sum.other, 1);
	results_file_release(NULL);
}

/*
 * A test's identity: class and name, alike for each framework's way of
 * writing them. NUnit and MSTest write the bare method (the class only in
 * TestDefinitions, after the results as the vstest logger writes them);
 * xUnit the qualified name; JUnit classname and name.
 */
static const char trx_identity[] =
	"<TestRun xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\"><Results>"
	/* NUnit: the same method in two classes */
	"<UnitTestResult testId=\"id-1\" testName=\"Dictionary_RoundTrip\" outcome=\"Passed\"/>"
	"<UnitTestResult testId=\"id-2\" testName=\"Dictionary_RoundTrip\" outcome=\"Passed\"/>"
	/* NUnit TestCase arguments */
	"<UnitTestResult testId=\"id-3\" testName=\"Add(1,2)\" outcome=\"Passed\"/>"
	/* MSTest data rows under their parent */
	"<UnitTestResult testId=\"id-4\" testName=\"Rows\" outcome=\"Passed\" resultType=\"DataDrivenTest\">"
	"<InnerResults>"
	"<UnitTestResult testId=\"id-4\" testName=\"Rows (0)\" outcome=\"Passed\" resultType=\"DataDrivenDataRow\"/>"
	"<UnitTestResult testId=\"id-4\" testName=\"Rows (1)\" outcome=\"Passed\" resultType=\"DataDrivenDataRow\"/>"
	"</InnerResults></UnitTestResult>"
	/* xUnit: already qualified, a theory case */
	"<UnitTestResult testId=\"id-5\" testName=\"Ns.XTests.Theory(x: 1)\" outcome=\"Passed\"/>"
	/* the class's own name without its namespace */
	"<UnitTestResult testId=\"id-6\" testName=\"Short.Method\" outcome=\"Passed\"/>"
	/* a definition without a class; a result without a definition */
	"<UnitTestResult testId=\"id-7\" testName=\"[Cleanup]\" outcome=\"Passed\"/>"
	"<UnitTestResult testId=\"id-none\" testName=\"Orphan\" outcome=\"Passed\"/>"
	"</Results><TestDefinitions>"
	"<UnitTest id=\"id-1\" name=\"Dictionary_RoundTrip\"><TestMethod className=\"Ns.YamlTests\" name=\"Dictionary_RoundTrip\"/></UnitTest>"
	"<UnitTest id=\"id-2\" name=\"Dictionary_RoundTrip\"><TestMethod className=\"Ns.OtherTests\" name=\"Dictionary_RoundTrip\"/></UnitTest>"
	"<UnitTest id=\"id-3\" name=\"Add(1,2)\"><TestMethod className=\"Ns.MathTests, MathTests, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null\" name=\"Add\"/></UnitTest>"
	"<UnitTest id=\"id-4\" name=\"Rows\"><Execution id=\"e\"/><TestMethod className=\"Ns.Gen`1[[System.Int32, mscorlib]], Lib\" name=\"Rows\"/></UnitTest>"
	"<UnitTest id=\"id-5\" name=\"Ns.XTests.Theory(x: 1)\"><TestMethod className=\"Ns.XTests\" name=\"Theory\"/></UnitTest>"
	"<UnitTest id=\"id-6\" name=\"Short.Method\"><TestMethod className=\"Ns.Short\" name=\"Method\"/></UnitTest>"
	"<UnitTest id=\"id-7\" name=\"[Cleanup]\"><TestMethod name=\"[Cleanup]\"/></UnitTest>"
	"</TestDefinitions></TestRun>";

static const char *const trx_identity_names[] = {
	"Ns.YamlTests.Dictionary_RoundTrip",
	"Ns.OtherTests.Dictionary_RoundTrip",
	"Ns.MathTests.Add(1,2)",
	"Ns.Gen`1[[System.Int32, mscorlib]].Rows (0)",
	"Ns.Gen`1[[System.Int32, mscorlib]].Rows (1)",
	"Ns.XTests.Theory(x: 1)",
	"Ns.Short.Method",
	"[Cleanup]",
	"Orphan",
};

static const char junit_identity[] =
	"<testsuites><testsuite name=\"s\">"
	"<testcase classname=\"pkg.YamlTests\" name=\"Dictionary_RoundTrip\"/>"
	"<testcase classname=\"pkg.OtherTests\" name=\"Dictionary_RoundTrip\"/>"
	"<testcase classname=\"pkg.OtherTests\" name=\"Dictionary_RoundTrip\"/>"
	"<testcase classname=\"pkg.P\" name=\"pkg.P.already\"/>"
	"<testcase classname=\"tests.test_x\" name=\"test_param[1-2]\"/>"
	"<testcase name=\"bare\"/>"
	"</testsuite></testsuites>";

static const char *const junit_identity_names[] = {
	"pkg.YamlTests.Dictionary_RoundTrip",
	"pkg.OtherTests.Dictionary_RoundTrip",
	"pkg.OtherTests.Dictionary_RoundTrip",
	"pkg.P.already",
	"tests.test_x.test_param[1-2]",
	"bare",
};

static void check_identity(const char *path, const char *const *want, size_t nwant)
{
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL;

	if (results_parse(path, NULL, collect, &s, &f, &err) != 0)
		fail_msg("refused: %s", err);
	print_notes(&f);
	assert_int_equal(s.n, nwant);
	for (size_t i = 0; i < nwant; i++)
		assert_string_equal(s.t[i].name, want[i]);
	results_file_release(&f);
	seen_release(&s);
}

static void test_identity(void **state)
{
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL, *p;
	(void)state;

	p = fixture("identity.trx", trx_identity, sizeof(trx_identity) - 1);
	check_identity(p, trx_identity_names, ARRAY_SIZE(trx_identity_names));
	/* The data rows' parent is named alike; a result without a definition is noted. */
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	assert_string_equal(s.t[3].parent, "Ns.Gen`1[[System.Int32, mscorlib]].Rows");
	assert_string_equal(s.t[1].written, "Dictionary_RoundTrip");
	assert_string_equal(s.t[3].written, "Rows (0)");
	assert_true(has_note(&f, "1 results have no test definition of their class"));
	results_file_release(&f);
	seen_release(&s);
	free(p);

	p = fixture("identity.xml", junit_identity, sizeof(junit_identity) - 1);
	check_identity(p, junit_identity_names, ARRAY_SIZE(junit_identity_names));
	free(p);
}

/* ---- the real corpus ---- */

struct corpus_case {
	const char *file;
	enum results_format format;
	struct results_counts want;   /* total, executed, passed, failed, errors, skipped, other */
	int64_t declared_total;       /* -1: none */
	const char *note;             /* a substring of a note; NULL: no notes at all */
};

/*
 * Counts verified by reading each file (and cross-checked with an
 * independent ElementTree script): TRX leaf UnitTestResult /
 * TestResultAggregation rows by outcome, JUnit testcase elements by child
 * (error > failure > skipped) and status/result attributes.
 */
static const struct corpus_case corpus_cases[] = {
	{ "trx/dorny-FluentValidation.Tests.trx", RESULTS_TRX, { 804, 803, 803, 0, 0, 1, 0 }, 804, NULL },
	{ "trx/dorny-SilentNotes.trx", RESULTS_TRX, { 79, 67, 67, 0, 0, 12, 0 }, 79, NULL },
	{ "trx/dorny-dotnet-xunit-vstest.trx", RESULTS_TRX, { 11, 10, 5, 5, 0, 1, 0 }, 11, NULL },
	{ "trx/dorny-dotnet-xunitv3-mtp.trx", RESULTS_TRX, { 4, 4, 1, 3, 0, 0, 0 }, 4, NULL },
	{ "trx/dorny-empty-test-definitions.trx", RESULTS_TRX, { 0, 0, 0, 0, 0, 0, 0 }, 0, NULL },
	{ "trx/dorny-empty.trx", RESULTS_TRX, { 0, 0, 0, 0, 0, 0, 0 }, 0, NULL },
	{ "trx/gfoidl-mstest-datadriven-no-failures.trx", RESULTS_TRX, { 5, 5, 5, 0, 0, 0, 0 }, 6,
	  "declared total=6 but 5 leaf results were counted (data-driven parents are not counted)" },
	{ "trx/gfoidl-mstest-datadriven.trx", RESULTS_TRX, { 5, 5, 3, 2, 0, 0, 0 }, 6,
	  "declared total=6 but 5 leaf results were counted (data-driven parents are not counted)" },
	{ "trx/gfoidl-mstest-ignore.trx", RESULTS_TRX, { 4, 3, 2, 1, 0, 1, 0 }, 4, NULL },
	{ "trx/gfoidl-mstest-warning.trx", RESULTS_TRX, { 1, 1, 1, 0, 0, 0, 0 }, 1, NULL },
	{ "trx/gfoidl-nunit-ignore.trx", RESULTS_TRX, { 5, 3, 2, 1, 0, 2, 0 }, 5, NULL },
	{ "trx/gfoidl-nunit-no-tests.trx", RESULTS_TRX, { 0, 0, 0, 0, 0, 0, 0 }, 0, NULL },
	{ "trx/gfoidl-nunit-testresultaggregation.trx", RESULTS_TRX, { 3, 3, 2, 1, 0, 0, 0 }, 3, NULL },
	{ "trx/gfoidl-nunit-with-stderr.trx", RESULTS_TRX, { 1, 1, 1, 0, 0, 0, 0 }, 1, NULL },
	{ "trx/gfoidl-xunit-datadriven.trx", RESULTS_TRX, { 5, 5, 3, 2, 0, 0, 0 }, 5, NULL },
	{ "junit/dorny-jest-big.xml", RESULTS_JUNIT, { 4239, 4209, 4207, 2, 0, 30, 0 }, 4239, NULL },
	{ "junit/dorny-jest-empty.xml", RESULTS_JUNIT, { 0, 0, 0, 0, 0, 0, 0 }, 0, NULL },
	{ "junit/dorny-jest-junit.xml", RESULTS_JUNIT, { 6, 5, 1, 4, 0, 1, 0 }, 6, NULL },
	/* jest writes the failed suites as testcases carrying <error>: two error results. */
	{ "junit/dorny-jest-suite-errors.xml", RESULTS_JUNIT, { 2, 2, 0, 0, 2, 0, 0 }, 0,
	  "testsuites declares tests=0 but 2 test cases were counted" },
	{ "junit/dorny-junit-with-message.xml", RESULTS_JUNIT, { 1, 1, 0, 1, 0, 0, 0 }, 1,
	  "suite 'Test' declares tests=6 but 1 counted" },
	{ "junit/dorny-junit4-nested-testsuites.xml", RESULTS_JUNIT, { 8, 7, 5, 1, 1, 1, 0 }, 8, NULL },
	{ "junit/dorny-nette-tester.xml", RESULTS_JUNIT, { 65, 62, 61, 1, 0, 3, 0 }, 65,
	  "suite '(unnamed)' declares errors=1 but 0 counted" },
	{ "junit/dorny-phpunit-empty.xml", RESULTS_JUNIT, { 0, 0, 0, 0, 0, 0, 0 }, -1, NULL },
	{ "junit/dorny-phpunit.xml", RESULTS_JUNIT, { 12, 12, 10, 2, 0, 0, 0 }, 12, NULL },
	{ "junit/dorny-pytest.xml", RESULTS_JUNIT, { 10, 8, 6, 2, 0, 2, 0 }, 15,
	  "suite 'pytest' declares tests=15 but 10 counted" },
	{ "junit/dorny-python-unittest.xml", RESULTS_JUNIT, { 8, 6, 4, 1, 1, 2, 0 }, 8, NULL },
	{ "junit/dorny-surefire-pulsar-aggregate.xml", RESULTS_JUNIT, { 808, 794, 793, 1, 0, 14, 0 }, 808, NULL },
	{ "junit/dorny-surefire-single-suite.xml", RESULTS_JUNIT, { 2, 1, 0, 1, 0, 1, 0 }, 2, NULL },
	{ "junit/dorny-swift-xunit.xml", RESULTS_JUNIT, { 3, 3, 2, 1, 0, 0, 0 }, 3, NULL },
	{ "junit/gfoidl-jenkins-style.xml", RESULTS_JUNIT, { 3, 3, 2, 0, 1, 0, 0 }, 3, NULL },
	{ "junit/gfoidl-trx2junit-mstest-datadriven.xml", RESULTS_JUNIT, { 5, 5, 3, 2, 0, 0, 0 }, 5, NULL },
};

static const char *corpus_dir(void)
{
	const char *d = getenv("ABEV_CORPUS");
	return d && *d ? d : "../shared/corpus";
}

static void test_corpus(void **state)
{
	const char *dir = corpus_dir();
	struct stat st;
	size_t listed = 0;
	(void)state;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		print_message("corpus not found at '%s' (set ABEV_CORPUS): skipped\n", dir);
		skip();
	}
	/* Every file of trx/ and junit/ must be in the table. */
	for (int k = 0; k < 2; k++) {
		char *sub = path_join(dir, k ? "junit" : "trx");
		DIR *d = opendir(sub);
		struct dirent *e;
		assert_non_null(d);
		while ((e = readdir(d))) {
			char *rel;
			int found = 0;
			if (e->d_name[0] == '.')
				continue;
			rel = xasprintf("%s/%s", k ? "junit" : "trx", e->d_name);
			for (size_t i = 0; i < ARRAY_SIZE(corpus_cases); i++)
				found |= !strcmp(corpus_cases[i].file, rel);
			if (!found)
				fail_msg("corpus file %s has no row in the table", rel);
			listed++;
			free(rel);
		}
		closedir(d);
		free(sub);
	}
	assert_int_equal(listed, ARRAY_SIZE(corpus_cases));

	for (size_t i = 0; i < ARRAY_SIZE(corpus_cases); i++) {
		const struct corpus_case *c = &corpus_cases[i];
		struct results_file f = RESULTS_FILE_INIT;
		struct seen s = { 0 };
		char *err = NULL, *p = path_join(dir, c->file);
		print_message("corpus: %s\n", c->file);
		if (results_parse(p, NULL, collect, &s, &f, &err) != 0)
			fail_msg("%s refused: %s", c->file, err);
		assert_int_equal(f.format, c->format);
		if (!counts_equal(&f.counts, &c->want)) {
			print_counts("got ", &f.counts);
			print_counts("want", &c->want);
			fail();
		}
		assert_int_equal(s.calls, (size_t)c->want.total);
		assert_int_equal(f.declared.total, c->declared_total);
		print_notes(&f);
		if (c->note)
			assert_true(has_note(&f, c->note));
		else
			assert_int_equal(f.nnotes, 0);
		results_file_release(&f);
		seen_release(&s);
		free(p);
	}
}

/*
 * A failure's message: the first line with text, from TRX ErrorInfo/Message
 * or JUnit's message attribute (the element's text without one), blanks
 * trimmed, controls made '?', cut at RESULTS_MESSAGE_MAX bytes on a
 * character's start; none for a test that passed.
 */
static void test_failure_messages(void **state)
{
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL, *p, longline[400], trx[2048];
	(void)state;

	memset(longline, 'x', sizeof(longline));
	memcpy(longline + RESULTS_MESSAGE_MAX - 4, "\xc3\xa9", 2);   /* an e-acute across the cut */
	longline[sizeof(longline) - 1] = '\0';
	snprintf(trx, sizeof(trx),
		 "<TestRun xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\"><Results>"
		 "<UnitTestResult testName=\"T.one\" outcome=\"Failed\"><Output><ErrorInfo>"
		 "<Message>\n   \n  Expected 1,\tgot 2 \r\nsecond line</Message>"
		 "<StackTrace>at T.one()</StackTrace></ErrorInfo></Output></UnitTestResult>"
		 "<UnitTestResult testName=\"T.two\" outcome=\"Timeout\"><Output><ErrorInfo>"
		 "<Message>%s</Message></ErrorInfo></Output></UnitTestResult>"
		 "<UnitTestResult testName=\"T.three\" outcome=\"Failed\"/>"
		 "<UnitTestResult testName=\"T.four\" outcome=\"Passed\"><Output><ErrorInfo>"
		 "<Message>not a failure</Message></ErrorInfo></Output></UnitTestResult>"
		 "</Results></TestRun>", longline);
	p = fixture("messages.trx", trx, strlen(trx));
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	assert_string_equal(seen_find(&s, "T.one")->message, "Expected 1,?got 2");
	assert_int_equal(seen_find(&s, "T.two")->outcome, OUTCOME_ERROR);
	/* Cut before the two-byte character that would straddle the limit. */
	assert_int_equal(strlen(seen_find(&s, "T.two")->message), RESULTS_MESSAGE_MAX - 4 + 3);
	assert_string_equal(seen_find(&s, "T.two")->message + RESULTS_MESSAGE_MAX - 4, "...");
	assert_string_equal(seen_find(&s, "T.three")->message, "");
	assert_string_equal(seen_find(&s, "T.four")->message, "");
	results_file_release(&f);
	seen_release(&s);
	free(p);

	static const char junit[] =
		"<testsuite name=\"S\" tests=\"3\" failures=\"2\" errors=\"1\">"
		"<testcase classname=\"C\" name=\"attr\"><failure message=\"boom &amp; more\">"
		"trace line</failure></testcase>"
		"<testcase classname=\"C\" name=\"text\"><failure><![CDATA[\n  from the text\n"
		"  at C.text()]]></failure></testcase>"
		"<testcase classname=\"C\" name=\"error\"><error message=\"\" type=\"E\">"
		"NullReferenceException</error></testcase>"
		"</testsuite>";
	p = fixture("messages.xml", junit, sizeof(junit) - 1);
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	assert_string_equal(seen_find(&s, "C.attr")->message, "boom & more");
	assert_string_equal(seen_find(&s, "C.text")->message, "from the text");
	assert_string_equal(seen_find(&s, "C.error")->message, "NullReferenceException");
	results_file_release(&f);
	seen_release(&s);
	free(p);
}

/*
 * MSTest 4 begins a message with a header line of its own ("Assertion
 * failed.", "Assert.AreEqual failed."): the lines after it are joined to
 * it, since they say what failed. Any other first line stands alone, a
 * header with words after it (MSTest 3) too.
 */
static void test_mstest4_messages(void **state)
{
	static const struct {
		const char *message, *want;   /* message: as the TRX holds it, escaped */
	} cases[] = {
		{ "Assertion failed.\r\nexpected 1, got 2", "Assertion failed. expected 1, got 2" },
		{ "Assert.AreEqual failed.\n  expected: 2\n\n  actual: 1\n",
		  "Assert.AreEqual failed. expected: 2 actual: 1" },
		{ "Assertion failed.", "Assertion failed." },
		{ "Assert.AreEqual failed. Expected:&lt;3&gt;. Actual:&lt;2&gt;.\nsecond line",
		  "Assert.AreEqual failed. Expected:<3>. Actual:<2>." },
		{ "Assert.True() Failure\nExpected: True", "Assert.True() Failure" },
		{ "Assert.Is it failed.\nsecond line", "Assert.Is it failed." },
		{ "Assert. failed.\nsecond line", "Assert. failed." },
	};
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	struct strbuf trx = STRBUF_INIT;
	char *err = NULL, *p, name[16], longline[300];
	(void)state;

	strbuf_adds(&trx, "<TestRun xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\">"
		    "<Results>");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		strbuf_addf(&trx, "<UnitTestResult testName=\"T.m%zu\" outcome=\"Failed\"><Output>"
			    "<ErrorInfo><Message>%s</Message></ErrorInfo></Output></UnitTestResult>",
			    i, cases[i].message);
	/* Joined past the limit: cut there, as a first line would be. */
	memset(longline, 'y', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	strbuf_addf(&trx, "<UnitTestResult testName=\"T.long\" outcome=\"Failed\"><Output>"
		    "<ErrorInfo><Message>Assertion failed.\n%s\n%s</Message></ErrorInfo></Output>"
		    "</UnitTestResult></Results></TestRun>", longline, longline);
	p = fixture("mstest4.trx", trx.buf, trx.len);
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(name, sizeof(name), "T.m%zu", i);
		assert_string_equal(seen_find(&s, name)->message, cases[i].want);
	}
	assert_int_equal(strlen(seen_find(&s, "T.long")->message), RESULTS_MESSAGE_MAX);
	assert_memory_equal(seen_find(&s, "T.long")->message, "Assertion failed. yyy", 21);
	assert_string_equal(seen_find(&s, "T.long")->message + RESULTS_MESSAGE_MAX - 3, "...");
	results_file_release(&f);
	seen_release(&s);
	strbuf_release(&trx);
	free(p);
}

/*
 * A test run that was aborted (a crashed test host): what the TRX says in
 * its RunInfos, kept in dotnet's words. The fixtures are built here in the
 * shape vstest writes (ResultSummary outcome "Failed", the reason in a
 * RunInfo's Text, its first line the one that matters).
 */
static void test_aborted_run(void **state)
{
#define TRX_HEAD "<TestRun xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\">"
#define CRASHED "The active test run was aborted. Reason: Test host process crashed : " \
		"Process terminated."
	static const struct {
		const char *trx, *aborted;
	} cases[] = {
		/* vstest: Failed, a RunInfo about a data collector first, then the crash. */
		{ TRX_HEAD "<Results><UnitTestResult testName=\"T.a\" outcome=\"Passed\"/></Results>"
		  "<ResultSummary outcome=\"Failed\"><Counters total=\"0\" executed=\"0\"/>"
		  "<RunInfos><RunInfo computerName=\"m\" outcome=\"Warning\"><Text>Data collector "
		  "'Blame' message: all tests finished.</Text></RunInfo>"
		  "<RunInfo computerName=\"m\" outcome=\"Error\"><Text>\n  " CRASHED "\n"
		  "the host went down on purpose\n   at T.a()</Text></RunInfo></RunInfos>"
		  "</ResultSummary></TestRun>", CRASHED },
		/* The summary first (old MSTest's order), and no results at all. */
		{ TRX_HEAD "<ResultSummary outcome=\"Failed\"><RunInfos><RunInfo><Text>"
		  CRASHED "</Text></RunInfo></RunInfos></ResultSummary><Results/></TestRun>",
		  CRASHED },
		/* Aborted, with nothing said. */
		{ TRX_HEAD "<ResultSummary outcome=\"Aborted\"/></TestRun>",
		  "ResultSummary outcome 'Aborted'" },
		/* Aborted: the RunInfo's first line, whatever it says. */
		{ TRX_HEAD "<ResultSummary outcome=\"Aborted\"><RunInfos><RunInfo><Text>Out of "
		  "memory.\nmore</Text></RunInfo></RunInfos></ResultSummary></TestRun>",
		  "Out of memory." },
		/* A failed run whose RunInfo is not about an abort, a completed one: not aborted. */
		{ TRX_HEAD "<ResultSummary outcome=\"Failed\"><RunInfos><RunInfo><Text>Data "
		  "collector warning</Text></RunInfo></RunInfos></ResultSummary></TestRun>", NULL },
		{ TRX_HEAD "<ResultSummary outcome=\"Completed\"><RunInfos><RunInfo><Text>A run "
		  "was aborted elsewhere</Text></RunInfo></RunInfos></ResultSummary></TestRun>", NULL },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		/* With and without a callback: the text is read either way. */
		for (int with_fn = 0; with_fn < 2; with_fn++) {
			struct results_file f = RESULTS_FILE_INIT;
			struct seen s = { 0 };
			char *err = NULL, *p = fixture("aborted.trx", cases[i].trx, strlen(cases[i].trx));
			char note[512];

			assert_int_equal(results_parse(p, NULL, with_fn ? collect : NULL, &s, &f, &err), 0);
			if (cases[i].aborted) {
				assert_non_null(f.aborted);
				assert_string_equal(f.aborted, cases[i].aborted);
				snprintf(note, sizeof(note), "test run aborted%s%s",
					 strchr(cases[i].aborted, '\'') ? " (" : ": ",
					 strchr(cases[i].aborted, '\'') ? "ResultSummary" : cases[i].aborted);
				assert_true(has_note(&f, note));
			} else {
				assert_null(f.aborted);
				assert_false(has_note(&f, "aborted"));
			}
			results_file_release(&f);
			seen_release(&s);
			free(p);
		}
	}
#undef TRX_HEAD
#undef CRASHED
}

/* Facts of single corpus files that a user would check by eye. */
static void test_corpus_details(void **state)
{
	const char *dir = corpus_dir();
	struct results_file f = RESULTS_FILE_INIT;
	struct seen s = { 0 };
	char *err = NULL, *p;
	const struct seen_test *t;
	struct stat st;
	(void)state;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		skip();

	p = path_join(dir, "trx/dorny-dotnet-xunit-vstest.trx");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	assert_string_equal(f.outcome, "Failed");
	assert_int_equal(f.declared.executed, 10);
	assert_int_equal(f.declared.skipped, 0);   /* the vstest logger's notExecuted="0" despite the skip */
	t = seen_find(&s, "DotnetTests.XUnitTests.CalculatorTests.Skipped_Test");
	assert_int_equal(t->outcome, OUTCOME_SKIPPED);
	assert_string_equal(t->out, "Skipped test");
	assert_string_equal(t->message, "");
	/* A failure's message, its first line: "Assert.True() Failure&#xD;\nExpected: True". */
	t = seen_find(&s, "DotnetTests.XUnitTests.CalculatorTests.Is_Even_Number(i: 3)");
	assert_int_equal(t->outcome, OUTCOME_FAILED);
	assert_string_equal(t->message, "Assert.True() Failure");
	results_file_release(&f);
	seen_release(&s);
	free(p);

	p = path_join(dir, "trx/gfoidl-mstest-datadriven.trx");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	{
		size_t rows = 0;
		for (size_t i = 0; i < s.n; i++)
			rows += s.t[i].parent != NULL;
		assert_int_equal(rows, 3);
	}
	assert_true(has_note(&f, "declared executed=6 but 5 were counted"));
	assert_true(has_note(&f, "declared failed=3 but 2 were counted"));
	results_file_release(&f);
	seen_release(&s);
	free(p);

	/* Real NUnit and MSTest files name their tests by class (", Assembly" dropped). */
	p = path_join(dir, "trx/gfoidl-nunit-ignore.trx");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	assert_int_equal(seen_find(&s, "NUnitSample.SimpleTests.Passing_test")->outcome, OUTCOME_PASSED);
	results_file_release(&f);
	seen_release(&s);
	free(p);
	p = path_join(dir, "trx/gfoidl-mstest-warning.trx");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	assert_non_null(seen_find(&s, "Project.TestClass.MyTest"));
	results_file_release(&f);
	seen_release(&s);
	free(p);
	p = path_join(dir, "trx/gfoidl-mstest-datadriven.trx");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	assert_int_equal(seen_find(&s, "MsTestSample.DataDriven.Two_pass_one_fails (1)")->outcome,
			 OUTCOME_FAILED);
	results_file_release(&f);
	seen_release(&s);
	free(p);

	p = path_join(dir, "junit/dorny-pytest.xml");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	t = seen_find(&s, "tests.test_lib.test_always_fail");
	assert_int_equal(t->outcome, OUTCOME_FAILED);
	assert_string_equal(t->message, "assert False");
	results_file_release(&f);
	seen_release(&s);
	free(p);

	p = path_join(dir, "junit/gfoidl-jenkins-style.xml");
	assert_int_equal(results_parse(p, NULL, collect, &s, &f, &err), 0);
	t = seen_find(&s, "PatientRegistration.Patient Registration (Example).Create patient");
	assert_non_null(strstr(t->out, "@scenario.begin"));
	assert_true(t->duration > 0.015995 && t->duration < 0.015997);
	results_file_release(&f);
	seen_release(&s);
	free(p);
}

static int group_setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	(void)state;
	if (d) {
		while ((e = readdir(d))) {
			char *p;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			p = path_join(tmpdir, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(tmpdir);
	xmlCleanupParser();   /* keeps LeakSanitizer quiet about libxml2's globals */
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_table),
		cmocka_unit_test(test_trx_details),
		cmocka_unit_test(test_trx_stdout_and_durations),
		cmocka_unit_test(test_junit_details),
		cmocka_unit_test(test_failure_messages),
		cmocka_unit_test(test_mstest4_messages),
		cmocka_unit_test(test_aborted_run),
		cmocka_unit_test(test_names_truncated),
		cmocka_unit_test(test_notes_capped),
		cmocka_unit_test(test_hostile_table),
		cmocka_unit_test(test_external_entity_never_read),
		cmocka_unit_test(test_doctype_lookalikes_accepted),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_not_files),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_corpus_details),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
