/*
 * summary: the words a comparison is told in — the decision line, one
 * line per metric and compared variant ("candidate  wall  212 ms vs
 * 178 ms  1.19× slower [1.15, 1.23] (+19.24%)  gate ≤ +15%: FAIL"), and
 * what the sample size allows one to say. The terminal and report.md
 * both take their sentences from here, so they cannot disagree. It
 * computes nothing: every figure comes from the comparison.
 */
#ifndef ABEV_SUMMARY_H
#define ABEV_SUMMARY_H

#include <stdio.h>

#include "decide/compare.h"

struct strbuf;

/*
 * "rejected: 1 of 4 gates failed" and the like ("no decision: interrupted
 * after 8 of 20 rounds; what they showed, not a decision: accepted: ..."
 * for an interrupted run), then why any variant, or
 * metric of one, has no counted value ("; 'b' has no counted run: ...",
 * which may quote a command's stderr: escape it for a terminal), without
 * a newline.
 */
void summary_decision(struct strbuf *sb, const struct comparison *c);
/* Sample s's median with its unit, or "n/a" when it has no counted run. */
void summary_median(struct strbuf *sb, const struct cmp_metric *m, const struct cmp_sample *s);
/* Sample s's median against the reference's: "212 ms vs 178 ms". */
void summary_figures(struct strbuf *sb, const struct cmp_metric *cm, const struct cmp_sample *s);
/*
 * The ratio of sample s to the reference, turned over below 1 so that the
 * word carries the direction, with its interval: "1.19× slower [1.15,
 * 1.23]", "no clear difference: 1.03× [0.89, 1.12]". s has a change.
 */
void summary_ratio(struct strbuf *sb, const struct cmp_metric *m, const struct cmp_sample *s);
/* The change of sample s against the reference: "1.19× slower [1.15, 1.23] (+19.24%)". */
void summary_change(struct strbuf *sb, const struct cmp_metric *m, const struct cmp_sample *s);
/* A gate's limit in words: "≤ +15%", "≥ -10%", "≤ 1.50 s". */
void summary_gate_limit(struct strbuf *sb, const struct cmp_metric *m, const struct cmp_gate *g);
/* What would decide an inconclusive gate: " (needs about 24 rounds at this noise)"; else nothing. */
void summary_gate_needed(struct strbuf *sb, const struct cmp_gate *g);
/*
 * The sentence on what the number of runs allows: the smallest p-value
 * attainable with them and how many runs (and paired rounds) reaching
 * p < alpha would need, or that they suffice.
 */
void summary_sample_size(struct strbuf *sb, const struct comparison *c);
/*
 * The levels, appended to a clause: each gate's (the comparison's
 * gate_confidence) and the decision's over its gate judgements
 * (Bonferroni); nothing with one judgement, whose level is the decision's.
 */
void summary_levels(struct strbuf *sb, const struct comparison *c);
/*
 * schedule.until "decided": the looks planned, each look's confidence,
 * the looks taken and where the run stopped; nothing for a fixed number
 * of rounds.
 */
void summary_sequential(struct strbuf *sb, const struct comparison *c);
/* The sentence that no acceptance decision is implied, for plans that do not declare one; "" otherwise. */
const char *summary_acceptance_caveat(const struct comparison *c);

/*
 * Prints line and a newline to f, the line made safe by
 * strbuf_add_escaped_line(): names, units and notes from a plan or from
 * evidence on disk cannot drive or reorder the terminal. Resets line.
 */
void summary_put_line(FILE *f, struct strbuf *line);
/*
 * Whether the terminal shows metric cm: every metric but wall_own, which
 * only where it says something wall does not (the comparison is contended)
 * or a gate judges it.
 */
int summary_metric_shown(const struct comparison *c, const struct cmp_metric *cm);
/*
 * Prints the end of a run to f: the decision, then (unless quiet) one
 * line per metric summary_metric_shown() and compared variant, and the
 * sample-size note. With colour (util/colour.h decides), the decision's
 * word, the variants, the ratios and the gates' verdicts are coloured as
 * hyperfine colours its summary; the text is the same either way.
 */
void summary_print(FILE *f, const struct comparison *c, int quiet, int colour);

#endif
