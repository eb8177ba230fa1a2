/*
 * plan_metrics: a plan's metric definitions ("metrics") into struct
 * metric_def, and its gates — each metric's own limits and the top-level
 * "gates" object — into plan->gates. Every definition is checked as
 * metrics.c will use it (its source's keys, the process field from
 * metrics.c's one table, the pattern compiled), so that a bad one fails
 * before anything runs. It does not extract values (metrics.c does) or
 * judge gates (judge.c does).
 */
#include "plan/plan_loader.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "record/gate_def.h"
#include "results/dotnet_runtime.h"
#include "results/metrics.h"
#include "util/suggest.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/escape.h"
#include "util/strbuf.h"
#include "util/utf8.h"


#define METRIC_MATCHES "first, last, sum, mean"
#define METRIC_UNIT_MAX 64
#define METRIC_TEXT_MAX 4096

void plan_metric_def_release(struct metric_def *d)
{
	free(d->name);
	free(d->unit);
	free(d->field);
	free(d->process);
	free(d->test);
	free(d->pattern);
	memset(d, 0, sizeof(*d));
}

/* Characters, not bytes: continuation bytes of UTF-8 are not counted. */
static size_t utf8_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

int plan_loader_text(const struct plan_loader *ld, const cJSON *obj, const char *path,
		     const char *key, int required, size_t max, int allow_control, char **out)
{
	char b[SHOW_MAX], desc[UNSHOWN_DESC_LEN];
	char *p;
	int ret = -1;

	if (json_get_string(&ld->in, obj, path, key, (required ? JSON_REQUIRED : 0) | JSON_NONEMPTY,
			    out) < 0)
		return -1;
	if (!*out)
		return 0;
	p = json_key_path(path, key);
	if (utf8_len(*out) > max)
		json_in_error(&ld->in, p, "longer than %zu characters", max);
	else if (!allow_control && text_unshown(*out, strlen(*out), desc) < strlen(*out))
		json_in_error(&ld->in, p, "%s in '%s' (" PLAN_TEXT_RULE ")", desc,
			      show_str(b, sizeof(b), *out));
	else
		ret = 0;
	free(p);
	return ret;
}

/* Says which key a source wants or refuses, for the per-source rules below. */
static int key_rule(const struct plan_loader *ld, const cJSON *obj, const char *path,
		    const char *key, int wanted, const char *source, const char *missing,
		    const char *forbidden)
{
	int present = cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
	char *p;
	if (present == wanted)
		return 0;
	p = json_key_path(path, key);
	if (wanted)
		json_in_error(&ld->in, p, "missing (source %s needs %s)", source, missing);
	else
		json_in_error(&ld->in, p, "not used with source %s (%s)", source, forbidden);
	free(p);
	return -1;
}

/*
 * value looked up in names; an unknown one is reported as "unknown <what>
 * '<value>', did you mean ...? (expected one of: a, b, c)". Index or -1.
 */
static int get_enum(const struct plan_loader *ld, const char *path, const char *what,
		    const char *value, const char *const *names, size_t n)
{
	struct strbuf list = STRBUF_INIT;
	char b[SHOW_MAX];
	int i = plan_name_index(value, names, n);

	if (i >= 0)
		return i;
	for (size_t k = 0; k < n; k++)
		strbuf_addf(&list, "%s%s", k ? ", " : "", names[k]);
	json_in_error(&ld->in, path, "unknown %s '%s'" SUGGEST_FMT " (expected one of: %s)", what,
	     show_str(b, sizeof(b), value), SUGGEST_ARGS(suggest_nearest(value, names, n)), list.buf);
	strbuf_release(&list);
	return -1;
}

/* Compiles the pattern as metrics.c will, so that a bad one fails before any run. */
static int check_pattern(const struct plan_loader *ld, const char *path, const char *pattern)
{
	char b[SHOW_MAX], why[256];
	/* Before regcomp(): some patterns take gigabytes to compile. */
	const char *problem = metrics_pattern_problem(pattern);
	regex_t re;
	int rc, ret = 0;

	if (problem)
		return json_in_error(&ld->in, path, "'%s': %s", show_str(b, sizeof(b), pattern),
				     problem);
	rc = regcomp(&re, pattern, REG_EXTENDED);
	if (rc) {
		regerror(rc, &re, why, sizeof(why));
		return json_in_error(&ld->in, path, "invalid regular expression '%s': %s", show_str(b, sizeof(b), pattern), why);
	}
	if (re.re_nsub < 1)
		ret = json_in_error(&ld->in, path, "'%s' has no capture group (put the number in parentheses, "
			   "e.g. 'time=([0-9.]+)')", show_str(b, sizeof(b), pattern));
	regfree(&re);
	return ret;
}

