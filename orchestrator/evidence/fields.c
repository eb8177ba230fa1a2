/*
 * fields: the writer and reader that walk a field table (fields.h).
 */
#include "evidence/fields.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_out.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/escape.h"
#include "util/strbuf.h"

/* Names for the pointer types of the rows, so that CAT() adds its const to a name, not twice to char. */
typedef const char *field_str;
typedef const char *const *field_strv;

#define AT(rec, f, type) ((type *)((char *)(rec) + (f)->off))
#define CAT(rec, f, type) ((const type *)((const char *)(rec) + (f)->off))
#define COUNT(rec, f) ((size_t *)((char *)(rec) + (f)->count_off))
#define CCOUNT(rec, f) ((const size_t *)((const char *)(rec) + (f)->count_off))

/* The member name of a row: "gap_seconds" of "schedule.gap_seconds". */
static const char *member(const struct field *f)
{
	const char *dot = strchr(f->key, '.');
	return dot ? dot + 1 : f->key;
}

/* Whether the row sits in the object open (open: its key), or at the top (open NULL). */
static int belongs(const struct field *f, const char *open)
{
	const char *dot = strchr(f->key, '.');

	if (!dot)
		return open == NULL;
	return open && strlen(open) == (size_t)(dot - f->key) && !strncmp(f->key, open, strlen(open));
}

static void write_int(json_node *o, const struct field *f, int64_t v)
{
	if (((f->flags & FIELD_NULL_NEGATIVE) && v < 0) ||
	    ((f->flags & FIELD_NULL_NONPOSITIVE) && v <= 0))
		jadd(o, member(f), jnull());
	else
		jadd_int(o, member(f), v);
}

static void write_field(json_node *o, const struct field *f, const void *rec)
{
	const char *key = member(f), *s;
	double num;
	int64_t i64;

	switch (f->type) {
	case FIELD_OBJECT:
		break;
	case FIELD_CONST:
		jadd_str(o, key, f->value);
		break;
	case FIELD_STRING:
	case FIELD_OWNED:
	case FIELD_CHARS:
		s = f->type == FIELD_CHARS ? CAT(rec, f, char) : *CAT(rec, f, field_str);
		jadd_str(o, key, (f->flags & FIELD_NULL_EMPTY) && s && !*s ? NULL : s);
		break;
	case FIELD_STRINGS:
	case FIELD_OWNED_STRINGS:
		jadd(o, key, jstrings(*CAT(rec, f, field_strv), *CCOUNT(rec, f)));
		break;
	case FIELD_U64:
		write_int(o, f, (int64_t)*CAT(rec, f, uint64_t));
		break;
	case FIELD_UNSIGNED:
		write_int(o, f, *CAT(rec, f, unsigned));
		break;
	case FIELD_INT:
		write_int(o, f, *CAT(rec, f, int));
		break;
	case FIELD_LONG:
		write_int(o, f, *CAT(rec, f, long));
		break;
	case FIELD_I64:
		write_int(o, f, *CAT(rec, f, int64_t));
		break;
	case FIELD_SIZE:
		write_int(o, f, (int64_t)*CAT(rec, f, size_t));
		break;
	case FIELD_NUMBER:
		num = *CAT(rec, f, double);
		if (((f->flags & FIELD_NULL_NEGATIVE) && num < 0) ||
		    ((f->flags & FIELD_NULL_NONPOSITIVE) && num <= 0))
			jadd(o, key, jnull());
		else
			jadd_num(o, key, num);
		break;
	case FIELD_BOOL:
		if ((f->flags & FIELD_NULL_NEGATIVE) && *CAT(rec, f, int) < 0)
			jadd(o, key, jnull());
		else
			jadd_bool(o, key, *CAT(rec, f, int));
		break;
	case FIELD_NS_SECONDS:
		i64 = *CAT(rec, f, int64_t);
		if ((f->flags & FIELD_NULL_NEGATIVE) && i64 < 0)
			jadd(o, key, jnull());
		else
			jadd_num(o, key, round((double)i64 / 1e6) / 1e3);
		break;
	case FIELD_ENUM:
		i64 = *CAT(rec, f, int);
		if (i64 >= 0 && (size_t)i64 < f->nnames && !f->names[i64] && (f->flags & FIELD_NULLABLE))
			jadd(o, key, jnull());
		else
			jadd_str(o, key, i64 >= 0 && (size_t)i64 < f->nnames && f->names[i64]
					 ? f->names[i64] : "unknown");
		break;
	case FIELD_CUSTOM:
		f->write(o, key, rec);
		break;
	}
}

