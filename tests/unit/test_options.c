/*
 * Unit tests of options.c, the one parser of every abev command: a table
 * of command lines, each with what it must set, which operands it leaves
 * and which message it must give (every spelling abev accepts, and every
 * refusal: unknown option with its suggestion, missing value, bad number,
 * too many values, surplus operand); then where the help and the usage
 * go, the help's layout, stop-at-operand, callbacks with optional values,
 * and the dump the completions are made from.
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
#include <unistd.h>

#include "cli/options.h"
#include "util/compiler.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* The option struct of the test command: one member per kind. */
struct t_opts {
	int quiet, flag, secret;
	const char *out;
	int64_t runs, count;
	double gap;
	struct cli_strings names;
	const char *color;
	int color_calls;
};

/* --color: "red" or "blue"; with no value, "auto". */
static int color_cb(const struct cli_option *opt, const char *arg, void *dest)
{
	struct t_opts *o = (struct t_opts *)((char *)dest - offsetof(struct t_opts, color));

	o->color_calls++;
	if (!arg) {
		o->color = "auto";
		return 0;
	}
	if (strcmp(arg, "red") && strcmp(arg, "blue"))
		return error("'--%s' must be red or blue, not '%s'", opt->long_name, arg);
	o->color = arg;
	return 0;
}

static const struct cli_option t_options[] = {
	{ CLI_FLAG('q', "quiet", struct t_opts, quiet, "say less") },
	{ CLI_FLAG(0, "flag", struct t_opts, flag, "a long flag") },
	{ CLI_STRING('o', "out", struct t_opts, out, "DIR", "where to write"),
	  .complete = CLI_COMPLETE_DIRS },
	{ CLI_INT('r', "runs", struct t_opts, runs, "N", 1, 100, NULL, "how many runs") },
	{ CLI_INT(0, "count", struct t_opts, count, "N", 0, INT64_MAX, "rounds", "how many rounds") },
	{ CLI_DOUBLE(0, "gap", struct t_opts, gap, "S", 0, 10, "seconds", "a pause") },
	{ CLI_STRINGS('n', "name", struct t_opts, names, "NAME", 3, "a name, up to three") },
	{ CLI_CALLBACK(0, "color", struct t_opts, color, "C", color_cb, "red or blue"),
	  .flags = CLI_OPT_OPTARG },
	{ CLI_FLAG(0, "secret", struct t_opts, secret, "not shown"), .flags = CLI_OPT_HIDDEN },
	{ CLI_END() },
};

static const struct t_opts t_defaults = { .runs = -1, .count = -1, .gap = -1 };

static const struct cli_command t_cmd = {
	.name = "t",
	.usage = "usage: abev t [options] A [B]\n",
	.about = "A command of the tests.\n",
	.tail = "The end.\n",
	.options = t_options,
	.operands = "A B",
	.max_operands = 2,
	.opts_size = sizeof(struct t_opts),
	.defaults = &t_defaults,
};

static char last_error[512];
static int nerrors;

static void capture(const char *prefix, const char *msg)
{
	(void)prefix;
	snprintf(last_error, sizeof(last_error), "%s", msg);
	nerrors++;
}

/* What one parse left: its result, stdout and stderr, the operands. */
struct parsed {
	enum cli_parse_result res;
	struct t_opts o;
	size_t n;
	char *argv[16];
	char out[8192], err[8192];
};

/* Reads what fd 1 or 2 got into buf (from the temporary file f). */
static void slurp(FILE *f, char *buf, size_t size)
{
	size_t got;

	rewind(f);
	got = fread(buf, 1, size - 1, f);
	buf[got] = '\0';
	fclose(f);
}

