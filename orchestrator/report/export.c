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

#include "report/reason_words.h"
#include "util/alloc.h"
#include "util/json_out.h"
#include "util/compiler.h"
#include "util/number.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/utf8.h"

int export_format_parse(const char *name, enum export_format *out)
{
	static const char *const names[] = { "hyperfine", "hyperfine-csv", "hyperfine-markdown",
					     "csv", "junit", "json" };
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
 * What hyperfine knows of one command: its command line, its counted
 * runs' wall times (the comparison's "wall" sample) and their exit codes,
 * mean user and system seconds, and its scan parameters.
 */
struct hf_result {
	const struct cmp_sample *s;
	char *command;                    /* owned */
	double user, sys;                 /* seconds, means of the counted runs */
	const char *const *param_keys, *const *param_values; /* borrowed from env, or NULL */
	size_t nparams;
};

/*
 * The command line of variant as hyperfine shows it: what `sh -c` ran (as
 * abev bench gave it), else its argv quoted for sh; the variant's name
 * when no invocation of it was recorded.
 */
static char *command_line(const struct evidence_run *r, const char *variant)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < r->ninvs; i++) {
		const struct invocation *inv = &r->invs[i];
		if (strcmp(inv->variant, variant) || !inv->argc)
			continue;
		if (inv->argc == 3 && !strcmp(inv->argv[0], "sh") && !strcmp(inv->argv[1], "-c"))
			strbuf_adds(&sb, inv->argv[2]);
		else
			strbuf_add_argv_sh(&sb, inv->argv, inv->argc);
		return strbuf_detach(&sb, NULL);
	}
	return xstrdup(variant);
}

/* One hf_result per variant of the wall sample (*n of them; caller frees with hf_free()). */
static struct hf_result *hf_results(const struct evidence_run *r, const struct comparison *c,
				    const struct run_environment *env, size_t *n)
{
	const struct cmp_metric *wall = &c->metrics[0];
	struct hf_result *res = xcalloc(wall->nsamples + 1, sizeof(*res));

	for (size_t v = 0; v < wall->nsamples; v++) {
		struct hf_result *h = &res[v];

		h->s = &wall->samples[v];
		h->command = command_line(r, h->s->variant);
		for (size_t i = 0; i < h->s->n; i++) {
			const struct invocation *inv = by_seq(r, h->s->values[i].seq);
			if (inv) {
				h->user += (double)inv->fig.user_ns / 1e9;
				h->sys += (double)inv->fig.sys_ns / 1e9;
			}
		}
		if (h->s->n) {
			h->user /= (double)h->s->n;
			h->sys /= (double)h->s->n;
		}
		for (size_t e = 0; env && e < env->nvariants; e++)
			if (!strcmp(env->variants[e].name, h->s->variant)) {
				h->param_keys = (const char *const *)env->variants[e].param_keys;
				h->param_values = (const char *const *)env->variants[e].param_values;
				h->nparams = env->variants[e].nparams;
			}
	}
	*n = wall->nsamples;
	return res;
}

static void hf_free(struct hf_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(res[i].command);
	free(res);
}

/*
 * hyperfine's --export-json: results[] per variant, "times" the counted
 * runs (runs discarded for contention and repeated, and runs that failed a
 * guard, are not in it: hyperfine's are all its timing runs), stddev null
 * with one run, as hyperfine writes it, and "parameters" (values as text)
 * only for a scanned variant.
 */
