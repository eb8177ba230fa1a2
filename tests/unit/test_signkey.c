/* Unit tests of signkey: --key beats ABEV_SIGNING_KEY, which beats
 * nothing; a public key (signify or PEM) is named as one with the private
 * key's likely name; a key the group or others can read is refused with
 * the chmod to run unless insecure mode is asked for; an empty passphrase
 * is refused from a file and from the environment alike; --key-fd reads
 * the key's text from a descriptor and closes it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "seal/signkey.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "testutil.h"

static char last_error[1024];

static void capture(const char *prefix, const char *msg)
{
	snprintf(last_error, sizeof(last_error), "%s: %s", prefix, msg);
}

struct fixture {
	char dir[64];
	char *key, *pub, *pem;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	char fp[65], *prefix;

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/abev-signkey-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	prefix = path_join(fx->dir, "k");
	assert_int_equal(signify_keygen(prefix, NULL, fp), 0);
	fx->key = xasprintf("%s.key", prefix);
	fx->pub = xasprintf("%s.pub", prefix);
	fx->pem = xasprintf("%s.pub.pem", prefix);
	free(prefix);
	set_error_routine(capture);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	tu_rm_rf(fx->dir);
	free(fx->key);
	free(fx->pub);
	free(fx->pem);
	free(fx);
	set_error_routine(NULL);
	unsetenv(SIGNKEY_ENV);
	return 0;
}

static void test_path_precedence(void **state)
{
	enum signkey_source src;
	(void)state;

	unsetenv(SIGNKEY_ENV);
	assert_null(signkey_path(NULL, NULL, &src));
	assert_int_equal(src, SIGNKEY_NONE);
	assert_null(signkey_source_name(src));
	setenv(SIGNKEY_ENV, "", 1);
	assert_null(signkey_path(NULL, NULL, &src));
	setenv(SIGNKEY_ENV, "/ci/k.key", 1);
	assert_string_equal(signkey_path(NULL, NULL, &src), "/ci/k.key");
	assert_string_equal(signkey_source_name(src), "environment");
	assert_string_equal(signkey_path(NULL, "3", &src), "3");
	assert_string_equal(signkey_source_name(src), "fd");
	assert_string_equal(signkey_path("mine.key", "3", &src), "mine.key");
	assert_string_equal(signkey_source_name(src), "option");
}

/* Writes len bytes of text into a pipe and returns its read end. */
static int pipe_with(const char *text, size_t len)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], text, len), (ssize_t)len);
	close(p[1]);
	return p[0];
}

/*
 * --key-fd: the key's text is read from the descriptor to its end and the
 * descriptor is closed, whatever the outcome; a path, a public key and
 * descriptors 1 and 2 are refused, and the text is never shown.
 */
static void test_key_fd(void **state)
{
	struct fixture *fx = *state;
	struct strbuf text = STRBUF_INIT, pub = STRBUF_INIT;
	struct signify_key *k;
	char num[16];
	int fd, out;

	assert_int_equal(read_file_capped(&text, fx->key, 4096), 0);
	assert_int_equal(read_file_capped(&pub, fx->pem, 4096), 0);
	fd = pipe_with(text.buf, text.len);
	snprintf(num, sizeof(num), "%d", fd);
	k = signkey_load(num, SIGNKEY_FD, NULL, 0);
	assert_non_null(k);
	signify_key_free(k);
	assert_int_equal(fcntl(fd, F_GETFD), -1);   /* closed */
	assert_int_equal(errno, EBADF);
	/* A path is --key's, not --key-fd's; a public key is named as one. */
	fd = pipe_with(fx->key, strlen(fx->key));
	snprintf(num, sizeof(num), "%d", fd);
	assert_null(signkey_load(num, SIGNKEY_FD, NULL, 0));
	assert_non_null(strstr(last_error, "not a key's text (not shown)"));
	assert_null(strstr(last_error, fx->key));
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	fd = pipe_with(pub.buf, pub.len);
	snprintf(num, sizeof(num), "%d", fd);
	assert_null(signkey_load(num, SIGNKEY_FD, NULL, 0));
	assert_non_null(strstr(last_error, "is a public key"));
	/* What is not a descriptor abev may read its key from. */
	assert_int_equal(signkey_fd_parse("0", &out), 0);
	assert_int_equal(out, 0);
	assert_int_equal(signkey_fd_parse("3", &out), 0);
	assert_int_equal(out, 3);
	assert_int_equal(signkey_fd_parse("1", &out), -1);
	assert_int_equal(signkey_fd_parse("2", &out), -1);
	assert_int_equal(signkey_fd_parse("-3", &out), -1);
	assert_int_equal(signkey_fd_parse("0x3", &out), -1);
	assert_int_equal(signkey_fd_parse("", &out), -1);
	strbuf_release(&text);
	strbuf_release(&pub);
}

