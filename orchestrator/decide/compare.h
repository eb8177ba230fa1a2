/*
 * compare: the one place that turns recorded invocations into the
 * comparison every output shows — per metric and variant the counted
 * values in execution order and their summary, against the reference
 * variant the change, the ratio with its bootstrap interval, the exact
 * Mann–Whitney and (round-paired) Wilcoxon tests, an order-effect check,
 * outliers and noise, then each gate's verdict and the decision.
 *
 * Pure computation over the records it is handed: no I/O, no clock, so
 * the same invocations and configuration give the same comparison, bit
 * for bit, in `abev run`, `abev report`, `abev export` and `abev compare`.
 * Serialising it is evidence.c's job; rendering it is report.c's.
 */
#ifndef ABEV_COMPARE_H
#define ABEV_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "record/gate_def.h"
#include "record/guard_result.h"
#include "record/reason.h"
#include "record/invocation.h"
#include "decide/stats.h"

/* Defaults of the plan's "decision" object (record/gate_def.h has the rest). */
#define COMPARE_ALPHA 0.05
/* A metric whose coefficient of variation is over this (percent) is flagged noisy. */
#define COMPARE_NOISY_CV_PCT 10.0
/* Modified z-score (Iglewicz & Hoaglin) above which a value is an outlier. */
#define COMPARE_OUTLIER_Z STATS_OUTLIER_Z
/* A slot shift larger than this (percent of the median) is an order effect... */
#define COMPARE_ORDER_SHIFT_PCT 5.0

/* A metric as the comparison knows it. All strings borrowed by the config. */
struct compare_metric_def {
	const char *name;
	const char *unit;
	int better_higher;
	const char *source;        /* "builtin", "process", "stdout", ... */
};

struct compare_gate_def {
	const char *metric;
	enum gate_kind kind;
	double limit;
};

/*
 * A sequential design (schedule.until "decided"): the gates were looked
 * at after the rounds in looks[], each look at look_confidence so that
 * the error over all of them stays within 1 - confidence (Bonferroni),
 * and the run stopped at the first look that decided every gate. The
 * comparison is made at look_confidence.
 */
struct compare_look {
	unsigned round;
	enum decision decision;
};

struct compare_sequential {
	double confidence;         /* overall: the plan's decision.confidence */
	double look_confidence;    /* each look's: 1 - (1 - confidence) / nlooks */
	unsigned min_rounds, max_rounds;
	const unsigned *looks;     /* pre-registered, ascending; borrowed */
	size_t nlooks;
	const struct compare_look *taken; /* in order; borrowed */
	size_t ntaken;
	unsigned decided_round;    /* the round of the look that decided every gate, or 0 */
};

struct compare_config {
	const char *const *variants;  /* plan order */
	size_t nvariants;
	size_t reference;             /* index into variants */
	const struct compare_metric_def *metrics; /* the plan's, without the built-ins */
	size_t nmetrics;
	const struct compare_gate_def *gates;
	size_t ngates;
	double confidence;            /* of the bootstrap interval, e.g. 0.95 */
	unsigned resamples;
	uint64_t seed;
	int acceptance;               /* the plan declares itself an acceptance plan */
	int inconclusive_fails;       /* an inconclusive decision fails the run */
	int unpaired;                 /* values of different runs (abev compare): no rounds */
	const char *order;            /* the schedule's order ("alternate", ...), or NULL */
	const struct compare_sequential *sequential; /* borrowed; NULL: a fixed number of rounds */
	/*
	 * The run was interrupted (its evidence says so): whatever its
	 * rounds show, it decides nothing. rounds_planned: the rounds the
	 * schedule planned (max_rounds with until "decided"); 0 unknown.
	 */
	int interrupted;
	unsigned rounds_planned;
	/*
	 * Evidence written before the joint gate interval (its gate
	 * intervals have no "parts"): recomputed by the rule it was decided
	 * by, the paired interval alone from stats_wsr_interval_n_preferred()
	 * rounds.
	 */
	int gi_paired_alone;
};

/* One counted value. */
struct cmp_value {
	double value;
	unsigned seq, round;
	unsigned slot;         /* 1-based position of its variant within the round */
	int outlier;
};

/* Why a round of a variant was left out of the pairing with the reference. */
enum cmp_left_out_why {
	CMP_LEFT_NOT_POSITIVE,   /* a negative value of a lower-is-better metric: no ratio */
	CMP_LEFT_NO_REFERENCE,   /* no counted run of the reference in that round */
	CMP_LEFT_NO_VARIANT,     /* no counted run of this variant in that round */
};
struct cmp_left_out {
	unsigned round;
	enum cmp_left_out_why why;
};
/*
 * The estimate a variant's change is told by: the Hodges–Lehmann estimate
 * whose exact interval the change gates judge (gi_point), where there is
 * one, else the ratio of medians — so that the figure printed beside an
 * interval is the one the interval is of. As a ratio, and as a change in
 * percent.
 */
