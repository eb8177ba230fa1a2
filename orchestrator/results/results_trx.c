/*
 * results_trx: the VSTest TRX dialect of the results reader — which
 * elements of a TestRun are results, data-driven parents and captured
 * output, how an outcome and a duration read, and the cross-check of the
 * ResultSummary counters with what was counted. It reads through the
 * core's helpers (results_reader.h) and never touches libxml2; opening,
 * hostility and the element loop are results.c's and results_sax.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "results/results_reader.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/utf8.h"

/*
 * The class of each test definition, by testId: what names a result of
 * NUnit or MSTest, whose testName is the bare method. Two open-addressing
 * tables: ids (a 64-bit hash of the testId, to a class) and the classes
 * themselves, each kept once in a pool, since a class has many tests.
 * Bounded: past TRX_DEFS_MAX definitions or TRX_POOL_MAX bytes of class
 * names, the rest are dropped (noted) and their results keep testName.
 */
#define TRX_DEFS_MAX (1u << 20)
#define TRX_POOL_MAX (16u << 20)

struct trx_def {
	uint64_t id;     /* 0: empty slot */
	uint32_t cls;    /* offset in pool; NO_CLASS: a definition without one */
};
#define NO_CLASS UINT32_MAX

struct trx_classes {
	struct trx_def *defs;
	size_t ndefs, defs_cap;          /* cap: a power of two, or 0 */
	uint32_t *cls;                   /* pool offset + 1; 0: empty */
	size_t ncls, cls_cap;
	struct strbuf pool;              /* NUL-terminated class names */
	struct strbuf cur_id;            /* the definition being read: its id, */
	struct strbuf cur_class;         /* its TestMethod's className */
	int has_method;
	int64_t dropped;
};

static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull;   /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h ? h : 1;
}

static struct trx_classes *classes_get(struct parser *p)
{
	if (!p->classes) {
		p->classes = xcalloc(1, sizeof(*p->classes));
		strbuf_init(&p->classes->pool);
		strbuf_init(&p->classes->cur_id);
		strbuf_init(&p->classes->cur_class);
	}
	return p->classes;
}

void results_trx_classes_free(struct trx_classes *c)
{
	if (!c)
		return;
	free(c->defs);
	free(c->cls);
	strbuf_release(&c->pool);
	strbuf_release(&c->cur_id);
	strbuf_release(&c->cur_class);
	free(c);
}

static const struct trx_def *def_slot(const struct trx_classes *c, uint64_t id)
{
	size_t mask = c->defs_cap - 1, i = (size_t)id & mask;
	while (c->defs[i].id && c->defs[i].id != id)
		i = (i + 1) & mask;
	return &c->defs[i];
}

static void defs_grow(struct trx_classes *c)
{
	struct trx_def *old = c->defs;
	size_t n = c->defs_cap;
	c->defs_cap = n ? 2 * n : 64;
	c->defs = xcalloc(c->defs_cap, sizeof(*c->defs));
	for (size_t i = 0; i < n; i++)
		if (old[i].id)
			*(struct trx_def *)def_slot(c, old[i].id) = old[i];
	free(old);
}

static size_t cls_slot(const struct trx_classes *c, const char *name, size_t len)
{
	size_t mask = c->cls_cap - 1, i = (size_t)hash_str(name, len) & mask;
	while (c->cls[i]) {
		const char *have = c->pool.buf + c->cls[i] - 1;
		if (strlen(have) == len && !memcmp(have, name, len))
			break;
		i = (i + 1) & mask;
	}
	return i;
}

static void cls_grow(struct trx_classes *c)
{
	uint32_t *old = c->cls;
	size_t n = c->cls_cap;
	c->cls_cap = n ? 2 * n : 64;
	c->cls = xcalloc(c->cls_cap, sizeof(*c->cls));
	for (size_t i = 0; i < n; i++)
		if (old[i]) {
			const char *name = c->pool.buf + old[i] - 1;
			c->cls[cls_slot(c, name, strlen(name))] = old[i];
		}
	free(old);
}