/* Parses args (NULL-terminated; argv[0] "t" added) by c, stdout and stderr captured. */
static void parse_by(const struct cli_command *c, struct parsed *p, const char *const *args)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int so, se, argc = 1;

	assert_non_null(fo);
	assert_non_null(fe);
	memset(p, 0, sizeof(*p));
	memcpy(&p->o, &t_defaults, sizeof(p->o));
	p->argv[0] = (char *)"t";
	for (; *args; args++) {
		assert_true(argc < 15);
		p->argv[argc++] = (char *)*args;
	}
	last_error[0] = '\0';
	nerrors = 0;
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	set_error_routine(capture);
	p->res = cli_parse(c, argc, p->argv, &p->o, &p->n);
	set_error_routine(NULL);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp(fo, p->out, sizeof(p->out));
	slurp(fe, p->err, sizeof(p->err));
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* A command line that parses: the settings and operands it must leave. */
static void test_spellings(void **state)
{
	const struct {
		const char *const *args;
		int quiet, flag;
		const char *out;
		int64_t runs, count;
		double gap;
		const char *names;   /* joined by ',' */
		const char *operands; /* joined by ',' */
	} cases[] = {
		{ ARGS("a"), 0, 0, NULL, -1, -1, -1, "", "a" },
		{ ARGS("--quiet", "a"), 1, 0, NULL, -1, -1, -1, "", "a" },
		{ ARGS("-q", "a", "--flag"), 1, 1, NULL, -1, -1, -1, "", "a" },
		{ ARGS("--out", "d", "a"), 0, 0, "d", -1, -1, -1, "", "a" },
		{ ARGS("--out=d", "a"), 0, 0, "d", -1, -1, -1, "", "a" },
		{ ARGS("-o", "d", "a"), 0, 0, "d", -1, -1, -1, "", "a" },
		{ ARGS("--out=", "a"), 0, 0, "", -1, -1, -1, "", "a" },
		{ ARGS("--out=x=y"), 0, 0, "x=y", -1, -1, -1, "", "" },
		/* A value is taken as it is, even one that looks like an option. */
		{ ARGS("--out", "--quiet"), 0, 0, "--quiet", -1, -1, -1, "", "" },
		{ ARGS("-o", "-"), 0, 0, "-", -1, -1, -1, "", "" },
		/* Not repeatable: the last wins. */
		{ ARGS("-o", "x", "--out", "y"), 0, 0, "y", -1, -1, -1, "", "" },
		{ ARGS("-r", "5", "--runs=7"), 0, 0, NULL, 7, -1, -1, "", "" },
		{ ARGS("--runs", "1", "--count", "0"), 0, 0, NULL, 1, 0, -1, "", "" },
		{ ARGS("--runs=100", "--count=9000000000"), 0, 0, NULL, 100, 9000000000, -1, "", "" },
		{ ARGS("--gap", "2.5"), 0, 0, NULL, -1, -1, 2.5, "", "" },
		{ ARGS("--gap=0", "a", "b"), 0, 0, NULL, -1, -1, 0, "", "a,b" },
		{ ARGS("-n", "x", "--name", "y", "--name=z"), 0, 0, NULL, -1, -1, -1, "x,y,z", "" },
		/* Operands anywhere; "-" is one; after "--" everything is. */
		{ ARGS("a", "-q", "b"), 1, 0, NULL, -1, -1, -1, "", "a,b" },
		{ ARGS("-", "-q"), 1, 0, NULL, -1, -1, -1, "", "-" },
		{ ARGS("--", "-q", "--out"), 0, 0, NULL, -1, -1, -1, "", "-q,--out" },
		{ ARGS("-q", "--", "--"), 1, 0, NULL, -1, -1, -1, "", "--" },
		/* Hidden options parse. */
		{ ARGS("--secret"), 0, 0, NULL, -1, -1, -1, "", "" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct parsed p;
		struct strbuf names = STRBUF_INIT, ops = STRBUF_INIT;

		parse_by(&t_cmd, &p, cases[i].args);
		if (p.res != CLI_PARSED)
			fail_msg("case %zu: not parsed: %s", i, last_error);
		assert_int_equal(nerrors, 0);
		assert_int_equal(p.o.quiet, cases[i].quiet);
		assert_int_equal(p.o.flag, cases[i].flag);
		if (cases[i].out)
			assert_string_equal(p.o.out, cases[i].out);
		else
			assert_null(p.o.out);
		assert_int_equal(p.o.runs, cases[i].runs);
		assert_int_equal(p.o.count, cases[i].count);
		assert_true(p.o.gap == cases[i].gap);
		for (size_t k = 0; k < p.o.names.n; k++)
			strbuf_addf(&names, "%s%s", k ? "," : "", p.o.names.v[k]);
		for (size_t k = 0; k < p.n; k++)
			strbuf_addf(&ops, "%s%s", k ? "," : "", p.argv[k]);
		if (strcmp(names.buf, cases[i].names) || strcmp(ops.buf, cases[i].operands))
			fail_msg("case %zu: names '%s' operands '%s'", i, names.buf, ops.buf);
		assert_string_equal(p.out, "");
		assert_string_equal(p.err, "");
		strbuf_release(&names);
		strbuf_release(&ops);
		cli_options_release(&t_cmd, &p.o);
		assert_null(p.o.names.v);
	}
}

/* A command line refused: the one message, and whether the usage follows it on stderr. */
static void test_errors(void **state)
{
	const struct {
		const char *const *args;
		const char *msg;
		int usage;
	} cases[] = {
		{ ARGS("--bogus"), "unknown option '--bogus' for 'abev t'", 1 },
		{ ARGS("--quite"), "unknown option '--quite' for 'abev t', did you mean '--quiet'?", 1 },
		{ ARGS("--nmae", "x"), "unknown option '--nmae' for 'abev t', did you mean '--name'?",
		  1 },
		{ ARGS("-flag"), "unknown option '-flag' for 'abev t', did you mean '--flag'?", 1 },
		{ ARGS("--hepl"), "did you mean '--help'?", 1 },
		/* Hidden options are never suggested. */
		{ ARGS("--secrte"), "unknown option '--secrte' for 'abev t'", 1 },
		/* A flag takes no value; short options take no glued value and do not bundle. */
		{ ARGS("--quiet=1"), "unknown option '--quiet=1' for 'abev t', did you mean '--quiet'?",
		  1 },
		{ ARGS("-ox"), "unknown option '-ox' for 'abev t'", 1 },
		{ ARGS("-o=x"), "unknown option '-o=x' for 'abev t'", 1 },
		{ ARGS("-qr"), "unknown option '-qr' for 'abev t'", 1 },
		{ ARGS("-x"), "unknown option '-x' for 'abev t'", 1 },
		{ ARGS("---quiet"), "unknown option '---quiet' for 'abev t'", 1 },
		{ ARGS("--out"), "option '--out' needs a value", 0 },
		{ ARGS("a", "-o"), "option '--out' needs a value", 0 },
		{ ARGS("-r"), "option '--runs' needs a value", 0 },
		{ ARGS("-r", "x"), "'--runs' must be a whole number from 1 to 100", 1 },
		{ ARGS("-r", "0"), "'--runs' must be a whole number from 1 to 100", 1 },
		{ ARGS("--runs=101"), "'--runs' must be a whole number from 1 to 100", 1 },
		{ ARGS("--runs="), "'--runs' must be a whole number from 1 to 100", 1 },
		{ ARGS("--runs", "2.5"), "'--runs' must be a whole number from 1 to 100", 1 },
		{ ARGS("--count", "-1"), "'--count' must be a whole number of rounds of at least 0", 1 },
		{ ARGS("--gap", "11"), "'--gap' must be a number of seconds from 0 to 10", 1 },
		{ ARGS("--gap", "nan"), "'--gap' must be a number of seconds from 0 to 10", 1 },
		{ ARGS("--gap", "-0.5"), "'--gap' must be a number of seconds from 0 to 10", 1 },
		{ ARGS("-n", "a", "-n", "b", "-n", "c", "-n", "d"),
		  "option '--name' given more than 3 times", 0 },
		{ ARGS("a", "b", "c"), "unexpected argument 'c' for 'abev t'", 1 },
		{ ARGS("--", "a", "b", "-q"), "unexpected argument '-q' for 'abev t'", 1 },
		{ ARGS("--color=green"), "'--color' must be red or blue, not 'green'", 1 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct parsed p;

		parse_by(&t_cmd, &p, cases[i].args);
		if (p.res != CLI_BAD_USAGE || nerrors != 1 || !strstr(last_error, cases[i].msg))
			fail_msg("case %zu: result %d, %d errors, last '%s'; want '%s'", i, (int)p.res,
				 nerrors, last_error, cases[i].msg);
		assert_string_equal(p.out, "");
		assert_string_equal(p.err, cases[i].usage ? t_cmd.usage : "");
		cli_options_release(&t_cmd, &p.o);
	}
}

/* -h and --help print the help on stdout and win over a bad value given before them. */
static void test_help_wins(void **state)
{
	const char *const *cases[] = {
		ARGS("-h"), ARGS("--help"), ARGS("a", "--help", "--bogus"), ARGS("--runs", "x", "-h"),
		ARGS("--gap=99", "--help"),
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct parsed p;

		parse_by(&t_cmd, &p, cases[i]);
		assert_int_equal(p.res, CLI_HELPED);
		assert_int_equal(nerrors, 0);
		assert_true(!strncmp(p.out, "usage: abev t [options] A [B]\n\nA command", 40));
		assert_string_equal(p.err, "");
		cli_options_release(&t_cmd, &p.o);
	}
	/* "--help=x" is no spelling of it. */
	{
		struct parsed p;
		parse_by(&t_cmd, &p, ARGS("--help=x"));
		assert_int_equal(p.res, CLI_BAD_USAGE);
		assert_non_null(strstr(last_error, "did you mean '--help'?"));
	}
}

/* An optional value comes only with "=": "--color red" leaves red an operand. */
static void test_optional_value(void **state)
{
	struct parsed p;

	(void)state;
	parse_by(&t_cmd, &p, ARGS("--color"));
	assert_int_equal(p.res, CLI_PARSED);
	assert_string_equal(p.o.color, "auto");
	assert_int_equal(p.o.color_calls, 1);
	parse_by(&t_cmd, &p, ARGS("--color=blue"));
	assert_int_equal(p.res, CLI_PARSED);
	assert_string_equal(p.o.color, "blue");
	parse_by(&t_cmd, &p, ARGS("--color", "red"));
	assert_int_equal(p.res, CLI_PARSED);
	assert_string_equal(p.o.color, "auto");
	assert_int_equal(p.n, 1);
	assert_string_equal(p.argv[0], "red");
	/* Given twice: the callback sees the last one, once. */
	parse_by(&t_cmd, &p, ARGS("--color=green", "--color=red"));
	assert_int_equal(p.res, CLI_PARSED);
	assert_string_equal(p.o.color, "red");
	assert_int_equal(p.o.color_calls, 1);
}

/* With stop_at_operand, everything from the first operand on is an operand. */
static void test_stop_at_operand(void **state)
{
	struct cli_command c = t_cmd;
	struct parsed p;

	(void)state;
	c.stop_at_operand = 1;
	c.max_operands = CLI_MANY;
	parse_by(&c, &p, ARGS("-q", "plan", "--markdown", "-h"));
	assert_int_equal(p.res, CLI_PARSED);
	assert_int_equal(p.o.quiet, 1);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.argv[0], "plan");
	assert_string_equal(p.argv[1], "--markdown");
	assert_string_equal(p.argv[2], "-h");
}

/* The help: usage, about, the options wrapped at column 20, -h last, tail; hidden left out. */
static void test_help_text(void **state)
{
	static const struct cli_option opts[] = {
		{ CLI_FLAG('q', "quiet", struct t_opts, quiet, "say less") },
		{ CLI_STRING(0, "a-rather-long-option", struct t_opts, out, "VALUE",
			     "its help starts on a line of its own, and a long help is filled into "
			     "lines that end before column 80, words kept whole") },
		{ CLI_STRING('o', "out", struct t_opts, out, "DIRECTORY", "too wide to share its line") },
		{ CLI_FLAG(0, "secret", struct t_opts, secret, "not shown"), .flags = CLI_OPT_HIDDEN },
		{ CLI_CALLBACK(0, "color", struct t_opts, color, "C", color_cb, "optional"),
		  .flags = CLI_OPT_OPTARG },
		{ CLI_END() },
	};
	static const char want[] =
		"Options:\n"
		"  -q, --quiet       say less\n"
		"  --a-rather-long-option VALUE\n"
		"                    its help starts on a line of its own, and a long help is\n"
		"                    filled into lines that end before column 80, words kept\n"
		"                    whole\n"
		"  -o, --out DIRECTORY\n"
		"                    too wide to share its line\n"
		"  --color[=C]       optional\n"
		"  -h, --help        show this help\n";
	char buf[2048];
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	cli_options_print(opts, f);
	slurp(f, buf, sizeof(buf));
	assert_string_equal(buf, want);

	f = tmpfile();
	assert_non_null(f);
	cli_help_print(&t_cmd, f);
	slurp(f, buf, sizeof(buf));
	assert_true(!strncmp(buf, "usage: abev t [options] A [B]\n\nA command of the tests.\n\n"
			    "Options:\n  -q, --quiet       say less\n", 80));
	assert_non_null(strstr(buf, "  -h, --help        show this help\n\nThe end.\n"));
	assert_null(strstr(buf, "secret"));
}

/* The dump: every visible row and -h, --help, with what the completions need. */
static void test_dump(void **state)
{
	const struct cli_command *cmds[] = { &t_cmd };
	char buf[8192];
	FILE *f = tmpfile();
	cJSON *doc, *cmd, *opts, *o;
	int n = 0;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cli_options_dump(cmds, 1, f), 0);
	slurp(f, buf, sizeof(buf));
	doc = cJSON_Parse(buf);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "abev.options/1");
	cmd = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "commands"), 0);
	assert_string_equal(cJSON_GetObjectItem(cmd, "name")->valuestring, "t");
	assert_int_equal(cJSON_GetObjectItem(cmd, "max_operands")->valueint, 2);
	opts = cJSON_GetObjectItem(cmd, "options");
	cJSON_ArrayForEach(o, opts) {
		const char *lng = cJSON_GetObjectItem(o, "long")->valuestring;
		assert_string_not_equal(lng, "secret");
		if (!strcmp(lng, "out")) {
			assert_string_equal(cJSON_GetObjectItem(o, "short")->valuestring, "o");
			assert_string_equal(cJSON_GetObjectItem(o, "arg")->valuestring, "DIR");
			assert_string_equal(cJSON_GetObjectItem(o, "complete")->valuestring, "dirs");
		}
		if (!strcmp(lng, "name"))
			assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "repeatable")));
		if (!strcmp(lng, "quiet"))
			assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "arg")));
		n++;
	}
	/* Nine rows, one hidden, and -h, --help last. */
	assert_int_equal(n, 9);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(opts, 8), "long")->valuestring,
			    "help");
	cJSON_Delete(doc);
}

