/*
 * cli_exit: the mapping from outcomes to abev's exit codes, and the one
 * table of what each code means: in brief at the end of --help, whole in
 * `abev help exit-codes` (docs/exit-codes.md is made from it). Only
 * main.c and the commands (cli_*.c) call it; nothing here parses.
 */
#include "cli/cli_exit.h"

#include "cli/options.h"
#include "util/compiler.h"
#include "util/usage.h"

int cli_exit_run(enum runner_outcome o, const struct runner_result *res, int inconclusive_fails)
{
	switch (o) {
	case RUNNER_INTERRUPTED: return EXIT_SIGNAL_BASE + res->signo;
	case RUNNER_ERROR: return EXIT_RUNTIME;
	case RUNNER_USAGE: return EXIT_USAGE;
	case RUNNER_FAILED: return EXIT_FAILED;
	case RUNNER_PASSED: break;
	}
	return cli_exit_decision(res->decision, inconclusive_fails);
}

int cli_exit_decision(enum decision d, int inconclusive_fails)
{
	if (d == DECISION_REJECTED)
		return EXIT_REJECTED;
	if (d == DECISION_INCONCLUSIVE && inconclusive_fails)
		return EXIT_INCONCLUSIVE;
	return EXIT_PASSED;
}

int cli_exit_inspect(enum inspect_outcome o)
{
	switch (o) {
	case INSPECT_OK: return EXIT_PASSED;
	case INSPECT_GUARD_FAILED: return EXIT_FAILED;
	case INSPECT_REFUSED:
	default: return EXIT_USAGE;
	}
}

int cli_exit_verify(size_t nproblems, int clean, int key_given)
{
	if (nproblems)
		return EXIT_VERIFY;
	if (!clean)
		return EXIT_NOT_CLEAN;
	return key_given ? EXIT_PASSED : EXIT_UNSIGNED;
}

/*
 * Every code as written, what it means in brief (plain words, for
 * --help) and whole (Markdown: docs/exit-codes.md, `abev help
 * exit-codes`), in the order of the codes.
 */
