/*
 * stats: descriptive figures, the exact rank tests, the Hodges-Lehmann
 * shift and bootstrap intervals behind abev's comparison. The samples are
 * runs of a benchmark, tens to a few hundred values, so exact
 * distributions are affordable up to the sizes stats.h names. It does no
 * I/O, reads no clock and keeps no state between calls; it knows nothing
 * of invocations, metrics or what the report says.
 *
 * Counts and probabilities are kept in double, not long double: long
 * double is 80-bit on x86-64, 128-bit software on aarch64 and plain double
 * on Apple's arm64, so it would make p-values differ between platforms.
 * C(200, 100) and 2^200 are far below DBL_MAX.
 */
#include "decide/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/rng.h"

/* Orders NaN after every number so that qsort sees a consistent order. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	int xn = x != x, yn = y != y;

	if (xn || yn)
		return xn - yn;
	return (x > y) - (x < y);
}

void stats_summary(const double *v, size_t n, struct summary *out)
{
	double *s;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	s = xmalloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	if (n % 2)
		out->median = s[n / 2];
	else
		out->median = (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
}

double stats_change_pct(double ref, double x, int *valid)
{
	if (ref == 0) {
		if (valid)
			*valid = 0;
		return 0;
	}
	if (valid)
		*valid = 1;
	return (x - ref) / ref * 100;
}

/* ---- Order statistics ---- */

/*
 * A copy of the finite values of v (caller frees; never NULL), their
 * count in *m. Adding 0.0 turns -0 into 0: the two compare equal, so
 * qsort may order them either way, and a -0 could otherwise reach a
 * result with its sign depending on the C library.
 */
static double *finite_copy(const double *v, size_t n, size_t *m)
{
	double *c = xcalloc(n, sizeof(*c));

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			c[(*m)++] = v[i] + 0.0;
	return c;
}

