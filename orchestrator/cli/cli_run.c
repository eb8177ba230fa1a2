/*
 * cli_run: the commands that run a plan — `abev run PLAN`, `abev bench
 * COMMAND...` (a plan made from commands, run the same way) and `abev
 * init` (a starter plan, written but not run) — with their help and
 * option tables, and what they share: the options of a run (the rows of
 * RUN_SHARED_OPTIONS, checked by run_args_check()), those of a plan made
 * from commands (QUICK_OPTIONS), the signing key, and run_plan(), which
 * hands the plan to runner.c. The plan itself is plan.c's and quick.c's;
 * the exit code is cli_exit.c's.
 */
#include "cli/cli.h"
#include "cli/outpath.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/metadata.h"
#include "plan/plan.h"
#include "pipeline/plan_check.h"
#include "plan/plan_json.h"
#include "run/proc.h"
#include "run/worktree.h"
#include "plan/dotnet_project.h"
#include "plan/quick.h"
#include "pipeline/runner.h"
#include "seal/seal.h"
#include "seal/signkey.h"
#include "util/name_rule.h"
#include "util/alloc.h"
#include "util/colour.h"
#include "util/env.h"
#include "util/errlist.h"
#include "util/escape.h"
#include "util/number.h"
#include "util/path.h"
#include "util/quote.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

static const char run_usage[] =
	"usage: abev run PLAN --out DIR (--key KEY.key | --unsigned) [--bundle FILE]\n"
	"                [--passphrase-file F | --passphrase-env VAR] [--insecure-key-mode]\n"
	"                [--host-label LABEL] [--max-cpu-wait-pct P] [--quiet]\n"
	"                [--wait | --no-wait | --wait-max SECONDS] [--run-as USER] [--json]\n"
	"                [--color WHEN] [--dry-run]\n";

static const char run_about[] =
	"Runs every variant of PLAN (a JSON plan, schema \"abev.plan/1\") as fresh\n"
	"processes: warmups first (never counted), then the recorded runs in the\n"
	"plan's order (balanced, the default: AB BA..., each variant in each slot\n"
	"equally often; alternate: AB AB...; reverse: AB BA AB...; shuffle: drawn\n"
	"from the seed; sequential: AA BB, each variant after its own setup, which\n"
	"a plan naming no order gets when its variants' setups differ in one cwd), with gap_seconds between the end of one process and the\n"
	"start of the next. Each run is measured (wall, CPU, peak RSS, faults, load,\n"
	"the time it waited for a CPU, foreign CPU, cgroup figures where available);\n"
	"a run that waited for CPUs other processes held more than\n"
	"load.max_cpu_wait_pct (default 10 %) of its wall time is kept as \"discarded\"\n"
	"and repeated (its own threads waiting for each other do not count). \"cpus\"\n"
	"(per variant or in the schedule, e.g. \"0-1\") pins the child to those CPUs.\n"
	"\n"
	"When the runs are over abev compares every metric (the built-in wall, cpu and\n"
	"max_rss, and the plan's) of each variant with the reference variant: medians,\n"
	"ranges, change %, exact Mann-Whitney and round-paired Wilcoxon p-values. Each\n"
	"gate of the plan (max_regression_pct, max_improvement_pct, budget) is judged\n"
	"on an interval with exact coverage (the Wilcoxon signed-rank interval of the\n"
	"rounds' ratios: 6 rounds at 95 %; a budget, the median's: 6 runs): it passes\n"
	"when the whole interval is on its good side, fails when all of it is beyond\n"
	"the limit, and is inconclusive otherwise or with too few rounds.\n"
	"schedule.until \"decided\" adds rounds until every gate is decided. The\n"
	"decision is rejected (a gate failed),\n"
	"inconclusive, accepted, or no decision (no gate); it ends the output and is\n"
	"recorded in result.json's \"comparison\".\n";

/* After the options of `abev run --help`. */
static const char run_tail[] =
	"Evidence: DIR/plan.json, DIR/metadata.json (abev.metadata/1), DIR/result.json\n"
	"(abev.run/1), DIR/report.md, DIR/SHA256 and DIR/SHA256.sig, and per invocation\n"
	"DIR/runs/<variant>/<phase>-<round>[-attempt-<k>]/ with test.log, stderr.log,\n"
	"resource.log, guard.log and result.json (abev.invocation/1).\n"
	"\n"
	"--out and --bundle are checked before anything runs (exit 2): neither may lie\n"
	"inside evidence, nor --bundle be DIR itself; DIR/ is DIR. Before the\n"
	"first invocation abev runs git and the plan's versions commands in each\n"
	"variant's cwd; each may take 10 s, then its process group gets SIGTERM and a\n"
	"second later SIGKILL, and metadata.json records \"timed out\".\n"
	"\n"
	"Signals: SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1 and SIGUSR2 each stop the\n"
	"running process group (the plan's grace period, then SIGKILL; a second signal\n"
	"kills it at once), and the evidence is written, marked \"interrupted\" with\n"
	"the signal's name, and sealed; this holds at any point, also during the\n"
	"versions commands or after the last invocation (while sealing or packing:\n"
	"then every invocation finished and a note says so). abev exits 128+N.\n"
	"SIGPIPE and SIGXFSZ are ignored: a closed stdout (abev run ... | head) is\n"
	"reported and the run goes on; a write over the file-size limit is an error\n"
	"(exit 3), the evidence is still sealed and result.json's notes name what is\n"
	"missing (a result.json that could not be written in full is replaced by a\n"
	"shorter one without the invocation records). abev killed by SIGKILL takes its\n"
	"commands along (a watchdog process kills their process group and cgroups); a\n"
	"run during which abev or its command was stopped (Ctrl-Z, SIGSTOP) is\n"
	"discarded and repeated. While the run goes on, each finished invocation is\n"
	"appended to the journal invocations.jsonl; result.json is written at the\n"
	"start and at the end. abev killed outright leaves result.json \"running\" and\n"
	"the journal, which 'abev report' reads. A disk that fills up stops the run:\n"
	"abev gives back the space it held in abev-reserve, and writes and seals the\n"
	"evidence as failed (\"the disk is full\").\n"
	"\n" EXIT_CODES_TEXT;

static const char bench_usage[] =
	"usage: abev bench [-r N] [-w N] [-n NAME]... [-N] [--prepare CMD]... [--out DIR]\n"
	"                  [--key KEY.key] [--save-plan FILE] [options] COMMAND COMMAND...\n";

static const char bench_about[] =
	"Compares shell commands without a plan file, hyperfine style: e.g.\n"
	"  abev bench 'gzip -1 -c f' 'gzip -9 -c f'\n"
	"The first command is the reference (the baseline). abev makes a plan\n"
	"(abev.plan/1) from the commands and options, runs it exactly as 'abev run'\n"
	"does, writes the same evidence (the plan included, as plan.json) and ends\n"
	"with the same decision and per-metric lines. Each command runs through\n"
	"'sh -c' in the current directory, taken literally ({...} is no placeholder,\n"
	"but for the {VAR} of a -L or -P scan; the run's own directory is\n"
	"$ABEV_RUN_DIR); the variants are named after their commands\n"
	"([A-Za-z0-9._-], other characters become '-') unless -n names them. At\n"
	"most 16 commands are compared at once, the ones a scan makes included.\n";

