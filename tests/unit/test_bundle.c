/* Unit tests of bundle: the same directory gives the same bytes whatever
 * its mtimes, modes and owners; a bundle reads back entry for entry; hostile
 * bundles (built here with libarchive's writer) are named, not trusted. */
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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "testutil.h"

static char last_error[1024];

static void capture(const char *prefix, const char *msg)
{
	snprintf(last_error, sizeof(last_error), "%s: %s", prefix, msg);
}

/* Incompressible content, so that cutting a bundle cuts into file data. */
static char *noise(size_t n, unsigned seed)
{
	char *b = xmalloc(n);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (char)(x >> 24);
	}
	return b;
}

static const char long_name[] =
	"runs/candidate/run-1/a-rather-long-directory-name-that-ustar-cannot-hold-in-its-"
	"hundred-byte-name-field/and-a-file-name-long-enough-too.log";

/* The evidence-like tree every test packs. */
static void make_tree(const char *dir)
{
	char *big = noise(300 * 1024, 1);
	char *sub = path_join(dir, "runs/empty-dir");
	tu_puts(dir, "plan.json", "{\"schema\": \"abev-plan/1\"}\n");
	tu_puts(dir, "b-c", "dash sorts before slash\n");
	tu_puts(dir, "b/c", "child of b\n");
	tu_puts(dir, "runs/baseline/run-1/test.log", "baseline\n");
	tu_puts(dir, long_name, "long\n");
	tu_puts(dir, "caf\xc3\xa9.txt", "utf-8 name\n");
	tu_put(dir, "runs/big.bin", big, 300 * 1024);
	tu_put(dir, "empty", "", 0);
	assert_int_equal(mkdir_p(sub), 0);
	free(sub);
	free(big);
}

static void copy_tree(const char *from, const char *to)
{
	char *cmd = xasprintf("cp -R '%s/.' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static struct strbuf slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(read_file_capped(&sb, path, 64u << 20), 0);
	return sb;
}

/* Different mtimes, modes and (as root) owners everywhere in the copy. */
static void disturb(const char *dir, const char *name, int i)
{
	char *p = path_join(dir, name);
	struct timespec ts[2] = { { 1000000 + i, 123456789 }, { 2000000000 + i, 987654321 } };
	assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
	if (geteuid() == 0)
		assert_int_equal(lchown(p, 1000 + (uid_t)i, 2000 + (gid_t)i), 0);
	free(p);
}

static int contains(const struct strbuf *sb, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= sb->len; i++)
		if (!memcmp(sb->buf + i, needle, n))
			return 1;
	return 0;
}

