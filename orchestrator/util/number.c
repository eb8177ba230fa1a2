/* number: strict parsing and round-trip text of numbers. */
#include "util/number.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int parse_int64(const char *s, int64_t *out)
{
	char *end;
	long long v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

const char *double_text(char buf[DOUBLE_TEXT_LEN], double v)
{
	v += 0.0; /* -0.0 would print as "-0" */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, DOUBLE_TEXT_LEN, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}
