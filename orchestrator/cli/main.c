/*
 * main: parses the command line, calls one verb, and turns its outcome
 * into abev's exit code: it finds the command in the table below and
 * returns what the command returns. The commands live in cli_*.c (see
 * cli.h); the exit codes and the outcome-to-code mapping in cli_exit.c,
 * the one place that decides them.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "plan/plan_doc.h"
#include "util/compiler.h"
#include "util/usage.h"

static const char main_usage[] =
	"usage: abev <command> [options]\n"
	"\n"
	"abev runs a baseline and candidate (or N variants) of a test or benchmark\n"
	"command as fresh, alternated processes, measures each run honestly, and\n"
	"writes an evidence directory with a report.\n"
	"\n"
	"Commands:\n"
	"  run PLAN --out DIR (--key KEY.key | --unsigned)\n"
	"                       run the plan and write sealed evidence into DIR\n"
	"  bench COMMAND COMMAND... [-r N] [-w N] [-n NAME]...\n"
	"                       compare shell commands without a plan file\n"
	"  init [--from-bench COMMAND...] [--out plan.json]\n"
	"                       write a starter plan\n"
	"  verify PATH [--pubkey KEY.pub]\n"
	"                       check an evidence directory or bundle\n"
	"  keygen --out PREFIX  make a signing key (PREFIX.key, .pub, .pub.pem)\n"
	"  pack DIR --out FILE.tar.zst\n"
	"                       pack evidence into a deterministic bundle\n"
	"  report DIR... [--out FILE]\n"
	"                       render DIR's report.md again from its evidence, or\n"
	"                       several hosts' evidence of one plan side by side\n"
	"  compare OLD NEW      compare two evidence directories variant by variant\n"
	"  export DIR --format hyperfine|csv|junit|json\n"
	"                       the evidence's figures for other tools\n"
	"  results FILE... [--list]\n"
	"                       count (or list) the tests in TRX / JUnit result files\n"
	"  guard min-executed --min N FILE...\n"
	"                       fail when fewer than N tests were executed\n"
	"  help [COMMAND]       show help for abev or for one command\n"
	"  help plan            the plan reference: every key, its type, default and\n"
	"                       meaning, and a full example\n"
	"\n"
	"Options:\n"
	"  -h, --help           show this help\n"
	"  -V, --version        show abev's version\n"
	"\n"
	"See 'abev help plan' for the plan format, 'abev help run' for how a plan runs,\n"
	"and the abev(1) manual.\n";

static void print_main_help(FILE *f)
{
	fputs(main_usage, f);
	fputc('\n', f);
	fputs(exit_codes_text, f);
}

static int cmd_help(int argc, char **argv);

/*
 * The commands, git-style: the name, the verb, and the help that both
 * `abev help NAME` and `abev NAME --help` print (usage, then tail).
 */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *tail;
} commands[] = {
	{ "run", cmd_run, run_usage, run_usage_tail },
	{ "bench", cmd_bench, bench_usage, exit_codes_text },
	{ "init", cmd_init, init_usage, "" },
	{ "report", cmd_report, report_usage, "" },
	{ "compare", cmd_compare, compare_usage, "" },
	{ "export", cmd_export, export_usage, "" },
	{ "verify", cmd_verify, verify_usage, "" },
	{ "keygen", cmd_keygen, keygen_usage, "" },
	{ "pack", cmd_pack, pack_usage, "" },
	{ "results", cmd_results, results_usage, "" },
	{ "guard", cmd_guard, guard_usage, "" },
	{ "help", cmd_help, "usage: abev help [COMMAND | plan [--markdown]]\n", "" },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const char help_plan_usage[] = "usage: abev help plan [--markdown]\n";

/* abev help plan: the reference of plan_doc.c; --markdown is README's table. */
static int help_plan(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--markdown"))) {
		error("unknown argument '%s'", argv[argc > 2 ? 2 : 1]);
		fputs(help_plan_usage, stderr);
		return EXIT_USAGE;
	}
	plan_doc_print(stdout, argc == 2 ? PLAN_DOC_MARKDOWN : PLAN_DOC_TEXT);
	return EXIT_PASSED;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_main_help(stdout);
		return EXIT_PASSED;
	}
	if (!strcmp(argv[1], "plan"))
		return help_plan(argc - 1, argv + 1);
	c = find_command(argv[1]);
	if (!c) {
		error("no help for unknown command '%s'", argv[1]);
		fputs(main_usage, stderr);
		return EXIT_USAGE;
	}
	fputs(c->usage, stdout);
	fputs(c->tail, stdout);
	return EXIT_PASSED;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_main_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(1, argv + 1);
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("abev %s\n", ABEV_VERSION);
		return EXIT_PASSED;
	}
	c = find_command(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	error("unknown command '%s'", argv[1]);
	fputs("run 'abev --help' for the list of commands\n", stderr);
	return EXIT_USAGE;
}
