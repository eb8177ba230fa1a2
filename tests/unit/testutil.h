/*
 * testutil: the fixtures unit tests share for files on disk — a fresh
 * temporary directory, writing a file (its parent directories made), and
 * removing a tree again. Include it after <cmocka.h> (nftw and mkdtemp come with
 * the build's -D_GNU_SOURCE). A test that cannot
 * set up its files fails right there (cmocka asserts). No test logic
 * lives here: what a test checks stays in the test.
 */
#ifndef ABEV_TESTUTIL_H
#define ABEV_TESTUTIL_H

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomic_file.h"
#include "util/path.h"
#include "util/strbuf.h"

/* A new directory /tmp/abev-TAG-XXXXXX. Caller frees (and removes it with tu_rm_rf()). */
static inline char *tu_tmpdir(const char *tag)
{
	char *d = xasprintf("/tmp/abev-%s-XXXXXX", tag);
	assert_non_null(mkdtemp(d));
	return d;
}

static inline int tu_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Removes dir and everything below it, never following a symlink. */
static inline void tu_rm_rf(const char *dir)
{
	assert_int_equal(nftw(dir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* Writes len bytes into dir/name, making name's parent directories. */
static inline void tu_put(const char *dir, const char *name, const void *data, size_t len)
{
	char *p = path_join(dir, name);
	char *slash = strrchr(p, '/');

	*slash = '\0';
	assert_int_equal(mkdir_p(p), 0);
	*slash = '/';
	assert_int_equal(write_file_atomic(p, data, len), 0);
	free(p);
}

/* Writes the string s into dir/name, as tu_put(). */
static inline void tu_puts(const char *dir, const char *name, const char *s)
{
	tu_put(dir, name, s, strlen(s));
}

/* Appends the string s to the existing file dir/name in place (same inode, as a writer would). */
static inline void tu_append(const char *dir, const char *name, const char *s)
{
	char *p = path_join(dir, name);
	int fd = open(p, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	assert_int_equal(close(fd), 0);
	free(p);
}

#endif
