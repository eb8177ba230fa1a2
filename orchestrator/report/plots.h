/*
 * plots: the figures of an evidence directory, as SVG. plots/<metric>.svg
 * shows, per metric, every recorded run as a dot in execution order (so
 * that drift shows), each variant's median and each gate's limit;
 * plots/runs.svg shows the wall time and the foreign CPU (contention) of
 * every invocation, warmups included, with its status.
 *
 * The renderers are pure: they read no file, clock or locale, so the same
 * comparison and invocations give the same bytes. plots_write() is the
 * only function that touches the file system. Nothing here computes a
 * statistic or judges a gate: the figures come from compare.c.
 *
 * The documents are SVG 1.1 written by hand with only the elements a
 * browser and a code-hosting site's Markdown view (an <img>) draw: svg,
 * g, rect, line, polyline, circle, path, text and title. No script, no
 * style sheet, no external reference; a white background and the
 * "sans-serif" family. Names from the plan are escaped as XML and cut
 * for the legend. Each run's mark carries a class for tests and tools:
 *   metric plots: "run counted" (filled), "run excluded" (hollow: a
 *   recorded run that did not count but has a value), "run novalue"
 *   (a cross on the x axis: no value for this metric); "median" (one
 *   dashed line per variant with counted runs); "gate" (one line per
 *   gate definition whose limit can be placed);
 *   runs.svg: "inv counted", "inv excluded", "inv warmup" (hollow), "inv
 *   novalue" (the command never started), "status <invocation_status_name>",
 *   "foreign" and "foreign unknown".
 */
#ifndef ABEV_PLOTS_H
#define ABEV_PLOTS_H

#include <stddef.h>

#include "decide/compare.h"
#include "record/invocation.h"
#include "record/layout.h"


/*
 * The file name (no folder) of metric m's plot, which the report links as
 * EVIDENCE_PLOTS_DIR "/" name. The rule:
 *   - each byte of the metric's name outside [A-Za-z0-9._-] becomes '_'
 *     (a multi-byte character becomes several), a leading '.' becomes
 *     '_', an empty name is "_", and the result is cut to 64 bytes;
 *   - a name taken already — by an earlier metric (in c's order, built-ins
 *     first) or by "runs" — compared without regard to ASCII case, so
 *     that a case-insensitive file system keeps them apart, gets the
 *     first free suffix of "-2", "-3", ...;
 *   - then ".svg".
 * So "wall" is "wall.svg", "p99 latency" "p99_latency.svg", and a plan
 * metric named "Wall" "Wall-2.svg". Caller frees; NULL when m >= c->nmetrics.
 */
char *plots_file_name(const struct comparison *c, size_t m);

/*
 * The SVG of metric m (m < c->nmetrics, else NULL). invs are the records
 * c was computed from, in execution order; warmups are left out. A run
 * counts as compare_counts() says; a run that did not count is placed
 * hollow where compare_value() gives it a value, and a run whose command
 * could not be started has none. Gate lines: a regression or improvement
 * limit L at the reference median * (1 +/- L/100) in the metric's
 * direction, a budget at its limit. Caller frees.
 */
char *plots_metric_svg(const struct comparison *c, size_t m, const struct invocation *invs,
		       size_t ninvs);

/*
 * The SVG of every invocation in execution order: its wall time (hollow
 * when it did not count, warmups on a grey band), a strip of statuses,
 * and its foreign CPU in cores. c (may be NULL) gives the variants their
 * plan order, so that each keeps the colour and marker of the metric
 * plots; without it they are numbered as they first appear. Caller frees.
 */
char *plots_runs_svg(const struct comparison *c, const struct invocation *invs, size_t ninvs);

/*
 * Writes root/EVIDENCE_PLOTS_DIR/<plots_file_name()> for every metric of c and
 * root/EVIDENCE_PLOTS_DIR/EVIDENCE_PLOTS_RUNS_FILE, each atomically, creating the folder,
 * and notes each in l (evidence/ledger.h) unless l is NULL. 0, or -1 after error() at the
 * first file that could not be written.
 */
struct dirat;
struct ledger;
int plots_write(const struct dirat *root, struct ledger *l, const struct comparison *c,
		const struct invocation *invs, size_t ninvs);

#endif
