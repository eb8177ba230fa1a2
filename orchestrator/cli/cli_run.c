/*
 * cli_run: the commands that run a plan — `abev run PLAN`, `abev bench
 * COMMAND...` (a plan made from commands, run the same way) and `abev
 * init` (a starter plan, written but not run) — with their usage texts,
 * and the run path they share: the options of a run (run_args_check),
 * the signing key, and run_plan(), which hands the plan to runner.c. The
 * plan itself is plan.c's and quick.c's; the exit code is cli_exit.c's.
 */
#include "cli/cli.h"
#include "cli/cli_out.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "evidence/metadata.h"
#include "plan/plan.h"
#include "pipeline/plan_check.h"
#include "plan/plan_json.h"
#include "run/proc.h"
#include "plan/quick.h"
#include "pipeline/runner.h"
#include "evidence/seal.h"
#include "evidence/signkey.h"
#include "util/name_rule.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/escape.h"
#include "util/number.h"
#include "util/path.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

static const char run_synopsis[] =
	"usage: abev run PLAN --out DIR (--key KEY.key | --unsigned) [--bundle FILE]\n"
	"                [--passphrase-file F | --passphrase-env VAR] [--insecure-key-mode]\n"
	"                [--host-label LABEL] [--max-cpu-wait-pct P] [--wait] [--quiet]\n"
	"                [--run-as USER] [--json] [--dry-run]\n";

const char run_usage[] =
	"usage: abev run PLAN --out DIR (--key KEY.key | --unsigned) [--bundle FILE]\n"
	"                [--passphrase-file F | --passphrase-env VAR] [--insecure-key-mode]\n"
	"                [--host-label LABEL] [--max-cpu-wait-pct P] [--wait] [--quiet]\n"
	"                [--run-as USER] [--json] [--dry-run]\n"
	"\n"
	"Runs every variant of PLAN (a JSON plan, schema \"abev.plan/1\") as fresh\n"
	"processes: warmups first (never counted), then the recorded runs in the\n"
	"plan's order (alternate: AB AB..., reverse: AB BA AB..., shuffle: drawn from\n"
	"the seed), with gap_seconds between the end of one process and the start of\n"
	"the next. Each run is measured (wall, CPU, peak RSS, faults, load, the time\n"
	"it waited for a CPU, foreign CPU, cgroup figures where available); a run\n"
	"that waited for CPUs other processes held more than load.max_cpu_wait_pct\n"
	"(default 10 %) of its wall time is kept as \"discarded\" and repeated (its own\n"
	"threads waiting for each other do not count). \"cpus\" (per variant or in\n"
	"the schedule, e.g. \"0-1\") pins the child to those CPUs.\n"
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
	"recorded in result.json's \"comparison\".\n"
	"\n"
	"Options:\n"
	"  -o, --out DIR   evidence directory to create (must not exist)\n"
	"  -k, --key KEY.key\n"
	"                  sign the evidence (SHA256.sig) with this key ('abev keygen');\n"
	"                  without it, $ABEV_SIGNING_KEY signs (a path, or the key's PEM\n"
	"                  text, never printed); --dry-run checks the key\n"
	"                  and result.json's report.key_source says which was used\n"
	"  --unsigned      seal the evidence (SHA256) without signing it (even when\n"
	"                  ABEV_SIGNING_KEY is set); the report then says UNSIGNED. One of\n"
	"                  --key, ABEV_SIGNING_KEY and --unsigned is required\n"
	"  --passphrase-file F, --passphrase-env VAR\n"
	"                  the key's passphrase: first line of F, or $VAR (never argv);\n"
	"                  an empty one is a usage error (exit 2)\n"
	"  --insecure-key-mode\n"
	"                  use a key file that its group or others can read (warns);\n"
	"                  without it such a key is refused with the chmod 600 to run\n"
	"  --bundle FILE   also pack the evidence into FILE (.tar.zst or .tar.gz)\n"
	"  --host-label LABEL\n"
	"                  name this machine in metadata.json (host.label) and in a\n"
	"                  combined report: 1-64 of [A-Za-z0-9._-]; default: the hostname\n"
	"  --max-cpu-wait-pct P\n"
	"                  discard a recorded run that waited for CPUs other processes\n"
	"                  held more than P % (0-100) of its wall time; overrides\n"
	"                  load.max_cpu_wait_pct\n"
	"                  and is recorded in result.json (schedule)\n"
	"  --wait          take turns with other abev runs on this host; without it a\n"
	"                  recorded run that overlaps one (or a load.exclusive match)\n"
	"                  is discarded and repeated (abev(1), OTHER RUNS)\n"
	"  --run-as USER   run every command of the plan as USER, with its groups\n"
	"                  (abev must run as root); overrides the plan's run_as\n"
	"  -q, --quiet     print only the decision line and the evidence path\n"
	"  --json          print the comparison (result.json's \"comparison\") as JSON on\n"
	"                  stdout; the other lines go to stderr\n"
	"  -n, --dry-run   check the plan, its programs and files; print the schedule\n"
	"                  (--json: the plan)\n"
	"  -h, --help      show this help\n"
	"\n";