static char *render_hyperfine(const struct evidence_run *r, const struct comparison *c,
			      const struct run_environment *env)
{
	cJSON *o = jnew_object(), *results = jnew_array();
	size_t n;
	struct hf_result *res = hf_results(r, c, env, &n);
	char *text;

	for (size_t v = 0; v < n; v++) {
		const struct cmp_sample *s = res[v].s;
		cJSON *e = jnew_object(), *times = jnew_array(), *codes = jnew_array();

		for (size_t i = 0; i < s->n; i++) {
			const struct invocation *inv = by_seq(r, s->values[i].seq);
			jpush(times, seconds(s->values[i].value));
			jpush(codes, cJSON_CreateNumber(inv ? inv->exit_code : 0));
		}
		jadd_str(e, "command", res[v].command);
		jadd(e, "mean", s->n ? seconds(s->mean) : jnull());
		jadd(e, "stddev", s->n > 1 ? seconds(s->sd) : jnull());
		jadd(e, "median", s->n ? seconds(s->median) : jnull());
		jadd(e, "user", s->n ? jreal(res[v].user) : jnull());
		jadd(e, "system", s->n ? jreal(res[v].sys) : jnull());
		jadd(e, "min", s->n ? seconds(s->min) : jnull());
		jadd(e, "max", s->n ? seconds(s->max) : jnull());
		jadd(e, "times", times);
		jadd(e, "exit_codes", codes);
		if (res[v].nparams) {
			cJSON *p = jnew_object();
			for (size_t k = 0; k < res[v].nparams; k++)
				jadd_str(p, res[v].param_keys[k], res[v].param_values[k]);
			jadd(e, "parameters", p);
		}
		jpush(results, e);
	}
	jadd(o, "results", results);
	text = json_print(o);
	cJSON_Delete(o);
	hf_free(res, n);
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

/* A number of seconds as CSV writes it; nothing when there is none. */
static void csv_seconds(struct strbuf *sb, int have, double s)
{
	char num[DOUBLE_TEXT_LEN];

	strbuf_addch(sb, ',');
	if (have)
		strbuf_adds(sb, double_text(num, s));
}

/*
 * hyperfine's --export-csv: one row per command, its figures in seconds,
 * then a parameter_<name> column for each parameter of the first
 * scanned variant, as hyperfine names them from its first result.
 */
static char *render_hyperfine_csv(const struct evidence_run *r, const struct comparison *c,
				  const struct run_environment *env)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n, p = 0;
	struct hf_result *res = hf_results(r, c, env, &n);

	while (p < n && !res[p].nparams)
		p++;
	strbuf_adds(&sb, "command,mean,stddev,median,user,system,min,max");
	for (size_t k = 0; p < n && k < res[p].nparams; k++) {
		char *col = xasprintf("parameter_%s", res[p].param_keys[k]);
		strbuf_addch(&sb, ',');
		csv_field(&sb, col);
		free(col);
	}
	strbuf_adds(&sb, "\n");
	for (size_t v = 0; v < n; v++) {
		const struct cmp_sample *s = res[v].s;

		csv_field(&sb, res[v].command);
		csv_seconds(&sb, s->n > 0, s->mean / 1e3);
		csv_seconds(&sb, s->n > 1, s->sd / 1e3);
		csv_seconds(&sb, s->n > 0, s->median / 1e3);
		csv_seconds(&sb, s->n > 0, res[v].user);
		csv_seconds(&sb, s->n > 0, res[v].sys);
		csv_seconds(&sb, s->n > 0, s->min / 1e3);
		csv_seconds(&sb, s->n > 0, s->max / 1e3);
		for (size_t k = 0; p < n && k < res[p].nparams; k++) {
			const char *val = NULL;
			for (size_t j = 0; j < res[v].nparams; j++)
				if (!strcmp(res[v].param_keys[j], res[p].param_keys[k]))
					val = res[v].param_values[j];
			strbuf_addch(&sb, ',');
			csv_field(&sb, val);
		}
		strbuf_adds(&sb, "\n");
	}
	hf_free(res, n);
	return strbuf_detach(&sb, NULL);
}

/* A Markdown table cell of text: code, '|' escaped, nothing that breaks the row. */
static void md_code(struct strbuf *sb, const char *s)
{
	strbuf_adds(sb, "`");
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '|')
			strbuf_adds(sb, "\\|");
		else if (ch == '`' || ch < 0x20 || ch == 0x7f)
			strbuf_addch(sb, ch == '`' ? '\'' : ' ');
		else
			strbuf_addch(sb, (char)ch);
	}
	strbuf_adds(sb, "`");
}

