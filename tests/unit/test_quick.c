/*
 * Unit tests of quick.c: -N word splitting as a table (words, and the
 * inputs it refuses), variant names made from commands and -n names, the
 * default evidence directory at a fixed time, and the plans it writes —
 * read back with cJSON for their keys, and with plan_parse() to show
 * that abev run accepts them (a bench plan, a prepare step in both
 * places, a starter plan with and without commands).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "plan/quick.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/usage.h"

static char last_error[4096];

static void capture(const char *prefix, const char *msg)
{
	(void)prefix;
	snprintf(last_error, sizeof(last_error), "%s", msg);
}

struct split_case {
	const char *in;
	const char *want[6]; /* NULL-terminated; want[0] NULL: an error */
	const char *err;     /* a part of the message, for errors */
};

static const struct split_case split_cases[] = {
	{ "gzip -1 -c f", { "gzip", "-1", "-c", "f", NULL }, NULL },
	{ "  a \t b\n", { "a", "b", NULL }, NULL },
	{ "echo 'a b' c", { "echo", "a b", "c", NULL }, NULL },
	{ "echo \"a \\\"q\\\" \\\\ b\"", { "echo", "a \"q\" \\ b", NULL }, NULL },
	{ "echo 'it\\s'", { "echo", "it\\s", NULL }, NULL },
	{ "a\\ b c", { "a b", "c", NULL }, NULL },
	{ "x'y'\"z\"", { "xyz", NULL }, NULL },
	{ "echo ''", { "echo", "", NULL }, NULL },
	{ "echo $HOME *", { "echo", "$HOME", "*", NULL }, NULL },
	{ "echo 'open", { NULL }, "unclosed single quote" },
	{ "echo \"open", { NULL }, "unclosed double quote" },
	{ "echo \\", { NULL }, "ends with a backslash" },
	{ "", { NULL }, "no word" },
	{ "   ", { NULL }, "no word" },
};

static void test_split(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(split_cases); i++) {
		const struct split_case *c = &split_cases[i];
		char **words, *err;
		size_t n, k;
		int rc = quick_split(c->in, &words, &n, &err);

		if (!c->want[0]) {
			assert_int_equal(rc, -1);
			assert_null(words);
			assert_non_null(strstr(err, c->err));
			free(err);
			continue;
		}
		assert_int_equal(rc, 0);
		for (k = 0; c->want[k]; k++) {
			assert_true(k < n);
			assert_string_equal(words[k], c->want[k]);
		}
		assert_int_equal(n, k);
		assert_null(words[n]);
		strv_free(words);
	}
}

struct names_case {
	const char *commands[4];
	const char *names[4];
	size_t ncommands, nnames;
	const char *want[4];
};

static const struct names_case names_cases[] = {
	{ { "gzip -1 -c f", "gzip -9 -c f" }, { NULL }, 2, 0, { "gzip-1-c-f", "gzip-9-c-f" } },
	{ { "sleep 0.1", "sleep 0.12" }, { NULL }, 2, 0, { "sleep-0.1", "sleep-0.12" } },
	{ { "make", "make" }, { NULL }, 2, 0, { "make", "make-2" } },
	{ { "./run.sh", "'$x'" }, { NULL }, 2, 0, { "run.sh", "x" } },
	{ { "***", "a" }, { NULL }, 2, 0, { "cmd1", "a" } },
	{ { "a", "b", "c" }, { "old build", "new" }, 3, 2, { "old-build", "new", "c" } },
	{ { "a", "b" }, { "same", "same" }, 2, 2, { "same", "same-2" } },
	{ { "this command is much longer than thirty-two characters" }, { NULL }, 1, 0,
	  { "this-command-is-much-longer-than" } },
	/* Alike past the cut: the words that differ are kept, after what fits of the rest. */
	{ { "NODE_OPTIONS=--max-semi-space-size=1 node bench.js",
	    "NODE_OPTIONS=--max-semi-space-size=16 node bench.js" }, { NULL }, 2, 0,
	  { "max-semi-space-size-1", "max-semi-space-size-16" } },
	{ { "echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx a",
	    "echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx b" }, { NULL }, 2, 0,
	  { "echo-a", "echo-b" } },
	{ { "python3 bench.py --iterations 100000 --mode=fast",
	    "python3 bench.py --iterations 100000 --mode=slow",
	    "python3 bench.py --iterations 100000 --mode=auto" }, { NULL }, 3, 0,
	  { "iterations-100000-mode-fast", "iterations-100000-mode-slow",
	    "iterations-100000-mode-auto" } },
	/* Only the commands cut alike keep what differs: another beside them keeps its own. */
	{ { "some-long-command --with-many-flags --threads 1", "true",
	    "some-long-command --with-many-flags --threads 2" }, { NULL }, 3, 0,
	  { "with-many-flags-threads-1", "true", "with-many-flags-threads-2" } },
	{ { "python3 bench.py --iterations 100000 --mode=fast", "python3 other.py",
	    "python3 bench.py --iterations 100000 --mode=slow" }, { NULL }, 3, 0,
	  { "iterations-100000-mode-fast", "python3-other.py", "iterations-100000-mode-slow" } },
	/* Identical past the cut too: numbered. */
	{ { "this command is much longer than thirty-two characters",
	    "this command is much longer than thirty-two characters" }, { NULL }, 2, 0,
	  { "this-command-is-much-longer-than", "this-command-is-much-longer-than-2" } },
};

