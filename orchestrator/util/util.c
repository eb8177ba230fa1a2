/*
 * util: allocation, error reporting, strbuf, bounded file I/O and clocks.
 * Everything here is policy-free: no module-specific knowledge, no exits
 * except on memory exhaustion (which abev treats as unrecoverable).
 */
#define _GNU_SOURCE /* syncfs() */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	for (p = s; *p; p++) {
		if (*p == '\'')
			strbuf_adds(sb, "'\\''");
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			strbuf_addch(sb, '?');
		else
			strbuf_addch(sb, *p);
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
			/* C1 controls are U+0080..U+009F: 0xc2 0x80..0x9f. */
			if (c < 0x20 || c == 0x7f || (c == 0xc2 && (unsigned char)s[i + 1] < 0xa0))
				break;
			/* U+FFFE and U+FFFF are not XML characters. */
			if (len == 3 && c == 0xef && (unsigned char)s[i + 1] == 0xbf &&
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

int atomic_file_open(struct atomic_file *f, const char *path)
{
	f->path = xstrdup(path);
	f->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		int saved = errno;
		error("cannot create '%s': %s", f->tmp, strerror(errno));
		free(f->tmp);
		f->tmp = NULL;
		errno = saved;
		return -1;
	}
	return 0;
}

int atomic_file_write(struct atomic_file *f, const void *data, size_t len)
{
	if (write_all(f->fd, data, len) < 0) {
		int saved = errno;
		error("cannot write '%s': %s", f->tmp, strerror(errno));
		errno = saved;
		return -1;
	}
	return 0;
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
		error("cannot close '%s': %s", f->tmp, strerror(errno));
		errno = saved;
		return -1;
	}
	if (rename(f->tmp, f->path) < 0) {
		saved = errno;
		error("cannot rename '%s' to '%s': %s", f->tmp, f->path, strerror(errno));
		errno = saved;
		return -1;
	}
	free(f->tmp);
	f->tmp = NULL;
	free(f->path);
	f->path = NULL;
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
		unlink(f->tmp);
	free(f->tmp);
	f->tmp = NULL;
	free(f->path);
	f->path = NULL;
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

/*
 * Valid UTF-8 that a terminal would not show, or would take as a line
 * break or a control: C1 controls, zero-width and direction marks, line
 * and paragraph separators, bidirectional overrides and isolates, word
 * joiners, the byte order mark.
 */
static int invisible(const unsigned char *p, size_t len)
{
	unsigned cp;

	if (len == 2)
		return p[0] == 0xc2 && p[1] < 0xa0;
	if (len != 3)
		return 0;
	cp = (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
	return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff;
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
		else if (invisible(p + i, len)) {
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
