/*
 * stats: the statistics of abev's comparison. Descriptive figures of one
 * sample (median, spread, MAD outliers), the exact small-sample rank
 * tests (Mann-Whitney U for two variants' runs, Wilcoxon signed-rank for
 * paired rounds), the smallest p-value a sample size can reach, the
 * Hodges-Lehmann shift, and percentile bootstrap intervals.
 *
 * Pure computation: no I/O (nothing is printed; failures come back as
 * return values), no clock, no globals. Every input array is borrowed
 * and left unmodified; nothing returned needs freeing. Results are
 * bit-identical on every IEEE-754 platform that evaluates double in
 * double (FLT_EVAL_METHOD 0), except where a comment names libm.
 *
 * Values that are not finite (NaN, +-inf) are not measurements: every
 * function below except stats_summary() drops them before computing, and
 * the counts it reports are of the finite values used.
 *
 * It does not decide anything: what alpha to use, whether a difference
 * is shown, how to word it, belong to the caller.
 */
#ifndef ABEV_STATS_H
#define ABEV_STATS_H

#include <stddef.h>
#include <stdint.h>

struct summary {
	size_t n;
	double median, min, max;
};

/*
 * Summarises v[0..n) (v is not modified). n == 0 gives n = 0 and zeros.
 * Unlike the rest of this module it keeps NaN (sorted last).
 */
void stats_summary(const double *v, size_t n, struct summary *out);
/* (x - ref) / ref * 100; returns 0 and sets *valid = 0 when ref == 0. */
double stats_change_pct(double ref, double x, int *valid);

/* ---- One sample ---- */

/*
 * Median of the finite values of v[0..n): the middle one, or the mean of
 * the two middle ones. NaN when there is none (n == 0 included).
 */
double stats_median(const double *v, size_t n);

struct stats_desc {
	size_t n;       /* finite values used */
	double median, min, max;
	double mean;
	double sd;      /* sample standard deviation (n - 1 denominator) */
	double mad;     /* raw median absolute deviation: median |v - median|, not scaled */
	double cv;      /* sd / |mean|; 0 when mean == 0 (the ratio is undefined) */
};

/*
 * Describes the finite values of v[0..n). No finite value gives n = 0
 * and every figure 0; one gives median = min = max = mean = that value
 * and sd = mad = cv = 0.
 */
void stats_describe(const double *v, size_t n, struct stats_desc *out);

/* Modified z-score above which a value is an outlier (Iglewicz & Hoaglin). */
#define STATS_OUTLIER_Z 3.5

/*
 * Sets flags[i] (n entries, caller's array) to 1 when v[i] is an outlier
 * and 0 otherwise: its modified z-score 0.6745 * |v[i] - median| / MAD
 * exceeds STATS_OUTLIER_Z, median and MAD being those of the finite
 * values. A non-finite v[i] gets 0: it is not a measurement to judge.
 * When MAD == 0 (more than half the values are equal) the score divides
 * by the mean absolute deviation about the median instead, scaled by
 * 1.253314 (Iglewicz and Hoaglin's fallback): |v[i] - median| /
 * (1.253314 * meanAD) over STATS_OUTLIER_Z, so that one spike among
 * repeated values is flagged; a sample of one value repeated flags none.
 */
void stats_outliers(const double *v, size_t n, unsigned char *flags);

/* ---- Two samples: Mann-Whitney U ---- */

/*
 * Mann-Whitney uses its exact distribution while nx + ny (finite values)
 * is at most this. The costliest case, 100 + 100 with ties, took 32 ms
 * (13 ms without ties) on one 2020s x86-64 core, and about 10 MB.
 */
#define STATS_MW_EXACT_MAX 200

struct stats_mw {
	double u;       /* U of x: pairs with x > y, plus half the tied pairs */
	double p;       /* two-sided p-value, in [0, 1] */
	int exact;      /* 1: from the exact permutation distribution; 0: normal approximation */
};

/*
 * Two-sided Mann-Whitney U test of x[0..nx) against y[0..ny). Tied values
 * get mid-ranks. Exact (nx + ny <= STATS_MW_EXACT_MAX): the distribution
 * of x's rank sum over all C(nx+ny, nx) assignments of the pooled values
 * to the two sides, conditional on the ties; p = min(1, 2 * min(P(W <= w),
 * P(W >= w))). Larger: the normal approximation with tie correction and
 * a continuity correction of 1/2 (libm's erfc). Swapping x and y gives
 * the same p and U' = nx*ny - U. Returns 0, or -1 when x or y has no
 * finite value (then u = 0, p = 1, exact = 0).
 */
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       struct stats_mw *out);

/*
 * The smallest two-sided p that Mann-Whitney can give for nx against ny
 * values without ties: 2 / C(nx+ny, nx), capped at 1 (so 1 when a side
 * is empty). 3 against 3 gives 0.1; 4 against 4, 0.0286.
 */
double stats_mw_min_p(size_t nx, size_t ny);

/*
 * Hodges-Lehmann shift of y against x: the median of the nx*ny pairwise
 * differences y[j] - x[i] (finite values only), positive when y is
 * larger. NaN when a side has no finite value. Needs memory for a copy
 * of x and of y only, not for the nx*ny differences.
 */
double stats_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny);

/*
 * Doubles (not NaN) mapped to unsigned integers in the same order (-0 just
 * below +0), and back: the bisection on a value's bits by which the order
 * statistics of pairwise differences and Walsh averages are found.
 */
uint64_t stats_order_key(double d);
double stats_key_value(uint64_t k);

/* ---- Paired: Wilcoxon signed-rank ---- */

/* Wilcoxon uses its exact distribution while n_used is at most this. */
#define STATS_WSR_EXACT_MAX 200

