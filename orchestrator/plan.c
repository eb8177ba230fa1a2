/*
 * plan: turns a plan file (JSON, "abev.plan/1") and its optional variants
 * file into a struct plan. cJSON lives only here (and in plan_json.c, which
 * writes a plan back). The loader is strict because a plan mistake found
 * an hour into a benchmark wastes that hour: unknown keys, wrong types,
 * out-of-range numbers, bad placeholders and metric patterns that do not
 * compile are all refused up front, each with one line naming the file and
 * the JSON path (or the line) — all of them in one pass, collected in an
 * errlist, with the nearest known name (suggest.c) for a misspelt key or
 * value. The keys each object may have come from the reference, plan_doc.c.
 * It does not run anything, does not look at what the plan names on this
 * machine (plan_check.c does), does not expand templates (plan_expand.c)
 * and does not order the runs (schedule.c does).
 */
#define _XOPEN_SOURCE 700
#include "plan.h"
#include "cpulist.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "errlist.h"
#include "plan_doc.h"
#include "suggest.h"
#include "template.h"
#include "util.h"

#define PLAN_SCHEMA "abev.plan/1"
#define VARIANTS_FILE_MAX_BYTES (1u << 20)
/* Across "variants" and the variants file together. */
#define PLAN_MAX_VARIANTS 10000
#define PLAN_MAX_ENV 4096
#define PLAN_MAX_SLOTS 1000000
#define PLAN_MAX_ROUNDS 1000000
/* Above 2^53 a double no longer holds every integer. */
#define JSON_INT_MAX 9007199254740991LL
/* Room for a quoted piece of input in a message. */
#define SHOW_MAX 64

struct loader {
	struct plan *plan;
	const char *file;    /* the plan as given, for messages */
	char *vfile_shown;   /* the variants file as messages name it */
	char **origin;       /* per variant: "variants[1]" or "vars.txt:3" */
	struct errlist *errors; /* every problem found, reported together at the end */
};

#define PH_ALL PLAN_PH_ALL
#define PH_VARIANT PLAN_PH_VARIANT
#define PLAN_VERSION_RULE "use letters, digits, '.', '_' and '-', at most 64 characters"

static const char *const order_names[] = {
	[PLAN_ORDER_ALTERNATE] = "alternate",
	[PLAN_ORDER_REVERSE] = "reverse",
	[PLAN_ORDER_SHUFFLE] = "shuffle",
};

const char *plan_order_name(enum plan_order order)
{
	if ((size_t)order < ARRAY_SIZE(order_names))
		return order_names[order];
	return "unknown";
}

/*
 * Copies n bytes of s into buf for a one-line message: control bytes
 * become \xNN so that hostile input cannot break the line, and long
 * input is cut with "...".
 */
static const char *show_n(char buf[SHOW_MAX], const char *s, size_t n)
{
	return show_text(buf, SHOW_MAX, s, n);
}

static const char *show(char buf[SHOW_MAX], const char *s)
{
	return show_n(buf, s, strlen(s));
}

static const char *json_kind(const cJSON *j)
{
	if (cJSON_IsString(j))
		return *j->valuestring ? "a string" : "an empty string";
	if (cJSON_IsNumber(j))
		return "a number";
	if (cJSON_IsBool(j))
		return "a boolean";
	if (cJSON_IsNull(j))
		return "null";
	if (cJSON_IsArray(j))
		return cJSON_GetArraySize(j) ? "an array" : "an empty array";
	if (cJSON_IsObject(j))
		return "an object";
	return "an invalid value";
}

/* What a value is, for "found ...": numbers are shown, others named. */
static const char *json_found(char buf[SHOW_MAX], const cJSON *j)
{
	if (cJSON_IsNumber(j)) {
		snprintf(buf, SHOW_MAX, "%.15g", j->valuedouble);
		return buf;
	}
	return json_kind(j);
}

/* error() for the plan: "<file>: <path>: <msg>". */
static int perr(const struct loader *ld, const char *path, const char *fmt, ...)
	ABEV_PRINTF(3, 4);
static int perr(const struct loader *ld, const char *path, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	errlist_add(ld->errors, "%s: %s: %s", ld->file, path, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* error() for the variants file: "<file>:<line>: <msg>". */
static int lerr(const struct loader *ld, size_t line, const char *fmt, ...)
	ABEV_PRINTF(3, 4);
static int lerr(const struct loader *ld, size_t line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	errlist_add(ld->errors, "%s:%zu: %s", ld->vfile_shown, line, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* Problems found so far: a step failed when this grew. */
static size_t nerr(const struct loader *ld)
{
	return ld->errors->total;
}

/* "schedule" + "runs" -> "schedule.runs"; the top level has no prefix. Caller frees. */
static char *key_path(const char *path, const char *key)
{
	char b[SHOW_MAX];
	if (!*path)
		return xstrdup(show(b, key));
	return xasprintf("%s.%s", path, show(b, key));
}

static char *index_path(const char *path, size_t i)
{
	return xasprintf("%s[%zu]", path, i);
}

/*
 * Refuses members that the reference (plan_doc.c) does not list under
 * doc_parent (without "name" when skip_name: the base variant), naming
 * the known ones and the nearest of them, and members given twice, which
 * cJSON would otherwise keep silently with the first one winning. Every
 * such member is reported.
 */
static int check_keys(const struct loader *ld, const cJSON *obj, const char *path,
		      const char *doc_parent, int skip_name)
{
	const char *known[PLAN_DOC_MAX_CHILDREN];
	size_t nknown = plan_doc_children(doc_parent, known, ARRAY_SIZE(known));
	size_t before = nerr(ld);

	/* The base names no variant and prepares none (schedule.prepare does). */
	for (size_t i = 0; skip_name && i < nknown;) {
		if (strcmp(known[i], "name") && strcmp(known[i], "prepare")) {
			i++;
			continue;
		}
		nknown--;
		memmove(known + i, known + i + 1, (nknown - i) * sizeof(*known));
	}
	for (const cJSON *c = obj->child; c; c = c->next) {
		size_t i;
		for (i = 0; i < nknown; i++)
			if (!strcmp(c->string, known[i]))
				break;
		if (i == nknown) {
			struct strbuf list = STRBUF_INIT;
			const char *near = suggest_nearest(c->string, known, nknown);
			char *p = key_path(path, c->string);
			for (i = 0; i < nknown; i++)
				strbuf_addf(&list, "%s%s", i ? ", " : "", known[i]);
			perr(ld, p, "unknown key" SUGGEST_FMT " (expected one of: %s)",
			     SUGGEST_ARGS(near), list.buf);
			strbuf_release(&list);
			free(p);
			continue;
		}
		for (const cJSON *d = obj->child; d != c; d = d->next) {
			if (!strcmp(d->string, c->string)) {
				char *p = key_path(path, c->string);
				perr(ld, p, "key given twice");
				free(p);
				break;
			}
		}
	}
	return nerr(ld) > before ? -1 : 0;
}

/* Looks for an object member; *out is NULL when absent. Checks the object type. */
static int get_object(const struct loader *ld, const cJSON *obj, const char *path,
		      const char *key, const cJSON **out)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
	*out = NULL;
	if (!j)
		return 0;
	if (!cJSON_IsObject(j)) {
		char *p = key_path(path, key);
		perr(ld, p, "expected an object, found %s", json_kind(j));
		free(p);
		return -1;
	}
	*out = j;
	return 0;
}

/* Sets *out (caller frees) when key is present; leaves it alone otherwise. */
static int get_string(const struct loader *ld, const cJSON *obj, const char *path,
		      const char *key, int required, int nonempty, char **out)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
	const char *want = nonempty ? "a non-empty string" : "a string";
	char *p;
	if (!j && !required)
		return 0;
	if (j && cJSON_IsString(j) && (!nonempty || *j->valuestring)) {
		free(*out);
		*out = xstrdup(j->valuestring);
		return 0;
	}
	p = key_path(path, key);
	if (!j)
		perr(ld, p, "missing (expected %s)", want);
	else
		perr(ld, p, "expected %s, found %s", want, json_kind(j));
	free(p);
	return -1;
}

/* JSON numbers are doubles: an integer is one with no fraction, within range. */
static int get_int(const struct loader *ld, const cJSON *obj, const char *path,
		   const char *key, int64_t min, int64_t max, int64_t *out)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
	char b[SHOW_MAX];
	char *p;
	if (!j)
		return 0;
	if (cJSON_IsNumber(j) && isfinite(j->valuedouble) &&
	    j->valuedouble == floor(j->valuedouble) &&
	    j->valuedouble >= (double)min && j->valuedouble <= (double)max) {
		*out = (int64_t)j->valuedouble;
		return 0;
	}
	p = key_path(path, key);
	if (max == JSON_INT_MAX)
		perr(ld, p, "expected an integer >= %lld, found %s",
		     (long long)min, json_found(b, j));
	else
		perr(ld, p, "expected an integer from %lld to %lld, found %s",
		     (long long)min, (long long)max, json_found(b, j));
	free(p);
	return -1;
}

/* A number >= min (> min when min_exclusive) and <= max. */
static int get_number(const struct loader *ld, const cJSON *obj, const char *path,
		      const char *key, double min, int min_exclusive, double max, double *out)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
	char b[SHOW_MAX];
	char *p;
	if (!j)
		return 0;
	if (cJSON_IsNumber(j) && isfinite(j->valuedouble) &&
	    (min_exclusive ? j->valuedouble > min : j->valuedouble >= min) &&
	    j->valuedouble <= max) {
		*out = j->valuedouble;
		return 0;
	}
	p = key_path(path, key);
	perr(ld, p, "expected a number %s %g and <= %g, found %s",
	     min_exclusive ? ">" : ">=", min, max, json_found(b, j));
	free(p);
	return -1;
}

