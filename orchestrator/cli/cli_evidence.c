/*
 * cli_evidence: the commands that read or make evidence rather than run
 * a plan — verify, keygen, pack, report (one directory, or several hosts
 * side by side), compare and export — with their help and option tables
 * (one struct evidence_args for all), and what they share: checking the evidence first (its signature when --pubkey is
 * given, its manifest always), loading evidence
 * with its recomputed comparison, and writing a result to stdout or a file
 * outside the evidence. The checks themselves are verify.c's, rendering is
 * report.c's and export.c's; the exit code is cli_exit.c's.
 */
#include "cli/cli.h"
#include "cli/outpath.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/bundle.h"
#include "decide/compare.h"
#include "report/compare_runs.h"
#include "evidence/evidence_read.h"
#include "report/export.h"
#include "seal/manifest.h"
#include "run/proc.h"
#include "report/report.h"
#include "report/report_hosts.h"
#include "seal/seal.h"
#include "seal/signkey.h"
#include "util/alloc.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"
#include "seal/verify.h"

static const char report_usage[] =
	"usage: abev report DIR... [--out FILE] [--pubkey KEY.pub]\n";

static const char report_about[] =
	"With one DIR: renders DIR's report.md again from its evidence alone\n"
	"(result.json, metadata.json): the comparison is recomputed from the recorded\n"
	"invocations, and with --pubkey the text is byte for byte the report.md that\n"
	"abev run wrote (without it, its \"Signed\" line says \"not signature-checked\").\n"
	"\n"
	"With several: the same plan run on several hosts (abev run --host-label),\n"
	"side by side: each host's decision and machine, per metric and variant a\n"
	"column group per host, and the combined decision (rejected if any host\n"
	"rejects, inconclusive if any is and none rejects). Directories made from\n"
	"different plans (another plan SHA-256) are refused.\n"
	"\n"
	"Prints the report on stdout, or writes it to FILE, which must not exist (abev\n"
	"never overwrites a file) nor be inside an evidence directory: sealed evidence\n"
	"is never rewritten. Every directory is checked first: with --pubkey as abev\n"
	"verify does, without it against its manifest SHA256 alone (no key needed),\n"
	"with a note that it is not signature-checked. Evidence that fails is refused\n"
	"and nothing is rendered.\n";

static const char report_tail[] =
	"Exit codes: 0 rendered; 2 usage error, unreadable evidence or different plans;\n"
	"4 verification failed; with several directories also 5 (the combined\n"
	"decision is rejected) and 6 (inconclusive, unless the plans let it pass).\n";

static const char compare_usage[] =
	"usage: abev compare OLD NEW [--json] [--pubkey KEY.pub]\n";

static const char compare_about[] =
	"Compares two evidence directories, e.g. last month's baseline with today's\n"
	"candidate, possibly from different plans: for every variant name both have\n"
	"and every metric both recorded (the built-in wall, cpu and max_rss, and\n"
	"plan metrics of the same name and unit), OLD's counted runs are the\n"
	"reference and NEW's the candidate, with the statistics of abev run (median,\n"
	"change %, ratio with its bootstrap interval, exact Mann-Whitney p). The runs\n"
	"come from different schedules, so nothing is paired by round, and no gate is\n"
	"judged. --json prints an abev.compare/1 document. Both are checked first:\n"
	"with --pubkey as abev verify does, without it against their manifests alone.\n";

static const char compare_tail[] =
	"Exit codes: 0 compared; 2 usage error, unreadable evidence, or nothing shared\n"
	"(the message names what each has); 4 verification failed.\n";

static const char export_usage[] =
	"usage: abev export DIR --format FORMAT [--out FILE] [--pubkey KEY.pub]\n";

static const char export_about[] =
	"Writes DIR's figures for other tools, on stdout or into FILE:\n"
	"  hyperfine  the file hyperfine's --export-json writes: results[] per variant\n"
	"             with command (its command line), mean, stddev, median, min, max\n"
	"             and times (seconds, of the counted runs), user, system,\n"
	"             exit_codes, and parameters (a scan's values, as text)\n"
	"  hyperfine-csv       hyperfine's --export-csv: one row per command, seconds,\n"
	"             and a parameter_<name> column per scan parameter\n"
	"  hyperfine-markdown  hyperfine's --export-markdown: a table of mean ± σ,\n"
	"             min, max (ms, or s) and the mean relative to the fastest\n"
	"  csv        one row per invocation and metric: seq, variant, phase, round,\n"
	"             attempt, status, metric, unit, value, counted (text quoted; a\n"
	"             control, bidirectional or invisible character written as U+FFFD;\n"
	"             text starting with = + - @, tab or CR gets a leading ')\n"
	"  junit      JUnit XML with one testcase per gate and compared variant: a\n"
	"             failed gate is a failure, an inconclusive one is skipped\n"
	"  json       the comparison, as result.json records it\n"
	"The evidence is checked first: with --pubkey as abev verify does, without it\n"
	"against its manifest alone. FILE must not exist (abev never overwrites a file)\n"
	"nor lie inside evidence.\n";

static const char export_tail[] =
	"Exit codes: 0 written; 2 usage error, FILE exists or unreadable evidence;\n"
	"4 verification failed.\n";

