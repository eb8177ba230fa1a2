/*
 * calibration_sim: a seeded simulation of how often abev's change gate
 * ("higher is worse, limit L %") fails, passes or cannot decide, on
 * synthetic benchmark runs whose truth is known: the same distribution for
 * baseline and candidate (A/A), or a candidate slower by a set factor.
 * Five ways of judging are simulated on the same datasets (enum
 * cal_method): the paired exact Wilcoxon signed-rank interval of the
 * rounds' log-ratios (stats_wsr_interval(), what the gates use), the
 * paired sign test's, the unpaired exact Mann-Whitney interval (the
 * gates' fallback with too few pairs), a Bonferroni rule between the
 * paired and the unpaired one, and the unpaired percentile bootstrap of
 * the ratio of medians (stats_bootstrap_ratio(), what they used before).
 *
 * Three models are issue 30's: a slow tail (10 % of the runs of either
 * variant 1.5 times as slow), a shape change (30 % of the candidate's
 * runs 1.3 times as slow: its median moves less than its pseudo-median),
 * and zero values (a reading of 0 in 5 % of runs, which leaves every
 * method without a ratio, as it left abev's gates before issue 39 placed
 * a 0 below every positive value).
 *
 * Two of the models are contention on a busy shared machine, where other
 * processes slow runs down (the constants below):
 * - shared slow-down (CAL_SHARED_LOAD): half the rounds run beside foreign
 *   load that slows both runs of the round alike, by one factor uniform in
 *   1.2-2.0 (2.0: the run shares its core with a busy loop and waits half
 *   its wall time, as measured on a 2-core host); each run also has its own
 *   lognormal noise of CV cv;
 * - one-sided bursts (CAL_BURSTS): each run, alike for reference and
 *   candidate (abev's balanced order runs each first in every other round,
 *   so neither side is the one more often hit), is slowed in 15 % of cases
 *   by a burst uniform in 1.3-2.0, on top of its own lognormal noise of CV
 *   cv.
 * Measured on the 2-core development host (2026-12-04, load average 4 to
 * 5.5 from other builds and tests): 400 CPU-bound runs of 50 ms in
 * back-to-back pairs were slowed by a median 1.5x, 34 % by more than 2x;
 * the two runs of a pair moved together (correlation of their log times
 * 0.89), and in 14.5 % of pairs one run was more than 1.3 times the other
 * (1.5 % more than 2 times): bursts in about 8 % of runs. The burst share
 * is twice that, to err on the busy side. Every simulated round counts:
 * there is no warmup and no load guard (load.max_cpu_wait_pct would
 * discard and repeat most of the slowed runs), the worst case for the gate
 * — unless the cell asks for abev's load guard (cal_cell.guarded): then
 * each run waits on other processes for the share of its time that its
 * contention factor f gives it, 1 - 1/f (exactly what the load guard
 * measures of a CPU-bound run), and is repeated as abev repeats it while
 * its wait budget lasts: the first run of a round when its share is over
 * the limit (CAL_GUARD_LIMIT, load.max_cpu_wait_pct's default), the second
 * when it is over and not loaded like the first (guard_load_balanced()),
 * each at most CAL_GUARD_REPEATS times, then kept. In the balanced order
 * (abev's default) the variant that runs first changes every round; so
 * does the simulation.
 *
 * One model is a machine whose speed drifts in time (CAL_MACHINE_DRIFT):
 * each run's time is multiplied by 1 + CAL_MACHINE_DRIFT_PER_ROUND times
 * its place in time, counted in rounds from 0, the second run of a round
 * half a round after the first. The schedule's order (cal_cell.order)
 * decides which variant runs first: in the balanced order (A B, B A) the
 * drift adds to each alike; in alternate order (A B, A B) the candidate is
 * always the later, and every round's ratio is biased by about half the
 * drift of a round. Only this model and the guarded rounds depend on the
 * order; the others draw the same data in either.
 *
 * cal_gate() judges as abev's change gate does, choosing between the
 * paired and the unpaired interval by the number of rounds, and
 * cal_run_curve() follows its power as rounds are added to the same data
 * (issue 39 §2: a round more must never lower it).
 *
 * Shared by tests/unit/test_calibration.c, which asserts the acceptance
 * criteria on a few cells, and bench/calibration.c, which prints the whole
 * table: one generator and one verdict rule, so both give the same figures
 * for the same cell and number of datasets. Header-only (static inline
 * functions). Pure computation but for reading two environment variables
 * (cal_env_unsigned()): no I/O, no clock; every draw comes from util.h's
 * seeded rng_next(), so a cell's figures are the same on every run.
 */
#ifndef ABEV_CALIBRATION_SIM_H
#define ABEV_CALIBRATION_SIM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decide/stats.h"
#include "decide/stats_exact.h"
#include "guards/guard.h"
#include "util/rng.h"