static void test_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names_cases); i++) {
		const struct names_case *c = &names_cases[i];
		struct quick_spec spec = QUICK_SPEC_INIT;
		char **names;

		spec.commands = c->commands;
		spec.ncommands = c->ncommands;
		spec.names = c->names;
		spec.nnames = c->nnames;
		quick_names(&spec, &names);
		for (size_t k = 0; k < c->ncommands; k++)
			assert_string_equal(names[k], c->want[k]);
		assert_null(names[c->ncommands]);
		strv_free(names);
	}
}

static void test_out_dir(void **state)
{
	const char *cmds[] = { "sleep 0.1", "sleep 0.12" };
	struct quick_spec spec = QUICK_SPEC_INIT;
	char *dir;

	(void)state;
	spec.commands = cmds;
	spec.ncommands = 2;
	dir = quick_out_dir(&spec, 86400 + 3661);
	assert_string_equal(dir, "abev-evidence/19700102T010101Z-sleep-0.1-vs-sleep-0.12");
	free(dir);
}

/* The plan of spec, parsed with cJSON; fails the test when there is none. */
static cJSON *plan_of(const struct quick_spec *spec, char **text)
{
	char *err = NULL;
	cJSON *j;

	*text = quick_plan(spec, &err);
	if (!*text)
		fail_msg("quick_plan: %s", err);
	j = cJSON_Parse(*text);
	assert_non_null(j);
	return j;
}

static const char *str_at(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	assert_true(cJSON_IsString(j));
	return j->valuestring;
}

static double num_at(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	assert_true(cJSON_IsNumber(j));
	return j->valuedouble;
}

static void assert_argv(const cJSON *arr, const char *const *want, size_t n)
{
	assert_int_equal(cJSON_GetArraySize(arr), (int)n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(cJSON_GetArrayItem(arr, (int)i)->valuestring, want[i]);
}

static void test_bench_plan(void **state)
{
	const char *cmds[] = { "awk '{print}' f", "sleep 0.12" };
	const char *want0[] = { "sh", "-c", "awk '{{print}}' f" };
	struct quick_spec spec = QUICK_SPEC_INIT;
	struct plan plan = PLAN_INIT;
	cJSON *j, *v, *s;
	char *text;

	(void)state;
	spec.commands = cmds;
	spec.ncommands = 2;
	spec.cwd = "/";
	j = plan_of(&spec, &text);
	assert_string_equal(str_at(j, "schema"), "abev.plan/1");
	assert_string_equal(str_at(j, "name"), "bench: awk-print-f vs sleep-0.12");
	v = cJSON_GetObjectItemCaseSensitive(j, "variants");
	assert_int_equal(cJSON_GetArraySize(v), 2);
	assert_string_equal(str_at(cJSON_GetArrayItem(v, 0), "cwd"), "/");
	assert_argv(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(v, 0), "command"), want0, 3);
	s = cJSON_GetObjectItemCaseSensitive(j, "schedule");
	assert_int_equal((int)num_at(s, "runs"), QUICK_DEFAULT_RUNS);
	assert_int_equal((int)num_at(s, "warmups"), 0);
	/* None given: the plan's default, which setups that collide make sequential. */
	assert_null(cJSON_GetObjectItemCaseSensitive(s, "order"));
	assert_null(cJSON_GetObjectItemCaseSensitive(s, "prepare"));
	assert_null(cJSON_GetObjectItemCaseSensitive(j, "results"));
	assert_null(cJSON_GetObjectItemCaseSensitive(j, "gates"));
	cJSON_Delete(j);

	/* What abev run reads: the braces come back as the command's own. */
	assert_int_equal(plan_parse(&plan, "(test)", text, strlen(text)), 0);
	assert_int_equal(plan.nvariants, 2);
	assert_string_equal(plan.variants[0].command[2], want0[2]);
	{
		struct plan_vars vars = { "/tmp", "x", "run", 1 };
		char *cmd = plan_expand(plan.variants[0].command[2], &vars);
		assert_string_equal(cmd, cmds[0]);
		free(cmd);
	}
	assert_int_equal(plan.set.runs, QUICK_DEFAULT_RUNS);
	assert_int_equal(plan.variants[0].prepare_len, 0);
	plan_release(&plan);
	free(text);
}

