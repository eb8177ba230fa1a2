/*
 * framing: finds the end of a bundle's first zstd frame or gzip member by
 * walking its structure, for read.c to compare with the file's size.
 *
 * Why walk rather than ask libarchive how much it consumed: its zstd
 * filter (libzstd's streaming decoder) runs on through further frames and
 * silently skips skippable frames, and its gzip filter starts on a second
 * member wherever one begins, so `cat ok.tar.zst evil.tar.zst` is consumed
 * to the last byte. A zstd frame states its own extent: a header, then
 * blocks that each carry their size in a 3-byte header, then an optional
 * checksum (RFC 8878 section 3.1.1), so the walk reads a few bytes per
 * block and skips the rest. A gzip member (RFC 1952) has no length field:
 * its deflate stream (RFC 1951) ends only where its last block's
 * end-of-block code is, so the walk decodes every Huffman symbol — with a
 * table for codes of up to FAST_BITS bits, bit by bit beyond — and writes
 * no output: no window, no check of distances, which the decompressor
 * reading the same bytes does, nor of the trailer's CRC-32, which read.c
 * compares with the content it decompressed. The walk therefore agrees
 * with zlib on where a valid stream ends, and on an invalid one merely
 * fails or stops early; read.c reads the bundle through libarchive
 * first, so an invalid stream has been refused before.
 *
 * Everything is bounded by the file: each step consumes input, and
 * reading past the end (more than the few bytes of zero padding the bit
 * reader adds at the end of the file) is an error.
 */
#include "bundle/framing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "util/alloc.h"
#include "util/strbuf.h"

#define CHUNK (64 * 1024)
/* A gzip header's file name longer than this is refused: a name is short, a payload is not. */
#define GZIP_NAME_MAX 1024
/* RFC 8878: no block is larger than 128 KiB. */
#define ZSTD_BLOCK_MAX (128 * 1024)

/* The file, read forward in chunks with pread(); skips move the offset without reading. */
struct src {
	int fd;
	uint64_t size;
	uint64_t off;          /* file offset of buf[0] */
	size_t len, pos;
	unsigned char *buf;
	const char *fail;      /* why reading failed (static text) */
};

static uint64_t src_tell(const struct src *s)
{
	return s->off + s->pos;
}

/* The next byte, or -1 at the end of the file or on an error (s->fail says which). */
static int src_refill(struct src *s)
{
	uint64_t at = s->off + s->len;
	size_t want = CHUNK;
	ssize_t n;

	if (at >= s->size) {
		s->fail = "ends in the middle of its compressed stream";
		return -1;
	}
	if (s->size - at < want)
		want = (size_t)(s->size - at);
	do
		n = pread(s->fd, s->buf, want, (off_t)at);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		s->fail = n < 0 ? "cannot be read" : "shrank while it was read";
		return -1;
	}
	s->off = at;
	s->len = (size_t)n;
	s->pos = 0;
	return 0;
}

static inline int src_byte(struct src *s)
{
	if (s->pos == s->len && src_refill(s) < 0)
		return -1;
	return s->buf[s->pos++];
}

static int src_skip(struct src *s, uint64_t n)
{
	if (n <= s->len - s->pos) {
		s->pos += (size_t)n;
		return 0;
	}
	if (n > s->size - src_tell(s)) {
		s->fail = "ends in the middle of its compressed stream";
		return -1;
	}
	s->off = src_tell(s) + n;
	s->len = s->pos = 0;
	return 0;
}

/* n (at most 8) bytes into out, little-endian. 0 or -1. */
static int src_le(struct src *s, unsigned n, uint64_t *out)
{
	*out = 0;
	for (unsigned i = 0; i < n; i++) {
		int c = src_byte(s);
		if (c < 0)
			return -1;
		*out |= (uint64_t)c << (8 * i);
	}
	return 0;
}

/* ---- zstd ---- */

