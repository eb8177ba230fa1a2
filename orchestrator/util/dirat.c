/*
 * dirat: names resolved beneath a directory descriptor with no symbolic
 * link followed. openat2() does it in one call where the kernel has it
 * (Linux 5.6); elsewhere, or where a seccomp filter refuses it, each
 * component is opened in turn with O_NOFOLLOW, which is the same rule
 * at the cost of a system call per component.
 */
#include "util/dirat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* A name beneath a directory has at most this many components. */
#define DIRAT_MAX_DEPTH 256

void dirat_release(struct dirat *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	free(d->path);
	d->path = NULL;
}

int dirat_open_path(struct dirat *d, const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d->fd = fd;
	d->path = xstrdup(path);
	return 0;
}

int dirat_create(struct dirat *d, const char *path)
{
	char *parent = xstrdup(path), *slash = strrchr(parent, '/');
	int ret = -1, saved;

	if (slash && slash != parent) {
		*slash = '\0';
		if (mkdir_p(parent) < 0)
			goto out;
	}
	if (mkdir(path, 0755) < 0) {
		saved = errno;
		error("cannot create '%s': %s", path, strerror(errno));
		errno = saved;
		goto out;
	}
	if (dirat_open_path(d, path) < 0) {
		saved = errno;
		error("cannot open '%s': %s", path, strerror(errno));
		errno = saved;
		goto out;
	}
	ret = 0;
out:
	free(parent);
	return ret;
}

/* 1 while openat2() may work here, 0 once the kernel (or a filter) refused it. */
static int have_openat2 = 1;

void dirat_use_openat2(int on)
{
	have_openat2 = on;
}

static int open_beneath2(int dirfd, const char *rel, int flags, mode_t mode)
{
#ifdef SYS_openat2
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)flags;
	how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	do
		fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	while (fd < 0 && errno == EINTR);
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG))
		return (int)fd;
	have_openat2 = 0;
#else
	(void)dirfd;
	(void)rel;
	(void)flags;
	(void)mode;
	have_openat2 = 0;
#endif
	return -2;
}