static const char init_usage[] =
	"usage: abev init [--out plan.json] [--dotnet [--project DIR] [--package NAME]...\n"
	"                 [--baseline REF --candidate REF]\n"
	"                 | --from-bench [bench options] COMMAND...]\n";

static const char init_about[] =
	"Writes a starter plan (default plan.json; an existing file is never\n"
	"overwritten, exit 2) holding every commonly used key with its default: the\n"
	"variants (name, cwd, command), the schedule (warmups, runs, order, seed,\n"
	"gap_seconds, timeout_seconds, kill_grace_seconds), results (files,\n"
	"min_executed), load (max_cpu_wait_pct, max_repeats), an example metric, an\n"
	"example gate, allowed_exit_codes and decision. Without --from-bench its two\n"
	"variants write a one-test JUnit file; replace their commands with yours.\n"
	"With --from-bench the variants are the commands, made as 'abev bench' makes\n"
	"them, with its options below (-r, -w, -n, -N, -L, -P, -D, -i, --prepare, -s, -c,\n"
	"--gap, --order, --cpus, --results, --min-executed, --max-regression,\n"
	"--metric, -m, -M and --until-decided). With --dotnet the variants are\n"
	"`dotnet test --no-build -c Release` of a test project built once\n"
	"beforehand, one TRX per run in {run_dir}, with\n"
	"DOTNET_CLI_TELEMETRY_OPTOUT=1, DOTNET_NOLOGO=1,\n"
	"MSBUILDDISABLENODEREUSE=1 and DOTNET_CLI_USE_MSBUILD_SERVER=0 (no build server\n"
	"or MSBuild node outlives a run), the test assembly and each --package's dll\n"
	"hashed (bin/Release/net*/NAME.dll), `dotnet --version`, `dotnet\n"
	"--list-runtimes` and the resolved versions of the project's direct\n"
	"dependencies and of each --package (from obj/project.assets.json) recorded,\n"
	"and runs allowed to wait for a CPU 25 % of their wall time (the CLR's own\n"
	"threads wait 5-11 %), and gates on the test host's own peak memory and CPU\n"
	"time; set each variant's cwd to its test project. 'abev run PLAN --dry-run'\n"
	"checks the plan.\n"
	"Found from here, --project's .csproj names the assembly, and on\n"
	"Microsoft.Testing.Platform (global.json's test.runner, or the project's\n"
	"EnableMSTestRunner and the like) the TRX is asked for with --report-trx.\n"
	"Two builds of one project need separate output folders (bin/, obj/):\n"
	"with --baseline REF --candidate REF (two git refs; run inside the\n"
	"repository) abev init checks each commit out as a detached git worktree\n"
	"of its own beside the repository's top, TOP-abev/baseline and\n"
	"TOP-abev/candidate (reused when one is there at that commit; anything\n"
	"else there is refused and left alone), so each variant's BaseOutputPath\n"
	"is its own; each variant's cwd is then the project in its worktree\n"
	"(absolute), its setup builds it once (dotnet build -c Release) and\n"
	"versions.commit records its commit; the candidate's project is read.\n"
	"Remove the worktrees with git worktree remove DIR.\n";

static const char init_tail[] =
	"Exit codes: 0 written; 2 usage error, the file exists, not in a git work tree, a\n"
	"ref git does not know, or a worktree's directory taken; 3 cannot write, or git\n"
	"could not make a worktree.\n";

/*
 * PREFIX.pub for PREFIX.key, the file a reviewer verifies with, made
 * absolute when it exists: the report's commands run from inside the
 * evidence directory. Caller frees.
 */
static char *pub_for_key(const char *key)
{
	size_t n = strlen(key);
	char *pub, *abs;
	if (n > 4 && !strcmp(key + n - 4, ".key"))
		pub = xasprintf("%.*s.pub", (int)(n - 4), key);
	else
		pub = xasprintf("%s.pub", key);
	abs = realpath(pub, NULL);
	if (!abs)
		return pub;
	free(pub);
	pub = xstrdup(abs);
	free(abs);
	return pub;
}

/* How long a run without a terminal waits for other abev runs at most, by default (seconds). */
#define RUN_WAIT_MAX_UNATTENDED 3600.0

/* The options of `abev run`, and what `abev bench` shares of them. Strings borrowed. */
struct run_args {
	const char *out, *key_path, *bundle, *pass_file, *pass_env, *host_label, *max_wait;
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
		   "take turns with other abev runs on this host, however long (the default " \
		   "on a terminal; without one abev waits at most 3600 s, then goes ahead) " \
		   "(abev(1), OTHER RUNS)") }, \
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

/* Checks the options of a run before the plan is read. 0 or EXIT_USAGE. */
static int run_args_check(struct run_args *a, const char *usage)
{
	if (!a->out && !a->dry_run)
		return cli_usage_error("no evidence directory given (--out DIR; DIR must not exist)",
				       usage);
	if (a->out && !*a->out)
		return cli_usage_error("'--out' is empty", usage);
	/* "ev/" is the directory ev, which abev creates: not "ev" made first, then found to exist. */
	if (a->out && !a->out_owned)
		a->out = a->out_owned = outpath_clean(a->out);
	/* "new/.." names the directory above new, which exists: refused before new is made. */
	if (a->out && outpath_is_dotdot(a->out))
		return cli_usage_error("'--out' ends in '..', a directory that exists: name the new "
				       "directory itself",
				       usage);
	if (!a->dry_run && outpath_check_evidence("--out", a->out) < 0)
		return EXIT_USAGE;
	if (!a->dry_run && a->bundle && outpath_check_evidence("--bundle", a->bundle) < 0)
		return EXIT_USAGE;
	if (!a->dry_run && a->bundle && outpath_same(a->bundle, a->out))
		return cli_usage_error("--bundle names the --out directory itself: the bundle is a file "
				       "beside the evidence (e.g. DIR.tar.zst)", usage);
	if (a->key_path && a->unsigned_ok)
		return cli_usage_error("--key and --unsigned contradict each other", usage);
	/* --unsigned is explicit, so it beats a key in the environment. */
	if (!a->unsigned_ok)
		a->key_path = signkey_path(a->key_path, &a->key_src);
	if (!a->dry_run && !a->key_path && !a->unsigned_ok)
		return cli_usage_error("evidence is signed: give --key KEY.key or set " SIGNKEY_ENV
				       " (make a key with 'abev keygen'), or --unsigned to seal it "
				       "without a signature",
				       usage);
	if (a->host_label && !name_rule_ok(a->host_label))
		return cli_usage_error("'--host-label' must be 1 to 64 characters of [A-Za-z0-9._-]",
				       usage);
	if (a->color && colour_when_parse(a->color, &a->colour) < 0)
		return cli_usage_error("'--color' takes auto, always or never", usage);
	a->wait_max_seconds = -1;
	if (a->wait_max && (parse_double(a->wait_max, &a->wait_max_seconds) < 0 ||
			    !(a->wait_max_seconds >= 0) || a->wait_max_seconds > 1e7))
		return cli_usage_error("'--wait-max' must be a number of seconds from 0 to 10000000",
				       usage);
	if (a->no_wait && (a->wait || a->wait_max))
		return cli_usage_error("'--no-wait' refuses to wait: it goes with neither '--wait' nor "
				       "'--wait-max'",
				       usage);
	if (a->max_wait && (parse_double(a->max_wait, &a->max_wait_pct) < 0 ||
			    !(a->max_wait_pct >= 0) || a->max_wait_pct > 100))
		return cli_usage_error("'--max-cpu-wait-pct' must be a number from 0 to 100 (percent of "
				       "a run's wall time)",
				       usage);
	if (a->load_wait && (parse_double(a->load_wait, &a->load_wait_seconds) < 0 ||
			     !(a->load_wait_seconds >= 0) || a->load_wait_seconds > 86400))
		return cli_usage_error("'--max-load-wait' must be a number of seconds from 0 to 86400",
				       usage);
	return 0;
}

