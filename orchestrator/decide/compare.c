/*
 * compare: from the invocation records to the comparison. The steps, in
 * order: place every recorded run in its round and slot; gather, per
 * metric and variant, the values of the runs that count; describe each
 * sample; set each against the reference (change, ratio, bootstrap
 * interval, Mann–Whitney, round-paired Wilcoxon); check the order effect;
 * judge the gates; decide. Statistics proper live in stats.c; this file
 * only chooses what to feed them and words what cannot be said. The
 * gates (gates.c), the words for missing figures and blocking tests
 * (missing.c) and the tests whose duration changed (per_test.c) are
 * files of their own, sharing compare_parts.h.
 */
#include "decide/compare.h"
#include "decide/compare_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/stats.h"
#include "decide/stats_exact.h"
#include "util/alloc.h"
#include "util/strbuf.h"

static const struct compare_metric_def builtins[] = {
	{ COMPARE_WALL, "ms", 0, "builtin" },
	{ COMPARE_CPU, "ms", 0, "builtin" },
	{ COMPARE_MAX_RSS, "bytes", 0, "builtin" },
	{ COMPARE_WALL_OWN, "ms", 0, "builtin" },
};

int compare_counts(const struct invocation *inv)
{
	int metrics_failed = 0;

	if (inv->warmup || (inv->status != INV_OK && inv->status != INV_FAILED))
		return 0;
	if (inv->exit_code < 0 || inv->signal > 0)
		return 0;
	for (size_t i = 0; i < inv->nguards; i++) {
		if (inv->guards[i].kind == GUARD_METRICS)
			metrics_failed |= inv->guards[i].verdict != GUARD_PASS;
		else if (inv->guards[i].verdict != GUARD_PASS)
			return 0;
	}
	/* A failed run counts only when a missing metric is all that failed it. */
	return inv->status == INV_OK || metrics_failed;
}

int compare_value(const struct comparison *c, size_t m, const struct invocation *inv,
		  double *out)
{
	const char *name;

	switch (m) {
	case B_WALL:
		*out = (double)inv->fig.wall_ns / 1e6;
		return 1;
	case B_CPU:
		*out = (double)(inv->fig.user_ns + inv->fig.sys_ns) / 1e6;
		return 1;
	case B_RSS:
		*out = (double)inv->fig.max_rss_bytes;
		return 1;
	case B_WALL_OWN:
		if (inv->foreign_wait_ns < 0 || inv->foreign_wait_ns > inv->fig.wall_ns)
			return 0;
		*out = (double)(inv->fig.wall_ns - inv->foreign_wait_ns) / 1e6;
		return 1;
	}
	if (m >= c->nmetrics)
		return 0;
	name = c->metrics[m].name;
	for (size_t k = 0; k < inv->nmetrics; k++)
		if (!strcmp(inv->metrics[k].name, name)) {
			if (!inv->metrics[k].ok || !isfinite(inv->metrics[k].value))
				return 0;
			*out = inv->metrics[k].value;
			return 1;
		}
	return 0;
}

static size_t variant_index(const struct compare_config *cfg, const char *name)
{
	for (size_t i = 0; name && i < cfg->nvariants; i++)
		if (!strcmp(cfg->variants[i], name))
			return i;
	return SIZE_MAX;
}


static void place(const struct compare_config *cfg, const struct invocation *invs, size_t n,
		  struct placement *pl)
{
	unsigned maxround = 0;
	unsigned *first; /* [round][variant]: seq of the slot's first attempt, 0 none */