/* One component at a time: each directory opened with O_NOFOLLOW, ".." refused. */
static int open_by_components(int dirfd, const char *rel, int flags, mode_t mode)
{
	char *copy = xstrdup(rel), *p = copy, *slash;
	int cur = dirfd, fd = -1, depth = 0;

	for (;;) {
		while (*p == '/')
			p++;
		slash = strchr(p, '/');
		if (slash && !slash[1])
			slash = NULL, p[strcspn(p, "/")] = '\0';
		if (!strcmp(p, "..") || ++depth > DIRAT_MAX_DEPTH) {
			errno = !strcmp(p, "..") ? EXDEV : ELOOP;
			goto fail;
		}
		if (!slash) {
			fd = openat(cur, *p ? p : ".", flags, mode);
			goto done;
		}
		*slash = '\0';
		fd = openat(cur, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			goto fail;
		if (cur != dirfd)
			close(cur);
		cur = fd;
		fd = -1;
		p = slash + 1;
	}
fail:
	fd = -1;
done:
	if (cur != dirfd) {
		int saved = errno;
		close(cur);
		errno = saved;
	}
	free(copy);
	return fd;
}

int dirat_openat(const struct dirat *d, const char *rel, int flags, mode_t mode)
{
	int fd;

	flags |= O_CLOEXEC | O_NOCTTY | O_NOFOLLOW;
	if (!*rel)
		rel = ".";
	if (rel[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	if (have_openat2) {
		fd = open_beneath2(d->fd, rel, flags, mode);
		if (fd != -2)
			return fd;
	}
	return open_by_components(d->fd, rel, flags, mode);
}

int dirat_sub(const struct dirat *d, const char *rel, struct dirat *out)
{
	int fd = dirat_openat(d, rel, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return -1;
	out->fd = fd;
	out->path = *rel && strcmp(rel, ".") ? path_join(d->path, rel) : xstrdup(d->path);
	return 0;
}

int dirat_mkdirs(const struct dirat *d, const char *rel, struct dirat *out)
{
	char *prefix;
	const char *last;
	int saved, top;

	/*
	 * Most often only the last component is new (an invocation's
	 * directory beside the ones before): its parent opened, it is made
	 * there, without a look at each directory above.
	 */
	top = strchr(rel, '/') ? dirat_parent(d, rel, &last) : -1;
	if (top >= 0) {
		int made = *last && (mkdirat(top, last, 0755) == 0 || errno == EEXIST);
		close(top);
		if (made)
			goto open;
	}
	prefix = xstrdup(rel);
	/* Each prefix that ends a component: "runs", "runs/a", "runs/a/run-1". */
	for (char *p = prefix;; p++) {
		const char *base;
		char c = *p;
		int parent;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (p > prefix && p[-1] != '/') {
			parent = dirat_parent(d, prefix, &base);
			if (parent < 0 || (mkdirat(parent, base, 0755) < 0 && errno != EEXIST)) {
				saved = errno;
				if (parent >= 0)
					close(parent);
				error("cannot create directory '%s/%s': %s", d->path, prefix,
				      strerror(saved));
				errno = saved;
				free(prefix);
				return -1;
			}
			close(parent);
		}
		*p = c;
		if (!c)
			break;
	}
	free(prefix);
open:
	if (dirat_sub(d, rel, out) < 0) {
		saved = errno;
		error("cannot open directory '%s/%s': %s", d->path, rel,
		      saved == ELOOP || saved == ENOTDIR ? "it is not a directory abev made "
							    "(a symbolic link)"
							  : strerror(saved));
		errno = saved;
		return -1;
	}
	return 0;
}

int dirat_parent(const struct dirat *d, const char *rel, const char **base)
{
	const char *slash = strrchr(rel, '/');
	char *dir;
	int fd;

	if (!slash) {
		*base = rel;
		return fcntl(d->fd, F_DUPFD_CLOEXEC, 3);
	}
	*base = slash + 1;
	dir = xstrndup(rel, (size_t)(slash - rel));
	fd = dirat_openat(d, dir, O_RDONLY | O_DIRECTORY, 0);
	free(dir);
	return fd;
}

int dirat_lstat(const struct dirat *d, const char *rel, struct stat *st)
{
	const char *base;
	int fd = dirat_parent(d, rel, &base), ret, saved;

	if (fd < 0)
		return -1;
	ret = fstatat(fd, *base ? base : ".", st, AT_SYMLINK_NOFOLLOW);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

int dirat_unlink(const struct dirat *d, const char *rel, int flags)
{
	const char *base;
	int fd = dirat_parent(d, rel, &base), ret, saved;

	if (fd < 0)
		return -1;
	ret = unlinkat(fd, base, flags);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

int dirat_rename(const struct dirat *d, const char *from, const char *to)
{
	const char *fbase, *tbase;
	int ffd = dirat_parent(d, from, &fbase), tfd = -1, ret = -1, saved;

	if (ffd < 0)
		return -1;
	tfd = dirat_parent(d, to, &tbase);
	if (tfd >= 0)
		ret = renameat(ffd, fbase, tfd, tbase);
	saved = errno;
	close(ffd);
	if (tfd >= 0)
		close(tfd);
	errno = saved;
	return ret;
}

int dirat_write_atomic(const struct dirat *d, const char *rel, const void *data, size_t len)
{
	struct atomic_file f = ATOMIC_FILE_INIT;

	if (atomic_file_open_at(&f, d, rel) < 0 || atomic_file_write(&f, data, len) < 0 ||
	    atomic_file_commit(&f) < 0) {
		atomic_file_abort(&f);
		return -1;
	}
	return 0;
}

int dirat_read(const struct dirat *d, const char *rel, struct strbuf *sb, size_t max)
{
	char *shown = path_join(d->path, rel);
	struct stat st;
	int fd = dirat_openat(d, rel, O_RDONLY | O_NONBLOCK, 0), ret = -1;

	if (fd < 0) {
		error("cannot open '%s': %s", shown,
		      errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error("cannot read '%s': not a regular file", shown);
		goto out;
	}
	if (read_fd_capped(sb, fd, max) < 0) {
		error("cannot read '%s': %s", shown, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(shown);
	return ret;
}

int dirat_sync(const struct dirat *d)
{
	if (syncfs(d->fd) < 0)
		return error("cannot flush '%s' to disk: %s", d->path, strerror(errno));
	return 0;
}

int dirat_still_at(const struct dirat *d, const char *path)
{
	struct stat a, b;

	if (fstat(d->fd, &a) < 0)
		return error("cannot stat '%s': %s", d->path, strerror(errno));
	if (lstat(path, &b) < 0)
		return 0;
	return S_ISDIR(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
