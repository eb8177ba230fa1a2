/*
 * evidence_read: the inverse of evidence.c for the top-level result.json.
 * Only what the comparison, the report and the exports use is read back;
 * the rest stays in the file. Numbers were written by cJSON at full
 * precision (or rounded to 6 decimals where evidence.c says so), so what
 * is read back is what was computed from.
 */
#include "evidence/evidence_read.h"
#include "evidence/invocation_fields.h"
#include "evidence/metadata_fields.h"
#include "evidence/run_fields.h"
#include "evidence/envname.h"
#include "evidence/evname.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hash.h"
#include "evidence/journal.h"
#include "util/json_in.h"
#include "util/json_out.h"
#include "util/json_skim.h"
#include "util/json_text.h"
#include "util/name_rule.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"


static int read_invocation(const struct json_in *rd, const struct evidence_run *r,
			   const cJSON *o, size_t i, struct invocation *inv)
{
	char path[64];
	size_t k;

	snprintf(path, sizeof(path), "invocations[%zu]", i);
	/* Null unless the file has it: evidence written before abev recorded it. */
	inv->tree_wait_ns = -1;
	inv->tree_active_ns = -1;
	inv->cgroup_cpu_wait_ns = -1;
	inv->foreign_busy_fine_ns = -1;
	if (invocation_fields_read(rd, o, path, inv) < 0)
		return -1;
	for (k = 0; k < r->hdr.nvariants && strcmp(r->hdr.variant_names[k], inv->variant); k++)
		;
	if (k == r->hdr.nvariants)
		return json_in_error(rd, path, "variant '%s' is not one of the run's variants",
				     inv->variant);
	return 0;
}

static char *keep(struct evidence_run *r, char *s)
{
	ALLOC_GROW(r->strings, r->nstrings + 1, r->strings_alloc);
	r->strings[r->nstrings++] = s;
	return s;
}

/* keep() for run_fields_read(). */
static void keep_any(void *ctx, void *p)
{
	struct evidence_run *r = ctx;

	ALLOC_GROW(r->strings, r->nstrings + 1, r->strings_alloc);
	r->strings[r->nstrings++] = p;
}

static int read_gate_kind(const char *name, enum gate_kind *out)
{
	for (int k = GATE_MAX_REGRESSION; k <= GATE_BUDGET; k++)
		if (!strcmp(name, gate_kind_name((enum gate_kind)k))) {
			*out = (enum gate_kind)k;
			return 0;
		}
	return -1;
}

/* The configuration the recorded comparison was made with. */
/*
 * Whether comparison c was written before the joint gate interval: a
 * gate interval without "parts" (compare_config.gi_paired_alone).
 */
static int before_joint_interval(const cJSON *c)
{
	const cJSON *m, *v;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(c, "metrics"))
		cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(m, "variants")) {
			const cJSON *gi = cJSON_GetObjectItemCaseSensitive(v, "gate_interval");

			if (cJSON_IsObject(gi) && !cJSON_GetObjectItemCaseSensitive(gi, "parts"))
				return 1;
		}
	return 0;
}

/* comparison.sequential (null, or schedule.until "decided") into r->sequential. 0 or -1. */
static int read_sequential(const struct json_in *rd, const cJSON *c, struct evidence_run *r)
{
	const cJSON *s, *looks, *taken, *e;
	struct compare_sequential *q;
	unsigned *lk;
	struct compare_look *tk;
	int64_t v;
	const char *path = "comparison.sequential";

	if (json_get_object(rd, c, "comparison", "sequential", JSON_REQUIRED | JSON_NULLABLE, &s) < 0)
		return -1;
	if (!s)
		return 0;
	q = r->sequential = xcalloc(1, sizeof(*q));
	if (json_get_number(rd, s, path, "confidence", JSON_REQUIRED, 0, 1, 1, &q->confidence) < 0 ||
	    json_get_number(rd, s, path, "look_confidence", JSON_REQUIRED, 0, 1, 1, &q->look_confidence) < 0 ||
	    json_get_int(rd, s, path, "min_rounds", JSON_REQUIRED, 1, UINT32_MAX, &v) < 0)
		return -1;
	q->min_rounds = (unsigned)v;
	if (json_get_int(rd, s, path, "max_rounds", JSON_REQUIRED, 1, UINT32_MAX, &v) < 0)
		return -1;
	q->max_rounds = (unsigned)v;
	if (json_get_array(rd, s, path, "looks", JSON_REQUIRED, &looks) < 0 ||
	    json_get_array(rd, s, path, "taken", JSON_REQUIRED, &taken) < 0)
		return -1;
	q->looks = lk = xcalloc((size_t)cJSON_GetArraySize(looks) + 1, sizeof(*lk));
	cJSON_ArrayForEach(e, looks) {
		if (!cJSON_IsNumber(e) || !(e->valuedouble >= 1 && e->valuedouble <= UINT32_MAX))
			return json_in_error(rd, path, "looks[%zu] is not a round number", q->nlooks);
		lk[q->nlooks++] = (unsigned)e->valuedouble;
	}
	q->taken = tk = xcalloc((size_t)cJSON_GetArraySize(taken) + 1, sizeof(*tk));
	cJSON_ArrayForEach(e, taken) {
		char *d = NULL;
		size_t k;
		if (json_get_int(rd, e, "comparison.sequential.taken", "round", JSON_REQUIRED, 1, UINT32_MAX, &v) < 0 ||
		    json_get_string(rd, e, "comparison.sequential.taken", "decision", JSON_REQUIRED, &d) < 0)
			return -1;
		for (k = DECISION_NONE; k <= DECISION_INCONCLUSIVE && strcmp(d, decision_name((enum decision)k)); k++)
			;
		free(d);
		if (k > DECISION_INCONCLUSIVE)
			return json_in_error(rd, "comparison.sequential.taken", "unknown decision");
		tk[q->ntaken++] = (struct compare_look){ (unsigned)v, (enum decision)k };
	}
	if (json_get_int(rd, s, path, "decided_after_round", JSON_REQUIRED | JSON_NULLABLE, 1, UINT32_MAX, &v) < 0)
		return -1;
	q->decided_round = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(s, "decided_after_round"))
				   ? 0 : (unsigned)v;
	return 0;
}

