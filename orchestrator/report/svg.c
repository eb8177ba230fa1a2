/*
 * svg: SVG written by hand (svg.h). Every coordinate and tick label goes
 * through add_decimal(), which prints fixed-point decimals from an
 * integer, so printf's choice of notation cannot change a byte.
 */
#include "report/svg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/units.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/utf8.h"

/* Okabe and Ito's colours, which stay apart for colour-blind readers; yellow left out. */
static const char *const palette[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
};

/* ---- numbers and elements ---- */

/*
 * Appends v with `decimals` (0..9) decimals, trailing zeros cut when trim
 * is set, never an exponent or "-0". Magnitudes past 1e15 units of the
 * last decimal are clamped: no figure abev plots comes near.
 */
static void svg_add_decimal(struct strbuf *sb, double v, int decimals, int trim)
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
void svg_add_num(struct strbuf *sb, double v, int decimals)
{
	svg_add_decimal(sb, v, decimals, 1);
}

void svg_attr_num(struct strbuf *sb, const char *name, double v)
{
	strbuf_addf(sb, " %s=\"", name);
	svg_add_num(sb, v, 2);
	strbuf_addch(sb, '"');
}

static void svg_add_point(struct strbuf *sb, const char *cmd, double x, double y)
{
	strbuf_adds(sb, cmd);
	svg_add_num(sb, x, 2);
	strbuf_addch(sb, ',');
	svg_add_num(sb, y, 2);
}

/* Ends an element opened with its attributes: with a tooltip when title is not NULL. */
static void svg_close_elem(struct strbuf *sb, const char *elem, const char *title)
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
void svg_add_text(struct strbuf *sb, double x, double y, const char *attrs, const char *text)
{
	strbuf_adds(sb, "<text");
	svg_attr_num(sb, "x", x);
	svg_attr_num(sb, "y", y);
	if (attrs && *attrs)
		strbuf_addf(sb, " %s", attrs);
	strbuf_addch(sb, '>');
	strbuf_add_xml(sb, text);
	strbuf_adds(sb, "</text>\n");
}

void svg_add_line(struct strbuf *sb, double x1, double y1, double x2, double y2,
		     const char *attrs, const char *title)
{
	strbuf_adds(sb, "<line");
	svg_attr_num(sb, "x1", x1);
	svg_attr_num(sb, "y1", y1);
	svg_attr_num(sb, "x2", x2);
	svg_attr_num(sb, "y2", y2);
	strbuf_addf(sb, " %s", attrs);
	svg_close_elem(sb, "line", title);
}

void svg_add_rect(struct strbuf *sb, double x, double y, double w, double h,
		     const char *attrs, const char *title)
{
	strbuf_adds(sb, "<rect");
	svg_attr_num(sb, "x", x);
	svg_attr_num(sb, "y", y);
	svg_attr_num(sb, "width", w);
	svg_attr_num(sb, "height", h);
	strbuf_addf(sb, " %s", attrs);
	svg_close_elem(sb, "rect", title);
}

const char *svg_colour(size_t v)
{
	return palette[v % ARRAY_SIZE(palette)];
}

/* Variant v's marker at (x, y): filled, or hollow (white inside) to say "did not count". */
void svg_add_marker(struct strbuf *sb, size_t v, double x, double y, double r, int hollow,
		       const char *cls, const char *title)
{
	enum shape sh = (enum shape)(v % NSHAPES);
	const char *elem = sh == CIRCLE ? "circle" : sh == SQUARE ? "rect" : "path";

	strbuf_addf(sb, "<%s class=\"%s\"", elem, cls);
	switch (sh) {
	case CIRCLE:
		svg_attr_num(sb, "cx", x);
		svg_attr_num(sb, "cy", y);
		svg_attr_num(sb, "r", r);
		break;
	case SQUARE:
		svg_attr_num(sb, "x", x - r * 0.9);
		svg_attr_num(sb, "y", y - r * 0.9);
		svg_attr_num(sb, "width", r * 1.8);
		svg_attr_num(sb, "height", r * 1.8);
		break;
	case TRIANGLE:
		strbuf_adds(sb, " d=\"");
		svg_add_point(sb, "M", x, y - r * 1.2);
		svg_add_point(sb, " L", x + r * 1.1, y + r * 0.8);
		svg_add_point(sb, " L", x - r * 1.1, y + r * 0.8);
		strbuf_adds(sb, " Z\"");
		break;
	case DIAMOND:
	case NSHAPES:
		strbuf_adds(sb, " d=\"");
		svg_add_point(sb, "M", x, y - r * 1.3);
		svg_add_point(sb, " L", x + r * 1.3, y);
		svg_add_point(sb, " L", x, y + r * 1.3);
		svg_add_point(sb, " L", x - r * 1.3, y);
		strbuf_adds(sb, " Z\"");
		break;
	}
	strbuf_addf(sb, " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"",
		    hollow ? "#ffffff" : svg_colour(v), svg_colour(v));
	svg_close_elem(sb, elem, title);
}

/* A cross: a run that has no value to place. */
void svg_add_cross(struct strbuf *sb, const char *col, double x, double y, const char *cls,
		      const char *title)
{
	double r = 3.5;

	strbuf_addf(sb, "<path class=\"%s\" d=\"", cls);
	svg_add_point(sb, "M", x - r, y - r);
	svg_add_point(sb, " L", x + r, y + r);
	svg_add_point(sb, " M", x - r, y + r);
	svg_add_point(sb, " L", x + r, y - r);
	strbuf_addf(sb, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"", col);
	svg_close_elem(sb, "path", title);
}