/* allowed: the placeholders the template may use (PH_ALL, PH_VARIANT). */
static int check_template_only(const struct loader *ld, const char *path, const char *tmpl,
			       unsigned allowed)
{
	char why[160];
	if (plan_template_check(tmpl, allowed, why, sizeof(why)) < 0)
		return perr(ld, path, "%s", why);
	return 0;
}

static int check_template(const struct loader *ld, const char *path, const char *tmpl)
{
	return check_template_only(ld, path, tmpl, PH_ALL);
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > PLAN_NAME_MAX || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

#define NAME_RULE "use letters, digits, '.', '_' and '-', not starting with '.', at most 64 characters"

static int valid_env_key(const char *s, size_t n)
{
	if (!n || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

static void variant_release(struct plan_variant *v)
{
	free(v->name);
	free(v->cwd);
	for (size_t i = 0; i < v->command_len; i++)
		free(v->command[i]);
	free(v->command);
	for (size_t i = 0; i < v->env_len; i++) {
		free(v->env[i].key);
		free(v->env[i].value);
	}
	free(v->env);
	for (size_t i = 0; i < v->assemblies_len; i++)
		free(v->assemblies[i]);
	free(v->assemblies);
	free(v->cpus);
	for (size_t i = 0; i < v->prepare_len; i++)
		free(v->prepare[i]);
	free(v->prepare);
	memset(v, 0, sizeof(*v));
}

/*
 * The variant's directory, absolute: relative to the plan's directory, and
 * canonical where it exists. Whether it exists is plan_check()'s question
 * (what is on this machine), asked before anything runs.
 */
static char *resolve_dir(const struct loader *ld, const char *dir)
{
	char *abs = dir[0] == '/' ? xstrdup(dir) : path_join(ld->plan->dir, dir);
	char *real = realpath(abs, NULL);

	if (!real)
		return abs;
	free(abs);
	return real;
}

/* An array of strings (each a template) into a NULL-free vector. */
static int get_string_array(const struct loader *ld, const cJSON *j, const char *path,
			    unsigned allowed, char ***out, size_t *out_len)
{
	size_t n = 0, i = 0, before = nerr(ld);
	const cJSON *e;

	cJSON_ArrayForEach(e, j)
		n++;
	*out = xcalloc(n, sizeof(**out));
	*out_len = 0;
	cJSON_ArrayForEach(e, j) {
		char *p = index_path(path, i++);
		if (!cJSON_IsString(e))
			perr(ld, p, "expected a string, found %s", json_kind(e));
		else if (check_template_only(ld, p, e->valuestring, allowed) == 0)
			(*out)[(*out_len)++] = xstrdup(e->valuestring);
		free(p);
	}
	return nerr(ld) > before ? -1 : 0;
}

/*
 * An argv template array under key of obj ("command", "prepare"): a
 * non-empty array of strings whose first is a program name. Absent is an
 * error when required, else leaves *argv NULL.
 */
static int parse_argv(const struct loader *ld, const cJSON *obj, const char *path,
		      const char *key, int required, char ***argv, size_t *argc)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
	char *p = key_path(path, key);
	char *p0 = NULL;
	int ret = -1;

	if (!j && !required) {
		ret = 0;
		goto out;
	}
	if (!j) {
		perr(ld, p, "missing (expected a non-empty array of strings)");
		goto out;
	}
	if (!cJSON_IsArray(j) || !j->child) {
		perr(ld, p, "expected a non-empty array of strings, found %s", json_kind(j));
		goto out;
	}
	if (get_string_array(ld, j, p, PH_ALL, argv, argc) < 0)
		goto out;
	if (!*(*argv)[0]) {
		p0 = index_path(p, 0);
		perr(ld, p0, "expected a program name, found an empty string");
		goto out;
	}
	ret = 0;
out:
	free(p0);
	free(p);
	return ret;
}

static int parse_command(const struct loader *ld, const cJSON *obj, const char *path,
			 struct plan_variant *v)
{
	return parse_argv(ld, obj, path, "command", 1, &v->command, &v->command_len);
}

static int parse_env(const struct loader *ld, const cJSON *obj, const char *path,
		     struct plan_variant *v)
{
	const cJSON *j, *e;
	char b[SHOW_MAX];
	char *p = key_path(path, "env");
	size_t n = 0, before = nerr(ld);
	int ret = -1;

	if (get_object(ld, obj, path, "env", &j) < 0)
		goto out;
	if (!j) {
		ret = 0;
		goto out;
	}
	cJSON_ArrayForEach(e, j)
		n++;
	if (n > PLAN_MAX_ENV) {
		perr(ld, p, "more than %d variables", PLAN_MAX_ENV);
		goto out;
	}
	v->env = xcalloc(n, sizeof(*v->env));
	cJSON_ArrayForEach(e, j) {
		char *pk;
		size_t i;
		if (!valid_env_key(e->string, strlen(e->string))) {
			perr(ld, p, "invalid variable name '%s' (expected [A-Za-z_][A-Za-z0-9_]*)",
			     show(b, e->string));
			continue;
		}
		for (i = 0; i < v->env_len; i++)
			if (!strcmp(v->env[i].key, e->string))
				break;
		if (i < v->env_len) {
			perr(ld, p, "variable '%s' given twice", e->string);
			continue;
		}
		pk = key_path(p, e->string);
		if (!cJSON_IsString(e)) {
			perr(ld, pk, "expected a string, found %s", json_kind(e));
		} else if (check_template(ld, pk, e->valuestring) == 0) {
			v->env[v->env_len].key = xstrdup(e->string);
			v->env[v->env_len].value = xstrdup(e->valuestring);
			v->env_len++;
		}
		free(pk);
	}
	ret = nerr(ld) > before ? -1 : 0;
out:
	free(p);
	return ret;
}

/*
 * "cpus": a CPU list ("0-1", "0,2") in *out, canonical (caller frees);
 * left alone when absent.
 */
static int get_cpus(const struct loader *ld, const cJSON *obj, const char *path, char **out)
{
	struct cpulist cl;
	char *text = NULL, *why = NULL, *p = NULL;
	int ret = 0;

	if (get_string(ld, obj, path, "cpus", 0, 1, &text) < 0)
		return -1;
	if (!text)
		return 0;
	if (cpulist_parse(text, &cl, &why) < 0) {
		p = key_path(path, "cpus");
		perr(ld, p, "%s", why);
		ret = -1;
	} else {
		free(*out);
		*out = cpulist_format(&cl);
	}
	free(p);
	free(why);
	free(text);
	return ret;
}

/* A variant object, or the "base" object (no name) that variants-file lines build on. */
static int parse_variant(const struct loader *ld, const cJSON *obj, const char *path,
			 int is_base, struct plan_variant *v)
{
	const cJSON *j;
	char b[SHOW_MAX];
	char *cwd = NULL, *p = NULL;
	size_t before = nerr(ld);

	if (!cJSON_IsObject(obj))
		return perr(ld, path, "expected an object, found %s", json_kind(obj));
	check_keys(ld, obj, path, "variants[]", is_base);
	if (!is_base && get_string(ld, obj, path, "name", 1, 1, &v->name) == 0 &&
	    !valid_name(v->name)) {
		p = key_path(path, "name");
		perr(ld, p, "invalid variant name '%s' (" NAME_RULE ")", show(b, v->name));
		free(p);
	}
	if (get_string(ld, obj, path, "cwd", 0, 1, &cwd) == 0)
		v->cwd = cwd ? resolve_dir(ld, cwd) : xstrdup(ld->plan->dir);
	parse_command(ld, obj, path, v);
	get_cpus(ld, obj, path, &v->cpus);
	/* The base has no prepare command of its own: schedule.prepare is for every variant. */
	if (!is_base)
		parse_argv(ld, obj, path, "prepare", 0, &v->prepare, &v->prepare_len);
	parse_env(ld, obj, path, v);
	j = cJSON_GetObjectItemCaseSensitive(obj, "assemblies");
	if (j) {
		p = key_path(path, "assemblies");
		if (!cJSON_IsArray(j))
			perr(ld, p, "expected an array of strings, found %s", json_kind(j));
		else
			get_string_array(ld, j, p, PH_VARIANT, &v->assemblies, &v->assemblies_len);
		free(p);
	}
	free(cwd);
	if (nerr(ld) == before)
		return 0;
	variant_release(v);
	return -1;
}

/*
 * Appends v (taking it and origin over, also on failure) after checking
 * that its name is new and that there is room.
 */
static int add_variant(struct loader *ld, struct plan_variant *v, char *origin,
		       const char *path, size_t line)
{
	struct plan *plan = ld->plan;
	int ret = -1;

	if (plan->nvariants >= PLAN_MAX_VARIANTS) {
		if (path)
			perr(ld, path, "more than %d variants", PLAN_MAX_VARIANTS);
		else
			lerr(ld, line, "more than %d variants", PLAN_MAX_VARIANTS);
		goto out;
	}
	for (size_t i = 0; i < plan->nvariants; i++) {
		if (strcmp(plan->variants[i].name, v->name))
			continue;
		if (path) {
			char *p = key_path(path, "name");
			perr(ld, p, "duplicate variant name '%s' (also %s)", v->name, ld->origin[i]);
			free(p);
		} else {
			lerr(ld, line, "duplicate variant name '%s' (also %s)", v->name,
			     ld->origin[i]);
		}
		goto out;
	}
	plan->variants = xrealloc(plan->variants, (plan->nvariants + 1) * sizeof(*plan->variants));
	ld->origin = xrealloc(ld->origin, (plan->nvariants + 1) * sizeof(*ld->origin));
	plan->variants[plan->nvariants] = *v;
	ld->origin[plan->nvariants] = origin;
	plan->nvariants++;
	memset(v, 0, sizeof(*v));
	origin = NULL;
	ret = 0;
out:
	if (ret < 0)
		variant_release(v);
	free(origin);
	return ret;
}

/*
 * Splits one word off *s for the variants file: blanks end it, single and
 * double quotes group (no escapes inside), and with stop_at_pipe an
 * unquoted '|' ends the section. Returns 1 with a word, 0 at the end of
 * the section, -1 for an unterminated quote (its character in *quote).
 */
static int next_word(const char **s, int stop_at_pipe, struct strbuf *word, char *quote)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || (stop_at_pipe && *p == '|')) {
		*s = p;
		return 0;
	}
	strbuf_reset(word);
	while (*p && *p != ' ' && *p != '\t' && !(stop_at_pipe && *p == '|')) {
		if (*p == '\'' || *p == '"') {
			const char *end = strchr(p + 1, *p);
			if (!end) {
				*quote = *p;
				return -1;
			}
			strbuf_add(word, p + 1, (size_t)(end - p - 1));
			p = end + 1;
		} else {
			strbuf_addch(word, *p++);
		}
	}
	*s = p;
	return 1;
}

