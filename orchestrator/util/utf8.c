/* utf8: decoding, cutting and cleaning UTF-8, and the table of hidden characters. */
#include "util/utf8.h"

#include <stdio.h>

#include "util/compiler.h"
#include "util/strbuf.h"

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
