/*
 * plan: turns a plan file (JSON, "abev.plan/1") and its optional variants
 * file into a struct plan. The loader is strict because a plan mistake
 * found an hour into a benchmark wastes that hour: unknown keys, wrong
 * types, out-of-range numbers, bad placeholders and metric patterns that
 * do not compile are all refused up front, each with one line naming the
 * file and the JSON path (or the line) — all of them in one pass,
 * collected in an errlist (through json_in.c's getters), with the nearest
 * known name (suggest.c) for a misspelt key or value. A plan with errors
 * can be kept partial (plan_load_partial()), holding what was read without
 * one, so that the same pass also names what is missing on this machine
 * (plan_check.c). The keys each object may have come from the reference,
 * plan_doc.c. This file reads the document, its schema and its small
 * sections (schedule, results, load, limits, exit codes, versions,
 * reference, decision, report); plan_variants.c reads the variants and
 * plan_metrics.c the metrics and gates. cJSON stays within these and
 * plan_json.c, which writes a plan back. It does not run anything, does
 * not look at what the plan names on this machine (plan_check.c does),
 * does not expand templates (plan_expand.c) and does not order the runs
 * (schedule.c does).
 */
#include "plan/plan.h"
#include "plan/plan_loader.h"
#include "util/cpulist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/errlist.h"
#include "util/json_in.h"
#include "util/json_text.h"
#include "plan/plan_doc.h"
#include "plan/plan_settings.h"
#include "util/name_rule.h"
#include "util/suggest.h"
#include "report/template.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"

#define PLAN_SCHEMA "abev.plan/1"
#define PLAN_MAX_SLOTS 1000000

#define PLAN_VERSION_RULE "use letters, digits, '.', '_' and '-', at most 64 characters"

/*
 * An array of fnmatch(3) patterns at obj's key (path names it; what, an
 * example, is for the error) into *out. Printable text only, at most max
 * bytes each, so that what the evidence names is what the plan said.
 */
static int parse_patterns(const struct plan_loader *ld, const cJSON *obj, const char *path,
			  const char *key, const char *what, size_t max, char ***out, size_t *n,
			  size_t *alloc)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key), *e;
	char *at = xasprintf("%s.%s", path, key);
	size_t i = 0;
	int ret = 0;

	if (j && !cJSON_IsArray(j))
		ret = json_in_error(&ld->in, at, "expected an array of %s, found %s", what,
				    json_kind(j));
	if (ret < 0 || !j) {
		free(at);
		return ret;
	}
	cJSON_ArrayForEach(e, j) {
		char *p = json_index_path(at, i++);
		int bad = !cJSON_IsString(e) || !*e->valuestring || strlen(e->valuestring) > max;

		for (const char *c = bad ? "" : e->valuestring; *c; c++)
			bad |= (unsigned char)*c < 0x20 || *c == 0x7f;
		if (bad)
			ret = json_in_error(&ld->in, p, "expected %s: a pattern of 1 to %zu printable "
					    "characters, found %s", what, max,
					    cJSON_IsString(e) ? "other text" : json_kind(e));
		free(p);
		if (bad)
			break;
		ALLOC_GROW(*out, *n + 1, *alloc);
		(*out)[(*n)++] = xstrdup(e->valuestring);
	}
	free(at);
	return ret;
}