static void test_pack_is_deterministic(void **state)
{
	char *d1 = tu_tmpdir("bundle"), *d2 = tu_tmpdir("bundle");
	char *out = tu_tmpdir("bundle-out");
	static const char *const names[] = {
		"plan.json", "b-c", "b/c", "b", "runs", "runs/empty-dir",
		"runs/baseline/run-1/test.log", "runs/big.bin", "empty", long_name,
	};
	static const char *const suffix[] = { ".tar.zst", ".tar.gz" };
	(void)state;

	make_tree(d1);
	copy_tree(d1, d2);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		disturb(d2, names[i], (int)i);
	char *p = path_join(d2, "plan.json");
	assert_int_equal(chmod(p, 0600), 0);
	free(p);

	for (size_t s = 0; s < ARRAY_SIZE(suffix); s++) {
		char *a = xasprintf("%s/one%s", out, suffix[s]);
		char *b = xasprintf("%s/two%s", out, suffix[s]);
		char *c = xasprintf("%s/copy%s", out, suffix[s]);
		assert_int_equal(bundle_pack(d1, a), 0);
		sleep(s == 0 ? 1 : 0); /* a second later: no clock may leak in */
		assert_int_equal(bundle_pack(d1, b), 0);
		assert_int_equal(bundle_pack(d2, c), 0);
		struct strbuf ba = slurp(a), bb = slurp(b), bc = slurp(c);
		assert_true(ba.len > 1000);
		assert_int_equal(ba.len, bb.len);
		assert_memory_equal(ba.buf, bb.buf, ba.len);
		assert_int_equal(ba.len, bc.len);
		assert_memory_equal(ba.buf, bc.buf, ba.len);
		assert_true(bundle_is_bundle(a));
		strbuf_release(&ba);
		strbuf_release(&bb);
		strbuf_release(&bc);
		free(a);
		free(b);
		free(c);
	}
	/* Nothing of this machine in the bytes: no pax time or owner records. */
	char *a = xasprintf("%s/one.tar.gz", out);
	char *tar = xasprintf("%s/one.tar", out);
	char *cmd = xasprintf("gzip -dc '%s' > '%s'", a, tar);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	struct strbuf raw = slurp(tar);
	assert_true(raw.len > 300 * 1024);
	static const char *const leaks[] = { "mtime=", "atime=", "ctime=", "uname=", "uid=",
					     "PaxHeader." };
	for (size_t i = 0; i < ARRAY_SIZE(leaks); i++)
		assert_false(contains(&raw, leaks[i]));
	/* Only the non-ASCII name needed a pax record, with its bytes verbatim. */
	assert_true(contains(&raw, "hdrcharset=BINARY"));
	strbuf_release(&raw);
	free(tar);
	/* Stock tar sees fixed modes, owners and times on all 8 files and 8 directories. */
	cmd = xasprintf("test \"$(tar -tvzf '%s' 2>/dev/null | grep -c -E "
			"'^(-rw-r--r--|drwxr-xr-x) root/root +[0-9]+ 1970-01-01 00:00 ')\" = 16", a);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(a);
	tu_rm_rf(d1);
	free(d1);
	tu_rm_rf(d2);
	free(d2);
	tu_rm_rf(out);
	free(out);
}

struct seen {
	struct strbuf log;     /* "F name size\n", "D name\n", "O name other\n", "=hash-ish\n" */
	struct strbuf content;
	size_t nentries;
};

static void on_entry(void *ctx, const struct bundle_entry *e)
{
	struct seen *s = ctx;
	s->nentries++;
	if (e->type == BUNDLE_FILE)
		strbuf_addf(&s->log, "F %s %llu\n", e->name, (unsigned long long)e->size);
	else if (e->type == BUNDLE_DIR)
		strbuf_addf(&s->log, "D %s\n", e->name);
	else
		strbuf_addf(&s->log, "O %s %s\n", e->name, e->other);
}

static void on_data(void *ctx, const void *buf, size_t len)
{
	struct seen *s = ctx;
	if (buf)
		strbuf_add(&s->content, buf, len);
	else
		strbuf_adds(&s->content, "<end>");
}

static void seen_release(struct seen *s)
{
	strbuf_release(&s->log);
	strbuf_release(&s->content);
}

/* Log-like text: compressible, but never the same line twice. */
static char *log_text(size_t n)
{
	char *b = xmalloc(n);
	size_t len = 0;
	for (unsigned k = 0; len < n; k++) {
		char line[96];
		int m = snprintf(line, sizeof(line), "[%010u] iteration %u: %u ns/op, alloc %u B\n",
				 k, k % 1000, (k * 7919u) % 100003u, (k * 31u) % 977u);
		size_t take = (size_t)m < n - len ? (size_t)m : n - len;
		memcpy(b + len, line, take);
		len += take;
	}
	return b;
}

/*
 * pack.c compresses .tar.zst on zstd worker threads: the input is cut
 * into jobs of a fixed size and compressed in parallel, and the frame must
 * not depend on which job finished first. Tens of MiB make many jobs.
 */
