/* Unit tests of evidence: key order, nulls, and that the files written
 * are complete JSON documents with the documented schema names; result.json
 * printed one invocation at a time is the document printed whole; the
 * journal's lines and its reserve. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "decide/compare.h"
#include "util/dirat.h"
#include "evidence/evidence.h"
#include "evidence/evidence_read.h"
#include "evidence/journal.h"
#include "evidence/ledger.h"
#include "evidence/invocation_fields.h"
#include "evidence/metadata_fields.h"
#include "evidence/run_fields.h"
#include "util/json_out.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"

static char root[] = "/tmp/abev-evidence-XXXXXX";

static void fill(struct invocation *inv)
{
	memset(inv, 0, sizeof(*inv));
	inv->seq = 3;
	inv->variant = xstrdup("candidate");
	inv->round = 2;
	inv->attempt = 1;
	inv->status = INV_FAILED;
	inv->reason = xstrdup("killed by signal 11 (SIGSEGV)");
	inv->argc = 2;
	inv->argv = xcalloc(3, sizeof(char *));
	inv->argv[0] = xstrdup("prog");
	inv->argv[1] = xstrdup("--flag");
	inv->cwd = xstrdup("/w");
	inv->dir = xstrdup("runs/candidate/run-2");
	snprintf(inv->start_utc, sizeof(inv->start_utc), "2026-11-10T16:54:37.980941+00:00");
	snprintf(inv->end_utc, sizeof(inv->end_utc), "2026-11-10T16:54:38.000000+00:00");
	inv->fig.wall_ns = 19058877;
	inv->exit_code = -1;
	inv->signal = 11;
	inv->fig.user_ns = 1000;
	inv->fig.sys_ns = 2000;
	inv->fig.max_rss_bytes = 4096 * 1024;
	inv->load_before = (struct loadavg){ 1, 0.5, 0.25, 0.125, 2, 100 };
	inv->load_after.valid = 0;
	inv->foreign_cpu = 0.125;
	inv->foreign_cpu_resolution = 0.25;
	inv->max_foreign_cpu = 0.5;
	inv->cpu_wait_ns = 952943;
	inv->cpu_wait_source = xstrdup("cgroup");
	inv->tree_wait_ns = -1;
	inv->tree_active_ns = -1;
	inv->cgroup_cpu_wait_ns = 952943;
	inv->max_cpu_wait_pct = 10;
	inv->system_cpu_wait_ns = -1;
	inv->cpus = xstrdup("0-1");
	inv->cgroup_valid = 1;
	inv->cg_memory_peak_bytes = -1;
	inv->cg_cpu_usage_ns = 5000;
	inv->cgroup_note = xstrdup("memory controller not enabled");
}

static cJSON *load_json(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(read_file_capped(&sb, path, 1 << 20), 0);
	cJSON *o = cJSON_Parse(sb.buf);
	assert_non_null(o);
	assert_true(sb.len > 0 && sb.buf[sb.len - 1] == '\n');
	strbuf_release(&sb);
	return o;
}

/* fill()'s invocation written as its own files; *dir is their directory (caller frees). */
static cJSON *written(struct invocation *inv, char **dir)
{
	struct dirat d = DIRAT_INIT;
	struct ledger l = LEDGER_INIT;

	fill(inv);
	*dir = path_join(root, inv->dir);
	assert_int_equal(mkdir_p(*dir), 0);
	assert_int_equal(dirat_open_path(&d, root), 0);
	assert_int_equal(evidence_write_invocation(&l, &d, inv), 0);
	/* The one file abev wrote is in the ledger with its SHA-256. */
	assert_int_equal(l.n, 1);
	for (size_t i = 0; i < l.n; i++)
		assert_true(l.v[i].hashed);
	ledger_release(&l);
	dirat_release(&d);
	char *p = path_join(*dir, "result.json");
	cJSON *o = load_json(p);
	free(p);
	return o;
}

static void test_invocation_file(void **state)
{
	struct invocation inv;
	char *dir;
	(void)state;
	cJSON *o = written(&inv, &dir);

	static const char *const order[] = {
		"schema", "seq", "variant", "phase", "round", "attempt", "status", "reason", "dir",
		"argv", "cwd", "start_utc", "end_utc", "wall_ns", "exit_code", "signal",
		"core_dumped", "timed_out", "exec_error", "stderr_tail", "user_ns", "sys_ns", "cpu_ns",
		"max_rss_bytes", "minflt", "majflt", "nvcsw", "nivcsw", "load_before",
		"load_after", "foreign_cpu", "foreign_cpu_resolution", "max_foreign_cpu", "cpu_wait_ns", "cpu_wait_pct",
		"cpu_wait_source", "cpu_wait_note", "tree_wait_ns", "tree_active_ns", "cgroup_cpu_wait_ns",
		"max_cpu_wait_pct", "system_cpu_wait_ns", "run_cpus",
		"foreign_busy_ns", "foreign_busy_fine_ns", "foreign_busy_fine_source", "foreign_wait_ns",
		"foreign_wait_pct", "foreign_wait_basis", "cpus",
		"load_wait_ns", "loaded", "processes", "leftovers_killed", "paused", "overlaps", "output", "logs", "cgroup",
		"cgroup_note", "results_files", "tests", "results", "failed_tests", "failed_tests_omitted",
		"test_failures", "test_times", "test_times_omitted",
		"metrics", "guards",
	};
	size_t i = 0;
	for (cJSON *c = o->child; c; c = c->next, i++) {
		assert_true(i < ARRAY_SIZE(order));
		assert_string_equal(c->string, order[i]);
	}
	assert_int_equal(i, ARRAY_SIZE(order));
	assert_string_equal(cJSON_GetObjectItem(o, "schema")->valuestring, "abev.invocation/1");
	assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "failed");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "exit_code")));
	assert_int_equal(cJSON_GetObjectItem(o, "signal")->valueint, 11);
	assert_int_equal(cJSON_GetObjectItem(o, "cpu_ns")->valuedouble, 3000);
	/* 952943 ns of 19058877 ns wall: 5 %, as the load guard judged it */
	assert_float_equal(cJSON_GetObjectItem(o, "cpu_wait_pct")->valuedouble, 5.0, 1e-9);
	assert_string_equal(cJSON_GetObjectItem(o, "cpu_wait_source")->valuestring, "cgroup");
	/* no foreign wait: no basis */
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "foreign_wait_basis")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "system_cpu_wait_ns")));
	assert_string_equal(cJSON_GetObjectItem(o, "cpus")->valuestring, "0-1");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "load_after")));
	cJSON *lb = cJSON_GetObjectItem(o, "load_before");
	assert_true(cJSON_GetObjectItem(lb, "1m")->valuedouble == 0.5);
	assert_int_equal(cJSON_GetObjectItem(lb, "total")->valueint, 100);
	cJSON *cg = cJSON_GetObjectItem(o, "cgroup");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cg, "memory_peak_bytes")));
	assert_int_equal(cJSON_GetObjectItem(cg, "cpu_usage_ns")->valueint, 5000);
	cJSON_Delete(o);

	/* The record is the JSON document alone: no resource.log, no guard.log beside it. */
	char *log = path_join(dir, "resource.log"), *guards = path_join(dir, "guard.log");
	assert_int_equal(access(log, F_OK), -1);
	assert_int_equal(access(guards, F_OK), -1);

	free(log);
	free(guards);
	free(dir);
	invocation_release(&inv);
	invocation_release(&inv);
}

