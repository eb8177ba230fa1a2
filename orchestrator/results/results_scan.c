/*
 * results_scan: where a TRX's test definitions start, found by a byte scan
 * rather than a parse. The vstest logger writes the definitions (each
 * test's class) after the results that need them, so the reader reads a
 * seekable TRX twice; this scan lets the first read parse only the
 * document's prolog and root start tag and then the definitions, instead
 * of every result before them (results.c: read_classes()).
 *
 * The scan knows as much XML as it takes to tell markup from what is not:
 * in a well-formed document every '<' outside a comment, a CDATA section
 * and a processing instruction starts a tag, and a tag's '>' is the first
 * one outside a quoted attribute value. It counts element depth from the
 * tags and reports the first TestDefinitions (with or without a prefix)
 * that is a child of the root. It answers "not sure" for anything it does
 * not follow — a DOCTYPE, a first byte that is not ASCII-compatible
 * (UTF-16, EBCDIC), a read error — and the caller then parses the whole
 * file as before. It never decides what the file means: a document that
 * is not well-formed is refused by the parse that reads it for real.
 */
#include "results/results_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"

/* Bytes per pread(); a window of the file the scan moves through. */
#define SCAN_CHUNK (1u << 20)
/* Lookahead a '<' needs: "<![CDATA[" and a name's start. */
#define SCAN_AHEAD 64

struct scan {
	int fd;
	char *buf;
	off_t base;        /* file offset of buf[0] */
	size_t len;        /* bytes in buf */
	int eof;           /* buf ends at the end of the file */
	int failed;        /* a read error */
};