static void test_pack_zstd_jobs_are_deterministic(void **state)
{
	char d[] = "/tmp/abev-bundle-XXXXXX";
	size_t text_len = 24u << 20, noise_len = 4u << 20;
	char *text = log_text(text_len), *bin = noise(noise_len, 7);
	(void)state;

	assert_non_null(mkdtemp(d));
	char *src = path_join(d, "ev");
	char *one = path_join(d, "one.tar.zst"), *two = path_join(d, "two.tar.zst");
	tu_put(src, "runs/a.log", text, text_len);
	tu_put(src, "runs/b.bin", bin, noise_len);
	assert_int_equal(bundle_pack(src, one), 0);
	assert_int_equal(bundle_pack(src, two), 0);
	struct strbuf b1 = slurp(one), b2 = slurp(two);
	assert_true(b1.len < text_len / 2 + noise_len);   /* it did compress */
	assert_int_equal(b1.len, b2.len);
	assert_memory_equal(b1.buf, b2.buf, b1.len);
	strbuf_release(&b1);
	strbuf_release(&b2);

	struct seen s = { STRBUF_INIT, STRBUF_INIT, 0 };
	char *err = NULL;
	assert_int_equal(bundle_read(one, on_entry, on_data, &s, &err), 0);
	assert_null(err);
	assert_int_equal(s.content.len, text_len + noise_len + 2 * strlen("<end>"));
	assert_memory_equal(s.content.buf, text, text_len);
	assert_memory_equal(s.content.buf + text_len + strlen("<end>"), bin, noise_len);
	seen_release(&s);
	free(text);
	free(bin);
	free(src);
	free(one);
	free(two);
	tu_rm_rf(d);
}

static void test_read_round_trip(void **state)
{
	char *d = tu_tmpdir("bundle");
	(void)state;
	char *src = path_join(d, "ev");
	char *out = path_join(d, "ev.tar.zst");
	assert_int_equal(mkdir(src, 0755), 0);
	tu_puts(src, "z", "last\n");
	tu_puts(src, "a/b", "nested\n");
	tu_puts(src, "a-b", "dash\n");
	tu_put(src, "e", "", 0);
	tu_puts(src, "\xff\xfe-not-utf8", "raw\n");
	assert_int_equal(bundle_pack(src, out), 0);

	struct seen s = { STRBUF_INIT, STRBUF_INIT, 0 };
	char *err = NULL;
	assert_int_equal(bundle_read(out, on_entry, on_data, &s, &err), 0);
	assert_null(err);
	/* Byte order, parents first, directories without their trailing slash. */
	assert_string_equal(s.log.buf,
			    "F a-b 5\nD a\nF a/b 7\nF e 0\nF z 5\nF \xff\xfe-not-utf8 4\n");
	assert_string_equal(s.content.buf, "dash\n<end>nested\n<end><end>last\n<end>raw\n<end>");
	seen_release(&s);

	/* An empty directory packs into a bundle without entries. */
	char *empty = path_join(d, "empty");
	char *eout = path_join(d, "empty.tar.gz");
	assert_int_equal(mkdir(empty, 0755), 0);
	assert_int_equal(bundle_pack(empty, eout), 0);
	s.nentries = 0;
	assert_int_equal(bundle_read(eout, on_entry, on_data, &s, &err), 0);
	assert_int_equal(s.nentries, 0);
	free(empty);
	free(eout);

	/* Stock tar reads it back, with the directory entry written as "a/". */
	char *cmd = xasprintf("tar --zstd -tf '%s' 2>/dev/null | head -5 | tr '\\n' ' ' | "
			      "grep -qx 'a-b a/ a/b e z '", out);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(src);
	free(out);
	tu_rm_rf(d);
	free(d);
}

static void test_pack_refuses(void **state)
{
	char *d = tu_tmpdir("bundle");
	(void)state;
	char *src = path_join(d, "ev");
	char *out = path_join(d, "ev.tar.zst");
	char *link = path_join(src, "sub/link");
	char *fifo = path_join(src, "fifo");
	assert_int_equal(mkdir(src, 0755), 0);
	tu_puts(src, "sub/f", "x");
	set_error_routine(capture);

	assert_int_equal(symlink("/etc/passwd", link), 0);
	assert_int_equal(bundle_pack(src, out), -1);
	assert_non_null(strstr(last_error, "'sub/link' is a symlink"));
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(unlink(link), 0);

	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(bundle_pack(src, out), -1);
	assert_non_null(strstr(last_error, "'fifo' is a FIFO"));
	assert_int_equal(unlink(fifo), 0);

	tu_puts(src, "bad)name", "x");
	assert_int_equal(bundle_pack(src, out), -1);
	assert_non_null(strstr(last_error, "unsafe name 'bad)name'"));
	char *bad = path_join(src, "bad)name");
	assert_int_equal(unlink(bad), 0);
	free(bad);

	char *zip = path_join(d, "ev.zip");
	assert_int_equal(bundle_pack(src, zip), -1);
	assert_non_null(strstr(last_error, ".tar.zst or .tar.gz"));
	free(zip);

	char *inside = path_join(src, "self.tar.gz");
	assert_int_equal(bundle_pack(src, inside), -1);
	assert_non_null(strstr(last_error, "inside the directory"));
	free(inside);

	assert_int_equal(bundle_pack(src, out), 0);
	struct strbuf before = slurp(out);
	tu_puts(src, "sub/g", "new");
	assert_int_equal(bundle_pack(src, out), -1);
	assert_non_null(strstr(last_error, "already exists"));
	struct strbuf after = slurp(out);
	assert_int_equal(before.len, after.len);
	assert_memory_equal(before.buf, after.buf, before.len);
	strbuf_release(&before);
	strbuf_release(&after);

	/* No temporary file is left behind by any of the failures. */
	char *cmd = xasprintf("ls '%s' | grep -q tmp", d);
	assert_int_not_equal(system(cmd), 0);
	free(cmd);

	set_error_routine(NULL);
	free(src);
	free(out);
	free(link);
	free(fifo);
	tu_rm_rf(d);
	free(d);
}

