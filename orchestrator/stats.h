/*
 * stats: the statistics of abev's comparison. Descriptive figures of one
 * sample: median, spread, MAD outliers.
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
 * When MAD == 0 (more than half the values are equal) nothing is
 * flagged: the score divides by the MAD and is undefined, and a sample
 * that repeats one value has no spread to call a value far from.
 */
void stats_outliers(const double *v, size_t n, unsigned char *flags);

#endif