/* The names a field may take with d's source, into names[] (room for the longer list); their count. */
static size_t field_names(const struct metric_def *d, const char **names)
{
	size_t n = 0;

	if (d->source == METRIC_DOTNET)
		for (; n < DOTNET_RT_FIGURES; n++)
			names[n] = dotnet_runtime_figure_name(n);
	else
		for (; n < METRIC_PROCESS_FIELDS; n++)
			names[n] = metric_def_field_name(n);
	return n;
}

/* Which of field, process, test, pattern and unit the metric's source wants, and the field's unit. */
static void metric_source_rules(const struct plan_loader *ld, const cJSON *obj, const char *path,
				struct metric_def *d)
{
	const char *src = metric_def_source_name(d->source);
	int is_process = d->source == METRIC_PROCESS;
	int is_dotnet = d->source == METRIC_DOTNET;
	int is_text = d->source == METRIC_STDOUT || d->source == METRIC_STDERR ||
		      d->source == METRIC_RESULTS;
	int has_test = d->source == METRIC_RESULTS || d->source == METRIC_DURATION;
	const char *fields[(int)METRIC_PROCESS_FIELDS + (int)DOTNET_RT_FIGURES];
	size_t nfields = field_names(d, fields);
	struct strbuf want = STRBUF_INIT;
	char *p = NULL;

	for (size_t i = 0; i < nfields; i++)
		strbuf_addf(&want, "%s%s", i ? ", " : "a field: one of ", fields[i]);
	key_rule(ld, obj, path, "field", is_process || is_dotnet, src, want.buf,
		 "only process and dotnet metrics have a field");
	key_rule(ld, obj, path, "test", has_test, src,
		 "a test: a glob over test names, e.g. '*Rebuild*'",
		 "only results and duration metrics name tests");
	key_rule(ld, obj, path, "pattern", is_text, src,
		 "a pattern: an extended regular expression whose first group captures "
		 "the number", "only stdout, stderr and results metrics have a pattern");
	key_rule(ld, obj, path, "unit", is_text, src, "a unit, e.g. \"ms\" or \"ops/s\"",
		 is_process || is_dotnet ? "the field implies it" : "durations are in ms");
	if ((is_process || is_dotnet) && cJSON_GetObjectItemCaseSensitive(obj, "match")) {
		p = json_key_path(path, "match");
		json_in_error(&ld->in, p, "not used with source %s (%s)", src,
			      is_process ? "a process figure has one value"
					 : "a runtime figure is summed over the processes, or "
					   "their largest for peak_heap_bytes");
		free(p);
		p = NULL;
	}
	if (is_dotnet && !ld->plan->dotnet_runtime) {
		p = json_key_path(path, "source");
		json_in_error(&ld->in, p, "source dotnet needs \"dotnet_runtime\": true (abev's "
			      "startup hook writes the figures)");
		free(p);
		p = NULL;
	}
	if (d->field) {
		int k;
		p = json_key_path(path, "field");
		k = get_enum(ld, p, "field", d->field, fields, nfields);
		free(p);
		if (k >= 0 && !d->unit)
			d->unit = xstrdup(is_dotnet ? dotnet_runtime_figure_unit((size_t)k)
					  : metric_def_field_unit((size_t)k));
	}
	if (d->source == METRIC_DURATION && !d->unit)
		d->unit = xstrdup("ms");
	if (d->process) {
		int f = metric_def_field_index(d->field);
		p = json_key_path(path, "process");
		if (!is_process && !is_dotnet)
			json_in_error(&ld->in, p, "only process and dotnet metrics name a process");
		else if (is_process && d->field && f != METRIC_FIELD_MAX_RSS &&
			 f != METRIC_FIELD_CPU)
			json_in_error(&ld->in, p, "a process has its own max_rss and cpu only, "
				      "not %s", d->field);
		free(p);
	}
	strbuf_release(&want);
}