static void test_run_file(void **state)
{
	struct invocation inv[2];
	const char *names[] = { "baseline", "candidate" };
	const char *notes[] = { "a note" };
	(void)state;
	fill(&inv[0]);
	fill(&inv[1]);
	inv[1].seq = 4;
	struct run_header hdr = {
		.plan_name = "p", .plan_path = "x/plan.json", .set.order = RUN_ORDER_REVERSE, .set.seed = 9,
		.set.warmups = 1, .set.runs = 3, .set.gap_seconds = 2.5, .set.timeout_seconds = 0,
		.set.step_timeout_seconds = 45, .set.step_timeout_seconds_from = "plan",
		.set.max_foreign_cpu = 0.5, .set.max_repeats = 2, .abev_version = "0.0.0",
		.started_utc = "s", .ended_utc = "", .variant_names = names, .nvariants = 2,
		.planned = 8, .interrupt = "SIGINT", .abev_max_rss_bytes = 1, .notes = notes,
		.nnotes = 1, .status = "interrupted", .executed = 2,
	};
	struct dirat d = DIRAT_INIT;
	assert_int_equal(dirat_open_path(&d, root), 0);
	assert_int_equal(evidence_write_run(&d, NULL, NULL, &hdr, NULL, inv, 2), 0);
	dirat_release(&d);
	char *p = path_join(root, "result.json");
	cJSON *o = load_json(p);
	assert_string_equal(cJSON_GetObjectItem(o, "schema")->valuestring, "abev.run/1");
	assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "interrupted");
	assert_string_equal(cJSON_GetObjectItem(o, "interrupt")->valuestring, "SIGINT");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "ended_utc")));
	cJSON *sched = cJSON_GetObjectItem(o, "schedule");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(sched, "timeout_seconds")));
	assert_true(cJSON_GetObjectItem(sched, "step_timeout_seconds")->valuedouble == 45);
	assert_string_equal(cJSON_GetObjectItem(sched, "step_timeout_seconds_from")->valuestring, "plan");
	assert_true(cJSON_GetObjectItem(sched, "gap_seconds")->valuedouble == 2.5);
	cJSON *list = cJSON_GetObjectItem(o, "invocations");
	assert_int_equal(cJSON_GetArraySize(list), 2);
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "schema"));
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 1), "seq")->valueint, 4);
	assert_int_equal(cJSON_GetObjectItem(o, "executed")->valueint, 2);
	cJSON_Delete(o);
	free(p);
	invocation_release(&inv[0]);
	invocation_release(&inv[1]);
}

/*
 * The comparison's values are written into result.json one at a time:
 * the comparison there, one tab further in, is the document
 * evidence_comparison_document() prints whole, and each value reads as
 * cJSON prints it — also a value that is no finite number (null), a
 * tiny and a large one, and an outlier.
 */
static void test_run_file_values(void **state)
{
	struct cmp_value va[] = { { 0.1, 1, 1, 1, 0 }, { 1e-7, 3, 2, 2, 1 },
				  { 123456789.125, 4000000000u, 3, 1, 0 } };
	struct cmp_value vb[] = { { -2.5, 2, 1, 2, 0 }, { NAN, 5, 2, 1, 0 } };
	struct cmp_sample samples[2] = { { .variant = "baseline", .is_reference = 1, .values = va, .n = 3 },
					 { .variant = "candidate", .values = vb, .n = 2 } };
	struct cmp_metric metric = { .name = "wall", .unit = "ms", .source = "builtin",
				     .samples = samples, .nsamples = 2 };
	struct comparison c = { .reference = "baseline", .metrics = &metric, .nmetrics = 1 };
	struct evidence_decision dec = { &c, NULL, 0 };
	const char *names[] = { "baseline", "candidate" };
	struct run_header hdr = {
		.plan_name = "p", .plan_path = "plan.json", .set.runs = 3, .abev_version = "0.0.0",
		.started_utc = "s", .ended_utc = "e", .variant_names = names, .nvariants = 2,
		.status = "completed",
	};
	struct dirat d = DIRAT_INIT;
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	char *p = path_join(root, "result.json"), *doc = evidence_comparison_document(&c, NULL, 0);
	const char *from, *to;
	cJSON *o, *v;
	(void)state;

	assert_int_equal(dirat_open_path(&d, root), 0);
	assert_int_equal(evidence_write_run(&d, NULL, NULL, &hdr, &dec, NULL, 0), 0);
	dirat_release(&d);
	assert_int_equal(read_file_capped(&sb, p, 1 << 20), 0);
	from = strstr(sb.buf, "\n\t\"comparison\":\t");
	to = strstr(sb.buf, ",\n\t\"invocations\":");
	assert_non_null(from);
	assert_non_null(to);
	from += strlen("\n\t\"comparison\":\t");
	for (const char *q = from; q < to; q++) {
		strbuf_addch(&want, *q);
		if (*q == '\n') {
			assert_int_equal(q[1], '\t');
			q++;
		}
	}
	strbuf_addch(&want, '\n');
	assert_string_equal(want.buf, doc);

	o = cJSON_Parse(sb.buf);
	v = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(o, "comparison"), "metrics"), 0), "variants"), 0),
		"values");
	assert_int_equal(cJSON_GetArraySize(v), 3);
	assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(v, 1), "value")->valuedouble == 1e-7);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(v, 1), "outlier")));
	assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(v, 2), "seq")->valuedouble == 4e9);
	/* One value's text as cJSON prints its object, at its depth: 7 tabs after a line break. */
	{
		cJSON *one = cJSON_CreateObject();
		char *text;

		cJSON_AddItemToObject(one, "value", cJSON_CreateRaw("123456789.125"));
		cJSON_AddNumberToObject(one, "seq", 4e9);
		cJSON_AddNumberToObject(one, "round", 3);
		cJSON_AddNumberToObject(one, "slot", 1);
		cJSON_AddFalseToObject(one, "outlier");
		text = cJSON_Print(one);
		strbuf_reset(&want);
		for (const char *q = text; *q; q++) {
			strbuf_addch(&want, *q);
			if (*q == '\n')
				strbuf_adds(&want, "\t\t\t\t\t\t\t");
		}
		assert_non_null(strstr(sb.buf, want.buf));
		cJSON_free(text);
		cJSON_Delete(one);
	}
	v = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(o, "comparison"), "metrics"), 0), "variants"), 1),
		"values");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(v, 1), "value")));
	cJSON_Delete(o);
	strbuf_release(&sb);
	strbuf_release(&want);
	free(doc);
	free(p);
}