/* The class a TestMethod's className names, in c->cur_class. */
static void class_read(struct parser *p, struct trx_classes *c, const char *class)
{
	size_t len = 0;
	int depth = 0;

	/*
	 * "Ns.Class, Assembly, Version=...": the part from the first comma
	 * outside brackets (a generic's arguments) on is the assembly's.
	 */
	for (; class[len] && !(class[len] == ',' && depth == 0); len++)
		depth += class[len] == '[' ? 1 : class[len] == ']' ? -(depth > 0) : 0;
	while (len && class[len - 1] == ' ')
		len--;
	strbuf_reset(&c->cur_class);
	strbuf_add(&c->cur_class, class, utf8_cut(class, len, p->lim.max_name));
}

/* Records the definition just read: its id and its class, if any. */
static void classes_add(struct trx_classes *c)
{
	const char *class = c->cur_class.buf;
	size_t len = c->cur_class.len, slot;
	uint64_t id;
	uint32_t off = NO_CLASS;

	if (!c->cur_id.len)
		return;
	id = hash_str(c->cur_id.buf, c->cur_id.len);
	if (c->defs_cap && def_slot(c, id)->id)
		return;   /* the first definition of an id wins */
	if (c->ndefs >= TRX_DEFS_MAX) {
		c->dropped++;
		return;
	}
	if (2 * (c->ncls + 1) > c->cls_cap)
		cls_grow(c);
	slot = cls_slot(c, class, len);
	if (!len) {
		/* defined, without a class (xunit.v3's cleanup failures) */
	} else if (!c->cls[slot]) {
		if (c->pool.len + len + 1 > TRX_POOL_MAX) {
			c->dropped++;
			return;
		}
		c->cls[slot] = (uint32_t)c->pool.len + 1;
		strbuf_add(&c->pool, class, len);
		strbuf_add(&c->pool, "", 1);
		c->ncls++;
	}
	if (len)
		off = c->cls[slot] - 1;
	if (2 * (c->ndefs + 1) > c->defs_cap)
		defs_grow(c);
	*(struct trx_def *)def_slot(c, id) = (struct trx_def){ id, off };
	c->ndefs++;
}

/*
 * The class of the definition testId names: 1 and *class (NULL when the
 * definition gives none), or 0 when no definition has that id.
 */
static int classes_find(const struct trx_classes *c, const char *test_id, const char **class)
{
	const struct trx_def *d;
	*class = NULL;
	if (!c || !c->ndefs || !test_id)
		return 0;
	d = def_slot(c, hash_str(test_id, strlen(test_id)));
	if (!d->id)
		return 0;
	if (d->cls != NO_CLASS)
		*class = c->pool.buf + d->cls;
	return 1;
}

static void trx_def_start(struct parser *p, enum role role)
{
	struct trx_classes *c;
	char *v;
	if (p->classes_done)
		return;   /* read before, whole */
	c = classes_get(p);
	if (role == R_TRX_DEF) {
		v = results_attr(p, "id");
		strbuf_reset(&c->cur_id);
		strbuf_reset(&c->cur_class);
		if (v)
			strbuf_add(&c->cur_id, v, utf8_cut(v, strlen(v), FIELD_MAX));
		c->has_method = 0;
		free(v);
	} else if (!c->has_method) {
		c->has_method = 1;
		v = results_attr(p, "className");
		if (v)
			class_read(p, c, v);
		free(v);
	}
}

/* Up to 9 digits at *s; advances *s. -1 when there is none. */
static int read_digits(const char **s, long long *v)
{
	int digits = 0;
	*v = 0;
	while (**s >= '0' && **s <= '9' && digits < 9) {
		*v = *v * 10 + (**s - '0');
		(*s)++;
		digits++;
	}
	return digits ? 0 : -1;
}

/* "[d.]hh:mm:ss[.fffffff]" */
static int parse_trx_duration(const char *s, double *out)
{
	long long days = 0, h, m, sec;
	double frac = 0, scale = 0.1;
	if (read_digits(&s, &h) < 0)
		return -1;
	if (*s == '.') {
		s++;
		days = h;
		if (read_digits(&s, &h) < 0)
			return -1;
	}
	if (*s++ != ':' || read_digits(&s, &m) < 0 || *s++ != ':' || read_digits(&s, &sec) < 0)
		return -1;
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9'))
			return -1;
		for (; *s >= '0' && *s <= '9'; s++, scale /= 10)
			frac += (*s - '0') * scale;
	}
	if (*s || m > 59 || sec > 59)
		return -1;
	*out = (double)days * 86400 + (double)h * 3600 + (double)m * 60 + (double)sec + frac;
	return 0;
}


