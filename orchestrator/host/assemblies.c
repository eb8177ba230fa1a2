/*
 * assemblies: matching and hashing the files of `assemblies` patterns
 * (assemblies.h).
 *
 * Matching is pathglob's (util/pathglob.c: `**` and the rest, as
 * results.files has them). Only files are recorded: a symbolic link to a
 * regular file under the path that matched, with the size and hash of its
 * target (resolved with realpath(3), since hashing refuses to follow links
 * itself); a dangling link, a FIFO, a device or a socket is an error
 * rather than a guess.
 */
#include "host/assemblies.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/alloc.h"
#include "util/pathglob.h"
#include "util/strbuf.h"
#include "util/usage.h"

/*
 * A matched path as a file to hash: a regular file, or a link to one
 * (hashed through its resolved target). 0, or -1 with *err.
 */
static int assembly_file(const char *path, struct assembly_file *f, char **err)
{
	struct stat st;
	char *target;

	if (lstat(path, &st) < 0) {
		*err = xasprintf("cannot examine '%s': %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st) < 0) {
			*err = xasprintf("'%s' is a symbolic link whose target cannot be "
					 "hashed: %s", path, strerror(errno));
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			*err = xasprintf("'%s' links to something that is not a regular file",
					 path);
			return -1;
		}
		target = realpath(path, NULL);
		if (!target) {
			*err = xasprintf("cannot resolve '%s': %s", path, strerror(errno));
			return -1;
		}
	} else if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("'%s' is not a regular file", path);
		return -1;
	} else {
		target = xstrdup(path);
	}
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	f->hash_path = target;
	return 0;
}

static int file_cmp(const void *a, const void *b)
{
	const struct assembly_file *x = a, *y = b;
	return strcmp(x->path, y->path);
}

static void file_release(struct assembly_file *f)
{
	free(f->path);
	free(f->hash_path);
	memset(f, 0, sizeof(*f));
}

/*
 * All files pattern (already expanded) matches from cwd, sorted and
 * without repeats, their paths relative to cwd when under it. 0, or -1
 * with *err (caller frees); no match at all is 0 with nfiles == 0.
 */
int assemblies_match(const char *cwd, const char *pattern, struct assembly_pattern *mp,
		     char **err)
{
	char **paths = NULL;
	struct assembly_file *files = NULL;
	size_t npaths = 0, nfiles = 0, cwd_len = strlen(cwd);
	int ret = -1;

	if (pathglob_match(cwd, pattern, &paths, &npaths, err) < 0)
		return -1;
	files = xcalloc(npaths ? npaths : 1, sizeof(*files));
	for (; nfiles < npaths; nfiles++) {
		char *p;
		if (assembly_file(paths[nfiles], &files[nfiles], err) < 0)
			goto out;
		p = files[nfiles].path;
		if (!strcmp(cwd, "/"))
			memmove(p, p + 1, strlen(p));
		else if (!strncmp(p, cwd, cwd_len) && p[cwd_len] == '/')
			memmove(p, p + cwd_len + 1, strlen(p + cwd_len + 1) + 1);
	}
	if (nfiles)
		qsort(files, nfiles, sizeof(*files), file_cmp);
	mp->files = files;
	mp->nfiles = nfiles;
	files = NULL;
	nfiles = 0;
	ret = 0;
out:
	for (size_t i = 0; i < nfiles; i++)
		file_release(&files[i]);
	free(files);
	pathglob_free(paths, npaths);
	return ret;
}

void assemblies_pattern_release(struct assembly_pattern *mp)
{
	free(mp->pattern);
	for (size_t i = 0; i < mp->nfiles; i++)
		file_release(&mp->files[i]);
	free(mp->files);
	memset(mp, 0, sizeof(*mp));
}


static int hash_path_cmp(const void *a, const void *b)
{
	const struct assembly_file *const *x = a, *const *y = b;
	return strcmp((*x)->hash_path, (*y)->hash_path);
}

/*
 * Every distinct file of every variant in one sha256_files() call, so that
 * every core hashes and a file several variants match is read once.
 */
int assemblies_hash(const char *plan_path, struct assembly_pattern *const *patterns,
		    const size_t *npatterns, size_t nvariants)
{
	struct assembly_file **all;
	struct hash_job *jobs;
	size_t n = 0, i = 0, njobs = 0, failed;
	int ret = 0;

	for (size_t v = 0; v < nvariants; v++)
		for (size_t k = 0; k < npatterns[v]; k++)
			n += patterns[v][k].nfiles;
	if (!n)
		return 0;
	all = xcalloc(n, sizeof(*all));
	for (size_t v = 0; v < nvariants; v++)
		for (size_t k = 0; k < npatterns[v]; k++)
			for (size_t f = 0; f < patterns[v][k].nfiles; f++)
				all[i++] = &patterns[v][k].files[f];
	qsort(all, n, sizeof(*all), hash_path_cmp);
	jobs = xcalloc(n, sizeof(*jobs));
	for (i = 0; i < n; i++) {
		if (!i || strcmp(all[i - 1]->hash_path, all[i]->hash_path))
			jobs[njobs++].path = all[i]->hash_path;
		all[i]->job = njobs - 1;
	}
	failed = sha256_files(jobs, njobs, 0);
	for (size_t v = 0; v < nvariants; v++) {
		for (size_t k = 0; k < npatterns[v]; k++) {
			struct assembly_pattern *mp = &patterns[v][k];
			for (size_t f = 0; f < mp->nfiles; f++) {
				const struct hash_job *j = &jobs[mp->files[f].job];
				if (j->err) {
					/* The first failure in plan order; the others say the same. */
					if (!ret)
						ret = error("%s: variants[%zu].assemblies[%zu]: '%s': %s",
							    plan_path, v, k, mp->pattern, j->err);
					continue;
				}
				mp->files[f].size = j->size;
				sha256_hex(j->digest, mp->files[f].sha256);
			}
		}
	}
	if (failed && !ret)
		ret = error("hashing %zu assemblies file(s) failed", failed);
	for (i = 0; i < njobs; i++)
		free(jobs[i].err);
	free(jobs);
	free(all);
	return ret;
}

