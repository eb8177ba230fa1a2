/*
 * plots_parts: what the metric plot and the runs plot share beyond the
 * SVG primitives — whether a run has figures, a run's tooltip, and the
 * legend's rows. Internal to plots*.c; defined in plots_metric.c.
 */
#ifndef ABEV_PLOTS_PARTS_H
#define ABEV_PLOTS_PARTS_H

#include "report/plots.h"

struct strbuf;

int plots_measured(const struct invocation *inv);
void plots_run_title(struct strbuf *t, const struct invocation *inv, int has, double value,
		      const char *unit, const char *counted);
double plots_legend_variants(struct strbuf *sb, const struct cmp_metric *cm,
			      const char *const *names, size_t nnames, double y);
void plots_key_circle(struct strbuf *sb, double y, int hollow);
double plots_key_row(struct strbuf *sb, double y, const char *what);

#endif
