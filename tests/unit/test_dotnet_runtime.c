/*
 * Unit tests of dotnet_runtime.c and dotnet_hook.c: one table of files as
 * the startup hook writes them and as a hostile program under test might
 * (truncated, oversize, extra or repeated keys, numbers out of range, a
 * bad name, a NUL, a link, a FIFO, a pid that is not its name's), read
 * from a fresh mkdtemp directory; how a figure combines over processes;
 * metrics of source dotnet through metrics_extract(), and each file hashed
 * in the read its figures come from; and how the hook
 * joins a user's DOTNET_STARTUP_HOOKS.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/dotnet_runtime.h"
#include "results/metrics.h"
#include "run/dotnet_hook.h"
#include "util/alloc.h"
#include "util/env.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/strbuf.h"

#include "testutil.h"

static char *tmpdir;

static int setup(void **state)
{
	(void)state;
	tmpdir = tu_tmpdir("test-dotnet");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rm_rf(tmpdir);
	free(tmpdir);
	return 0;
}

/* Empties tmpdir for the next case. */
static void clear_dir(void)
{
	tu_rm_rf(tmpdir);
	assert_int_equal(mkdir(tmpdir, 0700), 0);
}

static void write_file(const char *name, const char *text, size_t len)
{
	tu_put(tmpdir, name, text, len);
}

/* A file as the hook writes it, for pid, process name and a base value of its figures. */
static char *good_text(long pid, const char *process, long base)
{
	return xasprintf("{\"schema\": \"abev.dotnet-runtime/1\", \"pid\": %ld, \"process\": \"%s\", "
			 "\"gc_gen0\": %ld, \"gc_gen1\": %ld, \"gc_gen2\": %ld, \"gc_pause_us\": %ld, "
			 "\"allocated_bytes\": %ld, \"peak_heap_bytes\": %ld, "
			 "\"lock_contentions\": %ld, \"threadpool_items\": %ld, \"jit_methods\": %ld, "
			 "\"jit_time_us\": %ld}\n", pid, process, base, base + 1, base + 2, base + 3,
			 base + 4, base + 5, base + 6, base + 7, base + 8, base + 9);
}

static void write_good(long pid, const char *process, long base)
{
	char name[64], *t = good_text(pid, process, base);
	snprintf(name, sizeof(name), "dotnet-%ld.json", pid);
	write_file(name, t, strlen(t));
	free(t);
}

static void test_figure_table(void **state)
{
	(void)state;
	assert_string_equal(dotnet_runtime_figure_name(DOTNET_RT_ALLOCATED_BYTES), "allocated_bytes");
	assert_string_equal(dotnet_runtime_figure_unit(DOTNET_RT_GC_PAUSE_US), "us");
	assert_string_equal(dotnet_runtime_figure_unit(DOTNET_RT_PEAK_HEAP_BYTES), "bytes");
	assert_int_equal(dotnet_runtime_figure_index("lock_contentions"), DOTNET_RT_LOCK_CONTENTIONS);
	assert_int_equal(dotnet_runtime_figure_index("wall"), -1);
	assert_int_equal(dotnet_runtime_figure_index(NULL), -1);
	assert_null(dotnet_runtime_figure_name(DOTNET_RT_FIGURES));
	assert_true(dotnet_runtime_figure_is_max(DOTNET_RT_PEAK_HEAP_BYTES));
	assert_false(dotnet_runtime_figure_is_max(DOTNET_RT_GC_GEN0));
}