/* The key a dry run checked, if any: where it came from and its fingerprint, never its text. */
static void print_dry_run_key(FILE *f, const struct run_args *a, const struct signify_key *key)
{
	struct signify_pub pub;
	char fp[SHA256_HEX_LEN + 1], *shown;

	if (!key)
		return;
	signify_pub_of(key, &pub);
	signify_fingerprint(&pub, fp);
	if (signkey_is_text(a->key_path)) {
		fprintf(f, "key:      the key text in %s (not shown), checked: fingerprint %s\n",
			SIGNKEY_ENV, fp);
		return;
	}
	shown = xstrdup_escaped(a->key_path);
	fprintf(f, "key:      %s (%s), checked: fingerprint %s\n", shown,
		a->key_src == SIGNKEY_ENVIRONMENT ? SIGNKEY_ENV : "--key", fp);
	free(shown);
}

/* Every command of the plan runs as its run_as user (checked by plan_check()). 0 or -1. */
static int set_run_as(const struct plan *plan)
{
	struct proc_user u = PROC_USER_INIT;
	int ret;

	if (!plan->run_as)
		return proc_run_as(NULL);
	if (proc_user_lookup(&u, plan->run_as) < 0)
		return error("run_as: no user '%s' on this machine", plan->run_as);
	ret = proc_run_as(&u);
	proc_user_release(&u);
	return ret;
}

/*
 * The plan of a run (abev bench's too), read from path — or from text,
 * when abev bench made it — and checked on this machine in one pass: the
 * plan's own errors (in file order), then the problems of what it names
 * here (variant by variant), all reported together, so that a misspelt
 * key does not hide a missing cwd until it is fixed. The options that
 * override the plan are applied before the checks, which look at them.
 * 0, or EXIT_USAGE after the messages; the plan is the caller's to
 * release either way.
 */
static int run_plan_open(struct plan *plan, const struct run_args *a, const char *path,
			 const char *text)
{
	struct errlist errors = ERRLIST_INIT;
	int r = text ? plan_parse_partial(plan, path, text, strlen(text), &errors)
		     : plan_load_partial(plan, path, &errors);

	if (a->max_wait) {
		plan->max_cpu_wait_pct = a->max_wait_pct;
		plan->max_cpu_wait_pct_from = "--max-cpu-wait-pct";
	}
	if (a->load_wait) {
		plan->max_wait_seconds = a->load_wait_seconds;
		plan->max_wait_seconds_from = "--max-load-wait";
	}
	if (a->run_as) {
		free(plan->run_as);
		plan->run_as = xstrdup(a->run_as);
		plan->run_as_from = "--run-as";
	}
	/*
	 * What the plan names on this machine, before anything runs, in every
	 * mode: a program that is not there or a results directory that does
	 * not exist fails every run, and is better said now (issue 21). A
	 * partial plan holds only the parts its errors leave sound.
	 */
	plan_check(plan, a->dry_run ? PLAN_CHECK_ALL : PLAN_CHECK_RUN, &errors);
	if (errlist_report(&errors) < 0 || r < 0)
		return EXIT_USAGE;
	return 0;
}

/*
 * Runs a plan run_plan_open() accepted as `abev run` does (abev bench
 * too): the evidence, the decision and its exit code. plan_shown is the
 * plan file the report's reproduce command names. The plan stays the
 * caller's.
 */
static int run_plan(struct plan *plan, const struct run_args *a, const char *plan_shown)
{
	struct runner_options opt;
	struct runner_result res;
	struct signify_key *key = NULL;
	char *reproduce = NULL, *pass = NULL, *pub = NULL;
	int rc = EXIT_USAGE;

	if (set_run_as(plan) < 0)
		return EXIT_USAGE;
	/* The passphrase is abev's alone, as the key is (main()): no child inherits it. */
	if (a->pass_env && env_withhold(a->pass_env) < 0)
		return EXIT_USAGE;
	/* The key is checked by a dry run too: a run should not fail on it after the fact. */
	if (a->key_path) {
		if (signkey_passphrase(a->pass_file, a->pass_env, &pass) < 0)
			goto out;
		key = signkey_load(a->key_path, a->key_src, pass, a->insecure_key);
		if (!key)
			goto out;
		/* Key text has no file beside it: the evidence names the fingerprint alone. */
		pub = signkey_is_text(a->key_path) ? NULL : pub_for_key(a->key_path);
	}
	if (a->dry_run) {
		/* With --json stdout carries the expanded plan alone. */
		FILE *f = a->json ? stderr : stdout;
		runner_print_schedule(plan, f);
		print_dry_run_key(f, a, key);
		rc = a->json && plan_json_print(plan, stdout) < 0 ? EXIT_RUNTIME : EXIT_PASSED;
		goto out;
	}

	/*
	 * A key from the environment stays there: the command names no key of
	 * its own. Paths are quoted for sh (the label and the percentage were
	 * checked above).
	 */
	{
		struct strbuf cmd = STRBUF_INIT;
		strbuf_adds(&cmd, "abev run ");
		strbuf_add_sh(&cmd, plan_shown);
		strbuf_adds(&cmd, " --out NEW_DIR");
		if (a->key_src == SIGNKEY_OPTION) {
			strbuf_adds(&cmd, " --key ");
			strbuf_add_sh(&cmd, a->key_path);
		} else if (!a->key_path) {
			strbuf_adds(&cmd, " --unsigned");
		}
		if (a->host_label)
			strbuf_addf(&cmd, " --host-label %s", a->host_label);
		if (a->max_wait)
			strbuf_addf(&cmd, " --max-cpu-wait-pct %s", a->max_wait);
		if (a->load_wait)
			strbuf_addf(&cmd, " --max-load-wait %s", a->load_wait);
		if (a->run_as) {
			strbuf_adds(&cmd, " --run-as ");
			strbuf_add_sh(&cmd, a->run_as);
		}
		reproduce = strbuf_detach(&cmd, NULL);
	}
	memset(&opt, 0, sizeof(opt));
	opt.out_dir = a->out;
	opt.out_made = a->out_made;
	opt.reproduce = reproduce;
	opt.key = key;
	opt.pubkey = pub;
	opt.bundle = a->bundle;
	opt.host_label = a->host_label;
	opt.passphrase_env = a->pass_env;
	opt.json = a->json;
	opt.bench = a->bench;
	opt.colour = a->colour;
	/*
	 * Other abev runs: wait for them by default — without a limit on a
	 * terminal, at most RUN_WAIT_MAX_UNATTENDED seconds without one (CI),
	 * then go ahead — or refuse (--no-wait).
	 */
	opt.refuse_peers = a->no_wait;
	opt.wait = !a->no_wait;
	opt.wait_max_seconds = a->wait_max ? a->wait_max_seconds
			       : a->wait || isatty(STDERR_FILENO) ? -1 : RUN_WAIT_MAX_UNATTENDED;
	opt.key_source = signkey_source_name(a->key_src);
	if (a->quiet)
		opt.progress = PROGRESS_QUIET;
	else if (isatty(STDERR_FILENO))
		opt.progress = PROGRESS_LIVE;
	else
		opt.progress = PROGRESS_LINES;

	if (runner_check_options(&opt) < 0)
		goto out;
	rc = cli_exit_run(runner_run(plan, &opt, &res), &res, plan->inconclusive_fails);
out:
	signify_key_free(key);
	signkey_passphrase_free(pass);
	free(reproduce);
	free(pub);
	return rc;
}

