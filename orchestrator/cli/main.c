/*
 * main: parses the command line, calls one verb, and turns its outcome
 * into abev's exit code: it finds the command in the list below, reads
 * its arguments by the command's option table (options.h), calls it and
 * returns what it returns. The commands live in cli_*.c (see cli.h); the
 * exit codes and the outcome-to-code mapping in cli_exit.c, the one place
 * that decides them. `abev help` and `abev help plan` are main's own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "cli/cli.h"
#include "cli/cli_reasons.h"
#include "seal/signkey.h"
#include "plan/plan_doc.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/suggest.h"
#include "util/usage.h"

static const char main_usage[] =
	"usage: abev <command> [options]\n"
	"\n"
	"abev runs a baseline and candidate (or N variants) of a test or benchmark\n"
	"command as fresh processes in a balanced order (AB BA), measures each run\n"
	"honestly, and writes an evidence directory with a report.\n"
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
	"                       meaning, and a full example\n";

static const char main_tail[] =
	"See 'abev help plan' for the plan format, 'abev help run' for how a plan runs,\n"
	"and the abev(1) manual.\n";

/* abev's own options, which main() reads itself, before any command. */
struct main_args {
	int version;
};

static const struct cli_option main_options[] = {
	{ CLI_FLAG('V', "version", struct main_args, version, "show abev's version") },
	{ CLI_END() },
};

/* For the help and the completions: the command line before a command. */
static const struct cli_command cmd_abev = {
	.name = "",
	.usage = "usage: abev <command> [options]\n",
	.options = main_options,
	.operands = "COMMAND",
	.max_operands = 1,
	.complete = CLI_COMPLETE_COMMANDS,
	.opts_size = sizeof(struct main_args),
};

static void print_main_help(FILE *f)
{
	fputs(main_usage, f);
	fputc('\n', f);
	cli_options_print(cmd_abev.options, f);
	fputc('\n', f);
	fputs(main_tail, f);
	fputc('\n', f);
	cli_exit_codes_print(f, CLI_EXIT_BRIEF);
}

static const struct cli_command cmd_help, cmd_help_plan, cmd_help_options, cmd_help_exit_codes,
	cmd_help_reasons;

/* The commands, in the order of the completions. */
static const struct cli_command *const commands[] = {
	&cmd_run, &cmd_bench, &cmd_init, &cmd_report, &cmd_compare, &cmd_export, &cmd_verify,
	&cmd_keygen, &cmd_pack, &cmd_results, &cmd_guard, &cmd_help,
};

/* The command whose name (its first word: "guard" of "guard min-executed") is word. */
static const struct cli_command *find_command(const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strncmp(commands[i]->name, word, n) &&
		    (!commands[i]->name[n] || commands[i]->name[n] == ' '))
			return commands[i];
	return NULL;
}

/* The command nearest to a misspelt word ("bnech": "bench"), or NULL. */
static const char *nearest_command(const char *word)
{
	const char *names[ARRAY_SIZE(commands)];
	static char first[ARRAY_SIZE(commands)][16];   /* the result points into it */

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		/* "guard min-executed" is typed "guard" first. */
		snprintf(first[i], sizeof(first[i]), "%.*s", (int)strcspn(commands[i]->name, " "),
			 commands[i]->name);
		names[i] = first[i];
	}
	return suggest_nearest(word, names, ARRAY_SIZE(commands));
}

/*
 * Runs c on argv (argv[0] the last word of its name): reads the options
 * by its table into a struct of its own, then calls it with the operands.
 */
static int dispatch(const struct cli_command *c, int argc, char **argv)
{
	void *opts = xcalloc(1, c->opts_size);
	size_t n;
	int rc = EXIT_USAGE;

	if (c->defaults)
		memcpy(opts, c->defaults, c->opts_size);
	switch (cli_parse(c, argc, argv, opts, &n)) {
	case CLI_PARSED:
		rc = c->fn(opts, n, argv);
		break;
	case CLI_HELPED:
		rc = EXIT_PASSED;
		break;
	case CLI_BAD_USAGE:
		rc = EXIT_USAGE;
		break;
	}
	cli_options_release(c, opts);
	free(opts);
	return rc;
}

/*
 * A command of two words (`abev guard min-executed`), argv[0] the first:
 * alone or with -h, it shows its help; with another second word, it says
 * which are known.
 */