static void variant_env_set(struct plan_variant *v, const char *key, size_t key_len, const char *value)
{
	for (size_t i = 0; i < v->env_len; i++) {
		if (strlen(v->env[i].key) == key_len && !memcmp(v->env[i].key, key, key_len)) {
			free(v->env[i].value);
			v->env[i].value = xstrdup(value);
			return;
		}
	}
	v->env = xrealloc(v->env, (v->env_len + 1) * sizeof(*v->env));
	v->env[v->env_len].key = xstrndup(key, key_len);
	v->env[v->env_len].value = xstrdup(value);
	v->env_len++;
}

static void copy_strings(char ***dst, size_t *dst_len, char *const *src, size_t n)
{
	*dst = xcalloc(n, sizeof(**dst));
	for (size_t i = 0; i < n; i++)
		(*dst)[i] = xstrdup(src[i]);
	*dst_len = n;
}

/* One line "name|ENV=V ENV2=W|extra args" into a variant built from base. */
static int parse_variant_line(struct loader *ld, const char *line, size_t lineno,
			      const struct plan_variant *base)
{
	struct plan_variant v = { 0 };
	struct strbuf word = STRBUF_INIT;
	char why[160], b[SHOW_MAX];
	const char *s = line, *bar;
	char quote = 0;
	size_t name_len;
	int r = 0, ret = -1;

	while (*s == ' ' || *s == '\t')
		s++;
	bar = strchr(s, '|');
	name_len = bar ? (size_t)(bar - s) : strlen(s);
	while (name_len && (s[name_len - 1] == ' ' || s[name_len - 1] == '\t'))
		name_len--;
	if (!name_len) {
		lerr(ld, lineno, "missing variant name (expected 'name|ENV=V ...|extra args')");
		goto out;
	}
	v.name = xstrndup(s, name_len);
	if (!valid_name(v.name)) {
		lerr(ld, lineno, "invalid variant name '%s' (" NAME_RULE ")", show(b, v.name));
		goto out;
	}
	v.cwd = xstrdup(base->cwd);
	copy_strings(&v.command, &v.command_len, base->command, base->command_len);
	copy_strings(&v.assemblies, &v.assemblies_len, base->assemblies, base->assemblies_len);
	v.cpus = base->cpus ? xstrdup(base->cpus) : NULL;
	v.env = xcalloc(base->env_len, sizeof(*v.env));
	for (size_t i = 0; i < base->env_len; i++) {
		v.env[i].key = xstrdup(base->env[i].key);
		v.env[i].value = xstrdup(base->env[i].value);
	}
	v.env_len = base->env_len;

	s = bar ? bar + 1 : s + name_len;
	while (bar && (r = next_word(&s, 1, &word, &quote)) == 1) {
		const char *eq = strchr(word.buf, '=');
		if (!eq || !valid_env_key(word.buf, (size_t)(eq - word.buf))) {
			lerr(ld, lineno, "'%s' is not an ENV=VALUE assignment", show(b, word.buf));
			goto out;
		}
		if (plan_check_template(eq + 1, why, sizeof(why)) < 0) {
			lerr(ld, lineno, "'%s': %s", show(b, word.buf), why);
			goto out;
		}
		variant_env_set(&v, word.buf, (size_t)(eq - word.buf), eq + 1);
		if (v.env_len > PLAN_MAX_ENV) {
			lerr(ld, lineno, "more than %d variables", PLAN_MAX_ENV);
			goto out;
		}
	}
	if (bar && r < 0)
		goto unterminated;
	if (*s == '|') {
		s++;
		while ((r = next_word(&s, 0, &word, &quote)) == 1) {
			if (plan_check_template(word.buf, why, sizeof(why)) < 0) {
				lerr(ld, lineno, "argument '%s': %s", show(b, word.buf), why);
				goto out;
			}
			v.command = xrealloc(v.command, (v.command_len + 1) * sizeof(*v.command));
			v.command[v.command_len++] = strbuf_detach(&word, NULL);
		}
		if (r < 0)
			goto unterminated;
	}
	ret = add_variant(ld, &v, xasprintf("%s:%zu", ld->vfile_shown, lineno), NULL, lineno);
	goto out;
unterminated:
	lerr(ld, lineno, "unterminated %c quote", quote);
out:
	strbuf_release(&word);
	variant_release(&v);
	return ret;
}

/* The variants file as a user would type it: next to the plan as given. */
static char *shown_beside_plan(const char *plan_path, const char *name)
{
	const char *slash = strrchr(plan_path, '/');
	if (name[0] == '/' || !slash)
		return xstrdup(name);
	return xasprintf("%.*s/%s", (int)(slash - plan_path), plan_path, name);
}

