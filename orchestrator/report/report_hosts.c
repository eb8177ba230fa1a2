/*
 * report_hosts: the metrics and variants are those of the first host
 * (every host ran the same plan); a host that lacks one shows "n/a".
 * Table cells are escaped here with template_md_text(), since a row's cells
 * are joined before the template sees them.
 */
#include "report/report_hosts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/reason_words.h"
#include "report/summary.h"
#include "report/template.h"
#include "decide/units.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* Generated from templates/report-hosts.md by mk/embed.sh. */
extern const char hosts_template[];
extern const unsigned long hosts_template_len;

static const char *label_of(const struct report_host *h)
{
	const struct run_environment *e = h->environment;
	if (e && e->host.label)
		return e->host.label;
	if (e && e->host.hostname)
		return e->host.hostname;
	return h->dir;
}

enum decision report_hosts_decision(const struct report_host *hosts, size_t n)
{
	int rejected = 0, inconclusive = 0, accepted = 0;

	for (size_t i = 0; i < n; i++) {
		rejected |= hosts[i].comparison->decision == DECISION_REJECTED;
		inconclusive |= hosts[i].comparison->decision == DECISION_INCONCLUSIVE;
		accepted |= hosts[i].comparison->decision == DECISION_ACCEPTED;
	}
	return rejected ? DECISION_REJECTED : inconclusive ? DECISION_INCONCLUSIVE
		 : accepted ? DECISION_ACCEPTED : DECISION_NONE;
}

static const struct cmp_sample *find_sample(const struct comparison *c, const char *metric,
					    const char *variant, const struct cmp_metric **m)
{
	for (size_t k = 0; k < c->nmetrics; k++) {
		if (strcmp(c->metrics[k].name, metric))
			continue;
		*m = &c->metrics[k];
		for (size_t v = 0; v < c->metrics[k].nsamples; v++)
			if (!strcmp(c->metrics[k].samples[v].variant, variant))
				return &c->metrics[k].samples[v];
	}
	return NULL;
}

/* One host's cell: the median, and against the reference the change, interval and gates. */
static void cell(struct strbuf *row, const struct comparison *c, const char *metric,
		 const char *variant)
{
	const struct cmp_metric *m = NULL;
	const struct cmp_sample *s = find_sample(c, metric, variant, &m);
	struct strbuf sb = STRBUF_INIT;

	if (!s || !s->n) {
		strbuf_adds(&sb, s ? "n/a (no counted run)" : "n/a (not recorded)");
	} else {
		units_add(&sb, s->median, m->unit);
		if (!s->is_reference && s->has_change) {
			strbuf_adds(&sb, ", ");
			units_add_pct(&sb, compare_estimate_pct(s));
			if (s->has_gi)
				strbuf_addf(&sb, " [%.3f, %.3f]", s->gi_lo, s->gi_hi);
		}
		for (size_t g = 0; g < c->ngates; g++) {
			const struct cmp_gate *gt = &c->gates[g];
			if (strcmp(gt->metric, metric) || strcmp(gt->variant, variant))
				continue;
			strbuf_adds(&sb, "; ");
			summary_gate_limit(&sb, m, gt);
			strbuf_addf(&sb, " %s", gt->verdict == GATE_FAIL ? "FAIL"
						: gt->verdict == GATE_PASS ? "pass" : "inconclusive");
		}
	}
	strbuf_adds(row, " ");
	template_md_text(row, sb.buf);
	strbuf_adds(row, " |");
	strbuf_release(&sb);
}

