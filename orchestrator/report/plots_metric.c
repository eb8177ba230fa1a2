/*
 * plots_metric: the plot of one metric — every run as a dot per variant,
 * medians, and the gates' limits as lines — made in steps: place the runs
 * and the gates' limits, choose the axes, then draw back to front (grid,
 * gate lines, medians, runs, gate labels) and the legend. The drawing
 * primitives are svg.c's; file names and writing are plots.c's.
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


enum run_kind { RUN_COUNTED, RUN_EXCLUDED, RUN_NOVALUE };

struct point {
	const struct invocation *inv;
	size_t variant;
	enum run_kind kind;
	double value;          /* in the metric's unit; none for RUN_NOVALUE */
};

/* Where a gate's label stands: at which end of its line, and at what height. */
struct label_spot {
	int left;
	double y;
};

/* One line per gate definition: its gates are consecutive in c->gates. */
struct gate_line {
	int drawable;
	double value;          /* the absolute limit, in the metric's unit */
	char *label;           /* "regression gate ≤ +15%" */
	char *title;           /* what it is and each candidate's verdict */
	double py;             /* where the line is drawn */
	struct label_spot at;  /* where its label is */
};

struct metric_plot {
	const struct comparison *c;
	const struct cmp_metric *cm;
	struct point *pts;
	size_t npts, nvalues;
	struct gate_line *gates;
	size_t ngates;
	double factor;         /* metric's unit -> axis unit */
	char *unit_shown;
	struct axis x, y;
};

/* A run whose command never started measured nothing, whatever its record holds. */
int plots_measured(const struct invocation *inv)
{
	return inv->status != INV_EXEC_FAILED;
}

static size_t sample_index(const struct cmp_metric *cm, const char *variant)
{
	for (size_t v = 0; variant && v < cm->nsamples; v++)
		if (!strcmp(cm->samples[v].variant, variant))
			return v;
	return SIZE_MAX;
}

static void place_runs(struct metric_plot *p, size_t m, const struct invocation *invs,
		       size_t ninvs)
{
	p->pts = xcalloc(ninvs ? ninvs : 1, sizeof(*p->pts));
	for (size_t i = 0; i < ninvs; i++) {
		struct point *pt = &p->pts[p->npts];
		size_t v = invs[i].warmup ? SIZE_MAX : sample_index(p->cm, invs[i].variant);
		int has;

		if (v == SIZE_MAX)
			continue;
		pt->inv = &invs[i];
		pt->variant = v;
		has = plots_measured(&invs[i]) && compare_value(p->c, m, &invs[i], &pt->value) &&
		      isfinite(pt->value);
		pt->kind = !has ? RUN_NOVALUE : compare_counts(&invs[i]) ? RUN_COUNTED : RUN_EXCLUDED;
		p->nvalues += has;
		p->npts++;
	}
}

static const struct cmp_sample *reference_sample(const struct cmp_metric *cm)
{
	for (size_t v = 0; v < cm->nsamples; v++)
		if (cm->samples[v].is_reference)
			return &cm->samples[v];
	return NULL;
}

/* "+15%" or "−20%": a gate's limit as the change it allows. */
static void add_pct(struct strbuf *sb, double pct)
{
	strbuf_adds(sb, pct < 0 ? MINUS : "+");
	svg_add_num(sb, fabs(pct), 2);
	strbuf_addch(sb, '%');
}

/* Where gate g's limit lies in the metric's unit, and its label; as compare.c judges it. */
static void place_gate(const struct cmp_metric *cm, const struct cmp_gate *g,
		       struct gate_line *gl)
{
	const struct cmp_sample *ref = reference_sample(cm);
	struct strbuf sb = STRBUF_INIT;
	int lower = !cm->better_higher;