/* The rest of `abev run --help` (one string may not hold it all). */
const char run_usage_tail[] =
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

static const char bench_synopsis[] =
	"usage: abev bench [options] COMMAND COMMAND...\n"
	"       (-r N, -w N, -n NAME, -N, --prepare CMD, --gap S, --order O, --out DIR,\n"
	"        --key KEY.key, --save-plan FILE; 'abev help bench' lists them all)\n";

const char bench_usage[] =
	"usage: abev bench [options] COMMAND COMMAND...\n"
	"\n"
	"Compares shell commands without a plan file, hyperfine style: e.g.\n"
	"  abev bench 'gzip -1 -c f' 'gzip -9 -c f'\n"
	"The first command is the reference (the baseline). abev makes a plan\n"
	"(abev.plan/1) from the commands and options, runs it exactly as 'abev run'\n"
	"does, writes the same evidence (the plan included, as plan.json) and ends\n"
	"with the same decision and per-metric lines. Each command runs through\n"
	"'sh -c' in the current directory, taken literally ({...} is no placeholder;\n"
	"the run's own directory is $ABEV_RUN_DIR); the variants are named after\n"
	"their commands ([A-Za-z0-9._-], other characters become '-') unless -n\n"
	"names them. At most 16 commands are compared at once.\n"
	"\n"
	"Options:\n"
	"  -r, --runs N      recorded runs of each command (default 10)\n"
	"  -w, --warmup N    warmup runs of each command, never counted (default 0)\n"
	"  -n, --name NAME   name the next command (once per command, in order): a\n"
	"                    variant name, used as it is ([A-Za-z0-9._-], not starting\n"
	"                    with '.', at most 64 characters, unique ignoring case)\n"
	"  -N, --no-shell    run each command without a shell: split into words at\n"
	"                    blanks, '...' and \"...\" quote (\\\" and \\\\ inside \"...\"), a\n"
	"                    backslash outside quotes keeps the next character; nothing\n"
	"                    is expanded\n"
	"  --prepare CMD     run CMD before every run of every command (once), or of\n"
	"                    the command in the same position (once per command); not\n"
	"                    measured; a run whose prepare command fails fails\n"
	"  --gap SECONDS     pause between one process and the next (default 0)\n"
	"  --order O         alternate (AB AB, default), reverse (AB BA) or shuffle\n"
	"  --results GLOB    test-result files (TRX, JUnit) each run writes; {run_dir}\n"
	"                    is the run's own directory\n"
	"  --min-executed N  a run fails when fewer tests were executed (default 1)\n"
	"  --max-regression [METRIC=]P\n"
	"                    gate: METRIC (wall, cpu, max_rss; default wall) of each\n"
	"                    command may be at most P % worse than the reference's\n"
	"                    (judged on the exact paired interval); once per metric\n"
	"  --until-decided N add rounds until every gate is pass or fail, at most N\n"
	"                    (schedule.until \"decided\"; needs --max-regression, not\n"
	"                    --runs)\n"
	"  -o, --out DIR     evidence directory (must not exist); default\n"
	"                    abev-evidence/<UTC time>-<names> in the current directory\n"
	"                    (-2, -3, ... added when another bench took that name)\n"
	"  -k, --key KEY.key sign the evidence (or the key $ABEV_SIGNING_KEY names);\n"
	"                    without either it is sealed but not signed (a note on\n"
	"                    stderr says so; --unsigned silences it)\n"
	"  --passphrase-file F, --passphrase-env VAR\n"
	"                    the key's passphrase, as for abev run\n"
	"  --save-plan FILE  also write the plan to FILE (must not exist), for\n"
	"                    'abev run FILE' in a release pipeline\n"
	"  --bundle FILE, --host-label LABEL, --max-cpu-wait-pct P, -q, --quiet, --json\n"
	"                    as for abev run\n"
	"  -h, --help        show this help\n"
	"\n";

