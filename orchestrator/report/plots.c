/*
 * plots: SVG written by hand, since dots and lines need no library and a
 * library would be one more thing to pin for byte-identical output. Every
 * coordinate and tick label goes through add_decimal(), which prints
 * fixed-point decimals from an integer, so printf's choice of notation
 * cannot change a byte; figures in words (medians, tooltips) come from
 * units.c like everywhere else, in the C locale abev never leaves. Both
 * plots share one frame: the title and a line of explanation on top, the
 * plot area on the left, the legend in a column on the right. This file
 * names the plot files and writes them; the primitives are svg.c's, the
 * plots plots_metric.c's and plots_runs.c's.
 */
#include "report/plots.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"
#include "decide/units.h"
#include "util/dirat.h"
#include "util/path.h"
#include "evidence/ledger.h"
#include "util/name_rule.h"
#include "util/alloc.h"
#include "util/env.h"
#include "util/strbuf.h"

/* ---- file names and writing ---- */

/* The metric's name made safe for a file: see plots.h. Caller frees. */
static char *file_base(const char *name)
{
	return name_rule_sanitize(name ? name : "", NAME_RULE_MAX);
}

static int same_ignoring_case(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
		if (x != y)
			return 0;
	}
	return *a == *b;
}

static int taken(char *const *names, size_t n, const char *name)
{
	if (same_ignoring_case(name, "runs"))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (same_ignoring_case(names[i], name))
			return 1;
	return 0;
}

/*
 * The file names of all of c's metrics, without ".svg": earlier metrics
 * keep theirs, so a metric's file depends only on those before it. At
 * most k names and "runs" are taken when metric k is named, so a free
 * suffix comes within k + 2 tries. Free with strv_free().
 */
static char **file_bases(const struct comparison *c)
{
	char **names = xcalloc(c->nmetrics + 1, sizeof(*names));

	for (size_t k = 0; k < c->nmetrics; k++) {
		char *base = file_base(c->metrics[k].name);

		names[k] = xstrdup(base);
		for (size_t suffix = 2; taken(names, k, names[k]); suffix++) {
			free(names[k]);
			names[k] = xasprintf("%s-%zu", base, suffix);
		}
		free(base);
	}
	return names;
}

char *plots_file_name(const struct comparison *c, size_t m)
{
	char **names, *out;

	if (m >= c->nmetrics)
		return NULL;
	names = file_bases(c);
	out = xasprintf("%s.svg", names[m]);
	strv_free(names);
	return out;
}

/* EVIDENCE_PLOTS_DIR/name beneath root, noted in l when there is one. */
static int write_plot(const struct dirat *root, struct ledger *l, const char *name, char *svg)
{
	char *rel = path_join(EVIDENCE_PLOTS_DIR, name);
	int ret = l ? ledger_rewrite(l, root, rel, svg, strlen(svg))
		    : dirat_write_atomic(root, rel, svg, strlen(svg));

	free(rel);
	free(svg);
	return ret;
}

int plots_write(const struct dirat *root, struct ledger *l, const struct comparison *c,
		const struct invocation *invs, size_t ninvs)
{
	struct dirat dir = DIRAT_INIT;
	char **names = file_bases(c);
	int ret = dirat_mkdirs(root, EVIDENCE_PLOTS_DIR, &dir);

	for (size_t m = 0; !ret && m < c->nmetrics; m++) {
		char *name = xasprintf("%s.svg", names[m]);
		ret = write_plot(root, l, name, plots_metric_svg(c, m, invs, ninvs));
		free(name);
	}
	if (!ret)
		ret = write_plot(root, l, EVIDENCE_PLOTS_RUNS_FILE, plots_runs_svg(c, invs, ninvs));
	strv_free(names);
	dirat_release(&dir);
	return ret;
}