struct cmp_sample;
double compare_estimate(const struct cmp_sample *s);
double compare_estimate_pct(const struct cmp_sample *s);

/* "a negative value of a lower-is-better metric", ... (static). */
const char *compare_left_out_text(enum cmp_left_out_why why);
/* Its key in result.json: "not_positive", "no_reference_run", "no_run" (static). */
const char *compare_left_out_key(enum cmp_left_out_why why);

/* The methods of a gate interval (cmp_sample.gi_method, result.json's gate_interval.method). */
#define COMPARE_GI_PAIRED "wilcoxon_paired"
#define COMPARE_GI_UNPAIRED "mann_whitney"
#define COMPARE_GI_JOINT "wilcoxon_paired_and_mann_whitney"

/*
 * A gate interval's method in words: "paired and unpaired", "paired",
 * "unpaired" ("?" for NULL or another); whether it counts rounds (the
 * joint and the paired one) rather than runs a side.
 */
const char *compare_gi_words(const char *method);
/* The rounds from which the change gates judge by round at conf (cfg's rule). */
size_t compare_gate_pairs_needed(const struct compare_config *cfg, double conf);
int compare_gi_by_round(const char *method);

/* One of the two intervals of a joint gate interval, in ratio terms. */
struct cmp_gi_part {
	const char *method;    /* COMPARE_GI_PAIRED or COMPARE_GI_UNPAIRED */
	double point, lo, hi, coverage;
};

/* One variant under one metric. Notes are static strings or NULL. */
struct cmp_sample {
	const char *variant;   /* borrowed from the config */
	int is_reference;
	struct cmp_value *values;  /* counted runs in execution order */
	size_t n;
	size_t excluded;       /* recorded runs that did not count for this metric */
	double median, min, max, mean, sd, mad, cv_pct;
	size_t outliers;
	int noisy;

	/* Against the reference; has_* = 0 with a note saying why. */
	int has_change;
	double change_pct, ratio;
	const char *change_note;
	int has_ci;
	double ci_lo, ci_hi;   /* of the ratio of medians */
	const char *ci_note;
	int has_mw;
	double mw_u;           /* U of this variant: pairs where it is larger, plus half the ties */
	double mw_p, mw_min_p, hl_shift;
	int mw_exact;
	const char *mw_note;

	/* Paired by round with the reference; the rounds left out of it, in order (owned). */
	size_t pairs;
	struct cmp_left_out *left_out;
	size_t nleft_out;
	int has_paired;
	double pair_ratio_median, pair_ratio_min, pair_ratio_max;
	double wsr_p, wsr_min_p;
	int wsr_exact;
	const char *paired_note;

	/*
	 * The interval the change gates judge, with exact coverage (ratio
	 * terms, like ratio; compare_gate_interval()): when the schedule
	 * pairs runs and there are enough rounds, the paired Wilcoxon
	 * signed-rank interval of the rounds' log-ratios and the unpaired
	 * Mann–Whitney one of the log values together (COMPARE_GI_JOINT:
	 * stats_joint_interval(), its two parts in gi_parts[0] and [1],
	 * gi_disjoint when they did not meet), else the Mann–Whitney interval
	 * alone (COMPARE_GI_UNPAIRED), a value of 0 or below taken as nothing
	 * (compare_parts.h: compare_gate_log()). gi_point is the estimate
	 * (the Hodges–Lehmann one; joint: the paired one, within the
	 * interval); gi_coverage the coverage its order statistics give (at
	 * least the confidence; joint: the Bonferroni bound of the parts');
	 * gi_n the rounds, or the runs of the smaller side, it used;
	 * gi_needed how many the method needs at the confidence (joint: the
	 * rounds from which it is taken). has_gi = 0 with gi_note saying why
	 * (REASON_NOT_POSITIVE with the counts of negative values of a
	 * lower-is-better metric, reference's and this variant's; the others'
	 * numbers are the samples' n, pairs and gi_needed, and the
	 * comparison's).
	 */
	int has_gi;
	const char *gi_method;
	const char *gi_rule;   /* which method's rule applied and why (static), or NULL */
	double gi_point, gi_lo, gi_hi, gi_coverage;
	size_t gi_n, gi_needed;
	struct cmp_gi_part gi_parts[2];
	int gi_disjoint;
	enum reason_code gi_note;
	size_t gi_not_positive_ref, gi_not_positive;

	/* Order effect: does running first in a round shift this variant's figures? */
	int order_testable;
	size_t order_n_first, order_n_later;
	double order_first_median, order_later_median, order_shift_pct, order_p;
	int order_warning;
	const char *order_note;
};

