/*
 * plots: SVG written by hand, since dots and lines need no library and a
 * library would be one more thing to pin for byte-identical output. Every
 * coordinate and tick label goes through add_decimal(), which prints
 * fixed-point decimals from an integer, so printf's choice of notation
 * cannot change a byte; figures in words (medians, tooltips) come from
 * units.c like everywhere else, in the C locale abev never leaves. Both
 * plots share one frame: the title and a line of explanation on top, the
 * plot area on the left, the legend in a column on the right. A metric
 * plot is made in steps: place the runs and the gates' limits, choose the
 * axes, then draw back to front (grid, gate lines, medians, runs, gate
 * labels) and the legend.
 */
#include "plots.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "util.h"

/* The frame in px of the viewBox. */
enum {
	WIDTH = 840,
	PLOT_L = 84, PLOT_R = 590, LEGEND_X = 612,
	METRIC_H = 440, METRIC_T = 66, METRIC_B = 380,
	RUNS_H = 540, WALL_T = 66, WALL_B = 270, STRIP_T = 280, STRIP_B = 292,
	CPU_T = 312, CPU_B = 470,
};
#define MARKER_R 4.0
#define NAME_SHOWN 20   /* characters of a name the legend shows */
#define LEGEND_ROWS 7   /* variants the legend lists; the rest are counted */
#define MAX_TICKS 40
#define FILE_BASE_MAX 64

/* Okabe and Ito's colours, which stay apart for colour-blind readers; yellow left out. */
static const char *const palette[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
};
enum shape { CIRCLE, SQUARE, TRIANGLE, DIAMOND, NSHAPES };

#define LE "\xe2\x89\xa4"     /* ≤ */
#define GE "\xe2\x89\xa5"     /* ≥ */
#define MINUS "\xe2\x88\x92"  /* − */
#define ELLIPSIS "\xe2\x80\xa6"

/* ---- numbers and elements ---- */

/*
 * Appends v with `decimals` (0..9) decimals, trailing zeros cut when trim
 * is set, never an exponent or "-0". Magnitudes past 1e15 units of the
 * last decimal are clamped: no figure abev plots comes near.
 */
static void add_decimal(struct strbuf *sb, double v, int decimals, int trim)
{
	long long scale = 1, q;
	char frac[16];
	int n = decimals;

	for (int i = 0; i < decimals; i++)
		scale *= 10;
	v = isfinite(v) ? v * (double)scale : 0;
	v = v > 1e15 ? 1e15 : v < -1e15 ? -1e15 : v;
	q = llround(v);
	if (q < 0) {
		strbuf_addch(sb, '-');
		q = -q;
	}
	strbuf_addf(sb, "%lld", q / scale);
	if (!decimals || (trim && !(q % scale)))
		return;
	snprintf(frac, sizeof(frac), "%0*lld", decimals, q % scale);
	while (trim && n > 0 && frac[n - 1] == '0')
		n--;
	strbuf_addf(sb, ".%.*s", n, frac);
}

/* At most `decimals` decimals: coordinates and figures in text. */
static void add_num(struct strbuf *sb, double v, int decimals)
{
	add_decimal(sb, v, decimals, 1);
}

static void attr_num(struct strbuf *sb, const char *name, double v)
{
	strbuf_addf(sb, " %s=\"", name);
	add_num(sb, v, 2);
	strbuf_addch(sb, '"');
}

static void add_point(struct strbuf *sb, const char *cmd, double x, double y)
{
	strbuf_adds(sb, cmd);
	add_num(sb, x, 2);
	strbuf_addch(sb, ',');
	add_num(sb, y, 2);
}

/* Ends an element opened with its attributes: with a tooltip when title is not NULL. */
static void close_elem(struct strbuf *sb, const char *elem, const char *title)
{
	if (!title) {
		strbuf_adds(sb, "/>\n");
		return;
	}
	strbuf_adds(sb, "><title>");
	strbuf_add_xml(sb, title);
	strbuf_addf(sb, "</title></%s>\n", elem);
}

