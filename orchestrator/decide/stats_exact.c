/*
 * stats_exact: the exact order-statistic intervals of a shift (Wilcoxon
 * signed-rank for paired rounds, Mann-Whitney for unpaired samples), and
 * the two things they rest on: the null distributions of W+ and U, built
 * by dynamic programming over probabilities, and selection of the k-th
 * Walsh average or pairwise difference without storing them. It does no
 * I/O, reads no clock and keeps no state between calls; what a gate makes
 * of an interval is compare.c's business.
 *
 * The distributions are kept as probabilities in double, not counts:
 * 2^200 and C(200, 100) overflow every integer type, and long double
 * differs between platforms (stats.c says why). Each step of the
 * recursions below mixes two probabilities with weights that sum to 1, so
 * nothing cancels; up to 53 values the W+ probabilities are exact dyadic
 * fractions.
 */
#include "decide/stats_exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/stats.h"
#include "util/alloc.h"

/*
 * A tail probability is taken as at most the allowed one when within
 * this relative slack of it (stats.c's binom_half_k() allows the same):
 * 1 - 0.95 is not 0.05 in binary, and a level picked to meet a tail
 * exactly should be met.
 */
#define TAIL_SLACK (1 + 1e-12)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The finite values of v[0..n), -0 made 0, sorted (caller frees; never NULL). */
static double *sorted_finite(const double *v, size_t n, size_t *m)
{
	double *c = xcalloc(n ? n : 1, sizeof(*c));

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			c[(*m)++] = v[i] + 0.0;
	qsort(c, *m, sizeof(*c), cmp_double);
	return c;
}

/* ---- Inverse normal ---- */

static double poly7(const double *c, double r)
{
	double v = c[7];

	for (int i = 6; i >= 0; i--)
		v = v * r + c[i];
	return v;
}

/* Wichura, Algorithm AS 241 (Applied Statistics 37, 1988), PPND16. */
double stats_normal_quantile(double p)
{
	static const double a[8] = {
		3.3871328727963666080e0, 1.3314166789178437745e+2, 1.9715909503065514427e+3,
		1.3731693765509461125e+4, 4.5921953931549871457e+4, 6.7265770927008700853e+4,
		3.3430575583588128105e+4, 2.5090809287301226727e+3,
	};
	static const double b[8] = {
		1.0, 4.2313330701600911252e+1, 6.8718700749205790830e+2,
		5.3941960214247511077e+3, 2.1213794301586595867e+4, 3.9307895800092710610e+4,
		2.8729085735721942674e+4, 5.2264952788528545610e+3,
	};
	static const double c[8] = {
		1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
		3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
		2.27238449892691845833e-2, 7.74545014278341407640e-4,
	};
	static const double d[8] = {
		1.0, 2.05319162663775882187e0, 1.67638483018380384940e0,
		6.89767334985100004550e-1, 1.48103976427480074590e-1, 1.51986665636164571966e-2,
		5.47593808499534494600e-4, 1.05075007164441684324e-9,
	};
	static const double e[8] = {
		6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
		2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
		2.71155556874348757815e-5, 2.01033439929228813265e-7,
	};
	static const double f[8] = {
		1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1,
		1.48753612908506148525e-2, 7.86869131145613259100e-4, 1.84631831751005468180e-5,
		1.42151175831644588870e-7, 2.04426310338993978564e-15,
	};
	double q = p - 0.5, r, z;

	if (!(p >= 0 && p <= 1))
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * poly7(a, r) / poly7(b, r);
	}
	r = sqrt(-log(q < 0 ? p : 1 - p));
	if (r <= 5)
		z = poly7(c, r - 1.6) / poly7(d, r - 1.6);
	else
		z = poly7(e, r - 5) / poly7(f, r - 5);
	return q < 0 ? -z : z;
}

/* ---- Null distributions: the order statistic k ---- */

/*
 * The largest k with P(X <= k - 1) <= tail, given P(X = s) for s in
 * [0, top]; that probability in *cdf. The distributions here are
 * symmetric and tail < 1/2, so k stays within the half given.
 */
static size_t lower_k(const double *pr, size_t top, double tail, double *cdf)
{
	double acc = 0;
	size_t k = 0;

	for (size_t s = 0; s <= top; s++) {
		if (acc + pr[s] > tail * TAIL_SLACK)
			break;
		acc += pr[s];
		k = s + 1;
	}
	*cdf = acc;
	return k;
}

/*
 * W+ for m values: each rank r in 1..m counts with probability 1/2, so
 * after rank r, P(W = s) = (P'(W = s) + P'(W = s - r)) / 2. Only the
 * lower half of the support (s <= m(m+1)/4) is needed, and the recursion
 * never looks above s.
 */
