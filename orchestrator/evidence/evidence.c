/*
 * evidence: serialises invocation records and the run header to JSON with
 * cJSON, in a fixed key order, and writes each file atomically.
 */
#include "evidence/evidence.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/compare.h"
#include "evidence/invocation_fields.h"
#include "evidence/run_fields.h"
#include "util/dirat.h"
#include "evidence/ledger.h"
#include "record/layout.h"
#include "util/hash.h"
#include "util/json_out.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/number.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"

int evidence_write_invocation(struct ledger *l, const struct dirat *root,
			      const struct invocation *inv)
{
	char *path = path_join(inv->dir, EVIDENCE_RESULT_FILE);
	cJSON *o = invocation_fields_json(inv, 1);
	char *text = json_print(o);
	int ret = ledger_write(l, root, path, text, strlen(text));

	cJSON_Delete(o);
	free(text);
	free(path);
	return ret;
}

char *evidence_results_document(const struct results_file *files, size_t n,
				const struct results_counts *total,
				const struct guard_result *guard)
{
	cJSON *o = jnew_object(), *arr = jnew_array(), *t = jnew_object();
	const char *format = "none";
	char *text;

	jadd_str(o, "schema", EVIDENCE_RESULTS_SCHEMA);
	for (size_t i = 0; i < n; i++) {
		jpush(arr, invocation_fields_results_file(&files[i]));
		if (i == 0)
			format = results_file_format_name(files[0].format);
		else if (files[i].format != files[0].format)
			format = "mixed";
	}
	jadd(o, "files", arr);
	jadd_str(t, "format", format);
	jadd_int(t, "files", (int64_t)n);
	invocation_fields_counts(t, total);
	jadd(o, "total", t);
	jadd(o, "guard", guard ? invocation_fields_guard(guard) : jnull());
	text = json_print(o);
	cJSON_Delete(o);
	return text;
}


/* A value, or null with the reason beside it under note_key. */
static void jadd_opt(cJSON *o, const char *key, int has, double v, const char *note_key,
		     const char *note)
{
	jadd(o, key, has ? jreal(v) : jnull());
	if (note_key)
		jadd_str(o, note_key, has ? NULL : note);
}

static cJSON *interval_json(int has, double lo, double hi)
{
	cJSON *a;
	if (!has)
		return jnull();
	a = jnew_array();
	jpush(a, jreal(lo));
	jpush(a, jreal(hi));
	return a;
}

/*
 * Appends text (one cJSON_Print()ed value) to sb as it reads printed at
 * depth tabs: a tab per level after every line break. No string holds a
 * raw line break (cJSON escapes it), so every '\n' is the printer's own.
 */
static void add_indented(struct strbuf *sb, const char *text, int depth)
{
	for (const char *p = text, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			strbuf_adds(sb, p);
			return;
		}
		strbuf_add(sb, p, (size_t)(nl - p) + 1);
		for (int i = 0; i < depth; i++)
			strbuf_addch(sb, '\t');
	}
}

/*
 * One of a sample's values as cJSON_Print() prints the object {"value",
 * "seq", "round", "slot", "outlier"} (value as jreal() writes it, the
 * integers as cJSON prints them), with depth + 1 tabs after each line
 * break: in the document whose sample object has its keys depth tabs in.
 * Printed directly, not through a cJSON object per value, which took
 * most of the time and memory of a document of 10,000 runs.
 */
static void add_value(struct strbuf *sb, const struct cmp_value *v, int depth)
{
	char real[DOUBLE_TEXT_LEN], tabs[64];
	int t = depth + 1 < (int)sizeof(tabs) - 1 ? depth + 1 : (int)sizeof(tabs) - 2;

	memset(tabs, '\t', (size_t)t + 1);
	tabs[t + 1] = '\0';
	/* tabs: the indentation of the value's keys; tabs + 1: of its braces. */
	strbuf_addf(sb, "{\n%s\"value\":\t%s,\n%s\"seq\":\t%u,\n%s\"round\":\t%u,\n"
		    "%s\"slot\":\t%u,\n%s\"outlier\":\t%s\n%s}",
		    tabs, isfinite(v->value) ? double_text(real, v->value) : "null",
		    tabs, v->seq, tabs, v->round, tabs, v->slot, tabs,
		    v->outlier ? "true" : "false", tabs + 1);
}

