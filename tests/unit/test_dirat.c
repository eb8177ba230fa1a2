/*
 * dirat and the ledger: names beneath a directory descriptor never pass
 * through a link or "..", with openat2() and with the one-component-at-a-
 * time fallback alike; and the ledger finds a file abev wrote that changed,
 * one that went, and one that appeared.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/dirat.h"
#include "evidence/ledger.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "testutil.h"

/* dir/real/x, dir/link -> dir/outside, dir/outside/x */
static char *tree(void)
{
	char *dir = tu_tmpdir("dirat"), *p;

	tu_put(dir, "real/x", "in", 2);
	tu_put(dir, "outside/x", "out", 3);
	p = path_join(dir, "link");
	assert_int_equal(symlink("outside", p), 0);
	free(p);
	return dir;
}

static void check_beneath(int use_openat2)
{
	char *dir = tree(), *outside;
	struct dirat d = DIRAT_INIT, sub = DIRAT_INIT;
	struct strbuf sb = STRBUF_INIT;
	int fd;

	dirat_use_openat2(use_openat2);
	assert_int_equal(dirat_open_path(&d, dir), 0);
	fd = dirat_openat(&d, "real/x", O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	/* A link on the way, or at the end, is never followed. */
	assert_int_equal(dirat_openat(&d, "link/x", O_RDONLY, 0), -1);
	assert_true(errno == ELOOP || errno == ENOTDIR || errno == EXDEV);
	assert_int_equal(dirat_openat(&d, "link", O_RDONLY, 0), -1);
	assert_int_equal(dirat_openat(&d, "../x", O_RDONLY, 0), -1);
	assert_int_equal(dirat_openat(&d, "/etc/passwd", O_RDONLY, 0), -1);
	/* Writing, making directories, removing: none reaches outside. */
	assert_int_equal(dirat_write_atomic(&d, "link/x", "evil", 4), -1);
	assert_int_equal(dirat_mkdirs(&d, "link/new", &sub), -1);
	assert_int_equal(dirat_unlink(&d, "link/x", 0), -1);
	outside = path_join(dir, "outside/x");
	assert_int_equal(read_file_capped(&sb, outside, 100), 0);
	assert_string_equal(sb.buf, "out");
	/* The link itself can go. */
	assert_int_equal(dirat_unlink(&d, "link", 0), 0);
	assert_int_equal(dirat_mkdirs(&d, "a/b/c", &sub), 0);
	assert_int_equal(dirat_write_atomic(&sub, "f", "ok", 2), 0);
	strbuf_reset(&sb);
	assert_int_equal(dirat_read(&d, "a/b/c/f", &sb, 10), 0);
	assert_string_equal(sb.buf, "ok");
	/* Beside a directory there (its parent opened at once), and one there already. */
	dirat_release(&sub);
	assert_int_equal(dirat_mkdirs(&d, "a/b/d", &sub), 0);
	dirat_release(&sub);
	assert_int_equal(dirat_mkdirs(&d, "a/b/c", &sub), 0);
	strbuf_reset(&sb);
	assert_int_equal(dirat_read(&d, "a/b/c/f", &sb, 10), 0);
	assert_string_equal(sb.buf, "ok");
	assert_int_equal(dirat_still_at(&d, dir), 1);
	dirat_release(&sub);
	dirat_release(&d);
	dirat_release(&d);
	dirat_use_openat2(1);
	strbuf_release(&sb);
	free(outside);
	tu_rm_rf(dir);
	free(dir);
}

static void test_beneath_openat2(void **state)
{
	(void)state;
	check_beneath(1);
}

static void test_beneath_components(void **state)
{
	(void)state;
	check_beneath(0);
}


static void capture(void *ctx, char *line)
{
	struct strbuf *sb = ctx;
	strbuf_addf(sb, "%s\n", line);
	free(line);
}

static void test_ledger(void **state)
{
	char *dir = tu_tmpdir("ledger"), *p;
	struct dirat d = DIRAT_INIT;
	struct ledger l = LEDGER_INIT;
	struct strbuf notes = STRBUF_INIT;
	static const char *const own[] = { "result.json", NULL };

	(void)state;
	assert_int_equal(dirat_open_path(&d, dir), 0);
	assert_int_equal(ledger_write(&l, &d, "plan.json", "{}", 2), 0);
	assert_int_equal(ledger_write(&l, &d, "gone.txt", "x", 1), 0);
	tu_put(dir, "runs/a/run-1/test.log", "log", 3);
	assert_int_equal(ledger_keep_tree(&l, &d, "runs/a/run-1"), 0);
	tu_put(dir, "result.json", "{}", 2);
	assert_int_equal(ledger_check(&l, &d, own, capture, &notes), 0);

	/* Rewritten, removed, added beside, added into a finished run. */
	tu_put(dir, "plan.json", "[]", 2);
	p = path_join(dir, "gone.txt");
	assert_int_equal(unlink(p), 0);
	free(p);
	tu_put(dir, "evil.txt", "e", 1);
	tu_put(dir, "runs/a/run-1/late.txt", "l", 1);
	tu_append(dir, "runs/a/run-1/test.log", "+");
	assert_int_equal(ledger_check(&l, &d, own, capture, &notes), 5);
	assert_non_null(strstr(notes.buf, "plan.json: changed after abev wrote it"));
	assert_non_null(strstr(notes.buf, "gone.txt: abev wrote it, and it is gone"));
	assert_non_null(strstr(notes.buf, "evil.txt: a regular file abev did not write"));
	assert_non_null(strstr(notes.buf, "runs/a/run-1/late.txt: a regular file"));
	assert_non_null(strstr(notes.buf, "runs/a/run-1/test.log: changed or replaced"));
	assert_null(strstr(notes.buf, "result.json"));
	/* Recorded, each is taken as found: checked again, nothing new. */
	strbuf_reset(&notes);
	assert_int_equal(ledger_check(&l, &d, own, capture, &notes), 0);
	assert_int_equal(notes.len, 0);
	ledger_release(&l);
	ledger_release(&l);
	dirat_release(&d);
	strbuf_release(&notes);
	tu_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_beneath_openat2),
		cmocka_unit_test(test_beneath_components),
		cmocka_unit_test(test_ledger),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
