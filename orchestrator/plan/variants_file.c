/*
 * variants_file: lines are cut and checked before they are split, so that
 * a NUL byte, a byte that is not UTF-8 or an unterminated quote costs one
 * line, not the rest of the file.
 */
#include "plan/variants_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/utf8.h"

/* Why the line p[0..n) cannot be read (why[] filled), or NULL. */
static const char *line_problem(const char *p, size_t n, char *why, size_t size)
{
	for (size_t i = 0; i < n;) {
		size_t len = utf8_char_len(p + i, n - i);
		if (!p[i]) {
			snprintf(why, size, "NUL byte at column %zu (expected text)", i + 1);
			return why;
		}
		if (!len) {
			snprintf(why, size, "byte 0x%02x at column %zu is not UTF-8 (expected UTF-8 text)",
				 (unsigned char)p[i], i + 1);
			return why;
		}
		i += len;
	}
	return NULL;
}

void variants_file_lines(const char *text, size_t len,
			 void (*fn)(void *ctx, const char *line, size_t lineno, const char *why),
			 void *ctx)
{
	const char *p = text, *end = text + len;
	size_t lineno = 0;
	char why[96];

	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line;
		const char *t;

		lineno++;
		if (line_problem(p, n, why, sizeof(why))) {
			fn(ctx, NULL, lineno, why);
			p = nl ? nl + 1 : end;
			continue;
		}
		if (n && p[n - 1] == '\r')
			n--;
		line = xstrndup(p, n);
		p = nl ? nl + 1 : end;
		for (t = line; *t == ' ' || *t == '\t'; t++)
			;
		if (*t && *t != '#')
			fn(ctx, line, lineno, NULL);
		free(line);
	}
}

int variants_file_word(const char **s, int stop_at_pipe, struct strbuf *word, char *quote)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || (stop_at_pipe && *p == '|')) {
		*s = p;
		return 0;
	}
	strbuf_reset(word);
	while (*p && *p != ' ' && *p != '\t' && !(stop_at_pipe && *p == '|')) {
		if (*p == '\'' || *p == '"') {
			const char *end = strchr(p + 1, *p);
			if (!end) {
				*quote = *p;
				return -1;
			}
			strbuf_add(word, p + 1, (size_t)(end - p - 1));
			p = end + 1;
		} else {
			strbuf_addch(word, *p++);
		}
	}
	*s = p;
	return 1;
}

