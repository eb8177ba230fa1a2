/*
 * variants_file: lines are cut before they are split, so that a NUL byte
 * or an unterminated quote costs one line, not the rest of the file.
 */
#include "variants_file.h"

#include <stdlib.h>
#include <string.h>

void variants_file_lines(const char *text, size_t len,
			 void (*fn)(void *ctx, const char *line, size_t lineno), void *ctx)
{
	const char *p = text, *end = text + len;
	size_t lineno = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line;
		const char *t;

		lineno++;
		if (memchr(p, '\0', n)) {
			fn(ctx, NULL, lineno);
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
			fn(ctx, line, lineno);
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