/* The data models: each run's time is base * noise (cal_round()). */
enum cal_model {
	CAL_LOGNORMAL,  /* independent lognormal noise of CV cv per run */
	CAL_HEAVY,      /* the same, times a slow outlier 1 + 3 cv |t3| in 10 % of runs */
	CAL_DRIFT,      /* the same, times exp(0.02 r / n) shared by both runs of round r */
	CAL_ROUND,      /* a lognormal round factor of CV cv shared by both runs, times
			 * independent lognormal noise of CV cv / 2 per run */
	CAL_SHARED_LOAD, /* lognormal noise of CV cv per run, times a foreign-load
			  * factor shared by both runs of a round (CAL_LOAD_*) */
	CAL_BURSTS,     /* lognormal noise of CV cv per run, times a burst of its own
			 * in some runs (CAL_BURST_*) */
	CAL_MACHINE_DRIFT, /* lognormal noise of CV cv per run, times the machine's
			    * drift at the run's place in time (top of the file) */
	CAL_SLOW_TAIL,  /* lognormal noise of CV cv per run, times CAL_TAIL_FACTOR in
			 * CAL_TAIL_SHARE of the runs of either variant */
	CAL_SHAPE,      /* lognormal noise of CV cv per run, and the candidate's runs
			 * times CAL_SHAPE_FACTOR in CAL_SHAPE_SHARE of them: a change of
			 * shape, not a shift (the effect multiplies on top) */
	CAL_ZERO,       /* lognormal noise of CV cv per run, and a reading of 0 in
			 * CAL_ZERO_SHARE of the runs of either variant */
	CAL_MODELS
};

static const char *const cal_model_names[CAL_MODELS] = {
	"lognormal", "heavy-tailed", "drift", "round factor", "shared slow-down",
	"one-sided bursts", "machine drift", "slow tail", "shape change", "zero values",
};

/* The schedule's order of a round's two runs (plan's schedule.order). */
enum cal_order {
	CAL_ORDER_BALANCED,  /* A B, B A, ...: abev's default */
	CAL_ORDER_ALTERNATE, /* A B, A B, ...: the candidate always second */
	CAL_ORDERS
};

static const char *const cal_order_names[CAL_ORDERS] = { "balanced", "alternate" };

/* CAL_MACHINE_DRIFT: the machine's slow-down per round, a share of the run's time. */
#define CAL_MACHINE_DRIFT_PER_ROUND 0.01

/*
 * Issue 30's heavy tail (CAL_SLOW_TAIL): 10 % of the runs of either
 * variant 1.5 times as slow. Its shape change (CAL_SHAPE): 30 % of the
 * candidate's runs 1.3 times as slow, the rest as the reference's. Its
 * zero values (CAL_ZERO): a metric that reads 0 in 5 % of the runs of
 * either variant (a throughput that dropped to nothing).
 */
#define CAL_TAIL_SHARE 0.10
#define CAL_TAIL_FACTOR 1.5
#define CAL_SHAPE_SHARE 0.30
#define CAL_SHAPE_FACTOR 1.3
#define CAL_ZERO_SHARE 0.05

/*
 * Contention (see the top of the file): the share of rounds beside foreign
 * load and the range of its factor; the share of runs hit by a burst and
 * the range of the burst's factor. Factors are uniform in their range.
 */
#define CAL_LOAD_SHARE 0.5
#define CAL_LOAD_MIN 1.2
#define CAL_LOAD_MAX 2.0
#define CAL_BURST_SHARE 0.15
#define CAL_BURST_MIN 1.3
#define CAL_BURST_MAX 2.0
/* abev's load guard, where a cell asks for it: the limit (%) and the repeats of a slot. */
#define CAL_GUARD_LIMIT 10.0
#define CAL_GUARD_REPEATS 2

/*
 * The ways of judging a dataset, each a 95 % interval of the ratio:
 * - CAL_PAIRED: the exact Wilcoxon signed-rank interval of the rounds'
 *   log-ratios around their Hodges-Lehmann estimate (stats_wsr_interval():
 *   what abev's change gates judge when the schedule pairs runs);
 * - CAL_SIGN: the sign test's, the order statistics of the log-ratios
 *   around their median (stats_median_ci());
 * - CAL_MW: the exact Mann-Whitney interval of the shift between the log
 *   values of the two sides, unpaired (stats_mw_interval(): abev's
 *   fallback when there are too few pairs);
 * - CAL_BOTH: abev's change gate from stats_joint_interval_n_needed()
 *   rounds: the paired exact interval at 1 - (1 - CAL_LEVEL) / 2 and the
 *   unpaired one at what that leaves of 1 - CAL_LEVEL, intersected
 *   (stats_joint_interval(): at least CAL_LEVEL by Bonferroni), so that
 *   FAIL is "either one all above the limit";
 * - CAL_BOOTSTRAP: the unpaired percentile bootstrap of the ratio of
 *   medians (stats_bootstrap_ratio(): what the gates judged before).
 */
enum cal_method { CAL_PAIRED, CAL_SIGN, CAL_MW, CAL_BOTH, CAL_BOOTSTRAP, CAL_METHODS };

static const char *const cal_method_names[CAL_METHODS] = {
	"paired exact WSR", "paired sign test", "unpaired exact MW", "WSR and MW together (abev)",
	"unpaired bootstrap",
};
/* Every method but the bootstrap, the costly one. */
#define CAL_EXACT_METHODS (1u << CAL_PAIRED | 1u << CAL_SIGN | 1u << CAL_MW | 1u << CAL_BOTH)
/* The most true ratios a cell's intervals are checked against (cal_options.truths). */
#define CAL_TRUTHS 4

