/*
 * cli: the usage error every command reports the same way: one message,
 * then the command's usage. Reading the command line is options.c's;
 * which exit code a failure gives is cli_exit.c's.
 */
#include "cli/cli.h"

#include <stdio.h>

#include "util/usage.h"

int cli_usage_error(const char *msg, const char *hint)
{
	error("%s", msg);
	fputs(hint, stderr);
	return EXIT_USAGE;
}