/*
 * result.json is printed piece by piece (the invocations one at a time):
 * its bytes are those of the whole document printed at once, as parsing
 * and printing it again gives them, for no invocation, one and several.
 */
static void test_run_file_bytes(void **state)
{
	struct invocation inv[3];
	const char *names[] = { "baseline", "candidate" };
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		fill(&inv[i]);
		inv[i].seq = (unsigned)i + 1;
	}
	struct run_header hdr = {
		.plan_name = "p", .plan_path = "plan.json", .set.order = RUN_ORDER_ALTERNATE, .set.runs = 3,
		.abev_version = "0.0.0", .started_utc = "s", .ended_utc = "e",
		.variant_names = names, .nvariants = 2, .planned = 3, .status = "completed",
	};
	struct dirat d = DIRAT_INIT;
	assert_int_equal(dirat_open_path(&d, root), 0);
	for (size_t n = 0; n <= 3; n++) {
		char *p = path_join(root, "result.json");
		struct strbuf sb = STRBUF_INIT;
		hdr.executed = n;
		assert_int_equal(evidence_write_run(&d, NULL, NULL, &hdr, NULL, inv, n), 0);
		assert_int_equal(read_file_capped(&sb, p, 1 << 20), 0);
		cJSON *o = cJSON_Parse(sb.buf);
		assert_non_null(o);
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "invocations")), (int)n);
		char *again = cJSON_Print(o);
		assert_int_equal(strlen(again) + 1, sb.len);
		assert_memory_equal(again, sb.buf, sb.len - 1);
		assert_int_equal(sb.buf[sb.len - 1], '\n');
		cJSON_free(again);
		cJSON_Delete(o);
		strbuf_release(&sb);
		free(p);
	}
	dirat_release(&d);
	for (size_t i = 0; i < 3; i++)
		invocation_release(&inv[i]);
}

/* A journal line is the invocation's own result.json, on one line. */
static void test_invocation_line(void **state)
{
	struct invocation inv;
	char *dir;
	(void)state;
	cJSON *file = written(&inv, &dir);
	char *line = evidence_invocation_line(&inv);
	size_t len = strlen(line);
	assert_true(len > 1 && line[len - 1] == '\n');
	assert_null(memchr(line, '\n', len - 1));
	cJSON *o = cJSON_Parse(line);
	assert_non_null(o);
	assert_true(cJSON_Compare(o, file, 1));
	cJSON_Delete(o);
	cJSON_Delete(file);
	free(line);
	free(dir);
	invocation_release(&inv);
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The journal: one line per append, the reserve beside it, both removed. */
static void test_journal(void **state)
{
	struct journal j = JOURNAL_INIT, again = JOURNAL_INIT;
	struct invocation inv;
	struct strbuf sb = STRBUF_INIT;
	char *jp = path_join(root, EVIDENCE_JOURNAL_FILE), *rp = path_join(root, EVIDENCE_RESERVE_FILE);
	struct dirat d = DIRAT_INIT;
	(void)state;
	fill(&inv);
	assert_int_equal(dirat_open_path(&d, root), 0);
	assert_int_equal(journal_open(&j, &d), 0);
	assert_true(file_size(rp) >= (off_t)JOURNAL_RESERVE_BASE);
	/* Neither file is ever taken over. */
	assert_int_equal(journal_open(&again, &d), -1);
	assert_int_equal(file_size(jp), 0);
	assert_int_equal(journal_append(&j, &inv), 0);
	inv.seq = 4;
	assert_int_equal(journal_append(&j, &inv), 0);
	assert_int_equal(j.lines, 2);
	assert_int_equal(read_file_capped(&sb, jp, 1 << 20), 0);
	assert_int_equal(sb.len, j.bytes);
	char *nl = strchr(sb.buf, '\n');
	assert_non_null(nl);
	assert_int_equal(nl - sb.buf + 1 + (ptrdiff_t)strlen(nl + 1), (ptrdiff_t)sb.len);
	assert_int_equal(sb.buf[sb.len - 1], '\n');
	assert_non_null(strstr(nl + 1, "\"seq\":4,"));
	assert_true((uint64_t)file_size(rp) >= JOURNAL_RESERVE_BASE + 2 * j.bytes);
	assert_true(journal_release_reserve(&j) >= JOURNAL_RESERVE_BASE);
	assert_int_equal(file_size(rp), -1);
	assert_int_equal(journal_release_reserve(&j), 0);
	assert_int_equal(journal_remove(&j), 0);
	assert_int_equal(file_size(jp), -1);
	journal_release(&j);
	journal_release(&j);
	dirat_release(&d);
	strbuf_release(&sb);
	free(jp);
	free(rp);
	invocation_release(&inv);
}

static void test_status_names(void **state)
{
	(void)state;
	assert_string_equal(invocation_status_name(INV_TIMED_OUT), "timed_out");
	assert_string_equal(invocation_status_name(INV_EXEC_FAILED), "exec_failed");
	assert_string_equal(invocation_run_status_name(RUN_RUNNING), "running");
}

/* The JSON types a schema node allows, as bits: from type, enum, const and anyOf. */
enum { T_STRING = 1, T_NULL = 2, T_INTEGER = 4, T_NUMBER = 8, T_BOOLEAN = 16, T_ARRAY = 32,
       T_OBJECT = 64 };

static unsigned json_type_bit(const cJSON *v)
{
	if (cJSON_IsString(v))
		return T_STRING;
	if (cJSON_IsNull(v))
		return T_NULL;
	if (cJSON_IsBool(v))
		return T_BOOLEAN;
	if (cJSON_IsNumber(v))
		return v->valuedouble == (double)(int64_t)v->valuedouble ? T_INTEGER : T_NUMBER;
	if (cJSON_IsArray(v))
		return T_ARRAY;
	return T_OBJECT;
}

static unsigned type_name_bit(const char *t)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "string", T_STRING }, { "null", T_NULL }, { "integer", T_INTEGER },
		{ "number", T_NUMBER }, { "boolean", T_BOOLEAN }, { "array", T_ARRAY },
		{ "object", T_OBJECT },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(t, names[i].name))
			return names[i].bit;
	fail_msg("unknown schema type '%s'", t);
	return 0;
}

