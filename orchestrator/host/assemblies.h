/*
 * assemblies: the files a variant's `assemblies` patterns name, found and
 * hashed for metadata.json. A pattern is matched by a walk of its own,
 * since glob(3) has no `**` (the rules are in assemblies.c); the matches
 * of every pattern of every variant are then hashed together on every
 * core, each distinct file once. It neither expands placeholders (the
 * caller passes the expanded pattern) nor writes JSON.
 */
#ifndef ABEV_ASSEMBLIES_H
#define ABEV_ASSEMBLIES_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct assembly_file {
	char *path;                  /* as recorded: relative to cwd when under it */
	char *hash_path;             /* what is hashed: the match, or its link target */
	uint64_t size;
	char sha256[SHA256_HEX_LEN + 1];
	size_t job;                  /* index of its hash job */
};

struct assembly_pattern {
	char *pattern;               /* as in the plan; set by the caller */
	struct assembly_file *files;
	size_t nfiles;
};

/*
 * All files pattern (already expanded) matches from cwd into mp->files,
 * sorted and without repeats, their paths relative to cwd when under it.
 * 0, or -1 with *err (caller frees) when the pattern is too broad or a
 * match cannot be used; no match at all is 0 with nfiles == 0.
 */
int assemblies_match(const char *cwd, const char *pattern, struct assembly_pattern *mp,
		     char **err);
/* Frees the pattern text and files; mp is left zeroed. */
void assemblies_pattern_release(struct assembly_pattern *mp);

/*
 * Fills size and sha256 of every file of patterns[v][k] (k below
 * npatterns[v], v below nvariants) in one sha256_files() call. The first
 * failure in plan order is reported as "<plan_path>: variants[v].
 * assemblies[k]: '<pattern>': <why>". 0 or -1 after error().
 */
int assemblies_hash(const char *plan_path, struct assembly_pattern *const *patterns,
		    const size_t *npatterns, size_t nvariants);

#endif
