/*
 * Unit tests of metrics.c: one table of single metrics over every source
 * and match mode (values and the reasons for values not yielded), the
 * derived rates, compile errors, the test-name filter and the enum names.
 * The stdout and stderr of each case are written as files into a fresh
 * mkdtemp directory, as the runner leaves them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/metrics.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/strbuf.h"

static char tmpdir[PATH_MAX];
static char *stdout_path, *stderr_path;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/abev-test-metrics-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	stdout_path = path_join(tmpdir, "test.log");
	stderr_path = path_join(tmpdir, "stderr.log");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(stdout_path);
	free(stderr_path);
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* The test results every case sees; durations in seconds. */
static const char lock1_out[] = "setup\nBENCH ops=100\nmore\nBENCH ops=50\n";
static const char lock2_out[] = "BENCH ops=7";
static const char odd_out[] = "ignored\0BENCH ops=3\n"; /* a NUL before the match */
static const struct metric_test tests[] = {
	{ "Ns.LockTest", 0.25, lock1_out, sizeof(lock1_out) - 1, NULL },
	{ "Ns.LockTest(2)", 0.5, lock2_out, sizeof(lock2_out) - 1, NULL },
	{ "Ns.RebuildFolder", -1, "", 0, NULL },
	{ "Ns.Other", 1.0, "BENCH ops=1000", 14, NULL },
	{ "Ns.Binary", 2.0, odd_out, sizeof(odd_out) - 1, NULL },
	{ "Ns.NoOutput", 3.0, NULL, 0, NULL },
};

/* Every name read, as judge.c hands them over (duplicates and all). */
static const char *const all_names[] = {
	"Ns.LockTest", "Ns.LockTest(2)", "Ns.RebuildFolder", "Ns.Other", "Ns.Binary",
	"Ns.NoOutput", "Ns.LockTest",
};

#define TXT(s) s, sizeof(s) - 1
#define NO_TEXT NULL, 0
#define FILE_ABSENT "\x01"   /* as stdout text: the file is not there */

struct extract_case {
	const char *what;
	enum metric_source source;
	const char *field, *test, *pattern, *unit;
	enum metric_match match;
	const char *out;     /* test.log content; NULL: no path given; FILE_ABSENT */
	size_t out_len;
	const char *err;     /* stderr.log content, as out */
	size_t err_len;
	int ok;
	double value;
	const char *why;     /* when !ok: the whole reason, or a piece of it after '~' */
	const char *want_unit;
};

static const char bench3[] = "BENCH rebuild_ms=10\nother\nBENCH rebuild_ms=20\nBENCH rebuild_ms=30.5\n";