static int zstd_frame(struct src *s, char **why)
{
	static const unsigned did_bytes[4] = { 0, 1, 2, 4 };
	static const unsigned fcs_bytes[4] = { 0, 2, 4, 8 };
	uint64_t v;
	int fhd;

	if (src_skip(s, 4) < 0 || (fhd = src_byte(s)) < 0)
		goto cut;
	if (fhd & 0x08) {
		*why = xstrdup("its zstd frame header sets a reserved bit");
		return -1;
	}
	{
		int single = (fhd >> 5) & 1;
		uint64_t skip = (uint64_t)!single + did_bytes[fhd & 3] +
				(single && !(fhd >> 6) ? 1 : fcs_bytes[fhd >> 6]);
		if (src_skip(s, skip) < 0)
			goto cut;
	}
	for (;;) {
		unsigned type;
		uint64_t bsize;

		if (src_le(s, 3, &v) < 0)
			goto cut;
		type = (unsigned)(v >> 1) & 3;
		bsize = v >> 3;
		if (type == 3 || bsize > ZSTD_BLOCK_MAX) {
			*why = xstrdup("its zstd frame holds a malformed block header");
			return -1;
		}
		if (src_skip(s, type == 1 ? 1 : bsize) < 0)
			goto cut;
		if (v & 1)
			break;
	}
	if ((fhd & 0x04) && src_skip(s, 4) < 0)
		goto cut;
	return 0;
cut:
	*why = xasprintf("its zstd frame %s", s->fail);
	return -1;
}

/* ---- gzip: header ---- */

#define GZ_FHCRC 0x02
#define GZ_FEXTRA 0x04
#define GZ_FNAME 0x08
#define GZ_FCOMMENT 0x10

