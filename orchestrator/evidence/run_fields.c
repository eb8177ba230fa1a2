/*
 * run_fields: the header table of result.json and the two walks over it
 * (run_fields.h). The rows are in the order abev has always written
 * them: the bytes of result.json do not depend on this table being new.
 */
#include "evidence/run_fields.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/evidence.h"
#include "record/layout.h"
#include "util/json_out.h"

#define OFF(f) offsetof(struct run_header, f)
#define REQ RUN_FIELD_REQUIRED
#define RD RUN_FIELD_READ
#define NUL RUN_FIELD_NULLABLE

const struct run_field run_fields[] = {
	{ "schema", RUN_FIELD_CONST, 0, 0, REQ | RD, NULL, EVIDENCE_RUN_SCHEMA, NULL },
	{ "abev_version", RUN_FIELD_STRING, OFF(abev_version), 0, REQ, NULL, NULL, NULL },
	{ "plan", RUN_FIELD_OBJECT, 0, 0, REQ | RD, NULL, NULL, "missing: not abev's result.json" },
	{ "plan.name", RUN_FIELD_STRING, OFF(plan_name), 0, REQ | RD, NULL, NULL, NULL },
	{ "plan.description", RUN_FIELD_STRING, OFF(plan_description), 0, REQ | RD | NUL, NULL, NULL, NULL },
	{ "plan.file", RUN_FIELD_CONST, 0, 0, REQ, NULL, EVIDENCE_PLAN_FILE, NULL },
	{ "plan.source", RUN_FIELD_STRING, OFF(plan_path), 0, REQ | RD, NULL, NULL, NULL },
	{ "status", RUN_FIELD_STRING, OFF(status), 0, REQ | RD, NULL, NULL, NULL },
	{ "interrupt", RUN_FIELD_STRING, OFF(interrupt), 0, REQ | RD | NUL, NULL, NULL, NULL },
	{ "started_utc", RUN_FIELD_STRING, OFF(started_utc), 0, REQ | RD, NULL, NULL, NULL },
	{ "ended_utc", RUN_FIELD_STRING, OFF(ended_utc), 0, REQ | RD | NUL | RUN_FIELD_NULL_EMPTY, NULL, NULL, NULL },
	{ "schedule", RUN_FIELD_OBJECT, 0, 0, REQ | RD, NULL, NULL, "missing: not abev's result.json" },
	{ "schedule.order", RUN_FIELD_STRING, OFF(order), 0, REQ | RD, NULL, NULL, NULL },
	{ "schedule.seed", RUN_FIELD_U64, OFF(seed), 0, REQ | RD, NULL, NULL, NULL },
	{ "schedule.warmups", RUN_FIELD_UNSIGNED, OFF(warmups), 0, REQ | RD, NULL, NULL, NULL },
	{ "schedule.runs", RUN_FIELD_UNSIGNED, OFF(runs), 0, REQ | RD, NULL, NULL, NULL },
	{ "schedule.gap_seconds", RUN_FIELD_NUMBER, OFF(gap_seconds), 0, REQ | RD, "s", NULL, NULL },
	{ "schedule.timeout_seconds", RUN_FIELD_NUMBER, OFF(timeout_seconds), 0,
	  REQ | RD | NUL | RUN_FIELD_NULL_NONPOSITIVE, "s", NULL, NULL },
	{ "schedule.max_foreign_cpu", RUN_FIELD_NUMBER, OFF(max_foreign_cpu), 0,
	  REQ | RD | NUL | RUN_FIELD_NULL_NEGATIVE, "cores", NULL, NULL },
	{ "schedule.max_cpu_wait_pct", RUN_FIELD_NUMBER, OFF(max_cpu_wait_pct), 0, REQ | RD, "%", NULL, NULL },
	{ "schedule.max_cpu_wait_pct_from", RUN_FIELD_STRING, OFF(max_cpu_wait_pct_from), 0, REQ, NULL, NULL, NULL },
	{ "schedule.cpus", RUN_FIELD_STRING, OFF(cpus), 0, REQ | NUL, NULL, NULL, NULL },
	{ "schedule.max_repeats", RUN_FIELD_UNSIGNED, OFF(max_repeats), 0, REQ | RD, NULL, NULL, NULL },
	{ "schedule.exclusive", RUN_FIELD_STRINGS, OFF(exclusive), OFF(nexclusive), REQ, NULL, NULL, NULL },
	{ "peers", RUN_FIELD_OBJECT, 0, 0, REQ, NULL, NULL, NULL },
	{ "peers.lock_dir", RUN_FIELD_STRING, OFF(lock_dir), 0, REQ | NUL, NULL, NULL, NULL },
	{ "peers.wait", RUN_FIELD_BOOL, OFF(wait), 0, REQ, NULL, NULL, NULL },
	{ "peers.waited_seconds", RUN_FIELD_NS_SECONDS, OFF(waited_ns), 0,
	  REQ | NUL | RUN_FIELD_NULL_NEGATIVE, "s", NULL, NULL },
	{ "run_as", RUN_FIELD_OBJECT, OFF(run_as_user), 0, REQ | NUL | RUN_FIELD_NULL_UNLESS, NULL, NULL, NULL },
	{ "run_as.user", RUN_FIELD_STRING, OFF(run_as_user), 0, REQ, NULL, NULL, NULL },
	{ "run_as.uid", RUN_FIELD_I64, OFF(run_as_uid), 0, REQ, NULL, NULL, NULL },
	{ "run_as.gid", RUN_FIELD_I64, OFF(run_as_gid), 0, REQ, NULL, NULL, NULL },
	{ "run_as.from", RUN_FIELD_STRING, OFF(run_as_from), 0, REQ, NULL, NULL, NULL },
	{ "variants", RUN_FIELD_STRINGS, OFF(variant_names), OFF(nvariants), REQ | RD, NULL, NULL, NULL },
	{ "planned", RUN_FIELD_UNSIGNED, OFF(planned), 0, REQ, NULL, NULL, NULL },
	{ "executed", RUN_FIELD_U64, OFF(executed), 0, REQ, NULL, NULL, NULL },
	{ "abev_max_rss_bytes", RUN_FIELD_I64, OFF(abev_max_rss_bytes), 0, REQ, "bytes", NULL, NULL },
	{ "notes", RUN_FIELD_STRINGS, OFF(notes), OFF(nnotes), REQ | RD, NULL, NULL, NULL },
	{ "report", RUN_FIELD_OBJECT, 0, 0, RD, NULL, NULL,
	  "missing: this evidence was made by an abev that did not record what its report needs" },
	{ "report.reproduce", RUN_FIELD_STRING, OFF(reproduce), 0, REQ | RD | NUL, NULL, NULL, NULL },
	{ "report.cwd", RUN_FIELD_STRING, OFF(reproduce_cwd), 0, REQ | RD | NUL, NULL, NULL, NULL },
	{ "report.plan_sha256", RUN_FIELD_STRING, OFF(plan_sha256), 0, REQ | RD, NULL, NULL, NULL },
	{ "report.evidence_dir", RUN_FIELD_STRING, OFF(evidence_dir), 0, REQ | RD | NUL, NULL, NULL, NULL },
	{ "report.signed", RUN_FIELD_BOOL, OFF(signed_evidence), 0, REQ | RD, NULL, NULL, NULL },
	{ "report.pubkey", RUN_FIELD_STRING, OFF(pubkey), 0, REQ | RD | NUL, NULL, NULL, NULL },
	{ "report.key_source", RUN_FIELD_STRING, OFF(key_source), 0, REQ | NUL, NULL, NULL, NULL },
	{ "report.template", RUN_FIELD_STRING, OFF(report_template), 0, REQ | RD | NUL, NULL, NULL, NULL },
};
const size_t run_fields_count = sizeof(run_fields) / sizeof(run_fields[0]);

