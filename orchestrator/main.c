/*
 * main: parses the command line, calls one verb, and turns its outcome
 * into abev's exit code. This is the only place that decides exit codes
 * and the only place that prints usage text.
 */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle.h"
#include "compare.h"
#include "compare_runs.h"
#include "evidence_read.h"
#include "export.h"
#include "inspect.h"
#include "metadata.h"
#include "plan.h"
#include "plan_check.h"
#include "plan_doc.h"
#include "plan_json.h"
#include "report.h"
#include "report_hosts.h"
#include "runner.h"
#include "seal.h"
#include "summary.h"
#include "util.h"
#include "verify.h"

enum exit_code {
	EXIT_PASSED = 0,       /* every invocation ran and passed */
	EXIT_FAILED = 1,       /* evidence produced, an invocation failed */
	EXIT_USAGE = 2,        /* usage or plan error */
	EXIT_RUNTIME = 3,      /* cannot create the directory, nothing could be spawned */
	EXIT_VERIFY = 4,       /* abev verify found a problem */
	EXIT_REJECTED = 5,     /* the decision: a gate failed */
	EXIT_INCONCLUSIVE = 6, /* the decision is inconclusive and the plan says that fails */
	EXIT_SIGNAL_BASE = 128 /* interrupted: 128 + signal (proc.h's interrupt signals) */
};

static const char exit_codes_text[] =
	"Exit codes (the first that applies, in this order: 128+N, 3, 2, 1, 5, 6, 0):\n"
	"  0    every invocation ran and passed, and the decision is accepted, no\n"
	"       decision (the plan sets no gate), or inconclusive (by default)\n"
	"  1    evidence was produced but an invocation failed (non-zero exit, signal,\n"
	"       timeout, exec failure, a missing metric, or a slot lost to foreign load)\n"
	"  2    usage or plan error (nothing is run, nothing is written)\n"
	"  3    runtime error (cannot create the evidence directory, cannot spawn)\n"
	"  4    verification failed (abev verify, or --pubkey of report/export/compare)\n"
	"  5    rejected: a gate failed (its whole interval is beyond the limit)\n"
	"  6    inconclusive, in a plan whose decision.inconclusive is \"fail\"\n"
	"  129  interrupted by SIGHUP, whenever it arrives: evidence is written, marked\n"
	"       \"interrupted\" with the signal's name, and sealed\n"
	"  130  interrupted by SIGINT: likewise\n"
	"  131  interrupted by SIGQUIT: likewise\n"
	"  138  interrupted by SIGUSR1: likewise\n"
	"  140  interrupted by SIGUSR2: likewise\n"
	"  143  interrupted by SIGTERM: likewise\n";

static const char main_usage[] =
	"usage: abev <command> [options]\n"
	"\n"
	"abev runs a baseline and candidate (or N variants) of a test or benchmark\n"
	"command as fresh, alternated processes, measures each run honestly, and\n"
	"writes an evidence directory with a report.\n"
	"\n"
	"Commands:\n"
	"  run PLAN --out DIR (--key KEY.key | --unsigned)\n"
	"                       run the plan and write sealed evidence into DIR\n"
	"  verify PATH --pubkey KEY.pub\n"
	"                       check an evidence directory or bundle\n"
	"  keygen --out PREFIX  make a signing key (PREFIX.key, .pub, .pub.pem)\n"
	"  pack DIR --out FILE.tar.zst\n"
	"                       pack evidence into a deterministic bundle\n"
	"  report DIR... [--out FILE]\n"
	"                       render DIR's report.md again from its evidence, or\n"
	"                       several hosts' evidence of one plan side by side\n"
	"  compare OLD NEW      compare two evidence directories variant by variant\n"
	"  export DIR --format hyperfine|csv|junit|json\n"
	"                       the evidence's figures for other tools\n"
	"  results FILE...      count the tests in TRX / JUnit result files\n"
	"  guard min-executed --min N FILE...\n"
	"                       fail when fewer than N tests were executed\n"
	"  help [COMMAND]       show help for abev or for one command\n"
	"  help plan            the plan reference: every key, its type, default and\n"
	"                       meaning, and a full example\n"
	"\n"
	"Options:\n"
	"  -h, --help           show this help\n"
	"  -V, --version        show abev's version\n"
	"\n"
	"See 'abev help plan' for the plan format, 'abev help run' for how a plan runs,\n"
	"and the abev(1) manual.\n";

static const char run_synopsis[] =
	"usage: abev run PLAN --out DIR (--key KEY.key | --unsigned) [--bundle FILE]\n"
	"                [--passphrase-file F | --passphrase-env VAR] [--host-label LABEL]\n"
	"                [--max-cpu-wait-pct P] [--quiet] [--json] [--dry-run]\n";

