/* Unit tests of framing: the end of the first zstd frame or gzip member is
 * found exactly, for streams libarchive's writers make at every gzip level
 * (stored, fixed and dynamic deflate blocks) and for zstd with and without
 * its checksum; what follows is named (a second frame or member, a skippable
 * frame, other bytes); a gzip member's trailer is handed on as written; a
 * cut stream, a gzip header comment, extra field, overlong name or wrong
 * header CRC are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "bundle/framing.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "testutil.h"

/* Text-like content with runs, literals and repeats: every kind of deflate symbol. */
static char *content(size_t n, unsigned seed)
{
	static const char *const words[] = { "alpha ", "beta ", "gamma\n", "delta ", "0123 " };
	char *b = xmalloc(n ? n : 1);
	uint32_t x = seed * 2654435761u + 1;
	size_t i = 0;

	while (i < n) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (x % 7 == 0) {
			b[i++] = (char)(x >> 24);
		} else {
			const char *w = words[x % ARRAY_SIZE(words)];
			for (; *w && i < n; w++)
				b[i++] = *w;
		}
	}
	return b;
}

/* data compressed by libarchive's writer ("gzip" or "zstd", with options) into *out. */
static void compress_with(const char *filter, const char *options, const char *data, size_t n,
		     struct strbuf *out)
{
	struct archive *a = archive_write_new();
	size_t cap = n + n / 2 + 4096, used = 0;
	char *buf = xmalloc(cap);

	assert_non_null(a);
	assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
	assert_int_equal(!strcmp(filter, "gzip") ? archive_write_add_filter_gzip(a)
						 : archive_write_add_filter_zstd(a), ARCHIVE_OK);
	if (options)
		assert_int_equal(archive_write_set_options(a, options), ARCHIVE_OK);
	assert_int_equal(archive_write_set_bytes_in_last_block(a, 1), ARCHIVE_OK);
	assert_int_equal(archive_write_open_memory(a, buf, cap, &used), ARCHIVE_OK);
	{
		struct archive_entry *e = archive_entry_new();
		archive_entry_set_pathname(e, "data");
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, (la_int64_t)n);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		archive_entry_free(e);
	}
	if (n)
		assert_int_equal(archive_write_data(a, data, n), (la_ssize_t)n);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	assert_int_equal(archive_write_free(a), ARCHIVE_OK);
	strbuf_reset(out);
	strbuf_add(out, buf, used);
	free(buf);
}

struct scan {
	int ret;
	uint64_t end;
	const char *after;
	int gzip;
	uint32_t crc, isize;
	char *why;
};

static struct scan scan_bytes(const char *dir, const void *p, size_t n)
{
	char *path = path_join(dir, "f");
	struct framing f;
	struct scan s;
	int fd;

	unlink(path);
	assert_int_equal(write_file_atomic(path, p, n), 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	s.ret = framing_scan(fd, n, &f, &s.why);
	s.end = f.end;
	s.after = f.after;
	s.gzip = f.gzip;
	s.crc = f.crc;
	s.isize = f.isize;
	close(fd);
	free(path);
	return s;
}

static void expect_whole(const char *dir, const struct strbuf *sb)
{
	struct scan s = scan_bytes(dir, sb->buf, sb->len);
	assert_int_equal(s.ret, 0);
	assert_int_equal(s.end, sb->len);
	assert_null(s.after);
}

/* sb, then tail: the scan ends where sb does and names what follows want (NULL: unknown). */
static void expect_after(const char *dir, const struct strbuf *sb, const void *tail, size_t n,
			 const char *want)
{
	struct strbuf two = STRBUF_INIT;
	struct scan s;

	strbuf_add(&two, sb->buf, sb->len);
	strbuf_add(&two, tail, n);
	s = scan_bytes(dir, two.buf, two.len);
	if (s.ret)
		fail_msg("%zu + %zu bytes: %s", sb->len, n, s.why);
	assert_int_equal(s.end, sb->len);
	if (want)
		assert_string_equal(s.after, want);
	else
		assert_null(s.after);
	strbuf_release(&two);
}

static void expect_refused(const char *dir, const void *p, size_t n, const char *want)
{
	struct scan s = scan_bytes(dir, p, n);
	assert_int_equal(s.ret, -1);
	assert_non_null(s.why);
	if (!strstr(s.why, want))
		fail_msg("'%s' does not say '%s'", s.why, want);
	free(s.why);
}

static void test_gzip_ends_where_its_member_does(void **state)
{
	static const size_t sizes[] = { 0, 1, 100, 70000, 1500000 };
	static const char *const levels[] = { "gzip:compression-level=0", "gzip:compression-level=1",
					       "gzip:compression-level=6", "gzip:compression-level=9" };
	char *d = tu_tmpdir("framing");
	struct strbuf sb = STRBUF_INIT, other = STRBUF_INIT;
	(void)state;

	compress_with("gzip", NULL, "other", 5, &other);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t l = 0; l < ARRAY_SIZE(levels); l++) {
			char *data = content(sizes[i], (unsigned)(i + 1));
			compress_with("gzip", levels[l], data, sizes[i], &sb);
			expect_whole(d, &sb);
			/* The trailer, handed on as written: the CRC-32 and size of the content. */
			struct scan s = scan_bytes(d, sb.buf, sb.len);
			assert_true(s.gzip);
			assert_int_equal(s.crc, crc32_z(0, (const unsigned char *)data, sizes[i]));
			assert_int_equal(s.isize, sizes[i]);
			expect_after(d, &sb, other.buf, other.len, "a second gzip member");
			expect_after(d, &sb, "appended\n", 9, NULL);
			/* Cut anywhere: inside the deflate stream or its trailer. */
			expect_refused(d, sb.buf, sb.len - 1, "its gzip member");
			expect_refused(d, sb.buf, sb.len / 2 + 5, "its gzip member");
			free(data);
		}
	strbuf_release(&sb);
	strbuf_release(&other);
	tu_rm_rf(d);
	free(d);
}

