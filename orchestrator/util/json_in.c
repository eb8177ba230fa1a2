/*
 * json_in: the getters share one shape — look the member up, accept it,
 * or say at its full path what was expected and what was found — so that
 * every reader's messages read alike. Nothing here keeps state: the
 * struct json_in only says where messages go.
 */
#include "util/json_in.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/suggest.h"
#include "util/alloc.h"
#include "util/env.h"
#include "util/escape.h"
#include "util/strbuf.h"

int json_in_error(const struct json_in *in, const char *path, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!in->errors && *in->first)
		return -1;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (in->errors)
		errlist_add(in->errors, "%s: %s: %s", in->file, path, sb.buf);
	else
		*in->first = xasprintf("%s: %s: %s", in->file, path, sb.buf);
	strbuf_release(&sb);
	return -1;
}

size_t json_in_count(const struct json_in *in)
{
	if (in->errors)
		return in->errors->total;
	return *in->first != NULL;
}

const char *json_kind(const json_node *j)
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

const char *json_found(char buf[SHOW_MAX], const json_node *j)
{
	if (cJSON_IsNumber(j)) {
		snprintf(buf, SHOW_MAX, "%.15g", j->valuedouble);
		return buf;
	}
	return json_kind(j);
}

char *json_key_path(const char *path, const char *key)
{
	char b[SHOW_MAX];
	if (!*path)
		return xstrdup(show_str(b, sizeof(b), key));
	return xasprintf("%s.%s", path, show_str(b, sizeof(b), key));
}

char *json_index_path(const char *path, size_t i)
{
	return xasprintf("%s[%zu]", path, i);
}

/*
 * The member, or NULL when it may be left out (absent, or null when
 * nullable); *ret is then 0, or -1 after a "missing" message.
 */
/*
 * cJSON_GetObjectItemCaseSensitive(), the first member named key, with
 * the first bytes compared before the rest: a record of 10,000
 * invocations is read one key at a time from objects of seventy.
 */
static const cJSON *find_member(const cJSON *obj, const char *key)
{
	if (!obj || !key)
		return NULL;
	for (const cJSON *c = obj->child; c; c = c->next) {
		if (!c->string)
			return NULL;
		if (c->string[0] == key[0] && !strcmp(c->string, key))
			return c;
	}
	return NULL;
}

static const cJSON *member(const struct json_in *in, const cJSON *obj, const char *path,
			   const char *key, unsigned flags, const char *want, int *ret)
{
	const cJSON *j = find_member(obj, key);

	*ret = 0;
	if (j && !((flags & JSON_NULLABLE) && cJSON_IsNull(j)))
		return j;
	if (!j && (flags & JSON_REQUIRED)) {
		char *p = json_key_path(path, key);
		*ret = json_in_error(in, p, "missing (expected %s)", want);
		free(p);
	}
	return NULL;
}

/* "expected <want>, found <what j is>" at path.key, numbers shown when figures. Returns -1. */
static int wrong(const struct json_in *in, const char *path, const char *key, const char *want,
		 const cJSON *j, int figures)
{
	char b[SHOW_MAX];
	char *p = json_key_path(path, key);
	json_in_error(in, p, "expected %s, found %s", want, figures ? json_found(b, j) : json_kind(j));
	free(p);
	return -1;
}

int json_get_object(const struct json_in *in, const json_node *obj, const char *path,
		    const char *key, unsigned flags, const json_node **out)
{
	int ret;
	const cJSON *j = member(in, obj, path, key, flags, "an object", &ret);

	*out = NULL;
	if (!j)
		return ret;
	if (!cJSON_IsObject(j))
		return wrong(in, path, key, "an object", j, 0);
	*out = j;
	return 1;
}

int json_get_array(const struct json_in *in, const json_node *obj, const char *path,
		   const char *key, unsigned flags, const json_node **out)
{
	int ret;
	const cJSON *j = member(in, obj, path, key, flags, "an array", &ret);

	*out = NULL;
	if (!j)
		return ret;
	if (!cJSON_IsArray(j))
		return wrong(in, path, key, "an array", j, 0);
	*out = j;
	return 1;
}

int json_get_string(const struct json_in *in, const json_node *obj, const char *path,
		    const char *key, unsigned flags, char **out)
{
	const char *want = (flags & JSON_NONEMPTY) ? "a non-empty string" : "a string";
	int ret;
	const cJSON *j = member(in, obj, path, key, flags, want, &ret);

	if (!j)
		return ret;
	if (!cJSON_IsString(j) || ((flags & JSON_NONEMPTY) && !*j->valuestring))
		return wrong(in, path, key, want, j, 0);
	free(*out);
	*out = xstrdup(j->valuestring);
	return 1;
}

