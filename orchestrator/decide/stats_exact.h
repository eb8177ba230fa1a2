/*
 * stats_exact: distribution-free confidence intervals for a shift, the
 * kind abev's change gates judge. Paired rounds give the Wilcoxon
 * signed-rank interval of their differences (order statistics of the
 * Walsh averages); two unpaired samples give the Mann-Whitney interval of
 * the shift between them (order statistics of the pairwise differences).
 * Each comes with the coverage its order statistics give under the exact
 * null distribution, which holds at any sample size for continuous data
 * (symmetric differences, or a pure shift), where a bootstrap interval's
 * coverage holds only as the samples grow.
 *
 * Pure computation like stats.h: no I/O, no clock, no globals. Every
 * input array is borrowed and left unmodified; nothing returned needs
 * freeing. Values that are not finite are skipped, and the counts
 * reported are of the finite values used. Probabilities are kept in
 * double, as in stats.c, so the same input gives the same interval on
 * every IEEE-754 platform that evaluates double in double, except for
 * the normal approximation past the exact limits (libm's erfc, sqrt).
 *
 * It does not decide anything: the level, and what an interval says of a
 * gate, belong to the caller (compare.c).
 */
#ifndef ABEV_STATS_EXACT_H
#define ABEV_STATS_EXACT_H

#include <stddef.h>
#include <stdint.h>

struct stats_exact_interval {
	double point;     /* Hodges-Lehmann estimate: median of the Walsh averages (paired)
			   * or of the pairwise differences (unpaired); NaN without values */
	double lo, hi;    /* the interval, lo <= hi; NaN unless ok */
	/*
	 * The coverage the chosen order statistics give, at least level; NaN
	 * unless ok. It is exact for continuous data. With ties (equal values,
	 * or equal Walsh averages or differences) the interval is the same
	 * order statistics and the figure is still the one for continuous
	 * data: ties can only make the closed interval cover more often.
	 */
	double coverage;
	size_t n_used;    /* finite values used (paired: of d; unpaired: nx + ny) */
	size_t k;         /* lo is the k-th smallest, hi the k-th largest (1-based); 0 unless ok */
	int ok;           /* 1: an interval at the level; 0: too few values for it (lo, hi NaN) */
	int exact;        /* 1: k from the exact null distribution; 0: normal approximation */
};

/*
 * Exact Wilcoxon signed-rank confidence interval (Hollander & Wolfe;
 * Bauer 1972) for the centre of symmetry of the finite d[0..n):
 * the order statistics of the m(m+1)/2 Walsh averages (d_i + d_j) / 2,
 * i <= j, of the m finite values (zeros included: a round that measured
 * no change is a measurement). k is the largest with P(W+ <= k - 1) <=
 * (1 - level) / 2 under the exact null distribution of W+ for m values
 * (2^m sign assignments of the ranks 1..m) while m <= STATS_WSR_EXACT_MAX;
 * coverage = 1 - 2 P(W+ <= k - 1). Past that, the normal approximation
 * with continuity correction: k = floor(M/2 + 1/2 - z sd), M = m(m+1)/2,
 * sd^2 = m(m+1)(2m+1)/24, z the (1 + level)/2 normal quantile, and the
 * coverage the same approximation gives. ok = 0 when no k >= 1 qualifies
 * (with level 0.95: m < 6; 0.90: m < 5). The Walsh averages are never
 * all stored: each order statistic is found by bisection on the value,
 * at most 64 counts of O(m) each over the sorted values, in O(m) memory.
 * Returns 0, or -1 for bad arguments (level not in (0, 1), or so many
 * values that their pairs cannot be counted in 64 bits); then every field
 * is as for ok = 0 with n_used 0.
 */
int stats_wsr_interval(const double *d, size_t n, double level,
		       struct stats_exact_interval *out);

/*
 * Exact Mann-Whitney (Hodges-Lehmann shift) interval for the shift of y
 * against x, positive when y is larger: the order statistics of the
 * mx * my differences y_j - x_i of the finite values. k is the largest
 * with P(U <= k - 1) <= (1 - level) / 2 under the exact null distribution
 * of U (no ties: every one of the C(mx+my, mx) orderings equally likely)
 * while mx + my <= STATS_MW_EXACT_MAX; coverage = 1 - 2 P(U <= k - 1).
 * Past that, the normal approximation as above with mean mx*my/2 and
 * sd^2 = mx*my*(mx+my+1)/12. point is stats_hodges_lehmann(x, nx, y, ny).
 * ok = 0 when too few values (level 0.95: 3 against 3 gives P(U <= 0) =
 * 1/20 > 0.025, not ok; 4 against 4 is ok, 1/70). Exact distributions up
 * to 100 against 100 take about 4 MB and tens of milliseconds. Same
 * return convention as stats_wsr_interval().
 */