/* better, match and derive: one of a few words each. */
static void metric_words(const struct plan_loader *ld, const char *path, struct metric_def *d,
			 const char *better, const char *match, const char *derive)
{
	static const char *const betters[] = { "lower", "higher" };
	static const char *const derives[] = { "rate" };
	const char *matches[MATCH_MEAN + 1];
	char b[SHOW_MAX];
	char *p = NULL;
	int i;

	for (i = 0; i <= MATCH_MEAN; i++)
		matches[i] = metric_def_match_name((enum metric_match)i);
	if (better && plan_name_index(better, betters, 2) < 0) {
		p = json_key_path(path, "better");
		json_in_error(&ld->in, p, "expected \"lower\" or \"higher\", found '%s'" SUGGEST_FMT,
		     show_str(b, sizeof(b), better), SUGGEST_ARGS(suggest_nearest(better, betters, 2)));
		free(p);
	} else if (better) {
		d->better_higher = !strcmp(better, "higher");
	}
	if (match) {
		p = json_key_path(path, "match");
		i = get_enum(ld, p, "match", match, matches, ARRAY_SIZE(matches));
		free(p);
		if (i >= 0)
			d->match = (enum metric_match)i;
	}
	if (derive && strcmp(derive, "rate")) {
		p = json_key_path(path, "derive");
		json_in_error(&ld->in, p, "expected \"rate\", found '%s'" SUGGEST_FMT, show_str(b, sizeof(b), derive),
		     SUGGEST_ARGS(suggest_nearest(derive, derives, 1)));
		free(p);
	} else if (derive) {
		d->derive_rate = 1;
	}
}

static int parse_metric(const struct plan_loader *ld, const cJSON *obj, const char *path,
			struct metric_def *d)
{
	const char *sources[METRIC_SOURCE_COUNT];
	char *source = NULL, *better = NULL, *match = NULL, *derive = NULL, *p = NULL;
	size_t before = json_in_count(&ld->in);
	int i;

	d->max_regression_pct = -1;
	d->max_improvement_pct = -1;
	if (!cJSON_IsObject(obj))
		return json_in_error(&ld->in, path, "expected an object, found %s", json_kind(obj));
	for (i = 0; i < METRIC_SOURCE_COUNT; i++)
		sources[i] = metric_def_source_name((enum metric_source)i);
	plan_loader_keys(ld, obj, path, "metrics[]", 0);
	plan_loader_text(ld, obj, path, "name", 1, PLAN_METRIC_NAME_MAX, 0, &d->name);
	plan_loader_text(ld, obj, path, "field", 0, METRIC_TEXT_MAX, 0, &d->field);
	plan_loader_text(ld, obj, path, "process", 0, METRIC_TEXT_MAX, 0, &d->process);
	plan_loader_text(ld, obj, path, "test", 0, METRIC_TEXT_MAX, 0, &d->test);
	plan_loader_text(ld, obj, path, "pattern", 0, METRIC_TEXT_MAX, 1, &d->pattern);
	plan_loader_text(ld, obj, path, "unit", 0, METRIC_UNIT_MAX, 0, &d->unit);
	json_get_string(&ld->in, obj, path, "better", 0, &better);
	json_get_string(&ld->in, obj, path, "match", 0, &match);
	json_get_string(&ld->in, obj, path, "derive", 0, &derive);
	json_get_number(&ld->in, obj, path, "max_regression_pct", 0, 0, 0, 1e6, &d->max_regression_pct);
	json_get_number(&ld->in, obj, path, "max_improvement_pct", 0, 0, 0, 1e6, &d->max_improvement_pct);
	json_get_number(&ld->in, obj, path, "budget", 0, -1e300, 0, 1e300, &d->budget);
	d->has_budget = cJSON_GetObjectItemCaseSensitive(obj, "budget") != NULL;
	if (json_get_string(&ld->in, obj, path, "source", JSON_REQUIRED | JSON_NONEMPTY, &source) > 0) {
		p = json_key_path(path, "source");
		i = get_enum(ld, p, "source", source, sources, ARRAY_SIZE(sources));
		if (i >= 0) {
			d->source = (enum metric_source)i;
			metric_source_rules(ld, obj, path, d);
		}
		free(p);
	}
	if (d->pattern) {
		p = json_key_path(path, "pattern");
		check_pattern(ld, p, d->pattern);
		free(p);
	}
	metric_words(ld, path, d, better, match, derive);
	free(source);
	free(better);
	free(match);
	free(derive);
	if (json_in_count(&ld->in) == before)
		return 0;
	plan_metric_def_release(d);
	return -1;
}