static const char keygen_usage[] =
	"usage: abev keygen --out PREFIX [--passphrase-file F | --passphrase-env VAR]\n";

static const char keygen_about[] =
	"Makes an Ed25519 signing key: PREFIX.key (PKCS#8 PEM, mode 0600, encrypted\n"
	"with the passphrase when one is given), PREFIX.pub (OpenBSD signify public key,\n"
	"for abev verify and signify-openbsd -C) and PREFIX.pub.pem (for openssl), and\n"
	"prints the key's fingerprint (SHA-256 of the raw public key). None of the files\n"
	"may exist. The passphrase is read from a file or an environment variable, never\n"
	"from the command line.\n";

static const char verify_usage[] =
	"usage: abev verify PATH [--pubkey KEY.pub]\n";

static const char verify_about[] =
	"Checks an evidence directory or a bundle (.tar.zst, .tar.gz; read by streaming,\n"
	"never extracted): the signature of SHA256 in SHA256.sig against KEY.pub (the\n"
	"signify key, or PREFIX.pub.pem), every listed hash, that no listed file is\n"
	"missing, that no file is unlisted (but those an interrupted seal left out, see\n"
	"below), and that there is no symlink, hardlink (a file with a second name,\n"
	"inside the evidence or out), device or other special file and no unsafe name.\n"
	"A directory must hold a listed file: an empty or otherwise unlisted directory\n"
	"is a problem, since whoever extracts the evidence must get exactly what was\n"
	"signed; so is a name that stands for two entries of a bundle (a file and a\n"
	"directory, or a repeat). Prints what it checked and the signer's fingerprint.\n"
	"\n"
	"Bundles: abev pack's, or stock tar's 'tar -C DIR -czf FILE.tar.gz .' and\n"
	"'tar -C DIR --zstd -cf FILE.tar.zst .' (the './' prefix is fine); entries must be\n"
	"at the top level, so 'tar -czf FILE DIR' is refused with how to make one. A\n"
	"PATH named like a bundle (.tar.zst, .tar.gz, .tgz, .tar) or starting like one\n"
	"that cannot be read fails (exit 4) with the reason: an empty file, not a zstd or\n"
	"gzip stream, an uncompressed tar, cut short or corrupt, or bytes after the end\n"
	"of the compressed stream. A bundle holds one zstd frame or gzip member and one\n"
	"tar archive: a second frame or member, a zstd skippable frame, data after the\n"
	"tar end-of-archive marker other than zero padding, or a gzip header comment\n"
	"or extra field is refused by name, as is a setuid, setgid, sticky or\n"
	"world-writable entry (the './' entry included).\n"
	"\n"
	"Without --pubkey the same checks run against SHA256 alone (and the copy of it\n"
	"in SHA256.sig, when there is one, which is read but not checked); when they\n"
	"pass the verdict is \"UNSIGNED: contents match the manifest, but nobody vouches\n"
	"for it\" and the exit code 7: anyone could have written a matching manifest.\n"
	"With --pubkey, evidence without SHA256.sig (abev run --unsigned) fails.\n"
	"\n"
	"Evidence that abev run left when it was stopped while sealing (killed, or the\n"
	"machine lost) still holds result.json.sealing or report.md.sealing, the final\n"
	"files that abev renames into place only after SHA256 and SHA256.sig are on\n"
	"disk; its result.json still says \"running\". The verdict is then \"UNFINISHED\"\n"
	"(exit 4), and each file left is named.\n"
	"\n"
	"A signal that stops abev run while it hashes the evidence for its seal ends the\n"
	"seal at once: the files it had not hashed stay in the evidence, not listed in\n"
	"SHA256, and result.json names them, or a directory above them, in its\n"
	"\"unsealed\" list. Such a file, and a directory without a listed file at or\n"
	"beneath a path of that list, is no problem when result.json itself is as SHA256\n"
	"lists it (with --pubkey: as the good signature lists it). A line counts them\n"
	"(\"unsealed: N file(s), B bytes, present but not hashed ...\") and names the first\n"
	"10; nothing vouches for their contents. A path of the list that is not beneath\n"
	"runs/, or not a safe name, is a problem of result.json and is not honoured; one\n"
	"that is not there is no problem.\n"
	"\n"
	"When nothing is wrong, a line says that the seal is intact, and then what the\n"
	"sealed record says of itself, read from the result.json just checked: its\n"
	"status (completed, failed, interrupted with the signal), its decision, and each\n"
	"note of a change made to abev's own files while the run went on (\"tampered\":\n"
	"a file abev wrote rewritten or removed, one added outside the run directories,\n"
	"a run directory swapped). Evidence that is as sealed but records a run that did\n"
	"not complete, or one with such a change, or with files left out of the seal, or\n"
	"whose result.json cannot be read, is \"NOT CLEAN\" (exit 8): the bytes are what\n"
	"was sealed, but what was sealed is no clean record. Evidence of an abev that did\n"
	"not yet list those changes says so.\n";

static const char verify_tail[] =
	"Exit codes: 0 verified, and it records a completed run; 7 unsigned: the contents\n"
	"match, no signature was checked; 8 not clean: as sealed, but it records a run\n"
	"that did not complete, changed abev's files or left files out of the seal\n"
	"(before 7); 4 a problem was found (each is named with its file); 2 usage error,\n"
	"a PATH that does not exist or is neither a directory nor a bundle, or an\n"
	"unreadable key.\n";

