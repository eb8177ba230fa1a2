/*
 * main: parses the command line, calls one verb, and turns its outcome
 * into abev's exit code. This is the only place that decides exit codes
 * and the only place that prints usage text.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
#include "quick.h"
#include "report.h"
#include "report_hosts.h"
#include "runner.h"
#include "seal.h"
#include "signkey.h"
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
	EXIT_UNSIGNED = 7,     /* abev verify without --pubkey: contents match, nobody vouches */
	EXIT_SIGNAL_BASE = 128 /* interrupted: 128 + signal (proc.h's interrupt signals) */
};

/* One text, two places: `abev --help` and the end of `abev run --help`. */
#define EXIT_CODES_TEXT \
	"Exit codes (the first that applies, in this order: 128+N, 3, 2, 1, 5, 6, 0):\n" \
	"  0    every invocation ran and passed, and the decision is accepted, no\n" \
	"       decision (the plan sets no gate), or inconclusive (by default)\n" \
	"  1    evidence was produced but an invocation failed (non-zero exit, signal,\n" \
	"       timeout, exec failure, a missing metric, or a slot lost to foreign load)\n" \
	"  2    usage or plan error (nothing is run, nothing is written)\n" \
	"  3    runtime error (cannot create the evidence directory, cannot spawn)\n" \
	"  4    verification failed (abev verify, or --pubkey of report/export/compare)\n" \
	"  5    rejected: a gate failed (its whole interval is beyond the limit)\n" \
	"  6    inconclusive, in a plan whose decision.inconclusive is \"fail\"\n" \
	"  7    abev verify without --pubkey: the contents match the manifest, but no\n" \
	"       signature was checked (UNSIGNED)\n" \
	"  129  interrupted by SIGHUP, whenever it arrives: evidence is written, marked\n" \
	"       \"interrupted\" with the signal's name, and sealed\n" \
	"  130  interrupted by SIGINT: likewise\n" \
	"  131  interrupted by SIGQUIT: likewise\n" \
	"  138  interrupted by SIGUSR1: likewise\n" \
	"  140  interrupted by SIGUSR2: likewise\n" \
	"  143  interrupted by SIGTERM: likewise\n"

static const char exit_codes_text[] = EXIT_CODES_TEXT;

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
	"  bench COMMAND COMMAND... [-r N] [-w N] [-n NAME]...\n"
	"                       compare shell commands without a plan file\n"
	"  init [--from-bench COMMAND...] [--out plan.json]\n"
	"                       write a starter plan\n"
	"  verify PATH [--pubkey KEY.pub]\n"
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
	"  results FILE... [--list]\n"
	"                       count (or list) the tests in TRX / JUnit result files\n"
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
	"                [--passphrase-file F | --passphrase-env VAR] [--insecure-key-mode]\n"
	"                [--host-label LABEL] [--max-cpu-wait-pct P] [--wait] [--quiet]\n"
	"                [--json] [--dry-run]\n";

static const char run_usage[] =
	"usage: abev run PLAN --out DIR (--key KEY.key | --unsigned) [--bundle FILE]\n"
	"                [--passphrase-file F | --passphrase-env VAR] [--insecure-key-mode]\n"
	"                [--host-label LABEL] [--max-cpu-wait-pct P] [--wait] [--quiet]\n"
	"                [--json] [--dry-run]\n"
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
	"                  sign the evidence (SHA256.sig) with this key ('abev keygen');\n"
	"                  without it, the key named by $ABEV_SIGNING_KEY (a path) signs,\n"
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
	"                  discard a recorded run that waited for a CPU more than P %\n"
	"                  (0-100) of its wall time; overrides load.max_cpu_wait_pct\n"
	"                  and is recorded in result.json (schedule)\n"
	"  --wait          take turns with other abev runs on this host; without it a\n"
	"                  recorded run that overlaps one (or a load.exclusive match)\n"
	"                  is discarded and repeated (abev(1), OTHER RUNS)\n"
	"  -q, --quiet     print only the decision line and the evidence path\n"
	"  --json          print the comparison (result.json's \"comparison\") as JSON on\n"
	"                  stdout; the other lines go to stderr\n"
	"  -n, --dry-run   check the plan, its programs and files; print the schedule\n"
	"                  (--json: the plan)\n"
	"  -h, --help      show this help\n"
	"\n";

/* The rest of `abev run --help` (one string may not hold it all). */
static const char run_usage_tail[] =
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
	"\n" EXIT_CODES_TEXT;