/* One entry of a hand-made, possibly hostile, bundle. */
struct craft {
	const char *name;
	mode_t type;
	const char *symlink;
	const char *hardlink;
	const char *data;
};

static void craft_bundle(const char *path, const struct craft *c, size_t n, int gzip)
{
	struct archive *a = archive_write_new();
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(gzip ? archive_write_add_filter_gzip(a) : archive_write_add_filter_zstd(a),
			 ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		size_t len = c[i].data ? strlen(c[i].data) : 0;
		archive_entry_set_pathname(e, c[i].name);
		archive_entry_set_filetype(e, c[i].type);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)len);
		if (c[i].symlink)
			archive_entry_set_symlink(e, c[i].symlink);
		if (c[i].hardlink)
			archive_entry_set_hardlink(e, c[i].hardlink);
		if (c[i].type == AE_IFCHR)
			archive_entry_set_rdev(e, makedev(1, 3));
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (len)
			assert_int_equal(archive_write_data(a, c[i].data, len), (la_ssize_t)len);
		archive_entry_free(e);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	assert_int_equal(archive_write_free(a), ARCHIVE_OK);
}

static void test_read_hostile_entries(void **state)
{
	static const struct {
		struct craft entry;
		const char *expect;   /* the line on_entry logs for it */
	} cases[] = {
		{ { "../evil", AE_IFREG, NULL, NULL, "x" }, "O ../evil unsafe name: '..' component\n" },
		{ { "a/../../evil", AE_IFREG, NULL, NULL, "x" },
		  "O a/../../evil unsafe name: '..' component\n" },
		{ { "/etc/x", AE_IFREG, NULL, NULL, "x" }, "O /etc/x unsafe name: absolute path\n" },
		{ { "ctl\x1b[2J", AE_IFREG, NULL, NULL, "x" },
		  "O ctl\x1b[2J unsafe name: contains a control character\n" },
		{ { "link", AE_IFLNK, "/etc/passwd", NULL, NULL }, "O link symlink\n" },
		{ { "hard", AE_IFREG, NULL, "plan.json", NULL }, "O hard hardlink\n" },
		{ { "dev/null", AE_IFCHR, NULL, NULL, NULL }, "O dev/null device\n" },
		{ { "pipe", AE_IFIFO, NULL, NULL, NULL }, "O pipe FIFO\n" },
		{ { "./dot/ok", AE_IFREG, NULL, NULL, "x" }, "F dot/ok 1\n" },
	};
	char *d = tu_tmpdir("bundle");
	(void)state;
	char *path = path_join(d, "hostile.tar.zst");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct craft c[2] = { { "plan.json", AE_IFREG, NULL, NULL, "{}" }, cases[i].entry };
		struct seen s = { STRBUF_INIT, STRBUF_INIT, 0 };
		char *err = NULL;
		unlink(path);
		craft_bundle(path, c, 2, (int)(i % 2));
		assert_int_equal(bundle_read(path, on_entry, on_data, &s, &err), 0);
		assert_null(err);
		char *want = xasprintf("F plan.json 2\n%s", cases[i].expect);
		assert_string_equal(s.log.buf, want);
		/* Only the regular, safely named files deliver data. */
		assert_string_equal(s.content.buf,
				    cases[i].expect[0] == 'F' ? "{}<end>x<end>" : "{}<end>");
		free(want);
		seen_release(&s);
	}
	free(path);
	tu_rm_rf(d);
	free(d);
}

