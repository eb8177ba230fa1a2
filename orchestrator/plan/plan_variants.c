/*
 * plan_variants: the variants of a plan — each "variants" object, and the
 * "base" object whose copies the lines of a variants file change (one
 * variant a line: "name|ENV=V ...|extra args", split by variants_file.c).
 * It checks names, environment variables, placeholders and directories
 * as written, and that every name is new; it does not look at what the
 * variants name on this machine (plan_check.c does). A variant refused
 * for any of its keys is left out of the plan, also of a partial one:
 * what plan_check() would say of it might only follow from that error.
 */
#include "plan/plan_loader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "record/metric_def.h"
#include "util/name_rule.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/env.h"
#include "evidence/envname.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/utf8.h"
#include "plan/variants_file.h"

#define VARIANTS_FILE_MAX_BYTES (1u << 20)

/* error() for the variants file: "<file>:<line>: <msg>". */
static int lerr(const struct plan_loader *ld, size_t line, const char *fmt, ...)
	ABEV_PRINTF(3, 4);
static int lerr(const struct plan_loader *ld, size_t line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	errlist_add(ld->in.errors, "%s:%zu: %s", ld->vfile_shown, line, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/*
 * ": U+202E (a bidirectional control)" when name holds a character a
 * terminal would act on or not show, so that a refusal names what the
 * escaped name only shows as bytes; else "".
 */
static const char *unshown_in(const char *name, char desc[UNSHOWN_DESC_LEN + 2])
{
	size_t n = strlen(name);

	if (text_unshown(name, n, desc + 2) == n)
		return "";
	desc[0] = ':';
	desc[1] = ' ';
	return desc;
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

void plan_variant_release(struct plan_variant *v)
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
	for (size_t i = 0; i < v->parameters_len; i++) {
		free(v->parameters[i].key);
		free(v->parameters[i].value);
	}
	free(v->parameters);
	for (size_t i = 0; i < v->assemblies_len; i++)
		free(v->assemblies[i]);
	free(v->assemblies);
	free(v->cpus);
	strv_free_n(v->prepare, v->prepare_len);
	strv_free_n(v->setup, v->setup_len);
	strv_free_n(v->cleanup, v->cleanup_len);
	free(v->output_file);
	memset(v, 0, sizeof(*v));
}

/*
 * The variant's directory, absolute: relative to the plan's directory, and
 * canonical where it exists. Whether it exists is plan_check()'s question
 * (what is on this machine), asked before anything runs.
 */
static char *resolve_dir(const struct plan_loader *ld, const char *dir)
{
	char *abs = dir[0] == '/' ? xstrdup(dir) : path_join(ld->plan->dir, dir);
	char *real = realpath(abs, NULL);

	if (!real)
		return abs;
	free(abs);
	return real;
}

/* The words of "output" other than a file, in enum plan_output's order. */
static const char *const output_words[] = { "log", "null", "pipe", "inherit" };

const char *plan_output_text(const struct plan_variant *v)
{
	if (v->output == PLAN_OUTPUT_FILE)
		return v->output_file;
	return output_words[v->output < ARRAY_SIZE(output_words) ? v->output : 0];
}

/*
 * What a stdout or stderr metric reads is the run's log of that stream:
 * an "output" that keeps no such log would leave it nothing to read.
 */
static int output_check_metrics(const struct plan_loader *ld, const char *path,
				struct plan_variant *v)
{
	const struct plan *plan = ld->plan;

	for (size_t i = 0; i < plan->nmetrics; i++) {
		enum metric_source src = plan->metrics[i].source;
		int logged = v->output == PLAN_OUTPUT_LOG ||
			     (v->output == PLAN_OUTPUT_FILE && src == METRIC_STDERR);

		if ((src == METRIC_STDOUT || src == METRIC_STDERR) && !logged)
			return json_in_error(&ld->in, path, "\"%s\" keeps no %s, which metric '%s' "
					     "reads (source \"%s\"): leave \"output\" out (\"log\")%s",
					     plan_output_text(v), src == METRIC_STDOUT ? "test.log" : "stderr.log",
					     plan->metrics[i].name, metric_def_source_name(src),
					     src == METRIC_STDERR ? " or give a file" : "");
	}
	return 0;
}

/*
 * "output": log, null, pipe, inherit, or a file — as in hyperfine, a path
 * with a '/' ("./out.txt"), so that a misspelt word is not taken for a
 * file. A relative file is relative to the plan's directory.
 */
static int parse_output(const struct plan_loader *ld, const cJSON *obj, const char *path,
			struct plan_variant *v)
{
	char *text = NULL, *p = NULL, b[SHOW_MAX];
	int ret = json_get_string(&ld->in, obj, path, "output", JSON_NONEMPTY, &text);

	if (ret <= 0)
		return ret;
	ret = 0;
	p = json_key_path(path, "output");
	for (size_t i = 0; i < ARRAY_SIZE(output_words); i++)
		if (!strcmp(text, output_words[i]))
			v->output = (enum plan_output)i;
	if (strchr(text, '/')) {
		const char *rel = text;
		while (rel[0] == '.' && rel[1] == '/')
			rel += 2;
		v->output = PLAN_OUTPUT_FILE;
		free(v->output_file);
		v->output_file = text[0] == '/' ? xstrdup(text) : path_join(ld->plan->dir, rel);
	} else if (strcmp(text, output_words[v->output])) {
		ret = json_in_error(&ld->in, p, "unknown output '%s': log, null, pipe, inherit, or a "
				    "file path with a '/' (\"./out.txt\")", show_str(b, sizeof(b), text));
	}
	if (!ret)
		ret = output_check_metrics(ld, p, v);
	free(p);
	free(text);
	return ret;
}

static int parse_command(const struct plan_loader *ld, const cJSON *obj, const char *path,
			 struct plan_variant *v)
{
	return plan_loader_argv(ld, obj, path, "command", 1, &v->command, &v->command_len);
}

/*
 * Checks name (and value), one member of a string map: 0, or -1 after
 * json_in_error() at pk, the member's path (p: the map's).
 */
typedef int map_check_fn(const struct plan_loader *ld, const char *p, const char *pk,
			 const char *name, const char *value);

/*
 * The string map key of obj (an object of strings, at most max members,
 * each checked by check, none given twice) into *out and *len, in the
 * order written. 0, or -1 after json_in_error() for every member refused.
 */
static int parse_string_map(const struct plan_loader *ld, const cJSON *obj, const char *path,
			    const char *key, size_t max, const char *what, map_check_fn *check,
			    struct plan_env **out, size_t *len)
{
	const cJSON *j, *e;
	char b[SHOW_MAX];
	char *p = json_key_path(path, key);
	size_t n = 0, before = json_in_count(&ld->in);
	int ret = -1;

	if (json_get_object(&ld->in, obj, path, key, 0, &j) < 0)
		goto out;
	if (!j) {
		ret = 0;
		goto out;
	}
	cJSON_ArrayForEach(e, j)
		n++;
	if (n > max) {
		json_in_error(&ld->in, p, "more than %zu %ss", max, what);
		goto out;
	}
	*out = xcalloc(n ? n : 1, sizeof(**out));
	cJSON_ArrayForEach(e, j) {
		char *pk = json_key_path(p, e->string);
		size_t i = 0;

		while (i < *len && strcmp((*out)[i].key, e->string))
			i++;
		if (i < *len)
			json_in_error(&ld->in, p, "%s '%s' given twice", what,
				      show_str(b, sizeof(b), e->string));
		else if (!cJSON_IsString(e))
			json_in_error(&ld->in, pk, "expected a string, found %s", json_kind(e));
		else if (check(ld, p, pk, e->string, e->valuestring) == 0) {
			(*out)[*len].key = xstrdup(e->string);
			(*out)[*len].value = xstrdup(e->valuestring);
			(*len)++;
		}
		free(pk);
	}
	ret = json_in_count(&ld->in) > before ? -1 : 0;
out:
	free(p);
	return ret;
}

/* "env": a variable's name is a shell name; its value a template. */
static int env_check(const struct plan_loader *ld, const char *p, const char *pk,
		     const char *name, const char *value)
{
	char b[SHOW_MAX];

	if (!valid_env_key(name, strlen(name)))
		return json_in_error(&ld->in, p, "invalid variable name '%s' (expected "
				     "[A-Za-z_][A-Za-z0-9_]*)", show_str(b, sizeof(b), name));
	return plan_loader_template(ld, pk, value, PLAN_PH_ALL |
				    (envname_secret_var(name, value) ? PLAN_PH_SECRET : 0)) == 0 ? 0 : -1;
}

static int parse_env(const struct plan_loader *ld, const cJSON *obj, const char *path,
		     struct plan_variant *v)
{
	return parse_string_map(ld, obj, path, "env", PLAN_MAX_ENV, "variable", env_check,
				&v->env, &v->env_len);
}

/* "parameters": a name is a word without braces (as a scan's -L/-P names are); values are literal. */
static int parameter_check(const struct plan_loader *ld, const char *p, const char *pk,
			   const char *name, const char *value)
{
	(void)p;
	(void)value;
	if (!*name || strpbrk(name, "{}"))
		return json_in_error(&ld->in, pk, "a parameter's name is a word without braces");
	return 0;
}

static int parse_parameters(const struct plan_loader *ld, const cJSON *obj, const char *path,
			    struct plan_variant *v)
{
	return parse_string_map(ld, obj, path, "parameters", PLAN_MAX_PARAMETERS, "parameter",
				parameter_check, &v->parameters, &v->parameters_len);
}

/* A variant object, or the "base" object (no name) that variants-file lines build on. */
static int parse_variant(const struct plan_loader *ld, const cJSON *obj, const char *path,
			 int is_base, struct plan_variant *v)
{
	const cJSON *j;
	char b[SHOW_MAX], desc[UNSHOWN_DESC_LEN + 2];
	char *cwd = NULL, *p = NULL;
	size_t before = json_in_count(&ld->in);

	if (!cJSON_IsObject(obj))
		return json_in_error(&ld->in, path, "expected an object, found %s", json_kind(obj));
	plan_loader_keys(ld, obj, path, "variants[]", is_base);
	if (!is_base && json_get_string(&ld->in, obj, path, "name", JSON_REQUIRED | JSON_NONEMPTY, &v->name) > 0 &&
	    !name_rule_component_ok(v->name)) {
		p = json_key_path(path, "name");
		json_in_error(&ld->in, p, "invalid variant name '%s'%s (" NAME_RULE ")",
			      show_str(b, sizeof(b), v->name), unshown_in(v->name, desc));
		free(p);
	}
	if (json_get_string(&ld->in, obj, path, "cwd", JSON_NONEMPTY, &cwd) >= 0)
		v->cwd = cwd ? resolve_dir(ld, cwd) : xstrdup(ld->plan->dir);
	parse_command(ld, obj, path, v);
	plan_loader_cpus(ld, obj, path, &v->cpus);
	parse_output(ld, obj, path, v);
	/* The base has no prepare, setup or cleanup of its own: the schedule's are for every variant. */
	if (!is_base) {
		parse_parameters(ld, obj, path, v);
		plan_loader_argv(ld, obj, path, "prepare", 0, &v->prepare, &v->prepare_len);
		plan_loader_step(ld, obj, path, "setup", &v->setup, &v->setup_len);
		plan_loader_step(ld, obj, path, "cleanup", &v->cleanup, &v->cleanup_len);
	} else {
		static const char *const steps[] = { "prepare", "setup", "cleanup" };
		if (cJSON_GetObjectItemCaseSensitive(obj, "parameters")) {
			p = json_key_path(path, "parameters");
			json_in_error(&ld->in, p, "not allowed in base: each variant has its own");
			free(p);
			p = NULL;
		}
		for (size_t k = 0; k < 3; k++) {
			if (!cJSON_GetObjectItemCaseSensitive(obj, steps[k]))
				continue;
			p = json_key_path(path, steps[k]);
			json_in_error(&ld->in, p, "not allowed in base: schedule.%s %s every variant",
				      steps[k], k ? "is for" : "prepares");
			free(p);
			p = NULL;
		}
	}
	parse_env(ld, obj, path, v);
	j = cJSON_GetObjectItemCaseSensitive(obj, "assemblies");
	if (j) {
		p = json_key_path(path, "assemblies");
		if (!cJSON_IsArray(j))
			json_in_error(&ld->in, p, "expected an array of strings, found %s", json_kind(j));
		else
			plan_loader_strings(ld, j, p, PLAN_PH_VARIANT, &v->assemblies, &v->assemblies_len);
		free(p);
	}
	free(cwd);
	if (json_in_count(&ld->in) == before)
		return 0;
	plan_variant_release(v);
	return -1;
}

/*
 * Appends v (taking it and origin over, also on failure) after checking
 * that its name is new and that there is room.
 */
static int add_variant(struct plan_loader *ld, struct plan_variant *v, char *origin,
		       const char *path, size_t line)
{
	struct plan *plan = ld->plan;
	int ret = -1;

	if (plan->nvariants >= PLAN_MAX_VARIANTS) {
		if (path)
			json_in_error(&ld->in, path, "more than %d variants", PLAN_MAX_VARIANTS);
		else
			lerr(ld, line, "more than %d variants", PLAN_MAX_VARIANTS);
		goto out;
	}
	for (size_t i = 0; i < plan->nvariants; i++) {
		/* Names become directories: a file system that ignores case would mix 'a' and 'A'. */
		const char *why = !strcmp(plan->variants[i].name, v->name) ? "" : " ignoring case";
		char other[NAME_RULE_MAX + 64];

		if (strcasecmp(plan->variants[i].name, v->name))
			continue;
		snprintf(other, sizeof(other), "%s%s%s", *why ? "'" : "",
			 *why ? plan->variants[i].name : "", *why ? "' at " : "");
		if (path) {
			char *p = json_key_path(path, "name");
			json_in_error(&ld->in, p, "duplicate variant name '%s'%s (also %s%s)", v->name,
				      why, other, ld->origin[i]);
			free(p);
		} else {
			lerr(ld, line, "duplicate variant name '%s'%s (also %s%s)", v->name, why, other,
			     ld->origin[i]);
		}
		goto out;
	}
	ALLOC_GROW(plan->variants, plan->nvariants + 1, plan->variants_alloc);
	ALLOC_GROW(ld->origin, plan->nvariants + 1, ld->origin_alloc);
	plan->variants[plan->nvariants] = *v;
	ld->origin[plan->nvariants] = origin;
	plan->nvariants++;
	memset(v, 0, sizeof(*v));
	origin = NULL;
	ret = 0;
out:
	if (ret < 0)
		plan_variant_release(v);
	free(origin);
	return ret;
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
	ALLOC_GROW(v->env, v->env_len + 1, v->env_alloc);
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

/*
 * An assignment of a variants-file line (its '=' at word[klen]) as a
 * message shows it: "NAME=…" when it looks secret (envname.h), since a
 * refusal is printed too. Returns b.
 */
static const char *shown_assignment(char *b, size_t size, const char *word, size_t klen)
{
	char *name = xstrndup(word, klen), *hidden;

	if (!envname_secret_var(name, word + klen + 1)) {
		free(name);
		return show_str(b, size, word);
	}
	hidden = xasprintf("%s=\xe2\x80\xa6", name);
	show_str(b, size, hidden);
	free(hidden);
	free(name);
	return b;
}

/*
 * The ENV=V section of a variants-file line at *s (after the first '|'),
 * each assignment set in v, which may override the base's but not one of
 * the same line. 1 (*s at the '|' or the end), 0 for an unterminated quote
 * (in *quote), -1 after lerr().
 */
static int line_env(const struct plan_loader *ld, size_t lineno, const char **s,
		    struct plan_variant *v, struct strbuf *word, char *quote)
{
	char why[160], b[SHOW_MAX];
	char **seen = NULL;
	size_t nseen = 0, alloc = 0;
	int r, ret = -1;

	while ((r = variants_file_word(s, 1, word, quote)) == 1) {
		const char *eq = strchr(word->buf, '=');
		size_t klen = eq ? (size_t)(eq - word->buf) : 0;
		size_t i;
		if (!eq || !valid_env_key(word->buf, klen)) {
			lerr(ld, lineno, "'%s' is not an ENV=VALUE assignment",
			     eq ? shown_assignment(b, sizeof(b), word->buf, klen)
				: show_str(b, sizeof(b), word->buf));
			goto out;
		}
		for (i = 0; i < nseen; i++)
			if (strlen(seen[i]) == klen && !memcmp(seen[i], word->buf, klen))
				break;
		if (i < nseen) {
			lerr(ld, lineno, "variable '%s' given twice", seen[i]);
			goto out;
		}
		{
			char *name = xstrndup(word->buf, klen);
			unsigned allowed = PLAN_PH_ALL |
					   (envname_secret_var(name, eq + 1) ? PLAN_PH_SECRET : 0);

			free(name);
			if (plan_template_check(eq + 1, allowed, why, sizeof(why)) < 0) {
				lerr(ld, lineno, "'%s': %s",
				     shown_assignment(b, sizeof(b), word->buf, klen), why);
				goto out;
			}
		}
		variant_env_set(v, word->buf, klen, eq + 1);
		if (v->env_len > PLAN_MAX_ENV) {
			lerr(ld, lineno, "more than %d variables", PLAN_MAX_ENV);
			goto out;
		}
		ALLOC_GROW(seen, nseen + 1, alloc);
		seen[nseen++] = xstrndup(word->buf, klen);
	}
	ret = r < 0 ? 0 : 1;
out:
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	return ret;
}

/* One line "name|ENV=V ENV2=W|extra args" into a variant built from base. */
static int parse_variant_line(struct plan_loader *ld, const char *line, size_t lineno,
			      const struct plan_variant *base)
{
	struct plan_variant v = { 0 };
	struct strbuf word = STRBUF_INIT;
	char why[160], b[SHOW_MAX], desc[UNSHOWN_DESC_LEN + 2];
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
	if (!name_rule_component_ok(v.name)) {
		lerr(ld, lineno, "invalid variant name '%s'%s (" NAME_RULE ")", show_str(b, sizeof(b), v.name),
		     unshown_in(v.name, desc));
		goto out;
	}
	v.cwd = xstrdup(base->cwd);
	copy_strings(&v.command, &v.command_len, base->command, base->command_len);
	copy_strings(&v.assemblies, &v.assemblies_len, base->assemblies, base->assemblies_len);
	v.cpus = base->cpus ? xstrdup(base->cpus) : NULL;
	v.output = base->output;
	v.output_file = base->output_file ? xstrdup(base->output_file) : NULL;
	v.env = xcalloc(base->env_len, sizeof(*v.env));
	for (size_t i = 0; i < base->env_len; i++) {
		v.env[i].key = xstrdup(base->env[i].key);
		v.env[i].value = xstrdup(base->env[i].value);
	}
	v.env_len = base->env_len;

	s = bar ? bar + 1 : s + name_len;
	if (bar && (r = line_env(ld, lineno, &s, &v, &word, &quote)) < 0)
		goto out;
	if (bar && r == 0)
		goto unterminated;
	if (*s == '|') {
		s++;
		while ((r = variants_file_word(&s, 1, &word, &quote)) == 1) {
			if (plan_check_template(word.buf, why, sizeof(why)) < 0) {
				lerr(ld, lineno, "argument '%s': %s", show_str(b, sizeof(b), word.buf), why);
				goto out;
			}
			ALLOC_GROW(v.command, v.command_len + 1, v.command_alloc);
			v.command[v.command_len++] = strbuf_detach(&word, NULL);
		}
		if (r < 0)
			goto unterminated;
		if (*s == '|') {
			lerr(ld, lineno, "a fourth field '%s' (expected at most three fields, "
			     "'name|ENV=V ...|extra args'; quote a '|' that belongs to an argument)",
			     show_str(b, sizeof(b), s));
			goto out;
		}
	}
	ret = add_variant(ld, &v, xasprintf("%s:%zu", ld->vfile_shown, lineno), NULL, lineno);
	goto out;
unterminated:
	lerr(ld, lineno, "unterminated %c quote", quote);
out:
	strbuf_release(&word);
	plan_variant_release(&v);
	return ret;
}

struct variants_line_ctx {
	struct plan_loader *ld;
	const struct plan_variant *base;
};

static void variants_line(void *ctx, const char *line, size_t lineno, const char *why)
{
	struct variants_line_ctx *vc = ctx;

	if (!line)
		lerr(vc->ld, lineno, "%s", why);
	else
		parse_variant_line(vc->ld, line, lineno, vc->base);
}

/* The variants file as a user would type it, next to the plan as given; escaped. */
static char *shown_beside_plan(const char *plan_path, const char *name)
{
	const char *slash = strrchr(plan_path, '/');
	char *joined, *shown;

	if (name[0] == '/' || !slash)
		return xstrdup_escaped(name);
	joined = xasprintf("%.*s/%s", (int)(slash - plan_path), plan_path, name);
	shown = xstrdup_escaped(joined);
	free(joined);
	return shown;
}

static int load_variants_file(struct plan_loader *ld, const char *given, const struct plan_variant *base)
{
	struct plan *plan = ld->plan;
	struct strbuf sb = STRBUF_INIT;
	struct variants_line_ctx vc = { ld, base };
	enum read_small_result r;
	char *why;
	int ret = -1;

	plan->variants_file = given[0] == '/' ? xstrdup(given) : path_join(plan->dir, given);
	ld->vfile_shown = shown_beside_plan(plan->path, given);
	/*
	 * A regular file (a symbolic link the plan names is followed), never a
	 * FIFO to block on; one message, naming the plan key too: the user may
	 * not know which file this is.
	 */
	r = read_small(&sb, plan->variants_file, VARIANTS_FILE_MAX_BYTES, READ_REGULAR);
	if (r != READ_SMALL_OK) {
		why = read_small_why(r, errno, VARIANTS_FILE_MAX_BYTES);
		json_in_error(&ld->in, "variants_file", "cannot read '%s': %s", ld->vfile_shown, why);
		free(why);
		goto out;
	}
	/* A bad line is reported and the next one read: all problems at once. */
	variants_file_lines(sb.buf, sb.len, variants_line, &vc);
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

static int parse_variants(struct plan_loader *ld, const cJSON *root)
{
	const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "variants");
	const cJSON *e;
	size_t i = 0, before = json_in_count(&ld->in);

	if (!vs)
		return 0;
	if (!cJSON_IsArray(vs) || (!vs->child && !cJSON_GetObjectItemCaseSensitive(root, "variants_file")))
		return json_in_error(&ld->in, "variants", "expected a non-empty array of variant objects, found %s",
			    json_kind(vs));
	cJSON_ArrayForEach(e, vs) {
		struct plan_variant v = { 0 };
		char *p = json_index_path("variants", i);

		/* A refused one is left out: what is said of the others names their own index. */
		if (parse_variant(ld, e, p, 0, &v) == 0) {
			v.listed_at = i;
			add_variant(ld, &v, xstrdup(p), p, 0);
		}
		free(p);
		i++;
	}
	ld->plan->nlisted = ld->plan->nvariants;
	return json_in_count(&ld->in) > before ? -1 : 0;
}

/*
 * The variants: "variants", then "base" with the lines of "variants_file".
 * 0, or -1 when any of them (or their number) was refused.
 */
int plan_loader_variants(struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	struct plan_variant base = { 0 };
	const cJSON *bj = cJSON_GetObjectItemCaseSensitive(root, "base");
	char *vfile = NULL;
	size_t before = json_in_count(&ld->in);

	parse_variants(ld, root);
	json_get_string(&ld->in, root, "", "variants_file", JSON_NONEMPTY, &vfile);
	if (bj && !vfile && json_in_count(&ld->in) == before)
		json_in_error(&ld->in, "base", "only used with \"variants_file\" (add one, or move base into \"variants\")");
	if (vfile && !bj)
		json_in_error(&ld->in, "variants_file", "needs \"base\", the variant its lines build on");
	if (bj && vfile && parse_variant(ld, bj, "base", 1, &base) == 0)
		load_variants_file(ld, vfile, &base);
	if (!plan->nvariants && json_in_count(&ld->in) == before) {
		if (vfile)
			errlist_add(ld->in.errors, "%s: variants_file: '%s' defines no variant", ld->file,
				    ld->vfile_shown);
		else
			json_in_error(&ld->in, "variants", "missing (expected at least one variant)");
	}
	plan_variant_release(&base);
	free(vfile);
	return json_in_count(&ld->in) > before ? -1 : 0;
}
