/*
 * cli_run (the header): what abev run, bench and init share — the
 * options of a run (struct run_args, the rows of RUN_SHARED_OPTIONS),
 * those of a plan made from commands (struct quick_args, QUICK_OPTIONS),
 * and the steps that check them, make the plan and run it. Private to
 * cli/.
 */
#ifndef ABEV_CLI_RUN_H
#define ABEV_CLI_RUN_H

#include <limits.h>
#include <stdint.h>

#include "cli/cli.h"
#include "plan/plan.h"
#include "plan/quick.h"
#include "seal/signkey.h"
#include "util/colour.h"

/* The options of `abev run`, and what `abev bench` shares of them. Strings borrowed. */
struct run_args {
	const char *out, *key_path, *bundle, *pass_file, *pass_env, *host_label, *max_wait;
	const char *key_fd;    /* --key-fd N */
	const char *run_as;    /* --run-as USER */
	const char *wait_max;  /* --wait-max SECONDS */
	int quiet, json, unsigned_ok, dry_run, wait, no_wait, insecure_key;
	double wait_max_seconds; /* --wait-max, once checked; < 0: none given */
	char *out_owned;       /* out as checked (run_args_check()); freed by the command */
	int out_made;          /* out was made by the command (abev bench's default) */
	int bench;             /* abev bench, not abev run: its advice names bench's options */
	double max_wait_pct;   /* --max-cpu-wait-pct, once checked */
	const char *load_wait; /* --max-load-wait SECONDS */
	const char *color;     /* --color WHEN */
	enum colour_when colour; /* --color, once checked */
	double load_wait_seconds; /* --max-load-wait, once checked */
	enum signkey_source key_src; /* where key_path came from, once checked */
};

/*
 * The rows abev run and abev bench share: T is the command's option
 * struct and P the path of its struct run_args in T ("run.", or nothing).
 */
#define RUN_SHARED_OPTIONS(T, P) \
	{ CLI_STRING(0, "key-fd", T, P key_fd, "N", \
		     "sign the evidence with the key whose PEM text abev reads from open " \
		     "descriptor N (e.g. 3<KEY.key, or a CI secret piped in), then closes: " \
		     "the key never stands in an environment or a file; beats " \
		     "$ABEV_SIGNING_KEY") }, \
	{ CLI_STRING(0, "passphrase-file", T, P pass_file, "F", \
		     "the key's passphrase: the first line of F (never argv); an empty one is a " \
		     "usage error (exit 2)"), .complete = CLI_COMPLETE_ANY_FILE }, \
	{ CLI_STRING(0, "passphrase-env", T, P pass_env, "VAR", \
		     "the key's passphrase: the value of $VAR (never argv); an empty one is a " \
		     "usage error (exit 2)"), .complete = CLI_COMPLETE_ENV }, \
	{ CLI_FLAG(0, "insecure-key-mode", T, P insecure_key, \
		   "use a key file that its group or others can read (warns); without it such " \
		   "a key is refused with the chmod 600 to run") }, \
	{ CLI_STRING(0, "bundle", T, P bundle, "FILE", \
		     "also pack the evidence into FILE (.tar.zst or .tar.gz)"), \
	  .complete = CLI_COMPLETE_ANY_FILE }, \
	{ CLI_STRING(0, "host-label", T, P host_label, "LABEL", \
		     "name this machine in metadata.json (host.label) and in a combined report: " \
		     "1-64 of [A-Za-z0-9._-]; default: the hostname") }, \
	{ CLI_STRING(0, "max-cpu-wait-pct", T, P max_wait, "P", \
		     "discard a recorded run that waited for CPUs other processes held more " \
		     "than P % (0-100) of its wall time; overrides load.max_cpu_wait_pct and is " \
		     "recorded in result.json (schedule)") }, \
	{ CLI_STRING(0, "max-load-wait", T, P load_wait, "SECONDS", \
		     "wait at most SECONDS in all for a quieter machine before recorded runs " \
		     "(0-86400; then they run under load, kept and marked); overrides " \
		     "load.max_wait_seconds") }, \
	{ CLI_FLAG(0, "wait", T, P wait, \
		   "take turns with other abev runs on this host, however long (by default " \
		   "abev waits at most 3600 s, then goes ahead) (abev(1), OTHER RUNS)") }, \
	{ CLI_FLAG(0, "no-wait", T, P no_wait, \
		   "refuse to start (exit 3) while another abev run on this host is going on, " \
		   "instead of waiting for it") }, \
	{ CLI_STRING(0, "wait-max", T, P wait_max, "SECONDS", \
		     "wait at most SECONDS for other abev runs, then go ahead: runs of either " \
		     "that overlap are discarded and repeated; 0 does not wait") }, \
	{ CLI_FLAG('q', "quiet", T, P quiet, "print only the decision line and the evidence " \
		   "path") }, \
	{ CLI_STRING(0, "color", T, P color, "WHEN", \
		     "colour the summary (the verdict, ratios, times): auto, the default, only " \
		     "on a terminal and unless NO_COLOR is set or TERM is dumb; always; never. " \
		     "The evidence files never hold colours"), \
	  .complete = CLI_COMPLETE_WORDS(COLOUR_WHEN_WORDS) }, \
	{ CLI_STRING(0, "colour", T, P color, "WHEN", "--color"), .flags = CLI_OPT_HIDDEN }, \
	{ CLI_FLAG(0, "json", T, P json, \
		   "print the comparison (result.json's \"comparison\") as JSON on stdout; the " \
		   "other lines go to stderr") }

