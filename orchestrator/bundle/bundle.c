/*
 * bundle: packs an evidence directory into one .tar.zst / .tar.gz and
 * streams one back, through libarchive. This file is the only one that
 * sees libarchive. It does not know what evidence means: verify.c decides
 * what a name or a missing file says about it, seal.c decides which names
 * are safe (evname_problem()).
 *
 * Entry layout of a packed bundle: no top-level directory and no "./"
 * entry; names relative to the packed directory; a directory is written as
 * "name/" (trailing slash, as GNU tar and libarchive do). All entries,
 * directories included, are sorted by byte order of those names, so a
 * parent ("a/") always precedes its children ("a/x"), and the regular
 * files come in exactly the order of the manifest SHA256. Every entry has
 * mtime 0 (the Unix epoch), uid/gid 0, owner "root":"root", mode 0644 for
 * files and 0755 for directories, and no atime, ctime or birthtime.
 */
#include "bundle/bundle.h"
#include "bundle/framing.h"
#include "util/tree.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "evidence/evname.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"

#define CHUNK (64 * 1024)

/*
 * What libarchive says went wrong. archive_error_string() is NULL when a
 * layer below it (zlib, libzstd, read()) failed without a message: then
 * the errno libarchive kept, or the usual cause of a silent failure.
 */
#define WHY_MAX 256
static const char *archive_why(struct archive *a, const char *fallback, char buf[WHY_MAX])
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
#define READ_WHY(a, buf) archive_why((a), "truncated or corrupt compressed stream", (buf))
#define WRITE_WHY(a, buf) archive_why((a), "write failed", (buf))
/* The size of the writes of a bundle to its file. */
#define WRITE_BLOCK (1024 * 1024)
/* Deeper trees than this are not evidence; the bound keeps recursion finite. */
#define MAX_DEPTH 64
/* Longer names than this are refused when packing and flagged when reading. */
#define MAX_NAME 4096

/* BUNDLE_MAX_ENTRIES, unless a test lowered it (bundle_set_max_entries()). */
static size_t bundle_max_entries = BUNDLE_MAX_ENTRIES;

void bundle_set_max_entries(size_t n)
{
	bundle_max_entries = n ? n : BUNDLE_MAX_ENTRIES;
}

struct pack_item {
	char *name;        /* relative; directories end in '/' */
	int is_dir;
	uint64_t size;
};

struct pack_list {
	struct pack_item *v;
	size_t n, alloc;
	uint64_t total;
};

static void pack_list_release(struct pack_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
	l->total = 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct pack_item *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* Collects every entry under root/rel (rel "" for root itself). */
struct pack_walk {
	const char *root;
	struct pack_list *l;
};

/* Only regular files and directories with safe names go into a bundle, within its caps. */
static enum tree_step pack_entry(void *ctx, const struct tree_entry *e)
{
	struct pack_walk *w = ctx;
	struct pack_list *l = w->l;
	const char *why = evname_problem(e->name);
	mode_t mode = e->st->st_mode;

	if (why || strlen(e->name) > MAX_NAME) {
		error("cannot pack '%s': unsafe name '%s': %s", w->root, e->name,
		      why ? why : "too long");
		return TREE_STOP;
	}
	if (l->n >= bundle_max_entries) {
		error("cannot pack '%s': more than %zu entries", w->root, bundle_max_entries);
		return TREE_STOP;
	}
	if (S_ISREG(mode)) {
		uint64_t size = (uint64_t)e->st->st_size;
		if (size > BUNDLE_MAX_ENTRY_BYTES || BUNDLE_MAX_TOTAL_BYTES - l->total < size) {
			error("cannot pack '%s': '%s' would make the bundle larger than a "
			      "bundle may be", w->root, e->name);
			return TREE_STOP;
		}
		l->total += size;
	} else if (!S_ISDIR(mode)) {
		error("cannot pack '%s': '%s' is a %s; only regular files and "
		      "directories go into a bundle", w->root, e->name, tree_kind(mode));
		return TREE_STOP;
	} else if (e->depth + 1 > MAX_DEPTH) {
		error("cannot pack '%s': '%s' is nested more than %d levels deep", w->root,
		      e->name, MAX_DEPTH);
		return TREE_STOP;
	}
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n].is_dir = S_ISDIR(mode);
	l->v[l->n].size = S_ISREG(mode) ? (uint64_t)e->st->st_size : 0;
	l->v[l->n].name = S_ISDIR(mode) ? xasprintf("%s/", e->name) : xstrdup(e->name);
	l->n++;
	return S_ISDIR(mode) ? TREE_DESCEND : TREE_NEXT;
}

static enum tree_step pack_failed(void *ctx, const char *name, const char *what, int err)
{
	struct pack_walk *w = ctx;
	error("cannot pack '%s': %s '%s': %s", w->root, what, name, strerror(err));
	return TREE_STOP;
}

static int pack_walk(const char *root, struct pack_list *l)
{
	static const struct tree_ops ops = { pack_entry, pack_failed };
	struct pack_walk w = { root, l };
	return tree_walk(root, &ops, &w);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !memcmp(s + n - m, suffix, m);
}

/* Refuses an output that would land inside the directory being packed. */
static int out_inside_dir(const char *dir, const char *out_dir)
{
	char *a = realpath(dir, NULL), *b = realpath(out_dir, NULL);
	int inside = 0;
	if (a && b) {
		size_t n = strlen(a);
		inside = !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/' || n == 1);
	}
	free(a);
	free(b);
	return inside;
}

/* Whether the pack must stop (stop may be NULL: never); -1 after error() when it must. */
static int pack_stopped(int (*stop)(void))
{
	if (!stop || !stop())
		return 0;
	return error("interrupted by a signal; the bundle was not written");
}

