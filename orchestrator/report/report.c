/*
 * report: turns one evidence directory's comparison, invocation records
 * and environment into report.md. The words and the layout live in
 * templates/report.md (compiled into the binary); this file only sets
 * the template's values, one function per section of the report. Every
 * figure comes from the comparison (compare.c), the records or
 * metadata.json as recorded — nothing is computed, measured, read from
 * disk or stamped with the current time here, so the same evidence
 * always gives the same report, and `abev report DIR` gives it again.
 * It does not decide what ran or whether the run passed.
 */
#include "report/report.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/envname.h"
#include "evidence/ledger.h"
#include "report/contention.h"
#include "report/plots.h"
#include "report/reason_words.h"
#include "report/summary.h"
#include "report/template.h"
#include "report/versions_side.h"
#include "decide/units.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/dirat.h"
#include "util/escape.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* Generated from templates/report.md by mk/embed.sh. */
extern const char report_template[];
extern const unsigned long report_template_len;

/* Names of failed tests listed per invocation; the report points at result.json for the rest. */
#define REPORT_FAILED_NAMES 10

/* A value built with a strbuf, then set: the buffer is released. */
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

/*
 * name: s as a Markdown code span, inserted as it is ({{{name}}}): inside
 * a code span nothing is escaped for Markdown (a backslash would show),
 * so the fence is longer than any run of backticks in s, a space pads an
 * s that starts or ends with one, and only what a reader must not be
 * fooled by — a line break, a control or bidirectional character — is
 * shown escaped, as everywhere else.
 */
static void set_code(struct template_ctx *c, const char *name, const char *s)
{
	struct strbuf sb = STRBUF_INIT, body = STRBUF_INIT;
	size_t fence;
	int pad;

	if (!s) {
		template_set(c, name, NULL);
		return;
	}
	strbuf_add_escaped_line(&body, s, strlen(s));
	fence = longest_backticks(body.buf) + 1;
	pad = body.len && (body.buf[0] == '`' || body.buf[body.len - 1] == '`' || body.buf[0] == ' ');
	for (size_t i = 0; i < fence; i++)
		strbuf_addch(&sb, '`');
	if (pad)
		strbuf_addch(&sb, ' ');
	strbuf_add(&sb, body.buf, body.len);
	if (pad)
		strbuf_addch(&sb, ' ');
	for (size_t i = 0; i < fence; i++)
		strbuf_addch(&sb, '`');
	template_set(c, name, sb.buf);
	strbuf_release(&sb);
	strbuf_release(&body);
}
/* Sets name to words (owned, freed here). */
static void set_words(struct template_ctx *c, const char *name, char *words)
{
	template_set(c, name, words);
	free(words);
}

static void set_sb(struct template_ctx *c, const char *name, struct strbuf *sb)
{
	template_set(c, name, sb->buf);
	strbuf_release(sb);
}

/* "run 2", "warmup 1", "run 2, attempt 3". */
static void set_run(struct template_ctx *c, const struct invocation *inv)
{
	if (inv->attempt > 1)
		template_setf(c, "run", "%s %u, attempt %u", inv->warmup ? "warmup" : "run", inv->round,
			      inv->attempt);
	else
		template_setf(c, "run", "%s %u", inv->warmup ? "warmup" : "run", inv->round);
}

/* The fields every per-invocation row starts with. */
static void inv_fields(struct template_ctx *r, const struct invocation *inv)
{
	template_setf(r, "seq", "%u", inv->seq);
	template_set(r, "variant", inv->variant);
	set_run(r, inv);
}

static struct template_ctx *inv_row(struct template_ctx *c, const char *list,
				const struct invocation *inv)
{
	struct template_ctx *r = template_add(c, list);

	inv_fields(r, inv);
	return r;
}

static const struct cmp_metric *metric_named(const struct comparison *c, const char *name)
{
	for (size_t m = 0; m < c->nmetrics; m++)
		if (!strcmp(c->metrics[m].name, name))
			return &c->metrics[m];
	return NULL;
}

static void set_header(struct template_ctx *c, const struct report_input *in)
{
	const char *status = in->run->status ? in->run->status : "unknown";
	struct strbuf sb = STRBUF_INIT;

	template_set(c, "title", in->run->plan_name && *in->run->plan_name ? in->run->plan_name : "unnamed plan");
	template_set(c, "description", in->run->plan_description);
	template_set_bool(c, "signed", in->run->signed_evidence);
	template_set_bool(c, "signature_unchecked", in->signature_unchecked);
	template_set_bool(c, "run_as", in->run->run_as_user != NULL);
	template_set(c, "status", status);
	template_set_bool(c, "running", !strcmp(status, "running"));
	template_set(c, "started", in->run->started_utc && *in->run->started_utc ? in->run->started_utc : "unknown");
	template_set(c, "ended", in->run->ended_utc && *in->run->ended_utc ? in->run->ended_utc : "not ended");
	template_set(c, "reference", in->comparison ? in->comparison->reference
			   : in->run->nvariants ? in->run->variant_names[0] : "none");
	for (size_t i = 0; i < in->run->nvariants; i++) {
		if (in->comparison && !strcmp(in->run->variant_names[i], in->comparison->reference))
			continue;
		if (!in->comparison && i == 0)
			continue;
		strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", in->run->variant_names[i]);
	}
	if (!sb.len)
		strbuf_adds(&sb, "none");
	set_sb(c, "others", &sb);
}

static void set_verdict(struct template_ctx *c, const struct comparison *cmp,
			const char *runs_from)
{
	struct strbuf sb = STRBUF_INIT;

	template_set_bool(c, "compared", cmp != NULL);
	if (!cmp)
		return;
	summary_decision(&sb, cmp);
	set_sb(c, "decision", &sb);
	template_list(c, "gate_problems");
	for (size_t i = 0; i < cmp->nblocking; i++) {
		struct template_ctx *r = template_add(c, "gate_problems");
		template_set_bool(r, "failed", 1);
		set_words(r, "reason", reason_words_blocking(&cmp->blocking[i]));
	}
	for (size_t g = 0; g < cmp->ngates; g++) {
		struct template_ctx *r;
		if (cmp->gates[g].verdict == GATE_PASS)
			continue;
		r = template_add(c, "gate_problems");
		template_set_bool(r, "failed", cmp->gates[g].verdict == GATE_FAIL);
		set_words(r, "reason", reason_words_gate(cmp, &cmp->gates[g]));
	}
	summary_sample_size(&sb, cmp);
	set_sb(c, "sample_size", &sb);
	summary_sequential(&sb, cmp);
	if (cmp->sequential && runs_from && !strcmp(runs_from, RUN_RUNS_FROM_GATES))
		strbuf_adds(&sb, " The plan has gates and gives no runs, so it ran until decided "
			    "by default (schedule.runs_from: gates).");
	template_set_bool(c, "sequential", cmp->sequential != NULL);
	set_sb(c, "sequential_text", &sb);
	template_set_bool(c, "acceptance", cmp->acceptance);
	template_setf(c, "confidence", "%.4g%%", cmp->confidence * 100);
	template_setf(c, "gate_confidence", "%.4g%%", cmp->gate_confidence * 100);
	template_setf(c, "resamples", "%u", cmp->resamples);
	template_setf(c, "seed", "%llu", (unsigned long long)cmp->seed);
}