#define AT(hdr, f, type) ((type *)((char *)(hdr) + (f)->off))
#define CAT(hdr, f, type) ((const type *)((const char *)(hdr) + (f)->off))

/* The member name of a row: "gap_seconds" of "schedule.gap_seconds". */
static const char *member(const struct run_field *f)
{
	const char *dot = strchr(f->key, '.');
	return dot ? dot + 1 : f->key;
}

/* The object a row's key names, or "" for the top level, into buf. */
static const char *parent(const struct run_field *f, char *buf, size_t size)
{
	const char *dot = strchr(f->key, '.');
	size_t n = dot ? (size_t)(dot - f->key) : 0;

	if (n >= size)
		n = size - 1;
	memcpy(buf, f->key, n);
	buf[n] = '\0';
	return buf;
}

static void write_field(cJSON *o, const struct run_field *f, const struct run_header *hdr)
{
	const char *key = member(f);
	double num;
	int64_t i64;

	switch (f->type) {
	case RUN_FIELD_OBJECT:
		break;
	case RUN_FIELD_CONST:
		jadd_str(o, key, f->value);
		break;
	case RUN_FIELD_STRING: {
		const char *s = *CAT(hdr, f, const char *);
		jadd_str(o, key, (f->flags & RUN_FIELD_NULL_EMPTY) && s && !*s ? NULL : s);
		break;
	}
	case RUN_FIELD_STRINGS:
		jadd(o, key, jstrings(*CAT(hdr, f, const char *const *),
					  *(const size_t *)((const char *)hdr + f->count_off)));
		break;
	case RUN_FIELD_U64:
		jadd_int(o, key, (int64_t)*CAT(hdr, f, uint64_t));
		break;
	case RUN_FIELD_UNSIGNED:
		jadd_int(o, key, *CAT(hdr, f, unsigned));
		break;
	case RUN_FIELD_I64:
		jadd_int(o, key, *CAT(hdr, f, int64_t));
		break;
	case RUN_FIELD_NUMBER:
		num = *CAT(hdr, f, double);
		if (((f->flags & RUN_FIELD_NULL_NEGATIVE) && num < 0) ||
		    ((f->flags & RUN_FIELD_NULL_NONPOSITIVE) && num <= 0))
			jadd(o, key, jnull());
		else
			jadd_num(o, key, num);
		break;
	case RUN_FIELD_BOOL:
		jadd_bool(o, key, *CAT(hdr, f, int));
		break;
	case RUN_FIELD_NS_SECONDS:
		i64 = *CAT(hdr, f, int64_t);
		if ((f->flags & RUN_FIELD_NULL_NEGATIVE) && i64 < 0)
			jadd(o, key, jnull());
		else
			jadd_num(o, key, round((double)i64 / 1e6) / 1e3);
		break;
	}
}