static unsigned schema_types(const cJSON *node)
{
	const cJSON *t = cJSON_GetObjectItem(node, "type"), *e;
	unsigned bits = 0;

	if (cJSON_IsString(t))
		bits |= type_name_bit(t->valuestring);
	if (cJSON_IsArray(t))
		cJSON_ArrayForEach(e, t)
			bits |= type_name_bit(e->valuestring);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(node, "enum"))
		bits |= json_type_bit(e);
	if (cJSON_GetObjectItem(node, "const"))
		bits |= json_type_bit(cJSON_GetObjectItem(node, "const"));
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(node, "anyOf"))
		bits |= schema_types(e);
	t = cJSON_GetObjectItem(node, "$ref");
	if (cJSON_IsString(t)) {
		/* The one kind of reference run.schema.json makes: a UTC time stamp. */
		if (strcmp(t->valuestring, "invocation.schema.json#/$defs/utc"))
			fail_msg("unexpected $ref '%s'", t->valuestring);
		bits |= T_STRING;
	}
	return bits;
}

/* What a table row says its key may hold; 0 for a row whose functions decide. */
static unsigned row_types(const struct field *f)
{
	unsigned null = (f->flags & (FIELD_NULLABLE | FIELD_NULL_EMPTY | FIELD_NULL_NEGATIVE |
				     FIELD_NULL_NONPOSITIVE | FIELD_NULL_UNLESS)) ? T_NULL : 0;
	switch (f->type) {
	case FIELD_OBJECT: return T_OBJECT | null;
	case FIELD_CONST: return T_STRING;
	case FIELD_ENUM: return T_STRING | (f->flags & FIELD_NULLABLE ? T_NULL : 0);
	case FIELD_STRING:
	case FIELD_OWNED:
	case FIELD_CHARS: return T_STRING | null;
	case FIELD_STRINGS:
	case FIELD_OWNED_STRINGS: return T_ARRAY | null;
	case FIELD_U64:
	case FIELD_UNSIGNED:
	case FIELD_INT:
	case FIELD_LONG:
	case FIELD_I64:
	case FIELD_SIZE: return T_INTEGER | null;
	case FIELD_NUMBER:
	case FIELD_NS_SECONDS: return T_NUMBER | null;
	case FIELD_BOOL: return T_BOOLEAN | null;
	case FIELD_CUSTOM: return 0;
	}
	return 0;
}

static int in_required(const cJSON *obj, const char *key)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(obj, "required"))
		if (!strcmp(e->valuestring, key))
			return 1;
	return 0;
}

static int has_row(const struct field *rows, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].key, key))
			return 1;
	return 0;
}

/* A FIELD_ENUM row's names are exactly the schema's enum, in any order (a NULL name: null). */
static void check_enum(const char *file, const struct field *f, const cJSON *values)
{
	const cJSON *e;
	size_t n = 0;

	if (!cJSON_IsArray(values))
		fail_msg("%s: row '%s' is an enum, the schema's property has none", file, f->key);
	cJSON_ArrayForEach(e, values) {
		size_t i = 0;
		while (i < f->nnames && (cJSON_IsNull(e) ? f->names[i] != NULL
				       : !f->names[i] || strcmp(f->names[i], e->valuestring)))
			i++;
		if (i == f->nnames && cJSON_IsNull(e))
			fail_msg("%s: row '%s': the schema allows null, the table does not", file,
				 f->key);
		if (i == f->nnames)
			fail_msg("%s: row '%s': the schema allows '%s', the table does not", file,
				 f->key, e->valuestring);
		n++;
	}
	if (n != f->nnames)
		fail_msg("%s: row '%s': the table has %zu values, the schema %zu", file, f->key,
			 f->nnames, n);
}

/*
 * A field table and the object of a schema that describes its record say
 * the same: a row for every property (but those in skip, NULL-ended),
 * each with the schema's types, nullability and required-ness, in the
 * schema's objects; and no row the schema lacks.
 */
static void check_table(const char *file, const cJSON *top, const struct field *rows, size_t n,
			const char *const *skip)
{
	size_t props = 0;
	const cJSON *prop;

	for (size_t i = 0; i < n; i++) {
		const struct field *f = &rows[i];
		const char *dot = strchr(f->key, '.');
		const cJSON *obj = top, *node;
		char sub[64];

		if (dot) {
			snprintf(sub, sizeof(sub), "%.*s", (int)(dot - f->key), f->key);
			obj = cJSON_GetObjectItem(cJSON_GetObjectItem(top, "properties"), sub);
			assert_non_null(obj);
		}
		node = cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "properties"), dot ? dot + 1 : f->key);
		if (!node)
			fail_msg("%s: row '%s' is not in the schema", file, f->key);
		if (row_types(f) && schema_types(node) != row_types(f))
			fail_msg("%s: row '%s': the schema allows types %#x, the table %#x", file, f->key,
				 schema_types(node), row_types(f));
		if (!!in_required(obj, dot ? dot + 1 : f->key) != !!(f->flags & FIELD_REQUIRED))
			fail_msg("%s: row '%s': required in the schema %d, in the table %d", file, f->key,
				 in_required(obj, dot ? dot + 1 : f->key), !!(f->flags & FIELD_REQUIRED));
		if (f->type == FIELD_CONST && cJSON_GetObjectItem(node, "const"))
			assert_string_equal(cJSON_GetObjectItem(node, "const")->valuestring, f->value);
		if (f->type == FIELD_ENUM)
			check_enum(file, f, cJSON_GetObjectItem(node, "enum"));
	}
	cJSON_ArrayForEach(prop, cJSON_GetObjectItem(top, "properties")) {
		const cJSON *sub;
		int skipped = 0;

		for (size_t k = 0; skip[k]; k++)
			skipped |= !strcmp(prop->string, skip[k]);
		if (skipped)
			continue;
		props++;
		if (!has_row(rows, n, prop->string))
			fail_msg("%s: '%s' has no row in the table", file, prop->string);
		/* The members of an object the table opens (a custom row's are its functions'). */
		for (size_t i = 0; i < n; i++)
			if (!strcmp(rows[i].key, prop->string) && rows[i].type == FIELD_OBJECT)
				cJSON_ArrayForEach(sub, cJSON_GetObjectItem(prop, "properties")) {
					char key[128];
					snprintf(key, sizeof(key), "%s.%s", prop->string, sub->string);
					props++;
					if (!has_row(rows, n, key))
						fail_msg("%s: '%s' has no row in the table", file, key);
				}
	}
	assert_int_equal(n, props);
}

static cJSON *load_schema(const char *file)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *schema;

	assert_int_equal(read_file_capped(&sb, file, 1 << 20), 0);
	schema = cJSON_Parse(sb.buf);
	assert_non_null(schema);
	strbuf_release(&sb);
	return schema;
}

/* result.json's header: every property but the comparison and the invocations. */
static void test_run_fields_match_the_schema(void **state)
{
	static const char *const skip[] = { "comparison", "invocations", NULL };
	cJSON *schema = load_schema("evidence-schema/run.schema.json");
	(void)state;

	check_table("run.schema.json", schema, run_fields, run_fields_count, skip);
	cJSON_Delete(schema);
}

