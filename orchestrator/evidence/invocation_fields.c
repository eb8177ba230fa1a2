/*
 * invocation_fields: the one table of an invocation record's fields
 * (abev.invocation/1, and each item of result.json's "invocations") —
 * written by evidence.c, read back by evidence_read.c, held to
 * evidence-schema/invocation.schema.json by the unit test — and the
 * functions of its rows that are more than one value: loads, logs,
 * cgroup figures, tests, result files, overlaps, metrics and guards.
 * A row without FIELD_READ is written and not read back: nothing that
 * reads evidence uses it.
 */
#include "evidence/invocation_fields.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_out.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/hash.h"

#define OFF(f) offsetof(struct invocation, f)
/* FIELD_ENUM reads and writes an enum as an int. */
_Static_assert(sizeof(enum foreign_wait_basis) == sizeof(int), "enum foreign_wait_basis is int-sized");
#define REQ FIELD_REQUIRED
#define RD FIELD_READ
#define NUL FIELD_NULLABLE
#define NEG FIELD_NULL_NEGATIVE
#define BIG (INT64_C(1) << 62)

void invocation_fields_prepare_add(cJSON *o, const struct invocation_prepare *p)
{
	cJSON *argv = jnew_array(), *log = jnew_object();

	for (size_t i = 0; i < p->argc; i++)
		jpush(argv, cJSON_CreateString(p->argv[i]));
	jadd(o, "argv", argv);
	jadd_str(o, "status", p->status);
	jadd_int_or_null(o, "exit_code", p->exit_code, p->exit_code >= 0);
	jadd_int_or_null(o, "signal", p->signal, p->signal > 0);
	jadd_int(o, "wall_ns", p->wall_ns);
	jadd_str(o, "reason", p->reason);
	jadd_int(log, "bytes_written", p->log_bytes);
	jadd_int(log, "bytes_dropped", p->log_bytes_dropped);
	jadd_bool(log, "truncated", p->log_bytes_dropped > 0);
	jadd(o, "log", log);
}

cJSON *invocation_fields_prepare_json(const struct invocation_prepare *p)
{
	cJSON *o = jnew_object();

	invocation_fields_prepare_add(o, p);
	return o;
}

static cJSON *load_json(const struct loadavg *l)
{
	cJSON *o;
	if (!l->valid)
		return jnull();
	o = jnew_object();
	jadd_num(o, "1m", l->m1);
	jadd_num(o, "5m", l->m5);
	jadd_num(o, "15m", l->m15);
	jadd_int(o, "runnable", l->runnable);
	jadd_int(o, "total", l->total);
	return o;
}

void invocation_fields_counts(cJSON *o, const struct results_counts *c)
{
	jadd_int(o, "total", c->total);
	jadd_int(o, "executed", c->executed);
	jadd_int(o, "passed", c->passed);
	jadd_int(o, "failed", c->failed);
	jadd_int(o, "errors", c->errors);
	jadd_int(o, "skipped", c->skipped);
	jadd_int(o, "other", c->other);
}

/* Declared counters: -1 means the file did not say. */
static cJSON *declared_json(const struct results_file *f)
{
	const struct results_counts *c = &f->declared;
	cJSON *o;
	if (!f->has_declared)
		return jnull();
	o = jnew_object();
	jadd_int_or_null(o, "total", c->total, c->total >= 0);
	jadd_int_or_null(o, "executed", c->executed, c->executed >= 0);
	jadd_int_or_null(o, "passed", c->passed, c->passed >= 0);
	jadd_int_or_null(o, "failed", c->failed, c->failed >= 0);
	jadd_int_or_null(o, "errors", c->errors, c->errors >= 0);
	jadd_int_or_null(o, "skipped", c->skipped, c->skipped >= 0);
	jadd_int_or_null(o, "other", c->other, c->other >= 0);
	return o;
}

cJSON *invocation_fields_results_file(const struct results_file *f)
{
	cJSON *o = jnew_object(), *notes = jnew_array();
	jadd_str(o, "path", f->path);
	jadd_str(o, "format", results_file_format_name(f->format));
	jadd_str(o, "outcome", f->outcome);
	jadd_str(o, "start", f->start);
	jadd_str(o, "finish", f->finish);
	invocation_fields_counts(o, &f->counts);
	jadd(o, "declared", declared_json(f));
	if (f->hashed) {
		char hex[SHA256_HEX_LEN + 1];

		sha256_hex(f->sha256, hex);
		jadd_str(o, "sha256", hex);
	}
	for (size_t i = 0; i < f->nnotes; i++)
		jpush(notes, cJSON_CreateString(f->notes[i]));
	jadd(o, "notes", notes);
	return o;
}

cJSON *invocation_fields_guard(const struct guard_result *g)
{
	cJSON *o = jnew_object();
	jadd_str(o, "guard", guard_kind_name(g->kind));
	jadd_str(o, "verdict", guard_verdict_name(g->verdict));
	jadd_str(o, "reason", g->reason);
	return o;
}