	pl->variant = xcalloc(n ? n : 1, sizeof(*pl->variant));
	pl->slot = xcalloc(n ? n : 1, sizeof(*pl->slot));
	for (size_t i = 0; i < n; i++) {
		pl->variant[i] = invs[i].warmup ? SIZE_MAX : variant_index(cfg, invs[i].variant);
		if (pl->variant[i] != SIZE_MAX && invs[i].round > maxround)
			maxround = invs[i].round;
	}
	if (!cfg->nvariants)
		return;
	first = xcalloc(((size_t)maxround + 1) * cfg->nvariants, sizeof(*first));
	for (size_t i = 0; i < n; i++) {
		unsigned *f;
		if (pl->variant[i] == SIZE_MAX)
			continue;
		f = &first[(size_t)invs[i].round * cfg->nvariants + pl->variant[i]];
		if (!*f || invs[i].seq < *f)
			*f = invs[i].seq;
	}
	for (size_t i = 0; i < n; i++) {
		const unsigned *row;
		unsigned mine, slot = 1;
		if (pl->variant[i] == SIZE_MAX)
			continue;
		row = &first[(size_t)invs[i].round * cfg->nvariants];
		mine = row[pl->variant[i]];
		for (size_t v = 0; v < cfg->nvariants; v++)
			slot += row[v] && row[v] < mine;
		pl->slot[i] = slot;
	}
	free(first);
}

/* The rounds in which every variant has a recorded run (not a warmup, not discarded). */
static unsigned rounds_done(const struct compare_config *cfg, const struct invocation *invs,
			    size_t n, const struct placement *pl)
{
	unsigned maxround = 0, done = 0;
	unsigned char *seen;

	for (size_t i = 0; i < n; i++)
		if (pl->variant[i] != SIZE_MAX && invs[i].round > maxround)
			maxround = invs[i].round;
	if (!cfg->nvariants || !maxround)
		return 0;
	/* seen[r * nvariants + v]: variant v has a run in round r. */
	seen = xcalloc(((size_t)maxround + 1) * cfg->nvariants, sizeof(*seen));
	for (size_t i = 0; i < n; i++)
		if (pl->variant[i] != SIZE_MAX && invs[i].status != INV_DISCARDED)
			seen[(size_t)invs[i].round * cfg->nvariants + pl->variant[i]] = 1;
	for (size_t r = 1; r <= maxround; r++) {
		size_t have = 0;
		for (size_t v = 0; v < cfg->nvariants; v++)
			have += seen[r * cfg->nvariants + v];
		done += have == cfg->nvariants;
	}
	free(seen);
	return done;
}

static void placement_release(struct placement *pl)
{
	free(pl->variant);
	free(pl->slot);
}

/* FNV-1a over s, folded into h: a per-sample seed that does not depend on list order. */
static uint64_t mix(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(0x100000001b3);
	}
	h ^= 0xff;
	h *= UINT64_C(0x100000001b3);
	return h;
}

static uint64_t sample_seed(uint64_t seed, const char *metric, const char *variant)
{
	return mix(mix(seed ^ UINT64_C(0xcbf29ce484222325), metric), variant);
}

double *compare_plain_values(const struct cmp_sample *s)
{
	double *v = xcalloc(s->n ? s->n : 1, sizeof(*v));
	for (size_t i = 0; i < s->n; i++)
		v[i] = s->values[i].value;
	return v;
}

/* The counted values of variant v under metric m, in execution order, and their summary. */
static void gather(const struct compare_config *cfg, const struct comparison *c, size_t m,
		   size_t v,
		   const struct invocation *invs, size_t n, const struct placement *pl,
		   struct cmp_sample *s)
{
	struct stats_desc d;
	unsigned char *flags;
	double *vals;