static int read_comparison(const struct json_in *rd, const cJSON *c, struct evidence_run *r)
{
	const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(c, "metrics"), *gates = cJSON_GetObjectItemCaseSensitive(c, "gate_definitions"), *e;
	struct compare_config *cfg = &r->cfg;
	char *ref = NULL, *inconclusive = NULL;
	int64_t v = 0;
	size_t k, n = 0;
	int paired = 1, ret = -1;

	if (json_get_string(rd, c, "comparison", "reference", JSON_REQUIRED, &ref) < 0)
		goto out;
	for (k = 0; k < r->hdr.nvariants && strcmp(r->hdr.variant_names[k], ref); k++)
		;
	if (k == r->hdr.nvariants) {
		json_in_error(rd, "comparison", "reference '%s' is not one of the run's variants", ref);
		goto out;
	}
	cfg->reference = k;
	cfg->variants = r->hdr.variant_names;
	cfg->nvariants = r->hdr.nvariants;
	if (json_get_number(rd, c, "comparison", "confidence", JSON_REQUIRED, -HUGE_VAL, 0, HUGE_VAL, &cfg->confidence) < 0 ||
	    json_get_int(rd, c, "comparison", "bootstrap_resamples", JSON_REQUIRED, 1, 100000000, &v) < 0)
		goto out;
	if (cfg->confidence <= 0 || cfg->confidence >= 1) {
		json_in_error(rd, "comparison", "confidence %g is not between 0 and 1", cfg->confidence);
		goto out;
	}
	cfg->resamples = (unsigned)v;
	if (json_get_int(rd, c, "comparison", "seed", JSON_REQUIRED, 0, INT64_MAX, &v) < 0 ||
	    json_get_bool(rd, c, "comparison", "acceptance", JSON_REQUIRED, &cfg->acceptance) < 0 ||
	    json_get_bool(rd, c, "comparison", "paired", JSON_REQUIRED, &paired) < 0 ||
	    json_get_string(rd, c, "comparison", "inconclusive", JSON_REQUIRED, &inconclusive) < 0)
		goto out;
	cfg->seed = (uint64_t)v;
	cfg->unpaired = !paired;
	/* An interrupted run decides nothing, in a report made later as in the run's own. */
	cfg->interrupted = r->hdr.status && !strcmp(r->hdr.status, "interrupted");
	cfg->rounds_planned = r->hdr.set.runs;
	cfg->inconclusive_fails = !strcmp(inconclusive, "fail");
	if (!cJSON_IsArray(metrics) || !cJSON_IsArray(gates)) {
		json_in_error(rd, "comparison", "'metrics' or 'gate_definitions' is missing");
		goto out;
	}
	r->metric_defs = xcalloc((size_t)cJSON_GetArraySize(metrics) + 1, sizeof(*r->metric_defs));
	cJSON_ArrayForEach(e, metrics) {
		struct compare_metric_def *d = &r->metric_defs[n];
		char *name = NULL, *unit = NULL, *better = NULL, *source = NULL;
		int bad = json_get_string(rd, e, "comparison.metrics", "name", JSON_REQUIRED, &name) < 0 ||
			  json_get_string(rd, e, "comparison.metrics", "unit", JSON_REQUIRED, &unit) < 0 ||
			  json_get_string(rd, e, "comparison.metrics", "better", JSON_REQUIRED, &better) < 0 ||
			  json_get_string(rd, e, "comparison.metrics", "source", JSON_REQUIRED, &source) < 0;
		if (!bad && strcmp(source, "builtin")) {
			d->name = keep(r, name);
			d->unit = keep(r, unit);
			d->source = keep(r, source);
			d->better_higher = !strcmp(better, "higher");
			name = unit = source = NULL;
			n++;
		}
		free(name);
		free(unit);
		free(better);
		free(source);
		if (bad)
			goto out;
	}
	cfg->metrics = r->metric_defs;
	cfg->nmetrics = n;
	n = 0;
	r->gate_defs = xcalloc((size_t)cJSON_GetArraySize(gates) + 1, sizeof(*r->gate_defs));
	cJSON_ArrayForEach(e, gates) {
		struct compare_gate_def *g = &r->gate_defs[n];
		char *metric = NULL, *kind = NULL;
		int bad = json_get_string(rd, e, "comparison.gate_definitions", "metric", JSON_REQUIRED, &metric) < 0 ||
			  json_get_string(rd, e, "comparison.gate_definitions", "kind", JSON_REQUIRED, &kind) < 0 ||
			  json_get_number(rd, e, "comparison.gate_definitions", "limit", JSON_REQUIRED, -HUGE_VAL, 0, HUGE_VAL, &g->limit) < 0;
		if (!bad && read_gate_kind(kind, &g->kind) < 0)
			bad = json_in_error(rd, "comparison.gate_definitions", "unknown kind '%s'", kind);
		free(kind);
		if (bad) {
			free(metric);
			goto out;
		}
		g->metric = keep(r, metric);
		n++;
	}
	cfg->gates = r->gate_defs;
	cfg->ngates = n;
	if (read_sequential(rd, c, r) < 0)
		goto out;
	cfg->sequential = r->sequential;
	cfg->gi_paired_alone = before_joint_interval(c);
	r->has_comparison = 1;
	ret = 0;
out:
	free(ref);
	free(inconclusive);
	return ret;
}

/* Units and directions of the plan's metrics, from the comparison's definitions. */
static void annotate_metrics(struct evidence_run *r)
{
	for (size_t i = 0; i < r->ninvs; i++) {
		for (size_t k = 0; k < r->invs[i].nmetrics; k++) {
			struct metric_value *v = &r->invs[i].metrics[k];
			for (size_t m = 0; m < r->cfg.nmetrics; m++) {
				if (strcmp(v->name, r->metric_defs[m].name))
					continue;
				free(v->unit);
				v->unit = xstrdup(r->metric_defs[m].unit);
				v->better_higher = r->metric_defs[m].better_higher;
			}
		}
	}
}

/* The plan's own report template, when result.json says the evidence keeps one. */
static int read_template(const struct json_in *rd, struct evidence_run *r)
{
	struct strbuf sb = STRBUF_INIT;
	const char *name = r->hdr.report_template;
	char *path;
	int ret = -1;

	if (!name)
		return 0;
	/* Only the one name abev writes: result.json must not point anywhere else. */
	if (strcmp(name, EVIDENCE_TEMPLATE_FILE)) {
		json_in_error(rd, "report", "template '%s' is not '" EVIDENCE_TEMPLATE_FILE "'", name);
		return -1;
	}
	path = path_join(r->dir, name);
	if (read_file_capped(&sb, path, EVIDENCE_TEMPLATE_MAX) < 0)
		json_in_error(rd, "report", "the plan's template '%s' cannot be read (see above)", path);
	else {
		r->template_text = strbuf_detach(&sb, &r->template_len);
		ret = 0;
	}
	strbuf_release(&sb);
	free(path);
	return ret;
}

