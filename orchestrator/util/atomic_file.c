/* atomic_file: write beside, then rename over. */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/dirat.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

/* Creates f->tmp in f->dir; f->path, name and tmp are set. 0 or -1 after error(). */
static int atomic_file_create(struct atomic_file *f)
{
	f->fd = openat(f->dir, f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW |
					     O_NOCTTY, 0644);
	if (f->fd < 0) {
		int saved = errno;
		error("cannot create a file beside '%s': %s", f->path, strerror(errno));
		free(f->tmp);
		f->tmp = NULL;
		errno = saved;
		return -1;
	}
	return 0;
}

int atomic_file_open(struct atomic_file *f, const char *path)
{
	f->dir = AT_FDCWD;
	f->path = xstrdup(path);
	f->name = xstrdup(path);
	f->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	return atomic_file_create(f);
}

int atomic_file_open_at(struct atomic_file *f, const struct dirat *d, const char *rel)
{
	const char *base;

	f->path = path_join(d->path, rel);
	f->dir = dirat_parent(d, rel, &base);
	if (f->dir < 0) {
		int saved = errno;
		f->dir = AT_FDCWD;
		error("cannot write '%s': %s", f->path,
		      saved == ELOOP || saved == ENOTDIR ? "a directory on its way is not one abev "
							    "made (a symbolic link)"
							  : strerror(saved));
		errno = saved;
		return -1;
	}
	f->name = xstrdup(base);
	f->tmp = xasprintf(".%s.tmp.%ld", base, (long)getpid());
	return atomic_file_create(f);
}

int atomic_file_write(struct atomic_file *f, const void *data, size_t len)
{
	if (write_all(f->fd, data, len) < 0) {
		int saved = errno;
		error("cannot write '%s': %s", f->path, strerror(errno));
		errno = saved;
		return -1;
	}
	return 0;
}

/* Frees what f holds, closing its directory; the temporary file is the caller's business. */
static void atomic_file_clear(struct atomic_file *f)
{
	if (f->dir >= 0)
		close(f->dir);
	f->dir = AT_FDCWD;
	free(f->tmp);
	f->tmp = NULL;
	free(f->name);
	f->name = NULL;
	free(f->path);
	f->path = NULL;
}

int atomic_file_commit(struct atomic_file *f)
{
	int fd = f->fd, saved;

	/*
	 * No fsync() here: a reader never sees a half-written file (the
	 * rename does that), and a killed abev loses nothing the page cache
	 * holds. Only a crash of the machine could, and sync_filesystem()
	 * before sealing covers that once per run instead of once per file.
	 */
	f->fd = -1;
	if (close(fd) < 0) {
		saved = errno;
		error("cannot close '%s': %s", f->path, strerror(errno));
		errno = saved;
		return -1;
	}
	if (renameat(f->dir, f->tmp, f->dir, f->name) < 0) {
		saved = errno;
		error("cannot rename a file to '%s': %s", f->path, strerror(errno));
		errno = saved;
		return -1;
	}
	atomic_file_clear(f);
	return 0;
}

void atomic_file_abort(struct atomic_file *f)
{
	/* The caller may tell a full disk or the file-size limit from other failures. */
	int saved = errno;

	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp)
		unlinkat(f->dir, f->tmp, 0);
	atomic_file_clear(f);
	errno = saved;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	struct atomic_file f = ATOMIC_FILE_INIT;

	if (atomic_file_open(&f, path) < 0 || atomic_file_write(&f, data, len) < 0 ||
	    atomic_file_commit(&f) < 0) {
		atomic_file_abort(&f);
		return -1;
	}
	return 0;
}