static void test_public_keys_are_named(void **state)
{
	struct fixture *fx = *state;
	char *want;

	assert_null(signkey_load(fx->pub, SIGNKEY_OPTION, NULL, 0));
	want = xasprintf("%s is a public key; --key needs the private key (%s)", fx->pub, fx->key);
	assert_non_null(strstr(last_error, want));
	free(want);
	assert_null(signkey_load(fx->pem, SIGNKEY_ENVIRONMENT, NULL, 0));
	want = xasprintf("%s is a public key; ABEV_SIGNING_KEY needs the private key (%s)",
			 fx->pem, fx->key);
	assert_non_null(strstr(last_error, want));
	free(want);
}

static void test_mode(void **state)
{
	struct fixture *fx = *state;
	struct signify_key *k;
	const mode_t refused[] = { 0644, 0640, 0604, 0660, 0610 };

	k = signkey_load(fx->key, SIGNKEY_OPTION, NULL, 0);
	assert_non_null(k);
	signify_key_free(k);
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		char *want = xasprintf("chmod 600 %s", fx->key);
		assert_int_equal(chmod(fx->key, refused[i]), 0);
		last_error[0] = '\0';
		assert_null(signkey_load(fx->key, SIGNKEY_OPTION, NULL, 0));
		assert_non_null(strstr(last_error, want));
		free(want);
	}
	last_error[0] = '\0';
	k = signkey_load(fx->key, SIGNKEY_OPTION, NULL, 1);
	assert_non_null(k);
	assert_non_null(strstr(last_error, "warning"));
	signify_key_free(k);
	assert_int_equal(chmod(fx->key, 0400), 0);
	k = signkey_load(fx->key, SIGNKEY_OPTION, NULL, 0);
	assert_non_null(k);
	signify_key_free(k);
	/* A directory or a missing file is named, not handed to libcrypto. */
	assert_null(signkey_load(fx->dir, SIGNKEY_OPTION, NULL, 0));
	assert_non_null(strstr(last_error, "not a regular file"));
	assert_null(signkey_load("/nonexistent/k.key", SIGNKEY_ENVIRONMENT, NULL, 0));
	assert_non_null(strstr(last_error, "ABEV_SIGNING_KEY"));
}

static void test_passphrase(void **state)
{
	struct fixture *fx = *state;
	char *file = path_join(fx->dir, "pass"), *p = NULL;

	assert_int_equal(signkey_passphrase(NULL, NULL, &p), 0);
	assert_null(p);
	assert_int_equal(write_file_atomic(file, "secret\nrest\n", 12), 0);
	assert_int_equal(signkey_passphrase(file, NULL, &p), 0);
	assert_string_equal(p, "secret");
	signkey_passphrase_free(p);
	assert_int_equal(write_file_atomic(file, "\nsecret\n", 8), 0);
	assert_int_equal(signkey_passphrase(file, NULL, &p), -1);
	assert_null(p);
	assert_non_null(strstr(last_error, "empty"));
	setenv("ABEV_TEST_PASS", "", 1);
	assert_int_equal(signkey_passphrase(NULL, "ABEV_TEST_PASS", &p), -1);
	assert_null(p);
	assert_non_null(strstr(last_error, "empty"));
	setenv("ABEV_TEST_PASS", "horse", 1);
	assert_int_equal(signkey_passphrase(NULL, "ABEV_TEST_PASS", &p), 0);
	assert_string_equal(p, "horse");
	signkey_passphrase_free(p);
	assert_int_equal(signkey_passphrase(file, "ABEV_TEST_PASS", &p), -1);
	unsetenv("ABEV_TEST_PASS");
	assert_int_equal(signkey_passphrase(NULL, "ABEV_TEST_PASS", &p), -1);
	assert_non_null(strstr(last_error, "not set"));
	signkey_passphrase_free(NULL);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_path_precedence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_public_keys_are_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_passphrase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_fd, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
