/* clock: the monotonic clock in nanoseconds, and UTC stamps. */
#include "util/clock.h"

#include <stdio.h>

int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void utc_format(char out[UTC_STAMP_LEN], const struct timespec *ts)
{
	struct tm tm;
	time_t t = ts->tv_sec;
	char date[24];
	unsigned micros = (unsigned)((ts->tv_nsec / 1000) % 1000000);

	if (!gmtime_r(&t, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(out, UTC_STAMP_LEN, "unknown");
		return;
	}
	snprintf(out, UTC_STAMP_LEN, "%s.%06u+00:00", date, micros);
}
