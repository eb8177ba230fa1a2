/*
 * json_skim: a recursive descent over the bytes that only finds where
 * each value ends, refusing whatever strict JSON does not allow, and
 * cJSON_ParseWithLengthOpts() over the pieces asked for. A piece is
 * taken only when cJSON ends it exactly where the skim did: then the
 * whole-document parse would have read the same bytes into the same
 * value at that place, since cJSON never looks past the end of a
 * complete value.
 */
#include "util/json_skim.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/json_text.h"

/* Deeper than this is left to cJSON (json_text_check() allows far less). */
#define SKIM_MAX_DEPTH 256
/* A longer number is left to cJSON, whose older versions read only so many characters. */
#define SKIM_NUMBER_MAX 63

#define SKIM_FAIL SIZE_MAX

struct skim_text {
	const unsigned char *t;
	size_t len;
};

static size_t skip_ws(const struct skim_text *s, size_t i)
{
	while (i < s->len && (s->t[i] == ' ' || s->t[i] == '\t' || s->t[i] == '\n' || s->t[i] == '\r'))
		i++;
	return i;
}

static int hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The code unit of the \uXXXX at i (the backslash), or -1. */
static long utf16_unit(const struct skim_text *s, size_t i)
{
	long v = 0;

	if (i + 6 > s->len || s->t[i] != '\\' || s->t[i + 1] != 'u')
		return -1;
	for (size_t k = 2; k < 6; k++) {
		int d = hex_digit(s->t[i + k]);
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* The string opening at i: where it ends (past the closing quote), or SKIM_FAIL. */
static size_t skim_string(const struct skim_text *s, size_t i)
{
	const unsigned char *t = s->t;

	for (i++; (i = json_text_plain((const char *)t, i, s->len)) < s->len;) {
		unsigned char c = t[i];
		long u, lo;

		if (c == '"')
			return i + 1;
		if (c < 0x20)
			return SKIM_FAIL;
		if (c != '\\') {
			i++;
			continue;
		}
		if (i + 1 >= s->len)
			return SKIM_FAIL;
		switch (t[i + 1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			i += 2;
			break;
		case 'u':
			/* As cJSON decodes them: a low surrogate only after a high one. */
			u = utf16_unit(s, i);
			if (u < 0 || (u >= 0xdc00 && u <= 0xdfff))
				return SKIM_FAIL;
			if (u >= 0xd800 && u <= 0xdbff) {
				lo = utf16_unit(s, i + 6);
				if (lo < 0xdc00 || lo > 0xdfff)
					return SKIM_FAIL;
				i += 6;
			}
			i += 6;
			break;
		default:
			return SKIM_FAIL;
		}
	}
	return SKIM_FAIL;
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at i: where it ends, or SKIM_FAIL. */
static size_t skim_number(const struct skim_text *s, size_t i)
{
	const unsigned char *t = s->t;
	size_t start = i;

	if (i < s->len && t[i] == '-')
		i++;
	if (i >= s->len || !is_digit(t[i]))
		return SKIM_FAIL;
	if (t[i] == '0')
		i++;
	else
		while (i < s->len && is_digit(t[i]))
			i++;
	if (i < s->len && t[i] == '.') {
		if (++i >= s->len || !is_digit(t[i]))
			return SKIM_FAIL;
		while (i < s->len && is_digit(t[i]))
			i++;
	}
	if (i < s->len && (t[i] == 'e' || t[i] == 'E')) {
		if (++i < s->len && (t[i] == '+' || t[i] == '-'))
			i++;
		if (i >= s->len || !is_digit(t[i]))
			return SKIM_FAIL;
		while (i < s->len && is_digit(t[i]))
			i++;
	}
	/* A number runs into the next character that cJSON would read as part of it. */
	if (i - start > SKIM_NUMBER_MAX ||
	    (i < s->len && (is_digit(t[i]) || t[i] == '.' || t[i] == 'e' || t[i] == 'E' ||
			    t[i] == '+' || t[i] == '-')))
		return SKIM_FAIL;
	return i;
}

static size_t skim_word(const struct skim_text *s, size_t i, const char *w, size_t n)
{
	return i + n <= s->len && !memcmp(s->t + i, w, n) ? i + n : SKIM_FAIL;
}

static size_t skim_value(const struct skim_text *s, size_t i, unsigned depth);

/*
 * After an element or member that ends at end, in a container closed by
 * close: the start of the next one (past the comma and white space), or
 * with *closed set, the index just past close; SKIM_FAIL otherwise.
 */
static size_t skim_next(const struct skim_text *s, size_t end, unsigned char close, int *closed)
{
	size_t i = skip_ws(s, end);

	*closed = 0;
	if (i >= s->len)
		return SKIM_FAIL;
	if (s->t[i] == close) {
		*closed = 1;
		return i + 1;
	}
	if (s->t[i] != ',')
		return SKIM_FAIL;
	return skip_ws(s, i + 1);
}

/* The array or object opening at i: where it ends, or SKIM_FAIL. */
static size_t skim_container(const struct skim_text *s, size_t i, unsigned depth)
{
	int object = s->t[i] == '{', closed;
	unsigned char close = object ? '}' : ']';

	if (depth >= SKIM_MAX_DEPTH)
		return SKIM_FAIL;
	i = skip_ws(s, i + 1);
	if (i < s->len && s->t[i] == close)
		return i + 1;
	for (;;) {
		if (object) {
			if (i >= s->len || s->t[i] != '"' || (i = skim_string(s, i)) == SKIM_FAIL)
				return SKIM_FAIL;
			i = skip_ws(s, i);
			if (i >= s->len || s->t[i] != ':')
				return SKIM_FAIL;
			i = skip_ws(s, i + 1);
		}
		if ((i = skim_value(s, i, depth + 1)) == SKIM_FAIL)
			return SKIM_FAIL;
		i = skim_next(s, i, close, &closed);
		if (i == SKIM_FAIL || closed)
			return i;
	}
}

/* The value starting at i (no white space before it): where it ends, or SKIM_FAIL. */
static size_t skim_value(const struct skim_text *s, size_t i, unsigned depth)
{
	if (i >= s->len)
		return SKIM_FAIL;
	switch (s->t[i]) {
	case '"':
		return skim_string(s, i);
	case '{':
	case '[':
		return skim_container(s, i, depth);
	case 't':
		return skim_word(s, i, "true", 4);
	case 'f':
		return skim_word(s, i, "false", 5);
	case 'n':
		return skim_word(s, i, "null", 4);
	default:
		return skim_number(s, i);
	}
}

/* text[span] parsed by cJSON, or NULL unless it parses to exactly that end. */
static cJSON *parse_span(const struct skim_text *s, size_t off, size_t len)
{
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts((const char *)s->t + off, len, &end, 0);

	if (j && end != (const char *)s->t + off + len) {
		cJSON_Delete(j);
		j = NULL;
	}
	return j;
}

/* The key whose string is text[off..end): decoded (caller frees), or NULL when cJSON refuses it. */
static char *key_text(const struct skim_text *s, size_t off, size_t end)
{
	cJSON *j;
	char *k;

	/* Without an escape (the skim refused control characters) the bytes are the key. */
	if (!memchr(s->t + off, '\\', end - off))
		return xstrndup((const char *)s->t + off + 1, end - off - 2);
	j = parse_span(s, off, end - off);
	k = cJSON_IsString(j) ? xstrdup(j->valuestring) : NULL;
	cJSON_Delete(j);
	return k;
}

static int wanted(const struct json_skim *sk, const char *key)
{
	if (!sk->keys)
		return 1;
	for (size_t i = 0; sk->keys[i]; i++)
		if (!strcmp(sk->keys[i], key))
			return 1;
	return 0;
}

/* A member sk wants that is parsed already: only the first of a name is read. */
static int have_member(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key) != NULL;
}

/*
 * The array at i, sk's located member: checked as skim_value() does, with
 * where each element stands noted in sk->elements. Where it ends, or
 * SKIM_FAIL.
 */
static size_t skim_elements(const struct skim_text *s, size_t i, struct json_skim *sk)
{
	int closed;

	i = skip_ws(s, i + 1);
	if (i < s->len && s->t[i] == ']')
		return i + 1;
	for (;;) {
		size_t end = skim_value(s, i, 2);

		if (end == SKIM_FAIL)
			return SKIM_FAIL;
		ALLOC_GROW(sk->elements, sk->nelements + 1, sk->elements_alloc);
		sk->elements[sk->nelements++] = (struct json_span){ i, end - i };
		i = skim_next(s, end, ']', &closed);
		if (i == SKIM_FAIL || closed)
			return i;
	}
}

/*
 * The members of the object at i into o, as json_skim_object() says,
 * each value checked as it is reached: where the object ends, or
 * SKIM_FAIL (what was parsed then is the caller's to drop).
 */
static size_t skim_members(const struct skim_text *s, size_t i, struct json_skim *sk, cJSON *o)
{
	int closed;

	i = skip_ws(s, i + 1);
	if (i < s->len && s->t[i] == '}')
		return i + 1;
	for (;;) {
		size_t key = i, key_end, value, value_end;
		int located;
		char *k;

		if (i >= s->len || s->t[i] != '"' || (key_end = skim_string(s, i)) == SKIM_FAIL)
			return SKIM_FAIL;
		i = skip_ws(s, key_end);
		if (i >= s->len || s->t[i] != ':')
			return SKIM_FAIL;
		value = skip_ws(s, i + 1);
		if (!(k = key_text(s, key, key_end)))
			return SKIM_FAIL;
		located = sk->span_key && !strcmp(k, sk->span_key);
		if (located && !sk->found && value < s->len && s->t[value] == '[')
			value_end = skim_elements(s, value, sk);
		else
			value_end = skim_value(s, value, 1);
		if (value_end == SKIM_FAIL) {
			free(k);
			return SKIM_FAIL;
		}
		if (located) {
			if (!sk->found)
				sk->span = (struct json_span){ value, value_end - value };
			sk->found = 1;
		} else if (wanted(sk, k) && !have_member(o, k)) {
			cJSON *v = parse_span(s, value, value_end - value);
			if (!v || !cJSON_AddItemToObject(o, k, v)) {
				cJSON_Delete(v);
				free(k);
				return SKIM_FAIL;
			}
		}
		free(k);
		i = skim_next(s, value_end, '}', &closed);
		if (i == SKIM_FAIL || closed)
			return i;
	}
}

json_node *json_skim_object(const char *text, size_t len, struct json_skim *sk)
{
	struct skim_text s = { (const unsigned char *)text, len };
	size_t start = skip_ws(&s, 0), end;
	cJSON *o;

	json_skim_release(sk);
	if (start >= len || s.t[start] != '{')
		return NULL;
	o = cJSON_CreateObject();
	if (!o)
		die_oom();
	end = skim_members(&s, start, sk, o);
	if (end == SKIM_FAIL || skip_ws(&s, end) != len) {
		cJSON_Delete(o);
		json_skim_release(sk);
		return NULL;
	}
	return o;
}

int json_skim_array(const char *text, const struct json_skim *sk,
		    int (*each)(void *ctx, const json_node *element, size_t index), void *ctx)
{
	struct skim_text s = { (const unsigned char *)text, sk->span.off + sk->span.len };

	for (size_t n = 0; n < sk->nelements; n++) {
		cJSON *e = parse_span(&s, sk->elements[n].off, sk->elements[n].len);
		int rc;

		if (!e)
			return 1;
		rc = each(ctx, e, n);
		cJSON_Delete(e);
		if (rc)
			return rc;
	}
	return 0;
}

void json_skim_release(struct json_skim *sk)
{
	free(sk->elements);
	sk->elements = NULL;
	sk->nelements = sk->elements_alloc = 0;
	sk->span = (struct json_span){ 0, 0 };
	sk->found = 0;
}
