/*
 * Unit tests of plan.c: a full plan and the defaults, the variants file,
 * one table of broken plans (each must fail with exactly one message that
 * names the file and the JSON path or line), malformed and unreadable
 * files, and template expansion. Fixtures are written into a fresh
 * mkdtemp directory; in plan fixtures ' stands for " to keep them legible.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decide/stats_exact.h"
#include "plan/plan.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/errlist.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"

static char tmpdir[PATH_MAX];
static char *realdir;
static char last_error[4096];
static int nerrors;

static void capture(const char *prefix, const char *msg)
{
	(void)prefix;
	nerrors++;
	snprintf(last_error, sizeof(last_error), "%s", msg);
	/* TEST_PLAN_VERBOSE=1 shows every message, to read them as a user would. */
	if (getenv("TEST_PLAN_VERBOSE"))
		fprintf(stderr, "  msg: %s\n", msg);
}

static void reset_errors(void)
{
	nerrors = 0;
	last_error[0] = '\0';
}

/* Writes content to tmpdir/name; returns the path (caller frees). */
static char *write_raw(const char *name, const char *content, size_t len)
{
	char *path = path_join(tmpdir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* A plan fixture: ' becomes ". */
static char *write_json(const char *name, const char *fixture)
{
	char *s = xstrdup(fixture);
	char *path;
	for (char *p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	path = write_raw(name, s, strlen(s));
	free(s);
	return path;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	char *sub;
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/abev-test-plan-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	realdir = realpath(tmpdir, NULL);
	sub = path_join(tmpdir, "sub");
	if (mkdir(sub, 0755) < 0)
		return -1;
	free(sub);
	set_error_routine(capture);
	return realdir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	set_error_routine(NULL);
	free(realdir);
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char full_plan[] =
	"{\n"
	"  'schema': 'abev.plan/1',\n"
	"  'name': 'full',\n"
	"  'description': 'every key there is',\n"
	"  'variants': [\n"
	"    {'name': 'a', 'cwd': 'sub',\n"
	"     'command': ['./bench', '--out', '{run_dir}/out.trx', '{{literal}}'],\n"
	"     'env': {'MODE': 'fast', 'ROUND': '{round}'},\n"
	"     'assemblies': ['bin/{variant}/*.dll']},\n"
	"    {'name': 'b-2.x_Y', 'command': ['sh', '-c', 'exit 0'], 'cpus': ' 3, 1-2,2 '}\n"
	"  ],\n"
	"  'schedule': {'warmups': 2, 'runs': 5, 'order': 'shuffle', 'seed': 99,\n"
	"               'gap_seconds': 1.5, 'timeout_seconds': 30, 'step_timeout_seconds': 900,\n"
	"               'kill_grace_seconds': 2,\n"
	"               'cpus': '0'},\n"
	"  'results': {'files': '{run_dir}/*.trx', 'min_executed': 10,\n"
	"              'known_failures': ['Ns.Flaky.*', 'Ns.Other.Known']},\n"
	"  'metrics': [\n"
	"    {'name': 'wall time', 'source': 'process', 'field': 'wall', 'max_regression_pct': 5},\n"
	"    {'name': 'rss', 'source': 'process', 'field': 'max_rss', 'better': 'lower'},\n"
	"    {'name': 'switches', 'source': 'process', 'field': 'nivcsw'},\n"
	"    {'name': 'rebuild', 'unit': 'ms', 'source': 'stdout',\n"
	"     'pattern': 'BENCH rebuild_ms=([0-9.]+)', 'match': 'mean', 'derive': 'rate'},\n"
	"    {'name': 'pauses', 'unit': 'count', 'source': 'stderr',\n"
	"     'pattern': 'gc:\\n{2}pauses ([0-9]+)', 'match': 'last'},\n"
	"    {'name': 'lock ops \\u00e9', 'unit': 'ops/s', 'better': 'higher', 'source': 'results',\n"
	"     'test': '*Lock*', 'pattern': 'ops=([0-9]+)', 'match': 'sum', 'max_regression_pct': 0},\n"
	"    {'name': 'lock time', 'source': 'duration', 'test': 'Ns.Lock[0-9]'}\n"
	"  ],\n"
	"  'allowed_exit_codes': [0, 1, 255],\n"
	"  'versions': {'sdk': ['dotnet', '--version'], 'A.b_c-9': ['sh', '-c', 'echo {variant} ']},\n"
	"  'load': {'max_cpu_wait_pct': 25.5, 'max_foreign_cpu': 1.25, 'max_repeats': 4},\n"
	"  'limits': {'max_files': 250, 'pattern_cpu_seconds': 0.5, 'max_log_bytes': 1048576,\n"
	"             'max_run_bytes': 5000000000, 'log_keep_bytes': 4096}\n"
	"}\n";

static void test_full_plan(void **state)
{
	struct plan plan = PLAN_INIT;
	char *path = write_json("full.json", full_plan);
	char *sub = path_join(realdir, "sub");
	struct stat st;
	const struct plan_variant *a, *b;
	const struct metric_def *m;
	(void)state;

	reset_errors();
	assert_int_equal(plan_load(&plan, path), 0);
	assert_int_equal(nerrors, 0);
	assert_string_equal(plan.path, path);
	assert_string_equal(plan.dir, realdir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(plan.raw_len, (size_t)st.st_size);
	assert_non_null(plan.raw);
	assert_int_equal(plan.raw[0], '{');
	assert_non_null(strstr(plan.raw, "\"description\": \"every key there is\""));
	assert_string_equal(plan.name, "full");
	assert_null(plan.variants_file);

	assert_int_equal(plan.nvariants, 2);
	a = &plan.variants[0];
	assert_string_equal(a->name, "a");
	assert_string_equal(a->cwd, sub);
	assert_int_equal(a->command_len, 4);
	assert_string_equal(a->command[0], "./bench");
	assert_string_equal(a->command[1], "--out");
	assert_string_equal(a->command[2], "{run_dir}/out.trx");
	assert_string_equal(a->command[3], "{{literal}}");
	assert_int_equal(a->env_len, 2);
	assert_string_equal(a->env[0].key, "MODE");
	assert_string_equal(a->env[0].value, "fast");
	assert_string_equal(a->env[1].key, "ROUND");
	assert_string_equal(a->env[1].value, "{round}");
	assert_int_equal(a->assemblies_len, 1);
	assert_string_equal(a->assemblies[0], "bin/{variant}/*.dll");

	b = &plan.variants[1];
	assert_string_equal(b->name, "b-2.x_Y");
	assert_string_equal(b->cwd, realdir);
	assert_int_equal(b->command_len, 3);
	assert_string_equal(b->command[2], "exit 0");
	assert_int_equal(b->env_len, 0);
	assert_int_equal(b->assemblies_len, 0);

	assert_int_equal(plan.set.warmups, 2);
	assert_int_equal(plan.set.runs, 5);
	assert_int_equal(plan.set.order, RUN_ORDER_SHUFFLE);
	assert_string_equal(run_order_name(plan.set.order), "shuffle");
	assert_int_equal(plan.set.seed, 99);
	assert_true(plan.set.gap_seconds == 1.5);
	assert_true(plan.set.timeout_seconds == 30);
	assert_true(plan.set.step_timeout_seconds == 900);
	assert_string_equal(plan.set.step_timeout_seconds_from, "plan");
	assert_true(plan.kill_grace_seconds == 2);
	assert_string_equal(plan.results_files, "{run_dir}/*.trx");
	assert_int_equal(plan.min_executed, 10);
	assert_int_equal(plan.nknown_failures, 2);
	assert_string_equal(plan.known_failures[0], "Ns.Flaky.*");
	assert_string_equal(plan.known_failures[1], "Ns.Other.Known");
	assert_int_equal(plan.nmetrics, 7);
	m = plan.metrics;
	assert_string_equal(m[0].name, "wall time");
	assert_int_equal(m[0].source, METRIC_PROCESS);
	assert_string_equal(m[0].field, "wall");
	assert_string_equal(m[0].unit, "ms");
	assert_null(m[0].test);
	assert_null(m[0].pattern);
	assert_int_equal(m[0].better_higher, 0);
	assert_int_equal(m[0].match, MATCH_FIRST);
	assert_int_equal(m[0].derive_rate, 0);
	assert_true(m[0].max_regression_pct == 5);
	assert_string_equal(m[1].unit, "bytes");
	assert_true(m[1].max_regression_pct < 0);
	assert_string_equal(m[2].unit, "count");
	assert_string_equal(m[3].name, "rebuild");
	assert_int_equal(m[3].source, METRIC_STDOUT);
	assert_string_equal(m[3].unit, "ms");
	assert_string_equal(m[3].pattern, "BENCH rebuild_ms=([0-9.]+)");
	assert_null(m[3].field);
	assert_int_equal(m[3].match, MATCH_MEAN);
	assert_int_equal(m[3].derive_rate, 1);
	/* Braces and newlines in patterns are regular expression syntax, not placeholders. */
	assert_int_equal(m[4].source, METRIC_STDERR);
	assert_string_equal(m[4].pattern, "gc:\n{2}pauses ([0-9]+)");
	assert_int_equal(m[4].match, MATCH_LAST);
	assert_string_equal(m[5].name, "lock ops \xc3\xa9");
	assert_int_equal(m[5].source, METRIC_RESULTS);
	assert_string_equal(m[5].unit, "ops/s");
	assert_string_equal(m[5].test, "*Lock*");
	assert_int_equal(m[5].better_higher, 1);
	assert_int_equal(m[5].match, MATCH_SUM);
	assert_true(m[5].max_regression_pct == 0);
	assert_int_equal(m[6].source, METRIC_DURATION);
	assert_string_equal(m[6].unit, "ms");
	assert_string_equal(m[6].test, "Ns.Lock[0-9]");
	assert_null(m[6].pattern);
	assert_int_equal(plan.nallowed_exit_codes, 3);
	assert_int_equal(plan.allowed_exit_codes[0], 0);
	assert_int_equal(plan.allowed_exit_codes[1], 1);
	assert_int_equal(plan.allowed_exit_codes[2], 255);
	assert_true(plan_exit_code_allowed(&plan, 255));
	assert_true(plan_exit_code_allowed(&plan, 1));
	assert_false(plan_exit_code_allowed(&plan, 2));
	assert_true(plan.set.max_foreign_cpu == 1.25);
	assert_true(plan.set.max_cpu_wait_pct == 25.5);
	assert_string_equal(plan.set.max_cpu_wait_pct_from, "plan");
	/* cpus: canonical; a variant without its own runs where the schedule says */
	assert_string_equal(plan.set.cpus, "0");
	assert_string_equal(plan.variants[0].cpus, "0");
	assert_string_equal(plan.variants[1].cpus, "1-3");
	assert_int_equal(plan.set.max_repeats, 4);
	assert_int_equal(plan.max_files, 250);
	assert_true(plan.pattern_cpu_seconds == 0.5);
	assert_true(plan.max_log_bytes == 1048576);
	assert_true(plan.max_run_bytes == 5000000000LL);
	assert_true(plan.log_keep_bytes == 4096);
	/* versions: file order, argv taken literally (braces are not placeholders there) */
	assert_int_equal(plan.nversions, 2);
	assert_string_equal(plan.versions[0].name, "sdk");
	assert_int_equal(plan.versions[0].argc, 2);
	assert_string_equal(plan.versions[0].argv[0], "dotnet");
	assert_string_equal(plan.versions[0].argv[1], "--version");
	assert_string_equal(plan.versions[1].name, "A.b_c-9");
	assert_int_equal(plan.versions[1].argc, 3);
	assert_string_equal(plan.versions[1].argv[2], "echo {variant} ");

	plan_release(&plan);
	assert_null(plan.path);
	assert_null(plan.versions);
	assert_int_equal(plan.nversions, 0);
	assert_int_equal(plan.nvariants, 0);
	assert_null(plan.metrics);
	assert_int_equal(plan.nmetrics, 0);
	assert_null(plan.allowed_exit_codes);
	plan_release(&plan);
	plan_release(NULL);
	free(sub);
	free(path);
}

static void test_defaults(void **state)
{
	struct plan plan = PLAN_INIT;
	char *path = write_json("min.json",
		"{'schema':'abev.plan/1','name':'m','variants':[{'name':'a','command':['true']}]}");
	(void)state;

	reset_errors();
	assert_int_equal(plan_load(&plan, path), 0);
	assert_int_equal(nerrors, 0);
	assert_int_equal(plan.nvariants, 1);
	assert_string_equal(plan.variants[0].cwd, realdir);
	assert_int_equal(plan.set.warmups, 0);
	assert_int_equal(plan.set.runs, 3);
	assert_int_equal(plan.set.order, RUN_ORDER_BALANCED);
	assert_int_equal(plan.set.seed, 1);
	assert_true(plan.set.gap_seconds == 0);
	assert_true(plan.set.timeout_seconds == 0);
	assert_true(plan.set.step_timeout_seconds == 3600);
	assert_string_equal(plan.set.step_timeout_seconds_from, "default");
	assert_true(plan.kill_grace_seconds == 5);
	assert_null(plan.results_files);
	assert_int_equal(plan.min_executed, -1);
	assert_null(plan.metrics);
	assert_int_equal(plan.nmetrics, 0);
	assert_int_equal(plan.nallowed_exit_codes, 1);
	assert_int_equal(plan.allowed_exit_codes[0], 0);
	assert_true(plan_exit_code_allowed(&plan, 0));
	assert_false(plan_exit_code_allowed(&plan, 1));
	/* contention judged by CPU wait; foreign cores not limited */
	assert_true(plan.set.max_cpu_wait_pct == 10);
	assert_string_equal(plan.set.max_cpu_wait_pct_from, "default");
	assert_true(plan.set.max_foreign_cpu < 0);
	assert_null(plan.set.cpus);
	assert_null(plan.variants[0].cpus);
	assert_int_equal(plan.set.max_repeats, 2);
	assert_int_equal(plan.max_files, 10000);
	assert_true(plan.pattern_cpu_seconds == 10);
	assert_true(plan.max_log_bytes == 256LL * 1024 * 1024);
	assert_true(plan.max_run_bytes == 1024LL * 1024 * 1024);
	assert_true(plan.log_keep_bytes == 8192);
	assert_null(plan.versions);
	assert_int_equal(plan.nversions, 0);
	plan_release(&plan);
	plan_release(&plan);
	free(path);
}

/* A relative plan path: plan->dir is still absolute, plan->path as given. */
static void test_relative_path(void **state)
{
	struct plan plan = PLAN_INIT;
	char *path = write_json("rel.json",
		"{'schema':'abev.plan/1','name':'m','variants':[{'name':'a','command':['true']}]}");
	char old[PATH_MAX];
	(void)state;

	assert_non_null(getcwd(old, sizeof(old)));
	assert_int_equal(chdir(tmpdir), 0);
	reset_errors();
	assert_int_equal(plan_load(&plan, "rel.json"), 0);
	assert_string_equal(plan.path, "rel.json");
	assert_string_equal(plan.dir, realdir);
	assert_string_equal(plan.variants[0].cwd, realdir);
	plan_release(&plan);
	assert_int_equal(chdir(old), 0);
	free(path);
}

static void test_variants_file(void **state)
{
	/* A byte order mark at the start is skipped; the line after it is a comment. */
	static const char vars[] =
		"\xef\xbb\xbf# name|env|extra args\r\n"
		"\r\n"
		"fast|A=2 B=\"two words\" C='{variant}'|--flag 'single quoted' \"dq {phase}\" x\"y z\"w\r\n"
		"   # an indented comment\n"
		"  slow  ||\n"
		"\t\n"
		"plain\n"
		"env-only|D=|\n"
		"args-only||\"\" 'a|b'";
	struct plan plan = PLAN_INIT;
	char *vpath = write_raw("vars.txt", vars, sizeof(vars) - 1);
	char *path = write_json("vf.json",
		"{'schema':'abev.plan/1','name':'vf',\n"
		" 'variants':[{'name':'ref','command':['ref']}],\n"
		" 'base':{'command':['run','--x'],'env':{'A':'1'},'cwd':'sub','assemblies':['*.dll']},\n"
		" 'variants_file':'vars.txt'}");
	char *sub = path_join(realdir, "sub");
	char *abs = path_join(realdir, "vars.txt");
	const struct plan_variant *v;
	(void)state;

	reset_errors();
	assert_int_equal(plan_load(&plan, path), 0);
	assert_int_equal(nerrors, 0);
	assert_string_equal(plan.variants_file, abs);
	assert_int_equal(plan.nvariants, 6);
	assert_string_equal(plan.variants[0].name, "ref");
	assert_string_equal(plan.variants[0].cwd, realdir);

	v = &plan.variants[1];
	assert_string_equal(v->name, "fast");
	assert_string_equal(v->cwd, sub);
	assert_int_equal(v->env_len, 3);
	assert_string_equal(v->env[0].key, "A");
	assert_string_equal(v->env[0].value, "2");
	assert_string_equal(v->env[1].key, "B");
	assert_string_equal(v->env[1].value, "two words");
	assert_string_equal(v->env[2].key, "C");
	assert_string_equal(v->env[2].value, "{variant}");
	assert_int_equal(v->command_len, 6);
	assert_string_equal(v->command[0], "run");
	assert_string_equal(v->command[1], "--x");
	assert_string_equal(v->command[2], "--flag");
	assert_string_equal(v->command[3], "single quoted");
	assert_string_equal(v->command[4], "dq {phase}");
	assert_string_equal(v->command[5], "xy zw");
	assert_int_equal(v->assemblies_len, 1);
	assert_string_equal(v->assemblies[0], "*.dll");

	v = &plan.variants[2];
	assert_string_equal(v->name, "slow");
	assert_int_equal(v->env_len, 1);
	assert_string_equal(v->env[0].value, "1");
	assert_int_equal(v->command_len, 2);

	v = &plan.variants[3];
	assert_string_equal(v->name, "plain");
	assert_int_equal(v->command_len, 2);

	v = &plan.variants[4];
	assert_string_equal(v->name, "env-only");
	assert_int_equal(v->env_len, 2);
	assert_string_equal(v->env[1].key, "D");
	assert_string_equal(v->env[1].value, "");

	v = &plan.variants[5];
	assert_string_equal(v->name, "args-only");
	assert_int_equal(v->command_len, 4);
	assert_string_equal(v->command[2], "");
	assert_string_equal(v->command[3], "a|b");

	plan_release(&plan);
	free(abs);
	free(sub);
	free(path);
	free(vpath);
}

/* Building blocks for the broken plans. */
#define HEAD "{'schema':'abev.plan/1','name':'t',"
#define VA "{'name':'a','command':['true']}"
#define VB "{'name':'b','command':['true']}"
#define BASE "'base':{'command':['run']},'variants_file':'vars.txt'"
#define MW "{'name':'wall time','source':'process','field':'wall'}"
#define LONG64 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define LONG129 LONG64 LONG64 "a"

struct broken {
	const char *plan;
	const char *vars;   /* variants file content, or NULL */
	int in_vars;        /* the message names the variants file rather than the plan */
	const char *want[3];
};

static const struct broken broken_plans[] = {
	/* unknown keys, at every level */
	{ HEAD "'variants':[" VA "],'colour':1}", NULL, 0,
	  { ": colour: unknown key (expected one of: schema, name, description, variants, base,"
	    " variants_file, schedule, results, metrics, load, run_as, dotnet_runtime,"
	    " allowed_exit_codes, versions,"
	    " reference, gates, decision, report, limits)" } },
	{ HEAD "'variants':[" VA "],'schedule':{'ordr':'reverse'}}", NULL, 0,
	  { ": schedule.ordr: unknown key, did you mean 'order'? (expected one of: warmups, runs, until, min_rounds, max_rounds, looks, order, seed,"
	    " gap_seconds, timeout_seconds, step_timeout_seconds, kill_grace_seconds, cpus, prepare,"
	    " setup, cleanup)" } },
	{ HEAD "'variants':[" VA ",{'name':'b','command':['x'],'nmae':'c'}]}", NULL, 0,
	  { ": variants[1].nmae: unknown key, did you mean 'name'? (expected one of: name, cwd, command, env, parameters, assemblies, cpus, output, prepare,"
	    " setup, cleanup)" } },
	{ HEAD "'variants':[{'name':'a','command':['true'],'output':'pipes'}]}", NULL, 0,
	  { ": variants[0].output: unknown output 'pipes': log, null, pipe, inherit, or a file path "
	    "with a '/' (\"./out.txt\")" } },
	{ HEAD "'variants':[{'name':'a','command':['true'],'output':'null'}],"
	  "'metrics':[{'name':'n','source':'stderr','unit':'ms','pattern':'([0-9]+)'}]}", NULL, 0,
	  { ": variants[0].output: \"null\" keeps no stderr.log, which metric 'n' reads (source "
	    "\"stderr\"): leave \"output\" out (\"log\") or give a file" } },
	{ HEAD "'variants':[" VA "],'load':{'max_cpu':1}}", NULL, 0,
	  { ": load.max_cpu: unknown key, did you mean 'max_cpu_wait_pct'? (expected one of: max_cpu_wait_pct, max_foreign_cpu, max_repeats, max_wait_seconds, exclusive)" } },
	{ HEAD "'variants':[" VA "],'limits':{'max_log_byte':1}}", NULL, 0,
	  { ": limits.max_log_byte: unknown key, did you mean 'max_log_bytes'? (expected one of: max_files, pattern_cpu_seconds,"
	    " max_log_bytes, max_run_bytes, log_keep_bytes, max_step_log_bytes)" } },
	{ HEAD "'variants':[" VA "],'results':{'file':'x'}}", NULL, 0,
	  { ": results.file: unknown key, did you mean 'files'? (expected one of: files, min_executed, known_failures)" } },
	{ HEAD "'base':{'name':'x','command':['run']},'variants_file':'vars.txt'}", "a\n", 0,
	  { ": base.name: unknown key (expected one of: cwd, command, env, parameters, assemblies, cpus, output, prepare, setup, cleanup)" } },
	{ HEAD "'base':{'command':['run'],'prepare':['x']},'variants_file':'vars.txt'}", "a\n", 0,
	  { ": base.prepare: not allowed in base: schedule.prepare prepares every variant" } },
	{ HEAD "'variants':[" VA "],'schedule':{'runs':2,'runs':3}}", NULL, 0,
	  { ": schedule.runs: key given twice" } },
	/* wrong types */
	{ HEAD "'variants':[" VA "],'schedule':{'runs':'3'}}", NULL, 0,
	  { ": schedule.runs: expected an integer from 1 to 1000000, found a string" } },
	{ HEAD "'variants':[{'name':'a','command':'true'}]}", NULL, 0,
	  { ": variants[0].command: expected a non-empty array of strings, found a string" } },
	{ HEAD "'variants':[{'name':7,'command':['true']}]}", NULL, 0,
	  { ": variants[0].name: expected a non-empty string, found a number" } },
	{ HEAD "'variants':[" VA ", 3]}", NULL, 0,
	  { ": variants[1]: expected an object, found a number" } },
	{ HEAD "'variants':{'a':1}}", NULL, 0,
	  { ": variants: expected a non-empty array of variant objects, found an object" } },
	{ HEAD "'variants':[" VA "],'schedule':[]}", NULL, 0,
	  { ": schedule: expected an object, found an empty array" } },
	{ HEAD "'variants':[{'name':'a','command':['true'],'env':{'X':1}}]}", NULL, 0,
	  { ": variants[0].env.X: expected a string, found a number" } },
	{ HEAD "'variants':[{'name':'a','command':['true'],'env':{'1X':'v'}}]}", NULL, 0,
	  { ": variants[0].env: invalid variable name '1X'" } },
	{ HEAD "'variants':[{'name':'a','command':['true'],'env':{'X':'1','X':'2'}}]}", NULL, 0,
	  { ": variants[0].env: variable 'X' given twice" } },
	{ HEAD "'variants':[{'name':'a','command':['true'],'parameters':{'p':'1','p':'2'}}]}",
	  NULL, 0, { ": variants[0].parameters: parameter 'p' given twice" } },
	{ HEAD "'variants':[{'name':'a','command':['true'],'parameters':{'p':1}}]}", NULL, 0,
	  { ": variants[0].parameters.p: expected a string, found a number" } },
	{ HEAD "'variants':[" VA "],'description':false}", NULL, 0,
	  { ": description: expected a string, found a boolean" } },
	{ "[1]", NULL, 0, { ": expected a JSON object at the top level, found an array" } },
	/* schema and name */
	{ "{'name':'t','variants':[" VA "]}", NULL, 0,
	  { ": schema: missing (expected \"abev.plan/1\")" } },
	{ "{'schema':'abev.plan/2','name':'t','variants':[" VA "]}", NULL, 0,
	  { ": schema: expected \"abev.plan/1\", found \"abev.plan/2\"" } },
	{ "{'schema':'abev.plan/1','variants':[" VA "]}", NULL, 0,
	  { ": name: missing (expected a non-empty string)" } },
	/* variants */
	{ HEAD "'variants':[]}", NULL, 0,
	  { ": variants: expected a non-empty array of variant objects, found an empty array" } },
	{ HEAD "'schedule':{}}", NULL, 0, { ": variants: missing (expected at least one variant)" } },
	{ HEAD "'variants':[" VA "," VB "," VA "]}", NULL, 0,
	  { ": variants[2].name: duplicate variant name 'a' (also variants[0])" } },
	{ HEAD "'variants':[{'name':'.hidden','command':['true']}]}", NULL, 0,
	  { ": variants[0].name: invalid variant name '.hidden'" } },
	{ HEAD "'variants':[{'name':'a b','command':['true']}]}", NULL, 0,
	  { ": variants[0].name: invalid variant name 'a b'" } },
	{ HEAD "'variants':[{'name':'a\\nb','command':['true']}]}", NULL, 0,
	  { ": variants[0].name: invalid variant name 'a\\nb'" } },
	{ HEAD "'variants':[{'name':'" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "',"
	  "'command':['true']}]}", NULL, 0,
	  { ": variants[0].name: invalid variant name 'aaaa", "at most 64 characters" } },
	/* commands */
	{ HEAD "'variants':[{'name':'a'}]}", NULL, 0,
	  { ": variants[0].command: missing (expected a non-empty array of strings)" } },
	{ HEAD "'variants':[" VA ",{'name':'b','command':[]}]}", NULL, 0,
	  { ": variants[1].command: expected a non-empty array of strings, found an empty array" } },
	{ HEAD "'variants':[{'name':'a','command':['x',2]}]}", NULL, 0,
	  { ": variants[0].command[1]: expected a string, found a number" } },
	{ HEAD "'variants':[{'name':'a','command':['','x']}]}", NULL, 0,
	  { ": variants[0].command[0]: expected a program name, found an empty string" } },
	{ HEAD "'variants':[" VA "],'schedule':{'prepare':'make clean'}}", NULL, 0,
	  { ": schedule.prepare: expected a non-empty array of strings, found a string" } },
	{ HEAD "'variants':[{'name':'a','command':['x'],'prepare':['']}]}", NULL, 0,
	  { ": variants[0].prepare[0]: expected a program name, found an empty string" } },
	{ HEAD "'variants':[{'name':'a','command':['x'],'prepare':['{nope}']}]}", NULL, 0,
	  { ": variants[0].prepare[0]: unknown placeholder '{nope}'" } },
	/* placeholders */
	{ HEAD "'variants':[{'name':'a','command':['x','y','{foo}']}]}", NULL, 0,
	  { ": variants[0].command[2]: unknown placeholder '{foo}' (known: {run_dir}, {variant},"
	    " {phase}, {round})" } },
	{ HEAD "'variants':[{'name':'a','command':['x'],'env':{'X':'a}b'}}]}", NULL, 0,
	  { ": variants[0].env.X: unbalanced '}'" } },
	{ HEAD "'variants':[" VA "],'results':{'files':'{run_dir/x'}}", NULL, 0,
	  { ": results.files: unterminated '{'" } },
	{ HEAD "'variants':[{'name':'a','command':['x'],'assemblies':['{Variant}']}]}", NULL, 0,
	  { ": variants[0].assemblies[0]: unknown placeholder '{Variant}'" } },
	/* assemblies are matched before the first run: only {variant} is known then */
	{ HEAD "'variants':[{'name':'a','command':['x'],'assemblies':['{variant}/*','{run_dir}/x']}]}",
	  NULL, 0,
	  { ": variants[0].assemblies[1]: placeholder '{run_dir}' cannot be used here (only {variant}" } },
	{ HEAD "'base':{'command':['x'],'assemblies':['{round}']},'variants_file':'vars.txt'}", "a\n", 0,
	  { ": base.assemblies[0]: placeholder '{round}' cannot be used here" } },
	/* versions */
	{ HEAD "'variants':[" VA "],'versions':['dotnet']}", NULL, 0,
	  { ": versions: expected an object, found an array" } },
	{ HEAD "'variants':[" VA "],'versions':{'sdk':'dotnet --version'}}", NULL, 0,
	  { ": versions.sdk: expected a non-empty array of strings, found a string" } },
	{ HEAD "'variants':[" VA "],'versions':{'sdk':[]}}", NULL, 0,
	  { ": versions.sdk: expected a non-empty array of strings, found an empty array" } },
	{ HEAD "'variants':[" VA "],'versions':{'sdk':['dotnet',2]}}", NULL, 0,
	  { ": versions.sdk[1]: expected a string, found a number" } },
	{ HEAD "'variants':[" VA "],'versions':{'sdk':['','--version']}}", NULL, 0,
	  { ": versions.sdk[0]: expected a program name, found an empty string" } },
	{ HEAD "'variants':[" VA "],'versions':{'':['x']}}", NULL, 0,
	  { ": versions: invalid name '' (use letters, digits, '.', '_' and '-', at most 64"
	    " characters)" } },
	{ HEAD "'variants':[" VA "],'versions':{'a b':['x']}}", NULL, 0,
	  { ": versions: invalid name 'a b'" } },
	{ HEAD "'variants':[" VA "],'versions':{'" LONG64 "a':['x']}}", NULL, 0,
	  { ": versions: invalid name '" } },
	{ HEAD "'variants':[" VA "],'versions':{'sdk':['a'],'x':['b'],'sdk':['c']}}", NULL, 0,
	  { ": versions.sdk: key given twice" } },
	{ HEAD "'variants':[" VA "],'versions':{"
	  "'a0':['x'],'a1':['x'],'a2':['x'],'a3':['x'],'a4':['x'],'a5':['x'],'a6':['x'],'a7':['x'],"
	  "'b0':['x'],'b1':['x'],'b2':['x'],'b3':['x'],'b4':['x'],'b5':['x'],'b6':['x'],'b7':['x'],"
	  "'c0':['x'],'c1':['x'],'c2':['x'],'c3':['x'],'c4':['x'],'c5':['x'],'c6':['x'],'c7':['x'],"
	  "'d0':['x'],'d1':['x'],'d2':['x'],'d3':['x'],'d4':['x'],'d5':['x'],'d6':['x'],'d7':['x'],"
	  "'e0':['x']}}", NULL, 0,
	  { ": versions: more than 32 commands" } },
	/* numbers */
	{ HEAD "'variants':[" VA "],'schedule':{'runs':0}}", NULL, 0,
	  { ": schedule.runs: expected an integer from 1 to 1000000, found 0" } },
	{ HEAD "'variants':[" VA "],'schedule':{'runs':1.5}}", NULL, 0,
	  { ": schedule.runs: expected an integer from 1 to 1000000, found 1.5" } },
	{ HEAD "'variants':[" VA "],'schedule':{'warmups':-1}}", NULL, 0,
	  { ": schedule.warmups: expected an integer from 0 to 1000000, found -1" } },
	{ HEAD "'variants':[" VA "],'schedule':{'seed':-1}}", NULL, 0,
	  { ": schedule.seed: expected an integer >= 0, found -1" } },
	{ HEAD "'variants':[" VA "],'schedule':{'seed':1e300}}", NULL, 0,
	  { ": schedule.seed: expected an integer >= 0, found 1e+300" } },
	{ HEAD "'variants':[" VA "],'schedule':{'gap_seconds':-1}}", NULL, 0,
	  { ": schedule.gap_seconds: expected a number >= 0", "found -1" } },
	{ HEAD "'variants':[" VA "],'schedule':{'timeout_seconds':0}}", NULL, 0,
	  { ": schedule.timeout_seconds: expected a number > 0", "found 0" } },
	{ HEAD "'variants':[" VA "],'schedule':{'timeout_seconds':-2}}", NULL, 0,
	  { ": schedule.timeout_seconds: expected a number > 0", "found -2" } },
	{ HEAD "'variants':[" VA "],'schedule':{'step_timeout_seconds':0}}", NULL, 0,
	  { ": schedule.step_timeout_seconds: expected a number > 0", "found 0" } },
	{ HEAD "'variants':[" VA "],'schedule':{'step_timeout_seconds':604801}}", NULL, 0,
	  { ": schedule.step_timeout_seconds: expected a number > 0", "found 604801" } },
	{ HEAD "'variants':[" VA "],'schedule':{'step_timeout_seconds':'60'}}", NULL, 0,
	  { ": schedule.step_timeout_seconds: expected a number" } },
	{ HEAD "'variants':[" VA "],'schedule':{'gap_seconds':1e999}}", NULL, 0,
	  { ": schedule.gap_seconds: expected a number >= 0", "found inf" } },
	{ HEAD "'variants':[" VA "],'schedule':{'order':'random'}}", NULL, 0,
	  { ": schedule.order: unknown order 'random' (expected one of: balanced, alternate, reverse, "
	    "shuffle, sequential)" } },
	/* Setups that differ in one cwd: an order that alternates would run both on the last one's. */
	{ HEAD "'variants':[{'name':'a','command':['true'],'setup':['sh','-c','echo 1 > p']},"
	  "{'name':'b','command':['true'],'setup':['sh','-c','echo 2 > p']}],"
	  "'schedule':{'order':'alternate'}}", NULL, 0,
	  { ": schedule.order: order \"alternate\" would run every variant on the products of the "
	    "last setup: the setups of 'a' and 'b' differ and both run in '", "distinct cwds",
	    "\"sequential\"" } },
	{ HEAD "'variants':[{'name':'a','command':['true']},{'name':'b','command':['true']}],"
	  "'schedule':{'setup':['make','{variant}'],'until':'decided','max_rounds':20},"
	  "'gates':{'wall':{'max_regression_pct':5}}}", NULL, 0,
	  { ": schedule.until: \"decided\" needs the variants to alternate, but the setups of 'a' "
	    "and 'b' differ" } },
	{ HEAD "'variants':[" VA "],'schedule':{'order':'sequential','until':'decided',"
	  "'max_rounds':20},'gates':{'wall':{'max_regression_pct':5}}}", NULL, 0,
	  { ": schedule.order: \"sequential\" runs every round of one variant" } },
	{ HEAD "'variants':[" VA "],'load':{'max_foreign_cpu':-0.5}}", NULL, 0,
	  { ": load.max_foreign_cpu: expected a number >= 0" } },
	{ HEAD "'variants':[" VA "],'load':{'max_cpu_wait_pct':100.5}}", NULL, 0,
	  { ": load.max_cpu_wait_pct: expected a number", "100" } },
	{ HEAD "'variants':[" VA "],'load':{'max_cpu_wait_pct':'10'}}", NULL, 0,
	  { ": load.max_cpu_wait_pct: expected a number" } },
	{ HEAD "'variants':[" VA "],'schedule':{'cpus':'0-'}}", NULL, 0,
	  { ": schedule.cpus: '0-' is not a CPU list" } },
	{ HEAD "'variants':[" VA "],'schedule':{'cpus':3}}", NULL, 0,
	  { ": schedule.cpus: expected a non-empty string" } },
	{ HEAD "'variants':[{'name':'a','command':['true'],'cpus':'3-1'}]}", NULL, 0,
	  { ": variants[0].cpus: '3-1': the range 3-1 runs backwards" } },
	{ HEAD "'variants':[{'name':'a','command':['true'],'cpus':'1024'}]}", NULL, 0,
	  { ": variants[0].cpus: '1024': CPUs are numbered below 1024" } },
	{ HEAD "'variants':[" VA "],'load':{'max_repeats':2.5}}", NULL, 0,
	  { ": load.max_repeats: expected an integer from 0 to 1000, found 2.5" } },
	{ HEAD "'variants':[" VA "],'limits':[]}", NULL, 0, { ": limits: expected an object" } },
	{ HEAD "'variants':[" VA "],'limits':{'max_files':0}}", NULL, 0,
	  { ": limits.max_files: expected an integer from 1 to 100000, found 0" } },
	{ HEAD "'variants':[" VA "],'limits':{'max_files':100001}}", NULL, 0,
	  { ": limits.max_files: expected an integer from 1 to 100000, found 100001" } },
	{ HEAD "'variants':[" VA "],'limits':{'max_log_bytes':-1}}", NULL, 0,
	  { ": limits.max_log_bytes: expected an integer >= 0, found -1" } },
	{ HEAD "'variants':[" VA "],'limits':{'max_log_bytes':1.5}}", NULL, 0,
	  { ": limits.max_log_bytes: expected an integer >= 0, found 1.5" } },
	{ HEAD "'variants':[" VA "],'limits':{'max_run_bytes':-1}}", NULL, 0,
	  { ": limits.max_run_bytes: expected an integer >= 0, found -1" } },
	{ HEAD "'variants':[" VA "],'limits':{'log_keep_bytes':67108865}}", NULL, 0,
	  { ": limits.log_keep_bytes: expected an integer from 0 to 67108864, found 67108865" } },
	/* Issue 30 §6: rounds that can never decide are refused with the minimum. */
	{ HEAD "'variants':[" VA "," VB "],'schedule':{'until':'decided','max_rounds':3},"
	  "'gates':{'wall':{'max_regression_pct':5}}}", NULL, 0,
	  { ": schedule.max_rounds: 3 rounds can never decide a change gate at 95 % a look "
	    "(1 look): give at least 4" } },
	/*
	 * Issue 39 §2: so are fixed runs, by the same rule: a change gate's
	 * unpaired interval needs 4 at 95 %, a budget's median interval 6 —
	 * at each gate judgement's share of the confidence, as the comparison
	 * takes it (§3, Bonferroni): two judgements are at 97.5 % each, three
	 * at 98.33 %.
	 */
	{ HEAD "'variants':[" VA "," VB "],'schedule':{'runs':3},"
	  "'gates':{'wall':{'max_regression_pct':5}}}", NULL, 0,
	  { ": schedule.runs: 3 rounds can never decide a change gate at 95 %: give at least 4, "
	    "or leave out runs (abev bench: -r) to run until every gate is decided, at most 32 "
	    "rounds" } },
	{ HEAD "'variants':[" VA "," VB "],'schedule':{'runs':5},"
	  "'gates':{'wall':{'max_regression_pct':5,'budget':100}}}", NULL, 0,
	  { ": schedule.runs: 5 rounds can never decide a budget gate at 97.5 %: give at least 7" } },
	{ HEAD "'variants':[" VA "," VB "],'schedule':{'runs':4},"
	  "'gates':{'wall':{'max_regression_pct':5},'cpu':{'max_regression_pct':5},"
	  "'max_rss':{'max_regression_pct':5}}}", NULL, 0,
	  { ": schedule.runs: 4 rounds can never decide a change gate at 98.33 %: give at least "
	    "5" } },
	{ HEAD "'variants':[" VA "," VB "],'schedule':{'runs':6},"
	  "'gates':{'wall':{'max_regression_pct':5}},'decision':{'confidence':0.999}}", NULL, 0,
	  { ": schedule.runs: 6 rounds can never decide a change gate at 99.9 %: give at least 7" } },
	{ HEAD "'variants':[" VA "," VB "],'schedule':{'until':'decided','max_rounds':5},"
	  "'gates':{'wall':{'budget':100}}}", NULL, 0,
	  { ": schedule.max_rounds: 5 rounds can never decide a budget gate at 95 % a look "
	    "(1 look): give at least 6" } },
	{ HEAD "'variants':[" VA "],'limits':{'max_files':'10'}}", NULL, 0,
	  { ": limits.max_files: expected an integer from 1 to 100000, found a string" } },
	{ HEAD "'variants':[" VA "],'limits':{'pattern_cpu_seconds':0}}", NULL, 0,
	  { ": limits.pattern_cpu_seconds: expected a number > 0 and <= 3600, found 0" } },
	{ HEAD "'variants':[" VA "],'limits':{'pattern_cpu_seconds':7200}}", NULL, 0,
	  { ": limits.pattern_cpu_seconds: expected a number > 0 and <= 3600, found 7200" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','unit':'ms','source':'stdout',"
	  "'pattern':'(a+)\\\\1=([0-9]+)'}]}", NULL, 0,
	  { ": metrics[0].pattern: '(a+)\\\\1=([0-9]+)': back-references (\\1 to \\9) are not allowed" } },
	/* checked before regcomp(), which took gigabytes for it (found by the plan fuzzer) */
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','unit':'ms','source':'stdout',"
	  "'pattern':'b+++++++++++++++++++++++++++++++++++++++++++++++uild=([0-9]+)'}]}", NULL, 0,
	  { ": metrics[0].pattern: 'b+++", "its repetitions multiply to more than 20000 copies" } },
	{ HEAD "'variants':[" VA "],'results':{'min_executed':-3}}", NULL, 0,
	  { ": results.min_executed: expected an integer >= 0, found -3" } },
	{ HEAD "'variants':[" VA "," VB "],'schedule':{'runs':1000000}}", NULL, 0,
	  { ": schedule: (warmups + runs) x 2 variants is more than 1000000 invocations" } },
	/* results.min_executed */
	{ HEAD "'variants':[" VA "],'results':{'min_executed':2}}", NULL, 0,
	  { ": results.min_executed: only used with \"files\"" } },
	/* results.known_failures */
	{ HEAD "'variants':[" VA "],'results':{'known_failures':['A.*']}}", NULL, 0,
	  { ": results.known_failures: only used with \"files\"" } },
	{ HEAD "'variants':[" VA "],'results':{'files':'x','known_failures':'A.*'}}", NULL, 0,
	  { ": results.known_failures: expected an array of test-name patterns", "found a string" } },
	{ HEAD "'variants':[" VA "],'results':{'files':'x','known_failures':['A.*','']}}", NULL, 0,
	  { ": results.known_failures[1]: expected test-name patterns", "found other text" } },
	{ HEAD "'variants':[" VA "],'results':{'files':'x','known_failures':['A.*',3]}}", NULL, 0,
	  { ": results.known_failures[1]: expected test-name patterns", "found a number" } },
	/* metrics: the array */
	{ HEAD "'variants':[" VA "],'metrics':{'name':'x'}}", NULL, 0,
	  { ": metrics: expected an array of metric objects, found an object" } },
	{ HEAD "'variants':[" VA "],'metrics':[" MW ",2]}", NULL, 0,
	  { ": metrics[1]: expected an object, found a number" } },
	/* metrics: keys */
	{ HEAD "'variants':[" VA "],'metrics':[" MW ",{'name':'x','source':'process','field':'wall',"
	  "'colour':1}]}", NULL, 0,
	  { ": metrics[1].colour: unknown key (expected one of: name, unit, better, source, field,"
	    " process, test, pattern, match, derive, max_regression_pct, max_improvement_pct,"
	    " budget)" } },
	/* metrics: process, with max_rss or cpu of a process metric only */
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'process':'testhost*'}]}", NULL, 0,
	  { ": metrics[0].process: a process has its own max_rss and cpu only, not wall" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'duration','test':'t*',"
	  "'process':'testhost*'}]}", NULL, 0,
	  { ": metrics[0].process: only process and dotnet metrics name a process" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'field':'cpu'}]}", NULL, 0, { ": metrics[0].field: key given twice" } },
	/* metrics: name */
	{ HEAD "'variants':[" VA "],'metrics':[{'source':'process','field':'wall'}]}", NULL, 0,
	  { ": metrics[0].name: missing (expected a non-empty string)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'','source':'process','field':'wall'}]}",
	  NULL, 0, { ": metrics[0].name: expected a non-empty string, found an empty string" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':3,'source':'process','field':'wall'}]}",
	  NULL, 0, { ": metrics[0].name: expected a non-empty string, found a number" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'" LONG129 "','source':'process',"
	  "'field':'wall'}]}", NULL, 0, { ": metrics[0].name: longer than 128 characters" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'a\\tb','source':'process','field':'wall'}]}",
	  NULL, 0, { ": metrics[0].name: U+0009 (a control character) in 'a\\tb'" } },
	{ "{'schema':'abev.plan/1','name':'x\\u001b[2J','variants':[" VA "]}", NULL, 0,
	  { ": name: U+001B (a control character) in 'x\\x1b[2J'" } },
	{ HEAD "'variants':[" VA "],'metrics':[" MW ",{'name':'other','source':'process',"
	  "'field':'cpu'}," MW "]}", NULL, 0,
	  { ": metrics[2].name: duplicate metric name 'wall time' (also metrics[0])" } },
	/* reference, gates, decision */
	{ HEAD "'variants':[" VA "," VB "],'reference':'c'}", NULL, 0,
	  { ": reference: no variant is called 'c' (the variants: a, b)" } },
	{ HEAD "'variants':[" VA "],'reference':''}", NULL, 0,
	  { ": reference: expected a non-empty string, found an empty string" } },
	{ HEAD "'variants':[" VA "],'gates':{'wal':{'max_regression_pct':5}}}", NULL, 0,
	  { ": gates.wal: no metric is called 'wal', did you mean 'wall'? (expected one of: wall, cpu, max_rss, wall_own)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'t','source':'stdout','unit':'ms',"
	  "'pattern':'t=([0-9]+)','derive':'rate'}],'gates':{'x':{'budget':1}}}", NULL, 0,
	  { ": gates.x: no metric is called 'x' (expected one of: wall, cpu, max_rss, wall_own, t, t (rate))" } },
	{ HEAD "'variants':[" VA "],'gates':{'wall':5}}", NULL, 0,
	  { ": gates.wall: expected an object of limits, found a number" } },
	{ HEAD "'variants':[" VA "],'gates':{'wall':{}}}", NULL, 0,
	  { ": gates.wall: empty: give max_regression_pct, max_improvement_pct or budget" } },
	{ HEAD "'variants':[" VA "],'gates':{'wall':{'max_regresion_pct':5}}}", NULL, 0,
	  { ": gates.wall.max_regresion_pct: unknown key, did you mean 'max_regression_pct'? (expected one of: max_regression_pct,"
	    " max_improvement_pct, budget)" } },
	{ HEAD "'variants':[" VA "],'gates':{'cpu':{'max_regression_pct':-1}}}", NULL, 0,
	  { ": gates.cpu.max_regression_pct: expected a number >= 0 and <= 1e+06, found -1" } },
	{ HEAD "'variants':[" VA "],'gates':{'cpu':{'budget':'1s'}}}", NULL, 0,
	  { ": gates.cpu.budget: expected a number >= -1e+300 and <= 1e+300, found a string" } },
	{ HEAD "'variants':[" VA "],'metrics':[" MW "],'gates':[]}", NULL, 0,
	  { ": gates: expected an object, found an empty array" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'w','source':'process','field':'wall',"
	  "'max_improvement_pct':3}],'gates':{'w':{'max_improvement_pct':4}}}", NULL, 0,
	  { ": gates.w.max_improvement_pct: the metric's own definition already sets "
	    "max_improvement_pct; give it in one place" } },
	{ HEAD "'variants':[" VA "],'gates':{'wall':{'budget':1},'wall':{'budget':2}}}", NULL, 0,
	  { ": gates.wall: key given twice" } },
	{ HEAD "'variants':[" VA "],'decision':{'inconclusive':'maybe'}}", NULL, 0,
	  { ": decision.inconclusive: expected \"pass\" (exit 0) or \"fail\" (exit 6), found "
	    "'maybe'" } },
	{ HEAD "'variants':[" VA "],'decision':{'acceptance':'yes'}}", NULL, 0,
	  { ": decision.acceptance: expected true or false, found a string" } },
	{ HEAD "'variants':[" VA "],'decision':{'confidence':1}}", NULL, 0,
	  { ": decision.confidence: expected a number >= 0.5 and <= 0.999, found 1" } },
	{ HEAD "'variants':[" VA "],'decision':{'bootstrap_resamples':10}}", NULL, 0,
	  { ": decision.bootstrap_resamples: expected an integer from 100 to 1000000, found 10" } },
	{ HEAD "'variants':[" VA "],'decision':{'alpha':0.1}}", NULL, 0,
	  { ": decision.alpha: unknown key (expected one of: acceptance, inconclusive, confidence,"
	    " bootstrap_resamples)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'wall','source':'process','field':'wall'}]}",
	  NULL, 0, { ": metrics[0].name: 'wall' is the name of a built-in metric (wall, cpu, "
		     "max_rss, wall_own); gate it in \"gates\" or choose another name" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'w','source':'process','field':'wall',"
	  "'derive':'rate'},{'name':'w (rate)','source':'process','field':'cpu'}]}", NULL, 0,
	  { ": metrics[1].name: 'w (rate)' is also the name of the rate metrics[0] derives" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'w (rate)','source':'process','field':'cpu'},"
	  "{'name':'w','source':'process','field':'wall','derive':'rate'}]}", NULL, 0,
	  { ": metrics[0].name: 'w (rate)' is also the name of the rate metrics[1] derives" } },
	/* metrics: source and what each source needs or refuses */
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','field':'wall'}]}", NULL, 0,
	  { ": metrics[0].source: missing (expected a non-empty string)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdin'}]}", NULL, 0,
	  { ": metrics[0].source: unknown source 'stdin' (expected one of: process, stdout,"
	    " stderr, results, duration, dotnet)" } },
	/* dotnet: a runtime figure, only with the hook on, a process glob only here */
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'dotnet',"
	  "'field':'gc_gen0'}]}", NULL, 0,
	  { ": metrics[0].source: source dotnet needs \"dotnet_runtime\": true" } },
	{ HEAD "'dotnet_runtime':true,'variants':[" VA "],'metrics':[{'name':'x',"
	  "'source':'dotnet','field':'max_rss'}]}", NULL, 0,
	  { ": metrics[0].field: unknown field 'max_rss' (expected one of: gc_gen0, gc_gen1" } },
	{ HEAD "'dotnet_runtime':true,'variants':[" VA "],'metrics':[{'name':'x',"
	  "'source':'dotnet','field':'gc_gen0','match':'sum'}]}", NULL, 0,
	  { ": metrics[0].match: not used with source dotnet (a runtime figure is summed" } },
	{ HEAD "'dotnet_runtime':true,'variants':[" VA "],'metrics':[{'name':'x',"
	  "'source':'dotnet','field':'gc_gen0','unit':'n'}]}", NULL, 0,
	  { ": metrics[0].unit: not used with source dotnet (the field implies it)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdout','unit':'ms',"
	  "'pattern':'t=([0-9]+)','process':'testhost*'}]}", NULL, 0,
	  { ": metrics[0].process: only process and dotnet metrics name a process" } },
	{ HEAD "'dotnet_runtime':1,'variants':[" VA "]}", NULL, 0,
	  { ": dotnet_runtime: expected true or false" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process'}]}", NULL, 0,
	  { ": metrics[0].field: missing (source process needs a field: one of wall, user, sys,"
	    " cpu, max_rss, minflt, majflt, nvcsw, nivcsw)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'rss'}]}",
	  NULL, 0, { ": metrics[0].field: unknown field 'rss' (expected one of: wall, user" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':5}]}",
	  NULL, 0, { ": metrics[0].field: expected a non-empty string, found a number" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'unit':'s'}]}", NULL, 0,
	  { ": metrics[0].unit: not used with source process (the field implies it)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'pattern':'([0-9]+)'}]}", NULL, 0,
	  { ": metrics[0].pattern: not used with source process (only stdout, stderr and results"
	    " metrics have a pattern)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'test':'*'}]}", NULL, 0,
	  { ": metrics[0].test: not used with source process (only results and duration metrics"
	    " name tests)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'match':'sum'}]}", NULL, 0,
	  { ": metrics[0].match: not used with source process (a process figure has one value)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdout','unit':'ms'}]}", NULL, 0,
	  { ": metrics[0].pattern: missing (source stdout needs a pattern: an extended regular"
	    " expression whose first group captures the number)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stderr','pattern':'([0-9]+)'}]}",
	  NULL, 0, { ": metrics[0].unit: missing (source stderr needs a unit, e.g. \"ms\" or"
		     " \"ops/s\")" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdout','unit':'ms',"
	  "'pattern':'([0-9]+)','field':'wall'}]}", NULL, 0,
	  { ": metrics[0].field: not used with source stdout (only process and dotnet metrics have"
	    " a field)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdout','unit':'ms',"
	  "'pattern':'([0-9]+)','test':'*'}]}", NULL, 0,
	  { ": metrics[0].test: not used with source stdout" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'results','unit':'ms',"
	  "'pattern':'([0-9]+)'}]}", NULL, 0,
	  { ": metrics[0].test: missing (source results needs a test: a glob over test names,"
	    " e.g. '*Rebuild*')" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'results','unit':'ms',"
	  "'pattern':'([0-9]+)','test':''}]}", NULL, 0,
	  { ": metrics[0].test: expected a non-empty string, found an empty string" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'duration'}]}", NULL, 0,
	  { ": metrics[0].test: missing (source duration needs a test" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'duration','test':'*',"
	  "'unit':'s'}]}", NULL, 0,
	  { ": metrics[0].unit: not used with source duration (durations are in ms)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'duration','test':'*',"
	  "'pattern':'([0-9]+)'}]}", NULL, 0, { ": metrics[0].pattern: not used with source duration" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdout','pattern':'([0-9]+)',"
	  "'unit':''}]}", NULL, 0,
	  { ": metrics[0].unit: expected a non-empty string, found an empty string" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdout','pattern':'([0-9]+)',"
	  "'unit':'m\\ns'}]}", NULL, 0, { ": metrics[0].unit: U+000A (a control character) in 'm\\ns'" } },
	/* metrics: patterns */
	{ HEAD "'variants':[" VA "],'metrics':[" MW ",{'name':'x','source':'stdout','unit':'ms',"
	  "'pattern':'BENCH ([0-9]+'}]}", NULL, 0,
	  { ": metrics[1].pattern: invalid regular expression 'BENCH ([0-9]+': " } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'results','unit':'ms',"
	  "'test':'*','pattern':'a{2,1}([0-9])'}]}", NULL, 0,
	  { ": metrics[0].pattern: invalid regular expression 'a{2,1}([0-9])': " } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdout','unit':'ms',"
	  "'pattern':'took [0-9]+ ms'}]}", NULL, 0,
	  { ": metrics[0].pattern: 'took [0-9]+ ms' has no capture group (put the number in"
	    " parentheses, e.g. 'time=([0-9.]+)')" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdout','unit':'ms',"
	  "'pattern':''}]}", NULL, 0,
	  { ": metrics[0].pattern: expected a non-empty string, found an empty string" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'stdout','unit':'ms',"
	  "'pattern':['([0-9]+)']}]}", NULL, 0,
	  { ": metrics[0].pattern: expected a non-empty string, found an array" } },
	/* metrics: better, match, derive, max_regression_pct */
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'better':'less'}]}", NULL, 0,
	  { ": metrics[0].better: expected \"lower\" or \"higher\", found 'less'" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'better':true}]}", NULL, 0, { ": metrics[0].better: expected a string, found a boolean" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'duration','test':'*',"
	  "'match':'max'}]}", NULL, 0,
	  { ": metrics[0].match: unknown match 'max' (expected one of: first, last, sum, mean)" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'derive':'ratio'}]}", NULL, 0,
	  { ": metrics[0].derive: expected \"rate\", found 'ratio'" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'max_regression_pct':-1}]}", NULL, 0,
	  { ": metrics[0].max_regression_pct: expected a number >= 0", "found -1" } },
	{ HEAD "'variants':[" VA "],'metrics':[{'name':'x','source':'process','field':'wall',"
	  "'max_regression_pct':'5'}]}", NULL, 0,
	  { ": metrics[0].max_regression_pct: expected a number >= 0", "found a string" } },
	/* allowed_exit_codes */
	{ HEAD "'variants':[" VA "],'allowed_exit_codes':[]}", NULL, 0,
	  { ": allowed_exit_codes: expected a non-empty array of integers from 0 to 255, found an"
	    " empty array" } },
	{ HEAD "'variants':[" VA "],'allowed_exit_codes':1}", NULL, 0,
	  { ": allowed_exit_codes: expected a non-empty array of integers from 0 to 255, found a"
	    " number" } },
	{ HEAD "'variants':[" VA "],'allowed_exit_codes':[0,256]}", NULL, 0,
	  { ": allowed_exit_codes[1]: expected an integer from 0 to 255, found 256" } },
	{ HEAD "'variants':[" VA "],'allowed_exit_codes':[-1]}", NULL, 0,
	  { ": allowed_exit_codes[0]: expected an integer from 0 to 255, found -1" } },
	{ HEAD "'variants':[" VA "],'allowed_exit_codes':[1.5]}", NULL, 0,
	  { ": allowed_exit_codes[0]: expected an integer from 0 to 255, found 1.5" } },
	{ HEAD "'variants':[" VA "],'allowed_exit_codes':['1']}", NULL, 0,
	  { ": allowed_exit_codes[0]: expected an integer from 0 to 255, found a string" } },
	{ HEAD "'variants':[" VA "],'allowed_exit_codes':[0,3,1,3]}", NULL, 0,
	  { ": allowed_exit_codes[3]: exit code 3 given twice (also allowed_exit_codes[1])" } },
	/* base and variants_file */
	{ HEAD "'variants':[" VA "],'variants_file':'vars.txt'}", "a\n", 0,
	  { ": variants_file: needs \"base\"" } },
	{ HEAD "'variants':[" VA "],'base':{'command':['x']}}", NULL, 0,
	  { ": base: only used with \"variants_file\"" } },
	{ HEAD BASE "}", "# only a comment\n", 0,
	  { ": variants_file: '", "vars.txt' defines no variant" } },
	{ HEAD "'base':{'command':['run']},'variants_file':'missing.txt'}", NULL, 0,
	  { ": variants_file: cannot read '", "missing.txt': No such file or directory" } },
	{ HEAD "'base':{'env':{}},'variants_file':'vars.txt'}", "a\n", 0,
	  { ": base.command: missing (expected a non-empty array of strings)" } },
	{ HEAD BASE "}", "ok\n# comment\n|A=1|--x\n", 1,
	  { "vars.txt:3: missing variant name (expected 'name|ENV=V ...|extra args')" } },
	{ HEAD BASE "}", "ok\n  |\n", 1, { "vars.txt:2: missing variant name" } },
	{ HEAD BASE "}", "a\nb|FOO|\n", 1, { "vars.txt:2: 'FOO' is not an ENV=VALUE assignment" } },
	{ HEAD BASE "}", "a|1A=x\n", 1, { "vars.txt:1: '1A=x' is not an ENV=VALUE assignment" } },
	{ HEAD BASE "}", "a|X=\"open|--y\n", 1, { "vars.txt:1: unterminated \" quote" } },
	{ HEAD BASE "}", "a||--y 'open\n", 1, { "vars.txt:1: unterminated ' quote" } },
	{ HEAD BASE "}", "a||{nope}\n", 1, { "vars.txt:1: argument '{nope}': unknown placeholder '{nope}'" } },
	{ HEAD BASE "}", "a|X={x}|\n", 1, { "vars.txt:1: 'X={x}': unknown placeholder '{x}'" } },
	/* a secret is not repeated in a refusal either (nor anywhere else: envname.h) */
	{ HEAD BASE "}", "a|API_TOKEN=s3cret{x}|\n", 1,
	  { "vars.txt:1: 'API_TOKEN=\xe2\x80\xa6': an unknown placeholder, not shown since the "
	    "value looks secret" } },
	{ HEAD BASE "}", "a|1DB=Password=s3cret|\n", 1,
	  { "vars.txt:1: '1DB=\xe2\x80\xa6' is not an ENV=VALUE assignment" } },
	{ HEAD BASE "}", "a b|X=1\n", 1, { "vars.txt:1: invalid variant name 'a b'" } },
	{ HEAD "'variants':[" VA "]," BASE "}", "b\r\na\r\n", 1,
	  { "vars.txt:2: duplicate variant name 'a' (also variants[0])" } },
	{ HEAD BASE "}", "b\n\nb\n", 1,
	  { "vars.txt:3: duplicate variant name 'b' (also ", "vars.txt:1)" } },
	{ HEAD BASE "}", "a|||extra\n", 1,
	  { "vars.txt:1: a fourth field '|extra' (expected at most three fields, 'name|ENV=V ...|extra args'" } },
	{ HEAD BASE "}", "a|X=1|--y '|' z|w\n", 1, { "vars.txt:1: a fourth field '|w'" } },
	{ HEAD BASE "}", "a|X=1 Y=2 X=3|\n", 1, { "vars.txt:1: variable 'X' given twice" } },
	{ HEAD BASE "}", "a|X=1|\nb|X=\xff|\n", 1,
	  { "vars.txt:2: byte 0xff at column 5 is not UTF-8 (expected UTF-8 text)" } },
	{ HEAD BASE "}", "# caf\xc3\n", 1, { "vars.txt:1: byte 0xc3 at column 6 is not UTF-8" } },
	/* a byte order mark is skipped only at the start of the file */
	{ HEAD BASE "}", "a\n\xef\xbb\xbf" "b\n", 1, { "vars.txt:2: invalid variant name '\\xef\\xbb\\xbfb'" } },
};

static void test_broken_plans(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(broken_plans); i++) {
		const struct broken *c = &broken_plans[i];
		struct plan plan = PLAN_INIT;
		char *path = write_json("broken.json", c->plan);
		char *vars = c->vars ? write_raw("vars.txt", c->vars, strlen(c->vars)) : NULL;
		char *named = c->in_vars ? path_join(tmpdir, "vars.txt") : xstrdup(path);
		int ok;

		reset_errors();
		ok = plan_load(&plan, path) == -1 && nerrors == 1 &&
		     !strncmp(last_error, named, strlen(named)) && !strchr(last_error, '\n');
		for (size_t k = 0; k < ARRAY_SIZE(c->want) && c->want[k]; k++)
			ok = ok && strstr(last_error, c->want[k]);
		if (!ok)
			fail_msg("case %zu: %s\n  got %d message(s): %s\n  want: %s", i, c->plan,
				 nerrors, last_error, c->want[0]);
		/* A failed load leaves nothing behind. */
		assert_null(plan.path);
		assert_null(plan.variants);
		assert_null(plan.raw);
		if (vars) {
			unlink(vars);
			free(vars);
		}
		unlink(path);
		free(named);
		free(path);
	}
}

/* Gates from a metric's own keys and from "gates", the reference and the decision. */
/* schedule.until "decided": the default looks and each look's confidence. */
static void test_until_decided(void **state)
{
	static const struct {
		const char *schedule;
		unsigned looks[8];
		size_t nlooks;
		unsigned min_rounds;
	} cases[] = {
		/* 6 rounds reach 95 %; 6, 9, 14, 21, 32 would be 5 looks at 99 %, which
		 * needs 8: from 8, 8 12 18 27 32 */
		{ "'until':'decided','max_rounds':32", { 8, 12, 18, 27, 32 }, 5, 8 },
		{ "'until':'decided','max_rounds':16", { 8, 12, 16 }, 3, 8 },
		{ "'until':'decided','max_rounds':10", { 7, 10 }, 2, 7 },
		/* fewer rounds than any look needs: the one look at max_rounds */
		{ "'until':'decided','max_rounds':4", { 4 }, 1, 4 },
		{ "'until':'decided','min_rounds':10,'max_rounds':20", { 10, 15, 20 }, 3, 10 },
		{ "'until':'decided','min_rounds':4,'max_rounds':12,'looks':[4,8]", { 4, 8, 12 }, 3, 4 },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = PLAN_INIT;
		char *text = xasprintf(HEAD "'variants':[" VA "," VB "],'schedule':{%s},"
				       "'gates':{'wall':{'max_regression_pct':5}}}", cases[i].schedule);
		char *path = write_json("until.json", text);

		reset_errors();
		if (plan_load(&plan, path) != 0)
			fail_msg("case %zu: refused", i);
		assert_int_equal(plan.until_decided, 1);
		if (plan.nlooks != cases[i].nlooks)
			fail_msg("case %zu: %zu looks", i, plan.nlooks);
		for (size_t k = 0; k < plan.nlooks; k++)
			assert_int_equal(plan.looks[k], cases[i].looks[k]);
		assert_int_equal(plan.min_rounds, cases[i].min_rounds);
		assert_int_equal(plan.set.runs, plan.max_rounds);
		assert_true(fabs(plan.look_confidence - (1 - 0.05 / (double)plan.nlooks)) < 1e-12);
		/* Every default look but the last can reach the per-look confidence. */
		if (i < 4 && plan.nlooks > 1)
			assert_true(plan.looks[0] >=
				    stats_wsr_interval_n_needed(plan.look_confidence));
		assert_string_equal(plan.set.runs_from, "plan");
		plan_release(&plan);
		free(text);
		free(path);
	}
}

/*
 * Issue 39 §2: a plan with a gate and no runs runs until decided, at
 * most PLAN_DECIDED_MAX_ROUNDS rounds with the default looks, and says
 * so (set.runs_from); one without a gate runs the default 3 rounds; one
 * with runs runs them.
 */
static void test_gated_plan_decides(void **state)
{
	static const struct {
		const char *rest;
		int until_decided;
		unsigned runs;
		const char *from;
	} cases[] = {
		{ "'gates':{'wall':{'max_regression_pct':5}}", 1, PLAN_DECIDED_MAX_ROUNDS, "gates" },
		{ "'gates':{'wall':{'budget':10}}", 1, PLAN_DECIDED_MAX_ROUNDS, "gates" },
		{ "'schedule':{'warmups':1},'gates':{'wall':{'max_regression_pct':5}}", 1,
		  PLAN_DECIDED_MAX_ROUNDS, "gates" },
		{ "'schedule':{'runs':4},'gates':{'wall':{'max_regression_pct':5}}", 0, 4, "plan" },
		{ "'schedule':{'warmups':1}", 0, 3, "default" },
		{ "'schedule':{'runs':2}", 0, 2, "plan" },
		/* a lone variant: its gates compare nothing, so neither rule applies */
		{ "'schedule':{'runs':1},'gates':{'wall':{'max_regression_pct':5}}", 0, 1, "plan" },
		{ "'gates':{'wall':{'max_regression_pct':5}}", 0, 3, "default" },
	};
	static const unsigned looks[] = { 8, 12, 18, 27, 32 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = PLAN_INIT;
		char *text = xasprintf(HEAD "'variants':[" VA "%s],%s}", i < 6 ? "," VB : "",
				       cases[i].rest);
		char *path = write_json("gated.json", text);

		reset_errors();
		if (plan_load(&plan, path) != 0)
			fail_msg("case %zu: refused", i);
		assert_int_equal(plan.until_decided, cases[i].until_decided);
		assert_int_equal(plan.set.runs, cases[i].runs);
		assert_string_equal(plan.set.runs_from, cases[i].from);
		if (plan.until_decided) {
			assert_int_equal(plan.max_rounds, PLAN_DECIDED_MAX_ROUNDS);
			assert_int_equal(plan.nlooks, ARRAY_SIZE(looks));
			for (size_t k = 0; k < plan.nlooks; k++)
				assert_int_equal(plan.looks[k], looks[k]);
			assert_int_equal(plan.min_rounds, 8);
		}
		plan_release(&plan);
		free(text);
		free(path);
	}
}

static void test_gates_and_decision(void **state)
{
	struct plan plan = PLAN_INIT;
	char *path = write_json("gates.json",
		HEAD "'variants':[" VA "," VB "],'reference':'b',"
		"'metrics':[{'name':'t','source':'stdout','unit':'ms','pattern':'t=([0-9]+)',"
		"'derive':'rate','max_regression_pct':10,'budget':250.5},"
		"{'name':'r','source':'process','field':'max_rss','max_improvement_pct':50}],"
		"'gates':{'wall':{'max_regression_pct':15,'max_improvement_pct':40},"
		"'t (rate)':{'budget':2}},"
		"'decision':{'acceptance':true,'inconclusive':'pass','confidence':0.9,"
		"'bootstrap_resamples':2000}}");
	static const struct { const char *metric; enum gate_kind kind; double limit; } want[] = {
		{ "t", GATE_MAX_REGRESSION, 10 }, { "t", GATE_BUDGET, 250.5 },
		{ "r", GATE_MAX_IMPROVEMENT, 50 }, { "wall", GATE_MAX_REGRESSION, 15 },
		{ "wall", GATE_MAX_IMPROVEMENT, 40 }, { "t (rate)", GATE_BUDGET, 2 },
	};
	(void)state;

	reset_errors();
	assert_int_equal(plan_load(&plan, path), 0);
	assert_int_equal(plan.reference, 1);
	assert_int_equal(plan.ngates, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		assert_string_equal(plan.gates[i].metric, want[i].metric);
		assert_int_equal(plan.gates[i].kind, want[i].kind);
		assert_true(plan.gates[i].limit == want[i].limit);
	}
	assert_int_equal(plan.acceptance, 1);
	assert_int_equal(plan.inconclusive_fails, 0);
	assert_true(plan.confidence == 0.9);
	assert_int_equal(plan.resamples, 2000);
	plan_release(&plan);
	free(path);

	/* The defaults: first variant, no gate, inconclusive fails (exit 6, issue 39). */
	path = write_json("plain.json", HEAD "'variants':[" VA "," VB "]}");
	assert_int_equal(plan_load(&plan, path), 0);
	assert_int_equal(plan.reference, 0);
	assert_int_equal(plan.ngates, 0);
	assert_int_equal(plan.acceptance, 0);
	assert_int_equal(plan.inconclusive_fails, 1);
	assert_true(plan.confidence == COMPARE_CONFIDENCE);
	assert_int_equal(plan.resamples, COMPARE_RESAMPLES);
	plan_release(&plan);
	free(path);
}

/* results.min_executed: 1 once there are result files to count, absent without. */
static void test_min_executed_default(void **state)
{
	static const struct {
		const char *results;
		int64_t want;
	} cases[] = {
		{ "", -1 },
		{ ",'results':{}", -1 },
		{ ",'results':{'files':'{run_dir}/*.trx'}", 1 },
		{ ",'results':{'files':'*.xml','min_executed':0}", 0 },
		{ ",'results':{'min_executed':7,'files':'*.xml'}", 7 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = PLAN_INIT;
		char *text = xasprintf(HEAD "'variants':[" VA "]%s}", cases[i].results);
		char *path = write_json("me.json", text);

		reset_errors();
		assert_int_equal(plan_load(&plan, path), 0);
		if (plan.min_executed != cases[i].want)
			fail_msg("case %zu: min_executed %lld, want %lld", i,
				 (long long)plan.min_executed, (long long)cases[i].want);
		plan_release(&plan);
		free(path);
		free(text);
	}
}

/*
 * schedule.step_timeout_seconds: the plan's, else its timeout_seconds,
 * else an hour — every step has a limit — and who chose it.
 */
static void test_step_timeout_default(void **state)
{
	static const struct {
		const char *schedule;
		double want;
		const char *from;
	} cases[] = {
		{ "", 3600, "default" },
		{ ",'schedule':{}", 3600, "default" },
		{ ",'schedule':{'runs':2}", PLAN_STEP_TIMEOUT_DEFAULT, "default" },
		{ ",'schedule':{'timeout_seconds':30}", 30, "timeout_seconds" },
		{ ",'schedule':{'step_timeout_seconds':1}", 1, "plan" },
		{ ",'schedule':{'step_timeout_seconds':0.25,'timeout_seconds':30}", 0.25, "plan" },
		{ ",'schedule':{'timeout_seconds':30,'step_timeout_seconds':7200}", 7200, "plan" },
		{ ",'schedule':{'step_timeout_seconds':604800}", 604800, "plan" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = PLAN_INIT;
		char *text = xasprintf(HEAD "'variants':[" VA "]%s}", cases[i].schedule);
		char *path = write_json("st.json", text);

		reset_errors();
		assert_int_equal(plan_load(&plan, path), 0);
		if (plan.set.step_timeout_seconds != cases[i].want ||
		    strcmp(plan.set.step_timeout_seconds_from, cases[i].from))
			fail_msg("case %zu: step_timeout_seconds %g from %s, want %g from %s", i,
				 plan.set.step_timeout_seconds, plan.set.step_timeout_seconds_from,
				 cases[i].want, cases[i].from);
		/* The measured command keeps its own limit, none by default. */
		if (!strstr(cases[i].schedule, "timeout_seconds':30"))
			assert_true(plan.set.timeout_seconds == 0);
		plan_release(&plan);
		free(path);
		free(text);
	}
}

/* The reason for a bad pattern is regerror()'s own, whatever the C library says. */
static void test_pattern_regerror(void **state)
{
	static const char *const bad[] = { "x=([0-9]+", "x=[0-9(]+)", "a{2,1}([0-9])", "(*)x" };
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct plan plan = PLAN_INIT;
		char why[256];
		regex_t re;
		int rc = regcomp(&re, bad[i], REG_EXTENDED);
		char *text, *path, *want;

		if (!rc) {
			/* Accepted by this C library: then the plan must be accepted too. */
			regfree(&re);
			continue;
		}
		regerror(rc, &re, why, sizeof(why));
		text = xasprintf(HEAD "'variants':[" VA "],'metrics':[{'name':'m','source':'stdout',"
				 "'unit':'ms','pattern':'%s'}]}", bad[i]);
		path = write_json("re.json", text);
		want = xasprintf("%s: metrics[0].pattern: invalid regular expression '%s': %s", path,
				 bad[i], why);
		reset_errors();
		assert_int_equal(plan_load(&plan, path), -1);
		assert_int_equal(nerrors, 1);
		assert_string_equal(last_error, want);
		free(want);
		free(path);
		free(text);
	}
}

struct malformed {
	const char *text;
	size_t len;
	const char *want;
};

#define M(s, w) { s, sizeof(s) - 1, w }
static const struct malformed malformed_plans[] = {
	M("{\n  \"schema\": \"abev.plan/1\",\n  \"name\": \"x\"\n  \"variants\": []\n}\n",
	  ":4:3: malformed JSON near '\"variants\": []'"),
	M("{\n\n\n\n\n\n  \"a\": tru,\n}", ":7:8: malformed JSON near 'tru,'"),
	M("{\"schema\": \"abev.plan/1\"} trailing", ":1:27: malformed JSON near 'trailing'"),
	M("{\n  \"a\": [1,\n  2", ":3:3: malformed JSON: unexpected end of file after '2'"),
	M("{\"a\": 1}\n\0{}", ":2:1: malformed JSON: NUL byte"),
	M("", ":1:1: malformed JSON: the file is empty"),
	M("  \n \n", ":1:1: malformed JSON: the file is empty"),
};

static void test_malformed(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(malformed_plans); i++) {
		const struct malformed *c = &malformed_plans[i];
		struct plan plan = PLAN_INIT;
		char *path = write_raw("bad.json", c->text, c->len);
		char *want = xasprintf("%s%s", path, c->want);

		reset_errors();
		assert_int_equal(plan_load(&plan, path), -1);
		assert_int_equal(nerrors, 1);
		if (strcmp(last_error, want))
			fail_msg("case %zu\n  got:  %s\n  want: %s", i, last_error, want);
		assert_null(plan.raw);
		free(want);
		free(path);
	}
}

static void test_unreadable(void **state)
{
	struct plan plan = PLAN_INIT;
	char *missing = path_join(tmpdir, "does-not-exist.json");
	char *want;
	(void)state;

	reset_errors();
	assert_int_equal(plan_load(&plan, missing), -1);
	assert_int_equal(nerrors, 1);
	want = xasprintf("cannot open '%s': No such file or directory", missing);
	assert_string_equal(last_error, want);
	assert_null(plan.path);
	free(want);

	/* A directory is not a plan. */
	reset_errors();
	assert_int_equal(plan_load(&plan, tmpdir), -1);
	assert_int_equal(nerrors, 1);
	assert_non_null(strstr(last_error, tmpdir));
	assert_non_null(strstr(last_error, "is a directory"));

	/* Root reads a mode 000 file anyway. */
	if (geteuid() != 0) {
		char *locked = write_json("locked.json", "{}");
		assert_int_equal(chmod(locked, 0), 0);
		reset_errors();
		assert_int_equal(plan_load(&plan, locked), -1);
		assert_int_equal(nerrors, 1);
		want = xasprintf("cannot open '%s': Permission denied", locked);
		assert_string_equal(last_error, want);
		free(want);
		unlink(locked);
		free(locked);
	}
	free(missing);
}

struct expand_case {
	const char *tmpl;
	const char *want; /* NULL: refused */
	const char *why;
};

static const struct expand_case expand_cases[] = {
	{ "", "", NULL },
	{ "plain text", "plain text", NULL },
	{ "{run_dir}/out.trx", "/ev/runs/a/run-3/out.trx", NULL },
	{ "{variant}-{phase}-{round}", "a-run-3", NULL },
	{ "{round}{round}", "33", NULL },
	{ "{{literal}}", "{literal}", NULL },
	{ "{{{variant}}}", "{a}", NULL },
	{ "a}}b{{c", "a}b{c", NULL },
	{ "{foo}", NULL, "unknown placeholder '{foo}' (known: {run_dir}, {variant}, {phase}, {round})" },
	{ "x{}", NULL, "unknown placeholder '{}'" },
	{ "{Round}", NULL, "unknown placeholder '{Round}'" },
	{ "a}b", NULL, "unbalanced '}' (write '}}' for a literal brace)" },
	{ "}}}", NULL, "unbalanced '}'" },
	{ "{run_dir", NULL, "unterminated '{' (write '{{' for a literal brace)" },
	{ "{{{", NULL, "unterminated '{'" },
};

static void test_expand(void **state)
{
	const struct plan_vars vars = { "/ev/runs/a/run-3", "a", "run", 3 };
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(expand_cases); i++) {
		const struct expand_case *c = &expand_cases[i];
		char why[200] = "";
		char *got;

		reset_errors();
		got = plan_expand(c->tmpl, &vars);
		if (c->want) {
			if (!got || strcmp(got, c->want))
				fail_msg("case %zu '%s': got '%s', want '%s'", i, c->tmpl,
					 got ? got : "(null)", c->want);
			assert_int_equal(nerrors, 0);
			assert_int_equal(plan_check_template(c->tmpl, why, sizeof(why)), 0);
		} else {
			assert_null(got);
			assert_int_equal(nerrors, 1);
			assert_non_null(strstr(last_error, c->why));
			assert_int_equal(plan_check_template(c->tmpl, why, sizeof(why)), -1);
			if (strncmp(why, c->why, strlen(c->why)))
				fail_msg("case %zu '%s': why '%s', want '%s'", i, c->tmpl, why, c->why);
		}
		free(got);
	}
}

/* Whether cwd exists is plan_check()'s question: the loader only makes it absolute. */
static void test_cwd_left_to_plan_check(void **state)
{
	struct plan plan = PLAN_INIT;
	char *path = write_json("cwd.json", HEAD "'variants':[{'name':'a','cwd':'nope','command':['x']}]}");
	char *want = path_join(realdir, "nope");
	(void)state;
	reset_errors();
	assert_int_equal(plan_load(&plan, path), 0);
	assert_int_equal(nerrors, 0);
	assert_string_equal(plan.variants[0].cwd, want);
	plan_release(&plan);
	unlink(path);
	free(path);
	free(want);
}

/*
 * All of a plan's problems in one load, each once, in different objects,
 * with the nearest name where there is one; follow-on errors (a reference
 * to a refused variant, a gate on a refused metric) are not added.
 */
static void test_all_errors_at_once(void **state)
{
	struct plan plan = PLAN_INIT;
	char *path = write_json("many.json", HEAD
		"'variants':[{'name':'a','command':['x'],'cwdd':'.'},{'name':'b','comand':['x']}],"
		"'reference':'b','schedule':{'runs':0,'order':'revers'},"
		"'metrics':[{'name':'m','source':'process','field':'wal'}],"
		"'gates':{'m':{'max_regression_pct':1}},'decision':{'inconclusive':'fial'}}");
	(void)state;
	reset_errors();
	assert_int_equal(plan_load(&plan, path), -1);
	/* cwdd, comand (and so the missing command), runs, order, field, inconclusive */
	assert_int_equal(nerrors, 7);
	assert_non_null(strstr(last_error, "decision.inconclusive: expected \"pass\" (exit 0) or "
			       "\"fail\" (exit 6), found 'fial', did you mean 'fail'?"));
	assert_null(plan.variants);
	unlink(path);
	free(path);
}

/*
 * A plan with errors kept partial, for plan_check(): the variants read
 * without an error of their own (each knowing its index in "variants"),
 * no refused run_as or results.files, and a refused schedule said to
 * leave prepare unknown. Nothing is printed: the caller reports the list.
 */
static void test_partial_plan(void **state)
{
	struct plan plan = PLAN_INIT;
	struct errlist errors = ERRLIST_INIT;
	char *path = write_json("partial.json", HEAD "'run_as':'a\\u001bb',"
		"'variants':[" VA ",{'name':'b','comand':['x']},{'name':'c','command':['y']}],"
		"'results':{'files':'{nope}/*.xml'},'schedule':{'ordr':'reverse'}}");
	(void)state;
	reset_errors();
	assert_int_equal(plan_load_partial(&plan, path, &errors), -1);
	/* run_as, ordr, results.files, comand and the missing command */
	assert_int_equal(errors.total, 5);
	assert_int_equal(nerrors, 0);
	assert_int_equal(plan.nvariants, 2);
	assert_int_equal(plan.nlisted, 2);
	assert_string_equal(plan.variants[0].name, "a");
	assert_int_equal(plan.variants[0].listed_at, 0);
	assert_string_equal(plan.variants[1].name, "c");
	assert_int_equal(plan.variants[1].listed_at, 2);
	assert_null(plan.results_files);
	assert_null(plan.run_as);
	assert_int_equal(plan.prepare_unknown, 1);
	errlist_release(&errors);
	plan_release(&plan);
	unlink(path);
	free(path);

	/* A whole plan adds nothing to the list. */
	path = write_json("whole.json", HEAD "'variants':[" VA "," VB "]}");
	assert_int_equal(plan_load_partial(&plan, path, &errors), 0);
	assert_int_equal(errors.total, 0);
	assert_int_equal(plan.nvariants, 2);
	assert_int_equal(plan.variants[1].listed_at, 1);
	assert_int_equal(plan.prepare_unknown, 0);
	plan_release(&plan);
	unlink(path);
	free(path);

	/* Malformed JSON is said at once and leaves an empty plan to release. */
	path = write_json("malformed.json", "{'schema':");
	reset_errors();
	assert_int_equal(plan_load_partial(&plan, path, &errors), -1);
	assert_int_equal(nerrors, 1);
	assert_int_equal(errors.total, 0);
	assert_int_equal(plan.nvariants, 0);
	plan_release(&plan);
	unlink(path);
	free(path);
}

/* Every order by its name and back; PLAN_ORDER_LIST, what messages list, names each. */
/*
 * Which variants' setups may collide, and the order that follows: one
 * setup shared as written is not a collision, one that expands to
 * different commands is; distinct cwds never collide.
 */
static void test_setups_collide(void **state)
{
#define SV(n, cwd, setup) "{'name':'" n "','command':['true'],'cwd':'" cwd "'" setup "}"
	static const struct {
		const char *plan;
		enum run_order order;
		const char *from;
		size_t a, b;
	} cases[] = {
		{ HEAD "'variants':[" SV("a", "/", "") "," SV("b", "/", "") "],"
		  "'schedule':{'setup':['make']}}", RUN_ORDER_BALANCED, "default", 0, 0 },
		{ HEAD "'variants':[" SV("a", "/", "") "," SV("b", "/", "") "],"
		  "'schedule':{'setup':['make','{variant}']}}", RUN_ORDER_SEQUENTIAL, "setups", 0, 1 },
		{ HEAD "'variants':[" SV("a", "/", "") "," SV("b", "/tmp", "") "],"
		  "'schedule':{'setup':['make','{variant}']}}", RUN_ORDER_BALANCED, "default", 0, 0 },
		{ HEAD "'variants':[" SV("a", "/", ",'setup':['x']") "," SV("b", "/", "") "]}",
		  RUN_ORDER_BALANCED, "default", 0, 0 },
		{ HEAD "'variants':[" SV("a", "/", ",'setup':['x']") "," SV("b", "/", "")
		  "," SV("c", "/", ",'setup':['y']") "]}", RUN_ORDER_SEQUENTIAL, "setups", 0, 2 },
		{ HEAD "'variants':[" SV("a", "/", "") "," SV("b", "/", "") "],"
		  "'schedule':{'order':'sequential'}}", RUN_ORDER_SEQUENTIAL, "plan", 0, 0 },
		{ HEAD "'variants':[" SV("a", "/", ",'setup':['x']") "," SV("b", "/", ",'setup':['y']")
		  "],'schedule':{'order':'sequential'}}", RUN_ORDER_SEQUENTIAL, "plan", 0, 1 },
	};
#undef SV
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = PLAN_INIT;
		char *path = write_json("setups.json", cases[i].plan);
		size_t a = 0, b = 0;

		if (plan_load(&plan, path) < 0)
			fail_msg("case %zu: %s: %s", i, cases[i].plan, last_error);
		assert_int_equal(plan.set.order, cases[i].order);
		assert_string_equal(plan.set.order_from, cases[i].from);
		assert_int_equal(plan_setups_collision(&plan, &a, &b), cases[i].a != cases[i].b);
		assert_true(a == cases[i].a && b == cases[i].b);
		plan_release(&plan);
		unlink(path);
		free(path);
	}
}

static void test_order_names(void **state)
{
	static const struct {
		enum run_order order;
		const char *name;
	} orders[] = {
		{ RUN_ORDER_ALTERNATE, "alternate" },
		{ RUN_ORDER_REVERSE, "reverse" },
		{ RUN_ORDER_SHUFFLE, "shuffle" },
		{ RUN_ORDER_SEQUENTIAL, "sequential" },
		{ RUN_ORDER_BALANCED, "balanced" },
	};
	size_t listed = 1;
	enum run_order o = RUN_ORDER_SHUFFLE;
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(orders); i++) {
		assert_string_equal(run_order_name(orders[i].order), orders[i].name);
		assert_int_equal(run_order_parse(orders[i].name, &o), 0);
		assert_int_equal(o, orders[i].order);
		assert_non_null(strstr(PLAN_ORDER_LIST, orders[i].name));
	}
	for (const char *p = PLAN_ORDER_LIST; *p; p++)
		listed += *p == ',';
	assert_int_equal(listed, ARRAY_SIZE(orders));
	assert_int_equal(run_order_parse("Balanced", &o), -1);
	assert_int_equal(run_order_parse("", &o), -1);
	assert_int_equal(o, RUN_ORDER_BALANCED);
	assert_string_equal(run_order_name(PLAN_ORDER_DEFAULT), "balanced");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_plan),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_relative_path),
		cmocka_unit_test(test_variants_file),
		cmocka_unit_test(test_broken_plans),
		cmocka_unit_test(test_min_executed_default),
		cmocka_unit_test(test_step_timeout_default),
		cmocka_unit_test(test_gates_and_decision),
		cmocka_unit_test(test_until_decided),
		cmocka_unit_test(test_gated_plan_decides),
		cmocka_unit_test(test_pattern_regerror),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_cwd_left_to_plan_check),
		cmocka_unit_test(test_all_errors_at_once),
		cmocka_unit_test(test_partial_plan),
		cmocka_unit_test(test_order_names),
		cmocka_unit_test(test_setups_collide),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
