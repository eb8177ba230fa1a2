/*
 * quick: the plans that `abev bench` and `abev init` write. From a few
 * shell commands and hyperfine-style settings it builds the text of an
 * "abev.plan/1" plan — exactly what `abev run` reads — and the names and
 * directory a quick comparison gets. Pure computation: no I/O, no clock,
 * no process; it neither parses nor runs the plan (plan.c and runner.c
 * do, as for any plan).
 */
#ifndef ABEV_QUICK_H
#define ABEV_QUICK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "plan/dotnet_project.h"

/* Most commands one quick comparison takes. */
#define QUICK_MAX_COMMANDS 16
/* --max-regression given at most this often (a metric each). */
#define QUICK_MAX_GATES 16
/* Longest command (or prepare command) accepted, in bytes. */
#define QUICK_COMMAND_MAX 65536
/* Most words a command split with -N may have. */
#define QUICK_MAX_WORDS 4096
/* Variant names made from a command are cut to this many characters. */
#define QUICK_DERIVED_NAME_MAX 32
/*
 * Runs per variant when -r is not given and there is no gate (hyperfine's
 * least number of runs); with a gate abev bench runs until it is decided.
 */
#define QUICK_DEFAULT_RUNS 10

/* Most --package names abev init --dotnet takes. */
#define QUICK_MAX_PACKAGES 16

/*
 * A variant's own checkout of one commit: abev init --dotnet --baseline
 * REF --candidate REF makes a git worktree for each. Strings borrowed.
 */
struct quick_checkout {
	const char *dir;             /* the worktree's top, absolute */
	const char *ref;             /* as given */
	const char *commit;          /* its full id */
};

/*
 * What abev init --dotnet knows of the test project; every member may be
 * left zero. Strings borrowed.
 */
struct quick_dotnet {
	const char *project;         /* its directory within a checkout; NULL:
	                                QUICK_DOTNET_PROJECT */
	const char *assembly;        /* its assembly name ([A-Za-z0-9._-]); NULL: the
	                                project directory's last part */
	/*
	 * --package: NuGet ids ([A-Za-z0-9._-]) whose resolved version (from
	 * obj/project.assets.json, beside the project's own direct
	 * dependencies) is recorded and whose NAME.dll in the build output is
	 * hashed, beside the test assembly.
	 */
	const char *const *packages;
	size_t npackages;
	enum dotnet_runner runner;   /* how dotnet test asks for the TRX */
	/*
	 * NULL: each variant's cwd is "../<variant>/<project>", a checkout the
	 * user makes and builds. Else one per starter variant (baseline,
	 * candidate): its cwd is the project in that checkout, a setup step
	 * builds it, and versions.commit records its HEAD.
	 */
	const struct quick_checkout *checkouts;
};

/* The variants of a starter plan without commands, the reference first. */
#define QUICK_STARTER_VARIANTS 2
extern const char *const quick_starter_names[QUICK_STARTER_VARIANTS];

/* The test project of a starter plan whose project is not known. */
#define QUICK_DOTNET_PROJECT "tests/MyLibrary.Tests"

/* What a quick comparison is made of. All strings borrowed. */
struct quick_spec {
	const char *const *commands; /* the first is the reference */
	size_t ncommands;            /* 1..QUICK_MAX_COMMANDS */
	const char *const *names;    /* -n NAME, in command order; fewer than the commands:
	                                the rest are named after their command */
	size_t nnames;
	const char *const *labels;   /* what each command's name is made from, in place of
	                                the command (a scan's quick_scan_result.labels);
	                                NULL: the commands */
	const char *const *prepare;  /* --prepare: none, one for every command, or one each */
	size_t nprepare;
	/*
	 * A scan's parameters (quick_scan_result): each variant's
	 * "parameters" are the nparams names with its command's values,
	 * param_values[i * nparams + k] for command i. 0: none.
	 */
	const char *const *param_names;
	const char *const *param_values;
	size_t nparams;
	const char *const *setup;    /* --setup: none, one for every command, or one each */
	size_t nsetup;
	const char *const *cleanup;  /* --cleanup: likewise */
	size_t ncleanup;
	/*
	 * --output: none, one for every command, or one each: each variant's
	 * "output" (log, null, pipe, inherit or a file with a '/'; a relative
	 * file made absolute against cwd when that is absolute)
	 */
	const char *const *outputs;
	size_t noutputs;
	int no_shell;                /* -N: split commands into words (quick_split()),
	                                else run each through `sh -c`; either way taken
	                                literally (braces are no placeholders) */
	const char *cwd;             /* every variant's cwd, as the plan records it */
	int64_t runs, warmups;       /* -1: QUICK_DEFAULT_RUNS, 0 */
	double gap_seconds;          /* < 0: 0 */
	const char *order;           /* run_order_name(); NULL: PLAN_ORDER_DEFAULT's */
	const char *cpus;            /* --cpus: schedule.cpus, a CPU list ("0-1"); NULL: any */
	const char *results;         /* results.files template, or NULL */
	int64_t min_executed;        /* -1: the plan's default (1 with results) */
	const char *const *metrics;  /* --metric: "NAME[UNIT]=SOURCE:ARG" (quick_metric()) */
	size_t nmetrics;             /* 0..QUICK_MAX_GATES */
	const char *const *gates;    /* --max-regression: "[METRIC=]P", METRIC wall_own by default */
	size_t ngates;               /* 0..QUICK_MAX_GATES */
	int64_t until_decided;       /* schedule.until "decided" up to this many rounds; 0: no */
	int64_t min_rounds;          /* with until_decided: schedule.min_rounds; 0: the first look */
	int inconclusive_pass;       /* --inconclusive-pass: decision.inconclusive "pass" (exit 0) */
	int ignore_failure;          /* -i: allowed_exit_codes 0-255 */
	/*
	 * abev init: also write every commonly used key with its default
	 * (seed, kill grace, load, allowed exit codes, decision), a timeout,
	 * an example metric and an example gate; without commands, two
	 * example variants that write a JUnit file the results check reads.
	 */
	int starter;
	/*
	 * abev init --dotnet: the starter's variants are `dotnet test` of a
	 * test project built once beforehand (--no-build, a TRX per run),
	 * with the environment, assemblies, versions and load settings a
	 * .NET comparison needs.
	 */
	int dotnet;
	struct quick_dotnet net;     /* with dotnet: what abev init knows of the project */
};