static const struct extract_case extract_cases[] = {
	/* process: ns to ms, bytes and counts as given */
	{ "wall", METRIC_PROCESS, "wall", NULL, NULL, NULL, MATCH_FIRST, NO_TEXT, NO_TEXT,
	  1, 1500.25, NULL, "ms" },
	{ "user", METRIC_PROCESS, "user", NULL, NULL, NULL, MATCH_FIRST, NO_TEXT, NO_TEXT,
	  1, 700, NULL, "ms" },
	{ "sys", METRIC_PROCESS, "sys", NULL, NULL, NULL, MATCH_FIRST, NO_TEXT, NO_TEXT,
	  1, 300.5, NULL, "ms" },
	{ "cpu", METRIC_PROCESS, "cpu", NULL, NULL, NULL, MATCH_FIRST, NO_TEXT, NO_TEXT,
	  1, 1000.5, NULL, "ms" },
	{ "max_rss", METRIC_PROCESS, "max_rss", NULL, NULL, NULL, MATCH_FIRST, NO_TEXT, NO_TEXT,
	  1, 52428800, NULL, "bytes" },
	{ "minflt", METRIC_PROCESS, "minflt", NULL, NULL, NULL, MATCH_FIRST, NO_TEXT, NO_TEXT,
	  1, 11, NULL, "count" },
	{ "majflt", METRIC_PROCESS, "majflt", NULL, NULL, NULL, MATCH_FIRST, NO_TEXT, NO_TEXT,
	  1, 0, NULL, "count" },
	{ "nvcsw", METRIC_PROCESS, "nvcsw", NULL, NULL, NULL, MATCH_FIRST, NO_TEXT, NO_TEXT,
	  1, 13, NULL, "count" },
	{ "nivcsw", METRIC_PROCESS, "nivcsw", NULL, NULL, NULL, MATCH_FIRST, NO_TEXT, NO_TEXT,
	  1, 14, NULL, "count" },

	/* stdout: every match mode over the whole file */
	{ "stdout first", METRIC_STDOUT, NULL, NULL, "BENCH rebuild_ms=([0-9.]+)", "ms",
	  MATCH_FIRST, TXT(bench3), NO_TEXT, 1, 10, NULL, "ms" },
	{ "stdout last", METRIC_STDOUT, NULL, NULL, "BENCH rebuild_ms=([0-9.]+)", "ms",
	  MATCH_LAST, TXT(bench3), NO_TEXT, 1, 30.5, NULL, "ms" },
	{ "stdout sum", METRIC_STDOUT, NULL, NULL, "BENCH rebuild_ms=([0-9.]+)", "ms",
	  MATCH_SUM, TXT(bench3), NO_TEXT, 1, 60.5, NULL, "ms" },
	{ "stdout mean", METRIC_STDOUT, NULL, NULL, "BENCH rebuild_ms=([0-9.]+)", "ms",
	  MATCH_MEAN, TXT(bench3), NO_TEXT, 1, 60.5 / 3, NULL, "ms" },
	/* patterns span lines: '.' and [[:space:]] match a newline */
	{ "spanning lines", METRIC_STDOUT, NULL, NULL, "Summary:[[:space:]]+total ([0-9]+)", "ops",
	  MATCH_FIRST, TXT("x\nSummary:\n   total 77\n"), NO_TEXT, 1, 77, NULL, "ops" },
	{ "spanning with .*", METRIC_STDOUT, NULL, NULL, "begin.*end=([0-9]+)", "ops", MATCH_SUM,
	  TXT("begin\na\nb\nend=5\nend=6"), NO_TEXT, 1, 6, NULL, NULL },
	{ "literal newline", METRIC_STDOUT, NULL, NULL, "phase 2\nv=([0-9]+)", "ms", MATCH_FIRST,
	  TXT("phase 1\nv=1\nphase 2\nv=2\n"), NO_TEXT, 1, 2, NULL, NULL },
	/* '^' is the start of the text only, also for the later matches */
	{ "anchor", METRIC_STDOUT, NULL, NULL, "^v=([0-9]+);", "ms", MATCH_SUM,
	  TXT("v=1;v=2;\nv=3;"), NO_TEXT, 1, 1, NULL, NULL },
	{ "adjacent matches", METRIC_STDOUT, NULL, NULL, "([0-9])", "ms", MATCH_SUM,
	  TXT("123"), NO_TEXT, 1, 6, NULL, NULL },
	{ "numbers", METRIC_STDOUT, NULL, NULL, "v=([^;]*);", "ms", MATCH_SUM,
	  TXT("v=-1.5e2;v= 7 ;v=+3;v=.5;"), NO_TEXT, 1, -150 + 7 + 3 + 0.5, NULL, NULL },
	{ "NUL bytes", METRIC_STDOUT, NULL, NULL, "ms=([0-9]+)", "ms", MATCH_LAST,
	  TXT("ms=1\0\0binary\0ms=42\n"), NO_TEXT, 1, 42, NULL, NULL },
	/* not yielded */
	{ "no match", METRIC_STDOUT, NULL, NULL, "BENCH nope=([0-9]+)", "ms", MATCH_FIRST,
	  TXT(bench3), NO_TEXT, 0, 0,
	  "pattern 'BENCH nope=([0-9]+)' did not match test.log (68 bytes)", NULL },
	{ "empty file", METRIC_STDOUT, NULL, NULL, "x=([0-9]+)", "ms", MATCH_FIRST,
	  TXT(""), NO_TEXT, 0, 0, "pattern 'x=([0-9]+)' did not match test.log (0 bytes)", NULL },
	{ "missing file", METRIC_STDOUT, NULL, NULL, "x=([0-9]+)", "ms", MATCH_FIRST,
	  TXT(FILE_ABSENT), NO_TEXT, 0, 0, "cannot open test.log: No such file or directory",
	  NULL },
	{ "no path", METRIC_STDOUT, NULL, NULL, "x=([0-9]+)", "ms", MATCH_FIRST,
	  NO_TEXT, NO_TEXT, 0, 0, "no output file was captured", NULL },
	{ "not a number", METRIC_STDOUT, NULL, NULL, "ms=([a-z0-9]+)", "ms", MATCH_FIRST,
	  TXT("ms=12abc\n"), NO_TEXT, 0, 0,
	  "test.log: captured '12abc', which is not a number (at byte 3)", NULL },
	{ "a later capture is not a number", METRIC_STDOUT, NULL, NULL, "ms=([^\n]*)", "ms",
	  MATCH_SUM, TXT("ms=1\nms=two\n"), NO_TEXT, 0, 0, "~captured 'two'", NULL },
	{ "first stops early", METRIC_STDOUT, NULL, NULL, "ms=([^\n]*)", "ms",
	  MATCH_FIRST, TXT("ms=1\nms=two\n"), NO_TEXT, 1, 1, NULL, NULL },
	{ "inf", METRIC_STDOUT, NULL, NULL, "ms=([a-z]+)", "ms", MATCH_FIRST,
	  TXT("ms=inf"), NO_TEXT, 0, 0, "~captured 'inf', which is not a number", NULL },
	{ "hex", METRIC_STDOUT, NULL, NULL, "ms=([0-9a-fx]+)", "ms", MATCH_FIRST,
	  TXT("ms=0x10"), NO_TEXT, 0, 0, "~captured '0x10'", NULL },
	{ "sum out of range", METRIC_STDOUT, NULL, NULL, "v=([0-9e]+)", "ms", MATCH_SUM,
	  TXT("v=1e308 v=1e308"), NO_TEXT, 0, 0, "the sum of 2 values is out of range", NULL },
	{ "group not taking part", METRIC_STDOUT, NULL, NULL, "(a)?b=[0-9]+", "ms", MATCH_FIRST,
	  TXT("xb=1"), NO_TEXT, 0, 0, "test.log: the first group took no part in the match at byte 1",
	  NULL },
	/* a pattern that matches the empty string must end, not loop */
	{ "empty matches", METRIC_STDOUT, NULL, NULL, "(x*)", "ms", MATCH_SUM,
	  TXT("abc"), NO_TEXT, 0, 0, "test.log: captured '', which is not a number (at byte 0)",
	  NULL },
	{ "empty match at the end", METRIC_STDOUT, NULL, NULL, "([0-9]+|$)", "ms", MATCH_SUM,
	  TXT("1 2"), NO_TEXT, 0, 0, "~captured '', which is not a number (at byte 3)", NULL },

	/* stderr */
	{ "stderr", METRIC_STDERR, NULL, NULL, "gc pauses: ([0-9]+)", "count", MATCH_LAST,
	  TXT("gc pauses: 1"), TXT("warn\ngc pauses: 3\ngc pauses: 4\n"), 1, 4, NULL, "count" },
	{ "stderr absent", METRIC_STDERR, NULL, NULL, "gc pauses: ([0-9]+)", "count", MATCH_LAST,
	  TXT("gc pauses: 1"), TXT(FILE_ABSENT), 0, 0,
	  "cannot open stderr.log: No such file or directory", NULL },

	/* results: all matches across all matching tests */
	{ "results first", METRIC_RESULTS, NULL, "Ns.LockTest*", "BENCH ops=([0-9]+)", "ops",
	  MATCH_FIRST, NO_TEXT, NO_TEXT, 1, 100, NULL, "ops" },
	{ "results last", METRIC_RESULTS, NULL, "Ns.LockTest*", "BENCH ops=([0-9]+)", "ops",
	  MATCH_LAST, NO_TEXT, NO_TEXT, 1, 7, NULL, NULL },
	{ "results sum", METRIC_RESULTS, NULL, "Ns.LockTest*", "BENCH ops=([0-9]+)", "ops",
	  MATCH_SUM, NO_TEXT, NO_TEXT, 1, 157, NULL, NULL },
	{ "results mean", METRIC_RESULTS, NULL, "Ns.LockTest*", "BENCH ops=([0-9]+)", "ops",
	  MATCH_MEAN, NO_TEXT, NO_TEXT, 1, 157.0 / 3, NULL, NULL },
	{ "results exact name", METRIC_RESULTS, NULL, "Ns.LockTest", "BENCH ops=([0-9]+)", "ops",
	  MATCH_SUM, NO_TEXT, NO_TEXT, 1, 150, NULL, NULL },
	{ "results NUL", METRIC_RESULTS, NULL, "*Binary", "BENCH ops=([0-9]+)", "ops",
	  MATCH_SUM, NO_TEXT, NO_TEXT, 1, 3, NULL, NULL },
	{ "results no test", METRIC_RESULTS, NULL, "*Nope*", "BENCH ops=([0-9]+)", "ops",
	  MATCH_FIRST, NO_TEXT, NO_TEXT, 0, 0, "no test result matches '*Nope*'; nearest test "
	  "names: 'Ns.NoOutput', 'Ns.LockTest', 'Ns.LockTest(2)', 'Ns.RebuildFolder', 'Ns.Other' "
	  "('abev results --list FILE' lists every name)", NULL },
	{ "results typo", METRIC_RESULTS, NULL, "Ns.LockTset*", "BENCH ops=([0-9]+)", "ops",
	  MATCH_FIRST, NO_TEXT, NO_TEXT, 0, 0, "~nearest test names: 'Ns.LockTest', "
	  "'Ns.LockTest(2)', ", NULL },
	{ "results no match", METRIC_RESULTS, NULL, "*RebuildFolder*", "BENCH ops=([0-9]+)", "ops",
	  MATCH_FIRST, NO_TEXT, NO_TEXT, 0, 0,
	  "pattern 'BENCH ops=([0-9]+)' did not match the output of the 1 test result matching "
	  "'*RebuildFolder*'", NULL },
	{ "results no output", METRIC_RESULTS, NULL, "Ns.*Out*", "BENCH ops=([0-9]+)", "ops",
	  MATCH_FIRST, NO_TEXT, NO_TEXT, 0, 0, "~the 1 test result matching", NULL },
	{ "results bad capture", METRIC_RESULTS, NULL, "Ns.LockTest", "(B)ENCH", "ops",
	  MATCH_FIRST, NO_TEXT, NO_TEXT, 0, 0,
	  "test 'Ns.LockTest': captured 'B', which is not a number (at byte 6)", NULL },

	/* duration: seconds to ms */
	{ "duration first", METRIC_DURATION, NULL, "Ns.LockTest*", NULL, NULL, MATCH_FIRST,
	  NO_TEXT, NO_TEXT, 1, 250, NULL, "ms" },
	{ "duration last", METRIC_DURATION, NULL, "Ns.LockTest*", NULL, NULL, MATCH_LAST,
	  NO_TEXT, NO_TEXT, 1, 500, NULL, NULL },
	{ "duration sum", METRIC_DURATION, NULL, "Ns.LockTest*", NULL, NULL, MATCH_SUM,
	  NO_TEXT, NO_TEXT, 1, 750, NULL, NULL },
	{ "duration mean", METRIC_DURATION, NULL, "Ns.*", NULL, NULL, MATCH_MEAN,
	  NO_TEXT, NO_TEXT, 1, (250 + 500 + 1000 + 2000 + 3000) / 5.0, NULL, NULL },
	{ "duration none", METRIC_DURATION, NULL, "*RebuildFolder*", NULL, NULL, MATCH_FIRST,
	  NO_TEXT, NO_TEXT, 0, 0, "the 1 test result matching '*RebuildFolder*' gives no duration",
	  NULL },
	{ "duration no test", METRIC_DURATION, NULL, "[", NULL, NULL, MATCH_FIRST,
	  NO_TEXT, NO_TEXT, 0, 0, "~no test result matches '['; nearest test names: 'Ns.Other', "
	  "'Ns.Binary', ", NULL },
};