/* attrs are our own constants; text is escaped. */
static void add_text(struct strbuf *sb, double x, double y, const char *attrs, const char *text)
{
	strbuf_adds(sb, "<text");
	attr_num(sb, "x", x);
	attr_num(sb, "y", y);
	if (attrs && *attrs)
		strbuf_addf(sb, " %s", attrs);
	strbuf_addch(sb, '>');
	strbuf_add_xml(sb, text);
	strbuf_adds(sb, "</text>\n");
}

static void add_line(struct strbuf *sb, double x1, double y1, double x2, double y2,
		     const char *attrs, const char *title)
{
	strbuf_adds(sb, "<line");
	attr_num(sb, "x1", x1);
	attr_num(sb, "y1", y1);
	attr_num(sb, "x2", x2);
	attr_num(sb, "y2", y2);
	strbuf_addf(sb, " %s", attrs);
	close_elem(sb, "line", title);
}

static void add_rect(struct strbuf *sb, double x, double y, double w, double h,
		     const char *attrs, const char *title)
{
	strbuf_adds(sb, "<rect");
	attr_num(sb, "x", x);
	attr_num(sb, "y", y);
	attr_num(sb, "width", w);
	attr_num(sb, "height", h);
	strbuf_addf(sb, " %s", attrs);
	close_elem(sb, "rect", title);
}

static const char *colour(size_t v)
{
	return palette[v % ARRAY_SIZE(palette)];
}

/* Variant v's marker at (x, y): filled, or hollow (white inside) to say "did not count". */
static void add_marker(struct strbuf *sb, size_t v, double x, double y, double r, int hollow,
		       const char *cls, const char *title)
{
	enum shape sh = (enum shape)(v % NSHAPES);
	const char *elem = sh == CIRCLE ? "circle" : sh == SQUARE ? "rect" : "path";

	strbuf_addf(sb, "<%s class=\"%s\"", elem, cls);
	switch (sh) {
	case CIRCLE:
		attr_num(sb, "cx", x);
		attr_num(sb, "cy", y);
		attr_num(sb, "r", r);
		break;
	case SQUARE:
		attr_num(sb, "x", x - r * 0.9);
		attr_num(sb, "y", y - r * 0.9);
		attr_num(sb, "width", r * 1.8);
		attr_num(sb, "height", r * 1.8);
		break;
	case TRIANGLE:
		strbuf_adds(sb, " d=\"");
		add_point(sb, "M", x, y - r * 1.2);
		add_point(sb, " L", x + r * 1.1, y + r * 0.8);
		add_point(sb, " L", x - r * 1.1, y + r * 0.8);
		strbuf_adds(sb, " Z\"");
		break;
	case DIAMOND:
	case NSHAPES:
		strbuf_adds(sb, " d=\"");
		add_point(sb, "M", x, y - r * 1.3);
		add_point(sb, " L", x + r * 1.3, y);
		add_point(sb, " L", x, y + r * 1.3);
		add_point(sb, " L", x - r * 1.3, y);
		strbuf_adds(sb, " Z\"");
		break;
	}
	strbuf_addf(sb, " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"",
		    hollow ? "#ffffff" : colour(v), colour(v));
	close_elem(sb, elem, title);
}

/* A cross: a run that has no value to place. */
static void add_cross(struct strbuf *sb, const char *col, double x, double y, const char *cls,
		      const char *title)
{
	double r = 3.5;

	strbuf_addf(sb, "<path class=\"%s\" d=\"", cls);
	add_point(sb, "M", x - r, y - r);
	add_point(sb, " L", x + r, y + r);
	add_point(sb, " M", x - r, y + r);
	add_point(sb, " L", x + r, y - r);
	strbuf_addf(sb, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"", col);
	close_elem(sb, "path", title);
}

static void open_svg(struct strbuf *sb, int height, const char *title, const char *subtitle)
{
	strbuf_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		    "font-family=\"sans-serif\" font-size=\"12\" fill=\"#222222\">\n",
		    WIDTH, height, WIDTH, height);
	strbuf_adds(sb, "<title>");
	strbuf_add_xml(sb, title);
	strbuf_adds(sb, "</title>\n");
	/* Opaque, so that the plot reads on a dark page too. */
	strbuf_addf(sb, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		    WIDTH, height);
	add_text(sb, PLOT_L, 26, "font-size=\"16\" font-weight=\"bold\"", title);
	add_text(sb, PLOT_L, 44, "font-size=\"11\" fill=\"#555555\"", subtitle);
}