/*
 * Where the bundle's bytes go. libarchive 3.6 leaks its output buffer when
 * it is freed after a failed header write (it then skips the close that
 * frees it), so a failed write() is not passed up: the sink keeps the
 * errno, swallows what follows, and the packer asks sink_failed() after
 * every call and stops there; the writer is then closed and freed the
 * ordinary way.
 */
struct pack_sink {
	int fd;
	int err;
};

static la_ssize_t sink_write(struct archive *a, void *ctx, const void *buf, size_t len)
{
	struct pack_sink *s = ctx;
	const char *p = buf;
	size_t left = len;

	(void)a;
	while (!s->err && left > 0) {
		ssize_t n = write(s->fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->err = n < 0 ? errno : EIO;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	return (la_ssize_t)len;
}

/* One pack in progress: the writer, its sink, the bundle's name, a read buffer. */
struct packer {
	struct archive *a;
	struct pack_sink sink;
	const char *out;
	char *buf;
	int (*stop)(void);
};

/* 0, or -1 after error() saying why the bundle could not be written. */
static int sink_failed(const struct packer *p)
{
	if (!p->sink.err)
		return 0;
	return error("cannot write bundle '%s': %s", p->out, strerror(p->sink.err));
}

static int pack_file(struct packer *p, const char *full, const struct pack_item *it)
{
	struct archive *a = p->a;
	char *buf = p->buf;
	int fd, ret = -1;
	struct stat st;
	uint64_t done = 0;

	fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return error("cannot open '%s': %s", full, strerror(errno));
	if (fstat(fd, &st) < 0) {
		error("cannot stat '%s': %s", full, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != it->size) {
		error("'%s' changed while it was being packed", full);
		goto out;
	}
	while (done < it->size) {
		size_t want = it->size - done < CHUNK ? (size_t)(it->size - done) : CHUNK;
		ssize_t n;

		if (pack_stopped(p->stop))
			goto out;
		n = read(fd, buf, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error("cannot read '%s': %s", full, strerror(errno));
			goto out;
		}
		if (n == 0) {
			error("'%s' shrank while it was being packed", full);
			goto out;
		}
		la_ssize_t w = archive_write_data(a, buf, (size_t)n);
		if (sink_failed(p) < 0)
			goto out;
		if (w < 0 || (size_t)w != (size_t)n) {
			char why[WHY_MAX];
			error("cannot write '%s' into the bundle: %s", full,
			      archive_why(a, "short write", why));
			goto out;
		}
		done += (uint64_t)n;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

static int is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 0;
	return 1;
}

static int pack_entries(struct packer *p, const char *dir, const struct pack_list *l)
{
	struct archive_entry *e = archive_entry_new();
	struct archive *a = p->a;
	int ret = -1;

	if (!e)
		die_oom();
	for (size_t i = 0; i < l->n; i++) {
		const struct pack_item *it = &l->v[i];
		if (pack_stopped(p->stop))
			goto out;
		archive_entry_clear(e);
		archive_entry_set_pathname(e, it->name);
		archive_entry_set_filetype(e, it->is_dir ? AE_IFDIR : AE_IFREG);
		archive_entry_set_perm(e, it->is_dir ? 0755 : 0644);
		archive_entry_set_size(e, (la_int64_t)it->size);
		archive_entry_set_mtime(e, 0, 0);
		archive_entry_set_uid(e, 0);
		archive_entry_set_gid(e, 0);
		archive_entry_set_uname(e, "root");
		archive_entry_set_gname(e, "root");
		/*
		 * abev runs in the C locale, where libarchive cannot convert a
		 * non-ASCII name to UTF-8: it warns and writes that one entry's
		 * name bytes verbatim under hdrcharset=BINARY, which is exact and
		 * locale-independent. A warning for an ASCII name means something
		 * else and is an error.
		 */
		int rc = archive_write_header(a, e);
		if (sink_failed(p) < 0)
			goto out;
		if (rc != ARCHIVE_OK && !(rc == ARCHIVE_WARN && !is_ascii(it->name))) {
			char why[WHY_MAX];
			error("cannot write the header of '%s' into the bundle: %s", it->name,
			      WRITE_WHY(a, why));
			goto out;
		}
		if (!it->is_dir) {
			char *full = path_join(dir, it->name);
			int r = pack_file(p, full, it);
			free(full);
			if (r < 0)
				goto out;
		}
		rc = archive_write_finish_entry(a);
		if (sink_failed(p) < 0)
			goto out;
		if (rc != ARCHIVE_OK) {
			char why[WHY_MAX];
			error("cannot finish '%s' in the bundle: %s", it->name, WRITE_WHY(a, why));
			goto out;
		}
	}
	ret = 0;
out:
	archive_entry_free(e);
	return ret;
}

/*
 * zstd level ZSTD_LEVEL on ZSTD_THREADS worker threads. Workers compress
 * fixed-size jobs cut from the input, so the frame depends on the level and
 * on there being workers at all (0 workers, libarchive's default, gives
 * other bytes), not on timing or on the number of workers: measured with
 * 1, 2 and 4 on libzstd 1.5.4, and make bench checks it on every run. The
 * count is fixed rather than one per core so that the bytes never depend
 * on the machine; a libarchive without the option (before 3.6) fails the
 * pack rather than writing other bytes. Level 1 rather than zstd's default
 * 3: on evidence (logs, binaries) it packs within 1 % of the size for about
 * 30 % less CPU. bench/results.md has the figures.
 */
#define ZSTD_LEVEL "1"
#define ZSTD_THREADS "2"

static int set_zstd_options(struct archive *a)
{
	if (archive_write_set_filter_option(a, "zstd", "compression-level", ZSTD_LEVEL) !=
		    ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "zstd", "threads", ZSTD_THREADS) != ARCHIVE_OK)
		return -1;
	return 0;
}

/* A writable directory: 0, or -1 after error() naming what for. */
static int check_dir_writable(const char *dir, const char *out)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return error("cannot write bundle '%s': '%s': %s", out, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return error("cannot write bundle '%s': '%s' is not a directory", out, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return error("cannot write bundle '%s': '%s': %s", out, dir, strerror(errno));
	return 0;
}

int bundle_check_target(const char *out)
{
	const char *slash = strrchr(out, '/');
	struct stat st;
	char *out_dir;
	int ret;

	if (!has_suffix(out, ".tar.zst") && !has_suffix(out, ".tar.gz"))
		return error("cannot write bundle '%s': the name must end in .tar.zst or .tar.gz",
			     out);
	if (lstat(out, &st) == 0)
		return error("cannot write bundle '%s': it already exists", out);
	if (errno != ENOENT)
		return error("cannot write bundle '%s': %s", out, strerror(errno));
	out_dir = slash ? xstrndup(out, (size_t)(slash - out) + (slash == out)) : xstrdup(".");
	ret = check_dir_writable(out_dir, out);
	free(out_dir);
	return ret;
}

/* The archive writer into sink: tar (pax restricted) under zstd or gzip, fixed settings. */
static struct archive *pack_writer(struct pack_sink *sink, int zst, const char *out)
{
	struct archive *a = archive_write_new();

	if (!a)
		die_oom();
	/*
	 * Writes of WRITE_BLOCK bytes rather than libarchive's 10 KiB records
	 * (a 1 GiB bundle took 60,000 write() calls), and no padding of the last
	 * one: the bytes of the bundle are the same either way.
	 */
	if (archive_write_set_bytes_per_block(a, WRITE_BLOCK) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    (zst ? archive_write_add_filter_zstd(a) : archive_write_add_filter_gzip(a)) !=
		    ARCHIVE_OK ||
	    (zst && set_zstd_options(a) < 0) ||
	    (!zst && archive_write_set_options(a, "gzip:!timestamp") != ARCHIVE_OK) ||
	    archive_write_open2(a, sink, NULL, sink_write, NULL, NULL) != ARCHIVE_OK) {
		char why[WHY_MAX];
		error("cannot set up bundle '%s': %s", out, WRITE_WHY(a, why));
		archive_write_free(a);
		return NULL;
	}
	return a;
}

/*
 * Writes every entry of l into a temporary file's fd and closes the writer;
 * stops as soon as stop() says. 0 or -1.
 */
static int pack_into(int fd, int zst, const char *dir, struct pack_list *l, const char *out,
		     int (*stop)(void))
{
	struct packer p = { .sink = { .fd = fd }, .out = out, .stop = stop };
	int ret = -1;

	p.a = pack_writer(&p.sink, zst, out);
	if (!p.a)
		return -1;
	p.buf = xmalloc(CHUNK);
	if (pack_entries(&p, dir, l) < 0)
		goto out;
	int rc = archive_write_close(p.a);
	if (sink_failed(&p) < 0)
		goto out;
	if (rc != ARCHIVE_OK) {
		char why[WHY_MAX];
		error("cannot finish bundle '%s': %s", out, WRITE_WHY(p.a, why));
		goto out;
	}
	ret = 0;
out:
	if (archive_write_free(p.a) != ARCHIVE_OK && ret == 0)
		ret = error("cannot finish bundle '%s'", out);
	free(p.buf);
	return ret;
}

/* Checks dir and out before anything is written; *out_dir gets out's directory. */
static int pack_check(const char *dir, const char *out, char **out_dir)
{
	struct stat st;
	const char *slash;

	*out_dir = NULL;
	if (bundle_check_target(out) < 0)
		return -1;
	if (stat(dir, &st) < 0)
		return error("cannot pack '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return error("cannot pack '%s': not a directory", dir);
	slash = strrchr(out, '/');
	*out_dir = slash ? xstrndup(out, (size_t)(slash - out) + (slash == out)) : xstrdup(".");
	if (out_inside_dir(dir, *out_dir))
		return error("cannot write bundle '%s' inside the directory it packs", out);
	return 0;
}

/* Makes the finished temporary file the bundle, durably; closes *fd. 0 or -1. */
static int pack_publish(int *fd, const char *tmp, const char *out, const char *out_dir)
{
	int dfd, failed = fsync(*fd) < 0;

	failed |= close(*fd) < 0;
	*fd = -1;
	if (failed)
		return error("cannot write bundle '%s': %s", out, strerror(errno));
	/*
	 * link() rather than rename(): it fails when out appeared meanwhile, so
	 * a bundle is never replaced (the O_EXCL promise of the contract).
	 */
	if (link(tmp, out) < 0)
		return error("cannot write bundle '%s': %s", out, strerror(errno));
	dfd = open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
}

/*
 * The temporary file's name is OUT.tmp-PID-XXXXXX, so that a pack killed
 * outright (SIGKILL, a power cut: nothing runs to remove its file) leaves
 * a name that says whose it was. The next pack to the same OUT removes
 * such files whose process is gone; one whose pid is alive (another pack
 * under way, or a reused pid) is left alone. A named temporary file
 * rather than O_TMPFILE: it works on every filesystem, and the pid in its
 * name is what makes a leftover safe to remove.
 */
#define TMP_INFIX ".tmp-"
/* Directory entries looked at for leftovers: bounded, even in a huge directory. */
#define STALE_SCAN_MAX 100000

/* The pid in name, if name is base + TMP_INFIX + PID + "-XXXXXX"; else 0. */
static long tmp_owner(const char *name, const char *base)
{
	size_t n = strlen(base), k = strlen(TMP_INFIX);
	const char *p;
	long pid = 0;

	if (strncmp(name, base, n) || strncmp(name + n, TMP_INFIX, k))
		return 0;
	for (p = name + n + k; *p >= '0' && *p <= '9' && pid < 10000000; p++)
		pid = pid * 10 + (*p - '0');
	return p > name + n + k && *p == '-' && strlen(p + 1) == 6 ? pid : 0;
}

static void remove_stale_tmps(const char *out_dir, const char *out)
{
	const char *slash = strrchr(out, '/');
	const char *base = slash ? slash + 1 : out;
	DIR *d = opendir(out_dir);
	struct dirent *de;
	size_t seen = 0;

	if (!d)
		return;
	while ((de = readdir(d)) && seen++ < STALE_SCAN_MAX) {
		long pid = tmp_owner(de->d_name, base);
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			warning("removed '%s/%s', left by an abev pack (pid %ld) that was killed",
				out_dir, de->d_name, pid);
	}
	closedir(d);
}

int bundle_pack(const char *dir, const char *out)
{
	return bundle_pack_until(dir, out, NULL);
}

int bundle_pack_until(const char *dir, const char *out, int (*stop)(void))
{
	struct pack_list l = { NULL, 0, 0, 0 };
	char *tmp = NULL, *out_dir = NULL;
	int fd = -1, ret = -1;

	if (pack_check(dir, out, &out_dir) < 0 || pack_walk(dir, &l) < 0)
		goto out;
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), item_cmp);
	remove_stale_tmps(out_dir, out);
	tmp = xasprintf("%s" TMP_INFIX "%ld-XXXXXX", out, (long)getpid());
	fd = mkstemp(tmp);
	if (fd < 0) {
		error("cannot create a temporary file next to '%s': %s", out, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (fchmod(fd, 0644) < 0) {
		error("cannot set the mode of '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (pack_into(fd, has_suffix(out, ".tar.zst"), dir, &l, out, stop) < 0 ||
	    pack_stopped(stop) ||
	    pack_publish(&fd, tmp, out, out_dir) < 0)
		goto out;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(out_dir);
	pack_list_release(&l);
	return ret;
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
		if (has_suffix(path, ext[i]))
			return 1;
	return 0;
}
/*
 * How a bundle is read: libarchive reads the file, through its one zstd or
 * gzip filter, as one raw stream (raw); the tar reader (a) reads that
 * stream through tar_feed(). Two readers rather than one, so that once
 * the tar reader has stopped at its end-of-archive marker, the rest of
 * the decompressed stream can still be read — and must be zeros: GNU
 * tar's -i (--ignore-zeros), or a second tar archive appended, would
 * otherwise find entries there that nobody signed. tar_feed() hands on
 * raw's own buffers (no copy) and keeps a copy of the last TAIL_MAX bytes
 * it handed on before its current block: the tar reader reads ahead at
 * most a 512-byte header across a block boundary, so what it looked at
 * but did not consume is in that block and in those bytes.
 */
#define TAIL_MAX 4096
/* The most zero bytes accepted after the tar's end blocks: record padding (tar -b 2048: 1 MiB). */
#define TRAILER_MAX_BYTES (64u << 20)

/* The state of one bundle_read(). */
struct reader {
	struct archive *raw;
	struct archive *a;
	const char *path;
	struct strbuf name;
	struct strbuf other;
	struct strbuf meta;             /* the entry's unsafe_meta */
	char *err;
	int raw_failed;                 /* the last failure was raw's */
	int acl_unparsed;               /* the header's warning was about an ACL record */
	int gzip;                       /* the stream is gzip: crc is kept */
	uint32_t crc;                   /* CRC-32 of the decompressed stream so far */
	uint64_t out;                   /* its bytes so far, all of them */
	uint64_t handed;                /* decompressed bytes handed to the tar reader */
	const unsigned char *cur;       /* the last block handed (raw's buffer, still valid) */
	size_t cur_len;
	unsigned char tail[TAIL_MAX];   /* the last tail_len bytes handed before it */
	size_t tail_len;
};

static int read_fail(struct reader *r, const char *what)
{
	struct archive *src = r->raw_failed ? r->raw : r->a;
	const char *msg = archive_error_string(src);
	int err = archive_errno(src);

	free(r->err);
	if (!msg || !*msg)
		/* zlib and libzstd failures (a cut gzip trailer) arrive without a message. */
		r->err = xasprintf("'%s' is a truncated or corrupt bundle: its compressed stream "
				   "ends early or fails its checksum (while %s%s%s)", r->path, what,
				   err > 0 ? ": " : "", err > 0 ? strerror(err) : "");
	/* libarchive says "Truncated tar archive", "Truncated zstd input", ... */
	else if (strstr(msg, "runcated") || strstr(msg, "premature end"))
		r->err = xasprintf("'%s' is a truncated bundle (%s while %s)", r->path, msg, what);
	else if (strstr(msg, "Unrecognized archive format"))
		r->err = xasprintf("'%s' is not a bundle: the compressed stream holds no tar "
				   "archive (it may be cut short)", r->path);
	else
		r->err = xasprintf("'%s' is a corrupt bundle (%s while %s)", r->path, msg, what);
	return -1;
}

/*
 * Modes that extracting as root would make dangerous: setuid and setgid
 * (a program that runs as its owner or group), sticky, and world-writable
 * (anyone may change or plant files). Group-writable and executable
 * entries are left to the owner's umask: stock tar carries them.
 */
static const char *mode_problem(mode_t perm)
{
	if (perm & S_ISUID)
		return "setuid";
	if (perm & S_ISGID)
		return "setgid";
	if (perm & S_ISVTX)
		return "sticky";
	if (perm & S_IWOTH)
		return "world-writable";
	return NULL;
}

/*
 * What an entry carries besides its mode that extracting it applies:
 * bsdtar -x as root restores all of it, GNU tar with --xattrs, --acls or
 * --selinux. Extended attributes (pax SCHILY.xattr.*, LIBARCHIVE.xattr.*,
 * RHT.security.selinux) can give a file a capability
 * (security.capability) or a security label; ACLs (SCHILY.acl.*, a
 * Solaris 'A' header) can grant what the mode does not; file flags
 * (SCHILY.fflags) can make a file immutable. abev pack writes none of
 * them, and a bundle may hold none. An ACL that only restates the mode
 * (user::, group::, other::) is the mode, and judged as one. Appends to
 * sb "carries ..." naming what the entry carries, or nothing.
 */
#define META_NAME_MAX 80
static void meta_problem(struct archive_entry *ae, int acl_unparsed, struct strbuf *sb)
{
	static const struct { int types; const char *what; } acls[] = {
		{ ARCHIVE_ENTRY_ACL_TYPE_ACCESS, "an access ACL" },
		{ ARCHIVE_ENTRY_ACL_TYPE_DEFAULT, "a default ACL" },
		{ ARCHIVE_ENTRY_ACL_TYPE_NFS4, "an NFSv4 ACL" },
	};
	int nx = archive_entry_xattr_reset(ae), acl = archive_entry_acl_types(ae);
	unsigned long set = 0, clear = 0;
	const char *flags = archive_entry_fflags_text(ae), *xname = NULL;
	char shown[META_NAME_MAX];
	const void *value;
	size_t size;

	archive_entry_fflags(ae, &set, &clear);
	if (nx > 0 && archive_entry_xattr_next(ae, &xname, &value, &size) == ARCHIVE_OK && xname) {
		strbuf_addf(sb, "carries an extended attribute '%s'",
			    show_str(shown, sizeof(shown), xname));
		if (nx > 1)
			strbuf_addf(sb, " and %d more", nx - 1);
	}
	for (size_t i = 0; i < ARRAY_SIZE(acls); i++)
		if (acl & acls[i].types)
			strbuf_addf(sb, "%s%s", sb->len ? ", " : "carries ", acls[i].what);
	if (acl_unparsed && !acl)
		strbuf_addf(sb, "%san ACL record libarchive cannot parse", sb->len ? ", " : "carries ");
	if (set || clear || (flags && *flags))
		strbuf_addf(sb, "%sfile flags '%s'", sb->len ? ", " : "carries ",
			    flags ? show_str(shown, sizeof(shown), flags) : "");
}

/* Fills e from the header libarchive just read. */
static void classify(struct reader *r, struct archive_entry *ae, struct bundle_entry *e)
{
	const char *p = archive_entry_pathname(ae);
	mode_t type = archive_entry_filetype(ae);
	mode_t perm = archive_entry_perm(ae);
	const char *why, *bad_mode;

	strbuf_reset(&r->name);
	strbuf_reset(&r->other);
	strbuf_reset(&r->meta);
	if (!p)
		p = archive_entry_pathname_utf8(ae);
	if (p) {
		/* Stock tar writes "./name" for `tar -C DIR -czf FILE .`. */
		if (p[0] == '.' && p[1] == '/')
			p += 2;
		strbuf_adds(&r->name, p);
	}
	if (type == AE_IFDIR && r->name.len > 1 && r->name.buf[r->name.len - 1] == '/')
		r->name.buf[--r->name.len] = '\0';

	e->name = r->name.buf;
	/* The root directory ("./", "."): the bundle itself, whatever its metadata. */
	e->is_root = type == AE_IFDIR && (r->name.len == 0 || !strcmp(r->name.buf, "."));
	e->size = archive_entry_size_is_set(ae) && archive_entry_size(ae) > 0
			  ? (uint64_t)archive_entry_size(ae) : 0;
	e->other = NULL;
	if (archive_entry_hardlink(ae)) {
		e->type = BUNDLE_OTHER;
		e->other = "hardlink";
	} else if (type == AE_IFREG) {
		e->type = archive_entry_sparse_count(ae) > 0 ? BUNDLE_OTHER : BUNDLE_FILE;
		if (e->type == BUNDLE_OTHER)
			e->other = "sparse file";
	} else if (type == AE_IFDIR) {
		e->type = BUNDLE_DIR;
	} else {
		e->type = BUNDLE_OTHER;
		e->other = type == AE_IFLNK ? "symlink" :
			   type == AE_IFCHR || type == AE_IFBLK ? "device" :
			   type == AE_IFIFO ? "FIFO" :
			   type == AE_IFSOCK ? "socket" : "special file";
	}
	/* A name problem outranks the type: the caller must see the name is unsafe. */
	why = !p ? "not readable" : r->name.len > MAX_NAME ? "too long" :
	      evname_problem(r->name.buf);
	e->unsafe_mode = NULL;
	e->unsafe_meta = NULL;
	if (why && !e->is_root) {
		strbuf_addf(&r->other, "unsafe name: %s", why);
		e->type = BUNDLE_OTHER;
		e->other = r->other.buf;
		return;
	}
	/*
	 * A dangerous mode or metadata is named even on the root entry: `tar
	 * -x` as root gives the directory it extracts into the root entry's
	 * mode, and bsdtar its attributes. (Other kinds are refused whatever
	 * they carry; a symlink's mode is always 0777.)
	 */
	if (e->type == BUNDLE_OTHER)
		return;
	bad_mode = mode_problem(perm);
	if (bad_mode) {
		strbuf_addf(&r->other, "unsafe mode %04o (%s)", (unsigned)perm, bad_mode);
		e->unsafe_mode = r->other.buf;
	}
	meta_problem(ae, r->acl_unparsed, &r->meta);
	if (r->meta.len)
		e->unsafe_meta = r->meta.buf;
	if ((e->unsafe_mode || e->unsafe_meta) && !r->name.len) {
		strbuf_adds(&r->name, ".");
		e->name = r->name.buf;
	}
}

/*
 * Why the regular file at path cannot be a bundle, judged from its size
 * and first bytes; NULL when it starts as a zstd or gzip stream does.
 * Caller frees.
 */
static char *not_a_bundle(const char *path)
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

/* Appends the last bytes of buf[0..len) to r->tail, which keeps the last TAIL_MAX. */
static void tail_keep(struct reader *r, const unsigned char *buf, size_t len)
{
	if (!len)
		return;
	if (len >= TAIL_MAX) {
		memcpy(r->tail, buf + len - TAIL_MAX, TAIL_MAX);
		r->tail_len = TAIL_MAX;
	} else {
		size_t keep = r->tail_len < TAIL_MAX - len ? r->tail_len : TAIL_MAX - len;
		memmove(r->tail, r->tail + r->tail_len - keep, keep);
		memcpy(r->tail + keep, buf, len);
		r->tail_len = keep + len;
	}
}

/* Every block of the decompressed stream passes here once, in order. */
static void stream_seen(struct reader *r, const void *buf, size_t len)
{
	if (r->gzip)
		r->crc = (uint32_t)crc32_z(r->crc, buf, len);
	r->out += len;
}

/* What the tar reader reads: raw's next block, handed on as it is. */
static la_ssize_t tar_feed(struct archive *a, void *ctx, const void **out)
{
	struct reader *r = ctx;
	const void *buf;
	size_t len;
	la_int64_t off;
	int rc = archive_read_data_block(r->raw, &buf, &len, &off);

	(void)a;
	/* raw's previous block is gone from now on: keep its end. */
	tail_keep(r, r->cur, r->cur_len);
	r->cur = NULL;
	r->cur_len = 0;
	if (rc == ARCHIVE_EOF || (rc == ARCHIVE_OK && len == 0))
		return 0;
	if (rc != ARCHIVE_OK) {
		r->raw_failed = 1;
		return ARCHIVE_FATAL;
	}
	stream_seen(r, buf, len);
	r->cur = buf;
	r->cur_len = len;
	r->handed += len;
	*out = buf;
	return (la_ssize_t)len;
}

/* One filter of ours over the stream, nothing stacked or missing. 0 or -1. */
static int read_check_filter(struct reader *r, const char *path)
{
	int code = archive_filter_code(r->raw, 0);

	r->gzip = code == ARCHIVE_FILTER_GZIP;
	if (archive_filter_count(r->raw) == 2 &&
	    (code == ARCHIVE_FILTER_ZSTD || code == ARCHIVE_FILTER_GZIP))
		return 0;
	if (archive_filter_count(r->raw) < 2)
		/* The magic said zstd or gzip, but too little follows for libarchive to take it. */
		r->err = xasprintf("'%s' is not a bundle: the compressed stream holds no tar "
				   "archive (it may be cut short)", path);
	else
		r->err = xasprintf("'%s' is not a bundle (expected one zstd or gzip layer over "
				   "tar, found '%s')", path, archive_filter_name(r->raw, 0));
	return -1;
}

/* Opens path, a zstd or gzip stream, as a tar under it. 0, or -1 with r->err set. */
static int read_open(struct reader *r, const char *path)
{
	struct archive_entry *ae;
	char why[WHY_MAX];

	r->raw = archive_read_new();
	r->a = archive_read_new();
	if (!r->raw || !r->a)
		die_oom();
	if (archive_read_support_format_raw(r->raw) != ARCHIVE_OK ||
	    archive_read_support_filter_zstd(r->raw) != ARCHIVE_OK ||
	    archive_read_support_filter_gzip(r->raw) != ARCHIVE_OK) {
		r->err = xasprintf("cannot read '%s': %s", path, READ_WHY(r->raw, why));
		return -1;
	}
	if (archive_read_support_format_tar(r->a) != ARCHIVE_OK) {
		r->err = xasprintf("cannot read '%s': %s", path, READ_WHY(r->a, why));
		return -1;
	}
	r->raw_failed = 1;
	if (archive_read_open_filename(r->raw, path, CHUNK) != ARCHIVE_OK ||
	    archive_read_next_header(r->raw, &ae) != ARCHIVE_OK)
		return read_fail(r, "opening it");
	r->raw_failed = 0;
	if (read_check_filter(r, path) < 0)
		return -1;
	if (archive_read_open(r->a, r, NULL, tar_feed, NULL) != ARCHIVE_OK)
		return read_fail(r, "opening it");
	return 0;
}

/*
 * Streams one file entry's data to data(): counts the bytes that really
 * arrive rather than trusting the header's size field. 0 or -1.
 */
static int read_entry_data(struct reader *r, char *buf, uint64_t *total,
			   void (*data)(void *ctx, const void *buf, size_t len), void *ctx)
{
	uint64_t got = 0;

	for (;;) {
		la_ssize_t n = archive_read_data(r->a, buf, CHUNK);
		if (n == 0)
			break;
		if (n < 0)
			return read_fail(r, "reading entry data");
		got += (uint64_t)n;
		*total += (uint64_t)n;
		if (got > BUNDLE_MAX_ENTRY_BYTES || *total > BUNDLE_MAX_TOTAL_BYTES) {
			r->err = xasprintf("'%s': entry '%s' goes over the size cap of a bundle",
					   r->path, r->name.buf);
			return -1;
		}
		data(ctx, buf, (size_t)n);
	}
	data(ctx, NULL, 0);
	return 0;
}

/* The next header: 1 read, 0 at the end, -1 on an error (r->err set). */
static int read_header(struct reader *r, struct archive_entry **ae)
{
	int rc = archive_read_next_header(r->a, ae);
	const char *msg = rc == ARCHIVE_OK || rc == ARCHIVE_WARN ? archive_error_string(r->a)
								 : NULL;

	/*
	 * An ACL record libarchive cannot parse leaves only a message, even
	 * with ARCHIVE_OK ("Parse error: SCHILY.acl.access", "Malformed
	 * Solaris ACL attribute"); another extractor may read it all the
	 * same. The message is cleared at every header.
	 */
	r->acl_unparsed = msg && (strstr(msg, "acl.") || strstr(msg, "ACL"));
	if (rc == ARCHIVE_EOF)
		return 0;
	/*
	 * ARCHIVE_WARN is a header libarchive could read but not fully
	 * convert (a name in another charset, an odd pax attribute); the
	 * name checks judge the result. Anything worse is fatal.
	 */
	if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
		return read_fail(r, "reading an entry header");
	return 1;
}

/* Closes and frees both readers; a failure there fails a read that went well. */
static int read_close(struct reader *r, const char *path, int ret)
{
	struct archive *both[2] = { r->a, r->raw };

	for (size_t i = 0; i < ARRAY_SIZE(both); i++) {
		if (!both[i])
			continue;
		r->raw_failed = both[i] == r->raw;
		if (archive_read_close(both[i]) != ARCHIVE_OK && ret == 0) {
			read_fail(r, "closing");
			ret = -1;
		}
		if (archive_read_free(both[i]) != ARCHIVE_OK && ret == 0) {
			free(r->err);
			r->err = xasprintf("cannot read bundle '%s'", path);
			ret = -1;
		}
	}
	r->a = r->raw = NULL;
	return ret;
}

/* How many of p[0..n) are zeros before the first other byte (n when all are). */
static size_t zeros_at(const unsigned char *p, size_t n)
{
	size_t i = 0;

	if (n && p[0] == 0 && !memcmp(p, p + 1, n - 1))
		return n;
	while (i < n && p[i] == 0)
		i++;
	return i;
}

/*
 * Once the tar reader has read its end-of-archive marker: the rest of the
 * decompressed stream, which must be zeros (record padding), at most
 * TRAILER_MAX_BYTES of them. 0, or -1 with r->err.
 */
static int read_after_tar(struct reader *r, const char *path)
{
	la_int64_t consumed = archive_filter_bytes(r->a, 0);
	uint64_t at, seen;
	const void *buf;
	size_t len;
	la_int64_t off;
	uint64_t cur_start = r->handed - r->cur_len;
	int rc;

	if (consumed < 0 || (uint64_t)consumed > r->handed ||
	    (uint64_t)consumed + r->tail_len < cur_start) {
		r->err = xasprintf("'%s': cannot check what follows its tar end-of-archive marker",
				   path);
		return -1;
	}
	at = (uint64_t)consumed;
	if (at < cur_start) {
		size_t n = (size_t)(cur_start - at);
		size_t z = zeros_at(r->tail + r->tail_len - n, n);
		if (z < n) {
			at += z;
			goto data;
		}
		at = cur_start;
	}
	if (r->cur_len) {
		size_t n = (size_t)(r->handed - at);
		size_t z = zeros_at(r->cur + (at - cur_start), n);
		at += z;
		if (z < n)
			goto data;
	}
	seen = at - (uint64_t)consumed;
	while ((rc = archive_read_data_block(r->raw, &buf, &len, &off)) == ARCHIVE_OK && len) {
		size_t z = zeros_at(buf, len);
		stream_seen(r, buf, len);
		at += z;
		if (z < len)
			goto data;
		seen += len;
		if (seen > TRAILER_MAX_BYTES) {
			r->err = xasprintf("'%s' is a corrupt bundle: more than %u MiB after the end "
					   "of its tar archive", path, TRAILER_MAX_BYTES >> 20);
			return -1;
		}
	}
	if (rc != ARCHIVE_OK && rc != ARCHIVE_EOF) {
		r->raw_failed = 1;
		return read_fail(r, "reading to its end");
	}
	return 0;
data:
	r->err = xasprintf("'%s' is a corrupt bundle: data after the tar end-of-archive marker "
			   "(at byte %llu of the tar stream), which nobody signed; 'tar -i' would "
			   "extract it", path, (unsigned long long)at);
	return -1;
}

/*
 * framing_scan() of one bundle. A gzip member can be walked only symbol by
 * symbol (framing.c), which costs about a third of inflating it; so for
 * gzip the walk runs on a thread of its own beside the reading, and on two
 * cores adds little to the wall time. A zstd frame is walked by its block
 * headers in a moment, before anything is decompressed.
 */
struct framing_job {
	int fd;
	uint64_t size;
	int threaded;           /* running on tid */
	pthread_t tid;
	int ret;                /* framing_scan()'s */
	struct framing f;
	char *why;
};
#define FRAMING_JOB_INIT { .fd = -1 }

static void *framing_worker(void *arg)
{
	struct framing_job *j = arg;

	j->ret = framing_scan(j->fd, j->size, &j->f, &j->why);
	return NULL;
}

/* Starts the scan of path, a zstd or gzip stream. 0, or -1 with r->err. */
static int framing_start(struct reader *r, const char *path, struct framing_job *j)
{
	struct stat st;
	unsigned char m = 0;

	j->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (j->fd < 0 || fstat(j->fd, &st) < 0 || pread(j->fd, &m, 1, 0) != 1) {
		r->err = xasprintf("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		r->err = xasprintf("'%s' is not a bundle: not a regular file", path);
		return -1;
	}
	j->size = (uint64_t)st.st_size;
	if (m == 0x1f && pthread_create(&j->tid, NULL, framing_worker, j) == 0)
		j->threaded = 1;
	else
		framing_worker(j);
	return 0;
}

/* The scan's word, once it has finished: what follows the stream, which outranks any other. */
static const char *framing_found(struct framing_job *j)
{
	return !j->threaded && j->ret == 0 && j->f.end < j->size ? "found" : NULL;
}

/*
 * libarchive 3.6 reads past a gzip member's trailer without a look; the
 * content's CRC-32 and size, kept as it was decompressed, are checked
 * against it here, as gzip -t does. Once the reading went well, every
 * byte of the one member has been through stream_seen(). NULL when they
 * match, else the problem (caller frees).
 */
static char *gzip_trailer_problem(const struct reader *r, const char *path,
				  const struct framing *f)
{
	if (f->crc != r->crc)
		return xasprintf("'%s' is a corrupt bundle: its gzip trailer gives the CRC-32 "
				 "%08" PRIx32 ", its content has %08" PRIx32, path, f->crc, r->crc);
	if (f->isize != (uint32_t)r->out)
		return xasprintf("'%s' is a corrupt bundle: its gzip trailer gives the size "
				 "%" PRIu32 " (modulo 4 GiB), its content has %llu bytes", path,
				 f->isize, (unsigned long long)r->out);
	return NULL;
}

/*
 * Waits for the scan and ends it. Anything after the first zstd frame or
 * gzip member replaces whatever else went wrong (or right): it is the
 * finding. A scan that failed (a cut or malformed stream) counts only
 * when the reading went well: the decompressor names such a stream
 * better. Returns ret, or -1 with r->err.
 */
static int framing_finish(struct reader *r, const char *path, struct framing_job *j, int ret)
{
	char *msg = NULL;

	if (j->threaded)
		pthread_join(j->tid, NULL);
	j->threaded = 0;
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	if (j->ret < 0 && ret == 0)
		msg = xasprintf("'%s' is a corrupt bundle: %s", path, j->why);
	else if (j->ret == 0 && j->f.end < j->size && j->f.after)
		msg = xasprintf("'%s' is a corrupt bundle: %s after the end of the archive (at "
				"byte %llu of %llu), which nobody signed", path, j->f.after,
				(unsigned long long)j->f.end, (unsigned long long)j->size);
	else if (j->ret == 0 && j->f.end < j->size)
		msg = xasprintf("'%s' is a corrupt bundle: %llu bytes after the end of its "
				"compressed stream, which nobody signed", path,
				(unsigned long long)(j->size - j->f.end));
	else if (ret == 0 && j->ret == 0 && j->f.gzip)
		msg = gzip_trailer_problem(r, path, &j->f);
	free(j->why);
	j->why = NULL;
	if (!msg)
		return ret;
	free(r->err);
	r->err = msg;
	return -1;
}

int bundle_read(const char *path, void (*entry)(void *ctx, const struct bundle_entry *e),
		void (*data)(void *ctx, const void *buf, size_t len), void *ctx, char **err)
{
	struct reader *r = xcalloc(1, sizeof(*r));
	struct framing_job job = FRAMING_JOB_INIT;
	char *buf = NULL;
	uint64_t nentries = 0, total = 0;
	int ret = -1, more;

	*err = NULL;
	r->path = path;
	strbuf_init(&r->name);
	strbuf_init(&r->other);
	strbuf_init(&r->meta);
	r->crc = (uint32_t)crc32_z(0, NULL, 0);
	r->err = not_a_bundle(path);
	if (r->err || framing_start(r, path, &job) < 0 || framing_found(&job) ||
	    read_open(r, path) < 0)
		goto out;
	buf = xmalloc(CHUNK);
	for (;;) {
		struct archive_entry *ae;
		struct bundle_entry e;

		more = read_header(r, &ae);
		if (more <= 0) {
			if (more < 0)
				goto out;
			break;
		}
		if (++nentries > bundle_max_entries) {
			r->err = xasprintf("'%s' has more than %zu entries; refusing to read on",
					   path, bundle_max_entries);
			goto out;
		}
		classify(r, ae, &e);
		if (e.is_root && !e.unsafe_mode && !e.unsafe_meta)
			continue;
		/* The declared size bounds the work even for an entry whose data is skipped. */
		if (e.size > BUNDLE_MAX_ENTRY_BYTES || e.size > BUNDLE_MAX_TOTAL_BYTES - total) {
			r->err = xasprintf("'%s': entry '%s' is larger than a bundle may hold (%llu "
					   "bytes)", path, e.name, (unsigned long long)e.size);
			goto out;
		}
		entry(ctx, &e);
		if (e.type != BUNDLE_FILE)
			total += e.size;
		else if (read_entry_data(r, buf, &total, data, ctx) < 0)
			goto out;
	}
	if (read_after_tar(r, path) < 0)
		goto out;
	ret = 0;
out:
	ret = read_close(r, path, ret);
	ret = framing_finish(r, path, &job, ret);
	free(buf);
	strbuf_release(&r->name);
	strbuf_release(&r->other);
	strbuf_release(&r->meta);
	if (ret < 0)
		*err = r->err ? r->err : xasprintf("cannot read bundle '%s'", path);
	else
		free(r->err);
	free(r);
	return ret;
}