/*
 * The contention the verdict names, in the words of the terminal's load:
 * lines (contention.h): the wait for a quieter machine, the runs kept
 * under load, how much the counted runs waited on others and which
 * figures to trust then; or that there was none, or that it was not
 * measured.
 */
static void set_verdict_contention(struct template_ctx *c, const struct report_input *in)
{
	const struct run_header *run = in->run;
	const char *from = run->set.max_wait_seconds_from;
	struct contention ct;
	struct strbuf sb = STRBUF_INIT;
	int on_others;

	contention_count(&ct, in->invs, in->ninvs);
	on_others = ct.all.max >= COMPARE_CONTENDED_PCT;
	template_setf(c, "contended_pct", "%g", COMPARE_CONTENDED_PCT);
	template_setf(c, "ncounted", "%zu", ct.counted);
	template_setf(c, "nmeasured", "%zu", ct.all.n);
	template_set_bool(c, "contention_partly", ct.all.n < ct.counted);
	template_set_bool(c, "contention_unmeasured", !contention_seen(&ct) && ct.counted && !ct.all.n);
	template_set_bool(c, "contention_none", !contention_seen(&ct) && ct.all.n);
	if (!contention_seen(&ct)) {
		template_set(c, "contention", NULL);
		return;
	}
	if (ct.waits) {
		strbuf_adds(&sb, "abev ");
		contention_waited(&sb, &ct, run->set.max_wait_seconds,
				  from && !strcmp(from, "--max-load-wait") ? from
									   : "load.max_wait_seconds");
		strbuf_addch(&sb, '.');
	}
	if (ct.loaded) {
		strbuf_adds(&sb, sb.len ? " " : "");
		contention_loaded(&sb, &ct);
		strbuf_addch(&sb, '.');
	} else if (on_others) {
		strbuf_adds(&sb, sb.len ? " " : "");
		contention_counted(&sb, &ct);
		strbuf_addch(&sb, '.');
	}
	if (ct.loaded || on_others) {
		strbuf_adds(&sb, " ");
		contention_trust(&sb, &ct);
		strbuf_addch(&sb, '.');
	}
	set_sb(c, "contention", &sb);
}

/* Adds "KEY VALUE (FROM)" to sb, ", "-separated, when FROM is an option ("--..."). */
static void ABEV_PRINTF(4, 5) cli_setting(struct strbuf *sb, const char *key, const char *from,
					  const char *fmt, ...)
{
	va_list ap;

	if (!from || strncmp(from, "--", 2))
		return;
	strbuf_addf(sb, "%s%s ", sb->len ? ", " : "", key);
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	strbuf_addf(sb, " (%s)", from);
}

/*
 * Each setting the run header says came from the command line rather
 * than the plan (its _from names an option): "load.max_cpu_wait_pct
 * 100 % (--max-cpu-wait-pct), run_as alice (--run-as)"; "" when none did.
 */
static void set_cli_settings(struct template_ctx *c, const struct run_header *run)
{
	struct strbuf sb = STRBUF_INIT;

	cli_setting(&sb, "load.max_cpu_wait_pct", run->set.max_cpu_wait_pct_from, "%g %%",
		    run->set.max_cpu_wait_pct);
	cli_setting(&sb, "load.max_wait_seconds", run->set.max_wait_seconds_from, "%g s",
		    run->set.max_wait_seconds);
	cli_setting(&sb, "run_as", run->run_as_from, "%s",
		    run->run_as_user ? run->run_as_user : "(unknown user)");
	set_sb(c, "cli_settings", &sb);
}

static const char *metric_about(const struct cmp_metric *m)
{
	if (!strcmp(m->name, COMPARE_WALL) && !strcmp(m->source, "builtin"))
		return "the child's wall time on the monotonic clock";
	if (!strcmp(m->name, COMPARE_CPU) && !strcmp(m->source, "builtin"))
		return "user + system CPU time of the child's process tree";
	if (!strcmp(m->name, COMPARE_MAX_RSS) && !strcmp(m->source, "builtin"))
		return "the child's peak resident memory (wait4)";
	if (!strcmp(m->name, COMPARE_WALL_OWN) && !strcmp(m->source, "builtin"))
		return "wall time less the time the run waited for CPUs other processes held";
	if (!strcmp(m->source, "derived"))
		return "a rate derived from the plan's metric";
	return NULL;
}

/* The gates on metric m for variant v, in words: "≤ +15.00%: FAIL; ≤ 1.50 s: pass". */
static void gate_cell(struct strbuf *sb, const struct comparison *cmp, const struct cmp_metric *m,
		      const char *variant)
{
	for (size_t g = 0; g < cmp->ngates; g++) {
		const struct cmp_gate *gt = &cmp->gates[g];
		if (strcmp(gt->metric, m->name) || strcmp(gt->variant, variant))
			continue;
		if (sb->len)
			strbuf_adds(sb, "; ");
		summary_gate_limit(sb, m, gt);
		strbuf_addf(sb, ": %s", gt->verdict == GATE_FAIL ? "FAIL"
					: gt->verdict == GATE_PASS ? "pass" : "inconclusive");
	}
	if (!sb->len)
		strbuf_adds(sb, "none");
}

/* One row of a metric's table, in the scale of the row's median. */
static void metric_row(struct template_ctx *t, const struct comparison *cmp,
		       const struct cmp_metric *m, const struct cmp_sample *s)
{
	struct template_ctx *r = template_add(t, "rows");
	struct strbuf sb = STRBUF_INIT;
	struct units_scale sc;

	template_set(r, "variant", s->variant);
	template_setf(r, "n", "%zu", s->n);
	if (!s->n) {
		template_set(r, "median", "n/a (no counted run)");
		template_set(r, "range", "n/a (no counted run)");
	} else {
		units_pick(s->median, m->unit, &sc);
		units_add_in(&sb, s->median, &sc);
		strbuf_addf(&sb, " %s", sc.name);
		set_sb(r, "median", &sb);
		units_add_in(&sb, s->min, &sc);
		strbuf_adds(&sb, "–");
		units_add_in(&sb, s->max, &sc);
		strbuf_addf(&sb, " %s", sc.name);
		set_sb(r, "range", &sb);
	}
	if (s->is_reference) {
		template_set(r, "change", "reference");
		template_set(r, "ratio", "");
		template_set(r, "medians", "");
		template_set(r, "gate", "");
		return;
	}
	/* The change the gates judge, as the terminal and result.json's gates give it. */
	if (s->has_change)
		units_add_pct(&sb, compare_estimate_pct(s));
	else
		strbuf_addf(&sb, "n/a (%s)", s->change_note);
	set_sb(r, "change", &sb);
	/* Context only: the ratio of the two medians, which no gate judges. */
	if (s->has_change) {
		strbuf_addf(&sb, "%.3f\xc3\x97 (", s->ratio);
		units_add_pct(&sb, s->change_pct);
		strbuf_addch(&sb, ')');
	}
	set_sb(r, "medians", &sb);
	if (!s->has_change)
		strbuf_addf(&sb, "n/a (%s)", s->change_note);
	else if (s->has_gi) {
		/* In the terminal's words (summary.h): "1.53× faster [1.40, 1.70]", not "0.652". */
		summary_ratio(&sb, m, s);
		strbuf_addf(&sb, " (%s, exact %.1f %%)", compare_gi_words(s->gi_method),
			    s->gi_coverage * 100);
	} else {
		char *why = reason_words_interval(cmp, m, s);

		summary_ratio(&sb, m, s);
		strbuf_addf(&sb, " (no interval: %s)", why ? why : "?");
		free(why);
	}
	set_sb(r, "ratio", &sb);
	gate_cell(&sb, cmp, m, s->variant);
	set_sb(r, "gate", &sb);
}