/*
 * The length in bytes of s's first max characters, and in *chars how
 * many characters that is; a byte that is not UTF-8 counts as one.
 */
static size_t utf8_prefix(const char *s, size_t max, size_t *chars)
{
	size_t n = strlen(s), i = 0, k = 0;

	for (; i < n && k < max; k++) {
		size_t len = utf8_char_len(s + i, n - i);
		i += len ? len : 1;
	}
	*chars = k;
	return i;
}

/* A name for the legend: at most NAME_SHOWN characters, then an ellipsis. Caller frees. */
static char *short_name(const char *s)
{
	size_t chars, len = utf8_prefix(s ? s : "", NAME_SHOWN, &chars);

	return s && s[len] ? xasprintf("%.*s" ELLIPSIS, (int)len, s) : xstrdup(s ? s : "");
}

/* ---- axes ---- */

struct axis {
	double lo, hi;   /* the range drawn */
	double step;     /* between ticks */
	int decimals;    /* of the tick labels */
	double p0, p1;   /* px of lo and of hi */
};

/* 1, 2, 2.5 or 5 times a power of ten (integers: 1, 2 or 5), at least raw. */
static double nice_step(double raw, int integer)
{
	double mag, f;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	if (f <= 1)
		f = 1;
	else if (f <= 2)
		f = 2;
	else if (f <= 2.5 && !(integer && mag < 10))
		f = 2.5;
	else if (f <= 5)
		f = 5;
	else
		f = 10;
	return integer && f * mag < 1 ? 1 : f * mag;
}

/* The fewest decimals (up to 9) that write every multiple of step exactly enough. */
static int step_decimals(double step)
{
	for (int d = 0; d < 9; d++) {
		double s = step * pow(10, d);
		if (fabs(s - round(s)) < 1e-6 * s)
			return d;
	}
	return 9;
}

/* A value axis over [lo, hi], a little wider, ending on whole steps. */
static void axis_values(struct axis *a, double lo, double hi, double p0, double p1)
{
	double pad = (hi - lo) * 0.05;

	/* One value (or all alike): a tenth of it either side, or 1 around zero. */
	if (!(hi - lo > fabs(hi) * 1e-9))
		pad = lo != 0 ? fabs(lo) * 0.1 : 1;
	lo -= pad;
	hi += pad;
	a->step = nice_step((hi - lo) / 5, 0);
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
	a->decimals = step_decimals(a->step);
	a->p0 = p0;
	a->p1 = p1;
}

/* An axis of run numbers first..last, with half a run of room at each end. */
static void axis_runs(struct axis *a, unsigned first, unsigned last, double p0, double p1)
{
	a->lo = first - 0.5;
	a->hi = last + 0.5;
	a->step = nice_step((double)(last - first + 1) / 10, 1);
	a->decimals = 0;
	a->p0 = p0;
	a->p1 = p1;
}