/* The samples whose values a document leaves out, each where a VALUE_HOLE stands. */
#define VALUE_HOLE "\x01"
struct value_hole {
	const struct cmp_sample *s;
	int depth;
};
struct value_holes {
	struct value_hole *h;
	size_t n, alloc;
};

/*
 * A sample's values, printed as they read in the document whose sample
 * object has its keys depth tabs in, as one raw item; or, with holes,
 * a VALUE_HOLE in their place, for write_run_file() to write them one at
 * a time: a run's every value is 100 bytes of text.
 */
static cJSON *values_json(const struct cmp_sample *s, int depth, struct value_holes *holes)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *raw;

	if (holes) {
		ALLOC_GROW(holes->h, holes->n + 1, holes->alloc);
		holes->h[holes->n++] = (struct value_hole){ s, depth };
		raw = cJSON_CreateRaw(VALUE_HOLE);
		if (!raw)
			die_oom();
		return raw;
	}
	strbuf_addch(&sb, '[');
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			strbuf_adds(&sb, ", ");
		add_value(&sb, &s->values[i], depth);
	}
	strbuf_addch(&sb, ']');
	raw = cJSON_CreateRaw(sb.buf);
	if (!raw)
		die_oom();
	strbuf_release(&sb);
	return raw;
}

/* The rounds left out of s's pairing, with why (compare.h). */
static cJSON *left_out_json(const struct cmp_sample *s)
{
	cJSON *a = jnew_array();

	for (size_t i = 0; i < s->nleft_out; i++) {
		cJSON *e = jnew_object();
		jadd_int(e, "round", s->left_out[i].round);
		jadd_str(e, "why", compare_left_out_key(s->left_out[i].why));
		jpush(a, e);
	}
	return a;
}

/*
 * A joint gate interval's two parts (compare.h: gi_parts), each with its
 * method, estimate, interval and coverage, and whether they met, into x
 * as "parts" and "disjoint"; both null for any other interval.
 */
static void add_joint_parts(cJSON *x, const struct cmp_sample *s)
{
	cJSON *a;

	if (!s->has_gi || strcmp(s->gi_method, COMPARE_GI_JOINT)) {
		jadd(x, "parts", jnull());
		jadd(x, "disjoint", jnull());
		return;
	}
	a = jnew_array();
	for (size_t i = 0; i < ARRAY_SIZE(s->gi_parts); i++) {
		const struct cmp_gi_part *p = &s->gi_parts[i];
		cJSON *e = jnew_object();

		jadd_str(e, "method", p->method);
		jadd_opt(e, "point", 1, p->point, NULL, NULL);
		jadd(e, "ratio", interval_json(1, p->lo, p->hi));
		jadd_real(e, "coverage", p->coverage);
		cJSON_AddItemToArray(a, e);
	}
	jadd(x, "parts", a);
	jadd_bool(x, "disjoint", s->gi_disjoint);
}