	s->variant = cfg->variants[v];
	s->is_reference = v == cfg->reference;
	s->values = xcalloc(n ? n : 1, sizeof(*s->values));
	for (size_t i = 0; i < n; i++) {
		double x;
		if (pl->variant[i] != v)
			continue;
		if (!compare_counts(&invs[i]) || !compare_value(c, m, &invs[i], &x)) {
			/* Discarded runs are repeated; only a run that stands is "excluded". */
			s->excluded += invs[i].status != INV_DISCARDED;
			continue;
		}
		s->values[s->n].value = x;
		s->values[s->n].seq = invs[i].seq;
		s->values[s->n].round = invs[i].round;
		s->values[s->n].slot = pl->slot[i];
		s->n++;
	}
	vals = compare_plain_values(s);
	stats_describe(vals, s->n, &d);
	s->median = d.median;
	s->min = d.min;
	s->max = d.max;
	s->mean = d.mean;
	s->sd = d.sd;
	s->mad = d.mad;
	s->cv_pct = d.cv * 100;
	s->noisy = s->n >= 2 && s->cv_pct > COMPARE_NOISY_CV_PCT;
	flags = xcalloc(s->n ? s->n : 1, 1);
	stats_outliers(vals, s->n, flags);
	for (size_t i = 0; i < s->n; i++) {
		s->values[i].outlier = flags[i];
		s->outliers += flags[i];
	}
	free(flags);
	free(vals);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * The smallest two-sided p Mann–Whitney can give for these values with
 * their ties as they are: the p of the most extreme assignment of the
 * pooled values (a's count of the smallest to a, or of the largest).
 * Without ties it is stats_mw_min_p(); with ties it can be larger
 * ([10, 10, 11] against [11, 12, 12] cannot reach 0.1).
 */
static double mw_min_p_observed(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	double *pool = xcalloc(n ? n : 1, sizeof(*pool));
	struct stats_mw lo, hi;
	double p = 1;

	memcpy(pool, a, na * sizeof(*a));
	memcpy(pool + na, b, nb * sizeof(*b));
	qsort(pool, n, sizeof(*pool), cmp_double);
	if (stats_mann_whitney(pool, na, pool + na, nb, &lo) == 0 &&
	    stats_mann_whitney(pool + nb, na, pool, nb, &hi) == 0)
		p = lo.p < hi.p ? lo.p : hi.p;
	free(pool);
	return p;
}

/*
 * Likewise for Wilcoxon on the rounds' log-ratios: every sign the same,
 * with the observed magnitudes (ties and zeros as they are).
 */
static double wsr_min_p_observed(const double *d, size_t n)
{
	double *a = xcalloc(n ? n : 1, sizeof(*a));
	struct stats_wsr w;

	for (size_t i = 0; i < n; i++)
		a[i] = fabs(d[i]);
	stats_wilcoxon(a, n, &w);
	free(a);
	return w.p;
}

static int all_positive(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0))
			return 0;
	return 1;
}

double compare_gate_log(double x, int better_higher)
{
	if (x > 0)
		return log(x);
	if (better_higher || x == 0)
		return COMPARE_LOG_NOTHING;
	return NAN;
}

/* How many values of s have no place on the gates' log scale (compare_gate_log()). */
static size_t not_positive(const struct cmp_sample *s, int better_higher)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += isnan(compare_gate_log(s->values[i].value, better_higher));
	return n;
}

static void against_reference(const struct compare_config *cfg, const struct cmp_metric *cm,
			      const struct cmp_sample *ref, struct cmp_sample *s)
{
	double *rv, *sv;
	struct stats_interval iv;
	struct stats_mw mw;

	if (!ref->n || !s->n) {
		s->change_note = !ref->n ? "no counted run of the reference" : "no counted run";
		s->ci_note = s->mw_note = s->change_note;
		return;
	}
	if (ref->median == 0) {
		s->change_note = "the reference median is 0";
	} else {
		s->has_change = 1;
		s->change_pct = (s->median - ref->median) / fabs(ref->median) * 100;
		/*
		 * The ratio says the change: s / ref where both are positive, and
		 * 1 + change where they are not, so that -100 to -80 (+20 %) reads
		 * 1.20x as the change does, not 0.80x the other way.
		 */
		s->ratio = ref->median > 0 ? s->median / ref->median : 1 + s->change_pct / 100;
	}
	rv = compare_plain_values(ref);
	sv = compare_plain_values(s);
	if (ref->n < 2 || s->n < 2) {
		s->ci_note = "an interval needs at least 2 counted runs a side";
	} else if (!s->has_change) {
		s->ci_note = s->change_note;
	} else if (!all_positive(rv, ref->n) || !all_positive(sv, s->n)) {
		/*
		 * A ratio of medians orders positive values only: with a value of 0
		 * or below, its interval would run the wrong way or through 0.
		 */
		s->ci_note = "values of 0 or below: the interval of a ratio of medians needs positive "
			     "values, so no change gate can be judged on this metric (a budget gate, "
			     "max or min, can)";
	} else if (stats_bootstrap_ratio(rv, ref->n, sv, s->n, cfg->confidence, cfg->resamples,
					 sample_seed(cfg->seed, cm->name, s->variant), &iv) < 0) {
		s->ci_note = stats_boot_status_name(iv.status);
	} else {
		s->has_ci = 1;
		s->ci_lo = iv.lo;
		s->ci_hi = iv.hi;
	}
	if (stats_mann_whitney(rv, ref->n, sv, s->n, &mw) == 0) {
		s->has_mw = 1;
		/* stats gives U of its first sample, the reference; this variant's is the rest. */
		s->mw_u = (double)ref->n * (double)s->n - mw.u;
		s->mw_p = mw.p;
		s->mw_exact = mw.exact;
		s->mw_min_p = mw_min_p_observed(rv, ref->n, sv, s->n);
		s->hl_shift = stats_hodges_lehmann(rv, ref->n, sv, s->n);
	}
	free(rv);
	free(sv);
}