/* Non-zero when named's name is the "<name> (rate)" that deriving adds. */
static int is_rate_of(const struct metric_def *named, const struct metric_def *deriving)
{
	size_t len = strlen(deriving->name);
	return deriving->derive_rate && !strncmp(named->name, deriving->name, len) &&
	       !strcmp(named->name + len, " (rate)");
}

/*
 * Metric names key the evidence's "metrics" object, so the newest metric
 * defs[i] may not repeat an earlier name, nor clash either way with the
 * "<name> (rate)" a derived rate adds. at[k] is defs[k]'s index in the
 * plan's "metrics" (they differ once a metric was refused).
 */
static int check_metric_name(const struct plan_loader *ld, const struct metric_def *defs,
			     const size_t *at, size_t i)
{
	char b[SHOW_MAX];
	char *p = xasprintf("metrics[%zu].name", at[i]);
	int ret = -1;

	if (!strcmp(defs[i].name, COMPARE_WALL) || !strcmp(defs[i].name, COMPARE_CPU) ||
	    !strcmp(defs[i].name, COMPARE_MAX_RSS) || !strcmp(defs[i].name, COMPARE_WALL_OWN)) {
		json_in_error(&ld->in, p, "'%s' is the name of a built-in metric (" COMPARE_WALL ", " COMPARE_CPU
		     ", " COMPARE_MAX_RSS ", " COMPARE_WALL_OWN "); gate it in \"gates\" or choose "
		     "another name",
		     defs[i].name);
		goto out;
	}
	for (size_t j = 0; j < i; j++) {
		if (!strcmp(defs[i].name, defs[j].name)) {
			json_in_error(&ld->in, p, "duplicate metric name '%s' (also metrics[%zu])",
			     show_str(b, sizeof(b), defs[i].name), at[j]);
			goto out;
		}
		if (is_rate_of(&defs[i], &defs[j]) || is_rate_of(&defs[j], &defs[i])) {
			size_t named = is_rate_of(&defs[i], &defs[j]) ? i : j;
			free(p);
			p = xasprintf("metrics[%zu].name", at[named]);
			json_in_error(&ld->in, p, "'%s' is also the name of the rate metrics[%zu] derives",
			     show_str(b, sizeof(b), defs[named].name), at[named == i ? j : i]);
			goto out;
		}
	}
	ret = 0;
out:
	free(p);
	return ret;
}

/* Every metric is checked; a refused one is left out of plan->metrics. */
int plan_loader_metrics(const struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "metrics");
	const cJSON *e;
	size_t n = 0, k = 0, before = json_in_count(&ld->in);
	size_t *at;

	if (!m)
		return 0;
	if (!cJSON_IsArray(m))
		return json_in_error(&ld->in, "metrics", "expected an array of metric objects, found %s",
			    json_kind(m));
	cJSON_ArrayForEach(e, m)
		n++;
	if (n > PLAN_MAX_METRICS)
		return json_in_error(&ld->in, "metrics", "more than %d metrics", PLAN_MAX_METRICS);
	plan->metrics = xcalloc(n ? n : 1, sizeof(*plan->metrics));
	at = xcalloc(n ? n : 1, sizeof(*at));
	cJSON_ArrayForEach(e, m) {
		char *p = json_index_path("metrics", k);
		int r = parse_metric(ld, e, p, &plan->metrics[plan->nmetrics]);
		free(p);
		at[plan->nmetrics] = k++;
		if (r < 0)
			continue;
		plan->nmetrics++;
		if (check_metric_name(ld, plan->metrics, at, plan->nmetrics - 1) < 0)
			plan_metric_def_release(&plan->metrics[--plan->nmetrics]);
	}
	free(at);
	return json_in_count(&ld->in) > before ? -1 : 0;
}

static void add_gate(struct plan *plan, const char *metric, enum gate_kind kind, double limit)
{
	ALLOC_GROW(plan->gates, plan->ngates + 1, plan->gates_alloc);
	plan->gates[plan->ngates].metric = xstrdup(metric);
	plan->gates[plan->ngates].kind = kind;
	plan->gates[plan->ngates].limit = limit;
	plan->ngates++;
}

/* Index of an existing gate of this metric and kind, or -1. */
static int find_gate(const struct plan *plan, const char *metric, enum gate_kind kind)
{
	for (size_t i = 0; i < plan->ngates; i++)
		if (plan->gates[i].kind == kind && !strcmp(plan->gates[i].metric, metric))
			return (int)i;
	return -1;
}