struct stats_wsr {
	size_t n_used;  /* non-zero finite differences: the ones ranked */
	double w_plus;  /* sum of the ranks of the positive differences */
	double p;       /* two-sided p-value, in [0, 1] */
	int exact;      /* 1: exact distribution (or n_used == 0); 0: normal approximation */
};

/*
 * Two-sided Wilcoxon signed-rank test of d[0..n) against 0 (differences
 * or log-ratios of paired rounds). Each |d| is ranked as rounded to
 * STATS_WSR_DIGITS significant digits, so that magnitudes equal but for
 * floating-point error tie (log 1.1 and -log(1/1.1) differ in the last
 * bit: ranked apart, 15 rounds up 10 % and 15 down 10 % gave p = 0.016
 * instead of 1). Zeros (after rounding) are dropped before ranking
 * (Wilcoxon's convention: a zero has no sign to count), so they change
 * neither n_used nor the ranks of the others; ties among |d| get
 * mid-ranks. Exact (n_used <= STATS_WSR_EXACT_MAX): W+ over all 2^n_used
 * sign assignments of the observed ranks; p = min(1, 2 * min(P(W+ <= w),
 * P(W+ >= w))). Larger: the normal approximation with tie correction and
 * a continuity correction of 1/2 (libm's erfc). n_used == 0 gives
 * w_plus = 0, p = 1, exact = 1. Negating d gives the same p. Returns 0.
 */
#define STATS_WSR_DIGITS 12
int stats_wilcoxon(const double *d, size_t n, struct stats_wsr *out);

/*
 * The smallest two-sided p that Wilcoxon can give for n non-zero
 * differences: 2 / 2^n, capped at 1. 5 gives 0.0625; 6, 0.03125.
 */
double stats_wsr_min_p(size_t n);

/*
 * The sample sizes a test needs before it can show a difference at
 * alpha, meaning p < alpha (strictly, the rule abev applies to p):
 * stats_mw_n_needed() is the smallest n with stats_mw_min_p(n, n) <
 * alpha, runs per variant with equal sides (4 for 0.05: 3 a side can
 * never go below 0.1); stats_wsr_n_needed() the smallest n with
 * stats_wsr_min_p(n) < alpha, paired rounds without zeros (6 for 0.05).
 * 0 when no n can (alpha <= 0 or NaN).
 */
size_t stats_mw_n_needed(double alpha);
size_t stats_wsr_n_needed(double alpha);

/* ---- Bootstrap intervals ---- */

/* Most resamples a bootstrap accepts: the resample statistics are kept in memory. */
#define STATS_BOOT_MAX_RESAMPLES 1000000u

enum stats_boot_status {
	STATS_BOOT_OK = 0,
	STATS_BOOT_BAD_ARGS,    /* level not in (0, 1), or resamples 0 or above the cap */
	STATS_BOOT_EMPTY,       /* a sample has no finite value */
	STATS_BOOT_ZERO_REF,    /* the reference median, or a resample's, is 0 */
};

struct stats_interval {
	double point;   /* the statistic of the samples themselves */
	double lo, hi;  /* lo <= hi; 0 unless status is STATS_BOOT_OK */
	enum stats_boot_status status;
};

/* A lowercase phrase for a status, for the caller's message. */
const char *stats_boot_status_name(enum stats_boot_status s);

/*
 * Percentile bootstrap interval of median(x) / median(ref). Each of the
 * resamples draws nref values from ref, then nx values from x, with
 * replacement and within each sample (finite values only), and takes the
 * ratio of their medians. lo and hi are the (1 - level) / 2 and
 * (1 + level) / 2 quantiles of the sorted ratios, interpolated linearly
 * between order statistics (R's type 7: position (B - 1) * q from 0).
 * The draws come from rng_next()/rng_below() (util/rng.h) seeded with seed,
 * in the order above, each an index into the sample's finite values
 * sorted ascending: the same arguments give a bit-identical interval on
 * every platform, and the order the values were recorded in does not
 * matter. point is median(x) / median(ref).
 * Returns 0, or -1 with out->status saying why (then point, lo and hi
 * are 0): a whole run stops at the first resample whose reference median
 * is 0, since one undefined ratio leaves the quantiles undefined.
 */
int stats_bootstrap_ratio(const double *ref, size_t nref, const double *x, size_t nx,
			  double level, unsigned resamples, uint64_t seed,
			  struct stats_interval *out);

/*
 * The same for median(x) itself: point is median(x). Never fails with
 * STATS_BOOT_ZERO_REF.
 */
int stats_bootstrap_median(const double *x, size_t nx, double level, unsigned resamples,
			   uint64_t seed, struct stats_interval *out);

/* ---- Distribution-free interval of a median ---- */

struct stats_median_ci {
	int ok;           /* 0: too few values for the level (lo, hi NaN) */
	double lo, hi;    /* the k-th smallest and the k-th largest finite value */
	size_t k;         /* 1-based; 0 unless ok */
	double coverage;  /* 1 - 2 P(Bin(n, 1/2) <= k - 1): at least level */
	size_t n;         /* finite values */
};

/*
 * The order-statistic interval of the median of x (binomial, exact for
 * any continuous distribution): k is the largest with P(Bin(n, 1/2) <=
 * k - 1) <= (1 - level) / 2. Needs stats_median_ci_n_needed(level) finite
 * values (6 for 0.95: 2/64 = 0.031). Returns 0, or -1 when level is not
 * in (0, 1).
 */
int stats_median_ci(const double *x, size_t n, double level, struct stats_median_ci *out);
size_t stats_median_ci_n_needed(double level);

#endif
