/*
 * metadata_fields: the one table of metadata.json's (abev.metadata/1)
 * "host" object — each row a key of it, its type, whether the schema
 * requires it, how an unknown value is written, and where the value
 * lives in struct host_facts (record/host_facts.h) — and what walks it:
 * host/metadata.c writes the facts it collected through it,
 * evidence_read.c reads them back through it into the same struct, and
 * the unit test holds it to evidence-schema/metadata.schema.json. The
 * rest of the document (environments, variants) is metadata.c's and
 * evidence_read.c's.
 */
#ifndef ABEV_METADATA_FIELDS_H
#define ABEV_METADATA_FIELDS_H

#include <stddef.h>

#include "evidence/fields.h"
#include "record/host_facts.h"
#include "util/json_in.h"

/* The rows, in the order metadata.json has them. */
extern const struct field metadata_fields[];
extern const size_t metadata_fields_count;

/* Adds "host" with every fact of h to root (the document's top object). */
void metadata_fields_write(json_node *root, const struct host_facts *h);
/*
 * Reads "host" of root into *h, which starts as metadata_fields_unset()
 * leaves it (or released). Strings are new allocations, h's own. Facts
 * that older abevs did not write (label, kernel_version, boost,
 * clock_resolution_ns) are read when present. 0, or -1 after
 * json_in_error(); h is then to be released all the same.
 */
int metadata_fields_read(const struct json_in *rd, const json_node *root, struct host_facts *h);
/* h with every string NULL and every number unknown (-1). */
void metadata_fields_unset(struct host_facts *h);
/* Frees h's strings and leaves it unset; accepts NULL and a second call. */
void metadata_fields_release(struct host_facts *h);
/* A deep copy of src into *dst, whose former contents are not freed. */
void metadata_fields_copy(struct host_facts *dst, const struct host_facts *src);

#endif