/*
 * The gates: first each metric's own keys, in metric order, then the
 * top-level "gates" object, whose names may also be the built-in metrics
 * and derived rates. The same gate given in both places is an error.
 */

/*
 * Whether name is a metric a gate may name: built-in, the plan's or a
 * derived rate. An unknown one is reported with the nearest name, unless
 * some metric was refused (metrics_ok 0): it may be the one meant.
 */
static int gate_metric_known(const struct plan_loader *ld, const char *path, const char *name,
			     const struct metric_value *outs, size_t nouts, int metrics_ok)
{
	const char **names = xcalloc(nouts + 4, sizeof(*names));
	struct strbuf list = STRBUF_INIT;
	char b[SHOW_MAX];
	size_t n = 0;
	int known;

	names[n++] = COMPARE_WALL;
	names[n++] = COMPARE_CPU;
	names[n++] = COMPARE_MAX_RSS;
	names[n++] = COMPARE_WALL_OWN;
	for (size_t i = 0; i < nouts; i++)
		names[n++] = outs[i].name;
	known = plan_name_index(name, names, n) >= 0;
	if (!known && metrics_ok) {
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&list, "%s%s", i ? ", " : "", names[i]);
		json_in_error(&ld->in, path, "no metric is called '%s'" SUGGEST_FMT " (expected one of: %s)",
		     show_str(b, sizeof(b), name), SUGGEST_ARGS(suggest_nearest(name, names, n)), list.buf);
	}
	strbuf_release(&list);
	free(names);
	return known;
}

int plan_loader_gates(const struct plan_loader *ld, const cJSON *root, int metrics_ok)
{
	static const char *const keys[] = { "max_regression_pct", "max_improvement_pct", "budget" };
	struct plan *plan = ld->plan;
	struct metric_value *outs = NULL;
	size_t nouts = 0;
	const cJSON *gates, *e;
	size_t before = json_in_count(&ld->in);

	for (size_t i = 0; i < plan->nmetrics; i++) {
		const struct metric_def *d = &plan->metrics[i];
		if (d->max_regression_pct >= 0)
			add_gate(plan, d->name, GATE_MAX_REGRESSION, d->max_regression_pct);
		if (d->max_improvement_pct >= 0)
			add_gate(plan, d->name, GATE_MAX_IMPROVEMENT, d->max_improvement_pct);
		if (d->has_budget)
			add_gate(plan, d->name, GATE_BUDGET, d->budget);
	}
	if (json_get_object(&ld->in, root, "", "gates", 0, &gates) < 0)
		return -1;
	if (!gates)
		return 0;
	metrics_defs_outputs(plan->metrics, plan->nmetrics, &outs, &nouts);
	for (e = gates->child; e; e = e->next) {
		char *path = json_key_path("gates", e->string);
		double limit;

		for (const cJSON *d = gates->child; d != e; d = d->next)
			if (!strcmp(d->string, e->string)) {
				json_in_error(&ld->in, path, "key given twice");
				goto next;
			}
		if (!gate_metric_known(ld, path, e->string, outs, nouts, metrics_ok))
			goto next;
		if (!cJSON_IsObject(e)) {
			json_in_error(&ld->in, path, "expected an object of limits, found %s", json_kind(e));
			goto next;
		}
		if (!e->child) {
			json_in_error(&ld->in, path, "empty: give max_regression_pct, max_improvement_pct or budget");
			goto next;
		}
		if (plan_loader_keys(ld, e, path, "gates.<metric>", 0) < 0)
			goto next;
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			enum gate_kind kind = k == 0 ? GATE_MAX_REGRESSION
					      : k == 1 ? GATE_MAX_IMPROVEMENT : GATE_BUDGET;
			if (!cJSON_GetObjectItemCaseSensitive(e, keys[k]))
				continue;
			if (json_get_number(&ld->in, e, path, keys[k], 0, kind == GATE_BUDGET ? -1e300 : 0, 0,
				       kind == GATE_BUDGET ? 1e300 : 1e6, &limit) < 0)
				goto next;
			if (find_gate(plan, e->string, kind) >= 0) {
				char *kp = json_key_path(path, keys[k]);
				json_in_error(&ld->in, kp, "the metric's own definition already sets %s; give it "
				     "in one place", keys[k]);
				free(kp);
				goto next;
			}
			add_gate(plan, e->string, kind, limit);
		}
next:
		free(path);
	}
	metric_def_values_free(outs, nouts);
	return json_in_count(&ld->in) > before ? -1 : 0;
}