static int run_main(void *opts, size_t n, char **operands)
{
	struct run_args *a = opts;
	struct plan plan = PLAN_INIT;
	int rc;

	if (!n)
		return cli_usage_error("no plan given", cmd_run.usage);
	rc = run_args_check(a, cmd_run.usage);
	if (!rc)
		rc = run_plan_open(&plan, a, operands[0], NULL);
	if (!rc)
		rc = run_plan(&plan, a, operands[0]);
	plan_release(&plan);
	free(a->out_owned);
	return rc;
}

static const struct cli_option run_options[] = {
	{ CLI_STRING('o', "out", struct run_args, out, "DIR",
		     "evidence directory to create (must not exist)"),
	  .complete = CLI_COMPLETE_DIRS },
	{ CLI_STRING('k', "key", struct run_args, key_path, "KEY.key",
		     "sign the evidence (SHA256.sig) with this key ('abev keygen'); without it, "
		     "$ABEV_SIGNING_KEY signs (a path, or the key's PEM text, never printed); "
		     "--dry-run checks the key and result.json's report.key_source says which was "
		     "used"),
	  .complete = CLI_COMPLETE_FILES("*.key") },
	{ CLI_FLAG(0, "unsigned", struct run_args, unsigned_ok,
		   "seal the evidence (SHA256) without signing it (even when ABEV_SIGNING_KEY is "
		   "set); the report then says UNSIGNED. One of --key, ABEV_SIGNING_KEY and "
		   "--unsigned is required") },
	RUN_SHARED_OPTIONS(struct run_args, ),
	{ CLI_STRING(0, "run-as", struct run_args, run_as, "USER",
		     "run every command of the plan as USER, with its groups (abev must run as "
		     "root); overrides the plan's run_as") },
	{ CLI_FLAG(0, "dry-run", struct run_args, dry_run,
		   "check the plan, its programs and files; print the schedule (--json: the "
		   "plan)") },
	{ CLI_END() },
};

/*
 * -n is --name in abev bench and init, as in hyperfine: one meaning
 * across abev's commands, so abev run, whose dry run it once was, refuses it.
 */
static const struct cli_foreign run_foreign[] = {
	{ "-n", "abev bench", "there it names a command, as in hyperfine; to check a plan "
	  "without running it: --dry-run" },
	{ NULL, NULL, NULL },
};

const struct cli_command cmd_run = {
	.name = "run",
	.summary = "run a plan and write sealed evidence",
	.usage = run_usage,
	.about = run_about,
	.tail = run_tail,
	.options = run_options,
	.foreign = run_foreign,
	.operands = "PLAN",
	.max_operands = 1,
	.complete = CLI_COMPLETE_FILES("*.json"),
	.opts_size = sizeof(struct run_args),
	.fn = run_main,
};

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
		  "recorded runs of each command (default 10)") }, \
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
		      "most P % worse than the reference's (judged on the exact paired " \
		      "interval); once per metric") }, \
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
		  "\"decided\"; needs --max-regression, not --runs)") }

/*
 * Completes q->spec once abev bench or init has parsed its options: the
 * commands (the operands), the repeated options, and what --until-decided
 * needs. 0, or EXIT_USAGE after the message and usage.
 */
static int quick_check(struct quick_args *q, size_t ncommands, char **commands,
		       const char *usage)
{
	struct quick_spec *spec = &q->spec;

	spec->commands = (const char *const *)commands;
	spec->ncommands = ncommands;
	spec->names = q->names.v;
	spec->nnames = q->names.n;
	spec->prepare = q->prepare.v;
	spec->nprepare = q->prepare.n;
	spec->ignore_failure = q->ignore_failure;
	spec->outputs = q->outputs.v;
	spec->noutputs = q->outputs.n;
	spec->setup = q->setup ? &q->setup : NULL;
	spec->nsetup = q->setup != NULL;
	spec->cleanup = q->cleanup ? &q->cleanup : NULL;
	spec->ncleanup = q->cleanup != NULL;
	if (q->lists.n || q->range.n || q->step) {
		struct quick_scan scan = {
			.commands = (const char *const *)commands, .ncommands = ncommands,
			.names = q->names.v, .nnames = q->names.n,
			.prepare = q->prepare.v, .nprepare = q->prepare.n,
			.setup = q->setup, .cleanup = q->cleanup,
			.lists = q->lists.v, .nlists = q->lists.n / 2,
			.range = q->range.n ? q->range.v : NULL, .step = q->step,
		};
		char *err = NULL;

		if (!ncommands)
			return cli_usage_error("no command given", usage);
		if (quick_scan_expand(&scan, &q->scanned, &err) < 0) {
			cli_usage_error(err, usage);
			free(err);
			return EXIT_USAGE;
		}
		spec->commands = (const char *const *)q->scanned.commands;
		spec->labels = (const char *const *)q->scanned.labels;
		spec->ncommands = q->scanned.ncommands;
		spec->names = (const char *const *)q->scanned.names;
		spec->nnames = q->scanned.nnames;
		spec->param_names = (const char *const *)q->scanned.param_names;
		spec->param_values = (const char *const *)q->scanned.param_values;
		spec->nparams = q->scanned.nparams;
		spec->prepare = (const char *const *)q->scanned.prepare;
		spec->nprepare = q->scanned.nprepare;
		spec->setup = (const char *const *)q->scanned.setup;
		spec->nsetup = q->scanned.nsetup;
		spec->cleanup = (const char *const *)q->scanned.cleanup;
		spec->ncleanup = q->scanned.ncleanup;
	}
	spec->gates = q->gates.v;
	spec->ngates = q->gates.n;
	spec->metrics = q->metrics.v;
	spec->nmetrics = q->metrics.n;
	if ((q->min_runs || q->max_runs) && (spec->runs >= 0 || spec->until_decided))
		return cli_usage_error("'-m'/'-M' set the runs as hyperfine's do: leave out '--runs' "
				       "and '--until-decided'", usage);
	if (q->min_runs && q->max_runs && q->min_runs > q->max_runs)
		return cli_usage_error("'-m' asks for more runs than '-M' allows", usage);
	/* hyperfine's -m is a floor under its 3-second target; abev has no such target. */
	if (q->min_runs && !q->max_runs)
		return cli_usage_error("'-m N' is hyperfine's least number of runs, topped up to its "
				       "3-second target, which abev does not have: give '-r N' for "
				       "exactly N runs, or a gate with '-m N -M MAX' to run until it "
				       "is decided", usage);
	if (q->max_runs && spec->ngates) {
		spec->until_decided = q->max_runs;
		spec->min_rounds = q->min_runs;
	} else if (q->max_runs) {
		/* No gate to stop early on: one fixed count, as many as hyperfine allows. */
		spec->runs = q->max_runs;
	}
	if (spec->until_decided && spec->runs >= 0)
		return cli_usage_error("'--until-decided N' runs up to N rounds: leave out '--runs'",
				       usage);
	if (spec->until_decided && !spec->ngates)
		return cli_usage_error("'--until-decided' needs a gate to decide: add "
				       "'--max-regression [METRIC=]P'", usage);
	return 0;
}