enum cal_verdict { CAL_PASS, CAL_FAIL, CAL_INCONCLUSIVE, CAL_VERDICTS };

/* The interval's level and the gate limits (percent) every dataset is judged at. */
#define CAL_LEVEL 0.95
#define CAL_LIMITS 2
static const double cal_limits[CAL_LIMITS] = { 0, 5 };

#define CAL_MAX_ROUNDS 64

struct cal_cell {
	enum cal_model model;
	double cv;        /* coefficient of variation of the noise (see enum cal_model) */
	size_t rounds;    /* paired rounds: one reference and one candidate run each */
	double effect;    /* candidate's base over the reference's: 1 for A/A */
	int guarded;      /* runs judged and repeated as abev's load guard does (top of file) */
	enum cal_order order; /* which variant runs first in each round; 0: balanced */
};

struct cal_options {
	unsigned datasets;    /* datasets simulated for the cell */
	unsigned resamples;   /* bootstrap resamples per dataset */
	unsigned methods;     /* bit mask of 1 << enum cal_method */
	/*
	 * Ratios to count each method's intervals holding (cal_result.holds),
	 * where the truth is not one number (CAL_SHAPE); none: no count.
	 */
	const double *truths;
	size_t ntruths;
};

struct cal_result {
	unsigned datasets;
	/* verdicts[method][limit index][verdict]: datasets with that verdict */
	unsigned verdicts[CAL_METHODS][CAL_LIMITS][CAL_VERDICTS];
	/*
	 * fail_alone[method][limit index]: datasets that method FAILs and the
	 * paired one does not; paired_alone: the paired one FAILs and that
	 * method does not (both asked for): to compare the methods on the same
	 * datasets (McNemar).
	 */
	unsigned fail_alone[CAL_METHODS][CAL_LIMITS];
	unsigned paired_alone[CAL_METHODS][CAL_LIMITS];
	/*
	 * Datasets with a value of 0 or below (CAL_ZERO): no ratio, so every
	 * method is INCONCLUSIVE on them, as abev's gates were before issue
	 * 39. subset[l][v]:
	 * what the paired interval would have said on the rounds left once
	 * those with such a value are dropped (what issue 30 §1 forbids).
	 */
	unsigned with_zero;
	unsigned subset[CAL_LIMITS][CAL_VERDICTS];
	/* holds[method][i]: intervals that held options.truths[i]. */
	unsigned holds[CAL_METHODS][CAL_TRUTHS];
	/* log_point[method]: the sum of the log of each interval's estimate. */
	double log_point[CAL_METHODS];
	/*
	 * covered[method]: datasets whose interval holds the true ratio
	 * (cal_cell.effect); stated[method]: the sum of the coverage each
	 * interval states (the paired one's exact figure, the bootstrap's
	 * level). A method that gives no interval adds to neither.
	 */
	unsigned covered[CAL_METHODS];
	double stated[CAL_METHODS];
	unsigned intervals[CAL_METHODS];
};

/*
 * Environment variables that scale the simulation: datasets per cell,
 * bootstrap resamples per dataset.
 */
#define CAL_ENV_DATASETS "ABEV_CALIBRATION_DATASETS"
#define CAL_ENV_RESAMPLES "ABEV_CALIBRATION_RESAMPLES"

/*
 * The value of environment variable name: dflt when it is unset or empty,
 * 0 when it is not a decimal number from 1 to max (the caller says so).
 */
static inline unsigned cal_env_unsigned(const char *name, unsigned dflt, unsigned max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return dflt;
	v = strtoul(s, &end, 10);
	if (*end || *s < '0' || *s > '9' || v < 1 || v > max)
		return 0;
	return (unsigned)v;
}

/*
 * The rule a gate "higher is worse, limit L %" applies to a ratio
 * interval [lo, hi] (candidate over reference): FAIL when the whole
 * interval's change is above L, PASS when the whole of it is at or below
 * L, INCONCLUSIVE otherwise.
 */
static inline enum cal_verdict cal_verdict(double ratio_lo, double ratio_hi, double limit_pct)
{
	if ((ratio_lo - 1) * 100 > limit_pct)
		return CAL_FAIL;
	if ((ratio_hi - 1) * 100 <= limit_pct)
		return CAL_PASS;
	return CAL_INCONCLUSIVE;
}

/* A uniform in (0, 1). */
static inline double cal_uniform(uint64_t *rng)
{
	return ((double)(rng_next(rng) >> 11) + 0.5) * 0x1p-53;
}

/* A standard normal deviate: the inverse normal of a uniform in (0, 1). */
static inline double cal_normal(uint64_t *rng)
{
	return stats_normal_quantile(cal_uniform(rng));
}

/* With probability share, a slow-down uniform in [lo, hi]; otherwise 1. */
static inline double cal_slowdown(uint64_t *rng, double share, double lo, double hi)
{
	if (cal_uniform(rng) >= share)
		return 1;
	return lo + (hi - lo) * cal_uniform(rng);
}

/* Lognormal noise of mean 1 and coefficient of variation cv. */
static inline double cal_lognormal(uint64_t *rng, double cv)
{
	double s = sqrt(log1p(cv * cv));

	return exp(s * cal_normal(rng) - s * s / 2);
}

