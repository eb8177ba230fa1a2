/*
 * export: each format is one function over the same inputs. Times in the
 * hyperfine shape are seconds, as hyperfine writes them; CSV quotes every
 * text field (RFC 4180) and writes a control, bidirectional or invisible
 * character as U+FFFD; JUnit escapes for XML attributes and text with
 * strbuf_add_xml(); JSON is json_print()'s, \u-escaping the same set.
 */
#include "report/export.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_out.h"
#include "util/compiler.h"
#include "util/number.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/utf8.h"

int export_format_parse(const char *name, enum export_format *out)
{
	static const char *const names[] = { "hyperfine", "csv", "junit", "json" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum export_format)i;
			return 0;
		}
	return -1;
}

static const struct invocation *by_seq(const struct evidence_run *r, unsigned seq)
{
	for (size_t i = 0; i < r->ninvs; i++)
		if (r->invs[i].seq == seq)
			return &r->invs[i];
	return NULL;
}

/* Seconds from the comparison's ms. */
static cJSON *seconds(double ms)
{
	return jreal(ms / 1e3);
}

/*
 * hyperfine's results[]: one entry per variant with the counted runs'
 * wall times (the comparison's "wall" sample), their user and system
 * means, and their exit codes.
 */
static char *render_hyperfine(const struct evidence_run *r, const struct comparison *c)
{
	cJSON *o = jnew_object(), *results = jnew_array();
	const struct cmp_metric *wall = &c->metrics[0];
	char *text;

	for (size_t v = 0; v < wall->nsamples; v++) {
		const struct cmp_sample *s = &wall->samples[v];
		cJSON *e = jnew_object(), *times = jnew_array(), *codes = jnew_array();
		double user = 0, sys = 0;

		for (size_t i = 0; i < s->n; i++) {
			const struct invocation *inv = by_seq(r, s->values[i].seq);
			jpush(times, seconds(s->values[i].value));
			jpush(codes, cJSON_CreateNumber(inv ? inv->exit_code : 0));
			if (inv) {
				user += (double)inv->fig.user_ns / 1e9;
				sys += (double)inv->fig.sys_ns / 1e9;
			}
		}
		jadd_str(e, "command", s->variant);
		jadd(e, "mean", s->n ? seconds(s->mean) : jnull());
		jadd(e, "stddev", s->n > 1 ? seconds(s->sd) : jnull());
		jadd(e, "median", s->n ? seconds(s->median) : jnull());
		jadd(e, "user", s->n ? jreal(user / (double)s->n) : jnull());
		jadd(e, "system", s->n ? jreal(sys / (double)s->n) : jnull());
		jadd(e, "min", s->n ? seconds(s->min) : jnull());
		jadd(e, "max", s->n ? seconds(s->max) : jnull());
		jadd(e, "times", times);
		jadd(e, "exit_codes", codes);
		jpush(results, e);
	}
	jadd(o, "results", results);
	text = json_print(o);
	cJSON_Delete(o);
	return text;
}

/*
 * A quoted text field. A name from evidence on disk may hold what a plan
 * now refuses: a control character, a code point unicode_hidden() names
 * or a byte that is not UTF-8 becomes U+FFFD, so that neither a terminal
 * nor a spreadsheet acts on it, and every other name (backslashes
 * included) reads back exactly. A spreadsheet takes a cell that starts
 * with one of CSV_FORMULA_LEAD as a formula, quotes or not (a metric
 * named "=HYPERLINK(...)" would run), so such a field gets the leading
 * "'" that spreadsheets read as "this is text" (OWASP's CSV injection
 * advice); only text fields go through here, so a negative value stays a
 * number.
 */
#define CSV_FORMULA_LEAD "=+-@\t\r"

static void csv_field(struct strbuf *sb, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	strbuf_addch(sb, '"');
	if (n && strchr(CSV_FORMULA_LEAD, s[0]))
		strbuf_addch(sb, '\'');
	for (size_t i = 0; i < n;) {
		size_t len = utf8_char_len(s + i, n - i);
		unsigned char c = (unsigned char)s[i];

		if (!len || c < 0x20 || c == 0x7f || unicode_hidden(utf8_code_point(s + i, len))) {
			strbuf_adds(sb, "\xef\xbf\xbd");
			i += len ? len : 1;
			continue;
		}
		if (c == '"')
			strbuf_addch(sb, '"');
		strbuf_add(sb, s + i, len);
		i += len;
	}
	strbuf_addch(sb, '"');
}

/* Whether seq counted for metric m in the comparison. */
static int counted_in(const struct cmp_metric *m, const char *variant, unsigned seq)
{
	for (size_t v = 0; v < m->nsamples; v++) {
		if (strcmp(m->samples[v].variant, variant))
			continue;
		for (size_t i = 0; i < m->samples[v].n; i++)
			if (m->samples[v].values[i].seq == seq)
				return 1;
	}
	return 0;
}