/* A command with an option of two values each time: hyperfine's -L VAR VALUES. */
struct pair_opts {
	struct cli_strings pairs, range;
};

static const struct cli_option pair_options[] = {
	{ CLI_STRINGS_N('L', "list", struct pair_opts, pairs, "VAR VALUES", 2, 2,
			"a list, at most twice") },
	{ CLI_STRINGS_N('P', "range", struct pair_opts, range, "VAR MIN MAX", 3, 1,
			"a range, once") },
	{ CLI_END() },
};

static const struct cli_command pair_cmd = {
	.name = "p",
	.usage = "usage: abev p [-L VAR VALUES]... [-P VAR MIN MAX]\n",
	.options = pair_options,
	.operands = "A",
	.max_operands = 1,
	.opts_size = sizeof(struct pair_opts),
};

static enum cli_parse_result parse_pairs(struct pair_opts *o, const char *const *args,
					 size_t *n)
{
	char *argv[16] = { (char *)"p" };
	int argc = 1;
	enum cli_parse_result res;

	for (; *args; args++)
		argv[argc++] = (char *)*args;
	memset(o, 0, sizeof(*o));
	last_error[0] = '\0';
	nerrors = 0;
	set_error_routine(capture);
	res = cli_parse(&pair_cmd, argc, argv, o, n);
	set_error_routine(NULL);
	return res;
}