int json_get_int(const struct json_in *in, const json_node *obj, const char *path,
		 const char *key, unsigned flags, int64_t min, int64_t max, int64_t *out)
{
	char want[96];
	int ret;
	const cJSON *j;

	if (max == JSON_INT_MAX)
		snprintf(want, sizeof(want), "an integer >= %lld", (long long)min);
	else
		snprintf(want, sizeof(want), "an integer from %lld to %lld", (long long)min,
			 (long long)max);
	j = member(in, obj, path, key, flags, want, &ret);
	if (!j)
		return ret;
	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) ||
	    j->valuedouble != floor(j->valuedouble) || j->valuedouble < (double)min ||
	    j->valuedouble > (double)max)
		return wrong(in, path, key, want, j, 1);
	*out = (int64_t)j->valuedouble;
	return 1;
}

int json_get_number(const struct json_in *in, const json_node *obj, const char *path,
		    const char *key, unsigned flags, double min, int min_exclusive, double max,
		    double *out)
{
	char want[96];
	int ret;
	const cJSON *j;

	if (min == -HUGE_VAL && max == HUGE_VAL)
		snprintf(want, sizeof(want), "a number");
	else
		snprintf(want, sizeof(want), "a number %s %g and <= %g",
			 min_exclusive ? ">" : ">=", min, max);
	j = member(in, obj, path, key, flags, want, &ret);
	if (!j)
		return ret;
	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) ||
	    !(min_exclusive ? j->valuedouble > min : j->valuedouble >= min) ||
	    j->valuedouble > max)
		return wrong(in, path, key, want, j, 1);
	*out = j->valuedouble;
	return 1;
}

int json_get_bool(const struct json_in *in, const json_node *obj, const char *path,
		  const char *key, unsigned flags, int *out)
{
	int ret;
	const cJSON *j = member(in, obj, path, key, flags, "true or false", &ret);

	if (!j)
		return ret;
	if (!cJSON_IsBool(j))
		return wrong(in, path, key, "true or false", j, 0);
	*out = cJSON_IsTrue(j);
	return 1;
}

int json_get_strings(const struct json_in *in, const json_node *obj, const char *path,
		     const char *key, unsigned flags, char ***out, size_t *n)
{
	int ret;
	const cJSON *a = member(in, obj, path, key, flags, "an array of strings", &ret), *e;
	char **v;

	*out = NULL;
	*n = 0;
	if (!a)
		return ret;
	if (!cJSON_IsArray(a))
		return wrong(in, path, key, "an array of strings", a, 0);
	v = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(*v));
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsString(e)) {
			char *p = json_key_path(path, key);
			char *pi = json_index_path(p, *n);
			json_in_error(in, pi, "expected a string, found %s", json_kind(e));
			free(pi);
			free(p);
			strv_free(v);
			*n = 0;
			return -1;
		}
		v[(*n)++] = xstrdup(e->valuestring);
	}
	*out = v;
	return 1;
}

static void unknown_key(const struct json_in *in, const char *path, const char *key,
			const char *const *known, size_t nknown)
{
	struct strbuf list = STRBUF_INIT;
	const char *near = suggest_nearest(key, known, nknown);
	char *p = json_key_path(path, key);

	for (size_t i = 0; i < nknown; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", known[i]);
	json_in_error(in, p, "unknown key" SUGGEST_FMT " (expected one of: %s)", SUGGEST_ARGS(near),
		      list.buf);
	strbuf_release(&list);
	free(p);
}

int json_check_keys(const struct json_in *in, const json_node *obj, const char *path,
		    const char *const *known, size_t nknown)
{
	size_t before = json_in_count(in);

	for (const cJSON *c = obj->child; c; c = c->next) {
		size_t i;
		for (i = 0; i < nknown; i++)
			if (!strcmp(c->string, known[i]))
				break;
		if (i == nknown) {
			unknown_key(in, path, c->string, known, nknown);
			continue;
		}
		for (const cJSON *d = obj->child; d != c; d = d->next) {
			if (!strcmp(d->string, c->string)) {
				char *p = json_key_path(path, c->string);
				json_in_error(in, p, "key given twice");
				free(p);
				break;
			}
		}
	}
	return json_in_count(in) > before ? -1 : 0;
}
