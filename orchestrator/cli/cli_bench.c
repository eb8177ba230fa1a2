/*
 * cli_bench: `abev bench COMMAND...`, hyperfine's command line on abev's
 * run: the options (hyperfine's own, and those it does not take, each
 * refused with what abev does instead), the evidence directory made
 * under a name no other bench took, the plan made from the commands and
 * run as `abev run` runs one (cli_run.h), and the --export-* files
 * written at the end.
 */
#include "cli/cli_run.h"
#include "cli/outpath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/layout.h"
#include "util/alloc.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

static const char bench_usage[] =
	"usage: abev bench [-r N] [-w N] [-n NAME]... [-N] [--prepare CMD]... [--out DIR]\n"
	"                  [--key KEY.key] [--save-plan FILE] [options] COMMAND COMMAND...\n";

static const char bench_about[] =
	"Compares shell commands without a plan file, hyperfine style: e.g.\n"
	"  abev bench 'gzip -1 -c f' 'gzip -9 -c f'\n"
	"The first command is the reference (the baseline). abev makes a plan\n"
	"(abev.plan/1) from the commands and options, runs it exactly as 'abev run'\n"
	"does, writes the same evidence (the plan included, as plan.json) and ends\n"
	"with the same decision and per-metric lines. Each command runs through\n"
	"'sh -c' in the current directory, taken literally ({...} is no placeholder,\n"
	"but for the {VAR} of a -L or -P scan; the run's own directory is\n"
	"$ABEV_RUN_DIR); the variants are named after their commands\n"
	"([A-Za-z0-9._-], other characters become '-') unless -n names them. At\n"
	"most 16 commands are compared at once, the ones a scan makes included.\n";

/* The options of abev bench. */
struct bench_args {
	struct quick_args q;
	struct run_args run;
	const char *save;       /* --save-plan FILE */
	/* hyperfine's: --export-json/-csv/-markdown/-junit FILE, --shell SHELL */
	const char *export_json, *export_csv, *export_markdown, *export_junit, *shell;
};

/*
 * hyperfine's options abev bench does not take, with what abev does
 * instead (the ones it does take work as in hyperfine: -r, -w, -n,
 * --command-name, -N, --shell none, --prepare, -s, -c, -L, -P, -D, -i,
 * -m, -M, --output, --export-*).
 */
static const struct cli_foreign hyperfine_options[] = {
	{ "--conclude", "hyperfine", "abev runs nothing after each run: the run's own output "
	  "is kept in its test.log and stderr.log" },
	{ "--show-output", "hyperfine", "abev keeps every run's output in the evidence "
	  "(runs/<variant>/run-N/test.log and stderr.log); --output=inherit shows it" },
	{ "--input", "hyperfine", "give the command its input itself (sh -c 'cmd < FILE')" },
	{ "--style", "hyperfine", "abev's terminal output has one layout: --color=never (or "
	  "NO_COLOR=1) drops its colours, as --style basic or nocolor; --color=always keeps "
	  "them off a terminal, as --style color or full; --quiet keeps the decision line and "
	  "the evidence path" },
	{ "--time-unit", "hyperfine", "abev shows each figure in the unit that suits it; "
	  "--export-csv and result.json keep milliseconds" },
	{ "-u", "hyperfine", "for --time-unit: abev picks the unit per figure" },
	{ "--sort", "hyperfine", "abev lists the commands in the order given, the first the "
	  "reference" },
	{ "--min-benchmarking-time", "hyperfine", "-r N sets the runs" },
	{ "--reference", "hyperfine", "the first command is the reference" },
	{ "--export-asciidoc", "hyperfine", "--export-markdown FILE writes the table; abev report "
	  "renders the whole report" },
	{ "--export-orgmode", "hyperfine", "--export-markdown FILE writes the table; abev report "
	  "renders the whole report" },
	{ "-p", "hyperfine", "for --prepare: abev spells it --prepare CMD only" },
	{ "-V", "hyperfine", "for --version: 'abev --version' prints abev's" },
	{ "--version", "hyperfine", "'abev --version' prints abev's" },
	{ NULL, NULL, NULL },
};

/*
 * hyperfine's --shell as abev bench takes it: 'none' (-N) or sh. 0, or
 * EXIT_USAGE after the message.
 */
