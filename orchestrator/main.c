/*
 * main: parses the command line, calls one verb, and turns its outcome
 * into abev's exit code. This is the only place that decides exit codes
 * and the only place that prints usage text.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inspect.h"
#include "plan.h"
#include "runner.h"
#include "util.h"

enum exit_code {
	EXIT_PASSED = 0,       /* every invocation ran and passed */
	EXIT_FAILED = 1,       /* evidence produced, an invocation failed */
	EXIT_USAGE = 2,        /* usage or plan error */
	EXIT_RUNTIME = 3,      /* cannot create the directory, nothing could be spawned */
	EXIT_VERIFY = 4,       /* reserved: failed verification */
	EXIT_SIGNAL_BASE = 128 /* interrupted: 128 + signal (130 SIGINT, 143 SIGTERM) */
};

static const char exit_codes_text[] =
	"Exit codes:\n"
	"  0    every invocation ran and passed\n"
	"  1    evidence was produced but an invocation failed (non-zero exit, signal,\n"
	"       timeout, exec failure, or a run slot lost to foreign load)\n"
	"  2    usage or plan error (nothing is run, nothing is written)\n"
	"  3    runtime error (cannot create the evidence directory, cannot spawn)\n"
	"  4    reserved for failed verification\n"
	"  130  interrupted by SIGINT: evidence is written and marked \"interrupted\"\n"
	"  143  interrupted by SIGTERM: likewise\n";

static const char main_usage[] =
	"usage: abev <command> [options]\n"
	"\n"
	"abev runs a baseline and candidate (or N variants) of a test or benchmark\n"
	"command as fresh, alternated processes, measures each run honestly, and\n"
	"writes an evidence directory with a report.\n"
	"\n"
	"Commands:\n"
	"  run PLAN --out DIR   run the plan and write evidence into DIR\n"
	"  results FILE...      count the tests in TRX / JUnit result files\n"
	"  guard min-executed --min N FILE...\n"
	"                       fail when fewer than N tests were executed\n"
	"  help [COMMAND]       show help for abev or for one command\n"
	"\n"
	"Options:\n"
	"  -h, --help           show this help\n"
	"  -V, --version        show abev's version\n"
	"\n"
	"See 'abev help run' for the plan format, and the abev(1) manual.\n";

static const char run_usage[] =
	"usage: abev run PLAN --out DIR [--quiet] [--dry-run]\n"
	"\n"
	"Runs every variant of PLAN (a JSON plan, schema \"abev.plan/1\") as fresh\n"
	"processes: warmups first (never counted), then the recorded runs in the\n"
	"plan's order (alternate: AB AB..., reverse: AB BA AB..., shuffle: drawn from\n"
	"the seed), with gap_seconds between the end of one process and the start of\n"
	"the next. Each run is measured (wall, CPU, peak RSS, faults, load, foreign\n"
	"CPU, cgroup figures where available); runs that overlapped foreign load are\n"
	"kept as \"discarded\" and repeated.\n"
	"\n"
	"Options:\n"
	"  -o, --out DIR   evidence directory to create (must not exist)\n"
	"  -q, --quiet     print nothing but errors\n"
	"  -n, --dry-run   check the plan and print the schedule; run and write nothing\n"
	"  -h, --help      show this help\n"
	"\n"
	"Evidence: DIR/plan.json, DIR/result.json (abev.run/1), DIR/report.md, and per\n"
	"invocation DIR/runs/<variant>/<phase>-<round>[-attempt-<k>]/ with test.log,\n"
	"stderr.log, resource.log and result.json (abev.invocation/1).\n"
	"\n";

static const char results_usage[] =
	"usage: abev results FILE... [--json] [--min-executed N]\n"
	"\n"
	"Reads VSTest TRX and JUnit XML result files (the format is told from the root\n"
	"element) and prints, per file and in total, the tests counted from the results\n"
	"themselves: total, executed, passed, failed, errors, skipped and other. Leaf rows\n"
	"of data-driven tests count, not their parents; a result without an outcome is\n"
	"an error, never a pass. Where the file's own counters disagree, a note says so.\n"
	"Files with a DOCTYPE, entities, excessive nesting or over 1 GiB are refused.\n"
	"\n"
	"Options:\n"
	"  --json             print an abev.results/1 document instead of the table\n"
	"  --min-executed N   fail (exit 1) when fewer than N tests were executed in all\n"
	"                     the files together\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit codes: 0 read (and the guard passed); 1 the guard failed; 2 a file could\n"
	"not be read or was refused, or a usage error.\n";

