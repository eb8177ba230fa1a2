/*
 * plan_settings: reading, defaulting and writing back the settings the
 * reference's rows describe (plan_settings.h). The member is reached by
 * the row's offset; the row's macro checked its C type when the table
 * was compiled.
 */
#include "plan/plan_settings.h"

#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "plan/plan_doc.h"
#include "util/json_out.h"

/* Is row k's key directly inside parent? Sets *leaf to its last name. */
static int row_in(const struct plan_doc_key *k, const char *parent, const char **leaf)
{
	size_t plen = strlen(parent);

	if (k->value == PLAN_VALUE_NONE)
		return 0;
	if (!plen) {
		*leaf = k->key;
		return !strchr(k->key, '.') && !strchr(k->key, '[');
	}
	if (strncmp(k->key, parent, plen) || k->key[plen] != '.')
		return 0;
	*leaf = k->key + plen + 1;
	return !strchr(*leaf, '.');
}

static void *member(struct plan *plan, const struct plan_doc_key *k)
{
	return (char *)plan + k->offset;
}

static const void *cmember(const struct plan *plan, const struct plan_doc_key *k)
{
	return (const char *)plan + k->offset;
}

/* Reads one row's value; 0, or -1 when it was refused. */
static int read_one(const struct json_in *in, const json_node *obj, const char *parent,
		    const char *leaf, const struct plan_doc_key *k, struct plan *plan)
{
	int64_t i = 0;
	double d = 0;
	int b = 0, r;

	switch (k->value) {
	case PLAN_VALUE_BOOL:
		r = json_get_bool(in, obj, parent, leaf, 0, &b);
		if (r == 1)
			*(int *)member(plan, k) = b;
		return r < 0 ? -1 : 0;
	case PLAN_VALUE_NUMBER:
		r = json_get_number(in, obj, parent, leaf, 0, k->min, k->min_exclusive, k->max, &d);
		if (r == 1)
			*(double *)member(plan, k) = d;
		return r < 0 ? -1 : 0;
	case PLAN_VALUE_UNSIGNED:
	case PLAN_VALUE_U64:
	case PLAN_VALUE_I64:
		r = json_get_int(in, obj, parent, leaf, 0, (int64_t)k->min, (int64_t)k->max, &i);
		if (r != 1)
			return r < 0 ? -1 : 0;
		if (k->value == PLAN_VALUE_UNSIGNED)
			*(unsigned *)member(plan, k) = (unsigned)i;
		else if (k->value == PLAN_VALUE_U64)
			*(uint64_t *)member(plan, k) = (uint64_t)i;
		else
			*(int64_t *)member(plan, k) = i;
		return 0;
	case PLAN_VALUE_NONE:
		break;
	}
	return 0;
}

size_t plan_settings_read(const struct json_in *in, const json_node *obj, const char *parent,
			  struct plan *plan)
{
	size_t refused = 0;
	const char *leaf;

	for (size_t i = 0; i < plan_doc_nkeys; i++)
		if (row_in(&plan_doc_keys[i], parent, &leaf))
			refused += read_one(in, obj, parent, leaf, &plan_doc_keys[i], plan) < 0;
	return refused;
}

void plan_settings_defaults(struct plan *plan)
{
	for (size_t i = 0; i < plan_doc_nkeys; i++) {
		const struct plan_doc_key *k = &plan_doc_keys[i];
		switch (k->value) {
		case PLAN_VALUE_BOOL: *(int *)member(plan, k) = k->def != 0; break;
		case PLAN_VALUE_NUMBER: *(double *)member(plan, k) = k->def; break;
		case PLAN_VALUE_UNSIGNED: *(unsigned *)member(plan, k) = (unsigned)k->def; break;
		case PLAN_VALUE_U64: *(uint64_t *)member(plan, k) = (uint64_t)k->def; break;
		case PLAN_VALUE_I64: *(int64_t *)member(plan, k) = (int64_t)k->def; break;
		case PLAN_VALUE_NONE: break;
		}
	}
}

/* The member's value as a double, for the "none" test. */
static double value_of(const struct plan *plan, const struct plan_doc_key *k)
{
	switch (k->value) {
	case PLAN_VALUE_BOOL: return *(const int *)cmember(plan, k);
	case PLAN_VALUE_NUMBER: return *(const double *)cmember(plan, k);
	case PLAN_VALUE_UNSIGNED: return *(const unsigned *)cmember(plan, k);
	case PLAN_VALUE_U64: return (double)*(const uint64_t *)cmember(plan, k);
	case PLAN_VALUE_I64: return (double)*(const int64_t *)cmember(plan, k);
	case PLAN_VALUE_NONE: break;
	}
	return 0;
}

void plan_settings_json(json_node *o, const char *parent, const struct plan *plan)
{
	const char *leaf;

	for (size_t i = 0; i < plan_doc_nkeys; i++) {
		const struct plan_doc_key *k = &plan_doc_keys[i];
		int none_def = k->def < k->min || k->def > k->max ||
			       (k->min_exclusive && k->def == k->min);

		if (!row_in(k, parent, &leaf) || (none_def && value_of(plan, k) == k->def))
			continue;
		switch (k->value) {
		case PLAN_VALUE_BOOL: jadd_bool(o, leaf, *(const int *)cmember(plan, k)); break;
		case PLAN_VALUE_NUMBER: jadd_real(o, leaf, *(const double *)cmember(plan, k)); break;
		case PLAN_VALUE_UNSIGNED: jadd_int(o, leaf, *(const unsigned *)cmember(plan, k)); break;
		case PLAN_VALUE_U64:
			jadd_int(o, leaf, (int64_t)*(const uint64_t *)cmember(plan, k));
			break;
		case PLAN_VALUE_I64: jadd_int(o, leaf, *(const int64_t *)cmember(plan, k)); break;
		case PLAN_VALUE_NONE: break;
		}
	}
}
