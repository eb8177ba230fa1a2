/* Unit tests of verify: sealed evidence verifies clean as a directory and
 * as a bundle, and every kind of tampering — edited, deleted, added or
 * renamed files, a re-hashed SHA256, a broken or foreign signature,
 * planted symlinks and FIFOs, hostile bundle entries, a cut bundle — is
 * reported against the file it concerns. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "seal/seal.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "testutil.h"
#include "seal/verify.h"

static char last_error[1024];

static void capture(const char *prefix, const char *msg)
{
	snprintf(last_error, sizeof(last_error), "%s: %s", prefix, msg);
}

struct fixture {
	char root[64];
	struct signify_key *key, *other;
	struct signify_pub pub;
	char fp[65];
	int serial;
};

static struct strbuf slurp(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *p = path_join(dir, name);
	assert_int_equal(read_file_capped(&sb, p, 64u << 20), 0);
	free(p);
	return sb;
}

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	char fp2[65];
	snprintf(fx->root, sizeof(fx->root), "/tmp/abev-verify-XXXXXX");
	assert_non_null(mkdtemp(fx->root));
	char *k1 = path_join(fx->root, "key1"), *k2 = path_join(fx->root, "key2");
	char *p1 = xasprintf("%s.key", k1), *p2 = xasprintf("%s.key", k2);
	char *pub = xasprintf("%s.pub", k1);
	char *err = NULL;
	assert_int_equal(signify_keygen(k1, NULL, fx->fp), 0);
	assert_int_equal(signify_keygen(k2, NULL, fp2), 0);
	fx->key = signify_key_load(p1, NULL);
	fx->other = signify_key_load(p2, NULL);
	assert_non_null(fx->key);
	assert_non_null(fx->other);
	assert_int_equal(signify_pub_read(pub, &fx->pub, &err), 0);
	free(k1);
	free(k2);
	free(p1);
	free(p2);
	free(pub);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	signify_key_free(fx->key);
	signify_key_free(fx->other);
	tu_rm_rf(fx->root);
	free(fx);
	return 0;
}

/* A fresh sealed evidence directory under the fixture; caller frees the path. */
static char *make_evidence(struct fixture *fx)
{
	char *ev = xasprintf("%s/ev%d", fx->root, fx->serial++);
	char *big = xmalloc(1 << 20);
	for (size_t i = 0; i < (1 << 20); i++)
		big[i] = (char)(i * 7 + i / 251);
	assert_int_equal(mkdir(ev, 0755), 0);
	tu_puts(ev, "plan.json", "{\"schema\": \"abev-plan/1\"}\n");
	tu_puts(ev, "notes.txt", "notes\n");
	tu_puts(ev, "report.md", "# Report\n");
	tu_puts(ev, "runs/a/run-1/test.log", "baseline run\n");
	tu_puts(ev, "runs/b/run-1/test.log", "candidate run\n");
	tu_put(ev, "runs/b/run-1/trace.bin", big, 1 << 20);
	tu_put(ev, "runs/b/run-1/empty", "", 0);
	assert_int_equal(seal_evidence(ev, fx->key), 0);
	free(big);
	return ev;
}

#define NFILES 7

static int has_problem(const struct verify_result *r, const char *file, const char *reason)
{
	for (size_t i = 0; i < r->nproblems; i++)
		if (!strcmp(r->problems[i].file, file) && strstr(r->problems[i].reason, reason))
			return 1;
	return 0;
}

static void dump(const struct verify_result *r)
{
	for (size_t i = 0; i < r->nproblems; i++)
		print_message("  problem: %s: %s\n", r->problems[i].file, r->problems[i].reason);
}

static void assert_sorted(const struct verify_result *r)
{
	for (size_t i = 1; i < r->nproblems; i++) {
		int c = strcmp(r->problems[i - 1].file, r->problems[i].file);
		assert_true(c < 0 || (c == 0 && strcmp(r->problems[i - 1].reason,
						       r->problems[i].reason) <= 0));
	}
}