static const char init_synopsis[] =
	"usage: abev init [--out plan.json] [--dotnet | --from-bench [bench options] COMMAND...]\n";

const char init_usage[] =
	"usage: abev init [--out plan.json] [--dotnet | --from-bench [bench options] COMMAND...]\n"
	"\n"
	"Writes a starter plan (default plan.json; an existing file is never\n"
	"overwritten, exit 2) holding every commonly used key with its default: the\n"
	"variants (name, cwd, command), the schedule (warmups, runs, order, seed,\n"
	"gap_seconds, timeout_seconds, kill_grace_seconds), results (files,\n"
	"min_executed), load (max_cpu_wait_pct, max_repeats), an example metric, an\n"
	"example gate, allowed_exit_codes and decision. Without --from-bench its two\n"
	"variants write a one-test JUnit file; replace their commands with yours.\n"
	"With --from-bench the variants are the commands, made as 'abev bench' makes\n"
	"them, with its options -r, -w, -n, -N, --prepare, --gap, --order, --results\n"
	"and --min-executed. With --dotnet the variants are `dotnet test --no-build -c\n"
	"Release` of a test project built once beforehand, one TRX per run in\n"
	"{run_dir}, with DOTNET_CLI_TELEMETRY_OPTOUT=1, DOTNET_NOLOGO=1,\n"
	"MSBUILDDISABLENODEREUSE=1 and DOTNET_CLI_USE_MSBUILD_SERVER=0 (no build server\n"
	"or MSBuild node outlives a run), the built assemblies hashed\n"
	"(bin/Release/net*/*.dll), `dotnet --version` recorded, and runs allowed to wait\n"
	"for a CPU 25 % of their wall time (the CLR's own threads wait 5-11 %); set each\n"
	"variant's cwd to its test project. 'abev run PLAN --dry-run' checks the plan.\n"
	"\n"
	"Exit codes: 0 written; 2 usage error or the file exists; 3 cannot write.\n";

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

/* What `abev run` and `abev bench` share of their options. All borrowed. */
struct run_args {
	const char *out, *key_path, *bundle, *pass_file, *pass_env, *host_label, *max_wait;
	const char *run_as;    /* --run-as USER */
	int quiet, json, unsigned_ok, dry_run, wait, insecure_key;
	char *out_owned;       /* out as checked (run_args_check()); freed by the command */
	int out_made;          /* out was made by the command (abev bench's default) */
	double max_wait_pct;   /* --max-cpu-wait-pct, once checked */
	enum signkey_source key_src; /* where key_path came from, once checked */
};