static int load_variants_file(struct loader *ld, const char *given, const struct plan_variant *base)
{
	struct plan *plan = ld->plan;
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	const char *p, *end;
	size_t lineno = 0;
	int ret = -1;

	plan->variants_file = given[0] == '/' ? xstrdup(given) : path_join(plan->dir, given);
	ld->vfile_shown = shown_beside_plan(ld->file, given);
	/* Name the plan key too: the user may not know which file this is. */
	if (stat(plan->variants_file, &st) < 0) {
		perr(ld, "variants_file", "cannot read '%s': %s", ld->vfile_shown, strerror(errno));
		goto out;
	}
	if (read_file_capped(&sb, plan->variants_file, VARIANTS_FILE_MAX_BYTES) < 0)
		goto out;
	p = sb.buf;
	end = sb.buf + sb.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line;
		const char *t;
		lineno++;
		if (memchr(p, '\0', len)) {
			lerr(ld, lineno, "NUL byte in line");
			p = nl ? nl + 1 : end;
			continue;
		}
		if (len && p[len - 1] == '\r')
			len--;
		line = xstrndup(p, len);
		p = nl ? nl + 1 : end;
		for (t = line; *t == ' ' || *t == '\t'; t++)
			;
		/* A bad line is reported and the next one read: all problems at once. */
		if (*t && *t != '#')
			parse_variant_line(ld, line, lineno, base);
		free(line);
	}
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

static int parse_schedule(const struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *s;
	char b[SHOW_MAX];
	char *order = NULL;
	size_t before = nerr(ld);
	int64_t warmups = plan->warmups, runs = plan->runs, seed = (int64_t)plan->seed;
	int ret = -1;

	if (get_object(ld, root, "", "schedule", &s) < 0)
		goto out;
	if (!s)
		return 0;
	check_keys(ld, s, "schedule", "schedule", 0);
	get_int(ld, s, "schedule", "warmups", 0, PLAN_MAX_ROUNDS, &warmups);
	get_int(ld, s, "schedule", "runs", 1, PLAN_MAX_ROUNDS, &runs);
	get_string(ld, s, "schedule", "order", 0, 0, &order);
	get_int(ld, s, "schedule", "seed", 0, JSON_INT_MAX, &seed);
	get_number(ld, s, "schedule", "gap_seconds", 0, 0, 86400, &plan->gap_seconds);
	get_number(ld, s, "schedule", "timeout_seconds", 0, 1, 7 * 86400.0, &plan->timeout_seconds);
	get_number(ld, s, "schedule", "kill_grace_seconds", 0, 0, 3600, &plan->kill_grace_seconds);
	get_cpus(ld, s, "schedule", &plan->cpus);
	parse_argv(ld, s, "schedule", "prepare", 0, &plan->prepare, &plan->prepare_len);
	plan->warmups = (unsigned)warmups;
	plan->runs = (unsigned)runs;
	plan->seed = (uint64_t)seed;
	if (order) {
		size_t i;
		for (i = 0; i < ARRAY_SIZE(order_names); i++)
			if (!strcmp(order, order_names[i]))
				break;
		if (i == ARRAY_SIZE(order_names)) {
			const char *near = suggest_nearest(order, order_names, ARRAY_SIZE(order_names));
			perr(ld, "schedule.order", "unknown order '%s'" SUGGEST_FMT
			     " (expected one of: alternate, reverse, shuffle)", show(b, order),
			     SUGGEST_ARGS(near));
			goto out;
		}
		plan->order = (enum plan_order)i;
	}
	ret = nerr(ld) > before ? -1 : 0;
out:
	free(order);
	return ret;
}

static int parse_results(const struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *r;
	size_t before = nerr(ld);

	if (get_object(ld, root, "", "results", &r) < 0)
		return -1;
	if (!r)
		return 0;
	check_keys(ld, r, "results", "results", 0);
	get_string(ld, r, "results", "files", 0, 1, &plan->results_files);
	get_int(ld, r, "results", "min_executed", 0, JSON_INT_MAX, &plan->min_executed);
	if (nerr(ld) > before)
		return -1;
	if (!plan->results_files) {
		if (plan->min_executed >= 0)
			return perr(ld, "results.min_executed",
				    "only used with \"files\" (add results.files, the test-result "
				    "files whose tests it counts)");
		return 0;
	}
	if (check_template(ld, "results.files", plan->results_files) < 0)
		return -1;
	/* Results that were asked for but hold no executed test are no evidence. */
	if (plan->min_executed < 0)
		plan->min_executed = 1;
	return 0;
}

/*
 * load.exclusive: fnmatch(3) patterns of command lines. Printable text
 * only, so that what the evidence names is what the plan said.
 */
static int parse_exclusive(const struct loader *ld, const cJSON *l)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(l, "exclusive");
	struct plan *plan = ld->plan;
	const cJSON *e;
	size_t i = 0;

	if (!j)
		return 0;
	if (!cJSON_IsArray(j))
		return perr(ld, "load.exclusive", "expected an array of command-line patterns, "
			    "found %s", json_kind(j));
	cJSON_ArrayForEach(e, j) {
		char *p = index_path("load.exclusive", i++);
		int bad = !cJSON_IsString(e) || !*e->valuestring ||
			  strlen(e->valuestring) > PLAN_EXCLUSIVE_PATTERN_MAX;

		for (const char *c = bad ? "" : e->valuestring; *c; c++)
			bad |= (unsigned char)*c < 0x20 || *c == 0x7f;
		if (bad) {
			perr(ld, p, "expected a pattern of 1 to %d printable characters (e.g. "
			     "\"dotnet test*\"), found %s",
			     PLAN_EXCLUSIVE_PATTERN_MAX, cJSON_IsString(e) ? "other text" : json_kind(e));
			free(p);
			return -1;
		}
		free(p);
		plan->exclusive = xrealloc(plan->exclusive,
					   (plan->nexclusive + 1) * sizeof(*plan->exclusive));
		plan->exclusive[plan->nexclusive++] = xstrdup(e->valuestring);
	}
	return 0;
}

static int parse_load(const struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *l;
	int64_t repeats = plan->max_repeats;
	size_t before = nerr(ld);

	if (get_object(ld, root, "", "load", &l) < 0)
		return -1;
	if (!l)
		return 0;
	check_keys(ld, l, "load", "load", 0);
	get_number(ld, l, "load", "max_foreign_cpu", 0, 0, 1e6, &plan->max_foreign_cpu);
	get_number(ld, l, "load", "max_cpu_wait_pct", 0, 0, 100, &plan->max_cpu_wait_pct);
	get_int(ld, l, "load", "max_repeats", 0, 1000, &repeats);
	parse_exclusive(ld, l);
	if (nerr(ld) > before)
		return -1;
	plan->max_repeats = (unsigned)repeats;
	if (cJSON_GetObjectItemCaseSensitive(l, "max_cpu_wait_pct"))
		plan->max_cpu_wait_pct_from = "plan";
	return 0;
}

static int parse_limits(const struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *l;
	int64_t files = plan->max_files;
	int64_t log_bytes = plan->max_log_bytes;
	size_t before = nerr(ld);

	if (get_object(ld, root, "", "limits", &l) < 0)
		return -1;
	if (!l)
		return 0;
	check_keys(ld, l, "limits", "limits", 0);
	get_int(ld, l, "limits", "max_files", 1, PLAN_MAX_FILES_CEILING, &files);
	get_number(ld, l, "limits", "pattern_cpu_seconds", 0, 1, 3600, &plan->pattern_cpu_seconds);
	get_int(ld, l, "limits", "max_log_bytes", 0, JSON_INT_MAX, &log_bytes);
	if (nerr(ld) > before)
		return -1;
	plan->max_files = (unsigned)files;
	plan->max_log_bytes = log_bytes;
	return 0;
}

/* The process figures a metric may name, and the units they come in. */
static const struct {
	const char *field;
	const char *unit;
} process_fields[] = {
	{ "wall", "ms" },       { "user", "ms" },       { "sys", "ms" },
	{ "cpu", "ms" },        { "max_rss", "bytes" }, { "minflt", "count" },
	{ "majflt", "count" },  { "nvcsw", "count" },   { "nivcsw", "count" },
};
#define PROCESS_FIELDS "wall, user, sys, cpu, max_rss, minflt, majflt, nvcsw, nivcsw"
#define METRIC_SOURCES "process, stdout, stderr, results, duration"
#define METRIC_MATCHES "first, last, sum, mean"
#define METRIC_UNIT_MAX 64
#define METRIC_TEXT_MAX 4096

static void metric_def_release(struct metric_def *d)
{
	free(d->name);
	free(d->unit);
	free(d->field);
	free(d->test);
	free(d->pattern);
	memset(d, 0, sizeof(*d));
}

/* A string without control characters (hostile names would break evidence lines). */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return 1;
	return 0;
}

/* Characters, not bytes: continuation bytes of UTF-8 are not counted. */
static size_t utf8_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/*
 * A non-empty string of at most max characters without control characters
 * (unless allow_control: patterns may well match a newline).
 */
