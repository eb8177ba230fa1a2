/*
 * pathglob: the one glob engine for the files a plan names — `assemblies`
 * (host/assemblies.c) and `results.files` (pipeline/judge.c) — so that
 * a pattern means the same in both. Unlike glob(3) it knows `**` (any
 * number of directories); the rules are in pathglob.c. It walks and
 * matches names only: whether a match may be read, hashed or followed is
 * the caller's call.
 */
#ifndef ABEV_PATHGLOB_H
#define ABEV_PATHGLOB_H

#include <stddef.h>

/* A pattern matching more is refused as too broad. */
#define PATHGLOB_MATCH_MAX 100000

/*
 * Every path (absolute, sorted, without repeats) that pattern matches
 * from cwd (an absolute directory; a pattern starting with '/' ignores
 * it), directories and links to directories left out, into *paths
 * (caller frees with pathglob_free()). 0 (no match: *npaths == 0), or -1
 * with *err (caller frees) when the pattern is too broad or a directory
 * cannot be read.
 */
int pathglob_match(const char *cwd, const char *pattern, char ***paths, size_t *npaths,
		   char **err);
void pathglob_free(char **paths, size_t n);

#endif
