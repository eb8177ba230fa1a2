/*
 * calibration_sim: a seeded simulation of how often abev's change gate
 * ("higher is worse, limit L %") fails, passes or cannot decide, on
 * synthetic benchmark runs whose truth is known: the same distribution for
 * baseline and candidate (A/A), or a candidate slower by a set factor.
 * Two ways of judging are simulated on the same datasets: the paired
 * exact Wilcoxon signed-rank interval of the rounds' log-ratios
 * (stats_wsr_interval(), what the gates use), and the unpaired percentile
 * bootstrap of the ratio of medians (stats_bootstrap_ratio(), what they
 * used before).
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
	CAL_MODELS
};

static const char *const cal_model_names[CAL_MODELS] = {
	"lognormal", "heavy-tailed", "drift", "round factor", "shared slow-down",
	"one-sided bursts", "machine drift",
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

enum cal_method { CAL_PAIRED, CAL_BOOTSTRAP, CAL_METHODS };

static const char *const cal_method_names[CAL_METHODS] = {
	"paired exact WSR", "unpaired bootstrap",
};

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
};

struct cal_result {
	unsigned datasets;
	/* verdicts[method][limit index][verdict]: datasets with that verdict */
	unsigned verdicts[CAL_METHODS][CAL_LIMITS][CAL_VERDICTS];
	/*
	 * fail_alone[method][limit index]: datasets that method FAILs and the
	 * other does not (both asked for), to compare the methods on the same
	 * datasets (McNemar).
	 */
	unsigned fail_alone[CAL_METHODS][CAL_LIMITS];
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

/*
 * Simulates o->datasets datasets of cell c and counts each method's
 * verdict at each of cal_limits. The data stream does not depend on the
 * methods asked for, nor on the resamples: each dataset's bootstrap has a
 * seed of its own. A method that gives no interval (too few rounds, a
 * bootstrap failure) counts as INCONCLUSIVE.
 */
static inline void cal_run(const struct cal_cell *c, const struct cal_options *o,
			   struct cal_result *res)
{
	uint64_t seed = cal_seed(c), rng = seed;
	double ref[CAL_MAX_ROUNDS], cand[CAL_MAX_ROUNDS], d[CAL_MAX_ROUNDS];
	size_t n = c->rounds < CAL_MAX_ROUNDS ? c->rounds : CAL_MAX_ROUNDS;

	memset(res, 0, sizeof(*res));
	res->datasets = o->datasets;
	for (unsigned t = 0; t < o->datasets; t++) {
		double lo[CAL_METHODS] = { NAN, NAN }, hi[CAL_METHODS] = { NAN, NAN };
		int ok[CAL_METHODS] = { 0 };

		for (size_t r = 0; r < n; r++) {
			cal_round(c, &rng, r, &ref[r], &cand[r]);
			d[r] = log(cand[r] / ref[r]);
		}
		if (o->methods & 1u << CAL_PAIRED) {
			struct stats_exact_interval iv;

			if (stats_wsr_interval(d, n, CAL_LEVEL, &iv) == 0 && iv.ok) {
				ok[CAL_PAIRED] = 1;
				lo[CAL_PAIRED] = exp(iv.lo);
				hi[CAL_PAIRED] = exp(iv.hi);
				res->stated[CAL_PAIRED] += iv.coverage;
			}
		}
		if (o->methods & 1u << CAL_BOOTSTRAP) {
			struct stats_interval iv;
			uint64_t bseed = seed + (uint64_t)(t + 1) * UINT64_C(0x9e3779b97f4a7c15);

			if (stats_bootstrap_ratio(ref, n, cand, n, CAL_LEVEL, o->resamples, bseed,
						  &iv) == 0) {
				ok[CAL_BOOTSTRAP] = 1;
				lo[CAL_BOOTSTRAP] = iv.lo;
				hi[CAL_BOOTSTRAP] = iv.hi;
				res->stated[CAL_BOOTSTRAP] += CAL_LEVEL;
			}
		}
		for (int m = 0; m < CAL_METHODS; m++)
			if (ok[m]) {
				res->intervals[m]++;
				res->covered[m] += lo[m] <= c->effect && c->effect <= hi[m];
			}
		for (int l = 0; l < CAL_LIMITS; l++) {
			enum cal_verdict v[CAL_METHODS];

			for (int m = 0; m < CAL_METHODS; m++) {
				v[m] = ok[m] ? cal_verdict(lo[m], hi[m], cal_limits[l])
					     : CAL_INCONCLUSIVE;
				if (o->methods & 1u << m)
					res->verdicts[m][l][v[m]]++;
			}
			if (o->methods == (1u << CAL_METHODS) - 1 &&
			    (v[CAL_PAIRED] == CAL_FAIL) != (v[CAL_BOOTSTRAP] == CAL_FAIL))
				res->fail_alone[v[CAL_PAIRED] == CAL_FAIL ? CAL_PAIRED
									  : CAL_BOOTSTRAP][l]++;
		}
	}
}

/*
 * schedule.until "decided": the paired gate looked at after looks[0..nlooks)
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
	double ref[CAL_MAX_ROUNDS], cand[CAL_MAX_ROUNDS], d[CAL_MAX_ROUNDS];
	size_t n = looks[nlooks - 1] < CAL_MAX_ROUNDS ? looks[nlooks - 1] : CAL_MAX_ROUNDS;
	uint64_t rng;

	cell.rounds = n;
	rng = cal_seed(&cell) ^ UINT64_C(0x5e9e7c1a15);
	memset(res, 0, sizeof(*res));
	res->datasets = datasets;
	for (unsigned t = 0; t < datasets; t++) {
		enum cal_verdict v = CAL_INCONCLUSIVE;
		size_t used = n;

		for (size_t r = 0; r < n; r++) {
			cal_round(&cell, &rng, r, &ref[r], &cand[r]);
			d[r] = log(cand[r] / ref[r]);
		}
		for (size_t k = 0; k < nlooks && v == CAL_INCONCLUSIVE; k++) {
			struct stats_exact_interval iv;
			size_t m = looks[k] < n ? looks[k] : n;

			if (stats_wsr_interval(d, m, level, &iv) == 0 && iv.ok)
				v = cal_verdict(exp(iv.lo), exp(iv.hi), limit_pct);
			used = m;
		}
		res->verdicts[v]++;
		res->rounds += used;
	}
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
 * The paired method's FAIL share minus the bootstrap's at limit index l,
 * on the same datasets, and its standard error in *se (from the
 * discordant datasets, as McNemar's test takes it).
 */
static inline double cal_fail_diff(const struct cal_result *res, int l, double *se)
{
	double n = res->datasets, b = res->fail_alone[CAL_PAIRED][l];
	double c = res->fail_alone[CAL_BOOTSTRAP][l];

	*se = n > 0 ? sqrt(b + c - (b - c) * (b - c) / n) / n : 0;
	return n > 0 ? (b - c) / n : 0;
}

#endif