static int parse_results(const struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *r;
	size_t before = json_in_count(&ld->in);

	if (json_get_object(&ld->in, root, "", "results", 0, &r) < 0)
		return -1;
	if (!r)
		return 0;
	plan_loader_keys(ld, r, "results", "results", 0);
	json_get_string(&ld->in, r, "results", "files", JSON_NONEMPTY, &plan->results_files);
	json_get_int(&ld->in, r, "results", "min_executed", 0, 0, JSON_INT_MAX, &plan->min_executed);
	parse_patterns(ld, r, "results", "known_failures", "test-name patterns (e.g. "
		       "\"Ns.FlakyTests.*\")", PLAN_TEST_PATTERN_MAX, &plan->known_failures,
		       &plan->nknown_failures, &plan->known_failures_alloc);
	if (json_in_count(&ld->in) > before)
		return -1;
	if (!plan->results_files) {
		if (plan->min_executed >= 0)
			return json_in_error(&ld->in, "results.min_executed",
				    "only used with \"files\" (add results.files, the test-result "
				    "files whose tests it counts)");
		if (plan->nknown_failures)
			return json_in_error(&ld->in, "results.known_failures",
				    "only used with \"files\" (add results.files, the test-result "
				    "files whose tests may fail)");
		return 0;
	}
	/* Refused, it is no pattern plan_check() could expand. */
	if (plan_loader_template(ld, "results.files", plan->results_files, PLAN_PH_ALL) < 0) {
		free(plan->results_files);
		plan->results_files = NULL;
		return -1;
	}
	/* Results that were asked for but hold no executed test are no evidence. */
	if (plan->min_executed < 0)
		plan->min_executed = 1;
	return 0;
}

/* load.exclusive: fnmatch(3) patterns of command lines. */
static int parse_exclusive(const struct plan_loader *ld, const cJSON *l)
{
	struct plan *plan = ld->plan;
	return parse_patterns(ld, l, "load", "exclusive", "command-line patterns (e.g. "
			      "\"dotnet test*\")", PLAN_EXCLUSIVE_PATTERN_MAX, &plan->set.exclusive,
			      &plan->set.nexclusive, &plan->set.exclusive_alloc);
}

static int parse_load(const struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *l;
	size_t before = json_in_count(&ld->in);

	if (json_get_object(&ld->in, root, "", "load", 0, &l) < 0)
		return -1;
	if (!l)
		return 0;
	plan_loader_keys(ld, l, "load", "load", 0);
	plan_settings_read(&ld->in, l, "load", plan);
	parse_exclusive(ld, l);
	if (json_in_count(&ld->in) > before)
		return -1;
	if (cJSON_GetObjectItemCaseSensitive(l, "max_cpu_wait_pct"))
		plan->set.max_cpu_wait_pct_from = "plan";
	if (cJSON_GetObjectItemCaseSensitive(l, "max_wait_seconds"))
		plan->set.max_wait_seconds_from = "plan";
	return 0;
}

static int parse_limits(const struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *l;

	if (json_get_object(&ld->in, root, "", "limits", 0, &l) < 0)
		return -1;
	if (!l)
		return 0;
	plan_loader_keys(ld, l, "limits", "limits", 0);
	return plan_settings_read(&ld->in, l, "limits", plan) ? -1 : 0;
}

static int parse_exit_codes(const struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "allowed_exit_codes");
	const cJSON *e;
	char b[SHOW_MAX];
	size_t seen[256];
	size_t n = 0, i = 0, before = json_in_count(&ld->in);

	if (!a) {
		plan->allowed_exit_codes = xmalloc(sizeof(*plan->allowed_exit_codes));
		plan->allowed_exit_codes[0] = 0;
		plan->nallowed_exit_codes = 1;
		return 0;
	}
	if (!cJSON_IsArray(a) || !a->child)
		return json_in_error(&ld->in, "allowed_exit_codes",
			    "expected a non-empty array of integers from 0 to 255, found %s",
			    json_kind(a));
	cJSON_ArrayForEach(e, a)
		n++;
	/* 256 distinct codes at most: more means a duplicate, found below in order. */
	plan->allowed_exit_codes = xcalloc(n < 256 ? n : 256, sizeof(*plan->allowed_exit_codes));
	memset(seen, 0, sizeof(seen));
	n = 0;
	cJSON_ArrayForEach(e, a) {
		char *p = json_index_path("allowed_exit_codes", i);
		int code;
		i++;
		if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) ||
		    e->valuedouble != floor(e->valuedouble) || e->valuedouble < 0 ||
		    e->valuedouble > 255) {
			json_in_error(&ld->in, p, "expected an integer from 0 to 255, found %s", json_found(b, e));
			free(p);
			continue;
		}
		code = (int)e->valuedouble;
		free(p);
		if (seen[code]) {
			p = json_index_path("allowed_exit_codes", i - 1);
			json_in_error(&ld->in, p, "exit code %d given twice (also allowed_exit_codes[%zu])", code,
			     seen[code] - 1);
			free(p);
			continue;
		}
		seen[code] = i;
		plan->allowed_exit_codes[plan->nallowed_exit_codes++] = code;
	}
	return json_in_count(&ld->in) > before ? -1 : 0;
}