static void test_gzip_header_fields(void **state)
{
	char *d = tu_tmpdir("framing");
	struct strbuf sb = STRBUF_INIT, h = STRBUF_INIT;
	char name[1100];
	(void)state;

	compress_with("gzip", NULL, "hello, hello, hello\n", 20, &sb);
	assert_true(sb.len > 18);
	/* libarchive writes the plain 10-byte header; the same member with FNAME, FHCRC. */
	strbuf_add(&h, "\x1f\x8b\x08\x0a\0\0\0\0\0\x03", 10);
	strbuf_add(&h, "ev.tar\0", 7);
	uint32_t hcrc = (uint32_t)crc32_z(0, (const unsigned char *)h.buf, h.len) & 0xffff;
	strbuf_addch(&h, (char)(hcrc & 0xff));
	strbuf_addch(&h, (char)(hcrc >> 8));
	strbuf_add(&h, sb.buf + 10, sb.len - 10);
	expect_whole(d, &h);
	/* A header CRC that does not match the header (gzip -t fails it): refused. */
	h.buf[17] ^= 0x01;
	expect_refused(d, h.buf, h.len, "fails its own CRC (FHCRC)");
	/* A comment, an extra field: refused. */
	strbuf_reset(&h);
	strbuf_add(&h, "\x1f\x8b\x08\x10\0\0\0\0\0\x03" "hidden\0", 17);
	strbuf_add(&h, sb.buf + 10, sb.len - 10);
	expect_refused(d, h.buf, h.len, "a comment (FCOMMENT)");
	strbuf_reset(&h);
	strbuf_add(&h, "\x1f\x8b\x08\x04\0\0\0\0\0\x03\x04\0abcd", 16);
	strbuf_add(&h, sb.buf + 10, sb.len - 10);
	expect_refused(d, h.buf, h.len, "an extra field (FEXTRA)");
	/* A name past its bound, and reserved flag bits. */
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	strbuf_reset(&h);
	strbuf_add(&h, "\x1f\x8b\x08\x08\0\0\0\0\0\x03", 10);
	strbuf_add(&h, name, sizeof(name));
	strbuf_add(&h, sb.buf + 10, sb.len - 10);
	expect_refused(d, h.buf, h.len, "a file name longer than");
	strbuf_reset(&h);
	strbuf_add(&h, "\x1f\x8b\x08\x20\0\0\0\0\0\x03", 10);
	strbuf_add(&h, sb.buf + 10, sb.len - 10);
	expect_refused(d, h.buf, h.len, "not that of a deflate stream");
	strbuf_release(&sb);
	strbuf_release(&h);
	tu_rm_rf(d);
	free(d);
}

static void test_zstd_ends_where_its_frame_does(void **state)
{
	static const size_t sizes[] = { 0, 1, 100, 200000, 1500000 };
	static const char *const opts[] = { NULL, "zstd:compression-level=19",
					     "zstd:compression-level=1,zstd:threads=2" };
	static const unsigned char skippable[] = { 0x5e, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 'h', 'i',
						   'd', 'e' };
	char *d = tu_tmpdir("framing");
	struct strbuf sb = STRBUF_INIT, other = STRBUF_INIT;
	(void)state;

	compress_with("zstd", NULL, "other", 5, &other);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t o = 0; o < ARRAY_SIZE(opts); o++) {
			char *data = content(sizes[i], (unsigned)(i + 7));
			compress_with("zstd", opts[o], data, sizes[i], &sb);
			expect_whole(d, &sb);
			expect_after(d, &sb, other.buf, other.len, "a second zstd frame");
			expect_after(d, &sb, skippable, sizeof(skippable), "a zstd skippable frame");
			expect_after(d, &sb, "GARBAGE\n", 8, NULL);
			expect_refused(d, sb.buf, sb.len - 1, "its zstd frame");
			free(data);
		}
	/* A reserved bit in the frame header, a reserved block type. */
	compress_with("zstd", NULL, "x", 1, &sb);
	sb.buf[4] |= 0x08;
	expect_refused(d, sb.buf, sb.len, "reserved bit");
	strbuf_release(&sb);
	strbuf_release(&other);
	tu_rm_rf(d);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gzip_ends_where_its_member_does),
		cmocka_unit_test(test_gzip_header_fields),
		cmocka_unit_test(test_zstd_ends_where_its_frame_does),
	};
	return cmocka_run_group_tests_name("framing", tests, NULL, NULL);
}