static const char run_usage[] =
	"usage: abev run PLAN --out DIR (--key KEY.key | --unsigned) [--bundle FILE]\n"
	"                [--passphrase-file F | --passphrase-env VAR] [--host-label LABEL]\n"
	"                [--max-cpu-wait-pct P] [--quiet] [--json] [--dry-run]\n"
	"\n"
	"Runs every variant of PLAN (a JSON plan, schema \"abev.plan/1\") as fresh\n"
	"processes: warmups first (never counted), then the recorded runs in the\n"
	"plan's order (alternate: AB AB..., reverse: AB BA AB..., shuffle: drawn from\n"
	"the seed), with gap_seconds between the end of one process and the start of\n"
	"the next. Each run is measured (wall, CPU, peak RSS, faults, load, the time\n"
	"it waited for a CPU, foreign CPU, cgroup figures where available); a run\n"
	"that waited for a CPU more than load.max_cpu_wait_pct (default 10 %) of its\n"
	"wall time is kept as \"discarded\" and repeated. \"cpus\" (per variant or in\n"
	"the schedule, e.g. \"0-1\") pins the child to those CPUs.\n"
	"\n"
	"When the runs are over abev compares every metric (the built-in wall, cpu and\n"
	"max_rss, and the plan's) of each variant with the reference variant: medians,\n"
	"ranges, change %, the ratio of medians with its bootstrap interval, exact\n"
	"Mann-Whitney and round-paired Wilcoxon p-values. Each gate of the plan\n"
	"(max_regression_pct, max_improvement_pct, budget) passes when the whole\n"
	"interval is on its good side, fails when all of it is beyond the limit, and\n"
	"is inconclusive otherwise. The decision is rejected (a gate failed),\n"
	"inconclusive, accepted, or no decision (no gate); it ends the output and is\n"
	"recorded in result.json's \"comparison\".\n"
	"\n"
	"Options:\n"
	"  -o, --out DIR   evidence directory to create (must not exist)\n"
	"  -k, --key KEY.key\n"
	"                  sign the evidence (SHA256.sig) with this key ('abev keygen')\n"
	"  --unsigned      seal the evidence (SHA256) without signing it; the report\n"
	"                  then says UNSIGNED. One of --key and --unsigned is required\n"
	"  --passphrase-file F, --passphrase-env VAR\n"
	"                  the key's passphrase: first line of F, or $VAR (never argv)\n"
	"  --bundle FILE   also pack the evidence into FILE (.tar.zst or .tar.gz)\n"
	"  --host-label LABEL\n"
	"                  name this machine in metadata.json (host.label) and in a\n"
	"                  combined report: 1-64 of [A-Za-z0-9._-]; default: the hostname\n"
	"  --max-cpu-wait-pct P\n"
	"                  discard a recorded run that waited for a CPU more than P %\n"
	"                  (0-100) of its wall time; overrides load.max_cpu_wait_pct\n"
	"                  and is recorded in result.json (schedule)\n"
	"  -q, --quiet     print only the decision line and the evidence path\n"
	"  --json          print the comparison (result.json's \"comparison\") as JSON on\n"
	"                  stdout; the other lines go to stderr\n"
	"  -n, --dry-run   check the plan, its programs and files; print the schedule\n"
	"                  (--json: the plan)\n"	"  -h, --help      show this help\n"
	"\n"
	"Evidence: DIR/plan.json, DIR/metadata.json (abev.metadata/1), DIR/result.json\n"
	"(abev.run/1), DIR/report.md, DIR/SHA256 and DIR/SHA256.sig, and per invocation\n"
	"DIR/runs/<variant>/<phase>-<round>[-attempt-<k>]/ with test.log, stderr.log,\n"
	"resource.log, guard.log and result.json (abev.invocation/1).\n"
	"\n"
	"--out and --bundle are checked before anything runs (exit 2). Before the\n"
	"first invocation abev runs git and the plan's versions commands in each\n"
	"variant's cwd; each may take 10 s, then its process group gets SIGTERM and a\n"
	"second later SIGKILL, and metadata.json records \"timed out\".\n"
	"\n"
	"Signals: SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1 and SIGUSR2 each stop the\n"
	"running process group (the plan's grace period, then SIGKILL), and the\n"
	"evidence is written, marked \"interrupted\" with the signal's name, and sealed;\n"
	"this holds at any point, also during the versions commands or after the last\n"
	"invocation (while sealing or packing: then every invocation finished and a\n"
	"note says so). abev exits 128+N. SIGPIPE and SIGXFSZ are ignored: a closed\n"
	"stdout (abev run ... | head) is reported and the run goes on; a write over\n"
	"the file-size limit is an error (exit 3), the evidence is still sealed and\n"
	"result.json's notes name what is missing (status \"running\": result.json\n"
	"itself could not be written).\n"
	"\n";

static const char report_usage[] =
	"usage: abev report DIR... [--out FILE] [--pubkey KEY.pub]\n"
	"\n"
	"With one DIR: renders DIR's report.md again from its evidence alone\n"
	"(result.json, metadata.json): the comparison is recomputed from the recorded\n"
	"invocations, and the text is byte for byte the report.md that abev run wrote.\n"
	"\n"
	"With several: the same plan run on several hosts (abev run --host-label),\n"
	"side by side: each host's decision and machine, per metric and variant a\n"
	"column group per host, and the combined decision (rejected if any host\n"
	"rejects, inconclusive if any is and none rejects). Directories made from\n"
	"different plans (another plan SHA-256) are refused.\n"
	"\n"
	"Prints the report on stdout, or writes it to FILE, which may not be inside an\n"
	"evidence directory: sealed evidence is never rewritten. With --pubkey every\n"
	"directory is verified first (as abev verify does); without it a note on\n"
	"stderr says that it was not.\n"
	"\n"
	"Exit codes: 0 rendered; 2 usage error, unreadable evidence or different plans;\n"
	"4 verification failed; with several directories also 5 (the combined\n"
	"decision is rejected) and 6 (inconclusive, in a plan that makes it fail).\n";

static const char compare_usage[] =
	"usage: abev compare OLD NEW [--json] [--pubkey KEY.pub]\n"
	"\n"
	"Compares two evidence directories, e.g. last month's baseline with today's\n"
	"candidate, possibly from different plans: for every variant name both have\n"
	"and every metric both recorded (the built-in wall, cpu and max_rss, and\n"
	"plan metrics of the same name and unit), OLD's counted runs are the\n"
	"reference and NEW's the candidate, with the statistics of abev run (median,\n"
	"change %, ratio with its bootstrap interval, exact Mann-Whitney p). The runs\n"
	"come from different schedules, so nothing is paired by round, and no gate is\n"
	"judged. --json prints an abev.compare/1 document. With --pubkey both are\n"
	"verified first.\n"
	"\n"
	"Exit codes: 0 compared; 2 usage error, unreadable evidence, or nothing shared\n"
	"(the message names what each has); 4 verification failed.\n";

