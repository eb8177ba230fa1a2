/*
 * number: numbers to and from text — strict parsing, where the whole
 * string must be a number in range, and the shortest text of a double
 * that reads back as itself. No units (decide/units.h) and no messages:
 * callers know the context.
 */
#ifndef ABEV_NUMBER_H
#define ABEV_NUMBER_H

#include <stdint.h>

/*
 * Strict number parsing: 0, or -1 when s is not wholly a decimal number in
 * range (no hexadecimal, inf, nan or blanks).
 */
int parse_int64(const char *s, int64_t *out);
int parse_double(const char *s, double *out);

/*
 * The shortest of v's %.15g, %.16g and %.17g that reads back as exactly
 * v (and "0" for -0.0): the text of a figure that must survive a round
 * trip through a file. Returns buf.
 */
#define DOUBLE_TEXT_LEN 32
const char *double_text(char buf[DOUBLE_TEXT_LEN], double v);

#endif