static void test_good_files_combine(void **state)
{
	struct dotnet_rt_set set = DOTNET_RT_SET_INIT;
	double v = -1;
	char *why = NULL;

	(void)state;
	clear_dir();
	write_good(300, "testhost", 100);
	write_good(20, "dotnet", 10);
	write_good(4000, "vstest.console", 1000);
	/* Not the hook's names: never read, whatever they hold. */
	write_file(".dotnet-5.json.tmp", "{", 1);
	write_file("dotnet-x.json", "garbage", 7);
	write_file("dotnet-12345678901.json", "garbage", 7);
	dotnet_runtime_read(NULL, tmpdir, &set);
	assert_null(set.why);
	assert_int_equal(set.n, 3);
	/* In pid order. */
	assert_int_equal(set.procs[0].pid, 20);
	assert_string_equal(set.procs[1].process, "testhost");
	assert_int_equal(set.procs[2].figures[DOTNET_RT_JIT_TIME_US], 1009);
	/* Summed over every process ... */
	assert_int_equal(dotnet_runtime_combine(&set, DOTNET_RT_ALLOCATED_BYTES, NULL, &v, &why), 0);
	assert_true(v == 104 + 14 + 1004);
	/* ... the peak heap their largest ... */
	assert_int_equal(dotnet_runtime_combine(&set, DOTNET_RT_PEAK_HEAP_BYTES, NULL, &v, &why), 0);
	assert_true(v == 1005);
	/* ... or over those a glob selects. */
	assert_int_equal(dotnet_runtime_combine(&set, DOTNET_RT_GC_GEN0, "testhost*", &v, &why), 0);
	assert_true(v == 100);
	assert_int_equal(dotnet_runtime_combine(&set, DOTNET_RT_GC_GEN0, "*s*", &v, &why), 0);
	assert_true(v == 1100);
	/* A glob that matches none names what was read. */
	assert_int_equal(dotnet_runtime_combine(&set, DOTNET_RT_GC_GEN0, "MSBuild", &v, &why), -1);
	assert_non_null(strstr(why, "'MSBuild'"));
	assert_non_null(strstr(why, "dotnet, testhost, vstest.console"));
	free(why);
	assert_int_equal(dotnet_runtime_combine(&set, DOTNET_RT_FIGURES, NULL, &v, &why), -1);
	free(why);
	dotnet_runtime_set_release(&set);
	dotnet_runtime_set_release(&set);
}

static void test_no_files(void **state)
{
	struct dotnet_rt_set set = DOTNET_RT_SET_INIT;
	char *missing = path_join(tmpdir, "gone");
	double v;
	char *why = NULL;

	(void)state;
	clear_dir();
	dotnet_runtime_read(NULL, tmpdir, &set);
	assert_null(set.why);
	assert_int_equal(set.n, 0);
	assert_int_equal(dotnet_runtime_combine(&set, DOTNET_RT_GC_GEN0, NULL, &v, &why), -1);
	assert_non_null(strstr(why, "no .NET process wrote runtime figures"));
	free(why);
	/* A run directory that is gone: no processes, not an error of its own. */
	dotnet_runtime_read(NULL, missing, &set);
	assert_null(set.why);
	assert_int_equal(set.n, 0);
	dotnet_runtime_set_release(&set);
	free(missing);
}

/* A bad file among good ones: the reason names it, and no figure is used. */
static const struct bad_case {
	const char *label;
	const char *text;   /* NULL: see the case's code */
	const char *why;    /* a piece of the reason */
} bad_cases[] = {
	{ "truncated", "{\"schema\": \"abev.dotnet-runtime/1\", \"pid\": 7, \"proc", "not valid JSON" },
	{ "empty", "", "not valid JSON" },
	{ "an array", "[1, 2]", "expected a JSON object" },
	{ "text after", "{} {}", "text after the JSON document" },
	{ "a key missing", "{\"schema\": \"abev.dotnet-runtime/1\", \"pid\": 7, \"process\": \"p\"}",
	  "gc_gen0" },
	{ "a key of its own", NULL, "extra" },
	{ "a key twice", NULL, "pid" },
	{ "negative", NULL, "gc_gen0" },
	{ "a fraction", NULL, "gc_gen0" },
	{ "past 2^53", NULL, "gc_gen0" },
	{ "a string figure", NULL, "gc_gen0" },
	{ "another schema", NULL, "schema" },
	{ "a control character in the name", NULL, "process" },
	{ "a name too long", NULL, "process" },
	{ "a NUL", NULL, "NUL" },
	{ "another pid", NULL, "not the pid of its name" },
	{ "huge", NULL, "larger than 4096 bytes" },
};

