/*
 * plots_runs: the runs plot — wall time of every invocation in execution
 * order, its status strip, and the contention it met (CPU wait, foreign
 * CPU). The drawing primitives are svg.c's; file names and writing are
 * plots.c's.
 */
#include "report/plots.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plots_parts.h"
#include "report/svg.h"
#include "decide/units.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/strbuf.h"


static const struct {
	enum inv_status status;
	const char *fill;
} status_fills[] = {
	{ INV_OK, "#c8c8c8" },
	{ INV_FAILED, "#d62728" },
	{ INV_TIMED_OUT, "#ff7f0e" },
	{ INV_DISCARDED, "#7b4ea3" },
	{ INV_EXEC_FAILED, "#000000" },
	{ INV_INTERRUPTED, "#8c564b" },
};

static const char *status_fill(enum inv_status st)
{
	for (size_t i = 0; i < ARRAY_SIZE(status_fills); i++)
		if (status_fills[i].status == st)
			return status_fills[i].fill;
	return "#ffffff";
}

struct runs_plot {
	const struct invocation *invs;
	size_t ninvs;
	const char **names;    /* borrowed: plan order, then as first seen */
	size_t nnames;
	size_t *variant;       /* per invocation: index into names */
	struct axis x, wall, cpu;
	double wall_factor;
	char *wall_unit;
	double limit;          /* max_cpu_wait_pct shared by every run; < 0: none to draw */
	int limit_off_scale;
};

static size_t name_index(const struct runs_plot *r, const char *name)
{
	for (size_t i = 0; i < r->nnames; i++)
		if (!strcmp(r->names[i], name))
			return i;
	return SIZE_MAX;
}

/* The variants: c's in plan order, then any other name as it first appears. */
static void runs_variants(struct runs_plot *r, const struct comparison *c)
{
	size_t nplan = c && c->nmetrics ? c->metrics[0].nsamples : 0;

	r->names = xcalloc(nplan + r->ninvs + 1, sizeof(*r->names));
	r->variant = xcalloc(r->ninvs + 1, sizeof(*r->variant));
	for (size_t v = 0; v < nplan; v++)
		r->names[r->nnames++] = c->metrics[0].samples[v].variant;
	for (size_t i = 0; i < r->ninvs; i++) {
		const char *name = r->invs[i].variant ? r->invs[i].variant : "";
		size_t k = name_index(r, name);
		if (k == SIZE_MAX) {
			k = r->nnames;
			r->names[r->nnames++] = name;
		}
		r->variant[i] = k;
	}
}

static void runs_axes(struct runs_plot *r)
{
	unsigned first = r->invs[0].seq, last = first;
	double lo = INFINITY, hi = -INFINITY, cpu_hi = 1, limit = -1;
	int one_limit = 1;

	for (size_t i = 0; i < r->ninvs; i++) {
		const struct invocation *inv = &r->invs[i];
		double ms = (double)inv->fig.wall_ns / 1e6;

		first = inv->seq < first ? inv->seq : first;
		last = inv->seq > last ? inv->seq : last;
		if (plots_measured(inv)) {
			lo = fmin(lo, ms);
			hi = fmax(hi, ms);
		}
		if (invocation_judged_wait_pct(inv) >= 0)
			cpu_hi = fmax(cpu_hi, invocation_judged_wait_pct(inv));
		if (isfinite(inv->max_cpu_wait_pct) && inv->max_cpu_wait_pct >= 0) {
			one_limit &= limit < 0 || limit == inv->max_cpu_wait_pct;
			limit = inv->max_cpu_wait_pct;
		}
	}
	svg_axis_runs(&r->x, first, last, PLOT_L, PLOT_R);
	if (lo > hi)
		lo = hi = 0;
	r->wall_unit = svg_axis_unit("ms", fmax(fabs(lo), fabs(hi)), &r->wall_factor);
	svg_axis_values(&r->wall, lo * r->wall_factor, hi * r->wall_factor, WALL_B, WALL_T);
	/* A limit far above what was seen would flatten every bar: name it instead. */
	r->limit = -1;
	if (limit >= 0 && one_limit) {
		r->limit = limit;
		r->limit_off_scale = limit > 2 * cpu_hi;
		if (!r->limit_off_scale)
			cpu_hi = fmax(cpu_hi, limit);
	}
	svg_axis_values(&r->cpu, 0, cpu_hi, CPU_B, CPU_T);
	/* Contention is never below zero: the axis starts there. */
	r->cpu.lo = 0;
}

