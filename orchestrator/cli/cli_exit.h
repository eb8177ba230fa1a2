/*
 * cli_exit: abev's exit codes and the one place that decides them. The
 * enum names every code; the mapping functions below turn an outcome
 * (a run's, a decision's, a guard's, a verification's) into one, and
 * one table says what each means, in brief for --help and whole for
 * `abev help exit-codes` and docs/exit-codes.md (cli_exit_codes_print()).
 * The commands
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
	EXIT_INCONCLUSIVE = 6, /* the decision is inconclusive and the plan does not let it pass */
	EXIT_UNSIGNED = 7,     /* abev verify without --pubkey: contents match, nobody vouches */
	EXIT_NOT_CLEAN = 8,    /* abev verify: as sealed, but it records a run that is not clean */
	EXIT_SIGNAL_BASE = 128 /* interrupted: 128 + signal (proc.h's interrupt signals) */
};


/*
 * The exit code of a run: interrupted, then abev's own failures, then a
 * failed invocation, then the decision (cli_exit_codes_print() says the order).
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

/* How cli_exit_codes_print() says them. */
enum cli_exit_form {
	CLI_EXIT_BRIEF,     /* the summary at the end of `abev --help`, `abev run --help`, ... */
	CLI_EXIT_TEXT,      /* the whole reference: `abev help exit-codes` */
	CLI_EXIT_MARKDOWN,  /* the same as docs/exit-codes.md's table */
};
/*
 * Every exit code on f, from the one table: the order in which they
 * apply, then each code with what it means, in brief or whole. 0, or -1
 * after error() when f cannot be written.
 */
int cli_exit_codes_print(FILE *f, enum cli_exit_form form);
/* cli_exit_codes_print(f, CLI_EXIT_BRIEF), for a command's help (cli_command.tail_more). */
void cli_exit_codes_brief(FILE *f);

#endif