/* One variant under one metric; its keys are depth tabs in when printed. */
static cJSON *sample_json(const struct cmp_sample *s, int depth, struct value_holes *holes)
{
	cJSON *o = jnew_object(), *x;

	jadd_str(o, "variant", s->variant);
	jadd_bool(o, "reference", s->is_reference);
	jadd(o, "values", values_json(s, depth, holes));
	jadd_int(o, "n", (int64_t)s->n);
	jadd_int(o, "excluded", (int64_t)s->excluded);
	jadd_opt(o, "median", s->n > 0, s->median, NULL, NULL);
	jadd_opt(o, "min", s->n > 0, s->min, NULL, NULL);
	jadd_opt(o, "max", s->n > 0, s->max, NULL, NULL);
	jadd_opt(o, "mean", s->n > 0, s->mean, NULL, NULL);
	jadd_opt(o, "sd", s->n > 1, s->sd, NULL, NULL);
	jadd_opt(o, "mad", s->n > 0, s->mad, NULL, NULL);
	jadd_opt(o, "cv_pct", s->n > 1, s->cv_pct, NULL, NULL);
	jadd_int(o, "outliers", (int64_t)s->outliers);
	jadd_bool(o, "noisy", s->noisy);
	if (!s->is_reference) {
		jadd_opt(o, "change_pct", s->has_change, s->change_pct, "change_note", s->change_note);
		jadd_opt(o, "ratio", s->has_change, s->ratio, NULL, NULL);
		jadd(o, "ratio_ci", interval_json(s->has_ci, s->ci_lo, s->ci_hi));
		jadd_str(o, "ratio_ci_note", s->has_ci ? NULL : s->ci_note);
		if (s->has_mw) {
			x = jnew_object();
			jadd_real(x, "u", s->mw_u);
			jadd_real(x, "p", s->mw_p);
			jadd_bool(x, "exact", s->mw_exact);
			jadd_real(x, "min_p", s->mw_min_p);
			jadd_real(x, "hodges_lehmann_shift", s->hl_shift);
		} else {
			x = jnull();
		}
		jadd(o, "mann_whitney", x);
		x = jnew_object();
		jadd_int(x, "pairs", (int64_t)s->pairs);
		jadd_opt(x, "ratio_median", s->has_paired, s->pair_ratio_median, NULL, NULL);
		jadd_opt(x, "ratio_min", s->has_paired, s->pair_ratio_min, NULL, NULL);
		jadd_opt(x, "ratio_max", s->has_paired, s->pair_ratio_max, NULL, NULL);
		jadd_opt(x, "wilcoxon_p", s->has_paired, s->wsr_p, NULL, NULL);
		if (s->has_paired)
			jadd_bool(x, "exact", s->wsr_exact);
		else
			jadd(x, "exact", jnull());
		jadd_opt(x, "min_p", s->has_paired, s->wsr_min_p, NULL, NULL);
		jadd_str(x, "note", s->paired_note);
		jadd(x, "left_out", left_out_json(s));
		jadd(o, "paired", x);
		x = jnew_object();
		jadd_str(x, "method", s->has_gi ? s->gi_method : NULL);
		jadd_str(x, "rule", s->gi_rule);
		jadd_opt(x, "point", s->has_gi, s->gi_point, NULL, NULL);
		jadd(x, "ratio", interval_json(s->has_gi, s->gi_lo, s->gi_hi));
		jadd_opt(x, "coverage", s->has_gi, s->gi_coverage, NULL, NULL);
		jadd_int(x, "n", (int64_t)(s->has_gi ? s->gi_n : 0));
		jadd_int(x, "needed", (int64_t)s->gi_needed);
		jadd_str(x, "note", s->has_gi ? NULL : reason_code_name(s->gi_note));
		jadd_int_or_null(x, "not_positive_reference", (int64_t)s->gi_not_positive_ref,
				 s->gi_note == REASON_NOT_POSITIVE);
		jadd_int_or_null(x, "not_positive", (int64_t)s->gi_not_positive,
				 s->gi_note == REASON_NOT_POSITIVE);
		add_joint_parts(x, s);
		jadd(o, "gate_interval", x);
	}
	x = jnew_object();
	jadd_bool(x, "testable", s->order_testable);
	jadd_int(x, "n_first", (int64_t)s->order_n_first);
	jadd_int(x, "n_later", (int64_t)s->order_n_later);
	jadd_opt(x, "first_median", s->order_testable, s->order_first_median, NULL, NULL);
	jadd_opt(x, "later_median", s->order_testable, s->order_later_median, NULL, NULL);
	jadd_opt(x, "shift_pct", s->order_testable, s->order_shift_pct, NULL, NULL);
	jadd_opt(x, "p", s->order_testable, s->order_p, NULL, NULL);
	jadd_bool(x, "warning", s->order_warning);
	jadd_str(x, "note", s->order_note);
	jadd(o, "order_effect", x);
	return o;
}