/* An invocation's record: $defs/fields, every property ("schema" is written apart). */
static void test_invocation_fields_match_the_schema(void **state)
{
	static const char *const skip[] = { NULL };
	cJSON *schema = load_schema("evidence-schema/invocation.schema.json");
	const cJSON *fields = cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "$defs"), "fields");
	(void)state;

	assert_non_null(fields);
	check_table("invocation.schema.json", fields, invocation_fields, invocation_fields_count, skip);
	cJSON_Delete(schema);
}

/*
 * metadata.json's host object: $defs/host, every property, its $refs
 * resolved from $defs, under a top object that requires "host".
 */
static void test_metadata_fields_match_the_schema(void **state)
{
	static const char *const skip[] = { NULL };
	cJSON *schema = load_schema("evidence-schema/metadata.schema.json");
	const cJSON *defs = cJSON_GetObjectItem(schema, "$defs");
	cJSON *host = cJSON_Duplicate(cJSON_GetObjectItem(defs, "host"), 1);
	cJSON *top = cJSON_CreateObject(), *props = cJSON_CreateObject(), *prop;
	(void)state;

	assert_non_null(host);
	cJSON_ArrayForEach(prop, cJSON_GetObjectItem(host, "properties")) {
		const cJSON *ref = cJSON_GetObjectItem(prop, "$ref");
		const cJSON *def;

		if (!cJSON_IsString(ref))
			continue;
		assert_int_equal(strncmp(ref->valuestring, "#/$defs/", 8), 0);
		def = cJSON_GetObjectItem(defs, ref->valuestring + 8);
		assert_non_null(def);
		cJSON_DeleteItemFromObject(prop, "$ref");
		cJSON_AddItemToObject(prop, "type", cJSON_Duplicate(cJSON_GetObjectItem(def, "type"), 1));
	}
	cJSON_AddItemToObject(props, "host", host);
	cJSON_AddItemToObject(top, "properties", props);
	cJSON_AddItemToObject(top, "required", cJSON_CreateStringArray((const char *[]){ "host" }, 1));
	check_table("metadata.schema.json", top, metadata_fields, metadata_fields_count, skip);
	cJSON_Delete(top);
	cJSON_Delete(schema);
}

static void assert_same_string(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_same_host(const struct host_facts *a, const struct host_facts *b)
{
	assert_same_string(a->label, b->label);
	assert_same_string(a->hostname, b->hostname);
	assert_same_string(a->os_release, b->os_release);
	assert_same_string(a->kernel, b->kernel);
	assert_same_string(a->kernel_version, b->kernel_version);
	assert_same_string(a->arch, b->arch);
	assert_same_string(a->cpu_model, b->cpu_model);
	assert_true(a->logical_cpus == b->logical_cpus);
	assert_true(a->physical_cores == b->physical_cores);
	assert_same_string(a->online_cpus, b->online_cpus);
	assert_same_string(a->governor, b->governor);
	assert_int_equal(a->boost, b->boost);
	assert_true(a->memory_bytes == b->memory_bytes);
	assert_same_string(a->cgroup_version, b->cgroup_version);
	assert_true(a->clock_resolution_ns == b->clock_resolution_ns);
}

/*
 * The host facts abev collected, written through the table and read back
 * through it, are the same struct — known and unknown figures alike — so
 * that the report of a run shows what `abev report DIR` reads; a copy is
 * the same too. Evidence of an older abev, without the facts added since,
 * is read with them unknown; without a fact the reader needs, it is
 * refused naming it.
 */
static void test_metadata_fields_round_trip(void **state)
{
	/* Compound literals: the struct owns its strings, so they are not const. */
	struct host_facts known = {
		.label = (char[]){ "lab-1" }, .hostname = (char[]){ "ci-7" },
		.os_release = (char[]){ "Debian GNU/Linux 12" },
		.kernel = (char[]){ "6.1.0-18-amd64" }, .kernel_version = (char[]){ "#1 SMP Debian" },
		.arch = (char[]){ "x86_64" }, .cpu_model = (char[]){ "AMD EPYC 7B13" },
		.logical_cpus = 2, .physical_cores = 1, .online_cpus = (char[]){ "0-1" },
		.governor = (char[]){ "performance" }, .boost = 0, .memory_bytes = INT64_C(8) << 30,
		.cgroup_version = (char[]){ "2" }, .clock_resolution_ns = 1,
	};
	struct host_facts unknown, out, copy;
	const struct host_facts *cases[2] = { &known, &unknown };
	char *err = NULL;
	struct json_in rd = { "metadata.json", NULL, &err };
	cJSON *o;
	(void)state;

	metadata_fields_unset(&unknown);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		o = jnew_object();
		metadata_fields_write(o, cases[i]);
		metadata_fields_unset(&out);
		assert_int_equal(metadata_fields_read(&rd, o, &out), 0);
		assert_same_host(&out, cases[i]);
		metadata_fields_copy(&copy, &out);
		metadata_fields_release(&out);
		assert_same_host(&copy, cases[i]);
		metadata_fields_release(&copy);
		metadata_fields_release(&copy);
		cJSON_Delete(o);
	}
	/* Unknown figures are null in the file, as the schema says. */
	o = jnew_object();
	metadata_fields_write(o, &unknown);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "host"), "boost")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "host"), "memory_bytes")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "host"), "label")));
	cJSON_Delete(o);

	/* An older abev wrote no label, kernel_version, boost or clock resolution. */
	o = jnew_object();
	metadata_fields_write(o, &known);
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "host"), "label");
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "host"), "kernel_version");
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "host"), "boost");
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "host"), "clock_resolution_ns");
	metadata_fields_unset(&out);
	assert_int_equal(metadata_fields_read(&rd, o, &out), 0);
	assert_null(out.label);
	assert_null(out.kernel_version);
	assert_int_equal(out.boost, -1);
	assert_true(out.clock_resolution_ns == -1);
	assert_string_equal(out.hostname, "ci-7");
	assert_true(out.memory_bytes == known.memory_bytes);
	metadata_fields_release(&out);

	/* A fact the reader needs, gone: refused, naming it. */
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "host"), "governor");
	metadata_fields_unset(&out);
	assert_int_equal(metadata_fields_read(&rd, o, &out), -1);
	metadata_fields_release(&out);
	assert_non_null(err);
	assert_non_null(strstr(err, "governor"));
	free(err);
	cJSON_Delete(o);
}

/*
 * What the table writes it reads back the same, field by field, unset
 * values included; and a file without a field the reader needs is
 * refused naming it.
 */
static void keep_free(void *ctx, void *p)
{
	void ***list = ctx;
	size_t n = 0;

	while ((*list)[n])
		n++;
	*list = realloc(*list, (n + 2) * sizeof(**list));
	(*list)[n] = p;
	(*list)[n + 1] = NULL;
}