static const struct exit_code_doc {
	const char *code;
	const char *brief;
	const char *meaning;
} exit_code_docs[] = {
	{ "0",
	  "every invocation ran and passed, and the decision is accepted, no decision (the plan sets no gate, or nothing could be compared), or inconclusive in a plan whose decision.inconclusive is \"pass\" (bench: --inconclusive-pass)",
	  "every invocation ran and passed, and the decision is `accepted`; `no decision` (the "
	  "plan sets no gate, or nothing could be compared: no counted run on a side — an "
	  "interrupted run is 128+N, a failed one 1); or `inconclusive` in a plan that says "
	  "`\"decision\": {\"inconclusive\": \"pass\"}` (`abev bench --inconclusive-pass`)" },
	{ "1",
	  "evidence was produced but an invocation failed (non-zero exit, signal, timeout, exec failure, a missing metric, or a slot lost to overlaps), or a setup command did not exit 0 and nothing ran",
	  "evidence was produced but an invocation failed (a guard did not pass — e.g. a non-zero "
	  "exit or too few executed tests —, a signal, a timeout, an exec failure, or a slot lost "
	  "to overlapping runs — never to foreign load alone, whose runs are kept marked `loaded`), "
	  "or a `setup` command did not exit 0 and nothing ran; when a recorded run failed a test "
	  "guard (`tests_passed`, `test_set`, `min_executed`) the decision is `rejected` too, and "
	  "names the run, the guard and the tests; for `abev results` / `abev guard`: the guard "
	  "failed" },
	{ "2",
	  "usage or plan error, or what the plan names is missing here (a cwd, a program): nothing is run, nothing is written",
	  "usage or plan error (a number given to an option is decimal: `--wait-max 0x10`, `-r ' "
	  "5'` or `--gap inf` is refused; what the plan names that is missing on this machine too: "
	  "a `cwd`, a program, a results directory), or the output directory exists: nothing is "
	  "run; for `abev results` / `abev guard`: a file could not be read or was refused" },
	{ "3",
	  "runtime error (cannot create the evidence directory, cannot spawn; with --no-wait, another abev run on this host is going on)",
	  "runtime error: the evidence directory cannot be created, a process cannot be spawned; "
	  "`abev pack` could not write the bundle (a full disk, a file-size limit); with "
	  "`--no-wait`, another abev run on this host is going on (nothing is written)" },
	{ "4",
	  "verification failed (abev verify, or --pubkey of report/export/compare)",
	  "`abev verify` found a problem (each is printed with its file and reason), a bundle "
	  "included (anything after its archive, an entry with a dangerous mode); likewise "
	  "`report`, `export` and `compare`, which check the manifest even without `--pubkey`, and "
	  "`abev pack` of evidence that does not match its manifest" },
	{ "5",
	  "rejected: a gate failed (its whole interval is beyond the limit)",
	  "rejected: a gate failed (its whole interval is beyond the limit)" },
	{ "6",
	  "inconclusive: a gate could not be decided (its interval straddles the limit, or too few runs) and none failed; the default, unless decision.inconclusive is \"pass\"",
	  "inconclusive: a gate could not be decided — its interval straddles the limit, or there "
	  "were too few rounds for an interval — and none failed; the default, so that a board "
	  "gating on the exit code never takes an undecided regression for a pass, unless the "
	  "plan says `\"decision\": {\"inconclusive\": \"pass\"}` (`abev bench "
	  "--inconclusive-pass`)" },
	{ "7",
	  "abev verify without --pubkey: the contents match the manifest, but no signature was checked (UNSIGNED)",
	  "`abev verify` without `--pubkey`: the contents match the manifest, but no signature was "
	  "checked (`UNSIGNED: contents match the manifest, but nobody vouches for it`)" },
	{ "8",
	  "abev verify, with or without --pubkey: the evidence is as it was sealed, but it records a run that is not clean (NOT CLEAN): one that did not complete, or in which abev's own files were changed, or one that left files out of its seal; or its result.json cannot be read",
	  "`abev verify`, with or without `--pubkey` (before 7): the evidence is as it was sealed, "
	  "but it records a run that is not clean — its status is not `completed` (`failed`, "
	  "`interrupted`), or its `tampered` notes say that abev's own files were changed while it "
	  "ran, or its `unsealed` list names files abev left out of the seal when a signal stopped "
	  "it while sealing — or its `result.json` cannot be read (`NOT CLEAN: ...`); the decision "
	  "does not count here" },
	{ "128+N",
	  "interrupted by signal N, whenever it arrives: SIGHUP 129, SIGINT 130, SIGQUIT 131, SIGUSR1 138, SIGUSR2 140, SIGTERM 143; the evidence is written, marked \"interrupted\" with the signal's name, and sealed",
	  "interrupted by signal N — SIGHUP (129), SIGINT (130), SIGQUIT (131), SIGUSR1 (138), "
	  "SIGUSR2 (140) or SIGTERM (143) — at any point: the running child's process group is "
	  "stopped, the evidence is written, marked `interrupted` with the signal's name "
	  "(`interrupt`), and sealed, its decision `no decision` (reason `interrupted`, the "
	  "rounds done of those planned, what they showed said not to be a decision); `abev pack` "
	  "stops and removes its temporary file" },
};

/* The order in which the codes apply, said in both forms. */
#define EXIT_CODES_ORDER "128+N, 3, 2, 1, 5, 6, 0"

static const char exit_codes_order[] =
	"When several apply, the first of this order wins: " EXIT_CODES_ORDER " (128+N: "
	"interrupted by signal N) — a failed invocation outranks a rejection, since the "
	"evidence is then incomplete.";

int cli_exit_codes_print(FILE *f, enum cli_exit_form form)
{
	switch (form) {
	case CLI_EXIT_BRIEF:
		fputs("Exit codes (the first that applies, in this order: " EXIT_CODES_ORDER "):\n",
		      f);
		break;
	case CLI_EXIT_TEXT:
		fputs("Exit codes\n\n", f);
		cli_print_wrapped(f, exit_codes_order, 0, 0);
		fputc('\n', f);
		break;
	case CLI_EXIT_MARKDOWN:
		fprintf(f, "# Exit codes\n\n%s\n\n| code | meaning |\n|---|---|\n", exit_codes_order);
		break;
	}
	for (size_t i = 0; i < ARRAY_SIZE(exit_code_docs); i++) {
		const struct exit_code_doc *d = &exit_code_docs[i];

		if (form == CLI_EXIT_MARKDOWN) {
			fprintf(f, "| %s | %s |\n", d->code, d->meaning);
		} else {
			fprintf(f, "  %-6s", d->code);
			cli_print_wrapped(f, form == CLI_EXIT_BRIEF ? d->brief : d->meaning, 8, 8);
		}
	}
	if (fflush(f) || ferror(f))
		return error("cannot write the exit codes");
	return 0;
}

void cli_exit_codes_brief(FILE *f)
{
	(void)cli_exit_codes_print(f, CLI_EXIT_BRIEF);
}