static size_t wsr_exact_k(size_t m, double tail, double *cdf)
{
	size_t top = m * (m + 1) / 4, k;
	double *pr = xcalloc(top + 1, sizeof(*pr));

	pr[0] = 1;
	for (size_t r = 1; r <= m; r++) {
		size_t reach = r * (r + 1) / 2 < top ? r * (r + 1) / 2 : top;

		for (size_t s = reach + 1; s-- > 0;)
			pr[s] = 0.5 * (pr[s] + (s >= r ? pr[s - r] : 0));
	}
	k = lower_k(pr, top, tail, cdf);
	free(pr);
	return k;
}

/*
 * U (pairs with the first sample's value above the second's) for a
 * against b values without ties. With i values of the first sample and j
 * of the second, the largest of all is the first sample's with
 * probability i / (i + j), and then beats all j: P_ij(u) = i/(i+j)
 * P_(i-1)j(u - j) + j/(i+j) P_i(j-1)(u). slot[j] holds P_ij for the
 * current i (P_(i-1)j until overwritten), over u <= a*b/2 only; with a the
 * smaller side that is (a+1)(ab/2+1) doubles, 4 MB for 100 against 100.
 */
static size_t mw_exact_k(size_t a, size_t b, double tail, double *cdf)
{
	size_t top, k;
	double *pr;

	if (a > b) {
		size_t t = a;
		a = b;
		b = t;
	}
	top = a * b / 2;
	pr = xcalloc((a + 1) * (top + 1), sizeof(*pr));
	for (size_t j = 0; j <= a; j++)
		pr[j * (top + 1)] = 1;
	for (size_t i = 1; i <= b; i++) {
		for (size_t j = 1; j <= a; j++) {
			double *cur = pr + j * (top + 1), *left = cur - (top + 1);
			double wi = (double)i / (double)(i + j), wj = (double)j / (double)(i + j);
			size_t reach = i * j < top ? i * j : top;

			/* Downwards, so that cur[u - j] is still P_(i-1)j when read. */
			for (size_t u = reach; u >= j; u--)
				cur[u] = wi * cur[u - j] + wj * left[u];
			for (size_t u = 0; u < j && u <= reach; u++)
				cur[u] = wj * left[u];
		}
	}
	k = lower_k(pr + a * (top + 1), top, tail, cdf);
	free(pr);
	return k;
}

/*
 * Past the exact limits: P(X <= k - 1) ~ Phi((k - 1/2 - mean) / sd), so
 * the largest k keeping it within tail is floor(mean + 1/2 - z sd).
 */
static size_t normal_k(double mean, double var, double tail, double *cdf)
{
	double sd = sqrt(var), kf = floor(mean + 0.5 + stats_normal_quantile(tail) * sd);

	*cdf = 0;
	if (!(kf >= 1))
		return 0;
	*cdf = 0.5 * erfc(-(kf - 0.5 - mean) / sd / sqrt(2.0));
	return (size_t)kf;
}

/* ---- Selection among pairs ---- */

/*
 * The values selected from: the Walsh averages of x (y NULL) or the
 * differences y[j] - x[i]; x and y sorted ascending and finite. Computed
 * the same way every time, so the value of a pair never changes between
 * counting and selecting. A Walsh average is x_i/2 + x_j/2, which cannot
 * overflow and equals (x_i + x_j)/2 except among subnormals. Rounding is
 * monotonic, so a pair's value never falls as either index rises.
 */
struct pairs {
	const double *x, *y;
	size_t nx, ny;
};

static double walsh(const double *x, size_t i, size_t j)
{
	return 0.5 * x[i] + 0.5 * x[j];
}

/*
 * Pairs with a value at most t, and the largest such value in *best
 * (-inf when none). For the Walsh averages, the j >= i with walsh(i, j)
 * <= t are a prefix of [i, nx) whose end only moves down as i rises; for
 * differences, the i with y[j] - x[i] > t are a prefix that only grows
 * with j. Either way O(nx + ny).
 */
static uint64_t pairs_at_most(const struct pairs *p, double t, double *best)
{
	uint64_t count = 0;

	*best = -INFINITY;
	if (!p->y) {
		size_t end = p->nx;

		for (size_t i = 0; i < p->nx; i++) {
			while (end > i && walsh(p->x, i, end - 1) > t)
				end--;
			if (end == i)
				break;
			count += end - i;
			if (walsh(p->x, i, end - 1) > *best)
				*best = walsh(p->x, i, end - 1);
		}
		return count;
	}
	for (size_t j = 0, i = 0; j < p->ny; j++) {
		while (i < p->nx && p->y[j] - p->x[i] > t)
			i++;
		count += p->nx - i;
		if (i < p->nx && p->y[j] - p->x[i] > *best)
			*best = p->y[j] - p->x[i];
	}
	return count;
}

