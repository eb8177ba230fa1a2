/*
 * pathglob: the files a glob pattern names (pathglob.h).
 *
 * glob(3) has no `**`, so the walk is done here:
 * - a pattern is relative to cwd unless it starts with '/'; "." and ".."
 *   components are resolved lexically before matching;
 * - within a component, *, ? and [..] match as fnmatch(3) with FNM_PERIOD:
 *   as in the shell they do not match a leading '.', which a literal ".x"
 *   or ".*" does;
 * - a component that is exactly `**` matches any number of directories,
 *   none included; like bash's globstar it does not descend into hidden
 *   directories nor through symbolic links to directories (no loops, and no
 *   wandering out of the tree); a trailing `**` matches every file below;
 * - directories (and links to them) matching the last component are left
 *   out; anything else that exists is kept, for the caller to judge.
 */
#include "util/pathglob.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/alloc.h"
#include "util/strbuf.h"

/* Per pattern: beyond these the pattern is too broad to be a list of files. */
#define WALK_DIRS_MAX 100000
#define WALK_ENTRIES_MAX 5000000
#define WALK_DEPTH_MAX 64

struct comp {
	char *s;
	int literal;     /* from the cwd, or without *?[\ : looked up, not matched */
};

struct walk {
	struct comp *comps;
	size_t ncomps, comps_alloc;
	struct strbuf path;          /* the directory being read */
	char **files;
	size_t nfiles, alloc;
	size_t dirs, entries;
	char *err;                   /* why the walk stopped; caller frees */
};

static void comps_push(struct comp **c, size_t *n, size_t *alloc, const char *s, size_t len,
		       int literal)
{
	ALLOC_GROW(*c, *n + 1, *alloc);
	(*c)[*n].s = xstrndup(s, len);
	(*c)[*n].literal = literal;
	++*n;
}

/*
 * Splits dir (literal) and then pattern into components, resolving "." and
 * ".." lexically, folding repeated `**` (they would only find the same
 * files again) and completing a trailing `**` with `*`.
 */
static void split_pattern(const char *cwd, const char *pattern, struct comp **out, size_t *nout,
			  size_t *alloc)
{
	const char *parts[2] = { pattern[0] == '/' ? "" : cwd, pattern };
	*out = NULL;
	*nout = *alloc = 0;
	for (size_t k = 0; k < 2; k++) {
		const char *p = parts[k];
		while (*p) {
			const char *slash = strchr(p, '/');
			size_t len = slash ? (size_t)(slash - p) : strlen(p);
			int literal = k == 0 || !memchr(p, '*', len) ? 1 : 0;
			if (k == 1 && (memchr(p, '?', len) || memchr(p, '[', len) ||
				       memchr(p, '\\', len)))
				literal = 0;
			if (!len || (len == 1 && p[0] == '.')) {
				/* nothing */
			} else if (len == 2 && p[0] == '.' && p[1] == '.') {
				if (*nout) {
					--*nout;
					free((*out)[*nout].s);
				}
			} else if (!literal && len == 2 && !memcmp(p, "**", 2) && *nout &&
				   !(*out)[*nout - 1].literal && !strcmp((*out)[*nout - 1].s, "**")) {
				/* a second `**` in a row */
			} else {
				comps_push(out, nout, alloc, p, len, literal);
			}
			p += len;
			if (*p == '/')
				p++;
		}
	}
	if (*nout && !(*out)[*nout - 1].literal && !strcmp((*out)[*nout - 1].s, "**"))
		comps_push(out, nout, alloc, "*", 1, 0);
}

static int is_globstar(const struct comp *c)
{
	return !c->literal && !strcmp(c->s, "**");
}

/* Appends "/name" to the walk's path; returns the length to cut back to. */
static size_t path_push(struct walk *w, const char *name)
{
	size_t old = w->path.len;
	if (!(w->path.len == 1 && w->path.buf[0] == '/'))
		strbuf_addch(&w->path, '/');
	strbuf_adds(&w->path, name);
	return old;
}

static void path_pop(struct walk *w, size_t old)
{
	w->path.len = old;
	w->path.buf[old] = '\0';
}