/* n bytes at offset at into buf. 0, or -1 when the file has fewer there. */
static int read_at(int fd, uint64_t at, unsigned char *buf, size_t n)
{
	ssize_t got;

	do
		got = pread(fd, buf, n, (off_t)at);
	while (got < 0 && errno == EINTR);
	return got == (ssize_t)n ? 0 : -1;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * The header CRC (FHCRC) that ends the header at s: the low 16 bits of the
 * CRC-32 of every header byte before it. gzip -t checks it, libarchive
 * does not. 0, or -1 with *why.
 */
static int gzip_header_crc(struct src *s, char **why)
{
	unsigned char head[10 + GZIP_NAME_MAX + 1];
	uint64_t len = src_tell(s), stored;

	if (src_le(s, 2, &stored) < 0) {
		*why = xasprintf("its gzip header %s", s->fail);
		return -1;
	}
	if (len > sizeof(head) || read_at(s->fd, 0, head, (size_t)len) < 0) {
		*why = xstrdup("its gzip header cannot be read again");
		return -1;
	}
	if ((crc32_z(0, head, (size_t)len) & 0xffff) != stored) {
		*why = xstrdup("its gzip header fails its own CRC (FHCRC)");
		return -1;
	}
	return 0;
}

static int gzip_header(struct src *s, char **why)
{
	int cm, flg;
	size_t name = 0;

	if (src_skip(s, 2) < 0 || (cm = src_byte(s)) < 0 || (flg = src_byte(s)) < 0 ||
	    src_skip(s, 6) < 0)
		goto cut;
	if (cm != 8 || (flg & 0xe0)) {
		*why = xstrdup("its gzip header is not that of a deflate stream");
		return -1;
	}
	/*
	 * An extra field or a comment is data of its own in front of the
	 * archive, which nobody signed; no tar writes one. A name is what
	 * `gzip FILE` records, and is kept short.
	 */
	if (flg & (GZ_FEXTRA | GZ_FCOMMENT)) {
		*why = xasprintf("its gzip header carries %s, which nobody signed",
				 flg & GZ_FEXTRA ? "an extra field (FEXTRA)" : "a comment (FCOMMENT)");
		return -1;
	}
	if (flg & GZ_FNAME) {
		int c;
		while ((c = src_byte(s)) > 0)
			if (++name > GZIP_NAME_MAX) {
				*why = xasprintf("its gzip header carries a file name longer than "
						 "%d bytes", GZIP_NAME_MAX);
				return -1;
			}
		if (c < 0)
			goto cut;
	}
	if (flg & GZ_FHCRC)
		return gzip_header_crc(s, why);
	return 0;
cut:
	*why = xasprintf("its gzip header %s", s->fail);
	return -1;
}

/* ---- gzip: deflate, walked ---- */

#define MAX_BITS 15
#define FAST_BITS 10
#define MAX_LITLEN 288
#define MAX_DIST 32

/* A canonical Huffman code: a table for short codes, counts and symbols for the rest. */
struct huff {
	uint16_t fast[1 << FAST_BITS];   /* length << 9 | symbol; 0: longer than FAST_BITS */
	uint16_t count[MAX_BITS + 1];
	uint16_t sym[MAX_LITLEN];
};

/* Bits least significant first, as deflate packs them; 'pad' zero bytes stand beyond the file. */
struct bits {
	struct src *s;
	uint64_t buf;
	unsigned cnt;
	unsigned pad;
};

/* At least 56 bits in b->buf; -1 once more than the 8 bytes a full buffer holds were padded. */
static inline int bits_fill(struct bits *b)
{
	struct src *s = b->s;

	if (b->cnt >= 56)
		return 0;
	/* Eight bytes at once where the chunk has them: the common case, one load. */
	if (s->len - s->pos >= 8) {
		uint64_t w;
		memcpy(&w, s->buf + s->pos, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		b->buf |= w << b->cnt;
		s->pos += (63 - b->cnt) >> 3;
		b->cnt |= 56;
		return 0;
	}
	while (b->cnt <= 56) {
		int c = src_byte(s);
		if (c < 0) {
			if (++b->pad > 8)
				return -1;
			c = 0;
		}
		b->buf |= (uint64_t)c << b->cnt;
		b->cnt += 8;
	}
	return 0;
}

/* n bits (n <= 32); bits_fill() must have left at least n. */
static inline unsigned bits_take(struct bits *b, unsigned n)
{
	unsigned v = (unsigned)(b->buf & ((1ull << n) - 1));
	b->buf >>= n;
	b->cnt -= n;
	return v;
}

/* Where the next unread byte is in the file, once aligned; past the size when padding was read. */
static uint64_t bits_tell(const struct bits *b)
{
	return src_tell(b->s) + b->pad - b->cnt / 8;
}

/* Builds h from n code lengths; -1 when the lengths over-subscribe the code. */
static int huff_build(struct huff *h, const uint8_t *lens, unsigned n)
{
	uint16_t offs[MAX_BITS + 2];
	int left = 1;
	unsigned k = 0, code = 0;

	memset(h->count, 0, sizeof(h->count));
	memset(h->fast, 0, sizeof(h->fast));
	for (unsigned i = 0; i < n; i++)
		h->count[lens[i]]++;
	for (unsigned len = 1; len <= MAX_BITS; len++) {
		left = 2 * left - h->count[len];
		if (left < 0)
			return -1;
	}
	offs[1] = 0;
	for (unsigned len = 1; len <= MAX_BITS; len++)
		offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
	for (unsigned i = 0; i < n; i++)
		if (lens[i])
			h->sym[offs[lens[i]]++] = (uint16_t)i;
	for (unsigned len = 1; len <= MAX_BITS; len++, code <<= 1)
		for (unsigned i = 0; i < h->count[len]; i++, k++, code++) {
			unsigned rev = 0;
			if (len > FAST_BITS)
				continue;
			for (unsigned j = 0; j < len; j++)
				rev |= ((code >> j) & 1) << (len - 1 - j);
			for (unsigned j = rev; j < (1u << FAST_BITS); j += 1u << len)
				h->fast[j] = (uint16_t)(len << 9 | h->sym[k]);
		}
	return 0;
}

/*
 * The next symbol of h from the bit buffer *bb holding *bc bits (at least
 * MAX_BITS); -1 for no code. On plain words so that the hot loop keeps
 * them in registers.
 */
static inline int huff_decode(const struct huff *h, uint64_t *bb, unsigned *bc)
{
	unsigned e = h->fast[*bb & ((1u << FAST_BITS) - 1)];
	int code = 0, first = 0, index = 0;
	uint64_t v = *bb;

	if (e) {
		*bb >>= e >> 9;
		*bc -= e >> 9;
		return (int)(e & 0x1ff);
	}
	for (unsigned len = 1; len <= MAX_BITS; len++) {
		int count = h->count[len];
		code |= (int)(v & 1);
		v >>= 1;
		if (code - count < first) {
			*bb >>= len;
			*bc -= len;
			return h->sym[index + (code - first)];
		}
		index += count;
		first = (first + count) << 1;
		code <<= 1;
	}
	return -1;
}

static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
				       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
					6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

/*
 * Symbols up to the end-of-block code. 0 or -1 (truncated or an invalid
 * code). The hot loop of the walk: the bit buffer and the read position
 * live in locals, and go back to *b only for a refill at a chunk's end.
 */
static int inflate_codes(struct bits *b, const struct huff *lit, const struct huff *dist)
{
	struct src *s = b->s;
	uint64_t bb = b->buf;
	unsigned bc = b->cnt;
	const unsigned char *p = s->buf + s->pos, *end = s->buf + s->len;
	int ret = -1;

	for (;;) {
		int sym;

		/* 56 bits cover the longest step: 15 + 5 + 15 + 13 = 48. */
		if (bc < 56) {
			if (end - p >= 8) {
				uint64_t w;
				memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
				w = __builtin_bswap64(w);
#endif
				bb |= w << bc;
				p += (63 - bc) >> 3;
				bc |= 56;
			} else {
				s->pos = (size_t)(p - s->buf);
				b->buf = bb;
				b->cnt = bc;
				if (bits_fill(b) < 0)
					return -1;
				bb = b->buf;
				bc = b->cnt;
				p = s->buf + s->pos;
				end = s->buf + s->len;
			}
		}
		sym = huff_decode(lit, &bb, &bc);
		if (sym < 256) {
			if (sym < 0)
				break;
			continue;
		}
		if (sym == 256) {
			ret = 0;
			break;
		}
		if (sym - 257 >= 29)
			break;
		bc -= len_extra[sym - 257];
		bb >>= len_extra[sym - 257];
		sym = huff_decode(dist, &bb, &bc);
		if (sym < 0 || sym >= 30)
			break;
		bc -= dist_extra[sym];
		bb >>= dist_extra[sym];
	}
	s->pos = (size_t)(p - s->buf);
	b->buf = bb;
	b->cnt = bc;
	return ret;
}

static int inflate_stored(struct bits *b)
{
	unsigned len, nlen;

	bits_take(b, b->cnt % 8);
	if (bits_fill(b) < 0)
		return -1;
	len = bits_take(b, 16);
	nlen = bits_take(b, 16);
	if (len != (~nlen & 0xffff))
		return -1;
	while (len && b->cnt) {
		bits_take(b, 8);
		len--;
	}
	if (b->pad && len)
		return -1;
	/* bits_fill() may have loaded bytes beyond cnt; the skip makes them stale. */
	b->buf &= b->cnt ? ~0ull >> (64 - b->cnt) : 0;
	return src_skip(b->s, len);
}

/* The fixed codes of RFC 1951 section 3.2.6, built once per walk (cheap). */
static void fixed_codes(struct huff *lit, struct huff *dist)
{
	uint8_t lens[MAX_LITLEN];
	unsigned i;

	for (i = 0; i < 144; i++)
		lens[i] = 8;
	for (; i < 256; i++)
		lens[i] = 9;
	for (; i < 280; i++)
		lens[i] = 7;
	for (; i < MAX_LITLEN; i++)
		lens[i] = 8;
	(void)huff_build(lit, lens, MAX_LITLEN);
	memset(lens, 5, MAX_DIST);
	(void)huff_build(dist, lens, MAX_DIST);
}

/* Reads a dynamic block's code lengths into lit and dist. 0 or -1. */
static int dynamic_codes(struct bits *b, struct huff *lit, struct huff *dist)
{
	static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
					   11, 4, 12, 3, 13, 2, 14, 1, 15 };
	uint8_t lens[MAX_LITLEN + MAX_DIST];
	unsigned nlen, ndist, ncode, i = 0;
	struct huff *lencode = dist;     /* borrowed until the distance code is built */

	if (bits_fill(b) < 0)
		return -1;
	nlen = bits_take(b, 5) + 257;
	ndist = bits_take(b, 5) + 1;
	ncode = bits_take(b, 4) + 4;
	if (nlen > 286 || ndist > 30)
		return -1;
	memset(lens, 0, 19);
	for (unsigned k = 0; k < ncode; k++) {
		if (bits_fill(b) < 0)
			return -1;
		lens[order[k]] = (uint8_t)bits_take(b, 3);
	}
	if (huff_build(lencode, lens, 19) < 0)
		return -1;
	while (i < nlen + ndist) {
		int sym;
		unsigned rep, val = 0;

		if (bits_fill(b) < 0 || (sym = huff_decode(lencode, &b->buf, &b->cnt)) < 0)
			return -1;
		if (sym < 16) {
			lens[i++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16) {
			if (i == 0)
				return -1;
			val = lens[i - 1];
			rep = 3 + bits_take(b, 2);
		} else {
			rep = sym == 17 ? 3 + bits_take(b, 3) : 11 + bits_take(b, 7);
		}
		if (i + rep > nlen + ndist)
			return -1;
		while (rep--)
			lens[i++] = (uint8_t)val;
	}
	if (lens[256] == 0)
		return -1;
	if (huff_build(lit, lens, nlen) < 0 || huff_build(dist, lens + nlen, ndist) < 0)
		return -1;
	return 0;
}

/* Walks one deflate stream; on return 0 the stream has ended at bits_tell(). */
static int inflate_walk(struct bits *b)
{
	struct huff *lit = xmalloc(sizeof(*lit)), *dist = xmalloc(sizeof(*dist));
	struct huff *flit = xmalloc(sizeof(*flit)), *fdist = xmalloc(sizeof(*fdist));
	int last = 0, ret = -1, have_fixed = 0;

	while (!last) {
		unsigned type;

		if (bits_fill(b) < 0)
			goto out;
		last = (int)bits_take(b, 1);
		type = bits_take(b, 2);
		if (type == 0) {
			if (inflate_stored(b) < 0)
				goto out;
		} else if (type == 1) {
			if (!have_fixed++)
				fixed_codes(flit, fdist);
			if (inflate_codes(b, flit, fdist) < 0)
				goto out;
		} else if (type == 2) {
			if (dynamic_codes(b, lit, dist) < 0 || inflate_codes(b, lit, dist) < 0)
				goto out;
		} else {
			goto out;
		}
	}
	bits_take(b, b->cnt % 8);
	ret = 0;
out:
	free(lit);
	free(dist);
	free(flit);
	free(fdist);
	return ret;
}

static int gzip_member(struct src *s, struct framing *f, char **why)
{
	struct bits b = { s, 0, 0, 0 };
	unsigned char trailer[8];
	uint64_t *end = &f->end;

	if (gzip_header(s, why) < 0)
		return -1;
	if (inflate_walk(&b) < 0 || bits_tell(&b) > s->size) {
		*why = xstrdup(b.pad ? "its gzip member ends in the middle of its deflate stream"
				     : "its gzip member holds an invalid deflate stream");
		return -1;
	}
	*end = bits_tell(&b) + 8;     /* CRC-32 and size */
	if (*end > s->size || read_at(s->fd, *end - 8, trailer, 8) < 0) {
		*why = xstrdup("its gzip member ends before its trailer");
		return -1;
	}
	f->gzip = 1;
	f->crc = le32(trailer);
	f->isize = le32(trailer + 4);
	return 0;
}

/* ---- what follows ---- */

static const char *what_follows(int fd, uint64_t at, uint64_t size)
{
	unsigned char m[4] = { 0 };
	size_t want = size - at < 4 ? (size_t)(size - at) : 4;
	ssize_t n;

	do
		n = pread(fd, m, want, (off_t)at);
	while (n < 0 && errno == EINTR);
	if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
		return "a second zstd frame";
	if (n >= 4 && (m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18)
		return "a zstd skippable frame";
	if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
		return "a second gzip member";
	return NULL;
}

int framing_scan(int fd, uint64_t size, struct framing *f, char **why)
{
	struct src s = { fd, size, 0, 0, 0, NULL, NULL };
	unsigned char m[2];
	int ret = -1;

	*why = NULL;
	memset(f, 0, sizeof(*f));
	s.buf = xmalloc(CHUNK);
	if (src_refill(&s) < 0 || s.len < 2) {
		*why = xstrdup("it is too short to be a compressed stream");
		goto out;
	}
	memcpy(m, s.buf, 2);
	if (m[0] == 0x1f && m[1] == 0x8b) {
		if (gzip_member(&s, f, why) < 0)
			goto out;
	} else if (s.len >= 4 && !memcmp(s.buf, "\x28\xb5\x2f\xfd", 4)) {
		if (zstd_frame(&s, why) < 0)
			goto out;
		f->end = src_tell(&s);
	} else {
		*why = xstrdup("it starts as neither a zstd frame nor a gzip member");
		goto out;
	}
	if (f->end < size)
		f->after = what_follows(fd, f->end, size);
	ret = 0;
out:
	free(s.buf);
	return ret;
}