static void fill_def(struct metric_def *d, const struct extract_case *c)
{
	memset(d, 0, sizeof(*d));
	d->name = xstrdup(c->what);
	d->unit = c->unit ? xstrdup(c->unit) : NULL;
	d->source = c->source;
	d->field = c->field ? xstrdup(c->field) : NULL;
	d->test = c->test ? xstrdup(c->test) : NULL;
	d->pattern = c->pattern ? xstrdup(c->pattern) : NULL;
	d->match = c->match;
	d->max_regression_pct = -1;
}

static void release_def(struct metric_def *d)
{
	free(d->name);
	free(d->unit);
	free(d->field);
	free(d->process);
	free(d->test);
	free(d->pattern);
}

/* Writes (or removes) one of the text files; returns the path to hand over. */
static const char *prepare(const char *path, const char *text, size_t len)
{
	unlink(path);
	if (!text)
		return NULL;
	if (strcmp(text, FILE_ABSENT))
		write_text(path, text, len);
	return path;
}

static struct metric_inputs base_inputs(void)
{
	struct metric_inputs in = { 0 };
	in.fig.wall_ns = 1500250000;
	in.fig.user_ns = 700000000;
	in.fig.sys_ns = 300500000;
	in.fig.max_rss_bytes = 50 << 20;
	in.fig.minflt = 11;
	in.fig.majflt = 0;
	in.fig.nvcsw = 13;
	in.fig.nivcsw = 14;
	in.tests = tests;
	in.ntests = ARRAY_SIZE(tests);
	in.test_names = all_names;
	in.ntest_names = ARRAY_SIZE(all_names);
	return in;
}