static const char bench_synopsis[] =
	"usage: abev bench [options] COMMAND COMMAND...\n"
	"       (-r N, -w N, -n NAME, -N, --prepare CMD, --gap S, --order O, --out DIR,\n"
	"        --key KEY.key, --save-plan FILE; 'abev help bench' lists them all)\n";

static const char bench_usage[] =
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
	"names them.\n"
	"\n"
	"Options:\n"
	"  -r, --runs N      recorded runs of each command (default 10)\n"
	"  -w, --warmup N    warmup runs of each command, never counted (default 0)\n"
	"  -n, --name NAME   name the next command (once per command, in order)\n"
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
	"  -o, --out DIR     evidence directory (must not exist); default\n"
	"                    abev-evidence/<UTC time>-<names> in the current directory\n"
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
	"usage: abev init [--out plan.json] [--from-bench [bench options] COMMAND...]\n";

static const char init_usage[] =
	"usage: abev init [--out plan.json] [--from-bench [bench options] COMMAND...]\n"
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
	"and --min-executed. 'abev run PLAN --dry-run' checks the plan.\n"
	"\n"
	"Exit codes: 0 written; 2 usage error or the file exists; 3 cannot write.\n";

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
	"usage: abev results FILE... [--json | --list] [--min-executed N]\n"
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
	"  --list             print every test instead of the table, one per line in\n"
	"                     file order: NAME<TAB>OUTCOME<TAB>DURATION (\"12.345 ms\", or\n"
	"                     \"-\"), with a FILE<TAB> column first when several files\n"
	"                     are given. NAME is exactly what a metric's \"test\" glob\n"
	"                     is matched against (TRX testName; JUnit classname.name),\n"
	"                     but control characters are written \\t, \\n or \\xNN\n"
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
	"usage: abev verify PATH [--pubkey KEY.pub]\n"
	"\n"
	"Checks an evidence directory or a bundle (.tar.zst, .tar.gz; read by streaming,\n"
	"never extracted): the signature of SHA256 in SHA256.sig against KEY.pub, every\n"
	"listed hash, that no listed file is missing, that no file is unlisted, and that\n"
	"there is no symlink, hardlink, device or other special file and no unsafe name.\n"
	"Prints what it checked and the signer's fingerprint.\n"
	"\n"
	"Without --pubkey the same checks run against SHA256 alone (and the copy of it\n"
	"in SHA256.sig, when there is one, which is read but not checked); when they\n"
	"pass the verdict is \"UNSIGNED: contents match the manifest, but nobody vouches\n"
	"for it\" and the exit code 7: anyone could have written a matching manifest.\n"
	"With --pubkey, evidence without SHA256.sig (abev run --unsigned) fails.\n"
	"\n"
	"Exit codes: 0 verified; 7 unsigned: the contents match, no signature was\n"
	"checked; 4 a problem was found (each is named with its file); 2 usage error or\n"
	"unreadable key.\n";

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

/* What `abev run` and `abev bench` share of their options. All borrowed. */
struct run_args {
	const char *out, *key_path, *bundle, *pass_file, *pass_env, *host_label, *max_wait;
	int quiet, json, unsigned_ok, dry_run, wait, insecure_key;
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
	if (a->host_label && !metadata_label_valid(a->host_label))
		return usage_error("'--host-label' must be 1 to 64 characters of [A-Za-z0-9._-]",
				   synopsis);
	if (a->max_wait && (parse_double(a->max_wait, &a->max_wait_pct) < 0 ||
			    !(a->max_wait_pct >= 0) || a->max_wait_pct > 100))
		return usage_error("'--max-cpu-wait-pct' must be a number from 0 to 100 (percent of "
				   "a run's wall time)",
				   synopsis);
	return 0;
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
	/* What the plan names on this machine: all of it for a dry run, cwd before a run. */
	if (plan_check(plan, a->dry_run ? PLAN_CHECK_ALL : 0) < 0)
		return EXIT_USAGE;
	if (a->dry_run) {
		/* With --json stdout carries the expanded plan alone. */
		runner_print_schedule(plan, a->json ? stderr : stdout);
		return a->json && plan_json_print(plan, stdout) < 0 ? EXIT_RUNTIME : EXIT_PASSED;
	}
	if (a->key_path) {
		if (signkey_passphrase(a->pass_file, a->pass_env, &pass) < 0)
			goto out;
		key = signkey_load(a->key_path, a->key_src, pass, a->insecure_key);
		if (!key)
			goto out;
		pub = pub_for_key(a->key_path);
	}

