/*
 * suggest: the nearest of a list of known names to a misspelt one, for
 * "did you mean 'gap_seconds'?" in messages. Pure computation: no I/O,
 * no allocation.
 */
#ifndef ABEV_SUGGEST_H
#define ABEV_SUGGEST_H

#include <stddef.h>

/* Words longer than this are neither compared nor suggested. */
#define SUGGEST_MAX_LEN 64

/*
 * The optimal-string-alignment distance of a and b: insertions, deletions,
 * substitutions and swaps of two neighbours each count 1; case matters.
 * Returns SIZE_MAX when either is longer than SUGGEST_MAX_LEN.
 */
size_t suggest_distance(const char *a, const char *b);

/*
 * The name in names[0..n) nearest to word, or NULL when none is near
 * enough to be a likely typo: a distance of at most 1 + (longer length)/4
 * and at most half of word's own length ("max" is not "mean"), or word
 * being a prefix of the name
 * (at least 3 characters: "timeout" for "timeout_seconds"). Ties go to
 * the earlier name. The result is borrowed from names.
 */
const char *suggest_nearest(const char *word, const char *const *names, size_t n);

/*
 * For printf: "...found 'alternat'" SUGGEST_FMT "...", SUGGEST_ARGS(s)
 * adds ", did you mean 'alternate'?" when s is not NULL, nothing otherwise.
 */
#define SUGGEST_FMT "%s%s%s"
#define SUGGEST_ARGS(s) (s) ? ", did you mean '" : "", (s) ? (s) : "", (s) ? "'?" : ""

#endif
