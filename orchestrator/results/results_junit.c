/*
 * results_junit: the JUnit XML dialect of the results reader, in its
 * common producers' forms (Surefire, jest, pytest, Go's, ...) — suites
 * and their declared counts, test cases and their failure, error and
 * skipped children, status attributes, times, and the cross-check of each
 * suite's counts as it closes. It reads through the core's helpers
 * (results_reader.h) and never touches libxml2; opening, hostility and
 * the element loop are results.c's and results_sax.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "results/results_reader.h"
#include "util/compiler.h"
#include "util/number.h"
#include "util/strbuf.h"
#include "util/utf8.h"

/*
 * Seconds, possibly with thousands separators as Maven Surefire writes them
 * ("1,234.5"). A comma anywhere else (a decimal comma) is refused rather
 * than guessed at.
 */
static int parse_seconds(const char *s, double *out)
{
	char buf[64];
	size_t j = 0, group = 0;
	int commas = 0;
	const char *c = s;
	if (strchr(s, ',')) {
		for (; *c && *c != '.'; c++) {
			if (j + 1 >= sizeof(buf))
				return -1;
			if (*c == ',') {
				if (group == 0 || (commas ? group != 3 : group > 3))
					return -1;
				commas++;
				group = 0;
			} else if (*c >= '0' && *c <= '9') {
				buf[j++] = *c;
				group++;
			} else {
				return -1;
			}
		}
		if (group != 3)
			return -1;
		for (; *c; c++) {
			if (j + 1 >= sizeof(buf) || *c == ',')
				return -1;
			buf[j++] = *c;
		}
		buf[j] = '\0';
		s = buf;
	}
	if (parse_double(s, out) < 0 || *out < 0)
		return -1;
	return 0;
}


static void junit_read_counts(struct parser *p, const char *elem, int64_t decl[JU_N])
{
	int64_t skip[2];
	decl[JU_TESTS] = results_count_attr(p, elem, "tests");
	decl[JU_FAILURES] = results_count_attr(p, elem, "failures");
	decl[JU_ERRORS] = results_count_attr(p, elem, "errors");
	skip[0] = results_count_attr(p, elem, "skipped");
	skip[1] = results_count_attr(p, elem, "disabled");
	decl[JU_SKIPPED] = results_sum_present(skip, ARRAY_SIZE(skip));
}

static void junit_timestamp(struct parser *p)
{
	if (!p->start_seen) {
		p->out->start = results_attr_field(p, "timestamp");
		p->start_seen = p->out->start != NULL;
	}
}

static void junit_suite_start(struct parser *p)
{
	struct suite_frame *s = &p->suites[p->nsuites++];
	char *name = results_attr(p, "name");
	strbuf_reset(&s->name);
	if (name)
		strbuf_add(&s->name, name, utf8_cut(name, strlen(name), LABEL_MAX));
	free(name);
	junit_read_counts(p, "testsuite", s->decl);
	for (int i = 0; i < JU_N; i++)
		s->got[i] = 0;
	junit_timestamp(p);
}

static void junit_suite_end(struct parser *p)
{
	static const char *const label[JU_N] = { "tests", "failures", "errors", "skipped" };
	struct suite_frame *s = &p->suites[--p->nsuites];
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < JU_N; i++) {
		if (s->decl[i] < 0 || s->decl[i] == s->got[i])
			continue;
		strbuf_addf(&sb, "%s%s=%lld but %lld counted", sb.len ? ", " : "", label[i],
			    (long long)s->decl[i], (long long)s->got[i]);
	}
	if (sb.len)
		results_note(p, "suite '%s' declares %s", s->name.len ? s->name.buf : "(unnamed)", sb.buf);
	strbuf_release(&sb);
	for (int i = 0; i < JU_N; i++) {
		if (p->nsuites > 0)
			p->suites[p->nsuites - 1].got[i] += s->got[i];
		else if (s->decl[i] >= 0)
			p->top_decl[i] = (p->top_decl[i] < 0 ? 0 : p->top_decl[i]) + s->decl[i];
	}
}

static void junit_case_start(struct parser *p)
{
	static const char *const want[] = { "classname", "name", "time", "status", "result" };
	struct test_frame *t = &p->tests[p->ntests++];
	struct attr_vals a;
	const char *classname, *name, *time, *status, *result;
	results_attrs_get(p, want, ARRAY_SIZE(want), &a);
	classname = a.v[0];
	name = a.v[1];
	time = a.v[2];
	status = a.v[3];
	result = a.v[4];
	results_frame_reset(t);
	results_frame_set_name(p, t, classname && *classname ? classname : NULL, name);
	if (time && parse_seconds(time, &t->duration) < 0) {
		t->duration = -1;
		p->bad_duration++;
	}
	/* GoogleTest: status="run|notrun" result="completed|skipped|suppressed"; ctest: status="run|fail|disabled|notrun" */
	if (status && (!strcasecmp(status, "disabled") || !strcasecmp(status, "notrun") ||
		       !strcasecmp(status, "skipped") || !strcasecmp(status, "skip"))) {
		t->attr_outcome = OUTCOME_SKIPPED;
		results_frame_set_raw(t, status);
	} else if (result && (!strcasecmp(result, "skipped") || !strcasecmp(result, "suppressed"))) {
		t->attr_outcome = OUTCOME_SKIPPED;
		results_frame_set_raw(t, result);
	} else if (status && (!strcasecmp(status, "failed") || !strcasecmp(status, "fail") ||
			      !strcasecmp(status, "failure"))) {
		t->attr_outcome = OUTCOME_FAILED;
		results_frame_set_raw(t, status);
	} else if (status && !strcasecmp(status, "error")) {
		t->attr_outcome = OUTCOME_ERROR;
		results_frame_set_raw(t, status);
	} else if (status) {
		results_frame_set_raw(t, status);
	}
}

