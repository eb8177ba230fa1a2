/*
 * compare_runs: for each shared variant a two-variant comparison is made
 * over shallow copies of the invocation records relabelled "old" and
 * "new" (the strings stay the evidence's), so compare.c needs no notion
 * of two directories.
 */
#include "report/compare_runs.h"

#include <stdlib.h>
#include <string.h>

#include "report/summary.h"
#include "util/alloc.h"
#include "util/strbuf.h"

static const char *const labels[] = { "old", "new" };

static int has_variant(const struct evidence_run *r, const char *name)
{
	for (size_t i = 0; i < r->hdr.nvariants; i++)
		if (!strcmp(r->hdr.variant_names[i], name))
			return 1;
	return 0;
}

static const struct compare_metric_def *find_metric(const struct evidence_run *r,
						    const char *name)
{
	for (size_t i = 0; i < r->cfg.nmetrics; i++)
		if (!strcmp(r->metric_defs[i].name, name))
			return &r->metric_defs[i];
	return NULL;
}

static void list_names(struct strbuf *sb, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", names[i]);
	if (!n)
		strbuf_adds(sb, "none");
}

/* The relabelled records of variant name in r, appended to *v. */
static void take(const struct evidence_run *r, const char *name, const char *label,
		 struct invocation **v, size_t *n, size_t *alloc)
{
	for (size_t i = 0; i < r->ninvs; i++) {
		if (strcmp(r->invs[i].variant, name))
			continue;
		ALLOC_GROW(*v, *n + 1, *alloc);
		(*v)[*n] = r->invs[i];
		(*v)[*n].variant = (char *)(uintptr_t)label;
		(*v)[*n].seq = (unsigned)*n + 1;
		(*n)++;
	}
}

static void print_text(FILE *f, const char *variant, const struct comparison *c)
{
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;

	fputc('\n', f);
	strbuf_adds(&line, variant);
	summary_put_line(f, &line);
	for (size_t m = 0; m < c->nmetrics; m++) {
		const struct cmp_metric *cm = &c->metrics[m];
		const struct cmp_sample *o = &cm->samples[0], *nw = &cm->samples[1];

		strbuf_reset(&sb);
		summary_median(&sb, cm, o);
		strbuf_adds(&sb, " \xe2\x86\x92 ");
		summary_median(&sb, cm, nw);
		strbuf_addf(&line, "  %-16s %-24s ", cm->name, sb.buf);
		summary_change(&line, cm, nw);
		if (nw->has_mw)
			strbuf_addf(&line, "  p = %.3g", nw->mw_p);
		strbuf_addf(&line, "  (n %zu vs %zu)", o->n, nw->n);
		summary_put_line(f, &line);
	}
	strbuf_release(&sb);
	strbuf_release(&line);
}

int compare_runs(const struct evidence_run *old, const struct evidence_run *new, int json,
		 FILE *f, char **err)
{
	struct compare_metric_def *defs = xcalloc(new->cfg.nmetrics + 1, sizeof(*defs));
	const char **shared = xcalloc(new->hdr.nvariants + 1, sizeof(*shared));
	struct comparison *cmps;
	struct strbuf skipped = STRBUF_INIT, sb = STRBUF_INIT;
	size_t nshared = 0, ndefs = 0;
	int ret = -1;

	for (size_t i = 0; i < new->hdr.nvariants; i++)
		if (has_variant(old, new->hdr.variant_names[i]))
			shared[nshared++] = new->hdr.variant_names[i];
	if (!nshared) {
		strbuf_adds(&sb, "the two share no variant name: old has ");
		list_names(&sb, old->hdr.variant_names, old->hdr.nvariants);
		strbuf_adds(&sb, "; new has ");
		list_names(&sb, new->hdr.variant_names, new->hdr.nvariants);
		*err = strbuf_detach(&sb, NULL);
		goto out;
	}
	for (size_t i = 0; i < new->cfg.nmetrics; i++) {
		const struct compare_metric_def *d = &new->metric_defs[i];
		const struct compare_metric_def *o = find_metric(old, d->name);
		if (o && !strcmp(o->unit, d->unit) && o->better_higher == d->better_higher)
			defs[ndefs++] = *d;
		else
			strbuf_addf(&skipped, "%s%s (%s)", skipped.len ? ", " : "", d->name,
				    o ? "its unit or direction differs" : "only in new");
	}
	for (size_t i = 0; i < old->cfg.nmetrics; i++)
		if (!find_metric(new, old->metric_defs[i].name))
			strbuf_addf(&skipped, "%s%s (only in old)", skipped.len ? ", " : "",
				    old->metric_defs[i].name);

	cmps = xcalloc(nshared, sizeof(*cmps));
	for (size_t v = 0; v < nshared; v++) {
		struct invocation *invs = NULL;
		size_t n = 0, alloc = 0;
		struct compare_config cfg = {
			.variants = labels,
			.nvariants = 2,
			.reference = 0,
			.metrics = defs,
			.nmetrics = ndefs,
			.confidence = new->cfg.confidence,
			.resamples = new->cfg.resamples,
			.seed = new->cfg.seed,
			.unpaired = 1,
		};
		take(old, shared[v], labels[0], &invs, &n, &alloc);
		take(new, shared[v], labels[1], &invs, &n, &alloc);
		compare_compute(&cfg, invs, n, &cmps[v]);
		/* The samples borrow the labels and defs, not the records: the copies can go. */
		free(invs);
	}
	if (json) {
		char *doc = evidence_compare_document(old->dir, new->dir,
						      shared, cmps, nshared,
						      skipped.buf);
		fputs(doc, f);
		free(doc);
	} else {
		/* Paths from the command line, names from evidence: each line escaped. */
		strbuf_reset(&sb);
		strbuf_addf(&sb, "old: %s (plan '%s', started %s)", old->dir, old->hdr.plan_name,
			    old->hdr.started_utc);
		summary_put_line(f, &sb);
		strbuf_addf(&sb, "new: %s (plan '%s', started %s)", new->dir, new->hdr.plan_name,
			    new->hdr.started_utc);
		summary_put_line(f, &sb);
		strbuf_adds(&sb, "shared variants: ");
		for (size_t v = 0; v < nshared; v++)
			strbuf_addf(&sb, "%s%s", v ? ", " : "", shared[v]);
		summary_put_line(f, &sb);
		strbuf_adds(&sb, "shared metrics: wall, cpu, max_rss");
		for (size_t i = 0; i < ndefs; i++)
			strbuf_addf(&sb, ", %s", defs[i].name);
		summary_put_line(f, &sb);
		strbuf_addf(&sb, "not compared: %s", skipped.len ? skipped.buf : "nothing");
		summary_put_line(f, &sb);
		for (size_t v = 0; v < nshared; v++)
			print_text(f, shared[v], &cmps[v]);
		strbuf_reset(&sb);
		summary_sample_size(&sb, &cmps[0]);
		fprintf(f, "\nnote: old's runs are the reference, new's the candidate; runs of two "
			"evidence directories are not paired and no gate is judged. %s\n", sb.buf);
	}
	for (size_t v = 0; v < nshared; v++)
		compare_release(&cmps[v]);
	free(cmps);
	ret = 0;
out:
	free(defs);
	free(shared);
	strbuf_release(&skipped);
	strbuf_release(&sb);
	return ret;
}
