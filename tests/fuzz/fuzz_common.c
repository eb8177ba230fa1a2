/*
 * fuzz_common: the temp directory and quiet error routine the fuzz
 * targets share (see fuzz_common.h).
 */
#include "fuzz_common.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

static char *dir;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_dir(void)
{
	if (dir)
		nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	dir = NULL;
}

const char *fuzz_dir(void)
{
	const char *base = getenv("TMPDIR");

	if (dir)
		return dir;
	dir = xasprintf("%s/abev-fuzz-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "fuzz: cannot make a temp directory '%s': %s\n", dir, strerror(errno));
		abort();
	}
	atexit(remove_dir);
	return dir;
}

char *fuzz_path(const char *name)
{
	return path_join(fuzz_dir(), name);
}

char *fuzz_write(const char *name, const void *data, size_t len)
{
	char *path = fuzz_path(name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write_all(fd, data, len) < 0 || close(fd) < 0) {
		fprintf(stderr, "fuzz: cannot write '%s': %s\n", path, strerror(errno));
		abort();
	}
	return path;
}

static void report_nothing(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

void fuzz_quiet(void)
{
	const char *v = getenv("ABEV_FUZZ_VERBOSE");
	if (!v || strcmp(v, "1"))
		set_error_routine(report_nothing);
}
