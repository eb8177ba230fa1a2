/*
 * Unit tests of plan_doc.c: the table is well formed (every row complete,
 * no key twice, every key's parent documented too) and plan_doc_children()
 * gives plan.c the keys of each object in reference order, without the
 * names a plan chooses. A setting's row (plan_settings.c) says the same
 * type and default in its words as in its value, and drives the reading,
 * the defaults and the write-back of a plan alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "plan/plan.h"
#include "plan/plan_doc.h"
#include "plan/plan_settings.h"
#include "util/compiler.h"
#include "util/errlist.h"
#include "util/json_in.h"
#include "util/readfile.h"
#include "util/strbuf.h"

static int documented(const char *key, size_t len)
{
	for (size_t i = 0; i < plan_doc_nkeys; i++)
		if (strlen(plan_doc_keys[i].key) == len && !strncmp(plan_doc_keys[i].key, key, len))
			return 1;
	return 0;
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < plan_doc_nkeys; i++) {
		const struct plan_doc_key *k = &plan_doc_keys[i];
		const char *dot = strrchr(k->key, '.');
		assert_true(*k->key && *k->type && *k->dflt && *k->meaning);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(k->key, plan_doc_keys[j].key))
				fail_msg("'%s' twice", k->key);
		if (dot) {
			/* "variants[].name" belongs to "variants", "schedule.runs" to "schedule" */
			size_t len = (size_t)(dot - k->key);
			if (len > 2 && !strncmp(dot - 2, "[]", 2))
				len -= 2;
			if (!documented(k->key, len))
				fail_msg("'%s' has no documented parent", k->key);
		}
	}
}

static void test_children(void **state)
{
	const char *names[PLAN_DOC_MAX_CHILDREN];
	size_t n;
	(void)state;
	n = plan_doc_children("schedule", names, ARRAY_SIZE(names));
	assert_int_equal(n, 16);
	assert_string_equal(names[0], "warmups");
	assert_string_equal(names[2], "until");
	assert_string_equal(names[8], "gap_seconds");
	assert_string_equal(names[10], "step_timeout_seconds");
	assert_string_equal(names[12], "cpus");
	assert_string_equal(names[13], "prepare");
	assert_string_equal(names[14], "setup");
	assert_string_equal(names[15], "cleanup");
	n = plan_doc_children("variants[]", names, ARRAY_SIZE(names));
	assert_int_equal(n, 11);
	assert_string_equal(names[0], "name");
	assert_string_equal(names[4], "parameters");
	assert_string_equal(names[7], "output");
	assert_string_equal(names[8], "prepare");
	assert_string_equal(names[9], "setup");
	assert_string_equal(names[10], "cleanup");
	n = plan_doc_children("gates.<metric>", names, ARRAY_SIZE(names));
	assert_int_equal(n, 3);
	assert_string_equal(names[2], "budget");
	n = plan_doc_children("", names, ARRAY_SIZE(names));
	assert_int_equal(n, 19);
	assert_string_equal(names[0], "schema");
	assert_string_equal(names[10], "run_as");
	assert_string_equal(names[11], "dotnet_runtime");
	assert_string_equal(names[18], "limits");
	/* versions and env hold names the plan chooses */
	assert_int_equal(plan_doc_children("versions", names, ARRAY_SIZE(names)), 0);
	assert_int_equal(plan_doc_children("variants[].env", names, ARRAY_SIZE(names)), 0);
	assert_int_equal(plan_doc_children("nothing", names, ARRAY_SIZE(names)), 0);
	/* at most max */
	assert_int_equal(plan_doc_children("schedule", names, 2), 2);
}

static void test_markdown_rows(void **state)
{
	char *buf = NULL;
	size_t len = 0, rows = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;
	assert_non_null(f);
	plan_doc_print(f, PLAN_DOC_MARKDOWN);
	assert_int_equal(fclose(f), 0);
	for (char *p = buf; (p = strchr(p, '\n')); p++)
		rows++;
	assert_int_equal(rows, plan_doc_nkeys + 2);
	/* a '|' in a cell is escaped: the variants file's line format */
	assert_non_null(strstr(buf, "`name\\|ENV=V ENV2=W\\|extra args`"));
	free(buf);
}

/*
 * Issue 39 §4: the reference states the defaults the binary uses. The
 * looks of a plan with a gate and no runs, as the plan reader makes them,
 * are the ones both renderings print, and no figure is left unfilled.
 */