static int bench_hyperfine_check(struct bench_args *b)
{
	if (b->shell) {
		int sh = !strcmp(b->shell, "sh") || !strcmp(b->shell, "/bin/sh") ||
			 !strcmp(b->shell, "default");
		/* As hyperfine: -N is --shell none, so a shell besides it is a contradiction. */
		if (sh && b->q.spec.no_shell)
			return cli_usage_error("'-N' (--shell none) and '--shell sh' contradict each "
					       "other: give one", cmd_bench.usage);
		if (!strcmp(b->shell, "none"))
			b->q.spec.no_shell = 1;
		else if (!sh)
			return cli_usage_error("'--shell' takes 'none' (-N) or 'sh': to run a command "
					       "through another shell, give it with -N, as in -N 'bash -c "
					       "\"...\"'", cmd_bench.usage);
	}
	return 0;
}

/*
 * The --export-* files, checked before anything runs so that a wrong
 * path loses no run: one inside the evidence directory this run writes
 * would be a file its manifest does not list (abev verify would then
 * fail the evidence), and each must be one abev can create at the end
 * (outpath_check_new_file()). 0, or EXIT_USAGE after the message.
 */
static int bench_exports_check(const struct bench_args *b, const char *out)
{
	static const char *const opts[] = { "--export-json", "--export-csv", "--export-junit",
					    "--export-markdown" };
	const char *files[] = { b->export_json, b->export_csv, b->export_junit, b->export_markdown };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *msg;
		if (!files[i] || !outpath_inside(files[i], out))
			continue;
		msg = xasprintf("%s '%s' lies inside the evidence directory '%s' that this run "
				"writes, whose manifest would not list it: choose a path elsewhere",
				opts[i], files[i], out);
		cli_usage_error(msg, cmd_bench.usage);
		free(msg);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		if (files[i] && outpath_check_new_file(opts[i], files[i]) < 0)
			return EXIT_USAGE;
	return 0;
}

/*
 * Writes the exports --export-* asked for, from the evidence just sealed,
 * read once: each is the file of abev export --format of the same name,
 * hyperfine's own. 0 or an exit code.
 */
static int bench_exports(const struct bench_args *b)
{
	static const char *const formats[] = { "hyperfine", "hyperfine-csv", "junit",
					       "hyperfine-markdown" };
	const char *files[] = { b->export_json, b->export_csv, b->export_junit, b->export_markdown };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		if (files[i])
			return cli_export_files(b->run.out, formats, files, ARRAY_SIZE(files));
	return 0;
}

/* Whether the evidence directory dir was sealed (its manifest exists). */
static int bench_sealed(const char *dir)
{
	char *path = path_join(dir, EVIDENCE_MANIFEST_FILE);
	int sealed = access(path, F_OK) == 0;

	free(path);
	return sealed;
}

