/*
 * stats: the descriptive figures of one sample behind abev's comparison.
 * The samples are runs of a benchmark, tens to a few hundred values. It
 * does no I/O, reads no clock and keeps no state between calls; it knows
 * nothing of invocations, metrics or what the report says.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

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
	double med = 0, mad = 0;

	if (m) {
		med = median_inplace(c, m);
		mad = mad_inplace(c, m, med);
	}
	for (size_t i = 0; i < n; i++)
		flags[i] = mad > 0 && isfinite(v[i]) &&
			   0.6745 * fabs(v[i] - med) / mad > STATS_OUTLIER_Z;
	free(c);
}