static void test_no_shell_settings_prepare(void **state)
{
	const char *cmds[] = { "gzip -1 -c 'my file'", "gzip -9 -c 'my file'" };
	const char *names[] = { "fast" };
	const char *prep[] = { "sync" };
	const char *prep2[] = { "cp a f", "cp b f" };
	const char *want1[] = { "gzip", "-9", "-c", "my file" };
	struct quick_spec spec = QUICK_SPEC_INIT;
	struct plan plan = PLAN_INIT;
	cJSON *j, *v, *s, *r;
	char *text;

	(void)state;
	spec.commands = cmds;
	spec.ncommands = 2;
	spec.names = names;
	spec.nnames = 1;
	spec.no_shell = 1;
	spec.prepare = prep;
	spec.nprepare = 1;
	spec.runs = 4;
	spec.warmups = 2;
	spec.gap_seconds = 0.25;
	spec.order = "shuffle";
	spec.results = "{run_dir}/*.xml";
	spec.min_executed = 5;
	j = plan_of(&spec, &text);
	v = cJSON_GetObjectItemCaseSensitive(j, "variants");
	assert_string_equal(str_at(cJSON_GetArrayItem(v, 0), "name"), "fast");
	assert_string_equal(str_at(cJSON_GetArrayItem(v, 1), "name"), "gzip-9-c-my-file");
	assert_argv(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(v, 1), "command"), want1, 4);
	s = cJSON_GetObjectItemCaseSensitive(j, "schedule");
	assert_int_equal((int)num_at(s, "runs"), 4);
	assert_int_equal((int)num_at(s, "warmups"), 2);
	assert_true(num_at(s, "gap_seconds") == 0.25);
	assert_string_equal(str_at(s, "order"), "shuffle");
	assert_int_equal((int)num_at(s, "seed"), 1);
	assert_argv(cJSON_GetObjectItemCaseSensitive(s, "prepare"), prep, 1);
	r = cJSON_GetObjectItemCaseSensitive(j, "results");
	assert_string_equal(str_at(r, "files"), "{run_dir}/*.xml");
	assert_int_equal((int)num_at(r, "min_executed"), 5);
	cJSON_Delete(j);
	/* schedule.prepare reaches every variant. */
	assert_int_equal(plan_parse(&plan, "(test)", text, strlen(text)), 0);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(plan.variants[i].prepare_len, 1);
		assert_string_equal(plan.variants[i].prepare[0], "sync");
	}
	assert_int_equal(plan.min_executed, 5);
	plan_release(&plan);
	free(text);

	/* One prepare command per command: each variant its own. */
	spec.prepare = prep2;
	spec.nprepare = 2;
	spec.no_shell = 0;
	j = plan_of(&spec, &text);
	s = cJSON_GetObjectItemCaseSensitive(j, "schedule");
	assert_null(cJSON_GetObjectItemCaseSensitive(s, "prepare"));
	cJSON_Delete(j);
	assert_int_equal(plan_parse(&plan, "(test)", text, strlen(text)), 0);
	assert_string_equal(plan.variants[0].prepare[2], "cp a f");
	assert_string_equal(plan.variants[1].prepare[2], "cp b f");
	plan_release(&plan);
	free(text);
}