static cJSON *gate_json(const struct cmp_gate *g)
{
	cJSON *o = jnew_object();

	jadd_str(o, "metric", g->metric);
	jadd_str(o, "variant", g->variant);
	jadd_str(o, "kind", gate_kind_name(g->kind));
	jadd_real(o, "limit", g->limit);
	jadd_opt(o, "observed", g->has_observed, g->observed, NULL, NULL);
	jadd(o, "interval", interval_json(g->has_interval, g->lo, g->hi));
	jadd_str(o, "method", g->method);
	jadd_opt(o, "coverage", g->method != NULL, g->coverage, NULL, NULL);
	jadd_int_or_null(o, "n", (int64_t)g->n, g->n > 0);
	jadd_str(o, "verdict", gate_verdict_word(g->verdict));
	jadd_str(o, "reason", reason_code_name(g->reason));
	jadd_str(o, "note", reason_code_name(g->note));
	jadd_int_or_null(o, "n_min", (int64_t)g->n_min, g->n_min > 0);
	jadd_int_or_null(o, "n_needed", (int64_t)g->n_needed, g->n_needed > 0);
	jadd_str(o, "n_needed_unit", g->n_needed ? (g->n_needed_paired ? "rounds" : "runs a side")
						 : NULL);
	return o;
}

/* The warnings: each a code, its metric and variant, and the figures it rests on. */
static cJSON *warnings_json(const struct comparison *c)
{
	cJSON *a = jnew_array();

	for (size_t i = 0; i < c->nwarnings; i++) {
		const struct cmp_warning *w = &c->warnings[i];
		cJSON *x = jnew_object();

		jadd_str(x, "code", reason_code_name(w->code));
		jadd_str(x, "metric", w->metric);
		jadd_str(x, "variant", w->variant);
		jadd(x, "value", w->code != REASON_OUTLIERS ? jreal(w->value) : jnull());
		jadd(x, "limit", w->code != REASON_SLOT_EFFECT ? jreal(w->limit) : jnull());
		jadd(x, "p", w->code == REASON_SLOT_EFFECT ? jreal(w->p) : jnull());
		jadd_int_or_null(x, "count", (int64_t)w->count, w->code == REASON_OUTLIERS);
		jpush(a, x);
	}
	return a;
}

/* The runs that block acceptance: variant, round, the guard that failed and its reason. */
static cJSON *blocking_json(const struct comparison *c)
{
	cJSON *a = jnew_array();

	for (size_t i = 0; i < c->nblocking; i++) {
		const struct cmp_blocking *b = &c->blocking[i];
		cJSON *x = jnew_object();

		jadd_str(x, "code", reason_code_name(b->code));
		jadd_str(x, "variant", b->variant);
		jadd_int(x, "round", b->round);
		jadd_str(x, "guard", guard_kind_name(b->guard));
		jadd_str(x, "guard_reason", b->guard_reason);
		jpush(a, x);
	}
	return a;
}

/* Why figures are missing: a code and what it rests on (compare.h's struct cmp_missing). */
static cJSON *missing_json(const struct comparison *c)
{
	cJSON *a = jnew_array();

	for (size_t i = 0; i < c->nmissing; i++) {
		const struct cmp_missing *m = &c->missing[i];
		int counted = m->code == REASON_NO_COUNTED_RUNS;
		cJSON *x = jnew_object();

		jadd_str(x, "variant", m->variant);
		jadd_str(x, "metric", m->metric);
		jadd_str(x, "code", reason_code_name(m->code));
		jadd_int(x, "runs", (int64_t)m->runs);
		jadd_int_or_null(x, "shared", (int64_t)m->shared, counted);
		jadd_str(x, "status", counted ? invocation_status_name(m->status) : NULL);
		jadd_str(x, "reason", m->reason);
		jadd_str(x, "stderr_tail", m->stderr_tail);
		jpush(a, x);
	}
	return a;
}

/* schedule.until "decided": the design and the looks taken; null for a fixed number of rounds. */
static cJSON *sequential_json(const struct compare_sequential *q)
{
	cJSON *o, *arr;

	if (!q)
		return jnull();
	o = jnew_object();
	jadd_str(o, "until", "decided");
	jadd_str(o, "correction", "bonferroni");
	jadd_real(o, "confidence", q->confidence);
	jadd_real(o, "look_confidence", q->look_confidence);
	jadd_int(o, "min_rounds", q->min_rounds);
	jadd_int(o, "max_rounds", q->max_rounds);
	arr = jnew_array();
	for (size_t i = 0; i < q->nlooks; i++)
		jpush(arr, jreal((double)q->looks[i]));
	jadd(o, "looks", arr);
	arr = jnew_array();
	for (size_t i = 0; i < q->ntaken; i++) {
		cJSON *t = jnew_object();
		jadd_int(t, "round", q->taken[i].round);
		jadd_str(t, "decision", decision_name(q->taken[i].decision));
		jpush(arr, t);
	}
	jadd(o, "taken", arr);
	jadd_int_or_null(o, "decided_after_round", q->decided_round, q->decided_round > 0);
	return o;
}