/* Student's t with 3 degrees of freedom. */
static inline double cal_t3(uint64_t *rng)
{
	double chi2 = 0;

	for (int i = 0; i < 3; i++) {
		double z = cal_normal(rng);
		chi2 += z * z;
	}
	return cal_normal(rng) / sqrt(chi2 / 3);
}

/*
 * One run's noise under the model, its round's shared factor given; the
 * burst it had (1: none) in *burst.
 */
static inline double cal_noise(const struct cal_cell *c, uint64_t *rng, double shared,
			       double *burst)
{
	double v = shared;

	*burst = 1;
	switch (c->model) {
	case CAL_ROUND:
		return v * cal_lognormal(rng, c->cv / 2);
	case CAL_HEAVY:
		v *= cal_lognormal(rng, c->cv);
		if (rng_below(rng, 10) == 0)
			v *= 1 + 3 * c->cv * fabs(cal_t3(rng));
		return v;
	case CAL_BURSTS:
		v *= cal_lognormal(rng, c->cv);
		*burst = cal_slowdown(rng, CAL_BURST_SHARE, CAL_BURST_MIN, CAL_BURST_MAX);
		return v * *burst;
	case CAL_SLOW_TAIL:
		v *= cal_lognormal(rng, c->cv);
		return v * cal_slowdown(rng, CAL_TAIL_SHARE, CAL_TAIL_FACTOR, CAL_TAIL_FACTOR);
	default:
		return v * cal_lognormal(rng, c->cv);
	}
}

/*
 * One run as the load guard sees it: its time, and in *share the part of
 * it spent waiting on other processes (1 - 1/f for a contention factor f).
 */
static inline double cal_draw(const struct cal_cell *c, uint64_t *rng, double shared,
			      double *share)
{
	double burst, v = cal_noise(c, rng, shared, &burst);
	double load = c->model == CAL_SHARED_LOAD ? shared : 1;

	*share = 1 - 1 / (load * burst);
	return v;
}

/*
 * A guarded round (the top of the file): the first run repeated while it
 * is over the limit, the second while it is over and not balanced with the
 * first; in *first and *second, their times.
 */
static inline void cal_guarded_round(const struct cal_cell *c, uint64_t *rng, double shared,
				     double *first, double *second)
{
	double first_pct, pct;

	for (int attempt = 1;; attempt++) {
		*first = cal_draw(c, rng, shared, &first_pct);
		first_pct *= 100;
		if (first_pct <= CAL_GUARD_LIMIT || attempt > CAL_GUARD_REPEATS)
			break;
	}
	for (int attempt = 1;; attempt++) {
		*second = cal_draw(c, rng, shared, &pct);
		pct *= 100;
		if (pct <= CAL_GUARD_LIMIT || attempt > CAL_GUARD_REPEATS ||
		    guard_load_balanced(pct, &first_pct, 1, CAL_GUARD_LIMIT))
			break;
	}
}

/* Does the candidate run first in round r (0-based)? In balanced order, in the odd rounds. */
static inline int cal_cand_first(const struct cal_cell *c, size_t r)
{
	return c->order == CAL_ORDER_BALANCED && r % 2;
}

/*
 * The machine's drift (CAL_MACHINE_DRIFT) on the runs of round r, the
 * reference's and the candidate's; every other model: none.
 */
static inline void cal_machine_drift(const struct cal_cell *c, size_t r, double *ref,
				     double *cand)
{
	int cand_first = cal_cand_first(c, r);
	double first = 1 + CAL_MACHINE_DRIFT_PER_ROUND * (double)r;
	double second = 1 + CAL_MACHINE_DRIFT_PER_ROUND * ((double)r + 0.5);

	if (c->model != CAL_MACHINE_DRIFT)
		return;
	*ref *= cand_first ? second : first;
	*cand *= cand_first ? first : second;
}

/*
 * Round r of n: the reference's run and the candidate's, drawn in that
 * order whichever runs first (cal_cand_first()), but for the guarded
 * rounds, where it matters.
 */
static inline void cal_round(const struct cal_cell *c, uint64_t *rng, size_t r, double *ref,
		      double *cand)
{
	double shared = 1, burst;
	int cand_first = cal_cand_first(c, r);

	if (c->model == CAL_DRIFT)
		shared = exp(0.02 * (double)r / (double)c->rounds);
	else if (c->model == CAL_ROUND)
		shared = cal_lognormal(rng, c->cv);
	else if (c->model == CAL_SHARED_LOAD)
		shared = cal_slowdown(rng, CAL_LOAD_SHARE, CAL_LOAD_MIN, CAL_LOAD_MAX);
	if (c->guarded) {
		double first, second;
		cal_guarded_round(c, rng, shared, &first, &second);
		*ref = cand_first ? second : first;
		*cand = c->effect * (cand_first ? first : second);
	} else {
		*ref = cal_noise(c, rng, shared, &burst);
		*cand = c->effect * cal_noise(c, rng, shared, &burst);
	}
	cal_machine_drift(c, r, ref, cand);
	if (c->model == CAL_SHAPE)
		*cand *= cal_slowdown(rng, CAL_SHAPE_SHARE, CAL_SHAPE_FACTOR, CAL_SHAPE_FACTOR);
	if (c->model == CAL_ZERO) {
		if (cal_uniform(rng) < CAL_ZERO_SHARE)
			*ref = 0;
		if (cal_uniform(rng) < CAL_ZERO_SHARE)
			*cand = 0;
	}
}