/* The counted values of s in execution order, in the scale of its median. */
static void metric_runs(struct template_ctx *t, const struct cmp_metric *m, const struct cmp_sample *s)
{
	struct template_ctx *r = template_add(t, "runs");
	struct strbuf sb = STRBUF_INIT;
	struct units_scale sc;

	template_set(r, "variant", s->variant);
	units_pick(s->median, m->unit, &sc);
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			strbuf_adds(&sb, ", ");
		units_add_in(&sb, s->values[i].value, &sc);
		if (s->values[i].outlier)
			strbuf_adds(&sb, " (outlier)");
	}
	if (s->n) {
		strbuf_addf(&sb, " %s; mean ", sc.name);
		units_add_in(&sb, s->mean, &sc);
		if (s->n > 1) {
			strbuf_adds(&sb, ", sd ");
			units_add_in(&sb, s->sd, &sc);
		}
		strbuf_adds(&sb, ", MAD ");
		units_add_in(&sb, s->mad, &sc);
		strbuf_addf(&sb, " %s", sc.name);
		if (s->n > 1)
			strbuf_addf(&sb, ", coefficient of variation %.1f%%", s->cv_pct);
	} else {
		strbuf_adds(&sb, "none counted");
	}
	set_sb(r, "values", &sb);
	if (s->order_testable) {
		strbuf_adds(&sb, "median when first in its round ");
		units_add_in(&sb, s->order_first_median, &sc);
		strbuf_addf(&sb, " %s (n %zu), when later ", sc.name, s->order_n_first);
		units_add_in(&sb, s->order_later_median, &sc);
		strbuf_addf(&sb, " %s (n %zu): ", sc.name, s->order_n_later);
		units_add_pct(&sb, s->order_shift_pct);
		strbuf_addf(&sb, ", p = %.3g", s->order_p);
	} else
		strbuf_adds(&sb, s->order_note ? s->order_note : "");
	set_sb(r, "order", &sb);
	if (s->excluded)
		strbuf_addf(&sb, "%zu recorded run%s did not count", s->excluded,
			    s->excluded == 1 ? "" : "s");
	set_sb(r, "excluded", &sb);
}

/* The tests against the reference, in one sentence. */
static void metric_tests(struct template_ctx *t, const struct cmp_metric *m,
			 const struct cmp_sample *s, const char *reference)
{
	struct template_ctx *r = template_add(t, "tests");
	struct strbuf sb = STRBUF_INIT;

	template_set(r, "variant", s->variant);
	template_set(r, "reference", reference);
	if (!s->has_mw) {
		strbuf_addf(&sb, "no test (%s)", s->mw_note);
	} else {
		strbuf_addf(&sb, "Mann–Whitney U = %g, p = %.3g (%s; the smallest attainable is "
			    "%.3g), Hodges–Lehmann shift ", s->mw_u, s->mw_p,
			    s->mw_exact ? "exact" : "normal approximation", s->mw_min_p);
		units_add(&sb, s->hl_shift, m->unit);
	}
	if (s->has_paired)
		strbuf_addf(&sb, "; paired by round (%zu pair%s): ratio median %.3f, range %.3f–%.3f, "
			    "Wilcoxon p = %.3g (smallest attainable %.3g)", s->pairs,
			    s->pairs == 1 ? "" : "s", s->pair_ratio_median, s->pair_ratio_min,
			    s->pair_ratio_max, s->wsr_p, s->wsr_min_p);
	else if (s->paired_note)
		strbuf_addf(&sb, "; not paired: %s", s->paired_note);
	if (s->nleft_out) {
		strbuf_addf(&sb, "; %zu round%s left out of the pairing:", s->nleft_out,
			    s->nleft_out == 1 ? "" : "s");
		for (size_t i = 0; i < s->nleft_out; i++)
			strbuf_addf(&sb, "%s %u (%s)", i ? "," : "", s->left_out[i].round,
				    compare_left_out_text(s->left_out[i].why));
	}
	if (s->has_ci)
		strbuf_addf(&sb, "; bootstrap interval of the ratio of medians [%.3f, %.3f] "
			    "(context, not judged)", s->ci_lo, s->ci_hi);
	strbuf_addch(&sb, '.');
	set_sb(r, "text", &sb);
}

/*
 * The exact coverage of the rows' intervals, beside the confidence the
 * plan asked for (the rows say 96.9 % where the plan says 95 %): "96.9 %",
 * "96.9–98.4 %"; nothing when no row has an interval.
 */
static void set_coverage(struct template_ctx *c, const struct comparison *cmp)
{
	double lo = 2, hi = -1;

	for (size_t m = 0; m < cmp->nmetrics; m++)
		for (size_t v = 0; v < cmp->metrics[m].nsamples; v++) {
			const struct cmp_sample *s = &cmp->metrics[m].samples[v];
			if (s->is_reference || !s->has_change || !s->has_gi)
				continue;
			lo = s->gi_coverage < lo ? s->gi_coverage : lo;
			hi = s->gi_coverage > hi ? s->gi_coverage : hi;
		}
	if (hi < 0)
		template_set(c, "coverage", NULL);
	else if (round(lo * 1000) == round(hi * 1000))
		template_setf(c, "coverage", "%.1f %%", lo * 100);
	else
		template_setf(c, "coverage", "%.1f–%.1f %%", lo * 100, hi * 100);
}

static void set_metrics(struct template_ctx *c, const struct report_input *in)
{
	const struct comparison *cmp = in->comparison;

	if (!cmp)
		return;
	set_coverage(c, cmp);
	template_list(c, "metrics");
	for (size_t m = 0; m < cmp->nmetrics; m++) {
		const struct cmp_metric *cm = &cmp->metrics[m];
		struct template_ctx *t = template_add(c, "metrics");
		const char *about = metric_about(cm);
		struct strbuf sb = STRBUF_INIT;

		template_set(t, "name", cm->name);
		/* The rows show each value in the unit of their median, not always the plan's. */
		strbuf_addf(&sb, "%s is better; recorded in %s, each row shown in the unit of its "
			    "median", cm->better_higher ? "Higher" : "Lower",
			    *cm->unit ? cm->unit : "no unit");
		if (about)
			strbuf_addf(&sb, "; %s", about);
		else
			strbuf_addf(&sb, "; from %s", cm->source);
		strbuf_addch(&sb, '.');
		set_sb(t, "about", &sb);
		{
			/* abev run writes plots.c's figures beside the report; the names are its. */
			char *file = plots_file_name(cmp, m);
			template_setf(t, "plot", "%s/%s", EVIDENCE_PLOTS_DIR, file);
			free(file);
		}
		template_list(t, "rows");
		template_list(t, "runs");
		template_list(t, "tests");
		for (size_t v = 0; v < cm->nsamples; v++) {
			metric_row(t, cmp, cm, &cm->samples[v]);
			metric_runs(t, cm, &cm->samples[v]);
			if (!cm->samples[v].is_reference)
				metric_tests(t, cm, &cm->samples[v], cmp->reference);
		}
	}
}

static const struct cmp_sample *sample_of(const struct cmp_metric *m, const char *variant)
{
	for (size_t v = 0; m && v < m->nsamples; v++)
		if (!strcmp(m->samples[v].variant, variant))
			return &m->samples[v];
	return NULL;
}