/* Why a plan's decision is "no decision" though it sets gates, or its run was interrupted; null otherwise. */
static cJSON *no_decision_json(const struct comparison *c)
{
	cJSON *o;

	if (!c->no_decision)
		return jnull();
	o = jnew_object();
	jadd_str(o, "reason", reason_code_name(c->no_decision));
	jadd_int(o, "rounds_done", c->rounds_done);
	jadd_int_or_null(o, "rounds_planned", c->rounds_planned, c->rounds_planned > 0);
	jadd_str(o, "shown", c->no_decision == REASON_INTERRUPTED ? decision_name(c->shown) : NULL);
	return o;
}

/* The comparison object, whose keys are depth tabs in when printed. */
/* The "comparison" object, its keys depth tabs in; with holes, its values left out (values_json()). */
static cJSON *evidence_comparison_json(const struct comparison *c, const struct compare_gate_def *defs,
				size_t ndefs, int depth, struct value_holes *holes)
{
	cJSON *o = jnew_object(), *arr, *x;

	jadd_str(o, "reference", c->reference);
	jadd_real(o, "confidence", c->confidence);
	jadd_real(o, "gate_confidence", c->gate_confidence);
	jadd_int(o, "gate_judgements", (int64_t)c->gate_judgements);
	jadd_int(o, "bootstrap_resamples", c->resamples);
	jadd_int(o, "seed", (int64_t)c->seed);
	jadd_real(o, "alpha", c->alpha);
	jadd_bool(o, "paired", !c->unpaired);
	jadd_bool(o, "acceptance", c->acceptance);
	jadd_str(o, "inconclusive", c->inconclusive_fails ? "fail" : "pass");
	jadd_str(o, "decision", decision_name(c->decision));
	jadd(o, "no_decision", no_decision_json(c));
	x = jnew_object();
	jadd_int(x, "min_runs", (int64_t)c->min_n);
	jadd_real(x, "mann_whitney_min_p", c->mw_min_p);
	jadd_int(x, "runs_needed", (int64_t)c->mw_n_needed);
	jadd_int(x, "min_pairs", (int64_t)c->min_pairs);
	jadd_real(x, "wilcoxon_min_p", c->wsr_min_p);
	jadd_int(x, "pairs_needed", (int64_t)c->wsr_n_needed);
	jadd_str(x, "metric", c->size_metric);
	jadd_int(x, "interval_rounds_needed", (int64_t)c->pairs_needed_ci);
	jadd_int(x, "interval_runs_needed", (int64_t)c->runs_needed_ci);
	jadd(o, "sample_size", x);
	jadd(o, "sequential", sequential_json(c->sequential));
	arr = jnew_array();
	for (size_t m = 0; m < c->nmetrics; m++) {
		const struct cmp_metric *cm = &c->metrics[m];
		cJSON *mo = jnew_object(), *vs = jnew_array();
		jadd_str(mo, "name", cm->name);
		jadd_str(mo, "unit", cm->unit);
		jadd_str(mo, "better", cm->better_higher ? "higher" : "lower");
		jadd_str(mo, "source", cm->source);
		for (size_t v = 0; v < cm->nsamples; v++)
			jpush(vs, sample_json(&cm->samples[v], depth + 4, holes));
		jadd(mo, "variants", vs);
		jpush(arr, mo);
	}
	jadd(o, "metrics", arr);
	arr = jnew_array();
	for (size_t i = 0; i < ndefs; i++) {
		x = jnew_object();
		jadd_str(x, "metric", defs[i].metric);
		jadd_str(x, "kind", gate_kind_name(defs[i].kind));
		jadd_real(x, "limit", defs[i].limit);
		jpush(arr, x);
	}
	jadd(o, "gate_definitions", arr);
	arr = jnew_array();
	for (size_t g = 0; g < c->ngates; g++)
		jpush(arr, gate_json(&c->gates[g]));
	jadd(o, "gates", arr);
	jadd(o, "warnings", warnings_json(c));
	jadd(o, "blocking", blocking_json(c));
	jadd_int(o, "blocking_omitted", (int64_t)c->blocking_omitted);
	jadd_int(o, "tests_timed", (int64_t)c->tests_timed);
	arr = jnew_array();
	for (size_t i = 0; i < c->ntest_changes; i++) {
		const struct cmp_test_change *t = &c->test_changes[i];
		x = jnew_object();
		jadd_str(x, "variant", t->variant);
		jadd_str(x, "test", t->test);
		jadd_int(x, "n_reference", (int64_t)t->n_ref);
		jadd_int(x, "n", (int64_t)t->n);
		jadd_real(x, "reference_median_ms", t->ref_median_ms);
		jadd_real(x, "median_ms", t->median_ms);
		jadd_real(x, "change_pct", t->change_pct);
		jadd_opt(x, "mann_whitney_p", t->has_mw, t->mw_p, NULL, NULL);
		jadd_str(x, "interval_method", t->has_gi ? t->gi_method : NULL);
		jadd(x, "ratio_interval", interval_json(t->has_gi, t->gi_lo, t->gi_hi));
		jpush(arr, x);
	}
	jadd(o, "test_changes", arr);
	jadd(o, "missing", missing_json(c));
	return o;
}