static void test_clean(void **state)
{
	struct fixture *fx = *state;
	struct verify_result r;
	char *ev = make_evidence(fx);
	char *bundle = xasprintf("%s.tar.zst", ev);
	char *gz = xasprintf("%s.tar.gz", ev);

	assert_int_equal(verify_path(ev, &fx->pub, &r), 0);
	dump(&r);
	assert_int_equal(r.nproblems, 0);
	assert_false(r.is_bundle);
	assert_true(r.signature_ok);
	assert_int_equal(r.files_listed, NFILES);
	assert_int_equal(r.files_checked, NFILES);
	assert_string_equal(r.fingerprint, fx->fp);
	verify_result_release(&r);
	verify_result_release(&r);

	assert_int_equal(bundle_pack(ev, bundle), 0);
	assert_int_equal(bundle_pack(ev, gz), 0);
	const char *const both[] = { bundle, gz };
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(verify_path(both[i], &fx->pub, &r), 0);
		dump(&r);
		assert_int_equal(r.nproblems, 0);
		assert_true(r.is_bundle);
		assert_true(r.signature_ok);
		assert_int_equal(r.files_checked, NFILES);
		verify_result_release(&r);
	}

	/* Neither a directory nor a bundle; a path that is not there. */
	char *notes = path_join(ev, "notes.txt");
	char *missing = path_join(ev, "missing");
	set_error_routine(capture);
	assert_int_equal(verify_path(notes, &fx->pub, &r), -1);
	assert_non_null(strstr(last_error, "neither an evidence directory nor a bundle"));
	assert_int_equal(r.nproblems, 0);
	assert_int_equal(verify_path(missing, &fx->pub, &r), -1);
	assert_non_null(strstr(last_error, "No such file"));
	set_error_routine(NULL);
	/* Named like a bundle, it is judged as one: a problem that says why, not -1. */
	char *empty = path_join(fx->root, "empty.tar.gz");
	assert_int_equal(write_file_atomic(empty, "", 0), 0);
	assert_int_equal(verify_path(empty, &fx->pub, &r), 0);
	assert_true(r.is_bundle);
	if (r.nproblems != 1 || !has_problem(&r, empty, "is an empty file (0 bytes)")) {
		dump(&r);
		fail();
	}
	verify_result_release(&r);
	free(empty);
	free(notes);
	free(missing);
	free(ev);
	free(bundle);
	free(gz);
}

/*
 * What the evidence says of itself is read from the very bytes of
 * result.json that were checked, in a directory as in a bundle; evidence
 * without one says nothing, and a problem stops the reading.
 */
static void test_self(void **state)
{
	struct fixture *fx = *state;
	struct verify_result r;
	char *ev = xasprintf("%s/self", fx->root);
	char *bundle = xasprintf("%s.tar.gz", ev);
	char *bare = make_evidence(fx);

	assert_int_equal(mkdir(ev, 0755), 0);
	tu_puts(ev, "result.json", "{\"status\": \"failed\", \"interrupt\": null, \"tampered\": "
		"[\"plan.json: changed after abev wrote it\"], \"comparison\": {\"decision\": "
		"\"rejected\"}}\n");
	tu_puts(ev, "plan.json", "[]");
	assert_int_equal(seal_evidence(ev, fx->key), 0);
	assert_int_equal(bundle_pack(ev, bundle), 0);
	const char *const both[] = { ev, bundle };
	for (size_t i = 0; i < 2; i++) {
		/* Only asked for: the other commands read result.json themselves. */
		assert_int_equal(verify_path(both[i], &fx->pub, &r), 0);
		assert_int_equal(r.nproblems, 0);
		assert_false(r.self_read);
		assert_null(r.self_err);
		verify_result_release(&r);
		assert_int_equal(verify_path_self(both[i], &fx->pub, &r), 0);
		dump(&r);
		assert_int_equal(r.nproblems, 0);
		assert_true(r.self_read);
		assert_null(r.self_err);
		assert_string_equal(r.self.status, "failed");
		assert_string_equal(r.self.decision, "rejected");
		assert_int_equal(r.self.ntampered, 1);
		assert_string_equal(r.self.tampered[0], "plan.json: changed after abev wrote it");
		assert_false(evidence_self_clean(&r.self));
		verify_result_release(&r);
	}

	/* No result.json: intact, but nothing says what it records. */
	assert_int_equal(verify_path_self(bare, &fx->pub, &r), 0);
	assert_int_equal(r.nproblems, 0);
	assert_false(r.self_read);
	assert_non_null(r.self_err);
	assert_non_null(strstr(r.self_err, "result.json: missing"));
	verify_result_release(&r);

	/* A changed result.json is a problem, and what it says is not read. */
	tu_puts(ev, "result.json", "{\"status\": \"completed\", \"tampered\": []}\n");
	assert_int_equal(verify_path_self(ev, &fx->pub, &r), 0);
	assert_true(has_problem(&r, "result.json", "content changed"));
	assert_false(r.self_read);
	assert_null(r.self_err);
	assert_null(r.self.status);
	verify_result_release(&r);
	free(ev);
	free(bundle);
	free(bare);
}

