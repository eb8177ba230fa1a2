/*
 * cli_exit: abev's exit codes and the one place that decides them. The
 * enum names every code; the mapping functions below turn an outcome
 * (a run's, a decision's, a guard's, a verification's) into one, and
 * EXIT_CODES_TEXT documents the same order for --help (cli_exit_codes_print()
 * gives each code's whole meaning). The commands
 * (cli_*.c) return these codes and main() returns what they return; no
 * other file picks a number. Parsing arguments is cli.c's job.
 */
#ifndef ABEV_CLI_EXIT_H
#define ABEV_CLI_EXIT_H

#include <stddef.h>
#include <stdio.h>

#include "decide/compare.h"
#include "cli/inspect.h"
#include "pipeline/runner.h"

enum exit_code {
	EXIT_PASSED = 0,       /* every invocation ran and passed */
	EXIT_FAILED = 1,       /* evidence produced, an invocation failed */
	EXIT_USAGE = 2,        /* usage or plan error */
	EXIT_RUNTIME = 3,      /* cannot create the directory, nothing could be spawned */
	EXIT_VERIFY = 4,       /* abev verify found a problem */
	EXIT_REJECTED = 5,     /* the decision: a gate failed */
	EXIT_INCONCLUSIVE = 6, /* the decision is inconclusive and the plan says that fails */
	EXIT_UNSIGNED = 7,     /* abev verify without --pubkey: contents match, nobody vouches */
	EXIT_NOT_CLEAN = 8,    /* abev verify: as sealed, but it records a run that is not clean */
	EXIT_SIGNAL_BASE = 128 /* interrupted: 128 + signal (proc.h's interrupt signals) */
};

/* One text, two places: `abev --help` and the end of `abev run --help`. */
#define EXIT_CODES_TEXT \
	"Exit codes (the first that applies, in this order: 128+N, 3, 2, 1, 5, 6, 0):\n" \
	"  0    every invocation ran and passed, and the decision is accepted, no\n" \
	"       decision (the plan sets no gate), or inconclusive (by default)\n" \
	"  1    evidence was produced but an invocation failed (non-zero exit, signal,\n" \
	"       timeout, exec failure, a missing metric, or a slot lost to overlaps),\n" \
	"       or a setup command did not exit 0 and nothing ran\n" \
	"  2    usage or plan error, or what the plan names is missing here (a cwd, a\n" \
	"       program): nothing is run, nothing is written\n" \
	"  3    runtime error (cannot create the evidence directory, cannot spawn; with\n" \
	"       --no-wait, another abev run on this host is going on)\n" \
	"  4    verification failed (abev verify, or --pubkey of report/export/compare)\n" \
	"  5    rejected: a gate failed (its whole interval is beyond the limit)\n" \
	"  6    inconclusive, in a plan whose decision.inconclusive is \"fail\"\n" \
	"  7    abev verify without --pubkey: the contents match the manifest, but no\n" \
	"       signature was checked (UNSIGNED)\n" \
	"  8    abev verify, with or without --pubkey: the evidence is as it was\n" \
	"       sealed, but it records a run that is not clean (NOT CLEAN): one that\n" \
	"       did not complete, or in which abev's own files were changed; or its\n" \
	"       result.json cannot be read\n" \
	"  129  interrupted by SIGHUP, whenever it arrives: evidence is written, marked\n" \
	"       \"interrupted\" with the signal's name, and sealed\n" \
	"  130  interrupted by SIGINT: likewise\n" \
	"  131  interrupted by SIGQUIT: likewise\n" \
	"  138  interrupted by SIGUSR1: likewise\n" \
	"  140  interrupted by SIGUSR2: likewise\n" \
	"  143  interrupted by SIGTERM: likewise\n"

extern const char cli_exit_codes_text[];

/*
 * The exit code of a run: interrupted, then abev's own failures, then a
 * failed invocation, then the decision (see EXIT_CODES_TEXT).
 */
int cli_exit_run(enum runner_outcome o, const struct runner_result *res, int inconclusive_fails);
/* The exit code of a decision: rejected 5, inconclusive 6 when that fails, else 0. */
int cli_exit_decision(enum decision d, int inconclusive_fails);
/* The exit code of abev results and abev guard. */
int cli_exit_inspect(enum inspect_outcome o);
/*
 * The exit code of abev verify: 4 with a problem, else 8 when the
 * evidence does not record a clean run (clean 0), else 0 when a key was
 * given (and so the signature checked), 7 without one.
 */
int cli_exit_verify(size_t nproblems, int clean, int key_given);

/*
 * The reference of every exit code on f: the order in which they apply,
 * then each code with its whole meaning, as text or (markdown) as the
 * Markdown table of docs/exit-codes.md. EXIT_CODES_TEXT is its summary.
 * 0, or -1 after error() when f cannot be written.
 */
int cli_exit_codes_print(FILE *f, int markdown);

#endif