void run_fields_write(cJSON *o, const struct run_header *hdr)
{
	cJSON *obj = NULL;     /* the object open, NULL when written null */
	const char *open = ""; /* its key */
	char buf[64];

	for (size_t i = 0; i < run_fields_count; i++) {
		const struct run_field *f = &run_fields[i];

		if (f->type == RUN_FIELD_OBJECT) {
			open = f->key;
			if ((f->flags & RUN_FIELD_NULL_UNLESS) && !*CAT(hdr, f, const char *)) {
				jadd(o, f->key, jnull());
				obj = NULL;
			} else {
				obj = jnew_object();
				jadd(o, f->key, obj);
			}
			continue;
		}
		if (!*parent(f, buf, sizeof(buf)))
			write_field(o, f, hdr);
		else if (!strcmp(buf, open) && obj)
			write_field(obj, f, hdr);
	}
}

void run_fields_unset(struct run_header *hdr)
{
	*hdr = (struct run_header)RUN_HEADER_INIT;
	for (size_t i = 0; i < run_fields_count; i++) {
		const struct run_field *f = &run_fields[i];

		if (!(f->flags & RUN_FIELD_NULL_NEGATIVE))
			continue;
		if (f->type == RUN_FIELD_NUMBER)
			*AT(hdr, f, double) = -1;
		else if (f->type == RUN_FIELD_NS_SECONDS || f->type == RUN_FIELD_I64)
			*AT(hdr, f, int64_t) = -1;
	}
	/* Without a run_as object there is no uid or gid. */
	hdr->run_as_uid = hdr->run_as_gid = -1;
}