/*
 * A log-ratio back to a ratio. Beyond e^COMPARE_LOG_BEYOND no two
 * measurements reach: such a figure is made of a value of nothing
 * (COMPARE_LOG_NOTHING), and reads as what it is, unbounded — 0 or
 * infinity (null in result.json) — not as e^500.
 */
static double ratio_of_log(double l)
{
	if (l > COMPARE_LOG_BEYOND)
		return INFINITY;
	if (l < -COMPARE_LOG_BEYOND)
		return 0;
	return exp(l);
}

/* s's gate interval from an exact interval of log values: back to a ratio. */
static void take_interval(struct cmp_sample *s, const char *method,
			  const struct stats_exact_interval *iv, size_t n)
{
	s->has_gi = 1;
	s->gi_method = method;
	s->gi_point = ratio_of_log(iv->point);
	s->gi_lo = ratio_of_log(iv->lo);
	s->gi_hi = ratio_of_log(iv->hi);
	s->gi_coverage = iv->coverage;
	s->gi_n = n;
}

/* The gate's log values of s (compare_gate_log()), plain: freed by the caller. */
static double *gate_logs(const struct cmp_sample *s, int better_higher)
{
	double *v = compare_plain_values(s);

	for (size_t i = 0; i < s->n; i++)
		v[i] = compare_gate_log(v[i], better_higher);
	return v;
}

/* A part of a joint interval, back to ratios. */
static void take_part(struct cmp_gi_part *p, const char *method,
		      const struct stats_exact_interval *iv)
{
	p->method = method;
	p->point = ratio_of_log(iv->point);
	p->lo = ratio_of_log(iv->lo);
	p->hi = ratio_of_log(iv->hi);
	p->coverage = iv->coverage;
}

/*
 * The interval s's change gates judge (compare.h), on the values' places
 * on the log scale (compare_gate_log()). When the schedule pairs runs
 * and there are stats_joint_interval_n_needed() rounds (7 at 95 %), the
 * paired interval of logs[0..k), the rounds' log-ratios, and the
 * unpaired one of every counted run's log value together
 * (stats_joint_interval(): each at its share of the error, intersected).
 * With fewer pairs — too few rounds, or discards that broke rounds — the
 * exact Mann–Whitney interval of the log values alone, which reaches
 * 95 % with 4 runs a side. The paired interval alone from 6 rounds (the
 * first at which it exists at 95 %) made the sixth round lower the power
 * (at 6 its only order statistics are the extremes), and alone from 7 the
 * seventh did under noise that strikes single runs, where the unpaired
 * one is the stronger; with the two together from 7 no round lowers the
 * power beyond noise under any noise model of bench/results.md from 6
 * rounds on (below, the unpaired interval alone is all there is). The
 * confidence is each gate judgement's share of the decision's
 * (compare_gate_confidence()). The rule depends on the number of pairs
 * alone, fixed before any value is seen, and gi_rule records which
 * applied. Runs from different evidence (abev compare) have no rounds:
 * Mann–Whitney alone. A negative value of a lower-is-better metric has no
 * place on the scale: no interval.
 */
