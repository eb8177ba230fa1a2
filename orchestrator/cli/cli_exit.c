/*
 * cli_exit: the mapping from outcomes to abev's exit codes, in the order
 * EXIT_CODES_TEXT gives. Only main.c and the commands (cli_*.c) call it;
 * nothing here prints or parses.
 */
#include "cli/cli_exit.h"

const char exit_codes_text[] = EXIT_CODES_TEXT;

int run_exit(enum runner_outcome o, const struct runner_result *res, int inconclusive_fails)
{
	switch (o) {
	case RUNNER_INTERRUPTED: return EXIT_SIGNAL_BASE + res->signo;
	case RUNNER_ERROR: return EXIT_RUNTIME;
	case RUNNER_USAGE: return EXIT_USAGE;
	case RUNNER_FAILED: return EXIT_FAILED;
	case RUNNER_PASSED: break;
	}
	return decision_exit(res->decision, inconclusive_fails);
}

int decision_exit(enum decision d, int inconclusive_fails)
{
	if (d == DECISION_REJECTED)
		return EXIT_REJECTED;
	if (d == DECISION_INCONCLUSIVE && inconclusive_fails)
		return EXIT_INCONCLUSIVE;
	return EXIT_PASSED;
}

int inspect_exit(enum inspect_outcome o)
{
	switch (o) {
	case INSPECT_OK: return EXIT_PASSED;
	case INSPECT_GUARD_FAILED: return EXIT_FAILED;
	case INSPECT_REFUSED:
	default: return EXIT_USAGE;
	}
}

int verify_exit(size_t nproblems, int clean, int key_given)
{
	if (nproblems)
		return EXIT_VERIFY;
	if (!clean)
		return EXIT_NOT_CLEAN;
	return key_given ? EXIT_PASSED : EXIT_UNSIGNED;
}
