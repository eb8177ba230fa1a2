/*
 * report: turns the recorded invocations of one evidence directory into
 * report.md. The layout lives in templates/report.md, compiled into the
 * binary; this file computes each {{section}} and pastes it in. Every
 * number comes from the invocations handed in — nothing is measured,
 * read from disk or stamped with the current time here, so the same
 * evidence always gives the same report. It does not decide what ran or
 * whether the run passed.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* Generated from templates/report.md by mk/embed.sh. */
extern const char report_template[];
extern const unsigned long report_template_len;

#define MIB (1024.0 * 1024.0)
#define NS_PER_S 1e9
/* Below this many samples per variant no change is worth more than a look. */
#define REPORT_MIN_SAMPLES 5
/* A placeholder name longer than this is not a placeholder. */
#define PLACEHOLDER_MAX 32

struct section {
	const char *name;
	struct strbuf text;
};

/*
 * Appends s as inline Markdown text: control characters (a newline would
 * end a table row) become blanks, and the characters that would start
 * markup or split a table cell are backslash-escaped.
 */
static void md_text(struct strbuf *sb, const char *s)
{
	if (!s)
		return;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f) {
			strbuf_addch(sb, ' ');
			continue;
		}
		if (strchr("\\|*_`<>[]", c))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, (char)c);
	}
}

static int counted(const struct invocation *inv)
{
	return !inv->warmup && inv->status == INV_OK;
}

static int is_failure(enum inv_status st)
{
	return st != INV_OK && st != INV_DISCARDED;
}

/* The three measures the summary compares, in seconds and MiB. */
enum measure { M_WALL, M_CPU, M_RSS, M_COUNT };

static double measure_of(const struct invocation *inv, enum measure m)
{
	switch (m) {
	case M_WALL:
		return (double)inv->wall_ns / NS_PER_S;
	case M_CPU:
		return (double)(inv->user_ns + inv->sys_ns) / NS_PER_S;
	case M_RSS:
	case M_COUNT:
		break;
	}
	return (double)inv->max_rss_bytes / MIB;
}

/* Decimals shown: milliseconds for times, a tenth of a MiB for memory. */
static const int measure_decimals[M_COUNT] = { 3, 3, 1 };

static void summarise(const struct report_input *in, const char *variant, enum measure m,
		      struct summary *out)
{
	double *v = xcalloc(in->ninvs ? in->ninvs : 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < in->ninvs; i++) {
		const struct invocation *inv = &in->invs[i];

		if (counted(inv) && inv->variant && !strcmp(inv->variant, variant))
			v[n++] = measure_of(inv, m);
	}
	stats_summary(v, n, out);
	free(v);
}

static void add_change(struct strbuf *sb, const struct summary *ref, const struct summary *s,
		       int is_ref)
{
	double pct;
	int valid;

	if (is_ref) {
		strbuf_adds(sb, " reference |");
		return;
	}
	if (!ref->n || !s->n) {
		strbuf_adds(sb, " n/a |");
		return;
	}
	pct = stats_change_pct(ref->median, s->median, &valid);
	if (!valid)
		strbuf_adds(sb, " n/a |");
	else if (pct > -0.05 && pct < 0.05)
		strbuf_adds(sb, " +0.0% |");
	else
		strbuf_addf(sb, " %+.1f%% |", pct);
}

static void render_status(struct strbuf *sb, const struct report_input *in)
{
	const char *status = in->status ? in->status : "unknown";

	strbuf_adds(sb, "- Status: ");
	md_text(sb, status);
	if (!strcmp(status, "running"))
		strbuf_adds(sb, " (abev had not finished when this was written, or was killed)");
	strbuf_adds(sb, "\n- Started (UTC): ");
	md_text(sb, in->started_utc && *in->started_utc ? in->started_utc : "unknown");
	strbuf_adds(sb, "\n- Ended (UTC): ");
	md_text(sb, in->ended_utc && *in->ended_utc ? in->ended_utc : "not ended");
}