static void test_extract(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(extract_cases); i++) {
		const struct extract_case *c = &extract_cases[i];
		struct metric_inputs in = base_inputs();
		struct metric_def d;
		struct metric_set *set;
		struct metric_value *v = NULL;
		size_t n = 0;
		char *err = NULL;
		int good;

		fill_def(&d, c);
		in.stdout_path = prepare(stdout_path, c->out, c->out_len);
		in.stderr_path = prepare(stderr_path, c->err, c->err_len);
		set = metrics_compile(&d, 1, &err);
		if (!set)
			fail_msg("case %zu (%s): compile: %s", i, c->what, err);
		metrics_extract(set, &in, &v, &n);
		assert_int_equal(n, 1);
		assert_string_equal(v[0].name, c->what);
		assert_int_equal(v[0].better_higher, 0);
		assert_true(v[0].max_regression_pct < 0);
		if (c->ok) {
			good = v[0].ok && !v[0].why && fabs(v[0].value - c->value) <= 1e-9 * fabs(c->value);
		} else {
			const char *w = v[0].why ? v[0].why : "";
			good = !v[0].ok && (c->why[0] == '~' ? strstr(w, c->why + 1) != NULL
							     : !strcmp(w, c->why));
		}
		if (c->want_unit && strcmp(v[0].unit, c->want_unit))
			good = 0;
		if (!good)
			fail_msg("case %zu (%s): got ok=%d value=%.17g unit='%s' why='%s'\n"
				 "  want ok=%d value=%.17g why='%s'", i, c->what, v[0].ok, v[0].value,
				 v[0].unit, v[0].why ? v[0].why : "(null)", c->ok, c->value,
				 c->why ? c->why : "(null)");
		metric_def_values_free(v, n);
		metrics_free(set);
		release_def(&d);
	}
}

/* Figures the runner could not measure are reasons, never zeros. */
static void test_process_not_measured(void **state)
{
	static const char *const fields[] = { "wall", "cpu", "max_rss", "nvcsw" };
	struct metric_inputs in = base_inputs();
	struct metric_def d[ARRAY_SIZE(fields)];
	struct metric_set *set;
	struct metric_value *v;
	size_t n;
	char *err;
	(void)state;

	memset(d, 0, sizeof(d));
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		d[i].name = xstrdup(fields[i]);
		d[i].field = xstrdup(fields[i]);
		d[i].source = METRIC_PROCESS;
	}
	in.fig.wall_ns = -1;
	in.fig.sys_ns = -1;
	in.fig.max_rss_bytes = -1;
	in.fig.nvcsw = -1;
	set = metrics_compile(d, ARRAY_SIZE(d), &err);
	assert_non_null(set);
	metrics_extract(set, &in, &v, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		char *want = xasprintf("%s was not measured", i == 1 ? "cpu" : fields[i]);
		assert_false(v[i].ok);
		assert_string_equal(v[i].why, want);
		free(want);
	}
	/* Units are implied when the definitions do not carry them. */
	assert_string_equal(v[0].unit, "ms");
	assert_string_equal(v[2].unit, "bytes");
	assert_string_equal(v[3].unit, "count");
	metric_def_values_free(v, n);
	metrics_free(set);
	for (size_t i = 0; i < ARRAY_SIZE(d); i++)
		release_def(&d[i]);
}

/*
 * A "process" glob: the largest peak RSS and the summed CPU of the
 * processes it names (by command name or a word's last component), not
 * the tree's, less one that started another it names (MTP's test host
 * controller, the test program watching itself run as the test host);
 * none named is not yielded, with the reason.
 */
static void test_named_process(void **state)
{
	struct proc_tree t = PROC_TREE_INIT;
	struct metric_inputs in = base_inputs();
	struct metric_def d[5];
	struct metric_value *v;
	struct metric_set *set;
	struct proc_tree_proc *p;
	char *err = NULL;
	size_t n;
	(void)state;

	p = proc_tree_add(&t, "dotnet", "dotnet test --no-build", 100, 10);
	p->peak_rss_bytes = 105 << 20;
	p->cpu_ns = 900000000;
	p = proc_tree_add(&t, "dotnet", "/usr/bin/dotnet\x1f" "exec\x1f/b/testhost.dll\x1f--port\x1f" "1", 200, 100);
	p->peak_rss_bytes = 97 << 20;
	p->cpu_ns = 250000000;
	/* A shell whose script names the host is not the host. */
	p = proc_tree_add(&t, "sh", "sh\x1f-c\x1f/b/testhost x; true", 150, 100);
	p->peak_rss_bytes = 200 << 20;
	p->cpu_ns = 1;
	p = proc_tree_add(&t, "testhost", NULL, 300, 100);
	p->peak_rss_bytes = 99 << 20;
	p->cpu_ns = 50000000;
	/* On MTP: the controller, larger here, and through a shell the test host, its descendant. */
	p = proc_tree_add(&t, "Twins.Mtp", "/b/Twins.Mtp\x1f--report-trx", 400, 100);
	p->peak_rss_bytes = 120 << 20;
	p->cpu_ns = 70000000;
	proc_tree_add(&t, "sh", "sh\x1f-c\x1fx", 405, 400);
	p = proc_tree_add(&t, "Twins.Mtp", "/b/Twins.Mtp\x1f--internal-testhostcontroller-pid\x1f" "400",
			  410, 405);
	p->peak_rss_bytes = 60 << 20;
	p->cpu_ns = 20000000;
	in.procs = &t;
	memset(d, 0, sizeof(d));
	d[0].name = xstrdup("host_rss");
	d[0].field = xstrdup("max_rss");
	d[0].process = xstrdup("testhost*");
	d[1].name = xstrdup("host_cpu");
	d[1].field = xstrdup("cpu");
	d[1].process = xstrdup("testhost*");
	d[2].name = xstrdup("none");
	d[2].field = xstrdup("cpu");
	d[2].process = xstrdup("vstest*");
	d[3].name = xstrdup("mtp_rss");
	d[3].field = xstrdup("max_rss");
	d[3].process = xstrdup("Twins.Mtp*");
	d[4].name = xstrdup("mtp_cpu");
	d[4].field = xstrdup("cpu");
	d[4].process = xstrdup("Twins.Mtp*");
	for (size_t i = 0; i < ARRAY_SIZE(d); i++) {
		d[i].source = METRIC_PROCESS;
		d[i].max_regression_pct = -1;
		d[i].max_improvement_pct = -1;
	}
	set = metrics_compile(d, ARRAY_SIZE(d), &err);
	assert_non_null(set);
	metrics_extract(set, &in, &v, &n);
	assert_int_equal(n, 5);
	assert_true(v[0].ok);
	assert_true(v[0].value == (double)(99 << 20));
	assert_string_equal(v[0].unit, "bytes");
	assert_true(v[1].ok);
	assert_true(v[1].value == 300.0);
	assert_string_equal(v[1].unit, "ms");
	assert_false(v[2].ok);
	assert_non_null(strstr(v[2].why, "no process of the tree is named like 'vstest*'"));
	assert_true(v[3].ok);
	assert_true(v[3].value == (double)(60 << 20));
	assert_true(v[4].ok);
	assert_true(v[4].value == 20.0);
	metric_def_values_free(v, n);
	metrics_free(set);
	for (size_t i = 0; i < ARRAY_SIZE(d); i++)
		release_def(&d[i]);
	proc_tree_release(&t);
}