static void test_figures_are_the_binarys(void **state)
{
	/* The terminal's default line: one line, not wrapped. */
	static const char *const want[] = {
		"type: array of integers  default: 8, 12, 18, 27, 32 at 95 % and 32 rounds\n",
		"type: integer  default: 32 for a plan with a gate and no runs\n",
	};
	unsigned looks[PLAN_MAX_LOOKS];
	size_t n = plan_default_looks(0.95, 0, PLAN_DECIDED_MAX_ROUNDS, looks);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%u", i ? ", " : "", looks[i]);
	assert_string_equal(sb.buf, "8, 12, 18, 27, 32");
	for (int fmt = 0; fmt < 2; fmt++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		plan_doc_print(f, fmt ? PLAN_DOC_MARKDOWN : PLAN_DOC_TEXT);
		assert_int_equal(fclose(f), 0);
		assert_null(strchr(buf, '@'));
		assert_null(strstr(buf, "6, 9, 14"));
		/* The markdown keeps the backticks the terminal drops. */
		if (fmt)
			assert_non_null(strstr(buf, "`max_rounds` 32, looks after rounds 8, 12, 18, "
						    "27, 32"));
		for (size_t i = 0; !fmt && i < ARRAY_SIZE(want); i++)
			assert_non_null(strstr(buf, want[i]));
		free(buf);
	}
	strbuf_release(&sb);
}

static const char *value_type(enum plan_value v)
{
	switch (v) {
	case PLAN_VALUE_BOOL: return "boolean";
	case PLAN_VALUE_NUMBER: return "number";
	case PLAN_VALUE_UNSIGNED:
	case PLAN_VALUE_U64:
	case PLAN_VALUE_I64: return "integer";
	case PLAN_VALUE_NONE: break;
	}
	return NULL;
}

/* A setting's type and default words agree with its value, its default with its bounds. */
static void test_setting_rows_say_what_they_hold(void **state)
{
	size_t settings = 0;
	(void)state;
	for (size_t i = 0; i < plan_doc_nkeys; i++) {
		const struct plan_doc_key *k = &plan_doc_keys[i];
		int none = k->def < k->min || k->def > k->max || (k->min_exclusive && k->def == k->min);
		if (k->value == PLAN_VALUE_NONE)
			continue;
		settings++;
		assert_true(k->min <= k->max);
		if (strcmp(k->type, value_type(k->value)))
			fail_msg("%s: type '%s', value says %s", k->key, k->type, value_type(k->value));
		if (k->value == PLAN_VALUE_BOOL) {
			assert_string_equal(k->dflt, k->def ? "`true`" : "`false`");
		} else if (none) {
			if (strcmp(k->dflt, "none"))
				fail_msg("%s: default %g means none, the text says '%s'", k->key, k->def, k->dflt);
		} else {
			char *end;
			double d = strtod(k->dflt, &end);
			if (end == k->dflt || d != k->def || (*end && *end != ' '))
				fail_msg("%s: default %g, the text says '%s'", k->key, k->def, k->dflt);
		}
	}
	assert_true(settings >= 19);
}

/* Reads text's object at parent into a defaulted plan; returns the problems. */
static size_t read_settings(const char *text, const char *parent, struct plan *plan,
			    struct errlist *errs)
{
	cJSON *root = cJSON_Parse(text);
	struct json_in in = { .file = "p.json", .errors = errs };
	const cJSON *obj = *parent ? cJSON_GetObjectItemCaseSensitive(root, parent) : root;
	size_t n;

	assert_non_null(root);
	memset(plan, 0, sizeof(*plan));
	plan_settings_defaults(plan);
	n = plan_settings_read(&in, obj, parent, plan);
	cJSON_Delete(root);
	return n;
}

static void test_settings_read_default_and_write_back(void **state)
{
	struct plan plan;
	struct errlist errs = ERRLIST_INIT;
	cJSON *o;
	char *text;
	(void)state;

	assert_int_equal(read_settings("{\"limits\": {}}", "limits", &plan, &errs), 0);
	assert_int_equal(plan.max_files, PLAN_MAX_FILES_DEFAULT);
	assert_true(plan.log_keep_bytes == PLAN_LOG_KEEP_BYTES_DEFAULT);
	assert_true(plan.set.max_foreign_cpu < 0 && plan.set.timeout_seconds == 0);
	assert_int_equal(plan.set.runs, 3);

	assert_int_equal(read_settings("{\"schedule\": {\"runs\": 7, \"seed\": 9007199254740991, "
				       "\"timeout_seconds\": 2.5}}", "schedule", &plan, &errs), 0);
	assert_int_equal(plan.set.runs, 7);
	assert_true(plan.set.seed == 9007199254740991ULL);
	assert_true(plan.set.timeout_seconds == 2.5);

	/* Out of bounds, or of the wrong type: refused, the default stays. */
	assert_int_equal(read_settings("{\"schedule\": {\"runs\": 0, \"timeout_seconds\": 0, "
				       "\"gap_seconds\": \"1\"}}", "schedule", &plan, &errs), 3);
	assert_int_equal(plan.set.runs, 3);
	assert_int_equal(errs.total, 3);
	assert_non_null(strstr(errs.msgs[0], "schedule.runs"));
	assert_int_equal(read_settings("{\"dotnet_runtime\": true}", "", &plan, &errs), 0);
	assert_int_equal(plan.dotnet_runtime, 1);

	/* Written back: a "none" default is left out, everything else is there. */
	o = cJSON_CreateObject();
	plan_settings_json(o, "load", &plan);
	text = cJSON_PrintUnformatted(o);
	assert_string_equal(text, "{\"max_cpu_wait_pct\":10,\"max_repeats\":2,\"max_wait_seconds\":60}");
	free(text);
	cJSON_Delete(o);
	plan.set.max_foreign_cpu = 1.5;
	o = cJSON_CreateObject();
	plan_settings_json(o, "load", &plan);
	assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "max_foreign_cpu"));
	cJSON_Delete(o);
	errlist_release(&errs);
}