static int read_field(const struct json_in *rd, const cJSON *o, const char *path,
		      const struct run_field *f, struct run_header *hdr,
		      void (*keep)(void *ctx, void *p), void *ctx)
{
	unsigned flags = ((f->flags & RUN_FIELD_READ) ? JSON_REQUIRED : 0) |
			 ((f->flags & RUN_FIELD_NULLABLE) ? JSON_NULLABLE : 0);
	const char *key = member(f);
	char *s = NULL, **v = NULL;
	int64_t i64 = 0;
	double num = 0;
	size_t n = 0;
	int rc, b = 0;

	switch (f->type) {
	case RUN_FIELD_OBJECT:
		return 0;
	case RUN_FIELD_CONST:
		rc = json_get_string(rd, o, path, key, flags, &s);
		if (rc > 0 && strcmp(s, f->value))
			rc = json_in_error(rd, *path ? path : key, "expected \"%s\"", f->value);
		free(s);
		return rc < 0 ? -1 : 0;
	case RUN_FIELD_STRING:
		rc = json_get_string(rd, o, path, key, flags, &s);
		if (rc > 0) {
			keep(ctx, s);
			*AT(hdr, f, const char *) = s;
		}
		return rc < 0 ? -1 : 0;
	case RUN_FIELD_STRINGS:
		rc = json_get_strings(rd, o, path, key, flags, &v, &n);
		if (rc > 0) {
			for (size_t i = 0; i < n; i++)
				keep(ctx, v[i]);
			keep(ctx, v);
			*AT(hdr, f, const char *const *) = (const char *const *)v;
			*(size_t *)((char *)hdr + f->count_off) = n;
		}
		return rc < 0 ? -1 : 0;
	case RUN_FIELD_U64:
		rc = json_get_int(rd, o, path, key, flags, 0, INT64_MAX, &i64);
		if (rc > 0)
			*AT(hdr, f, uint64_t) = (uint64_t)i64;
		return rc < 0 ? -1 : 0;
	case RUN_FIELD_UNSIGNED:
		rc = json_get_int(rd, o, path, key, flags, 0, UINT32_MAX, &i64);
		if (rc > 0)
			*AT(hdr, f, unsigned) = (unsigned)i64;
		return rc < 0 ? -1 : 0;
	case RUN_FIELD_I64:
		rc = json_get_int(rd, o, path, key, flags, INT64_MIN, INT64_MAX, &i64);
		if (rc > 0)
			*AT(hdr, f, int64_t) = i64;
		return rc < 0 ? -1 : 0;
	case RUN_FIELD_NUMBER:
		rc = json_get_number(rd, o, path, key, flags, -HUGE_VAL, 0, HUGE_VAL, &num);
		if (rc > 0)
			*AT(hdr, f, double) = num;
		return rc < 0 ? -1 : 0;
	case RUN_FIELD_BOOL:
		rc = json_get_bool(rd, o, path, key, flags, &b);
		if (rc > 0)
			*AT(hdr, f, int) = b;
		return rc < 0 ? -1 : 0;
	case RUN_FIELD_NS_SECONDS:
		rc = json_get_number(rd, o, path, key, flags, 0, 0, 1e9, &num);
		if (rc > 0)
			*AT(hdr, f, int64_t) = llround(num * 1e9);
		return rc < 0 ? -1 : 0;
	}
	return 0;
}

int run_fields_read(const struct json_in *rd, const cJSON *root, struct run_header *hdr,
		    void (*keep)(void *ctx, void *p), void *ctx)
{
	const cJSON *obj = root;   /* the object open; NULL: absent or null */
	const char *open = "";
	char buf[64];

	for (size_t i = 0; i < run_fields_count; i++) {
		const struct run_field *f = &run_fields[i];

		if (f->type == RUN_FIELD_OBJECT) {
			const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, f->key);

			open = f->key;
			obj = cJSON_IsObject(j) ? j : NULL;
			if (obj || ((f->flags & RUN_FIELD_NULLABLE) && (!j || cJSON_IsNull(j))))
				continue;
			if (j && !cJSON_IsNull(j))
				return json_in_error(rd, f->key, "expected an object");
			if (f->flags & RUN_FIELD_READ)
				return json_in_error(rd, f->key, "%s", f->missing ? f->missing : "missing");
			continue;
		}
		if (!*parent(f, buf, sizeof(buf))) {
			if (read_field(rd, root, "", f, hdr, keep, ctx) < 0)
				return -1;
		} else if (!strcmp(buf, open) && obj) {
			if (read_field(rd, obj, open, f, hdr, keep, ctx) < 0)
				return -1;
		}
	}
	return 0;
}
