/*
 * svg: the SVG primitives and axes both of abev's plots are drawn with —
 * fixed-point numbers (never an exponent, never "-0"), text, lines,
 * rectangles, markers by variant, the document's frame, and axes with
 * "nice" ticks — plus the frame's geometry in px and the palette. It
 * writes into a strbuf and knows nothing of runs, metrics or gates: what
 * is plotted is plots_metric.c's and plots_runs.c's.
 */
#ifndef ABEV_SVG_H
#define ABEV_SVG_H

#include <stddef.h>

struct strbuf;

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

enum shape { CIRCLE, SQUARE, TRIANGLE, DIAMOND, NSHAPES };

#define LE "\xe2\x89\xa4"     /* ≤ */
#define GE "\xe2\x89\xa5"     /* ≥ */
#define MINUS "\xe2\x88\x92"  /* − */
#define ELLIPSIS "\xe2\x80\xa6"


struct axis {
	double lo, hi;   /* the range drawn */
	double step;     /* between ticks */
	int decimals;    /* of the tick labels */
	double p0, p1;   /* px of lo and of hi */
};

void svg_add_num(struct strbuf *sb, double v, int decimals);
void svg_attr_num(struct strbuf *sb, const char *name, double v);
void svg_add_text(struct strbuf *sb, double x, double y, const char *attrs, const char *text);
void svg_add_line(struct strbuf *sb, double x1, double y1, double x2, double y2,
		     const char *attrs, const char *title);
void svg_add_rect(struct strbuf *sb, double x, double y, double w, double h,
		     const char *attrs, const char *title);
const char *svg_colour(size_t v);
void svg_add_marker(struct strbuf *sb, size_t v, double x, double y, double r, int hollow,
		       const char *cls, const char *title);
void svg_add_cross(struct strbuf *sb, const char *col, double x, double y, const char *cls,
		      const char *title);
void svg_open(struct strbuf *sb, int height, const char *title, const char *subtitle);
size_t svg_utf8_prefix(const char *s, size_t max, size_t *chars);
char *svg_short_name(const char *s);
void svg_axis_values(struct axis *a, double lo, double hi, double p0, double p1);
void svg_axis_runs(struct axis *a, unsigned first, unsigned last, double p0, double p1);
double svg_axis_px(const struct axis *a, double v);
void svg_draw_y_axis(struct strbuf *sb, const struct axis *y, const char *label);
void svg_draw_x_axis(struct strbuf *sb, const struct axis *x, double y_px);
void svg_draw_frame(struct strbuf *sb, double top, double bottom);
char *svg_axis_unit(const char *unit, double maxabs, double *factor);

#endif
