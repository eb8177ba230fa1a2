/*
 * util: allocation, error reporting, strbuf, bounded file I/O and clocks.
 * Everything here is policy-free: no module-specific knowledge, no exits
 * except on memory exhaustion (which abev treats as unrecoverable).
 */
#include "util/util.h"

#include "util/dirat.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

char strbuf_empty[1];

void die_oom(void)
{
	static const char msg[] = "abev: fatal: out of memory\n";
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die_oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom();
	return q;
}

/* The bytes of a mapping that holds n elements of elem_size: whole pages. */
static size_t unforked_bytes(size_t n, size_t elem_size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (elem_size && n > (SIZE_MAX - page) / elem_size)
		die_oom();
	return (n * elem_size + page - 1) / page * page;
}

void *unforked_grow(void *p, size_t elem_size, size_t nr, size_t *alloc)
{
	size_t want = *alloc ? *alloc : 256, old = unforked_bytes(*alloc, elem_size);
	void *q;

	if (nr <= *alloc)
		return p;
	while (want < nr) {
		if (want > SIZE_MAX / 2)
			die_oom();
		want *= 2;
	}
	if (p)
		q = mremap(p, old, unforked_bytes(want, elem_size), MREMAP_MAYMOVE);
	else
		q = mmap(NULL, unforked_bytes(want, elem_size), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		die_oom();
	(void)madvise(q, unforked_bytes(want, elem_size), MADV_DONTFORK);
	*alloc = want;
	return q;
}

void unforked_free(void *p, size_t alloc, size_t elem_size)
{
	if (p)
		munmap(p, unforked_bytes(alloc, elem_size));
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void *alloc_grow(void *p, size_t elem_size, size_t nr, size_t *alloc)
{
	size_t cap = *alloc;

	if (nr <= cap)
		return p;
	cap = cap ? cap : 16;
	while (cap < nr) {
		if (cap > SIZE_MAX / 2)
			die_oom();
		cap *= 2;
	}
	if (elem_size && cap > SIZE_MAX / elem_size)
		die_oom();
	*alloc = cap;
	return xrealloc(p, cap * elem_size);
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb, NULL);
}

/*
 * splitmix64 is tiny and fully specified by its constants; a libc
 * generator would differ between platforms and break reproducibility.
 */
uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/*
 * Draws below 2^64 mod bound are rejected: what remains is a whole
 * number of copies of [0, bound), so r % bound has no bias.
 */
uint64_t rng_below(uint64_t *state, uint64_t bound)
{
	uint64_t threshold = (0 - bound) % bound;
	for (;;) {
		uint64_t r = rng_next(state);
		if (r >= threshold)
			return r % bound;
	}
}

static void default_report(const char *prefix, const char *msg)
{
	fprintf(stderr, "abev: %s: %s\n", prefix, msg);
	fflush(stderr);
}

static report_fn report_routine = default_report;

void set_error_routine(report_fn fn)
{
	report_routine = fn ? fn : default_report;
}

static void add_escaped(struct strbuf *sb, const char *s, size_t n, int keep_backslash);

/*
 * A message is one line. Names in it should have been escaped by their
 * caller (show_text() and the like); what was not, such as a path from
 * the command line in a library's error, is made safe here by the same
 * escaping, backslashes kept, so that no message can break its line, hide
 * a byte or drive the terminal.
 */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT, safe = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	add_escaped(&safe, sb.buf, sb.len, 1);
	report_routine(prefix, safe.buf);
	strbuf_release(&sb);
	strbuf_release(&safe);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning", fmt, ap);
	va_end(ap);
}

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (!sb)
		return;
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need;
	if (extra > SIZE_MAX / 2 - sb->len)
		die_oom();
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	size_t cap = sb->alloc ? sb->alloc : 64;
	while (cap < need)
		cap *= 2;
	if (!sb->alloc) {
		sb->buf = xmalloc(cap);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, cap);
	}
	sb->alloc = cap;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0) {
		/* An encoding error: keep the buffer as it was. */
		sb->buf[sb->len] = '\0';
		return;
	}
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		va_copy(cp, ap);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
		va_end(cp);
		if (n < 0) {
			sb->buf[sb->len] = '\0';
			return;
		}
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;
	if (len)
		*len = sb->len;
	if (!sb->alloc)
		p = xstrdup("");
	else
		p = sb->buf;
	strbuf_init(sb);
	return p;
}

