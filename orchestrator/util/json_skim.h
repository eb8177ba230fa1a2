/*
 * json_skim: reading a large JSON document a piece at a time. It checks
 * the whole text once without building anything, then parses with cJSON
 * only the members a reader asks for, or one element of an array at a
 * time, so that reading a few members of a 40 MB result.json, or its
 * invocations one after another, costs neither a tree of the whole file
 * nor the time to build and free one.
 *
 * The check is strict JSON (RFC 8259: no control character in a string,
 * no trailing comma, nothing but white space after the value), which
 * cJSON accepts whole; cJSON accepts more (any byte up to a space as
 * white space, text after the value, ...). Text the check refuses is not
 * called wrong here: the caller parses it whole with cJSON, which says
 * what it makes of it, so a reader gives the same answer either way. It
 * makes none of json_text.h's checks: callers run json_text_check() first.
 */
#ifndef ABEV_JSON_SKIM_H
#define ABEV_JSON_SKIM_H

#include <stddef.h>

#include "util/json_in.h"

/* The bytes of one value: text[off..off + len). */
struct json_span {
	size_t off, len;
};

/*
 * What json_skim_object() parses of the object: the members named in
 * keys (NULL-terminated; NULL: every member), but for the one named
 * span_key (or none when NULL), which is only located: the bytes of its
 * first value go to span, found set, and when that value is an array,
 * where each of its elements stands to elements (for json_skim_array());
 * a later one is dropped. Of a name given twice, the first value is the
 * one json_get_*() then find, as they would in the whole document.
 * Initialise with JSON_SKIM_INIT(keys, span_key); json_skim_release()
 * frees elements.
 */
struct json_skim {
	const char *const *keys;
	const char *span_key;
	struct json_span span;
	int found;
	struct json_span *elements;
	size_t nelements, elements_alloc;
};
#define JSON_SKIM_INIT(keys, span_key) { (keys), (span_key), { 0, 0 }, 0, NULL, 0, 0 }

/*
 * The object text[0..len) holds, with the members sk names, each parsed
 * by cJSON from its own bytes, in the document's order (caller frees
 * with cJSON_Delete()); or NULL when the text is not strictly one JSON
 * object, or a piece does not parse: then parse it whole. One pass: the
 * text is checked as the members are found.
 */
json_node *json_skim_object(const char *text, size_t len, struct json_skim *sk);

/*
 * Calls each(ctx, element, index) with every element of the array sk
 * located (json_skim_object() on the same text), in order, each parsed
 * by cJSON from its own bytes and freed after the call; each returns 0
 * to go on, or a negative value, which stops it. Returns 0, each's
 * negative value, or 1 when an element does not parse as the skim found
 * it (which cannot happen to text json_skim_object() accepted).
 */
int json_skim_array(const char *text, const struct json_skim *sk,
		    int (*each)(void *ctx, const json_node *element, size_t index), void *ctx);

/* Frees what json_skim_object() noted; sk is ready for another call. */
void json_skim_release(struct json_skim *sk);

#endif