static int get_text(const struct loader *ld, const cJSON *obj, const char *path,
		    const char *key, int required, size_t max, int allow_control, char **out)
{
	char b[SHOW_MAX];
	char *p;
	int ret = -1;

	if (get_string(ld, obj, path, key, required, 1, out) < 0)
		return -1;
	if (!*out)
		return 0;
	p = key_path(path, key);
	if (utf8_len(*out) > max)
		perr(ld, p, "longer than %zu characters", max);
	else if (!allow_control && has_control(*out))
		perr(ld, p, "control character in '%s'", show(b, *out));
	else
		ret = 0;
	free(p);
	return ret;
}

/* Says which key a source wants or refuses, for the per-source rules below. */
static int key_rule(const struct loader *ld, const cJSON *obj, const char *path,
		    const char *key, int wanted, const char *source, const char *missing,
		    const char *forbidden)
{
	int present = cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
	char *p;
	if (present == wanted)
		return 0;
	p = key_path(path, key);
	if (wanted)
		perr(ld, p, "missing (source %s needs %s)", source, missing);
	else
		perr(ld, p, "not used with source %s (%s)", source, forbidden);
	free(p);
	return -1;
}

/* Index of value in names[0..n), or -1. */
static int name_index(const char *value, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(value, names[i]))
			return (int)i;
	return -1;
}

/*
 * value looked up in names; an unknown one is reported as "unknown <what>
 * '<value>', did you mean ...? (expected one of: a, b, c)". Index or -1.
 */
static int get_enum(const struct loader *ld, const char *path, const char *what,
		    const char *value, const char *const *names, size_t n)
{
	struct strbuf list = STRBUF_INIT;
	char b[SHOW_MAX];
	int i = name_index(value, names, n);

	if (i >= 0)
		return i;
	for (size_t k = 0; k < n; k++)
		strbuf_addf(&list, "%s%s", k ? ", " : "", names[k]);
	perr(ld, path, "unknown %s '%s'" SUGGEST_FMT " (expected one of: %s)", what,
	     show(b, value), SUGGEST_ARGS(suggest_nearest(value, names, n)), list.buf);
	strbuf_release(&list);
	return -1;
}

/* Compiles the pattern as metrics.c will, so that a bad one fails before any run. */
static int check_pattern(const struct loader *ld, const char *path, const char *pattern)
{
	char b[SHOW_MAX], why[256];
	regex_t re;
	int rc = regcomp(&re, pattern, REG_EXTENDED);
	int ret = 0;

	if (rc) {
		regerror(rc, &re, why, sizeof(why));
		return perr(ld, path, "invalid regular expression '%s': %s", show(b, pattern), why);
	}
	if (metric_pattern_problem(pattern))
		ret = perr(ld, path, "'%s': %s", show(b, pattern), metric_pattern_problem(pattern));
	else if (re.re_nsub < 1)
		ret = perr(ld, path, "'%s' has no capture group (put the number in parentheses, "
			   "e.g. 'time=([0-9.]+)')", show(b, pattern));
	regfree(&re);
	return ret;
}

/* Which of field, test, pattern and unit the metric's source wants, and the field's unit. */
static void metric_source_rules(const struct loader *ld, const cJSON *obj, const char *path,
				struct metric_def *d)
{
	const char *src = metric_source_name(d->source);
	int is_process = d->source == METRIC_PROCESS;
	int is_text = d->source == METRIC_STDOUT || d->source == METRIC_STDERR ||
		      d->source == METRIC_RESULTS;
	int has_test = d->source == METRIC_RESULTS || d->source == METRIC_DURATION;
	char *p = NULL;

	key_rule(ld, obj, path, "field", is_process, src,
		 "a field: one of " PROCESS_FIELDS, "only process metrics have a field");
	key_rule(ld, obj, path, "test", has_test, src,
		 "a test: a glob over test names, e.g. '*Rebuild*'",
		 "only results and duration metrics name tests");
	key_rule(ld, obj, path, "pattern", is_text, src,
		 "a pattern: an extended regular expression whose first group captures "
		 "the number", "only stdout, stderr and results metrics have a pattern");
	key_rule(ld, obj, path, "unit", is_text, src, "a unit, e.g. \"ms\" or \"ops/s\"",
		 is_process ? "the field implies it" : "durations are in ms");
	if (is_process && cJSON_GetObjectItemCaseSensitive(obj, "match")) {
		p = key_path(path, "match");
		perr(ld, p, "not used with source process (a process figure has one value)");
		free(p);
	}
	if (d->field) {
		const char *fields[ARRAY_SIZE(process_fields)];
		int k;
		for (size_t i = 0; i < ARRAY_SIZE(process_fields); i++)
			fields[i] = process_fields[i].field;
		p = key_path(path, "field");
		k = get_enum(ld, p, "field", d->field, fields, ARRAY_SIZE(fields));
		free(p);
		if (k >= 0 && !d->unit)
			d->unit = xstrdup(process_fields[k].unit);
	}
	if (d->source == METRIC_DURATION && !d->unit)
		d->unit = xstrdup("ms");
}

/* better, match and derive: one of a few words each. */
static void metric_words(const struct loader *ld, const char *path, struct metric_def *d,
			 const char *better, const char *match, const char *derive)
{
	static const char *const betters[] = { "lower", "higher" };
	static const char *const derives[] = { "rate" };
	const char *matches[MATCH_MEAN + 1];
	char b[SHOW_MAX];
	char *p = NULL;
	int i;

	for (i = 0; i <= MATCH_MEAN; i++)
		matches[i] = metric_match_name((enum metric_match)i);
	if (better && name_index(better, betters, 2) < 0) {
		p = key_path(path, "better");
		perr(ld, p, "expected \"lower\" or \"higher\", found '%s'" SUGGEST_FMT,
		     show(b, better), SUGGEST_ARGS(suggest_nearest(better, betters, 2)));
		free(p);
	} else if (better) {
		d->better_higher = !strcmp(better, "higher");
	}
	if (match) {
		p = key_path(path, "match");
		i = get_enum(ld, p, "match", match, matches, ARRAY_SIZE(matches));
		free(p);
		if (i >= 0)
			d->match = (enum metric_match)i;
	}
	if (derive && strcmp(derive, "rate")) {
		p = key_path(path, "derive");
		perr(ld, p, "expected \"rate\", found '%s'" SUGGEST_FMT, show(b, derive),
		     SUGGEST_ARGS(suggest_nearest(derive, derives, 1)));
		free(p);
	} else if (derive) {
		d->derive_rate = 1;
	}
}

static int parse_metric(const struct loader *ld, const cJSON *obj, const char *path,
			struct metric_def *d)
{
	const char *sources[METRIC_DURATION + 1];
	char *source = NULL, *better = NULL, *match = NULL, *derive = NULL, *p = NULL;
	size_t before = nerr(ld);
	int i;

