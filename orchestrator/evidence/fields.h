/*
 * fields: the engine of abev's field tables — a table of rows, each a
 * JSON key, its type and unit, whether the schema requires it, how an
 * unset value is written, and where the value lives in a C struct — and
 * the writer and reader that walk a table over one record. The tables
 * themselves are run_fields.c (the header of result.json) and
 * invocation_fields.c (an invocation's record); a unit test holds each
 * to its schema in evidence-schema/. It knows no record of its own.
 */
#ifndef ABEV_FIELDS_H
#define ABEV_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "util/json_in.h"

enum field_type {
	FIELD_OBJECT,     /* opens an object: the rows after it with its key as prefix go in it */
	FIELD_CONST,      /* a fixed string (value) */
	FIELD_STRING,     /* const char *, borrowed; the reader hands what it reads to keep() */
	FIELD_OWNED,      /* char *, the record's own; the reader stores a new string */
	FIELD_CHARS,      /* char[count_off]: a copy, cut to fit */
	FIELD_STRINGS,    /* const char *const * and its size_t count (count_off), borrowed */
	FIELD_OWNED_STRINGS, /* char ** (NULL-terminated) and its size_t count, the record's own */
	FIELD_U64,        /* uint64_t */
	FIELD_UNSIGNED,   /* unsigned */
	FIELD_INT,        /* int */
	FIELD_LONG,       /* long */
	FIELD_I64,        /* int64_t */
	FIELD_SIZE,       /* size_t */
	FIELD_NUMBER,     /* double, rounded to 6 decimals when written */
	FIELD_BOOL,       /* int, 0 or 1 (FIELD_NULL_NEGATIVE: -1 is unset) */
	FIELD_NS_SECONDS, /* int64_t nanoseconds, written as seconds to the millisecond */
	FIELD_ENUM,       /* an enum (int-sized), written as names[value]; read back from the name;
			     a NULL name is null (FIELD_NULLABLE) */
	FIELD_CUSTOM,     /* written and read by the row's own functions */
};

enum {
	FIELD_REQUIRED = 1,       /* the schema requires the key: it is always written */
	FIELD_READ = 2,           /* the reader reads it and refuses a record without it */
	FIELD_NULLABLE = 4,       /* null means unset: a NULL string, a number's unset value */
	FIELD_NULL_EMPTY = 8,     /* strings: "" is written as null */
	FIELD_NULL_NEGATIVE = 16, /* numbers: a value < 0 is unset, written null, read back as -1 */
	FIELD_NULL_NONPOSITIVE = 32, /* numbers: a value <= 0 is unset, written null, read as 0 */
	FIELD_NULL_UNLESS = 64,   /* objects: written null when the string at off is NULL */
	FIELD_OPTIONAL = 128,     /* read when present (FIELD_READ without refusing its absence) */
};

struct field {
	const char *key;        /* "schedule.gap_seconds": an object's key, a dot, the member's */
	enum field_type type;
	size_t off;             /* in the record; objects: the string that decides null */
	size_t count_off;       /* lists: the count's offset; FIELD_CHARS: the array's size */
	unsigned flags;
	const char *unit;       /* "s", "ns", "bytes", "%", or NULL */
	const char *value;      /* FIELD_CONST */
	const char *missing;    /* objects: why a record without it cannot be read, or NULL */
	int64_t min, max;       /* integers read: the bounds (both 0: 0 to 2^53) */
	const char *const *names; /* FIELD_ENUM: the name of each value, 0 to nnames - 1 */
	size_t nnames;
	/* FIELD_CUSTOM: adds key to o; reads key of o (path names o in messages), 0 or -1. */
	void (*write)(json_node *o, const char *key, const void *rec);
	int (*read)(const struct json_in *rd, const json_node *o, const char *path,
		    const char *key, void *rec);
};

/* Adds the rows' fields of rec to o, in the table's order. */
void fields_write(json_node *o, const struct field *rows, size_t n, const void *rec);
/*
 * Reads the rows marked FIELD_READ or FIELD_OPTIONAL from o (named path
 * in messages, "" for the top) into rec, which starts at the unset
 * values (fields_unset()). A FIELD_STRING or FIELD_STRINGS read is a new
 * allocation handed to keep(ctx, p) (a list: each string, then the
 * vector), which owns it from then on. 0, or -1 after json_in_error().
 */
int fields_read(const struct json_in *rd, const json_node *o, const char *path,
		const struct field *rows, size_t n, void *rec,
		void (*keep)(void *ctx, void *p), void *ctx);
/* Sets every field the rows say is unset at -1 to -1 (the rest are left alone). */
void fields_unset(const struct field *rows, size_t n, void *rec);
/*
 * Frees the rows' FIELD_OWNED and FIELD_OWNED_STRINGS of rec, leaves them
 * NULL (and their counts 0), then fields_unset(): rec is reusable, and a
 * second call does nothing.
 */
void fields_release(const struct field *rows, size_t n, void *rec);
/*
 * Copies the rows' fields of src into dst: owned strings and lists as
 * new allocations, borrowed ones as the same pointers. Custom rows are
 * not copied. What dst held is overwritten, not freed.
 */
void fields_copy(const struct field *rows, size_t n, void *dst, const void *src);

#endif
