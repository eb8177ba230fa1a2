/*
 * clock: the two clocks abev reads — CLOCK_MONOTONIC for every duration,
 * and the UTC wall clock written as a label only. No sleeping and no
 * timers: waiting on children is run/'s.
 */
#ifndef ABEV_CLOCK_H
#define ABEV_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Returns CLOCK_MONOTONIC in nanoseconds. */
int64_t mono_ns(void);
/* Formats ts (CLOCK_REALTIME) as 2026-11-10T16:54:37.980941+00:00. */
#define UTC_STAMP_LEN 40
void utc_format(char out[UTC_STAMP_LEN], const struct timespec *ts);

#endif