/* Tampering with a sealed directory; the bundle of the result is checked too. */
static void flip_byte(const char *ev, struct fixture *fx)
{
	struct strbuf sb = slurp(ev, "runs/b/run-1/trace.bin");
	(void)fx;
	sb.buf[700000] ^= 1;
	char *p = path_join(ev, "runs/b/run-1/trace.bin");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(write_file_atomic(p, sb.buf, sb.len), 0);
	free(p);
	strbuf_release(&sb);
}

static void delete_file(const char *ev, struct fixture *fx)
{
	char *p = path_join(ev, "notes.txt");
	(void)fx;
	assert_int_equal(unlink(p), 0);
	free(p);
}

static void add_file(const char *ev, struct fixture *fx)
{
	(void)fx;
	tu_puts(ev, "runs/a/extra.txt", "not here before\n");
}

static void rename_file(const char *ev, struct fixture *fx)
{
	char *a = path_join(ev, "notes.txt"), *b = path_join(ev, "notes-renamed.txt");
	(void)fx;
	assert_int_equal(rename(a, b), 0);
	free(a);
	free(b);
}

/* Edit a file and re-hash SHA256 to match it: only the signature knows better. */
static void rehash_manifest(const char *ev, struct fixture *fx)
{
	struct manifest m = { NULL, 0 };
	size_t len;
	(void)fx;
	tu_puts(ev, "report.md", "# Report (better numbers)\n");
	assert_int_equal(manifest_build(ev, &m), 0);
	char *text = manifest_text(&m, &len);
	char *p = path_join(ev, EVIDENCE_MANIFEST_FILE);
	assert_int_equal(write_file_atomic(p, text, len), 0);
	free(p);
	free(text);
	manifest_release(&m);
}

static void corrupt_signature(const char *ev, struct fixture *fx)
{
	struct strbuf sb = slurp(ev, EVIDENCE_SIGNATURE_FILE);
	char *line2 = strchr(sb.buf, '\n') + 1;
	(void)fx;
	/* Swap one base64 digit of the signature bytes for another. */
	line2[40] = line2[40] == 'A' ? 'B' : 'A';
	char *p = path_join(ev, EVIDENCE_SIGNATURE_FILE);
	assert_int_equal(write_file_atomic(p, sb.buf, sb.len), 0);
	free(p);
	strbuf_release(&sb);
}

static void other_key(const char *ev, struct fixture *fx)
{
	assert_int_equal(seal_evidence(ev, fx->other), 0);
}

static void unsign(const char *ev, struct fixture *fx)
{
	char *p = path_join(ev, EVIDENCE_SIGNATURE_FILE);
	(void)fx;
	assert_int_equal(unlink(p), 0);
	free(p);
}

static void plant_symlink(const char *ev, struct fixture *fx)
{
	char *p = path_join(ev, "runs/a/run-1/passwd");
	(void)fx;
	assert_int_equal(symlink("/etc/passwd", p), 0);
	free(p);
}

