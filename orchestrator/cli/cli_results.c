/*
 * cli_results: `abev results FILE...` (count or list the tests in TRX and
 * JUnit files) and `abev guard min-executed` (the MIN_EXECUTED guard on
 * its own), with their usage texts and the arguments they share. Reading
 * the files is inspect.c's job; the exit code is cli_exit.c's.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/inspect.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/usage.h"

const char results_usage[] =
	"usage: abev results FILE... [--json | --list] [--min-executed N]\n"
	"\n"
	"Reads VSTest TRX and JUnit XML result files (the format is told from the root\n"
	"element) and prints, per file and in total, the tests counted from the results\n"
	"themselves: total, executed, passed, failed, errors, skipped and other. Leaf rows\n"
	"of data-driven tests count, not their parents; a result without an outcome is\n"
	"an error, never a pass. Where the file's own counters disagree, a note says so.\n"
	"Refused, with the file and line named: a DOCTYPE (so no entity is ever\n"
	"expanded), excessive nesting, invalid UTF-8 or characters XML does not allow,\n"
	"an unknown root element, a tag over 256 KiB or with over 4096 attributes, a\n"
	"CDATA section, comment or processing instruction over 8 MiB, a file over 1 GiB.\n"
	"\n"
	"Options:\n"
	"  --json             print an abev.results/1 document instead of the table\n"
	"  --list             print every test instead of the table, one per line in\n"
	"                     file order: NAME<TAB>OUTCOME<TAB>DURATION (\"12.345 ms\", or\n"
	"                     \"-\"), with a FILE<TAB> column first when several files\n"
	"                     are given. NAME is exactly what a metric's \"test\" glob\n"
	"                     is matched against (TRX testName; JUnit classname.name),\n"
	"                     but control characters are written \\t, \\n or \\xNN\n"
	"  --min-executed N   fail (exit 1) when fewer than N tests were executed in all\n"
	"                     the files together\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit codes: 0 read (and the guard passed); 1 the guard failed; 2 a file could\n"
	"not be read or was refused, or a usage error.\n";

const char guard_usage[] =
	"usage: abev guard min-executed --min N FILE...\n"
	"\n"
	"The MIN_EXECUTED guard on its own: passes when at least N tests were executed\n"
	"in the result files together (skipped and not-run tests are not executed; no\n"
	"file at all fails). Prints one line: min_executed: pass|fail: <reason>.\n"
	"\n"
	"Exit codes: 0 pass; 1 fail; 2 a file could not be read or was refused, or a\n"
	"usage error.\n";

/*
 * `abev results` and `abev guard min-executed`: FILE operands and the
 * options they share, from argv[first]. 0 (help printed when *helped),
 * or a usage error after its message.
 */
static int inspect_args(int argc, char **argv, int first, const char *cmd, const char *usage,
			struct inspect_options *opt, const char ***files, size_t *nfiles,
			int *helped)
{
	const char *min = NULL;
	const struct cli_opt results_opts[] = {
		{ "--json", NULL, &opt->json, NULL },
		{ "--min-executed", NULL, NULL, &min },
		{ "--list", NULL, &opt->list, NULL },
	};
	const struct cli_opt guard_opts[] = { { "--min", NULL, NULL, &min } };

	*files = xcalloc((size_t)argc + 1, sizeof(**files));
	if (parse_args(argc, argv, first, cmd, usage, "", usage,
		       opt->guard_only ? guard_opts : results_opts,
		       opt->guard_only ? ARRAY_SIZE(guard_opts) : ARRAY_SIZE(results_opts), *files,
		       (size_t)argc, nfiles, helped) < 0)
		return -1;
	if (*helped)
		return 0;
	if (opt->list && opt->json) {
		error("--list and --json do not go together: --list prints lines, --json a document");
		fputs(usage, stderr);
		return -1;
	}
	if (min && parse_count(opt->guard_only ? "--min" : "--min-executed", min,
			       &opt->min_executed) < 0)
		return -1;
	if (!*nfiles) {
		error("no result file given");
		fputs(usage, stderr);
		return -1;
	}
	return 0;
}

int cmd_results(int argc, char **argv)
{
	struct inspect_options opt = { 0, -1, 0, 0 };
	const char **files;
	size_t nfiles;
	int helped, rc = EXIT_USAGE;

	if (inspect_args(argc, argv, 1, "results", results_usage, &opt, &files, &nfiles,
			 &helped) == 0)
		rc = helped ? EXIT_PASSED
			    : inspect_exit(inspect_results(files, (int)nfiles, &opt));
	free(files);
	return rc;
}

int cmd_guard(int argc, char **argv)
{
	struct inspect_options opt = { 0, -1, 1, 0 };
	const char **files;
	size_t nfiles;
	int helped, rc = EXIT_USAGE;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(guard_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_PASSED;
	}
	if (strcmp(argv[1], "min-executed")) {
		error("unknown guard '%s' (known: min-executed)", argv[1]);
		return EXIT_USAGE;
	}
	if (inspect_args(argc, argv, 2, "guard min-executed", guard_usage, &opt, &files, &nfiles,
			 &helped) < 0) {
		free(files);
		return EXIT_USAGE;
	}
	if (helped) {
		rc = EXIT_PASSED;
	} else if (opt.min_executed < 0) {
		rc = usage_error("'abev guard min-executed' needs --min N",
				 "usage: abev guard min-executed --min N FILE...");
	} else {
		rc = inspect_exit(inspect_results(files, (int)nfiles, &opt));
	}
	free(files);
	return rc;
}