/*
 * A row per gate for the first screen, in the terminal's words: the
 * medians, the change as summary_change() tells it, the limit and the
 * verdict with what would decide it. kind and observed (the figure the
 * gate judges, with its interval) stay set for plans' own templates.
 */
static void set_gates(struct template_ctx *c, const struct comparison *cmp)
{
	if (!cmp)
		return;
	template_set_bool(c, "gates", cmp->ngates > 0);
	template_list(c, "gate_rows");
	for (size_t g = 0; g < cmp->ngates; g++) {
		const struct cmp_gate *gt = &cmp->gates[g];
		const struct cmp_metric *cm = metric_named(cmp, gt->metric);
		const struct cmp_sample *s = sample_of(cm, gt->variant);
		struct template_ctx *r = template_add(c, "gate_rows");
		struct strbuf sb = STRBUF_INIT;
		int budget = gt->kind == GATE_BUDGET && cm;

		template_set(r, "metric", gt->metric);
		template_set(r, "variant", gt->variant);
		template_set(r, "kind", gate_kind_name(gt->kind));
		if (s) {
			summary_figures(&sb, cm, s);
			set_sb(r, "figures", &sb);
			summary_change(&sb, cm, s);
		} else {
			template_set(r, "figures", "n/a (no such sample)");
			strbuf_adds(&sb, "n/a (no such sample)");
		}
		set_sb(r, "change", &sb);
		if (cm)
			summary_gate_limit(&sb, cm, gt);
		else
			strbuf_addf(&sb, "%g", gt->limit);
		set_sb(r, "limit", &sb);
		if (!gt->has_observed)
			strbuf_adds(&sb, "n/a");
		else if (budget)
			units_add(&sb, gt->observed, cm->unit);
		else
			units_add_pct(&sb, gt->observed);
		if (gt->has_interval) {
			strbuf_adds(&sb, " [");
			if (budget)
				units_add(&sb, gt->lo, cm->unit);
			else
				units_add_pct(&sb, gt->lo);
			strbuf_adds(&sb, ", ");
			if (budget)
				units_add(&sb, gt->hi, cm->unit);
			else
				units_add_pct(&sb, gt->hi);
			strbuf_addch(&sb, ']');
		}
		set_sb(r, "observed", &sb);
		template_set_bool(r, "failed", gt->verdict == GATE_FAIL);
		strbuf_adds(&sb, gate_verdict_word(gt->verdict));
		summary_gate_needed(&sb, gt);
		set_sb(r, "verdict", &sb);
	}
}

static const char *guard_word(enum guard_verdict v)
{
	switch (v) {
	case GUARD_PASS: return "pass";
	case GUARD_FAIL: return "FAIL";
	case GUARD_UNCHECKED: return "unchecked";
	}
	return "?";
}

/* Each invocation's test counts and guards; failed tests and guards that did not pass. */
/* The tests whose duration changed most: the comparison's test_changes, a row each. */
static void set_test_changes(struct template_ctx *c, const struct comparison *cmp)
{
	struct strbuf sb = STRBUF_INIT;

	template_set_bool(c, "has_test_changes", cmp && cmp->ntest_changes);
	template_list(c, "test_changes");
	if (!cmp)
		return;
	template_setf(c, "tests_timed", "%zu", cmp->tests_timed);
	template_setf(c, "test_changes_max", "%d", COMPARE_TEST_CHANGES_MAX);
	template_setf(c, "test_min_ms", "%g", COMPARE_TEST_MIN_MS);
	for (size_t i = 0; i < cmp->ntest_changes; i++) {
		const struct cmp_test_change *t = &cmp->test_changes[i];
		struct template_ctx *r = template_add(c, "test_changes");

		template_set(r, "variant", t->variant);
		template_set(r, "test", t->test);
		template_setf(r, "n", "%zu / %zu", t->n_ref, t->n);
		units_add(&sb, t->ref_median_ms, "ms");
		set_sb(r, "reference", &sb);
		units_add(&sb, t->median_ms, "ms");
		set_sb(r, "median", &sb);
		units_add_pct(&sb, t->change_pct);
		set_sb(r, "change", &sb);
		if (t->has_gi)
			strbuf_addf(&sb, "[%.3f, %.3f] (%s)", t->gi_lo, t->gi_hi,
				    compare_gi_words(t->gi_method));
		else
			strbuf_adds(&sb, "n/a (too few rounds)");
		set_sb(r, "interval", &sb);
		if (t->has_mw)
			strbuf_addf(&sb, "%.3g", t->mw_p);
		else
			strbuf_adds(&sb, "n/a (no test)");
		set_sb(r, "p", &sb);
	}
	strbuf_release(&sb);
}


/*
 * Failed test k of inv: its name, and where the evidence keeps them its
 * outcome as written and its message's first line ("Ns.C.M (Failed:
 * expected 1)"; "known failure" when the plan allows it).
 */
static void add_failed_test(struct strbuf *sb, const struct invocation *inv, size_t k)
{
	const struct invocation_test_failure *f =
		k < inv->ntest_failures ? &inv->test_failures[k] : NULL;

	strbuf_addf(sb, "%s%s", k ? ", " : "", inv->failed_tests[k]);
	if (!f || strcmp(f->name, inv->failed_tests[k]))
		return;
	strbuf_addf(sb, " (%s%s%s%s)", *f->outcome ? f->outcome : "failed",
		    *f->message ? ": " : "", f->message, f->known ? "; a known failure" : "");
}

/* A failed test's name and how many of a variant's runs it failed in. */
struct failed_name {
	const char *name;
	size_t runs;
};

/*
 * The failed tests of one variant for the first screen, by name, each
 * once with the number of its runs it failed in: "A.b (2 of 6 runs)".
 * At most REPORT_FAILED_NAMES names; the rest are pointed at.
 */
static void variant_failed_tests(struct strbuf *sb, const struct report_input *in,
				 const char *variant)
{
	struct failed_name names[REPORT_FAILED_NAMES];
	size_t n = 0, runs = 0, others = 0;

	for (size_t i = 0; i < in->ninvs; i++) {
		const struct invocation *inv = &in->invs[i];

		if (strcmp(inv->variant, variant) || !inv->has_tests)
			continue;
		runs++;
		others += inv->failed_tests_omitted;
		for (size_t k = 0; k < inv->nfailed_tests; k++) {
			size_t j = 0;

			while (j < n && strcmp(names[j].name, inv->failed_tests[k]))
				j++;
			if (j < n)
				names[j].runs++;
			else if (n < REPORT_FAILED_NAMES)
				names[n++] = (struct failed_name){ inv->failed_tests[k], 1 };
			else
				others++;
		}
	}
	for (size_t j = 0; j < n; j++)
		strbuf_addf(sb, "%s%s (%zu of %zu run%s)", j ? ", " : "", names[j].name,
			    names[j].runs, runs, runs == 1 ? "" : "s");
	if (others)
		strbuf_adds(sb, ", and others (see Tests and guards)");
}

/*
 * Per variant, its failed tests by name, and the first reason a guard
 * gave for tests that are missing or fewer than the plan asks, with the
 * number of runs it failed in: the first screen's tests.
 */
