/*
 * run_fields: the one table of the header fields of the top-level
 * result.json (abev.run/1) — each row a JSON key, its type and unit,
 * whether the schema requires it and how an unset value is written —
 * and the writer and reader that walk it. A new header field is a member
 * of struct run_header (record/run_header.h) and one row here; the unit
 * test holds the table to evidence-schema/run.schema.json. The
 * comparison and the invocations, which follow the header, are
 * evidence.c's and evidence_read.c's.
 */
#ifndef ABEV_RUN_FIELDS_H
#define ABEV_RUN_FIELDS_H

#include <stddef.h>

#include "record/run_header.h"
#include "util/json_in.h"

enum run_field_type {
	RUN_FIELD_OBJECT,     /* opens an object: the rows after it with its key as prefix go in it */
	RUN_FIELD_CONST,      /* a fixed string (value) */
	RUN_FIELD_STRING,     /* const char * */
	RUN_FIELD_STRINGS,    /* const char *const * and its size_t count (count_off) */
	RUN_FIELD_U64,        /* uint64_t, 0 to 2^53 - 1 */
	RUN_FIELD_UNSIGNED,   /* unsigned, 0 to UINT32_MAX */
	RUN_FIELD_I64,        /* int64_t */
	RUN_FIELD_NUMBER,     /* double */
	RUN_FIELD_BOOL,       /* int, 0 or 1 */
	RUN_FIELD_NS_SECONDS, /* int64_t nanoseconds, written as seconds to the millisecond */
};

enum {
	RUN_FIELD_REQUIRED = 1,     /* the schema requires the key: it is always written */
	RUN_FIELD_READ = 2,         /* the reader refuses evidence without it */
	RUN_FIELD_NULLABLE = 4,     /* null means unset: a NULL string, a number's unset value */
	RUN_FIELD_NULL_EMPTY = 8,   /* strings: "" is written as null */
	RUN_FIELD_NULL_NEGATIVE = 16, /* numbers: a value < 0 is unset, written null, read back as -1 */
	RUN_FIELD_NULL_NONPOSITIVE = 32, /* numbers: a value <= 0 is unset, written null, read back as 0 */
	RUN_FIELD_NULL_UNLESS = 64, /* objects: written null when the string at off is NULL */
};

struct run_field {
	const char *key;        /* "schedule.gap_seconds": an object's key, a dot, the member's */
	enum run_field_type type;
	size_t off;             /* in struct run_header; objects: the string that decides null */
	size_t count_off;       /* strings: the count's */
	unsigned flags;
	const char *unit;       /* "s", "bytes", "%", or NULL */
	const char *value;      /* RUN_FIELD_CONST */
	const char *missing;    /* objects: why evidence without it cannot be read, or NULL */
};

/* The rows, in the order result.json has them. */
extern const struct run_field run_fields[];
extern const size_t run_fields_count;

/* Adds every header field of hdr to o, in the table's order. */
void run_fields_write(json_node *o, const struct run_header *hdr);
/*
 * Reads the header fields of root into *hdr, which starts at the unset
 * values (RUN_HEADER_INIT is not enough: some numbers are unset at -1).
 * Every string and list read is a new allocation handed to keep(ctx, p)
 * (a list: each string, then the vector), which owns it from then on.
 * 0, or -1 after json_in_error().
 */
int run_fields_read(const struct json_in *rd, const json_node *root, struct run_header *hdr,
		    void (*keep)(void *ctx, void *p), void *ctx);
/* hdr with every field unset, as run_fields_read() starts from. */
void run_fields_unset(struct run_header *hdr);

#endif
