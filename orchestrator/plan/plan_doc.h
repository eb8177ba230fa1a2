/*
 * plan_doc: the plan reference — every key of "abev.plan/1" with its type,
 * default and meaning, and a full example — written once, here. `abev help
 * plan` prints it, README's plan table is generated from it (`abev help
 * plan --markdown`), and plan.c takes the keys it accepts in each object
 * from it, so that a key cannot be accepted without being documented.
 * It reads no plan and checks no value (plan.c does).
 */
#ifndef ABEV_PLAN_DOC_H
#define ABEV_PLAN_DOC_H

#include <stddef.h>
#include <stdio.h>

/*
 * One key. key is its path: "schedule.runs"; "variants[].name" for a key
 * of the objects of an array; "<...>" stands for a name the plan chooses
 * ("gates.<metric>.budget", "versions.<name>"). Text uses `backticks` for
 * literal names and values.
 */
struct plan_doc_key {
	const char *key;
	const char *type;
	const char *dflt;      /* "required", "none", or the value taken when absent */
	const char *meaning;
};

extern const struct plan_doc_key plan_doc_keys[];
extern const size_t plan_doc_nkeys;

/* Most keys one object may have. */
#define PLAN_DOC_MAX_CHILDREN 32

/*
 * The names of the fixed keys directly inside parent ("" for the top
 * level, "schedule", "variants[]", "metrics[]", "gates.<metric>"), in
 * reference order, into names (borrowed; at most max). Returns how many.
 */
size_t plan_doc_children(const char *parent, const char **names, size_t max);

enum plan_doc_format {
	PLAN_DOC_TEXT,      /* for the terminal: abev help plan */
	PLAN_DOC_MARKDOWN,  /* README's table: abev help plan --markdown */
};

/* Prints the reference (text: keys, placeholders, example; markdown: the table). */
void plan_doc_print(FILE *f, enum plan_doc_format format);

#endif