static void set_tests_first_screen(struct template_ctx *c, const struct report_input *in)
{
	struct strbuf sb = STRBUF_INIT;
	int missing = 0;

	template_list(c, "failed_by_variant");
	template_list(c, "missing_by_variant");
	for (size_t v = 0; v < in->run->nvariants; v++) {
		const char *variant = in->run->variant_names[v];
		const char *reason = NULL;
		size_t nmissing = 0;

		variant_failed_tests(&sb, in, variant);
		if (sb.len) {
			struct template_ctx *r = template_add(c, "failed_by_variant");
			template_set(r, "variant", variant);
			set_sb(r, "names", &sb);
		}
		for (size_t i = 0; i < in->ninvs; i++) {
			const struct invocation *inv = &in->invs[i];
			int counted = 0;

			if (strcmp(inv->variant, variant))
				continue;
			for (size_t k = 0; k < inv->nguards; k++) {
				const struct guard_result *g = &inv->guards[k];

				if (g->verdict != GUARD_FAIL ||
				    (g->kind != GUARD_TEST_SET && g->kind != GUARD_MIN_EXECUTED))
					continue;
				if (!reason)
					reason = g->reason ? g->reason : "no reason recorded";
				nmissing += !counted;
				counted = 1;
			}
		}
		if (nmissing) {
			struct template_ctx *r = template_add(c, "missing_by_variant");
			template_set(r, "variant", variant);
			template_setf(r, "runs", "%zu run%s", nmissing, nmissing == 1 ? "" : "s");
			template_set(r, "reason", reason);
			missing = 1;
		}
	}
	template_set_bool(c, "has_missing_tests", missing);
}

static void set_tests(struct template_ctx *c, const struct report_input *in)
{
	struct strbuf names = STRBUF_INIT;
	int has_tests = 0, has_failed = 0, has_guard_failures = 0;
	unsigned named = 0;   /* the guard kinds in names, a bit each */

	for (size_t i = 0; i < in->ninvs; i++)
		has_tests |= in->invs[i].has_tests;
	template_set_bool(c, "has_tests", has_tests);
	template_list(c, "test_rows");
	template_list(c, "failed_tests");
	template_list(c, "guard_failures");
	for (size_t i = 0; i < in->ninvs; i++) {
		const struct invocation *inv = &in->invs[i];
		const struct results_counts *t = &inv->tests;
		struct strbuf sb = STRBUF_INIT;

		size_t passed = 0;

		for (size_t k = 0; k < inv->nguards; k++) {
			const struct guard_result *g = &inv->guards[k];
			struct template_ctx *r;

			if (!(named & 1u << g->kind))
				strbuf_addf(&names, "%s%s", names.len ? ", " : "",
					    guard_kind_name(g->kind));
			named |= 1u << g->kind;
			if (g->verdict == GUARD_PASS) {
				passed++;
				continue;
			}
			/* Only the guards that did not pass are named: the cell stays narrow. */
			strbuf_addf(&sb, "%s%s %s", sb.len ? ", " : "", guard_kind_name(g->kind),
				    guard_word(g->verdict));
			r = inv_row(c, "guard_failures", inv);
			template_set(r, "guard", guard_kind_name(g->kind));
			template_set(r, "verdict", g->verdict == GUARD_FAIL ? "failed" : "could not check");
			template_set(r, "reason", g->reason ? g->reason : "no reason recorded");
			has_guard_failures = 1;
		}
		if (has_tests) {
			struct template_ctx *r = inv_row(c, "test_rows", inv);
			if (passed)
				strbuf_addf(&sb, "%s%zu pass", sb.len ? "; " : "", passed);
			if (!sb.len)
				strbuf_adds(&sb, "none");
			template_set(r, "guards", sb.buf);
			if (inv->has_tests) {
				template_setf(r, "executed", "%lld", (long long)t->executed);
				template_setf(r, "passed", "%lld", (long long)t->passed);
				template_setf(r, "failed", "%lld", (long long)(t->failed + t->errors));
				template_setf(r, "skipped", "%lld", (long long)t->skipped);
			} else {
				template_set(r, "executed", "n/a (not read)");
				template_set(r, "passed", "n/a");
				template_set(r, "failed", "n/a");
				template_set(r, "skipped", "n/a");
			}
		}
		strbuf_release(&sb);
		if (inv->nfailed_tests) {
			struct template_ctx *r = inv_row(c, "failed_tests", inv);
			size_t shown = inv->nfailed_tests < REPORT_FAILED_NAMES ? inv->nfailed_tests
										 : REPORT_FAILED_NAMES;
			size_t more = inv->nfailed_tests - shown + inv->failed_tests_omitted;

			for (size_t k = 0; k < shown; k++)
				add_failed_test(&sb, inv, k);
			if (more)
				strbuf_addf(&sb, " and %zu more (see the invocation of %s in "
					    "result.json)", more, inv->dir);
			set_sb(r, "names", &sb);
			has_failed = 1;
		}
	}
	template_set_bool(c, "has_failed_tests", has_failed);
	template_set_bool(c, "has_guard_failures", has_guard_failures);
	if (!names.len)
		strbuf_adds(&names, "none");
	set_sb(c, "guard_summary", &names);
	set_test_changes(c, in->comparison);
	set_tests_first_screen(c, in);
}

static void load_text(struct strbuf *sb, const struct loadavg *l)
{
	if (l->valid)
		strbuf_addf(sb, "%.2f %.2f %.2f", l->m1, l->m5, l->m15);
	else
		strbuf_adds(sb, "n/a (not readable)");
}

/* The cgroup sentence: which figures came from cgroups, and why not where not. */
static void cgroup_sentence(struct strbuf *sb, const struct report_input *in)
{
	size_t valid = 0, peak = 0;
	const char *why = NULL;

	for (size_t i = 0; i < in->ninvs; i++) {
		valid += in->invs[i].cgroup_valid;
		peak += in->invs[i].cgroup_valid && in->invs[i].cg_memory_peak_bytes >= 0;
		if (!why && in->invs[i].cgroup_note)
			why = in->invs[i].cgroup_note;
	}
	if (!valid) {
		strbuf_addf(sb, "No invocation had a cgroup of its own, so there are no whole-tree "
			    "figures (%s).", why ? why : "none was available");
		return;
	}
	strbuf_addf(sb, "%zu of %zu invocations ran in a cgroup of their own (whole-tree CPU "
		    "in their records); memory.peak was read for %zu", valid, in->ninvs, peak);
	if (peak < valid && why)
		strbuf_addf(sb, " (%s)", why);
	strbuf_addch(sb, '.');
}

const char *report_order_why(const char *order, const char *order_from)
{
	if (!order || strcmp(order, "sequential"))
		return NULL;
	if (order_from && !strcmp(order_from, "setups"))
		return "the variants' setups differ and share a working directory, so each "
		       "variant's runs follow its own setup; alternation would have run every "
		       "variant on the last setup's products. Runs of one variant after another "
		       "are more exposed to drift than alternated ones";
	return "as the plan asks, each variant's runs follow its own setup, one variant after "
	       "another. Runs of one variant after another are more exposed to drift than "
	       "alternated ones";
}