static const char pack_usage[] =
	"usage: abev pack DIR --out FILE.tar.zst|FILE.tar.gz\n";

static const char pack_about[] =
	"Packs an evidence directory into a deterministic archive: the same evidence\n"
	"gives the same bytes on any machine, whatever the files' times or owners\n"
	"(sorted entries, fixed times, uid/gid 0, mode 0644/0755). abev verify reads it.\n"
	"\n"
	"DIR is checked first as abev verify without --pubkey checks it: evidence\n"
	"that does not match its manifest (no SHA256, a changed, missing or unlisted\n"
	"file, an empty directory, a symlink or hardlink) is refused with each problem\n"
	"named, and nothing is written. Unsigned evidence is packed with a note that\n"
	"nobody vouches for it, and so are the files an interrupted seal left unhashed\n"
	"(result.json's \"unsealed\"; abev verify reads them from the bundle alike).\n"
	"\n"
	"The bundle is written into FILE.tmp-PID-XXXXXX and linked to FILE when\n"
	"complete; that file is removed when a write fails (a file-size limit fails\n"
	"the write: exit 3) and on SIGINT, SIGTERM or SIGHUP (exit 128+N). One left by\n"
	"a pack killed with SIGKILL is removed by the next pack to the same FILE once\n"
	"its process is gone.\n";

static const char pack_tail[] =
	"Exit codes: 0 packed; 2 usage error; 3 the bundle could not be written;\n"
	"4 DIR does not verify against its manifest; 128+N interrupted by signal N.\n";

/* The options of these commands: each table takes what its command has. Borrowed. */
struct evidence_args {
	const char *out, *pubkey, *format, *pass_file, *pass_env;
	int json;
};

/* --pubkey of the commands that check evidence before they read it. */
#define EVIDENCE_PUBKEY_OPTION \
	{ CLI_STRING('p', "pubkey", struct evidence_args, pubkey, "KEY.pub", \
		     "check the evidence against the signer's public key first, as abev verify " \
		     "does; without it, against its manifest SHA256 alone"), \
	  .complete = CLI_COMPLETE_FILES("*.pub *.pub.pem") }

/*
 * Reads the signer's key and checks PATH against it into *res (release
 * with verify_result_release()); without pubkey, against its manifest
 * alone. With self, also what the evidence says of itself
 * (verify_path_self()). 0, or non-zero after the message when
 * the key cannot be read or PATH is neither evidence nor a bundle.
 */
static int verify_with(const char *path, const char *pubkey, int self,
		       struct verify_result *res)
{
	int (*check)(const char *, const struct signify_pub *, struct verify_result *) =
		self ? verify_path_self : verify_path;
	struct signify_pub pub;
	char *err = NULL;

	memset(res, 0, sizeof(*res));
	if (!pubkey)
		return check(path, NULL, res) < 0 ? -1 : 0;
	if (signify_pub_read(pubkey, &pub, &err) < 0) {
		error("%s", err);
		free(err);
		return -1;
	}
	return check(path, &pub, res) < 0 ? -1 : 0;
}

/* Each problem verify found, on stderr: for the commands that verify before they act. */
static void print_problems_stderr(const struct verify_result *res)
{
	for (size_t i = 0; i < res->nproblems; i++)
		fprintf(stderr, "abev: problem: %s: %s\n", res->problems[i].file,
			res->problems[i].reason);
}

/*
 * For the commands that verify before they act: the files verify took
 * as left out of the seal (result.json's "unsealed"), which nothing
 * vouches for.
 */
static void note_unsealed(const char *path, const struct verify_result *res)
{
	char *shown;

	if (!res->unsealed_files)
		return;
	shown = xstrdup_escaped(path);
	fprintf(stderr, "abev: note: '%s' holds %zu file(s) abev did not hash: it was interrupted "
		"while sealing, and result.json names them (\"unsealed\"); nothing vouches for "
		"them\n", shown, res->unsealed_files);
	free(shown);
}

/* Whether the directory dir holds neither SHA256 nor SHA256.sig: evidence never sealed. */
static int never_sealed(const char *dir)
{
	char *m = path_join(dir, EVIDENCE_MANIFEST_FILE), *sig = path_join(dir, EVIDENCE_SIGNATURE_FILE);
	struct stat st;
	int none = lstat(m, &st) < 0 && errno == ENOENT && lstat(sig, &st) < 0 && errno == ENOENT;

	free(m);
	free(sig);
	return none;
}

/*
 * Checks PATH before a command reads it: against KEY.pub when one is
 * given; otherwise against its manifest alone, as abev verify without a
 * key does, since that needs no key — then a note says that the signature
 * was not checked. Evidence that was never sealed (a run killed outright)
 * is read with a note. Any problem is printed and refuses PATH. 0, or an
 * exit code.
 */