char *evidence_comparison_document(const struct comparison *c,
				   const struct compare_gate_def *defs, size_t ndefs)
{
	cJSON *o = evidence_comparison_json(c, defs, ndefs, 1, NULL);
	char *text = json_print(o);

	cJSON_Delete(o);
	return text;
}

char *evidence_compare_document(const char *old_dir, const char *new_dir,
				const char *const *variants, const struct comparison *cmps, size_t n,
				const char *not_compared)
{
	cJSON *o = jnew_object(), *arr = jnew_array();
	char *text;

	jadd_str(o, "schema", EVIDENCE_COMPARE_SCHEMA);
	jadd_str(o, "old", old_dir);
	jadd_str(o, "new", new_dir);
	for (size_t i = 0; i < n; i++) {
		cJSON *v = jnew_object();
		jadd_str(v, "variant", variants[i]);
		jadd(v, "comparison", evidence_comparison_json(&cmps[i], NULL, 0, 4, NULL));
		jpush(arr, v);
	}
	jadd(o, "variants", arr);
	jadd_str(o, "not_compared", not_compared && *not_compared ? not_compared : NULL);
	text = json_print(o);
	cJSON_Delete(o);
	return text;
}

/* Written out once the buffer holds this much: few writes, little memory. */
#define RUN_FILE_CHUNK (256u * 1024)

/* result.json as it is written: the buffer, and the bytes written before it and their hash. */
struct run_writer {
	struct atomic_file f;
	struct strbuf sb;
	struct sha256 *h;
	size_t written;
};

/* Writes out what the buffer holds once it is a chunk (or always: all). 0 or -1 after error(). */
static int flush_run(struct run_writer *w, int all)
{
	if (!w->sb.len || (!all && w->sb.len < RUN_FILE_CHUNK))
		return 0;
	if (atomic_file_write(&w->f, w->sb.buf, w->sb.len) < 0)
		return -1;
	/* The bytes abev wrote, hashed as written (ledger.h): never read back. */
	sha256_update(w->h, w->sb.buf, w->sb.len);
	w->written += w->sb.len;
	strbuf_reset(&w->sb);
	return 0;
}

/* What the hole of sample s stands for: its values, written one at a time. */
static int put_values(struct run_writer *w, const struct value_hole *hole)
{
	strbuf_addch(&w->sb, '[');
	for (size_t i = 0; i < hole->s->n; i++) {
		if (i)
			strbuf_adds(&w->sb, ", ");
		add_value(&w->sb, &hole->s->values[i], hole->depth);
		if (flush_run(w, 0) < 0)
			return -1;
	}
	strbuf_addch(&w->sb, ']');
	return 0;
}

