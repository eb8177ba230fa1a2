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
#include "util/compiler.h"

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
	static const char *const want[] = { "testName", "outcome", "duration" };
	struct attr_vals a;
	struct test_frame *t;
	const char *name, *outcome, *duration;
	if (p->ntests > 0)
		p->tests[p->ntests - 1].children++;
	t = &p->tests[p->ntests++];
	results_frame_reset(t);
	results_attrs_get(p, want, ARRAY_SIZE(want), &a);
	name = a.v[0];
	outcome = a.v[1];
	duration = a.v[2];
	results_frame_set_name(p, t, NULL, name);
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
		break;
	case R_TRX_SUMMARY:
		if (!strcmp(name, "Counters"))
			return R_TRX_COUNTERS;
		break;
	default:
		break;
	}
	return R_OTHER;
}

static void trx_start(struct parser *p, enum role parent, enum role role, const char *name)
{
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
}


static enum role trx_root(struct parser *p, const char *name)
{
	(void)p;
	return !strcmp(name, "TestRun") ? R_TRX_ROOT : R_OTHER;
}

static void trx_end(struct parser *p, enum role role)
{
	if (role == R_TRX_RESULT)
		trx_result_end(p);
}

const struct results_dialect results_trx_dialect = {
	.format = RESULTS_TRX,
	.root = trx_root,
	.classify = trx_classify,
	.start = trx_start,
	.end = trx_end,
	.finish = trx_finish,
};
