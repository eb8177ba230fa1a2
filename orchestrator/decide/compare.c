/*
 * compare: from the invocation records to the comparison. The steps, in
 * order: place every recorded run in its round and slot; gather, per
 * metric and variant, the values of the runs that count; describe each
 * sample; set each against the reference (change, ratio, bootstrap
 * interval, Mann–Whitney, round-paired Wilcoxon); check the order effect;
 * judge the gates; decide. Statistics proper live in stats.c; this file
 * only chooses what to feed them and words what cannot be said.
 */
#include "decide/compare.h"

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
enum { B_WALL, B_CPU, B_RSS, B_WALL_OWN, NBUILTINS };

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

/*
 * Where each recorded run stood: its variant and the position of that
 * variant within its round, by the first attempt of each slot (a repeat
 * of a discarded slot keeps the slot's place).
 */
struct placement {
	size_t *variant;   /* per invocation; SIZE_MAX: unknown variant or warmup */
	unsigned *slot;    /* per invocation; 0 for warmups */
};

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

static double *plain_values(const struct cmp_sample *s)
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
	vals = plain_values(s);
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

/* How many values of s are 0 or below. */
static size_t not_positive(const struct cmp_sample *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += !(s->values[i].value > 0);
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
	rv = plain_values(ref);
	sv = plain_values(s);
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

/* s's gate interval from an exact interval of log values: back to a ratio. */
static void take_interval(struct cmp_sample *s, const char *method,
			  const struct stats_exact_interval *iv, size_t n)
{
	s->has_gi = 1;
	s->gi_method = method;
	s->gi_point = exp(iv->point);
	s->gi_lo = exp(iv->lo);
	s->gi_hi = exp(iv->hi);
	s->gi_coverage = iv->coverage;
	s->gi_n = n;
}

/*
 * The interval s's change gates judge (compare.h). Paired by round when
 * the schedule pairs runs: the exact Wilcoxon signed-rank interval of
 * logs[0..k), the rounds' log-ratios, which needs
 * stats_wsr_interval_n_needed() rounds. With fewer pairs than that — too
 * few rounds (5 cannot reach 95 % paired: the smallest two-sided p is
 * 1/16), or discards that broke rounds — the exact Mann–Whitney interval
 * of the log values instead, which reaches 95 % with 4 runs a side. The
 * rule depends on the number of pairs alone, fixed before any value is
 * seen, and gi_rule records which applied. Runs from different evidence
 * (abev compare) have no rounds: Mann–Whitney alone. Values of 0 or below
 * have no log: no interval.
 */
static void gate_interval(const struct compare_config *cfg, const struct cmp_sample *ref,
			  struct cmp_sample *s, const double *logs, size_t k)
{
	double conf = cfg->confidence;
	size_t pairs_needed = stats_wsr_interval_n_needed(conf);
	size_t runs_needed = stats_mw_interval_n_needed(conf);
	size_t fewer = ref->n < s->n ? ref->n : s->n;
	size_t ref_bad = not_positive(ref), s_bad = not_positive(s);
	struct stats_exact_interval iv;
	double *rl = NULL, *sl = NULL;

	if (!ref->n || !s->n || !s->has_change) {
		s->gi_note = xstrdup(!ref->n ? "no counted run of the reference"
				     : !s->n ? "no counted run" : s->change_note);
		return;
	}
	/*
	 * A value a ratio cannot take makes the interval — any interval —
	 * unknowable, not one of the other rounds: a throughput that drops
	 * to 0 in 4 rounds of 10 must not pass on the 6 where it did not.
	 */
	if (ref_bad || s_bad) {
		s->gi_note = xasprintf("%zu counted run(s) of the reference and %zu of this variant "
				       "have a value of 0 or below, which a ratio cannot take; "
				       "judging the change on the other runs would hide them",
				       ref_bad, s_bad);
		return;
	}
	if (!cfg->unpaired) {
		s->gi_needed = pairs_needed;
		if (k >= pairs_needed && stats_wsr_interval(logs, k, conf, &iv) == 0 && iv.ok) {
			s->gi_rule = "paired by round: as many rounds as the paired interval needs";
			take_interval(s, "wilcoxon_paired", &iv, k);
			return;
		}
		s->gi_rule = "unpaired: fewer paired rounds than the paired interval needs";
		if (fewer < runs_needed) {
			s->gi_needed = runs_needed;
			s->gi_note = xasprintf("needs at least %zu rounds for %.4g %% (has %zu; "
					       "below %zu rounds the interval is unpaired)",
					       runs_needed, conf * 100, k, pairs_needed);
			return;
		}
	} else {
		s->gi_rule = "unpaired: the runs come from different evidence";
		s->gi_needed = runs_needed;
	}
	rl = plain_values(ref);
	sl = plain_values(s);
	for (size_t i = 0; i < ref->n; i++)
		rl[i] = log(rl[i]);
	for (size_t i = 0; i < s->n; i++)
		sl[i] = log(sl[i]);
	if (stats_mw_interval(rl, ref->n, sl, s->n, conf, &iv) == 0 && iv.ok) {
		take_interval(s, "mann_whitney", &iv, fewer);
		s->gi_needed = runs_needed;
	} else if (cfg->unpaired)
		s->gi_note = xasprintf("needs at least %zu runs a side for %.4g %% (has %zu and %zu)",
				       runs_needed, conf * 100, ref->n, s->n);
	else
		s->gi_note = xasprintf("needs at least %zu rounds for %.4g %% (has %zu; the %zu and "
				       "%zu counted runs cannot give it unpaired either)",
				       pairs_needed, conf * 100, k, ref->n, s->n);
	free(rl);
	free(sl);
}

const char *cmp_left_out_text(enum cmp_left_out_why why)
{
	switch (why) {
	case CMP_LEFT_NOT_POSITIVE:
		return "a value of 0 or below";
	case CMP_LEFT_NO_REFERENCE:
		return "no counted run of the reference";
	case CMP_LEFT_NO_VARIANT:
		return "no counted run of this variant";
	}
	return "?";
}

const char *cmp_left_out_key(enum cmp_left_out_why why)
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

/* Per round, the ratio of s's value to the reference's in the same round. */
static void paired(const struct compare_config *cfg, const struct cmp_sample *ref,
		   struct cmp_sample *s)
{
	double *ratios, *logs;
	size_t k = 0, skipped = 0, alloc = 0;
	struct stats_desc d;
	struct stats_wsr w;

	if (cfg->unpaired) {
		s->paired_note = "the runs compared come from different evidence: no rounds to pair";
		gate_interval(cfg, ref, s, NULL, 0);
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
		a = ref->values[j].value;
		b = s->values[i].value;
		if (a > 0 && b > 0) {
			ratios[k] = b / a;
			logs[k++] = log(b / a);
		} else {
			left_out(s, s->values[i].round, CMP_LEFT_NOT_POSITIVE, &alloc);
			skipped++;
		}
		i++;
		j++;
	}
	s->pairs = k;
	if (!k) {
		s->paired_note = skipped ? "ratios need positive values in both runs of a round"
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
			s->paired_note = "rounds with a value of 0 or below were left out";
	}
	gate_interval(cfg, ref, s, logs, k);
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

static void warn(struct comparison *c, char *sentence)
{
	ALLOC_GROW(c->warnings, c->nwarnings + 1, c->warnings_alloc);
	c->warnings[c->nwarnings++] = sentence;
}

/* "+12.3%" with the sign always shown and no "-0.0". */
static char *pct_text(double v)
{
	if (fabs(v) < 0.005)
		v = 0;
	return xasprintf("%+.2f%%", v);
}

static size_t metric_index(const struct comparison *c, const char *name)
{
	for (size_t m = 0; m < c->nmetrics; m++)
		if (!strcmp(c->metrics[m].name, name))
			return m;
	return SIZE_MAX;
}

/*
 * How far an interval's end may lie past a limit and still count as at
 * it: a relative 1e-9. A change computed as (1.05 - 1) x 100 is
 * 5.000000000000004, which a limit of 5 % must take as 5 % — "at the
 * limit passes" — while no difference a measurement can show is this
 * small.
 */
#define COMPARE_LIMIT_REL_EPS 1e-9

/*
 * Judges a limit against an interval [lo, hi] where "bad" is above the
 * limit (bad_above) or below it: pass when the whole interval is on the
 * good side (an end at the limit, within COMPARE_LIMIT_REL_EPS, is on
 * it), fail when all of it is on the bad side.
 */
static enum gate_verdict judge_interval(double lo, double hi, double limit, int bad_above)
{
	double eps = COMPARE_LIMIT_REL_EPS * (fabs(limit) > 1 ? fabs(limit) : 1);

	if (bad_above)
		return hi <= limit + eps ? GATE_PASS : lo > limit + eps ? GATE_FAIL
									: GATE_INCONCLUSIVE;
	return lo >= limit - eps ? GATE_PASS : hi < limit - eps ? GATE_FAIL : GATE_INCONCLUSIVE;
}

static const char *verdict_clause(enum gate_verdict v)
{
	switch (v) {
	case GATE_PASS: return "the whole interval is within the limit";
	case GATE_FAIL: return "the whole interval is beyond the limit";
	case GATE_INCONCLUSIVE: break;
	}
	return "the interval straddles the limit";
}

/* How a gate interval was found, for its reason: "paired by round, 8 rounds, exact 96.1 %". */
static char *interval_words(const struct cmp_sample *s)
{
	int paired = !strcmp(s->gi_method, "wilcoxon_paired");

	return xasprintf("%s, %zu %s, exact %.1f %%", paired ? "paired by round" : "unpaired",
			 s->gi_n, paired ? "rounds" : "runs a side", s->gi_coverage * 100);
}

double cmp_estimate(const struct cmp_sample *s)
{
	return s->has_gi ? s->gi_point : s->ratio;
}

double cmp_estimate_pct(const struct cmp_sample *s)
{
	return s->has_gi ? (s->gi_point - 1) * 100 : s->change_pct;
}

/*
 * An inconclusive gate's interval, at the noise observed: its half-width
 * (log-ratio terms) shrinks about as 1/sqrt(n), so it clears the limit
 * once it is narrower than the distance from the estimate to the limit.
 * A rough guide, not a promise: the noise of more rounds is not known.
 * Sets g->n_needed (0 when the estimate sits on the limit: no number of
 * rounds is likely to decide it).
 */
static void estimate_needed(const struct cmp_sample *s, double limit_pct, struct cmp_gate *g)
{
	double rl = 1 + limit_pct / 100, h, d, n;

	g->n_needed_paired = !strcmp(s->gi_method, "wilcoxon_paired");
	if (rl <= 0 || s->gi_lo <= 0 || s->gi_point <= 0)
		return;
	h = (log(s->gi_hi) - log(s->gi_lo)) / 2;
	d = fabs(log(s->gi_point) - log(rl));
	if (h <= 0 || d < h / COMPARE_NEEDED_MAX_FACTOR)
		return;
	n = ceil((double)s->gi_n * (h / d) * (h / d));
	g->n_needed = n > (double)s->gi_n ? (size_t)n : s->gi_n + 1;
}

/* The gate's reason, and what would decide it: "...; about 76 rounds would decide it at this noise". */
static void append_needed(struct cmp_gate *g)
{
	char *r;

	if (g->n_needed)
		r = xasprintf("%s; about %zu %s would decide it at this noise", g->reason,
			      g->n_needed, g->n_needed_paired ? "rounds" : "runs a side");
	else
		r = xasprintf("%s; the estimate sits on the limit: more rounds are unlikely to "
			      "decide it", g->reason);
	free(g->reason);
	g->reason = r;
}

/* A change gate: regression (worse than limit) or improvement (better than limit). */
static void judge_change(const struct cmp_metric *cm, const struct cmp_sample *s,
			 struct cmp_gate *g)
{
	int lower = !cm->better_higher;
	/* In change-% terms the bad side of a regression limit L is +L (lower is better) or -L. */
	int regression = g->kind == GATE_MAX_REGRESSION;
	double limit = (regression == lower) ? g->limit : -g->limit;
	int bad_above = regression == lower;
	char *obs, *lo = NULL, *hi = NULL, *how = NULL, *lim = pct_text(limit);

	if (!s->has_change) {
		g->verdict = GATE_INCONCLUSIVE;
		g->reason = xasprintf("%s %s: no change can be computed (%s)", s->variant, cm->name,
				      s->change_note);
		free(lim);
		return;
	}
	/* What the interval is of: the estimate, not the change of medians beside it. */
	g->has_observed = 1;
	g->observed = cmp_estimate_pct(s);
	obs = pct_text(g->observed);
	if (!s->has_gi) {
		g->verdict = GATE_INCONCLUSIVE;
		g->reason = xasprintf("%s %s changed %s, but without an interval (%s) no limit of "
				      "%s can be judged", s->variant, cm->name, obs, s->gi_note, lim);
		g->n_needed = s->gi_needed;
		g->n_needed_paired = s->pairs > 0;
	} else {
		g->has_interval = 1;
		g->method = s->gi_method;
		g->coverage = s->gi_coverage;
		g->lo = (s->gi_lo - 1) * 100;
		g->hi = (s->gi_hi - 1) * 100;
		g->verdict = judge_interval(g->lo, g->hi, limit, bad_above);
		lo = pct_text(g->lo);
		hi = pct_text(g->hi);
		how = interval_words(s);
		g->reason = xasprintf("%s %s changed %s [%s, %s] (%s) against %s limit of %s: %s",
				      s->variant, cm->name, obs, lo, hi, how,
				      regression ? "a regression" : "an improvement", lim,
				      verdict_clause(g->verdict));
		if (g->verdict == GATE_INCONCLUSIVE) {
			estimate_needed(s, limit, g);
			append_needed(g);
		}
	}
	free(obs);
	free(lo);
	free(hi);
	free(how);
	free(lim);
}

static void judge_budget(const struct comparison *c, const struct cmp_metric *cm,
			 const struct cmp_sample *s, struct cmp_gate *g)
{
	struct stats_median_ci iv;
	double *v;

	if (!s->n) {
		g->verdict = GATE_INCONCLUSIVE;
		g->reason = xasprintf("%s %s: no counted run to hold against the budget of %g %s",
				      s->variant, cm->name, g->limit, cm->unit);
		return;
	}
	g->has_observed = 1;
	g->observed = s->median;
	v = plain_values(s);
	/*
	 * The median's order-statistic interval: exact coverage for any
	 * distribution, where a bootstrap of 2 or 3 runs claims 95 % and
	 * gives less.
	 */
	if (stats_median_ci(v, s->n, c->confidence, &iv) < 0 || !iv.ok) {
		g->verdict = GATE_INCONCLUSIVE;
		g->reason = xasprintf("%s %s median %g %s, but the budget of %g %s needs at least "
				      "%zu counted runs for %.4g %% (has %zu)", s->variant, cm->name,
				      s->median, cm->unit, g->limit, cm->unit,
				      stats_median_ci_n_needed(c->confidence), c->confidence * 100,
				      s->n);
	} else {
		g->has_interval = 1;
		g->method = "median_order_statistics";
		g->coverage = iv.coverage;
		g->lo = iv.lo;
		g->hi = iv.hi;
		g->verdict = judge_interval(iv.lo, iv.hi, g->limit, !cm->better_higher);
		g->reason = xasprintf("%s %s median %g %s [%g, %g] (%zu runs, exact %.1f %%) "
				      "against a budget of %s%g %s: %s",
				      s->variant, cm->name, s->median, cm->unit, iv.lo, iv.hi, s->n,
				      iv.coverage * 100, cm->better_higher ? "at least " : "at most ",
				      g->limit, cm->unit, verdict_clause(g->verdict));
	}
	free(v);
}

static void judge_gates(const struct compare_config *cfg, struct comparison *c)
{
	size_t fail = 0, inconclusive = 0;

	c->gates = xcalloc(cfg->ngates * cfg->nvariants + 1, sizeof(*c->gates));
	for (size_t k = 0; k < cfg->ngates; k++) {
		const struct compare_gate_def *gd = &cfg->gates[k];
		size_t m = metric_index(c, gd->metric);

		for (size_t v = 0; v < cfg->nvariants; v++) {
			struct cmp_gate *g;
			if (v == cfg->reference)
				continue;
			g = &c->gates[c->ngates++];
			g->metric = gd->metric;
			g->variant = cfg->variants[v];
			g->kind = gd->kind;
			g->limit = gd->limit;
			if (m == SIZE_MAX) {
				g->verdict = GATE_INCONCLUSIVE;
				g->reason = xasprintf("metric '%s' was not recorded", gd->metric);
			} else if (gd->kind == GATE_BUDGET) {
				judge_budget(c, &c->metrics[m], &c->metrics[m].samples[v], g);
			} else {
				judge_change(&c->metrics[m], &c->metrics[m].samples[v], g);
			}
			fail += g->verdict == GATE_FAIL;
			inconclusive += g->verdict == GATE_INCONCLUSIVE;
		}
	}
	if (!c->ngates)
		c->decision = DECISION_NONE;
	else if (fail)
		c->decision = DECISION_REJECTED;
	else if (inconclusive)
		c->decision = DECISION_INCONCLUSIVE;
	else
		c->decision = DECISION_ACCEPTED;
}

/* Whether metric name is gated by cfg (any kind), or there are no gates and it is wall. */
static int sized(const struct compare_config *cfg, const char *name)
{
	if (!cfg->ngates)
		return !strcmp(name, COMPARE_WALL);
	for (size_t k = 0; k < cfg->ngates; k++)
		if (!strcmp(cfg->gates[k].metric, name))
			return 1;
	return 0;
}

/*
 * What the sample size allows: the worst case over the gated metrics
 * (wall when nothing is gated) and the compared variants — the fewest
 * counted runs and pairs, and the largest of the smallest p each test
 * can give with the values' ties as they are.
 */
static void sample_size(const struct compare_config *cfg, struct comparison *c)
{
	int first = 1;

	c->mw_n_needed = stats_mw_n_needed(c->alpha);
	c->wsr_n_needed = stats_wsr_n_needed(c->alpha);
	c->mw_min_p = 0;
	c->wsr_min_p = 0;
	for (size_t m = 0; m < c->nmetrics; m++) {
		const struct cmp_metric *cm = &c->metrics[m];
		const struct cmp_sample *ref = &cm->samples[cfg->reference];

		if (!sized(cfg, cm->name))
			continue;
		for (size_t v = 0; v < cm->nsamples; v++) {
			const struct cmp_sample *s = &cm->samples[v];
			size_t n = s->n < ref->n ? s->n : ref->n;
			double p = s->has_mw ? s->mw_min_p : stats_mw_min_p(ref->n, s->n);
			double wp = s->has_paired ? s->wsr_min_p : 1;

			/* A variant without counted runs has no comparison to qualify. */
			if (v == cfg->reference || !n)
				continue;
			if (first || n < c->min_n)
				c->min_n = n;
			if (first || s->pairs < c->min_pairs)
				c->min_pairs = s->pairs;
			if (first || wp > c->wsr_min_p)
				c->wsr_min_p = wp;
			if (first || p > c->mw_min_p) {
				c->mw_min_p = p;
				c->min_n_ref = ref->n;
				c->min_n_other = s->n;
				c->size_metric = cm->name;
			}
			first = 0;
		}
	}
	if (first) {
		c->mw_min_p = 1;
		c->wsr_min_p = 1;
		c->min_n = c->min_pairs = 0;
	}
	c->pairs_needed_ci = stats_wsr_interval_n_needed(c->confidence);
	c->runs_needed_ci = stats_mw_interval_n_needed(c->confidence);
}

/*
 * The test guards that block acceptance: a recorded run (not a warmup,
 * not a discarded attempt) whose tests_passed, test_set or min_executed
 * guard failed. Its figures do not count, so without this the decision
 * would only be "inconclusive: too few runs"; a candidate with a failing
 * test, or that quietly skips one, is rejected instead, and the sentence
 * names the guard and its reason (which names the tests).
 */
static void collect_blocking(const struct invocation *invs, size_t ninvs, struct comparison *c)
{
	for (size_t i = 0; i < ninvs; i++) {
		const struct invocation *inv = &invs[i];

		if (inv->warmup || inv->status == INV_DISCARDED)
			continue;
		for (size_t k = 0; k < inv->nguards; k++) {
			const struct guard_result *g = &inv->guards[k];
			if (g->verdict != GUARD_FAIL || !guard_kind_judges_tests(g->kind))
				continue;
			if (c->nblocking == COMPARE_BLOCKING_MAX) {
				c->blocking_omitted++;
				continue;
			}
			ALLOC_GROW(c->blocking, c->nblocking + 1, c->blocking_alloc);
			c->blocking[c->nblocking++] =
				xasprintf("%s run %u failed the %s guard: %s", inv->variant, inv->round,
					  guard_kind_name(g->kind),
					  g->reason ? g->reason : "no reason recorded");
		}
	}
	if (c->nblocking)
		c->decision = DECISION_REJECTED;
}

/* Distinct reasons why_uncounted() tells apart; runs of any other count as "other reasons". */
#define WHY_REASONS_MAX 16

/* What happened to runs of a status, as a sentence says it. */
static const char *status_words(enum inv_status st)
{
	switch (st) {
	case INV_OK: return "did not count";
	case INV_FAILED: return "failed";
	case INV_TIMED_OUT: return "timed out";
	case INV_DISCARDED: return "were discarded";
	case INV_EXEC_FAILED: return "could not start";
	case INV_INTERRUPTED: return "were interrupted";
	}
	return "did not count";
}

/* The reason of inv's status: its first failing guard's, or its status. */
static const char *status_reason(const struct invocation *inv)
{
	return inv->reason ? inv->reason : inv_status_name(inv->status);
}

/*
 * Why variant v has no counted run: the reason most of its recorded runs
 * share (the first seen among equals), how many share it, and what its
 * stderr said last.
 */
static char *why_uncounted(const char *v, const struct invocation *invs, size_t ninvs)
{
	/* The distinct reasons seen, counted, at most WHY_REASONS_MAX of them (the rest: "other"). */
	struct { const struct invocation *first; size_t n; } seen[WHY_REASONS_MAX];
	const struct invocation *best = NULL;
	size_t recorded = 0, best_n = 0, nseen = 0;
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < ninvs; i++) {
		const struct invocation *a = &invs[i];
		size_t k;

		if (a->warmup || a->status == INV_DISCARDED || strcmp(a->variant, v))
			continue;
		recorded++;
		for (k = 0; k < nseen && strcmp(status_reason(seen[k].first), status_reason(a)); k++)
			;
		if (k == nseen && nseen < WHY_REASONS_MAX) {
			seen[nseen].first = a;
			seen[nseen++].n = 0;
		}
		if (k < nseen && ++seen[k].n > best_n) {
			best = seen[k].first;
			best_n = seen[k].n;
		}
	}
	if (!recorded)
		return xasprintf("'%s' has no recorded run", v);
	strbuf_addf(&sb, "'%s' has no counted run: ", v);
	if (recorded == 1)
		strbuf_adds(&sb, "its one run");
	else if (best_n == recorded)
		strbuf_addf(&sb, "all %zu runs", recorded);
	else
		strbuf_addf(&sb, "%zu of %zu runs", best_n, recorded);
	strbuf_addf(&sb, " %s: %s", status_words(best->status), status_reason(best));
	if (best_n < recorded)
		strbuf_addf(&sb, ", %zu for other reasons", recorded - best_n);
	if (best->stderr_tail)
		strbuf_addf(&sb, "; its stderr ends: %s", best->stderr_tail);
	return strbuf_detach(&sb, NULL);
}

/* The metrics guard's reason in v's first counted run that failed it, or NULL. */
static const char *metrics_reason(const char *v, const struct invocation *invs, size_t ninvs)
{
	for (size_t i = 0; i < ninvs; i++) {
		if (strcmp(invs[i].variant, v) || !compare_counts(&invs[i]))
			continue;
		for (size_t k = 0; k < invs[i].nguards; k++)
			if (invs[i].guards[k].kind == GUARD_METRICS &&
			    invs[i].guards[k].verdict != GUARD_PASS && invs[i].guards[k].reason)
				return invs[i].guards[k].reason;
	}
	return NULL;
}

static void add_missing(struct comparison *c, const char *variant, const char *metric, char *why)
{
	ALLOC_GROW(c->missing, c->nmissing + 1, c->missing_alloc);
	c->missing[c->nmissing++] = (struct cmp_missing){ variant, metric, why };
}

/* Why figures are missing (struct comparison's missing), variant by variant. */
static void collect_missing(const struct compare_config *cfg, const struct invocation *invs,
			    size_t ninvs, struct comparison *c)
{
	for (size_t v = 0; v < cfg->nvariants; v++) {
		const char *name = cfg->variants[v];
		size_t counted = 0;

		for (size_t i = 0; i < ninvs; i++)
			counted += !strcmp(invs[i].variant, name) && compare_counts(&invs[i]);
		if (!counted) {
			add_missing(c, name, NULL, why_uncounted(name, invs, ninvs));
			continue;
		}
		for (size_t m = NBUILTINS; m < c->nmetrics; m++) {
			const char *reason;

			if (c->metrics[m].samples[v].n)
				continue;
			reason = metrics_reason(name, invs, ninvs);
			add_missing(c, name, c->metrics[m].name,
				    xasprintf("metric '%s' has no value in any counted run of '%s'%s%s",
					      c->metrics[m].name, name, reason ? ": " : "",
					      reason ? reason : ""));
		}
	}
}

/* One test's duration in one counted run: what test_changes() sorts and groups. */
struct test_time_entry {
	const char *name;      /* borrowed from the invocation */
	size_t variant;
	unsigned seq, round;
	double ms;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct test_time_entry *x = a, *y = b;
	int n = strcmp(x->name, y->name);

	if (n)
		return n;
	if (x->variant != y->variant)
		return x->variant < y->variant ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_change(const void *a, const void *b)
{
	const struct cmp_test_change *x = a, *y = b;
	double ax = fabs(x->change_pct), ay = fabs(y->change_pct);

	if (ax != ay)
		return ax < ay ? 1 : -1;
	return strcmp(x->test, y->test);
}

/*
 * A test's values for one variant, from e[0..n) (one name, sorted by
 * variant then seq): the durations of its counted runs in execution order,
 * a run that named the test twice counting once with the sum.
 */
static void test_sample(const struct test_time_entry *e, size_t n, size_t variant,
			struct cmp_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->values = xcalloc(n ? n : 1, sizeof(*s->values));
	for (size_t i = 0; i < n; i++) {
		if (e[i].variant != variant)
			continue;
		if (s->n && s->values[s->n - 1].seq == e[i].seq) {
			s->values[s->n - 1].value += e[i].ms;
			continue;
		}
		s->values[s->n].value = e[i].ms;
		s->values[s->n].seq = e[i].seq;
		s->values[s->n].round = e[i].round;
		s->n++;
	}
	if (s->n) {
		double *v = plain_values(s);
		s->median = stats_median(v, s->n);
		free(v);
	}
}

/* A test's change for one variant before it is ranked, and where its entries are. */
struct test_candidate {
	struct cmp_test_change ch;
	size_t first, n;           /* its entries in the sorted list */
	size_t variant;
};

static int cmp_candidate(const void *a, const void *b)
{
	return cmp_change(&((const struct test_candidate *)a)->ch,
			  &((const struct test_candidate *)b)->ch);
}

/*
 * The medians and change of one test for variant v, from e[0..n) (one
 * name): 1 with *out filled when it can be ranked (a duration on both
 * sides, a positive reference median, one side at COMPARE_TEST_MIN_MS at
 * least). out->test is borrowed from the entries until the test is kept.
 */
static int test_medians(const struct compare_config *cfg, const struct test_time_entry *e,
			size_t n, size_t v, struct cmp_test_change *out)
{
	struct cmp_sample ref, s;
	int ranked;

	test_sample(e, n, cfg->reference, &ref);
	test_sample(e, n, v, &s);
	ranked = ref.n && s.n && ref.median > 0 &&
		 (ref.median >= COMPARE_TEST_MIN_MS || s.median >= COMPARE_TEST_MIN_MS);
	if (ranked)
		*out = (struct cmp_test_change){
			.test = (char *)e[0].name, .variant = cfg->variants[v],
			.n_ref = ref.n, .n = s.n, .ref_median_ms = ref.median,
			.median_ms = s.median,
			.change_pct = (s.median - ref.median) / ref.median * 100,
		};
	free(ref.values);
	free(s.values);
	return ranked;
}

/*
 * A kept test's statistics, those of the metrics: the exact Mann–Whitney
 * p, and the change gates' interval of the ratio (paired by round when it
 * can be).
 */
static void test_stats(const struct compare_config *cfg, const struct test_time_entry *e,
		       size_t n, size_t v, struct cmp_test_change *out)
{
	struct cmp_sample ref, s;
	double *rv, *sv, *logs;
	struct stats_mw mw;
	size_t k = 0;

	test_sample(e, n, cfg->reference, &ref);
	test_sample(e, n, v, &s);
	s.variant = cfg->variants[v];
	s.has_change = 1;
	s.change_pct = out->change_pct;
	rv = plain_values(&ref);
	sv = plain_values(&s);
	if (stats_mann_whitney(rv, ref.n, sv, s.n, &mw) == 0) {
		out->has_mw = 1;
		out->mw_p = mw.p;
	}
	/* The rounds' log-ratios, both runs of a round positive: the change gates' interval. */
	logs = xcalloc(s.n, sizeof(*logs));
	for (size_t i = 0, j = 0; !cfg->unpaired && i < s.n && j < ref.n;) {
		if (ref.values[j].round != s.values[i].round) {
			if (ref.values[j].round < s.values[i].round)
				j++;
			else
				i++;
			continue;
		}
		if (ref.values[j].value > 0 && s.values[i].value > 0)
			logs[k++] = log(s.values[i].value / ref.values[j].value);
		i++;
		j++;
	}
	gate_interval(cfg, &ref, &s, logs, k);
	if (s.has_gi) {
		out->has_gi = 1;
		out->gi_method = s.gi_method;
		out->gi_lo = s.gi_lo;
		out->gi_hi = s.gi_hi;
	}
	free(logs);
	free(rv);
	free(sv);
	free(ref.values);
	free(s.values);
	free(s.gi_note);
}

/*
 * The tests whose duration changed most, per compared variant, from the
 * test_times of the counted runs (struct comparison). Every test is ranked
 * on its medians; the tests are computed only for the ones kept, so that a
 * suite of thousands of tests costs a sort, not thousands of exact tests.
 */
static void test_changes(const struct compare_config *cfg, const struct invocation *invs,
			 size_t ninvs, const struct placement *pl, struct comparison *c)
{
	struct test_time_entry *e;
	struct test_candidate *all = NULL;
	size_t n = 0, nall = 0, alloc = 0;

	for (size_t i = 0; i < ninvs; i++)
		if (pl->variant[i] != SIZE_MAX && compare_counts(&invs[i]))
			n += invs[i].ntest_times;
	if (!n)
		return;
	e = xcalloc(n, sizeof(*e));
	n = 0;
	for (size_t i = 0; i < ninvs; i++) {
		if (pl->variant[i] == SIZE_MAX || !compare_counts(&invs[i]))
			continue;
		for (size_t t = 0; t < invs[i].ntest_times; t++)
			e[n++] = (struct test_time_entry){ invs[i].test_times[t].name, pl->variant[i],
							   invs[i].seq, invs[i].round,
							   invs[i].test_times[t].ms };
	}
	qsort(e, n, sizeof(*e), cmp_entry);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && !strcmp(e[b].name, e[a].name); b++)
			;
		c->tests_timed++;
		for (size_t v = 0; v < cfg->nvariants; v++) {
			struct cmp_test_change ch;
			if (v == cfg->reference || !test_medians(cfg, e + a, b - a, v, &ch))
				continue;
			ALLOC_GROW(all, nall + 1, alloc);
			all[nall++] = (struct test_candidate){ ch, a, b - a, v };
		}
	}
	/* Per variant in plan order, the largest changes first. */
	c->test_changes = xcalloc(cfg->nvariants * COMPARE_TEST_CHANGES_MAX + 1,
				  sizeof(*c->test_changes));
	if (nall)
		qsort(all, nall, sizeof(*all), cmp_candidate);
	for (size_t v = 0; v < cfg->nvariants; v++) {
		size_t kept = 0;
		for (size_t i = 0; i < nall && kept < COMPARE_TEST_CHANGES_MAX; i++) {
			struct cmp_test_change *t;
			if (all[i].variant != v)
				continue;
			t = &c->test_changes[c->ntest_changes++];
			*t = all[i].ch;
			t->test = xstrdup(all[i].ch.test);
			test_stats(cfg, e + all[i].first, all[i].n, v, t);
			kept++;
		}
	}
	free(all);
	free(e);
}

