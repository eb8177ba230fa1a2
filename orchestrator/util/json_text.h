/*
 * json_text: the checks on JSON text that cJSON does not make, done on the
 * raw bytes before it parses them, so that no key or value escapes them:
 * no byte order mark, nesting no deeper than a limit (cJSON's own limit
 * only says "malformed"), and every string — keys and values — strict
 * UTF-8 without \u0000 (cJSON takes invalid UTF-8 as it comes, and keeps a
 * string only up to its first NUL, so "a\u0000b" would read as "a"), and
 * every number as JSON writes it (cJSON reads what strtod() reads, so 01,
 * 1. and -.5 would pass; +1, .5, 0x1, NaN and Infinity are named here
 * rather than called malformed). Each problem names the file, its line and
 * column and the JSON path of the string or number. It parses no values:
 * text that is malformed in another way is left to cJSON, which says so.
 */
#ifndef ABEV_JSON_TEXT_H
#define ABEV_JSON_TEXT_H

#include <stddef.h>

/* The nesting of arrays and objects abev reads: its documents need a handful. */
#define JSON_TEXT_MAX_DEPTH 64

/*
 * Checks text[0..len) (named file in messages) as above, max_depth nested
 * arrays and objects at most. 0, or -1 after error() at the first problem.
 */
int json_text_check(const char *file, const char *text, size_t len, unsigned max_depth);

/*
 * Where the run of plain string bytes from text[i] ends: the first quote,
 * backslash, control character or byte past ASCII at or after i, or len.
 * The fast step of a scan through a string, eight bytes at a time.
 */
size_t json_text_plain(const char *text, size_t i, size_t len);

/* The 1-based line and column (in bytes) of offset off in buf. */
void json_text_line_col(const char *buf, size_t off, size_t *line, size_t *col);

#endif