/*
 * The plan of spec as text, and parsed into *plan under the name label:
 * for a run (a, abev bench's options), also checked on this machine
 * (run_plan_open()). 0 or EXIT_USAGE.
 */
static int quick_plan_load(const struct quick_spec *spec, const char *label, char **text,
			   struct plan *plan, const struct run_args *a, const char *usage)
{
	char *err = NULL;
	int rc;

	*text = quick_plan(spec, &err);
	if (!*text) {
		error("%s", err);
		free(err);
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (a)
		rc = run_plan_open(plan, a, label, *text);
	else
		rc = plan_parse(plan, label, *text, strlen(*text)) < 0 ? EXIT_USAGE : 0;
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

/* The options of abev bench. */
struct bench_args {
	struct quick_args q;
	struct run_args run;
	const char *save;       /* --save-plan FILE */
	/* hyperfine's: --export-json/-csv/-markdown/-junit FILE, --shell SHELL */
	const char *export_json, *export_csv, *export_markdown, *export_junit, *shell;
};

/*
 * hyperfine's options abev bench does not take, with what abev does
 * instead (the ones it does take work as in hyperfine: -r, -w, -n,
 * --command-name, -N, --shell none, --prepare, -s, -c, -L, -P, -D, -i,
 * -m, -M, --output, --export-*).
 */
static const struct cli_foreign hyperfine_options[] = {
	{ "--conclude", "hyperfine", "abev runs nothing after each run: the run's own output "
	  "is kept in its test.log and stderr.log" },
	{ "--show-output", "hyperfine", "abev keeps every run's output in the evidence "
	  "(runs/<variant>/run-N/test.log and stderr.log); --output=inherit shows it" },
	{ "--input", "hyperfine", "give the command its input itself (sh -c 'cmd < FILE')" },
	{ "--style", "hyperfine", "abev's terminal output has one layout: --color=never (or "
	  "NO_COLOR=1) drops its colours, as --style basic or nocolor; --color=always keeps "
	  "them off a terminal, as --style color or full; --quiet keeps the decision line and "
	  "the evidence path" },
	{ "--time-unit", "hyperfine", "abev shows each figure in the unit that suits it; "
	  "--export-csv and result.json keep milliseconds" },
	{ "-u", "hyperfine", "for --time-unit: abev picks the unit per figure" },
	{ "--sort", "hyperfine", "abev lists the commands in the order given, the first the "
	  "reference" },
	{ "--min-benchmarking-time", "hyperfine", "-r N sets the runs" },
	{ "--reference", "hyperfine", "the first command is the reference" },
	{ "--export-asciidoc", "hyperfine", "--export-markdown FILE writes the table; abev report "
	  "renders the whole report" },
	{ "--export-orgmode", "hyperfine", "--export-markdown FILE writes the table; abev report "
	  "renders the whole report" },
	{ "-p", "hyperfine", "for --prepare: abev spells it --prepare CMD only" },
	{ "-V", "hyperfine", "for --version: 'abev --version' prints abev's" },
	{ "--version", "hyperfine", "'abev --version' prints abev's" },
	{ NULL, NULL, NULL },
};

/*
 * hyperfine's --shell as abev bench takes it: 'none' (-N) or sh. 0, or
 * EXIT_USAGE after the message.
 */
static int bench_hyperfine_check(struct bench_args *b)
{
	if (b->shell) {
		int sh = !strcmp(b->shell, "sh") || !strcmp(b->shell, "/bin/sh") ||
			 !strcmp(b->shell, "default");
		/* As hyperfine: -N is --shell none, so a shell besides it is a contradiction. */
		if (sh && b->q.spec.no_shell)
			return cli_usage_error("'-N' (--shell none) and '--shell sh' contradict each "
					       "other: give one", cmd_bench.usage);
		if (!strcmp(b->shell, "none"))
			b->q.spec.no_shell = 1;
		else if (!sh)
			return cli_usage_error("'--shell' takes 'none' (-N) or 'sh': to run a command "
					       "through another shell, give it with -N, as in -N 'bash -c "
					       "\"...\"'", cmd_bench.usage);
	}
	return 0;
}

/*
 * The --export-* files, checked before anything runs so that a wrong
 * path loses no run: one inside the evidence directory this run writes
 * would be a file its manifest does not list (abev verify would then
 * fail the evidence), and each must be one abev can create at the end
 * (outpath_check_new_file()). 0, or EXIT_USAGE after the message.
 */
static int bench_exports_check(const struct bench_args *b, const char *out)
{
	static const char *const opts[] = { "--export-json", "--export-csv", "--export-junit",
					    "--export-markdown" };
	const char *files[] = { b->export_json, b->export_csv, b->export_junit, b->export_markdown };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *msg;
		if (!files[i] || !outpath_inside(files[i], out))
			continue;
		msg = xasprintf("%s '%s' lies inside the evidence directory '%s' that this run "
				"writes, whose manifest would not list it: choose a path elsewhere",
				opts[i], files[i], out);
		cli_usage_error(msg, cmd_bench.usage);
		free(msg);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		if (files[i] && outpath_check_new_file(opts[i], files[i]) < 0)
			return EXIT_USAGE;
	return 0;
}

/*
 * Writes the exports --export-* asked for, from the evidence just sealed:
 * each is the file of abev export --format of the same name, hyperfine's
 * own. 0 or an exit code.
 */
static int bench_exports(const struct bench_args *b)
{
	const char *formats[] = { "hyperfine", "hyperfine-csv", "junit", "hyperfine-markdown" };
	const char *files[] = { b->export_json, b->export_csv, b->export_junit, b->export_markdown };
	int rc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(files) && !rc; i++)
		if (files[i])
			rc = cli_export_file(b->run.out, formats[i], files[i]);
	return rc;
}

/* Whether the evidence directory dir was sealed (its manifest exists). */
static int bench_sealed(const char *dir)
{
	char *path = path_join(dir, EVIDENCE_MANIFEST_FILE);
	int sealed = access(path, F_OK) == 0;

	free(path);
	return sealed;
}

static int bench_run(void *opts, size_t n, char **operands)
{
	struct bench_args *b = opts;
	struct quick_spec *spec = &b->q.spec;
	struct run_args *a = &b->run;
	const char *save = b->save;
	struct plan plan = PLAN_INIT;
	char *cwd = NULL, *out = NULL, *text = NULL, *shown = NULL;
	int rc, note_unsigned = 0;

	rc = quick_check(&b->q, n, operands, cmd_bench.usage);
	if (rc)
		return rc;
	if (!n)
		return cli_usage_error("no command given", cmd_bench.usage);
	rc = bench_hyperfine_check(b);
	if (rc)
		return rc;
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		error("cannot tell the current directory: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	spec->cwd = cwd;
	if (!a->out)
		a->out = out = quick_out_dir(spec, time(NULL));
	rc = bench_exports_check(b, a->out);
	if (rc) {
		free(out);
		free(cwd);
		return rc;
	}
	/* Unsigned by default, unless a key is given or named by ABEV_SIGNING_KEY. */
	if (!a->key_path && !a->unsigned_ok && !getenv(SIGNKEY_ENV)) {
		a->unsigned_ok = 1;
		note_unsigned = !a->quiet;
	}
	rc = run_args_check(a, cmd_bench.usage);
	if (!rc && save && outpath_check_evidence("--save-plan", save) < 0)
		rc = EXIT_USAGE;
	if (!rc)
		rc = quick_plan_load(spec, save ? save : "(abev bench)", &text, &plan, a,
				     cmd_bench.usage);
	/* The default is made now, under a name no other bench took (even in the same second). */
	if (!rc && out) {
		char *made = outpath_make_unique(a->out);
		rc = made ? 0 : EXIT_RUNTIME;
		if (made) {
			free(a->out_owned);
			a->out = a->out_owned = made;
			a->out_made = 1;
		}
	}
	if (!rc && save && write_file_new(save, 0644, text, strlen(text)) < 0)
		rc = EXIT_USAGE;
	if (!rc) {
		shown = save ? xstrdup(save) : path_join(a->out, EVIDENCE_PLAN_FILE);
		a->bench = 1;
		rc = run_plan(&plan, a, shown);
		/* Said of evidence that exists: not before a refusal, not of a dry run. */
		if (note_unsigned && !a->dry_run && bench_sealed(a->out))
			fputs("abev: note: the evidence is sealed but not signed (give --key KEY.key "
			      "or set " SIGNKEY_ENV " to sign it)\n", stderr);
		/* Evidence with a decision: the exports hyperfine users asked for, from it. */
		if (rc == EXIT_PASSED || rc == EXIT_FAILED || rc == EXIT_REJECTED ||
		    rc == EXIT_INCONCLUSIVE) {
			int erc = bench_exports(b);
			rc = erc ? erc : rc;
		}
	}
	/* A refusal leaves nothing behind: the directory made above goes while still empty. */
	if (a->out_made && (rc == EXIT_USAGE || rc == EXIT_RUNTIME))
		(void)rmdir(a->out);
	free(a->out_owned);
	plan_release(&plan);
	free(text);
	free(shown);
	free(out);
	free(cwd);
	return rc;
}

/* The options of abev init. */
struct init_args {
	struct quick_args q;
	const char *out;        /* the plan file; EVIDENCE_PLAN_FILE unless given */
	int from_bench, dotnet;
	const char *project;    /* --project DIR */
	struct cli_strings packages; /* --package NAME */
	const char *baseline, *candidate; /* --baseline REF, --candidate REF */
};

/* The worktrees of --baseline and --candidate, one per starter variant. */
struct init_worktrees {
	struct quick_checkout co[QUICK_STARTER_VARIANTS]; /* what the plan is told */
	char *top;                                        /* the repository's work tree */
	char *dir[QUICK_STARTER_VARIANTS], *commit[QUICK_STARTER_VARIANTS];
	int made[QUICK_STARTER_VARIANTS];                 /* made now, not reused */
};
#define INIT_WORKTREES_INIT { .top = NULL }

static void init_worktrees_release(struct init_worktrees *w)
{
	free(w->top);
	for (size_t k = 0; k < QUICK_STARTER_VARIANTS; k++) {
		free(w->dir[k]);
		free(w->commit[k]);
	}
	memset(w, 0, sizeof(*w));
}

/* EXIT_USAGE for what the user can correct, else EXIT_RUNTIME; 0 for WORKTREE_OK. */
static int worktree_exit(enum worktree_status st)
{
	return st == WORKTREE_OK ? 0 : st == WORKTREE_REFUSED ? EXIT_USAGE : EXIT_RUNTIME;
}

/*
 * --baseline and --candidate resolved, without a side effect: the work
 * tree's top, each ref's commit, and where its worktree goes — beside
 * the top, in <top>-abev/<variant>, outside every work tree of the
 * repository. 0, EXIT_USAGE (one ref only, not in a work tree, an
 * unknown ref) or EXIT_RUNTIME.
 */
static int init_worktrees_plan(const struct init_args *i, struct init_worktrees *w)
{
	const char *refs[QUICK_STARTER_VARIANTS] = { i->baseline, i->candidate };
	static const char *const opts[QUICK_STARTER_VARIANTS] = { "--baseline", "--candidate" };
	int rc;

	if (!i->dotnet)
		return cli_usage_error("--baseline and --candidate are for --dotnet", cmd_init.usage);
	for (size_t k = 0; k < QUICK_STARTER_VARIANTS; k++)
		if (!refs[k])
			return cli_usage_error(k ? "--baseline needs --candidate REF: the ref of the new "
					       "build" : "--candidate needs --baseline REF: the ref of "
					       "the old build", cmd_init.usage);
	if (proc_setup() < 0)
		return EXIT_RUNTIME;
	rc = worktree_exit(worktree_top(".", &w->top));
	for (size_t k = 0; !rc && k < QUICK_STARTER_VARIANTS; k++) {
		rc = worktree_exit(worktree_commit(w->top, opts[k], refs[k], &w->commit[k]));
		if (rc)
			break;
		w->dir[k] = xasprintf("%s-abev/%s", w->top, quick_starter_names[k]);
		w->co[k] = (struct quick_checkout){ w->dir[k], refs[k], w->commit[k] };
	}
	return rc;
}

/*
 * The worktrees of w made (or reused), once the test project is known to
 * be in both commits and neither directory is taken, so that a refusal
 * makes nothing; each said on stderr, with how to remove them. 0,
 * EXIT_USAGE (the project is not in a commit, a directory is taken) or
 * EXIT_RUNTIME.
 */
static int init_worktrees_make(struct init_worktrees *w, const char *project)
{
	struct strbuf remove = STRBUF_INIT;
	int there[QUICK_STARTER_VARIANTS] = { 0 };
	int rc = 0;

	for (size_t k = 0; !rc && k < QUICK_STARTER_VARIANTS; k++)
		rc = worktree_exit(worktree_has_dir(w->top, w->commit[k], project));
	for (size_t k = 0; !rc && k < QUICK_STARTER_VARIANTS; k++)
		rc = worktree_exit(worktree_check(w->top, w->dir[k], w->commit[k], &there[k]));
	for (size_t k = 0; !rc && k < QUICK_STARTER_VARIANTS; k++) {
		char *shown;

		if (!there[k]) {
			rc = worktree_exit(worktree_add(w->top, w->dir[k], w->commit[k]));
			if (rc)
				break;
			w->made[k] = 1;
		}
		shown = xstrdup_escaped(w->dir[k]);
		fprintf(stderr, "abev: %s git worktree %s at %.12s for %s\n",
			w->made[k] ? "made" : "reused", shown, w->commit[k], quick_starter_names[k]);
		free(shown);
	}
	/* Both once they are the plan's; after a refusal, those made on the way. */
	for (size_t k = 0; k < QUICK_STARTER_VARIANTS; k++) {
		if (rc && !w->made[k])
			continue;
		strbuf_addf(&remove, "%sgit -C ", remove.len ? " && " : "");
		strbuf_add_sh(&remove, w->top);
		strbuf_adds(&remove, " worktree remove ");
		strbuf_add_sh(&remove, w->dir[k]);
	}
	if (remove.len) {
		char *shown = xstrdup_escaped(remove.buf);
		fprintf(stderr, "abev: to remove %s: %s\n", rc ? "what was made" : "them", shown);
		free(shown);
	}
	strbuf_release(&remove);
	return rc;
}

/*
 * The test project at dir (--project DIR as found from here, or in the
 * candidate's worktree; NULL: none to read): its project file names the
 * assembly, and how dotnet test runs it decides how the plan asks for a
 * TRX. A directory that is not here (the usual case without worktrees:
 * the plan's cwds are other checkouts) leaves the defaults, with a note.
 * 0, or EXIT_USAGE.
 */
static int init_dotnet_project(struct quick_spec *spec, const char *dir,
			       struct dotnet_project *p)
{
	struct stat sb;
	char *err = NULL;

	if (!dir)
		return 0;
	if (stat(dir, &sb) < 0) {
		char *shown = xstrdup_escaped(dir);
		warning("'%s' is not here: the plan assumes VSTest's dotnet test and the assembly "
			"'%s.dll' (run abev init from the repository's top to have them read)",
			shown, strrchr(shown, '/') ? strrchr(shown, '/') + 1 : shown);
		free(shown);
		return 0;
	}
	if (dotnet_project_inspect(dir, p, &err) < 0) {
		dotnet_project_release(p);
		cli_usage_error(err, cmd_init.usage);
		free(err);
		return EXIT_USAGE;
	}
	spec->net.assembly = p->assembly;
	spec->net.runner = p->runner;
	if (p->runner == DOTNET_RUNNER_MTP_BRIDGE)
		warning("the project runs its tests on Microsoft.Testing.Platform but no global.json "
			"says so: the runs pass --report-trx after '--' (SDK 8 and 9); the .NET 10 SDK "
			"runs such a project only with a global.json holding \"test\": {\"runner\": "
			"\"Microsoft.Testing.Platform\"}, which abev init then reads");
	return 0;
}

static int init_write(void *opts, size_t n, char **operands)
{
	struct init_args *i = opts;
	struct quick_spec *spec = &i->q.spec;
	const char *out = i->out;
	int from_bench = i->from_bench, dotnet = i->dotnet, rc;
	struct plan plan = PLAN_INIT;
	struct dotnet_project project = DOTNET_PROJECT_INIT;
	struct init_worktrees wt = INIT_WORKTREES_INIT;
	struct stat sb;
	char *cwd = NULL, *text = NULL, *found = NULL;

	rc = quick_check(&i->q, n, operands, cmd_init.usage);
	if (rc)
		return rc;
	if (n && !from_bench)
		return cli_usage_error("commands are given after --from-bench", cmd_init.usage);
	if (from_bench && !n)
		return cli_usage_error("--from-bench needs the commands to compare", cmd_init.usage);
	if (dotnet && from_bench)
		return cli_usage_error("--dotnet writes a starter of its own: not with --from-bench",
				       cmd_init.usage);
	if (!*out)
		return cli_usage_error("'--out' is empty", cmd_init.usage);
	if (lstat(out, &sb) == 0)
		return cli_usage_error("the plan file already exists and abev init never overwrites "
				       "one: choose another --out", cmd_init.usage);
	if (outpath_check_evidence("--out", out) < 0)
		return EXIT_USAGE;
	spec->starter = 1;
	spec->dotnet = dotnet;
	spec->net.project = i->project;
	spec->net.packages = i->packages.v;
	spec->net.npackages = i->packages.n;
	if (i->baseline || i->candidate) {
		const char *dir = spec->net.project ? spec->net.project : QUICK_DOTNET_PROJECT;

		/* Everything the plan says checked before a worktree is made. */
		rc = init_worktrees_plan(i, &wt);
		if (!rc) {
			spec->net.checkouts = wt.co;
			rc = quick_plan_load(spec, out, &text, &plan, NULL, cmd_init.usage);
			plan_release(&plan);
			free(text);
			text = NULL;
		}
		if (!rc)
			rc = init_worktrees_make(&wt, dir);
		/* The candidate's project decides the assembly and how dotnet test runs it. */
		if (!rc)
			found = path_join(wt.dir[QUICK_STARTER_VARIANTS - 1], dir);
	} else {
		found = spec->net.project ? xstrdup(spec->net.project) : NULL;
	}
	if (!rc && dotnet)
		rc = init_dotnet_project(spec, found, &project);
	if (rc)
		goto out;
	spec->cwd = ".";
	/* Commands run where abev init ran: said absolutely when the plan lives elsewhere. */
	if (n && strchr(out, '/')) {
		cwd = getcwd(NULL, 0);
		if (!cwd) {
			error("cannot tell the current directory: %s", strerror(errno));
			rc = EXIT_RUNTIME;
			goto out;
		}
		spec->cwd = cwd;
	}
	rc = quick_plan_load(spec, out, &text, &plan, NULL, cmd_init.usage);
	if (!rc && write_file_new(out, 0644, text, strlen(text)) < 0)
		rc = EXIT_RUNTIME;
	if (!rc) {
		struct strbuf quoted = STRBUF_INIT;
		char *shown = xstrdup_escaped(out);
		strbuf_add_sh(&quoted, out);
		printf("plan: %s\ncheck it: abev run %s --dry-run\nrun it:   abev run %s --out DIR "
		       "--unsigned\n", shown, quoted.buf, quoted.buf);
		if (spec->net.checkouts)
			fputs("abev: note: each variant's setup builds its worktree when the run "
			      "starts; until then a dry run finds no assemblies to hash\n", stderr);
		strbuf_release(&quoted);
		free(shown);
	}
out:
	plan_release(&plan);
	dotnet_project_release(&project);
	init_worktrees_release(&wt);
	free(text);
	free(cwd);
	free(found);
	return rc;
}

static const struct cli_option bench_options[] = {
	QUICK_OPTIONS(struct bench_args, q.),
	{ CLI_STRING('o', "out", struct bench_args, run.out, "DIR",
		     "evidence directory (must not exist); default abev-evidence/<UTC "
		     "time>-<names> in the current directory (-2, -3, ... added when another "
		     "bench took that name)"),
	  .complete = CLI_COMPLETE_DIRS },
	{ CLI_STRING('k', "key", struct bench_args, run.key_path, "KEY.key",
		     "sign the evidence (or the key $ABEV_SIGNING_KEY names); without either it "
		     "is sealed but not signed (a note on stderr says so; --unsigned silences it)"),
	  .complete = CLI_COMPLETE_FILES("*.key") },
	{ CLI_FLAG(0, "unsigned", struct bench_args, run.unsigned_ok,
		   "seal the evidence without signing it, even when ABEV_SIGNING_KEY is set, and "
		   "without the note that says so") },
	{ CLI_STRING(0, "save-plan", struct bench_args, save, "FILE",
		     "also write the plan to FILE (must not exist), for 'abev run FILE' in a "
		     "release pipeline"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	RUN_SHARED_OPTIONS(struct bench_args, run.),
	{ CLI_STRINGS(0, "command-name", struct bench_args, q.names, "NAME", QUICK_MAX_COMMANDS,
		      "hyperfine's name for -n: the same") },
	{ CLI_STRING('S', "shell", struct bench_args, shell, "SHELL",
		     "as hyperfine: 'none' runs the commands without a shell (-N); 'sh' is the "
		     "default; another shell: write it into the command ('bash -c ...') with -N") },
	{ CLI_STRING(0, "export-json", struct bench_args, export_json, "FILE",
		     "at the end, write hyperfine's JSON of the counted runs to FILE (must not "
		     "exist): abev export --format hyperfine"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_STRING(0, "export-csv", struct bench_args, export_csv, "FILE",
		     "at the end, write hyperfine's CSV, a row per command, to FILE (abev export "
		     "--format hyperfine-csv; --format csv has a row per run)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_STRING(0, "export-junit", struct bench_args, export_junit, "FILE",
		     "at the end, write the gates and failures as JUnit XML to FILE (abev export "
		     "--format junit)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_STRING(0, "export-markdown", struct bench_args, export_markdown, "FILE",
		     "at the end, write hyperfine's Markdown table to FILE (abev export --format "
		     "hyperfine-markdown; the evidence's report.md is the whole report)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_END() },
};

static const struct bench_args bench_defaults = { .q = { .spec = QUICK_SPEC_INIT } };

/* abev bench, and what its scan made released. */
static int bench_main(void *opts, size_t n, char **operands)
{
	int rc = bench_run(opts, n, operands);

	quick_scan_release(&((struct bench_args *)opts)->q.scanned);
	return rc;
}

const struct cli_command cmd_bench = {
	.name = "bench",
	.summary = "compare shell commands without a plan file",
	.usage = bench_usage,
	.about = bench_about,
	.tail = EXIT_CODES_TEXT,
	.options = bench_options,
	.operands = "COMMAND",
	.max_operands = CLI_MANY,
	.opts_size = sizeof(struct bench_args),
	.defaults = &bench_defaults,
	.foreign = hyperfine_options,
	.fn = bench_main,
};

static const struct cli_option init_options[] = {
	{ CLI_STRING('o', "out", struct init_args, out, "FILE",
		     "the plan file to write (default plan.json); an existing file is never "
		     "overwritten"),
	  .complete = CLI_COMPLETE_FILES("*.json") },
	{ CLI_FLAG(0, "dotnet", struct init_args, dotnet,
		   "a starter plan for `dotnet test` of a test project (see above)") },
	{ CLI_STRING(0, "project", struct init_args, project, "DIR",
		     "with --dotnet: the test project's directory, relative to the repository's "
		     "top (default " QUICK_DOTNET_PROJECT "); its last part names the assembly "
		     "hashed"),
	  .complete = CLI_COMPLETE_DIRS },
	{ CLI_STRINGS(0, "package", struct init_args, packages, "NAME", QUICK_MAX_PACKAGES,
		      "with --dotnet: a NuGet package compared (the one upgraded): its resolved "
		      "version is recorded beside the project's direct dependencies, and its "
		      "NAME.dll hashed beside the test assembly; repeatable") },
	{ CLI_STRING(0, "baseline", struct init_args, baseline, "REF",
		     "with --dotnet and --candidate: the git ref (branch, tag, commit) of the old "
		     "build, checked out by abev init as a detached git worktree of its own beside "
		     "the repository's top (TOP-abev/baseline), so that each build has its own "
		     "bin/ and obj/; run inside the repository") },
	{ CLI_STRING(0, "candidate", struct init_args, candidate, "REF",
		     "with --dotnet and --baseline: the git ref of the new build, checked out in "
		     "TOP-abev/candidate") },
	{ CLI_FLAG(0, "from-bench", struct init_args, from_bench,
		   "the variants are the commands given as operands, made as 'abev bench' "
		   "makes them with the options below") },
	QUICK_OPTIONS(struct init_args, q.),
	{ CLI_END() },
};

static const struct init_args init_defaults = {
	.q = { .spec = QUICK_SPEC_INIT },
	.out = EVIDENCE_PLAN_FILE,
};

/* abev init, and what its scan made released. */
static int init_main(void *opts, size_t n, char **operands)
{
	int rc = init_write(opts, n, operands);

	quick_scan_release(&((struct init_args *)opts)->q.scanned);
	return rc;
}

const struct cli_command cmd_init = {
	.name = "init",
	.summary = "write a starter plan",
	.usage = init_usage,
	.about = init_about,
	.tail = init_tail,
	.options = init_options,
	.operands = "COMMAND",
	.max_operands = CLI_MANY,
	.opts_size = sizeof(struct init_args),
	.defaults = &init_defaults,
	.fn = init_main,
};
