/*
 * gate_def: what a plan may ask of the decision — the kinds of gate, the
 * names of the metrics every invocation yields, and the defaults of the
 * plan's "decision" object — shared by plan/, which reads them, and
 * decide/, which applies them; and what the decision answers (a gate's
 * verdict, the decision), with the names evidence/ and report/ write.
 */
#ifndef ABEV_GATE_DEF_H
#define ABEV_GATE_DEF_H

#include <stddef.h>

/* The built-in metrics every invocation yields, besides the plan's. */
#define COMPARE_WALL "wall"       /* ms, monotonic wall time of the child */
#define COMPARE_CPU "cpu"         /* ms, user + system CPU of the child's tree */
#define COMPARE_MAX_RSS "max_rss" /* bytes, wait4() ru_maxrss */
/*
 * ms, wall less the time the run's processes waited for CPUs other
 * processes held (foreign_wait_ns): the wall time other work did not
 * lengthen by taking the run's CPUs. A run whose foreign wait is unknown
 * yields none.
 */
#define COMPARE_WALL_OWN "wall_own"

/* Defaults of the plan's "decision" object. */
#define COMPARE_CONFIDENCE 0.95
#define COMPARE_RESAMPLES 10000u

enum gate_kind {
	GATE_MAX_REGRESSION,  /* change worse than limit % in the metric's direction */
	GATE_MAX_IMPROVEMENT, /* change better than limit %: a gain that deserves a look */
	GATE_BUDGET,          /* candidate's median beyond an absolute limit (metric's unit) */
};

/* What a gate said of its metric. */
enum gate_verdict { GATE_PASS, GATE_FAIL, GATE_INCONCLUSIVE };

/* What the gates decide together. */
enum decision {
	DECISION_NONE,         /* no gate: "no decision" */
	DECISION_ACCEPTED,
	DECISION_REJECTED,     /* a gate failed */
	DECISION_INCONCLUSIVE, /* no gate failed, one could not be decided */
};

/*
 * The confidence of each of m gate judgements (gates x variants but the
 * reference) that share a decision's confidence: 1 - (1 - confidence) / m
 * (Bonferroni), m taken as at least 1. One rule for the comparison that
 * judges the gates and for whatever checks beforehand what they will need.
 */
double gate_def_judgement_confidence(double confidence, size_t judgements);
/*
 * How many gate judgements a decision makes: each of ngates gates for each
 * of nvariants but the reference. At least 1, the m above.
 */
size_t gate_def_judgements(size_t ngates, size_t nvariants);

/* Their names, as result.json, the report and the summary write them. Static. */
const char *gate_kind_name(enum gate_kind k);      /* "max_regression_pct", ... */
const char *gate_verdict_word(enum gate_verdict v); /* "pass", "fail", "inconclusive" */
const char *decision_name(enum decision d);         /* "accepted", ..., "no decision" */

#endif
