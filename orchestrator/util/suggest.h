/*
 * suggest: what someone probably meant — the known name nearest to a
 * misspelt plan key or value ("did you mean 'gap_seconds'?"), or the
 * candidates closest to a test-name glob that matched nothing. One edit
 * distance serves both, with options: adjacent swaps counted as one edit
 * (optimal string alignment), ASCII case ignored, and substring mode, in
 * which the word is matched against the part of a candidate it fits best
 * (for globs such as "*Parse*", which name a part). Pure computation,
 * bounded: at most SUGGEST_LEN_MAX bytes of each string and
 * SUGGEST_CANDIDATES_MAX candidates are looked at; no I/O, no allocation.
 * It does not format messages beyond SUGGEST_FMT.
 */
#ifndef ABEV_SUGGEST_H
#define ABEV_SUGGEST_H

#include <stddef.h>

/* Bytes of each string compared; the rest is not looked at. */
#define SUGGEST_LEN_MAX 256
#define SUGGEST_CANDIDATES_MAX 20000
/* The most candidates suggest_list() returns. */
#define SUGGEST_OUT_MAX 16
/* Words and names longer than this are never taken for a typo of each other. */
#define SUGGEST_WORD_MAX 64

/* How suggest_distance() compares. */
enum {
	SUGGEST_SWAPS = 1,     /* a swap of two neighbours is one edit, not two */
	SUGGEST_ANY_CASE = 2,  /* ASCII letters compared without case */
	SUGGEST_PART = 4,      /* distance to the candidate's best-fitting part */
};

/*
 * The edit distance from word to cand (insertions, deletions and
 * substitutions count 1; see the flags above). Symmetric without
 * SUGGEST_PART.
 */
size_t suggest_distance(const char *word, const char *cand, unsigned how);

/*
 * The name in names[0..n) nearest to word, or NULL when none is near
 * enough to be a likely typo: distance with swaps and case counted, at
 * most 1 + (longer length)/4 and at most half of word's own length ("max"
 * is not "mean"), or word being a prefix of the name (at least 3
 * characters: "timeout" for "timeout_seconds"). Words and names longer
 * than SUGGEST_WORD_MAX are left out. Ties go to the earlier name. The
 * result is borrowed from names.
 */
const char *suggest_nearest(const char *word, const char *const *names, size_t n);

/*
 * Puts in out[] (borrowed from cands) up to max (at most SUGGEST_OUT_MAX)
 * distinct candidates whose suggest_distance(word, cand, how) is at most
 * max_distance (SIZE_MAX: any), nearest first; equally near ones keep
 * their order in cands. NULL candidates are skipped. Returns how many
 * were put.
 */
size_t suggest_list(const char *word, const char *const *cands, size_t ncands, unsigned how,
		    size_t max_distance, const char **out, size_t max);

/*
 * For printf: "...found 'alternat'" SUGGEST_FMT "...", SUGGEST_ARGS(s)
 * adds ", did you mean 'alternate'?" when s is not NULL, nothing otherwise.
 */
#define SUGGEST_FMT "%s%s%s"
#define SUGGEST_ARGS(s) (s) ? ", did you mean '" : "", (s) ? (s) : "", (s) ? "'?" : ""

#endif