struct refuse_case {
	const char *what;
	size_t ncommands, nnames, nprepare;
	int no_shell, starter;
	const char *order, *results, *cmd0;
	int64_t min_executed;
	const char *err;
};

static const struct refuse_case refuse_cases[] = {
	{ "no command", 0, 0, 0, 0, 0, NULL, NULL, NULL, -1, "no command" },
	{ "more names than commands", 2, 3, 0, 0, 0, NULL, NULL, NULL, -1, "3 names" },
	{ "two prepares for three commands", 3, 0, 2, 0, 0, NULL, NULL, NULL, -1,
	  "one per command" },
	{ "unknown order", 2, 0, 0, 0, 0, "random", NULL, NULL, -1, "unknown order 'random'" },
	{ "min_executed without results", 2, 0, 0, 0, 0, NULL, NULL, NULL, 3, "needs --results" },
	{ "-N and an unclosed quote", 2, 0, 0, 1, 0, NULL, NULL, "echo 'x", -1, "unclosed" },
	{ "an empty command", 2, 0, 0, 0, 0, NULL, NULL, "", -1, "empty" },
};

static void test_refused(void **state)
{
	const char *cmds[] = { "a", "b", "c" }, *names[] = { "x", "y", "z" };
	const char *prep[] = { "p", "q", "r" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(refuse_cases); i++) {
		const struct refuse_case *c = &refuse_cases[i];
		const char *mine[3] = { c->cmd0 ? c->cmd0 : "a", "b", "c" };
		struct quick_spec spec = QUICK_SPEC_INIT;
		char *err = NULL, *text;

		spec.commands = c->cmd0 ? mine : cmds;
		spec.ncommands = c->ncommands;
		spec.names = names;
		spec.nnames = c->nnames;
		spec.prepare = prep;
		spec.nprepare = c->nprepare;
		spec.no_shell = c->no_shell;
		spec.starter = c->starter;
		spec.order = c->order;
		spec.results = c->results;
		spec.min_executed = c->min_executed;
		text = quick_plan(&spec, &err);
		if (text)
			fail_msg("%s: a plan was made", c->what);
		assert_non_null(err);
		if (!strstr(err, c->err))
			fail_msg("%s: '%s' does not say '%s'", c->what, err, c->err);
		free(err);
	}
}

/* A starter plan: every commonly used key, and abev run accepts it. */
static void test_starter(void **state)
{
	static const char *const keys[] = { "schema", "name", "description", "variants",
					    "schedule", "results", "load", "metrics",
					    "allowed_exit_codes", "gates", "decision" };
	static const char *const sched[] = { "warmups", "runs", "order", "seed", "gap_seconds",
					     "timeout_seconds", "kill_grace_seconds" };
	const char *cmds[] = { "true", "false" };
	struct quick_spec spec = QUICK_SPEC_INIT;
	struct plan plan = PLAN_INIT;
	cJSON *j, *s;
	char *text;

	(void)state;
	spec.starter = 1;
	spec.cwd = ".";
	j = plan_of(&spec, &text);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!cJSON_GetObjectItemCaseSensitive(j, keys[i]))
			fail_msg("the starter plan has no '%s'", keys[i]);
	s = cJSON_GetObjectItemCaseSensitive(j, "schedule");
	for (size_t i = 0; i < ARRAY_SIZE(sched); i++)
		if (!cJSON_GetObjectItemCaseSensitive(s, sched[i]))
			fail_msg("the starter plan's schedule has no '%s'", sched[i]);
	cJSON_Delete(j);
	assert_int_equal(plan_parse(&plan, "plan.json", text, strlen(text)), 0);
	assert_int_equal(plan.nvariants, 2);
	assert_string_equal(plan.variants[0].name, "baseline");
	assert_non_null(plan.results_files);
	assert_int_equal(plan.min_executed, 1);
	assert_int_equal(plan.nmetrics, 1);
	assert_int_equal(plan.ngates, 1);
	plan_release(&plan);
	free(text);

	/* From commands: theirs, no example results (they write none). */
	spec.commands = cmds;
	spec.ncommands = 2;
	j = plan_of(&spec, &text);
	assert_null(cJSON_GetObjectItemCaseSensitive(j, "results"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(j, "gates"));
	cJSON_Delete(j);
	assert_int_equal(plan_parse(&plan, "plan.json", text, strlen(text)), 0);
	assert_string_equal(plan.variants[1].name, "false");
	plan_release(&plan);
	free(text);
}