static int dispatch_sub(const struct cli_command *c, const char *sub, int argc, char **argv)
{
	if (argc < 2) {
		cli_help_print(c, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cli_help_print(c, stdout);
		return EXIT_PASSED;
	}
	if (strcmp(argv[1], sub)) {
		error("unknown %s '%s' (known: %s)", argv[0], argv[1], sub);
		return EXIT_USAGE;
	}
	return dispatch(c, argc - 1, argv + 1);
}

/* abev help plan: the reference of plan_doc.c; --markdown is docs/plan-keys.md. */
struct help_plan_args {
	int markdown;
};

static int help_plan_main(void *opts, size_t n, char **operands)
{
	const struct help_plan_args *a = opts;

	(void)n;
	(void)operands;
	plan_doc_print(stdout, a->markdown ? PLAN_DOC_MARKDOWN : PLAN_DOC_TEXT);
	return EXIT_PASSED;
}

static const struct cli_option help_plan_options[] = {
	{ CLI_FLAG(0, "markdown", struct help_plan_args, markdown,
		   "print the table of docs/plan-keys.md (Markdown) instead") },
	{ CLI_END() },
};

static const struct cli_command cmd_help_plan = {
	.name = "help plan",
	.summary = "the plan reference",
	.usage = "usage: abev help plan [--markdown]\n",
	.about = "The plan reference: every key, its type, default and meaning, and a full\n"
		 "example.\n",
	.options = help_plan_options,
	.opts_size = sizeof(struct help_plan_args),
	.fn = help_plan_main,
};

/* abev help options, exit-codes and reasons: --markdown is their docs/ file. */
struct help_table_args {
	int markdown;
};

static const struct cli_command *const *all_commands(size_t *n);

static int help_options_main(void *opts, size_t n, char **operands)
{
	const struct help_table_args *a = opts;
	const struct cli_command *const *all = all_commands(&n);

	(void)operands;
	if (a->markdown)
		return cli_options_markdown(all, n, stdout) < 0 ? EXIT_RUNTIME : EXIT_PASSED;
	for (size_t i = 0; i < n; i++) {
		fprintf(stdout, "%sabev%s%s\n", i ? "\n" : "", *all[i]->name ? " " : "",
			all[i]->name);
		cli_options_print(all[i]->options, stdout);
	}
	return EXIT_PASSED;
}

static int help_exit_codes_main(void *opts, size_t n, char **operands)
{
	const struct help_table_args *a = opts;

	(void)n;
	(void)operands;
	return cli_exit_codes_print(stdout, a->markdown ? CLI_EXIT_MARKDOWN : CLI_EXIT_TEXT) < 0 ? EXIT_RUNTIME : EXIT_PASSED;
}

static int help_reasons_main(void *opts, size_t n, char **operands)
{
	const struct help_table_args *a = opts;

	(void)n;
	(void)operands;
	return cli_reasons_print(stdout, a->markdown) < 0 ? EXIT_RUNTIME : EXIT_PASSED;
}

static const struct cli_option help_options_options[] = {
	{ CLI_FLAG(0, "markdown", struct help_table_args, markdown,
		   "print the tables of docs/options.md (Markdown) instead") },
	{ CLI_END() },
};

static const struct cli_option help_exit_codes_options[] = {
	{ CLI_FLAG(0, "markdown", struct help_table_args, markdown,
		   "print the table of docs/exit-codes.md (Markdown) instead") },
	{ CLI_END() },
};

static const struct cli_option help_reasons_options[] = {
	{ CLI_FLAG(0, "markdown", struct help_table_args, markdown,
		   "print the table of docs/reason-codes.md (Markdown) instead") },
	{ CLI_END() },
};

static const struct cli_command cmd_help_options = {
	.name = "help options",
	.summary = "every command's options",
	.usage = "usage: abev help options [--markdown]\n",
	.about = "Every command's options, as each command's --help lists them.\n",
	.options = help_options_options,
	.opts_size = sizeof(struct help_table_args),
	.fn = help_options_main,
};

static const struct cli_command cmd_help_exit_codes = {
	.name = "help exit-codes",
	.summary = "the exit codes",
	.usage = "usage: abev help exit-codes [--markdown]\n",
	.about = "Every exit code, what it means, and which wins when several apply.\n",
	.options = help_exit_codes_options,
	.opts_size = sizeof(struct help_table_args),
	.fn = help_exit_codes_main,
};

static const struct cli_command cmd_help_reasons = {
	.name = "help reasons",
	.summary = "the reason codes of result.json",
	.usage = "usage: abev help reasons [--markdown]\n",
	.about = "Every code result.json's comparison gives for why — a gate's reason, why a\n"
		 "change has no interval, a warning, a run that blocks acceptance, a missing\n"
		 "figure — with its field and the numbers beside it.\n",
	.options = help_reasons_options,
	.opts_size = sizeof(struct help_table_args),
	.fn = help_reasons_main,
};

static int help_main(void *opts, size_t n, char **operands)
{
	const struct cli_command *c;

	(void)opts;
	if (!n) {
		print_main_help(stdout);
		return EXIT_PASSED;
	}
	if (!strcmp(operands[0], "plan"))
		return dispatch(&cmd_help_plan, (int)n, operands);
	if (!strcmp(operands[0], "options"))
		return dispatch(&cmd_help_options, (int)n, operands);
	if (!strcmp(operands[0], "exit-codes"))
		return dispatch(&cmd_help_exit_codes, (int)n, operands);
	if (!strcmp(operands[0], "reasons"))
		return dispatch(&cmd_help_reasons, (int)n, operands);
	c = find_command(operands[0]);
	if (!c) {
		const char *near = nearest_command(operands[0]);
		error("no help for unknown command '%s'%s%s%s", operands[0], SUGGEST_ARGS(near));
		fputs(main_usage, stderr);
		return EXIT_USAGE;
	}
	cli_help_print(c, stdout);
	return EXIT_PASSED;
}

/* `abev help`: no options of its own; the first operand names what to show. */
static const struct cli_option help_options[] = {
	{ CLI_END() },
};

static const struct cli_command cmd_help = {
	.name = "help",
	.summary = "show help for a command",
	.usage = "usage: abev help [COMMAND | plan | options | exit-codes | reasons] [--markdown]\n",
	.about = "Shows the help of abev, of one of its commands (as 'abev COMMAND --help'\n"
		 "does), the plan reference, every command's options, or the exit codes.\n",
	.options = help_options,
	.operands = "COMMAND",
	.max_operands = CLI_MANY,
	.complete = CLI_COMPLETE_COMMANDS,
	.stop_at_operand = 1,
	.fn = help_main,
};

/* Every table: abev's own, each command's, the help topics'. */
static const struct cli_command *const *all_commands(size_t *n)
{
	static const struct cli_command *all[ARRAY_SIZE(commands) + 5];

	*n = 0;
	all[(*n)++] = &cmd_abev;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		all[(*n)++] = commands[i];
	all[(*n)++] = &cmd_help_plan;
	all[(*n)++] = &cmd_help_options;
	all[(*n)++] = &cmd_help_exit_codes;
	all[(*n)++] = &cmd_help_reasons;
	return all;
}

/* `abev __options` (hidden): every table, for the completions and the manual's checks. */
static int dump_options(void)
{
	size_t n;
	const struct cli_command *const *all = all_commands(&n);

	return cli_options_dump(all, n, stdout) < 0 ? EXIT_RUNTIME : EXIT_PASSED;
}

int main(int argc, char **argv)
{
	const struct cli_command *c;
	const char *sub;

	/*
	 * Before anything is read or started: a process of the same user (a
	 * run under test among them) may not read abev's memory, its
	 * environment block or its descriptors through /proc/PID, nor attach
	 * to it. The watchdog, forked without exec, inherits this; the
	 * programs abev runs do not (execve resets it).
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		error("cannot keep abev's memory from other processes (prctl): %s",
		      strerror(errno));
		return EXIT_RUNTIME;
	}
	if (argc < 2) {
		print_main_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_main_help(stdout);
		return EXIT_PASSED;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("abev %s\n", ABEV_VERSION);
		return EXIT_PASSED;
	}
	if (!strcmp(argv[1], "__options"))
		return dump_options();
	/*
	 * No program abev starts ever inherits the signing key (a path, or the
	 * key's text), nor finds it in abev's environment block.
	 */
	if (env_withhold(SIGNKEY_ENV) < 0)
		return EXIT_RUNTIME;
	c = find_command(argv[1]);
	if (!c) {
		const char *near = nearest_command(argv[1]);
		error("unknown command '%s'%s%s%s", argv[1], SUGGEST_ARGS(near));
		fputs("run 'abev --help' for the list of commands\n", stderr);
		return EXIT_USAGE;
	}
	sub = strchr(c->name, ' ');
	if (sub)
		return dispatch_sub(c, sub + 1, argc - 1, argv + 1);
	return dispatch(c, argc - 1, argv + 1);
}