/*
 * A cell's seed: a different stream for each model, noise, size and
 * effect; the same for either order, so that the orders are compared on
 * the same noise.
 */
static inline uint64_t cal_seed(const struct cal_cell *c)
{
	uint64_t s = UINT64_C(0xabe7ca11b7a7e000) ^ (uint64_t)c->model << 56 ^
		     (uint64_t)llround(c->cv * 1e4) << 32 ^ (uint64_t)c->rounds << 16 ^
		     (uint64_t)llround(c->effect * 1e3) ^ (uint64_t)(c->guarded != 0) << 60;

	return rng_next(&s);
}

/* An interval of log-ratios, as cal_run() keeps it: none unless ok. */
struct cal_interval {
	int ok;
	double lo, hi, point;  /* log-ratio terms */
	double stated;         /* the coverage it states */
};

/*
 * The exact intervals of one dataset at level, those of methods (a bit
 * mask of 1 << enum cal_method): paired (d, the rounds' log-ratios), sign
 * test (d), unpaired (rl and cl, each side's log values), into
 * iv[CAL_PAIRED], iv[CAL_SIGN], iv[CAL_MW].
 */
static inline void cal_exact_intervals(unsigned methods, const double *d, const double *rl,
				       const double *cl, size_t n, double level,
				       struct cal_interval *iv)
{
	struct stats_exact_interval e;
	struct stats_median_ci m;

	if (methods & 1u << CAL_PAIRED && stats_wsr_interval(d, n, level, &e) == 0 && e.ok)
		iv[CAL_PAIRED] = (struct cal_interval){ 1, e.lo, e.hi, e.point, e.coverage };
	if (methods & 1u << CAL_SIGN && stats_median_ci(d, n, level, &m) == 0 && m.ok)
		iv[CAL_SIGN] = (struct cal_interval){ 1, m.lo, m.hi, stats_median(d, n),
						      m.coverage };
	if (methods & 1u << CAL_MW && stats_mw_interval(rl, n, cl, n, level, &e) == 0 && e.ok)
		iv[CAL_MW] = (struct cal_interval){ 1, e.lo, e.hi, e.point, e.coverage };
}

/*
 * One dataset's interval by each method asked for (o->methods); t is its
 * index, for the bootstrap's seed.
 */
static inline void cal_judge(const struct cal_options *o, uint64_t seed, unsigned t,
			     const double *ref, const double *cand, size_t n,
			     struct cal_interval *iv)
{
	double d[CAL_MAX_ROUNDS], rl[CAL_MAX_ROUNDS], cl[CAL_MAX_ROUNDS];

	memset(iv, 0, CAL_METHODS * sizeof(*iv));
	for (size_t r = 0; r < n; r++) {
		rl[r] = log(ref[r]);
		cl[r] = log(cand[r]);
		d[r] = cl[r] - rl[r];
	}
	cal_exact_intervals(o->methods, d, rl, cl, n, CAL_LEVEL, iv);
	if (o->methods & 1u << CAL_BOTH) {
		struct stats_joint_interval j;

		if (stats_joint_interval(d, n, rl, n, cl, n, CAL_LEVEL, &j) == 0 && j.ok)
			iv[CAL_BOTH] = (struct cal_interval){ 1, j.lo, j.hi, j.point, j.coverage };
	}
	if (o->methods & 1u << CAL_BOOTSTRAP) {
		struct stats_interval b;
		uint64_t bseed = seed + (uint64_t)(t + 1) * UINT64_C(0x9e3779b97f4a7c15);

		if (stats_bootstrap_ratio(ref, n, cand, n, CAL_LEVEL, o->resamples, bseed, &b) == 0)
			iv[CAL_BOOTSTRAP] = (struct cal_interval){
				1, log(b.lo), log(b.hi), log(stats_median(cand, n) / stats_median(ref, n)),
				CAL_LEVEL };
	}
	for (int m = 0; m < CAL_METHODS; m++)
		iv[m].ok &= (o->methods >> m) & 1;
}

/*
 * What the paired interval says of the rounds whose two values are both
 * positive, the others dropped: the verdicts abev must not give
 * (cal_result.subset).
 */
static inline void cal_subset(const double *ref, const double *cand, size_t n,
			      struct cal_result *res)
{
	double d[CAL_MAX_ROUNDS];
	struct stats_exact_interval e;
	size_t k = 0;

	for (size_t r = 0; r < n; r++)
		if (ref[r] > 0 && cand[r] > 0)
			d[k++] = log(cand[r] / ref[r]);
	for (int l = 0; l < CAL_LIMITS; l++) {
		enum cal_verdict v = CAL_INCONCLUSIVE;

		if (stats_wsr_interval(d, k, CAL_LEVEL, &e) == 0 && e.ok)
			v = cal_verdict(exp(e.lo), exp(e.hi), cal_limits[l]);
		res->subset[l][v]++;
	}
}

