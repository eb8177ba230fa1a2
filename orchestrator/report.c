/*
 * report: turns one evidence directory's comparison and invocation
 * records into report.md. The layout lives in templates/report.md,
 * compiled into the binary; this file renders each {{section}} and
 * pastes it in. Every figure comes from the comparison (compare.c) or
 * the records as recorded — nothing is computed, measured, read from
 * disk or stamped with the current time here, so the same evidence
 * always gives the same report, and `abev report DIR` gives it again.
 * It does not decide what ran or whether the run passed.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "units.h"
#include "util.h"

/* Generated from templates/report.md by mk/embed.sh. */
extern const char report_template[];
extern const unsigned long report_template_len;

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

static int is_failure(enum inv_status st)
{
	return st != INV_OK && st != INV_DISCARDED;
}

#define MIB (1024.0 * 1024.0)
#define NS_PER_S 1e9

/* The three process measures of the invocations table, in seconds and MiB. */
enum measure { M_WALL, M_CPU, M_RSS };

static double measure_of(const struct invocation *inv, enum measure m)
{
	switch (m) {
	case M_WALL:
		return (double)inv->wall_ns / NS_PER_S;
	case M_CPU:
		return (double)(inv->user_ns + inv->sys_ns) / NS_PER_S;
	case M_RSS:
		break;
	}
	return (double)inv->max_rss_bytes / MIB;
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
	const char *ref = in->comparison ? in->comparison->reference
					 : in->nvariants ? in->variant_names[0] : NULL;

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
		if (ref && !strcmp(in->variant_names[i], ref))
			strbuf_adds(sb, " (reference)");
	}
	if (!in->nvariants)
		strbuf_adds(sb, "none");
	strbuf_addch(sb, '.');
}

/* Appends the text of summary.c's builders as Markdown text. */
typedef void (*words_fn)(struct strbuf *sb, const struct comparison *c);
static void md_words(struct strbuf *sb, words_fn fn, const struct comparison *c)
{
	struct strbuf w = STRBUF_INIT;
	fn(&w, c);
	md_text(sb, w.buf);
	strbuf_release(&w);
}

static void render_verdict(struct strbuf *sb, const struct report_input *in)
{
	const struct comparison *c = in->comparison;
	size_t shown = 0;

	if (!c) {
		strbuf_adds(sb, "No decision yet: the comparison is made once the run is over, "
			    "and abev had not finished when this was written.");
		return;
	}
	strbuf_adds(sb, "**Decision: ");
	md_words(sb, summary_decision, c);
	strbuf_adds(sb, ".**");
	for (size_t g = 0; g < c->ngates; g++) {
		if (c->gates[g].verdict == GATE_PASS)
			continue;
		strbuf_adds(sb, shown++ ? "\n- " : "\n\n- ");
		strbuf_adds(sb, c->gates[g].verdict == GATE_FAIL ? "**FAIL**: " : "inconclusive: ");
		md_text(sb, c->gates[g].reason);
		strbuf_addch(sb, '.');
	}
	strbuf_adds(sb, "\n\n");
	md_words(sb, summary_sample_size, c);
	if (!c->acceptance) {
		strbuf_adds(sb, "\n\n");
		md_text(sb, summary_acceptance_caveat(c));
	}
}

/* A value with its unit, or "n/a" when the sample is empty. */
static void cell_value(struct strbuf *sb, const struct cmp_metric *m, int has, double v)
{
	struct strbuf w = STRBUF_INIT;
	if (has)
		units_add(&w, v, m->unit);
	else
		strbuf_adds(&w, "n/a (no counted run)");
	md_text(sb, w.buf);
	strbuf_release(&w);
}

/*
 * One row per metric and variant of metrics [from, to): n, median,
 * range, change and ratio against the reference with its interval, and
 * the Mann–Whitney p-value.
 */
