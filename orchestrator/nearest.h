/*
 * nearest: the candidates closest to what someone typed — a plan key, a
 * test-name glob that matched nothing — so that a message can list what
 * was probably meant. Closeness is the edit distance (Levenshtein, ASCII
 * letters compared without case), either between the whole strings or,
 * in substring mode, between the word and the part of a candidate it
 * fits best (for globs such as "*Parse*", which name a part). Pure
 * computation, bounded: at most NEAREST_LEN_MAX bytes of each string and
 * NEAREST_CANDIDATES_MAX candidates are looked at.
 */
#ifndef ABEV_NEAREST_H
#define ABEV_NEAREST_H

#include <stddef.h>

#define NEAREST_LEN_MAX 256
#define NEAREST_CANDIDATES_MAX 20000
/* The most candidates one call returns. */
#define NEAREST_OUT_MAX 16

/* The edit distance from word to cand (whole), or to cand's best-fitting part (substring). */
size_t nearest_distance(const char *word, const char *cand, int substring);

/*
 * Puts in out[] (borrowed from cands) up to max (at most NEAREST_OUT_MAX)
 * distinct candidates whose
 * distance from word is at most max_distance (SIZE_MAX: any), nearest
 * first; equally near ones keep their order in cands. NULL candidates are
 * skipped. Returns how many were put.
 */
size_t nearest(const char *word, const char *const *cands, size_t ncands, int substring,
	       size_t max_distance, const char **out, size_t max);

#endif
