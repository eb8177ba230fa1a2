/*
 * json_out: cJSON with exhaustion made fatal. cJSON reports every failed
 * allocation by a NULL; abev treats running out of memory as fatal
 * (alloc.h), so these wrappers keep the serialisers free of checks. What
 * they print is UTF-8 with every character a terminal or a viewer would
 * act on written as a \u escape.
 */
#include "util/json_out.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/number.h"
#include "util/strbuf.h"
#include "util/utf8.h"

cJSON *jnew_object(void)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		die_oom();
	return o;
}

cJSON *jnew_array(void)
{
	cJSON *a = cJSON_CreateArray();
	if (!a)
		die_oom();
	return a;
}

cJSON *jnull(void)
{
	cJSON *n = cJSON_CreateNull();
	if (!n)
		die_oom();
	return n;
}

void jadd(cJSON *obj, const char *key, cJSON *val)
{
	if (!val || !cJSON_AddItemToObject(obj, key, val))
		die_oom();
}

void jadd_str(cJSON *obj, const char *key, const char *s)
{
	jadd(obj, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

void jadd_int(cJSON *obj, const char *key, int64_t v)
{
	jadd(obj, key, cJSON_CreateNumber((double)v));
}

void jadd_int_or_null(cJSON *obj, const char *key, int64_t v, int present)
{
	jadd(obj, key, present ? cJSON_CreateNumber((double)v) : cJSON_CreateNull());
}

void jadd_num(cJSON *obj, const char *key, double v)
{
	jadd(obj, key, cJSON_CreateNumber(round(v * 1e6) / 1e6));
}

/*
 * cJSON prints 15 significant digits when they read back within an
 * epsilon, which is not always the same double: a value read back from
 * the evidence must be the one computed, so it is written as
 * double_text() gives it.
 */
cJSON *jreal(double v)
{
	char buf[DOUBLE_TEXT_LEN];
	cJSON *j;

	if (!isfinite(v))
		return jnull();
	j = cJSON_CreateRaw(double_text(buf, v));
	if (!j)
		die_oom();
	return j;
}

void jadd_real(cJSON *obj, const char *key, double v)
{
	jadd(obj, key, jreal(v));
}

void jadd_bool(cJSON *obj, const char *key, int b)
{
	jadd(obj, key, cJSON_CreateBool(b));
}

void jpush(cJSON *arr, cJSON *val)
{
	if (!val || !cJSON_AddItemToArray(arr, val))
		die_oom();
}

/*
 * cJSON writes a string's characters as they come, C0 aside. The ones a
 * terminal or a viewer would act on or not show (DEL and unicode_hidden()'s:
 * C1, bidirectional controls, line separators...) go out as \uXXXX
 * escapes instead, and a byte that is not UTF-8 as \ufffd, so that the
 * document is UTF-8 and shows what it holds wherever it is looked at.
 * Outside strings cJSON writes only ASCII, so no structure is touched.
 */
/* How many bytes from s are below DEL: ASCII that goes out as it is. Eight at a time. */
static size_t ascii_run(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	/* A byte of 0x7f or more sets its high bit in x or in x + 1 (a carry only adds to them). */
	for (uint64_t x; i + 8 <= n; i += 8) {
		memcpy(&x, u + i, 8);
		if ((x | (x + ones)) & highs)
			break;
	}
	while (i < n && u[i] < 0x7f)
		i++;
	return i;
}

static void add_json_text(struct strbuf *sb, const char *text)
{
	size_t n = strlen(text);

	strbuf_grow(sb, n + 1);
	for (size_t i = 0; i < n;) {
		size_t run = ascii_run(text + i, n - i), len;
		uint32_t cp;

		if (run) {
			strbuf_add(sb, text + i, run);
			i += run;
			continue;
		}
		len = utf8_char_len(text + i, n - i);
		cp = len ? utf8_code_point(text + i, len) : 0xfffd;
		if (!len || cp == 0x7f || unicode_hidden(cp))
			strbuf_addf(sb, "\\u%04x", (unsigned)cp);
		else
			strbuf_add(sb, text + i, len);
		i += len ? len : 1;
	}
}

char *json_print_bare(const cJSON *o, int formatted)
{
	char *text = formatted ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
	struct strbuf sb = STRBUF_INIT;

	if (!text)
		die_oom();
	add_json_text(&sb, text);
	cJSON_free(text);
	return strbuf_detach(&sb, NULL);
}

char *json_print(const cJSON *o)
{
	char *text = json_print_bare(o, 1), *line = xasprintf("%s\n", text);

	free(text);
	return line;
}

cJSON *jstrings(const char *const *v, size_t n)
{
	cJSON *arr = jnew_array();
	for (size_t i = 0; i < n; i++)
		jpush(arr, cJSON_CreateString(v[i]));
	return arr;
}
