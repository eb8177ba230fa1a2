/*
 * plan_doc: the plan reference — every key of "abev.plan/1" with its type,
 * default and meaning, and a full example — written once, here. `abev help
 * plan` prints it, docs/plan-keys.md is generated from it (`abev help
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
/*
 * A row whose value is not PLAN_VALUE_NONE is a whole setting: the
 * member of struct plan at offset is read from the plan (within
 * [min, max], above min when min_exclusive), set to def when the key is
 * absent, and written back, by that row alone (plan_settings_read(),
 * plan_settings_defaults(), plan_settings_json()); its type text follows
 * from value. A def outside the bounds means "none": such a value is
 * not written back. Other rows are read by plan.c's own code.
 */
enum plan_value {
	PLAN_VALUE_NONE,
	PLAN_VALUE_UNSIGNED,   /* unsigned */
	PLAN_VALUE_U64,        /* uint64_t */
	PLAN_VALUE_I64,        /* int64_t */
	PLAN_VALUE_NUMBER,     /* double */
	PLAN_VALUE_BOOL,       /* int, 0 or 1 */
};

struct plan_doc_key {
	const char *key;
	const char *type;
	const char *dflt;      /* "required", "none", or the value taken when absent */
	const char *meaning;
	enum plan_value value;
	size_t offset;
	double min, max, def;
	int min_exclusive;
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
	PLAN_DOC_MARKDOWN,  /* docs/plan-keys.md: abev help plan --markdown */
};

/* The row of key ("schedule.runs"), or NULL. */
const struct plan_doc_key *plan_doc_find(const char *key);

/* Prints the reference (text: keys, placeholders, example; markdown: the table). */
void plan_doc_print(FILE *f, enum plan_doc_format format);

#endif
