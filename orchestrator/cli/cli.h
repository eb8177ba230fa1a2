/*
 * cli: what abev's commands share on the command line — the option table
 * (struct cli_opt) and its parser, usage errors, counts, repeatable
 * options — and the commands themselves, one cmd_NAME() per `abev NAME`
 * (git's builtin.h). main.c holds the command table; each cli_*.c holds a
 * group of commands with their usage texts: cli_run.c (run, bench, init),
 * cli_evidence.c (verify, keygen, pack, report, compare, export),
 * cli_results.c (results, guard); cli_out.h checks the paths they create. Exit codes come from cli_exit.h: a
 * command returns one of its codes, never a number of its own.
 */
#ifndef ABEV_CLI_H
#define ABEV_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli_exit.h"

/* One option of a command: a flag (sets *flag to 1) or one that takes a value (*val). */
struct cli_opt {
	const char *lng, *shrt;
	int *flag;
	const char **val;
};

/*
 * Parses the arguments of `abev CMD` from argv[first]: -h/--help (prints
 * help, then tail, to stdout and sets *helped), the options in opts, and
 * operands into pos[] (at most npos; "-" is an operand, and "--" makes
 * every later argument one). An unknown option or a surplus operand is a
 * usage error: one message, the usage on stderr, -1. 0 otherwise.
 */
int parse_args(int argc, char **argv, int first, const char *cmd, const char *help,
	       const char *tail, const char *usage, const struct cli_opt *opts, size_t nopts,
	       const char **pos, size_t npos, size_t *npos_out, int *helped);

/* A repeatable option (abev bench's -n and --prepare): its values in order, at most max. */
struct cli_repeat {
	const char *lng, *shrt;
	const char **v;
	size_t n, max;
};

/*
 * Takes the repeatable options out of argv[first..argc) into rep, in
 * order, and leaves the rest for parse_args(): the value of a value option
 * in opts is skipped, and nothing after "--" is taken. 0 or -1 after error().
 */
int take_repeated(int *argc, char **argv, int first, const struct cli_opt *opts, size_t nopts,
		  struct cli_repeat *rep, size_t nrep);

/* A non-negative integer option value into *out. 0, or -1 after error() naming opt. */
int parse_count(const char *opt, const char *val, int64_t *out);

/* Prints msg as an error and hint (a usage line) on stderr; returns EXIT_USAGE. */
int usage_error(const char *msg, const char *hint);

/* The commands: argv[0] is the command's name. Each returns an exit code. */
int cmd_run(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_guard(int argc, char **argv);

/* Their help, printed by `abev help NAME` and `abev NAME --help`: usage, then tail. */
extern const char run_usage[], run_usage_tail[], bench_usage[], init_usage[];
extern const char verify_usage[], keygen_usage[], pack_usage[], report_usage[];
extern const char compare_usage[], export_usage[];
extern const char results_usage[], guard_usage[];

#endif