static const struct {
	const char *name;
	enum test_outcome outcome;
	int executed;
} trx_outcomes[] = {
	{ "Passed", OUTCOME_PASSED, 1 },
	{ "Failed", OUTCOME_FAILED, 1 },
	{ "Error", OUTCOME_ERROR, 1 },
	{ "Timeout", OUTCOME_ERROR, 1 },
	{ "Aborted", OUTCOME_ERROR, 1 },
	{ "NotExecuted", OUTCOME_SKIPPED, 0 },
	{ "NotRunnable", OUTCOME_SKIPPED, 0 },
	{ "Pending", OUTCOME_SKIPPED, 0 },
	{ "InProgress", OUTCOME_SKIPPED, 0 },
	{ "Inconclusive", OUTCOME_OTHER, 1 },
	{ "Warning", OUTCOME_OTHER, 1 },
	{ "PassedButRunAborted", OUTCOME_OTHER, 1 },
	{ "Disconnected", OUTCOME_OTHER, 1 },
	{ "Completed", OUTCOME_OTHER, 1 },
};

static void trx_result_start(struct parser *p)
{
	static const char *const want[] = { "testName", "outcome", "duration", "testId" };
	struct attr_vals a;
	struct test_frame *t;
	const char *name, *outcome, *duration, *class;
	if (p->ntests > 0)
		p->tests[p->ntests - 1].children++;
	t = &p->tests[p->ntests++];
	results_frame_reset(t);
	results_attrs_get(p, want, ARRAY_SIZE(want), &a);
	name = a.v[0];
	outcome = a.v[1];
	duration = a.v[2];
	if (!classes_find(p->classes, a.v[3], &class))
		p->unqualified++;
	results_frame_set_name(p, t, class, name);
	if (outcome)
		results_frame_set_raw(t, outcome);
	if (duration && parse_trx_duration(duration, &t->duration) < 0) {
		t->duration = -1;
		p->bad_duration++;
	}
}

static void trx_result_end(struct parser *p)
{
	struct test_frame *t = &p->tests[--p->ntests];
	const char *parent = p->ntests > 0 ? p->tests[p->ntests - 1].name.buf : NULL;
	enum test_outcome o = OUTCOME_OTHER;
	int executed = 1;
	if (t->children > 0) {
		p->parents++;
		return;
	}
	if (!t->raw) {
		/* The TRX outcome enum defaults to Error and the serializer omits defaults. */
		o = OUTCOME_ERROR;
		executed = 0;
		p->missing_outcome++;
	} else {
		size_t i;
		for (i = 0; i < ARRAY_SIZE(trx_outcomes); i++)
			if (!strcasecmp(t->raw, trx_outcomes[i].name))
				break;
		if (i < ARRAY_SIZE(trx_outcomes)) {
			o = trx_outcomes[i].outcome;
			executed = trx_outcomes[i].executed;
		} else if (!p->unknown_outcome++) {
			results_clean_line(p->first_unknown, sizeof(p->first_unknown), t->raw);
		}
	}
	results_emit(p, t, parent, o, executed);
}

static void trx_counters(struct parser *p)
{
	struct results_counts *d = &p->out->declared;
	int64_t err[3], skip[4];
	const char *e = "Counters";
	p->counters_seen = 1;
	p->out->has_declared = 1;
	d->total = results_count_attr(p, e, "total");
	d->executed = results_count_attr(p, e, "executed");
	d->passed = results_count_attr(p, e, "passed");
	d->failed = results_count_attr(p, e, "failed");
	err[0] = results_count_attr(p, e, "error");
	err[1] = results_count_attr(p, e, "timeout");
	err[2] = results_count_attr(p, e, "aborted");
	skip[0] = results_count_attr(p, e, "notExecuted");
	skip[1] = results_count_attr(p, e, "notRunnable");
	skip[2] = results_count_attr(p, e, "pending");
	skip[3] = results_count_attr(p, e, "inProgress");
	d->errors = results_sum_present(err, ARRAY_SIZE(err));
	d->skipped = results_sum_present(skip, ARRAY_SIZE(skip));
	d->other = -1;
	if (d->total >= 0 && d->passed >= 0 && d->failed >= 0 && d->errors >= 0 && d->skipped >= 0) {
		int64_t rest = d->total - d->passed - d->failed - d->errors - d->skipped;
		d->other = rest >= 0 ? rest : -1;
	}
}