	if (g->kind == GATE_BUDGET) {
		strbuf_addf(&sb, "budget %s ", lower ? LE : GE);
		units_add(&sb, g->limit, cm->unit);
		gl->value = g->limit;
		gl->drawable = isfinite(g->limit);
	} else {
		int regression = g->kind == GATE_MAX_REGRESSION;
		/* In change-% terms the bad side of a regression limit L is +L when lower is better. */
		double pct = regression == lower ? g->limit : -g->limit;

		strbuf_addf(&sb, "%s gate %s ", regression ? "regression" : "improvement",
			    regression == lower ? LE : GE);
		add_pct(&sb, pct);
		if (ref && ref->n && ref->median != 0 && isfinite(pct)) {
			gl->value = ref->median + fabs(ref->median) * pct / 100;
			gl->drawable = 1;
		} else {
			strbuf_adds(&sb, ": no reference median to place it");
		}
	}
	gl->label = strbuf_detach(&sb, NULL);
}

static int same_definition(const struct cmp_gate *a, const struct cmp_gate *b)
{
	return !strcmp(a->metric, b->metric) && a->kind == b->kind && a->limit == b->limit;
}

static void place_gates(struct metric_plot *p)
{
	const struct comparison *c = p->c;

	p->gates = xcalloc(c->ngates ? c->ngates : 1, sizeof(*p->gates));
	for (size_t i = 0; i < c->ngates; i++) {
		const struct cmp_gate *g = &c->gates[i];
		struct gate_line *gl;
		struct strbuf t = STRBUF_INIT;
		size_t j;

		if (strcmp(g->metric, p->cm->name) || (i && same_definition(&c->gates[i - 1], g)))
			continue;
		gl = &p->gates[p->ngates++];
		place_gate(p->cm, g, gl);
		strbuf_addf(&t, "%s:", gl->label);
		for (j = i; j < c->ngates && same_definition(&c->gates[j], g); j++)
			strbuf_addf(&t, "%s %s %s", j == i ? "" : ",", c->gates[j].variant,
				    gate_verdict_word(c->gates[j].verdict));
		gl->title = strbuf_detach(&t, NULL);
	}
}

/* The axes: runs in execution order across, and every value, median and limit up. */
static void choose_axes(struct metric_plot *p)
{
	double lo = INFINITY, hi = -INFINITY, maxabs;
	unsigned first = p->pts[0].inv->seq, last = first;

	for (size_t i = 0; i < p->npts; i++) {
		const struct point *pt = &p->pts[i];
		first = pt->inv->seq < first ? pt->inv->seq : first;
		last = pt->inv->seq > last ? pt->inv->seq : last;
		if (pt->kind == RUN_NOVALUE)
			continue;
		lo = fmin(lo, pt->value);
		hi = fmax(hi, pt->value);
	}
	for (size_t i = 0; i < p->ngates; i++)
		if (p->gates[i].drawable) {
			lo = fmin(lo, p->gates[i].value);
			hi = fmax(hi, p->gates[i].value);
		}
	svg_axis_runs(&p->x, first, last, PLOT_L, PLOT_R);
	if (!p->nvalues)
		return;
	maxabs = fmax(fabs(lo), fabs(hi));
	p->unit_shown = svg_axis_unit(p->cm->unit, maxabs, &p->factor);
	/* Up is more: the top of the plot area is hi. */
	svg_axis_values(&p->y, lo * p->factor, hi * p->factor, METRIC_B, METRIC_T);
}

/*
 * Where a gate's label goes: above its line at the right end, unless a
 * label placed before is within a line of text there; then the left end,
 * then below the line.
 */
static struct label_spot place_label(double py, const struct gate_line *placed, size_t n)
{
	static const struct label_spot tries[] = { { 0, -4 }, { 1, -4 }, { 0, 12 }, { 1, 12 } };
	struct label_spot at = { 0, py - 4 };

	for (size_t k = 0; k < ARRAY_SIZE(tries); k++) {
		size_t i = 0;

		at.left = tries[k].left;
		at.y = py + tries[k].y;
		while (i < n && !(placed[i].drawable && placed[i].at.left == at.left &&
				  fabs(placed[i].at.y - at.y) < 12))
			i++;
		if (i == n)
			break;
	}
	return at;
}