/* plan_parse() reports as plan_load() does, naming what it was given. */
static void test_plan_parse_errors(void **state)
{
	static const char bad[] = "{\"schema\": \"abev.plan/1\", \"name\": \"x\", \"variants\": "
				  "[{\"name\": \"a\", \"command\": [\"true\"], \"prepare\": []}]}";
	struct plan plan = PLAN_INIT;

	(void)state;
	set_error_routine(capture);
	assert_int_equal(plan_parse(&plan, "(abev bench)", bad, strlen(bad)), -1);
	set_error_routine(NULL);
	assert_non_null(strstr(last_error, "(abev bench)"));
	assert_non_null(strstr(last_error, "variants[0].prepare"));
}

/* One scan: its parts, and the commands (and names) it must make or a part of its error. */
struct scan_case {
	const char *what;
	const char *cmds[3];
	const char *names[3];
	const char *lists[6];     /* VAR, VALUES pairs */
	const char *range[3];     /* VAR MIN MAX, or range[0] NULL */
	const char *step;
	const char *want[17];     /* NULL-terminated */
	const char *want_names[4];
	const char *err;
};

static const struct scan_case scan_cases[] = {
	{ "a list", { "sleep 0.{t}" }, { NULL }, { "t", "1,4" }, { NULL }, NULL,
	  { "sleep 0.1", "sleep 0.4", NULL }, { NULL }, NULL },
	/* hyperfine's order: the commands fastest, then the first -L, then the next. */
	{ "two lists, two commands", { "e {a} {b}", "p {b}{a}" }, { NULL },
	  { "a", "1,2", "b", "x,y" }, { NULL }, NULL,
	  { "e 1 x", "p x1", "e 2 x", "p x2", "e 1 y", "p y1", "e 2 y", "p y2", NULL }, { NULL },
	  NULL },
	{ "an escaped comma, an empty value", { "echo [{v}]" }, { NULL }, { "v", "a\\,b,,c" },
	  { NULL }, NULL, { "echo [a,b]", "echo []", "echo [c]", NULL }, { NULL }, NULL },
	/* As hyperfine's tokenize(): only \, and \\ are escapes; any other backslash stays. */
	{ "a backslash before anything else", { "grep {re}" }, { NULL },
	  { "re", "a\\d+,b\\\\,c\\" }, { NULL }, NULL,
	  { "grep a\\d+", "grep b\\", "grep c\\", NULL }, { NULL }, NULL },
	/* One pass: a value holding another's placeholder stays as it is. */
	{ "no double replacement", { "echo {foo} {bar}" }, { NULL },
	  { "foo", "{bar} baz", "bar", "quux" }, { NULL }, NULL,
	  { "echo {bar} baz quux", NULL }, { NULL }, NULL },
	{ "other braces stay", { "awk '{print}' {n}" }, { NULL }, { "n", "f" }, { NULL }, NULL,
	  { "awk '{print}' f", NULL }, { NULL }, NULL },
	{ "a range", { "make -j {j}" }, { NULL }, { NULL }, { "j", "1", "7" }, "3",
	  { "make -j 1", "make -j 4", "make -j 7", NULL }, { NULL }, NULL },
	{ "a negative range", { "x {j}" }, { NULL }, { NULL }, { "j", "-2", "0" }, NULL,
	  { "x -2", "x -1", "x 0", NULL }, { NULL }, NULL },
	{ "a decimal range", { "x {f}" }, { NULL }, { NULL }, { "f", "0", "0.5" }, "0.25",
	  { "x 0.00", "x 0.25", "x 0.50", NULL }, { NULL }, NULL },
	{ "one name template", { "x {t}" }, { "n-{t}" }, { "t", "a,b" }, { NULL }, NULL,
	  { "x a", "x b", NULL }, { "n-a", "n-b", NULL }, NULL },
	{ "a name each", { "x {t}" }, { "first", "second" }, { "t", "a,b" }, { NULL }, NULL,
	  { "x a", "x b", NULL }, { "first", "second", NULL }, NULL },
	{ "-P and -L", { "x {a}{b}" }, { NULL }, { "a", "1" }, { "b", "1", "2" }, NULL, { NULL },
	  { NULL }, "cannot be given together" },
	{ "-D alone", { "x" }, { NULL }, { NULL }, { NULL }, "2", { NULL }, { NULL },
	  "-D sets the step" },
	{ "unused", { "x" }, { NULL }, { "a", "1,2" }, { NULL }, NULL, { NULL }, { NULL },
	  "no command has '{a}'" },
	{ "twice", { "x {a}" }, { NULL }, { "a", "1", "a", "2" }, { NULL }, NULL, { NULL },
	  { NULL }, "scanned twice" },
	{ "braces in a name", { "x {a}" }, { NULL }, { "{a}", "1" }, { NULL }, NULL, { NULL },
	  { NULL }, "without braces" },
	{ "empty range", { "x {a}" }, { NULL }, { NULL }, { "a", "3", "1" }, NULL, { NULL },
	  { NULL }, "range is empty" },
	{ "zero step", { "x {a}" }, { NULL }, { NULL }, { "a", "1", "3" }, "0", { NULL },
	  { NULL }, "more than 0" },
	{ "decimal without step", { "x {a}" }, { NULL }, { NULL }, { "a", "0.5", "1" }, NULL,
	  { NULL }, { NULL }, "needs its step" },
	{ "no number", { "x {a}" }, { NULL }, { NULL }, { "a", "one", "3" }, NULL, { NULL },
	  { NULL }, "is no number" },
	{ "a huge range", { "x {a}" }, { NULL }, { NULL }, { "a", "-9000000000000000000",
	  "9000000000000000000" }, NULL, { NULL }, { NULL }, "more than 16 values" },
	{ "too many commands", { "x {a}", "y {a}" }, { NULL }, { "a", "1,2,3,4,5,6,7,8,9" },
	  { NULL }, NULL, { NULL }, { NULL }, "more than 16 commands" },
	{ "one name for all, without {VAR}", { "x {a}" }, { "same" }, { "a", "1,2" }, { NULL },
	  NULL, { NULL }, { NULL }, "-n 'same' would name all 2 commands the scan makes alike" },
	{ "one name for the one command made", { "x {a}" }, { "only" }, { "a", "1" }, { NULL },
	  NULL, { "x 1", NULL }, { "only", NULL }, NULL },
	{ "names that do not add up", { "x {a}" }, { "p", "q" }, { "a", "1,2,3" }, { NULL }, NULL,
	  { NULL }, { NULL }, "2 names (-n) for the 3 commands" },
};

