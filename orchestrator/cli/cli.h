/*
 * cli: abev's commands, one struct cli_command cmd_NAME per `abev NAME`
 * (git's builtin.h): its usage, help and option table (options.h) and the
 * verb that runs once the table has read the command line. main.c holds
 * the list of commands, parses by their tables and calls them; each cli_*.c
 * holds a group of commands: cli_run.c (run, bench, init), cli_evidence.c
 * (verify, keygen, pack, report, compare, export), cli_results.c (results,
 * guard); outpath.h checks the paths they create. Exit codes come from
 * cli_exit.h: a command returns one of its codes, never a number of its own.
 */
#ifndef ABEV_CLI_H
#define ABEV_CLI_H

#include "cli/cli_exit.h"
#include "cli/options.h"

/* Prints msg as an error and hint (a usage) on stderr; returns EXIT_USAGE. */
int cli_usage_error(const char *msg, const char *hint);

/*
 * Writes the exports of the evidence in DIR that abev bench --export-*
 * asked for: formats[i] (hyperfine, csv, junit, json, ...) to the new
 * file outs[i], for each i < n whose outs[i] is set. The evidence is read
 * once, as sealed, so each file is the bytes `abev export` gives. 0, or
 * an exit code after the message.
 */
int cli_export_files(const char *dir, const char *const *formats, const char *const *outs,
		     size_t n);

/* The commands. */
extern const struct cli_command cmd_run, cmd_bench, cmd_init;
extern const struct cli_command cmd_verify, cmd_keygen, cmd_pack, cmd_report, cmd_compare,
	cmd_export;
extern const struct cli_command cmd_results, cmd_guard;

#endif