void fields_write(json_node *o, const struct field *rows, size_t n, const void *rec)
{
	cJSON *obj = NULL;       /* the object open, NULL when written null */
	const char *open = NULL; /* its key */

	for (size_t i = 0; i < n; i++) {
		const struct field *f = &rows[i];

		if (f->type == FIELD_OBJECT) {
			open = f->key;
			if ((f->flags & FIELD_NULL_UNLESS) && !*CAT(rec, f, field_str)) {
				jadd(o, f->key, jnull());
				obj = NULL;
			} else {
				obj = jnew_object();
				jadd(o, f->key, obj);
			}
			continue;
		}
		if (belongs(f, NULL))
			write_field(o, f, rec);
		else if (belongs(f, open) && obj)
			write_field(obj, f, rec);
	}
}

void fields_unset(const struct field *rows, size_t n, void *rec)
{
	for (size_t i = 0; i < n; i++) {
		const struct field *f = &rows[i];

		if (!(f->flags & FIELD_NULL_NEGATIVE))
			continue;
		switch (f->type) {
		case FIELD_NUMBER: *AT(rec, f, double) = -1; break;
		case FIELD_INT:
		case FIELD_BOOL: *AT(rec, f, int) = -1; break;
		case FIELD_LONG: *AT(rec, f, long) = -1; break;
		case FIELD_I64:
		case FIELD_NS_SECONDS: *AT(rec, f, int64_t) = -1; break;
		default: break;
		}
	}
}

void fields_release(const struct field *rows, size_t n, void *rec)
{
	for (size_t i = 0; i < n; i++) {
		const struct field *f = &rows[i];

		if (f->type == FIELD_OWNED) {
			free(*AT(rec, f, char *));
			*AT(rec, f, char *) = NULL;
		} else if (f->type == FIELD_OWNED_STRINGS) {
			strv_free(*AT(rec, f, char **));
			*AT(rec, f, char **) = NULL;
			*COUNT(rec, f) = 0;
		}
	}
	fields_unset(rows, n, rec);
}

void fields_copy(const struct field *rows, size_t n, void *dst, const void *src)
{
	for (size_t i = 0; i < n; i++) {
		const struct field *f = &rows[i];
		char **v;
		size_t count;

		switch (f->type) {
		case FIELD_OBJECT:
		case FIELD_CONST:
		case FIELD_CUSTOM:
			break;
		case FIELD_OWNED:
			*AT(dst, f, char *) = *CAT(src, f, field_str) ? xstrdup(*CAT(src, f, field_str)) : NULL;
			break;
		case FIELD_CHARS:
			memcpy(AT(dst, f, char), CAT(src, f, char), f->count_off);
			break;
		case FIELD_STRING:
			*AT(dst, f, const char *) = *CAT(src, f, field_str);
			break;
		case FIELD_STRINGS:
			*AT(dst, f, const char *const *) = *CAT(src, f, field_strv);
			*COUNT(dst, f) = *CCOUNT(src, f);
			break;
		case FIELD_OWNED_STRINGS:
			count = *CCOUNT(src, f);
			v = NULL;
			if (*CAT(src, f, field_strv)) {
				v = xcalloc(count + 1, sizeof(*v));
				for (size_t k = 0; k < count; k++)
					v[k] = xstrdup((*CAT(src, f, field_strv))[k]);
			}
			*AT(dst, f, char **) = v;
			*COUNT(dst, f) = count;
			break;
		case FIELD_U64: *AT(dst, f, uint64_t) = *CAT(src, f, uint64_t); break;
		case FIELD_UNSIGNED: *AT(dst, f, unsigned) = *CAT(src, f, unsigned); break;
		case FIELD_INT:
		case FIELD_ENUM:
		case FIELD_BOOL: *AT(dst, f, int) = *CAT(src, f, int); break;
		case FIELD_LONG: *AT(dst, f, long) = *CAT(src, f, long); break;
		case FIELD_I64:
		case FIELD_NS_SECONDS: *AT(dst, f, int64_t) = *CAT(src, f, int64_t); break;
		case FIELD_SIZE: *AT(dst, f, size_t) = *CAT(src, f, size_t); break;
		case FIELD_NUMBER: *AT(dst, f, double) = *CAT(src, f, double); break;
		}
	}
}