int plan_exit_code_allowed(const struct plan *plan, int code)
{
	for (size_t i = 0; i < plan->nallowed_exit_codes; i++)
		if (plan->allowed_exit_codes[i] == code)
			return 1;
	return 0;
}

static void plan_version_release(struct plan_version *v)
{
	free(v->name);
	for (size_t i = 0; i < v->argc; i++)
		free(v->argv[i]);
	free(v->argv);
	memset(v, 0, sizeof(*v));
}

/* One "versions" entry: an argv taken literally, since it runs outside any run. */
static int parse_version(const struct plan_loader *ld, const cJSON *e, struct plan_version *v)
{
	const cJSON *a;
	char *p = json_key_path("versions", e->string), *pi = NULL;
	size_t n = 0;
	int ret = -1;

	if (!cJSON_IsArray(e) || !e->child) {
		json_in_error(&ld->in, p, "expected a non-empty array of strings, found %s", json_kind(e));
		goto out;
	}
	cJSON_ArrayForEach(a, e)
		n++;
	v->name = xstrdup(e->string);
	v->argv = xcalloc(n, sizeof(*v->argv));
	cJSON_ArrayForEach(a, e) {
		if (!cJSON_IsString(a)) {
			pi = json_index_path(p, v->argc);
			json_in_error(&ld->in, pi, "expected a string, found %s", json_kind(a));
			goto out;
		}
		if (!v->argc && !*a->valuestring) {
			pi = json_index_path(p, 0);
			json_in_error(&ld->in, pi, "expected a program name, found an empty string");
			goto out;
		}
		v->argv[v->argc++] = xstrdup(a->valuestring);
	}
	ret = 0;
out:
	free(pi);
	free(p);
	if (ret < 0)
		plan_version_release(v);
	return ret;
}

static int parse_versions(const struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *vs, *e;
	char b[SHOW_MAX];
	size_t n = 0, before = json_in_count(&ld->in);

	if (json_get_object(&ld->in, root, "", "versions", 0, &vs) < 0)
		return -1;
	if (!vs)
		return 0;
	cJSON_ArrayForEach(e, vs)
		n++;
	if (n > PLAN_MAX_VERSIONS)
		return json_in_error(&ld->in, "versions", "more than %d commands", PLAN_MAX_VERSIONS);
	plan->versions = xcalloc(n ? n : 1, sizeof(*plan->versions));
	cJSON_ArrayForEach(e, vs) {
		size_t i;
		if (!name_rule_ok(e->string)) {
			json_in_error(&ld->in, "versions", "invalid name '%s' (" PLAN_VERSION_RULE ")",
			     show_str(b, sizeof(b), e->string));
			continue;
		}
		for (i = 0; i < plan->nversions; i++)
			if (!strcmp(plan->versions[i].name, e->string))
				break;
		if (i < plan->nversions) {
			char *p = json_key_path("versions", e->string);
			json_in_error(&ld->in, p, "key given twice");
			free(p);
			continue;
		}
		if (parse_version(ld, e, &plan->versions[plan->nversions]) == 0)
			plan->nversions++;
	}
	return json_in_count(&ld->in) > before ? -1 : 0;
}