struct rate_case {
	const char *unit;
	const char *text;      /* test.log */
	int better_higher;
	int ok;
	double value;
	const char *rate_unit;
	const char *why;
};

static const struct rate_case rate_cases[] = {
	{ "ms", "v=250", 0, 1, 4, "1/s", NULL },
	{ "s", "v=0.5", 0, 1, 2, "1/s", NULL },
	{ "us", "v=4", 0, 1, 250000, "1/s", NULL },
	{ "ns", "v=1000", 0, 1, 1e6, "1/s", NULL },
	{ "ops", "v=8", 1, 1, 0.125, "1/ops", NULL },
	{ "ms", "v=0", 0, 0, 0, "1/s", "'m' is 0, which has no rate" },
	{ "ms", "nothing", 0, 0, 0, "1/s",
	  "no rate without 'm': pattern 'v=([0-9.]+)' did not match test.log (7 bytes)" },
};

static void test_derive_rate(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rate_cases); i++) {
		const struct rate_case *c = &rate_cases[i];
		struct metric_inputs in = base_inputs();
		struct metric_def d[2];
		struct metric_set *set;
		struct metric_value *v;
		size_t n;
		char *err;

		memset(d, 0, sizeof(d));
		d[0].name = xstrdup("m");
		d[0].unit = xstrdup(c->unit);
		d[0].source = METRIC_STDOUT;
		d[0].pattern = xstrdup("v=([0-9.]+)");
		d[0].better_higher = c->better_higher;
		d[0].derive_rate = 1;
		d[0].max_regression_pct = 5;
		d[1].name = xstrdup("wall");
		d[1].field = xstrdup("wall");
		d[1].unit = xstrdup("ms");
		d[1].source = METRIC_PROCESS;
		d[1].max_regression_pct = -1;
		write_text(stdout_path, c->text, strlen(c->text));
		in.stdout_path = stdout_path;
		set = metrics_compile(d, 2, &err);
		assert_non_null(set);
		metrics_extract(set, &in, &v, &n);
		/* The rate follows its metric, before the next definition. */
		assert_int_equal(n, 3);
		assert_string_equal(v[0].name, "m");
		assert_true(v[0].max_regression_pct == 5);
		assert_string_equal(v[1].name, "m (rate)");
		assert_string_equal(v[1].unit, c->rate_unit);
		assert_int_equal(v[1].better_higher, !c->better_higher);
		assert_true(v[1].max_regression_pct < 0);
		assert_string_equal(v[2].name, "wall");
		assert_true(v[2].ok);
		if (c->ok) {
			if (!v[1].ok || fabs(v[1].value - c->value) > 1e-9 * c->value)
				fail_msg("case %zu: got ok=%d value %.17g, want %.17g", i, v[1].ok,
					 v[1].value, c->value);
			assert_null(v[1].why);
		} else {
			assert_false(v[1].ok);
			assert_string_equal(v[1].why, c->why);
		}
		metric_def_values_free(v, n);
		metrics_free(set);
		release_def(&d[0]);
		release_def(&d[1]);
	}
}

/* Several metrics over the same files, in definition order. */
static void test_several(void **state)
{
	struct metric_inputs in = base_inputs();
	struct metric_def d[3];
	struct metric_set *set;
	struct metric_value *v;
	size_t n;
	char *err;
	(void)state;

	memset(d, 0, sizeof(d));
	d[0].name = xstrdup("a");
	d[0].unit = xstrdup("ms");
	d[0].source = METRIC_STDOUT;
	d[0].pattern = xstrdup("a=([0-9]+)");
	d[1].name = xstrdup("b");
	d[1].unit = xstrdup("ms");
	d[1].source = METRIC_STDOUT;
	d[1].pattern = xstrdup("b=([0-9]+)");
	d[1].better_higher = 1;
	d[1].match = MATCH_SUM;
	d[2].name = xstrdup("c");
	d[2].unit = xstrdup("ms");
	d[2].source = METRIC_STDERR;
	d[2].pattern = xstrdup("c=([0-9]+)");
	write_text(stdout_path, "a=1 b=2 b=3 c=9", 15);
	write_text(stderr_path, "c=4", 3);
	in.stdout_path = stdout_path;
	in.stderr_path = stderr_path;
	set = metrics_compile(d, 3, &err);
	assert_non_null(set);
	metrics_extract(set, &in, &v, &n);
	assert_int_equal(n, 3);
	assert_true(v[0].ok && v[0].value == 1);
	assert_true(v[1].ok && v[1].value == 5 && v[1].better_higher);
	assert_true(v[2].ok && v[2].value == 4);
	metric_def_values_free(v, n);

	/* No definitions: nothing, and no file is read. */
	metrics_free(set);
	set = metrics_compile(NULL, 0, &err);
	assert_non_null(set);
	metrics_extract(set, &in, &v, &n);
	assert_int_equal(n, 0);
	metric_def_values_free(v, n);
	metrics_free(set);
	/* A NULL set (a plan without metrics) extracts nothing. */
	metrics_extract(NULL, &in, &v, &n);
	assert_int_equal(n, 0);
	metric_def_values_free(v, n);
	assert_false(metrics_wants_test(NULL, "x", NULL));
	metrics_free(NULL);
	metric_def_values_free(NULL, 0);
	for (size_t i = 0; i < 3; i++)
		release_def(&d[i]);
}

/*
 * The bytes a text metric matched are hashed in that read, as read (a NUL
 * included, which the match sees as a newline), for the ledger to hold the
 * log to; a text no metric reads is left unhashed, whatever reads held.
 */