/* Grey bands behind the runs that were warmups, one per stretch of them. */
static void draw_warmups(struct strbuf *sb, const struct runs_plot *r)
{
	double half = (r->x.p1 - r->x.p0) / (r->x.hi - r->x.lo) / 2;

	for (size_t i = 0; i < r->ninvs; i++) {
		size_t j = i;
		double x0, x1;

		if (!r->invs[i].warmup)
			continue;
		while (j + 1 < r->ninvs && r->invs[j + 1].warmup)
			j++;
		x0 = svg_axis_px(&r->x, r->invs[i].seq) - half;
		x1 = svg_axis_px(&r->x, r->invs[j].seq) + half;
		svg_add_rect(sb, x0, WALL_T, x1 - x0, CPU_B - WALL_T, "fill=\"#efefef\"", NULL);
		if (x1 - x0 >= 50)
			svg_add_text(sb, x0 + 4, WALL_T + 14, "font-size=\"11\" fill=\"#777777\"", "warmup");
		i = j;
	}
}

static void draw_walls(struct strbuf *sb, const struct runs_plot *r)
{
	struct strbuf t = STRBUF_INIT;

	for (size_t i = 0; i < r->ninvs; i++) {
		const struct invocation *inv = &r->invs[i];
		double px = svg_axis_px(&r->x, inv->seq), ms = (double)inv->fig.wall_ns / 1e6;
		int counted = compare_counts(inv);
		const char *cls = inv->warmup ? "inv warmup" : counted ? "inv counted" : "inv excluded";

		plots_run_title(&t, inv, plots_measured(inv), ms, "ms",
			  inv->warmup ? "warmup" : counted ? "counted" : NULL);
		if (!plots_measured(inv))
			svg_add_cross(sb, svg_colour(r->variant[i]), px, WALL_B - 6, "inv novalue", t.buf);
		else
			svg_add_marker(sb, r->variant[i], px, svg_axis_px(&r->wall, ms * r->wall_factor),
				   3.5, !counted, cls, t.buf);
	}
	strbuf_release(&t);
}

/* Width of a bar or status cell: most of the space of one run, between 1 and 10 px. */
static double cell_width(const struct runs_plot *r)
{
	double w = (r->x.p1 - r->x.p0) / (r->x.hi - r->x.lo) * 0.7;
	return w < 1 ? 1 : w > 10 ? 10 : w;
}

static void draw_statuses(struct strbuf *sb, const struct runs_plot *r)
{
	double w = cell_width(r);
	char attrs[80];

	svg_add_text(sb, PLOT_L - 7, STRIP_B - 1, "font-size=\"11\" text-anchor=\"end\"", "status");
	for (size_t i = 0; i < r->ninvs; i++) {
		const struct invocation *inv = &r->invs[i];
		char *title = xasprintf("run %u: %s%s%s", inv->seq, invocation_status_name(inv->status),
					inv->reason ? ": " : "", inv->reason ? inv->reason : "");

		snprintf(attrs, sizeof(attrs), "class=\"status %s\" fill=\"%s\"",
			 invocation_status_name(inv->status), status_fill(inv->status));
		svg_add_rect(sb, svg_axis_px(&r->x, inv->seq) - w / 2, STRIP_T, w, STRIP_B - STRIP_T, attrs,
			 title);
		free(title);
	}
}

