/* Unit tests of hash: known SHA-256 vectors, streaming over chunk
 * boundaries, agreement with sha256sum, the thread pool against the
 * sequential path, refusal of anything but a regular file, the stop at a
 * signal, and writefile's sparse copy (which stops the same way). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hash.h"
#include "util/dirat.h"
#include "run/proc.h"
#include "util/writefile.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "testutil.h"

/* Writes len bytes of a deterministic pattern seeded by seed. */
static void write_pattern(const char *path, size_t len, unsigned seed)
{
	FILE *f = fopen(path, "wb");
	uint32_t x = seed * 2654435761u + 1;
	assert_non_null(f);
	for (size_t i = 0; i < len; i++) {
		x = x * 1664525u + 1013904223u;
		assert_int_not_equal(fputc((int)(x >> 24), f), EOF);
	}
	assert_int_equal(fclose(f), 0);
}

static const struct {
	const char *in;
	const char *hex;
} vectors[] = {
	{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
};

static void test_vectors(void **state)
{
	(void)state;
	char *dir = tu_tmpdir("hash");
	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++) {
		unsigned char d[SHA256_LEN];
		char hex[SHA256_HEX_LEN + 1];
		size_t len = strlen(vectors[i].in);

		sha256_buf(vectors[i].in, len, d);
		sha256_hex(d, hex);
		assert_string_equal(hex, vectors[i].hex);

		/* Byte by byte through the streaming interface. */
		struct sha256 *h = sha256_new();
		for (size_t j = 0; j < len; j++)
			sha256_update(h, vectors[i].in + j, 1);
		sha256_final(h, d);
		sha256_hex(d, hex);
		assert_string_equal(hex, vectors[i].hex);

		/* And as a file. */
		char *p = path_join(dir, "v");
		uint64_t size = 99;
		char *err = NULL;
		assert_int_equal(write_file_atomic(p, vectors[i].in, len), 0);
		assert_int_equal(sha256_file(p, d, &size, &err), 0);
		assert_null(err);
		assert_int_equal(size, len);
		sha256_hex(d, hex);
		assert_string_equal(hex, vectors[i].hex);
		free(p);
	}
	tu_rm_rf(dir);
	free(dir);
}

/* A million 'a': the FIPS 180-2 long vector, across several reads. */
static void test_million_a(void **state)
{
	(void)state;
	char *dir = tu_tmpdir("hash");
	char *p = path_join(dir, "a");
	char *buf = xmalloc(1000000);
	unsigned char d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1], *err = NULL;
	memset(buf, 'a', 1000000);
	assert_int_equal(write_file_atomic(p, buf, 1000000), 0);
	assert_int_equal(sha256_file(p, d, NULL, &err), 0);
	sha256_hex(d, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(buf);
	free(p);
	tu_rm_rf(dir);
	free(dir);
}

static void test_matches_sha256sum(void **state)
{
	(void)state;
	if (access("/usr/bin/sha256sum", X_OK) != 0) {
		print_message("skipped: /usr/bin/sha256sum not installed\n");
		skip();
	}
	char *dir = tu_tmpdir("hash");
	char *p = path_join(dir, "big");
	char *cmd = xasprintf("/usr/bin/sha256sum '%s'", p);
	char line[256] = "";
	unsigned char d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1], *err = NULL;
	uint64_t size = 0;

	/* 3 MiB + 7: many reads, and a ragged tail. */
	write_pattern(p, (3u << 20) + 7, 42);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(pclose(f), 0);
	assert_int_equal(sha256_file(p, d, &size, &err), 0);
	assert_int_equal(size, (3u << 20) + 7);
	sha256_hex(d, hex);
	assert_memory_equal(line, hex, SHA256_HEX_LEN);
	free(cmd);
	free(p);
	tu_rm_rf(dir);
	free(dir);
}

static void test_pool_equals_sequential(void **state)
{
	(void)state;
	enum { N = 50 };
	static const unsigned threads[] = { 4, 0, 1, 64 };
	char *dir = tu_tmpdir("hash");
	struct hash_job jobs[N] = { { 0 } };
	unsigned char want[N][SHA256_LEN];
	uint64_t want_size[N];

	for (size_t i = 0; i < N; i++) {
		char *name = xasprintf("f%02zu", i);
		char *p = path_join(dir, name);
		char *err = NULL;
		/* Sizes from 0 to about 2.4 MiB, unordered, so scheduling matters. */
		size_t len = (i * 7919 % N) * 50000;
		write_pattern(p, len, (unsigned)i);
		assert_int_equal(sha256_file(p, want[i], &want_size[i], &err), 0);
		assert_int_equal(want_size[i], len);
		jobs[i].path = p;
		free(name);
	}
	for (size_t t = 0; t < ARRAY_SIZE(threads); t++) {
		for (size_t i = 0; i < N; i++) {
			memset(jobs[i].digest, 0, SHA256_LEN);
			jobs[i].size = 12345;
			jobs[i].err = NULL;
		}
		assert_int_equal(sha256_files(jobs, N, threads[t]), 0);
		for (size_t i = 0; i < N; i++) {
			assert_null(jobs[i].err);
			assert_memory_equal(jobs[i].digest, want[i], SHA256_LEN);
			assert_int_equal(jobs[i].size, want_size[i]);
		}
	}
	assert_int_equal(sha256_files(jobs, 0, 4), 0);
	for (size_t i = 0; i < N; i++)
		free((char *)jobs[i].path);
	tu_rm_rf(dir);
	free(dir);
}

