/* quote: words for sh and character data for XML. */
#include "util/quote.h"

#include <string.h>

#include "util/escape.h"
#include "util/strbuf.h"
#include "util/utf8.h"

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

void strbuf_add_argv_sh(struct strbuf *sb, char *const *argv, size_t argc)
{
	for (size_t k = 0; k < argc; k++) {
		if (k)
			strbuf_addch(sb, ' ');
		strbuf_add_sh(sb, argv[k]);
	}
}