struct cmp_metric {
	const char *name, *unit, *source; /* borrowed from the config (built-ins: static) */
	int better_higher;
	struct cmp_sample *samples;       /* one per variant, plan order */
	size_t nsamples;
};

struct cmp_gate {
	const char *metric;    /* borrowed */
	const char *variant;   /* borrowed */
	enum gate_kind kind;
	double limit;
	int has_observed;
	double observed;       /* change % (regression/improvement) or median (budget) */
	int has_interval;
	double lo, hi;         /* the interval in the same terms as observed */
	const char *method;    /* what judged it: "wilcoxon_paired", "mann_whitney",
	                          "median_order_statistics" (budget), or NULL: none */
	double coverage;       /* the interval's exact coverage; valid with method */
	enum gate_verdict verdict;
	/*
	 * Why, as a code (record/reason.h) over the numbers here: n is the
	 * rounds or runs a side the change's interval used, or the counted
	 * runs of a budget; n_min the runs a budget's interval needs; note
	 * why a change has no interval (REASON_NO_INTERVAL). The words are
	 * report/reason_words.c's.
	 */
	enum reason_code reason;
	enum reason_code note;
	size_t n, n_min;
	/*
	 * An inconclusive change gate: about how many rounds (paired) or runs
	 * a side (unpaired) would decide it at the noise observed — the
	 * method's minimum when there were too few, else the interval's
	 * half-width scaled as 1/sqrt(n) until it clears the limit. 0: none
	 * (decided, a budget, or the change sits on the limit).
	 */
	size_t n_needed;
	int n_needed_paired;   /* n_needed counts rounds (else runs a side) */
};

/*
 * How much one test's duration changed against the reference: the tests
 * of each compared variant whose median duration over its counted runs
 * moved most, from the durations the result files give (TRX, JUnit). The
 * interval is the change gates' (gate_interval): paired by round when it
 * can be.
 */
struct cmp_test_change {
	char *test;                 /* owned */
	const char *variant;        /* borrowed */
	size_t n_ref, n;            /* counted runs that gave the test a duration */
	double ref_median_ms, median_ms, change_pct;
	int has_mw;
	double mw_p;
	int has_gi;
	const char *gi_method;      /* static, with has_gi */
	double gi_lo, gi_hi;        /* ratio */
};
/* The most tests listed per compared variant, and the floor below which a test is not ranked. */
/*
 * Why a variant, or one metric of it, has no counted value: code
 * REASON_NO_RECORDED_RUN, REASON_NO_COUNTED_RUNS (runs recorded, shared
 * of them for the same reason: their status, the reason of the first
 * of them and the end of its stderr) or REASON_METRIC_NO_VALUE (reason:
 * the metrics guard's, or NULL). Strings borrowed from the config and
 * the invocations.
 */
struct cmp_missing {
	const char *variant;
	const char *metric;    /* NULL: no run of the variant counted; else the metric */
	enum reason_code code;
	size_t runs, shared;
	enum inv_status status;
	const char *reason;
	const char *stderr_tail;
};

/*
 * A warning (REASON_NOISY: value the coefficient of variation in %,
 * limit COMPARE_NOISY_CV_PCT; REASON_SLOT_EFFECT: value the shift in %
 * when it ran later, p its Mann–Whitney p; REASON_OUTLIERS: count of
 * them, limit COMPARE_OUTLIER_Z). Names borrowed.
 */
struct cmp_warning {
	enum reason_code code;
	const char *metric, *variant;
	double value, limit, p;
	size_t count;
};

/*
 * A recorded run whose test guard failed (REASON_TEST_GUARD_FAILED):
 * its variant and round, the guard and the guard's reason (NULL: none
 * recorded). Strings borrowed from the invocations.
 */
struct cmp_blocking {
	enum reason_code code;
	const char *variant;
	unsigned round;
	enum guard_kind guard;
	const char *guard_reason;
};

/*
 * An inconclusive gate whose estimate is closer to its limit than the
 * interval's half-width over this gets no estimate of the rounds needed
 * (it would be over this squared times the rounds run).
 */
#define COMPARE_NEEDED_MAX_FACTOR 30.0
#define COMPARE_TEST_CHANGES_MAX 10
#define COMPARE_TEST_MIN_MS 1.0

/* The foreign wait (% of a run's wall time) past which the comparison is contended. */
#define COMPARE_CONTENDED_PCT 1.0

/*
 * The level of each gate's interval: 1 - (1 - cfg->confidence) / m, m the
 * gates judged (every gate for every compared variant; at least 1;
 * gate_def_judgement_confidence()), so
 * that the chance the decision holds a wrong fail or pass — over all its
 * gates and variants, not per gate — stays within 1 - cfg->confidence
 * (Bonferroni: valid for intervals, where Holm's step-down is not
 * standard). The judgements' count into *m when m is not NULL.
 */
double compare_gate_confidence(const struct compare_config *cfg, size_t *m);