static enum role trx_classify(enum role parent, const char *name)
{
	switch (parent) {
	case R_TRX_ROOT:
		if (!strcmp(name, "Results"))
			return R_TRX_RESULTS;
		if (!strcmp(name, "ResultSummary"))
			return R_TRX_SUMMARY;
		if (!strcmp(name, "Times"))
			return R_TRX_TIMES;
		if (!strcmp(name, "TestDefinitions"))
			return R_TRX_DEFS;
		break;
	case R_TRX_DEFS:
		return R_TRX_DEF;   /* UnitTest, or another test type with a TestMethod */
	case R_TRX_DEF:
		if (!strcmp(name, "TestMethod"))
			return R_TRX_METHOD;
		break;
	case R_TRX_RESULTS:
	case R_TRX_INNER:
		if (!strcmp(name, "UnitTestResult") || !strcmp(name, "TestResultAggregation"))
			return R_TRX_RESULT;
		break;
	case R_TRX_RESULT:
		if (!strcmp(name, "InnerResults"))
			return R_TRX_INNER;
		if (!strcmp(name, "Output"))
			return R_TRX_OUTPUT;
		break;
	case R_TRX_OUTPUT:
		if (!strcmp(name, "StdOut"))
			return R_TRX_STDOUT;
		if (!strcmp(name, "ErrorInfo"))
			return R_TRX_ERRINFO;
		break;
	case R_TRX_ERRINFO:
		if (!strcmp(name, "Message"))
			return R_TRX_MESSAGE;
		break;
	case R_TRX_SUMMARY:
		if (!strcmp(name, "Counters"))
			return R_TRX_COUNTERS;
		if (!strcmp(name, "RunInfos"))
			return R_TRX_RUNINFOS;
		break;
	case R_TRX_RUNINFOS:
		if (!strcmp(name, "RunInfo"))
			return R_TRX_RUNINFO;
		break;
	case R_TRX_RUNINFO:
		if (!strcmp(name, "Text"))
			return R_TRX_RUNINFO_TEXT;
		break;
	default:
		break;
	}
	return R_OTHER;
}

static void trx_start(struct parser *p, enum role parent, enum role role, const char *name)
{
	if (role == R_TRX_DEF || role == R_TRX_METHOD) {
		trx_def_start(p, role);
		return;
	}
	if (p->prepass)
		return;
	switch (role) {
	case R_TRX_RESULT:
		trx_result_start(p);
		break;
	case R_TRX_SUMMARY:
		if (!p->summary_seen) {
			p->summary_seen = 1;
			p->out->outcome = results_attr_field(p, "outcome");
		}
		break;
	case R_TRX_COUNTERS:
		if (!p->counters_seen)
			trx_counters(p);
		break;
	case R_TRX_RUNINFO_TEXT:
		strbuf_reset(&p->run_info);
		break;
	case R_TRX_TIMES:
		if (!p->times_seen) {
			p->times_seen = 1;
			p->out->start = results_attr_field(p, "start");
			p->out->finish = results_attr_field(p, "finish");
		}
		break;
	case R_OTHER:
		if ((parent == R_TRX_RESULTS || parent == R_TRX_INNER) && !p->stray++)
			results_clean_line(p->first_stray, sizeof(p->first_stray), name);
		break;
	default:
		break;
	}
}

/*
 * A RunInfo's text read: its first line is kept when it is the first to
 * say why the run stopped (vstest: "The active test run was aborted.
 * Reason: Test host process crashed : ..."), or the first with text.
 */