static void test_run_fields_round_trip(void **state)
{
	const char *names[] = { "a", "b" }, *notes[] = { "n1", "plan.json: changed" }, *excl[] = { "x*" };
	const char *unsealed[] = { "runs/b/run-3/big.bin", "runs/a/run-2" };
	struct run_header in = {
		.abev_version = "1.2.3", .plan_name = "p", .plan_description = NULL,
		.plan_path = "dir/plan.json", .status = "completed", .interrupt = NULL,
		.started_utc = "s", .ended_utc = "e", .set.order = RUN_ORDER_SEQUENTIAL,
		.set.order_from = "setups", .set.seed = 12345,
		.set.warmups = 1, .set.runs = 6, .set.runs_from = "gates", .set.gap_seconds = 0.25,
		.set.timeout_seconds = 0, .set.step_timeout_seconds = 3600,
		.set.step_timeout_seconds_from = "default",
		.set.max_foreign_cpu = -1, .set.max_cpu_wait_pct = 10, .set.max_cpu_wait_pct_from = "default",
		.set.cpus = (char *)"0-1", .set.max_repeats = 3, .set.max_wait_seconds = 45,
		.set.max_wait_seconds_from = "--max-load-wait", .set.exclusive = (char **)excl, .set.nexclusive = 1,
		.lock_dir = "/tmp/l", .wait = 1, .waited_ns = 1500000000, .run_as_user = "u",
		.run_as_uid = 1000, .run_as_gid = 1001, .run_as_from = "plan",
		.variant_names = names, .nvariants = 2, .planned = 14, .executed = 13,
		.abev_max_rss_bytes = 4096, .notes = notes, .nnotes = 2, .tampered = notes + 1,
		.ntampered = 1, .unsealed = unsealed, .nunsealed = 2, .reproduce = "abev run",
		.reproduce_cwd = "/w", .plan_sha256 = "ab", .evidence_dir = "ev",
		.signed_evidence = 1, .pubkey = "k.pub", .key_source = "option",
		.report_template = NULL,
	};
	struct run_header out;
	cJSON *o = jnew_object();
	void **owned = calloc(1, sizeof(*owned));
	char *err = NULL;
	struct json_in rd = { "result.json", NULL, &err };
	(void)state;

	run_fields_write(o, &in);
	run_fields_unset(&out);
	assert_int_equal(run_fields_read(&rd, o, &out, keep_free, &owned), 0);
	assert_string_equal(out.plan_path, in.plan_path);
	assert_int_equal(out.set.order, RUN_ORDER_SEQUENTIAL);
	assert_string_equal(out.set.order_from, "setups");
	assert_string_equal(out.set.runs_from, "gates");
	assert_null(out.plan_description);
	assert_true(out.set.seed == in.set.seed && out.set.warmups == 1 && out.set.runs == 6);
	assert_true(out.set.timeout_seconds == 0 && out.set.max_foreign_cpu == -1);
	assert_true(out.set.step_timeout_seconds == 3600);
	assert_string_equal(out.set.step_timeout_seconds_from, "default");
	assert_true(out.set.max_wait_seconds == 45);
	assert_string_equal(out.set.max_wait_seconds_from, "--max-load-wait");
	assert_true(out.waited_ns == 1500000000 && out.wait == 1);
	assert_string_equal(out.run_as_user, "u");
	assert_true(out.run_as_uid == 1000 && out.run_as_gid == 1001);
	assert_int_equal(out.nvariants, 2);
	assert_string_equal(out.variant_names[1], "b");
	assert_int_equal(out.set.nexclusive, 1);
	assert_string_equal(out.set.exclusive[0], "x*");
	assert_true(out.executed == 13 && out.planned == 14 && out.abev_max_rss_bytes == 4096);
	assert_string_equal(out.key_source, "option");
	assert_int_equal(out.signed_evidence, 1);
	assert_int_equal(out.ntampered, 1);
	assert_string_equal(out.tampered[0], "plan.json: changed");
	assert_int_equal(out.nunsealed, 2);
	assert_string_equal(out.unsealed[0], "runs/b/run-3/big.bin");
	assert_string_equal(out.unsealed[1], "runs/a/run-2");

	/* Nothing left out of the seal: still written, as an empty list. */
	cJSON_Delete(o);
	o = jnew_object();
	in.unsealed = NULL;
	in.nunsealed = 0;
	run_fields_write(o, &in);
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(o, "unsealed")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "unsealed")), 0);

	/* No run_as: null, read back as no user and unknown ids. */
	cJSON_Delete(o);
	o = jnew_object();
	in.run_as_user = NULL;
	run_fields_write(o, &in);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "run_as")));
	run_fields_unset(&out);
	assert_int_equal(run_fields_read(&rd, o, &out, keep_free, &owned), 0);
	assert_null(out.run_as_user);
	assert_true(out.run_as_uid == -1);

	/* Evidence of an older abev has no "tampered" nor "unsealed": read as none recorded. */
	cJSON_DeleteItemFromObject(o, "tampered");
	cJSON_DeleteItemFromObject(o, "unsealed");
	run_fields_unset(&out);
	assert_int_equal(run_fields_read(&rd, o, &out, keep_free, &owned), 0);
	assert_int_equal(out.ntampered, 0);
	assert_int_equal(out.nunsealed, 0);
	assert_null(out.unsealed);

	/* A field the reader needs, gone: refused, naming it. */
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "schedule"), "runs");
	run_fields_unset(&out);
	assert_int_equal(run_fields_read(&rd, o, &out, keep_free, &owned), -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "runs"));
	free(err);
	err = NULL;

	/* An order that names none: refused, listing those there are. */
	cJSON_AddNumberToObject(cJSON_GetObjectItem(o, "schedule"), "runs", 6);
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(o, "schedule"), "order",
				  cJSON_CreateString("abba"));
	run_fields_unset(&out);
	assert_int_equal(run_fields_read(&rd, o, &out, keep_free, &owned), -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "schedule.order: unknown value 'abba' (expected one of: "
				    "alternate, reverse, shuffle, balanced, sequential)"));
	free(err);
	cJSON_Delete(o);
	for (size_t i = 0; owned[i]; i++)
		free(owned[i]);
	free(owned);
}

/*
 * What evidence says of itself (`abev verify`): read from result.json's
 * text alone, older evidence included; anything else is refused naming
 * the member.
 */