static double axis_px(const struct axis *a, double v)
{
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* Fills out[] with the values of a's ticks, at most MAX_TICKS of them; returns how many. */
static size_t axis_ticks(const struct axis *a, double *out)
{
	double k0 = ceil(a->lo / a->step - 1e-9), k1 = floor(a->hi / a->step + 1e-9);
	size_t n = 0;

	for (double k = k0; k <= k1 && n < MAX_TICKS; k++)
		out[n++] = k * a->step + 0.0;
	return n;
}

/* Horizontal grid, tick labels on the left and the rotated label of a y axis. */
static void draw_y_axis(struct strbuf *sb, const struct axis *y, const char *label)
{
	double ticks[MAX_TICKS];
	size_t n = axis_ticks(y, ticks);
	struct strbuf num = STRBUF_INIT;
	double mid = (y->p0 + y->p1) / 2;
	char *rot;

	for (size_t i = 0; i < n; i++) {
		double py = axis_px(y, ticks[i]);
		add_line(sb, PLOT_L, py, PLOT_R, py, "stroke=\"#e4e4e4\" stroke-width=\"1\"", NULL);
		add_line(sb, PLOT_L - 4, py, PLOT_L, py, "stroke=\"#444444\" stroke-width=\"1\"", NULL);
		strbuf_reset(&num);
		add_decimal(&num, ticks[i], y->decimals, 0);
		add_text(sb, PLOT_L - 7, py + 4, "font-size=\"11\" text-anchor=\"end\"", num.buf);
	}
	strbuf_reset(&num);
	strbuf_adds(&num, "rotate(-90 24,");
	add_num(&num, mid, 2);
	strbuf_addch(&num, ')');
	rot = xasprintf("text-anchor=\"middle\" transform=\"%s\"", num.buf);
	add_text(sb, 24, mid, rot, label);
	free(rot);
	strbuf_release(&num);
}

/* Tick marks and run numbers under the plot area at y_px, and the axis label. */
static void draw_x_axis(struct strbuf *sb, const struct axis *x, double y_px)
{
	double ticks[MAX_TICKS];
	size_t n = axis_ticks(x, ticks);
	struct strbuf num = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		double px = axis_px(x, ticks[i]);
		add_line(sb, px, y_px, px, y_px + 4, "stroke=\"#444444\" stroke-width=\"1\"", NULL);
		strbuf_reset(&num);
		add_num(&num, ticks[i], 0);
		add_text(sb, px, y_px + 17, "font-size=\"11\" text-anchor=\"middle\"", num.buf);
	}
	add_text(sb, (PLOT_L + PLOT_R) / 2.0, y_px + 36, "text-anchor=\"middle\"",
		 "run (execution order)");
	strbuf_release(&num);
}

static void draw_frame(struct strbuf *sb, double top, double bottom)
{
	add_rect(sb, PLOT_L, top, PLOT_R - PLOT_L, bottom - top,
		 "fill=\"none\" stroke=\"#444444\" stroke-width=\"1\"", NULL);
}

/*
 * The unit an axis shows values of `unit` in, and the factor into it,
 * chosen by the largest magnitude: ms or s, KiB or MiB, and for any other
 * unit powers of a thousand once values reach 10^5. Caller frees.
 */
static char *axis_unit(const char *unit, double maxabs, double *factor)
{
	int k = 0;

	if (units_seconds(unit) > 0 || units_is_bytes(unit))
		return xstrdup(units_scale(unit, maxabs, factor));
	while (k < 15 && maxabs / pow(10, k) >= 1e5)
		k += 3;
	*factor = pow(10, -k);
	if (!k)
		return xstrdup(unit && *unit ? unit : "value");
	return xasprintf("\xc3\x97" "10^%d %s", k, unit ? unit : "");
}

/* ---- the metric plot ---- */

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
static int measured(const struct invocation *inv)
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
		has = measured(&invs[i]) && compare_value(p->c, m, &invs[i], &pt->value) &&
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
	add_num(sb, fabs(pct), 2);
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
	axis_runs(&p->x, first, last, PLOT_L, PLOT_R);
	if (!p->nvalues)
		return;
	maxabs = fmax(fabs(lo), fabs(hi));
	p->unit_shown = axis_unit(p->cm->unit, maxabs, &p->factor);
	/* Up is more: the top of the plot area is hi. */
	axis_values(&p->y, lo * p->factor, hi * p->factor, METRIC_B, METRIC_T);
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
		gl->py = axis_px(&p->y, gl->value * p->factor);
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
			add_line(sb, PLOT_L, gl->py, PLOT_R, gl->py,
				 "class=\"gate\" stroke=\"#9a0000\" stroke-width=\"1.5\"", gl->title);
			continue;
		}
		add_text(sb, PLOT_L + 6, note_y, "font-size=\"11\" fill=\"#9a0000\"", gl->label);
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
		utf8_prefix(gl->label, SIZE_MAX, &chars);
		/* About 6 px a character at 11 px: enough for the ground, no need to measure. */
		w = (double)chars * 6.2 + 4;
		x = gl->at.left ? PLOT_L + 2 : PLOT_R - 2 - w;
		add_rect(sb, x, gl->at.y - 10, w, 13, "fill=\"#ffffff\" fill-opacity=\"0.8\"", NULL);
		add_text(sb, x + 2, gl->at.y, "font-size=\"11\" fill=\"#9a0000\"", gl->label);
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
		py = axis_px(&p->y, s->median * p->factor);
		strbuf_reset(&t);
		strbuf_addf(&t, "%s median: ", s->variant);
		units_add(&t, s->median, p->cm->unit);
		attrs = xasprintf("class=\"median\" stroke=\"%s\" stroke-width=\"1.5\" "
				  "stroke-dasharray=\"6 4\"", colour(v));
		add_line(sb, PLOT_L, py, PLOT_R, py, attrs, t.buf);
		free(attrs);
	}
	strbuf_release(&t);
}