/* What else ran meanwhile, as the load guard saw it. */
static cJSON *overlaps_json(const struct invocation *inv)
{
	cJSON *o = jnew_object(), *list = jnew_array();

	for (size_t i = 0; i < inv->noverlaps; i++) {
		const struct overlap_hit *h = &inv->overlaps[i];
		cJSON *e = jnew_object();
		jadd_str(e, "kind", overlap_hit_kind_name(h->kind));
		jadd_int_or_null(e, "pid", h->pid, h->pid > 0);
		jadd_str(e, "command", h->command);
		jadd_str(e, "pattern", h->pattern);
		jadd_str(e, "evidence", h->evidence);
		jpush(list, e);
	}
	jadd(o, "processes", list);
	jadd_int(o, "unnamed", inv->overlaps_unnamed);
	return o;
}

/* What was kept of the child's two streams and what was dropped past the cap. */
static cJSON *logs_json(const struct invocation *inv)
{
	static const char *const names[2] = { "stdout", "stderr" };
	cJSON *o = jnew_object();

	for (int i = 0; i < 2; i++) {
		cJSON *l = jnew_object();
		jadd_int(l, "bytes_written", inv->logs[i].bytes_written);
		jadd_int(l, "bytes_dropped", inv->logs[i].bytes_dropped);
		jadd_bool(l, "truncated", inv->logs[i].bytes_dropped > 0);
		jadd_int(l, "bytes_left_out", inv->logs[i].bytes_left_out);
		jadd_int_or_null(l, "bytes_total", inv->logs[i].bytes_total, inv->logs[i].sha256[0]);
		jadd_str(l, "sha256", inv->logs[i].sha256[0] ? inv->logs[i].sha256 : NULL);
		jadd(o, names[i], l);
	}
	return o;
}

static int read_guards(const struct json_in *rd, const cJSON *o, const char *path,
		       struct invocation *inv)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "guards"), *e;

	if (!cJSON_IsArray(a))
		return json_in_error(rd, path, "'guards' is missing or not an array");
	inv->guards = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(*inv->guards));
	cJSON_ArrayForEach(e, a) {
		struct guard_result *g = &inv->guards[inv->nguards];
		char *name = NULL, *verdict = NULL;
		int ret = -1;

		if (json_get_string(rd, e, path, "guard", JSON_REQUIRED, &name) < 0 ||
		    json_get_string(rd, e, path, "verdict", JSON_REQUIRED, &verdict) < 0 ||
		    json_get_string(rd, e, path, "reason", JSON_REQUIRED | JSON_NULLABLE, &g->reason) < 0)
			goto next;
		if (guard_kind_parse(name, &g->kind) < 0) {
			json_in_error(rd, path, "unknown guard '%s'", name);
			goto next;
		}
		if (!strcmp(verdict, "pass"))
			g->verdict = GUARD_PASS;
		else if (!strcmp(verdict, "fail"))
			g->verdict = GUARD_FAIL;
		else if (!strcmp(verdict, guard_verdict_name(GUARD_UNCHECKED)))
			g->verdict = GUARD_UNCHECKED;
		else {
			json_in_error(rd, path, "guard '%s': unknown verdict '%s'", name, verdict);
			goto next;
		}
		ret = 0;
next:
		inv->nguards++;
		free(name);
		free(verdict);
		if (ret < 0)
			return -1;
	}
	return 0;
}

static int read_metrics(const struct json_in *rd, const cJSON *o, const char *path,
			struct invocation *inv)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics"), *e;

	if (!cJSON_IsObject(m))
		return json_in_error(rd, path, "'metrics' is missing or not an object");
	inv->metrics = xcalloc((size_t)cJSON_GetArraySize(m) + 1, sizeof(*inv->metrics));
	cJSON_ArrayForEach(e, m) {
		struct metric_value *v = &inv->metrics[inv->nmetrics++];
		v->name = xstrdup(e->string);
		v->unit = xstrdup("");
		v->max_regression_pct = -1;
		if (cJSON_IsNumber(e) && isfinite(e->valuedouble)) {
			v->ok = 1;
			v->value = e->valuedouble;
		} else if (!cJSON_IsNull(e)) {
			return json_in_error(rd, path, "metric '%s' is neither a number nor null", e->string);
		}
	}
	return 0;
}

static int read_tests(const struct json_in *rd, const cJSON *o, const char *path,
		      struct invocation *inv)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "tests");
	static const char *const keys[] = {
		"total", "executed", "passed", "failed", "errors", "skipped", "other",
	};
	int64_t *fields[] = {
		&inv->tests.total, &inv->tests.executed, &inv->tests.passed, &inv->tests.failed,
		&inv->tests.errors, &inv->tests.skipped, &inv->tests.other,
	};

	if (cJSON_IsNull(t))
		return 0;
	if (!cJSON_IsObject(t))
		return json_in_error(rd, path, "'tests' is missing or not an object");
	inv->has_tests = 1;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (json_get_int(rd, t, path, keys[i], JSON_REQUIRED, 0, INT64_C(1) << 53, fields[i]) < 0)
			return -1;
	return 0;
}