static void test_reads_hashed(void **state)
{
	static const char out[] = "t=12\0t=13\n";
	struct metric_inputs in = base_inputs();
	struct metric_def d = { 0 };
	struct file_read reads[2];
	unsigned char want[SHA256_LEN];
	struct metric_set *set;
	struct metric_value *v;
	size_t n;
	char *err;
	(void)state;

	d.name = xstrdup("t");
	d.unit = xstrdup("ms");
	d.source = METRIC_STDOUT;
	d.pattern = xstrdup("t=([0-9]+)");
	d.match = MATCH_LAST;
	write_text(stdout_path, out, sizeof(out) - 1);
	write_text(stderr_path, "t=1", 3);
	in.stdout_path = stdout_path;
	in.stderr_path = stderr_path;
	memset(reads, 0xff, sizeof(reads));
	in.reads = reads;
	set = metrics_compile(&d, 1, &err);
	assert_non_null(set);
	metrics_extract(set, &in, &v, &n);
	assert_true(v[0].ok && v[0].value == 13);
	sha256_buf(out, sizeof(out) - 1, want);
	assert_int_equal(reads[0].hashed, 1);
	assert_int_equal(reads[0].bytes, sizeof(out) - 1);
	assert_memory_equal(reads[0].sha256, want, SHA256_LEN);
	assert_int_equal(reads[1].hashed, 0);
	metric_def_values_free(v, n);

	/* Not read whole (past the limit): no hash stands for it. */
	assert_int_equal(truncate(stdout_path, (off_t)METRICS_MAX_TEXT + 1), 0);
	metrics_extract(set, &in, &v, &n);
	assert_false(v[0].ok);
	assert_int_equal(reads[0].hashed, 0);
	metric_def_values_free(v, n);
	metrics_free(set);
	release_def(&d);
	unlink(stdout_path);
}

/* A text file over the limit is a reason, not a read of 256 MiB more. */
static void test_oversize(void **state)
{
	struct metric_inputs in = base_inputs();
	struct metric_def d = { 0 };
	struct metric_set *set;
	struct metric_value *v;
	size_t n;
	char *err;
	FILE *f;
	(void)state;

	f = fopen(stdout_path, "wb");
	assert_non_null(f);
	assert_int_equal(fseeko(f, (off_t)METRICS_MAX_TEXT, SEEK_SET), 0);
	assert_int_equal(fputc('x', f), 'x');
	assert_int_equal(fclose(f), 0);
	d.name = xstrdup("big");
	d.unit = xstrdup("ms");
	d.source = METRIC_STDOUT;
	d.pattern = xstrdup("v=([0-9]+)");
	in.stdout_path = stdout_path;
	set = metrics_compile(&d, 1, &err);
	assert_non_null(set);
	metrics_extract(set, &in, &v, &n);
	assert_false(v[0].ok);
	assert_string_equal(v[0].why, "test.log is larger than the limit of 268435456 bytes");
	metric_def_values_free(v, n);
	metrics_free(set);
	release_def(&d);
	unlink(stdout_path);
}

struct compile_case {
	enum metric_source source;
	const char *field, *test, *pattern;
	const char *want; /* NULL: compiles */
};

static const struct compile_case compile_cases[] = {
	{ METRIC_STDOUT, NULL, NULL, "x=([0-9]+)", NULL },
	{ METRIC_STDOUT, NULL, NULL, "x=([0-9]+", "metric 'm': invalid regular expression 'x=([0-9]+': " },
	{ METRIC_STDERR, NULL, NULL, "x=[0-9]+", "metric 'm': pattern 'x=[0-9]+' has no capture group" },
	{ METRIC_STDOUT, NULL, NULL, NULL, "metric 'm': source stdout needs a pattern" },
	{ METRIC_RESULTS, NULL, NULL, "x=([0-9]+)", "metric 'm': source results needs a test glob" },
	{ METRIC_DURATION, NULL, NULL, NULL, "metric 'm': source duration needs a test glob" },
	{ METRIC_DURATION, NULL, "*", NULL, NULL },
	{ METRIC_PROCESS, "rss", NULL, NULL, "metric 'm': unknown process field" },
	{ METRIC_PROCESS, "max_rss", NULL, NULL, NULL },
	/* back-references have no bound on matching time; in brackets '\\1' is two characters */
	{ METRIC_STDOUT, NULL, NULL, "(a*)\\1=([0-9]+)",
	  "metric 'm': pattern '(a*)\\\\1=([0-9]+)': back-references (\\1 to \\9) are not allowed" },
	{ METRIC_STDOUT, NULL, NULL, "[\\1]x=([0-9]+)", NULL },
	{ METRIC_STDOUT, NULL, NULL, "[[:digit:]\\]x\\.([0-9]+)", NULL },
	{ METRIC_STDOUT, NULL, NULL, "\\\\1=([0-9]+)", NULL },
	/* repetitions that multiply when compiled: refused before regcomp() (found by fuzzing) */
	{ METRIC_STDOUT, NULL, NULL, "b++++++++++++++++++++++++++++++++uild=([0-9]+)",
	  "metric 'm': pattern 'b++++++++++++++++++++++++++++++++uild=([0-9]+)': its repetitions "
	  "multiply to more than 20000 copies" },
	{ METRIC_STDOUT, NULL, NULL, "x{,9}{,9}{,9}{,9}{,9}=([0-9]+)",
	  "metric 'm': pattern 'x{,9}{,9}{,9}{,9}{,9}=([0-9]+)': its repetitions multiply" },
	{ METRIC_STDOUT, NULL, NULL, "((x{99}){99}){99}=([0-9]+)",
	  "metric 'm': pattern '((x{99}){99}){99}=([0-9]+)': its repetitions multiply" },
	{ METRIC_STDOUT, NULL, NULL, "((((((((((((((((((((((((((((((((((x))))))))))))))))))))))))))))))))))=([0-9]+)",
	  "metric 'm': pattern '((((((((((((((((((((((((((((((((((x))))))))))))))))))))))))))))))))))"
	  "=([0-9]+)': groups nested more than 32 deep" },
	/* what plans write stays allowed: lazy-looking '.*?', bounded counts, a repeated group */
	{ METRIC_STDOUT, NULL, NULL, "took .*? ([0-9]+)", NULL },
	{ METRIC_STDOUT, NULL, NULL, "id=[0-9a-f]{32} t=([0-9]{1,9})", NULL },
	{ METRIC_STDOUT, NULL, NULL, "(ab+)+ ([0-9]+)", NULL },
};