static const char export_usage[] =
	"usage: abev export DIR --format hyperfine|csv|junit|json [--out FILE]\n"
	"                   [--pubkey KEY.pub]\n"
	"\n"
	"Writes DIR's figures for other tools, on stdout or into FILE:\n"
	"  hyperfine  hyperfine's --export-json shape: results[] per variant with\n"
	"             command (the variant), mean, stddev, median, min, max and times\n"
	"             (seconds, counted runs), user, system and exit_codes\n"
	"  csv        one row per invocation and metric: seq, variant, phase, round,\n"
	"             attempt, status, metric, unit, value, counted\n"
	"  junit      JUnit XML with one testcase per gate and compared variant: a\n"
	"             failed gate is a failure, an inconclusive one is skipped\n"
	"  json       the comparison, as result.json records it\n"
	"With --pubkey the evidence is verified first.\n"
	"\n"
	"Exit codes: 0 written; 2 usage error or unreadable evidence; 4 verification\n"
	"failed.\n";

static const char results_usage[] =
	"usage: abev results FILE... [--json] [--min-executed N]\n"
	"\n"
	"Reads VSTest TRX and JUnit XML result files (the format is told from the root\n"
	"element) and prints, per file and in total, the tests counted from the results\n"
	"themselves: total, executed, passed, failed, errors, skipped and other. Leaf rows\n"
	"of data-driven tests count, not their parents; a result without an outcome is\n"
	"an error, never a pass. Where the file's own counters disagree, a note says so.\n"
	"Files with a DOCTYPE, entities, excessive nesting or over 1 GiB are refused.\n"
	"\n"
	"Options:\n"
	"  --json             print an abev.results/1 document instead of the table\n"
	"  --min-executed N   fail (exit 1) when fewer than N tests were executed in all\n"
	"                     the files together\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit codes: 0 read (and the guard passed); 1 the guard failed; 2 a file could\n"
	"not be read or was refused, or a usage error.\n";

static const char keygen_usage[] =
	"usage: abev keygen --out PREFIX [--passphrase-file F | --passphrase-env VAR]\n"
	"\n"
	"Makes an Ed25519 signing key: PREFIX.key (PKCS#8 PEM, mode 0600, encrypted\n"
	"with the passphrase when one is given), PREFIX.pub (OpenBSD signify public key,\n"
	"for abev verify and signify-openbsd -C) and PREFIX.pub.pem (for openssl), and\n"
	"prints the key's fingerprint (SHA-256 of the raw public key). None of the files\n"
	"may exist. The passphrase is read from a file or an environment variable, never\n"
	"from the command line.\n";

static const char verify_usage[] =
	"usage: abev verify PATH --pubkey KEY.pub\n"
	"\n"
	"Checks an evidence directory or a bundle (.tar.zst, .tar.gz; read by streaming,\n"
	"never extracted): the signature of SHA256 in SHA256.sig against KEY.pub, every\n"
	"listed hash, that no listed file is missing, that no file is unlisted, and that\n"
	"there is no symlink, hardlink, device or other special file and no unsafe name.\n"
	"Prints what it checked and the signer's fingerprint.\n"
	"\n"
	"Exit codes: 0 verified; 4 a problem was found (each is named with its file);\n"
	"2 usage error or unreadable key.\n";

static const char pack_usage[] =
	"usage: abev pack DIR --out FILE.tar.zst|FILE.tar.gz\n"
	"\n"
	"Packs an evidence directory into a deterministic archive: the same evidence\n"
	"gives the same bytes on any machine, whatever the files' times or owners\n"
	"(sorted entries, fixed times, uid/gid 0, mode 0644/0755). abev verify reads it.\n";

static const char guard_usage[] =
	"usage: abev guard min-executed --min N FILE...\n"
	"\n"
	"The MIN_EXECUTED guard on its own: passes when at least N tests were executed\n"
	"in the result files together (skipped and not-run tests are not executed; no\n"
	"file at all fails). Prints one line: min_executed: pass|fail: <reason>.\n"
	"\n"
	"Exit codes: 0 pass; 1 fail; 2 a file could not be read or was refused, or a\n"
	"usage error.\n";

static void print_main_help(FILE *f)
{
	fputs(main_usage, f);
	fputc('\n', f);
	fputs(exit_codes_text, f);
}

static int usage_error(const char *msg, const char *hint)
{
	error("%s", msg);
	fprintf(stderr, "%s\n", hint);
	return EXIT_USAGE;
}

/*
 * Matches "--name VALUE" or "--name=VALUE" (and the short form, if any) at
 * argv[*i]. Returns 1 with *val set (advancing *i past a separate value),
 * 0 when argv[*i] is another option, -1 after error() when the value is
 * missing.
 */