/* Counts one dataset's intervals iv[] into res (cal_run()). */
static inline void cal_count(const struct cal_cell *c, const struct cal_options *o,
			     const struct cal_interval *iv, struct cal_result *res)
{
	for (int m = 0; m < CAL_METHODS; m++) {
		if (!iv[m].ok)
			continue;
		res->intervals[m]++;
		res->stated[m] += iv[m].stated;
		res->log_point[m] += iv[m].point;
		res->covered[m] += exp(iv[m].lo) <= c->effect && c->effect <= exp(iv[m].hi);
		for (size_t i = 0; i < o->ntruths && i < CAL_TRUTHS; i++)
			res->holds[m][i] += exp(iv[m].lo) <= o->truths[i] &&
					    o->truths[i] <= exp(iv[m].hi);
	}
	for (int l = 0; l < CAL_LIMITS; l++) {
		enum cal_verdict v[CAL_METHODS];

		for (int m = 0; m < CAL_METHODS; m++) {
			v[m] = iv[m].ok ? cal_verdict(exp(iv[m].lo), exp(iv[m].hi), cal_limits[l])
					: CAL_INCONCLUSIVE;
			if (o->methods & 1u << m)
				res->verdicts[m][l][v[m]]++;
		}
		for (int m = 1; m < CAL_METHODS; m++) {
			if (!(o->methods & 1u << m) || !(o->methods & 1u << CAL_PAIRED))
				continue;
			res->fail_alone[m][l] += v[m] == CAL_FAIL && v[CAL_PAIRED] != CAL_FAIL;
			res->paired_alone[m][l] += v[CAL_PAIRED] == CAL_FAIL && v[m] != CAL_FAIL;
		}
	}
}

/*
 * Simulates o->datasets datasets of cell c and counts each method's
 * verdict at each of cal_limits. The data stream does not depend on the
 * methods asked for, nor on the resamples: each dataset's bootstrap has a
 * seed of its own. A method that gives no interval (too few rounds, a
 * bootstrap failure, intervals that do not meet) counts as INCONCLUSIVE;
 * so does every method on a dataset with a value of 0 or below, which a
 * ratio cannot take (abev's gates before issue 39: no interval, issue 30 §1).
 */
static inline void cal_run(const struct cal_cell *c, const struct cal_options *o,
			   struct cal_result *res)
{
	uint64_t seed = cal_seed(c), rng = seed;
	double ref[CAL_MAX_ROUNDS], cand[CAL_MAX_ROUNDS];
	size_t n = c->rounds < CAL_MAX_ROUNDS ? c->rounds : CAL_MAX_ROUNDS;

	memset(res, 0, sizeof(*res));
	res->datasets = o->datasets;
	for (unsigned t = 0; t < o->datasets; t++) {
		struct cal_interval iv[CAL_METHODS] = { { 0 } };
		int zero = 0;

		for (size_t r = 0; r < n; r++) {
			cal_round(c, &rng, r, &ref[r], &cand[r]);
			zero |= !(ref[r] > 0) || !(cand[r] > 0);
		}
		if (zero) {
			res->with_zero++;
			cal_subset(ref, cand, n, res);
		} else {
			cal_judge(o, seed, t, ref, cand, n, iv);
		}
		cal_count(c, o, iv, res);
	}
}

/*
 * The rules by which the change gate chose its interval:
 * CAL_RULE_ABEV is abev's (decide/compare.c, compare_gate_interval()):
 * the unpaired interval (stats_mw_interval() of each side's log values)
 * below stats_joint_interval_n_needed() rounds, from there the paired
 * and the unpaired one together (stats_joint_interval()). The others are
 * the rules before, for the tables that show why: the paired interval
 * (stats_wsr_interval() of the rounds' log-ratios) alone from
 * stats_wsr_interval_n_needed() rounds (6 at 95 %; before issue 39) or
 * from stats_wsr_interval_n_preferred() (7; issue 39's first rule), the
 * unpaired one below.
 */
enum cal_rule { CAL_RULE_ABEV, CAL_RULE_PAIRED_FROM_6, CAL_RULE_PAIRED_FROM_7, CAL_RULES };

static const char *const cal_rule_names[CAL_RULES] = {
	"abev", "before issue 39: paired from 6", "issue 39's first rule: paired from 7",
};

/*
 * The change gate's verdict at limit_pct on n rounds under rule, its
 * interval at level; INCONCLUSIVE without an interval, or with a value of
 * 0 or below.
 */
static inline enum cal_verdict cal_gate_at(const double *ref, const double *cand, size_t n,
					   enum cal_rule rule, double level, double limit_pct)
{
	double d[CAL_MAX_ROUNDS], rl[CAL_MAX_ROUNDS], cl[CAL_MAX_ROUNDS];
	struct stats_exact_interval e;
	size_t from;

