/*
 * outpath: evidence is told from its result.json, whose schema line abev
 * writes first, so that a look at the head of the file is enough: the
 * file may be large, and it is read as anything found on the way up is
 * read, a regular file only, non-blocking, no link followed.
 */
#include "cli/outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/layout.h"
#include "util/alloc.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* Bytes of a result.json looked at for its schema. */
#define SCHEMA_HEAD_MAX 256
/* Names tried by outpath_make_unique(): base, base-2, ... base-<this>. */
#define UNIQUE_TRIES 1000

char *outpath_clean(const char *path)
{
	size_t n = strlen(path);

	for (;;) {
		while (n > 1 && path[n - 1] == '/')
			n--;
		/* "ev/." is ev, as "ev/" is: its "." goes, then the slash. */
		if (n > 2 && path[n - 1] == '.' && path[n - 2] == '/') {
			n--;
			continue;
		}
		return xstrndup(path, n);
	}
}

int outpath_is_dotdot(const char *path)
{
	const char *slash = strrchr(path, '/');

	return !strcmp(slash ? slash + 1 : path, "..");
}

/* Non-zero when dir holds a result.json of schema abev.run/... */
static int holds_evidence(const char *dir)
{
	char *path = path_join(dir, EVIDENCE_RESULT_FILE), head[SCHEMA_HEAD_MAX + 1], *p;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	struct stat sb;
	ssize_t n = -1;

	free(path);
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		n = pread(fd, head, SCHEMA_HEAD_MAX, 0);
	close(fd);
	if (n <= 0)
		return 0;
	head[n] = '\0';
	p = strstr(head, "\"schema\"");
	if (!p)
		return 0;
	p += strlen("\"schema\"");
	p += strspn(p, " \t\r\n");
	if (*p++ != ':')
		return 0;
	p += strspn(p, " \t\r\n");
	return !strncmp(p, "\"abev.run/", strlen("\"abev.run/"));
}

/* The nearest existing directory above path, resolved. NULL when none resolves. */
static char *existing_parent(const char *path)
{
	char *dir = outpath_clean(path), *slash, *real = NULL;

	for (;;) {
		slash = strrchr(dir, '/');
		if (!slash) {
			real = realpath(".", NULL);
			break;
		}
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		real = realpath(dir, NULL);
		if (real || slash == dir || errno != ENOENT)
			break;
	}
	free(dir);
	return real;
}

int outpath_check_evidence(const char *opt, const char *path)
{
	char *dir = existing_parent(path), *slash;
	int ret = 0;

	for (char *d = dir; d && *d && !ret;) {
		if (holds_evidence(d)) {
			ret = error("%s '%s' lies inside the evidence directory '%s', which abev "
				    "never rewrites: choose a path elsewhere", opt, path, d);
			break;
		}
		slash = strrchr(d, '/');
		if (!slash || !slash[1])
			break;
		slash[slash == d ? 1 : 0] = '\0';
	}
	free(dir);
	return ret;
}

int outpath_check_new_file(const char *opt, const char *path)
{
	char *dir = outpath_clean(path), *slash;
	struct stat st;
	int ret = 0;

	if (lstat(path, &st) == 0) {
		ret = error("%s '%s' already exists: abev never overwrites a file (remove it, or "
			    "choose another)", opt, path);
		goto out;
	}
	slash = strrchr(dir, '/');
	if (slash) {
		slash[slash == dir ? 1 : 0] = '\0';
	} else {
		free(dir);
		dir = xstrdup(".");
	}
	/* Written at the end with O_EXCL: what would stop it then is looked at now. */
	if (stat(dir, &st) < 0)
		ret = error("%s '%s': its directory '%s' cannot be used: %s (make it first, or "
			    "choose another path)", opt, path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		ret = error("%s '%s': '%s' is not a directory", opt, path, dir);
	else if (access(dir, W_OK | X_OK) < 0)
		ret = error("%s '%s': cannot write into '%s': %s", opt, path, dir, strerror(errno));
	else
		ret = outpath_check_evidence(opt, path);
out:
	free(dir);
	return ret;
}

/* path absolute (from the current directory), "." and ".." taken lexically. Caller frees. */
static char *lexical_absolute(const char *path)
{
	char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
	char *all = cwd ? path_join(cwd, path) : xstrdup(path);
	char *out = xmalloc(strlen(all) + 2);
	size_t len = 0;

	for (const char *p = all; *p;) {
		size_t n;
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n == 2 && !strncmp(p, "..", 2)) {
			/* Up one: back to the last '/' kept. */
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
		} else if (!(n == 1 && *p == '.')) {
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		p += n;
	}
	if (!len)
		out[len++] = '/';
	out[len] = '\0';
	free(all);
	free(cwd);
	return out;
}

int outpath_inside(const char *path, const char *dir)
{
	char *p = lexical_absolute(path), *d = lexical_absolute(dir);
	size_t n = strlen(d);
	int inside = !strcmp(d, "/") || (!strncmp(p, d, n) && p[n] == '/');

	free(p);
	free(d);
	return inside;
}

int outpath_same(const char *a, const char *b)
{
	char *ca = outpath_clean(a), *cb = outpath_clean(b);
	char *pa = existing_parent(ca), *pb = existing_parent(cb);
	const char *na = strrchr(ca, '/'), *nb = strrchr(cb, '/');
	int same;

	na = na ? na + 1 : ca;
	nb = nb ? nb + 1 : cb;
	/* Resolved as far as they exist: "ev" and "./ev", or "x/../ev", are one. */
	same = !strcmp(ca, cb) || (pa && pb && !strcmp(pa, pb) && !strcmp(na, nb) &&
				    strcmp(na, ".") && strcmp(na, ".."));
	free(ca);
	free(cb);
	free(pa);
	free(pb);
	return same;
}

char *outpath_make_unique(const char *base)
{
	char *parent = outpath_clean(base), *slash = strrchr(parent, '/'), *path = NULL;

	if (slash && slash != parent) {
		*slash = '\0';
		if (mkdir_p(parent) < 0)
			goto out;
	}
	for (unsigned k = 1; k <= UNIQUE_TRIES; k++) {
		path = k == 1 ? xstrdup(base) : xasprintf("%s-%u", base, k);
		if (mkdir(path, 0755) == 0)
			goto out;
		if (errno != EEXIST) {
			error("cannot create '%s': %s", path, strerror(errno));
			break;
		}
		free(path);
		path = NULL;
	}
	if (!path)
		error("cannot create '%s': it and %d more names with -2, -3, ... exist already",
		      base, UNIQUE_TRIES - 1);
	free(path);
	path = NULL;
out:
	free(parent);
	return path;
}