static void test_compile(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(compile_cases); i++) {
		const struct compile_case *c = &compile_cases[i];
		struct metric_def d[2];
		struct metric_set *set;
		char *err = NULL;

		memset(d, 0, sizeof(d));
		/* A good definition first: the bad one must still be found and named. */
		d[0].name = xstrdup("ok");
		d[0].unit = xstrdup("ms");
		d[0].source = METRIC_STDOUT;
		d[0].pattern = xstrdup("([0-9]+)");
		d[1].name = xstrdup("m");
		d[1].unit = xstrdup("ms");
		d[1].source = c->source;
		d[1].field = c->field ? xstrdup(c->field) : NULL;
		d[1].test = c->test ? xstrdup(c->test) : NULL;
		d[1].pattern = c->pattern ? xstrdup(c->pattern) : NULL;
		set = metrics_compile(d, 2, &err);
		if (!c->want) {
			if (!set)
				fail_msg("case %zu: %s", i, err);
			assert_null(err);
		} else {
			assert_null(set);
			assert_non_null(err);
			if (strncmp(err, c->want, strlen(c->want)))
				fail_msg("case %zu: got '%s', want '%s'", i, err, c->want);
		}
		metrics_free(set);
		free(err);
		release_def(&d[0]);
		release_def(&d[1]);
	}
}

static void test_wants_test(void **state)
{
	struct metric_def d[4];
	struct metric_set *set;
	char *err;
	(void)state;

	memset(d, 0, sizeof(d));
	d[0].name = xstrdup("r");
	d[0].unit = xstrdup("ms");
	d[0].source = METRIC_RESULTS;
	d[0].test = xstrdup("*Lock*");
	d[0].pattern = xstrdup("([0-9]+)");
	d[1].name = xstrdup("d");
	d[1].source = METRIC_DURATION;
	d[1].test = xstrdup("Ns.Rebuild[0-9]");
	d[2].name = xstrdup("w");
	d[2].source = METRIC_PROCESS;
	d[2].field = xstrdup("wall");
	d[3].name = xstrdup("s");
	d[3].unit = xstrdup("ms");
	d[3].source = METRIC_STDOUT;
	d[3].pattern = xstrdup("([0-9]+)");
	set = metrics_compile(d, 4, &err);
	assert_non_null(set);
	assert_true(metrics_wants_test(set, "Ns.LockTest", NULL));
	assert_true(metrics_wants_test(set, "Ns.Rebuild7", NULL));
	assert_false(metrics_wants_test(set, "Ns.Rebuild10", NULL));
	assert_false(metrics_wants_test(set, "Ns.lockTest", NULL));
	assert_false(metrics_wants_test(set, "wall", NULL));
	assert_false(metrics_wants_test(set, "", NULL));
	/* No flags: '/' and a leading '.' are ordinary characters. */
	assert_true(metrics_wants_test(set, ".Lock/x", NULL));
	/* A glob written for the name as the file writes it (NUnit's bare method) still matches. */
	assert_true(metrics_wants_test(set, "Other.Ns.Rebuild10", "Ns.Rebuild1"));
	assert_false(metrics_wants_test(set, "Other.Ns.Rebuild10", "Rebuild1"));
	metrics_free(set);

	set = metrics_compile(d + 2, 2, &err);
	assert_non_null(set);
	assert_false(metrics_wants_test(set, "Ns.LockTest", NULL));
	metrics_free(set);
	for (size_t i = 0; i < 4; i++)
		release_def(&d[i]);
}

/* One stdout metric over text: its value, or its reason (caller frees *why). */
static int extract_stdout(const char *pattern, enum metric_match match, const char *text,
			  size_t len, double cpu_seconds, double *value, char **why)
{
	struct metric_inputs in = base_inputs();
	struct metric_def d = { 0 };
	struct metric_set *set;
	struct metric_value *v;
	size_t n;
	char *err = NULL;
	int ok;

	write_text(stdout_path, text, len);
	d.name = xstrdup("m");
	d.unit = xstrdup("ms");
	d.source = METRIC_STDOUT;
	d.pattern = xstrdup(pattern);
	d.match = match;
	in.stdout_path = stdout_path;
	in.pattern_cpu_seconds = cpu_seconds;
	set = metrics_compile(&d, 1, &err);
	if (!set)
		fail_msg("compile: %s", err);
	metrics_extract(set, &in, &v, &n);
	ok = v[0].ok;
	*value = v[0].value;
	*why = v[0].why ? xstrdup(v[0].why) : NULL;
	metric_def_values_free(v, n);
	metrics_free(set);
	release_def(&d);
	unlink(stdout_path);
	return ok;
}

/*
 * Text longer than a window: every match is found once, whether it lies
 * in one window, across two, or at the very end; a number the window's
 * end cuts is read whole; '$' is still the end of the text.
 */
static void test_windows(void **state)
{
	size_t len = 5 * METRICS_WINDOW + 123, k = 0;
	char *text = xmalloc(len + 1);
	double value, want = 0;
	char *why;
	(void)state;

	memset(text, '.', len);
	/* v=NNNN every 1000 bytes, the first straddling no boundary in particular. */
	for (size_t at = 500; at + 12 < len; at += 1000, k++) {
		char num[16];
		int w = snprintf(num, sizeof(num), "v=%04zu;", k);
		memcpy(text + at, num, (size_t)w);
		want += (double)k;
	}
	/* One number across the first window's end. */
	memcpy(text + METRICS_WINDOW - 3, "v=123456;", 9);
	want += 123456;
	text[len] = '\0';
	assert_true(extract_stdout("v=([0-9]+);", MATCH_SUM, text, len, 0, &value, &why));
	assert_true(value == want);
	assert_true(extract_stdout("v=([0-9]+);", MATCH_FIRST, text, len, 0, &value, &why));
	assert_true(value == 0);
	/* A match spanning lines, past the first window. */
	memcpy(text + 2 * METRICS_WINDOW + 7, "begin\nsum\n=42!", 15);
	assert_true(extract_stdout("begin[[:space:]]+sum[[:space:]]+=([0-9]+)!", MATCH_FIRST, text,
				   len, 0, &value, &why));
	assert_true(value == 42);
	/* '$' is the end of the whole text, not of a window. */
	memcpy(text + len - 6, "end=9;", 6);
	assert_true(extract_stdout("end=([0-9]+);$", MATCH_FIRST, text, len, 0, &value, &why));
	assert_true(value == 9);
	memcpy(text + METRICS_WINDOW + 100, "end=8;", 6);
	assert_true(extract_stdout("end=([0-9]+);$", MATCH_SUM, text, len, 0, &value, &why));
	assert_true(value == 9);
	/* A match longer than a window is refused, not cut. */
	assert_false(extract_stdout("^([.v=0-9;]+)", MATCH_FIRST, text, len, 0, &value, &why));
	assert_non_null(strstr(why, "longer than 8192 bytes"));
	free(why);
	free(text);
}