/*
 * load.max_wait_seconds of abev bench's plan: a comparison typed at a prompt
 * waits at most this long in all for a quieter machine (the plan default,
 * a minute, is for release plans), then answers from runs kept under load.
 */
#define QUICK_MAX_WAIT_SECONDS 10

#define QUICK_SPEC_INIT { .runs = -1, .warmups = -1, .gap_seconds = -1, .min_executed = -1 }

/*
 * The plan's text (pretty JSON with a final newline; caller frees), or
 * NULL with *err set (caller frees) when the spec cannot make a plan: no
 * command (unless starter), too many names or commands, a prepare count
 * other than 0, 1 or ncommands, an unknown order, a CPU list that is
 * none, a command -N cannot split, min_executed without results, a
 * --metric that is not NAME[UNIT]=SOURCE:ARG or is given twice.
 */
char *quick_plan(const struct quick_spec *spec, char **err);

/*
 * Splits cmd into words for -N, the simple way: words are separated by
 * blanks (space, tab, newline); '...' keeps everything up to the next
 * quote literally; "..." too, except that \" and \\ stand for " and \;
 * outside quotes a backslash keeps the next character. No expansion of
 * any kind. *words (caller frees with strv_free()) is NULL-terminated and
 * *nwords counts it. 0, or -1 with *err set (caller frees): an unclosed
 * quote, a trailing backslash, no word, more than QUICK_MAX_WORDS.
 */
int quick_split(const char *cmd, char ***words, size_t *nwords, char **err);

/*
 * The variant names of spec: the given -n names first, the others made
 * from their command, or its label ([A-Za-z0-9._-]; runs of dashes and anything else become one '-',
 * at most QUICK_DERIVED_NAME_MAX characters, "cmdN" when nothing is
 * left); a valid given name is used as it is (quick_plan() refuses the
 * others, and two given names equal ignoring case), an invalid one is
 * made valid the same way; a made name already taken (ignoring case, as
 * the plan loader compares) gets "-2", "-3", ... *names (caller frees
 * with strv_free()) has spec->ncommands entries.
 */
void quick_names(const struct quick_spec *spec, char ***names);

/*
 * The evidence directory of a bench without --out:
 * "abev-evidence/<YYYYmmddTHHMMSSZ>-<slug>", the slug the variant names
 * joined with "-vs-" (at most 60 characters). Caller frees.
 */
char *quick_out_dir(const struct quick_spec *spec, time_t now);

/*
 * hyperfine's parameter scans (quick_scan.c): -L VAR V1,V2,... (any
 * number, every combination) or one -P VAR MIN MAX with -D STEP. Strings
 * borrowed.
 */
struct quick_scan {
	const char *const *commands; /* as given: {VAR} is replaced */
	size_t ncommands;
	const char *const *names;    /* -n: none, one (a template), or one per command made */
	size_t nnames;
	const char *const *prepare;  /* --prepare: none, one for all, or one per command given */
	size_t nprepare;
	const char *setup, *cleanup; /* --setup, --cleanup: one each, or NULL */
	const char *const *lists;    /* -L: VAR, VALUES, VAR, VALUES... (2 * nlists) */
	size_t nlists;
	const char *const *range;    /* -P: VAR, MIN, MAX; NULL: none */
	const char *step;            /* -D STEP; NULL: 1 (a decimal range needs one) */
};

/*
 * The commands a scan made, their labels, their names when -n gave any,
 * and their prepare commands when --prepare gave any: one, when it names
 * no parameter, else one per command made (owned).
 */
struct quick_scan_result {
	char **commands;
	size_t ncommands;
	/*
	 * One per command, for quick_spec.labels: the command, followed by
	 * the parameters it has no {VAR} of, as hyperfine shows such a
	 * command: "true (t = 1)", so that the variants named after it differ
	 * by the value, not by "-2".
	 */
	char **labels;
	char **names;
	size_t nnames;
	/* The parameters' names, and each command's values of them (quick_spec's). */
	char **param_names;
	char **param_values;
	size_t nparams;
	char **prepare;
	size_t nprepare;
	char **setup, **cleanup;     /* likewise for --setup and --cleanup */
	size_t nsetup, ncleanup;
};

/*
 * Expands scan into *out: each command once per combination of values,
 * the commands varying fastest, then the first -L, then the next (-P's
 * values in order), as hyperfine orders them. Refused, with *err (caller
 * frees): -P with -L, -D without -P, a parameter named twice or that no
 * command has as {VAR}, a range that is empty, has no step or a step not
 * above 0, a number that is none, more than QUICK_MAX_COMMANDS commands,
 * a count of names other than 0, 1 or one per command made, one name
 * that would name several commands alike (no {VAR} in it), of prepare
 * commands other than 0, 1 or one per command given. {VAR} is replaced in
 * names and prepare commands too, as hyperfine does. 0 or -1.
 */
int quick_scan_expand(const struct quick_scan *scan, struct quick_scan_result *out, char **err);
void quick_scan_release(struct quick_scan_result *r);

#endif
