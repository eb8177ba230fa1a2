/*
 * pack: writes an evidence directory as one .tar.zst / .tar.gz through
 * libarchive, deterministically, into a temporary file beside the bundle
 * that becomes the bundle only once it is whole. It does not know what
 * evidence means: seal.c decides which names are safe (evname_problem()).
 * Reading a bundle back is read.c's. The file is made durable while it
 * is written, by a thread of its own, so that publishing it costs little
 * more than the last write.
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
#include "bundle/bundle_parts.h"
#include "util/tree.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/evname.h"
#include "util/alloc.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* The size of the writes of a bundle to its file. */
#define WRITE_BLOCK (1024 * 1024)
/* Deeper trees than this are not evidence; the bound keeps recursion finite. */
#define MAX_DEPTH 64

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
 * The bundle made durable while it is written. Publishing it takes an
 * fsync(), and on a disk with a write cache (any virtual disk) that costs
 * in proportion to the bytes written since the last one: 60-110 ms for a
 * bundle of 50 MB here even when its pages had already been written
 * back, most of a pack's wait after the last byte. A thread of its own
 * calls fdatasync() each time WRITEBACK_STEP more bytes are in the file,
 * while the rest is still being compressed, so that the last fsync()
 * finds at most a step to flush (4 ms). The packer never waits for the
 * disk, only for the thread at the end. Durability still rests on that
 * last fsync(); a failure of the thread's is kept and fails the pack,
 * since the kernel reports a write error to one sync of a file
 * description only.
 */
#define WRITEBACK_STEP (4u << 20)

struct writeback {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;
	int fd;
	int running;           /* the thread was started */
	int done;              /* under lock: no more is coming */
	int err;               /* under lock: the errno of a failed fdatasync(), or 0 */
	uint64_t written;      /* under lock: bytes written to fd so far */
};

static void *writeback_run(void *arg)
{
	struct writeback *w = arg;
	uint64_t synced = 0;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		uint64_t upto;
		int r;

		while (!w->done && w->written - synced < WRITEBACK_STEP)
			pthread_cond_wait(&w->more, &w->lock);
		if (w->done)
			break;
		upto = w->written;
		pthread_mutex_unlock(&w->lock);
		do
			r = fdatasync(w->fd);
		while (r < 0 && errno == EINTR);
		pthread_mutex_lock(&w->lock);
		if (r < 0) {
			w->err = errno;
			break;
		}
		synced = upto;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/*
 * Starts the thread with every signal blocked, so that abev's signals
 * reach the packer as before. Without it (no thread could be started)
 * the last fsync() only has more to do.
 */
static void writeback_start(struct writeback *w, int fd)
{
	sigset_t all, old;

	w->fd = fd;
	w->running = w->done = w->err = 0;
	w->written = 0;
	if (pthread_mutex_init(&w->lock, NULL) != 0)
		return;
	if (pthread_cond_init(&w->more, NULL) != 0) {
		pthread_mutex_destroy(&w->lock);
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	w->running = pthread_create(&w->thread, NULL, writeback_run, w) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!w->running) {
		pthread_cond_destroy(&w->more);
		pthread_mutex_destroy(&w->lock);
	}
}

/* n more bytes are in the file. */
static void writeback_add(struct writeback *w, size_t n)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	w->written += n;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Ends the thread (after the fdatasync() under way, if any). Returns 0,
 * or the errno of a failed fdatasync(). Safe when not started, and twice.
 */
static int writeback_stop(struct writeback *w)
{
	int err;

	if (!w->running)
		return w->err;
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	err = w->err;
	pthread_cond_destroy(&w->more);
	pthread_mutex_destroy(&w->lock);
	w->running = 0;
	return err;
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
	struct writeback wb;
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
	if (!s->err)
		writeback_add(&s->wb, len);
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
			      bundle_archive_why(a, "short write", why));
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

	if (!bundle_has_suffix(out, ".tar.zst") && !bundle_has_suffix(out, ".tar.gz"))
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
	int ret = -1, err;

	writeback_start(&p.sink.wb, fd);
	p.a = pack_writer(&p.sink, zst, out);
	if (!p.a) {
		writeback_stop(&p.sink.wb);
		return -1;
	}
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
	/*
	 * Stopped or failed: the sink takes no more, so freeing the writer
	 * compresses at most one block of what is buffered. (archive_write_fail()
	 * would skip even that, but libarchive 3.6 then leaks the filters' state.)
	 */
	if (ret < 0 && !p.sink.err)
		p.sink.err = ECANCELED;
	if (archive_write_free(p.a) != ARCHIVE_OK && ret == 0)
		ret = error("cannot finish bundle '%s'", out);
	err = writeback_stop(&p.sink.wb);
	if (err && ret == 0)
		ret = error("cannot write bundle '%s': %s", out, strerror(err));
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
	if (pack_into(fd, bundle_has_suffix(out, ".tar.zst"), dir, &l, out, stop) < 0 ||
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
