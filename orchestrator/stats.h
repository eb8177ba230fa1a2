/*
 * stats: order statistics over small samples (median, min, max) and the
 * relative change between two medians. No I/O.
 */
#ifndef ABEV_STATS_H
#define ABEV_STATS_H

#include <stddef.h>

struct summary {
	size_t n;
	double median, min, max;
};

/* Summarises v[0..n) (v is not modified). n == 0 gives n = 0 and zeros. */
void stats_summary(const double *v, size_t n, struct summary *out);
/* (x - ref) / ref * 100; returns 0 and sets *valid = 0 when ref == 0. */
double stats_change_pct(double ref, double x, int *valid);

#endif