/*
 * hyperfine's --export-markdown: one row per command, mean ± σ, min and
 * max in ms (or s when the first command's mean is a second or more, as
 * hyperfine picks the unit), and the mean relative to the fastest, its
 * ± propagated from both standard deviations, as hyperfine computes it.
 */
static char *render_hyperfine_markdown(const struct evidence_run *r, const struct comparison *c,
				       const struct run_environment *env)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n, fast = 0;
	struct hf_result *res = hf_results(r, c, env, &n);
	int secs = n && res[0].s->n && res[0].s->mean >= 1e3;
	double scale = secs ? 1e3 : 1;  /* from the comparison's ms */
	const char *unit = secs ? "s" : "ms";
	int prec = secs ? 3 : 1;

	for (size_t v = 1; v < n; v++)
		if (res[v].s->n && (!res[fast].s->n || res[v].s->mean < res[fast].s->mean))
			fast = v;
	strbuf_addf(&sb, "| Command | Mean [%s] | Min [%s] | Max [%s] | Relative |\n", unit, unit,
		    unit);
	strbuf_adds(&sb, "|:---|---:|---:|---:|---:|\n");
	for (size_t v = 0; v < n; v++) {
		const struct cmp_sample *s = res[v].s, *f = res[fast].s;

		strbuf_adds(&sb, "| ");
		md_code(&sb, res[v].command);
		if (!s->n) {
			strbuf_adds(&sb, " | | | | |\n");
			continue;
		}
		strbuf_addf(&sb, " | %.*f", prec, s->mean / scale);
		if (s->n > 1)
			strbuf_addf(&sb, " ± %.*f", prec, s->sd / scale);
		strbuf_addf(&sb, " | %.*f | %.*f | ", prec, s->min / scale, prec, s->max / scale);
		if (v == fast) {
			strbuf_adds(&sb, "1.00 |\n");
		} else {
			double rel = s->mean / f->mean;
			double sd = s->n > 1 && f->n > 1
				    ? rel * sqrt(pow(s->sd / s->mean, 2) + pow(f->sd / f->mean, 2)) : 0;
			strbuf_addf(&sb, "%.2f", rel);
			if (s->n > 1 && f->n > 1)
				strbuf_addf(&sb, " ± %.2f", sd);
			strbuf_adds(&sb, " |\n");
		}
	}
	hf_free(res, n);
	return strbuf_detach(&sb, NULL);
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
				    inv->attempt, invocation_status_name(inv->status));
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
/* Appends words (owned, freed here) escaped for an XML attribute. */
static void add_xml_words(struct strbuf *sb, char *words)
{
	strbuf_add_xml(sb, words);
	free(words);
}

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
		add_xml_words(&sb, reason_words_blocking(&c->blocking[i]));
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
		add_xml_words(&sb, reason_words_missing(&c->missing[i]));
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
		add_xml_words(&sb, reason_words_gate(c, gt));
		strbuf_adds(&sb, "\"/>\n    </testcase>\n");
	}
	strbuf_adds(&sb, "  </testsuite>\n</testsuites>\n");
	return strbuf_detach(&sb, NULL);
}

char *export_render(enum export_format f, const struct evidence_run *r,
		    const struct comparison *c, const struct run_environment *env)
{
	switch (f) {
	case EXPORT_HYPERFINE: return render_hyperfine(r, c, env);
	case EXPORT_HYPERFINE_CSV: return render_hyperfine_csv(r, c, env);
	case EXPORT_HYPERFINE_MARKDOWN: return render_hyperfine_markdown(r, c, env);
	case EXPORT_CSV: return render_csv(r, c);
	case EXPORT_JUNIT: return render_junit(r, c);
	case EXPORT_JSON: break;
	}
	return evidence_comparison_document(c, r->cfg.gates, r->cfg.ngates);
}