static int read_load(const struct json_in *rd, const cJSON *o, const char *path,
		     const char *key, struct loadavg *l)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	int64_t n = 0;

	memset(l, 0, sizeof(*l));
	if (cJSON_IsNull(j))
		return 0;
	if (!cJSON_IsObject(j))
		return json_in_error(rd, path, "'%s' is neither an object nor null", key);
	if (json_get_number(rd, j, path, "1m", JSON_REQUIRED, -HUGE_VAL, 0, HUGE_VAL, &l->m1) < 0 ||
	    json_get_number(rd, j, path, "5m", JSON_REQUIRED, -HUGE_VAL, 0, HUGE_VAL, &l->m5) < 0 ||
	    json_get_number(rd, j, path, "15m", JSON_REQUIRED, -HUGE_VAL, 0, HUGE_VAL, &l->m15) < 0 ||
	    json_get_int(rd, j, path, "runnable", JSON_REQUIRED, 0, INT32_MAX, &n) < 0)
		return -1;
	l->runnable = (long)n;
	if (json_get_int(rd, j, path, "total", JSON_REQUIRED, 0, INT32_MAX, &n) < 0)
		return -1;
	l->total = (long)n;
	l->valid = 1;
	return 0;
}

/*
 * A stream's whole size and SHA-256: both or neither (null, or absent in
 * evidence written before abev recorded them).
 */
static int read_log_whole(const struct json_in *rd, const cJSON *l, const char *path,
			  const char *name, struct invocation_log *lg)
{
	char *hex = NULL;
	int64_t total = 0;
	int got_total, got_hex, ret = -1;

	got_total = json_get_int(rd, l, path, "bytes_total", JSON_NULLABLE, 0, INT64_C(1) << 53,
				 &total);
	got_hex = json_get_string(rd, l, path, "sha256", JSON_NULLABLE, &hex);
	if (got_total < 0 || got_hex < 0)
		goto out;
	if (got_total != got_hex) {
		json_in_error(rd, path, "'logs.%s' has %s but not %s", name,
			      got_hex ? "sha256" : "bytes_total", got_hex ? "bytes_total" : "sha256");
		goto out;
	}
	if (hex && (strlen(hex) != SHA256_HEX_LEN || strspn(hex, "0123456789abcdef") != SHA256_HEX_LEN)) {
		json_in_error(rd, path, "'logs.%s.sha256' is not 64 lowercase hex digits", name);
		goto out;
	}
	lg->bytes_total = total;
	memcpy(lg->sha256, hex ? hex : "", hex ? SHA256_HEX_LEN + 1 : 1);
	ret = 0;
out:
	free(hex);
	return ret;
}

/* "logs" is optional: evidence written before abev capped the logs has none. */
static int read_logs(const struct json_in *rd, const cJSON *o, const char *path,
		     struct invocation *inv)
{
	static const char *const names[2] = { "stdout", "stderr" };
	const cJSON *logs = cJSON_GetObjectItemCaseSensitive(o, "logs");

	if (!logs)
		return 0;
	if (!cJSON_IsObject(logs))
		return json_in_error(rd, path, "'logs' is not an object");
	for (int i = 0; i < 2; i++) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(logs, names[i]);
		if (!cJSON_IsObject(l))
			return json_in_error(rd, path, "'logs.%s' is %s, expected an object", names[i],
				    l ? "not an object" : "missing");
		if (json_get_int(rd, l, path, "bytes_written", JSON_REQUIRED, 0, INT64_C(1) << 53, &inv->logs[i].bytes_written) < 0 ||
		    json_get_int(rd, l, path, "bytes_dropped", JSON_REQUIRED, 0, INT64_C(1) << 53, &inv->logs[i].bytes_dropped) < 0 ||
		    json_get_int(rd, l, path, "bytes_left_out", 0, 0, INT64_C(1) << 53, &inv->logs[i].bytes_left_out) < 0 ||
		    read_log_whole(rd, l, path, names[i], &inv->logs[i]) < 0)
			return -1;
	}
	return 0;
}

static int read_cgroup(const struct json_in *rd, const cJSON *o, const char *path,
		       struct invocation *inv)
{
	const cJSON *cg = cJSON_GetObjectItemCaseSensitive(o, "cgroup");
	int have;

