/*
 * Unit tests of versions_side: the variants' versions as table rows. A
 * package list splits into a row per package (added, dropped and changed
 * ones told apart), a one-line version is one row, and an output that is
 * not a list of distinct names — a repeated name, a line without a
 * version, a failed command — stays one row, so that nothing is hidden.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "evidence/evidence_read.h"
#include "report/versions_side.h"
#include "util/compiler.h"

#define NV(...) ((struct env_version[]){ __VA_ARGS__ })

static struct env_variant variant(const char *name, struct env_version *v, size_t n)
{
	struct env_variant e;

	memset(&e, 0, sizeof(e));
	e.name = (char *)name;
	e.versions = v;
	e.nversions = n;
	return e;
}

static struct env_version ver(const char *name, const char *output)
{
	return (struct env_version){ (char *)name, (char *)output, NULL, 0 };
}

/* Row i is key with the cells given, and differs as said. */
static void row_is(const struct version_rows *r, size_t i, const char *key, const char *a,
		   const char *b, int differs)
{
	assert_true(i < r->n);
	assert_string_equal(r->rows[i].key, key);
	assert_string_equal(r->rows[i].cells[0], a);
	assert_string_equal(r->rows[i].cells[1], b);
	assert_int_equal(r->rows[i].differs, differs);
}

static void test_a_package_list_splits_by_name(void **state)
{
	struct env_version a[] = { ver("dotnet", "10.0.100\n"),
				   ver("packages", "YamlDotNet 13.7.1\nxunit 2.9.3\nOld 1.0\n") };
	struct env_version b[] = { ver("dotnet", "10.0.100\n"),
				   ver("packages", "YamlDotNet 16.3.0\r\nxunit 2.9.3\nNew 2.0\n") };
	struct env_variant v[] = { variant("baseline", a, 2), variant("candidate", b, 2) };
	struct version_rows r = VERSION_ROWS_INIT;

	(void)state;
	versions_side(&r, v, 2);
	assert_int_equal(r.n, 5);
	row_is(&r, 0, "dotnet", "10.0.100", "10.0.100", 0);
	row_is(&r, 1, "packages: YamlDotNet", "13.7.1", "16.3.0", 1);
	row_is(&r, 2, "packages: xunit", "2.9.3", "2.9.3", 0);
	row_is(&r, 3, "packages: Old", "1.0", "not listed", 1);
	row_is(&r, 4, "packages: New", "not listed", "2.0", 1);
	assert_int_equal(r.left_out, 0);
	versions_side_rows_release(&r);
}

static void test_what_is_not_a_list_stays_one_row(void **state)
{
	/* A repeated name (two runtimes of one kind), a line without a version, a failure. */
	struct env_version a[] = { ver("runtimes", "App 8.0.1 [/a]\nApp 10.0.0 [/a]\n"),
				   ver("tool", "tool version\nbuilt today\n"),
				   ver("broken", "x 1\n"), ver("only-a", "v 1") };
	struct env_version b[] = { ver("runtimes", "App 10.0.0 [/a]\n"),
				   ver("tool", "tool version\nbuilt\n"), ver("broken", "x 1\n") };
	struct env_variant v[] = { variant("a", a, 4), variant("b", b, 3) };
	struct version_rows r = VERSION_ROWS_INIT;

	(void)state;
	b[2].exit_code = 3;
	versions_side(&r, v, 2);
	assert_int_equal(r.n, 4);
	row_is(&r, 0, "runtimes", "App 8.0.1 [/a]; App 10.0.0 [/a]", "App 10.0.0 [/a]", 1);
	row_is(&r, 1, "tool", "tool version; built today", "tool version; built", 1);
	row_is(&r, 2, "broken", "x 1", "x 1 (exit 3)", 1);
	row_is(&r, 3, "only-a", "v 1", "not recorded", 1);
	versions_side_rows_release(&r);
}

static void test_names_first_recorded_by_a_later_variant(void **state)
{
	struct env_version b[] = { ver("git", "abc\n"), ver("empty", "") };
	struct env_variant v[] = { variant("a", NULL, 0), variant("b", b, 2) };
	struct version_rows r = VERSION_ROWS_INIT;

	(void)state;
	versions_side(&r, v, 2);
	assert_int_equal(r.n, 2);
	row_is(&r, 0, "git", "not recorded", "abc", 1);
	row_is(&r, 1, "empty", "not recorded", "(no output)", 1);
	versions_side_rows_release(&r);
}

static void test_rows_are_bounded(void **state)
{
	static char out[VERSIONS_SIDE_ROWS_MAX * 2][16];
	struct env_version a[VERSIONS_SIDE_ROWS_MAX * 2];
	struct env_variant v[2];
	struct version_rows r = VERSION_ROWS_INIT;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(a); i++) {
		snprintf(out[i], sizeof(out[i]), "v%zu", i);
		a[i] = ver(out[i], "1");
	}
	v[0] = variant("a", a, ARRAY_SIZE(a));
	v[1] = variant("b", a, ARRAY_SIZE(a));
	versions_side(&r, v, 2);
	assert_int_equal(r.n, VERSIONS_SIDE_ROWS_MAX);
	assert_int_equal(r.left_out, VERSIONS_SIDE_ROWS_MAX);
	versions_side_rows_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_package_list_splits_by_name),
		cmocka_unit_test(test_what_is_not_a_list_stays_one_row),
		cmocka_unit_test(test_names_first_recorded_by_a_later_variant),
		cmocka_unit_test(test_rows_are_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