static int is_dir(const char *path, int follow)
{
	struct stat st;
	return (follow ? stat(path, &st) : lstat(path, &st)) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The walk's path matched the last component: kept unless it is gone or
 * a directory (or a link to one). What else it is, the caller judges.
 */
static int consider(struct walk *w)
{
	const char *path = w->path.buf;
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		w->err = xasprintf("cannot examine '%s': %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode) || (S_ISLNK(st.st_mode) && is_dir(path, 1)))
		return 0;
	if (w->nfiles >= PATHGLOB_MATCH_MAX) {
		w->err = xasprintf("matches more than %d files (narrow the pattern)",
				   PATHGLOB_MATCH_MAX);
		return -1;
	}
	ALLOC_GROW(w->files, w->nfiles + 1, w->alloc);
	w->files[w->nfiles++] = xstrdup(path);
	return 0;
}

/*
 * The names in the walk's directory, without "." and "..", or NULL and 0
 * when it is gone. Read whole so that no directory stays open while the
 * walk descends. -1 with w->err on a read error.
 */
static int list_dir(struct walk *w, char ***names, size_t *n)
{
	DIR *d;
	struct dirent *de;
	size_t alloc = 0;

	*names = NULL;
	*n = 0;
	if (++w->dirs > WALK_DIRS_MAX) {
		w->err = xasprintf("reads more than %d directories (narrow the pattern)",
				   WALK_DIRS_MAX);
		return -1;
	}
	d = opendir(w->path.buf);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		w->err = xasprintf("cannot read directory '%s': %s", w->path.buf, strerror(errno));
		return -1;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				w->err = xasprintf("cannot read directory '%s': %s", w->path.buf,
						   strerror(errno));
				closedir(d);
				return -1;
			}
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++w->entries > WALK_ENTRIES_MAX) {
			w->err = xasprintf("reads more than %d directory entries (narrow the "
					   "pattern)", WALK_ENTRIES_MAX);
			closedir(d);
			return -1;
		}
		ALLOC_GROW(*names, *n + 1, alloc);
		(*names)[(*n)++] = xstrdup(de->d_name);
	}
	if (closedir(d) < 0) {
		w->err = xasprintf("cannot read directory '%s': %s", w->path.buf, strerror(errno));
		return -1;
	}
	return 0;
}

/* Matches comps[ci..] below the walk's path, which is a directory. */
static int walk_dir(struct walk *w, size_t ci, unsigned depth)
{
	const struct comp *c = &w->comps[ci];
	int last = ci + 1 == w->ncomps;
	char **names = NULL;
	size_t n = 0, old;
	int ret = -1;

	if (c->literal) {
		old = path_push(w, c->s);
		if (last)
			ret = consider(w);
		else
			ret = is_dir(w->path.buf, 1) ? walk_dir(w, ci + 1, depth) : 0;
		path_pop(w, old);
		return ret;
	}
	if (list_dir(w, &names, &n) < 0)
		goto out;
	if (is_globstar(c)) {
		/* `**` is never last (split_pattern saw to it). None first, then one more. */
		if (walk_dir(w, ci + 1, depth) < 0)
			goto out;
		for (size_t i = 0; i < n; i++) {
			int r = 0;
			if (names[i][0] == '.')
				continue;
			old = path_push(w, names[i]);
			if (is_dir(w->path.buf, 0)) {
				if (depth >= WALK_DEPTH_MAX) {
					w->err = xasprintf("'**' goes deeper than %d directories at "
							   "'%s'", WALK_DEPTH_MAX, w->path.buf);
					r = -1;
				} else {
					r = walk_dir(w, ci, depth + 1);
				}
			}
			path_pop(w, old);
			if (r < 0)
				goto out;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			int r = 0;
			if (fnmatch(c->s, names[i], FNM_PERIOD))
				continue;
			old = path_push(w, names[i]);
			if (last)
				r = consider(w);
			else if (is_dir(w->path.buf, 1))
				r = walk_dir(w, ci + 1, depth);
			path_pop(w, old);
			if (r < 0)
				goto out;
		}
	}
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pathglob_match(const char *cwd, const char *pattern, char ***paths, size_t *npaths,
		   char **err)
{
	struct walk w;
	size_t kept = 0;
	int ret = -1;

	*paths = NULL;
	*npaths = 0;
	memset(&w, 0, sizeof(w));
	strbuf_init(&w.path);
	split_pattern(cwd, pattern, &w.comps, &w.ncomps, &w.comps_alloc);
	strbuf_addch(&w.path, '/');
	if (w.ncomps && walk_dir(&w, 0, 0) < 0) {
		*err = w.err;
		w.err = NULL;
		goto out;
	}
	if (w.nfiles)
		qsort(w.files, w.nfiles, sizeof(*w.files), path_cmp);
	for (size_t i = 0; i < w.nfiles; i++) {
		if (kept && !strcmp(w.files[kept - 1], w.files[i]))
			free(w.files[i]);
		else
			w.files[kept++] = w.files[i];
	}
	*paths = w.files;
	*npaths = kept;
	w.files = NULL;
	w.nfiles = 0;
	ret = 0;
out:
	pathglob_free(w.files, w.nfiles);
	for (size_t i = 0; i < w.ncomps; i++)
		free(w.comps[i].s);
	free(w.comps);
	strbuf_release(&w.path);
	free(w.err);
	return ret;
}

void pathglob_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