static int read_header(const struct json_in *rd, const cJSON *root, struct evidence_run *r)
{
	run_fields_unset(&r->hdr);
	if (run_fields_read(rd, root, &r->hdr, keep_any, r) < 0 ||
	    read_template(rd, r) < 0)
		return -1;
	r->cfg.order = run_order_name(r->hdr.set.order);
	return 0;
}

/* The room read_fd_capped() asks for past what it has read: a buffer with it needs no growing. */
#define READ_SLACK (8192 + 1)

/* A journal line longer than this is not abev's. */
#define JOURNAL_LINE_MAX (16u << 20)

/* Adds a note to the header's: a new vector of them, the old one kept till release. */
static void add_note(struct evidence_run *r, char *note)
{
	const char **notes = xcalloc(r->hdr.nnotes + 2, sizeof(*notes));

	for (size_t i = 0; i < r->hdr.nnotes; i++)
		notes[i] = r->hdr.notes[i];
	notes[r->hdr.nnotes] = keep(r, note);
	keep_any(r, notes);
	r->hdr.notes = notes;
	r->hdr.nnotes++;
}

/* One line of the journal, an invocation's own document, into r->invs. */
static int read_journal_line(const struct json_in *rd, struct evidence_run *r, const char *line,
			     size_t len, size_t *alloc)
{
	cJSON *o;
	int rc;

	if (json_text_check(rd->file, line, len, JSON_TEXT_MAX_DEPTH) < 0)
		return json_in_error(rd, "invocations", "line %zu: not JSON as abev writes it (see above)",
				     r->ninvs + 1);
	o = cJSON_ParseWithLength(line, len);
	if (!o)
		return json_in_error(rd, "invocations", "line %zu: not valid JSON", r->ninvs + 1);
	ALLOC_GROW(r->invs, r->ninvs + 1, *alloc);
	rc = read_invocation(rd, r, o, r->ninvs, &r->invs[r->ninvs]);
	r->ninvs++;
	cJSON_Delete(o);
	if (rc == 0 && r->ninvs > 1 && r->invs[r->ninvs - 1].seq <= r->invs[r->ninvs - 2].seq)
		rc = json_in_error(rd, "invocations", "line %zu: seq %u after %u: not in execution order",
				   r->ninvs, r->invs[r->ninvs - 1].seq, r->invs[r->ninvs - 2].seq);
	return rc;
}

static cJSON *load_json(const char *dir, const char *path, char **err);

static int by_seq(const void *a, const void *b)
{
	unsigned x = ((const struct invocation *)a)->seq, y = ((const struct invocation *)b)->seq;

	return x < y ? -1 : x > y;
}

/* DIR/runs/<variant>/<run>/result.json: one record, when it is there and later than seq after. */
static int read_own_record(const char *dir, const char *variant, const char *run,
			   struct evidence_run *r, unsigned after, size_t *alloc, char **err)
{
	char *path = xasprintf("%s/%s/%s/%s/%s", dir, EVIDENCE_RUNS_DIR, variant, run,
			       EVIDENCE_RESULT_FILE);
	struct json_in rd = { path, NULL, err };
	struct stat st;
	cJSON *o = NULL;
	int ret = 0;

	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	ret = -1;
	o = load_json(dir, path, err);
	if (!o)
		goto out;
	ALLOC_GROW(r->invs, r->ninvs + 1, *alloc);
	memset(&r->invs[r->ninvs], 0, sizeof(*r->invs));
	if (read_invocation(&rd, r, o, r->ninvs, &r->invs[r->ninvs]) < 0) {
		r->ninvs++;
		goto out;
	}
	/* Journaled before (evidence of an earlier abev has one for every invocation). */
	if (r->invs[r->ninvs].seq <= after)
		invocation_release(&r->invs[r->ninvs]);
	else
		r->ninvs++;
	ret = 0;
out:
	cJSON_Delete(o);
	free(path);
	return ret;
}

/*
 * The records past where the journal stopped (journal.h: the file-size
 * limit, a full disk), each its directory's own result.json, after those
 * the journal holds, in execution order. Only the recorded variants'
 * directories are read, at most EVIDENCE_MAX_FILES entries. 0, or -1
 * after json_in_error().
 */
static int read_own_records(const char *dir, struct evidence_run *r, size_t *alloc, char **err)
{
	unsigned after = r->ninvs ? r->invs[r->ninvs - 1].seq : 0;
	size_t from = r->ninvs, seen = 0;
	int ret = 0;

	for (size_t v = 0; v < r->hdr.nvariants && !ret; v++) {
		const char *name = r->hdr.variant_names[v];
		char *vdir;
		DIR *d;
		struct dirent *de;

		if (!name_rule_component_ok(name))
			continue;
		vdir = xasprintf("%s/%s/%s", dir, EVIDENCE_RUNS_DIR, name);
		d = opendir(vdir);
		free(vdir);
		while (d && !ret && (de = readdir(d)) && seen++ < EVIDENCE_MAX_FILES)
			if (de->d_name[0] != '.')
				ret = read_own_record(dir, name, de->d_name, r, after, alloc, err);
		if (d)
			closedir(d);
	}
	if (ret < 0)
		return -1;
	qsort(r->invs + from, r->ninvs - from, sizeof(*r->invs), by_seq);
	for (size_t i = from; i < r->ninvs; i++)
		if (i > 0 && r->invs[i].seq == r->invs[i - 1].seq) {
			struct json_in rd = { dir, NULL, err };
			return json_in_error(&rd, "invocations", "seq %u recorded twice under %s/",
					     r->invs[i].seq, EVIDENCE_RUNS_DIR);
		}
	if (r->ninvs > from)
		add_note(r, xasprintf("the %zu after those are read from their directories' own "
				      "%s: %s had stopped (see the notes)", r->ninvs - from,
				      EVIDENCE_RESULT_FILE, EVIDENCE_JOURNAL_FILE));
	return 0;
}