/* The window from at on: 0, or -1 after a read error. */
static int refill(struct scan *s, off_t at)
{
	size_t got = 0;

	while (got < SCAN_CHUNK) {
		ssize_t n = pread(s->fd, s->buf + got, SCAN_CHUNK - got, at + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			s->failed = 1;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	s->base = at;
	s->len = got;
	s->eof = got < SCAN_CHUNK;
	return 0;
}

/*
 * Makes buf hold at least want bytes from at (fewer only at the end of the
 * file) and returns at's index in buf; SIZE_MAX after a read error.
 */
static size_t window(struct scan *s, off_t at, size_t want)
{
	if (at < s->base || at > s->base + (off_t)s->len ||
	    (at + (off_t)want > s->base + (off_t)s->len && !s->eof))
		if (refill(s, at) < 0)
			return SIZE_MAX;
	return (size_t)(at - s->base);
}

/*
 * The offset just past the first `end` at or after at; -1 at the end of
 * the file, an error, or past RESULTS_HELD_MAX bytes (a comment, CDATA
 * section or processing instruction the parse refuses anyway).
 */
static off_t skip_past(struct scan *s, off_t at, const char *end)
{
	size_t elen = strlen(end);
	off_t stop = at + (off_t)RESULTS_HELD_MAX + (off_t)elen;   /* the end's last byte, at most */

	for (;;) {
		size_t i = window(s, at, elen), len;
		const char *hit;

		if (i == SIZE_MAX || s->len - i < elen || at > stop)
			return -1;
		len = stop - s->base < (off_t)s->len ? (size_t)(stop - s->base) : s->len;
		hit = memmem(s->buf + i, len - i, end, elen);
		if (hit)
			return s->base + (hit - s->buf) + (off_t)elen;
		if (s->eof || len < s->len)
			return -1;
		/* Not in this window: the next one starts where a split `end` would. */
		at = s->base + (off_t)(s->len - (elen - 1));
		if (refill(s, at) < 0)
			return -1;
	}
}

/* The bytes that end a run of a tag's plain characters. */
static const unsigned char tag_stop[256] = { ['"'] = 1, ['\''] = 1, ['>'] = 1 };

/*
 * The tag whose '<' is at at: the offset past its '>' (the first outside
 * a quoted attribute value), and in *empty whether it ends "/>"; -1 at the
 * end of the file, an error, or past RESULTS_MARKUP_MAX bytes. A quoted
 * value is skipped with memchr(), the rest byte by byte.
 */
static off_t tag_end(struct scan *s, off_t at, int *empty)
{
	char quote = 0, last = 0;   /* last: the byte before the window's first */
	off_t stop = at + (off_t)RESULTS_MARKUP_MAX;   /* a longer tag the parse refuses */

	for (;;) {
		size_t i = window(s, at, 2), len;

		if (i == SIZE_MAX || i >= s->len || at > stop)
			return -1;
		len = stop + 1 - s->base < (off_t)s->len ? (size_t)(stop + 1 - s->base) : s->len;
		while (i < len) {
			if (quote) {
				const char *q = memchr(s->buf + i, quote, len - i);
				if (!q) {
					i = len;
					break;
				}
				i = (size_t)(q - s->buf) + 1;
				quote = 0;
				continue;
			}
			while (i < len && !tag_stop[(unsigned char)s->buf[i]])
				i++;
			if (i == len)
				break;
			if (s->buf[i] == '>') {
				*empty = (i ? s->buf[i - 1] : last) == '/';
				return s->base + (off_t)i + 1;
			}
			quote = s->buf[i++];
		}
		if (len < s->len)
			return -1;
		last = s->len ? s->buf[s->len - 1] : 0;
		at = s->base + (off_t)s->len;
	}
}

/* Whether the tag name at p (n bytes available) is `local`, with or without a prefix. */
static int name_is(const char *p, size_t n, const char *local)
{
	size_t k = 0, colon = SIZE_MAX, llen = strlen(local);

	while (k < n && p[k] != ' ' && p[k] != '\t' && p[k] != '\r' && p[k] != '\n' &&
	       p[k] != '>' && p[k] != '/') {
		if (p[k] == ':' && colon == SIZE_MAX)
			colon = k;
		k++;
	}
	if (k == n)
		return 0;   /* the name runs past what is in hand: longer than any we look for */
	p += colon == SIZE_MAX ? 0 : colon + 1;
	k -= colon == SIZE_MAX ? 0 : colon + 1;
	return k == llen && !memcmp(p, local, llen);
}

/* The length of the tag name at p (n bytes available), prefix included; n when it runs on. */
static size_t name_len(const char *p, size_t n)
{
	size_t k = 0;

	while (k < n && p[k] != ' ' && p[k] != '\t' && p[k] != '\r' && p[k] != '\n' &&
	       p[k] != '>' && p[k] != '/')
		k++;
	return k;
}

/*
 * The end of the element named name (nlen bytes, its prefix with it) whose
 * start tag ends just before at: the offset past its end tag, found with
 * memchr() from one '<' to the next without reading the tags between; -1
 * when that is not safe to do — a comment, a CDATA section or a processing
 * instruction on the way (which may hold a '<' that is no tag), or an
 * element of the same name inside it — or at the end of the file: the
 * caller then reads the tags one by one. This is what keeps the scan of a
 * TRX's results, the bulk of the file, at memchr's pace.
 */
static off_t skip_element(struct scan *s, off_t at, const char *name, size_t nlen)
{
	for (;;) {
		size_t i = window(s, at, 1);
		const char *lt, *p;
		size_t avail;

		if (i == SIZE_MAX || i >= s->len)
			return -1;
		lt = memchr(s->buf + i, '<', s->len - i);
		if (!lt) {
			at = s->base + (off_t)s->len;
			continue;
		}
		at = s->base + (lt - s->buf);
		i = window(s, at, nlen + 3);
		if (i == SIZE_MAX)
			return -1;
		p = s->buf + i;
		avail = s->len - i;
		if (avail < 2 || p[1] == '!' || p[1] == '?')
			return -1;
		if (p[1] == '/') {
			if (name_len(p + 2, avail - 2) == nlen && !memcmp(p + 2, name, nlen)) {
				int empty;
				return tag_end(s, at, &empty);
			}
		} else if (name_len(p + 1, avail - 1) == nlen && !memcmp(p + 1, name, nlen)) {
			return -1;
		}
		at++;
	}
}

enum scan_result results_scan_trx_definitions(int fd, off_t start, uint64_t max_bytes,
					      off_t *root_end, off_t *defs_at)
{
	struct scan s = { .fd = fd, .base = 0, .len = 0 };
	enum scan_result ret = SCAN_UNSURE;
	off_t at = start;
	size_t i;
	long depth = 0;
	int root = 0;

	s.buf = xmalloc(SCAN_CHUNK);
	if (refill(&s, start) < 0)
		goto out;
	/* ASCII-compatible input only: a UTF-8 byte order mark, else '<' or white space first. */
	if (s.len >= 3 && !memcmp(s.buf, "\xef\xbb\xbf", 3))
		at += 3;
	else if (!s.len || (s.buf[0] != '<' && s.buf[0] != ' ' && s.buf[0] != '\t' &&
			    s.buf[0] != '\r' && s.buf[0] != '\n'))
		goto out;
	for (;;) {
		const char *lt, *p;
		size_t avail;
		int empty = 0;

		/* A file the parse refuses by its size: not read to its end here. */
		if ((uint64_t)(at - start) > max_bytes)
			goto out;
		i = window(&s, at, 1);
		if (i == SIZE_MAX)
			goto out;
		lt = i < s.len ? memchr(s.buf + i, '<', s.len - i) : NULL;
		if (!lt) {
			if (s.eof)
				goto out;   /* the root never closed: the parse says what is wrong */
			at = s.base + (off_t)s.len;
			continue;
		}
		at = s.base + (lt - s.buf);
		i = window(&s, at, SCAN_AHEAD);
		if (i == SIZE_MAX)
			goto out;
		p = s.buf + i;
		avail = s.len - i;
		if (avail >= 4 && !memcmp(p, "<!--", 4)) {
			at = skip_past(&s, at + 4, "-->");
		} else if (avail >= 9 && !memcmp(p, "<![CDATA[", 9)) {
			at = skip_past(&s, at + 9, "]]>");
		} else if (avail >= 2 && p[1] == '?') {
			at = skip_past(&s, at + 2, "?>");
		} else if (avail >= 2 && p[1] == '!') {
			goto out;   /* a DOCTYPE, or what is not XML: the parse says which */
		} else if (avail >= 2 && p[1] == '/') {
			at = tag_end(&s, at, &empty);
			if (--depth < 0)
				goto out;
			if (depth == 0) {
				ret = SCAN_NONE;   /* the root closed without definitions */
				goto out;
			}
		} else {
			int defs = root && depth == 1 && name_is(p + 1, avail - 1, "TestDefinitions");

			if (!root && !name_is(p + 1, avail - 1, "TestRun")) {
				ret = SCAN_NONE;   /* not a TRX: no definitions to read */
				goto out;
			}
			if (defs) {
				*defs_at = at;
				ret = SCAN_DEFS;
				goto out;
			}
			int results = root && depth == 1 && name_is(p + 1, avail - 1, "Results");
			char name[SCAN_AHEAD];
			size_t nlen = results ? name_len(p + 1, avail - 1) : 0;

			if (results)
				memcpy(name, p + 1, nlen);   /* < SCAN_AHEAD: name_is() saw its end */
			at = tag_end(&s, at, &empty);
			if (at < 0)
				goto out;
			if (!root) {
				root = 1;
				*root_end = at;
				if (empty) {
					ret = SCAN_NONE;
					goto out;
				}
			}
			if (results && !empty) {
				off_t past = skip_element(&s, at, name, nlen);
				if (past >= 0) {
					at = past;
					continue;
				}
			}
			depth += !empty;
		}
		if (at < 0)
			goto out;
	}
out:
	free(s.buf);
	return s.failed ? SCAN_UNSURE : ret;
}