static void place_gate_lines(struct metric_plot *p)
{
	for (size_t i = 0; i < p->ngates; i++) {
		struct gate_line *gl = &p->gates[i];

		if (!gl->drawable)
			continue;
		gl->py = svg_axis_px(&p->y, gl->value * p->factor);
		gl->at = place_label(gl->py, p->gates, i);
	}
}

/* The lines, below the runs; a gate that cannot be placed is named at the top left. */
static void draw_gate_lines(struct strbuf *sb, const struct metric_plot *p)
{
	double note_y = METRIC_T + 14;

	for (size_t i = 0; i < p->ngates; i++) {
		const struct gate_line *gl = &p->gates[i];

		if (gl->drawable && p->nvalues) {
			svg_add_line(sb, PLOT_L, gl->py, PLOT_R, gl->py,
				 "class=\"gate\" stroke=\"#9a0000\" stroke-width=\"1.5\"", gl->title);
			continue;
		}
		svg_add_text(sb, PLOT_L + 6, note_y, "font-size=\"11\" fill=\"#9a0000\"", gl->label);
		note_y += 14;
	}
}

/* The labels, above the runs, each on a pale ground so that dots do not hide it. */
static void draw_gate_labels(struct strbuf *sb, const struct metric_plot *p)
{
	for (size_t i = 0; i < p->ngates; i++) {
		const struct gate_line *gl = &p->gates[i];
		size_t chars;
		double w, x;

		if (!gl->drawable || !p->nvalues)
			continue;
		svg_utf8_prefix(gl->label, SIZE_MAX, &chars);
		/* About 6 px a character at 11 px: enough for the ground, no need to measure. */
		w = (double)chars * 6.2 + 4;
		x = gl->at.left ? PLOT_L + 2 : PLOT_R - 2 - w;
		svg_add_rect(sb, x, gl->at.y - 10, w, 13, "fill=\"#ffffff\" fill-opacity=\"0.8\"", NULL);
		svg_add_text(sb, x + 2, gl->at.y, "font-size=\"11\" fill=\"#9a0000\"", gl->label);
	}
}

static void draw_medians(struct strbuf *sb, const struct metric_plot *p)
{
	struct strbuf t = STRBUF_INIT;

	for (size_t v = 0; v < p->cm->nsamples; v++) {
		const struct cmp_sample *s = &p->cm->samples[v];
		double py;
		char *attrs;

		if (!s->n || !isfinite(s->median))
			continue;
		py = svg_axis_px(&p->y, s->median * p->factor);
		strbuf_reset(&t);
		strbuf_addf(&t, "%s median: ", s->variant);
		units_add(&t, s->median, p->cm->unit);
		attrs = xasprintf("class=\"median\" stroke=\"%s\" stroke-width=\"1.5\" "
				  "stroke-dasharray=\"6 4\"", svg_colour(v));
		svg_add_line(sb, PLOT_L, py, PLOT_R, py, attrs, t.buf);
		free(attrs);
	}
	strbuf_release(&t);
}

/* The tooltip of a run: which, where, its value and why it did not count. */
void plots_run_title(struct strbuf *t, const struct invocation *inv, int has, double value,
		      const char *unit, const char *counted)
{
	strbuf_reset(t);
	strbuf_addf(t, "%s, run %u (round %u", inv->variant ? inv->variant : "", inv->seq,
		    inv->round);
	if (inv->attempt > 1)
		strbuf_addf(t, ", attempt %u", inv->attempt);
	strbuf_adds(t, "): ");
	if (has)
		units_add(t, value, unit);
	else
		strbuf_adds(t, "no value");
	strbuf_addf(t, ", %s", counted ? counted : invocation_status_name(inv->status));
	if (!counted && inv->reason)
		strbuf_addf(t, " (%s)", inv->reason);
}

