/*
 * json_text: one pass over the bytes with a stack of the open arrays and
 * objects — for each, the key or index being read — which is all it takes
 * to name the path of a string. Brackets and quotes inside strings are
 * skipped with the string, so they neither nest nor end anything.
 */
#include "util/json_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/escape.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/utf8.h"

/* Levels of a path named in a message. */
#define JSON_TEXT_PATH_SHOWN 8
/* Room for a bad number quoted in a message. */
#define SHOW_WORD_MAX 40

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

size_t json_text_plain(const char *text, size_t i, size_t len)
{
	const unsigned char *t = (const unsigned char *)text;
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;

	while (i + 8 <= len) {
		uint64_t x, quote, bslash, ctrl;

		memcpy(&x, t + i, 8);
		quote = x ^ (ones * '"');
		bslash = x ^ (ones * '\\');
		/*
		 * Each term sets a byte's high bit where that byte is 0 (after
		 * the xor), below 0x20, or past ASCII; a borrow may set others,
		 * but never when no byte is one of them.
		 */
		quote = (quote - ones) & ~quote;
		bslash = (bslash - ones) & ~bslash;
		ctrl = (x - ones * 0x20) & ~x;
		if ((quote | bslash | ctrl | x) & highs)
			break;
		i += 8;
	}
	while (i < len && t[i] >= 0x20 && t[i] < 0x80 && t[i] != '"' && t[i] != '\\')
		i++;
	return i;
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
	while ((i = json_text_plain(t, i, sc->len)) < sc->len && t[i] != '"') {
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

/* Characters of a bare word: a number, true, false, null, or a mistake. */
static int word_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '+' || c == '-' || c == '.' || c == '_';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int word_is(const char *w, size_t n, const char *s)
{
	size_t k = strlen(s);

	if (n != k)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((w[i] | 0x20) != s[i])
			return 0;
	return 1;
}

/*
 * Why the word w[0..n) is not a JSON number (RFC 8259:
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), or NULL when it is one.
 */
static const char *number_problem(const char *w, size_t n)
{
	size_t i = 0;

	if (w[0] == '+')
		return "a leading '+'";
	if (w[0] == '-')
		i++;
	if (word_is(w + i, n - i, "nan") || word_is(w + i, n - i, "inf") ||
	    word_is(w + i, n - i, "infinity"))
		return "NaN and Infinity are not numbers in JSON";
	if (i < n && w[i] == '.')
		return "no digit before '.'";
	if (i == n || !is_digit(w[i]))
		return "no digit";
	if (w[i] == '0' && i + 1 < n && (w[i + 1] == 'x' || w[i + 1] == 'X'))
		return "a hexadecimal number";
	if (w[i] == '0' && i + 1 < n && is_digit(w[i + 1]))
		return "a leading zero";
	while (i < n && is_digit(w[i]))
		i++;
	if (i < n && w[i] == '.') {
		if (++i == n || !is_digit(w[i]))
			return "no digit after '.'";
		while (i < n && is_digit(w[i]))
			i++;
	}
	if (i < n && (w[i] == 'e' || w[i] == 'E')) {
		if (++i < n && (w[i] == '+' || w[i] == '-'))
			i++;
		if (i == n || !is_digit(w[i]))
			return "no digit in the exponent";
		while (i < n && is_digit(w[i]))
			i++;
	}
	return i == n ? NULL : "characters after the number";
}

/*
 * A bare word where a value goes, at *pos: a number is checked, since
 * cJSON reads what strtod() reads (01, 1., -.5 pass as numbers there).
 * Words that start no number (a misspelt true) are left to cJSON.
 */
static int scan_word(struct scan *sc, size_t *pos)
{
	const char *w = sc->text + *pos;
	size_t n = 0, k;
	const char *why;
	char shown[SHOW_WORD_MAX], what[160];

	while (*pos + n < sc->len && word_char(w[n]))
		n++;
	*pos += n;
	/* The usual word, digits alone (and no leading zero), is a number. */
	for (k = 0; k < n && is_digit(w[k]); k++)
		;
	if (k == n && (w[0] != '0' || n == 1))
		return 0;
	if (!(is_digit(w[0]) || w[0] == '-' || w[0] == '+' || w[0] == '.' ||
	      word_is(w, n, "nan") || word_is(w, n, "infinity")))
		return 0;
	why = number_problem(w, n);
	if (!why)
		return 0;
	snprintf(what, sizeof(what), "'%s' is not a JSON number: %s (expected a number as JSON "
		 "writes it, such as 1, 0.5, -2 or 1e3)", show_text(shown, sizeof(shown), w, n),
		 why);
	return scan_error(sc, (size_t)(w - sc->text), 0, what);
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
		char c = text[i];

		/* White space and colons change nothing here. */
		if (c == '\t' || c == '\n' || c == ' ' || c == ':' || c == '\r') {
			i++;
			continue;
		}
		struct frame *top = sc.depth ? &sc.stack[sc.depth - 1] : NULL;
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
		if (word_char(c) && !(top && top->want_key)) {
			ret = scan_word(&sc, &i);
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