/* The text of a bad case that is a good file changed: from, the first time, becomes to. */
static char *edited(const char *from, const char *to)
{
	char *good = good_text(7, "testhost", 1), *at = strstr(good, from), *t;
	assert_non_null(at);
	t = xasprintf("%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
	free(good);
	return t;
}

static void write_bad(const struct bad_case *c)
{
	struct strbuf sb = STRBUF_INIT;
	char *t = NULL;
	size_t len;

	if (c->text) {
		write_file("dotnet-7.json", c->text, strlen(c->text));
		return;
	}
	if (!strcmp(c->label, "a key of its own"))
		t = edited("\"pid\"", "\"extra\": 1, \"pid\"");
	else if (!strcmp(c->label, "a key twice"))
		t = edited("\"process\"", "\"pid\": 7, \"process\"");
	else if (!strcmp(c->label, "negative"))
		t = edited("\"gc_gen0\": 1", "\"gc_gen0\": -1");
	else if (!strcmp(c->label, "a fraction"))
		t = edited("\"gc_gen0\": 1", "\"gc_gen0\": 1.5");
	else if (!strcmp(c->label, "past 2^53"))
		t = edited("\"gc_gen0\": 1", "\"gc_gen0\": 1e300");
	else if (!strcmp(c->label, "a string figure"))
		t = edited("\"gc_gen0\": 1", "\"gc_gen0\": \"1\"");
	else if (!strcmp(c->label, "another schema"))
		t = edited("runtime/1", "runtime/2");
	else if (!strcmp(c->label, "a control character in the name"))
		t = edited("testhost", "test\\u001bhost");
	else if (!strcmp(c->label, "another pid"))
		t = edited("\"pid\": 7", "\"pid\": 8");
	if (t) {
		write_file("dotnet-7.json", t, strlen(t));
		free(t);
		return;
	}
	if (!strcmp(c->label, "a name too long")) {
		strbuf_addch(&sb, 'x');
		for (int i = 0; i < DOTNET_RT_NAME_MAX; i++)
			strbuf_addch(&sb, 'y');
		t = edited("testhost", sb.buf);
	} else if (!strcmp(c->label, "a NUL")) {
		t = good_text(7, "testhost", 1);
		len = strlen(t);
		t[len - 1] = '\0';  /* the newline becomes a NUL */
		write_file("dotnet-7.json", t, len);
		free(t);
		return;
	} else {
		/* huge: a good document padded with spaces past the cap */
		t = good_text(7, "testhost", 1);
		strbuf_adds(&sb, t);
		while (sb.len <= DOTNET_RT_FILE_MAX)
			strbuf_addch(&sb, ' ');
		free(t);
		t = strbuf_detach(&sb, NULL);
	}
	write_file("dotnet-7.json", t, strlen(t));
	free(t);
	strbuf_release(&sb);
}

static void test_bad_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct dotnet_rt_set set = DOTNET_RT_SET_INIT;
		double v = -1;
		char *why = NULL;

		clear_dir();
		write_good(3, "dotnet", 5);
		write_bad(&bad_cases[i]);
		dotnet_runtime_read(NULL, tmpdir, &set);
		if (!set.why || !strstr(set.why, "dotnet-7.json") ||
		    !strstr(set.why, bad_cases[i].why))
			fail_msg("%s: '%s'", bad_cases[i].label, set.why ? set.why : "(read)");
		assert_int_equal(dotnet_runtime_combine(&set, DOTNET_RT_GC_GEN0, "dotnet", &v, &why), -1);
		assert_non_null(strstr(why, "not used"));
		assert_true(v == -1);
		free(why);
		dotnet_runtime_set_release(&set);
	}
}

/*
 * Each file is hashed in the read that parses it, by its name, also one
 * that does not parse (its figures spoil the run's, its bytes are still
 * what abev read); one never read is not.
 */
