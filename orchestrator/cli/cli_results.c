/*
 * cli_results: `abev results FILE...` (count or list the tests in TRX and
 * JUnit files) and `abev guard min-executed` (the MIN_EXECUTED guard on
 * its own), with their help and option tables, and the checks they share.
 * Reading the files is inspect.c's job; the exit code is cli_exit.c's.
 */
#include "cli/cli.h"
#include "cli/inspect.h"

static const char results_usage[] =
	"usage: abev results FILE... [--json | --list] [--min-executed N]\n";

static const char results_about[] =
	"Reads VSTest TRX and JUnit XML result files (the format is told from the root\n"
	"element) and prints, per file and in total, the tests counted from the results\n"
	"themselves: total, executed, passed, failed, errors, skipped and other. Leaf rows\n"
	"of data-driven tests count, not their parents; a result without an outcome is\n"
	"an error, never a pass. Where the file's own counters disagree, a note says so.\n"
	"Refused, with the file and line named: a DOCTYPE (so no entity is ever\n"
	"expanded), excessive nesting, invalid UTF-8 or characters XML does not allow,\n"
	"an unknown root element, a tag over 256 KiB or with over 4096 attributes, a\n"
	"CDATA section, comment or processing instruction over 8 MiB, a file over 1 GiB.\n";

static const char results_tail[] =
	"Exit codes: 0 read (and the guard passed); 1 the guard failed; 2 a file could\n"
	"not be read or was refused, or a usage error.\n";

static const char guard_usage[] =
	"usage: abev guard min-executed --min N FILE...\n";

static const char guard_about[] =
	"The MIN_EXECUTED guard on its own: passes when at least N tests were executed\n"
	"in the result files together (skipped and not-run tests are not executed; no\n"
	"file at all fails). Prints one line: min_executed: pass|fail: <reason>.\n";

static const char guard_tail[] =
	"Exit codes: 0 pass; 1 fail; 2 a file could not be read or was refused, or a\n"
	"usage error.\n";

/*
 * What `abev results` and `abev guard min-executed` check once parsed: a
 * file or more, and not --list with --json. 0, or EXIT_USAGE after the
 * message and usage.
 */
static int inspect_check(const struct inspect_options *opt, size_t nfiles, const char *usage)
{
	if (opt->list && opt->json)
		return cli_usage_error("--list and --json do not go together: --list prints lines, "
				       "--json a document", usage);
	if (!nfiles)
		return cli_usage_error("no result file given", usage);
	return 0;
}

static int results_main(void *opts, size_t nfiles, char **files)
{
	const struct inspect_options *opt = opts;
	int rc = inspect_check(opt, nfiles, cmd_results.usage);

	if (rc)
		return rc;
	return cli_exit_inspect(inspect_results((const char *const *)files, (int)nfiles, opt));
}

static int guard_main(void *opts, size_t nfiles, char **files)
{
	const struct inspect_options *opt = opts;
	int rc = inspect_check(opt, nfiles, cmd_guard.usage);

	if (rc)
		return rc;
	if (opt->min_executed < 0)
		return cli_usage_error("'abev guard min-executed' needs --min N", cmd_guard.usage);
	return cli_exit_inspect(inspect_results((const char *const *)files, (int)nfiles, opt));
}

static const struct cli_option results_options[] = {
	{ CLI_FLAG(0, "json", struct inspect_options, json,
		   "print an abev.results/1 document instead of the table") },
	{ CLI_FLAG(0, "list", struct inspect_options, list,
		   "print every test instead of the table, one per line in file order: "
		   "NAME<TAB>OUTCOME<TAB>DURATION (\"12.345 ms\", or \"-\"), with a FILE<TAB> column "
		   "first when several files are given. NAME is the test's class and name, "
		   "Namespace.Class.Method (+ a data row's arguments), for every framework (TRX: "
		   "TestMethod className joined to testName; JUnit: classname and name); a "
		   "metric's \"test\" glob matches it or the name as the file writes it. Control "
		   "characters are written \\t, \\n or \\xNN") },
	{ CLI_INT(0, "min-executed", struct inspect_options, min_executed, "N", 0, INT64_MAX, NULL,
		  "fail (exit 1) when fewer than N tests were executed in all the files "
		  "together") },
	{ CLI_END() },
};

static const struct inspect_options results_defaults = { .min_executed = -1 };

const struct cli_command cmd_results = {
	.name = "results",
	.summary = "count the tests in TRX / JUnit files",
	.usage = results_usage,
	.about = results_about,
	.tail = results_tail,
	.options = results_options,
	.operands = "FILE",
	.max_operands = CLI_MANY,
	.complete = CLI_COMPLETE_FILES("*.xml *.trx"),
	.opts_size = sizeof(struct inspect_options),
	.defaults = &results_defaults,
	.fn = results_main,
};

static const struct cli_option guard_options[] = {
	{ CLI_INT(0, "min", struct inspect_options, min_executed, "N", 0, INT64_MAX, NULL,
		  "the fewest tests that must have been executed") },
	{ CLI_END() },
};

static const struct inspect_options guard_defaults = { .min_executed = -1, .guard_only = 1 };

/* `abev guard min-executed`: main.c takes the word "min-executed" first. */
const struct cli_command cmd_guard = {
	.name = "guard min-executed",
	.summary = "fail when fewer tests were executed",
	.usage = guard_usage,
	.about = guard_about,
	.tail = guard_tail,
	.options = guard_options,
	.operands = "FILE",
	.max_operands = CLI_MANY,
	.complete = CLI_COMPLETE_FILES("*.xml *.trx"),
	.opts_size = sizeof(struct inspect_options),
	.defaults = &guard_defaults,
	.fn = guard_main,
};