/* node, or the definition its "$ref" ("#/$defs/NAME") names. */
static const cJSON *resolve(const cJSON *schema, const cJSON *node)
{
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(node, "$ref");

	if (!cJSON_IsString(ref))
		return node;
	assert_int_equal(strncmp(ref->valuestring, "#/$defs/", 8), 0);
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schema, "$defs"),
						 ref->valuestring + 8);
}

/* The schema of the plan key "a.b" (NULL when the schema does not have it). */
static const cJSON *schema_of(const cJSON *schema, const char *key)
{
	const cJSON *node = schema;
	char *copy = strdup(key), *save = NULL;

	for (char *part = strtok_r(copy, ".", &save); part && node; part = strtok_r(NULL, ".", &save))
		node = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(resolve(schema, node), "properties"), part);
	free(copy);
	return node ? resolve(schema, node) : NULL;
}

static int schema_number(const cJSON *s, const char *name, double *out)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, name);
	if (!cJSON_IsNumber(n))
		return 0;
	*out = n->valuedouble;
	return 1;
}

/*
 * evidence-schema/plan.schema.json says of every setting what its row
 * does: the type and the bounds the reader enforces, so that a plan the
 * schema accepts is one abev reads.
 */
static void test_settings_match_the_plan_schema(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *schema;
	size_t wrong = 0;
	(void)state;

	assert_int_equal(read_file_capped(&sb, "evidence-schema/plan.schema.json", 1 << 20), 0);
	schema = cJSON_Parse(sb.buf);
	assert_non_null(schema);
	for (size_t i = 0; i < plan_doc_nkeys; i++) {
		const struct plan_doc_key *k = &plan_doc_keys[i];
		const cJSON *s, *type;
		double lo, hi;
		int excl;

		if (k->value == PLAN_VALUE_NONE)
			continue;
		s = schema_of(schema, k->key);
		if (!s) {
			fprintf(stderr, "plan.schema.json has no %s\n", k->key);
			wrong++;
			continue;
		}
		type = cJSON_GetObjectItemCaseSensitive(s, "type");
		if (!cJSON_IsString(type) || strcmp(type->valuestring, value_type(k->value)))
			wrong += fprintf(stderr, "plan.schema.json: %s is not of type %s\n", k->key,
					 value_type(k->value)) > 0;
		if (k->value == PLAN_VALUE_BOOL)
			continue;
		excl = schema_number(s, "exclusiveMinimum", &lo);
		if (!excl && !schema_number(s, "minimum", &lo))
			lo = -HUGE_VAL;
		if (lo != k->min || excl != k->min_exclusive)
			wrong += fprintf(stderr, "plan.schema.json: %s's minimum is %s%g, the reader's "
					 "%s%g\n", k->key, excl ? ">" : "", lo,
					 k->min_exclusive ? ">" : "", k->min) > 0;
		if (!schema_number(s, "maximum", &hi))
			hi = HUGE_VAL;
		if (hi != k->max)
			wrong += fprintf(stderr, "plan.schema.json: %s's maximum is %.17g, the reader's "
					 "%.17g\n", k->key, hi, k->max) > 0;
	}
	cJSON_Delete(schema);
	strbuf_release(&sb);
	assert_int_equal(wrong, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_markdown_rows),
		cmocka_unit_test(test_setting_rows_say_what_they_hold),
		cmocka_unit_test(test_figures_are_the_binarys),
		cmocka_unit_test(test_settings_read_default_and_write_back),
		cmocka_unit_test(test_settings_match_the_plan_schema),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