static void draw_runs(struct strbuf *sb, const struct metric_plot *p)
{
	static const char *const cls[] = { "run counted", "run excluded", "run novalue" };
	struct strbuf t = STRBUF_INIT;

	for (size_t i = 0; i < p->npts; i++) {
		const struct point *pt = &p->pts[i];
		double px = svg_axis_px(&p->x, pt->inv->seq);
		int has = pt->kind != RUN_NOVALUE;

		plots_run_title(&t, pt->inv, has, pt->value, p->cm->unit,
			  pt->kind == RUN_COUNTED ? "counted" : NULL);
		if (has)
			svg_add_marker(sb, pt->variant, px, svg_axis_px(&p->y, pt->value * p->factor),
				   MARKER_R, pt->kind != RUN_COUNTED, cls[pt->kind], t.buf);
		else
			svg_add_cross(sb, svg_colour(pt->variant), px, METRIC_B - 6, cls[pt->kind], t.buf);
	}
	strbuf_release(&t);
}

static void draw_no_values(struct strbuf *sb, const struct metric_plot *p)
{
	char *why = p->npts ? xasprintf("%zu recorded run%s, none with a value of %s", p->npts,
					p->npts == 1 ? "" : "s", p->cm->name)
			    : xstrdup("no recorded run");

	svg_add_text(sb, (PLOT_L + PLOT_R) / 2.0, (METRIC_T + METRIC_B) / 2.0,
		 "class=\"empty\" font-size=\"18\" fill=\"#777777\" text-anchor=\"middle\"",
		 "no values");
	svg_add_text(sb, (PLOT_L + PLOT_R) / 2.0, (METRIC_T + METRIC_B) / 2.0 + 20,
		 "font-size=\"11\" fill=\"#777777\" text-anchor=\"middle\"", why);
	free(why);
}

/* A row of the legend's key, below the variants: a grey mark and what its style means. */
double plots_key_row(struct strbuf *sb, double y, const char *what)
{
	svg_add_text(sb, LEGEND_X + 24, y + 4, "font-size=\"11\"", what);
	return y + 17;
}

void plots_key_circle(struct strbuf *sb, double y, int hollow)
{
	strbuf_adds(sb, "<circle class=\"key\"");
	svg_attr_num(sb, "cx", LEGEND_X + 8);
	svg_attr_num(sb, "cy", y);
	strbuf_addf(sb, " r=\"4\" fill=\"%s\" stroke=\"#555555\" stroke-width=\"1.5\"/>\n",
		    hollow ? "#ffffff" : "#555555");
}

/* Each variant's mark and name; under it its median and change, when detail is set. */
double plots_legend_variants(struct strbuf *sb, const struct cmp_metric *cm,
			      const char *const *names, size_t nnames, double y)
{
	struct strbuf t = STRBUF_INIT;
	size_t shown = nnames < LEGEND_ROWS ? nnames : LEGEND_ROWS;

	for (size_t v = 0; v < shown; v++) {
		char *name = svg_short_name(names[v]);
		const struct cmp_sample *s = cm ? &cm->samples[v] : NULL;

		svg_add_marker(sb, v, LEGEND_X + 8, y, MARKER_R, 0, "key", NULL);
		svg_add_text(sb, LEGEND_X + 24, y + 4, "font-weight=\"bold\"", name);
		free(name);
		y += 16;
		if (!s)
			continue;
		strbuf_reset(&t);
		if (!s->n) {
			strbuf_adds(&t, "no counted run");
		} else {
			strbuf_adds(&t, "median ");
			units_add(&t, s->median, cm->unit);
			if (s->is_reference)
				strbuf_adds(&t, ", reference");
			else if (s->has_change) {
				strbuf_adds(&t, ", ");
				units_add_pct(&t, compare_estimate_pct(s));
			}
		}
		svg_add_text(sb, LEGEND_X + 24, y + 4, "font-size=\"11\" fill=\"#555555\"", t.buf);
		y += 20;
	}
	if (nnames > shown) {
		strbuf_reset(&t);
		strbuf_addf(&t, "and %zu more variant%s", nnames - shown,
			    nnames - shown == 1 ? "" : "s");
		svg_add_text(sb, LEGEND_X + 24, y + 4, "font-size=\"11\"", t.buf);
		y += 18;
	}
	strbuf_release(&t);
	return y + 8;
}

