/*
 * compare_parts: what the files of the comparison share and nothing else
 * sees. compare.c places the runs and computes the samples, gates.c
 * judges the gates, missing.c finds what is missing and what blocks
 * acceptance, per_test.c ranks the tests whose duration changed. Private
 * to decide/: other folders include compare.h.
 */
#ifndef ABEV_COMPARE_PARTS_H
#define ABEV_COMPARE_PARTS_H

#include <stddef.h>

#include "decide/compare.h"

/* The built-in metrics' rows, first in struct comparison's metrics. */
enum { B_WALL, B_CPU, B_RSS, B_WALL_OWN, NBUILTINS };

/*
 * Where each recorded run stood: its variant and the position of that
 * variant within its round, by the first attempt of each slot (a repeat
 * of a discarded slot keeps the slot's place).
 */
struct placement {
	size_t *variant;   /* per invocation; SIZE_MAX: unknown variant or warmup */
	unsigned *slot;    /* per invocation; 0 for warmups */
};

/* s's values in execution order, as a plain array (caller frees). */
double *compare_plain_values(const struct cmp_sample *s);
/* The index of metric name in c, or SIZE_MAX. */
size_t compare_metric_index(const struct comparison *c, const char *name);
/*
 * Where x stands on the change gates' log scale: log(x) for x > 0; a value
 * of 0 or below on a higher-is-better metric (a throughput of nothing) is
 * the worst a run can give, and 0 on a lower-is-better one (nothing spent)
 * the best: both COMPARE_LOG_NOTHING, below the log of every positive
 * double, all such values alike. So a round's log-ratio moves only the way
 * its raw values do, and no round is dropped for it: a candidate worse in
 * every round never gets a better interval. NaN for a negative value of a
 * lower-is-better metric, which has no place on a ratio scale.
 */
#define COMPARE_LOG_NOTHING (-1000.0)
/* Half of it: a Walsh average with one value of nothing lies beyond, every real log-ratio within. */
#define COMPARE_LOG_BEYOND 350.0
double compare_gate_log(double x, int better_higher);
/*
 * The interval s's change gates judge, from logs[0..k), the rounds'
 * log-ratios on that scale (compare.h), of a metric better_higher or not.
 */
void compare_gate_interval(const struct compare_config *cfg, const struct cmp_sample *ref,
			   struct cmp_sample *s, int better_higher, const double *logs, size_t k);

/* gates.c: every gate of cfg judged into c->gates, and c->decision. */
void gates_judge(const struct compare_config *cfg, struct comparison *c);
/*
 * gates.c: the decision's last word, once failed test guards have had
 * theirs: an interrupted run decides nothing (struct comparison's
 * no_decision).
 */
void gates_interrupted(const struct compare_config *cfg, struct comparison *c);
/* gates.c: what the sample size of the gated metrics allows (struct comparison). */
void gates_sample_size(const struct compare_config *cfg, struct comparison *c);

/* missing.c: the failed test guards of recorded runs into c->blocking (rejecting). */
void missing_blocking(const struct invocation *invs, size_t ninvs, struct comparison *c);
/* missing.c: why figures are missing, variant by variant, into c->missing. */
void missing_collect(const struct compare_config *cfg, const struct invocation *invs,
		     size_t ninvs, struct comparison *c);

/* per_test.c: the tests whose duration changed most, into c->test_changes. */
void per_test_changes(const struct compare_config *cfg, const struct invocation *invs,
		      size_t ninvs, const struct placement *pl, struct comparison *c);

#endif