static const char guard_usage[] =
	"usage: abev guard min-executed --min N FILE...\n"
	"\n"
	"The MIN_EXECUTED guard on its own: passes when at least N tests were executed\n"
	"in the result files together (skipped and not-run tests are not executed; no\n"
	"file at all fails). Prints one line: min_executed: pass|fail: <reason>.\n"
	"\n"
	"Exit codes: 0 pass; 1 fail; 2 a file could not be read or was refused, or a\n"
	"usage error.\n";

static void print_run_help(FILE *f)
{
	fputs(run_usage, f);
	fputs(exit_codes_text, f);
}

static void print_main_help(FILE *f)
{
	fputs(main_usage, f);
	fputc('\n', f);
	fputs(exit_codes_text, f);
}

static int usage_error(const char *msg, const char *hint)
{
	error("%s", msg);
	fprintf(stderr, "%s\n", hint);
	return EXIT_USAGE;
}

static int cmd_run(int argc, char **argv)
{
	const char *plan_path = NULL, *out = NULL;
	int quiet = 0, dry_run = 0, signo = 0, rc;
	struct plan plan = PLAN_INIT;
	struct runner_options opt;
	char *reproduce = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_run_help(stdout);
			return EXIT_PASSED;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (!strcmp(a, "-n") || !strcmp(a, "--dry-run")) {
			dry_run = 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
			if (i + 1 >= argc)
				return usage_error("option '--out' needs a directory",
						   "usage: abev run PLAN --out DIR");
			out = argv[++i];
		} else if (!strncmp(a, "--out=", 6)) {
			out = a + 6;
		} else if (!strcmp(a, "--")) {
			if (i + 1 < argc && !plan_path)
				plan_path = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			error("unknown option '%s' for 'abev run'", a);
			fprintf(stderr, "usage: abev run PLAN --out DIR [--quiet] [--dry-run]\n");
			return EXIT_USAGE;
		} else if (!plan_path) {
			plan_path = a;
		} else {
			error("unexpected argument '%s' (the plan is already '%s')", a, plan_path);
			return EXIT_USAGE;
		}
	}
	if (!plan_path)
		return usage_error("no plan given", "usage: abev run PLAN --out DIR");
	if (!out && !dry_run)
		return usage_error("no evidence directory given",
				   "usage: abev run PLAN --out DIR   (DIR must not exist)");
	if (out && !*out)
		return usage_error("'--out' is empty", "usage: abev run PLAN --out DIR");

	if (plan_load(&plan, plan_path) < 0)
		return EXIT_USAGE;
	if (dry_run) {
		runner_print_schedule(&plan);
		plan_release(&plan);
		return EXIT_PASSED;
	}

	reproduce = xasprintf("abev run %s --out NEW_DIR", plan_path);
	opt.out_dir = out;
	opt.reproduce = reproduce;
	if (quiet)
		opt.progress = PROGRESS_QUIET;
	else if (isatty(STDERR_FILENO))
		opt.progress = PROGRESS_LIVE;
	else
		opt.progress = PROGRESS_LINES;

	switch (runner_run(&plan, &opt, &signo)) {
	case RUNNER_PASSED: rc = EXIT_PASSED; break;
	case RUNNER_FAILED: rc = EXIT_FAILED; break;
	case RUNNER_INTERRUPTED: rc = EXIT_SIGNAL_BASE + signo; break;
	case RUNNER_USAGE: rc = EXIT_USAGE; break;
	case RUNNER_ERROR:
	default: rc = EXIT_RUNTIME; break;
	}
	plan_release(&plan);
	free(reproduce);
	return rc;
}

static int parse_count(const char *opt, const char *val, int64_t *out)
{
	if (!val || parse_int64(val, out) < 0 || *out < 0) {
		error("option '%s' needs a non-negative integer, not '%s'", opt, val ? val : "");
		return -1;
	}
	return 0;
}

