/* readfile: bounded reading of files and descriptors. */
#include "util/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/usage.h"

int read_fd_capped(struct strbuf *sb, int fd, size_t max)
{
	size_t start = sb->len;

	for (;;) {
		ssize_t n;
		strbuf_grow(sb, 8192);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			return 0;
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
		if (sb->len - start > max) {
			errno = EFBIG;
			goto fail;
		}
	}
fail:
	{
		int saved = errno;
		sb->len = start;
		sb->buf[start] = '\0';
		errno = saved;
	}
	return -1;
}

enum read_small_result read_small(struct strbuf *sb, const char *path, size_t max,
				  unsigned flags)
{
	int oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY, fd, saved;
	enum read_small_result ret = READ_SMALL_OK;
	struct stat st;

	if (flags & READ_REGULAR)
		oflags |= O_NONBLOCK;
	if (flags & READ_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = open(path, oflags);
	if (fd < 0)
		return READ_SMALL_OPEN;
	if (fstat(fd, &st) < 0) {
		ret = READ_SMALL_STAT;
	} else if (S_ISDIR(st.st_mode) || ((flags & READ_REGULAR) && !S_ISREG(st.st_mode))) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		ret = READ_SMALL_TYPE;
	} else if (S_ISREG(st.st_mode) && st.st_size > 0 && (uintmax_t)st.st_size > max) {
		/* Known too big before a byte is read; the read below still checks a growing file. */
		errno = EFBIG;
		ret = READ_SMALL_TOO_BIG;
	} else if (read_fd_capped(sb, fd, max) < 0) {
		ret = errno == EFBIG ? READ_SMALL_TOO_BIG : READ_SMALL_READ;
	}
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

char *read_small_why(enum read_small_result r, int err, size_t max)
{
	switch (r) {
	case READ_SMALL_TYPE:
		return xstrdup(err == EISDIR ? "it is a directory"
					     : "it is not a regular file (a FIFO, a device, ...)");
	case READ_SMALL_TOO_BIG:
		return xasprintf("it is larger than the limit of %zu bytes", max);
	default:
		return xstrdup(strerror(err));
	}
}

int read_file_capped(struct strbuf *sb, const char *path, size_t max)
{
	switch (read_small(sb, path, max, 0)) {
	case READ_SMALL_OK:
		return 0;
	case READ_SMALL_OPEN:
		return error("cannot open '%s': %s", path, strerror(errno));
	case READ_SMALL_STAT:
		return error("cannot stat '%s': %s", path, strerror(errno));
	case READ_SMALL_TYPE:
		return error("cannot read '%s': is a directory", path);
	case READ_SMALL_TOO_BIG:
		return error("'%s' is larger than the limit of %zu bytes", path, max);
	case READ_SMALL_READ:
		break;
	}
	return error("cannot read '%s': %s", path, strerror(errno));
}

ssize_t read_head_at(int fd, char *buf, size_t cap)
{
	size_t len = 0;

	while (len < cap - 1) {
		ssize_t n = pread(fd, buf + len, cap - 1 - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

ssize_t read_head(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), e;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read_head_at(fd, buf, cap);
	e = errno;
	close(fd);
	errno = e;
	return n;
}
