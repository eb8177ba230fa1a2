/*
 * read: streams a bundle back through libarchive, entry by entry, without
 * extracting anything, and refuses what is not exactly one tar archive
 * under one zstd or gzip stream: entries of other kinds, unsafe names,
 * modes or metadata are handed on marked so, and nothing may follow the
 * archive (framing.c finds where the compressed stream ends). It does not
 * know what evidence means: verify.c decides what a name or a missing file
 * says about it. Writing a bundle is pack.c's.
 */
#include "bundle/bundle_parts.h"
#include "bundle/framing.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
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
#include "util/strbuf.h"

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
	r->err = bundle_not_a_bundle(path);
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