void svg_open(struct strbuf *sb, int height, const char *title, const char *subtitle)
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
	svg_add_text(sb, PLOT_L, 26, "font-size=\"16\" font-weight=\"bold\"", title);
	svg_add_text(sb, PLOT_L, 44, "font-size=\"11\" fill=\"#555555\"", subtitle);
}

/*
 * The length in bytes of s's first max characters, and in *chars how
 * many characters that is; a byte that is not UTF-8 counts as one.
 */
size_t svg_utf8_prefix(const char *s, size_t max, size_t *chars)
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
char *svg_short_name(const char *s)
{
	size_t chars, len = svg_utf8_prefix(s ? s : "", NAME_SHOWN, &chars);

	return s && s[len] ? xasprintf("%.*s" ELLIPSIS, (int)len, s) : xstrdup(s ? s : "");
}



/* 1, 2, 2.5 or 5 times a power of ten (integers: 1, 2 or 5), at least raw. */
static double svg_nice_step(double raw, int integer)
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
static int svg_step_decimals(double step)
{
	for (int d = 0; d < 9; d++) {
		double s = step * pow(10, d);
		if (fabs(s - round(s)) < 1e-6 * s)
			return d;
	}
	return 9;
}

/* A value axis over [lo, hi], a little wider, ending on whole steps. */
void svg_axis_values(struct axis *a, double lo, double hi, double p0, double p1)
{
	double pad = (hi - lo) * 0.05;

	/* One value (or all alike): a tenth of it either side, or 1 around zero. */
	if (!(hi - lo > fabs(hi) * 1e-9))
		pad = lo != 0 ? fabs(lo) * 0.1 : 1;
	lo -= pad;
	hi += pad;
	a->step = svg_nice_step((hi - lo) / 5, 0);
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
	a->decimals = svg_step_decimals(a->step);
	a->p0 = p0;
	a->p1 = p1;
}

/* An axis of run numbers first..last, with half a run of room at each end. */
void svg_axis_runs(struct axis *a, unsigned first, unsigned last, double p0, double p1)
{
	a->lo = first - 0.5;
	a->hi = last + 0.5;
	a->step = svg_nice_step((double)(last - first + 1) / 10, 1);
	a->decimals = 0;
	a->p0 = p0;
	a->p1 = p1;
}

double svg_axis_px(const struct axis *a, double v)
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
void svg_draw_y_axis(struct strbuf *sb, const struct axis *y, const char *label)
{
	double ticks[MAX_TICKS];
	size_t n = axis_ticks(y, ticks);
	struct strbuf num = STRBUF_INIT;
	double mid = (y->p0 + y->p1) / 2;
	char *rot;

	for (size_t i = 0; i < n; i++) {
		double py = svg_axis_px(y, ticks[i]);
		svg_add_line(sb, PLOT_L, py, PLOT_R, py, "stroke=\"#e4e4e4\" stroke-width=\"1\"", NULL);
		svg_add_line(sb, PLOT_L - 4, py, PLOT_L, py, "stroke=\"#444444\" stroke-width=\"1\"", NULL);
		strbuf_reset(&num);
		svg_add_decimal(&num, ticks[i], y->decimals, 0);
		svg_add_text(sb, PLOT_L - 7, py + 4, "font-size=\"11\" text-anchor=\"end\"", num.buf);
	}
	strbuf_reset(&num);
	strbuf_adds(&num, "rotate(-90 24,");
	svg_add_num(&num, mid, 2);
	strbuf_addch(&num, ')');
	rot = xasprintf("text-anchor=\"middle\" transform=\"%s\"", num.buf);
	svg_add_text(sb, 24, mid, rot, label);
	free(rot);
	strbuf_release(&num);
}

/* Tick marks and run numbers under the plot area at y_px, and the axis label. */
void svg_draw_x_axis(struct strbuf *sb, const struct axis *x, double y_px)
{
	double ticks[MAX_TICKS];
	size_t n = axis_ticks(x, ticks);
	struct strbuf num = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		double px = svg_axis_px(x, ticks[i]);
		svg_add_line(sb, px, y_px, px, y_px + 4, "stroke=\"#444444\" stroke-width=\"1\"", NULL);
		strbuf_reset(&num);
		svg_add_num(&num, ticks[i], 0);
		svg_add_text(sb, px, y_px + 17, "font-size=\"11\" text-anchor=\"middle\"", num.buf);
	}
	svg_add_text(sb, (PLOT_L + PLOT_R) / 2.0, y_px + 36, "text-anchor=\"middle\"",
		 "run (execution order)");
	strbuf_release(&num);
}

void svg_draw_frame(struct strbuf *sb, double top, double bottom)
{
	svg_add_rect(sb, PLOT_L, top, PLOT_R - PLOT_L, bottom - top,
		 "fill=\"none\" stroke=\"#444444\" stroke-width=\"1\"", NULL);
}

/*
 * The unit an axis shows values of `unit` in, and the factor into it,
 * chosen by the largest magnitude: ms or s, KiB or MiB, and for any other
 * unit powers of a thousand once values reach 10^5. Caller frees.
 */
char *svg_axis_unit(const char *unit, double maxabs, double *factor)
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