/*
 * Jobs beneath a root, as sealing hashes a run directory: each path is
 * relative to the root's descriptor, not to the current directory, more
 * jobs than threads (so the pool orders them by size), and a link on the
 * way refused like a link at the end.
 */
static void test_pool_beneath_a_root(void **state)
{
	enum { N = 12 };
	char *dir = tu_tmpdir("hash-root"), *names[N + 1];
	struct dirat root = DIRAT_INIT;
	struct hash_job jobs[N + 1];
	unsigned char want[N][SHA256_LEN];

	(void)state;
	for (size_t i = 0; i < N; i++) {
		char *err = NULL, *full;
		uint64_t size;

		names[i] = xasprintf("sub%zu/f%zu", i % 3, i);
		full = path_join(dir, names[i]);
		tu_put(dir, names[i], "", 0);
		write_pattern(full, (i * 5 % N) * 70000 + i, (unsigned)i);
		assert_int_equal(sha256_file(full, want[i], &size, &err), 0);
		free(full);
	}
	char *target = path_join(dir, "sub0"), *link = path_join(dir, "via-link");
	assert_int_equal(symlink(target, link), 0);
	names[N] = xstrdup("via-link/f0");
	assert_int_equal(dirat_open_path(&root, dir), 0);

	memset(jobs, 0, sizeof(jobs));
	for (size_t i = 0; i <= N; i++) {
		jobs[i].path = names[i];
		jobs[i].root = &root;
	}
	assert_int_equal(sha256_files(jobs, N + 1, 2), 1);
	for (size_t i = 0; i < N; i++) {
		assert_null(jobs[i].err);
		assert_memory_equal(jobs[i].digest, want[i], SHA256_LEN);
		assert_int_equal(jobs[i].size, (i * 5 % N) * 70000 + i);
	}
	assert_non_null(jobs[N].err);
	assert_false(jobs[N].stopped);
	free(jobs[N].err);

	dirat_release(&root);
	for (size_t i = 0; i <= N; i++)
		free(names[i]);
	free(target);
	free(link);
	tu_rm_rf(dir);
	free(dir);
}

/* What sha256_file must refuse, and the words the error must contain. */
static void test_refusals(void **state)
{
	(void)state;
	char *dir = tu_tmpdir("hash");
	char *reg = path_join(dir, "reg");
	char *link = path_join(dir, "link");
	char *fifo = path_join(dir, "fifo");
	char *sub = path_join(dir, "sub");
	char *missing = path_join(dir, "missing");
	const struct {
		const char *path;
		const char *want;
	} cases[] = {
		{ link, "is a symbolic link" },
		{ fifo, "not a regular file" },
		{ sub, "not a regular file" },
		{ missing, "No such file" },
	};
	struct hash_job jobs[ARRAY_SIZE(cases) + 1] = { { 0 } };

	assert_int_equal(write_file_atomic(reg, "abc", 3), 0);
	assert_int_equal(symlink("reg", link), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(mkdir(sub, 0755), 0);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned char d[SHA256_LEN];
		char *err = NULL;
		assert_int_equal(sha256_file(cases[i].path, d, NULL, &err), -1);
		assert_non_null(err);
		assert_non_null(strstr(err, cases[i].path));
		assert_non_null(strstr(err, cases[i].want));
		free(err);
		jobs[i].path = cases[i].path;
	}
	/* In the pool: each failure has its own message, the good file its digest. */
	jobs[ARRAY_SIZE(cases)].path = reg;
	assert_int_equal(sha256_files(jobs, ARRAY_SIZE(jobs), 2), ARRAY_SIZE(cases));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_non_null(jobs[i].err);
		assert_non_null(strstr(jobs[i].err, cases[i].want));
		free(jobs[i].err);
	}
	assert_null(jobs[ARRAY_SIZE(cases)].err);
	char hex[SHA256_HEX_LEN + 1];
	sha256_hex(jobs[ARRAY_SIZE(cases)].digest, hex);
	assert_string_equal(hex, vectors[1].hex);

	free(reg);
	free(link);
	free(fifo);
	free(sub);
	free(missing);
	tu_rm_rf(dir);
	free(dir);
}