/* An option of several values takes them as the arguments after it, each time. */
static void test_several_values(void **state)
{
	struct pair_opts o;
	size_t n;
	(void)state;

	assert_int_equal(parse_pairs(&o, ARGS("-L", "a", "1,2", "op", "--list", "b", "x"), &n),
			 CLI_PARSED);
	assert_int_equal(o.pairs.n, 4);
	assert_string_equal(o.pairs.v[0], "a");
	assert_string_equal(o.pairs.v[1], "1,2");
	assert_string_equal(o.pairs.v[2], "b");
	assert_string_equal(o.pairs.v[3], "x");
	assert_int_equal(n, 1);
	cli_options_release(&pair_cmd, &o);
	/* Too few values, "=", and once more than allowed: refused, each with its reason. */
	assert_int_equal(parse_pairs(&o, ARGS("-L", "a"), &n), CLI_BAD_USAGE);
	assert_non_null(strstr(last_error, "option '--list' needs 2 values: VAR VALUES"));
	cli_options_release(&pair_cmd, &o);
	assert_int_equal(parse_pairs(&o, ARGS("--list=a", "1"), &n), CLI_BAD_USAGE);
	assert_non_null(strstr(last_error, "takes 2 values (VAR VALUES) as the arguments after it"));
	cli_options_release(&pair_cmd, &o);
	assert_int_equal(parse_pairs(&o, ARGS("-L", "a", "1", "-L", "b", "2", "-L", "c", "3"), &n),
			 CLI_BAD_USAGE);
	assert_non_null(strstr(last_error, "option '--list' given more than 2 times"));
	cli_options_release(&pair_cmd, &o);
	/* Three values, negative numbers among them; once only, said so. */
	assert_int_equal(parse_pairs(&o, ARGS("-P", "t", "-5", "-3", "op"), &n), CLI_PARSED);
	assert_int_equal(o.range.n, 3);
	assert_string_equal(o.range.v[1], "-5");
	assert_string_equal(o.range.v[2], "-3");
	cli_options_release(&pair_cmd, &o);
	assert_int_equal(parse_pairs(&o, ARGS("-P", "t", "1", "2", "-P", "u", "1", "2"), &n),
			 CLI_BAD_USAGE);
	assert_non_null(strstr(last_error, "option '--range' given more than once"));
	cli_options_release(&pair_cmd, &o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spellings),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help_wins),
		cmocka_unit_test(test_optional_value),
		cmocka_unit_test(test_stop_at_operand),
		cmocka_unit_test(test_help_text),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_several_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