static int parse_reference(const struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	char b[SHOW_MAX];
	char *name = NULL;
	const char **names;
	struct strbuf list = STRBUF_INIT;
	int i, ret = 0;

	if (json_get_string(&ld->in, root, "", "reference", JSON_NONEMPTY, &name) < 0)
		return -1;
	if (!name)
		return 0;
	names = xcalloc(plan->nvariants, sizeof(*names));
	for (size_t k = 0; k < plan->nvariants; k++) {
		names[k] = plan->variants[k].name;
		strbuf_addf(&list, "%s%s", k ? ", " : "", names[k]);
	}
	i = plan_name_index(name, names, plan->nvariants);
	if (i >= 0)
		plan->reference = (size_t)i;
	else
		ret = json_in_error(&ld->in, "reference", "no variant is called '%s'" SUGGEST_FMT
			   " (the variants: %s)", show_str(b, sizeof(b), name),
			   SUGGEST_ARGS(suggest_nearest(name, names, plan->nvariants)), list.buf);
	free(names);
	free(name);
	strbuf_release(&list);
	return ret;
}

/*
 * "report": {"template": PATH}: the plan's own report.md template,
 * relative to the plan. Read now, so that a missing file or a syntax
 * error is a plan error before anything runs; names are checked when
 * the report is rendered.
 */
static int parse_report(const struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *rep;
	struct strbuf sb = STRBUF_INIT;
	char b[SHOW_MAX];
	char *given = NULL, *abs = NULL, *err = NULL;
	enum read_small_result r;
	int ret = -1;

	if (json_get_object(&ld->in, root, "", "report", 0, &rep) < 0)
		return -1;
	if (!rep)
		return 0;
	if (plan_loader_keys(ld, rep, "report", "report", 0) < 0 ||
	    json_get_string(&ld->in, rep, "report", "template", JSON_REQUIRED | JSON_NONEMPTY, &given) < 0)
		goto out;
	abs = given[0] == '/' ? xstrdup(given) : path_join(plan->dir, given);
	/* A regular file (a symbolic link the plan names is followed), never a FIFO to block on. */
	r = read_small(&sb, abs, TMPL_SIZE_MAX, READ_REGULAR);
	if (r != READ_SMALL_OK) {
		err = read_small_why(r, errno, TMPL_SIZE_MAX);
		json_in_error(&ld->in, "report.template", "cannot read '%s': %s",
			      show_str(b, sizeof(b), given), err);
		goto out;
	}
	if (template_check(sb.buf, sb.len, given, &err) < 0) {
		json_in_error(&ld->in, "report.template", "%s", err);
		goto out;
	}
	plan->report_template = strbuf_detach(&sb, &plan->report_template_len);
	plan->report_template_path = abs;
	abs = NULL;
	ret = 0;
out:
	strbuf_release(&sb);
	free(given);
	free(abs);
	free(err);
	return ret;
}

static int parse_decision(const struct plan_loader *ld, const cJSON *root)
{
	static const char *const words[] = { "pass", "fail" };
	struct plan *plan = ld->plan;
	const cJSON *d;
	char b[SHOW_MAX];
	char *inconclusive = NULL;
	size_t before = json_in_count(&ld->in);

	if (json_get_object(&ld->in, root, "", "decision", 0, &d) < 0)
		return -1;
	if (!d)
		return 0;
	plan_loader_keys(ld, d, "decision", "decision", 0);
	plan_settings_read(&ld->in, d, "decision", plan);
	json_get_string(&ld->in, d, "decision", "inconclusive", JSON_NONEMPTY, &inconclusive);
	if (inconclusive && plan_name_index(inconclusive, words, 2) < 0)
		json_in_error(&ld->in, "decision.inconclusive", "expected \"pass\" (exit 0) or \"fail\" "
		     "(exit 6), found '%s'" SUGGEST_FMT, show_str(b, sizeof(b), inconclusive),
		     SUGGEST_ARGS(suggest_nearest(inconclusive, words, 2)));
	else if (inconclusive)
		plan->inconclusive_fails = !strcmp(inconclusive, "fail");
	free(inconclusive);
	return json_in_count(&ld->in) > before ? -1 : 0;
}