/* Row k of load_rows: what the machine was doing around invocation k. */
static void load_row(const void *arg, size_t k, struct template_ctx *r)
{
	const struct report_input *in = arg;
	const struct invocation *inv = &in->invs[k];
	struct strbuf sb = STRBUF_INIT;

	inv_fields(r, inv);
	load_text(&sb, &inv->load_before);
	set_sb(r, "before", &sb);
	load_text(&sb, &inv->load_after);
	set_sb(r, "after", &sb);
	if (inv->foreign_cpu >= 0)
		template_setf(r, "foreign", "%.2f", inv->foreign_cpu);
	else
		template_set(r, "foreign", "n/a (not measured)");
	if (invocation_cpu_wait_pct(inv) >= 0)
		template_setf(r, "cpu_wait", "%.1f %% (%s)", invocation_cpu_wait_pct(inv),
			      inv->cpu_wait_source ? inv->cpu_wait_source : "?");
	else
		template_set(r, "cpu_wait", "n/a (not measured)");
	if (invocation_foreign_wait_pct(inv) >= 0 && inv->foreign_wait_basis)
		template_setf(r, "foreign_wait", "%.1f %% (%s)", invocation_foreign_wait_pct(inv),
			      invocation_wait_basis_names[inv->foreign_wait_basis]);
	else if (invocation_foreign_wait_pct(inv) >= 0)
		template_setf(r, "foreign_wait", "%.1f %%", invocation_foreign_wait_pct(inv));
	else
		template_set(r, "foreign_wait", "n/a (all the wait judged)");
	template_set(r, "cpus", inv->cpus ? inv->cpus : "any");
	strbuf_adds(&sb, invocation_status_name(inv->status));
	if (inv->loaded)
		strbuf_adds(&sb, ", loaded");
	if (inv->load_wait_ns > 0)
		strbuf_addf(&sb, " (after %.1f s waiting for a quieter machine)",
			    (double)inv->load_wait_ns / 1e9);
	set_sb(r, "status", &sb);
}

static void set_conditions(struct template_ctx *c, const struct report_input *in)
{
	struct strbuf sb = STRBUF_INIT;
	size_t warmups = 0, discarded = 0, failed = 0, loaded = 0, waited = 0;
	int64_t waited_ns = 0;
	int notes = 0;

	template_set(c, "order", run_order_name(in->run->set.order));
	if (report_order_why(run_order_name(in->run->set.order), in->run->set.order_from))
		template_set(c, "order_why", report_order_why(run_order_name(in->run->set.order),
							      in->run->set.order_from));
	template_setf(c, "seed", "%llu", (unsigned long long)in->run->set.seed);
	template_setf(c, "warmups", "%u", in->run->set.warmups);
	template_setf(c, "runs", "%u", in->run->set.runs);
	template_setf(c, "gap", "%g s", in->run->set.gap_seconds);
	if (in->run->set.timeout_seconds > 0)
		template_setf(c, "timeout", "%g s", in->run->set.timeout_seconds);
	else
		template_set(c, "timeout", "none");
	template_setf(c, "max_foreign_cpu", "%.2f", in->run->set.max_foreign_cpu);
	template_setf(c, "max_cpu_wait_pct", "%g", in->run->set.max_cpu_wait_pct);
	if (in->run->set.max_foreign_cpu >= 0)
		template_setf(c, "foreign_limit", "; at most %.2f foreign cores", in->run->set.max_foreign_cpu);
	else
		template_set(c, "foreign_limit", "; foreign cores not limited");
	template_setf(c, "max_repeats", "%u", in->run->set.max_repeats);
	template_setf(c, "max_wait", "%g s", in->run->set.max_wait_seconds);
	template_setf(c, "runs_plot", "%s/%s", EVIDENCE_PLOTS_DIR, EVIDENCE_PLOTS_RUNS_FILE);
	template_list_made(c, "load_rows", in->ninvs, load_row, in);
	template_list(c, "notes");
	for (size_t i = 0; i < in->ninvs; i++) {
		const struct invocation *inv = &in->invs[i];

		warmups += inv->warmup != 0;
		discarded += inv->status == INV_DISCARDED;
		failed += inv->status != INV_OK && inv->status != INV_DISCARDED;
		loaded += inv->loaded != 0;
		waited += inv->load_wait_ns > 0;
		waited_ns += inv->load_wait_ns > 0 ? inv->load_wait_ns : 0;
	}
	template_setf(c, "ninvs", "%zu", in->ninvs);
	template_setf(c, "nloaded", "%zu", loaded);
	template_setf(c, "nwaited", "%zu", waited);
	template_setf(c, "waited", "%.1f s", (double)waited_ns / 1e9);
	template_setf(c, "nwarmups", "%zu", warmups);
	template_setf(c, "nrecorded", "%zu", in->ninvs - warmups);
	template_setf(c, "ndiscarded", "%zu", discarded);
	template_setf(c, "nfailed", "%zu", failed);
	cgroup_sentence(&sb, in);
	set_sb(c, "cgroup", &sb);
	for (size_t i = 0; i < in->run->nnotes; i++, notes = 1)
		template_set(template_add(c, "notes"), "text", in->run->notes[i]);
	for (size_t i = 0; in->comparison && i < in->comparison->nwarnings; i++, notes = 1)
		set_words(template_add(c, "notes"), "text",
			  reason_words_warning(&in->comparison->warnings[i]));
	for (size_t i = 0; i < in->ninvs; i++) {
		const struct invocation *inv = &in->invs[i];
		const char *why = inv->reason ? inv->reason : inv->exec_error;

		if (inv->status == INV_OK)
			continue;
		strbuf_addf(&sb, "seq %u, %s %s %u attempt %u, %s: %s", inv->seq, inv->variant,
			    inv->warmup ? "warmup" : "run", inv->round, inv->attempt,
			    invocation_status_name(inv->status), why ? why : "no reason recorded");
		set_sb(template_add(c, "notes"), "text", &sb);
		notes = 1;
	}
	template_set_bool(c, "has_notes", notes);
}

/* A variant's environment; its versions too when no side-by-side table shows them. */
static void env_variant(struct template_ctx *c, const struct env_variant *v, int with_versions)
{
	struct template_ctx *r = template_add(c, "env_variants");
	struct strbuf sb = STRBUF_INIT;

	template_set(r, "name", v->name);
	set_code(r, "cwd", v->cwd);
	if (v->git_known)
		strbuf_addf(&sb, "HEAD %s%s", v->git_head, v->git_dirty ? " with local changes" : "");
	else
		strbuf_adds(&sb, "not known (not a git checkout)");
	set_sb(r, "git", &sb);
	for (size_t i = 0; i < v->nenv; i++)
		strbuf_addf(&sb, "%s%s=%s", i ? ", " : "", v->env_keys[i], v->env_values[i]);
	set_sb(r, "env", &sb);
	/* What the variant's commands got of the variables that change a runtime, whoever set them. */
	for (size_t i = 0; i < v->runtime.n; i++)
		strbuf_addf(&sb, "%s%s=%s", i ? ", " : "", v->runtime.keys[i], v->runtime.values[i]);
	if (v->runtime.known && !v->runtime.n)
		strbuf_addf(&sb, "none of %s is set", envname_runtime_list());
	set_sb(r, "runtime", &sb);
	template_list(r, "versions");
	for (size_t i = 0; with_versions && i < v->nversions; i++) {
		const struct env_version *ver = &v->versions[i];
		struct template_ctx *e = template_add(r, "versions");

		template_set(e, "name", ver->name);
		strbuf_adds(&sb, ver->output && *ver->output ? ver->output : "(no output)");
		if (ver->error)
			strbuf_addf(&sb, " (%s)", ver->error);
		else if (ver->exit_code > 0)
			strbuf_addf(&sb, " (exit %lld)", (long long)ver->exit_code);
		set_sb(e, "output", &sb);
	}
	template_list(r, "files");
	for (size_t i = 0; i < v->nfiles; i++) {
		struct template_ctx *f = template_add(r, "files");
		set_code(f, "path", v->files[i].path);
		units_add(&sb, (double)v->files[i].size, "bytes");
		set_sb(f, "size", &sb);
		template_set(f, "sha256", v->files[i].sha256);
	}
}

