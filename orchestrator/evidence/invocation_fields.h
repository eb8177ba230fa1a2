/*
 * invocation_fields: the one table of an invocation record's fields
 * (fields.h): what evidence.c writes into each invocation's result.json,
 * the journal and result.json's "invocations", and what evidence_read.c
 * reads back. A new field of struct invocation that evidence keeps is
 * one row here; the unit test holds the table to
 * evidence-schema/invocation.schema.json.
 */
#ifndef ABEV_INVOCATION_FIELDS_H
#define ABEV_INVOCATION_FIELDS_H

#include <stddef.h>

#include "evidence/evidence.h"
#include "evidence/fields.h"
#include "record/invocation.h"
#include "util/json_in.h"

extern const struct field invocation_fields[];
extern const size_t invocation_fields_count;

/* inv as a JSON object (caller deletes), with "schema" first when with_schema. */
json_node *invocation_fields_json(const struct invocation *inv, int with_schema);
/*
 * Reads the invocation o (named path in messages) into *inv, which is
 * overwritten; its unset figures start at -1. 0, or -1 after
 * json_in_error(); *inv then holds what was read (release it).
 */
int invocation_fields_read(const struct json_in *rd, const json_node *o, const char *path,
			   struct invocation *inv);

/* The pieces the results document (abev results --json) shares with the record. */
json_node *invocation_fields_results_file(const struct results_file *f);
void invocation_fields_counts(json_node *o, const struct results_counts *c);
json_node *invocation_fields_guard(const struct guard_result *g);
/* A prepare, setup or cleanup command's record as JSON (its "prepare" object's shape). */
json_node *invocation_fields_prepare_json(const struct invocation_prepare *p);
/* The same members added to o, after what o holds already. */
void invocation_fields_prepare_add(json_node *o, const struct invocation_prepare *p);

#endif