static int inspect_exit(enum inspect_outcome o)
{
	switch (o) {
	case INSPECT_OK: return EXIT_PASSED;
	case INSPECT_GUARD_FAILED: return EXIT_FAILED;
	case INSPECT_REFUSED:
	default: return EXIT_USAGE;
	}
}

/* Collects FILE operands and the options shared by `results` and `guard`. */
static int inspect_args(int argc, char **argv, int first, const char *usage,
			struct inspect_options *opt, char ***files, int *nfiles, int *help)
{
	int only_files = 0;
	*files = xcalloc((size_t)argc + 1, sizeof(**files));
	*nfiles = 0;
	*help = 0;
	for (int i = first; i < argc; i++) {
		const char *a = argv[i];
		if (only_files || a[0] != '-' || !a[1]) {
			(*files)[(*nfiles)++] = argv[i];
		} else if (!strcmp(a, "--")) {
			only_files = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			*help = 1;
			return 0;
		} else if (!opt->guard_only && !strcmp(a, "--json")) {
			opt->json = 1;
		} else if (!strcmp(a, opt->guard_only ? "--min" : "--min-executed")) {
			if (parse_count(a, i + 1 < argc ? argv[i + 1] : NULL, &opt->min_executed) < 0)
				return -1;
			i++;
		} else {
			error("unknown option '%s'", a);
			fputs(usage, stderr);
			return -1;
		}
	}
	if (!*nfiles) {
		error("no result file given");
		fputs(usage, stderr);
		return -1;
	}
	return 0;
}

static int cmd_results(int argc, char **argv)
{
	struct inspect_options opt = { 0, -1, 0 };
	char **files;
	int nfiles, help, rc;

	if (inspect_args(argc, argv, 1, results_usage, &opt, &files, &nfiles, &help) < 0) {
		free(files);
		return EXIT_USAGE;
	}
	if (help) {
		fputs(results_usage, stdout);
		free(files);
		return EXIT_PASSED;
	}
	rc = inspect_exit(inspect_results(files, nfiles, &opt));
	free(files);
	return rc;
}

static int cmd_guard(int argc, char **argv)
{
	struct inspect_options opt = { 0, -1, 1 };
	char **files;
	int nfiles, help, rc;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(guard_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_PASSED;
	}
	if (strcmp(argv[1], "min-executed")) {
		error("unknown guard '%s' (known: min-executed)", argv[1]);
		return EXIT_USAGE;
	}
	if (inspect_args(argc, argv, 2, guard_usage, &opt, &files, &nfiles, &help) < 0) {
		free(files);
		return EXIT_USAGE;
	}
	if (help) {
		fputs(guard_usage, stdout);
		free(files);
		return EXIT_PASSED;
	}
	if (opt.min_executed < 0) {
		free(files);
		return usage_error("'abev guard min-executed' needs --min N",
				   "usage: abev guard min-executed --min N FILE...");
	}
	rc = inspect_exit(inspect_results(files, nfiles, &opt));
	free(files);
	return rc;
}

static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		print_main_help(stdout);
		return EXIT_PASSED;
	}
	if (!strcmp(argv[1], "run")) {
		print_run_help(stdout);
		return EXIT_PASSED;
	}
	if (!strcmp(argv[1], "results")) {
		fputs(results_usage, stdout);
		return EXIT_PASSED;
	}
	if (!strcmp(argv[1], "guard")) {
		fputs(guard_usage, stdout);
		return EXIT_PASSED;
	}
	if (!strcmp(argv[1], "help")) {
		fputs("usage: abev help [COMMAND]\n", stdout);
		return EXIT_PASSED;
	}
	error("no help for unknown command '%s'", argv[1]);
	fputs(main_usage, stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
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
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "results"))
		return cmd_results(argc - 1, argv + 1);
	if (!strcmp(argv[1], "guard"))
		return cmd_guard(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	error("unknown command '%s'", argv[1]);
	fputs("run 'abev --help' for the list of commands\n", stderr);
	return EXIT_USAGE;
}