/* The bounds an integer row is read within. */
static void bounds(const struct field *f, int64_t lo, int64_t hi, int64_t *min, int64_t *max)
{
	if (f->min || f->max) {
		*min = f->min;
		*max = f->max;
	} else {
		*min = lo;
		*max = hi;
	}
}

/* An integer row: 1 read into *v, 0 absent or null, -1 after the error. */
static int read_int(const struct json_in *rd, const json_node *o, const char *path,
		    const struct field *f, unsigned flags, int64_t lo, int64_t hi, int64_t *v)
{
	int64_t min, max;

	bounds(f, lo, hi, &min, &max);
	return json_get_int(rd, o, path, member(f), flags, min, max, v);
}

/* A FIELD_ENUM's value that names none of its values: the error says which it may name. */
static void read_enum_error(const struct json_in *rd, const char *path, const char *key,
			    const struct field *f, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	char *at = *path ? json_key_path(path, key) : xstrdup(key);
	char b[SHOW_MAX];

	for (size_t i = 0; i < f->nnames; i++)
		if (f->names[i])
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", f->names[i]);
	json_in_error(rd, at, "unknown value '%s' (expected one of: %s)",
		      show_str(b, sizeof(b), s), sb.buf);
	free(at);
	strbuf_release(&sb);
}