/*
 * The invocations of a run that never finished, from DIR/EVIDENCE_JOURNAL_FILE
 * (journal.h): result.json ("running", or a short one) holds none. Each
 * line is one invocation; a last line without its newline (abev stopped
 * while writing it) is left out with a note. 0, also when there is no
 * journal; -1 after json_in_error().
 */
static int read_journal(const char *dir, struct evidence_run *r, char **err)
{
	char *path = path_join(dir, EVIDENCE_JOURNAL_FILE);
	struct json_in rd = { path, NULL, err };
	struct strbuf sb = STRBUF_INIT;
	size_t alloc = 0, done = 0;
	char chunk[16 * 1024];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), ret = -1;
	struct stat st;

	if (fd < 0) {
		ret = errno == ENOENT ? 0 : json_in_error(&rd, "(file)", "cannot open: %s", strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		json_in_error(&rd, "(file)", "not a regular file");
		goto out;
	}
	for (;;) {
		char *nl;

		if (sb.len - done > JOURNAL_LINE_MAX) {
			json_in_error(&rd, "invocations", "line %zu: longer than %u bytes", r->ninvs + 1,
				      JOURNAL_LINE_MAX);
			goto out;
		}
		nl = memchr(sb.buf + done, '\n', sb.len - done);
		if (nl) {
			if (read_journal_line(&rd, r, sb.buf + done, (size_t)(nl - sb.buf) - done,
					      &alloc) < 0)
				goto out;
			done = (size_t)(nl - sb.buf) + 1;
			continue;
		}
		/* What is left is the start of the next line: it moves to the front. */
		if (done) {
			memmove(sb.buf, sb.buf + done, sb.len - done);
			sb.len -= done;
			sb.buf[sb.len] = '\0';
			done = 0;
		}
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			json_in_error(&rd, "(file)", "cannot read: %s", strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		strbuf_add(&sb, chunk, (size_t)n);
	}
	add_note(r, xasprintf("result.json holds no invocation record (status %s): the %zu below "
			      "are read from %s, where abev recorded each invocation as it ended",
			      r->hdr.status, r->ninvs, EVIDENCE_JOURNAL_FILE));
	if (sb.len)
		add_note(r, xasprintf("%s ends in %zu bytes without a line break: abev stopped while "
				      "writing that invocation's record, left out here (where the "
				      "journal could not be written, its directory's own "
				      "result.json holds it)", EVIDENCE_JOURNAL_FILE, sb.len));
	ret = read_own_records(dir, r, &alloc, err);
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&sb);
	free(path);
	return ret;
}

/* The status s names, as invocation_run_status_name() spells it (static), or NULL when it names none. */
static const char *run_status_of(const char *s)
{
	static const enum run_status all[] = { RUN_RUNNING, RUN_COMPLETED, RUN_FAILED,
					       RUN_INTERRUPTED };

	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		if (!strcmp(s, invocation_run_status_name(all[i])))
			return invocation_run_status_name(all[i]);
	return NULL;
}

/* Likewise for a decision. */
static const char *decision_of(const char *s)
{
	for (int d = DECISION_NONE; d <= DECISION_INCONCLUSIVE; d++)
		if (!strcmp(s, decision_name((enum decision)d)))
			return decision_name((enum decision)d);
	return NULL;
}

/*
 * text (the file name) parsed, or NULL with *err naming the file. With
 * sk, only what sk names (json_skim.h), when the text is strictly JSON;
 * the whole of it otherwise (sk->found then 0), which the reader then
 * reads as before.
 */
static cJSON *parse_json(const char *name, const char *text, size_t len, struct json_skim *sk,
			 char **err)
{
	cJSON *root = NULL;

	if (json_text_check(name, text, len, JSON_TEXT_MAX_DEPTH) < 0)
		*err = xasprintf("%s: not JSON as abev writes it (see above)", name);
	else if (!(sk && (root = json_skim_object(text, len, sk))) &&
		 !(root = cJSON_ParseWithLength(text, len)))
		*err = xasprintf("%s: not valid JSON", name);
	return root;
}

/* DIR/name parsed, or NULL with *err naming the file. */
static cJSON *load_json(const char *dir, const char *path, char **err)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *root = NULL;

	if (read_file_capped(&sb, path, EVIDENCE_READ_MAX) < 0)
		*err = xasprintf("%s: cannot be read (see above); is '%s' an evidence directory?",
				 path, dir);
	else
		root = parse_json(path, sb.buf, sb.len, NULL, err);
	strbuf_release(&sb);
	return root;
}

/* One invocation record of result.json into r->invs, in execution order. */
static int read_top_invocation(const struct json_in *rd, struct evidence_run *r, const cJSON *e,
			       size_t *alloc)
{
	int rc;

	ALLOC_GROW(r->invs, r->ninvs + 1, *alloc);
	memset(&r->invs[r->ninvs], 0, sizeof(*r->invs));
	rc = read_invocation(rd, r, e, r->ninvs, &r->invs[r->ninvs]);
	r->ninvs++;
	if (rc < 0)
		return -1;
	if (r->ninvs > 1 && r->invs[r->ninvs - 1].seq <= r->invs[r->ninvs - 2].seq)
		return json_in_error(rd, "invocations", "seq %u after %u: not in execution order",
				     r->invs[r->ninvs - 1].seq, r->invs[r->ninvs - 2].seq);
	return 0;
}

struct skim_reader {
	const struct json_in *rd;
	struct evidence_run *r;
	size_t alloc;
};

static int read_skimmed_invocation(void *ctx, const cJSON *e, size_t index)
{
	struct skim_reader *sr = ctx;

	(void)index;
	return read_top_invocation(sr->rd, sr->r, e, &sr->alloc);
}

/*
 * result.json's "invocations": from the bytes of the first one sk
 * located, one record at a time (no tree of them all); otherwise from
 * root, which then holds the whole document.
 */