	d->max_regression_pct = -1;
	d->max_improvement_pct = -1;
	if (!cJSON_IsObject(obj))
		return perr(ld, path, "expected an object, found %s", json_kind(obj));
	for (i = 0; i <= METRIC_DURATION; i++)
		sources[i] = metric_source_name((enum metric_source)i);
	check_keys(ld, obj, path, "metrics[]", 0);
	get_text(ld, obj, path, "name", 1, PLAN_METRIC_NAME_MAX, 0, &d->name);
	get_text(ld, obj, path, "field", 0, METRIC_TEXT_MAX, 0, &d->field);
	get_text(ld, obj, path, "test", 0, METRIC_TEXT_MAX, 0, &d->test);
	get_text(ld, obj, path, "pattern", 0, METRIC_TEXT_MAX, 1, &d->pattern);
	get_text(ld, obj, path, "unit", 0, METRIC_UNIT_MAX, 0, &d->unit);
	get_string(ld, obj, path, "better", 0, 0, &better);
	get_string(ld, obj, path, "match", 0, 0, &match);
	get_string(ld, obj, path, "derive", 0, 0, &derive);
	get_number(ld, obj, path, "max_regression_pct", 0, 0, 1e6, &d->max_regression_pct);
	get_number(ld, obj, path, "max_improvement_pct", 0, 0, 1e6, &d->max_improvement_pct);
	get_number(ld, obj, path, "budget", -1e300, 0, 1e300, &d->budget);
	d->has_budget = cJSON_GetObjectItemCaseSensitive(obj, "budget") != NULL;
	if (get_string(ld, obj, path, "source", 1, 1, &source) == 0) {
		p = key_path(path, "source");
		i = get_enum(ld, p, "source", source, sources, ARRAY_SIZE(sources));
		if (i >= 0) {
			d->source = (enum metric_source)i;
			metric_source_rules(ld, obj, path, d);
		}
		free(p);
	}
	if (d->pattern) {
		p = key_path(path, "pattern");
		check_pattern(ld, p, d->pattern);
		free(p);
	}
	metric_words(ld, path, d, better, match, derive);
	free(source);
	free(better);
	free(match);
	free(derive);
	if (nerr(ld) == before)
		return 0;
	metric_def_release(d);
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
static int check_metric_name(const struct loader *ld, const struct metric_def *defs,
			     const size_t *at, size_t i)
{
	char b[SHOW_MAX];
	char *p = xasprintf("metrics[%zu].name", at[i]);
	int ret = -1;

	if (!strcmp(defs[i].name, COMPARE_WALL) || !strcmp(defs[i].name, COMPARE_CPU) ||
	    !strcmp(defs[i].name, COMPARE_MAX_RSS)) {
		perr(ld, p, "'%s' is the name of a built-in metric (" COMPARE_WALL ", " COMPARE_CPU
		     ", " COMPARE_MAX_RSS "); gate it in \"gates\" or choose another name",
		     defs[i].name);
		goto out;
	}
	for (size_t j = 0; j < i; j++) {
		if (!strcmp(defs[i].name, defs[j].name)) {
			perr(ld, p, "duplicate metric name '%s' (also metrics[%zu])",
			     show(b, defs[i].name), at[j]);
			goto out;
		}
		if (is_rate_of(&defs[i], &defs[j]) || is_rate_of(&defs[j], &defs[i])) {
			size_t named = is_rate_of(&defs[i], &defs[j]) ? i : j;
			free(p);
			p = xasprintf("metrics[%zu].name", at[named]);
			perr(ld, p, "'%s' is also the name of the rate metrics[%zu] derives",
			     show(b, defs[named].name), at[named == i ? j : i]);
			goto out;
		}
	}
	ret = 0;
out:
	free(p);
	return ret;
}

/* Every metric is checked; a refused one is left out of plan->metrics. */
static int parse_metrics(const struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "metrics");
	const cJSON *e;
	size_t n = 0, k = 0, before = nerr(ld);
	size_t *at;

	if (!m)
		return 0;
	if (!cJSON_IsArray(m))
		return perr(ld, "metrics", "expected an array of metric objects, found %s",
			    json_kind(m));
	cJSON_ArrayForEach(e, m)
		n++;
	if (n > PLAN_MAX_METRICS)
		return perr(ld, "metrics", "more than %d metrics", PLAN_MAX_METRICS);
	plan->metrics = xcalloc(n ? n : 1, sizeof(*plan->metrics));
	at = xcalloc(n ? n : 1, sizeof(*at));
	cJSON_ArrayForEach(e, m) {
		char *p = index_path("metrics", k);
		int r = parse_metric(ld, e, p, &plan->metrics[plan->nmetrics]);
		free(p);
		at[plan->nmetrics] = k++;
		if (r < 0)
			continue;
		plan->nmetrics++;
		if (check_metric_name(ld, plan->metrics, at, plan->nmetrics - 1) < 0)
			metric_def_release(&plan->metrics[--plan->nmetrics]);
	}
	free(at);
	return nerr(ld) > before ? -1 : 0;
}

static int parse_exit_codes(const struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "allowed_exit_codes");
	const cJSON *e;
	char b[SHOW_MAX];
	size_t seen[256];
	size_t n = 0, i = 0, before = nerr(ld);

	if (!a) {
		plan->allowed_exit_codes = xmalloc(sizeof(*plan->allowed_exit_codes));
		plan->allowed_exit_codes[0] = 0;
		plan->nallowed_exit_codes = 1;
		return 0;
	}
	if (!cJSON_IsArray(a) || !a->child)
		return perr(ld, "allowed_exit_codes",
			    "expected a non-empty array of integers from 0 to 255, found %s",
			    json_kind(a));
	cJSON_ArrayForEach(e, a)
		n++;
	/* 256 distinct codes at most: more means a duplicate, found below in order. */
	plan->allowed_exit_codes = xcalloc(n < 256 ? n : 256, sizeof(*plan->allowed_exit_codes));
	memset(seen, 0, sizeof(seen));
	n = 0;
	cJSON_ArrayForEach(e, a) {
		char *p = index_path("allowed_exit_codes", i);
		int code;
		i++;
		if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) ||
		    e->valuedouble != floor(e->valuedouble) || e->valuedouble < 0 ||
		    e->valuedouble > 255) {
			perr(ld, p, "expected an integer from 0 to 255, found %s", json_found(b, e));
			free(p);
			continue;
		}
		code = (int)e->valuedouble;
		free(p);
		if (seen[code]) {
			p = index_path("allowed_exit_codes", i - 1);
			perr(ld, p, "exit code %d given twice (also allowed_exit_codes[%zu])", code,
			     seen[code] - 1);
			free(p);
			continue;
		}
		seen[code] = i;
		plan->allowed_exit_codes[plan->nallowed_exit_codes++] = code;
	}
	return nerr(ld) > before ? -1 : 0;
}

int plan_exit_code_allowed(const struct plan *plan, int code)
{
	for (size_t i = 0; i < plan->nallowed_exit_codes; i++)
		if (plan->allowed_exit_codes[i] == code)
			return 1;
	return 0;
}

static int valid_version_name(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > PLAN_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

static void version_release(struct plan_version *v)
{
	free(v->name);
	for (size_t i = 0; i < v->argc; i++)
		free(v->argv[i]);
	free(v->argv);
	memset(v, 0, sizeof(*v));
}

/* One "versions" entry: an argv taken literally, since it runs outside any run. */
static int parse_version(const struct loader *ld, const cJSON *e, struct plan_version *v)
{
	const cJSON *a;
	char *p = key_path("versions", e->string), *pi = NULL;
	size_t n = 0;
	int ret = -1;

	if (!cJSON_IsArray(e) || !e->child) {
		perr(ld, p, "expected a non-empty array of strings, found %s", json_kind(e));
		goto out;
	}
	cJSON_ArrayForEach(a, e)
		n++;
	v->name = xstrdup(e->string);
	v->argv = xcalloc(n, sizeof(*v->argv));
	cJSON_ArrayForEach(a, e) {
		if (!cJSON_IsString(a)) {
			pi = index_path(p, v->argc);
			perr(ld, pi, "expected a string, found %s", json_kind(a));
			goto out;
		}
		if (!v->argc && !*a->valuestring) {
			pi = index_path(p, 0);
			perr(ld, pi, "expected a program name, found an empty string");
			goto out;
		}
		v->argv[v->argc++] = xstrdup(a->valuestring);
	}
	ret = 0;
out:
	free(pi);
	free(p);
	if (ret < 0)
		version_release(v);
	return ret;
}

static int parse_versions(const struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *vs, *e;
	char b[SHOW_MAX];
	size_t n = 0, before = nerr(ld);

	if (get_object(ld, root, "", "versions", &vs) < 0)
		return -1;
	if (!vs)
		return 0;
	cJSON_ArrayForEach(e, vs)
		n++;
	if (n > PLAN_MAX_VERSIONS)
		return perr(ld, "versions", "more than %d commands", PLAN_MAX_VERSIONS);
	plan->versions = xcalloc(n ? n : 1, sizeof(*plan->versions));
	cJSON_ArrayForEach(e, vs) {
		size_t i;
		if (!valid_version_name(e->string)) {
			perr(ld, "versions", "invalid name '%s' (" PLAN_VERSION_RULE ")",
			     show(b, e->string));
			continue;
		}
		for (i = 0; i < plan->nversions; i++)
			if (!strcmp(plan->versions[i].name, e->string))
				break;
		if (i < plan->nversions) {
			char *p = key_path("versions", e->string);
			perr(ld, p, "key given twice");
			free(p);
			continue;
		}
		if (parse_version(ld, e, &plan->versions[plan->nversions]) == 0)
			plan->nversions++;
	}
	return nerr(ld) > before ? -1 : 0;
}

static int parse_variants(struct loader *ld, const cJSON *root)
{
	const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "variants");
	const cJSON *e;
	size_t i = 0, before = nerr(ld);

	if (!vs)
		return 0;
	if (!cJSON_IsArray(vs) || (!vs->child && !cJSON_GetObjectItemCaseSensitive(root, "variants_file")))
		return perr(ld, "variants", "expected a non-empty array of variant objects, found %s",
			    json_kind(vs));
	cJSON_ArrayForEach(e, vs) {
		struct plan_variant v = { 0 };
		char *p = index_path("variants", i++);
		int r = parse_variant(ld, e, p, 0, &v);
		if (!r)
			add_variant(ld, &v, xstrdup(p), p, 0);
		free(p);
	}
	ld->plan->nlisted = ld->plan->nvariants;
	return nerr(ld) > before ? -1 : 0;
}