static void swap_double(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/* Insertion sort of a[0..n), all finite: the fastest way to finish a small range. */
static void insertion_sort(double *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double v = a[i];
		size_t j = i;

		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/*
 * The k-th smallest (from 0) of a[0..n), n > k, all finite; reorders a so
 * that a[0..k) <= a[k] <= a[k+1..n). Quickselect with a median-of-three
 * pivot; small ranges are finished by insertion sort, and ranges that
 * have taken more partitions than a balanced split would are sorted, so
 * the worst case stays O(n log n) while the bootstrap's many small
 * medians stay linear.
 */
static double kth_smallest(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	unsigned budget = 8;

	for (size_t m = n; m > 1; m >>= 1)
		budget += 2;
	while (hi > lo) {
		size_t i, j, mid = lo + (hi - lo) / 2;
		double pivot;

		if (hi - lo < 16) {
			insertion_sort(a + lo, hi - lo + 1);
			break;
		}
		if (budget-- == 0) {
			qsort(a + lo, hi - lo + 1, sizeof(*a), cmp_double);
			break;
		}
		if (a[mid] < a[lo])
			swap_double(&a[mid], &a[lo]);
		if (a[hi] < a[lo])
			swap_double(&a[hi], &a[lo]);
		if (a[hi] < a[mid])
			swap_double(&a[hi], &a[mid]);
		/* a[lo] <= pivot <= a[hi] stop both scans inside [lo, hi]. */
		pivot = a[mid];
		i = lo;
		j = hi;
		for (;;) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i >= j)
				break;
			swap_double(&a[i], &a[j]);
			i++;
			j--;
		}
		/* Now a[lo..j] <= pivot <= a[j+1..hi], and j < hi. */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
	return a[k];
}

/* Median of a[0..n), n >= 1, all finite; reorders a. */
static double median_inplace(double *a, size_t n)
{
	size_t h = n / 2;
	double upper = kth_smallest(a, n, h), lower;

	if (n % 2)
		return upper;
	/* kth_smallest() left the n/2 smaller values in front of a[h]. */
	lower = a[0];
	for (size_t i = 1; i < h; i++)
		if (a[i] > lower)
			lower = a[i];
	return (lower + upper) / 2;
}

double stats_median(const double *v, size_t n)
{
	size_t m;
	double *c = finite_copy(v, n, &m);
	double med = m ? median_inplace(c, m) : NAN;

	free(c);
	return med;
}

/* Median of |a[i] - med|, written over a. */
static double mad_inplace(double *a, size_t n, double med)
{
	for (size_t i = 0; i < n; i++)
		a[i] = fabs(a[i] - med);
	return median_inplace(a, n);
}

void stats_describe(const double *v, size_t n, struct stats_desc *out)
{
	size_t m;
	double *c = finite_copy(v, n, &m);
	double sum = 0, ss = 0;

	memset(out, 0, sizeof(*out));
	if (m == 0)
		goto out;
	/* Sorted, so that the sums (and so every figure) ignore the input's order. */
	qsort(c, m, sizeof(*c), cmp_double);
	out->n = m;
	out->min = c[0];
	out->max = c[m - 1];
	out->median = m % 2 ? c[m / 2] : (c[m / 2 - 1] + c[m / 2]) / 2;
	for (size_t i = 0; i < m; i++)
		sum += c[i];
	out->mean = sum / (double)m;
	/* Two passes: the sum of squared deviations does not cancel like sum(x^2) - n mean^2. */
	for (size_t i = 0; i < m; i++)
		ss += (c[i] - out->mean) * (c[i] - out->mean);
	out->sd = m > 1 ? sqrt(ss / (double)(m - 1)) : 0;
	out->cv = out->mean != 0 ? out->sd / fabs(out->mean) : 0;
	out->mad = mad_inplace(c, m, out->median);
out:
	free(c);
}

void stats_outliers(const double *v, size_t n, unsigned char *flags)
{
	size_t m;
	double *c = finite_copy(v, n, &m);
	double med = 0, mad = 0, mean_ad = 0, scale;

	if (m) {
		med = median_inplace(c, m);
		mad = mad_inplace(c, m, med);   /* c holds |x - median| now */
	}
	/* MAD 0: the mean absolute deviation, scaled to match it under normality. */
	for (size_t i = 0; !(mad > 0) && i < m; i++)
		mean_ad += c[i] / (double)m;
	scale = mad > 0 ? mad / 0.6745 : 1.253314 * mean_ad;
	for (size_t i = 0; i < n; i++)
		flags[i] = scale > 0 && isfinite(v[i]) && fabs(v[i] - med) / scale > STATS_OUTLIER_Z;
	free(c);
}

/* ---- Ranks ---- */

struct pooled {
	double v;
	unsigned char tag;   /* which sample, or the sign, the value came from */
};

static int cmp_pooled(const void *a, const void *b)
{
	const struct pooled *x = a, *y = b;
	return (x->v > y->v) - (x->v < y->v);
}

/*
 * Sorts p[0..n) by value and writes each one's doubled mid-rank into
 * r2[0..n): a tie group at sorted positions first..last (from 1) has
 * mid-rank (first + last) / 2, so its doubled rank first + last is an
 * integer and the exact distributions can count in integers. Returns sum(t^3 - t) over the
 * tie groups, the tie correction of the normal approximations.
 */
static double rank_pooled(struct pooled *p, size_t n, size_t *r2)
{
	double ties = 0;

	qsort(p, n, sizeof(*p), cmp_pooled);
	for (size_t a = 0, b; a < n; a = b) {
		double t;

		for (b = a + 1; b < n && p[b].v == p[a].v; b++)
			;
		for (size_t i = a; i < b; i++)
			r2[i] = a + 1 + b;
		t = (double)(b - a);
		ties += t * t * t - t;
	}
	return ties;
}

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/*
 * Divides the doubled ranks by their common divisor (2 when no tie group
 * has an even size), which halves the exact distributions' tables.
 */
static void reduce_weights(size_t *w, size_t n)
{
	size_t g = 0;

	for (size_t i = 0; i < n; i++)
		g = gcd(w[i], g);
	if (g > 1)
		for (size_t i = 0; i < n; i++)
			w[i] /= g;
}

/*
 * Two-sided p from the counts c[0..top] of a statistic's values, offset
 * so that its smallest value is 0, and the observed offset o: min(1, 2 *
 * min(P(S <= o), P(S >= o))). Each tail is summed from its far end, so
 * the small terms are added first.
 */
static double two_sided_p(const double *c, size_t top, size_t o)
{
	double lower = 0, above = 0, p;

	for (size_t s = 0; s <= o; s++)
		lower += c[s];
	for (size_t s = top; s > o; s--)
		above += c[s];
	p = 2 * (lower < above + c[o] ? lower : above + c[o]) / (lower + above);
	return p < 1 ? p : 1;
}

/* Two-sided p of a standard score |dev| - 1/2 over sd, by libm's erfc. */
static double normal_p(double dev, double var)
{
	double z;

	if (!(var > 0))
		return 1;
	z = (fabs(dev) - 0.5) / sqrt(var);
	if (z <= 0)
		return 1;
	z = erfc(z / sqrt(2.0));
	return z < 1 ? z : 1;
}

/* ---- Mann-Whitney U ---- */

/*
 * Exact two-sided p of obs, the sum of the m weights of one side, over
 * all C(n, m) ways to choose m of the n weights w[] (sorted ascending).
 * cnt[k][s] counts the choices of k among the weights seen so far with
 * sum s. With P the prefix sums of w, row k spans only the sums k weights
 * can have, [P[k], P[n] - P[n-k]]; each weight only adds to the sums the
 * weights before it can reach, and only to rows that can still grow to m.
 */
static double mw_exact_p(const size_t *w, size_t n, size_t m, size_t obs)
{
	size_t *pre = xcalloc(n + 1, sizeof(*pre));
	size_t *off = xcalloc(m + 2, sizeof(*off));
	double *cnt, p;

	for (size_t i = 0; i < n; i++)
		pre[i + 1] = pre[i] + w[i];
	for (size_t k = 0; k <= m; k++)
		off[k + 1] = off[k] + (pre[n] - pre[n - k] - pre[k] + 1);
	cnt = xcalloc(off[m + 1], sizeof(*cnt));
	cnt[0] = 1;
	for (size_t i = 0; i < n; i++) {
		size_t kmax = i + 1 < m ? i + 1 : m;
		size_t kmin = m > n - 1 - i ? m - (n - 1 - i) : 1;

		for (size_t k = kmax; k >= kmin; k--) {
			/* k - 1 of the weights 0..i-1: sums in [P[k-1], P[i] - P[i-k+1]]. */
			const double *src = cnt + off[k - 1];
			double *dst = cnt + off[k] + w[i] - (pre[k] - pre[k - 1]);
			size_t hi = pre[i] - pre[i - k + 1] - pre[k - 1];

			for (size_t s = 0; s <= hi; s++)
				dst[s] += src[s];
		}
	}
	/* Row m holds the sums from P[m] to P[n] - P[n-m]. */
	p = two_sided_p(cnt + off[m], pre[n] - pre[n - m] - pre[m], obs - pre[m]);
	free(cnt);
	free(off);
	free(pre);
	return p;
}

int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       struct stats_mw *out)
{
	struct pooled *p = xcalloc(nx + ny, sizeof(*p));
	size_t *r2 = NULL;
	size_t mx = 0, my = 0, n;
	double ties, w2x = 0;
	int ret = -1;

	out->u = 0;
	out->p = 1;
	out->exact = 0;
	for (size_t i = 0; i < nx; i++)
		if (isfinite(x[i]))
			p[mx++] = (struct pooled){ x[i], 1 };
	for (size_t i = 0; i < ny; i++)
		if (isfinite(y[i]))
			p[mx + my++] = (struct pooled){ y[i], 0 };
	if (!mx || !my)
		goto out;
	n = mx + my;
	r2 = xcalloc(n, sizeof(*r2));
	ties = rank_pooled(p, n, r2);
	for (size_t i = 0; i < n; i++)
		if (p[i].tag)
			w2x += (double)r2[i];
	/* U = W - nx(nx+1)/2, in doubled units: W2 - nx(nx+1). */
	out->u = (w2x - (double)mx * (double)(mx + 1)) / 2;
	if (n <= STATS_MW_EXACT_MAX) {
		/* Count choices of the smaller side: the table has min(nx, ny) + 1 rows. */
		unsigned char side = mx <= my;
		size_t obs = 0;

		reduce_weights(r2, n);
		for (size_t i = 0; i < n; i++)
			if (p[i].tag == side)
				obs += r2[i];
		out->p = mw_exact_p(r2, n, side ? mx : my, obs);
		out->exact = 1;
	} else {
		double dn = (double)n, prod = (double)mx * (double)my;
		double var = prod / 12 * ((dn + 1) - ties / (dn * (dn - 1)));

		out->p = normal_p(out->u - prod / 2, var);
	}
	ret = 0;
out:
	free(r2);
	free(p);
	return ret;
}