static void plant_fifo(const char *ev, struct fixture *fx)
{
	char *p = path_join(ev, "runs/fifo");
	(void)fx;
	assert_int_equal(mkfifo(p, 0644), 0);
	free(p);
}

static void sig_as_symlink(const char *ev, struct fixture *fx)
{
	char *p = path_join(ev, EVIDENCE_SIGNATURE_FILE);
	(void)fx;
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	free(p);
}

/* A second name for a listed file, outside the evidence: its content still matches. */
static void hardlink_outside(const char *ev, struct fixture *fx)
{
	char *p = path_join(ev, "notes.txt");
	char *out = xasprintf("%s/outside-%d", fx->root, fx->serial);
	assert_int_equal(link(p, out), 0);
	free(p);
	free(out);
}

static void empty_dir(const char *ev, struct fixture *fx)
{
	char *p = path_join(ev, "runs/extra");
	(void)fx;
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

static const struct {
	const char *what;
	void (*tamper)(const char *ev, struct fixture *fx);
	int packable;               /* bundle_pack accepts the result */
	int signature_ok;
	size_t checked;             /* files_checked */
	size_t nproblems;
	const char *file, *reason;
	const char *file2, *reason2;
} dir_cases[] = {
	{ "one byte changed", flip_byte, 1, 1, NFILES - 1, 1, "runs/b/run-1/trace.bin", "content changed (sha256 ",
	  NULL, NULL },
	{ "file deleted", delete_file, 1, 1, NFILES - 1, 1, "notes.txt", "listed but missing", NULL, NULL },
	{ "file added", add_file, 1, 1, NFILES, 1, "runs/a/extra.txt", "not listed in SHA256", NULL, NULL },
	{ "file renamed", rename_file, 1, 1, NFILES - 1, 2, "notes.txt", "listed but missing",
	  "notes-renamed.txt", "not listed in SHA256" },
	{ "SHA256 re-hashed", rehash_manifest, 1, 1, NFILES - 1, 2, "SHA256",
	  "differs from the signed copy in SHA256.sig", "report.md", "content changed" },
	{ "signature corrupted", corrupt_signature, 1, 0, NFILES, 1, "SHA256.sig", "", NULL, NULL },
	{ "another key", other_key, 1, 0, NFILES, 1, "SHA256.sig", "signed with another key", NULL, NULL },
	{ "unsigned", unsign, 1, 0, NFILES, 1, "SHA256.sig", "missing: the evidence is unsigned", NULL, NULL },
	{ "symlink planted", plant_symlink, 0, 1, NFILES, 1, "runs/a/run-1/passwd", "symlink", NULL, NULL },
	{ "FIFO planted", plant_fifo, 0, 1, NFILES, 1, "runs/fifo", "FIFO", NULL, NULL },
	{ "SHA256.sig is a symlink", sig_as_symlink, 0, 0, NFILES, 1, "SHA256.sig", "symlink", NULL, NULL },
	/* Packed, the link is a plain file again: only the directory shows it. */
	{ "hardlink to outside", hardlink_outside, 0, 1, NFILES, 1, "notes.txt", "a hardlink (the file "
	  "has 2 names)", NULL, NULL },
	{ "empty directory", empty_dir, 1, 1, NFILES, 1, "runs/extra", "unlisted directory", NULL, NULL },
};

static void check_case(const struct verify_result *r, size_t i)
{
	if (r->nproblems != dir_cases[i].nproblems ||
	    !has_problem(r, dir_cases[i].file, dir_cases[i].reason) ||
	    (dir_cases[i].file2 && !has_problem(r, dir_cases[i].file2, dir_cases[i].reason2))) {
		print_message("case '%s':\n", dir_cases[i].what);
		dump(r);
		fail();
	}
	assert_int_equal(r->signature_ok, dir_cases[i].signature_ok);
	/* Without a good signature the unsigned SHA256 still locates damage. */
	assert_int_equal(r->files_listed, NFILES);
	assert_int_equal(r->files_checked, dir_cases[i].checked);
	assert_int_equal(r->nproblems, dir_cases[i].nproblems);
	assert_sorted(r);
}

static void test_tampered_dir(void **state)
{
	struct fixture *fx = *state;
	for (size_t i = 0; i < ARRAY_SIZE(dir_cases); i++) {
		struct verify_result r;
		char *ev = make_evidence(fx);
		char *bundle = xasprintf("%s.tar.gz", ev);
		dir_cases[i].tamper(ev, fx);

		assert_int_equal(verify_path(ev, &fx->pub, &r), 0);
		check_case(&r, i);
		verify_result_release(&r);

		if (dir_cases[i].packable) {
			assert_int_equal(bundle_pack(ev, bundle), 0);
			assert_int_equal(verify_path(bundle, &fx->pub, &r), 0);
			assert_true(r.is_bundle);
			check_case(&r, i);
			verify_result_release(&r);
		}
		free(bundle);
		free(ev);
	}
}

/*
 * Without a key the contents are still held against SHA256 (and against
 * the copy SHA256.sig carries), but no signature is judged.
 */
static const struct {
	const char *what;
	void (*tamper)(const char *ev, struct fixture *fx);
	int signature_present;
	size_t nproblems;
	const char *file, *reason;
} keyless_cases[] = {
	{ "untouched", NULL, 1, 0, NULL, NULL },
	{ "unsigned", unsign, 0, 0, NULL, NULL },
	{ "another key", other_key, 1, 0, NULL, NULL },
	{ "one byte changed", flip_byte, 1, 1, "runs/b/run-1/trace.bin", "content changed" },
	{ "file added", add_file, 1, 1, "runs/a/extra.txt", "not listed in SHA256" },
	{ "SHA256 re-hashed", rehash_manifest, 1, 2, "SHA256",
	  "differs from the (unchecked) copy in SHA256.sig" },
	{ "SHA256.sig is a symlink", sig_as_symlink, 1, 1, "SHA256.sig", "symlink" },
};

static void test_without_key(void **state)
{
	struct fixture *fx = *state;
	for (size_t i = 0; i < ARRAY_SIZE(keyless_cases); i++) {
		struct verify_result r;
		char *ev = make_evidence(fx);
		if (keyless_cases[i].tamper)
			keyless_cases[i].tamper(ev, fx);
		assert_int_equal(verify_path(ev, NULL, &r), 0);
		if (r.nproblems != keyless_cases[i].nproblems ||
		    (keyless_cases[i].file &&
		     !has_problem(&r, keyless_cases[i].file, keyless_cases[i].reason))) {
			print_message("case '%s':\n", keyless_cases[i].what);
			dump(&r);
			fail();
		}
		assert_false(r.signature_ok);
		assert_int_equal(r.signature_present, keyless_cases[i].signature_present);
		assert_string_equal(r.fingerprint, "");
		assert_int_equal(r.files_listed, NFILES);
		verify_result_release(&r);
		free(ev);
	}
}

/*
 * Evidence sealed with a result.json whose "unsealed" list names what
 * is then added: the files abev had not hashed when a signal stopped
 * its seal. Returns the directory (caller frees).
 */
static char *make_unsealed(struct fixture *fx, const char *list, struct signify_key *key)
{
	char *ev = xasprintf("%s/ev%d", fx->root, fx->serial++);
	char *doc = xasprintf("{\"status\": \"interrupted\", \"interrupt\": \"SIGTERM\", "
			      "\"tampered\": [], \"unsealed\": %s}\n", list);
	char *big = xcalloc(1, 3000);

	assert_int_equal(mkdir(ev, 0755), 0);
	tu_puts(ev, "result.json", doc);
	tu_puts(ev, "plan.json", "[]");
	tu_puts(ev, "runs/a/run-1/test.log", "sealed\n");
	assert_int_equal(seal_evidence(ev, key), 0);
	/* What the seal did not reach. */
	tu_put(ev, "runs/b/run-3/big.bin", big, 3000);
	tu_puts(ev, "runs/b/run-3/sub/test.log", "late\n");
	tu_puts(ev, "runs/a/run-1/late.txt", "12345");
	free(doc);
	free(big);
	return ev;
}

static void assert_unsealed(const struct verify_result *r, size_t files, uint64_t bytes,
			    const char *first)
{
	assert_int_equal(r->unsealed_files, files);
	assert_int_equal(r->unsealed_bytes, bytes);
	assert_int_equal(r->nunsealed_names, files < VERIFY_UNSEALED_NAMED ? files
								 : VERIFY_UNSEALED_NAMED);
	if (first)
		assert_string_equal(r->unsealed_names[0], first);
}

/*
 * Files a stopped seal left unhashed are no problem when result.json,
 * as the manifest lists it (and, with a key, as signed), names them or
 * a directory above them: counted and named, in a directory and in a
 * bundle, and the record is not clean. Anything else is not honoured.
 */
static void test_unsealed(void **state)
{
	struct fixture *fx = *state;
	struct verify_result r;
	const char *list = "[\"runs/b/run-3\", \"runs/a/run-1/late.txt\", \"runs/c/gone\"]";
	char *ev = make_unsealed(fx, list, fx->key);
	char *bundle = xasprintf("%s.tar.zst", ev);
	char *p;

	/* An empty directory beneath a named one is part of what was left out. */
	p = path_join(ev, "runs/b/run-3/empty");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	assert_int_equal(bundle_pack(ev, bundle), 0);
	const char *const both[] = { ev, bundle };
	for (size_t i = 0; i < 2; i++) {
		const struct signify_pub *pubs[] = { &fx->pub, NULL };
		for (size_t k = 0; k < 2; k++) {
			assert_int_equal(verify_path(both[i], pubs[k], &r), 0);
			dump(&r);
			assert_int_equal(r.nproblems, 0);
			assert_int_equal(r.files_checked, 3);
			assert_unsealed(&r, 3, 3000 + 5 + 5, "runs/a/run-1/late.txt");
			assert_string_equal(r.unsealed_names[1], "runs/b/run-3/big.bin");
			assert_string_equal(r.unsealed_names[2], "runs/b/run-3/sub/test.log");
			verify_result_release(&r);
			assert_int_equal(verify_path_self(both[i], pubs[k], &r), 0);
			assert_int_equal(r.nproblems, 0);
			assert_true(r.self_read);
			assert_int_equal(r.self.nunsealed, 3);
			assert_false(evidence_self_clean(&r.self));
			assert_int_equal(r.unsealed_files, 3);
			verify_result_release(&r);
		}
	}

	/* A file nobody named, and an empty directory outside the named ones, still are. */
	tu_puts(ev, "runs/a/run-1/other.txt", "x");
	p = path_join(ev, "runs/a/run-9");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	assert_int_equal(verify_path(ev, &fx->pub, &r), 0);
	if (r.nproblems != 2 || !has_problem(&r, "runs/a/run-1/other.txt", "not listed in SHA256") ||
	    !has_problem(&r, "runs/a/run-9", "unlisted directory")) {
		dump(&r);
		fail();
	}
	assert_unsealed(&r, 3, 3010, NULL);
	verify_result_release(&r);
	free(ev);
	free(bundle);

	/* Signed with another key: with the key, the list is not vouched for. */
	ev = make_unsealed(fx, list, fx->other);
	assert_int_equal(verify_path(ev, &fx->pub, &r), 0);
	assert_true(has_problem(&r, "SHA256.sig", "another key"));
	assert_true(has_problem(&r, "runs/b/run-3/big.bin", "not listed in SHA256"));
	assert_true(has_problem(&r, "runs/a/run-1/late.txt", "not listed in SHA256"));
	assert_unsealed(&r, 0, 0, NULL);
	verify_result_release(&r);
	/* Without a key, its manifest alone is checked: honoured. */
	assert_int_equal(verify_path(ev, NULL, &r), 0);
	assert_int_equal(r.nproblems, 0);
	assert_unsealed(&r, 3, 3010, NULL);
	verify_result_release(&r);

	/* result.json changed after the seal: what it says is not honoured. */
	tu_puts(ev, "result.json", "{\"status\": \"interrupted\", \"unsealed\": [\"runs/a\", "
		"\"runs/b\"]}\n");
	assert_int_equal(verify_path(ev, NULL, &r), 0);
	assert_true(has_problem(&r, "result.json", "content changed"));
	assert_true(has_problem(&r, "runs/b/run-3/big.bin", "not listed in SHA256"));
	assert_unsealed(&r, 0, 0, NULL);
	verify_result_release(&r);
	free(ev);

	/* Names the list may not hold: each a problem of result.json, not honoured. */
	ev = make_unsealed(fx, "[\"runs/b/run-3\", \"../x\", \"runs\", \"plan.json\", \"\", "
			   "\"/tmp/x\", \"runs/a/run-1/../run-1/late.txt\"]", fx->key);
	assert_int_equal(verify_path(ev, &fx->pub, &r), 0);
	if (r.nproblems != 7 ||
	    !has_problem(&r, "result.json", "\"unsealed\" names '../x' ('..' component)") ||
	    !has_problem(&r, "result.json", "'runs' (not beneath runs/)") ||
	    !has_problem(&r, "result.json", "'plan.json' (not beneath runs/)") ||
	    !has_problem(&r, "result.json", "'' (empty name)") ||
	    !has_problem(&r, "result.json", "'/tmp/x' (absolute path)") ||
	    !has_problem(&r, "result.json", "'runs/a/run-1/../run-1/late.txt' ('..' component)") ||
	    !has_problem(&r, "runs/a/run-1/late.txt", "not listed in SHA256")) {
		dump(&r);
		fail();
	}
	assert_unsealed(&r, 2, 3005, "runs/b/run-3/big.bin");
	verify_result_release(&r);
	free(ev);

	/* Not a list: a problem, and nothing is honoured. */
	ev = make_unsealed(fx, "\"runs/b/run-3\"", fx->key);
	assert_int_equal(verify_path(ev, &fx->pub, &r), 0);
	assert_true(has_problem(&r, "result.json", "unsealed: expected an array"));
	assert_true(has_problem(&r, "runs/b/run-3/big.bin", "not listed in SHA256"));
	assert_unsealed(&r, 0, 0, NULL);
	verify_result_release(&r);
	free(ev);
}

/* One extra entry appended to a copy of a good bundle. */
struct extra {
	const char *name;
	mode_t type;
	const char *symlink, *hardlink, *data;
};

static void copy_with_extra(const char *good, const char *out, const struct extra *x)
{
	struct archive *in = archive_read_new(), *w = archive_write_new();
	struct archive_entry *e;
	char buf[8192];
	int rc;

	assert_int_equal(archive_read_support_format_tar(in), ARCHIVE_OK);
	assert_int_equal(archive_read_support_filter_zstd(in), ARCHIVE_OK);
	assert_int_equal(archive_read_open_filename(in, good, 10240), ARCHIVE_OK);
	assert_int_equal(archive_write_set_format_pax_restricted(w), ARCHIVE_OK);
	assert_int_equal(archive_write_add_filter_zstd(w), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(w, out), ARCHIVE_OK);
	while ((rc = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		assert_int_equal(archive_write_header(w, e), ARCHIVE_OK);
		la_ssize_t n;
		while ((n = archive_read_data(in, buf, sizeof(buf))) > 0)
			assert_int_equal(archive_write_data(w, buf, (size_t)n), n);
		assert_int_equal(n, 0);
	}
	assert_int_equal(rc, ARCHIVE_EOF);
	e = archive_entry_new();
	size_t len = x->data ? strlen(x->data) : 0;
	archive_entry_set_pathname(e, x->name);
	archive_entry_set_filetype(e, x->type);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)len);
	if (x->symlink)
		archive_entry_set_symlink(e, x->symlink);
	if (x->hardlink)
		archive_entry_set_hardlink(e, x->hardlink);
	if (x->type == AE_IFCHR)
		archive_entry_set_rdev(e, makedev(1, 3));
	assert_int_equal(archive_write_header(w, e), ARCHIVE_OK);
	if (len)
		assert_int_equal(archive_write_data(w, x->data, len), (la_ssize_t)len);
	archive_entry_free(e);
	assert_int_equal(archive_write_close(w), ARCHIVE_OK);
	assert_int_equal(archive_write_free(w), ARCHIVE_OK);
	assert_int_equal(archive_read_close(in), ARCHIVE_OK);
	assert_int_equal(archive_read_free(in), ARCHIVE_OK);
}