/*
 * hash_stop_on_change(proc_interrupt_count), as sealing stops: a signal that came before it does not stop the
 * hashing (an interrupted run is still sealed); one after it fails every
 * job, marked stopped; hash_stop_clear() ends it.
 */
static void test_stop_on_signal(void **state)
{
	char *dir = tu_tmpdir("hash-stop"), *paths[3];
	struct hash_job jobs[3];

	(void)state;
	assert_int_equal(proc_setup(), 0);
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%zu", i);
		paths[i] = path_join(dir, name);
		write_pattern(paths[i], 3 << 20, (unsigned)i);
	}
	raise(SIGINT);
	hash_stop_on_change(proc_interrupt_count);
	memset(jobs, 0, sizeof(jobs));
	for (size_t i = 0; i < ARRAY_SIZE(jobs); i++)
		jobs[i].path = paths[i];
	assert_int_equal(sha256_files(jobs, ARRAY_SIZE(jobs), 2), 0);
	assert_false(hash_stopped());

	raise(SIGINT);
	assert_true(hash_stopped());
	memset(jobs, 0, sizeof(jobs));
	for (size_t i = 0; i < ARRAY_SIZE(jobs); i++)
		jobs[i].path = paths[i];
	assert_int_equal(sha256_files(jobs, ARRAY_SIZE(jobs), 2), ARRAY_SIZE(jobs));
	for (size_t i = 0; i < ARRAY_SIZE(jobs); i++) {
		assert_true(jobs[i].stopped);
		assert_non_null(strstr(jobs[i].err, "abev received a signal"));
		free(jobs[i].err);
	}

	hash_stop_clear();
	assert_false(hash_stopped());

	/*
	 * From a base below the count (a signal came before the call that
	 * nothing took): stopped from the start; from the count itself, not.
	 */
	hash_stop_on_change_from(proc_interrupt_count, proc_interrupt_count() - 1);
	assert_true(hash_stopped());
	hash_stop_on_change_from(proc_interrupt_count, proc_interrupt_count());
	assert_false(hash_stopped());
	hash_stop_clear();
	memset(jobs, 0, sizeof(jobs));
	for (size_t i = 0; i < ARRAY_SIZE(jobs); i++)
		jobs[i].path = paths[i];
	assert_int_equal(sha256_files(jobs, ARRAY_SIZE(jobs), 2), 0);
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		free(paths[i]);
	tu_rm_rf(dir);
	free(dir);
}

static int stop_now(void *arg)
{
	return ++*(int *)arg > 1;
}

/*
 * copy_file_sparse(): the bytes of a file with holes (and a hole at its
 * end) copied equal, the holes left unwritten where the file system keeps
 * them, and a stop asked for ends the copy.
 */
static void test_sparse_copy(void **state)
{
	char *dir = tu_tmpdir("sparse-copy"), *src = path_join(dir, "src"), *dst = path_join(dir, "dst");
	const off_t size = 64 << 20;
	int in, out, asks = 0;
	struct stat a, b;
	char buf[8];

	(void)state;
	in = open(src, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(in >= 0);
	assert_int_equal(pwrite(in, "head", 4, 0), 4);
	assert_int_equal(pwrite(in, "mid", 3, 32 << 20), 3);
	assert_int_equal(ftruncate(in, size), 0);
	out = open(dst, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(out >= 0);
	assert_int_equal(copy_file_sparse(in, out, (uint64_t)size, NULL, NULL), COPY_OK);
	assert_int_equal(fstat(in, &a), 0);
	assert_int_equal(fstat(out, &b), 0);
	assert_int_equal(b.st_size, size);
	assert_int_equal(pread(out, buf, 4, 0), 4);
	assert_memory_equal(buf, "head", 4);
	assert_int_equal(pread(out, buf, 3, 32 << 20), 3);
	assert_memory_equal(buf, "mid", 3);
	assert_int_equal(pread(out, buf, 1, 16 << 20), 1);
	assert_int_equal(buf[0], 0);
	/* Where the source keeps its holes, so does the copy. */
	if (a.st_blocks * 512 < size / 2)
		assert_true(b.st_blocks * 512 < size / 2);
	assert_int_equal(ftruncate(out, 0), 0);
	assert_int_equal(copy_file_sparse(in, out, (uint64_t)size, stop_now, &asks), COPY_STOPPED);
	close(in);
	close(out);
	free(src);
	free(dst);
	tu_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_million_a),
		cmocka_unit_test(test_matches_sha256sum),
		cmocka_unit_test(test_pool_equals_sequential),
		cmocka_unit_test(test_pool_beneath_a_root),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_stop_on_signal),
		cmocka_unit_test(test_sparse_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