/* The schema first: a plan for a later abev would otherwise fail on its new keys. */
static int check_schema(const struct plan_loader *ld, const cJSON *root)
{
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
	char b[SHOW_MAX];

	if (!schema)
		return json_in_error(&ld->in, "schema", "missing (expected \"" PLAN_SCHEMA "\")");
	if (!cJSON_IsString(schema))
		return json_in_error(&ld->in, "schema", "expected \"" PLAN_SCHEMA "\", found %s", json_kind(schema));
	if (strcmp(schema->valuestring, PLAN_SCHEMA))
		return json_in_error(&ld->in, "schema", "expected \"" PLAN_SCHEMA "\", found \"%s\"",
			    show_str(b, sizeof(b), schema->valuestring));
	return 0;
}

/*
 * Every section is read even after another failed, so that one run names
 * every problem; a check that builds on a section (the reference on the
 * variants, gates on the metrics, the number of invocations on both) is
 * left out when that section failed, rather than adding a follow-on error.
 */
static int parse_top(struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	size_t before = json_in_count(&ld->in);
	int sched_ok, metrics_ok, variants_ok;

	if (!cJSON_IsObject(root))
		return errlist_add(ld->in.errors, "%s: expected a JSON object at the top level, found %s",
				   ld->file, json_kind(root));
	if (check_schema(ld, root) < 0)
		return -1;
	plan_loader_keys(ld, root, "", "", 0);
	/* A one-line label: it heads the terminal's output and the report. */
	plan_loader_text(ld, root, "", "name", 1, PLAN_NAME_TEXT_MAX, 0, &plan->name);
	json_get_string(&ld->in, root, "", "description", 0, &plan->description);
	/* A user name: 32 characters is what useradd allows. */
	if (plan_loader_text(ld, root, "", "run_as", 0, 32, 0, &plan->run_as) < 0) {
		free(plan->run_as);
		plan->run_as = NULL;
	}
	if (plan->run_as)
		plan->run_as_from = "plan";
	plan_settings_read(&ld->in, root, "", plan);
	sched_ok = plan_loader_schedule(ld, root) == 0;
	/* A refused schedule may be one whose prepare would have made a program. */
	plan->prepare_unknown = !sched_ok;
	parse_results(ld, root);
	parse_load(ld, root);
	parse_limits(ld, root);
	metrics_ok = plan_loader_metrics(ld, root) == 0;
	parse_exit_codes(ld, root);
	parse_versions(ld, root);
	variants_ok = plan_loader_variants(ld, root) == 0;
	if (variants_ok)
		parse_reference(ld, root);
	plan_loader_gates(ld, root, metrics_ok);
	parse_decision(ld, root);
	if (sched_ok)
		plan_loader_settle_rounds(ld);
	if (sched_ok && variants_ok &&
	    ((uint64_t)plan->set.warmups + plan->set.runs) * plan->nvariants > PLAN_MAX_SLOTS)
		json_in_error(&ld->in, "schedule", "(warmups + runs) x %zu variants is more than %d invocations",
		     plan->nvariants, PLAN_MAX_SLOTS);
	parse_report(ld, root);
	return json_in_count(&ld->in) > before ? -1 : 0;
}

/*
 * "p.json:7:3: malformed JSON near '...'", pointing at where cJSON gave
 * up. cJSON sometimes gives up only at the end of the input (a trailing
 * comma, a missing bracket); the last thing before the end is then the
 * most useful place to point at.
 */