	/* A key from the environment stays there: the command names no key of its own. */
	reproduce = xasprintf("abev run %s --out NEW_DIR%s%s%s%s%s%s", plan_shown,
			      a->key_src == SIGNKEY_OPTION ? " --key "
			      : a->key_path		   ? ""
							   : " --unsigned",
			      a->key_src == SIGNKEY_OPTION ? a->key_path : "",
			      a->host_label ? " --host-label " : "", a->host_label ? a->host_label : "",
			      a->max_wait ? " --max-cpu-wait-pct " : "", a->max_wait ? a->max_wait : "");
	memset(&opt, 0, sizeof(opt));
	opt.out_dir = a->out;
	opt.reproduce = reproduce;
	opt.key = key;
	opt.pubkey = pub;
	opt.bundle = a->bundle;
	opt.host_label = a->host_label;
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

static int cmd_run(int argc, char **argv)
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
	if (run_args_check(&a, run_synopsis))
		return EXIT_USAGE;
	if (plan_load(&plan, plan_path) < 0)
		return EXIT_USAGE;
	rc = run_plan(&plan, &a, plan_path);
	plan_release(&plan);
	return rc;
}

static int parse_count(const char *opt, const char *val, int64_t *out)
{
	if (!val || parse_int64(val, out) < 0 || *out < 0) {
		error("option '%s' needs a non-negative integer, not '%s'", opt, val ? val : "");
		return -1;
	}
	return 0;
}

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
static int take_repeated(int *argc, char **argv, int first, const struct cli_opt *opts,
			 size_t nopts, struct cli_repeat *rep, size_t nrep)
{
	int out = first;

	for (int i = first; i < *argc; i++) {
		const char *a = argv[i], *val;
		int taken = 0;

		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		for (size_t r = 0; a[0] == '-' && r < nrep && !taken; r++) {
			int m = opt_value(*argc, argv, &i, rep[r].lng, rep[r].shrt, &val);
			if (m < 0)
				return -1;
			if (m && rep[r].n == rep[r].max)
				return error("option '%s' given more than %zu times", rep[r].lng,
					     rep[r].max);
			if (m)
				rep[r].v[rep[r].n++] = val;
			taken = m;
		}
		for (size_t k = 0; a[0] == '-' && k < nopts && !taken; k++)
			if (!opts[k].flag && i + 1 < *argc &&
			    (!strcmp(a, opts[k].lng) || (opts[k].shrt && !strcmp(a, opts[k].shrt)))) {
				argv[out++] = argv[i++];
				argv[out++] = argv[i];
				taken = 1;
			}
		if (!taken)
			argv[out++] = argv[i];
	}
	*argc = out;
	return 0;
}

/* The options abev bench and abev init share, as given. */
struct quick_args {
	const char *runs, *warmup, *gap, *order, *results, *min_executed;
	int no_shell;
	const char *names[QUICK_MAX_COMMANDS], *prepare[QUICK_MAX_COMMANDS];
	const char *commands[QUICK_MAX_COMMANDS];
	size_t ncommands;
};

#define QUICK_CLI_OPTS(q)                                       \
	{ "--runs", "-r", NULL, &(q).runs },                    \
	{ "--warmup", "-w", NULL, &(q).warmup },                \
	{ "--gap", NULL, NULL, &(q).gap },                      \
	{ "--order", NULL, NULL, &(q).order },                  \
	{ "--results", NULL, NULL, &(q).results },              \
	{ "--min-executed", NULL, NULL, &(q).min_executed },    \
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
	};
	int64_t n;
	double gap;

	if (take_repeated(&argc, argv, 1, opts, nopts, rep, ARRAY_SIZE(rep)) < 0 ||
	    parse_args(argc, argv, 1, cmd, usage, "", synopsis, opts, nopts, q->commands,
		       QUICK_MAX_COMMANDS, &q->ncommands, helped) < 0)
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

static int cmd_bench(int argc, char **argv)
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
	if (!rc)
		rc = quick_plan_load(&spec, save ? save : "(abev bench)", &text, &plan,
				     bench_synopsis);
	if (!rc && save && write_file_new(save, 0644, text, strlen(text)) < 0)
		rc = EXIT_USAGE;
	if (!rc) {
		shown = save ? xstrdup(save) : path_join(a.out, "plan.json");
		rc = run_plan(&plan, &a, shown);
	}
	plan_release(&plan);
	free(text);
	free(shown);
	free(out);
	free(cwd);
	return rc;
}

