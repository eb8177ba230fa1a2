/* number: strict parsing and round-trip text of numbers. */
#include "util/number.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Whether s is [+-] then digits only: strtoll() also skips leading blanks. */
static int is_whole(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s >= '0' && *s <= '9'))
			return 0;
	return 1;
}

int parse_int64(const char *s, int64_t *out)
{
	char *end;
	long long v;
	if (!s || !is_whole(s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/*
 * Whether s is wholly a decimal number: [+-] digits [. digits] [e [+-]
 * digits], at least one digit before the exponent. strtod() alone takes
 * hexadecimal ("0x10" is 16), "inf", "nan" and leading blanks as well,
 * none of which a user or a test report means by a number of seconds.
 */
static int is_decimal(const char *s)
{
	size_t digits = 0;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	if (!digits)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return !*s;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;
	if (!s || !is_decimal(s))
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
