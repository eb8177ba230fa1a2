/* Unit tests of util: strbuf growth, bounded file reading, atomic writes,
 * strict number parsing, UTC formatting and error routing. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static char last_error[512];

static void capture(const char *prefix, const char *msg)
{
	snprintf(last_error, sizeof(last_error), "%s: %s", prefix, msg);
}

static void test_strbuf(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i);
	assert_int_equal(sb.len, strlen(sb.buf));
	assert_memory_equal(sb.buf, "0,1,2,", 6);
	strbuf_reset(&sb);
	assert_int_equal(sb.len, 0);
	strbuf_adds(&sb, "abc");
	strbuf_addch(&sb, 'd');
	size_t len;
	char *s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "abcd");
	assert_int_equal(len, 4);
	assert_string_equal(sb.buf, "");
	free(s);
	strbuf_release(&sb);
	strbuf_release(&sb);
}

static void test_read_file_capped(void **state)
{
	char dir[] = "/tmp/abev-util-XXXXXX";
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_non_null(mkdtemp(dir));
	char *p = path_join(dir, "f");
	assert_int_equal(write_file_atomic(p, "hello world", 11), 0);
	assert_int_equal(read_file_capped(&sb, p, 11), 0);
	assert_string_equal(sb.buf, "hello world");
	strbuf_reset(&sb);

	set_error_routine(capture);
	assert_int_equal(read_file_capped(&sb, p, 10), -1);
	assert_non_null(strstr(last_error, "larger than the limit"));
	assert_non_null(strstr(last_error, p));
	assert_int_equal(sb.len, 0);
	assert_int_equal(read_file_capped(&sb, dir, 10), -1);
	assert_non_null(strstr(last_error, "is a directory"));
	char *missing = path_join(dir, "missing");
	assert_int_equal(read_file_capped(&sb, missing, 10), -1);
	assert_non_null(strstr(last_error, "No such file"));
	set_error_routine(NULL);

	unlink(p);
	rmdir(dir);
	free(p);
	free(missing);
	strbuf_release(&sb);
}

static void test_parse_numbers(void **state)
{
	int64_t i;
	double d;
	(void)state;
	assert_int_equal(parse_int64("42", &i), 0);
	assert_int_equal(i, 42);
	assert_int_equal(parse_int64("-7", &i), 0);
	assert_int_equal(i, -7);
	assert_int_equal(parse_int64("4x", &i), -1);
	assert_int_equal(parse_int64("", &i), -1);
	assert_int_equal(parse_int64("99999999999999999999", &i), -1);
	assert_int_equal(parse_double("1.5", &d), 0);
	assert_true(d == 1.5);
	assert_int_equal(parse_double("nan", &d), -1);
	assert_int_equal(parse_double("1e999", &d), -1);
}

static void test_utc_format(void **state)
{
	char out[UTC_STAMP_LEN];
	struct timespec ts = { 1762793677, 980941123 };
	(void)state;
	utc_format(out, &ts);
	assert_string_equal(out, "2025-11-10T16:54:37.980941+00:00");
}

static void test_mkdir_p_and_join(void **state)
{
	char dir[] = "/tmp/abev-util-XXXXXX";
	struct stat st;
	(void)state;
	assert_non_null(mkdtemp(dir));
	char *deep = xasprintf("%s/a/b/c", dir);
	assert_int_equal(mkdir_p(deep), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(mkdir_p(deep), 0);
	char *j = path_join("x/", "y");
	assert_string_equal(j, "x/y");
	free(j);
	j = path_join("x", "y");
	assert_string_equal(j, "x/y");
	free(j);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(deep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_read_file_capped),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_utc_format),
		cmocka_unit_test(test_mkdir_p_and_join),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