	inv->cg_memory_peak_bytes = inv->cg_cpu_usage_ns = -1;
	if (cJSON_IsNull(cg))
		return 0;
	if (!cJSON_IsObject(cg))
		return json_in_error(rd, path, "'cgroup' is neither an object nor null");
	inv->cgroup_valid = 1;
	if ((have = json_get_int(rd, cg, path, "memory_peak_bytes", JSON_REQUIRED | JSON_NULLABLE, 0, INT64_C(1) << 62, &inv->cg_memory_peak_bytes)) < 0)
		return -1;
	if (!have)
		inv->cg_memory_peak_bytes = -1;
	if ((have = json_get_int(rd, cg, path, "cpu_usage_ns", JSON_REQUIRED | JSON_NULLABLE, 0, INT64_C(1) << 62, &inv->cg_cpu_usage_ns)) < 0)
		return -1;
	if (!have)
		inv->cg_cpu_usage_ns = -1;
	return 0;
}

static int read_status(const struct json_in *rd, const char *path, const char *name,
		       enum inv_status *out)
{
	for (int st = INV_OK; st <= INV_INTERRUPTED; st++)
		if (!strcmp(name, invocation_status_name((enum inv_status)st))) {
			*out = (enum inv_status)st;
			return 0;
		}
	return json_in_error(rd, path, "unknown status '%s'", name);
}

/* test_times: [[name, ms], ...]. 0 or -1 after the error. */
static int read_test_times(const struct json_in *rd, const cJSON *o, const char *path,
			   struct invocation *inv)
{
	const cJSON *arr, *e;
	size_t i = 0;

	if (json_get_array(rd, o, path, "test_times", JSON_REQUIRED, &arr) < 0)
		return -1;
	cJSON_ArrayForEach(e, arr) {
		const cJSON *name = cJSON_GetArrayItem(e, 0), *ms = cJSON_GetArrayItem(e, 1);

		if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 || !cJSON_IsString(name) ||
		    !cJSON_IsNumber(ms) || !(ms->valuedouble >= 0) || !isfinite(ms->valuedouble))
			return json_in_error(rd, path, "test_times[%zu] is not [name, milliseconds]", i);
		if (i++ == EVIDENCE_TEST_TIMES_MAX)
			return json_in_error(rd, path, "test_times holds more than %d tests",
					     EVIDENCE_TEST_TIMES_MAX);
		invocation_add_test_time(inv, name->valuestring, ms->valuedouble);
	}
	return 0;
}


/* ---- the rows that are more than one value ---- */

static void w_phase(json_node *o, const char *key, const void *rec)
{
	jadd_str(o, key, ((const struct invocation *)rec)->warmup ? "warmup" : "run");
}

static int r_phase(const struct json_in *rd, const json_node *o, const char *path,
		   const char *key, void *rec)
{
	struct invocation *inv = rec;
	char *phase = NULL;
	int ret = 0;

	if (json_get_string(rd, o, path, key, JSON_REQUIRED, &phase) < 0)
		return -1;
	if (strcmp(phase, "warmup") && strcmp(phase, "run"))
		ret = json_in_error(rd, path, "unknown phase '%s'", phase);
	inv->warmup = !strcmp(phase, "warmup");
	free(phase);
	return ret;
}

static void w_status(json_node *o, const char *key, const void *rec)
{
	jadd_str(o, key, invocation_status_name(((const struct invocation *)rec)->status));
}

static int r_status(const struct json_in *rd, const json_node *o, const char *path,
		    const char *key, void *rec)
{
	char *status = NULL;
	int ret;

	if (json_get_string(rd, o, path, key, JSON_REQUIRED, &status) < 0)
		return -1;
	ret = read_status(rd, path, status, &((struct invocation *)rec)->status);
	free(status);
	return ret;
}

static void w_cpu_ns(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	jadd_int(o, key, inv->fig.user_ns + inv->fig.sys_ns);
}

static void w_load_before(json_node *o, const char *key, const void *rec)
{
	jadd(o, key, load_json(&((const struct invocation *)rec)->load_before));
}

static void w_load_after(json_node *o, const char *key, const void *rec)
{
	jadd(o, key, load_json(&((const struct invocation *)rec)->load_after));
}

static int r_load_before(const struct json_in *rd, const json_node *o, const char *path,
			 const char *key, void *rec)
{
	return read_load(rd, o, path, key, &((struct invocation *)rec)->load_before);
}

static int r_load_after(const struct json_in *rd, const json_node *o, const char *path,
			const char *key, void *rec)
{
	return read_load(rd, o, path, key, &((struct invocation *)rec)->load_after);
}

/* A percentage of the wall time, or null when unknown. */
static void add_pct(json_node *o, const char *key, double pct)
{
	if (pct >= 0)
		jadd_num(o, key, pct);
	else
		jadd(o, key, jnull());
}

static void w_cpu_wait_pct(json_node *o, const char *key, const void *rec)
{
	add_pct(o, key, invocation_cpu_wait_pct(rec));
}