static int bench_run(void *opts, size_t n, char **operands)
{
	struct bench_args *b = opts;
	struct quick_spec *spec = &b->q.spec;
	struct run_args *a = &b->run;
	const char *save = b->save;
	struct plan plan = PLAN_INIT;
	char *cwd = NULL, *out = NULL, *text = NULL, *shown = NULL;
	int rc, note_unsigned = 0;

	rc = cli_run_quick_check(&b->q, n, operands, cmd_bench.usage);
	if (rc)
		return rc;
	if (!n)
		return cli_usage_error("no command given", cmd_bench.usage);
	rc = bench_hyperfine_check(b);
	if (rc)
		return rc;
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		error("cannot tell the current directory: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	spec->cwd = cwd;
	if (!a->out)
		a->out = out = quick_out_dir(spec, time(NULL));
	rc = bench_exports_check(b, a->out);
	if (rc) {
		free(out);
		free(cwd);
		return rc;
	}
	/* Unsigned by default, unless a key is given (--key, --key-fd) or named by ABEV_SIGNING_KEY. */
	if (!a->key_path && !a->key_fd && !a->unsigned_ok && !getenv(SIGNKEY_ENV)) {
		a->unsigned_ok = 1;
		note_unsigned = !a->quiet;
	}
	rc = cli_run_args_check(a, cmd_bench.usage);
	if (!rc && save && outpath_check_evidence("--save-plan", save) < 0)
		rc = EXIT_USAGE;
	if (!rc)
		rc = cli_run_quick_plan_load(spec, save ? save : "(abev bench)", &text, &plan, a,
					     cmd_bench.usage);
	/* The default is made now, under a name no other bench took (even in the same second). */
	if (!rc && out) {
		char *made = outpath_make_unique(a->out);
		rc = made ? 0 : EXIT_RUNTIME;
		if (made) {
			free(a->out_owned);
			a->out = a->out_owned = made;
			a->out_made = 1;
		}
	}
	if (!rc && save && write_file_new(save, 0644, text, strlen(text)) < 0)
		rc = EXIT_USAGE;
	if (!rc) {
		shown = save ? xstrdup(save) : path_join(a->out, EVIDENCE_PLAN_FILE);
		a->bench = 1;
		rc = cli_run_plan(&plan, a, shown);
		/* Said of evidence that exists: not before a refusal, not of a dry run. */
		if (note_unsigned && !a->dry_run && bench_sealed(a->out))
			fputs("abev: note: the evidence is sealed but not signed (give --key KEY.key "
			      "or set " SIGNKEY_ENV " to sign it)\n", stderr);
		/* Evidence with a decision: the exports hyperfine users asked for, from it. */
		if (rc == EXIT_PASSED || rc == EXIT_FAILED || rc == EXIT_REJECTED ||
		    rc == EXIT_INCONCLUSIVE) {
			int erc = bench_exports(b);
			rc = erc ? erc : rc;
		}
	}
	/* A refusal leaves nothing behind: the directory made above goes while still empty. */
	if (a->out_made && (rc == EXIT_USAGE || rc == EXIT_RUNTIME))
		(void)rmdir(a->out);
	free(a->out_owned);
	plan_release(&plan);
	free(text);
	free(shown);
	free(out);
	free(cwd);
	return rc;
}

static const struct cli_option bench_options[] = {
	QUICK_OPTIONS(struct bench_args, q.),
	{ CLI_STRING('o', "out", struct bench_args, run.out, "DIR",
		     "evidence directory (must not exist); default abev-evidence/<UTC "
		     "time>-<names> in the current directory (-2, -3, ... added when another "
		     "bench took that name)"),
	  .complete = CLI_COMPLETE_DIRS },
	{ CLI_STRING('k', "key", struct bench_args, run.key_path, "KEY.key",
		     "sign the evidence (or the key $ABEV_SIGNING_KEY names); without either it "
		     "is sealed but not signed (a note on stderr says so; --unsigned silences it)"),
	  .complete = CLI_COMPLETE_FILES("*.key") },
	{ CLI_FLAG(0, "unsigned", struct bench_args, run.unsigned_ok,
		   "seal the evidence without signing it, even when ABEV_SIGNING_KEY is set, and "
		   "without the note that says so") },
	{ CLI_STRING(0, "save-plan", struct bench_args, save, "FILE",
		     "also write the plan to FILE (must not exist), for 'abev run FILE' in a "
		     "release pipeline"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	RUN_SHARED_OPTIONS(struct bench_args, run.),
	{ CLI_STRINGS(0, "command-name", struct bench_args, q.names, "NAME", QUICK_MAX_COMMANDS,
		      "hyperfine's name for -n: the same") },
	{ CLI_STRING('S', "shell", struct bench_args, shell, "SHELL",
		     "as hyperfine: 'none' runs the commands without a shell (-N); 'sh' is the "
		     "default; another shell: write it into the command ('bash -c ...') with -N") },
	{ CLI_STRING(0, "export-json", struct bench_args, export_json, "FILE",
		     "at the end, write hyperfine's JSON of the counted runs to FILE (must not "
		     "exist): abev export --format hyperfine"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_STRING(0, "export-csv", struct bench_args, export_csv, "FILE",
		     "at the end, write hyperfine's CSV, a row per command, to FILE (abev export "
		     "--format hyperfine-csv; --format csv has a row per run)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_STRING(0, "export-junit", struct bench_args, export_junit, "FILE",
		     "at the end, write the gates and failures as JUnit XML to FILE (abev export "
		     "--format junit)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_STRING(0, "export-markdown", struct bench_args, export_markdown, "FILE",
		     "at the end, write hyperfine's Markdown table to FILE (abev export --format "
		     "hyperfine-markdown; the evidence's report.md is the whole report)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_END() },
};

static const struct bench_args bench_defaults = { .q = { .spec = QUICK_SPEC_INIT } };

/* abev bench, and what its scan made released. */
static int bench_main(void *opts, size_t n, char **operands)
{
	int rc = bench_run(opts, n, operands);

	quick_scan_release(&((struct bench_args *)opts)->q.scanned);
	return rc;
}

const struct cli_command cmd_bench = {
	.name = "bench",
	.summary = "compare shell commands without a plan file",
	.usage = bench_usage,
	.about = bench_about,
	.tail_more = cli_exit_codes_brief,
	.options = bench_options,
	.operands = "COMMAND",
	.max_operands = CLI_MANY,
	.opts_size = sizeof(struct bench_args),
	.defaults = &bench_defaults,
	.foreign = hyperfine_options,
	.fn = bench_main,
};

