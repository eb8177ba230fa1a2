/*
 * json_text: one pass over the bytes with a stack of the open arrays and
 * objects — for each, the key or index being read — which is all it takes
 * to name the path of a string. Brackets and quotes inside strings are
 * skipped with the string, so they neither nest nor end anything.
 */
#include "json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Levels of a path named in a message. */
#define JSON_TEXT_PATH_SHOWN 8

struct frame {
	int is_object;
	int want_key;          /* an object: the next string is a key */
	size_t index;          /* an array: the element being read */
	size_t key, key_len;   /* an object: the raw text of the current key */
};

struct scan {
	const char *file, *text;
	size_t len;
	struct frame *stack;
	size_t depth;
};

void json_text_line_col(const char *buf, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

/* The path of what is being read: "variants[0].command[1]", or "(top level)". */
static void scan_path(const struct scan *sc, size_t depth, struct strbuf *path)
{
	for (size_t d = 0; d < depth; d++) {
		const struct frame *f = &sc->stack[d];
		/* Deep enough to place it: the rest would fill the line. */
		if (d == JSON_TEXT_PATH_SHOWN) {
			strbuf_adds(path, "...");
			break;
		}
		if (!f->is_object) {
			strbuf_addf(path, "[%zu]", f->index);
			continue;
		}
		if (path->len)
			strbuf_addch(path, '.');
		strbuf_add_escaped(path, sc->text + f->key, f->key_len);
	}
	if (!path->len)
		strbuf_adds(path, "(top level)");
}

/* "<file>:<line>:<col>: <path>: <what>" for the byte at off. Returns -1. */
static int scan_error(const struct scan *sc, size_t off, int in_key, const char *what)
{
	struct strbuf path = STRBUF_INIT;
	size_t line, col;

	json_text_line_col(sc->text, off, &line, &col);
	/* A key's own problem is placed at the object that holds it. */
	scan_path(sc, in_key ? sc->depth - 1 : sc->depth, &path);
	error("%s:%zu:%zu: %s: %s%s", sc->file, line, col, path.buf, in_key ? "a key: " : "", what);
	strbuf_release(&path);
	return -1;
}

/*
 * The string whose opening quote is at *pos: checked, and *pos moved past
 * its closing quote (or to the end of an unterminated one, which cJSON
 * reports). Its raw text is text[start..end).
 */
static int scan_string(struct scan *sc, size_t *pos, int in_key, size_t *start, size_t *end)
{
	const char *t = sc->text;
	size_t i = *pos + 1;
	char what[96];

	*start = i;
	while (i < sc->len && t[i] != '"') {
		size_t n;
		if (t[i] == '\\') {
			if (i + 5 < sc->len && !memcmp(t + i + 1, "u0000", 5))
				return scan_error(sc, i, in_key, "\\u0000 (a NUL character) in a string "
						  "(expected text without NUL: a NUL would end it early)");
			i += 2;
			continue;
		}
		n = utf8_char_len(t + i, sc->len - i);
		if (!n) {
			snprintf(what, sizeof(what), "byte 0x%02x is not UTF-8 (expected UTF-8 text)",
				 (unsigned char)t[i]);
			return scan_error(sc, i, in_key, what);
		}
		i += n;
	}
	*end = i < sc->len ? i : sc->len;
	*pos = i < sc->len ? i + 1 : sc->len;
	return 0;
}

/* A '[' or '{' at off: one more level, if the limit allows. */
static int scan_open(struct scan *sc, size_t off, unsigned max_depth)
{
	struct frame *f;
	char what[96];

	if (sc->depth >= max_depth) {
		snprintf(what, sizeof(what), "nesting deeper than %u levels of arrays and objects",
			 max_depth);
		return scan_error(sc, off, 0, what);
	}
	f = &sc->stack[sc->depth++];
	memset(f, 0, sizeof(*f));
	f->is_object = sc->text[off] == '{';
	f->want_key = f->is_object;
	return 0;
}

int json_text_check(const char *file, const char *text, size_t len, unsigned max_depth)
{
	struct scan sc = { file, text, len, NULL, 0 };
	size_t i = 0;
	int ret = 0;

	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		return error("%s:1:1: the file starts with a UTF-8 byte order mark (expected JSON "
			     "text without one: save the file as UTF-8 without BOM)", file);
	sc.stack = xcalloc(max_depth ? max_depth : 1, sizeof(*sc.stack));
	while (i < len && ret == 0) {
		struct frame *top = sc.depth ? &sc.stack[sc.depth - 1] : NULL;
		char c = text[i];
		size_t start = 0, end = 0;

		if (c == '"') {
			int in_key = top && top->want_key;
			ret = scan_string(&sc, &i, in_key, &start, &end);
			if (in_key) {
				top->key = start;
				top->key_len = end - start;
				top->want_key = 0;
			}
			continue;
		}
		if (c == '[' || c == '{')
			ret = scan_open(&sc, i, max_depth);
		else if ((c == ']' || c == '}') && sc.depth)
			sc.depth--;
		else if (c == ',' && top && top->is_object)
			top->want_key = 1;
		else if (c == ',' && top)
			top->index++;
		i++;
	}
	free(sc.stack);
	return ret;
}