static void draw_contention(struct strbuf *sb, const struct runs_plot *r)
{
	double w = cell_width(r), base = svg_axis_px(&r->cpu, 0);
	struct strbuf t = STRBUF_INIT;

	for (size_t i = 0; i < r->ninvs; i++) {
		const struct invocation *inv = &r->invs[i];
		double px = svg_axis_px(&r->x, inv->seq);
		char *attrs;

		double pct = invocation_judged_wait_pct(inv);
		double all = invocation_cpu_wait_pct(inv);

		strbuf_reset(&t);
		strbuf_addf(&t, "run %u: waited for a CPU ", inv->seq);
		if (pct < 0) {
			strbuf_adds(&t, "? (unknown");
			if (inv->cpu_wait_note)
				strbuf_addf(&t, ": %s", inv->cpu_wait_note);
			strbuf_adds(&t, ")");
			svg_add_rect(sb, px - 2.5, base - 5, 5, 5,
				 "class=\"wait unknown\" fill=\"#ffffff\" stroke=\"#999999\"", t.buf);
			continue;
		}
		svg_add_num(&t, all, 3);
		strbuf_adds(&t, " % of its wall time");
		if (inv->cpu_wait_source)
			strbuf_addf(&t, " (%s)", inv->cpu_wait_source);
		if (invocation_foreign_wait_pct(inv) >= 0) {
			strbuf_adds(&t, ", at most ");
			svg_add_num(&t, pct, 3);
			strbuf_adds(&t, " % on other processes");
		}
		attrs = xasprintf("class=\"wait\" fill=\"%s\"", svg_colour(r->variant[i]));
		svg_add_rect(sb, px - w / 2, svg_axis_px(&r->cpu, pct), w, base - svg_axis_px(&r->cpu, pct),
			 attrs, t.buf);
		free(attrs);
	}
	strbuf_reset(&t);
	strbuf_adds(&t, "max_cpu_wait_pct ");
	svg_add_num(&t, r->limit, 3);
	strbuf_adds(&t, " %");
	if (r->limit >= 0 && !r->limit_off_scale) {
		double py = svg_axis_px(&r->cpu, r->limit);
		svg_add_line(sb, PLOT_L, py, PLOT_R, py,
			 "class=\"limit\" stroke=\"#9a0000\" stroke-width=\"1.5\" "
			 "stroke-dasharray=\"2 3\"", t.buf);
		svg_add_text(sb, PLOT_R - 4, py - 4,
			 "font-size=\"11\" fill=\"#9a0000\" text-anchor=\"end\"", t.buf);
	} else if (r->limit >= 0) {
		strbuf_adds(&t, " (above the scale)");
		svg_add_text(sb, PLOT_R - 4, CPU_T + 14,
			 "font-size=\"11\" fill=\"#9a0000\" text-anchor=\"end\"", t.buf);
	}
	strbuf_release(&t);
}

static void runs_legend(struct strbuf *sb, const struct runs_plot *r)
{
	double y = plots_legend_variants(sb, NULL, r->names, r->nnames, WALL_T + 6);

	plots_key_circle(sb, y, 1);
	y = plots_key_row(sb, y, "warmup or did not count");
	svg_add_rect(sb, LEGEND_X, y - 6, 16, 12, "fill=\"#efefef\"", NULL);
	y = plots_key_row(sb, y, "warmup");
	svg_add_cross(sb, "#555555", LEGEND_X + 8, y, "key", NULL);
	y = plots_key_row(sb, y, "never started");
	y += 6;
	svg_add_text(sb, LEGEND_X, y + 4, "font-size=\"11\" font-weight=\"bold\"", "status");
	y += 17;
	for (size_t k = 0; k < ARRAY_SIZE(status_fills); k++) {
		size_t i = 0;
		char attrs[48];

		while (i < r->ninvs && r->invs[i].status != status_fills[k].status)
			i++;
		if (i == r->ninvs)
			continue;
		snprintf(attrs, sizeof(attrs), "fill=\"%s\"", status_fills[k].fill);
		svg_add_rect(sb, LEGEND_X + 3, y - 5, 10, 10, attrs, NULL);
		y = plots_key_row(sb, y, invocation_status_name(status_fills[k].status));
	}
}

char *plots_runs_svg(const struct comparison *c, const struct invocation *invs, size_t ninvs)
{
	struct runs_plot r = { 0 };
	struct strbuf sb = STRBUF_INIT;

	r.invs = invs;
	r.ninvs = ninvs;
	runs_variants(&r, c);
	svg_open(&sb, RUNS_H, "Every invocation: wall time and contention",
		 "Wall time of each invocation in execution order, warmups included; below it the "
		 "status and the share of its wall time it waited for a CPU.");
	if (!ninvs) {
		svg_draw_frame(&sb, WALL_T, CPU_B);
		svg_add_text(&sb, (PLOT_L + PLOT_R) / 2.0, (WALL_T + CPU_B) / 2.0,
			 "class=\"empty\" font-size=\"18\" fill=\"#777777\" text-anchor=\"middle\"",
			 "no invocations");
	} else {
		runs_axes(&r);
		draw_warmups(&sb, &r);
		svg_draw_y_axis(&sb, &r.wall, r.wall_unit);
		svg_draw_frame(&sb, WALL_T, WALL_B);
		draw_walls(&sb, &r);
		draw_statuses(&sb, &r);
		svg_draw_y_axis(&sb, &r.cpu, "CPU wait on others (% of wall)");
		svg_draw_frame(&sb, CPU_T, CPU_B);
		draw_contention(&sb, &r);
		svg_draw_x_axis(&sb, &r.x, CPU_B);
	}
	runs_legend(&sb, &r);
	strbuf_adds(&sb, "</svg>\n");
	free(r.names);
	free(r.variant);
	free(r.wall_unit);
	return strbuf_detach(&sb, NULL);
}