/*
 * Nested repetition over ~200 KB that does not match: glibc's regexec()
 * takes minutes over the whole text. The CPU budget ends it with a reason
 * naming the limit; the outcome and the reason are checked, not the time.
 */
static void test_catastrophic_pattern(void **state)
{
	static const char *const patterns[] = { "(a|a)*b=([0-9]+)", "((a*)*)(b)=([0-9]+)" };
	size_t len = 200 * 1024;
	char *text = xmalloc(len + 1);
	double value;
	char *why;
	(void)state;

	memset(text, 'a', len);
	text[len] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(patterns); i++) {
		/* A budget too small for the whole text, however fast the machine. */
		assert_false(extract_stdout(patterns[i], MATCH_FIRST, text, len, 1e-6, &value, &why));
		assert_non_null(why);
		if (!strstr(why, "the pattern used up its 1e-06 s of CPU time "
				 "(limits.pattern_cpu_seconds)"))
			fail_msg("pattern %s: %s", patterns[i], why);
		free(why);
	}
	/* Within its budget the same pattern still finds what is there. */
	memcpy(text + len - 4, "b=7\n", 4);
	assert_true(extract_stdout("b=([0-9]+)(a|a)*", MATCH_FIRST, text + len - 3000, 3000, 0,
				   &value, &why));
	assert_true(value == 7);
	free(text);
}

/*
 * [ab]*a[ab]{32} over 8 KiB of a and b makes glibc's regexec() build a
 * state per byte, hundreds of MiB in one call that the CPU budget cannot
 * interrupt. The memory cap ends it with a reason naming the limit; a
 * plain pattern under the same cap still finds its number, and abev's
 * own limit is as it was.
 */
static void test_pattern_memory_cap(void **state)
{
	size_t len = METRICS_WINDOW;
	char *text;
	struct metric_inputs in = base_inputs();
	struct metric_def d[2] = { { 0 }, { 0 } };
	struct metric_set *set;
	struct metric_value *v;
	struct rlimit before, after;
	unsigned seed = 1;
	size_t n;
	char *err = NULL;
	(void)state;

#ifdef __SANITIZE_ADDRESS__
	/* AddressSanitizer reserves its heap's address space up front: no RLIMIT_AS bites. */
	skip();
#endif
	text = xmalloc(len + 32);
	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		text[i] = (seed >> 16) & 1 ? 'a' : 'b';
	}
	memcpy(text + len, "\nv=42\n", 6);
	write_text(stdout_path, text, len + 6);
	for (size_t i = 0; i < 2; i++) {
		d[i].name = xstrdup(i ? "plain" : "greedy");
		d[i].unit = xstrdup("ms");
		d[i].source = METRIC_STDOUT;
		d[i].pattern = xstrdup(i ? "v=([0-9]+)" : "[ab]*a[ab]{32}(x)");
		d[i].match = MATCH_FIRST;
	}
	in.stdout_path = stdout_path;
	in.pattern_cpu_seconds = 3600;
	in.pattern_memory_bytes = 16 << 20;
	set = metrics_compile(d, 2, &err);
	if (!set)
		fail_msg("compile: %s", err);
	assert_int_equal(getrlimit(RLIMIT_AS, &before), 0);
	metrics_extract(set, &in, &v, &n);
	assert_int_equal(getrlimit(RLIMIT_AS, &after), 0);
	assert_true(before.rlim_cur == after.rlim_cur && before.rlim_max == after.rlim_max);
	assert_false(v[0].ok);
	if (!v[0].why || !strstr(v[0].why, "test.log: matching stopped at byte 0 of ") ||
	    !strstr(v[0].why, "the pattern needed more than 16 MiB of memory"))
		fail_msg("greedy: %s", v[0].why ? v[0].why : "(no reason)");
	assert_true(v[1].ok);
	assert_true(v[1].value == 42);
	metric_def_values_free(v, n);
	metrics_free(set);
	for (size_t i = 0; i < 2; i++)
		release_def(&d[i]);
	unlink(stdout_path);
	free(text);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(metric_def_source_name(METRIC_PROCESS), "process");
	assert_string_equal(metric_def_source_name(METRIC_STDOUT), "stdout");
	assert_string_equal(metric_def_source_name(METRIC_STDERR), "stderr");
	assert_string_equal(metric_def_source_name(METRIC_RESULTS), "results");
	assert_string_equal(metric_def_source_name(METRIC_DURATION), "duration");
	assert_string_equal(metric_def_source_name((enum metric_source)99), "unknown");
	assert_string_equal(metric_def_match_name(MATCH_FIRST), "first");
	assert_string_equal(metric_def_match_name(MATCH_LAST), "last");
	assert_string_equal(metric_def_match_name(MATCH_SUM), "sum");
	assert_string_equal(metric_def_match_name(MATCH_MEAN), "mean");
	assert_string_equal(metric_def_match_name((enum metric_match)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_extract),
		cmocka_unit_test(test_named_process),
		cmocka_unit_test(test_process_not_measured),
		cmocka_unit_test(test_derive_rate),
		cmocka_unit_test(test_several),
		cmocka_unit_test(test_oversize),
		cmocka_unit_test(test_reads_hashed),
		cmocka_unit_test(test_compile),
		cmocka_unit_test(test_wants_test),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_catastrophic_pattern),
		cmocka_unit_test(test_pattern_memory_cap),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(t, setup, teardown);
}