static int read_invocations(const struct json_in *rd, struct evidence_run *r, const char *text,
			    const struct json_skim *sk, const cJSON *root)
{
	struct skim_reader sr = { rd, r, 0 };
	const cJSON *invs, *e;

	if (sk->found && text[sk->span.off] == '[') {
		/* 1: an element cJSON does not read where the skim found it, which cannot happen. */
		int rc = json_skim_array(text, sk, read_skimmed_invocation, &sr);

		if (rc == 1)
			return json_in_error(rd, "invocations", "not valid JSON");
		return rc < 0 ? -1 : 0;
	}
	invs = sk->found ? NULL : cJSON_GetObjectItemCaseSensitive(root, "invocations");
	if (!cJSON_IsArray(invs))
		return json_in_error(rd, "invocations", "missing or not an array");
	cJSON_ArrayForEach(e, invs)
		if (read_top_invocation(rd, r, e, &sr.alloc) < 0)
			return -1;
	return 0;
}

int evidence_read(const char *dir, struct evidence_run *r, char **err)
{
	char *path = path_join(dir, EVIDENCE_RESULT_FILE);
	struct json_in rd = { path, NULL, err };
	struct json_skim sk = JSON_SKIM_INIT(NULL, "invocations");
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	cJSON *root = NULL;
	const cJSON *c;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	*err = NULL;
	r->dir = xstrdup(dir);
	/* Room for the whole file at once: a buffer grown by doubling would hold up to twice it. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= EVIDENCE_READ_MAX)
		strbuf_grow(&sb, (size_t)st.st_size + READ_SLACK);
	if (read_file_capped(&sb, path, EVIDENCE_READ_MAX) < 0) {
		*err = xasprintf("%s: cannot be read (see above); is '%s' an evidence directory?",
				 path, dir);
		goto out;
	}
	/* Everything but the invocations, which are read one at a time. */
	root = parse_json(path, sb.buf, sb.len, &sk, err);
	if (!root)
		goto out;
	if (!cJSON_IsObject(root)) {
		json_in_error(&rd, "(top)", "expected an object");
		goto out;
	}
	if (read_header(&rd, root, r) < 0 || read_invocations(&rd, r, sb.buf, &sk, root) < 0)
		goto out;
	if (!r->ninvs && strcmp(r->hdr.status, "completed") && read_journal(dir, r, err) < 0)
		goto out;
	c = cJSON_GetObjectItemCaseSensitive(root, "comparison");
	if (c && !cJSON_IsNull(c)) {
		if (!cJSON_IsObject(c)) {
			json_in_error(&rd, "comparison", "expected an object or null");
			goto out;
		}
		if (read_comparison(&rd, c, r) < 0)
			goto out;
		annotate_metrics(r);
		/* Kept as read, for evidence_comparison_matches(): taken out of root, not copied. */
		r->stored_comparison = cJSON_DetachItemViaPointer(root, (cJSON *)c);
	}
	ret = 0;
out:
	cJSON_Delete(root);
	json_skim_release(&sk);
	strbuf_release(&sb);
	free(path);
	if (ret < 0)
		evidence_run_release(r);
	return ret;
}

const char *evidence_read_status(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *status = NULL;
	const cJSON *s;
	cJSON *root = NULL;

	if (read_small(&sb, path, 4u << 20, READ_REGULAR) != READ_SMALL_OK)
		goto out;
	root = cJSON_ParseWithLength(sb.buf, sb.len);
	s = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "status") : NULL;
	if (cJSON_IsString(s))
		status = run_status_of(s->valuestring);
out:
	cJSON_Delete(root);
	strbuf_release(&sb);
	return status;
}

/*
 * Required string member key of obj (at path), as name_of() spells it
 * (static) into *out. 0, or -1 after json_in_error() when it is missing,
 * not a string, or a name name_of() does not know (expected says which
 * it knows).
 */
static int get_name(const struct json_in *rd, const cJSON *obj, const char *path,
		    const char *key, const char *(*name_of)(const char *), const char *expected,
		    const char **out)
{
	char *s = NULL, *where, shown[SHOW_MAX];
	int ret = 0;

	if (json_get_string(rd, obj, path, key, JSON_REQUIRED, &s) < 0)
		return -1;
	if (!(*out = name_of(s))) {
		where = json_key_path(path, key);
		ret = json_in_error(rd, where, "'%s' is not %s", show_str(shown, sizeof(shown), s),
				    expected);
		free(where);
	}
	free(s);
	return ret;
}

/* The members of result.json that say what the evidence records of itself. */
static const char *const self_keys[] = { "status", "interrupt", "comparison", "tampered",
					 "unsealed", "run_as", NULL };

int evidence_self_parse(const char *name, const char *text, size_t len,
			struct evidence_self *out, char **err)
{
	struct json_in rd = { name, NULL, err };
	struct json_skim sk = JSON_SKIM_INIT(self_keys, NULL);
	cJSON *root = NULL;
	const cJSON *c;
	int ret = -1;

	*out = (struct evidence_self)EVIDENCE_SELF_INIT;
	*err = NULL;
	if (!(root = parse_json(name, text, len, &sk, err)))
		goto out;
	if (!cJSON_IsObject(root)) {
		json_in_error(&rd, "(top)", "expected an object");
		goto out;
	}
	if (get_name(&rd, root, "", "status", run_status_of, "a status abev records (running, "
		     "completed, failed, interrupted)", &out->status) < 0 ||
	    json_get_string(&rd, root, "", "interrupt", JSON_NULLABLE | JSON_NONEMPTY,
			    &out->interrupt) < 0)
		goto out;
	c = cJSON_GetObjectItemCaseSensitive(root, "comparison");
	if (c && !cJSON_IsNull(c) && !cJSON_IsObject(c)) {
		json_in_error(&rd, "comparison", "expected an object or null");
		goto out;
	}
	if (c && !cJSON_IsNull(c) &&
	    get_name(&rd, c, "comparison", "decision", decision_of, "a decision abev makes",
		     &out->decision) < 0)
		goto out;
	switch (json_get_strings(&rd, root, "", "tampered", 0, &out->tampered, &out->ntampered)) {
	case -1:
		goto out;
	case 1:
		out->tampered_known = 1;
		break;
	default:
		break;
	}
	if (json_get_strings(&rd, root, "", "unsealed", 0, &out->unsealed, &out->nunsealed) < 0)
		goto out;
	c = cJSON_GetObjectItemCaseSensitive(root, "run_as");
	if (c && !cJSON_IsNull(c) && !cJSON_IsObject(c)) {
		json_in_error(&rd, "run_as", "expected an object or null");
		goto out;
	}
	out->run_as_known = !!c;
	out->run_as = c && cJSON_IsObject(c);
	ret = 0;
out:
	cJSON_Delete(root);
	if (ret < 0)
		evidence_self_release(out);
	return ret;
}

