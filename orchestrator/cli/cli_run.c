/*
 * cli_run: the commands that run a plan — `abev run PLAN`, `abev bench
 * COMMAND...` (a plan made from commands, run the same way) and `abev
 * init` (a starter plan, written but not run) — with their help and
 * option tables, and what they share: the options of a run (the rows of
 * RUN_SHARED_OPTIONS, checked by cli_run_args_check()), those of a plan made
 * from commands (QUICK_OPTIONS), the signing key, and cli_run_plan(), which
 * hands the plan to runner.c. The plan itself is plan.c's and quick.c's;
 * the exit code is cli_exit.c's.
 */
#include "cli/cli_run.h"
#include "cli/outpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "pipeline/plan_check.h"
#include "plan/plan_json.h"
#include "run/proc.h"
#include "plan/quick.h"
#include "pipeline/runner.h"
#include "seal/signkey.h"
#include "util/name_rule.h"
#include "util/alloc.h"
#include "util/colour.h"
#include "util/env.h"
#include "util/errlist.h"
#include "util/escape.h"
#include "util/number.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/usage.h"

static const char run_usage[] =
	"usage: abev run PLAN --out DIR (--key KEY.key | --key-fd N | --unsigned)\n"
	"                [--bundle FILE]\n"
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
	"on an interval with exact coverage (from 7 rounds at 95 %, the Wilcoxon\n"
	"signed-rank interval of the rounds' ratios and the Mann-Whitney one of the\n"
	"runs together, each at its share of the error; the Mann-Whitney one alone\n"
	"with 4 to 6 runs a side; a budget, the median's: 6 runs): it passes\n"
	"when the whole interval is on its good side, fails when all of it is beyond\n"
	"the limit, and is inconclusive otherwise or with too few rounds.\n"
	"schedule.until \"decided\" adds rounds until every gate is decided. The\n"
	"decision is rejected (a gate failed, exit 5), inconclusive (exit 6 unless\n"
	"decision.inconclusive is \"pass\"), accepted, or no decision (no gate,\n"
	"nothing could be compared, or the run was interrupted); it ends the output\n"
	"and is recorded in result.json's \"comparison\".\n";

/* After the options of `abev run --help`. */
static const char run_tail[] =
	"Evidence: DIR/plan.json, DIR/metadata.json (abev.metadata/1), DIR/result.json\n"
	"(abev.run/1), DIR/report.md, DIR/SHA256 and DIR/SHA256.sig, and per invocation\n"
	"DIR/runs/<variant>/<phase>-<round>[-attempt-<k>]/ with test.log, stderr.log and\n"
	"what the command wrote. Each invocation's record (abev.invocation/1) is a line\n"
	"of DIR/invocations.jsonl while the run goes on and an entry of result.json's\n"
	"\"invocations\" once it is over; only past a journal that could not be written\n"
	"(ulimit -f, a full disk) is it the directory's own result.json.\n"
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
	"evidence as failed (\"the disk is full\").\n";

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

/* Checks the options of a run before the plan is read. 0 or EXIT_USAGE. */
int cli_run_args_check(struct run_args *a, const char *usage)
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
	if (a->key_fd && (a->key_path || a->unsigned_ok))
		return cli_usage_error(a->key_path ? "--key-fd and --key each name a key: give one"
					: "--key-fd and --unsigned contradict each other", usage);
	if (a->key_fd) {
		int fd;
		if (signkey_fd_parse(a->key_fd, &fd) < 0)
			return EXIT_USAGE;
	}
	/* --unsigned is explicit, so it beats a key in the environment. */
	if (!a->unsigned_ok)
		a->key_path = signkey_path(a->key_path, a->key_fd, &a->key_src);
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
	if (a->key_src == SIGNKEY_FD) {
		fprintf(f, "key:      the key text read from --key-fd %s (not shown), checked: "
			"fingerprint %s\n", a->key_path, fp);
		return;
	}
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
static int cli_run_plan_open(struct plan *plan, const struct run_args *a, const char *path,
			 const char *text)
{
	struct errlist errors = ERRLIST_INIT;
	int r = text ? plan_parse_partial(plan, path, text, strlen(text), &errors)
		     : plan_load_partial(plan, path, &errors);

	if (a->max_wait) {
		plan->set.max_cpu_wait_pct = a->max_wait_pct;
		plan->set.max_cpu_wait_pct_from = "--max-cpu-wait-pct";
	}
	if (a->load_wait) {
		plan->set.max_wait_seconds = a->load_wait_seconds;
		plan->set.max_wait_seconds_from = "--max-load-wait";
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
 * Runs a plan cli_run_plan_open() accepted as `abev run` does (abev bench
 * too): the evidence, the decision and its exit code. plan_shown is the
 * plan file the report's reproduce command names. The plan stays the
 * caller's.
 */
int cli_run_plan(struct plan *plan, const struct run_args *a, const char *plan_shown)
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
		pub = a->key_src == SIGNKEY_FD || signkey_is_text(a->key_path)
			      ? NULL : pub_for_key(a->key_path);
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
		} else if (a->key_src == SIGNKEY_FD) {
			strbuf_addf(&cmd, " --key-fd %s", a->key_path);
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
	 * Other abev runs: wait for them by default, at most
	 * RUN_WAIT_MAX_UNATTENDED seconds, then go ahead — on a terminal too:
	 * a run of another user must not stall this one for ever — however long
	 * with --wait, or refuse (--no-wait).
	 */
	opt.refuse_peers = a->no_wait;
	opt.wait = !a->no_wait;
	opt.wait_max_seconds = a->wait_max ? a->wait_max_seconds
			       : a->wait ? -1 : RUN_WAIT_MAX_UNATTENDED;
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
	rc = cli_run_args_check(a, cmd_run.usage);
	if (!rc)
		rc = cli_run_plan_open(&plan, a, operands[0], NULL);
	if (!rc)
		rc = cli_run_plan(&plan, a, operands[0]);
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
	.tail_more = cli_exit_codes_brief,
	.options = run_options,
	.foreign = run_foreign,
	.operands = "PLAN",
	.max_operands = 1,
	.complete = CLI_COMPLETE_FILES("*.json"),
	.opts_size = sizeof(struct run_args),
	.fn = run_main,
};

/*
 * Completes q->spec once abev bench or init has parsed its options: the
 * commands (the operands), the repeated options, and what --until-decided
 * needs. 0, or EXIT_USAGE after the message and usage.
 */
int cli_run_quick_check(struct quick_args *q, size_t ncommands, char **commands,
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
 * (cli_run_plan_open()). 0 or EXIT_USAGE.
 */
int cli_run_quick_plan_load(const struct quick_spec *spec, const char *label, char **text,
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
		rc = cli_run_plan_open(plan, a, label, *text);
	else
		rc = plan_parse(plan, label, *text, strlen(*text)) < 0 ? EXIT_USAGE : 0;
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