/* The tables of hosts [from, to): one per metric of the first host. */
static void group(struct template_ctx *c, const struct report_host *hosts, size_t n, size_t from,
		  size_t to)
{
	const struct comparison *first = hosts[0].comparison;
	struct template_ctx *g = template_add(c, "groups");

	template_list(g, "metrics");
	for (size_t m = 0; m < first->nmetrics; m++) {
		const struct cmp_metric *cm = &first->metrics[m];
		struct template_ctx *t = template_add(g, "metrics");
		struct strbuf sb = STRBUF_INIT;

		template_set(t, "name", cm->name);
		if (n > REPORT_HOSTS_PER_TABLE)
			template_setf(t, "part", "hosts %zu to %zu of %zu", from + 1, to, n);
		strbuf_adds(&sb, "| Variant |");
		for (size_t h = from; h < to; h++) {
			strbuf_addch(&sb, ' ');
			template_md_text(&sb, label_of(&hosts[h]));
			strbuf_adds(&sb, " |");
		}
		template_set(t, "header", sb.buf);
		strbuf_reset(&sb);
		strbuf_adds(&sb, "|---|");
		for (size_t h = from; h < to; h++)
			strbuf_adds(&sb, "---|");
		template_set(t, "separator", sb.buf);
		template_list(t, "rows");
		for (size_t v = 0; v < cm->nsamples; v++) {
			strbuf_reset(&sb);
			strbuf_adds(&sb, "| ");
			template_md_text(&sb, cm->samples[v].variant);
			strbuf_adds(&sb, " |");
			for (size_t h = from; h < to; h++)
				cell(&sb, hosts[h].comparison, cm->name, cm->samples[v].variant);
			template_set(template_add(t, "rows"), "row", sb.buf);
		}
		strbuf_release(&sb);
	}
}

static void host_rows(struct template_ctx *c, const struct report_host *hosts, size_t n)
{
	int problems = 0;

	template_list(c, "hosts");
	template_list(c, "problems");
	for (size_t i = 0; i < n; i++) {
		const struct run_environment *e = hosts[i].environment;
		const struct comparison *cmp = hosts[i].comparison;
		struct template_ctx *r = template_add(c, "hosts");
		struct strbuf sb = STRBUF_INIT;

		template_set(r, "label", label_of(&hosts[i]));
		summary_decision(&sb, cmp);
		template_set(r, "decision", sb.buf);
		strbuf_reset(&sb);
		template_set(r, "status", hosts[i].run->hdr.status);
		if (e)
			strbuf_addf(&sb, "%s, %s, %lld CPUs, %s", e->host.cpu_model ? e->host.cpu_model : "CPU unknown",
				    e->host.os_release ? e->host.os_release : "OS unknown",
				    (long long)e->host.logical_cpus, e->host.kernel ? e->host.kernel : "kernel unknown");
		else
			strbuf_adds(&sb, "not recorded");
		template_set(r, "machine", sb.buf);
		strbuf_release(&sb);
		template_set(r, "dir", hosts[i].dir);
		for (size_t g = 0; g < cmp->ngates; g++) {
			struct template_ctx *p;
			char *why;

			if (cmp->gates[g].verdict == GATE_PASS)
				continue;
			p = template_add(c, "problems");
			template_set(p, "label", label_of(&hosts[i]));
			template_set_bool(p, "failed", cmp->gates[g].verdict == GATE_FAIL);
			why = reason_words_gate(cmp, &cmp->gates[g]);
			template_set(p, "reason", why);
			free(why);
			problems = 1;
		}
	}
	template_set_bool(c, "has_problems", problems);
}

char *report_hosts_render(const struct report_host *hosts, size_t n, int verified)
{
	struct template_ctx *c = template_ctx_new();
	char *err = NULL, *text;
	int acceptance = 1;

	template_set(c, "title", hosts[0].run->hdr.plan_name);
	template_setf(c, "nhosts", "%zu", n);
	template_set(c, "decision", decision_name(report_hosts_decision(hosts, n)));
	for (size_t i = 0; i < n; i++)
		acceptance &= hosts[i].comparison->acceptance;
	template_set_bool(c, "acceptance", acceptance);
	template_set(c, "reference", hosts[0].comparison->reference);
	template_set(c, "verified", verified ? "verified against the given key before it was read"
				       : "checked against its manifest SHA256 but not "
					 "signature-checked (no --pubkey was given)");
	host_rows(c, hosts, n);
	template_list(c, "groups");
	for (size_t from = 0; from < n; from += REPORT_HOSTS_PER_TABLE)
		group(c, hosts, n, from,
		      from + REPORT_HOSTS_PER_TABLE < n ? from + REPORT_HOSTS_PER_TABLE : n);
	text = template_render_text(hosts_template, (size_t)hosts_template_len,
				    "templates/report-hosts.md", c, &err);
	if (!text) {
		error("cannot render the report: %s", err);
		free(err);
	}
	template_ctx_free(c);
	return text;
}