void compare_gate_interval(const struct compare_config *cfg, const struct cmp_sample *ref,
			   struct cmp_sample *s, int better_higher, const double *logs, size_t k)
{
	double conf = compare_gate_confidence(cfg, NULL);
	size_t pairs_needed = compare_gate_pairs_needed(cfg, conf);
	size_t runs_needed = stats_mw_interval_n_needed(conf);
	size_t fewer = ref->n < s->n ? ref->n : s->n;
	size_t ref_bad = not_positive(ref, better_higher), s_bad = not_positive(s, better_higher);
	struct stats_exact_interval iv;
	double *rl = NULL, *sl = NULL;

	if (!ref->n || !s->n || !s->has_change) {
		s->gi_note = !ref->n ? REASON_NO_REFERENCE_RUN
			     : !s->n ? REASON_NO_COUNTED_RUN : REASON_CHANGE_UNKNOWN;
		return;
	}
	/*
	 * A value the scale cannot place makes the interval — any interval —
	 * unknowable, not one of the other rounds: judging the rest would hide
	 * it. (A throughput of 0 has its place: the worst.)
	 */
	if (ref_bad || s_bad) {
		s->gi_note = REASON_NOT_POSITIVE;
		s->gi_not_positive_ref = ref_bad;
		s->gi_not_positive = s_bad;
		return;
	}
	rl = gate_logs(ref, better_higher);
	sl = gate_logs(s, better_higher);
	if (!cfg->unpaired) {
		struct stats_joint_interval j;

		s->gi_needed = pairs_needed;
		if (cfg->gi_paired_alone) {
			/* Evidence written before the joint interval: its own rule. */
			if (k >= pairs_needed && stats_wsr_interval(logs, k, conf, &iv) == 0 && iv.ok) {
				s->gi_rule = "paired by round: enough rounds for the paired interval "
					     "to be as tight as the unpaired one";
				take_interval(s, COMPARE_GI_PAIRED, &iv, k);
				goto out;
			}
			s->gi_rule = "unpaired: fewer paired rounds than make the paired interval "
				     "as tight as the unpaired one";
		} else if (k >= pairs_needed &&
			   stats_joint_interval(logs, k, rl, ref->n, sl, s->n, conf, &j) == 0 && j.ok) {
			s->gi_rule = "paired and unpaired: enough rounds for both intervals, each "
				     "at its share of the error";
			iv = (struct stats_exact_interval){ .lo = j.lo, .hi = j.hi,
							    .point = j.point,
							    .coverage = j.coverage };
			take_interval(s, COMPARE_GI_JOINT, &iv, k);
			take_part(&s->gi_parts[0], COMPARE_GI_PAIRED, &j.paired);
			take_part(&s->gi_parts[1], COMPARE_GI_UNPAIRED, &j.unpaired);
			s->gi_disjoint = j.disjoint;
			goto out;
		} else {
			s->gi_rule = "unpaired: fewer paired rounds than the paired and the "
				     "unpaired interval together need";
		}
		if (fewer < runs_needed) {
			s->gi_needed = runs_needed;
			s->gi_note = REASON_TOO_FEW_ROUNDS;
			goto out;
		}
	} else {
		s->gi_rule = "unpaired: the runs come from different evidence";
		s->gi_needed = runs_needed;
	}
	if (stats_mw_interval(rl, ref->n, sl, s->n, conf, &iv) == 0 && iv.ok) {
		take_interval(s, COMPARE_GI_UNPAIRED, &iv, fewer);
		s->gi_needed = runs_needed;
	} else {
		s->gi_note = cfg->unpaired ? REASON_TOO_FEW_RUNS : REASON_TOO_FEW_ROUNDS_OR_RUNS;
	}
out:
	free(rl);
	free(sl);
}

size_t compare_gate_pairs_needed(const struct compare_config *cfg, double conf)
{
	return cfg->gi_paired_alone ? stats_wsr_interval_n_preferred(conf)
				    : stats_joint_interval_n_needed(conf);
}

