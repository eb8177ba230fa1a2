/*
 * bundle: what a bundle is before it is read, and what packing and
 * reading share. A file is a bundle by its first bytes (a zstd or gzip
 * stream, bundle_is_bundle(); why it is not, bundle_not_a_bundle()) and
 * meant as one by its name (bundle_named_like()); both directions hold to
 * one cap on entries and word libarchive's failures alike. Writing a
 * bundle is pack.c's, streaming one back read.c's; libarchive is seen by
 * these three files of bundle/ and no other file of abev.
 */
#include "bundle/bundle_parts.h"

#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/compiler.h"
#include "util/strbuf.h"

/*
 * What libarchive says went wrong. archive_error_string() is NULL when a
 * layer below it (zlib, libzstd, read()) failed without a message: then
 * the errno libarchive kept, or the usual cause of a silent failure.
 */
const char *bundle_archive_why(struct archive *a, const char *fallback, char buf[WHY_MAX])
{
	const char *msg = archive_error_string(a);
	int err = archive_errno(a);

	if (msg && *msg && err > 0) {
		/* "Write error" says little; the errno says why (EFBIG, ENOSPC, ...). */
		snprintf(buf, WHY_MAX, "%s (%s)", msg, strerror(err));
		return buf;
	}
	if (msg && *msg)
		return msg;
	if (err > 0)
		snprintf(buf, WHY_MAX, "%s (%s)", fallback, strerror(err));
	else
		snprintf(buf, WHY_MAX, "%s", fallback);
	return buf;
}

size_t bundle_max_entries = BUNDLE_MAX_ENTRIES;

void bundle_set_max_entries(size_t n)
{
	bundle_max_entries = n ? n : BUNDLE_MAX_ENTRIES;
}

int bundle_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !memcmp(s + n - m, suffix, m);
}

/* Whether the first n bytes at m start a zstd or a gzip stream. */
static int magic_is_bundle(const unsigned char *m, size_t n)
{
	static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const unsigned char gzip_magic[2] = { 0x1f, 0x8b };

	return (n >= 4 && !memcmp(m, zstd_magic, 4)) || (n >= 2 && !memcmp(m, gzip_magic, 2));
}

/*
 * The first bytes of the regular file at path into m[0..size): how many
 * were read, -1 with errno when it cannot be opened or read, -2 when it
 * is not a regular file. O_NONBLOCK: a FIFO is never waited for.
 */
static ssize_t read_start(const char *path, unsigned char *m, size_t size)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -2;
	}
	do
		n = read(fd, m, size);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return n;
}

int bundle_is_bundle(const char *path)
{
	unsigned char m[4];
	ssize_t n = read_start(path, m, sizeof(m));

	return n > 0 && magic_is_bundle(m, (size_t)n);
}

int bundle_named_like(const char *path)
{
	static const char *const ext[] = { ".tar.zst", ".tar.gz", ".tgz", ".tar" };

	for (size_t i = 0; i < ARRAY_SIZE(ext); i++)
		if (bundle_has_suffix(path, ext[i]))
			return 1;
	return 0;
}

char *bundle_not_a_bundle(const char *path)
{
	static const struct { const char *magic; size_t len; const char *what; } kinds[] = {
		{ "\xfd" "7zXZ", 6, "an xz stream" },
		{ "BZh", 3, "a bzip2 stream" },
		{ "\x04\x22\x4d\x18", 4, "an lz4 stream" },
		{ "PK\x03\x04", 4, "a zip archive" },
	};
	unsigned char m[512];
	ssize_t n = read_start(path, m, sizeof(m));

	if (n == -2)
		return xasprintf("'%s' is not a bundle: not a regular file", path);
	if (n < 0)
		return xasprintf("cannot read '%s': %s", path, strerror(errno));
	if (n == 0)
		return xasprintf("'%s' is an empty file (0 bytes), not a bundle: a bundle is a "
				 "tar archive under zstd or gzip, as 'abev pack' writes", path);
	if (magic_is_bundle(m, (size_t)n))
		return NULL;
	if (n >= 262 && !memcmp(m + 257, "ustar", 5))
		return xasprintf("'%s' is an uncompressed tar archive: abev reads bundles under "
				 "zstd or gzip ('abev pack DIR --out FILE.tar.zst', or 'tar -C "
				 "DIR -czf FILE.tar.gz .')", path);
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if ((size_t)n >= kinds[i].len && !memcmp(m, kinds[i].magic, kinds[i].len))
			return xasprintf("'%s' is %s: abev reads bundles under zstd or gzip only",
					 path, kinds[i].what);
	return xasprintf("'%s' is not a bundle: not a zstd or gzip stream (its first bytes "
			 "are %02x %02x%s)", path, m[0], n > 1 ? m[1] : 0, n > 2 ? " ..." : "");
}