/*
 * C(n, k) in double: each step C(n-k+i, i) is a whole number, so it is
 * exact while the products stay below 2^53; +inf past DBL_MAX, where the
 * loop stops instead of running on with huge n.
 */
static double binomial(size_t n, size_t k)
{
	double c = 1;

	if (k > n - k)
		k = n - k;
	for (size_t i = 1; i <= k && !isinf(c); i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

double stats_mw_min_p(size_t nx, size_t ny)
{
	double p = 2 / binomial(nx + ny, nx);
	return p < 1 ? p : 1;
}

size_t stats_mw_n_needed(double alpha)
{
	if (!(alpha > 0))
		return 0;
	/* C(2n, n) overflows to +inf (min p 0) before n = 600. */
	for (size_t n = 1; n <= 4096; n++)
		if (stats_mw_min_p(n, n) < alpha)
			return n;
	return 0;
}

/* ---- Hodges-Lehmann ---- */

uint64_t stats_order_key(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b >> 63 ? ~b : b | UINT64_C(1) << 63;
}

double stats_key_value(uint64_t k)
{
	uint64_t b = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

/*
 * Pairs with y[j] - x[i] <= t, x and y sorted. Rounding is monotonic, so
 * the computed difference falls as x[i] rises and rises with y[j]: for
 * each y[j] the pairs above t are a prefix of x, which only grows with j.
 */
static uint64_t pairs_at_most(const double *x, size_t nx, const double *y, size_t ny, double t)
{
	uint64_t count = 0;
	size_t i = 0;

	for (size_t j = 0; j < ny; j++) {
		while (i < nx && y[j] - x[i] > t)
			i++;
		count += nx - i;
	}
	return count;
}

/*
 * The k-th smallest (from 1) of the differences, found by bisecting the
 * ordered doubles between the smallest and largest difference: at most
 * 64 counts of O(nx + ny) each, instead of storing nx * ny differences.
 * The smallest t with k differences at or below it is a difference.
 */
static double kth_difference(const double *x, size_t nx, const double *y, size_t ny, uint64_t k)
{
	uint64_t lo = stats_order_key(y[0] - x[nx - 1]), hi = stats_order_key(y[ny - 1] - x[0]);

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (pairs_at_most(x, nx, y, ny, stats_key_value(mid)) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return stats_key_value(lo) + 0.0;   /* + 0.0 turns a -0 into 0 */
}

double stats_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny)
{
	size_t mx, my;
	double *fx = finite_copy(x, nx, &mx), *fy = finite_copy(y, ny, &my);
	double hl = NAN;
	uint64_t pairs;

	if (!mx || !my || (uint64_t)my > UINT64_MAX / (uint64_t)mx)
		goto out;
	pairs = (uint64_t)mx * my;
	qsort(fx, mx, sizeof(*fx), cmp_double);
	qsort(fy, my, sizeof(*fy), cmp_double);
	if (pairs % 2)
		hl = kth_difference(fx, mx, fy, my, pairs / 2 + 1);
	else
		hl = (kth_difference(fx, mx, fy, my, pairs / 2) +
		      kth_difference(fx, mx, fy, my, pairs / 2 + 1)) / 2;
out:
	free(fx);
	free(fy);
	return hl;
}

/* ---- Wilcoxon signed-rank ---- */

/*
 * Exact two-sided p of W+ = obs: each of the n weights (doubled ranks,
 * reduced) counts for W+ with its sign, all 2^n sign assignments equally
 * likely. cnt[s] counts the assignments of the weights seen so far whose
 * positive weights sum to s.
 */
static double wsr_exact_p(const size_t *w, size_t n, size_t obs)
{
	size_t total_w = 0;
	double *cnt, p;

	for (size_t i = 0; i < n; i++)
		total_w += w[i];
	cnt = xcalloc(total_w + 1, sizeof(*cnt));
	cnt[0] = 1;
	for (size_t i = 0, reach = 0; i < n; i++) {
		reach += w[i];
		/* Weights are at least 1, so s stops at w[i] - 1 without wrapping. */
		for (size_t s = reach; s >= w[i]; s--)
			cnt[s] += cnt[s - w[i]];
	}
	p = two_sided_p(cnt, total_w, obs);
	free(cnt);
	return p;
}

/* |x| rounded to digits significant digits (0 stays 0). */
static double round_significant(double x, int digits)
{
	double a = fabs(x), scale;

	if (a == 0 || !isfinite(a))
		return a;
	scale = pow(10, digits - 1 - (int)floor(log10(a)));
	return round(a * scale) / scale;
}

int stats_wilcoxon(const double *d, size_t n, struct stats_wsr *out)
{
	struct pooled *p = xcalloc(n, sizeof(*p));
	size_t *r2 = xcalloc(n, sizeof(*r2));
	size_t m = 0;
	double ties, w2 = 0;

	for (size_t i = 0; i < n; i++) {
		double mag = isfinite(d[i]) ? round_significant(d[i], STATS_WSR_DIGITS) : 0;
		if (mag != 0)
			p[m++] = (struct pooled){ mag, d[i] > 0 };
	}
	out->n_used = m;
	out->w_plus = 0;
	out->p = 1;
	out->exact = 1;
	if (m == 0)
		goto out;
	ties = rank_pooled(p, m, r2);
	for (size_t i = 0; i < m; i++)
		if (p[i].tag)
			w2 += (double)r2[i];
	out->w_plus = w2 / 2;
	if (m <= STATS_WSR_EXACT_MAX) {
		size_t obs = 0;

		reduce_weights(r2, m);
		for (size_t i = 0; i < m; i++)
			if (p[i].tag)
				obs += r2[i];
		out->p = wsr_exact_p(r2, m, obs);
	} else {
		double dm = (double)m;
		double var = dm * (dm + 1) * (2 * dm + 1) / 24 - ties / 48;

		out->p = normal_p(out->w_plus - dm * (dm + 1) / 4, var);
		out->exact = 0;
	}
out:
	free(r2);
	free(p);
	return 0;
}

double stats_wsr_min_p(size_t n)
{
	if (n <= 1)
		return 1;
	/* 2 / 2^n underflows to 0 past n = 1075. */
	return n > 2000 ? 0 : ldexp(1.0, 1 - (int)n);
}

size_t stats_wsr_n_needed(double alpha)
{
	if (!(alpha > 0))
		return 0;
	for (size_t n = 1; n <= 4096; n++)
		if (stats_wsr_min_p(n) < alpha)
			return n;
	return 0;
}

/* ---- Bootstrap ---- */

const char *stats_boot_status_name(enum stats_boot_status s)
{
	switch (s) {
	case STATS_BOOT_OK:
		return "ok";
	case STATS_BOOT_BAD_ARGS:
		return "confidence level not in (0, 1) or resample count out of range";
	case STATS_BOOT_EMPTY:
		return "a sample has no finite value";
	case STATS_BOOT_ZERO_REF:
		return "the reference median is 0 in the sample or a resample, so the ratio is undefined";
	}
	return "unknown bootstrap status";
}

/*
 * The q-quantile of sorted s[0..n) by linear interpolation between order
 * statistics at position (n - 1) q (R's type 7). Clamped to the two order
 * statistics it lies between, so rounding cannot put a lower quantile
 * above a higher one; equal neighbours are returned as they are, since
 * interpolating between two infinities would give NaN.
 */
static double quantile_sorted(const double *s, size_t n, double q)
{
	double h = (double)(n - 1) * q, f, v;
	size_t a = (size_t)h;

	if (a + 1 >= n)
		return s[n - 1];
	f = h - (double)a;
	if (f == 0 || s[a] == s[a + 1])
		return s[a];
	v = s[a] + f * (s[a + 1] - s[a]);
	if (v < s[a])
		v = s[a];
	if (v > s[a + 1])
		v = s[a + 1];
	return v;
}

/* Median of n values drawn with replacement from src[0..n), using buf. */
static double resample_median(const double *src, size_t n, double *buf, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = src[rng_below(rng, n)];
	return median_inplace(buf, n);
}

/*
 * One engine for both intervals: ref == NULL bootstraps median(x). The
 * samples are sorted first, so the interval depends on the values, not
 * on the order they were recorded in.
 */
static int bootstrap(const double *ref, size_t nref, const double *x, size_t nx,
		     double level, unsigned resamples, uint64_t seed,
		     struct stats_interval *out)
{
	size_t mr = 0, mx = 0;
	double *fr = NULL, *fx = NULL, *buf = NULL, *stat = NULL;
	double ref_med = 1;
	uint64_t rng = seed;
	enum stats_boot_status st = STATS_BOOT_OK;

	memset(out, 0, sizeof(*out));
	if (!(level > 0 && level < 1) || resamples == 0 || resamples > STATS_BOOT_MAX_RESAMPLES) {
		st = STATS_BOOT_BAD_ARGS;
		goto out;
	}
	fx = finite_copy(x, nx, &mx);
	if (ref)
		fr = finite_copy(ref, nref, &mr);
	if (!mx || (ref && !mr)) {
		st = STATS_BOOT_EMPTY;
		goto out;
	}
	qsort(fx, mx, sizeof(*fx), cmp_double);
	buf = xcalloc(mx > mr ? mx : mr, sizeof(*buf));
	if (ref) {
		qsort(fr, mr, sizeof(*fr), cmp_double);
		memcpy(buf, fr, mr * sizeof(*buf));
		ref_med = median_inplace(buf, mr);
		if (ref_med == 0) {
			st = STATS_BOOT_ZERO_REF;
			goto out;
		}
	}
	memcpy(buf, fx, mx * sizeof(*buf));
	out->point = median_inplace(buf, mx) / ref_med;

	stat = xcalloc(resamples, sizeof(*stat));
	for (unsigned b = 0; b < resamples; b++) {
		double rm = 1;

		if (ref) {
			rm = resample_median(fr, mr, buf, &rng);
			if (rm == 0) {
				st = STATS_BOOT_ZERO_REF;
				goto out;
			}
		}
		stat[b] = resample_median(fx, mx, buf, &rng) / rm;
	}
	qsort(stat, resamples, sizeof(*stat), cmp_double);
	out->lo = quantile_sorted(stat, resamples, (1 - level) / 2);
	out->hi = quantile_sorted(stat, resamples, (1 + level) / 2);
out:
	if (st != STATS_BOOT_OK)
		memset(out, 0, sizeof(*out));
	out->status = st;
	free(stat);
	free(buf);
	free(fr);
	free(fx);
	return st == STATS_BOOT_OK ? 0 : -1;
}

int stats_bootstrap_ratio(const double *ref, size_t nref, const double *x, size_t nx,
			  double level, unsigned resamples, uint64_t seed,
			  struct stats_interval *out)
{
	/* A NULL ref with nref 0 would otherwise read as the median bootstrap. */
	static const double none[1];

	return bootstrap(ref ? ref : none, ref ? nref : 0, x, nx, level, resamples, seed, out);
}

int stats_bootstrap_median(const double *x, size_t nx, double level, unsigned resamples,
			   uint64_t seed, struct stats_interval *out)
{
	return bootstrap(NULL, 0, x, nx, level, resamples, seed, out);
}

/*
 * The largest k with P(Bin(n, 1/2) <= k - 1) <= tail, and that
 * probability in *cdf; 0 when even P(Bin = 0) = 2^-n is over it. Summed
 * in log space (lgamma), so any n works.
 */
static size_t binom_half_k(size_t n, double tail, double *cdf)
{
	double lnorm = lgamma((double)n + 1) - (double)n * log(2.0);
	double acc = 0;
	size_t k = 0;

	*cdf = 0;
	for (size_t j = 0; j <= n / 2; j++) {
		double pmf = exp(lnorm - lgamma((double)j + 1) - lgamma((double)(n - j) + 1));
		if (acc + pmf > tail * (1 + 1e-12))
			break;
		acc += pmf;
		k = j + 1;
		*cdf = acc;
	}
	return k;
}

int stats_median_ci(const double *x, size_t n, double level, struct stats_median_ci *out)
{
	double *v, cdf;
	size_t m = 0, k;

	out->ok = 0;
	out->lo = out->hi = out->coverage = NAN;
	out->k = 0;
	out->n = 0;
	if (!(level > 0 && level < 1))
		return -1;
	v = xcalloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			v[m++] = x[i];
	out->n = m;
	k = m ? binom_half_k(m, (1 - level) / 2, &cdf) : 0;
	if (k >= 1) {
		qsort(v, m, sizeof(*v), cmp_double);
		out->ok = 1;
		out->k = k;
		out->lo = v[k - 1];
		out->hi = v[m - k];
		out->coverage = 1 - 2 * cdf;
	}
	free(v);
	return 0;
}

size_t stats_median_ci_n_needed(double level)
{
	double cdf;

	if (!(level > 0 && level < 1))
		return 0;
	for (size_t n = 1; n <= 64; n++)
		if (binom_half_k(n, (1 - level) / 2, &cdf) >= 1)
			return n;
	return 0;
}