const char *compare_gi_words(const char *method)
{
	if (!method)
		return "?";
	if (!strcmp(method, COMPARE_GI_JOINT))
		return "paired and unpaired";
	if (!strcmp(method, COMPARE_GI_PAIRED))
		return "paired";
	if (!strcmp(method, COMPARE_GI_UNPAIRED))
		return "unpaired";
	return "?";
}

int compare_gi_by_round(const char *method)
{
	return method && (!strcmp(method, COMPARE_GI_JOINT) || !strcmp(method, COMPARE_GI_PAIRED));
}

const char *compare_left_out_text(enum cmp_left_out_why why)
{
	switch (why) {
	case CMP_LEFT_NOT_POSITIVE:
		return "a negative value of a lower-is-better metric";
	case CMP_LEFT_NO_REFERENCE:
		return "no counted run of the reference";
	case CMP_LEFT_NO_VARIANT:
		return "no counted run of this variant";
	}
	return "?";
}

const char *compare_left_out_key(enum cmp_left_out_why why)
{
	switch (why) {
	case CMP_LEFT_NOT_POSITIVE:
		return "not_positive";
	case CMP_LEFT_NO_REFERENCE:
		return "no_reference_run";
	case CMP_LEFT_NO_VARIANT:
		return "no_run";
	}
	return "?";
}

static void left_out(struct cmp_sample *s, unsigned round, enum cmp_left_out_why why,
		     size_t *alloc)
{
	ALLOC_GROW(s->left_out, s->nleft_out + 1, *alloc);
	s->left_out[s->nleft_out].round = round;
	s->left_out[s->nleft_out++].why = why;
}

/*
 * Per round, the ratio of s's value to the reference's in the same round,
 * on the gates' log scale (compare_gate_log()): a round whose candidate
 * read a throughput of 0 is its worst round, not one left out.
 */
static void paired(const struct compare_config *cfg, const struct cmp_metric *cm,
		   const struct cmp_sample *ref, struct cmp_sample *s)
{
	double *ratios, *logs;
	size_t k = 0, skipped = 0, alloc = 0;
	struct stats_desc d;
	struct stats_wsr w;

	if (cfg->unpaired) {
		s->paired_note = "the runs compared come from different evidence: no rounds to pair";
		compare_gate_interval(cfg, ref, s, cm->better_higher, NULL, 0);
		return;
	}
	ratios = xcalloc(s->n ? s->n : 1, sizeof(*ratios));
	logs = xcalloc(s->n ? s->n : 1, sizeof(*logs));
	/*
	 * Both samples are in execution order, so their rounds ascend: one
	 * merge walk pairs them, and names every round it leaves out.
	 */
	for (size_t i = 0, j = 0; i < s->n || j < ref->n;) {
		double a, b;

		if (i == s->n || (j < ref->n && ref->values[j].round < s->values[i].round)) {
			if (!j || ref->values[j - 1].round != ref->values[j].round)
				left_out(s, ref->values[j].round, CMP_LEFT_NO_VARIANT, &alloc);
			j++;
			continue;
		}
		if (j == ref->n || s->values[i].round < ref->values[j].round) {
			if (!i || s->values[i - 1].round != s->values[i].round)
				left_out(s, s->values[i].round, CMP_LEFT_NO_REFERENCE, &alloc);
			i++;
			continue;
		}
		a = compare_gate_log(ref->values[j].value, cm->better_higher);
		b = compare_gate_log(s->values[i].value, cm->better_higher);
		if (!isnan(a) && !isnan(b)) {
			logs[k] = b - a;
			ratios[k] = exp(logs[k]);
			k++;
		} else {
			left_out(s, s->values[i].round, CMP_LEFT_NOT_POSITIVE, &alloc);
			skipped++;
		}
		i++;
		j++;
	}
	s->pairs = k;
	if (!k) {
		s->paired_note = skipped ? "ratios need values of 0 or above in both runs of a round "
					   "of a lower-is-better metric"
					 : "no round has a counted run of both";
	} else {
		stats_describe(ratios, k, &d);
		s->has_paired = 1;
		s->pair_ratio_median = d.median;
		s->pair_ratio_min = d.min;
		s->pair_ratio_max = d.max;
		stats_wilcoxon(logs, k, &w);
		s->wsr_p = w.p;
		s->wsr_exact = w.exact;
		s->wsr_min_p = wsr_min_p_observed(logs, k);
		if (skipped)
			s->paired_note = "rounds with a negative value were left out";
	}
	compare_gate_interval(cfg, ref, s, cm->better_higher, logs, k);
	free(ratios);
	free(logs);
}