int evidence_self_clean(const struct evidence_self *s)
{
	return !strcmp(s->status, invocation_run_status_name(RUN_COMPLETED)) && !s->ntampered &&
	       !s->nunsealed;
}

void evidence_self_release(struct evidence_self *s)
{
	if (!s)
		return;
	free(s->interrupt);
	strv_free(s->tampered);
	strv_free(s->unsealed);
	*s = (struct evidence_self)EVIDENCE_SELF_INIT;
}

int evidence_unsealed_parse(const char *name, const char *text, size_t len, char ***out,
			    size_t *n, char **err)
{
	static const char *const keys[] = { "unsealed", NULL };
	struct json_in rd = { name, NULL, err };
	struct json_skim sk = JSON_SKIM_INIT(keys, NULL);
	cJSON *root;
	int ret = 0;

	*out = NULL;
	*n = 0;
	*err = NULL;
	if (!(root = parse_json(name, text, len, &sk, err)))
		return 0;
	if (!cJSON_IsObject(root))
		json_in_error(&rd, "(top)", "expected an object");
	else
		ret = json_get_strings(&rd, root, "", "unsealed", 0, out, n);
	cJSON_Delete(root);
	return ret;
}

const char *evidence_unsealed_problem(const char *name)
{
	static const char runs[] = EVIDENCE_RUNS_DIR "/";
	const char *why = evname_problem(name);

	if (why)
		return why;
	if (strncmp(name, runs, sizeof(runs) - 1) || !name[sizeof(runs) - 1])
		return "not beneath " EVIDENCE_RUNS_DIR "/";
	return NULL;
}

void evidence_run_release(struct evidence_run *r)
{
	if (!r)
		return;
	free(r->dir);
	free(r->template_text);
	for (size_t i = 0; i < r->ninvs; i++)
		invocation_release(&r->invs[i]);
	free(r->invs);
	free(r->metric_defs);
	free(r->gate_defs);
	if (r->sequential) {
		free((void *)r->sequential->looks);
		free((void *)r->sequential->taken);
		free(r->sequential);
	}
	for (size_t i = 0; i < r->nstrings; i++)
		free(r->strings[i]);
	free(r->strings);
	cJSON_Delete((cJSON *)r->stored_comparison);
	memset(r, 0, sizeof(*r));
}

char *evidence_environment_shown(const char *name, const char *text, const char *hashed)
{
	unsigned char d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	const char *shown = hex;

	if (hashed) {
		shown = hashed;
	} else if (!envname_secret_var(name, text)) {
		return xstrdup(text);
	} else {
		sha256_buf(text, strlen(text), d);
		sha256_hex(d, hex);
	}
	return xasprintf("(secret, SHA-256 %.12s\xe2\x80\xa6)", shown);
}

/* A recorded variable's value (e) as the report shows it; NULL: neither text nor a hash. */
static char *shown_value(const cJSON *e)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(e, "sha256");

	if (cJSON_IsObject(e) && cJSON_IsString(h))
		return evidence_environment_shown(e->string, NULL, h->valuestring);
	if (!cJSON_IsString(e))
		return NULL;
	return evidence_environment_shown(e->string, e->valuestring, NULL);
}

void evidence_environment_runtime_add(struct env_runtime *rt, const char *name, char *shown)
{
	rt->known = 1;
	if (!envname_runtime(name)) {
		free(shown);
		return;
	}
	ALLOC_GROW(rt->keys, rt->n + 2, rt->keys_alloc);
	ALLOC_GROW(rt->values, rt->n + 2, rt->values_alloc);
	rt->keys[rt->n] = xstrdup(name);
	rt->values[rt->n++] = shown;
	rt->keys[rt->n] = rt->values[rt->n] = NULL;
}

/* The runtime variables of an "environment" object, when there is one. */
static int read_runtime(const struct json_in *rd, const cJSON *env, const char *path,
			struct env_runtime *rt)
{
	const cJSON *e;

	if (!env)
		return 0;
	if (!cJSON_IsObject(env))
		return json_in_error(rd, path, "'environment' is not an object");
	rt->known = 1;
	cJSON_ArrayForEach(e, env) {
		char *value;

		if (!e->string || !envname_runtime(e->string))
			continue;
		value = shown_value(e);
		if (!value)
			return json_in_error(rd, path, "environment '%s' is neither text nor a hash",
					     e->string);
		evidence_environment_runtime_add(rt, e->string, value);
	}
	return 0;
}

static void env_runtime_release(struct env_runtime *rt)
{
	for (size_t i = 0; i < rt->n; i++) {
		free(rt->keys[i]);
		free(rt->values[i]);
	}
	free(rt->keys);
	free(rt->values);
	memset(rt, 0, sizeof(*rt));
}

static const char *runtime_value(const struct env_runtime *rt, const char *key)
{
	for (size_t i = 0; i < rt->n; i++)
		if (!strcmp(rt->keys[i], key))
			return rt->values[i];
	return NULL;
}

/* One line per runtime variable that differs between a and b (each side's names). */
static size_t runtime_diff(const struct env_runtime *a, const char *la,
			   const struct env_runtime *b, const char *lb, const char *where,
			   struct strbuf *out)
{
	size_t lines = 0;

	if (!a->known || !b->known)
		return 0;
	for (int side = 0; side < 2; side++) {
		const struct env_runtime *x = side ? b : a, *y = side ? a : b;
		for (size_t i = 0; i < x->n; i++) {
			const char *vx = x->values[i], *vy = runtime_value(y, x->keys[i]);
			const char *va = side ? vy : vx, *vb = side ? vx : vy;
			if (vy && (side || !strcmp(vx, vy)))
				continue; /* the same, or a difference already said from a's side */
			strbuf_addf(out, "%s%s: ", where, x->keys[i]);
			if (va)
				strbuf_addf(out, "'%s' in %s, ", va, la);
			else
				strbuf_addf(out, "unset in %s, ", la);
			if (vb)
				strbuf_addf(out, "'%s' in %s\n", vb, lb);
			else
				strbuf_addf(out, "unset in %s\n", lb);
			lines++;
		}
	}
	return lines;
}

size_t evidence_environment_runtime_diff(const struct run_environment *a, const char *la,
					 const struct run_environment *b, const char *lb,
					 struct strbuf *out)
{
	size_t lines = runtime_diff(&a->runtime, la, &b->runtime, lb, "abev's environment, ", out);