/* The tooltip of a run: which, where, its value and why it did not count. */
static void run_title(struct strbuf *t, const struct invocation *inv, int has, double value,
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
	strbuf_addf(t, ", %s", counted ? counted : inv_status_name(inv->status));
	if (!counted && inv->reason)
		strbuf_addf(t, " (%s)", inv->reason);
}

static void draw_runs(struct strbuf *sb, const struct metric_plot *p)
{
	static const char *const cls[] = { "run counted", "run excluded", "run novalue" };
	struct strbuf t = STRBUF_INIT;

	for (size_t i = 0; i < p->npts; i++) {
		const struct point *pt = &p->pts[i];
		double px = axis_px(&p->x, pt->inv->seq);
		int has = pt->kind != RUN_NOVALUE;

		run_title(&t, pt->inv, has, pt->value, p->cm->unit,
			  pt->kind == RUN_COUNTED ? "counted" : NULL);
		if (has)
			add_marker(sb, pt->variant, px, axis_px(&p->y, pt->value * p->factor),
				   MARKER_R, pt->kind != RUN_COUNTED, cls[pt->kind], t.buf);
		else
			add_cross(sb, colour(pt->variant), px, METRIC_B - 6, cls[pt->kind], t.buf);
	}
	strbuf_release(&t);
}

static void draw_no_values(struct strbuf *sb, const struct metric_plot *p)
{
	char *why = p->npts ? xasprintf("%zu recorded run%s, none with a value of %s", p->npts,
					p->npts == 1 ? "" : "s", p->cm->name)
			    : xstrdup("no recorded run");

	add_text(sb, (PLOT_L + PLOT_R) / 2.0, (METRIC_T + METRIC_B) / 2.0,
		 "class=\"empty\" font-size=\"18\" fill=\"#777777\" text-anchor=\"middle\"",
		 "no values");
	add_text(sb, (PLOT_L + PLOT_R) / 2.0, (METRIC_T + METRIC_B) / 2.0 + 20,
		 "font-size=\"11\" fill=\"#777777\" text-anchor=\"middle\"", why);
	free(why);
}

/* A row of the legend's key, below the variants: a grey mark and what its style means. */
static double key_row(struct strbuf *sb, double y, const char *what)
{
	add_text(sb, LEGEND_X + 24, y + 4, "font-size=\"11\"", what);
	return y + 17;
}

static void key_circle(struct strbuf *sb, double y, int hollow)
{
	strbuf_adds(sb, "<circle class=\"key\"");
	attr_num(sb, "cx", LEGEND_X + 8);
	attr_num(sb, "cy", y);
	strbuf_addf(sb, " r=\"4\" fill=\"%s\" stroke=\"#555555\" stroke-width=\"1.5\"/>\n",
		    hollow ? "#ffffff" : "#555555");
}