/*
 * result.json from its header head (printed: its last key an empty
 * "invocations" array, and where the comparison's values go, a
 * VALUE_HOLE per sample of holes), the samples' values and the
 * invocations, each turned into JSON and printed on its own: the same
 * bytes as printing the whole document at once, without ever holding
 * every value's or every invocation's JSON (hundreds of bytes each, a
 * run of a million invocations would need gigabytes).
 */
static int write_run_file(const struct dirat *root, struct ledger *l, const char *name,
			  const char *head, const struct value_holes *holes,
			  const struct invocation *invs, size_t ninvs)
{
	static const char tail[] = "[]\n}\n";
	struct run_writer w = { ATOMIC_FILE_INIT, STRBUF_INIT, sha256_new(), 0 };
	unsigned char digest[SHA256_LEN];
	size_t len = strlen(head), k = 0;
	int ret = -1;

	if (len < sizeof(tail) - 1 || strcmp(head + len - (sizeof(tail) - 1), tail)) {
		error("cannot write '%s/%s': its header does not end with the invocations",
		      root->path, name);
		goto out;
	}
	len -= sizeof(tail) - 1;
	if (atomic_file_open_at(&w.f, root, name) < 0)
		goto out;
	/* cJSON escapes every control character in a string: a VALUE_HOLE is a raw item's. */
	for (const char *p = head, *end = head + len, *hole; p < end; p = hole + 1) {
		hole = memchr(p, VALUE_HOLE[0], (size_t)(end - p));
		strbuf_add(&w.sb, p, (size_t)((hole ? hole : end) - p));
		if (!hole)
			break;
		if (k == holes->n) {
			error("cannot write '%s/%s': its header has more holes than values",
			      root->path, name);
			goto out;
		}
		if (put_values(&w, &holes->h[k++]) < 0)
			goto out;
	}
	if (k != holes->n) {
		error("cannot write '%s/%s': its header has fewer holes than values", root->path, name);
		goto out;
	}
	strbuf_addch(&w.sb, '[');
	for (size_t i = 0; i < ninvs; i++) {
		cJSON *inv = invocation_fields_json(&invs[i], 0);
		char *text = json_print_bare(inv, 1);

		if (i)
			strbuf_adds(&w.sb, ", ");
		add_indented(&w.sb, text, 2);
		free(text);
		cJSON_Delete(inv);
		if (flush_run(&w, 0) < 0)
			goto out;
	}
	strbuf_adds(&w.sb, "]\n}\n");
	if (flush_run(&w, 1) < 0 || atomic_file_commit(&w.f) < 0)
		goto out;
	sha256_final(w.h, digest);
	w.h = NULL;
	if (l)
		ledger_written(l, name, digest, (off_t)w.written);
	ret = 0;
out:
	if (w.h)
		sha256_final(w.h, digest);
	atomic_file_abort(&w.f);
	strbuf_release(&w.sb);
	return ret;
}

char *evidence_invocation_line(const struct invocation *inv)
{
	cJSON *o = invocation_fields_json(inv, 1);
	char *text = json_print_bare(o, 0);
	char *line;

	line = xasprintf("%s\n", text);
	free(text);
	cJSON_Delete(o);
	return line;
}

int evidence_write_run(const struct dirat *root, struct ledger *l, const char *file,
		       const struct run_header *hdr, const struct evidence_decision *dec,
		       const struct invocation *invs, size_t ninvs)
{
	struct value_holes holes = { NULL, 0, 0 };
	cJSON *o = jnew_object();
	char *head;
	int ret;

	run_fields_write(o, hdr);
	jadd(o, "comparison", dec && dec->comparison
				      ? evidence_comparison_json(dec->comparison, dec->gate_defs,
								 dec->ngate_defs, 2, &holes)
				      : jnull());
	/* Last, so that the invocations can follow the rest as it is printed. */
	jadd(o, "invocations", jnew_array());
	head = json_print(o);
	cJSON_Delete(o);
	ret = write_run_file(root, l, file ? file : EVIDENCE_RESULT_FILE, head, &holes, invs, ninvs);
	free(head);
	free(holes.h);
	return ret;
}