static void render_rows(struct strbuf *sb, const struct comparison *c, size_t from, size_t to)
{
	strbuf_adds(sb, "| Metric | Variant | n | Median | Min–max | Change | Ratio [CI] | p |\n"
		    "|---|---|---:|---:|---:|---:|---:|---:|");
	for (size_t m = from; m < to; m++) {
		const struct cmp_metric *cm = &c->metrics[m];
		for (size_t v = 0; v < cm->nsamples; v++) {
			const struct cmp_sample *s = &cm->samples[v];
			struct strbuf w = STRBUF_INIT;

			strbuf_adds(sb, "\n| ");
			md_text(sb, cm->name);
			strbuf_adds(sb, " | ");
			md_text(sb, s->variant);
			strbuf_addf(sb, " | %zu | ", s->n);
			cell_value(sb, cm, s->n > 0, s->median);
			strbuf_adds(sb, " | ");
			if (s->n) {
				cell_value(sb, cm, 1, s->min);
				strbuf_adds(sb, "–");
				cell_value(sb, cm, 1, s->max);
			} else {
				strbuf_adds(sb, "n/a");
			}
			strbuf_adds(sb, " | ");
			if (s->is_reference) {
				strbuf_adds(sb, "reference | reference | |");
				continue;
			}
			if (s->has_change)
				units_add_pct(&w, s->change_pct);
			else
				strbuf_addf(&w, "n/a (%s)", s->change_note);
			md_text(sb, w.buf);
			strbuf_reset(&w);
			strbuf_adds(sb, " | ");
			if (s->has_change) {
				strbuf_addf(&w, "%.3f", s->ratio);
				if (s->has_ci)
					strbuf_addf(&w, " [%.3f, %.3f]", s->ci_lo, s->ci_hi);
				else
					strbuf_addf(&w, " (no interval: %s)", s->ci_note);
			} else {
				strbuf_adds(&w, "n/a");
			}
			md_text(sb, w.buf);
			strbuf_reset(&w);
			strbuf_adds(sb, " | ");
			if (s->has_mw)
				strbuf_addf(&w, "%.3g", s->mw_p);
			else
				strbuf_addf(&w, "n/a (%s)", s->mw_note);
			md_text(sb, w.buf);
			strbuf_adds(sb, " |");
			strbuf_release(&w);
		}
	}
}

/* Where the built-in metrics end: compare.c puts them first. */
#define BUILTIN_METRICS 3

static void render_summary(struct strbuf *sb, const struct report_input *in)
{
	if (!in->comparison) {
		strbuf_adds(sb, "Not computed yet (the run had not finished).");
		return;
	}
	render_rows(sb, in->comparison, 0, BUILTIN_METRICS);
}

static void render_summary_note(struct strbuf *sb, const struct report_input *in)
{
	const struct comparison *c = in->comparison;

	strbuf_adds(sb, "Counted: recorded runs whose process exited and whose process and test "
		    "guards passed (a metric a run did not yield is left out of that metric "
		    "alone). Warmups, discarded and failed invocations are left out. wall is the "
		    "child's monotonic wall time, cpu its user + system time, max_rss its maximum "
		    "resident set as wait4() reports it (the largest single process of its tree, "
		    "not a sum). Change compares each median with the reference's; the ratio's "
		    "interval is a bootstrap percentile interval");
	if (c)
		strbuf_addf(sb, " (%d%%, %u resamples, seed %llu)",
			    (int)(c->confidence * 100 + 0.5), c->resamples,
			    (unsigned long long)c->seed);
	strbuf_adds(sb, "; p is the exact two-sided Mann–Whitney p-value of the two samples.");
}

static void render_metrics(struct strbuf *sb, const struct report_input *in)
{
	const struct comparison *c = in->comparison;

	if (!c) {
		strbuf_adds(sb, "Not computed yet (the run had not finished).");
		return;
	}
	if (c->nmetrics <= BUILTIN_METRICS) {
		strbuf_adds(sb, "The plan defines no metric of its own.");
		return;
	}
	render_rows(sb, c, BUILTIN_METRICS, c->nmetrics);
}