/* Hands a buffer to gzip through libarchive's raw writer: bytes as they are. */
static void gzip_raw(const char *path, const void *data, size_t len)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
	assert_int_equal(archive_write_add_filter_gzip(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	archive_entry_set_pathname(e, "raw");
	archive_entry_set_filetype(e, AE_IFREG);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, data, len), (la_ssize_t)len);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	assert_int_equal(archive_write_free(a), ARCHIVE_OK);
	archive_entry_free(e);
}

/* A ustar header declaring `size`, by hand: no writer would produce a lie. */
static void ustar_header(unsigned char h[512], const char *name, uint64_t size)
{
	unsigned sum = 0;
	memset(h, 0, 512);
	memcpy(h, name, strlen(name));
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0000000", 7);
	memcpy(h + 116, "0000000", 7);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
	memcpy(h + 136, "00000000000", 11);
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

static void test_read_refuses(void **state)
{
	char *d = tu_tmpdir("bundle");
	char *err = NULL;
	struct seen s = { STRBUF_INIT, STRBUF_INIT, 0 };
	(void)state;

	/* Not a bundle at all. */
	char *text = path_join(d, "notes.txt");
	tu_puts(d, "notes.txt", "just text\n");
	assert_false(bundle_is_bundle(text));
	assert_false(bundle_is_bundle(d));
	assert_int_equal(bundle_read(text, on_entry, on_data, &s, &err), -1);
	assert_non_null(strstr(err, "not a bundle"));
	free(err);

	/* gzip, but of something that is not tar. */
	char *gz = path_join(d, "text.tar.gz");
	gzip_raw(gz, "hello, this is not a tar archive\n", 33);
	assert_true(bundle_is_bundle(gz));
	assert_int_equal(bundle_read(gz, on_entry, on_data, &s, &err), -1);
	assert_non_null(err);
	free(err);

	/* A declared size over the per-entry cap is refused before any data is read. */
	unsigned char tar[512 + 4096] = { 0 };
	ustar_header(tar, "huge", BUNDLE_MAX_ENTRY_BYTES + 1);
	char *huge = path_join(d, "huge.tar.gz");
	gzip_raw(huge, tar, sizeof(tar));
	assert_int_equal(bundle_read(huge, on_entry, on_data, &s, &err), -1);
	assert_non_null(strstr(err, "'huge' is larger than a bundle may hold"));
	free(err);
	assert_int_equal(s.nentries, 0);

	/* The same header at the cap itself is fine, until the data runs out. */
	ustar_header(tar, "huge", BUNDLE_MAX_ENTRY_BYTES);
	unlink(huge);
	gzip_raw(huge, tar, sizeof(tar));
	assert_int_equal(bundle_read(huge, on_entry, on_data, &s, &err), -1);
	assert_non_null(strstr(err, "truncated bundle"));
	free(err);
	assert_int_equal(s.nentries, 1);

	/* Cut a real bundle in half. */
	char *src = path_join(d, "ev");
	char *zst = path_join(d, "ev.tar.zst");
	char *big = noise(256 * 1024, 7);
	assert_int_equal(mkdir(src, 0755), 0);
	tu_put(src, "a.bin", big, 256 * 1024);
	tu_put(src, "b.bin", big, 1024);
	assert_int_equal(bundle_pack(src, zst), 0);
	struct strbuf whole = slurp(zst);
	char *cut = path_join(d, "cut.tar.zst");
	assert_int_equal(write_file_atomic(cut, whole.buf, whole.len / 2), 0);
	assert_int_equal(bundle_read(cut, on_entry, on_data, &s, &err), -1);
	assert_non_null(strstr(err, "truncated bundle"));
	free(err);
	strbuf_release(&whole);

	/* An uncompressed tar is not a bundle either. */
	char *plain = path_join(d, "plain.tar");
	char *cmd = xasprintf("tar -C '%s' -cf '%s' a.bin", src, plain);
	assert_int_equal(system(cmd), 0);
	assert_false(bundle_is_bundle(plain));
	assert_true(bundle_named_like(plain));
	assert_int_equal(bundle_read(plain, on_entry, on_data, &s, &err), -1);
	assert_non_null(strstr(err, "is an uncompressed tar archive"));
	free(err);
	free(cmd);

	/* Empty, and a gzip stream cut inside its 8-byte trailer (libarchive gives no message). */
	char *empty = path_join(d, "empty.tar.zst");
	assert_int_equal(write_file_atomic(empty, "", 0), 0);
	assert_int_equal(bundle_read(empty, on_entry, on_data, &s, &err), -1);
	assert_non_null(strstr(err, "is an empty file (0 bytes)"));
	free(err);
	char *gzb = path_join(d, "ev.tar.gz");
	assert_int_equal(bundle_pack(src, gzb), 0);
	whole = slurp(gzb);
	unlink(cut);
	assert_int_equal(write_file_atomic(cut, whole.buf, whole.len - 4), 0);
	assert_int_equal(bundle_read(cut, on_entry, on_data, &s, &err), -1);
	assert_null(strstr(err, "(null)"));
	assert_non_null(strstr(err, "truncated"));
	free(err);
	strbuf_release(&whole);
	free(empty);
	free(gzb);

	/* Stock tar's layout: a "./" root entry and "./" before every name. */
	char *stock = path_join(d, "stock.tar.gz");
	cmd = xasprintf("tar -C '%s' --sort=name -czf '%s' .", src, stock);
	assert_int_equal(system(cmd), 0);
	seen_release(&s);
	assert_int_equal(bundle_read(stock, on_entry, on_data, &s, &err), 0);
	assert_string_equal(s.log.buf, "F a.bin 262144\nF b.bin 1024\n");
	free(cmd);
	/* Bytes after the gzip stream, which libarchive's reader would pass over in silence. */
	whole = slurp(stock);
	strbuf_adds(&whole, "appended\n");
	unlink(stock);
	assert_int_equal(write_file_atomic(stock, whole.buf, whole.len), 0);
	assert_int_equal(bundle_read(stock, on_entry, on_data, &s, &err), -1);
	assert_non_null(strstr(err, "9 bytes after the end of its compressed stream"));
	free(err);
	strbuf_release(&whole);
	free(stock);

	seen_release(&s);
	free(text);
	free(gz);
	free(huge);
	free(src);
	free(zst);
	free(big);
	free(cut);
	free(plain);
	tu_rm_rf(d);
	free(d);
}

static void test_read_entry_cap(void **state)
{
	char *d = tu_tmpdir("bundle");
	char *err = NULL;
	struct seen s = { STRBUF_INIT, STRBUF_INIT, 0 };
	(void)state;
	char *path = path_join(d, "many.tar.zst");
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_add_filter_zstd(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	/* The cap, lowered to what a test can write quickly, is the one read against. */
	bundle_set_max_entries(100000);
	for (int i = 0; i <= 100000; i++) {
		char name[32];
		snprintf(name, sizeof(name), "f%06d", i);
		archive_entry_clear(e);
		archive_entry_set_pathname(e, name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, 0);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	}
	archive_entry_free(e);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	assert_int_equal(archive_write_free(a), ARCHIVE_OK);

	assert_int_equal(bundle_read(path, on_entry, on_data, &s, &err), -1);
	assert_non_null(strstr(err, "more than 100000 entries"));
	assert_int_equal(s.nentries, 100000);
	bundle_set_max_entries(0);
	free(err);
	seen_release(&s);
	free(path);
	tu_rm_rf(d);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_is_deterministic),
		cmocka_unit_test(test_read_round_trip),
		cmocka_unit_test(test_pack_zstd_jobs_are_deterministic),
		cmocka_unit_test(test_pack_refuses),
		cmocka_unit_test(test_read_hostile_entries),
		cmocka_unit_test(test_read_refuses),
		cmocka_unit_test(test_read_entry_cap),
	};
	return cmocka_run_group_tests_name("bundle", tests, NULL, NULL);
}