/* With two variants or more, their versions side by side, a row per name or package. */
static void set_version_rows(struct template_ctx *c, const struct run_environment *e)
{
	struct version_rows rows = VERSION_ROWS_INIT;

	template_list(c, "version_heads");
	template_list(c, "version_rows");
	if (e->nvariants < 2)
		return;
	versions_side(&rows, e->variants, e->nvariants);
	template_set_bool(c, "has_version_rows", rows.n > 0);
	if (rows.left_out) {
		template_setf(c, "version_rows_left_out", "%zu", rows.left_out);
		template_setf(c, "version_rows_max", "%d", VERSIONS_SIDE_ROWS_MAX);
	}
	for (size_t i = 0; rows.n && i < e->nvariants; i++)
		template_set(template_add(c, "version_heads"), "name", e->variants[i].name);
	for (size_t i = 0; i < rows.n; i++) {
		struct template_ctx *r = template_add(c, "version_rows");

		template_set(r, "key", rows.rows[i].key);
		template_set_bool(r, "differs", rows.rows[i].differs);
		template_list(r, "cells");
		for (size_t k = 0; k < rows.ncells; k++)
			template_set(template_add(r, "cells"), "text", rows.rows[i].cells[k]);
	}
	versions_side_rows_release(&rows);
}

static void set_environment(struct template_ctx *c, const struct report_input *in)
{
	const struct run_environment *e = in->environment;
	struct template_ctx *h;
	struct strbuf sb = STRBUF_INIT;

	template_list(c, "host");
	template_list(c, "env_variants");
	if (!e) {
		template_set(c, "host_why", "metadata.json could not be read");
		return;
	}
	h = template_add(c, "host");
	template_set(h, "hostname", e->host.hostname ? e->host.hostname : "unknown");
	template_set(h, "os", e->host.os_release ? e->host.os_release : "OS unknown");
	template_set(h, "kernel", e->host.kernel ? e->host.kernel : "unknown");
	template_set(h, "arch", e->host.arch ? e->host.arch : "unknown");
	template_set(h, "cpu", e->host.cpu_model ? e->host.cpu_model : "model unknown");
	if (e->host.logical_cpus >= 0)
		strbuf_addf(&sb, "%lld logical CPUs", (long long)e->host.logical_cpus);
	else
		strbuf_adds(&sb, "CPU count unknown");
	if (e->host.physical_cores >= 0)
		strbuf_addf(&sb, " (%lld physical cores)", (long long)e->host.physical_cores);
	if (e->host.online_cpus)
		strbuf_addf(&sb, ", online %s", e->host.online_cpus);
	set_sb(h, "cores", &sb);
	if (e->host.memory_bytes >= 0)
		units_add(&sb, (double)e->host.memory_bytes, "bytes");
	else
		strbuf_adds(&sb, "unknown");
	set_sb(h, "memory", &sb);
	strbuf_adds(&sb, e->host.governor ? e->host.governor : "not readable");
	if (e->host.boost >= 0)
		strbuf_addf(&sb, ", boost %s", e->host.boost ? "on" : "off");
	set_sb(h, "governor", &sb);
	template_set(h, "cgroup_version", e->host.cgroup_version ? e->host.cgroup_version : "unknown");
	set_version_rows(c, e);
	for (size_t i = 0; i < e->nvariants; i++)
		env_variant(c, &e->variants[i], e->nvariants < 2);
}

/*
 * A UTC stamp, without its date when that is the day the run started (said
 * once above the table), so that the table stays narrow.
 */
static void utc_cell(struct template_ctx *r, const char *name, const char *stamp, const char *started)
{
	if (!*stamp)
		template_set(r, name, "n/a (not started)");
	else if (started && strlen(stamp) > 11 && !strncmp(stamp, started, 11))
		template_set(r, name, stamp + 11);
	else
		template_set(r, name, stamp);
}