static int read_field(const struct json_in *rd, const json_node *o, const char *path,
		      const struct field *f, void *rec, void (*keep)(void *ctx, void *p),
		      void *ctx)
{
	unsigned flags = ((f->flags & FIELD_READ) && !(f->flags & FIELD_OPTIONAL) ? JSON_REQUIRED : 0) |
			 ((f->flags & (FIELD_NULLABLE | FIELD_NULL_EMPTY | FIELD_NULL_NEGATIVE |
				       FIELD_NULL_NONPOSITIVE)) ? JSON_NULLABLE : 0);
	const char *key = member(f);
	char *s = NULL, **v = NULL;
	int64_t i64 = 0;
	double num = 0;
	size_t n = 0;
	int rc, b = 0;

	switch (f->type) {
	case FIELD_OBJECT:
		return 0;
	case FIELD_CONST:
		rc = json_get_string(rd, o, path, key, flags, &s);
		if (rc > 0 && strcmp(s, f->value))
			rc = json_in_error(rd, *path ? path : key, "expected \"%s\"", f->value);
		free(s);
		return rc < 0 ? -1 : 0;
	case FIELD_STRING:
	case FIELD_OWNED:
	case FIELD_CHARS:
		rc = json_get_string(rd, o, path, key, flags, &s);
		if (rc <= 0)
			return rc;
		if (f->type == FIELD_CHARS) {
			snprintf(AT(rec, f, char), f->count_off, "%s", s);
			free(s);
		} else if (f->type == FIELD_OWNED) {
			free(*AT(rec, f, char *));
			*AT(rec, f, char *) = s;
		} else {
			keep(ctx, s);
			*AT(rec, f, const char *) = s;
		}
		return 0;
	case FIELD_STRINGS:
	case FIELD_OWNED_STRINGS:
		rc = json_get_strings(rd, o, path, key, flags, &v, &n);
		if (rc <= 0)
			return rc;
		if (f->type == FIELD_STRINGS) {
			for (size_t i = 0; i < n; i++)
				keep(ctx, v[i]);
			keep(ctx, v);
		}
		*AT(rec, f, char **) = v;
		*COUNT(rec, f) = n;
		return 0;
	case FIELD_U64:
		rc = read_int(rd, o, path, f, flags, 0, INT64_MAX, &i64);
		if (rc > 0)
			*AT(rec, f, uint64_t) = (uint64_t)i64;
		return rc < 0 ? -1 : 0;
	case FIELD_UNSIGNED:
		rc = read_int(rd, o, path, f, flags, 0, UINT32_MAX, &i64);
		if (rc > 0)
			*AT(rec, f, unsigned) = (unsigned)i64;
		return rc < 0 ? -1 : 0;
	case FIELD_INT:
		rc = read_int(rd, o, path, f, flags, INT_MIN, INT_MAX, &i64);
		if (rc > 0)
			*AT(rec, f, int) = (int)i64;
		return rc < 0 ? -1 : 0;
	case FIELD_LONG:
		rc = read_int(rd, o, path, f, flags, LONG_MIN, LONG_MAX, &i64);
		if (rc > 0)
			*AT(rec, f, long) = (long)i64;
		return rc < 0 ? -1 : 0;
	case FIELD_I64:
		rc = read_int(rd, o, path, f, flags, INT64_MIN, INT64_MAX, &i64);
		if (rc > 0)
			*AT(rec, f, int64_t) = i64;
		return rc < 0 ? -1 : 0;
	case FIELD_SIZE:
		rc = read_int(rd, o, path, f, flags, 0, INT64_C(1) << 53, &i64);
		if (rc > 0)
			*AT(rec, f, size_t) = (size_t)i64;
		return rc < 0 ? -1 : 0;
	case FIELD_NUMBER:
		rc = json_get_number(rd, o, path, key, flags, -HUGE_VAL, 0, HUGE_VAL, &num);
		if (rc > 0)
			*AT(rec, f, double) = num;
		return rc < 0 ? -1 : 0;
	case FIELD_BOOL:
		rc = json_get_bool(rd, o, path, key, flags, &b);
		if (rc > 0)
			*AT(rec, f, int) = b;
		return rc < 0 ? -1 : 0;
	case FIELD_NS_SECONDS:
		rc = json_get_number(rd, o, path, key, flags, 0, 0, 1e9, &num);
		if (rc > 0)
			*AT(rec, f, int64_t) = llround(num * 1e9);
		return rc < 0 ? -1 : 0;
	case FIELD_ENUM:
		rc = json_get_string(rd, o, path, key, flags, &s);
		if (rc <= 0)
			return rc;
		for (n = 0; n < f->nnames && (!f->names[n] || strcmp(s, f->names[n])); n++)
			;
		if (n < f->nnames)
			*AT(rec, f, int) = (int)n;
		else
			read_enum_error(rd, path, key, f, s);
		free(s);
		return n < f->nnames ? 0 : -1;
	case FIELD_CUSTOM:
		return f->read ? f->read(rd, o, path, key, rec) : 0;
	}
	return 0;
}

int fields_read(const struct json_in *rd, const json_node *root, const char *path,
		const struct field *rows, size_t n, void *rec,
		void (*keep)(void *ctx, void *p), void *ctx)
{
	const cJSON *obj = NULL;   /* the object open; NULL: absent or null */
	const char *open = NULL;
	char *sub = NULL;
	int ret = -1;

	for (size_t i = 0; i < n; i++) {
		const struct field *f = &rows[i];

		if (!(f->flags & (FIELD_READ | FIELD_OPTIONAL)) && f->type != FIELD_OBJECT)
			continue;
		if (f->type == FIELD_OBJECT) {
			const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, f->key);

			open = f->key;
			free(sub);
			sub = *path ? json_key_path(path, f->key) : xstrdup(f->key);
			obj = cJSON_IsObject(j) ? j : NULL;
			if (obj || ((f->flags & FIELD_NULLABLE) && (!j || cJSON_IsNull(j))))
				continue;
			if (j && !cJSON_IsNull(j)) {
				json_in_error(rd, sub, "expected an object");
				goto out;
			}
			if ((f->flags & FIELD_READ) && !(f->flags & FIELD_OPTIONAL)) {
				json_in_error(rd, sub, "%s", f->missing ? f->missing : "missing");
				goto out;
			}
			continue;
		}
		if (belongs(f, NULL)) {
			if (read_field(rd, root, path, f, rec, keep, ctx) < 0)
				goto out;
		} else if (belongs(f, open) && obj) {
			if (read_field(rd, obj, sub, f, rec, keep, ctx) < 0)
				goto out;
		}
	}
	ret = 0;
out:
	free(sub);
	return ret;
}