static int verify_first(const char *path, const char *pubkey)
{
	struct verify_result res;
	int rc = 0;

	if (!pubkey && never_sealed(path)) {
		char *shown = xstrdup_escaped(path);
		fprintf(stderr, "abev: note: '%s' was never sealed (no %s): nothing vouches for its "
			"contents\n", shown, EVIDENCE_MANIFEST_FILE);
		free(shown);
		return 0;
	}
	if (verify_with(path, pubkey, 0, &res))
		return EXIT_USAGE;
	print_problems_stderr(&res);
	if (res.unfinished) {
		error("'%s' is unfinished: abev stopped while sealing it (the files named above "
		      "are left); nothing was rendered", path);
		rc = EXIT_VERIFY;
	} else if (pubkey && (res.nproblems || !res.signature_ok)) {
		error("'%s' failed verification against '%s'; nothing was rendered", path, pubkey);
		rc = EXIT_VERIFY;
	} else if (res.nproblems) {
		error("'%s' does not match its manifest %s; nothing was rendered ('abev verify' "
		      "says the same)", path, EVIDENCE_MANIFEST_FILE);
		rc = EXIT_VERIFY;
	} else if (!pubkey && res.signature_present) {
		char *shown = xstrdup_escaped(path);
		fprintf(stderr, "abev: note: '%s' matches its manifest %s but is not "
			"signature-checked (give --pubkey KEY.pub to check its signature)\n", shown,
			EVIDENCE_MANIFEST_FILE);
		free(shown);
	} else if (!pubkey) {
		char *shown = xstrdup_escaped(path);
		fprintf(stderr, "abev: note: '%s' matches its manifest %s and is unsigned (no %s): "
			"nobody vouches for it\n", shown, EVIDENCE_MANIFEST_FILE, EVIDENCE_SIGNATURE_FILE);
		free(shown);
	}
	if (!rc)
		note_unsealed(path, &res);
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
		      run->hdr.status);
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
	/* Created, never replaced: out_refused() checked first, and O_EXCL holds in a race. */
	return write_file_new(out, 0644, text, strlen(text)) < 0 ? EXIT_RUNTIME : 0;
}

/*
 * --out of report and export: a file that exists is not overwritten (abev
 * never replaces what it or anyone wrote), nor one inside evidence.
 * 0, or EXIT_USAGE after the message.
 */
static int out_refused(const char *out, const char *usage)
{
	struct stat sb;
	char *msg;
	int rc;

	if (lstat(out, &sb) < 0)
		return outpath_check_evidence("--out", out) < 0 ? EXIT_USAGE : 0;
	msg = xasprintf("'%s' already exists: abev never overwrites a file (remove it, or "
			"choose another --out)", out);
	rc = cli_usage_error(msg, usage);
	free(msg);
	return rc;
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
	report_input_from_evidence(&run, have_cmp ? &cmp : NULL, have_env ? &env : NULL, &in);
	in.signature_unchecked = !pubkey;
	text = report_render(&in);
	rc = text ? emit(out, text) : EXIT_RUNTIME;
	free(text);
	if (have_env)
		evidence_environment_release(&env);
	compare_release(&cmp);
	evidence_run_release(&run);
	return rc;
}

/*
 * `abev report DIR1 DIR2 ...`: one plan on several hosts, side by side.
 * Exits with the combined decision, as abev run does with its own.
 */
/*
 * Warns, on stderr, of every variable known to change a runtime whose
 * value differs between the evidence in dir_a and dir_b (envname.h): an
 * inherited NODE_OPTIONS can change a result as surely as the SDK under
 * test. Each value is shown escaped.
 */
static void warn_runtime_diff(const char *dir_a, const struct run_environment *a,
			      const char *dir_b, const struct run_environment *b)
{
	struct strbuf sb = STRBUF_INIT;
	char *la = xstrdup_escaped(dir_a), *lb = xstrdup_escaped(dir_b);
	size_t n = evidence_environment_runtime_diff(a, la, b, lb, &sb);

	if (n) {
		const char *line = sb.buf, *nl;
		fprintf(stderr, "abev: warning: %zu runtime variable(s) differ between '%s' and "
			"'%s', which can change what was measured:\n", n, la, lb);
		for (; (nl = strchr(line, '\n')); line = nl + 1) {
			struct strbuf one = STRBUF_INIT;
			strbuf_add_escaped_line(&one, line, (size_t)(nl - line));
			fprintf(stderr, "abev: warning:   %s\n", one.buf);
			strbuf_release(&one);
		}
	}
	free(la);
	free(lb);
	strbuf_release(&sb);
}

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
		if (!runs[loaded].hdr.plan_sha256) {
			error("'%s' does not record its plan's SHA-256, so it cannot be shown to come "
			      "from the same plan as the others", dirs[loaded]);
			rc = EXIT_USAGE;
		} else if (loaded && strcmp(runs[loaded].hdr.plan_sha256, runs[0].hdr.plan_sha256)) {
			error("'%s' was made from another plan than '%s' (plan SHA-256 %.12s... and "
			      "%.12s...): a side-by-side report compares one plan on several hosts",
			      dirs[loaded], dirs[0], runs[loaded].hdr.plan_sha256, runs[0].hdr.plan_sha256);
			rc = EXIT_USAGE;
		}
	}
	for (size_t i = 1; !rc && i < n; i++)
		if (hosts[0].environment && hosts[i].environment)
			warn_runtime_diff(dirs[0], hosts[0].environment, dirs[i],
					  hosts[i].environment);
	if (!rc) {
		text = report_hosts_render(hosts, n, pubkey != NULL);
		rc = text ? emit(out, text) : EXIT_RUNTIME;
		free(text);
	}
	if (!rc)
		rc = cli_exit_decision(report_hosts_decision(hosts, n), inconclusive_fails);
	for (size_t i = 0; i < loaded && i < n; i++) {
		compare_release(&cmps[i]);
		evidence_run_release(&runs[i]);
		evidence_environment_release(&envs[i]);
	}
	free(runs);
	free(cmps);
	free(envs);
	free(hosts);
	return rc;
}