/* Each variant's mark and name; under it its median and change, when detail is set. */
static double legend_variants(struct strbuf *sb, const struct cmp_metric *cm,
			      const char *const *names, size_t nnames, double y)
{
	struct strbuf t = STRBUF_INIT;
	size_t shown = nnames < LEGEND_ROWS ? nnames : LEGEND_ROWS;

	for (size_t v = 0; v < shown; v++) {
		char *name = short_name(names[v]);
		const struct cmp_sample *s = cm ? &cm->samples[v] : NULL;

		add_marker(sb, v, LEGEND_X + 8, y, MARKER_R, 0, "key", NULL);
		add_text(sb, LEGEND_X + 24, y + 4, "font-weight=\"bold\"", name);
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
				units_add_pct(&t, s->change_pct);
			}
		}
		add_text(sb, LEGEND_X + 24, y + 4, "font-size=\"11\" fill=\"#555555\"", t.buf);
		y += 20;
	}
	if (nnames > shown) {
		strbuf_reset(&t);
		strbuf_addf(&t, "and %zu more variant%s", nnames - shown,
			    nnames - shown == 1 ? "" : "s");
		add_text(sb, LEGEND_X + 24, y + 4, "font-size=\"11\"", t.buf);
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
	y = legend_variants(sb, p->cm, names, p->cm->nsamples, METRIC_T + 6);
	free(names);
	key_circle(sb, y, 0);
	y = key_row(sb, y, "counted run");
	key_circle(sb, y, 1);
	y = key_row(sb, y, "did not count");
	add_cross(sb, "#555555", LEGEND_X + 8, y, "key", NULL);
	y = key_row(sb, y, "no value");
	add_line(sb, LEGEND_X, y, LEGEND_X + 16, y,
		 "stroke=\"#555555\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"", NULL);
	y = key_row(sb, y, "median");
	for (size_t i = 0; i < p->ngates; i++)
		any_gate |= p->gates[i].drawable && p->nvalues;
	if (any_gate) {
		add_line(sb, LEGEND_X, y, LEGEND_X + 16, y, "stroke=\"#9a0000\" stroke-width=\"1.5\"",
			 NULL);
		key_row(sb, y, "gate limit");
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

	title = p.cm->unit && *p.cm->unit ? xasprintf("%s (%s)", p.cm->name, p.cm->unit)
					  : xstrdup(p.cm->name);
	subtitle = xasprintf("Each recorded run in execution order; %s is better.",
			     p.cm->better_higher ? "higher" : "lower");
	open_svg(&sb, METRIC_H, title, subtitle);
	if (p.nvalues)
		draw_y_axis(&sb, &p.y, p.unit_shown);
	draw_frame(&sb, METRIC_T, METRIC_B);
	if (p.npts)
		draw_x_axis(&sb, &p.x, METRIC_B);
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

/* ---- the runs plot ---- */

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
		double ms = (double)inv->wall_ns / 1e6;

		first = inv->seq < first ? inv->seq : first;
		last = inv->seq > last ? inv->seq : last;
		if (measured(inv)) {
			lo = fmin(lo, ms);
			hi = fmax(hi, ms);
		}
		if (invocation_cpu_wait_pct(inv) >= 0)
			cpu_hi = fmax(cpu_hi, invocation_cpu_wait_pct(inv));
		if (isfinite(inv->max_cpu_wait_pct) && inv->max_cpu_wait_pct >= 0) {
			one_limit &= limit < 0 || limit == inv->max_cpu_wait_pct;
			limit = inv->max_cpu_wait_pct;
		}
	}
	axis_runs(&r->x, first, last, PLOT_L, PLOT_R);
	if (lo > hi)
		lo = hi = 0;
	r->wall_unit = axis_unit("ms", fmax(fabs(lo), fabs(hi)), &r->wall_factor);
	axis_values(&r->wall, lo * r->wall_factor, hi * r->wall_factor, WALL_B, WALL_T);
	/* A limit far above what was seen would flatten every bar: name it instead. */
	r->limit = -1;
	if (limit >= 0 && one_limit) {
		r->limit = limit;
		r->limit_off_scale = limit > 2 * cpu_hi;
		if (!r->limit_off_scale)
			cpu_hi = fmax(cpu_hi, limit);
	}
	axis_values(&r->cpu, 0, cpu_hi, CPU_B, CPU_T);
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
		x0 = axis_px(&r->x, r->invs[i].seq) - half;
		x1 = axis_px(&r->x, r->invs[j].seq) + half;
		add_rect(sb, x0, WALL_T, x1 - x0, CPU_B - WALL_T, "fill=\"#efefef\"", NULL);
		if (x1 - x0 >= 50)
			add_text(sb, x0 + 4, WALL_T + 14, "font-size=\"11\" fill=\"#777777\"", "warmup");
		i = j;
	}
}