static void test_files_hashed_as_read(void **state)
{
	struct dotnet_rt_set set = DOTNET_RT_SET_INIT;
	char *good = good_text(11, "testhost", 1);
	unsigned char want[SHA256_LEN];

	(void)state;
	clear_dir();
	write_file("dotnet-11.json", good, strlen(good));
	write_file("dotnet-12.json", "{", 1);
	write_good(13, "dotnet", 1);
	dotnet_runtime_read(NULL, tmpdir, &set);
	assert_non_null(set.why);
	assert_int_equal(set.n, 3);
	sha256_buf(good, strlen(good), want);
	assert_string_equal(set.procs[0].file.name, "dotnet-11.json");
	assert_int_equal(set.procs[0].file.read.hashed, 1);
	assert_int_equal(set.procs[0].file.read.bytes, strlen(good));
	assert_memory_equal(set.procs[0].file.read.sha256, want, SHA256_LEN);
	sha256_buf("{", 1, want);
	assert_string_equal(set.procs[1].file.name, "dotnet-12.json");
	assert_int_equal(set.procs[1].file.read.hashed, 1);
	assert_memory_equal(set.procs[1].file.read.sha256, want, SHA256_LEN);
	/* Not read past the bad one. */
	assert_int_equal(set.procs[2].file.read.hashed, 0);
	dotnet_runtime_set_release(&set);
	free(good);
}

/* A link, a FIFO and a directory under the hook's name: not followed, not opened, not read. */
static void test_odd_files(void **state)
{
	static const char *const kinds[] = { "link", "fifo", "dir" };
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct dotnet_rt_set set = DOTNET_RT_SET_INIT;
		char *path = path_join(tmpdir, "dotnet-9.json");
		char *target = path_join(tmpdir, "elsewhere.json");

		clear_dir();
		write_good(9, "testhost", 1);
		assert_int_equal(rename(path, target), 0);
		if (i == 0)
			assert_int_equal(symlink(target, path), 0);
		else if (i == 1)
			assert_int_equal(mkfifo(path, 0600), 0);
		else
			assert_int_equal(mkdir(path, 0700), 0);
		dotnet_runtime_read(NULL, tmpdir, &set);
		if (!set.why || !strstr(set.why, "dotnet-9.json"))
			fail_msg("%s: '%s'", kinds[i], set.why ? set.why : "(read)");
		dotnet_runtime_set_release(&set);
		free(path);
		free(target);
	}
}

static void test_too_many_files(void **state)
{
	struct dotnet_rt_set set = DOTNET_RT_SET_INIT;
	(void)state;
	clear_dir();
	for (long pid = 1; pid <= DOTNET_RT_FILES_MAX + 1; pid++)
		write_good(pid, "p", 0);
	dotnet_runtime_read(NULL, tmpdir, &set);
	assert_non_null(set.why);
	assert_non_null(strstr(set.why, "more than 256"));
	dotnet_runtime_set_release(&set);
}

/* Metrics of source dotnet as the judge extracts them from a run directory. */
static void test_extract(void **state)
{
	static char alloc[] = "alloc", pause[] = "pause", none[] = "none", allocated[] = "allocated_bytes",
		    gc_pause[] = "gc_pause_us", jit[] = "jit_methods", host[] = "testhost*",
		    msbuild[] = "MSBuild*", rss[] = "max_rss";
	struct metric_def defs[3];
	struct metric_inputs in;
	struct metric_value *out = NULL;
	struct metric_set *set;
	struct file_read_named *reads = NULL;
	unsigned char want[SHA256_LEN];
	size_t n = 0, nreads = 0;
	char *err = NULL, *text;

	(void)state;
	clear_dir();
	write_good(11, "testhost", 1000);
	write_good(12, "dotnet", 10);
	memset(defs, 0, sizeof(defs));
	memset(&in, 0, sizeof(in));
	defs[0] = (struct metric_def){ .name = alloc, .source = METRIC_DOTNET,
				       .field = allocated, .process = host,
				       .max_regression_pct = -1, .max_improvement_pct = -1 };
	defs[1] = (struct metric_def){ .name = pause, .source = METRIC_DOTNET,
				       .field = gc_pause, .max_regression_pct = -1,
				       .max_improvement_pct = -1 };
	defs[2] = (struct metric_def){ .name = none, .source = METRIC_DOTNET,
				       .field = jit, .process = msbuild,
				       .max_regression_pct = -1, .max_improvement_pct = -1 };
	set = metrics_compile(defs, 3, &err);
	assert_non_null(set);
	in.run_dir = tmpdir;
	in.fig.wall_ns = -1;
	in.dotnet_reads = &reads;
	in.ndotnet_reads = &nreads;
	metrics_extract(set, &in, &out, &n);
	assert_int_equal(n, 3);
	/* The files the figures come from, as read, for the ledger to hold. */
	assert_int_equal(nreads, 2);
	assert_string_equal(reads[0].name, "dotnet-11.json");
	assert_string_equal(reads[1].name, "dotnet-12.json");
	text = good_text(12, "dotnet", 10);
	sha256_buf(text, strlen(text), want);
	assert_memory_equal(reads[1].read.sha256, want, SHA256_LEN);
	free(text);
	free(reads);
	assert_true(out[0].ok);
	assert_true(out[0].value == 1004);
	assert_string_equal(out[0].unit, "bytes");
	assert_true(out[1].ok);
	assert_true(out[1].value == 1003 + 13);
	assert_string_equal(out[1].unit, "us");
	assert_false(out[2].ok);
	assert_non_null(strstr(out[2].why, "'MSBuild*'"));
	metric_def_values_free(out, n);
	metrics_free(set);
	/* An unknown figure is refused when compiled. */
	defs[0].field = rss;
	assert_null(metrics_compile(defs, 1, &err));
	assert_non_null(strstr(err, "unknown runtime figure"));
	free(err);
}