	for (size_t i = 0; i < a->nvariants; i++)
		for (size_t k = 0; k < b->nvariants; k++) {
			char *where;
			if (strcmp(a->variants[i].name, b->variants[k].name))
				continue;
			where = xasprintf("variant '%s', ", a->variants[i].name);
			lines += runtime_diff(&a->variants[i].runtime, la, &b->variants[k].runtime,
					      lb, where, out);
			free(where);
		}
	return lines;
}

/* A variant's "parameters" (absent in evidence without a scan, and before abev wrote them). */
static int read_parameters(const struct json_in *rd, const cJSON *params, const char *path,
			   struct env_variant *v)
{
	const cJSON *e;

	if (!params)
		return 0;
	if (!cJSON_IsObject(params))
		return json_in_error(rd, path, "'parameters' is not an object");
	v->param_keys = xcalloc((size_t)cJSON_GetArraySize(params) + 1, sizeof(*v->param_keys));
	v->param_values = xcalloc((size_t)cJSON_GetArraySize(params) + 1, sizeof(*v->param_values));
	cJSON_ArrayForEach(e, params) {
		if (!cJSON_IsString(e))
			return json_in_error(rd, path, "parameter '%s' is not text", e->string);
		v->param_keys[v->nparams] = xstrdup(e->string);
		v->param_values[v->nparams++] = xstrdup(e->valuestring);
	}
	return 0;
}

static int read_env_variant(const struct json_in *rd, const cJSON *o, size_t i,
			    struct env_variant *v)
{
	const cJSON *git = cJSON_GetObjectItemCaseSensitive(o, "git"), *env = cJSON_GetObjectItemCaseSensitive(o, "env"), *vers = cJSON_GetObjectItemCaseSensitive(o, "versions");
	const cJSON *asms = cJSON_GetObjectItemCaseSensitive(o, "assemblies"), *e, *p, *f;
	char path[48];

	snprintf(path, sizeof(path), "variants[%zu]", i);
	if (json_get_string(rd, o, path, "name", JSON_REQUIRED, &v->name) < 0 ||
	    json_get_string(rd, o, path, "cwd", JSON_REQUIRED, &v->cwd) < 0 ||
	    read_runtime(rd, cJSON_GetObjectItemCaseSensitive(o, "environment"), path,
			 &v->runtime) < 0)
		return -1;
	if (cJSON_IsObject(git)) {
		v->git_known = 1;
		if (json_get_string(rd, git, path, "head", JSON_REQUIRED, &v->git_head) < 0 ||
		    json_get_bool(rd, git, path, "dirty", JSON_REQUIRED, &v->git_dirty) < 0)
			return -1;
	} else if (!cJSON_IsNull(git)) {
		return json_in_error(rd, path, "'git' is neither an object nor null");
	}
	if (!cJSON_IsObject(env) || !cJSON_IsObject(vers) || !cJSON_IsArray(asms))
		return json_in_error(rd, path, "'env', 'versions' or 'assemblies' is missing or mistyped");
	v->env_keys = xcalloc((size_t)cJSON_GetArraySize(env) + 1, sizeof(*v->env_keys));
	v->env_values = xcalloc((size_t)cJSON_GetArraySize(env) + 1, sizeof(*v->env_values));
	/* Text, or a hash since abev hashed secrets the plan or a variants file set. */
	cJSON_ArrayForEach(e, env) {
		char *value = shown_value(e);
		if (!value)
			return json_in_error(rd, path, "env '%s' is neither text nor a hash", e->string);
		v->env_keys[v->nenv] = xstrdup(e->string);
		v->env_values[v->nenv++] = value;
	}
	if (read_parameters(rd, cJSON_GetObjectItemCaseSensitive(o, "parameters"), path, v) < 0)
		return -1;
	v->versions = xcalloc((size_t)cJSON_GetArraySize(vers) + 1, sizeof(*v->versions));
	cJSON_ArrayForEach(e, vers) {
		struct env_version *ver = &v->versions[v->nversions++];
		int have;
		ver->name = xstrdup(e->string);
		ver->exit_code = -1;
		if (json_get_string(rd, e, path, "output", JSON_REQUIRED, &ver->output) < 0 ||
		    json_get_string(rd, e, path, "error", JSON_REQUIRED | JSON_NULLABLE, &ver->error) < 0 ||
		    (have = json_get_int(rd, e, path, "exit_code", JSON_REQUIRED | JSON_NULLABLE, 0, 255, &ver->exit_code)) < 0)
			return -1;
		if (!have)
			ver->exit_code = -1;
	}
	cJSON_ArrayForEach(p, asms) {
		const cJSON *files = cJSON_GetObjectItemCaseSensitive(p, "files");
		if (!cJSON_IsArray(files))
			return json_in_error(rd, path, "an assemblies entry has no 'files' array");
		cJSON_ArrayForEach(f, files) {
			struct env_file *ef;
			ALLOC_GROW(v->files, v->nfiles + 1, v->files_alloc);
			ef = &v->files[v->nfiles++];
			memset(ef, 0, sizeof(*ef));
			if (json_get_string(rd, f, path, "path", JSON_REQUIRED, &ef->path) < 0 ||
			    json_get_string(rd, f, path, "sha256", JSON_REQUIRED, &ef->sha256) < 0 ||
			    json_get_int(rd, f, path, "size", JSON_REQUIRED, 0, INT64_MAX, &ef->size) < 0)
				return -1;
		}
	}
	return 0;
}

/* The document root of metadata.json (named path) into *e. 0, or -1 with *err. */
static int parse_environment(const cJSON *root, const char *path, struct run_environment *e,
			     char **err)
{
	struct json_in rd = { path, NULL, err };
	const cJSON *host, *vars, *v;
	int ret = -1;

	host = cJSON_GetObjectItemCaseSensitive(root, "host");
	vars = cJSON_GetObjectItemCaseSensitive(root, "variants");
	if (!cJSON_IsObject(host) || !cJSON_IsArray(vars)) {
		*err = xasprintf("%s: not an abev.metadata/1 document (no host or variants)", path);
		goto out;
	}
	if (metadata_fields_read(&rd, root, &e->host) < 0)
		goto out;
	if (read_runtime(&rd, cJSON_GetObjectItemCaseSensitive(root, "environment"), "environment",
			 &e->runtime) < 0)
		goto out;
	e->variants = xcalloc((size_t)cJSON_GetArraySize(vars) + 1, sizeof(*e->variants));
	cJSON_ArrayForEach(v, vars) {
		if (read_env_variant(&rd, v, e->nvariants, &e->variants[e->nvariants]) < 0) {
			e->nvariants++;
			goto out;
		}
		e->nvariants++;
	}
	ret = 0;
out:
	return ret;
}

