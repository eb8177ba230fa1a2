/*
 * stats: median, minimum and maximum of a small sample, and the relative
 * change of one median against a reference. The samples are a handful of
 * runs per variant, so a copy and a sort are cheaper to trust than a
 * selection algorithm. It does no I/O and knows nothing of invocations.
 */
#include "stats.h"

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