static void test_hostile_bundle(void **state)
{
	static const struct {
		struct extra x;
		const char *file, *reason;
	} cases[] = {
		{ { "../evil", AE_IFREG, NULL, NULL, "x" }, "../evil", "unsafe name: '..' component" },
		{ { "runs/../../evil", AE_IFREG, NULL, NULL, "x" }, "runs/../../evil", "unsafe name" },
		{ { "/etc/cron.d/x", AE_IFREG, NULL, NULL, "x" }, "/etc/cron.d/x",
		  "unsafe name: absolute path" },
		{ { "runs/a/link", AE_IFLNK, "/etc/passwd", NULL, NULL }, "runs/a/link", "symlink" },
		{ { "runs/a/hard", AE_IFREG, NULL, "notes.txt", NULL }, "runs/a/hard", "hardlink" },
		{ { "runs/a/null", AE_IFCHR, NULL, NULL, NULL }, "runs/a/null", "device" },
		/* A second copy of a listed file: an extractor would keep this one. */
		{ { "notes.txt", AE_IFREG, NULL, NULL, "forged\n" }, "notes.txt",
		  "appears more than once in the bundle" },
		{ { "SHA256.sig", AE_IFREG, NULL, NULL, "forged\n" }, "SHA256.sig",
		  "appears more than once in the bundle" },
		/* GNU tar would make notes.txt a directory, or fail on it. */
		{ { "notes.txt/", AE_IFDIR, NULL, NULL, NULL }, "notes.txt",
		  "both a directory and a file" },
		{ { "runs/", AE_IFDIR, NULL, NULL, NULL }, "runs",
		  "appears more than once in the bundle (as a directory)" },
		{ { "runs/empty/", AE_IFDIR, NULL, NULL, NULL }, "runs/empty", "unlisted directory" },
	};
	struct fixture *fx = *state;
	char *ev = make_evidence(fx);
	char *good = xasprintf("%s.tar.zst", ev);
	char *bad = xasprintf("%s-bad.tar.zst", ev);
	struct verify_result r;

	assert_int_equal(bundle_pack(ev, good), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unlink(bad);
		copy_with_extra(good, bad, &cases[i].x);
		assert_int_equal(verify_path(bad, &fx->pub, &r), 0);
		if (!has_problem(&r, cases[i].file, cases[i].reason)) {
			dump(&r);
			fail_msg("case %zu: no problem '%s: %s'", i, cases[i].file, cases[i].reason);
		}
		assert_sorted(&r);
		verify_result_release(&r);
	}

	/* Cut in half: the bundle is named, and so is every file it lost. */
	struct strbuf whole = STRBUF_INIT;
	assert_int_equal(read_file_capped(&whole, good, 64u << 20), 0);
	unlink(bad);
	assert_int_equal(write_file_atomic(bad, whole.buf, whole.len / 2), 0);
	assert_int_equal(verify_path(bad, &fx->pub, &r), 0);
	if (!has_problem(&r, bad, "truncated bundle") || r.files_checked >= NFILES) {
		dump(&r);
		fail();
	}
	assert_sorted(&r);
	verify_result_release(&r);
	strbuf_release(&whole);
	free(ev);
	free(good);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_self, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tampered_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_without_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_bundle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsealed, setup, teardown),
	};
	return cmocka_run_group_tests_name("verify", tests, NULL, NULL);
}