/* true or false; *out is left alone when key is absent. */
static int get_bool(const struct loader *ld, const cJSON *obj, const char *path,
		    const char *key, int *out)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
	char *p;
	if (!j)
		return 0;
	if (cJSON_IsBool(j)) {
		*out = cJSON_IsTrue(j);
		return 0;
	}
	p = key_path(path, key);
	perr(ld, p, "expected true or false, found %s", json_kind(j));
	free(p);
	return -1;
}

static int parse_reference(const struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	char b[SHOW_MAX];
	char *name = NULL;
	const char **names;
	struct strbuf list = STRBUF_INIT;
	int i, ret = 0;

	if (get_string(ld, root, "", "reference", 0, 1, &name) < 0)
		return -1;
	if (!name)
		return 0;
	names = xcalloc(plan->nvariants, sizeof(*names));
	for (size_t k = 0; k < plan->nvariants; k++) {
		names[k] = plan->variants[k].name;
		strbuf_addf(&list, "%s%s", k ? ", " : "", names[k]);
	}
	i = name_index(name, names, plan->nvariants);
	if (i >= 0)
		plan->reference = (size_t)i;
	else
		ret = perr(ld, "reference", "no variant is called '%s'" SUGGEST_FMT
			   " (the variants: %s)", show(b, name),
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
static int parse_report(const struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *r;
	struct strbuf sb = STRBUF_INIT;
	char b[SHOW_MAX];
	char *given = NULL, *abs = NULL, *err = NULL;
	int ret = -1;

	if (get_object(ld, root, "", "report", &r) < 0)
		return -1;
	if (!r)
		return 0;
	if (check_keys(ld, r, "report", "report", 0) < 0 ||
	    get_string(ld, r, "report", "template", 1, 1, &given) < 0)
		goto out;
	abs = given[0] == '/' ? xstrdup(given) : path_join(plan->dir, given);
	if (read_file_capped(&sb, abs, TMPL_SIZE_MAX) < 0) {
		perr(ld, "report.template", "cannot read '%s' (see above)", show(b, given));
		goto out;
	}
	if (tmpl_check(sb.buf, sb.len, given, &err) < 0) {
		perr(ld, "report.template", "%s", err);
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

static int parse_decision(const struct loader *ld, const cJSON *root)
{
	static const char *const words[] = { "pass", "fail" };
	struct plan *plan = ld->plan;
	const cJSON *d;
	char b[SHOW_MAX];
	char *inconclusive = NULL;
	int64_t resamples = plan->resamples;
	size_t before = nerr(ld);

	if (get_object(ld, root, "", "decision", &d) < 0)
		return -1;
	if (!d)
		return 0;
	check_keys(ld, d, "decision", "decision", 0);
	get_bool(ld, d, "decision", "acceptance", &plan->acceptance);
	get_string(ld, d, "decision", "inconclusive", 0, 1, &inconclusive);
	get_number(ld, d, "decision", "confidence", 0.5, 0, 0.999, &plan->confidence);
	get_int(ld, d, "decision", "bootstrap_resamples", 100, 1000000, &resamples);
	plan->resamples = (unsigned)resamples;
	if (inconclusive && name_index(inconclusive, words, 2) < 0)
		perr(ld, "decision.inconclusive", "expected \"pass\" (exit 0) or \"fail\" "
		     "(exit 6), found '%s'" SUGGEST_FMT, show(b, inconclusive),
		     SUGGEST_ARGS(suggest_nearest(inconclusive, words, 2)));
	else if (inconclusive)
		plan->inconclusive_fails = !strcmp(inconclusive, "fail");
	free(inconclusive);
	return nerr(ld) > before ? -1 : 0;
}

static void add_gate(struct plan *plan, const char *metric, enum gate_kind kind, double limit)
{
	plan->gates = xrealloc(plan->gates, (plan->ngates + 1) * sizeof(*plan->gates));
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
static int gate_metric_known(const struct loader *ld, const char *path, const char *name,
			     const struct metric_value *outs, size_t nouts, int metrics_ok)
{
	const char **names = xcalloc(nouts + 3, sizeof(*names));
	struct strbuf list = STRBUF_INIT;
	char b[SHOW_MAX];
	size_t n = 0;
	int known;

	names[n++] = COMPARE_WALL;
	names[n++] = COMPARE_CPU;
	names[n++] = COMPARE_MAX_RSS;
	for (size_t i = 0; i < nouts; i++)
		names[n++] = outs[i].name;
	known = name_index(name, names, n) >= 0;
	if (!known && metrics_ok) {
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&list, "%s%s", i ? ", " : "", names[i]);
		perr(ld, path, "no metric is called '%s'" SUGGEST_FMT " (expected one of: %s)",
		     show(b, name), SUGGEST_ARGS(suggest_nearest(name, names, n)), list.buf);
	}
	strbuf_release(&list);
	free(names);
	return known;
}

static int parse_gates(const struct loader *ld, const cJSON *root, int metrics_ok)
{
	static const char *const keys[] = { "max_regression_pct", "max_improvement_pct", "budget" };
	struct plan *plan = ld->plan;
	struct metric_value *outs = NULL;
	size_t nouts = 0;
	const cJSON *gates, *e;
	size_t before = nerr(ld);

	for (size_t i = 0; i < plan->nmetrics; i++) {
		const struct metric_def *d = &plan->metrics[i];
		if (d->max_regression_pct >= 0)
			add_gate(plan, d->name, GATE_MAX_REGRESSION, d->max_regression_pct);
		if (d->max_improvement_pct >= 0)
			add_gate(plan, d->name, GATE_MAX_IMPROVEMENT, d->max_improvement_pct);
		if (d->has_budget)
			add_gate(plan, d->name, GATE_BUDGET, d->budget);
	}
	if (get_object(ld, root, "", "gates", &gates) < 0)
		return -1;
	if (!gates)
		return 0;
	metric_defs_outputs(plan->metrics, plan->nmetrics, &outs, &nouts);
	for (e = gates->child; e; e = e->next) {
		char *path = key_path("gates", e->string);
		double limit;

		for (const cJSON *d = gates->child; d != e; d = d->next)
			if (!strcmp(d->string, e->string)) {
				perr(ld, path, "key given twice");
				goto next;
			}
		if (!gate_metric_known(ld, path, e->string, outs, nouts, metrics_ok))
			goto next;
		if (!cJSON_IsObject(e)) {
			perr(ld, path, "expected an object of limits, found %s", json_kind(e));
			goto next;
		}
		if (!e->child) {
			perr(ld, path, "empty: give max_regression_pct, max_improvement_pct or budget");
			goto next;
		}
		if (check_keys(ld, e, path, "gates.<metric>", 0) < 0)
			goto next;
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			enum gate_kind kind = k == 0 ? GATE_MAX_REGRESSION
					      : k == 1 ? GATE_MAX_IMPROVEMENT : GATE_BUDGET;
			if (!cJSON_GetObjectItemCaseSensitive(e, keys[k]))
				continue;
			if (get_number(ld, e, path, keys[k], kind == GATE_BUDGET ? -1e300 : 0, 0,
				       kind == GATE_BUDGET ? 1e300 : 1e6, &limit) < 0)
				goto next;
			if (find_gate(plan, e->string, kind) >= 0) {
				char *kp = key_path(path, keys[k]);
				perr(ld, kp, "the metric's own definition already sets %s; give it "
				     "in one place", keys[k]);
				free(kp);
				goto next;
			}
			add_gate(plan, e->string, kind, limit);
		}
next:
		free(path);
	}
	metric_values_free(outs, nouts);
	return nerr(ld) > before ? -1 : 0;
}

/*
 * The variants: "variants", then "base" with the lines of "variants_file".
 * 0, or -1 when any of them (or their number) was refused.
 */
static int parse_all_variants(struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	struct plan_variant base = { 0 };
	const cJSON *bj = cJSON_GetObjectItemCaseSensitive(root, "base");
	char *vfile = NULL;
	size_t before = nerr(ld);

	parse_variants(ld, root);
	get_string(ld, root, "", "variants_file", 0, 1, &vfile);
	if (bj && !vfile && nerr(ld) == before)
		perr(ld, "base", "only used with \"variants_file\" (add one, or move base into \"variants\")");
	if (vfile && !bj)
		perr(ld, "variants_file", "needs \"base\", the variant its lines build on");
	if (bj && vfile && parse_variant(ld, bj, "base", 1, &base) == 0)
		load_variants_file(ld, vfile, &base);
	if (!plan->nvariants && nerr(ld) == before) {
		if (vfile)
			errlist_add(ld->errors, "%s: variants_file: '%s' defines no variant", ld->file,
				    ld->vfile_shown);
		else
			perr(ld, "variants", "missing (expected at least one variant)");
	}
	variant_release(&base);
	free(vfile);
	return nerr(ld) > before ? -1 : 0;
}

/* The schema first: a plan for a later abev would otherwise fail on its new keys. */
static int check_schema(const struct loader *ld, const cJSON *root)
{
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
	char b[SHOW_MAX];

	if (!schema)
		return perr(ld, "schema", "missing (expected \"" PLAN_SCHEMA "\")");
	if (!cJSON_IsString(schema))
		return perr(ld, "schema", "expected \"" PLAN_SCHEMA "\", found %s", json_kind(schema));
	if (strcmp(schema->valuestring, PLAN_SCHEMA))
		return perr(ld, "schema", "expected \"" PLAN_SCHEMA "\", found \"%s\"",
			    show(b, schema->valuestring));
	return 0;
}

/*
 * Every section is read even after another failed, so that one run names
 * every problem; a check that builds on a section (the reference on the
 * variants, gates on the metrics, the number of invocations on both) is
 * left out when that section failed, rather than adding a follow-on error.
 */
static int parse_top(struct loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	int sched_ok, metrics_ok, variants_ok;

	if (!cJSON_IsObject(root))
		return errlist_add(ld->errors, "%s: expected a JSON object at the top level, found %s",
				   ld->file, json_kind(root));
	if (check_schema(ld, root) < 0)
		return -1;
	check_keys(ld, root, "", "", 0);
	get_string(ld, root, "", "name", 1, 1, &plan->name);
	get_string(ld, root, "", "description", 0, 0, &plan->description);
	sched_ok = parse_schedule(ld, root) == 0;
	parse_results(ld, root);
	parse_load(ld, root);
	parse_limits(ld, root);
	metrics_ok = parse_metrics(ld, root) == 0;
	parse_exit_codes(ld, root);
	parse_versions(ld, root);
	variants_ok = parse_all_variants(ld, root) == 0;
	if (sched_ok && variants_ok &&
	    ((uint64_t)plan->warmups + plan->runs) * plan->nvariants > PLAN_MAX_SLOTS)
		perr(ld, "schedule", "(warmups + runs) x %zu variants is more than %d invocations",
		     plan->nvariants, PLAN_MAX_SLOTS);
	if (variants_ok)
		parse_reference(ld, root);
	parse_gates(ld, root, metrics_ok);
	parse_decision(ld, root);
	parse_report(ld, root);
	return nerr(ld) ? -1 : 0;
}

static void line_col(const char *buf, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

/*
 * "p.json:7:3: malformed JSON near '...'", pointing at where cJSON gave
 * up. cJSON sometimes gives up only at the end of the input (a trailing
 * comma, a missing bracket); the last thing before the end is then the
 * most useful place to point at.
 */
static void report_malformed(const struct loader *ld, const char *buf, size_t len,
			     size_t off, const char *what)
{
	char b[SHOW_MAX];
	size_t line, col, n, last;
	if (off > len)
		off = len;
	if (what) {
		line_col(buf, off, &line, &col);
		error("%s:%zu:%zu: malformed JSON: %s", ld->file, line, col, what);
		return;
	}
	if (off < len) {
		line_col(buf, off, &line, &col);
		for (n = 0; off + n < len && n < 24 && buf[off + n] != '\n' && buf[off + n] != '\r'; n++)
			;
		error("%s:%zu:%zu: malformed JSON near '%s'", ld->file, line, col,
		      show_n(b, buf + off, n));
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
	line_col(buf, last - 1, &line, &col);
	for (n = 0; n < 24 && n < last && buf[last - 1 - n] != '\n'; n++)
		;
	while (n > 1 && (buf[last - n] == ' ' || buf[last - n] == '\t'))
		n--;
	error("%s:%zu:%zu: malformed JSON: unexpected end of file after '%s'", ld->file, line, col,
	      show_n(b, buf + last - n, n));
}

static cJSON *parse_json(const struct loader *ld)
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
	plan->warmups = 0;
	plan->runs = 3;
	plan->order = PLAN_ORDER_ALTERNATE;
	plan->seed = 1;
	plan->gap_seconds = 0;
	plan->timeout_seconds = 0;
	plan->kill_grace_seconds = 5;
	plan->min_executed = -1;
	plan->max_foreign_cpu = -1;
	plan->max_cpu_wait_pct = PLAN_MAX_CPU_WAIT_PCT_DEFAULT;
	plan->max_cpu_wait_pct_from = "default";
	plan->max_repeats = 2;
	plan->max_files = PLAN_MAX_FILES_DEFAULT;
	plan->pattern_cpu_seconds = METRICS_PATTERN_CPU_SECONDS_DEFAULT;
	plan->max_log_bytes = PLAN_MAX_LOG_BYTES_DEFAULT;
	plan->confidence = COMPARE_CONFIDENCE;
	plan->resamples = COMPARE_RESAMPLES;
}

/* The plan in plan->raw, read from path (or named so): validated into *plan. */
static int plan_parse_raw(struct plan *plan, const char *path)
{
	struct errlist errors = ERRLIST_INIT;
	struct loader ld = { plan, path, NULL, NULL, &errors };
	cJSON *root = NULL;
	int ret = -1;

	if (plan_dir(plan, path) < 0)
		goto out;
	root = parse_json(&ld);
	if (!root)
		goto out;
	/* Every problem of the plan, reported together. */
	if (parse_top(&ld, root) < 0 || errlist_report(&errors) < 0)
		goto out;
	/* A variant without its own "cpus" runs where the schedule says. */
	for (size_t i = 0; plan->cpus && i < plan->nvariants; i++)
		if (!plan->variants[i].cpus)
			plan->variants[i].cpus = xstrdup(plan->cpus);
	/* Nor without its own "prepare" is it prepared otherwise than the schedule says. */
	for (size_t i = 0; plan->prepare && i < plan->nvariants; i++) {
		struct plan_variant *v = &plan->variants[i];
		if (v->prepare)
			continue;
		v->prepare = xcalloc(plan->prepare_len + 1, sizeof(*v->prepare));
		for (v->prepare_len = 0; v->prepare_len < plan->prepare_len; v->prepare_len++)
			v->prepare[v->prepare_len] = xstrdup(plan->prepare[v->prepare_len]);
	}
	ret = 0;
out:
	cJSON_Delete(root);
	if (ld.origin) {
		for (size_t i = 0; i < plan->nvariants; i++)
			free(ld.origin[i]);
		free(ld.origin);
	}
	free(ld.vfile_shown);
	errlist_report(&errors);
	if (ret < 0)
		plan_release(plan);
	return ret;
}

int plan_load(struct plan *plan, const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	plan_defaults(plan, path);
	if (read_file_capped(&sb, path, PLAN_MAX_BYTES) < 0) {
		strbuf_release(&sb);
		plan_release(plan);
		return -1;
	}
	plan->raw = strbuf_detach(&sb, &plan->raw_len);
	return plan_parse_raw(plan, path);
}

int plan_parse(struct plan *plan, const char *path, const char *text, size_t len)
{
	plan_defaults(plan, path);
	if (len > PLAN_MAX_BYTES) {
		plan_release(plan);
		return error("%s: the plan is larger than %u bytes", path, PLAN_MAX_BYTES);
	}
	plan->raw = xmalloc(len + 1);
	memcpy(plan->raw, text, len);
	plan->raw[len] = '\0';
	plan->raw_len = len;
	return plan_parse_raw(plan, path);
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
	free(plan->report_template);
	free(plan->report_template_path);
	for (size_t i = 0; i < plan->nvariants; i++)
		variant_release(&plan->variants[i]);
	free(plan->variants);
	free(plan->cpus);
	for (size_t i = 0; i < plan->prepare_len; i++)
		free(plan->prepare[i]);
	free(plan->prepare);
	free(plan->variants_file);
	free(plan->results_files);
	for (size_t i = 0; i < plan->nexclusive; i++)
		free(plan->exclusive[i]);
	free(plan->exclusive);
	for (size_t i = 0; i < plan->nmetrics; i++)
		metric_def_release(&plan->metrics[i]);
	free(plan->metrics);
	free(plan->allowed_exit_codes);
	for (size_t i = 0; i < plan->nversions; i++)
		version_release(&plan->versions[i]);
	free(plan->versions);
	for (size_t i = 0; i < plan->ngates; i++)
		free(plan->gates[i].metric);
	free(plan->gates);
	memset(plan, 0, sizeof(*plan));
}