static void w_foreign_wait_pct(json_node *o, const char *key, const void *rec)
{
	add_pct(o, key, invocation_foreign_wait_pct(rec));
}

static void w_paused(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	cJSON *p;

	if (!inv->stops_abev && !inv->stops_child && inv->suspended_ns <= 0) {
		jadd(o, key, jnull());
		return;
	}
	p = jnew_object();
	jadd_int(p, "abev_stops", inv->stops_abev);
	jadd_int(p, "child_stops", inv->stops_child);
	jadd_int(p, "suspended_ns", inv->suspended_ns);
	jadd(o, key, p);
}

static void w_overlaps(json_node *o, const char *key, const void *rec)
{
	jadd(o, key, overlaps_json(rec));
}

static void w_logs(json_node *o, const char *key, const void *rec)
{
	jadd(o, key, logs_json(rec));
}

static int r_logs(const struct json_in *rd, const json_node *o, const char *path,
		  const char *key, void *rec)
{
	(void)key;
	return read_logs(rd, o, path, rec);
}

/* Only when the plan has a prepare step: the key is absent otherwise. */
static void w_prepare(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	if (inv->prepare)
		jadd(o, key, invocation_fields_prepare_json(inv->prepare));
}

/* A command line as result.json shows it: its arguments apart by spaces. Static buffer. */
static const char *shown_cmdline(const char *cmdline)
{
	static char buf[PROC_TREE_CMDLINE_MAX + 1];
	size_t i;

	for (i = 0; cmdline[i] && i < sizeof(buf) - 1; i++)
		buf[i] = cmdline[i] == PROC_TREE_ARG_SEP ? ' ' : cmdline[i];
	buf[i] = '\0';
	return buf;
}

/* Each process of the tree (record/proc_tree.h), with where its figures came from. */
static void w_processes(json_node *o, const char *key, const void *rec)
{
	const struct proc_tree *t = &((const struct invocation *)rec)->procs;
	cJSON *obj = jnew_object(), *list = jnew_array();

	jadd_str(obj, "source", t->source);
	jadd_str(obj, "note", t->note);
	for (size_t i = 0; i < t->n; i++) {
		const struct proc_tree_proc *p = &t->p[i];
		cJSON *e = jnew_object();
		jadd_str(e, "comm", p->comm);
		jadd_str(e, "cmdline", p->cmdline ? shown_cmdline(p->cmdline) : NULL);
		jadd_int(e, "pid", p->pid);
		jadd_int(e, "ppid", p->ppid);
		jadd_int_or_null(e, "peak_rss_bytes", p->peak_rss_bytes, p->peak_rss_bytes >= 0);
		jadd_int_or_null(e, "cpu_ns", p->cpu_ns, p->cpu_ns >= 0);
		jadd_int_or_null(e, "wait_ns", p->wait_ns, p->wait_ns >= 0);
		jadd_str(e, "source", p->source);
		jpush(list, e);
	}
	jadd(obj, "list", list);
	jadd_int(obj, "omitted", t->omitted);
	jadd(o, key, obj);
}

static void w_cgroup(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	cJSON *cg;

	if (!inv->cgroup_valid) {
		jadd(o, key, jnull());
		return;
	}
	cg = jnew_object();
	jadd_int_or_null(cg, "memory_peak_bytes", inv->cg_memory_peak_bytes,
			 inv->cg_memory_peak_bytes >= 0);
	jadd_int_or_null(cg, "cpu_usage_ns", inv->cg_cpu_usage_ns, inv->cg_cpu_usage_ns >= 0);
	jadd(o, key, cg);
}

static int r_cgroup(const struct json_in *rd, const json_node *o, const char *path,
		    const char *key, void *rec)
{
	(void)key;
	return read_cgroup(rd, o, path, rec);
}

static void w_tests(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	cJSON *t;

	if (!inv->has_tests) {
		jadd(o, key, jnull());
		return;
	}
	t = jnew_object();
	invocation_fields_counts(t, &inv->tests);
	jadd(o, key, t);
}

static int r_tests(const struct json_in *rd, const json_node *o, const char *path,
		   const char *key, void *rec)
{
	(void)key;
	return read_tests(rd, o, path, rec);
}

static void w_results(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	cJSON *files = jnew_array();

	for (size_t i = 0; i < inv->nresults; i++)
		jpush(files, invocation_fields_results_file(&inv->results[i]));
	jadd(o, key, files);
}

static void w_test_times(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	cJSON *times = jnew_array();

	for (size_t i = 0; i < inv->ntest_times; i++) {
		cJSON *pair = jnew_array();
		jpush(pair, cJSON_CreateString(inv->test_times[i].name));
		jpush(pair, jreal(inv->test_times[i].ms));
		jpush(times, pair);
	}
	jadd(o, key, times);
}