static void test_self_parse(void **state)
{
	static const struct {
		const char *json;
		int ok, clean, known;
		const char *status, *interrupt, *decision;
		size_t ntampered;
		const char *err;                 /* what the refusal names */
		size_t nunsealed;
	} cases[] = {
		{ "{\"status\": \"completed\", \"interrupt\": null, \"tampered\": [], "
		  "\"comparison\": {\"decision\": \"accepted\"}}",
		  1, 1, 1, "completed", NULL, "accepted", 0, NULL, 0 },
		{ "{\"status\": \"failed\", \"tampered\": [\"plan.json: changed\", \"x\"], "
		  "\"comparison\": null}", 1, 0, 1, "failed", NULL, NULL, 2, NULL, 0 },
		{ "{\"status\": \"interrupted\", \"interrupt\": \"SIGINT\", \"tampered\": []}",
		  1, 0, 1, "interrupted", "SIGINT", NULL, 0, NULL, 0 },
		/* Completed, but a change was noted: not clean either. */
		{ "{\"status\": \"completed\", \"tampered\": [\"evil.txt: appeared\"]}",
		  1, 0, 1, "completed", NULL, NULL, 1, NULL, 0 },
		/* An older abev: no "tampered", nothing else `abev report` needs either. */
		{ "{\"status\": \"completed\", \"comparison\": {\"decision\": \"no decision\"}}",
		  1, 1, 0, "completed", NULL, "no decision", 0, NULL, 0 },
		{ "{\"status\": \"fine\"}", 0, 0, 0, NULL, NULL, NULL, 0, "status", 0 },
		{ "{\"tampered\": []}", 0, 0, 0, NULL, NULL, NULL, 0, "status", 0 },
		{ "{\"status\": \"completed\", \"tampered\": [1]}", 0, 0, 0, NULL, NULL, NULL, 0,
		  "tampered", 0 },
		{ "{\"status\": \"completed\", \"tampered\": \"none\"}", 0, 0, 0, NULL, NULL, NULL,
		  0, "tampered", 0 },
		{ "{\"status\": \"completed\", \"comparison\": {\"decision\": \"maybe\"}}", 0, 0,
		  0, NULL, NULL, NULL, 0, "comparison.decision", 0 },
		{ "{\"status\": \"completed\", \"comparison\": []}", 0, 0, 0, NULL, NULL, NULL, 0,
		  "comparison", 0 },
		{ "[]", 0, 0, 0, NULL, NULL, NULL, 0, "expected an object", 0 },
		{ "{\"status\": ", 0, 0, 0, NULL, NULL, NULL, 0, "result.json", 0 },
		/* Stopped while sealing: files left out of the seal, never clean. */
		{ "{\"status\": \"interrupted\", \"interrupt\": \"SIGTERM\", \"tampered\": [], "
		  "\"unsealed\": [\"runs/a/run-2\"]}", 1, 0, 1, "interrupted", "SIGTERM", NULL, 0,
		  NULL, 1 },
		{ "{\"status\": \"completed\", \"tampered\": [], \"unsealed\": [\"runs/a/x\", "
		  "\"../etc\"]}", 1, 0, 1, "completed", NULL, NULL, 0, NULL, 2 },
		{ "{\"status\": \"completed\", \"tampered\": [], \"unsealed\": []}",
		  1, 1, 1, "completed", NULL, NULL, 0, NULL, 0 },
		{ "{\"status\": \"completed\", \"unsealed\": \"runs\"}", 0, 0, 0, NULL, NULL, NULL,
		  0, "unsealed", 0 },
		{ "{\"status\": \"completed\", \"unsealed\": [null]}", 0, 0, 0, NULL, NULL, NULL,
		  0, "unsealed[0]", 0 },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct evidence_self self = EVIDENCE_SELF_INIT;
		char *err = NULL;
		int rc = evidence_self_parse("result.json", cases[i].json, strlen(cases[i].json),
					     &self, &err);

		print_message("case %zu: %s\n", i, cases[i].json);
		if (!cases[i].ok) {
			assert_int_equal(rc, -1);
			assert_non_null(err);
			assert_non_null(strstr(err, cases[i].err));
			assert_null(self.status);
			free(err);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_null(err);
		assert_string_equal(self.status, cases[i].status);
		if (cases[i].interrupt)
			assert_string_equal(self.interrupt, cases[i].interrupt);
		else
			assert_null(self.interrupt);
		if (cases[i].decision)
			assert_string_equal(self.decision, cases[i].decision);
		else
			assert_null(self.decision);
		assert_int_equal(self.ntampered, cases[i].ntampered);
		assert_int_equal(self.tampered_known, cases[i].known);
		assert_int_equal(self.nunsealed, cases[i].nunsealed);
		assert_int_equal(evidence_self_clean(&self), cases[i].clean);
		evidence_self_release(&self);
		evidence_self_release(&self);
	}
}

/*
 * Whether the runs were trusted apart, as `abev verify` says it: run_as
 * null (abev's own user), an object (another user), or absent (an older
 * abev: not known); anything else is refused.
 */
static void test_self_run_as(void **state)
{
	static const struct {
		const char *json;
		int ok, known, run_as;
	} cases[] = {
		{ "{\"status\": \"completed\", \"run_as\": null}", 1, 1, 0 },
		{ "{\"status\": \"completed\", \"run_as\": {\"user\": \"ci\", \"uid\": 1001}}",
		  1, 1, 1 },
		{ "{\"status\": \"completed\"}", 1, 0, 0 },
		{ "{\"status\": \"completed\", \"run_as\": \"ci\"}", 0, 0, 0 },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct evidence_self self = EVIDENCE_SELF_INIT;
		char *err = NULL;
		int rc = evidence_self_parse("result.json", cases[i].json, strlen(cases[i].json),
					     &self, &err);

		print_message("case %zu: %s\n", i, cases[i].json);
		if (!cases[i].ok) {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(err, "run_as"));
			free(err);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(self.run_as_known, cases[i].known);
		assert_int_equal(self.run_as, cases[i].run_as);
		evidence_self_release(&self);
	}
}

/*
 * The "unsealed" list alone, as `abev verify` reads it before it judges
 * the unlisted files: whatever else result.json holds; text that is no
 * JSON object has none, and says why.
 */
static void test_unsealed_parse(void **state)
{
	static const struct {
		const char *json;
		int rc;
		size_t n;
		const char *first, *err;
	} cases[] = {
		{ "{\"unsealed\": [\"runs/b/run-3/big.bin\", \"runs/a/run-2\"]}", 1, 2,
		  "runs/b/run-3/big.bin", NULL },
		/* No status, nothing else: the list is still read. */
		{ "{\"status\": \"fine\", \"unsealed\": []}", 1, 0, NULL, NULL },
		{ "{\"status\": \"completed\"}", 0, 0, NULL, NULL },
		{ "{\"unsealed\": \"runs/a\"}", -1, 0, NULL, "result.json: unsealed: " },
		{ "{\"unsealed\": [\"runs/a\", 7]}", -1, 0, NULL, "unsealed[1]" },
		{ "[\"runs/a\"]", 0, 0, NULL, "expected an object" },
		{ "{\"unsealed\": [", 0, 0, NULL, "not valid JSON" },
		/* A NUL inside a string would cut it short: refused before cJSON reads it. */
		{ "{\"unsealed\": [\"runs/a\\u0000/../../etc\"]}", 0, 0, NULL, "result.json" },
	};
	static const struct {
		const char *name;
		const char *why;          /* part of the reason, or NULL: accepted */
	} names[] = {
		{ "runs/a/run-2", NULL },
		{ "runs/b/run-3/big.bin", NULL },
		{ "runs/x", NULL },
		{ "runs", "not beneath runs/" },
		{ "runs/", "empty path component" },
		{ "report.md", "not beneath runs/" },
		{ "runsx/a", "not beneath runs/" },
		{ "", "empty name" },
		{ "/work/runs/a", "absolute path" },
		{ "runs/../SHA256", "'..' component" },
		{ "runs/a/./b", "'.' component" },
		{ "runs//a", "empty path component" },
		{ "runs/a)b", "')'" },
		{ "runs/a\nb", "newline" },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char **v = NULL, *err = NULL;
		size_t n = 99;
		int rc = evidence_unsealed_parse("result.json", cases[i].json, strlen(cases[i].json),
						 &v, &n, &err);

		print_message("case %zu: %s\n", i, cases[i].json);
		assert_int_equal(rc, cases[i].rc);
		assert_int_equal(n, cases[i].n);
		if (cases[i].err) {
			assert_non_null(err);
			assert_non_null(strstr(err, cases[i].err));
		} else {
			assert_null(err);
		}
		if (rc == 1) {
			assert_non_null(v);
			if (cases[i].first)
				assert_string_equal(v[0], cases[i].first);
		} else {
			assert_null(v);
		}
		strv_free(v);
		free(err);
	}
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const char *why = evidence_unsealed_problem(names[i].name);

		print_message("name %zu: %s\n", i, names[i].name);
		if (!names[i].why) {
			assert_null(why);
			continue;
		}
		assert_non_null(why);
		assert_non_null(strstr(why, names[i].why));
	}
}