/* Does running first in a round shift s's figures against running later? */
static void order_effect(const struct comparison *c, struct cmp_sample *s)
{
	double *first = xcalloc(s->n ? s->n : 1, sizeof(*first));
	double *later = xcalloc(s->n ? s->n : 1, sizeof(*later));
	struct stats_mw mw;
	size_t a = 0, b = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->values[i].slot == 1)
			first[a++] = s->values[i].value;
		else
			later[b++] = s->values[i].value;
	}
	s->order_n_first = a;
	s->order_n_later = b;
	if (c->unpaired) {
		s->order_note = "runs from different evidence: slots are not comparable";
	} else if (!a || !b) {
		/*
		 * What the schedule did, not what it usually does: balanced and
		 * reverse can end so too.
		 */
		s->order_note = c->order && !strcmp(c->order, "alternate")
					? "it ran in the same slot of every round (order alternate), so "
					  "the slot's effect cannot be told from the variant's"
				: c->order && !strcmp(c->order, "sequential")
					? "the variants ran one after another (order sequential), so "
					  "neither the slot's effect nor drift over time can be told "
					  "from the variant's"
					: "it ran in the same slot of every counted round (the rounds in "
					  "which it ran first or later were lost or too few), so the slot's "
					  "effect cannot be told from the variant's";
	} else {
		s->order_testable = 1;
		s->order_first_median = stats_median(first, a);
		s->order_later_median = stats_median(later, b);
		if (s->order_first_median != 0)
			s->order_shift_pct = (s->order_later_median - s->order_first_median) /
					     fabs(s->order_first_median) * 100;
		s->order_p = stats_mann_whitney(first, a, later, b, &mw) == 0 ? mw.p : 1;
		s->order_warning = fabs(s->order_shift_pct) >= COMPARE_ORDER_SHIFT_PCT &&
				   s->order_p < c->alpha;
	}
	free(first);
	free(later);
}

static void warn(struct comparison *c, struct cmp_warning w)
{
	ALLOC_GROW(c->warnings, c->nwarnings + 1, c->warnings_alloc);
	c->warnings[c->nwarnings++] = w;
}

size_t compare_metric_index(const struct comparison *c, const char *name)
{
	for (size_t m = 0; m < c->nmetrics; m++)
		if (!strcmp(c->metrics[m].name, name))
			return m;
	return SIZE_MAX;
}

double compare_gate_confidence(const struct compare_config *cfg, size_t *m)
{
	size_t n = gate_def_judgements(cfg->ngates, cfg->nvariants);

	if (m)
		*m = n;
	return gate_def_judgement_confidence(cfg->confidence, n);
}

double compare_estimate(const struct cmp_sample *s)
{
	return s->has_gi ? s->gi_point : s->ratio;
}

double compare_estimate_pct(const struct cmp_sample *s)
{
	return s->has_gi ? (s->gi_point - 1) * 100 : s->change_pct;
}

