/* writefile: whole writes, bounded copies, exclusive new files, syncfs(). */
#include "util/writefile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/usage.h"

int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

enum copy_result copy_fd(int in, int out, uint64_t max)
{
	char buf[65536];
	uint64_t total = 0;

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return COPY_READ;
		if (n == 0)
			return COPY_OK;
		total += (uint64_t)n;
		if (total > max)
			return COPY_TOO_BIG;
		if (write_all(out, buf, (size_t)n) < 0)
			return COPY_WRITE;
	}
}

/* pwrite() of all of len bytes at off, retrying on EINTR. 0 or -1 (errno set). */
static int pwrite_all(int fd, const char *p, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

enum copy_result copy_file_sparse(int in, int out, uint64_t size, int (*stop)(void *arg),
				  void *arg)
{
	char buf[65536];
	off_t pos = 0, end = (off_t)size;

	while (pos < end) {
		off_t data = lseek(in, pos, SEEK_DATA), hole;
		if (data < 0 && errno == ENXIO)
			break;                  /* only a hole is left */
		if (data < 0) {
			if (errno != EINVAL && errno != ENOTSUP)
				return COPY_READ;
			data = pos;             /* no SEEK_DATA here: all of it is data */
			hole = end;
		} else {
			hole = lseek(in, data, SEEK_HOLE);
			if (hole < 0)
				return COPY_READ;
		}
		if (hole > end)
			hole = end;
		for (pos = data; pos < hole;) {
			size_t want = (size_t)(hole - pos) < sizeof(buf) ? (size_t)(hole - pos)
									   : sizeof(buf);
			ssize_t n;
			if (stop && stop(arg))
				return COPY_STOPPED;
			n = pread(in, buf, want, pos);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return COPY_READ;
			if (n == 0) {
				/* Shorter than it was: what is there is copied. */
				end = pos;
				break;
			}
			if (pwrite_all(out, buf, (size_t)n, pos) < 0)
				return COPY_WRITE;
			pos += n;
		}
	}
	return ftruncate(out, end) < 0 ? COPY_WRITE : COPY_OK;
}

int write_file_new(const char *path, mode_t mode, const void *data, size_t len)
{
	int fd, ret = -1;
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0) {
		if (errno == EEXIST)
			return error("'%s' already exists: remove it or choose another name",
				     path);
		return error("cannot create '%s': %s", path, strerror(errno));
	}
	if (fchmod(fd, mode) < 0) {
		error("cannot set the mode of '%s': %s", path, strerror(errno));
		goto out;
	}
	if (write_all(fd, data, len) < 0) {
		error("cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	if (fsync(fd) < 0 && errno != EINVAL) {
		error("cannot sync '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (close(fd) < 0 && ret == 0)
		ret = error("cannot close '%s': %s", path, strerror(errno));
	if (ret < 0)
		unlink(path);
	return ret;
}