/* One row per invocation and metric, in execution order, warmups included. */
static char *render_csv(const struct evidence_run *r, const struct comparison *c)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_adds(&sb, "seq,variant,phase,round,attempt,status,metric,unit,value,counted\r\n");
	for (size_t i = 0; i < r->ninvs; i++) {
		const struct invocation *inv = &r->invs[i];
		for (size_t m = 0; m < c->nmetrics; m++) {
			char num[DOUBLE_TEXT_LEN];
			double v;
			strbuf_addf(&sb, "%u,", inv->seq);
			csv_field(&sb, inv->variant);
			strbuf_addf(&sb, ",%s,%u,%u,%s,", inv->warmup ? "warmup" : "run", inv->round,
				    inv->attempt, inv_status_name(inv->status));
			csv_field(&sb, c->metrics[m].name);
			strbuf_addch(&sb, ',');
			csv_field(&sb, c->metrics[m].unit);
			strbuf_addch(&sb, ',');
			if (compare_value(c, m, inv, &v))
				strbuf_adds(&sb, double_text(num, v));
			strbuf_addf(&sb, ",%s\r\n",
				    counted_in(&c->metrics[m], inv->variant, inv->seq) ? "yes" : "no");
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* One testcase per gate and compared variant: fail = failure, inconclusive = skipped. */
static char *render_junit(const struct evidence_run *r, const struct comparison *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t fail = 0, skipped = 0;

	for (size_t g = 0; g < c->ngates; g++) {
		fail += c->gates[g].verdict == GATE_FAIL;
		skipped += c->gates[g].verdict == GATE_INCONCLUSIVE;
	}
	/*
	 * Each run that failed a test guard is a failed testcase of its own
	 * (abev.tests), and so is each variant or metric without a counted
	 * value (abev.runs): a CI page shows why there is nothing to compare.
	 */
	fail += c->nblocking + c->nmissing;
	strbuf_adds(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"abev\" ");
	strbuf_addf(&sb, "tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
		    c->ngates + c->nblocking + c->nmissing, fail, skipped);
	strbuf_adds(&sb, "  <testsuite name=\"");
	strbuf_add_xml(&sb, r->hdr.plan_name);
	strbuf_addf(&sb, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
		    c->ngates + c->nblocking + c->nmissing, fail, skipped);
	strbuf_adds(&sb, "    <properties>\n      <property name=\"decision\" value=\"");
	strbuf_add_xml(&sb, decision_name(c->decision));
	strbuf_adds(&sb, "\"/>\n      <property name=\"reference\" value=\"");
	strbuf_add_xml(&sb, c->reference);
	strbuf_adds(&sb, "\"/>\n    </properties>\n");
	for (size_t i = 0; i < c->nblocking; i++) {
		strbuf_addf(&sb, "    <testcase classname=\"abev.tests\" name=\"test guard %zu\" "
			    "time=\"0\">\n      <failure type=\"tests\" message=\"", i + 1);
		strbuf_add_xml(&sb, c->blocking[i]);
		strbuf_adds(&sb, "\"/>\n    </testcase>\n");
	}
	for (size_t i = 0; i < c->nmissing; i++) {
		strbuf_adds(&sb, "    <testcase classname=\"abev.runs.");
		strbuf_add_xml(&sb, c->missing[i].variant);
		strbuf_adds(&sb, "\" name=\"");
		if (c->missing[i].metric) {
			strbuf_adds(&sb, "metric ");
			strbuf_add_xml(&sb, c->missing[i].metric);
		} else {
			strbuf_adds(&sb, "counted runs");
		}
		strbuf_adds(&sb, "\" time=\"0\">\n      <failure type=\"no counted value\" message=\"");
		strbuf_add_xml(&sb, c->missing[i].why);
		strbuf_adds(&sb, "\"/>\n    </testcase>\n");
	}
	for (size_t g = 0; g < c->ngates; g++) {
		const struct cmp_gate *gt = &c->gates[g];
		char num[DOUBLE_TEXT_LEN];

		strbuf_adds(&sb, "    <testcase classname=\"abev.gates.");
		strbuf_add_xml(&sb, gt->variant);
		strbuf_adds(&sb, "\" name=\"");
		strbuf_add_xml(&sb, gt->metric);
		strbuf_addf(&sb, " %s %s\" time=\"0\"", gate_kind_name(gt->kind),
			    double_text(num, gt->limit));
		if (gt->verdict == GATE_PASS) {
			strbuf_adds(&sb, "/>\n");
			continue;
		}
		strbuf_adds(&sb, ">\n      ");
		strbuf_adds(&sb, gt->verdict == GATE_FAIL ? "<failure type=\"gate\" message=\""
							  : "<skipped message=\"");
		strbuf_add_xml(&sb, gt->reason);
		strbuf_adds(&sb, "\"/>\n    </testcase>\n");
	}
	strbuf_adds(&sb, "  </testsuite>\n</testsuites>\n");
	return strbuf_detach(&sb, NULL);
}

char *export_render(enum export_format f, const struct evidence_run *r,
		    const struct comparison *c)
{
	switch (f) {
	case EXPORT_HYPERFINE: return render_hyperfine(r, c);
	case EXPORT_CSV: return render_csv(r, c);
	case EXPORT_JUNIT: return render_junit(r, c);
	case EXPORT_JSON: break;
	}
	return evidence_comparison_document(c, r->cfg.gates, r->cfg.ngates);
}