static void junit_case_end(struct parser *p)
{
	struct test_frame *t = &p->tests[--p->ntests];
	enum test_outcome o = t->attr_outcome;
	int slot;
	if (t->has_error) {
		o = OUTCOME_ERROR;
		t->raw = "error";
	} else if (t->has_failure) {
		o = OUTCOME_FAILED;
		t->raw = "failure";
	} else if (t->has_skipped) {
		o = OUTCOME_SKIPPED;
		t->raw = "skipped";
	}
	if (p->nsuites > 0) {
		struct suite_frame *s = &p->suites[p->nsuites - 1];
		slot = o == OUTCOME_FAILED ? JU_FAILURES : o == OUTCOME_ERROR ? JU_ERRORS :
		       o == OUTCOME_SKIPPED ? JU_SKIPPED : -1;
		s->got[JU_TESTS]++;
		if (slot >= 0)
			s->got[slot]++;
	}
	results_emit(p, t, NULL, o, o != OUTCOME_SKIPPED);
}

static enum role junit_classify(enum role parent, const char *name)
{
	switch (parent) {
	case R_JU_SUITES:
	case R_JU_SUITE:
		if (!strcmp(name, "testsuite"))
			return R_JU_SUITE;
		if (!strcmp(name, "testsuites"))
			return R_JU_SUITES;
		if (!strcmp(name, "testcase"))
			return R_JU_CASE;
		break;
	case R_JU_CASE:
		if (!strcmp(name, "failure"))
			return R_JU_FAILURE;
		if (!strcmp(name, "error"))
			return R_JU_ERROR;
		if (!strcmp(name, "skipped"))
			return R_JU_SKIPPED;
		if (!strcmp(name, "system-out"))
			return R_JU_SYSOUT;
		break;
	default:
		break;
	}
	return R_OTHER;
}

/*
 * A failure's or error's message attribute, the first one's: the text
 * inside is then not wanted. Without one the text is the message.
 */
static void junit_message(struct parser *p, struct test_frame *t)
{
	char *v;
	if (t->msg_set || t->msg.len)
		return;
	v = results_attr(p, "message");
	if (v && *v) {
		results_capture_message(t, v, strlen(v));
		t->msg_set = 1;
	}
	free(v);
}

static void junit_start(struct parser *p, enum role parent, enum role role, const char *name)
{
	(void)parent;
	(void)name;
	struct test_frame *t = p->ntests ? &p->tests[p->ntests - 1] : NULL;
	switch (role) {
	case R_JU_SUITES:
		junit_timestamp(p);
		break;
	case R_JU_SUITE:
		junit_suite_start(p);
		break;
	case R_JU_CASE:
		junit_case_start(p);
		break;
	case R_JU_FAILURE:
	case R_JU_ERROR:
		if (role == R_JU_FAILURE)
			t->has_failure = 1;
		else
			t->has_error = 1;
		junit_message(p, t);
		break;
	case R_JU_SKIPPED:
		t->has_skipped = 1;
		break;
	default:
		break;
	}
}

static void junit_finish(struct parser *p)
{
	static const char *const label[JU_N] = { "tests", "failures", "errors", "skipped" };
	struct results_counts *d = &p->out->declared;
	const struct results_counts *c = &p->out->counts;
	int64_t got[JU_N] = { c->total, c->failed, c->errors, c->skipped };
	int64_t decl[JU_N];
	for (int i = 0; i < JU_N; i++) {
		decl[i] = p->root_decl[i] >= 0 ? p->root_decl[i] : p->top_decl[i];
		if (decl[i] >= 0)
			p->out->has_declared = 1;
		/* Suites check their own counts as they close; the root testsuites element is checked here. */
		if (p->root_decl[i] >= 0 && p->root_decl[i] != got[i])
			results_note(p, "testsuites declares %s=%lld but %lld %s counted", label[i],
				 (long long)p->root_decl[i], (long long)got[i],
				 i == JU_TESTS ? "test cases were" : "were");
	}
	d->total = decl[JU_TESTS];
	d->failed = decl[JU_FAILURES];
	d->errors = decl[JU_ERRORS];
	d->skipped = decl[JU_SKIPPED];
	d->executed = d->passed = d->other = -1;
	if (p->bad_duration)
		results_note(p, "%lld test cases with an unreadable time", (long long)p->bad_duration);
}


static enum role junit_root(struct parser *p, const char *name)
{
	if (!strcmp(name, "testsuites")) {
		junit_read_counts(p, "testsuites", p->root_decl);
		return R_JU_SUITES;
	}
	return !strcmp(name, "testsuite") ? R_JU_SUITE : R_OTHER;
}

static void junit_end(struct parser *p, enum role role)
{
	if (role == R_JU_SUITE)
		junit_suite_end(p);
	else if (role == R_JU_CASE)
		junit_case_end(p);
}

const struct results_dialect results_junit_dialect = {
	.format = RESULTS_JUNIT,
	.root = junit_root,
	.classify = junit_classify,
	.start = junit_start,
	.end = junit_end,
	.finish = junit_finish,
};