int stats_mw_interval(const double *x, size_t nx, const double *y, size_t ny,
		      double level, struct stats_exact_interval *out);

/*
 * The fewest finite paired values (rounds) for which stats_wsr_interval()
 * is ok at level: 6 for 0.95, 5 for 0.90. 0 when level is not in (0, 1).
 */
size_t stats_wsr_interval_n_needed(double level);
/*
 * The fewest finite values a side, sides equal, for which
 * stats_mw_interval() is ok at level: 4 for 0.95. 0 when level is not in
 * (0, 1).
 */
size_t stats_mw_interval_n_needed(double level);
/*
 * The fewest rounds from which a change gate takes the paired interval
 * (stats_wsr_interval() of the rounds) rather than the unpaired one
 * (stats_mw_interval() of as many runs a side): the first count at which
 * the paired one is ok and the coverage its order statistics give is at
 * most the unpaired one's — 7 for 0.95 (96.9 % paired at 6 rounds
 * against 95.9 % unpaired), 8 for 0.99. Below it the paired interval's
 * few order statistics make it the wider one; from it on the paired one
 * is kept, since it also takes out the noise a round's two runs share,
 * which the unpaired one cannot. It depends on the level alone, so the
 * method is fixed before any value is seen. 0 when level is not in (0, 1).
 */
size_t stats_wsr_interval_n_preferred(double level);

/*
 * The change gates' interval once there are enough rounds for both tests:
 * the paired interval (stats_wsr_interval() of the rounds' log-ratios
 * d[0..n)) and the unpaired one (stats_mw_interval() of each side's log
 * values, x against y) together, Bonferroni. The paired one is taken at
 * 1 - (1 - level) / 2, and keeps what of that its order statistics leave
 * unspent; the unpaired one gets the rest of 1 - level: alpha_paired =
 * 1 - paired.coverage, the unpaired one at 1 - ((1 - level) - alpha_paired).
 * Both hold at once with probability at least
 * paired.coverage + unpaired.coverage - 1 >= level (coverage). The interval is
 * their intersection; when they do not meet (disjoint = 1; one of them
 * missed), their hull, which holds whenever either does — so lo, hi hold
 * at least at coverage either way.
 *
 * Why both: the paired interval takes out what a round's two runs share
 * (a machine slowed for a while), which the unpaired one cannot; the
 * unpaired one is the stronger under noise that strikes single runs (one
 * run of a round slowed by a burst, a slow tail), where a round's ratio
 * carries the whole burst. Neither rule on the number of rounds alone
 * serves both (bench/results.md's power curve), their intersection does.
 *
 * point is the paired Hodges-Lehmann estimate (paired.point), moved to the
 * nearer end of lo, hi when it falls outside. ok = 1 when both intervals
 * are ok; 0 otherwise, with lo, hi, point NaN (the parts as they came).
 * Returns 0, or -1 for bad arguments (as the two functions).
 */
struct stats_joint_interval {
	struct stats_exact_interval paired, unpaired;
	double lo, hi, point, coverage;
	int ok;
	int disjoint;
};

int stats_joint_interval(const double *d, size_t n, const double *x, size_t nx,
			 const double *y, size_t ny, double level,
			 struct stats_joint_interval *out);
/*
 * The fewest finite rounds for which stats_joint_interval() is ok at
 * level, runs a side as many: those the paired interval needs at
 * 1 - (1 - level) / 2 (7 for 0.95). 0 when level is not in (0, 1).
 */
size_t stats_joint_interval_n_needed(double level);

/*
 * The order statistics behind the intervals, for callers that want
 * others: the k-th smallest (1-based) Walsh average of the finite d, and
 * the k-th smallest difference y_j - x_i of the finite values. NaN when k
 * is 0 or past the count of averages or differences. Each sorts a copy of
 * the values and bisects as above.
 */
double stats_walsh_kth(const double *d, size_t n, uint64_t k);
double stats_diff_kth(const double *x, size_t nx, const double *y, size_t ny, uint64_t k);

/*
 * The standard normal quantile: z with Phi(z) = p (Wichura's AS 241,
 * PPND16, relative error about 1e-16). -inf at 0, +inf at 1, NaN outside
 * [0, 1] or for NaN.
 */
double stats_normal_quantile(double p);

#endif