/* The user's hooks keep their place; abev's comes last, once. */
static void test_hook_env(void **state)
{
	struct env_array e = ENV_ARRAY_INIT;
	(void)state;
	env_set(&e, "A", "1");
	dotnet_hook_env(&e, "/abev/hook.dll");
	assert_string_equal(env_get(&e, DOTNET_STARTUP_HOOKS), "/abev/hook.dll");
	env_set(&e, DOTNET_STARTUP_HOOKS, "/user/one.dll:/user/two.dll");
	dotnet_hook_env(&e, "/abev/hook.dll");
	assert_string_equal(env_get(&e, DOTNET_STARTUP_HOOKS),
			    "/user/one.dll:/user/two.dll:/abev/hook.dll");
	dotnet_hook_env(&e, "/abev/hook.dll");
	assert_string_equal(env_get(&e, DOTNET_STARTUP_HOOKS),
			    "/user/one.dll:/user/two.dll:/abev/hook.dll");
	/* A name that merely ends like the hook's is another hook. */
	env_set(&e, DOTNET_STARTUP_HOOKS, "/x/abev/hook.dll.old/abev/hook.dll");
	dotnet_hook_env(&e, "/abev/hook.dll");
	assert_string_equal(env_get(&e, DOTNET_STARTUP_HOOKS),
			    "/x/abev/hook.dll.old/abev/hook.dll:/abev/hook.dll");
	assert_string_equal(env_get(&e, "A"), "1");
	assert_null(env_get(&e, "B"));
	strv_free(e.v);
}

/* ABEV_DOTNET_HOOK, when set, is the one place looked at. */
static void test_hook_find(void **state)
{
	char *path = NULL, *why = NULL, *dll = path_join(tmpdir, "h.dll");

	(void)state;
	clear_dir();
	write_file("h.dll", "MZ", 2);
	setenv(DOTNET_HOOK_ENV, dll, 1);
	assert_int_equal(dotnet_hook_find(&path, &why), 0);
	assert_string_equal(path, dll);
	free(path);
	setenv(DOTNET_HOOK_ENV, "relative/h.dll", 1);
	assert_int_equal(dotnet_hook_find(&path, &why), -1);
	assert_non_null(strstr(why, "not an absolute path"));
	free(why);
	setenv(DOTNET_HOOK_ENV, tmpdir, 1);
	assert_int_equal(dotnet_hook_find(&path, &why), -1);
	assert_non_null(strstr(why, "not a regular file"));
	free(why);
	unsetenv(DOTNET_HOOK_ENV);
	free(dll);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_figure_table),
		cmocka_unit_test(test_good_files_combine),
		cmocka_unit_test(test_no_files),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_files_hashed_as_read),
		cmocka_unit_test(test_odd_files),
		cmocka_unit_test(test_too_many_files),
		cmocka_unit_test(test_extract),
		cmocka_unit_test(test_hook_env),
		cmocka_unit_test(test_hook_find),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