struct comparison {
	const char *reference;       /* borrowed */
	/*
	 * confidence: the decision's (the plan's, or a look's); gate_confidence
	 * each gate's interval's and budget's, compare_gate_confidence() over
	 * gate_judgements; alpha the tests' level.
	 */
	double confidence, gate_confidence, alpha;
	size_t gate_judgements;
	unsigned resamples;
	uint64_t seed;
	int acceptance, inconclusive_fails, unpaired;
	const char *order;           /* the config's (borrowed), or NULL */
	const struct compare_sequential *sequential; /* the config's (borrowed), or NULL */
	struct cmp_metric *metrics;  /* built-ins first, then the plan's */
	size_t nmetrics;
	struct cmp_gate *gates;      /* config order, then variant order */
	size_t ngates;
	enum decision decision;
	/*
	 * Why there is no decision though the plan sets gates, or the run was
	 * interrupted (REASON_IN_DECISION; REASON_NONE otherwise):
	 * REASON_NOTHING_COMPARED when no gate had counted runs on both sides
	 * (a budget: of its variant) and no failed test guard rejects;
	 * REASON_INTERRUPTED for an interrupted run, gates or not, with shown
	 * what the gates said of the rounds run — not a decision — and
	 * rounds_done (rounds in which every variant has a recorded run) of
	 * rounds_planned (the config's).
	 */
	enum reason_code no_decision;
	enum decision shown;
	unsigned rounds_done, rounds_planned;
	/*
	 * A counted run waited for CPUs other processes held at least
	 * COMPARE_CONTENDED_PCT of its wall time: wall_own then differs from
	 * wall, and the terminal shows it (it is always compared).
	 */
	int contended;
	/*
	 * What the sample size allows one to say: the worst case over the
	 * gated metrics (wall when none is gated) and the variants with
	 * counted runs on both sides (min_n 0: there is none); the smallest
	 * attainable p with the values' ties as they are.
	 */
	size_t min_n, min_pairs;
	size_t min_n_ref, min_n_other;  /* the sizes of the pair with the largest mw_min_p */
	double mw_min_p, wsr_min_p;
	size_t mw_n_needed, wsr_n_needed;
	const char *size_metric;     /* the metric of that worst case (borrowed), or NULL */
	/*
	 * The rounds from which change gates judge the paired interval
	 * (stats_wsr_interval_n_preferred()), and the runs a side the
	 * unpaired one needs, at the confidence.
	 */
	size_t pairs_needed_ci, runs_needed_ci;
	struct cmp_warning *warnings; /* noisy metrics, order effects, outliers */
	size_t nwarnings, warnings_alloc;
	/*
	 * Recorded runs whose tests fail acceptance whatever the figures: a
	 * failed test_set or min_executed guard (a candidate that ran fewer
	 * tests, or none). Each makes the decision rejected. At most
	 * COMPARE_BLOCKING_MAX (blocking_omitted counts the rest).
	 */
	struct cmp_blocking *blocking;
	size_t nblocking, blocking_alloc, blocking_omitted;
	/*
	 * Per compared variant (plan order), the COMPARE_TEST_CHANGES_MAX tests
	 * whose median duration changed most (largest |change_pct| first, then
	 * by name), among the tests with a duration on both sides and a median
	 * of at least COMPARE_TEST_MIN_MS on one; tests_timed counts the
	 * distinct tests that had a duration in a counted run.
	 */
	struct cmp_test_change *test_changes;
	size_t ntest_changes, tests_timed;
	/*
	 * Why a figure is missing, plan order: a
	 * variant none of whose recorded runs counted (the most common
	 * reason, with the end of its stderr), and a plan metric a variant's
	 * counted runs all failed to yield (the metrics guard's reason).
	 */
	struct cmp_missing *missing;
	size_t nmissing, missing_alloc;
};
#define COMPARE_BLOCKING_MAX 10

#define COMPARISON_INIT { 0 }

/*
 * Whether a recorded invocation's figures count: not a warmup, its
 * process exited (status ok, or failed only by guards), and every guard
 * but "metrics" passed. A metric it did not yield is left out of that
 * metric alone.
 */
int compare_counts(const struct invocation *inv);

/*
 * The value of c's metric m in inv (wall and cpu in ms, max_rss in
 * bytes, the plan's metrics as extracted): 1, or 0 when inv has none.
 */
int compare_value(const struct comparison *c, size_t m, const struct invocation *inv,
		  double *out);

/*
 * Computes the comparison of invs[0..ninvs) (execution order) under cfg.
 * cfg and invs must outlive out (names are borrowed). Never fails: what
 * cannot be computed is absent with a note.
 */
void compare_compute(const struct compare_config *cfg, const struct invocation *invs,
		     size_t ninvs, struct comparison *out);
void compare_release(struct comparison *c);

#endif