static void draw_walls(struct strbuf *sb, const struct runs_plot *r)
{
	struct strbuf t = STRBUF_INIT;

	for (size_t i = 0; i < r->ninvs; i++) {
		const struct invocation *inv = &r->invs[i];
		double px = axis_px(&r->x, inv->seq), ms = (double)inv->wall_ns / 1e6;
		int counted = compare_counts(inv);
		const char *cls = inv->warmup ? "inv warmup" : counted ? "inv counted" : "inv excluded";

		run_title(&t, inv, measured(inv), ms, "ms",
			  inv->warmup ? "warmup" : counted ? "counted" : NULL);
		if (!measured(inv))
			add_cross(sb, colour(r->variant[i]), px, WALL_B - 6, "inv novalue", t.buf);
		else
			add_marker(sb, r->variant[i], px, axis_px(&r->wall, ms * r->wall_factor),
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

	add_text(sb, PLOT_L - 7, STRIP_B - 1, "font-size=\"11\" text-anchor=\"end\"", "status");
	for (size_t i = 0; i < r->ninvs; i++) {
		const struct invocation *inv = &r->invs[i];
		char *title = xasprintf("run %u: %s%s%s", inv->seq, inv_status_name(inv->status),
					inv->reason ? ": " : "", inv->reason ? inv->reason : "");

		snprintf(attrs, sizeof(attrs), "class=\"status %s\" fill=\"%s\"",
			 inv_status_name(inv->status), status_fill(inv->status));
		add_rect(sb, axis_px(&r->x, inv->seq) - w / 2, STRIP_T, w, STRIP_B - STRIP_T, attrs,
			 title);
		free(title);
	}
}

static void draw_contention(struct strbuf *sb, const struct runs_plot *r)
{
	double w = cell_width(r), base = axis_px(&r->cpu, 0);
	struct strbuf t = STRBUF_INIT;

	for (size_t i = 0; i < r->ninvs; i++) {
		const struct invocation *inv = &r->invs[i];
		double px = axis_px(&r->x, inv->seq);
		char *attrs;

		double pct = invocation_cpu_wait_pct(inv);

		strbuf_reset(&t);
		strbuf_addf(&t, "run %u: waited for a CPU ", inv->seq);
		if (pct < 0) {
			strbuf_adds(&t, "? (unknown");
			if (inv->cpu_wait_note)
				strbuf_addf(&t, ": %s", inv->cpu_wait_note);
			strbuf_adds(&t, ")");
			add_rect(sb, px - 2.5, base - 5, 5, 5,
				 "class=\"wait unknown\" fill=\"#ffffff\" stroke=\"#999999\"", t.buf);
			continue;
		}
		add_num(&t, pct, 3);
		strbuf_adds(&t, " % of its wall time");
		if (inv->cpu_wait_source)
			strbuf_addf(&t, " (%s)", inv->cpu_wait_source);
		attrs = xasprintf("class=\"wait\" fill=\"%s\"", colour(r->variant[i]));
		add_rect(sb, px - w / 2, axis_px(&r->cpu, pct), w, base - axis_px(&r->cpu, pct),
			 attrs, t.buf);
		free(attrs);
	}
	strbuf_reset(&t);
	strbuf_adds(&t, "max_cpu_wait_pct ");
	add_num(&t, r->limit, 3);
	strbuf_adds(&t, " %");
	if (r->limit >= 0 && !r->limit_off_scale) {
		double py = axis_px(&r->cpu, r->limit);
		add_line(sb, PLOT_L, py, PLOT_R, py,
			 "class=\"limit\" stroke=\"#9a0000\" stroke-width=\"1.5\" "
			 "stroke-dasharray=\"2 3\"", t.buf);
		add_text(sb, PLOT_R - 4, py - 4,
			 "font-size=\"11\" fill=\"#9a0000\" text-anchor=\"end\"", t.buf);
	} else if (r->limit >= 0) {
		strbuf_adds(&t, " (above the scale)");
		add_text(sb, PLOT_R - 4, CPU_T + 14,
			 "font-size=\"11\" fill=\"#9a0000\" text-anchor=\"end\"", t.buf);
	}
	strbuf_release(&t);
}

static void runs_legend(struct strbuf *sb, const struct runs_plot *r)
{
	double y = legend_variants(sb, NULL, r->names, r->nnames, WALL_T + 6);

	key_circle(sb, y, 1);
	y = key_row(sb, y, "warmup or did not count");
	add_rect(sb, LEGEND_X, y - 6, 16, 12, "fill=\"#efefef\"", NULL);
	y = key_row(sb, y, "warmup");
	add_cross(sb, "#555555", LEGEND_X + 8, y, "key", NULL);
	y = key_row(sb, y, "never started");
	y += 6;
	add_text(sb, LEGEND_X, y + 4, "font-size=\"11\" font-weight=\"bold\"", "status");
	y += 17;
	for (size_t k = 0; k < ARRAY_SIZE(status_fills); k++) {
		size_t i = 0;
		char attrs[48];

		while (i < r->ninvs && r->invs[i].status != status_fills[k].status)
			i++;
		if (i == r->ninvs)
			continue;
		snprintf(attrs, sizeof(attrs), "fill=\"%s\"", status_fills[k].fill);
		add_rect(sb, LEGEND_X + 3, y - 5, 10, 10, attrs, NULL);
		y = key_row(sb, y, inv_status_name(status_fills[k].status));
	}
}

char *plots_runs_svg(const struct comparison *c, const struct invocation *invs, size_t ninvs)
{
	struct runs_plot r = { 0 };
	struct strbuf sb = STRBUF_INIT;

	r.invs = invs;
	r.ninvs = ninvs;
	runs_variants(&r, c);
	open_svg(&sb, RUNS_H, "Every invocation: wall time and contention",
		 "Wall time of each invocation in execution order, warmups included; below it the "
		 "status and the share of its wall time it waited for a CPU.");
	if (!ninvs) {
		draw_frame(&sb, WALL_T, CPU_B);
		add_text(&sb, (PLOT_L + PLOT_R) / 2.0, (WALL_T + CPU_B) / 2.0,
			 "class=\"empty\" font-size=\"18\" fill=\"#777777\" text-anchor=\"middle\"",
			 "no invocations");
	} else {
		runs_axes(&r);
		draw_warmups(&sb, &r);
		draw_y_axis(&sb, &r.wall, r.wall_unit);
		draw_frame(&sb, WALL_T, WALL_B);
		draw_walls(&sb, &r);
		draw_statuses(&sb, &r);
		draw_y_axis(&sb, &r.cpu, "CPU wait (% of wall)");
		draw_frame(&sb, CPU_T, CPU_B);
		draw_contention(&sb, &r);
		draw_x_axis(&sb, &r.x, CPU_B);
	}
	runs_legend(&sb, &r);
	strbuf_adds(&sb, "</svg>\n");
	free(r.names);
	free(r.variant);
	free(r.wall_unit);
	return strbuf_detach(&sb, NULL);
}

/* ---- file names and writing ---- */

/* The metric's name made safe for a file: see plots.h. Caller frees. */
static char *file_base(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	char *b;

	if (n > FILE_BASE_MAX)
		n = FILE_BASE_MAX;
	if (!n)
		return xstrdup("_");
	b = xstrndup(name, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)b[i];
		int ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
			 (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
		if (!ok || (i == 0 && ch == '.'))
			b[i] = '_';
	}
	return b;
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

static int write_plot(const char *dir, const char *name, char *svg)
{
	char *path = path_join(dir, name);
	int ret = write_file_atomic(path, svg, strlen(svg));

	free(path);
	free(svg);
	return ret;
}

int plots_write(const char *root, const struct comparison *c, const struct invocation *invs,
		size_t ninvs)
{
	char *dir = path_join(root, PLOTS_DIR);
	char **names = file_bases(c);
	int ret = mkdir_p(dir);

	for (size_t m = 0; !ret && m < c->nmetrics; m++) {
		char *name = xasprintf("%s.svg", names[m]);
		ret = write_plot(dir, name, plots_metric_svg(c, m, invs, ninvs));
		free(name);
	}
	if (!ret)
		ret = write_plot(dir, PLOTS_RUNS_FILE, plots_runs_svg(c, invs, ninvs));
	strv_free(names);
	free(dir);
	return ret;
}