static void collect_warnings(struct comparison *c)
{
	for (size_t m = 0; m < c->nmetrics; m++) {
		const struct cmp_metric *cm = &c->metrics[m];
		for (size_t v = 0; v < cm->nsamples; v++) {
			const struct cmp_sample *s = &cm->samples[v];
			if (s->noisy)
				warn(c, (struct cmp_warning){ .code = REASON_NOISY, .metric = cm->name,
							      .variant = s->variant, .value = s->cv_pct,
							      .limit = COMPARE_NOISY_CV_PCT });
			if (s->order_warning)
				warn(c, (struct cmp_warning){ .code = REASON_SLOT_EFFECT,
							      .metric = cm->name, .variant = s->variant,
							      .value = s->order_shift_pct,
							      .p = s->order_p });
			if (s->outliers)
				warn(c, (struct cmp_warning){ .code = REASON_OUTLIERS, .metric = cm->name,
							      .variant = s->variant,
							      .count = s->outliers,
							      .limit = COMPARE_OUTLIER_Z });
		}
	}
}

void compare_compute(const struct compare_config *cfg, const struct invocation *invs,
		     size_t ninvs, struct comparison *out)
{
	struct placement pl;

	memset(out, 0, sizeof(*out));
	out->reference = cfg->nvariants ? cfg->variants[cfg->reference] : "";
	out->confidence = cfg->confidence;
	out->gate_confidence = compare_gate_confidence(cfg, &out->gate_judgements);
	out->alpha = COMPARE_ALPHA;
	out->resamples = cfg->resamples;
	out->seed = cfg->seed;
	out->acceptance = cfg->acceptance;
	out->inconclusive_fails = cfg->inconclusive_fails;
	out->unpaired = cfg->unpaired;
	out->order = cfg->order;
	out->sequential = cfg->sequential;
	place(cfg, invs, ninvs, &pl);
	for (size_t i = 0; i < ninvs; i++)
		if (compare_counts(&invs[i]) &&
		    invocation_foreign_wait_pct(&invs[i]) >= COMPARE_CONTENDED_PCT)
			out->contended = 1;

	out->nmetrics = NBUILTINS + cfg->nmetrics;
	out->metrics = xcalloc(out->nmetrics, sizeof(*out->metrics));
	for (size_t m = 0; m < out->nmetrics; m++) {
		struct cmp_metric *cm = &out->metrics[m];
		const struct compare_metric_def *d = m < NBUILTINS ? &builtins[m]
								   : &cfg->metrics[m - NBUILTINS];

		cm->name = d->name;
		cm->unit = d->unit;
		cm->source = d->source;
		cm->better_higher = d->better_higher;
		cm->nsamples = cfg->nvariants;
		cm->samples = xcalloc(cfg->nvariants ? cfg->nvariants : 1, sizeof(*cm->samples));
		for (size_t v = 0; v < cfg->nvariants; v++)
			gather(cfg, out, m, v, invs, ninvs, &pl, &cm->samples[v]);
		for (size_t v = 0; v < cfg->nvariants; v++) {
			struct cmp_sample *s = &cm->samples[v];
			if (v != cfg->reference) {
				against_reference(cfg, cm, &cm->samples[cfg->reference], s);
				paired(cfg, cm, &cm->samples[cfg->reference], s);
			}
			order_effect(out, s);
		}
	}
	if (cfg->nvariants)
		per_test_changes(cfg, invs, ninvs, &pl, out);
	out->rounds_done = rounds_done(cfg, invs, ninvs, &pl);
	out->rounds_planned = cfg->rounds_planned;
	placement_release(&pl);
	if (cfg->nvariants)
		gates_sample_size(cfg, out);
	gates_judge(cfg, out);
	missing_blocking(invs, ninvs, out);
	gates_interrupted(cfg, out);
	missing_collect(cfg, invs, ninvs, out);
	collect_warnings(out);
}

void compare_release(struct comparison *c)
{
	if (!c)
		return;
	for (size_t m = 0; m < c->nmetrics; m++) {
		for (size_t v = 0; v < c->metrics[m].nsamples; v++) {
			free(c->metrics[m].samples[v].values);
			free(c->metrics[m].samples[v].left_out);
		}
		free(c->metrics[m].samples);
	}
	free(c->metrics);
	free(c->gates);
	free(c->warnings);
	free(c->blocking);
	for (size_t i = 0; i < c->ntest_changes; i++)
		free(c->test_changes[i].test);
	free(c->test_changes);
	free(c->missing);
	memset(c, 0, sizeof(*c));
}