/*
 * An invocation written through its table reads back the same, field by
 * field, unset figures included; and writing what was read gives the
 * same JSON again (what the report rendered again relies on).
 */
static void test_invocation_fields_round_trip(void **state)
{
	struct invocation in, out;
	cJSON *o, *again;
	char *err = NULL, *a, *b;
	struct json_in rd = { "result.json", NULL, &err };
	(void)state;

	fill(&in);
	in.warmup = 1;
	in.foreign_busy_ns = -1;
	in.foreign_wait_ns = 7;
	in.foreign_wait_basis = FOREIGN_WAIT_FOREIGN_BUSY;
	in.run_cpus = 2;
	in.failed_tests = xcalloc(2, sizeof(char *));
	in.failed_tests[0] = xstrdup("T.one");
	in.nfailed_tests = 1;
	in.failed_tests_omitted = 4;
	in.test_failures = xcalloc(1, sizeof(*in.test_failures));
	in.test_failures[0] = (struct invocation_test_failure){
		xstrdup("T.one"), xstrdup("Timeout"), xstrdup("took too long: 30 s"), 1
	};
	in.ntest_failures = 1;
	invocation_add_test_time(&in, "T.two", 12.5);
	/* Read from the text, as evidence is (json_out writes some numbers raw). */
	again = invocation_fields_json(&in, 0);
	a = cJSON_PrintUnformatted(again);
	o = cJSON_Parse(a);
	free(a);
	cJSON_Delete(again);
	if (invocation_fields_read(&rd, o, "invocations[0]", &out) < 0)
		fail_msg("%s", err);
	assert_int_equal(out.seq, 3);
	assert_string_equal(out.variant, "candidate");
	assert_int_equal(out.warmup, 1);
	assert_int_equal(out.status, INV_FAILED);
	assert_string_equal(out.start_utc, in.start_utc);
	assert_int_equal(out.exit_code, -1);
	assert_int_equal(out.signal, 11);
	assert_true(out.fig.wall_ns == in.fig.wall_ns && out.fig.user_ns == 1000);
	assert_true(out.load_before.valid && !out.load_after.valid);
	assert_true(out.foreign_cpu == 0.125 && out.system_cpu_wait_ns == -1);
	assert_true(out.foreign_busy_ns == -1 && out.foreign_wait_ns == 7 && out.run_cpus == 2);
	assert_int_equal(out.foreign_wait_basis, FOREIGN_WAIT_FOREIGN_BUSY);
	assert_true(out.cgroup_cpu_wait_ns == 952943 && out.tree_active_ns == -1);
	assert_true(out.cgroup_valid && out.cg_memory_peak_bytes == -1 && out.cg_cpu_usage_ns == 5000);
	assert_int_equal(out.nfailed_tests, 1);
	assert_string_equal(out.failed_tests[0], "T.one");
	assert_int_equal(out.failed_tests_omitted, 4);
	assert_int_equal(out.ntest_failures, 1);
	assert_string_equal(out.test_failures[0].name, "T.one");
	assert_string_equal(out.test_failures[0].outcome, "Timeout");
	assert_string_equal(out.test_failures[0].message, "took too long: 30 s");
	assert_int_equal(out.test_failures[0].known, 1);
	assert_int_equal(out.ntest_times, 1);
	assert_true(out.test_times[0].ms == 12.5);
	/* What is read back is written the same (what is not read back, rusage counts, is 0 here). */
	assert_int_equal(out.argc, 2);
	assert_string_equal(out.argv[1], "--flag");
	again = invocation_fields_json(&out, 0);
	a = cJSON_PrintUnformatted(o);
	b = cJSON_PrintUnformatted(again);
	assert_string_equal(a, b);
	free(a);
	free(b);
	cJSON_Delete(again);

	/* A figure out of its range is refused, naming the field. */
	cJSON_ReplaceItemInObject(o, "exit_code", cJSON_CreateNumber(300));
	invocation_release(&out);
	assert_int_equal(invocation_fields_read(&rd, o, "invocations[0]", &out), -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "exit_code"));
	free(err);
	invocation_release(&out);
	invocation_release(&in);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invocation_file),
		cmocka_unit_test(test_run_file),
		cmocka_unit_test(test_run_file_bytes),
		cmocka_unit_test(test_run_file_values),
		cmocka_unit_test(test_run_fields_match_the_schema),
		cmocka_unit_test(test_invocation_fields_match_the_schema),
		cmocka_unit_test(test_invocation_fields_round_trip),
		cmocka_unit_test(test_run_fields_round_trip),
		cmocka_unit_test(test_metadata_fields_match_the_schema),
		cmocka_unit_test(test_metadata_fields_round_trip),
		cmocka_unit_test(test_invocation_line),
		cmocka_unit_test(test_journal),
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_self_parse),
		cmocka_unit_test(test_self_run_as),
		cmocka_unit_test(test_unsealed_parse),
	};
	if (!mkdtemp(root))
		return 1;
	int rc = cmocka_run_group_tests_name("evidence", tests, NULL, NULL);
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd) != 0)
		rc = 1;
	free(cmd);
	return rc;
}
