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
/* The interval s's change gates judge, from logs[0..k), the rounds' log-ratios (compare.h). */
void compare_gate_interval(const struct compare_config *cfg, const struct cmp_sample *ref,
			   struct cmp_sample *s, const double *logs, size_t k);

/* gates.c: every gate of cfg judged into c->gates, and c->decision. */
void gates_judge(const struct compare_config *cfg, struct comparison *c);
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