static size_t strv_len(const char *const *v, size_t most)
{
	size_t n = 0;

	while (n < most && v[n])
		n++;
	return n;
}

/* hyperfine's -L and -P/-D: what each scan makes, and what it refuses with which words. */
static void test_scan(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(scan_cases); i++) {
		const struct scan_case *c = &scan_cases[i];
		struct quick_scan scan = {
			.commands = c->cmds, .ncommands = strv_len(c->cmds, 3),
			.names = c->names, .nnames = strv_len(c->names, 3),
			.lists = c->lists, .nlists = strv_len(c->lists, 6) / 2,
			.range = c->range[0] ? c->range : NULL, .step = c->step,
		};
		struct quick_scan_result r;
		char *err = NULL;
		int rc = quick_scan_expand(&scan, &r, &err);

		if (c->err) {
			if (rc == 0)
				fail_msg("%s: no error", c->what);
			if (!err || !strstr(err, c->err))
				fail_msg("%s: '%s' does not say '%s'", c->what, err ? err : "", c->err);
			assert_null(r.commands);
			free(err);
			continue;
		}
		if (rc < 0)
			fail_msg("%s: %s", c->what, err);
		if (r.ncommands != strv_len(c->want, 17))
			fail_msg("%s: %zu commands", c->what, r.ncommands);
		for (size_t k = 0; k < r.ncommands; k++)
			if (strcmp(r.commands[k], c->want[k]))
				fail_msg("%s: command %zu is '%s', not '%s'", c->what, k, r.commands[k],
					 c->want[k]);
		assert_int_equal(r.nnames, strv_len(c->want_names, 4));
		for (size_t k = 0; k < r.nnames; k++)
			assert_string_equal(r.names[k], c->want_names[k]);
		quick_scan_release(&r);
	}
}