	if (n > CAL_MAX_ROUNDS)
		n = CAL_MAX_ROUNDS;
	for (size_t r = 0; r < n; r++) {
		if (!(ref[r] > 0) || !(cand[r] > 0))
			return CAL_INCONCLUSIVE;
		rl[r] = log(ref[r]);
		cl[r] = log(cand[r]);
		d[r] = cl[r] - rl[r];
	}
	from = rule == CAL_RULE_ABEV ? stats_joint_interval_n_needed(level)
	       : rule == CAL_RULE_PAIRED_FROM_6 ? stats_wsr_interval_n_needed(level)
					       : stats_wsr_interval_n_preferred(level);
	if (n >= from && rule == CAL_RULE_ABEV) {
		struct stats_joint_interval j;

		if (stats_joint_interval(d, n, rl, n, cl, n, level, &j) < 0 || !j.ok)
			return CAL_INCONCLUSIVE;
		return cal_verdict(exp(j.lo), exp(j.hi), limit_pct);
	}
	if (n >= from) {
		if (stats_wsr_interval(d, n, level, &e) < 0)
			return CAL_INCONCLUSIVE;
	} else if (stats_mw_interval(rl, n, cl, n, level, &e) < 0) {
		return CAL_INCONCLUSIVE;
	}
	return e.ok ? cal_verdict(exp(e.lo), exp(e.hi), limit_pct) : CAL_INCONCLUSIVE;
}

/* The same at CAL_LEVEL. */
static inline enum cal_verdict cal_gate(const double *ref, const double *cand, size_t n,
					enum cal_rule rule, double limit_pct)
{
	return cal_gate_at(ref, cand, n, rule, CAL_LEVEL, limit_pct);
}

/*
 * schedule.until "decided": the gate (cal_gate_at(), abev's rule) looked at after looks[0..nlooks)
 * rounds (ascending, the last at most CAL_MAX_ROUNDS), each look at
 * 1 - (1 - CAL_LEVEL) / nlooks (Bonferroni), stopping at the first PASS or
 * FAIL; c->rounds is ignored (the data of each dataset run to the last
 * look). verdicts[v] counts the final verdict at limit limit_pct, rounds
 * the rounds the datasets ran in all.
 */
struct cal_seq_result {
	unsigned datasets;
	unsigned verdicts[CAL_VERDICTS];
	unsigned long long rounds;
};

static inline void cal_run_sequential(const struct cal_cell *c, const size_t *looks,
				      size_t nlooks, double limit_pct, unsigned datasets,
				      struct cal_seq_result *res)
{
	struct cal_cell cell = *c;
	double level = 1 - (1 - CAL_LEVEL) / (double)nlooks;
	double ref[CAL_MAX_ROUNDS], cand[CAL_MAX_ROUNDS];
	size_t n = looks[nlooks - 1] < CAL_MAX_ROUNDS ? looks[nlooks - 1] : CAL_MAX_ROUNDS;
	uint64_t rng;

	cell.rounds = n;
	rng = cal_seed(&cell) ^ UINT64_C(0x5e9e7c1a15);
	memset(res, 0, sizeof(*res));
	res->datasets = datasets;
	for (unsigned t = 0; t < datasets; t++) {
		enum cal_verdict v = CAL_INCONCLUSIVE;
		size_t used = n;

		size_t first_zero = n;

		for (size_t r = 0; r < n; r++) {
			cal_round(&cell, &rng, r, &ref[r], &cand[r]);
			if ((!(ref[r] > 0) || !(cand[r] > 0)) && first_zero == n)
				first_zero = r;
		}
		for (size_t k = 0; k < nlooks && v == CAL_INCONCLUSIVE; k++) {
			size_t m = looks[k] < n ? looks[k] : n;

			/* A value of 0 or below leaves every later look without an interval too. */
			if (m > first_zero) {
				used = n;
				break;
			}
			v = cal_gate_at(ref, cand, m, CAL_RULE_ABEV, level, limit_pct);
			used = m;
		}
		res->verdicts[v]++;
		res->rounds += used;
	}
}

/*
 * The gate's power curve: how its verdict at limit_pct changes as rounds
 * are added to the same data. Each of datasets datasets of cell c is
 * drawn to c->rounds rounds (at most CAL_MAX_ROUNDS) and judged by
 * cal_gate() on its first n rounds for every n up to that, so that the
 * figure for n + 1 rounds is the figure for n with one round more, not a
 * fresh draw. verdicts[n][v] counts the datasets judged v on n rounds;
 * unfailed[n] those judged FAIL on n rounds and not on n + 1, which with
 * the counts gives the change's standard error on the same datasets
 * (cal_curve_step()).
 */
struct cal_curve {
	unsigned datasets;
	size_t rounds;
	unsigned verdicts[CAL_MAX_ROUNDS + 1][CAL_VERDICTS];
	unsigned unfailed[CAL_MAX_ROUNDS + 1];
};

static inline void cal_run_curve(const struct cal_cell *c, enum cal_rule rule,
				 double limit_pct, unsigned datasets, struct cal_curve *res)
{
	size_t n = c->rounds < CAL_MAX_ROUNDS ? c->rounds : CAL_MAX_ROUNDS;
	uint64_t rng = cal_seed(c) ^ UINT64_C(0xc0ffee5c0e7e);
	double ref[CAL_MAX_ROUNDS], cand[CAL_MAX_ROUNDS];

	memset(res, 0, sizeof(*res));
	res->datasets = datasets;
	res->rounds = n;
	for (unsigned t = 0; t < datasets; t++) {
		enum cal_verdict prev = CAL_INCONCLUSIVE;

		for (size_t r = 0; r < n; r++)
			cal_round(c, &rng, r, &ref[r], &cand[r]);
		for (size_t k = 1; k <= n; k++) {
			enum cal_verdict v = cal_gate(ref, cand, k, rule, limit_pct);

			res->verdicts[k][v]++;
			res->unfailed[k - 1] += prev == CAL_FAIL && v != CAL_FAIL;
			prev = v;
		}
	}
}

