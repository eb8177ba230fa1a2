/* escape: outside text written so that a terminal shows every byte of it. */
#include "util/escape.h"

#include <stdio.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/utf8.h"

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