/*
 * A command without a parameter's {VAR} is labelled with its value, as
 * hyperfine shows it ("true (t = 1)"), and named after the label.
 */
static void test_scan_labels(void **state)
{
	const char *cmds[] = { "echo {t}", "true {w}" };
	const char *lists[] = { "t", "1,2", "w", "a" };
	const char *want_labels[] = { "echo 1 (w = a)", "true a (t = 1)", "echo 2 (w = a)",
				      "true a (t = 2)" };
	const char *want_names[] = { "echo-1-w-a", "true-a-t-1", "echo-2-w-a", "true-a-t-2" };
	struct quick_scan scan = { .commands = cmds, .ncommands = 2, .lists = lists, .nlists = 2 };
	struct quick_spec spec = QUICK_SPEC_INIT;
	struct quick_scan_result r;
	char *err = NULL, **names;

	(void)state;
	assert_int_equal(quick_scan_expand(&scan, &r, &err), 0);
	assert_int_equal(r.ncommands, 4);
	for (size_t k = 0; k < 4; k++)
		assert_string_equal(r.labels[k], want_labels[k]);
	/* The label names what the command has no {VAR} of; the command is as it runs. */
	assert_string_equal(r.commands[0], "echo 1");
	assert_string_equal(r.commands[1], "true a");
	spec.commands = (const char *const *)r.commands;
	spec.labels = (const char *const *)r.labels;
	spec.ncommands = r.ncommands;
	quick_names(&spec, &names);
	for (size_t k = 0; k < 4; k++)
		assert_string_equal(names[k], want_names[k]);
	strv_free(names);
	quick_scan_release(&r);
}

/* --prepare under a scan: {VAR} replaced per command made; one that names none stays one. */
static void test_scan_prepare(void **state)
{
	const char *cmds[] = { "x {t}", "y {t}" }, *lists[] = { "t", "1,2" };
	const char *per[] = { "make T={t}" }, *plain[] = { "sync" }, *each[] = { "a{t}", "b{t}" };
	const char *want[] = { "make T=1", "make T=1", "make T=2", "make T=2" };
	const char *want_each[] = { "a1", "b1", "a2", "b2" };
	struct quick_scan scan = { .commands = cmds, .ncommands = 2, .lists = lists, .nlists = 1 };
	struct quick_scan_result r;
	char *err = NULL;
	(void)state;

	scan.prepare = per;
	scan.nprepare = 1;
	assert_int_equal(quick_scan_expand(&scan, &r, &err), 0);
	assert_int_equal(r.nprepare, 4);
	for (size_t k = 0; k < 4; k++)
		assert_string_equal(r.prepare[k], want[k]);
	quick_scan_release(&r);
	scan.prepare = plain;
	assert_int_equal(quick_scan_expand(&scan, &r, &err), 0);
	assert_int_equal(r.nprepare, 1);
	assert_string_equal(r.prepare[0], "sync");
	quick_scan_release(&r);
	scan.prepare = each;
	scan.nprepare = 2;
	assert_int_equal(quick_scan_expand(&scan, &r, &err), 0);
	assert_int_equal(r.nprepare, 4);
	for (size_t k = 0; k < 4; k++)
		assert_string_equal(r.prepare[k], want_each[k]);
	quick_scan_release(&r);
	/* A parameter only the prepare command names is used. */
	scan.commands = (const char *const[]){ "x" };
	scan.ncommands = 1;
	scan.prepare = per;
	scan.nprepare = 1;
	assert_int_equal(quick_scan_expand(&scan, &r, &err), 0);
	assert_int_equal(r.ncommands, 2);
	quick_scan_release(&r);
	scan.nprepare = 3;
	scan.prepare = (const char *const[]){ "a{t}", "b", "c" };
	assert_int_equal(quick_scan_expand(&scan, &r, &err), -1);
	assert_non_null(strstr(err, "3 --prepare commands for 1 commands"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_out_dir),
		cmocka_unit_test(test_bench_plan),
		cmocka_unit_test(test_no_shell_settings_prepare),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_starter),
		cmocka_unit_test(test_plan_parse_errors),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_scan_prepare),
		cmocka_unit_test(test_scan_labels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