static void collect_warnings(struct comparison *c)
{
	for (size_t m = 0; m < c->nmetrics; m++) {
		const struct cmp_metric *cm = &c->metrics[m];
		for (size_t v = 0; v < cm->nsamples; v++) {
			const struct cmp_sample *s = &cm->samples[v];
			if (s->noisy)
				warn(c, xasprintf("%s of %s is noisy: coefficient of variation %.1f%% "
						  "(over %.0f%%)", cm->name, s->variant, s->cv_pct,
						  COMPARE_NOISY_CV_PCT));
			if (s->order_warning)
				warn(c, xasprintf("%s of %s depends on its slot in the round: %+.2f%% "
						  "when it ran after another variant (p = %.4g)",
						  cm->name, s->variant, s->order_shift_pct, s->order_p));
			if (s->outliers)
				warn(c, xasprintf("%s of %s has %zu outlier%s (modified z-score over "
						  "%.1f), flagged and kept", cm->name, s->variant,
						  s->outliers, s->outliers == 1 ? "" : "s",
						  COMPARE_OUTLIER_Z));
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
				paired(cfg, &cm->samples[cfg->reference], s);
			}
			order_effect(out, s);
		}
	}
	if (cfg->nvariants)
		test_changes(cfg, invs, ninvs, &pl, out);
	placement_release(&pl);
	if (cfg->nvariants)
		sample_size(cfg, out);
	judge_gates(cfg, out);
	collect_blocking(invs, ninvs, out);
	collect_missing(cfg, invs, ninvs, out);
	collect_warnings(out);
}

void comparison_release(struct comparison *c)
{
	if (!c)
		return;
	for (size_t m = 0; m < c->nmetrics; m++) {
		for (size_t v = 0; v < c->metrics[m].nsamples; v++) {
			free(c->metrics[m].samples[v].values);
			free(c->metrics[m].samples[v].gi_note);
			free(c->metrics[m].samples[v].left_out);
		}
		free(c->metrics[m].samples);
	}
	free(c->metrics);
	for (size_t g = 0; g < c->ngates; g++)
		free(c->gates[g].reason);
	free(c->gates);
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	for (size_t i = 0; i < c->nblocking; i++)
		free(c->blocking[i]);
	free(c->blocking);
	for (size_t i = 0; i < c->ntest_changes; i++)
		free(c->test_changes[i].test);
	free(c->test_changes);
	for (size_t i = 0; i < c->nmissing; i++)
		free(c->missing[i].why);
	free(c->missing);
	memset(c, 0, sizeof(*c));
}