/* The options abev bench and abev init share: the plan made from commands. */
struct quick_args {
	struct quick_spec spec;                   /* QUICK_SPEC_INIT before parsing */
	struct cli_strings names, prepare, gates; /* -n, --prepare, --max-regression */
	struct cli_strings metrics;               /* --metric */
	struct cli_strings outputs;               /* --output */
	int64_t min_runs, max_runs;               /* hyperfine's -m, -M; 0: not given */
	struct cli_strings lists, range;          /* -L VAR VALUES..., -P VAR MIN MAX */
	const char *step;                         /* -D STEP */
	const char *setup, *cleanup;              /* -s CMD, -c CMD */
	int ignore_failure;                       /* -i */
	struct quick_scan_result scanned;         /* the commands -L/-P made (owned) */
};

/* The rows abev bench and abev init share: P is the path of their struct quick_args in T. */
#define QUICK_OPTIONS(T, P) \
	{ CLI_INT('r', "runs", T, P spec.runs, "N", 1, UINT_MAX, NULL, \
		  "recorded runs of each command (default 10; abev bench with --max-regression: " \
		  "rounds until the gate is decided, at most 32; with a gate, at least 4)") }, \
	{ CLI_INT('w', "warmup", T, P spec.warmups, "N", 0, UINT_MAX, NULL, \
		  "warmup runs of each command, never counted (default 0)") }, \
	{ CLI_STRINGS('n', "name", T, P names, "NAME", QUICK_MAX_COMMANDS, \
		      "name the next command (once per command, in order): a variant name, used " \
		      "as it is ([A-Za-z0-9._-], not starting with '.', at most 64 characters, " \
		      "unique ignoring case)") }, \
	{ CLI_FLAG('N', "no-shell", T, P spec.no_shell, \
		   "run each command without a shell: split into words at blanks, '...' and " \
		   "\"...\" quote (\\\" and \\\\ inside \"...\"), a backslash outside quotes keeps " \
		   "the next character; nothing is expanded") }, \
	{ CLI_STRING('s', "setup", T, P setup, "CMD", \
		     "run CMD once for each command before its first run (hyperfine's --setup: " \
		     "build what the runs use); not measured; one that fails stops the plan " \
		     "before any run") }, \
	{ CLI_STRING('c', "cleanup", T, P cleanup, "CMD", \
		     "run CMD once for each command after its last run (hyperfine's " \
		     "--cleanup); not measured; a failure is a note") }, \
	{ CLI_STRINGS(0, "prepare", T, P prepare, "CMD", QUICK_MAX_COMMANDS, \
		      "run CMD before every run of every command (once), or of the command in " \
		      "the same position (once per command); not measured; a run whose prepare " \
		      "command fails fails") }, \
	{ CLI_STRINGS(0, "output", T, P outputs, "WHERE", QUICK_MAX_COMMANDS, \
		      "where each command's stdout and stderr go (once for all, or once per " \
		      "command), as in hyperfine: log (default: the run's logs, first and last " \
		      "8 KiB kept), null (/dev/null), pipe (read and discarded; a command may " \
		      "act differently on /dev/null), inherit (abev's own; no live line) or " \
		      "FILE, a path with a '/' (./out.txt): stdout whole to it, rewritten each " \
		      "run; sizes and SHA-256 recorded but with null and inherit"), \
	  .complete = CLI_COMPLETE_WORDS("log null pipe inherit") }, \
	{ CLI_DOUBLE(0, "gap", T, P spec.gap_seconds, "SECONDS", 0, 86400, "seconds", \
		     "pause between one process and the next (default 0)") }, \
	{ CLI_STRING(0, "order", T, P spec.order, "O", \
		     "balanced (AB BA, default; a Williams design for 3 or more), alternate " \
		     "(AB AB), reverse (AB BA), shuffle, or sequential (AA BB, each command " \
		     "after its own setup; the default when the setups differ)"), \
	  .complete = CLI_COMPLETE_WORDS("balanced alternate reverse shuffle sequential") }, \
	{ CLI_STRING(0, "cpus", T, P spec.cpus, "LIST", \
		     "run every command on these CPUs only, in the kernel's list syntax (\"1\", " \
		     "\"0-1\", \"0,2-3\"; schedule.cpus): a pinned run waits for no other CPU " \
		     "and its contention is judged on these") }, \
	{ CLI_STRING(0, "results", T, P spec.results, "GLOB", \
		     "test-result files (TRX, JUnit) each run writes; {run_dir} is the run's " \
		     "own directory") }, \
	{ CLI_INT(0, "min-executed", T, P spec.min_executed, "N", 0, INT64_MAX, NULL, \
		  "a run fails when fewer tests were executed (default 1)") }, \
	{ CLI_STRINGS(0, "metric", T, P metrics, "NAME[UNIT]=SOURCE:ARG", QUICK_MAX_GATES, \
		      "a metric of the plan's own, compared with wall, cpu and max_rss and " \
		      "gated with --max-regression NAME=P: stdout:REGEX or stderr:REGEX, with " \
		      "the [UNIT] they need (the first group of the first match is the " \
		      "number, e.g. 'parse_ms[ms]=stdout:took ([0-9.]+) ms'), process:FIELD (minflt, " \
		      "nvcsw, ...), duration:TESTGLOB or results:TESTGLOB:REGEX (with --results)") }, \
	{ CLI_STRINGS(0, "max-regression", T, P gates, "[METRIC=]P", QUICK_MAX_GATES, \
		      "gate: METRIC (wall, cpu, max_rss, wall_own or a --metric; default " \
		      "wall_own, wall less its wait on others' CPUs) of each " \
		      "command may be at " \
		      "most P % worse than the reference's (judged on exact intervals, " \
		      "paired and unpaired); once per metric") }, \
	{ CLI_STRINGS_N('L', "parameter-list", T, P lists, "VAR VALUES", 2, \
			QUICK_MAX_COMMANDS, \
			"hyperfine's scan: run each command once per value of the comma-separated " \
			"VALUES (\\, for a comma, \\\\ for a backslash), {VAR} replaced, each a " \
			"variant named after it; several -L: every combination") }, \
	{ CLI_STRINGS_N('P', "parameter-scan", T, P range, "VAR MIN MAX", 3, 1, \
			"hyperfine's scan: run each command once per number from MIN to MAX " \
			"(step -D, default 1), {VAR} replaced; not with -L") }, \
	{ CLI_STRING('D', "parameter-step-size", T, P step, "STEP", \
		     "the step of -P's range (required for decimals)") }, \
	{ CLI_FLAG('i', "ignore-failure", T, P ignore_failure, \
		   "a command's exit code does not fail its run (allowed_exit_codes 0-255); " \
		   "a run killed by a signal or timed out still fails") }, \
	{ CLI_INT('m', "min-runs", T, P min_runs, "N", 1, UINT_MAX, NULL, \
		  "hyperfine's least number of runs, with -M only: with a gate, the rounds run " \
		  "before the first look (schedule.min_rounds); without one, -M's runs (abev " \
		  "has no time target: -r N runs exactly N)") }, \
	{ CLI_INT('M', "max-runs", T, P max_runs, "N", 1, UINT_MAX, NULL, \
		  "hyperfine's most runs: with a gate, rounds until every gate is decided, at " \
		  "most N (--until-decided N); without one, N runs of each command") }, \
	{ CLI_INT(0, "until-decided", T, P spec.until_decided, "N", 1, UINT_MAX, "rounds", \
		  "add rounds until every gate is pass or fail, at most N (schedule.until " \
		  "\"decided\"; needs --max-regression, not --runs)") }, \
	{ CLI_FLAG(0, "inconclusive-pass", T, P spec.inconclusive_pass, \
		   "an inconclusive decision exits 0, not 6 (decision.inconclusive \"pass\"): " \
		   "the word inconclusive in the summary is all that tells it") }

/* Checks the options of a run before the plan is read. 0 or EXIT_USAGE. */
int cli_run_args_check(struct run_args *a, const char *usage);
/*
 * Runs a plan (read and checked on this machine) as `abev run` does:
 * the evidence, the decision and its exit code. plan_shown is the plan
 * file the report's reproduce command names. The plan stays the
 * caller's.
 */
int cli_run_plan(struct plan *plan, const struct run_args *a, const char *plan_shown);
/*
 * Completes q->spec once abev bench or init has parsed its options: the
 * commands (the operands), the repeated options, and what --until-decided
 * needs. 0, or EXIT_USAGE after the message and usage.
 */
int cli_run_quick_check(struct quick_args *q, size_t ncommands, char **commands,
			const char *usage);
/*
 * The plan of spec as text, and parsed into *plan under the name label:
 * for a run (a, abev bench's options), also checked on this machine.
 * 0 or EXIT_USAGE.
 */
int cli_run_quick_plan_load(const struct quick_spec *spec, const char *label, char **text,
			    struct plan *plan, const struct run_args *a, const char *usage);

#endif