/* The share (0..1) of a curve's datasets judged v on n rounds. */
static inline double cal_curve_share(const struct cal_curve *res, size_t n, enum cal_verdict v)
{
	return res->datasets && n <= res->rounds ? (double)res->verdicts[n][v] / res->datasets : 0;
}

/*
 * The FAIL share on n + 1 rounds less that on n (n + 1 <= res->rounds),
 * and its standard error in *se, from the datasets whose verdict changed
 * (as cal_fail_diff() takes it).
 */
static inline double cal_curve_step(const struct cal_curve *res, size_t n, double *se)
{
	double N = res->datasets, lost = res->unfailed[n];
	double won = (double)res->verdicts[n + 1][CAL_FAIL] - res->verdicts[n][CAL_FAIL] + lost;

	*se = N > 0 ? sqrt(lost + won - (won - lost) * (won - lost) / N) / N : 0;
	return N > 0 ? (won - lost) / N : 0;
}

/*
 * The true ratios a shape change (CAL_SHAPE) at noise cv has, each what
 * one estimate aims at, from a large seeded sample (2 x CAL_TRUTH_DRAWS
 * runs; work holds 3 x CAL_TRUTH_DRAWS doubles): out[0] the ratio of the medians of the two sides' distributions
 * (the bootstrap's); out[1] the median of a round's ratio (the sign
 * test's and, the rounds' runs being independent, the unpaired
 * Hodges-Lehmann's); out[2] the pseudo-median of a round's ratio, the
 * median of the mean of two rounds' log-ratios (the paired
 * Hodges-Lehmann's, the estimate abev prints); out[3] the ratio of the
 * means.
 */
#define CAL_TRUTH_DRAWS 200000u

static inline int cal_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the sorted v[0..n). */
static inline double cal_sorted_median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline void cal_shape_truths(double cv, double *work, double out[CAL_TRUTHS])
{
	struct cal_cell c = { CAL_SHAPE, cv, 1, 1, 0, CAL_ORDER_BALANCED };
	uint64_t rng = cal_seed(&c) ^ UINT64_C(0x7e57ab1e);
	size_t n = CAL_TRUTH_DRAWS, h = n / 2;
	double *rl = work, *cl = work + n, *d = work + 2 * n, sr = 0, sc = 0;

	for (size_t i = 0; i < n; i++) {
		double r, x;

		cal_round(&c, &rng, 0, &r, &x);
		sr += r;
		sc += x;
		rl[i] = log(r);
		cl[i] = log(x);
		d[i] = cl[i] - rl[i];
	}
	qsort(rl, n, sizeof(*rl), cal_cmp_double);
	qsort(cl, n, sizeof(*cl), cal_cmp_double);
	out[0] = exp(cal_sorted_median(cl, n) - cal_sorted_median(rl, n));
	/* The Walsh averages of independent rounds, before d is sorted. */
	for (size_t i = 0; i < h; i++)
		rl[i] = (d[i] + d[i + h]) / 2;
	qsort(d, n, sizeof(*d), cal_cmp_double);
	out[1] = exp(cal_sorted_median(d, n));
	qsort(rl, h, sizeof(*rl), cal_cmp_double);
	out[2] = exp(cal_sorted_median(rl, h));
	out[3] = sc / sr;
}

/* The share (0..1) of a result's datasets with verdict v for method m at limit index l. */
static inline double cal_share(const struct cal_result *res, enum cal_method m, int l,
			       enum cal_verdict v)
{
	return res->datasets ? (double)res->verdicts[m][l][v] / res->datasets : 0;
}

/*
 * The share (0..1) of method m's intervals that held the true ratio, and
 * in *stated the coverage they stated on average; 0 (and 0) without one.
 */
static inline double cal_coverage(const struct cal_result *res, enum cal_method m,
				  double *stated)
{
	unsigned n = res->intervals[m];

	*stated = n ? res->stated[m] / n : 0;
	return n ? (double)res->covered[m] / n : 0;
}

/* The standard error of a share p estimated from n datasets. */
static inline double cal_se(double p, unsigned n)
{
	return n ? sqrt(p * (1 - p) / n) : 0;
}

/*
 * The paired method's FAIL share minus method m's at limit index l, on
 * the same datasets, and its standard error in *se (from the discordant
 * datasets, as McNemar's test takes it).
 */
static inline double cal_fail_diff(const struct cal_result *res, enum cal_method m, int l,
				   double *se)
{
	double n = res->datasets, b = res->paired_alone[m][l], c = res->fail_alone[m][l];

	*se = n > 0 ? sqrt(b + c - (b - c) * (b - c) / n) / n : 0;
	return n > 0 ? (b - c) / n : 0;
}

#endif