static void report_malformed(const struct plan_loader *ld, const char *buf, size_t len,
			     size_t off, const char *what)
{
	char b[SHOW_MAX];
	size_t line, col, n, last;
	if (off > len)
		off = len;
	if (what) {
		json_text_line_col(buf, off, &line, &col);
		error("%s:%zu:%zu: malformed JSON: %s", ld->file, line, col, what);
		return;
	}
	if (off < len) {
		json_text_line_col(buf, off, &line, &col);
		for (n = 0; off + n < len && n < 24 && buf[off + n] != '\n' && buf[off + n] != '\r'; n++)
			;
		error("%s:%zu:%zu: malformed JSON near '%s'", ld->file, line, col,
		      show_text(b, sizeof(b), buf + off, n));
		return;
	}
	for (last = len; last > 0; last--) {
		char c = buf[last - 1];
		if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
			break;
	}
	if (!last) {
		error("%s:1:1: malformed JSON: the file is empty", ld->file);
		return;
	}
	json_text_line_col(buf, last - 1, &line, &col);
	for (n = 0; n < 24 && n < last && buf[last - 1 - n] != '\n'; n++)
		;
	while (n > 1 && (buf[last - n] == ' ' || buf[last - n] == '\t'))
		n--;
	error("%s:%zu:%zu: malformed JSON: unexpected end of file after '%s'", ld->file, line, col,
	      show_text(b, sizeof(b), buf + last - n, n));
}

static cJSON *parse_json(const struct plan_loader *ld)
{
	const struct plan *plan = ld->plan;
	const char *nul = memchr(plan->raw, '\0', plan->raw_len);
	const char *end = NULL;
	cJSON *root;

	/* cJSON would stop at a NUL and call the rest fine: refuse it here. */
	if (nul) {
		report_malformed(ld, plan->raw, plan->raw_len, (size_t)(nul - plan->raw),
				 "NUL byte");
		return NULL;
	}
	/* Depth, UTF-8 and \u0000: what cJSON would call malformed, or let through. */
	if (json_text_check(ld->file, plan->raw, plan->raw_len, JSON_TEXT_MAX_DEPTH) < 0)
		return NULL;
	/*
	 * The length includes the terminating NUL: with require_null_terminated
	 * cJSON insists on finding it after the value, which is how trailing
	 * garbage is caught.
	 */
	root = cJSON_ParseWithLengthOpts(plan->raw, plan->raw_len + 1, &end, 1);
	if (!root) {
		size_t off = end && end >= plan->raw ? (size_t)(end - plan->raw) : 0;
		report_malformed(ld, plan->raw, plan->raw_len, off, NULL);
	}
	return root;
}

/* The absolute directory of the plan, which relative paths in it are relative to. */
static int plan_dir(struct plan *plan, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	int ret = 0;

	plan->dir = realpath(dir, NULL);
	if (!plan->dir)
		ret = error("cannot resolve the directory of '%s': %s", path, strerror(errno));
	free(dir);
	return ret;
}

/* Every default of a plan, before its file says otherwise. */
static void plan_defaults(struct plan *plan, const char *path)
{
	memset(plan, 0, sizeof(*plan));
	plan->path = xstrdup(path);
	plan_settings_defaults(plan);
	plan->set.order = PLAN_ORDER_DEFAULT;
	plan->set.order_from = "default";
	plan->set.runs_from = "default";
	plan->min_executed = -1;
	plan->set.max_cpu_wait_pct_from = "default";
	plan->set.max_wait_seconds_from = "default";
	plan->set.step_timeout_seconds_from = "default";
	/*
	 * A board gates on the exit code: an inconclusive decision fails
	 * unless the plan opts out, so that no regression passes unseen.
	 */
	plan->inconclusive_fails = 1;
}

/*
 * The plan in plan->raw, read from path (or named so): validated into
 * *plan, every problem added to errors. On -1 the plan is partial.
 */
