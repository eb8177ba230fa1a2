/*
 * plan_loader: the reading steps the plan's readers share (plan_loader.h)
 * — the keys an object may have, templates, string arrays, argv and
 * step commands, CPU lists — each adding every problem it finds to the
 * loader's list rather than stopping at the first.
 */
#include "plan/plan_loader.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "plan/plan_doc.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/cpulist.h"
#include "util/json_in.h"

/*
 * Refuses members that the reference (plan_doc.c) does not list under
 * doc_parent (without "name" when skip_name: the base variant), naming
 * the known ones and the nearest of them, and members given twice, which
 * cJSON would otherwise keep silently with the first one winning. Every
 * such member is reported.
 */
int plan_loader_keys(const struct plan_loader *ld, const cJSON *obj, const char *path,
		      const char *doc_parent, int skip_name)
{
	const char *known[PLAN_DOC_MAX_CHILDREN];
	size_t nknown = plan_doc_children(doc_parent, known, ARRAY_SIZE(known));

	if (skip_name && nknown && !strcmp(known[0], "name"))
		memmove(known, known + 1, --nknown * sizeof(*known));
	return json_check_keys(&ld->in, obj, path, known, nknown);
}

/* allowed: the placeholders the template may use (PLAN_PH_ALL, PLAN_PH_VARIANT). */
int plan_loader_template(const struct plan_loader *ld, const char *path, const char *tmpl,
			       unsigned allowed)
{
	char why[160];
	if (plan_template_check(tmpl, allowed, why, sizeof(why)) < 0)
		return json_in_error(&ld->in, path, "%s", why);
	return 0;
}

/* An array of strings (each a template) into a NULL-free vector. */
int plan_loader_strings(const struct plan_loader *ld, const cJSON *j, const char *path,
			    unsigned allowed, char ***out, size_t *out_len)
{
	size_t n = 0, i = 0, before = json_in_count(&ld->in);
	const cJSON *e;

	cJSON_ArrayForEach(e, j)
		n++;
	*out = xcalloc(n, sizeof(**out));
	*out_len = 0;
	cJSON_ArrayForEach(e, j) {
		char *p = json_index_path(path, i++);
		if (!cJSON_IsString(e))
			json_in_error(&ld->in, p, "expected a string, found %s", json_kind(e));
		else if (plan_loader_template(ld, p, e->valuestring, allowed) == 0)
			(*out)[(*out_len)++] = xstrdup(e->valuestring);
		free(p);
	}
	return json_in_count(&ld->in) > before ? -1 : 0;
}

/*
 * An argv template array under key of obj ("command", "prepare"): a
 * non-empty array of strings whose first is a program name. Absent is an
 * error when required, else leaves *argv NULL.
 */
static int loader_argv(const struct plan_loader *ld, const cJSON *obj, const char *path,
		       const char *key, int required, unsigned allowed, char ***argv,
		       size_t *argc)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
	char *p = json_key_path(path, key);
	char *p0 = NULL;
	int ret = -1;

	if (!j && !required) {
		ret = 0;
		goto out;
	}
	if (!j) {
		json_in_error(&ld->in, p, "missing (expected a non-empty array of strings)");
		goto out;
	}
	if (!cJSON_IsArray(j) || !j->child) {
		json_in_error(&ld->in, p, "expected a non-empty array of strings, found %s", json_kind(j));
		goto out;
	}
	if (plan_loader_strings(ld, j, p, allowed, argv, argc) < 0)
		goto out;
	if (!*(*argv)[0]) {
		p0 = json_index_path(p, 0);
		json_in_error(&ld->in, p0, "expected a program name, found an empty string");
		goto out;
	}
	ret = 0;
out:
	free(p0);
	free(p);
	return ret;
}

int plan_loader_argv(const struct plan_loader *ld, const cJSON *obj, const char *path,
		     const char *key, int required, char ***argv, size_t *argc)
{
	return loader_argv(ld, obj, path, key, required, PLAN_PH_ALL, argv, argc);
}

int plan_loader_step(const struct plan_loader *ld, const cJSON *obj, const char *path,
		     const char *key, char ***argv, size_t *argc)
{
	return loader_argv(ld, obj, path, key, 0, PLAN_PH_VARIANT, argv, argc);
}

/*
 * "cpus": a CPU list ("0-1", "0,2") in *out, canonical (caller frees);
 * left alone when absent.
 */
int plan_loader_cpus(const struct plan_loader *ld, const cJSON *obj, const char *path, char **out)
{
	struct cpulist cl;
	char *text = NULL, *why = NULL, *p = NULL;
	int ret = 0;

	if (json_get_string(&ld->in, obj, path, "cpus", JSON_NONEMPTY, &text) < 0)
		return -1;
	if (!text)
		return 0;
	if (cpulist_parse(text, &cl, &why) < 0) {
		p = json_key_path(path, "cpus");
		json_in_error(&ld->in, p, "%s", why);
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