static void metric_legend(struct strbuf *sb, const struct metric_plot *p)
{
	const char **names = xcalloc(p->cm->nsamples + 1, sizeof(*names));
	double y;
	int any_gate = 0;

	for (size_t v = 0; v < p->cm->nsamples; v++)
		names[v] = p->cm->samples[v].variant;
	y = plots_legend_variants(sb, p->cm, names, p->cm->nsamples, METRIC_T + 6);
	free(names);
	plots_key_circle(sb, y, 0);
	y = plots_key_row(sb, y, "counted run");
	plots_key_circle(sb, y, 1);
	y = plots_key_row(sb, y, "did not count");
	svg_add_cross(sb, "#555555", LEGEND_X + 8, y, "key", NULL);
	y = plots_key_row(sb, y, "no value");
	svg_add_line(sb, LEGEND_X, y, LEGEND_X + 16, y,
		 "stroke=\"#555555\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"", NULL);
	y = plots_key_row(sb, y, "median");
	for (size_t i = 0; i < p->ngates; i++)
		any_gate |= p->gates[i].drawable && p->nvalues;
	if (any_gate) {
		svg_add_line(sb, LEGEND_X, y, LEGEND_X + 16, y, "stroke=\"#9a0000\" stroke-width=\"1.5\"",
			 NULL);
		plots_key_row(sb, y, "gate limit");
	}
}

static void metric_plot_release(struct metric_plot *p)
{
	for (size_t i = 0; i < p->ngates; i++) {
		free(p->gates[i].label);
		free(p->gates[i].title);
	}
	free(p->gates);
	free(p->pts);
	free(p->unit_shown);
}

char *plots_metric_svg(const struct comparison *c, size_t m, const struct invocation *invs,
		       size_t ninvs)
{
	struct metric_plot p = { 0 };
	struct strbuf sb = STRBUF_INIT;
	char *title, *subtitle;

	if (m >= c->nmetrics)
		return NULL;
	p.c = c;
	p.cm = &c->metrics[m];
	p.factor = 1;
	place_runs(&p, m, invs, ninvs);
	place_gates(&p);
	if (p.npts)
		choose_axes(&p);
	if (p.nvalues)
		place_gate_lines(&p);

	/* The title names the unit the axis is drawn in (s, MiB), not the metric's own (ms, bytes). */
	{
		const char *unit = p.nvalues && p.unit_shown && *p.unit_shown ? p.unit_shown : p.cm->unit;
		title = unit && *unit ? xasprintf("%s (%s)", p.cm->name, unit) : xstrdup(p.cm->name);
	}
	subtitle = xasprintf("Each recorded run in execution order; %s is better.",
			     p.cm->better_higher ? "higher" : "lower");
	svg_open(&sb, METRIC_H, title, subtitle);
	if (p.nvalues)
		svg_draw_y_axis(&sb, &p.y, p.unit_shown);
	svg_draw_frame(&sb, METRIC_T, METRIC_B);
	if (p.npts)
		svg_draw_x_axis(&sb, &p.x, METRIC_B);
	if (!p.nvalues)
		draw_no_values(&sb, &p);
	draw_gate_lines(&sb, &p);
	if (p.nvalues)
		draw_medians(&sb, &p);
	draw_runs(&sb, &p);
	draw_gate_labels(&sb, &p);
	metric_legend(&sb, &p);
	strbuf_adds(&sb, "</svg>\n");

	free(title);
	free(subtitle);
	metric_plot_release(&p);
	return strbuf_detach(&sb, NULL);
}