/*
 * The k-th smallest value (1 <= k <= count): the smallest double t with k
 * values at or below it, found by bisecting the ordered doubles between
 * the smallest and the largest value, at most 64 counts. That t is a
 * value; the largest value at or below it, which the last count found,
 * is returned rather than t itself so that the answer is always one of
 * the pairs' values even if the bisection's arithmetic were off.
 */
static double pairs_kth(const struct pairs *p, uint64_t k)
{
	uint64_t lo, hi;
	double best;

	if (!p->y) {
		lo = stats_order_key(walsh(p->x, 0, 0));
		hi = stats_order_key(walsh(p->x, p->nx - 1, p->nx - 1));
	} else {
		lo = stats_order_key(p->y[0] - p->x[p->nx - 1]);
		hi = stats_order_key(p->y[p->ny - 1] - p->x[0]);
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (pairs_at_most(p, stats_key_value(mid), &best) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	pairs_at_most(p, stats_key_value(lo), &best);
	return best + 0.0;   /* + 0.0 turns a -0 into 0 */
}

/* The median of the count values: the middle one, or the mean of the two middle ones. */
static double pairs_median(const struct pairs *p, uint64_t count)
{
	if (count % 2)
		return pairs_kth(p, count / 2 + 1);
	return 0.5 * pairs_kth(p, count / 2) + 0.5 * pairs_kth(p, count / 2 + 1);
}

/* m(m+1)/2 Walsh averages or mx*my differences; 0 when the count overflows. */
static uint64_t walsh_count(size_t m)
{
	if ((uint64_t)m >= UINT64_C(1) << 32)
		return 0;
	return (uint64_t)m * (m + 1) / 2;
}

static uint64_t diff_count(size_t mx, size_t my)
{
	if (mx && (uint64_t)my > UINT64_MAX / (uint64_t)mx)
		return 0;
	return (uint64_t)mx * my;
}

double stats_walsh_kth(const double *d, size_t n, uint64_t k)
{
	size_t m;
	double *v = sorted_finite(d, n, &m), r = NAN;
	struct pairs p = { v, NULL, m, 0 };

	if (m && k >= 1 && k <= walsh_count(m))
		r = pairs_kth(&p, k);
	free(v);
	return r;
}

double stats_diff_kth(const double *x, size_t nx, const double *y, size_t ny, uint64_t k)
{
	size_t mx, my;
	double *vx = sorted_finite(x, nx, &mx), *vy = sorted_finite(y, ny, &my), r = NAN;
	struct pairs p = { vx, vy, mx, my };

	if (mx && my && k >= 1 && k <= diff_count(mx, my))
		r = pairs_kth(&p, k);
	free(vx);
	free(vy);
	return r;
}

/* ---- The intervals ---- */

static void interval_clear(struct stats_exact_interval *out)
{
	out->point = out->lo = out->hi = out->coverage = NAN;
	out->n_used = 0;
	out->k = 0;
	out->ok = 0;
	out->exact = 1;
}

/* lo and hi as the k-th smallest and k-th largest of count values, when k qualifies. */
static void interval_take(struct stats_exact_interval *out, const struct pairs *p,
			  uint64_t count, size_t k, double cdf)
{
	if (k < 1 || (uint64_t)k > (count + 1) / 2)
		return;
	out->ok = 1;
	out->k = k;
	out->lo = pairs_kth(p, k);
	out->hi = pairs_kth(p, count - k + 1);
	out->coverage = 1 - 2 * cdf;
}

int stats_wsr_interval(const double *d, size_t n, double level,
		       struct stats_exact_interval *out)
{
	double tail = (1 - level) / 2, cdf = 0, *v = NULL;
	size_t m = 0, k;
	uint64_t count;
	struct pairs p;
	int ret = -1;

	interval_clear(out);
	if (!(level > 0 && level < 1))
		return -1;
	v = sorted_finite(d, n, &m);
	count = walsh_count(m);
	if (m && !count)
		goto out;
	ret = 0;
	out->n_used = m;
	if (!m)
		goto out;
	p = (struct pairs){ v, NULL, m, 0 };
	out->point = pairs_median(&p, count);
	if (m <= STATS_WSR_EXACT_MAX) {
		k = wsr_exact_k(m, tail, &cdf);
	} else {
		double dm = (double)m;

		out->exact = 0;
		k = normal_k(dm * (dm + 1) / 4, dm * (dm + 1) * (2 * dm + 1) / 24, tail, &cdf);
	}
	interval_take(out, &p, count, k, cdf);
out:
	free(v);
	return ret;
}

int stats_mw_interval(const double *x, size_t nx, const double *y, size_t ny,
		      double level, struct stats_exact_interval *out)
{
	double tail = (1 - level) / 2, cdf = 0, *vx = NULL, *vy = NULL;
	size_t mx = 0, my = 0, k;
	uint64_t count;
	struct pairs p;
	int ret = -1;

	interval_clear(out);
	if (!(level > 0 && level < 1))
		return -1;
	vx = sorted_finite(x, nx, &mx);
	vy = sorted_finite(y, ny, &my);
	count = diff_count(mx, my);
	if (mx && my && !count)
		goto out;
	ret = 0;
	out->n_used = mx + my;
	if (!mx || !my)
		goto out;
	p = (struct pairs){ vx, vy, mx, my };
	out->point = stats_hodges_lehmann(vx, mx, vy, my);
	if (mx + my <= STATS_MW_EXACT_MAX) {
		k = mw_exact_k(mx, my, tail, &cdf);
	} else {
		double a = (double)mx, b = (double)my;

		out->exact = 0;
		k = normal_k(a * b / 2, a * b * (a + b + 1) / 12, tail, &cdf);
	}
	interval_take(out, &p, count, k, cdf);
out:
	free(vx);
	free(vy);
	return ret;
}

size_t stats_wsr_interval_n_needed(double level)
{
	double cdf;

	if (!(level > 0 && level < 1))
		return 0;
	/* 1 - level >= 2^-53 for a double below 1: P(W+ = 0) = 2^-m is within it by m = 54. */
	for (size_t m = 1; m <= STATS_WSR_EXACT_MAX; m++)
		if (wsr_exact_k(m, (1 - level) / 2, &cdf) >= 1)
			return m;
	return 0;
}

size_t stats_mw_interval_n_needed(double level)
{
	double cdf;

	if (!(level > 0 && level < 1))
		return 0;
	/* P(U = 0) = 1 / C(2m, m) is within any such tail by m = 30. */
	for (size_t m = 1; 2 * m <= STATS_MW_EXACT_MAX; m++)
		if (mw_exact_k(m, m, (1 - level) / 2, &cdf) >= 1)
			return m;
	return 0;
}

int stats_joint_interval(const double *d, size_t n, const double *x, size_t nx,
			 const double *y, size_t ny, double level,
			 struct stats_joint_interval *out)
{
	double alpha = 1 - level, spent;

	memset(out, 0, sizeof(*out));
	out->lo = out->hi = out->point = out->coverage = NAN;
	interval_clear(&out->paired);
	interval_clear(&out->unpaired);
	if (!(level > 0 && level < 1))
		return -1;
	if (stats_wsr_interval(d, n, 1 - alpha / 2, &out->paired) < 0)
		return -1;
	if (!out->paired.ok)
		return 0;
	/* What the paired order statistics did not spend goes to the unpaired one. */
	spent = 1 - out->paired.coverage;
	if (!(spent >= 0 && spent < alpha))
		return 0;
	if (stats_mw_interval(x, nx, y, ny, 1 - (alpha - spent), &out->unpaired) < 0)
		return -1;
	if (!out->unpaired.ok)
		return 0;
	out->ok = 1;
	out->coverage = out->paired.coverage + out->unpaired.coverage - 1;
	out->lo = fmax(out->paired.lo, out->unpaired.lo);
	out->hi = fmin(out->paired.hi, out->unpaired.hi);
	if (out->lo > out->hi) {
		out->disjoint = 1;
		out->lo = fmin(out->paired.lo, out->unpaired.lo);
		out->hi = fmax(out->paired.hi, out->unpaired.hi);
	}
	out->point = fmin(fmax(out->paired.point, out->lo), out->hi);
	return 0;
}

size_t stats_joint_interval_n_needed(double level)
{
	if (!(level > 0 && level < 1))
		return 0;
	return stats_wsr_interval_n_needed(1 - (1 - level) / 2);
}

size_t stats_wsr_interval_n_preferred(double level)
{
	size_t first = stats_wsr_interval_n_needed(level);
	double tail = (1 - level) / 2, wcdf, mcdf;

	/*
	 * Coverage is 1 - 2 cdf: the paired interval is at least as tight
	 * where its cdf is at least the unpaired one's (the unpaired one is
	 * ok wherever the paired one is: 2 / C(2m, m) < 2 / 2^m). By 2m =
	 * STATS_MW_EXACT_MAX both are within a hair of the level; stop there.
	 */
	for (size_t m = first; m && 2 * m <= STATS_MW_EXACT_MAX; m++) {
		wsr_exact_k(m, tail, &wcdf);
		mw_exact_k(m, m, tail, &mcdf);
		if (wcdf * TAIL_SLACK >= mcdf)
			return m;
	}
	return first;
}