static int opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
		     const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);

	if (!strncmp(a, lng, n) && a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (strcmp(a, lng) && (!shrt || strcmp(a, shrt)))
		return 0;
	if (*i + 1 >= argc) {
		error("option '%s' needs a value", lng);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

/* One option of a command: a flag (sets *flag to 1) or one that takes a value (*val). */
struct cli_opt {
	const char *lng, *shrt;
	int *flag;
	const char **val;
};

/*
 * Parses the arguments of `abev CMD` from argv[first]: -h/--help (prints
 * help, then tail, to stdout and sets *help), the options in opts, and
 * operands into pos[] (at most npos; "-" is an operand, and "--" makes
 * every later argument one). An unknown option or a surplus operand is a
 * usage error: one message, the usage on stderr, -1. 0 otherwise.
 */
static int parse_args(int argc, char **argv, int first, const char *cmd, const char *help,
		      const char *tail, const char *usage, const struct cli_opt *opts,
		      size_t nopts, const char **pos, size_t npos, size_t *npos_out, int *helped)
{
	int operands_only = 0;

	*npos_out = 0;
	*helped = 0;
	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *val;
		size_t k;
		int m = 0;

		if (operands_only || a[0] != '-' || !a[1]) {
			if (*npos_out == npos) {
				error("unexpected argument '%s' for 'abev %s'", a, cmd);
				fputs(usage, stderr);
				return -1;
			}
			pos[(*npos_out)++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			operands_only = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help, stdout);
			fputs(tail, stdout);
			*helped = 1;
			return 0;
		}
		for (k = 0; k < nopts; k++) {
			if (opts[k].flag) {
				if (!strcmp(a, opts[k].lng) || (opts[k].shrt && !strcmp(a, opts[k].shrt))) {
					*opts[k].flag = 1;
					break;
				}
			} else if ((m = opt_value(argc, argv, &i, opts[k].lng, opts[k].shrt, &val)) != 0) {
				if (m < 0)
					return -1;
				*opts[k].val = val;
				break;
			}
		}
		if (k == nopts) {
			error("unknown option '%s' for 'abev %s'", a, cmd);
			fputs(usage, stderr);
			return -1;
		}
	}
	return 0;
}

/* Longest passphrase abev reads. */
#define PASSPHRASE_MAX 1024

/*
 * The passphrase of a key: the first line of a file or the value of an
 * environment variable — never an argument, which other users can read
 * in the process table. NULL in *out when neither is given. 0 or -1.
 */
static int read_passphrase(const char *file, const char *env, char **out)
{
	struct strbuf sb = STRBUF_INIT;
	*out = NULL;
	if (file && env) {
		error("give the passphrase once: --passphrase-file or --passphrase-env");
		return -1;
	}
	if (env) {
		const char *v = getenv(env);
		if (!v) {
			error("environment variable '%s' (--passphrase-env) is not set", env);
			return -1;
		}
		if (strlen(v) > PASSPHRASE_MAX) {
			error("the passphrase in '%s' is longer than %d bytes", env, PASSPHRASE_MAX);
			return -1;
		}
		*out = xstrdup(v);
		return 0;
	}
	if (!file)
		return 0;
	if (read_file_capped(&sb, file, PASSPHRASE_MAX + 2) < 0)
		return -1;
	sb.buf[strcspn(sb.buf, "\r\n")] = '\0';
	*out = strbuf_detach(&sb, NULL);
	if (!**out) {
		error("the passphrase file '%s' is empty", file);
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* Frees a passphrase, wiping it first. */
static void free_passphrase(char *p)
{
	if (!p)
		return;
	for (volatile char *c = p; *c; c++)
		*c = 0;
	free(p);
}

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

/*
 * The exit code of a run: interrupted, then abev's own failures, then a
 * failed invocation, then the decision (see exit_codes_text).
 */
static int run_exit(enum runner_outcome o, const struct runner_result *res,
		    int inconclusive_fails)
{
	switch (o) {
	case RUNNER_INTERRUPTED: return EXIT_SIGNAL_BASE + res->signo;
	case RUNNER_ERROR: return EXIT_RUNTIME;
	case RUNNER_USAGE: return EXIT_USAGE;
	case RUNNER_FAILED: return EXIT_FAILED;
	case RUNNER_PASSED: break;
	}
	if (res->decision == DECISION_REJECTED)
		return EXIT_REJECTED;
	if (res->decision == DECISION_INCONCLUSIVE && inconclusive_fails)
		return EXIT_INCONCLUSIVE;
	return EXIT_PASSED;
}

static int cmd_run(int argc, char **argv)
{
	const char *plan_path = NULL, *out = NULL, *key_path = NULL, *bundle = NULL;
	const char *pass_file = NULL, *pass_env = NULL, *host_label = NULL, *max_wait = NULL;
	double max_wait_pct = 0;
	int quiet = 0, dry_run = 0, unsigned_ok = 0, json = 0, rc = EXIT_USAGE, helped;
	const struct cli_opt opts[] = {
		{ "--quiet", "-q", &quiet, NULL },
		{ "--json", NULL, &json, NULL },
		{ "--dry-run", "-n", &dry_run, NULL },
		{ "--unsigned", NULL, &unsigned_ok, NULL },
		{ "--out", "-o", NULL, &out },
		{ "--key", "-k", NULL, &key_path },
		{ "--bundle", NULL, NULL, &bundle },
		{ "--passphrase-file", NULL, NULL, &pass_file },
		{ "--passphrase-env", NULL, NULL, &pass_env },
		{ "--host-label", NULL, NULL, &host_label },
		{ "--max-cpu-wait-pct", NULL, NULL, &max_wait },
	};
	size_t npos;
	struct plan plan = PLAN_INIT;
	struct runner_options opt;
	struct runner_result res;
	struct seal_key *key = NULL;
	char *reproduce = NULL, *pass = NULL, *pub = NULL;

	if (parse_args(argc, argv, 1, "run", run_usage, exit_codes_text, run_synopsis, opts,
		       ARRAY_SIZE(opts), &plan_path, 1, &npos, &helped) < 0)
		return EXIT_USAGE;
	if (helped)
		return EXIT_PASSED;
	if (!plan_path)
		return usage_error("no plan given", run_synopsis);
	if (!out && !dry_run)
		return usage_error("no evidence directory given (--out DIR; DIR must not exist)",
				   run_synopsis);
	if (out && !*out)
		return usage_error("'--out' is empty", run_synopsis);
	if (!dry_run && !key_path && !unsigned_ok)
		return usage_error("evidence is signed: give --key KEY.key (make one with 'abev "
				   "keygen'), or --unsigned to seal it without a signature",
				   run_synopsis);
	if (key_path && unsigned_ok)
		return usage_error("--key and --unsigned contradict each other", run_synopsis);
	if (host_label && !metadata_label_valid(host_label))
		return usage_error("'--host-label' must be 1 to 64 characters of [A-Za-z0-9._-]",
				   run_synopsis);

	if (max_wait && (parse_double(max_wait, &max_wait_pct) < 0 || !(max_wait_pct >= 0) ||
			 max_wait_pct > 100))
		return usage_error("'--max-cpu-wait-pct' must be a number from 0 to 100 (percent of "
				   "a run's wall time)",
				   run_synopsis);

	if (plan_load(&plan, plan_path) < 0)
		return EXIT_USAGE;
	if (max_wait) {
		plan.max_cpu_wait_pct = max_wait_pct;
		plan.max_cpu_wait_pct_from = "--max-cpu-wait-pct";
	}
	/* What the plan names on this machine: all of it for a dry run, cwd before a run. */
	if (plan_check(&plan, dry_run ? PLAN_CHECK_ALL : 0) < 0) {
		plan_release(&plan);
		return EXIT_USAGE;
	}
	if (dry_run) {
		/* With --json stdout carries the expanded plan alone. */
		runner_print_schedule(&plan, json ? stderr : stdout);
		rc = json && plan_json_print(&plan, stdout) < 0 ? EXIT_RUNTIME : EXIT_PASSED;
		plan_release(&plan);
		return rc;
	}
	if (key_path) {
		if (read_passphrase(pass_file, pass_env, &pass) < 0)
			goto out;
		key = seal_key_load(key_path, pass);
		if (!key)
			goto out;
		pub = pub_for_key(key_path);
	}

	reproduce = xasprintf("abev run %s --out NEW_DIR %s%s%s%s%s%s", plan_path,
			      key_path ? "--key " : "--unsigned", key_path ? key_path : "",
			      host_label ? " --host-label " : "", host_label ? host_label : "",
			      max_wait ? " --max-cpu-wait-pct " : "", max_wait ? max_wait : "");
	memset(&opt, 0, sizeof(opt));
	opt.out_dir = out;
	opt.reproduce = reproduce;
	opt.key = key;
	opt.pubkey = pub;
	opt.bundle = bundle;
	opt.host_label = host_label;
	opt.json = json;
	if (quiet)
		opt.progress = PROGRESS_QUIET;
	else if (isatty(STDERR_FILENO))
		opt.progress = PROGRESS_LIVE;
	else
		opt.progress = PROGRESS_LINES;

	if (runner_check_options(&opt) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	rc = run_exit(runner_run(&plan, &opt, &res), &res, plan.inconclusive_fails);
out:
	seal_key_free(key);
	free_passphrase(pass);
	plan_release(&plan);
	free(reproduce);
	free(pub);
	return rc;
}

/*
 * Reads the signer's key and checks PATH against it into *res (release
 * with verify_result_release()). 0, or non-zero after the message when
 * the key cannot be read or PATH is neither evidence nor a bundle.
 */
static int verify_with(const char *path, const char *pubkey, struct verify_result *res)
{
	struct seal_pub pub;
	char *err = NULL;

	memset(res, 0, sizeof(*res));
	if (seal_pub_read(pubkey, &pub, &err) < 0) {
		error("%s", err);
		free(err);
		return -1;
	}
	return verify_path(path, &pub, res) < 0 ? -1 : 0;
}

/*
 * Checks PATH against KEY.pub when one is given, printing any problem;
 * otherwise says on stderr that nothing was verified. 0, or an exit code.
 */
static int verify_first(const char *path, const char *pubkey)
{
	struct verify_result res;
	int rc = 0;

	if (!pubkey) {
		fprintf(stderr, "abev: note: the signature of '%s' was not verified (give --pubkey "
			"KEY.pub to check it first)\n", path);
		return 0;
	}
	if (verify_with(path, pubkey, &res))
		return EXIT_USAGE;
	for (size_t i = 0; i < res.nproblems; i++)
		fprintf(stderr, "abev: problem: %s: %s\n", res.problems[i].file,
			res.problems[i].reason);
	if (res.nproblems || !res.signature_ok) {
		error("'%s' failed verification against '%s'; nothing was rendered", path, pubkey);
		rc = EXIT_VERIFY;
	}
	verify_result_release(&res);
	return rc;
}

/*
 * Reads DIR's evidence and, when cmp is not NULL, recomputes its
 * comparison, after verifying it when pubkey is given. Evidence of a
 * run that never finished has no
 * comparison: *have_cmp is then 0, which only `abev report` accepts
 * (have_cmp NULL refuses it). 0, or an exit code after the message.
 */
static int load_evidence(const char *dir, const char *pubkey, struct evidence_run *run,
			 struct comparison *cmp, int *have_cmp)
{
	char *err = NULL, *doc;
	int rc = verify_first(dir, pubkey);

	if (rc)
		return rc;
	if (evidence_read(dir, run, &err) < 0) {
		error("%s", err);
		free(err);
		return EXIT_USAGE;
	}
	if (have_cmp)
		*have_cmp = run->has_comparison;
	if (!run->has_comparison) {
		if (have_cmp)
			return 0;
		error("'%s' holds no comparison: its run did not finish (status %s)", dir,
		      run->status);
		evidence_run_release(run);
		return EXIT_USAGE;
	}
	if (!cmp)
		return 0;
	compare_compute(&run->cfg, run->invs, run->ninvs, cmp);
	doc = evidence_comparison_document(cmp, run->cfg.gates, run->cfg.ngates);
	if (!evidence_comparison_matches(run, doc))
		warning("the comparison recorded in '%s/result.json' is not the one its "
			"invocations give; what follows is recomputed from the invocations", dir);
	free(doc);
	return 0;
}

/* Writes text to out (a new file or stdout when NULL). 0 or EXIT_RUNTIME. */
static int emit(const char *out, const char *text)
{
	if (!out) {
		fputs(text, stdout);
		return fflush(stdout) ? EXIT_RUNTIME : 0;
	}
	return write_file_atomic(out, text, strlen(text)) < 0 ? EXIT_RUNTIME : 0;
}

/* Non-zero when path (which need not exist) would lie inside dir. */
static int inside(const char *dir, const char *path)
{
	char *d = realpath(dir, NULL), *parent, *slash, *p = NULL;
	int in = 0;

	parent = xstrdup(path);
	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	p = realpath(slash ? (*parent ? parent : "/") : ".", NULL);
	if (d && p) {
		size_t n = strlen(d);
		in = !strncmp(p, d, n) && (p[n] == '\0' || p[n] == '/');
	}
	free(d);
	free(p);
	free(parent);
	return in;
}

/* Most evidence directories one side-by-side report takes. */
#define REPORT_HOSTS_MAX 64

/* `abev report DIR`: report.md again, from the evidence alone. */
static int report_one(const char *dir, const char *out, const char *pubkey)
{
	struct evidence_run run;
	struct comparison cmp = COMPARISON_INIT;
	struct report_input in;
	struct run_environment env;
	int rc, have_cmp, have_env;
	char *text, *err = NULL;

	rc = load_evidence(dir, pubkey, &run, &cmp, &have_cmp);
	if (rc)
		return rc;
	/* A report without its environment is still a report: the section says why. */
	have_env = evidence_read_environment(dir, &env, &err) == 0;
	if (!have_env) {
		warning("%s", err);
		free(err);
	}
	evidence_report_input(&run, have_cmp ? &cmp : NULL, have_env ? &env : NULL, &in);
	text = report_render(&in);
	rc = text ? emit(out, text) : EXIT_RUNTIME;
	free(text);
	if (have_env)
		run_environment_release(&env);
	comparison_release(&cmp);
	evidence_run_release(&run);
	return rc;
}

/*
 * `abev report DIR1 DIR2 ...`: one plan on several hosts, side by side.
 * Exits with the combined decision, as abev run does with its own.
 */
static int report_hosts(const char **dirs, size_t n, const char *out, const char *pubkey)
{
	struct evidence_run *runs = xcalloc(n, sizeof(*runs));
	struct comparison *cmps = xcalloc(n, sizeof(*cmps));
	struct run_environment *envs = xcalloc(n, sizeof(*envs));
	struct report_host *hosts = xcalloc(n, sizeof(*hosts));
	size_t loaded = 0;
	int rc = 0, inconclusive_fails = 1;
	char *text, *err = NULL;

	for (; loaded < n && !rc; loaded++) {
		rc = load_evidence(dirs[loaded], pubkey, &runs[loaded], &cmps[loaded], NULL);
		if (rc)
			break;
		if (evidence_read_environment(dirs[loaded], &envs[loaded], &err) < 0) {
			warning("%s", err);
			free(err);
			err = NULL;
		} else {
			hosts[loaded].environment = &envs[loaded];
		}
		hosts[loaded].dir = dirs[loaded];
		hosts[loaded].run = &runs[loaded];
		hosts[loaded].comparison = &cmps[loaded];
		inconclusive_fails &= cmps[loaded].inconclusive_fails;
		if (!runs[loaded].plan_sha256) {
			error("'%s' does not record its plan's SHA-256, so it cannot be shown to come "
			      "from the same plan as the others", dirs[loaded]);
			rc = EXIT_USAGE;
		} else if (loaded && strcmp(runs[loaded].plan_sha256, runs[0].plan_sha256)) {
			error("'%s' was made from another plan than '%s' (plan SHA-256 %.12s... and "
			      "%.12s...): a side-by-side report compares one plan on several hosts",
			      dirs[loaded], dirs[0], runs[loaded].plan_sha256, runs[0].plan_sha256);
			rc = EXIT_USAGE;
		}
	}
	if (!rc) {
		text = report_hosts_render(hosts, n, pubkey != NULL);
		rc = text ? emit(out, text) : EXIT_RUNTIME;
		free(text);
	}
	if (!rc) {
		enum decision d = report_hosts_decision(hosts, n);
		if (d == DECISION_REJECTED)
			rc = EXIT_REJECTED;
		else if (d == DECISION_INCONCLUSIVE && inconclusive_fails)
			rc = EXIT_INCONCLUSIVE;
	}
	for (size_t i = 0; i < loaded && i < n; i++) {
		comparison_release(&cmps[i]);
		evidence_run_release(&runs[i]);
		run_environment_release(&envs[i]);
	}
	free(runs);
	free(cmps);
	free(envs);
	free(hosts);
	return rc;
}

static int cmd_report(int argc, char **argv)
{
	const char *dirs[REPORT_HOSTS_MAX], *out = NULL, *pubkey = NULL;
	const struct cli_opt opts[] = {
		{ "--out", "-o", NULL, &out },
		{ "--pubkey", "-p", NULL, &pubkey },
	};
	size_t npos;
	int helped;

	if (parse_args(argc, argv, 1, "report", report_usage, "", report_usage, opts,
		       ARRAY_SIZE(opts), dirs, REPORT_HOSTS_MAX, &npos, &helped) < 0)
		return EXIT_USAGE;
	if (helped)
		return EXIT_PASSED;
	if (!npos)
		return usage_error("abev report needs an evidence directory",
				   "usage: abev report DIR... [--out FILE] [--pubkey KEY.pub]");
	for (size_t i = 0; out && i < npos; i++)
		if (inside(dirs[i], out))
			return usage_error("--out lies inside an evidence directory, which is never "
					   "rewritten: choose a file elsewhere", "usage: abev report "
					   "DIR... [--out FILE] [--pubkey KEY.pub]");
	if (npos == 1)
		return report_one(dirs[0], out, pubkey);
	return report_hosts(dirs, npos, out, pubkey);
}

static int cmd_export(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL, *pubkey = NULL, *format = NULL;
	const struct cli_opt opts[] = {
		{ "--out", "-o", NULL, &out },
		{ "--pubkey", "-p", NULL, &pubkey },
		{ "--format", "-f", NULL, &format },
	};
	struct evidence_run run;
	struct comparison cmp = COMPARISON_INIT;
	enum export_format f;
	size_t npos;
	int rc, helped;
	char *text;

	if (parse_args(argc, argv, 1, "export", export_usage, "", export_usage, opts,
		       ARRAY_SIZE(opts), &dir, 1, &npos, &helped) < 0)
		return EXIT_USAGE;
	if (helped)
		return EXIT_PASSED;
	if (!dir || !format)
		return usage_error("abev export needs an evidence directory and --format",
				   "usage: abev export DIR --format hyperfine|csv|junit|json");
	if (export_format_parse(format, &f) < 0) {
		error("unknown format '%s' (expected hyperfine, csv, junit or json)", format);
		return EXIT_USAGE;
	}
	if (out && inside(dir, out))
		return usage_error("--out lies inside the evidence directory, which is never "
				   "rewritten: choose a file elsewhere",
				   "usage: abev export DIR --format F [--out FILE]");
	rc = load_evidence(dir, pubkey, &run, &cmp, NULL);
	if (rc)
		return rc;
	text = export_render(f, &run, &cmp);
	rc = emit(out, text);
	free(text);
	comparison_release(&cmp);
	evidence_run_release(&run);
	return rc;
}

static int cmd_compare(int argc, char **argv)
{
	const char *pos[2] = { NULL, NULL }, *pubkey = NULL;
	int json = 0, rc, helped;
	const struct cli_opt opts[] = {
		{ "--json", NULL, &json, NULL },
		{ "--pubkey", "-p", NULL, &pubkey },
	};
	struct evidence_run old, new;
	char *err = NULL;
	size_t npos;

	if (parse_args(argc, argv, 1, "compare", compare_usage, "", compare_usage, opts,
		       ARRAY_SIZE(opts), pos, 2, &npos, &helped) < 0)
		return EXIT_USAGE;
	if (helped)
		return EXIT_PASSED;
	if (npos != 2)
		return usage_error("abev compare needs two evidence directories",
				   "usage: abev compare OLD NEW [--json] [--pubkey KEY.pub]");
	rc = load_evidence(pos[0], pubkey, &old, NULL, NULL);
	if (rc)
		return rc;
	rc = load_evidence(pos[1], pubkey, &new, NULL, NULL);
	if (rc) {
		evidence_run_release(&old);
		return rc;
	}
	rc = EXIT_PASSED;
	if (compare_runs(&old, &new, json, stdout, &err) < 0) {
		error("cannot compare '%s' with '%s': %s", pos[0], pos[1], err);
		free(err);
		rc = EXIT_USAGE;
	}
	evidence_run_release(&old);
	evidence_run_release(&new);
	return rc;
}

static int cmd_keygen(int argc, char **argv)
{
	const char *prefix = NULL, *pass_file = NULL, *pass_env = NULL;
	char fp[65], *pass = NULL;
	int rc = EXIT_USAGE, helped;
	const struct cli_opt opts[] = {
		{ "--out", "-o", NULL, &prefix },
		{ "--passphrase-file", NULL, NULL, &pass_file },
		{ "--passphrase-env", NULL, NULL, &pass_env },
	};
	size_t npos;

	if (parse_args(argc, argv, 1, "keygen", keygen_usage, "", keygen_usage, opts,
		       ARRAY_SIZE(opts), NULL, 0, &npos, &helped) < 0)
		return EXIT_USAGE;
	if (helped)
		return EXIT_PASSED;
	if (!prefix || !*prefix)
		return usage_error("no key prefix given", "usage: abev keygen --out PREFIX");
	if (read_passphrase(pass_file, pass_env, &pass) < 0)
		return EXIT_USAGE;
	if (seal_keygen(prefix, pass, fp) == 0) {
		printf("private key: %s.key%s\npublic key:  %s.pub (signify), %s.pub.pem (openssl)\n"
		       "fingerprint: %s\n",
		       prefix, pass ? " (passphrase-protected)" : "", prefix, prefix, fp);
		rc = EXIT_PASSED;
	} else {
		rc = EXIT_RUNTIME;
	}
	free_passphrase(pass);
	return rc;
}

static int cmd_verify(int argc, char **argv)
{
	const char *path = NULL, *pubkey = NULL;
	const struct cli_opt opts[] = { { "--pubkey", "-p", NULL, &pubkey } };
	struct verify_result res;
	size_t npos;
	int rc, helped;

	if (parse_args(argc, argv, 1, "verify", verify_usage, "", verify_usage, opts,
		       ARRAY_SIZE(opts), &path, 1, &npos, &helped) < 0)
		return EXIT_USAGE;
	if (helped)
		return EXIT_PASSED;
	if (!path || !pubkey)
		return usage_error("abev verify needs the evidence and the signer's public key",
				   "usage: abev verify PATH --pubkey KEY.pub");
	if (verify_with(path, pubkey, &res))
		return EXIT_USAGE;
	printf("evidence:    %s (%s)\n", path, res.is_bundle ? "bundle" : "directory");
	printf("key:         %s, fingerprint %s\n", pubkey, res.fingerprint);
	printf("signature:   %s\n", res.signature_ok ? "good" : "NOT VALID");
	printf("files:       %zu of %zu listed files match their SHA-256\n", res.files_checked,
	       res.files_listed);
	for (size_t i = 0; i < res.nproblems; i++)
		printf("problem:     %s: %s\n", res.problems[i].file, res.problems[i].reason);
	if (res.nproblems) {
		printf("verdict:     FAILED (%zu problem%s)\n", res.nproblems,
		       res.nproblems == 1 ? "" : "s");
		rc = EXIT_VERIFY;
	} else {
		printf("verdict:     verified\n");
		rc = EXIT_PASSED;
	}
	verify_result_release(&res);
	return rc;
}

static int cmd_pack(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL;
	const struct cli_opt opts[] = { { "--out", "-o", NULL, &out } };
	size_t npos;
	int helped;

	if (parse_args(argc, argv, 1, "pack", pack_usage, "", pack_usage, opts, ARRAY_SIZE(opts),
		       &dir, 1, &npos, &helped) < 0)
		return EXIT_USAGE;
	if (helped)
		return EXIT_PASSED;
	if (!dir || !out)
		return usage_error("abev pack needs the evidence directory and --out",
				   "usage: abev pack DIR --out FILE.tar.zst");
	if (bundle_pack(dir, out) < 0)
		return EXIT_RUNTIME;
	printf("bundle: %s\n", out);
	return EXIT_PASSED;
}

static int parse_count(const char *opt, const char *val, int64_t *out)
{
	if (!val || parse_int64(val, out) < 0 || *out < 0) {
		error("option '%s' needs a non-negative integer, not '%s'", opt, val ? val : "");
		return -1;
	}
	return 0;
}

static int inspect_exit(enum inspect_outcome o)
{
	switch (o) {
	case INSPECT_OK: return EXIT_PASSED;
	case INSPECT_GUARD_FAILED: return EXIT_FAILED;
	case INSPECT_REFUSED:
	default: return EXIT_USAGE;
	}
}

/*
 * `abev results` and `abev guard min-executed`: FILE operands and the
 * options they share, from argv[first]. 0 (help printed when *helped),
 * or a usage error after its message.
 */
static int inspect_args(int argc, char **argv, int first, const char *cmd, const char *usage,
			struct inspect_options *opt, const char ***files, size_t *nfiles,
			int *helped)
{
	const char *min = NULL;
	const struct cli_opt results_opts[] = {
		{ "--json", NULL, &opt->json, NULL },
		{ "--min-executed", NULL, NULL, &min },
	};
	const struct cli_opt guard_opts[] = { { "--min", NULL, NULL, &min } };

	*files = xcalloc((size_t)argc + 1, sizeof(**files));
	if (parse_args(argc, argv, first, cmd, usage, "", usage,
		       opt->guard_only ? guard_opts : results_opts,
		       opt->guard_only ? ARRAY_SIZE(guard_opts) : ARRAY_SIZE(results_opts), *files,
		       (size_t)argc, nfiles, helped) < 0)
		return -1;
	if (*helped)
		return 0;
	if (min && parse_count(opt->guard_only ? "--min" : "--min-executed", min,
			       &opt->min_executed) < 0)
		return -1;
	if (!*nfiles) {
		error("no result file given");
		fputs(usage, stderr);
		return -1;
	}
	return 0;
}

static int cmd_results(int argc, char **argv)
{
	struct inspect_options opt = { 0, -1, 0 };
	const char **files;
	size_t nfiles;
	int helped, rc = EXIT_USAGE;

	if (inspect_args(argc, argv, 1, "results", results_usage, &opt, &files, &nfiles,
			 &helped) == 0)
		rc = helped ? EXIT_PASSED
			    : inspect_exit(inspect_results(files, (int)nfiles, &opt));
	free(files);
	return rc;
}

static int cmd_guard(int argc, char **argv)
{
	struct inspect_options opt = { 0, -1, 1 };
	const char **files;
	size_t nfiles;
	int helped, rc = EXIT_USAGE;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(guard_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_PASSED;
	}
	if (strcmp(argv[1], "min-executed")) {
		error("unknown guard '%s' (known: min-executed)", argv[1]);
		return EXIT_USAGE;
	}
	if (inspect_args(argc, argv, 2, "guard min-executed", guard_usage, &opt, &files, &nfiles,
			 &helped) < 0) {
		free(files);
		return EXIT_USAGE;
	}
	if (helped) {
		rc = EXIT_PASSED;
	} else if (opt.min_executed < 0) {
		rc = usage_error("'abev guard min-executed' needs --min N",
				 "usage: abev guard min-executed --min N FILE...");
	} else {
		rc = inspect_exit(inspect_results(files, (int)nfiles, &opt));
	}
	free(files);
	return rc;
}

static int cmd_help(int argc, char **argv);

/*
 * The commands, git-style: the name, the verb, and the help that both
 * `abev help NAME` and `abev NAME --help` print (usage, then tail).
 */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *tail;
} commands[] = {
	{ "run", cmd_run, run_usage, exit_codes_text },
	{ "report", cmd_report, report_usage, "" },
	{ "compare", cmd_compare, compare_usage, "" },
	{ "export", cmd_export, export_usage, "" },
	{ "verify", cmd_verify, verify_usage, "" },
	{ "keygen", cmd_keygen, keygen_usage, "" },
	{ "pack", cmd_pack, pack_usage, "" },
	{ "results", cmd_results, results_usage, "" },
	{ "guard", cmd_guard, guard_usage, "" },
	{ "help", cmd_help, "usage: abev help [COMMAND | plan [--markdown]]\n", "" },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const char help_plan_usage[] = "usage: abev help plan [--markdown]\n";

/* abev help plan: the reference of plan_doc.c; --markdown is README's table. */
static int help_plan(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--markdown"))) {
		error("unknown argument '%s'", argv[argc > 2 ? 2 : 1]);
		fputs(help_plan_usage, stderr);
		return EXIT_USAGE;
	}
	plan_doc_print(stdout, argc == 2 ? PLAN_DOC_MARKDOWN : PLAN_DOC_TEXT);
	return EXIT_PASSED;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_main_help(stdout);
		return EXIT_PASSED;
	}
	if (!strcmp(argv[1], "plan"))
		return help_plan(argc - 1, argv + 1);
	c = find_command(argv[1]);
	if (!c) {
		error("no help for unknown command '%s'", argv[1]);
		fputs(main_usage, stderr);
		return EXIT_USAGE;
	}
	fputs(c->usage, stdout);
	fputs(c->tail, stdout);
	return EXIT_PASSED;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_main_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(1, argv + 1);
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("abev %s\n", ABEV_VERSION);
		return EXIT_PASSED;
	}
	c = find_command(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	error("unknown command '%s'", argv[1]);
	fputs("run 'abev --help' for the list of commands\n", stderr);
	return EXIT_USAGE;
}