static int report_main(void *opts, size_t npos, char **dirs)
{
	const struct evidence_args *a = opts;
	int rc;

	if (!npos)
		return cli_usage_error("abev report needs an evidence directory", cmd_report.usage);
	for (size_t i = 0; a->out && i < npos; i++)
		if (inside(dirs[i], a->out))
			return cli_usage_error("--out lies inside an evidence directory, which is never "
					       "rewritten: choose a file elsewhere", cmd_report.usage);
	if (a->out && (rc = out_refused(a->out, cmd_report.usage)))
		return rc;
	if (npos == 1)
		return report_one(dirs[0], a->out, a->pubkey);
	return report_hosts((const char **)dirs, npos, a->out, a->pubkey);
}

static const struct cli_option report_options[] = {
	{ CLI_STRING('o', "out", struct evidence_args, out, "FILE",
		     "write the report to FILE instead of stdout (FILE must not exist, nor lie "
		     "inside evidence)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	EVIDENCE_PUBKEY_OPTION,
	{ CLI_END() },
};

const struct cli_command cmd_report = {
	.name = "report",
	.summary = "render the report again from evidence",
	.usage = report_usage,
	.about = report_about,
	.tail = report_tail,
	.options = report_options,
	.operands = "DIR",
	.max_operands = REPORT_HOSTS_MAX,
	.complete = CLI_COMPLETE_DIRS,
	.opts_size = sizeof(struct evidence_args),
	.fn = report_main,
};

/*
 * export_render() with the variants' parameters from DIR's metadata.json:
 * evidence whose metadata cannot be read is still exported, without them,
 * after a warning.
 */
static char *render_export(const char *dir, enum export_format f, const struct evidence_run *run,
			   const struct comparison *cmp)
{
	struct run_environment env;
	char *err = NULL, *text;
	int have_env = evidence_read_environment(dir, &env, &err) == 0;

	if (!have_env) {
		warning("%s", err);
		free(err);
	}
	text = export_render(f, run, cmp, have_env ? &env : NULL);
	if (have_env)
		evidence_environment_release(&env);
	return text;
}

static int export_main(void *opts, size_t npos, char **pos)
{
	const struct evidence_args *a = opts;
	const char *dir = npos ? pos[0] : NULL, *out = a->out;
	struct evidence_run run;
	struct comparison cmp = COMPARISON_INIT;
	enum export_format f;
	int rc;
	char *text;

	if (!dir || !a->format)
		return cli_usage_error("abev export needs an evidence directory and --format",
				       cmd_export.usage);
	if (export_format_parse(a->format, &f) < 0) {
		error("unknown format '%s' (expected " EXPORT_FORMAT_LIST ")", a->format);
		return EXIT_USAGE;
	}
	if (out && inside(dir, out))
		return cli_usage_error("--out lies inside the evidence directory, which is never "
				       "rewritten: choose a file elsewhere", cmd_export.usage);
	if (out && (rc = out_refused(out, cmd_export.usage)))
		return rc;
	rc = load_evidence(dir, a->pubkey, &run, &cmp, NULL);
	if (rc)
		return rc;
	text = render_export(dir, f, &run, &cmp);
	rc = emit(out, text);
	free(text);
	compare_release(&cmp);
	evidence_run_release(&run);
	return rc;
}

int cli_export_files(const char *dir, const char *const *formats, const char *const *outs,
		     size_t n)
{
	struct evidence_run run;
	struct comparison cmp = COMPARISON_INIT;
	enum export_format f;
	int rc;

	for (size_t i = 0; i < n; i++) {
		if (outs[i] && export_format_parse(formats[i], &f) < 0) {
			error("unknown format '%s' (expected " EXPORT_FORMAT_LIST ")", formats[i]);
			return EXIT_USAGE;
		}
	}
	rc = load_evidence(dir, NULL, &run, &cmp, NULL);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		char *text;

		if (!outs[i])
			continue;
		export_format_parse(formats[i], &f);
		text = render_export(dir, f, &run, &cmp);
		rc = write_file_new(outs[i], 0644, text, strlen(text)) < 0 ? EXIT_RUNTIME : 0;
		free(text);
	}
	compare_release(&cmp);
	evidence_run_release(&run);
	return rc;
}

static const struct cli_option export_options[] = {
	{ CLI_STRING('f', "format", struct evidence_args, format, "FORMAT",
		     EXPORT_FORMAT_LIST " (above)"),
	  .complete = CLI_COMPLETE_WORDS("hyperfine hyperfine-csv hyperfine-markdown csv junit "
					 "json") },
	{ CLI_STRING('o', "out", struct evidence_args, out, "FILE",
		     "write to FILE instead of stdout (FILE must not exist, nor lie inside "
		     "evidence)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	EVIDENCE_PUBKEY_OPTION,
	{ CLI_END() },
};

const struct cli_command cmd_export = {
	.name = "export",
	.summary = "write the figures for other tools",
	.usage = export_usage,
	.about = export_about,
	.tail = export_tail,
	.options = export_options,
	.operands = "DIR",
	.max_operands = 1,
	.complete = CLI_COMPLETE_DIRS,
	.opts_size = sizeof(struct evidence_args),
	.fn = export_main,
};

static int compare_main(void *opts, size_t npos, char **pos)
{
	const struct evidence_args *a = opts;
	struct evidence_run old, new;
	char *err = NULL;
	int rc;

	if (npos != 2)
		return cli_usage_error("abev compare needs two evidence directories", cmd_compare.usage);
	rc = load_evidence(pos[0], a->pubkey, &old, NULL, NULL);
	if (rc)
		return rc;
	rc = load_evidence(pos[1], a->pubkey, &new, NULL, NULL);
	if (rc) {
		evidence_run_release(&old);
		return rc;
	}
	rc = EXIT_PASSED;
	{
		struct run_environment eo, en;
		char *eerr = NULL;
		int have = evidence_read_environment(pos[0], &eo, &eerr) == 0;
		free(eerr);
		eerr = NULL;
		if (have && evidence_read_environment(pos[1], &en, &eerr) == 0) {
			warn_runtime_diff(pos[0], &eo, pos[1], &en);
			evidence_environment_release(&en);
		}
		free(eerr);
		if (have)
			evidence_environment_release(&eo);
	}
	if (compare_runs(&old, &new, a->json, stdout, &err) < 0) {
		error("cannot compare '%s' with '%s': %s", pos[0], pos[1], err);
		free(err);
		rc = EXIT_USAGE;
	}
	evidence_run_release(&old);
	evidence_run_release(&new);
	return rc;
}

static const struct cli_option compare_options[] = {
	{ CLI_FLAG(0, "json", struct evidence_args, json, "print an abev.compare/1 document") },
	EVIDENCE_PUBKEY_OPTION,
	{ CLI_END() },
};

const struct cli_command cmd_compare = {
	.name = "compare",
	.summary = "compare two evidence directories",
	.usage = compare_usage,
	.about = compare_about,
	.tail = compare_tail,
	.options = compare_options,
	.operands = "OLD NEW",
	.max_operands = 2,
	.complete = CLI_COMPLETE_DIRS,
	.opts_size = sizeof(struct evidence_args),
	.fn = compare_main,
};

static int keygen_main(void *opts, size_t npos, char **pos)
{
	const struct evidence_args *a = opts;
	const char *prefix = a->out;
	char fp[SHA256_HEX_LEN + 1], *pass = NULL;
	int rc = EXIT_USAGE;

	(void)npos;
	(void)pos;
	if (!prefix || !*prefix)
		return cli_usage_error("no key prefix given", cmd_keygen.usage);
	if (outpath_check_evidence("--out", prefix) < 0)
		return EXIT_USAGE;
	if (signkey_passphrase(a->pass_file, a->pass_env, &pass) < 0)
		return EXIT_USAGE;
	if (signify_keygen(prefix, pass, fp) == 0) {
		char *shown = xstrdup_escaped(prefix);
		printf("private key: %s.key%s\npublic key:  %s.pub (signify), %s.pub.pem (openssl)\n"
		       "fingerprint: %s\n",
		       shown, pass ? " (passphrase-protected)" : "", shown, shown, fp);
		free(shown);
		rc = EXIT_PASSED;
	} else {
		rc = EXIT_RUNTIME;
	}
	signkey_passphrase_free(pass);
	return rc;
}

static const struct cli_option keygen_options[] = {
	{ CLI_STRING('o', "out", struct evidence_args, out, "PREFIX",
		     "write PREFIX.key, PREFIX.pub and PREFIX.pub.pem (none may exist)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_STRING(0, "passphrase-file", struct evidence_args, pass_file, "F",
		     "encrypt the key with a passphrase: the first line of F (never argv)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_STRING(0, "passphrase-env", struct evidence_args, pass_env, "VAR",
		     "encrypt the key with a passphrase: the value of $VAR (never argv)"),
	  .complete = CLI_COMPLETE_ENV },
	{ CLI_END() },
};

const struct cli_command cmd_keygen = {
	.name = "keygen",
	.summary = "make a signing key",
	.usage = keygen_usage,
	.about = keygen_about,
	.options = keygen_options,
	.opts_size = sizeof(struct evidence_args),
	.fn = keygen_main,
};

/* The signature line of abev verify. */
static void print_signature(const struct verify_result *res, const char *pubkey)
{
	if (pubkey && !res->signature_present)
		printf("signature:   MISSING: no SHA256.sig (sealed with --unsigned, or not "
		       "evidence as abev wrote it)\n");
	else if (pubkey)
		printf("signature:   %s\n", res->signature_ok ? "good" : "NOT VALID");
	else if (res->signature_present)
		printf("signature:   not checked: SHA256.sig is there, but no key was given (check "
		       "it with --pubkey KEY.pub)\n");
	else
		printf("signature:   none: the evidence is unsigned (no SHA256.sig)\n");
}

/*
 * The run the evidence records, for the verdict: "a run that failed",
 * and whether abev's files were changed while it ran. Caller frees.
 */
static char *recorded_run(const struct evidence_self *self)
{
	struct strbuf sb = STRBUF_INIT;

	if (!strcmp(self->status, "completed"))
		strbuf_adds(&sb, "a completed run");
	else if (!strcmp(self->status, "interrupted"))
		strbuf_addf(&sb, "a run that was interrupted%s%s%s", self->interrupt ? " (" : "",
			    self->interrupt ? self->interrupt : "", self->interrupt ? ")" : "");
	else if (!strcmp(self->status, "running"))
		strbuf_adds(&sb, "a run that had not ended");
	else
		strbuf_addf(&sb, "a run that %s", self->status);
	if (self->ntampered)
		strbuf_adds(&sb, "; abev's own files were changed while it ran (the tampered "
			    "lines above)");
	if (self->nunsealed)
		strbuf_addf(&sb, "; abev was interrupted while sealing it and left %zu path%s out "
			    "of the seal (result.json's \"unsealed\")", self->nunsealed,
			    self->nunsealed == 1 ? "" : "s");
	return strbuf_detach(&sb, NULL);
}

/*
 * What the evidence says of itself, once nothing is wrong with it: that
 * its bytes are what was sealed, then what the sealed record says — its
 * status, its decision, each note of a change to abev's files, and
 * whether its runs could reach those files (no run_as).
 */
static void print_self(const struct verify_result *res, const char *pubkey)
{
	char *shown;

	if (pubkey)
		printf("seal:        intact: the signature is good, and every file is as it was "
		       "sealed\n");
	else
		printf("seal:        intact: every file matches the manifest (no signature "
		       "checked)\n");
	if (!res->self_read) {
		shown = xstrdup_escaped(res->self_err);
		printf("record:      cannot be read: %s\n", shown);
		free(shown);
		return;
	}
	if (res->self.interrupt) {
		shown = xstrdup_escaped(res->self.interrupt);
		printf("status:      %s (%s)\n", res->self.status, shown);
		free(shown);
	} else {
		printf("status:      %s\n", res->self.status);
	}
	if (res->self.decision)
		printf("decision:    %s\n", res->self.decision);
	else
		printf("decision:    none: no comparison was made\n");
	if (!res->self.tampered_known)
		printf("tampered:    not recorded: an abev older than the \"tampered\" list of "
		       "result.json made this evidence (its notes may say more)\n");
	else if (!res->self.ntampered)
		printf("tampered:    none: abev's own files were as it wrote them\n");
	for (size_t i = 0; i < res->self.ntampered; i++) {
		shown = xstrdup_escaped(res->self.tampered[i]);
		printf("tampered:    %s\n", shown);
		free(shown);
	}
	/* As the report's signature line says it (templates/report.md, {{^run_as}}). */
	if (res->self.run_as_known && !res->self.run_as)
		printf("runs:        as abev's own user (no run_as): they could reach these files "
		       "while abev wrote them; signed as abev's record as far as that user is "
		       "trusted\n");
}

/*
 * The files abev verify accepted unhashed: not listed in SHA256, but
 * named (or a directory above them) by result.json's "unsealed", as
 * sealed. The first few by name.
 */
static void print_unsealed(const struct verify_result *res)
{
	printf("unsealed:    %zu file(s), %" PRIu64 " bytes, present but not hashed: abev was "
	       "interrupted while sealing (result.json names them): ", res->unsealed_files,
	       res->unsealed_bytes);
	for (size_t i = 0; i < res->nunsealed_names; i++)
		printf("%s%s", i ? ", " : "", res->unsealed_names[i]);
	printf("%s\n", res->unsealed_files > res->nunsealed_names ? ", ..." : "");
}

/* The verdict of abev verify, when nothing is wrong with the evidence. */
static void print_verdict_clean(const struct verify_result *res, const char *pubkey)
{
	const char *seal = pubkey ? "the evidence is as it was sealed"
				  : "the contents match the manifest (nobody vouches for them)";
	char *run;

	if (!res->self_read) {
		printf("verdict:     NOT CLEAN: %s, but what it records cannot be read\n", seal);
		return;
	}
	if (!evidence_self_clean(&res->self) || res->unsealed_files) {
		run = recorded_run(&res->self);
		printf("verdict:     NOT CLEAN: %s, but it records %s\n", seal, run);
		free(run);
	} else if (!pubkey) {
		printf("verdict:     UNSIGNED: contents match the manifest, but nobody vouches for "
		       "it\n");
	} else {
		printf("verdict:     verified\n");
	}
}

static int verify_main(void *opts, size_t npos, char **pos)
{
	const struct evidence_args *a = opts;
	const char *path = npos ? pos[0] : NULL, *pubkey = a->pubkey;
	struct verify_result res;
	char *shown;
	int rc;

	if (!path)
		return cli_usage_error("abev verify needs the evidence (a directory or a bundle)",
				       cmd_verify.usage);
	if (verify_with(path, pubkey, 1, &res))
		return EXIT_USAGE;
	shown = xstrdup_escaped(path);
	printf("evidence:    %s (%s)\n", shown, res.is_bundle ? "bundle" : "directory");
	free(shown);
	if (pubkey) {
		shown = xstrdup_escaped(pubkey);
		printf("key:         %s, fingerprint %s\n", shown, res.fingerprint);
		free(shown);
	} else
		printf("key:         none given\n");
	print_signature(&res, pubkey);
	printf("files:       %zu of %zu listed files match their SHA-256\n", res.files_checked,
	       res.files_listed);
	if (res.unsealed_files)
		print_unsealed(&res);
	for (size_t i = 0; i < res.nproblems; i++)
		printf("problem:     %s: %s\n", res.problems[i].file, res.problems[i].reason);
	if (!res.nproblems)
		print_self(&res, pubkey);
	if (res.unfinished)
		printf("verdict:     UNFINISHED: abev stopped while sealing this evidence; it "
		       "is not sealed\n");
	else if (res.nproblems)
		printf("verdict:     FAILED (%zu problem%s)\n", res.nproblems,
		       res.nproblems == 1 ? "" : "s");
	else
		print_verdict_clean(&res, pubkey);
	rc = cli_exit_verify(res.nproblems, res.self_read && evidence_self_clean(&res.self) &&
			     !res.unsealed_files, pubkey != NULL);
	verify_result_release(&res);
	return rc;
}

static const struct cli_option verify_options[] = {
	{ CLI_STRING('p', "pubkey", struct evidence_args, pubkey, "KEY.pub",
		     "check the signature against the signer's public key (PREFIX.pub, or "
		     "PREFIX.pub.pem); without it, the contents against SHA256 alone (exit 7 when "
		     "they match and the record is clean)"),
	  .complete = CLI_COMPLETE_FILES("*.pub *.pub.pem") },
	{ CLI_END() },
};

const struct cli_command cmd_verify = {
	.name = "verify",
	.summary = "check an evidence directory or bundle",
	.usage = verify_usage,
	.about = verify_about,
	.tail = verify_tail,
	.options = verify_options,
	.operands = "PATH",
	.max_operands = 1,
	.complete = CLI_COMPLETE_FILES("*.tar.zst *.tar.gz"),
	.opts_size = sizeof(struct evidence_args),
	.fn = verify_main,
};

/*
 * abev pack packs only what abev verify accepts, so that a bundle never
 * carries more, or other, than was sealed: DIR is checked against its
 * own manifest first. 0, or an exit code after the message.
 */
static int pack_check_sealed(const char *dir)
{
	struct verify_result res;
	struct stat st;
	int rc = 0;

	/* Not a directory: bundle_pack() says so in its own words. */
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (verify_path(dir, NULL, &res) < 0)
		return EXIT_USAGE;
	print_problems_stderr(&res);
	if (res.nproblems) {
		error("'%s' does not verify against its manifest (%zu problem%s): abev pack packs "
		      "only sealed evidence as it was sealed; nothing was written", dir,
		      res.nproblems, res.nproblems == 1 ? "" : "s");
		rc = EXIT_VERIFY;
	} else if (!res.signature_present) {
		char *shown = xstrdup_escaped(dir);
		fprintf(stderr, "abev: note: '%s' is unsigned (no SHA256.sig): its contents match "
			"its manifest, but nobody vouches for them\n", shown);
		free(shown);
	}
	if (!rc)
		note_unsealed(dir, &res);
	verify_result_release(&res);
	return rc;
}

static int pack_main(void *opts, size_t npos, char **pos)
{
	const struct evidence_args *a = opts;
	const char *dir = npos ? pos[0] : NULL, *out = a->out;
	char *shown;
	int rc;

	if (!dir || !out)
		return cli_usage_error("abev pack needs the evidence directory and --out",
				       cmd_pack.usage);
	if (outpath_check_evidence("--out", out) < 0)
		return EXIT_USAGE;
	if (bundle_check_target(out) < 0)
		return EXIT_RUNTIME;
	rc = pack_check_sealed(dir);
	if (rc)
		return rc;
	/*
	 * proc_setup(): SIGINT, SIGTERM, SIGHUP (and the rest of abev's
	 * interrupt signals) are recorded and stop the pack, which removes its
	 * temporary file; SIGXFSZ is ignored, so that a file-size limit fails
	 * the write (EFBIG) instead of killing abev with the file left behind.
	 */
	if (proc_setup() < 0)
		return EXIT_RUNTIME;
	if (bundle_pack_until(dir, out, proc_interrupted) < 0)
		return proc_interrupted() ? EXIT_SIGNAL_BASE + proc_interrupted() : EXIT_RUNTIME;
	shown = xstrdup_escaped(out);
	printf("bundle: %s\n", shown);
	free(shown);
	return EXIT_PASSED;
}

static const struct cli_option pack_options[] = {
	{ CLI_STRING('o', "out", struct evidence_args, out, "FILE",
		     "the bundle to write: FILE.tar.zst or FILE.tar.gz (must not exist)"),
	  .complete = CLI_COMPLETE_ANY_FILE },
	{ CLI_END() },
};

const struct cli_command cmd_pack = {
	.name = "pack",
	.summary = "pack evidence into a deterministic bundle",
	.usage = pack_usage,
	.about = pack_about,
	.tail = pack_tail,
	.options = pack_options,
	.operands = "DIR",
	.max_operands = 1,
	.complete = CLI_COMPLETE_DIRS,
	.opts_size = sizeof(struct evidence_args),
	.fn = pack_main,
};