static void trx_run_info_end(struct parser *p)
{
	char line[sizeof(p->run_info_line)];
	int says;

	if (p->run_info_says_aborted)
		return;
	results_first_line(line, &p->run_info);
	says = strcasestr(line, "aborted") || strcasestr(line, "crashed");
	if (says || !p->run_info_line[0]) {
		memcpy(p->run_info_line, line, sizeof(line));
		p->run_info_says_aborted = says;
	}
}

/*
 * Whether the run was aborted (a crashed test host, most often): the
 * summary's outcome says Aborted, or a RunInfo says so under an outcome
 * other than Completed (vstest writes Failed). The results written before
 * are there; what dotnet said is kept for the reason and noted.
 */
static void trx_aborted(struct parser *p)
{
	const char *o = p->out->outcome;
	int aborted = (o && !strcasecmp(o, "Aborted")) ||
		      (p->run_info_says_aborted && !(o && !strcasecmp(o, "Completed")));

	if (!aborted)
		return;
	if (p->run_info_line[0]) {
		p->out->aborted = xstrdup(p->run_info_line);
		results_note(p, "test run aborted: %s", p->run_info_line);
	} else {
		p->out->aborted = xstrdup("ResultSummary outcome 'Aborted'");
		results_note(p, "test run aborted (ResultSummary outcome 'Aborted', no "
			     "RunInfo text)");
	}
}

static void trx_finish(struct parser *p)
{
	const struct results_counts *c = &p->out->counts, *d = &p->out->declared;
	if (p->out->has_declared) {
		if (d->total >= 0 && d->total != c->total)
			results_note(p, "declared total=%lld but %lld leaf results were counted%s",
				 (long long)d->total, (long long)c->total,
				 p->parents ? " (data-driven parents are not counted)" : "");
		if (d->executed >= 0 && d->executed != c->executed)
			results_note(p, "declared executed=%lld but %lld were counted",
				 (long long)d->executed, (long long)c->executed);
		if (d->passed >= 0 && d->passed != c->passed)
			results_note(p, "declared passed=%lld but %lld were counted",
				 (long long)d->passed, (long long)c->passed);
		if (d->failed >= 0 && d->failed != c->failed)
			results_note(p, "declared failed=%lld but %lld were counted",
				 (long long)d->failed, (long long)c->failed);
	}
	trx_aborted(p);
	if (p->missing_outcome)
		results_note(p, "%lld results without an outcome counted as errors (the TRX default)",
			 (long long)p->missing_outcome);
	if (p->unknown_outcome)
		results_note(p, "%lld results with an unknown outcome (first '%s') counted as other",
			 (long long)p->unknown_outcome, p->first_unknown);
	if (p->stray)
		results_note(p, "%lld elements among the results were not counted (first '%s')",
			 (long long)p->stray, p->first_stray);
	if (p->bad_duration)
		results_note(p, "%lld results with an unreadable duration", (long long)p->bad_duration);
	if (p->classes && p->classes->dropped)
		results_note(p, "%lld test definitions over the limit were not read",
			     (long long)p->classes->dropped);
	if (p->unqualified && p->classes && p->classes->ndefs)
		results_note(p, "%lld results have no test definition of their class%s: named "
			     "by testName alone", (long long)p->unqualified,
			     p->classes_done ? "" : " before them (a FIFO is read once)");
}


static enum role trx_root(struct parser *p, const char *name)
{
	(void)p;
	return !strcmp(name, "TestRun") ? R_TRX_ROOT : R_OTHER;
}

static void trx_end(struct parser *p, enum role role)
{
	/* The definitions are all read: the first read has what it reads for. */
	if (role == R_TRX_DEF && !p->classes_done)
		classes_add(classes_get(p));
	if (p->prepass && role == R_TRX_DEFS)
		results_refuse(p, 0, PREPASS_DONE);
	else if (role == R_TRX_RESULT && !p->prepass)
		trx_result_end(p);
	else if (role == R_TRX_RUNINFO_TEXT && !p->prepass)
		trx_run_info_end(p);
}

const struct results_dialect results_trx_dialect = {
	.format = RESULTS_TRX,
	.root = trx_root,
	.classify = trx_classify,
	.start = trx_start,
	.end = trx_end,
	.finish = trx_finish,
	.definitions = 1,
};