static void render_gates(struct strbuf *sb, const struct report_input *in)
{
	const struct comparison *c = in->comparison;

	if (!c) {
		strbuf_adds(sb, "Not judged yet (the run had not finished).");
		return;
	}
	if (!c->ngates) {
		strbuf_adds(sb, "The plan sets no gate: no decision is made.");
		return;
	}
	strbuf_adds(sb, "| Metric | Variant | Gate | Limit | Observed [interval] | Verdict |\n"
		    "|---|---|---|---:|---:|---|");
	for (size_t g = 0; g < c->ngates; g++) {
		const struct cmp_gate *gt = &c->gates[g];
		const struct cmp_metric *cm = NULL;
		struct strbuf w = STRBUF_INIT;

		for (size_t m = 0; m < c->nmetrics && !cm; m++)
			if (!strcmp(c->metrics[m].name, gt->metric))
				cm = &c->metrics[m];
		strbuf_adds(sb, "\n| ");
		md_text(sb, gt->metric);
		strbuf_adds(sb, " | ");
		md_text(sb, gt->variant);
		strbuf_adds(sb, " | ");
		md_text(sb, gate_kind_name(gt->kind));
		strbuf_adds(sb, " | ");
		if (cm)
			summary_gate_limit(&w, cm, gt);
		else
			strbuf_addf(&w, "%g", gt->limit);
		md_text(sb, w.buf);
		strbuf_reset(&w);
		strbuf_adds(sb, " | ");
		if (!gt->has_observed)
			strbuf_adds(&w, "n/a");
		else if (gt->kind == GATE_BUDGET && cm)
			units_add(&w, gt->observed, cm->unit);
		else
			units_add_pct(&w, gt->observed);
		if (gt->has_interval && gt->kind == GATE_BUDGET && cm) {
			strbuf_adds(&w, " [");
			units_add(&w, gt->lo, cm->unit);
			strbuf_adds(&w, ", ");
			units_add(&w, gt->hi, cm->unit);
			strbuf_adds(&w, "]");
		} else if (gt->has_interval) {
			strbuf_adds(&w, " [");
			units_add_pct(&w, gt->lo);
			strbuf_adds(&w, ", ");
			units_add_pct(&w, gt->hi);
			strbuf_adds(&w, "]");
		}
		md_text(sb, w.buf);
		strbuf_addf(sb, " | %s |", gt->verdict == GATE_FAIL ? "**FAIL**"
					   : gt->verdict == GATE_PASS ? "pass" : "inconclusive");
		strbuf_release(&w);
	}
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
	for (size_t i = 0; in->comparison && i < in->comparison->nwarnings; i++) {
		strbuf_adds(sb, i || in->nnotes ? "\n- " : "\n\n- ");
		md_text(sb, in->comparison->warnings[i]);
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
	if (!in->signed_evidence) {
		/* Only what can pass: abev verify needs a signature to check. */
		strbuf_adds(sb, "This evidence is unsigned: only the hashes can be checked, which "
			    "shows that nothing changed by accident, not that nobody changed it. "
			    "From inside the directory: the hashes,\n\n```sh\n");
	} else {
		strbuf_adds(sb, "With abev (checks the signature, every hash, that no listed file "
			    "is missing, that no file is unlisted, and that there is no link or "
			    "special file):\n\n```sh\n");
		strbuf_addf(sb, "abev verify %s --pubkey %s\n```\n\n", qdir.buf, qkey.buf);
		strbuf_adds(sb, "Without abev, from inside the directory: the hashes,\n\n```sh\n");
	}
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
	if (in->plan_path && in->plan_sha256) {
		strbuf_adds(sb, "The plan: `");
		md_text(sb, in->plan_path);
		strbuf_adds(sb, "`, SHA-256 `");
		md_text(sb, in->plan_sha256);
		strbuf_adds(sb, "` (its bytes are this evidence's `plan.json`). ");
	}
	strbuf_adds(sb, in->reproduce_cwd ? "From the directory abev ran in:\n\n"
					  : "The command:\n\n");
	fence = longest_backticks(in->reproduce) + 1;
	if (fence < 3)
		fence = 3;
	for (size_t i = 0; i < fence; i++)
		strbuf_addch(sb, '`');
	strbuf_adds(sb, "sh\n");
	if (in->reproduce_cwd) {
		struct strbuf q = STRBUF_INIT;
		sh_quote(&q, in->reproduce_cwd);
		strbuf_addf(sb, "cd %s\n", q.buf);
		strbuf_release(&q);
	}
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
		{ "verdict", STRBUF_INIT },
		{ "gates_table", STRBUF_INIT },
	};
	struct strbuf out = STRBUF_INIT;

	md_text(&secs[0].text, in->plan_name && *in->plan_name ? in->plan_name : "unnamed plan");
	render_status(&secs[1].text, in);
	render_schedule(&secs[2].text, in);
	render_summary(&secs[3].text, in);
	render_summary_note(&secs[4].text, in);
	render_invocations(&secs[5].text, in);
	render_notes(&secs[6].text, in);
	render_reproduce(&secs[7].text, in);
	render_metrics(&secs[8].text, in);
	render_tests(&secs[9].text, in);
	render_banner(&secs[10].text, in);
	render_verify(&secs[11].text, in);
	render_verdict(&secs[12].text, in);
	render_gates(&secs[13].text, in);

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