static int plan_parse_raw(struct plan *plan, const char *path, struct errlist *errors)
{
	/* Messages name the plan as given, escaped: it may come from anywhere. */
	char *shown = xstrdup_escaped(path);
	struct plan_loader ld = { plan, shown, NULL, NULL, 0, { shown, errors, NULL } };
	cJSON *root = NULL;
	int ret = -1;

	if (plan_dir(plan, path) < 0)
		goto out;
	root = parse_json(&ld);
	if (!root)
		goto out;
	ret = parse_top(&ld, root);
	plan_loader_inherit_schedule(plan);
	if (ret == 0 && plan_loader_settle_order(&ld) < 0)
		ret = -1;
out:
	cJSON_Delete(root);
	if (ld.origin) {
		for (size_t i = 0; i < plan->nvariants; i++)
			free(ld.origin[i]);
		free(ld.origin);
	}
	free(ld.vfile_shown);
	free(shown);
	return ret;
}

int plan_load_partial(struct plan *plan, const char *path, struct errlist *errors)
{
	struct strbuf sb = STRBUF_INIT;

	plan_defaults(plan, path);
	if (read_file_capped(&sb, path, PLAN_MAX_BYTES) < 0) {
		strbuf_release(&sb);
		return -1;
	}
	plan->raw = strbuf_detach(&sb, &plan->raw_len);
	return plan_parse_raw(plan, path, errors);
}

int plan_parse_partial(struct plan *plan, const char *path, const char *text, size_t len,
		       struct errlist *errors)
{
	plan_defaults(plan, path);
	if (len > PLAN_MAX_BYTES)
		return errlist_add(errors, "%s: the plan is larger than %u bytes", path,
				   PLAN_MAX_BYTES);
	plan->raw = xmalloc(len + 1);
	memcpy(plan->raw, text, len);
	plan->raw[len] = '\0';
	plan->raw_len = len;
	return plan_parse_raw(plan, path, errors);
}

/* A whole plan, or every problem reported and nothing kept. */
static int plan_whole(struct plan *plan, int ret, struct errlist *errors)
{
	if (errlist_report(errors) < 0 || ret < 0) {
		plan_release(plan);
		return -1;
	}
	return 0;
}

int plan_load(struct plan *plan, const char *path)
{
	struct errlist errors = ERRLIST_INIT;

	return plan_whole(plan, plan_load_partial(plan, path, &errors), &errors);
}

int plan_parse(struct plan *plan, const char *path, const char *text, size_t len)
{
	struct errlist errors = ERRLIST_INIT;

	return plan_whole(plan, plan_parse_partial(plan, path, text, len, &errors), &errors);
}

void plan_release(struct plan *plan)
{
	if (!plan)
		return;
	free(plan->path);
	free(plan->dir);
	free(plan->raw);
	free(plan->name);
	free(plan->description);
	free(plan->run_as);
	free(plan->report_template);
	free(plan->report_template_path);
	for (size_t i = 0; i < plan->nvariants; i++)
		plan_variant_release(&plan->variants[i]);
	free(plan->variants);
	free(plan->set.cpus);
	strv_free_n(plan->prepare, plan->prepare_len);
	strv_free_n(plan->setup, plan->setup_len);
	strv_free_n(plan->cleanup, plan->cleanup_len);
	free(plan->looks);
	free(plan->variants_file);
	free(plan->results_files);
	for (size_t i = 0; i < plan->set.nexclusive; i++)
		free(plan->set.exclusive[i]);
	free(plan->set.exclusive);
	for (size_t i = 0; i < plan->nknown_failures; i++)
		free(plan->known_failures[i]);
	free(plan->known_failures);
	for (size_t i = 0; i < plan->nmetrics; i++)
		plan_metric_def_release(&plan->metrics[i]);
	free(plan->metrics);
	free(plan->allowed_exit_codes);
	for (size_t i = 0; i < plan->nversions; i++)
		plan_version_release(&plan->versions[i]);
	free(plan->versions);
	for (size_t i = 0; i < plan->ngates; i++)
		free(plan->gates[i].metric);
	free(plan->gates);
	memset(plan, 0, sizeof(*plan));
}