static int r_test_times(const struct json_in *rd, const json_node *o, const char *path,
			const char *key, void *rec)
{
	(void)key;
	return read_test_times(rd, o, path, rec);
}

static void w_test_failures(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	cJSON *arr = jnew_array();

	for (size_t i = 0; i < inv->ntest_failures; i++) {
		const struct invocation_test_failure *f = &inv->test_failures[i];
		cJSON *e = jnew_object();
		jadd_str(e, "name", f->name);
		jadd_str(e, "outcome", f->outcome);
		jadd_str(e, "message", f->message);
		jadd(e, "known", cJSON_CreateBool(f->known));
		jpush(arr, e);
	}
	jadd(o, key, arr);
}

/* test_failures: [{name, outcome, message, known}, ...]; absent in older evidence. */
static int r_test_failures(const struct json_in *rd, const json_node *o, const char *path,
			   const char *key, void *rec)
{
	struct invocation *inv = rec;
	const cJSON *arr, *e;
	char *base;
	size_t i = 0;
	int ret;

	ret = json_get_array(rd, o, path, key, 0, &arr);
	if (ret <= 0)
		return ret;
	base = json_key_path(path, key);
	if (cJSON_GetArraySize(arr) > EVIDENCE_FAILED_TESTS_MAX) {
		json_in_error(rd, base, "holds more than %d tests", EVIDENCE_FAILED_TESTS_MAX);
		free(base);
		return -1;
	}
	/* As many as the file holds: most records hold none. */
	if (cJSON_GetArraySize(arr) > 0)
		inv->test_failures = xcalloc((size_t)cJSON_GetArraySize(arr),
					     sizeof(*inv->test_failures));
	ret = 0;
	cJSON_ArrayForEach(e, arr) {
		struct invocation_test_failure *f = &inv->test_failures[inv->ntest_failures++];
		char *at = json_index_path(base, i++);

		if (!cJSON_IsObject(e))
			ret = json_in_error(rd, at, "not an object");
		else if (json_get_string(rd, e, at, "name", JSON_REQUIRED, &f->name) < 0 ||
			 json_get_string(rd, e, at, "outcome", JSON_REQUIRED, &f->outcome) < 0 ||
			 json_get_string(rd, e, at, "message", JSON_REQUIRED, &f->message) < 0 ||
			 json_get_bool(rd, e, at, "known", JSON_REQUIRED, &f->known) < 0)
			ret = -1;
		free(at);
		if (ret < 0)
			break;
	}
	free(base);
	return ret;
}

static void w_metrics(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	cJSON *metrics = jnew_object();

	for (size_t i = 0; i < inv->nmetrics; i++) {
		const struct metric_value *m = &inv->metrics[i];
		/* Values keep their full precision: they are what comparisons are made of. */
		jadd(metrics, m->name, m->ok ? jreal(m->value) : jnull());
	}
	jadd(o, key, metrics);
}

static int r_metrics(const struct json_in *rd, const json_node *o, const char *path,
		     const char *key, void *rec)
{
	(void)key;
	return read_metrics(rd, o, path, rec);
}

static void w_guards(json_node *o, const char *key, const void *rec)
{
	const struct invocation *inv = rec;
	cJSON *guards = jnew_array();

	for (size_t i = 0; i < inv->nguards; i++)
		jpush(guards, invocation_fields_guard(&inv->guards[i]));
	jadd(o, key, guards);
}

static int r_guards(const struct json_in *rd, const json_node *o, const char *path,
		    const char *key, void *rec)
{
	(void)key;
	return read_guards(rd, o, path, rec);
}

#define CUSTOM(w, r) .type = FIELD_CUSTOM, .write = (w), .read = (r)

