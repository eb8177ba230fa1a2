/*
 * Unit tests of plan_doc.c: the table is well formed (every row complete,
 * no key twice, every key's parent documented too) and plan_doc_children()
 * gives plan.c the keys of each object in reference order, without the
 * names a plan chooses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_doc.h"
#include "util/compiler.h"

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
	assert_int_equal(n, 15);
	assert_string_equal(names[0], "warmups");
	assert_string_equal(names[2], "until");
	assert_string_equal(names[8], "gap_seconds");
	assert_string_equal(names[11], "cpus");
	assert_string_equal(names[12], "prepare");
	assert_string_equal(names[13], "setup");
	assert_string_equal(names[14], "cleanup");
	n = plan_doc_children("variants[]", names, ARRAY_SIZE(names));
	assert_int_equal(n, 10);
	assert_string_equal(names[0], "name");
	assert_string_equal(names[4], "parameters");
	assert_string_equal(names[7], "prepare");
	assert_string_equal(names[8], "setup");
	assert_string_equal(names[9], "cleanup");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_markdown_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