int evidence_read_environment(const char *dir, struct run_environment *e, char **err)
{
	char *path = path_join(dir, EVIDENCE_METADATA_FILE);
	cJSON *root;
	int ret = -1;

	memset(e, 0, sizeof(*e));
	metadata_fields_unset(&e->host);
	*err = NULL;
	root = load_json(dir, path, err);
	if (root)
		ret = parse_environment(root, path, e, err);
	cJSON_Delete(root);
	free(path);
	if (ret < 0)
		evidence_environment_release(e);
	return ret;
}

void evidence_environment_release(struct run_environment *e)
{
	if (!e)
		return;
	metadata_fields_release(&e->host);
	for (size_t i = 0; i < e->nvariants; i++) {
		struct env_variant *v = &e->variants[i];
		free(v->name);
		free(v->cwd);
		free(v->git_head);
		strv_free(v->env_keys);
		strv_free(v->env_values);
		strv_free(v->param_keys);
		strv_free(v->param_values);
		for (size_t k = 0; k < v->nversions; k++) {
			free(v->versions[k].name);
			free(v->versions[k].output);
			free(v->versions[k].error);
		}
		free(v->versions);
		for (size_t k = 0; k < v->nfiles; k++) {
			free(v->files[k].path);
			free(v->files[k].sha256);
		}
		free(v->files);
		env_runtime_release(&v->runtime);
	}
	free(e->variants);
	env_runtime_release(&e->runtime);
	memset(e, 0, sizeof(*e));
	metadata_fields_unset(&e->host);
}

/* Equal JSON values, numbers compared exactly (cJSON_Compare allows an epsilon). */
static int same_json(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if ((a->type & 0xff) != (b->type & 0xff))
		return 0;
	if (cJSON_IsNumber(a))
		return a->valuedouble == b->valuedouble;
	if (cJSON_IsString(a))
		return !strcmp(a->valuestring, b->valuestring);
	if (cJSON_IsArray(a) || cJSON_IsObject(a)) {
		for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
			if ((cJSON_IsObject(a) && strcmp(x->string, y->string)) || !same_json(x, y))
				return 0;
		return !x && !y;
	}
	return 1;
}

/*
 * Whether comparison c was written before reason codes: a sentence (which
 * holds a space; a code never does) as a gate's reason, or a string among
 * its warnings or blocking, or a missing entry with a "why".
 */
static int written_in_sentences(const cJSON *c)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(c, "gates")) {
		const cJSON *reason = cJSON_GetObjectItemCaseSensitive(x, "reason");
		if (cJSON_IsString(reason) && strchr(reason->valuestring, ' '))
			return 1;
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(c, "warnings"))
		if (cJSON_IsString(x))
			return 1;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(c, "blocking"))
		if (cJSON_IsString(x))
			return 1;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(c, "missing"))
		if (cJSON_GetObjectItemCaseSensitive(x, "why"))
			return 1;
	return 0;
}

/* The keys of a comparison that said why in sentences before reason codes. */
static const char *const reason_keys_top[] = { "warnings", "blocking", "missing" };
static const char *const reason_keys_gate[] = { "reason", "note", "n", "n_min" };
static const char *const reason_keys_interval[] = { "note", "not_positive_reference",
						     "not_positive" };

static void drop_keys(cJSON *o, const char *const *keys, size_t n)
{
	for (size_t i = 0; o && cJSON_IsObject(o) && i < n; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(o, keys[i]);
}

/* c without what reason codes changed, to hold evidence in sentences to the same figures. */
static void drop_reasons(cJSON *c)
{
	cJSON *x, *m;

	drop_keys(c, reason_keys_top, ARRAY_SIZE(reason_keys_top));
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(c, "gates"))
		drop_keys(x, reason_keys_gate, ARRAY_SIZE(reason_keys_gate));
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(c, "metrics"))
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(m, "variants"))
			drop_keys(cJSON_GetObjectItemCaseSensitive(x, "gate_interval"),
				  reason_keys_interval, ARRAY_SIZE(reason_keys_interval));
}

/*
 * The keys issue 39 added to a comparison: evidence written before them
 * is held to the figures it has (a gate's level shows in its intervals,
 * an interrupted run's lack of a decision in its decision).
 */
static const char *const levels_keys[] = { "gate_confidence", "gate_judgements", "no_decision" };
/* And those the joint gate interval added to a gate interval. */
static const char *const joint_keys[] = { "parts", "disjoint" };

/*
 * Evidence written before reason codes said why in sentences, which
 * abev no longer writes: its comparison is held to the one recomputed
 * on every figure but those, rather than reported as not following from
 * its invocations.
 */
int evidence_comparison_matches(const struct evidence_run *r, const char *doc)
{
	cJSON *j = cJSON_Parse(doc), *old = NULL;
	const cJSON *stored = r->stored_comparison;
	int same;

	if (j && stored && written_in_sentences(stored)) {
		old = cJSON_Duplicate(stored, 1);
		if (!old)
			die_oom();
		drop_reasons(old);
		drop_reasons(j);
		stored = old;
	}
	if (j && stored && !cJSON_GetObjectItemCaseSensitive(stored, levels_keys[0])) {
		if (!old) {
			old = cJSON_Duplicate(stored, 1);
			if (!old)
				die_oom();
			stored = old;
		}
		drop_keys(old, levels_keys, ARRAY_SIZE(levels_keys));
		drop_keys(j, levels_keys, ARRAY_SIZE(levels_keys));
	}
	if (j && stored && r->cfg.gi_paired_alone) {
		cJSON *m, *x;

		/* The keys the joint interval added; j's are null then. */
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "metrics"))
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(m, "variants"))
				drop_keys(cJSON_GetObjectItemCaseSensitive(x, "gate_interval"),
					  joint_keys, ARRAY_SIZE(joint_keys));
	}
	same = j && stored && same_json(stored, j);
	cJSON_Delete(old);
	cJSON_Delete(j);
	return same;
}