const struct field invocation_fields[] = {
	{ .key = "seq", .type = FIELD_UNSIGNED, .off = OFF(seq), .flags = REQ | RD, .min = 1, .max = UINT32_MAX },
	{ .key = "variant", .type = FIELD_OWNED, .off = OFF(variant), .flags = REQ | RD },
	{ .key = "phase", CUSTOM(w_phase, r_phase), .flags = REQ | RD },
	{ .key = "round", .type = FIELD_UNSIGNED, .off = OFF(round), .flags = REQ | RD, .min = 1, .max = UINT32_MAX },
	{ .key = "attempt", .type = FIELD_UNSIGNED, .off = OFF(attempt), .flags = REQ | RD, .min = 1, .max = UINT32_MAX },
	{ .key = "status", CUSTOM(w_status, r_status), .flags = REQ | RD },
	{ .key = "reason", .type = FIELD_OWNED, .off = OFF(reason), .flags = REQ | RD | NUL },
	{ .key = "dir", .type = FIELD_OWNED, .off = OFF(dir), .flags = REQ | RD },
	{ .key = "argv", .type = FIELD_OWNED_STRINGS, .off = OFF(argv), .count_off = OFF(argc), .flags = REQ | FIELD_OPTIONAL },
	{ .key = "cwd", .type = FIELD_OWNED, .off = OFF(cwd), .flags = REQ | RD },
	{ .key = "start_utc", .type = FIELD_CHARS, .off = OFF(start_utc), .count_off = sizeof(((struct invocation *)0)->start_utc), .flags = REQ | RD },
	{ .key = "end_utc", .type = FIELD_CHARS, .off = OFF(end_utc), .count_off = sizeof(((struct invocation *)0)->end_utc), .flags = REQ | RD },
	{ .key = "wall_ns", .type = FIELD_I64, .off = OFF(fig.wall_ns), .flags = REQ | RD, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "exit_code", .type = FIELD_INT, .off = OFF(exit_code), .flags = REQ | RD | NEG, .min = 0, .max = 255 },
	{ .key = "signal", .type = FIELD_INT, .off = OFF(signal), .flags = REQ | RD | FIELD_NULL_NONPOSITIVE, .min = 1, .max = 128 },
	{ .key = "core_dumped", .type = FIELD_BOOL, .off = OFF(core_dumped), .flags = REQ | RD },
	{ .key = "timed_out", .type = FIELD_BOOL, .off = OFF(timed_out), .flags = REQ | RD },
	{ .key = "exec_error", .type = FIELD_OWNED, .off = OFF(exec_error), .flags = REQ | RD | NUL },
	{ .key = "stderr_tail", .type = FIELD_OWNED, .off = OFF(stderr_tail), .flags = RD | FIELD_OPTIONAL | NUL },
	{ .key = "user_ns", .type = FIELD_I64, .off = OFF(fig.user_ns), .flags = REQ | RD, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "sys_ns", .type = FIELD_I64, .off = OFF(fig.sys_ns), .flags = REQ | RD, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "cpu_ns", CUSTOM(w_cpu_ns, NULL), .flags = REQ, .unit = "ns" },
	{ .key = "max_rss_bytes", .type = FIELD_I64, .off = OFF(fig.max_rss_bytes), .flags = REQ | RD, .unit = "bytes", .min = 0, .max = BIG },
	{ .key = "minflt", .type = FIELD_LONG, .off = OFF(fig.minflt), .flags = REQ, .unit = "count" },
	{ .key = "majflt", .type = FIELD_LONG, .off = OFF(fig.majflt), .flags = REQ, .unit = "count" },
	{ .key = "nvcsw", .type = FIELD_LONG, .off = OFF(fig.nvcsw), .flags = REQ, .unit = "count" },
	{ .key = "nivcsw", .type = FIELD_LONG, .off = OFF(fig.nivcsw), .flags = REQ, .unit = "count" },
	{ .key = "load_before", CUSTOM(w_load_before, r_load_before), .flags = REQ | RD },
	{ .key = "load_after", CUSTOM(w_load_after, r_load_after), .flags = REQ | RD },
	{ .key = "foreign_cpu", .type = FIELD_NUMBER, .off = OFF(foreign_cpu), .flags = REQ | RD | NEG, .unit = "cores" },
	{ .key = "foreign_cpu_resolution", .type = FIELD_NUMBER, .off = OFF(foreign_cpu_resolution), .flags = REQ | RD | NEG, .unit = "cores" },
	{ .key = "max_foreign_cpu", .type = FIELD_NUMBER, .off = OFF(max_foreign_cpu), .flags = REQ | RD | NEG, .unit = "cores" },
	{ .key = "cpu_wait_ns", .type = FIELD_I64, .off = OFF(cpu_wait_ns), .flags = REQ | RD | NEG, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "cpu_wait_pct", CUSTOM(w_cpu_wait_pct, NULL), .flags = REQ, .unit = "%" },
	{ .key = "cpu_wait_source", .type = FIELD_OWNED, .off = OFF(cpu_wait_source), .flags = REQ | RD | NUL },
	{ .key = "cpu_wait_note", .type = FIELD_OWNED, .off = OFF(cpu_wait_note), .flags = REQ | RD | NUL },
	{ .key = "tree_wait_ns", .type = FIELD_I64, .off = OFF(tree_wait_ns), .flags = REQ | FIELD_OPTIONAL | NEG, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "tree_active_ns", .type = FIELD_I64, .off = OFF(tree_active_ns), .flags = REQ | FIELD_OPTIONAL | NEG, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "cgroup_cpu_wait_ns", .type = FIELD_I64, .off = OFF(cgroup_cpu_wait_ns), .flags = REQ | FIELD_OPTIONAL | NEG, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "max_cpu_wait_pct", .type = FIELD_NUMBER, .off = OFF(max_cpu_wait_pct), .flags = REQ | RD, .unit = "%" },
	{ .key = "system_cpu_wait_ns", .type = FIELD_I64, .off = OFF(system_cpu_wait_ns), .flags = REQ | RD | NEG, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "run_cpus", .type = FIELD_UNSIGNED, .off = OFF(run_cpus), .flags = REQ | RD | FIELD_NULL_NONPOSITIVE, .min = 1, .max = INT64_C(1) << 20 },
	{ .key = "foreign_busy_ns", .type = FIELD_I64, .off = OFF(foreign_busy_ns), .flags = REQ | RD | NEG, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "foreign_busy_fine_ns", .type = FIELD_I64, .off = OFF(foreign_busy_fine_ns), .flags = REQ | FIELD_OPTIONAL | NEG, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "foreign_busy_fine_source", .type = FIELD_OWNED, .off = OFF(foreign_busy_fine_source), .flags = REQ | FIELD_OPTIONAL | NUL },
	{ .key = "foreign_wait_ns", .type = FIELD_I64, .off = OFF(foreign_wait_ns), .flags = REQ | RD | NEG, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "foreign_wait_pct", CUSTOM(w_foreign_wait_pct, NULL), .flags = REQ, .unit = "%" },
	{ .key = "foreign_wait_basis", .type = FIELD_ENUM, .off = OFF(foreign_wait_basis), .flags = REQ | FIELD_OPTIONAL | NUL,
	  .names = invocation_wait_basis_names, .nnames = FOREIGN_WAIT_BASES },
	{ .key = "cpus", .type = FIELD_OWNED, .off = OFF(cpus), .flags = REQ | RD | NUL },
	{ .key = "load_wait_ns", .type = FIELD_I64, .off = OFF(load_wait_ns), .flags = REQ | FIELD_OPTIONAL, .unit = "ns", .min = 0, .max = BIG },
	{ .key = "loaded", .type = FIELD_BOOL, .off = OFF(loaded), .flags = REQ | FIELD_OPTIONAL },
	{ .key = "processes", CUSTOM(w_processes, NULL), .flags = REQ },
	{ .key = "leftovers_killed", .type = FIELD_UNSIGNED, .off = OFF(leftovers_killed), .flags = REQ },
	{ .key = "paused", CUSTOM(w_paused, NULL), .flags = REQ },
	{ .key = "overlaps", CUSTOM(w_overlaps, NULL), .flags = REQ },
	{ .key = "output", .type = FIELD_OWNED, .off = OFF(output), .flags = REQ | RD | FIELD_OPTIONAL | NUL },
	{ .key = "logs", CUSTOM(w_logs, r_logs), .flags = RD | FIELD_OPTIONAL },
	{ .key = "prepare", CUSTOM(w_prepare, NULL), .flags = 0 },
	{ .key = "cgroup", CUSTOM(w_cgroup, r_cgroup), .flags = REQ | RD },
	{ .key = "cgroup_note", .type = FIELD_OWNED, .off = OFF(cgroup_note), .flags = REQ | RD | NUL },
	{ .key = "results_files", .type = FIELD_OWNED, .off = OFF(results_files), .flags = REQ | NUL },
	{ .key = "tests", CUSTOM(w_tests, r_tests), .flags = REQ | RD },
	{ .key = "results", CUSTOM(w_results, NULL), .flags = REQ },
	{ .key = "failed_tests", .type = FIELD_OWNED_STRINGS, .off = OFF(failed_tests), .count_off = OFF(nfailed_tests), .flags = REQ | RD },
	{ .key = "failed_tests_omitted", .type = FIELD_SIZE, .off = OFF(failed_tests_omitted), .flags = REQ | RD },
	{ .key = "test_failures", CUSTOM(w_test_failures, r_test_failures), .flags = REQ | RD | FIELD_OPTIONAL },
	{ .key = "test_times", CUSTOM(w_test_times, r_test_times), .flags = REQ | RD },
	{ .key = "test_times_omitted", .type = FIELD_SIZE, .off = OFF(test_times_omitted), .flags = REQ | RD },
	{ .key = "metrics", CUSTOM(w_metrics, r_metrics), .flags = REQ | RD },
	{ .key = "guards", CUSTOM(w_guards, r_guards), .flags = REQ | RD },
};
const size_t invocation_fields_count = ARRAY_SIZE(invocation_fields);

json_node *invocation_fields_json(const struct invocation *inv, int with_schema)
{
	cJSON *o = jnew_object();

	if (with_schema)
		jadd_str(o, "schema", EVIDENCE_INVOCATION_SCHEMA);
	fields_write(o, invocation_fields, invocation_fields_count, inv);
	return o;
}

int invocation_fields_read(const struct json_in *rd, const json_node *o, const char *path,
			   struct invocation *inv)
{
	memset(inv, 0, sizeof(*inv));
	fields_unset(invocation_fields, invocation_fields_count, inv);
	if (!cJSON_IsObject(o))
		return json_in_error(rd, path, "not an object");
	return fields_read(rd, o, path, invocation_fields, invocation_fields_count, inv, NULL, NULL);
}