static int cmd_init(int argc, char **argv)
{
	struct quick_args q = { 0 };
	struct quick_spec spec = QUICK_SPEC_INIT;
	const char *out = "plan.json";
	int from_bench = 0, rc, helped;
	const struct cli_opt opts[] = {
		QUICK_CLI_OPTS(q),
		{ "--from-bench", NULL, &from_bench, NULL },
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
	if (!*out)
		return usage_error("'--out' is empty", init_synopsis);
	if (lstat(out, &sb) == 0)
		return usage_error("the plan file already exists and abev init never overwrites "
				   "one: choose another --out", init_synopsis);
	spec.starter = 1;
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
	if (!rc)
		printf("plan: %s\ncheck it: abev run %s --dry-run\nrun it:   abev run %s --out DIR "
		       "--unsigned\n", out, out, out);
	plan_release(&plan);
	free(text);
	free(cwd);
	return rc;
}

/*
 * Reads the signer's key and checks PATH against it into *res (release
 * with verify_result_release()); without pubkey, against its manifest
 * alone. 0, or non-zero after the message when
 * the key cannot be read or PATH is neither evidence nor a bundle.
 */
static int verify_with(const char *path, const char *pubkey, struct verify_result *res)
{
	struct seal_pub pub;
	char *err = NULL;

	memset(res, 0, sizeof(*res));
	if (!pubkey)
		return verify_path(path, NULL, res) < 0 ? -1 : 0;
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
	if (signkey_passphrase(pass_file, pass_env, &pass) < 0)
		return EXIT_USAGE;
	if (seal_keygen(prefix, pass, fp) == 0) {
		printf("private key: %s.key%s\npublic key:  %s.pub (signify), %s.pub.pem (openssl)\n"
		       "fingerprint: %s\n",
		       prefix, pass ? " (passphrase-protected)" : "", prefix, prefix, fp);
		rc = EXIT_PASSED;
	} else {
		rc = EXIT_RUNTIME;
	}
	signkey_passphrase_free(pass);
	return rc;
}

/* The signature line of abev verify. */
static void print_signature(const struct verify_result *res, const char *pubkey)
{
	if (pubkey && !res->signature_present)
		printf("signature:   MISSING: no SHA256.sig (the evidence was sealed with "
		       "--unsigned)\n");
	else if (pubkey)
		printf("signature:   %s\n", res->signature_ok ? "good" : "NOT VALID");
	else if (res->signature_present)
		printf("signature:   not checked: SHA256.sig is there, but no key was given (check "
		       "it with --pubkey KEY.pub)\n");
	else
		printf("signature:   none: the evidence is unsigned (no SHA256.sig)\n");
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
	if (!path)
		return usage_error("abev verify needs the evidence (a directory or a bundle)",
				   "usage: abev verify PATH [--pubkey KEY.pub]");
	if (verify_with(path, pubkey, &res))
		return EXIT_USAGE;
	printf("evidence:    %s (%s)\n", path, res.is_bundle ? "bundle" : "directory");
	if (pubkey)
		printf("key:         %s, fingerprint %s\n", pubkey, res.fingerprint);
	else
		printf("key:         none given\n");
	print_signature(&res, pubkey);
	printf("files:       %zu of %zu listed files match their SHA-256\n", res.files_checked,
	       res.files_listed);
	for (size_t i = 0; i < res.nproblems; i++)
		printf("problem:     %s: %s\n", res.problems[i].file, res.problems[i].reason);
	if (res.nproblems) {
		printf("verdict:     FAILED (%zu problem%s)\n", res.nproblems,
		       res.nproblems == 1 ? "" : "s");
		rc = EXIT_VERIFY;
	} else if (!pubkey) {
		printf("verdict:     UNSIGNED: contents match the manifest, but nobody vouches for "
		       "it\n");
		rc = EXIT_UNSIGNED;
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
		{ "--list", NULL, &opt->list, NULL },
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
	if (opt->list && opt->json) {
		error("--list and --json do not go together: --list prints lines, --json a document");
		fputs(usage, stderr);
		return -1;
	}
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
	struct inspect_options opt = { 0, -1, 0, 0 };
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
	struct inspect_options opt = { 0, -1, 1, 0 };
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
	{ "run", cmd_run, run_usage, run_usage_tail },
	{ "bench", cmd_bench, bench_usage, exit_codes_text },
	{ "init", cmd_init, init_usage, "" },
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