/* Checks the options of a run before the plan is read. 0 or EXIT_USAGE. */
static int run_args_check(struct run_args *a, const char *synopsis)
{
	if (!a->out && !a->dry_run)
		return usage_error("no evidence directory given (--out DIR; DIR must not exist)",
				   synopsis);
	if (a->out && !*a->out)
		return usage_error("'--out' is empty", synopsis);
	/* "ev/" is the directory ev, which abev creates: not "ev" made first, then found to exist. */
	if (a->out && !a->out_owned)
		a->out = a->out_owned = outpath_clean(a->out);
	if (!a->dry_run && outpath_check_evidence("--out", a->out) < 0)
		return EXIT_USAGE;
	if (!a->dry_run && a->bundle && outpath_check_evidence("--bundle", a->bundle) < 0)
		return EXIT_USAGE;
	if (!a->dry_run && a->bundle && outpath_same(a->bundle, a->out))
		return usage_error("--bundle names the --out directory itself: the bundle is a file "
				   "beside the evidence (e.g. DIR.tar.zst)", synopsis);
	if (a->key_path && a->unsigned_ok)
		return usage_error("--key and --unsigned contradict each other", synopsis);
	/* --unsigned is explicit, so it beats a key in the environment. */
	if (!a->unsigned_ok)
		a->key_path = signkey_path(a->key_path, &a->key_src);
	if (!a->dry_run && !a->key_path && !a->unsigned_ok)
		return usage_error("evidence is signed: give --key KEY.key or set " SIGNKEY_ENV
				   " (make a key with 'abev keygen'), or --unsigned to seal it "
				   "without a signature",
				   synopsis);
	if (a->host_label && !name_rule_ok(a->host_label))
		return usage_error("'--host-label' must be 1 to 64 characters of [A-Za-z0-9._-]",
				   synopsis);
	if (a->max_wait && (parse_double(a->max_wait, &a->max_wait_pct) < 0 ||
			    !(a->max_wait_pct >= 0) || a->max_wait_pct > 100))
		return usage_error("'--max-cpu-wait-pct' must be a number from 0 to 100 (percent of "
				   "a run's wall time)",
				   synopsis);
	return 0;
}

