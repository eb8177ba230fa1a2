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

#include "evidence/fields.h"
#include "record/run_header.h"
#include "util/json_in.h"

/* The rows, in the order result.json has them. */
extern const struct field run_fields[];
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
