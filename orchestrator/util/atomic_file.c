/*
 * atomic_file: write beside, then rename over. The file beside has a name
 * nobody can guess (the pid and 64 random bits) and is created with
 * O_EXCL, no link followed: a run that plants a link, hard or symbolic,
 * at a name abev will use never gets abev to write through it, and the
 * rename replaces the final name's directory entry, never the file it
 * named.
 */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/dirat.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

/* Names the file beside tried at most: another name after each one taken. */
#define ATOMIC_FILE_TRIES 16

/* 64 bits nobody can guess (getrandom), or, where it fails, the clock and a counter. */
static unsigned long long unguessable(void)
{
	static unsigned long long counter;
	unsigned long long v;
	struct timespec ts;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((unsigned long long)ts.tv_nsec << 20) ^ (unsigned long long)ts.tv_sec ^
	       (++counter * 0x9e3779b97f4a7c15ULL);
}

/*
 * Creates a new file beside f->name in f->dir: prefix (".name" or the
 * path) with ".tmp.PID.RANDOM", O_EXCL. f->path and name are set; f->tmp
 * and fd on success. 0 or -1 after error().
 */
static int atomic_file_create(struct atomic_file *f, const char *prefix)
{
	for (int i = 0; i < ATOMIC_FILE_TRIES; i++) {
		f->tmp = xasprintf("%s.tmp.%ld.%016llx", prefix, (long)getpid(), unguessable());
		f->fd = openat(f->dir, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
						     O_NOFOLLOW | O_NOCTTY, 0644);
		if (f->fd >= 0 || errno != EEXIST)
			break;
		free(f->tmp);
		f->tmp = NULL;
	}
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

static int atomic_file_open(struct atomic_file *f, const char *path)
{
	f->dir = AT_FDCWD;
	f->path = xstrdup(path);
	f->name = xstrdup(path);
	return atomic_file_create(f, path);
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
	{
		char *prefix = xasprintf(".%s", base);
		int ret = atomic_file_create(f, prefix);
		free(prefix);
		return ret;
	}
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
	 * holds. Only a crash of the machine could, and dirat_sync()
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