/* The key a dry run checked, if any: where it came from and its fingerprint, never its text. */
static void print_dry_run_key(FILE *f, const struct run_args *a, const struct seal_key *key)
{
	struct seal_pub pub;
	char fp[SHA256_HEX_LEN + 1], *shown;

	if (!key)
		return;
	seal_pub_of(key, &pub);
	seal_fingerprint(&pub, fp);
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
 * Runs a loaded plan as `abev run` does (abev bench too): the evidence,
 * the decision and its exit code. plan_shown is the plan file the report's
 * reproduce command names. The plan stays the caller's.
 */
static int run_plan(struct plan *plan, const struct run_args *a, const char *plan_shown)
{
	struct runner_options opt;
	struct runner_result res;
	struct seal_key *key = NULL;
	char *reproduce = NULL, *pass = NULL, *pub = NULL;
	int rc = EXIT_USAGE;

	if (a->max_wait) {
		plan->max_cpu_wait_pct = a->max_wait_pct;
		plan->max_cpu_wait_pct_from = "--max-cpu-wait-pct";
	}
	if (a->run_as) {
		free(plan->run_as);
		plan->run_as = xstrdup(a->run_as);
		plan->run_as_from = "--run-as";
	}
	/*
	 * What the plan names on this machine, before anything runs, in every
	 * mode: a program that is not there or a results directory that does
	 * not exist fails every run, and is better said now (issue 21).
	 */
	if (plan_check(plan, a->dry_run ? PLAN_CHECK_ALL : PLAN_CHECK_RUN) < 0 ||
	    set_run_as(plan) < 0)
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
	opt.wait = a->wait;
	opt.key_source = signkey_source_name(a->key_src);
	if (a->quiet)
		opt.progress = PROGRESS_QUIET;
	else if (isatty(STDERR_FILENO))
		opt.progress = PROGRESS_LIVE;
	else
		opt.progress = PROGRESS_LINES;

	if (runner_check_options(&opt) < 0)
		goto out;
	rc = run_exit(runner_run(plan, &opt, &res), &res, plan->inconclusive_fails);
out:
	seal_key_free(key);
	signkey_passphrase_free(pass);
	free(reproduce);
	free(pub);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	const char *plan_path = NULL;
	struct run_args a = { 0 };
	const struct cli_opt opts[] = {
		{ "--quiet", "-q", &a.quiet, NULL },
		{ "--wait", NULL, &a.wait, NULL },
		{ "--insecure-key-mode", NULL, &a.insecure_key, NULL },
		{ "--json", NULL, &a.json, NULL },
		{ "--dry-run", "-n", &a.dry_run, NULL },
		{ "--unsigned", NULL, &a.unsigned_ok, NULL },
		{ "--out", "-o", NULL, &a.out },
		{ "--key", "-k", NULL, &a.key_path },
		{ "--bundle", NULL, NULL, &a.bundle },
		{ "--passphrase-file", NULL, NULL, &a.pass_file },
		{ "--passphrase-env", NULL, NULL, &a.pass_env },
		{ "--host-label", NULL, NULL, &a.host_label },
		{ "--max-cpu-wait-pct", NULL, NULL, &a.max_wait },
		{ "--run-as", NULL, NULL, &a.run_as },
	};
	size_t npos;
	struct plan plan = PLAN_INIT;
	int rc, helped;

	if (parse_args(argc, argv, 1, "run", run_usage, run_usage_tail, run_synopsis, opts,
		       ARRAY_SIZE(opts), &plan_path, 1, &npos, &helped) < 0)
		return EXIT_USAGE;
	if (helped)
		return EXIT_PASSED;
	if (!plan_path)
		return usage_error("no plan given", run_synopsis);
	if (run_args_check(&a, run_synopsis) || plan_load(&plan, plan_path) < 0) {
		free(a.out_owned);
		return EXIT_USAGE;
	}
	rc = run_plan(&plan, &a, plan_path);
	plan_release(&plan);
	free(a.out_owned);
	return rc;
}

/* The options abev bench and abev init share, as given. */
struct quick_args {
	const char *runs, *warmup, *gap, *order, *results, *min_executed;
	const char *until_decided;
	const char *gates[QUICK_MAX_GATES];
	int no_shell;
	const char *names[QUICK_MAX_COMMANDS], *prepare[QUICK_MAX_COMMANDS];
	const char **commands;  /* in argv (quick_parse()) */
	size_t ncommands;
};

#define QUICK_CLI_OPTS(q)                                       \
	{ "--runs", "-r", NULL, &(q).runs },                    \
	{ "--warmup", "-w", NULL, &(q).warmup },                \
	{ "--gap", NULL, NULL, &(q).gap },                      \
	{ "--order", NULL, NULL, &(q).order },                  \
	{ "--results", NULL, NULL, &(q).results },              \
	{ "--min-executed", NULL, NULL, &(q).min_executed },    \
	{ "--until-decided", NULL, NULL, &(q).until_decided },  \
	{ "--no-shell", "-N", &(q).no_shell, NULL }

/*
 * Parses the arguments of abev bench or init: their own opts (which
 * include QUICK_CLI_OPTS(*q)), -n/--name and --prepare, and the commands.
 * 0 (help printed when *helped), or EXIT_USAGE after the message.
 */
static int quick_parse(int argc, char **argv, const char *cmd, const char *usage,
		       const char *synopsis, const struct cli_opt *opts, size_t nopts,
		       struct quick_args *q, struct quick_spec *spec, int *helped)
{
	struct cli_repeat rep[] = {
		{ "--name", "-n", q->names, 0, QUICK_MAX_COMMANDS },
		{ "--prepare", NULL, q->prepare, 0, QUICK_MAX_COMMANDS },
		{ "--max-regression", NULL, q->gates, 0, QUICK_MAX_GATES },
	};
	int64_t n;
	double gap;

	if (take_repeated(&argc, argv, 1, opts, nopts, rep, ARRAY_SIZE(rep)) < 0)
		return EXIT_USAGE;
	/*
	 * Every command is taken, however many, so that quick_plan() can say
	 * what the limit is; they are kept in argv itself, which holds them
	 * all: the k-th command is stored at argv[1 + k], never ahead of the
	 * argument being read.
	 */
	q->commands = (const char **)(argv + 1);
	if (parse_args(argc, argv, 1, cmd, usage, "", synopsis, opts, nopts, q->commands,
		       (size_t)argc - 1, &q->ncommands, helped) < 0)
		return EXIT_USAGE;
	spec->commands = q->commands;
	spec->ncommands = q->ncommands;
	spec->names = q->names;
	spec->nnames = rep[0].n;
	spec->prepare = q->prepare;
	spec->nprepare = rep[1].n;
	spec->no_shell = q->no_shell;
	spec->order = q->order;
	spec->results = q->results;
	if (q->runs && (parse_count("--runs", q->runs, &n) < 0 || n < 1 || n > UINT_MAX))
		return usage_error("'--runs' must be a whole number of at least 1", synopsis);
	spec->runs = q->runs ? n : -1;
	if (q->warmup && (parse_count("--warmup", q->warmup, &spec->warmups) < 0 ||
			  spec->warmups > UINT_MAX))
		return usage_error("'--warmup' must be a whole number of at least 0", synopsis);
	if (q->min_executed && parse_count("--min-executed", q->min_executed,
					   &spec->min_executed) < 0)
		return EXIT_USAGE;
	if (q->gap && (parse_double(q->gap, &gap) < 0 || !(gap >= 0) || gap > 86400))
		return usage_error("'--gap' must be a number of seconds from 0 to 86400", synopsis);
	spec->gap_seconds = q->gap ? gap : -1;
	spec->gates = q->gates;
	spec->ngates = rep[2].n;
	if (q->until_decided) {
		if (parse_count("--until-decided", q->until_decided, &n) < 0 || n < 1 ||
		    n > UINT_MAX)
			return usage_error("'--until-decided' must be a whole number of rounds of at "
					   "least 1", synopsis);
		if (q->runs)
			return usage_error("'--until-decided N' runs up to N rounds: leave out "
					   "'--runs'", synopsis);
		if (!spec->ngates)
			return usage_error("'--until-decided' needs a gate to decide: add "
					   "'--max-regression [METRIC=]P'", synopsis);
		spec->until_decided = n;
	}
	return 0;
}

/* The plan of spec as text, and parsed into *plan under the name label. 0 or EXIT_USAGE. */
static int quick_plan_load(const struct quick_spec *spec, const char *label, char **text,
			   struct plan *plan, const char *synopsis)
{
	char *err = NULL;

	*text = quick_plan(spec, &err);
	if (!*text) {
		error("%s", err);
		free(err);
		fputs(synopsis, stderr);
		return EXIT_USAGE;
	}
	if (plan_parse(plan, label, *text, strlen(*text)) < 0) {
		free(*text);
		*text = NULL;
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct quick_args q = { 0 };
	struct quick_spec spec = QUICK_SPEC_INIT;
	struct run_args a = { 0 };
	const char *save = NULL;
	const struct cli_opt opts[] = {
		QUICK_CLI_OPTS(q),
		{ "--quiet", "-q", &a.quiet, NULL },
		{ "--wait", NULL, &a.wait, NULL },
		{ "--insecure-key-mode", NULL, &a.insecure_key, NULL },
		{ "--json", NULL, &a.json, NULL },
		{ "--unsigned", NULL, &a.unsigned_ok, NULL },
		{ "--out", "-o", NULL, &a.out },
		{ "--key", "-k", NULL, &a.key_path },
		{ "--bundle", NULL, NULL, &a.bundle },
		{ "--passphrase-file", NULL, NULL, &a.pass_file },
		{ "--passphrase-env", NULL, NULL, &a.pass_env },
		{ "--host-label", NULL, NULL, &a.host_label },
		{ "--max-cpu-wait-pct", NULL, NULL, &a.max_wait },
		{ "--save-plan", NULL, NULL, &save },
	};
	struct plan plan = PLAN_INIT;
	char *cwd = NULL, *out = NULL, *text = NULL, *shown = NULL;
	int rc, helped;

	rc = quick_parse(argc, argv, "bench", bench_usage, bench_synopsis, opts, ARRAY_SIZE(opts),
			 &q, &spec, &helped);
	if (rc || helped)
		return rc;
	if (!q.ncommands)
		return usage_error("no command given", bench_synopsis);
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		error("cannot tell the current directory: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	spec.cwd = cwd;
	if (!a.out)
		a.out = out = quick_out_dir(&spec, time(NULL));
	/* Unsigned by default, unless a key is given or named by ABEV_SIGNING_KEY. */
	if (!a.key_path && !a.unsigned_ok && !getenv(SIGNKEY_ENV)) {
		a.unsigned_ok = 1;
		if (!a.quiet)
			fputs("abev: note: the evidence is sealed but not signed (give --key KEY.key "
			      "or set " SIGNKEY_ENV " to sign it)\n", stderr);
	}
	rc = run_args_check(&a, bench_synopsis);
	if (!rc && save && outpath_check_evidence("--save-plan", save) < 0)
		rc = EXIT_USAGE;
	if (!rc)
		rc = quick_plan_load(&spec, save ? save : "(abev bench)", &text, &plan,
				     bench_synopsis);
	/* The default is made now, under a name no other bench took (even in the same second). */
	if (!rc && out) {
		char *made = outpath_make_unique(a.out);
		rc = made ? 0 : EXIT_RUNTIME;
		if (made) {
			free(a.out_owned);
			a.out = a.out_owned = made;
			a.out_made = 1;
		}
	}
	if (!rc && save && write_file_new(save, 0644, text, strlen(text)) < 0)
		rc = EXIT_USAGE;
	if (!rc) {
		shown = save ? xstrdup(save) : path_join(a.out, EVIDENCE_PLAN_FILE);
		rc = run_plan(&plan, &a, shown);
	}
	/* A refusal leaves nothing behind: the directory made above goes while still empty. */
	if (a.out_made && (rc == EXIT_USAGE || rc == EXIT_RUNTIME))
		(void)rmdir(a.out);
	free(a.out_owned);
	plan_release(&plan);
	free(text);
	free(shown);
	free(out);
	free(cwd);
	return rc;
}

int cmd_init(int argc, char **argv)
{
	struct quick_args q = { 0 };
	struct quick_spec spec = QUICK_SPEC_INIT;
	const char *out = EVIDENCE_PLAN_FILE;
	int from_bench = 0, dotnet = 0, rc, helped;
	const struct cli_opt opts[] = {
		QUICK_CLI_OPTS(q),
		{ "--from-bench", NULL, &from_bench, NULL },
		{ "--dotnet", NULL, &dotnet, NULL },
		{ "--out", "-o", NULL, &out },
	};
	struct plan plan = PLAN_INIT;
	struct stat sb;
	char *cwd = NULL, *text = NULL;

	rc = quick_parse(argc, argv, "init", init_usage, init_synopsis, opts, ARRAY_SIZE(opts),
			 &q, &spec, &helped);
	if (rc || helped)
		return rc;
	if (q.ncommands && !from_bench)
		return usage_error("commands are given after --from-bench", init_synopsis);
	if (from_bench && !q.ncommands)
		return usage_error("--from-bench needs the commands to compare", init_synopsis);
	if (dotnet && from_bench)
		return usage_error("--dotnet writes a starter of its own: not with --from-bench",
				   init_synopsis);
	if (!*out)
		return usage_error("'--out' is empty", init_synopsis);
	if (lstat(out, &sb) == 0)
		return usage_error("the plan file already exists and abev init never overwrites "
				   "one: choose another --out", init_synopsis);
	if (outpath_check_evidence("--out", out) < 0)
		return EXIT_USAGE;
	spec.starter = 1;
	spec.dotnet = dotnet;
	spec.cwd = ".";
	/* Commands run where abev init ran: said absolutely when the plan lives elsewhere. */
	if (q.ncommands && strchr(out, '/')) {
		cwd = getcwd(NULL, 0);
		if (!cwd) {
			error("cannot tell the current directory: %s", strerror(errno));
			return EXIT_RUNTIME;
		}
		spec.cwd = cwd;
	}
	rc = quick_plan_load(&spec, out, &text, &plan, init_synopsis);
	if (!rc && write_file_new(out, 0644, text, strlen(text)) < 0)
		rc = EXIT_RUNTIME;
	if (!rc) {
		struct strbuf quoted = STRBUF_INIT;
		char *shown = xstrdup_escaped(out);
		strbuf_add_sh(&quoted, out);
		printf("plan: %s\ncheck it: abev run %s --dry-run\nrun it:   abev run %s --out DIR "
		       "--unsigned\n", shown, quoted.buf, quoted.buf);
		strbuf_release(&quoted);
		free(shown);
	}
	plan_release(&plan);
	free(text);
	free(cwd);
	return rc;
}