size_t utf8_cut(const char *s, size_t len, size_t max)
{
	size_t cut = max;

	if (len <= max)
		return len;
	while (cut > 0 && max - cut < 3 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	return ((unsigned char)s[cut] & 0xc0) == 0x80 ? max : cut;
}

size_t utf8_char_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;
	unsigned cp;

	if (!n || !u[0])
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		len = 2;
		cp = u[0] & 0x1fu;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		len = 3;
		cp = u[0] & 0x0fu;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		len = 4;
		cp = u[0] & 0x07u;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (u[i] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

char *utf8_clean(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0;
	strbuf_grow(&sb, n);
	while (i < n) {
		size_t len = utf8_char_len(s + i, n - i);
		if (len) {
			strbuf_add(&sb, s + i, len);
			i += len;
		} else {
			strbuf_adds(&sb, "\xef\xbf\xbd");
			i++;
		}
	}
	return strbuf_detach(&sb, NULL);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

char *utf8_clean_trim(const char *s, size_t n)
{
	while (n && is_space(*s)) {
		s++;
		n--;
	}
	while (n && is_space(s[n - 1]))
		n--;
	return utf8_clean(s, n);
}

void strbuf_add_sh(struct strbuf *sb, const char *s)
{
	const char *p;
	for (p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-./:=+@%,", *p))
			break;
	if (!*p && *s) {
		strbuf_adds(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (p = s; *p;) {
		size_t len = utf8_char_len(p, 4);

		if (*p == '\'')
			strbuf_adds(sb, "'\\''");
		else if (!len || (unsigned char)*p < 0x20 || *p == 0x7f ||
			 unicode_hidden(utf8_code_point(p, len)))
			strbuf_addch(sb, '?');
		else
			strbuf_add(sb, p, len);
		p += len ? len : 1;
	}
	strbuf_addch(sb, '\'');
}

void strbuf_add_xml(struct strbuf *sb, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = utf8_char_len(s + i, n - i);

		if (!len) {
			strbuf_adds(sb, "\xef\xbf\xbd");
			i++;
			continue;
		}
		switch (c) {
		case '&': strbuf_adds(sb, "&amp;"); break;
		case '<': strbuf_adds(sb, "&lt;"); break;
		case '>': strbuf_adds(sb, "&gt;"); break;
		case '"': strbuf_adds(sb, "&quot;"); break;
		case '\'': strbuf_adds(sb, "&#39;"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				break;
			/* Shown as the terminal shows them, not left for a viewer to act on. */
			if (unicode_hidden(utf8_code_point(s + i, len)))
				strbuf_add_escaped(sb, s + i, len);
			/* U+FFFE and U+FFFF are not XML characters. */
			else if (len == 3 && c == 0xef && (unsigned char)s[i + 1] == 0xbf &&
			    (unsigned char)s[i + 2] >= 0xbe)
				strbuf_adds(sb, "\xef\xbf\xbd");
			else
				strbuf_add(sb, s + i, len);
		}
		i += len;
	}
}

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

/* Creates f->tmp in f->dir; f->path, name and tmp are set. 0 or -1 after error(). */
static int atomic_file_create(struct atomic_file *f)
{
	f->fd = openat(f->dir, f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW |
					     O_NOCTTY, 0644);
	if (f->fd < 0) {
		int saved = errno;
		error("cannot create a file beside '%s': %s", f->path, strerror(errno));
		free(f->tmp);
		f->tmp = NULL;
		errno = saved;
		return -1;
	}
	return 0;
}

int atomic_file_open(struct atomic_file *f, const char *path)
{
	f->dir = AT_FDCWD;
	f->path = xstrdup(path);
	f->name = xstrdup(path);
	f->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	return atomic_file_create(f);
}

int atomic_file_open_at(struct atomic_file *f, const struct dirat *d, const char *rel)
{
	const char *base;

	f->path = path_join(d->path, rel);
	f->dir = dirat_parent(d, rel, &base);
	if (f->dir < 0) {
		int saved = errno;
		f->dir = AT_FDCWD;
		error("cannot write '%s': %s", f->path,
		      saved == ELOOP || saved == ENOTDIR ? "a directory on its way is not one abev "
							    "made (a symbolic link)"
							  : strerror(saved));
		errno = saved;
		return -1;
	}
	f->name = xstrdup(base);
	f->tmp = xasprintf(".%s.tmp.%ld", base, (long)getpid());
	return atomic_file_create(f);
}

int atomic_file_write(struct atomic_file *f, const void *data, size_t len)
{
	if (write_all(f->fd, data, len) < 0) {
		int saved = errno;
		error("cannot write '%s': %s", f->path, strerror(errno));
		errno = saved;
		return -1;
	}
	return 0;
}

/* Frees what f holds, closing its directory; the temporary file is the caller's business. */
static void atomic_file_clear(struct atomic_file *f)
{
	if (f->dir >= 0)
		close(f->dir);
	f->dir = AT_FDCWD;
	free(f->tmp);
	f->tmp = NULL;
	free(f->name);
	f->name = NULL;
	free(f->path);
	f->path = NULL;
}

int atomic_file_commit(struct atomic_file *f)
{
	int fd = f->fd, saved;

	/*
	 * No fsync() here: a reader never sees a half-written file (the
	 * rename does that), and a killed abev loses nothing the page cache
	 * holds. Only a crash of the machine could, and sync_filesystem()
	 * before sealing covers that once per run instead of once per file.
	 */
	f->fd = -1;
	if (close(fd) < 0) {
		saved = errno;
		error("cannot close '%s': %s", f->path, strerror(errno));
		errno = saved;
		return -1;
	}
	if (renameat(f->dir, f->tmp, f->dir, f->name) < 0) {
		saved = errno;
		error("cannot rename a file to '%s': %s", f->path, strerror(errno));
		errno = saved;
		return -1;
	}
	atomic_file_clear(f);
	return 0;
}

void atomic_file_abort(struct atomic_file *f)
{
	/* The caller may tell a full disk or the file-size limit from other failures. */
	int saved = errno;

	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp)
		unlinkat(f->dir, f->tmp, 0);
	atomic_file_clear(f);
	errno = saved;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	struct atomic_file f = ATOMIC_FILE_INIT;

	if (atomic_file_open(&f, path) < 0 || atomic_file_write(&f, data, len) < 0 ||
	    atomic_file_commit(&f) < 0) {
		atomic_file_abort(&f);
		return -1;
	}
	return 0;
}

int sync_filesystem(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return error("cannot open '%s': %s", dir, strerror(errno));
	if (syncfs(fd) < 0)
		ret = error("cannot flush '%s' to disk: %s", dir, strerror(errno));
	close(fd);
	return ret;
}

int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void utc_format(char out[UTC_STAMP_LEN], const struct timespec *ts)
{
	struct tm tm;
	time_t t = ts->tv_sec;
	char date[24];
	unsigned micros = (unsigned)((ts->tv_nsec / 1000) % 1000000);

	if (!gmtime_r(&t, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(out, UTC_STAMP_LEN, "unknown");
		return;
	}
	snprintf(out, UTC_STAMP_LEN, "%s.%06u+00:00", date, micros);
}

int parse_int64(const char *s, int64_t *out)
{
	char *end;
	long long v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

extern char **environ;

char **env_inherit(size_t *n)
{
	size_t count = 0;
	char **env;

	for (char **e = environ; e && *e; e++)
		count++;
	env = xcalloc(count + 1, sizeof(*env));
	*n = 0;
	for (char **e = environ; e && *e; e++)
		if (strchr(*e, '='))
			env[(*n)++] = xstrdup(*e);
	env[*n] = NULL;
	return env;
}

void env_set(char ***env, size_t *n, const char *key, const char *value)
{
	size_t klen = strlen(key);
	char *entry = xasprintf("%s=%s", key, value);
	for (size_t i = 0; i < *n; i++) {
		if (!strncmp((*env)[i], key, klen) && (*env)[i][klen] == '=') {
			free((*env)[i]);
			(*env)[i] = entry;
			return;
		}
	}
	*env = xrealloc(*env, (*n + 2) * sizeof(**env));
	(*env)[(*n)++] = entry;
	(*env)[*n] = NULL;
}

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

uint32_t utf8_code_point(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp;

	if (len < 1 || len > 4)
		return 0;
	cp = u[0] & lead_mask[len];
	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (u[i] & 0x3fu);
	return cp;
}

/*
 * What a terminal, an editor or a Markdown viewer does with each range:
 * hides it, breaks the line, changes the direction of what follows (the
 * "Trojan Source" reordering) or, for C1, takes it as a control (U+009B
 * is an 8-bit CSI). The first phrase that applies names the character in
 * a message.
 */
static const struct {
	uint32_t lo, hi;
	const char *kind;
} hidden_ranges[] = {
	{ 0x0000, 0x001f, "a control character" },
	{ 0x007f, 0x007f, "a control character" },
	{ 0x0080, 0x009f, "a C1 control" },
	{ 0x200b, 0x200d, "an invisible character" },
	{ 0x200e, 0x200f, "a direction mark" },
	{ 0x2028, 0x2028, "a line separator" },
	{ 0x2029, 0x2029, "a paragraph separator" },
	{ 0x202a, 0x202e, "a bidirectional control" },
	{ 0x2060, 0x2065, "an invisible character" },
	{ 0x2066, 0x2069, "a bidirectional control" },
	{ 0x206a, 0x206f, "an invisible character" },
	{ 0xfeff, 0xfeff, "a byte order mark" },
};

/* The phrase for cp, or NULL when cp shows as itself. */
static const char *hidden_kind(uint32_t cp)
{
	for (size_t i = 0; i < ARRAY_SIZE(hidden_ranges); i++)
		if (cp >= hidden_ranges[i].lo && cp <= hidden_ranges[i].hi)
			return hidden_ranges[i].kind;
	return NULL;
}

int unicode_hidden(uint32_t cp)
{
	return cp >= 0x80 && hidden_kind(cp) != NULL;
}

size_t text_unshown(const char *s, size_t n, char desc[UNSHOWN_DESC_LEN])
{
	for (size_t i = 0; i < n;) {
		size_t len = s[i] ? utf8_char_len(s + i, n - i) : 1;
		uint32_t cp = utf8_code_point(s + i, len);
		const char *kind = len ? hidden_kind(cp) : NULL;

		if (!len) {
			snprintf(desc, UNSHOWN_DESC_LEN, "byte 0x%02x (not UTF-8)", (unsigned char)s[i]);
			return i;
		}
		if (kind) {
			snprintf(desc, UNSHOWN_DESC_LEN, "U+%04X (%s)", (unsigned)cp, kind);
			return i;
		}
		i += len;
	}
	desc[0] = '\0';
	return n;
}

/*
 * keep_backslash: a whole message, whose names were escaped already (a
 * backslash there is one of their escapes, not to be doubled).
 */
static void add_escaped(struct strbuf *sb, const char *s, size_t n, int keep_backslash)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		size_t len = utf8_char_len(s + i, n - i);
		unsigned char c = p[i];

		if (c == '\\')
			strbuf_adds(sb, keep_backslash ? "\\" : "\\\\");
		else if (c == '\t')
			strbuf_adds(sb, "\\t");
		else if (c == '\n')
			strbuf_adds(sb, "\\n");
		else if (c == '\r')
			strbuf_adds(sb, "\\r");
		else if (!len || c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\x%02x", c);
		else if (unicode_hidden(utf8_code_point(s + i, len))) {
			for (size_t k = 0; k < len; k++)
				strbuf_addf(sb, "\\x%02x", p[i + k]);
			i += len;
			continue;
		}
		else {
			strbuf_add(sb, p + i, len);
			i += len;
			continue;
		}
		i++;
	}
}

void strbuf_add_escaped(struct strbuf *sb, const char *s, size_t n)
{
	add_escaped(sb, s, n, 0);
}

void strbuf_add_escaped_line(struct strbuf *sb, const char *s, size_t n)
{
	add_escaped(sb, s, n, 1);
}

ssize_t read_head(const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -1;
	while (len < cap - 1) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			int e = errno;
			if (e == EINTR)
				continue;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	return (ssize_t)len;
}

char *xstrdup_escaped(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_escaped(&sb, s, strlen(s));
	return strbuf_detach(&sb, NULL);
}

const char *show_text(char *buf, size_t size, const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, cut = 0;

	/*
	 * Escaped one character at a time, remembering the last place where
	 * "..." still fits, until the whole is in or no longer fits.
	 */
	n = strnlen(s, n);
	while (i < n && sb.len < size) {
		size_t len = utf8_char_len(s + i, n - i);
		if (sb.len + 4 <= size)
			cut = sb.len;
		strbuf_add_escaped(&sb, s + i, len ? len : 1);
		i += len ? len : 1;
	}
	if (sb.len + 1 > size) {
		sb.len = cut;
		strbuf_adds(&sb, "...");
	}
	snprintf(buf, size, "%s", sb.buf);
	strbuf_release(&sb);
	return buf;
}

const char *show_str(char *buf, size_t size, const char *s)
{
	return show_text(buf, size, s, strlen(s));
}

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n && dir[n - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int ret = 0;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			ret = error("cannot create directory '%s': %s", p, strerror(errno));
			goto out;
		}
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		ret = error("cannot create directory '%s': %s", p, strerror(errno));
out:
	free(p);
	return ret;
}

const char *double_text(char buf[DOUBLE_TEXT_LEN], double v)
{
	v += 0.0; /* -0.0 would print as "-0" */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, DOUBLE_TEXT_LEN, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}
