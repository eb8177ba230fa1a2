/*
 * json_in: typed reading of a parsed JSON document, for the modules that
 * read what abev or its user wrote (the plan loader, evidence_read.c).
 * Each getter checks one member's type and range and, when it is wrong,
 * reports one message that names the file and the JSON path
 * ("p.json: schedule.runs: expected an integer from 1 to 1000000, found
 * 0"). Messages go either to an errlist (every problem, for a plan) or
 * to a single string (the first problem, for evidence). It does not
 * parse text (its callers do, with cJSON) and decides nothing about what
 * a document means.
 *
 * json_node is cJSON's node, opaque here: only json_in.c and its direct
 * users, which include <cjson/cJSON.h> themselves, look inside.
 */
#ifndef ABEV_JSON_IN_H
#define ABEV_JSON_IN_H

#include <stddef.h>
#include <stdint.h>

#include "util/errlist.h"
#include "util/compiler.h"

typedef struct cJSON json_node;

/* Above 2^53 a double no longer holds every integer. */
#define JSON_INT_MAX 9007199254740991LL
/* Room for a quoted piece of input in a message. */
#define SHOW_MAX 64

/* Where a reader's messages go. Borrowed. */
struct json_in {
	const char *file;          /* named first in every message */
	struct errlist *errors;    /* every problem, when not NULL */
	char **first;              /* otherwise the first problem only (caller frees) */
};

/* "<file>: <path>: <msg>" to in's errors or first. Returns -1. */
int json_in_error(const struct json_in *in, const char *path, const char *fmt, ...)
	ABEV_PRINTF(3, 4);
/* Problems reported so far: a step failed when this grew. */
size_t json_in_count(const struct json_in *in);

/* What a value is, for "found ...": "a string", "an empty array", ... */
const char *json_kind(const json_node *j);
/* The same, but a number is shown ("1.5"). Returns buf or a constant. */
const char *json_found(char buf[SHOW_MAX], const json_node *j);
/* "schedule" + "runs" -> "schedule.runs" (key shown safely); "" + "runs" -> "runs". Caller frees. */
char *json_key_path(const char *path, const char *key);
/* "variants" + 2 -> "variants[2]". Caller frees. */
char *json_index_path(const char *path, size_t i);

/* How a getter treats a member that is absent or null. */
enum {
	JSON_REQUIRED = 1,   /* absent is an error (else: return 0, *out untouched) */
	JSON_NULLABLE = 2,   /* null is taken as absent */
	JSON_NONEMPTY = 4,   /* strings only: "" is refused */
};

/*
 * Every getter reads member key of object obj (at path) into *out and
 * returns 1; returns 0 when it is absent (or null, when nullable) and
 * allowed to be, leaving *out alone; -1 after json_in_error() otherwise.
 */
/* *out is borrowed from obj; NULL unless 1 is returned. */
int json_get_object(const struct json_in *in, const json_node *obj, const char *path,
		    const char *key, unsigned flags, const json_node **out);
/* Likewise for an array. */
int json_get_array(const struct json_in *in, const json_node *obj, const char *path,
		   const char *key, unsigned flags, const json_node **out);
/* *out is a copy (caller frees); an earlier *out is freed. */
int json_get_string(const struct json_in *in, const json_node *obj, const char *path,
		    const char *key, unsigned flags, char **out);
/* An integer (a number without fraction) from min to max. */
int json_get_int(const struct json_in *in, const json_node *obj, const char *path,
		 const char *key, unsigned flags, int64_t min, int64_t max, int64_t *out);
/*
 * A finite number >= min (> min when min_exclusive) and <= max; with
 * -HUGE_VAL and HUGE_VAL any finite number.
 */
int json_get_number(const struct json_in *in, const json_node *obj, const char *path,
		    const char *key, unsigned flags, double min, int min_exclusive, double max,
		    double *out);
/* true or false into *out as 1 or 0. */
int json_get_bool(const struct json_in *in, const json_node *obj, const char *path,
		  const char *key, unsigned flags, int *out);
/*
 * An array of strings into a NULL-terminated vector (caller frees with
 * strv_free()) and its length; *out is NULL unless 1 is returned.
 */
int json_get_strings(const struct json_in *in, const json_node *obj, const char *path,
		     const char *key, unsigned flags, char ***out, size_t *n);

/*
 * Refuses members of obj not in known[0..nknown), naming the known ones
 * and the nearest of them, and members given twice (which cJSON would
 * keep silently, the first one winning). Every such member is reported.
 * 0, or -1 when any was.
 */
int json_check_keys(const struct json_in *in, const json_node *obj, const char *path,
		    const char *const *known, size_t nknown);

#endif