static void render_schedule(struct strbuf *sb, const struct report_input *in)
{
	strbuf_adds(sb, "Order ");
	md_text(sb, in->order ? in->order : "unknown");
	strbuf_addf(sb, "; %u warmup round%s and %u recorded run%s per variant; "
		    "gap %g s between invocations.\n\nVariants: ",
		    in->warmups, in->warmups == 1 ? "" : "s", in->runs, in->runs == 1 ? "" : "s",
		    in->gap_seconds);
	for (size_t i = 0; i < in->nvariants; i++) {
		if (i)
			strbuf_adds(sb, ", ");
		md_text(sb, in->variant_names[i]);
		if (i == 0)
			strbuf_adds(sb, " (reference)");
	}
	if (!in->nvariants)
		strbuf_adds(sb, "none");
	strbuf_addch(sb, '.');
}

static void render_summary(struct strbuf *sb, const struct report_input *in)
{
	struct summary ref[M_COUNT];

	strbuf_adds(sb, "| Variant | n | Wall median (s) | Wall min–max (s) | CPU median (s) "
		    "| CPU min–max (s) | Peak RSS median (MiB) | Peak RSS min–max (MiB) "
		    "| Wall change | CPU change | Peak RSS change |\n"
		    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
	memset(ref, 0, sizeof(ref));
	for (size_t i = 0; i < in->nvariants; i++) {
		struct summary s[M_COUNT];

		for (int m = 0; m < M_COUNT; m++)
			summarise(in, in->variant_names[i], (enum measure)m, &s[m]);
		if (i == 0)
			memcpy(ref, s, sizeof(ref));
		strbuf_adds(sb, "\n| ");
		md_text(sb, in->variant_names[i]);
		strbuf_addf(sb, " | %zu |", s[M_WALL].n);
		for (int m = 0; m < M_COUNT; m++) {
			if (!s[m].n) {
				strbuf_adds(sb, " n/a | n/a |");
				continue;
			}
			strbuf_addf(sb, " %.*f | %.*f–%.*f |", measure_decimals[m], s[m].median,
				    measure_decimals[m], s[m].min, measure_decimals[m], s[m].max);
		}
		for (int m = 0; m < M_COUNT; m++)
			add_change(sb, &ref[m], &s[m], i == 0);
	}
}

static void render_summary_note(struct strbuf *sb)
{
	strbuf_addf(sb, "Counted: recorded runs with status ok. Warmups, discarded and failed "
		    "invocations are left out. CPU is user + system time; peak RSS is the "
		    "child's maximum resident set as wait4() reports it (the largest single "
		    "process of its tree, not a sum). Changes compare "
		    "each median with the first variant's. With fewer than %d samples per "
		    "variant a change is an observation, not a significance claim.",
		    REPORT_MIN_SAMPLES);
}

static void add_exit(struct strbuf *sb, const struct invocation *inv)
{
	if (inv->signal > 0)
		strbuf_addf(sb, "signal %d%s", inv->signal, inv->core_dumped ? " (core)" : "");
	else if (inv->exit_code >= 0)
		strbuf_addf(sb, "exit %d", inv->exit_code);
	else
		strbuf_adds(sb, "n/a");
}

static void render_invocations(struct strbuf *sb, const struct report_input *in)
{
	strbuf_adds(sb, "| Seq | Variant | Phase | Round | Attempt | Status | Wall (s) | CPU (s) "
		    "| Peak RSS (MiB) | Foreign CPU (cores) | Exit/signal | Directory |\n"
		    "|---:|---|---|---:|---:|---|---:|---:|---:|---:|---|---|");
	for (size_t i = 0; i < in->ninvs; i++) {
		const struct invocation *inv = &in->invs[i];

		strbuf_addf(sb, "\n| %u | ", inv->seq);
		md_text(sb, inv->variant);
		strbuf_addf(sb, " | %s | %u | %u | %s | %.3f | %.3f | %.1f | ",
			    inv->warmup ? "warmup" : "run", inv->round, inv->attempt,
			    inv_status_name(inv->status), measure_of(inv, M_WALL),
			    measure_of(inv, M_CPU), measure_of(inv, M_RSS));
		if (inv->foreign_cpu < 0)
			strbuf_adds(sb, "n/a");
		else
			strbuf_addf(sb, "%.2f", inv->foreign_cpu);
		strbuf_adds(sb, " | ");
		add_exit(sb, inv);
		strbuf_adds(sb, " | ");
		md_text(sb, inv->dir);
		strbuf_adds(sb, " |");
	}
	if (!in->ninvs)
		strbuf_adds(sb, "\n\nNo invocation was recorded.");
}

/* Appends s quoted for sh: bare when it is made of safe characters, else in single quotes. */
static void sh_quote(struct strbuf *sb, const char *s)
{
	const char *p;
	for (p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-./:=+@%,", *p))
			break;
	if (!*p && *s) {
		strbuf_adds(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (p = s; *p; p++) {
		if (*p == '\'')
			strbuf_adds(sb, "'\\''");
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			strbuf_addch(sb, '?');
		else
			strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '\'');
}

/*
 * A metric value: six significant digits, but whole numbers for large
 * values (byte counts read badly as 1.57901e+07).
 */
static void add_number(struct strbuf *sb, double v)
{
	if (v >= 1e4 || v <= -1e4)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.6g", v);
}

/* Metric names in order of first appearance over the invocations. */
static size_t metric_names(const struct report_input *in, const char ***names)
{
	size_t n = 0, alloc = 0;
	*names = NULL;
	for (size_t i = 0; i < in->ninvs; i++) {
		for (size_t k = 0; k < in->invs[i].nmetrics; k++) {
			const char *name = in->invs[i].metrics[k].name;
			size_t j;
			for (j = 0; j < n && strcmp((*names)[j], name); j++)
				;
			if (j < n)
				continue;
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 8;
				*names = xrealloc(*names, alloc * sizeof(**names));
			}
			(*names)[n++] = name;
		}
	}
	return n;
}

/* The metric called name in inv, or NULL. */
static const struct metric_value *metric_of(const struct invocation *inv, const char *name)
{
	for (size_t k = 0; k < inv->nmetrics; k++)
		if (!strcmp(inv->metrics[k].name, name))
			return &inv->metrics[k];
	return NULL;
}

static void summarise_metric(const struct report_input *in, const char *variant,
			     const char *name, struct summary *out,
			     const struct metric_value **def)
{
	double *v = xcalloc(in->ninvs ? in->ninvs : 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < in->ninvs; i++) {
		const struct invocation *inv = &in->invs[i];
		const struct metric_value *m = metric_of(inv, name);

		if (m && !*def)
			*def = m;
		if (m && m->ok && counted(inv) && !strcmp(inv->variant, variant))
			v[n++] = m->value;
	}
	stats_summary(v, n, out);
	free(v);
}

/*
 * One row per metric and variant: median, range, change against the
 * reference variant, and the verdict against the metric's regression
 * limit, in the metric's own "better" direction.
 */
static void render_metrics(struct strbuf *sb, const struct report_input *in)
{
	const char **names;
	size_t n = metric_names(in, &names);

	if (!n) {
		strbuf_adds(sb, "No metric was recorded (the plan defines none, or no recorded "
			    "run yielded one).");
		return;
	}
	strbuf_adds(sb, "| Metric | Unit | Better | Variant | n | Median | Min–max | Change "
		    "| Limit | Verdict |\n|---|---|---|---|---:|---:|---:|---:|---:|---|");
	for (size_t k = 0; k < n; k++) {
		struct summary ref = { 0, 0, 0, 0 };
		for (size_t i = 0; i < in->nvariants; i++) {
			const struct metric_value *def = NULL;
			struct summary s;
			double pct = 0;
			int valid = 0;

			summarise_metric(in, in->variant_names[i], names[k], &s, &def);
			if (i == 0)
				ref = s;
			strbuf_adds(sb, "\n| ");
			md_text(sb, names[k]);
			strbuf_adds(sb, " | ");
			md_text(sb, def && def->unit ? def->unit : "");
			strbuf_addf(sb, " | %s | ", def && def->better_higher ? "higher" : "lower");
			md_text(sb, in->variant_names[i]);
			strbuf_addf(sb, " | %zu |", s.n);
			if (s.n) {
				strbuf_addch(sb, ' ');
				add_number(sb, s.median);
				strbuf_adds(sb, " | ");
				add_number(sb, s.min);
				strbuf_adds(sb, "–");
				add_number(sb, s.max);
				strbuf_adds(sb, " |");
			} else
				strbuf_adds(sb, " n/a | n/a |");
			add_change(sb, &ref, &s, i == 0);
			if (i != 0 && ref.n && s.n)
				pct = stats_change_pct(ref.median, s.median, &valid);
			if (!def || def->max_regression_pct < 0)
				strbuf_adds(sb, " none |");
			else
				strbuf_addf(sb, " %g%% |", def->max_regression_pct);
			if (i == 0) {
				strbuf_adds(sb, " reference |");
			} else if (!valid) {
				strbuf_adds(sb, " n/a |");
			} else {
				double worse = def && def->better_higher ? -pct : pct;
				if (def && def->max_regression_pct >= 0 && worse > def->max_regression_pct)
					strbuf_addf(sb, " REGRESSION: %.1f%% worse |", worse);
				else if (worse > 0)
					strbuf_addf(sb, " %.1f%% worse |", worse);
				else
					strbuf_addf(sb, " %.1f%% better |", -worse);
			}
		}
	}
	free(names);
}

static const char *verdict_word(enum guard_verdict v)
{
	switch (v) {
	case GUARD_PASS: return "pass";
	case GUARD_FAIL: return "FAIL";
	case GUARD_UNCHECKED: return "unchecked";
	}
	return "?";
}

static void render_tests(struct strbuf *sb, const struct report_input *in)
{
	int any = 0;
	for (size_t i = 0; i < in->ninvs && !any; i++)
		any = in->invs[i].has_tests || in->invs[i].nguards;
	if (!any) {
		strbuf_adds(sb, "No test results were read and no guard ran.");
		return;
	}
	strbuf_adds(sb, "| Seq | Variant | Phase | Round | Tests | Executed | Passed | Failed "
		    "| Errors | Skipped | Guards |\n|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
	for (size_t i = 0; i < in->ninvs; i++) {
		const struct invocation *inv = &in->invs[i];
		const struct results_counts *c = &inv->tests;

		strbuf_addf(sb, "\n| %u | ", inv->seq);
		md_text(sb, inv->variant);
		strbuf_addf(sb, " | %s | %u |", inv->warmup ? "warmup" : "run", inv->round);
		if (inv->has_tests)
			strbuf_addf(sb, " %lld | %lld | %lld | %lld | %lld | %lld |",
				    (long long)c->total, (long long)c->executed,
				    (long long)c->passed, (long long)c->failed,
				    (long long)c->errors, (long long)c->skipped);
		else
			strbuf_adds(sb, " n/a | n/a | n/a | n/a | n/a | n/a |");
		strbuf_addch(sb, ' ');
		for (size_t k = 0; k < inv->nguards; k++) {
			if (k)
				strbuf_adds(sb, ", ");
			md_text(sb, inv->guards[k].guard);
			strbuf_addf(sb, " %s", verdict_word(inv->guards[k].verdict));
		}
		if (!inv->nguards)
			strbuf_adds(sb, "none");
		strbuf_adds(sb, " |");
	}
}

static void render_notes(struct strbuf *sb, const struct report_input *in)
{
	size_t warmups = 0, discarded = 0, failed = 0;

	for (size_t i = 0; i < in->ninvs; i++) {
		warmups += in->invs[i].warmup != 0;
		discarded += in->invs[i].status == INV_DISCARDED;
		failed += is_failure(in->invs[i].status);
	}
	strbuf_addf(sb, "Invocations: %zu (%zu warmup, %zu recorded). Discarded for foreign "
		    "load: %zu. Failed (failed, timed_out, exec_failed or interrupted): %zu.",
		    in->ninvs, warmups, in->ninvs - warmups, discarded, failed);
	for (size_t i = 0; i < in->nnotes; i++) {
		strbuf_adds(sb, i ? "\n- " : "\n\n- ");
		md_text(sb, in->notes[i]);
	}
	if (!discarded && !failed)
		return;
	strbuf_adds(sb, "\n");
	for (size_t i = 0; i < in->ninvs; i++) {
		const struct invocation *inv = &in->invs[i];
		const char *why = inv->reason ? inv->reason : inv->exec_error;

		if (inv->status == INV_OK)
			continue;
		strbuf_addf(sb, "\n- seq %u, ", inv->seq);
		md_text(sb, inv->variant);
		strbuf_addf(sb, " %s %u attempt %u, %s: ", inv->warmup ? "warmup" : "run",
			    inv->round, inv->attempt, inv_status_name(inv->status));
		md_text(sb, why ? why : "no reason recorded");
	}
}

static void render_banner(struct strbuf *sb, const struct report_input *in)
{
	if (in->signed_evidence)
		strbuf_adds(sb, "Signed: `SHA256` lists every file of this evidence with its "
			    "SHA-256 and `SHA256.sig` is its Ed25519 signature (see the end of "
			    "this report to check both).");
	else
		strbuf_adds(sb, "**UNSIGNED.** `SHA256` lists every file of this evidence with its "
			    "SHA-256, but nobody signed it: anyone could have rewritten both. "
			    "Run with `--key` to sign.");
}

/*
 * The commands that check this evidence, with abev and without it. The
 * directory and key names are quoted for sh; the openssl steps take the
 * raw 64-byte signature out of SHA256.sig (line 2 is base64 of "Ed", the
 * 8-byte key number and the signature; the signed message follows it).
 */
static void render_verify(struct strbuf *sb, const struct report_input *in)
{
	const char *dir = in->evidence_dir && *in->evidence_dir ? in->evidence_dir : "DIR";
	const char *key = in->pubkey && *in->pubkey ? in->pubkey : "KEY.pub";
	struct strbuf qdir = STRBUF_INIT, qkey = STRBUF_INIT, qpem = STRBUF_INIT;
	char *pem = xasprintf("%s.pem", key);

	sh_quote(&qdir, dir);
	sh_quote(&qkey, key);
	sh_quote(&qpem, pem);
	if (!in->signed_evidence)
		strbuf_adds(sb, "This evidence is unsigned: only the hashes can be checked, which "
			    "shows that nothing changed by accident, not that nobody changed it.\n\n");
	strbuf_adds(sb, "With abev (checks the signature, every hash, that no listed file is "
		    "missing, that no file is unlisted, and that there is no link or special "
		    "file):\n\n```sh\n");
	strbuf_addf(sb, "abev verify %s --pubkey %s\n```\n\n", qdir.buf, qkey.buf);
	strbuf_adds(sb, "Without abev, from inside the directory: the hashes,\n\n```sh\n");
	strbuf_addf(sb, "cd %s\nsha256sum -c --strict SHA256\n```\n\n", qdir.buf);
	if (in->signed_evidence) {
		strbuf_adds(sb, "the signature with OpenBSD signify (which also checks every hash "
			    "it lists),\n\n```sh\n");
		strbuf_addf(sb, "signify-openbsd -C -p %s -x SHA256.sig\n```\n\n", qkey.buf);
		strbuf_adds(sb, "the signature with OpenSSL: line 2 of SHA256.sig is base64 of "
			    "\"Ed\", an 8-byte key number and the 64-byte signature; the signed "
			    "message is everything after line 2 and must equal SHA256,\n\n```sh\n");
		strbuf_adds(sb, "sed -n 2p SHA256.sig | base64 -d | tail -c 64 > /tmp/abev-sig.raw\n"
			    "tail -n +3 SHA256.sig > /tmp/abev-msg\n"
			    "cmp /tmp/abev-msg SHA256\n");
		strbuf_addf(sb, "openssl pkeyutl -verify -pubin -inkey %s -rawin "
			    "-in /tmp/abev-msg -sigfile /tmp/abev-sig.raw\n```\n\n", qpem.buf);
	}
	strbuf_adds(sb, "and, in bash, that the manifest names every file and nothing else is "
		    "there (prints nothing when complete):\n\n```sh\n"
		    "find . \\( -type f -o -type d \\) -o -printf 'special: %P\\n'; "
		    "find . -type f ! -path ./SHA256 ! -path ./SHA256.sig -printf '%P\\n' | "
		    "LC_ALL=C sort | LC_ALL=C comm -23 - "
		    "<(sed -n 's/^SHA256 (\\(.*\\)) = [0-9a-f]\\{64\\}$/\\1/p' SHA256)\n```");
	strbuf_release(&qdir);
	strbuf_release(&qkey);
	strbuf_release(&qpem);
	free(pem);
}

/* Longest run of backticks in s, so that a fence around s can be longer. */
static size_t longest_backticks(const char *s)
{
	size_t best = 0, cur = 0;

	for (; *s; s++) {
		cur = *s == '`' ? cur + 1 : 0;
		if (cur > best)
			best = cur;
	}
	return best;
}

static void render_reproduce(struct strbuf *sb, const struct report_input *in)
{
	size_t fence;

	if (!in->reproduce || !*in->reproduce) {
		strbuf_adds(sb, "The command line was not recorded.");
		return;
	}
	fence = longest_backticks(in->reproduce) + 1;
	if (fence < 3)
		fence = 3;
	for (size_t i = 0; i < fence; i++)
		strbuf_addch(sb, '`');
	strbuf_adds(sb, "sh\n");
	strbuf_adds(sb, in->reproduce);
	strbuf_addch(sb, '\n');
	for (size_t i = 0; i < fence; i++)
		strbuf_addch(sb, '`');
}

/*
 * Replaces each {{name}} of tmpl with its section. An unknown name is a
 * bug in the template; it is copied through unchanged so that the unit
 * test, which looks for any "{{" left in the output, catches it.
 */
static void fill_template(struct strbuf *out, const char *tmpl, size_t len,
			  const struct section *secs, size_t nsecs)
{
	size_t i = 0;

	while (i < len) {
		const char *open = i + 1 < len ? strstr(tmpl + i, "{{") : NULL;
		const char *close;
		const struct section *hit = NULL;
		size_t name_len;

		if (!open || (size_t)(open - tmpl) >= len) {
			strbuf_add(out, tmpl + i, len - i);
			break;
		}
		strbuf_add(out, tmpl + i, (size_t)(open - tmpl) - i);
		i = (size_t)(open - tmpl) + 2;
		close = strstr(open + 2, "}}");
		name_len = close ? (size_t)(close - open - 2) : 0;
		if (close && name_len <= PLACEHOLDER_MAX) {
			for (size_t k = 0; k < nsecs && !hit; k++)
				if (strlen(secs[k].name) == name_len &&
				    !memcmp(secs[k].name, open + 2, name_len))
					hit = &secs[k];
		}
		if (!hit) {
			strbuf_adds(out, "{{");
			continue;
		}
		strbuf_add(out, hit->text.buf, hit->text.len);
		i += name_len + 2;
	}
}

char *report_render(const struct report_input *in)
{
	struct section secs[] = {
		{ "title", STRBUF_INIT },
		{ "status_line", STRBUF_INIT },
		{ "schedule", STRBUF_INIT },
		{ "summary_table", STRBUF_INIT },
		{ "summary_note", STRBUF_INIT },
		{ "invocations_table", STRBUF_INIT },
		{ "notes", STRBUF_INIT },
		{ "reproduce", STRBUF_INIT },
		{ "metrics_table", STRBUF_INIT },
		{ "tests_table", STRBUF_INIT },
		{ "signature_banner", STRBUF_INIT },
		{ "verify", STRBUF_INIT },
	};
	struct strbuf out = STRBUF_INIT;

	md_text(&secs[0].text, in->plan_name && *in->plan_name ? in->plan_name : "unnamed plan");
	render_status(&secs[1].text, in);
	render_schedule(&secs[2].text, in);
	render_summary(&secs[3].text, in);
	render_summary_note(&secs[4].text);
	render_invocations(&secs[5].text, in);
	render_notes(&secs[6].text, in);
	render_reproduce(&secs[7].text, in);
	render_metrics(&secs[8].text, in);
	render_tests(&secs[9].text, in);
	render_banner(&secs[10].text, in);
	render_verify(&secs[11].text, in);

	fill_template(&out, report_template, (size_t)report_template_len, secs, ARRAY_SIZE(secs));
	for (size_t k = 0; k < ARRAY_SIZE(secs); k++)
		strbuf_release(&secs[k].text);
	return strbuf_detach(&out, NULL);
}

int report_write(const char *root, const struct report_input *in)
{
	char *text = report_render(in);
	char *path = path_join(root, "report.md");
	int ret = write_file_atomic(path, text, strlen(text));

	free(path);
	free(text);
	return ret;
}