/* What ran: where a variant's output went, when not to its logs ("output"). */
static void set_output(struct template_ctx *r, const char *output)
{
	static const struct {
		const char *word, *text;
	} words[] = {
		{ "null", "`null`, to /dev/null, not recorded" },
		{ "pipe", "`pipe`, read through pipes and discarded (sizes and SHA-256 recorded)" },
		{ "inherit", "`inherit`, abev's own stdout and stderr, not recorded" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(output, words[i].word)) {
			template_set(r, "output", words[i].text);
			return;
		}
	set_code(r, "output_file", output);
}

/* Row k of inv_rows: when invocation k ran, how long, how it ended and where its files are. */
static void inv_row_made(const void *arg, size_t k, struct template_ctx *r)
{
	const struct report_input *in = arg;
	const struct invocation *inv = &in->invs[k];
	struct strbuf sb = STRBUF_INIT;

	inv_fields(r, inv);
	utc_cell(r, "start", inv->start_utc, in->run->started_utc);
	utc_cell(r, "end", inv->end_utc, in->run->started_utc);
	units_add(&sb, (double)inv->fig.wall_ns / 1e6, "ms");
	set_sb(r, "wall", &sb);
	template_set(r, "status", invocation_status_name(inv->status));
	template_set(r, "dir", inv->dir);
}

static void set_invocations(struct template_ctx *c, const struct report_input *in)
{
	template_set_bool(c, "invocations", in->ninvs > 0);
	if (in->run->started_utc && strlen(in->run->started_utc) > 10)
		template_setf(c, "day", "%.10s", in->run->started_utc);
	else
		template_set(c, "day", "an unknown day");
	template_list_made(c, "inv_rows", in->ninvs, inv_row_made, in);
}


static void set_reproduce(struct template_ctx *c, const struct report_input *in)
{
	struct strbuf sb = STRBUF_INIT;
	size_t fence;

	template_set_bool(c, "reproduce", in->run->reproduce && *in->run->reproduce);
	if (!in->run->reproduce || !*in->run->reproduce)
		return;
	set_code(c, "plan_path", in->run->plan_path ? in->run->plan_path : "unknown");
	template_set(c, "plan_sha256", in->run->plan_sha256 ? in->run->plan_sha256 : "not recorded");
	fence = longest_backticks(in->run->reproduce) + 1;
	if (fence < 3)
		fence = 3;
	for (size_t i = 0; i < fence; i++)
		strbuf_addch(&sb, '`');
	strbuf_adds(&sb, "sh\n");
	if (in->run->reproduce_cwd) {
		strbuf_adds(&sb, "cd ");
		strbuf_add_sh(&sb, in->run->reproduce_cwd);
		strbuf_addch(&sb, '\n');
	}
	/*
	 * abev quotes what it writes there for sh, but the line is read back
	 * from evidence: escaped, its backslashes (sh's own) kept.
	 */
	strbuf_add_escaped_line(&sb, in->run->reproduce, strlen(in->run->reproduce));
	strbuf_addch(&sb, '\n');
	for (size_t i = 0; i < fence; i++)
		strbuf_addch(&sb, '`');
	set_sb(c, "reproduce_block", &sb);
}

/*
 * The names the verify commands take, quoted for sh: the directory as
 * the user named it and the signer's key — by its file's name alone (a
 * path on the signer's machine means nothing to an auditor), with its
 * fingerprint saying which key that is.
 */
static void set_verify(struct template_ctx *c, const struct report_input *in)
{
	const char *dir = in->run->evidence_dir && *in->run->evidence_dir ? in->run->evidence_dir : "DIR";
	const char *path = in->run->pubkey && *in->run->pubkey ? in->run->pubkey : NULL;
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *key = slash && slash[1] ? slash + 1 : path ? path : "KEY.pub";
	struct strbuf sb = STRBUF_INIT;

	template_set(c, "key_fingerprint", in->run->key_fingerprint);
	set_code(c, "key_name", key);

	strbuf_add_sh(&sb, dir);
	set_sb(c, "q_dir", &sb);
	strbuf_add_sh(&sb, key);
	set_sb(c, "q_key", &sb);
	strbuf_addf(&sb, "%s.pem", key);
	{
		char *pem = strbuf_detach(&sb, NULL);
		strbuf_add_sh(&sb, pem);
		free(pem);
	}
	set_sb(c, "q_pem", &sb);
}

/*
 * Whether the path that ends at end, within the argument that starts at
 * arg, is the evidence directory: the directory as given (absolute), or a
 * path that ends in it (abev was given a relative one). Its start is
 * stored in *start.
 */
static int is_evidence_dir(const char *arg, const char *end, const char *evidence_dir,
			   const char **start)
{
	size_t n = strlen(evidence_dir), len;
	const char *p = end;

	while (n > 2 && !strncmp(evidence_dir, "./", 2)) {
		evidence_dir += 2;
		n -= 2;
	}
	while (n > 1 && evidence_dir[n - 1] == '/')   /* --out ev/ */
		n--;
	while (p > arg && !strchr(" =;,:\"'", p[-1]))
		p--;
	len = (size_t)(end - p);
	*start = p;
	if (!n || len < n || memcmp(end - n, evidence_dir, n))
		return 0;
	return len == n || (evidence_dir[0] != '/' && end[-(ptrdiff_t)n - 1] == '/');
}

/*
 * inv's command line quoted for sh, with its own run directory (the
 * evidence directory's inv->dir) written back as the plan's {run_dir}:
 * what every run of the variant ran, not what its first run's path was.
 */
static void add_command_as_planned(struct strbuf *sb, const char *evidence_dir,
				   const struct invocation *inv)
{
	char *tail = evidence_dir && *evidence_dir && inv->dir && *inv->dir
			     ? xasprintf("/%s", inv->dir) : NULL;
	char **argv = xcalloc(inv->argc + 1, sizeof(*argv));
	struct strbuf arg = STRBUF_INIT;

	for (size_t i = 0; i < inv->argc; i++) {
		const char *p = inv->argv[i], *hit, *start;
		size_t n = tail ? strlen(tail) : 0;

		while (n && (hit = strstr(p, tail))) {
			/* It must end the path (".../run-1" is not ".../run-10") and follow the evidence's. */
			if (isalnum((unsigned char)hit[n]) || (hit[n] && strchr("-_.", hit[n])) ||
			    !is_evidence_dir(inv->argv[i], hit, evidence_dir, &start) || start < p) {
				strbuf_add(&arg, p, (size_t)(hit - p) + 1);
				p = hit + 1;
				continue;
			}
			strbuf_add(&arg, p, (size_t)(start - p));
			strbuf_adds(&arg, "{run_dir}");
			p = hit + n;
		}
		strbuf_adds(&arg, p);
		argv[i] = strbuf_detach(&arg, NULL);
	}
	strbuf_add_argv_sh(sb, argv, inv->argc);
	for (size_t i = 0; i < inv->argc; i++)
		free(argv[i]);
	free(argv);
	free(tail);
}

/*
 * What each variant ran, near the top, so that a reader knows what the
 * figures are of: its command line (as its first recorded invocation ran
 * it, quoted for sh, its run directory shown as {run_dir}), the directory
 * it ran in and the environment the plan set for it (metadata.json), each
 * shown as it is.
 */
static void set_what_ran(struct template_ctx *c, const struct report_input *in)
{
	const struct run_environment *e = in->environment;
	struct strbuf sb = STRBUF_INIT;

	template_list(c, "ran");
	for (size_t v = 0; v < in->run->nvariants; v++) {
		const char *name = in->run->variant_names[v];
		const struct invocation *first = NULL;
		const struct env_variant *ev = NULL;
		struct template_ctx *r = template_add(c, "ran");

		for (size_t i = 0; i < in->ninvs && !first; i++)
			if (!strcmp(in->invs[i].variant, name) && in->invs[i].argc)
				first = &in->invs[i];
		for (size_t i = 0; e && i < e->nvariants && !ev; i++)
			if (!strcmp(e->variants[i].name, name))
				ev = &e->variants[i];
		template_set(r, "name", name);
		if (first) {
			add_command_as_planned(&sb, in->run->evidence_dir, first);
			set_code(r, "command", sb.buf);
			strbuf_reset(&sb);
		} else {
			template_set(r, "command", "(no invocation recorded)");
		}
		set_code(r, "cwd", ev ? ev->cwd : first ? first->cwd : NULL);
		if (first && first->output && strcmp(first->output, "log"))
			set_output(r, first->output);
		for (size_t i = 0; ev && i < ev->nenv; i++)
			strbuf_addf(&sb, "%s%s=%s", i ? " " : "", ev->env_keys[i], ev->env_values[i]);
		if (sb.len)
			set_code(r, "env", sb.buf);
		strbuf_reset(&sb);
	}
	strbuf_release(&sb);
}

char *report_render(const struct report_input *in)
{
	struct template_ctx *c = template_ctx_new();
	char *err = NULL, *text = NULL;

	set_header(c, in);
	set_what_ran(c, in);
	set_verdict(c, in->comparison, in->run->set.runs_from);
	set_verdict_contention(c, in);
	set_cli_settings(c, in->run);
	set_metrics(c, in);
	set_gates(c, in->comparison);
	set_tests(c, in);
	set_conditions(c, in);
	set_environment(c, in);
	set_invocations(c, in);
	set_reproduce(c, in);
	set_verify(c, in);
	if (in->template_text) {
		text = template_render_text(in->template_text, in->template_len, EVIDENCE_TEMPLATE_FILE,
					    c, &err);
		if (text)
			goto out;
		/* The same evidence fails the same way, so `abev report DIR` falls back alike. */
		template_set(c, "template_error", err);
		free(err);
		err = NULL;
	}
	text = template_render_text(report_template, (size_t)report_template_len,
				    "templates/report.md", c, &err);
	if (!text) {
		error("cannot render the report: %s", err);
		free(err);
	}
out:
	template_ctx_free(c);
	return text;
}

int report_write(const struct dirat *root, struct ledger *l, const struct report_input *in)
{
	char *text = report_render(in);
	const char *name = in->file ? in->file : EVIDENCE_REPORT_FILE;
	int ret = !text ? -1
		  : l	? ledger_rewrite(l, root, name, text, strlen(text))
			: dirat_write_atomic(root, name, text, strlen(text));

	free(text);
	return ret;
}

void report_input_from_evidence(const struct evidence_run *r, const struct comparison *c,
				 const struct run_environment *env, struct report_input *in)
{
	*in = (struct report_input){
		.run = &r->hdr,
		.invs = r->invs,
		.ninvs = r->ninvs,
		.comparison = c,
		.environment = env,
		.template_text = r->template_text,
		.template_len = r->template_len,
	};
}
