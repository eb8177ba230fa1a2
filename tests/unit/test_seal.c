/* Unit tests of seal: key files and their refusals, encrypted keys, the
 * signify signature format and every way a signature file can be wrong,
 * manifest build/text/parse and unsafe names, sealing a directory, and
 * interoperability with openssl, signify-openbsd and sha256sum when they
 * are installed (skipped with a message when not). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "util/dirat.h"
#include "seal/seal.h"
#include "evidence/ledger.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/compiler.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "testutil.h"
#include "seal/verify.h"

/* ---- fixtures ------------------------------------------------------ */

static char last_error[4096];

static void capture(const char *prefix, const char *msg)
{
	snprintf(last_error, sizeof(last_error), "%s: %s", prefix, msg);
}

static char *slurp(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(read_file_capped(&sb, path, 1 << 24), 0);
	return strbuf_detach(&sb, len);
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* Runs a shell command quietly; returns its exit status (-1: did not exit). */
static int run(const char *fmt, ...) ABEV_PRINTF(1, 2);
static int run(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int st;
	strbuf_adds(&sb, "{ ");
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_adds(&sb, "; } >/dev/null 2>&1");
	st = system(sb.buf);
	strbuf_release(&sb);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have_tool(const char *path)
{
	if (access(path, X_OK) == 0)
		return 1;
	print_message("skipped: %s is not installed\n", path);
	return 0;
}

/* A key pair in a fresh directory: dir/k.key, dir/k.pub, dir/k.pub.pem. */
struct keyfix {
	char *dir;
	char *prefix;
	char fp[65];
	struct signify_key *key;
	struct signify_pub pub;
};

static void keyfix_make(struct keyfix *f, const char *pass)
{
	char *path, *err = NULL;
	f->dir = tu_tmpdir("seal");
	f->prefix = path_join(f->dir, "k");
	assert_int_equal(signify_keygen(f->prefix, pass, f->fp), 0);
	path = xasprintf("%s.key", f->prefix);
	f->key = signify_key_load(path, pass);
	assert_non_null(f->key);
	free(path);
	path = xasprintf("%s.pub", f->prefix);
	assert_int_equal(signify_pub_read(path, &f->pub, &err), 0);
	free(path);
}

static void keyfix_release(struct keyfix *f)
{
	signify_key_free(f->key);
	tu_rm_rf(f->dir);
	free(f->dir);
	free(f->prefix);
}

/* ---- keys ---------------------------------------------------------- */

static void test_keygen(void **state)
{
	(void)state;
	struct keyfix f;
	struct signify_pub of;
	struct stat st;
	char fp[65];
	size_t len;
	char *path, *text;

	keyfix_make(&f, NULL);

	path = xasprintf("%s.key", f.prefix);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	text = slurp(path, &len);
	assert_non_null(strstr(text, "-----BEGIN PRIVATE KEY-----\n"));
	free(text);
	free(path);

	/* The signify public key: exactly the documented two lines. */
	path = xasprintf("%s.pub", f.prefix);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0022, 0);
	text = slurp(path, &len);
	char *want_comment = xasprintf("untrusted comment: abev public key %.16s\n", f.fp);
	assert_memory_equal(text, want_comment, strlen(want_comment));
	assert_int_equal(len, strlen(want_comment) + 56 + 1);
	unsigned char blob[64];
	assert_int_equal(EVP_DecodeBlock(blob, (unsigned char *)text + strlen(want_comment), 56), 42);
	assert_memory_equal(blob, "Ed", 2);
	assert_memory_equal(blob + 2, f.pub.keynum, 8);
	assert_memory_equal(blob + 10, f.pub.key, 32);
	free(want_comment);
	free(text);
	free(path);

	/* keynum is the start of SHA-256(pub); the fingerprint is all of it. */
	unsigned char d[SHA256_LEN];
	sha256_buf(f.pub.key, 32, d);
	assert_memory_equal(f.pub.keynum, d, 8);
	signify_fingerprint(&f.pub, fp);
	assert_string_equal(fp, f.fp);
	signify_pub_of(f.key, &of);
	assert_memory_equal(&of, &f.pub, sizeof(of));

	/* The PEM public key is the documented DER prefix + the raw key. */
	path = xasprintf("%s.pub.pem", f.prefix);
	text = slurp(path, &len);
	const char *hdr = "-----BEGIN PUBLIC KEY-----\n";
	const char *ftr = "\n-----END PUBLIC KEY-----\n";
	assert_memory_equal(text, hdr, strlen(hdr));
	assert_int_equal(len, strlen(hdr) + 60 + strlen(ftr));
	assert_string_equal(text + strlen(hdr) + 60, ftr);
	unsigned char der[64];
	static const unsigned char prefix[] = { 0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
						0x2b, 0x65, 0x70, 0x03, 0x21, 0x00 };
	assert_int_equal(EVP_DecodeBlock(der, (unsigned char *)text + strlen(hdr), 60), 45);
	assert_memory_equal(der, prefix, sizeof(prefix));
	assert_memory_equal(der + sizeof(prefix), f.pub.key, 32);
	free(text);
	free(path);

	keyfix_release(&f);
}

static void test_keygen_refuses(void **state)
{
	(void)state;
	static const char *const suffixes[] = { ".key", ".pub", ".pub.pem" };
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		for (int dangling = 0; dangling < 2; dangling++) {
			char *dir = tu_tmpdir("seal");
			char *prefix = path_join(dir, "k");
			char *there = xasprintf("%s%s", prefix, suffixes[i]);
			char fp[65];
			if (dangling)
				assert_int_equal(symlink("/nonexistent/abev", there), 0);
			else
				assert_int_equal(write_file_atomic(there, "mine", 4), 0);
			last_error[0] = '\0';
			assert_int_equal(signify_keygen(prefix, NULL, fp), -1);
			assert_non_null(strstr(last_error, "already exists"));
			assert_non_null(strstr(last_error, there));
			for (size_t j = 0; j < ARRAY_SIZE(suffixes); j++) {
				char *p = xasprintf("%s%s", prefix, suffixes[j]);
				assert_int_equal(exists(p), i == j);
				free(p);
			}
			if (!dangling) {
				size_t len;
				char *text = slurp(there, &len);
				assert_string_equal(text, "mine");
				free(text);
			}
			free(there);
			free(prefix);
			tu_rm_rf(dir);
			free(dir);
		}
	}

	/* A prefix in a directory that does not exist: an error, no files. */
	char fp[65];
	last_error[0] = '\0';
	assert_int_equal(signify_keygen("/nonexistent-abev-dir/k", NULL, fp), -1);
	assert_non_null(strstr(last_error, "/nonexistent-abev-dir/k.key"));

	/* An empty passphrase would mean a prompt or no protection: refused. */
	char *dir = tu_tmpdir("seal");
	char *prefix = path_join(dir, "k");
	assert_int_equal(signify_keygen(prefix, "", fp), -1);
	assert_non_null(strstr(last_error, "empty passphrase"));
	char *p = xasprintf("%s.key", prefix);
	assert_false(exists(p));
	free(p);
	free(prefix);
	tu_rm_rf(dir);
	free(dir);
}

static void test_encrypted_key(void **state)
{
	(void)state;
	struct keyfix f;
	size_t len;
	char *path, *text;

	keyfix_make(&f, "correct horse");
	path = xasprintf("%s.key", f.prefix);
	text = slurp(path, &len);
	assert_non_null(strstr(text, "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"));
	free(text);

	static const struct {
		const char *pass;
		const char *want;  /* NULL: loads */
	} cases[] = {
		{ "correct horse", NULL },
		{ "correct horse ", "wrong passphrase?" },
		{ "battery staple", "wrong passphrase?" },
		{ NULL, "is encrypted: give its passphrase" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct signify_key *k;
		last_error[0] = '\0';
		k = signify_key_load(path, cases[i].pass);
		if (!cases[i].want) {
			struct signify_pub pub;
			assert_non_null(k);
			signify_pub_of(k, &pub);
			assert_memory_equal(&pub, &f.pub, sizeof(pub));
			signify_key_free(k);
			continue;
		}
		assert_null(k);
		assert_non_null(strstr(last_error, cases[i].want));
		if (cases[i].pass) {
			char *want = xasprintf("cannot decrypt %s", path);
			assert_non_null(strstr(last_error, want));
			free(want);
		}
	}
	free(path);
	keyfix_release(&f);
}

static void test_key_load_refuses(void **state)
{
	(void)state;
	char *dir = tu_tmpdir("seal");
	char *ec = path_join(dir, "ec.key");
	char *junk = path_join(dir, "junk.key");
	char *missing = path_join(dir, "missing.key");

	/* A valid key of another type. */
	EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	assert_non_null(pk);
	FILE *fp = fopen(ec, "w");
	assert_non_null(fp);
	assert_int_equal(PEM_write_PrivateKey(fp, pk, NULL, NULL, 0, NULL, NULL), 1);
	assert_int_equal(fclose(fp), 0);
	EVP_PKEY_free(pk);
	tu_puts(dir, "junk.key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");

	const struct {
		const char *path;
		const char *want;
	} cases[] = {
		{ ec, "is a private key, but not an Ed25519 one" },
		{ junk, "is not a private key abev can read: expected the PKCS#8 PEM" },
		{ missing, "cannot open" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		last_error[0] = '\0';
		assert_null(signify_key_load(cases[i].path, "x"));
		assert_non_null(strstr(last_error, cases[i].want));
		assert_non_null(strstr(last_error, cases[i].path));
	}
	signify_key_free(NULL);
	free(ec);
	free(junk);
	free(missing);
	tu_rm_rf(dir);
	free(dir);
}

/* signify_pub_read on hostile public key files. */
static void test_pub_read_refuses(void **state)
{
	(void)state;
	struct keyfix f;
	size_t len;
	char *path, *good, *b64, *comment_end;

	keyfix_make(&f, NULL);
	path = xasprintf("%s.pub", f.prefix);
	good = slurp(path, &len);
	comment_end = strchr(good, '\n');
	b64 = xstrndup(comment_end + 1, 56);
	char *long_comment = xmalloc(1100);
	memset(long_comment, 'x', 1099);
	long_comment[1099] = '\0';

	char *c[16];
	size_t nc = 0;
	const char *want[16];
#define CASE(w, ...) (want[nc] = (w), c[nc++] = xasprintf(__VA_ARGS__))
	CASE("exactly two lines", "%sextra line\n", good);
	CASE("missing newline after the base64", "untrusted comment: k\n%s", b64);
	CASE("must start with 'untrusted comment: '", "untrusted: k\n%s\n", b64);
	CASE("must start with 'untrusted comment: '", "untrusted comment: \n%s\n", b64);
	CASE("not base64 of 42 bytes", "untrusted comment: k\n%s\r\n", b64);
	CASE("not base64 of 42 bytes", "untrusted comment: k\n%.52s\n", b64);
	CASE("not base64 of 42 bytes", "untrusted comment: k\n%.55s!\n", b64);
	CASE("not base64 of 42 bytes", "untrusted comment: k\n %s\n", b64);
	CASE("comment line longer than 1024", "untrusted comment: %s\n%s\n", long_comment, b64);
	CASE("missing newline after the comment", "untrusted comment: k");
	/* The 74-byte signature blob is not a public key. */
	CASE("not base64 of 42 bytes", "untrusted comment: k\n%s\n",
	     "RWSGqK0mOxVCiwL5RaVHsdFLhdTZRwq+o5ZUS9mtq80NBUygW/FLV4ElMhXjDkJYeQV9aLC8FOunWOjj"
	     "U2sfbyM0NgNUXbO4Nw0=");
#undef CASE
	{
		/* "Ed" changed to "Ex", re-encoded so that only the tag is wrong. */
		unsigned char blob[64];
		char enc[128];
		assert_int_equal(EVP_DecodeBlock(blob, (unsigned char *)b64, 56), 42);
		blob[1] = 'x';
		EVP_EncodeBlock((unsigned char *)enc, blob, 42);
		want[nc] = "algorithm tag is not 'Ed'";
		c[nc++] = xasprintf("untrusted comment: k\n%s\n", enc);
	}

	for (size_t i = 0; i < nc; i++) {
		struct signify_pub pub;
		char *err = NULL;
		assert_int_equal(write_file_atomic(path, c[i], strlen(c[i])), 0);
		assert_int_equal(signify_pub_read(path, &pub, &err), -1);
		assert_non_null(err);
		if (!strstr(err, want[i]))
			fail_msg("case %zu: error '%s' lacks '%s'", i, err, want[i]);
		free(err);
		free(c[i]);
	}
	/* The original still reads, so the cases above failed for their reason. */
	struct signify_pub pub;
	char *err = NULL;
	assert_int_equal(write_file_atomic(path, good, len), 0);
	assert_int_equal(signify_pub_read(path, &pub, &err), 0);
	assert_memory_equal(&pub, &f.pub, sizeof(pub));

	/* The PEM form abev keygen writes beside it reads as the same key. */
	char *pem = xasprintf("%s.pub.pem", f.prefix), *key = xasprintf("%s.key", f.prefix);
	memset(&pub, 0, sizeof(pub));
	assert_int_equal(signify_pub_read(pem, &pub, &err), 0);
	assert_memory_equal(&pub, &f.pub, sizeof(pub));
	/* The private key, given by mistake, is named as one. */
	assert_int_equal(signify_pub_read(key, &pub, &err), -1);
	assert_non_null(strstr(err, "is a private key"));
	free(err);
	free(pem);
	free(key);

	free(long_comment);
	free(b64);
	free(good);
	free(path);
	keyfix_release(&f);
}

/* ---- signatures ---------------------------------------------------- */

static const char message[] = "SHA256 (a) = "
			      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n";

static void test_sign_check(void **state)
{
	(void)state;
	struct keyfix f;
	size_t len = 0, mlen = 0;
	const char *msg = NULL;
	char *err = NULL;

	keyfix_make(&f, NULL);
	char *sig = signify_sign(f.key, "hello comment", message, strlen(message), &len);
	assert_non_null(sig);
	const char *l1 = "untrusted comment: hello comment\n";
	assert_memory_equal(sig, l1, strlen(l1));
	assert_int_equal(sig[strlen(l1) + 100], '\n');
	assert_int_equal(len, strlen(l1) + 101 + strlen(message));
	assert_memory_equal(sig + strlen(l1) + 101, message, strlen(message));

	assert_int_equal(signify_check(&f.pub, sig, len, &msg, &mlen, &err), 0);
	assert_null(err);
	assert_ptr_equal(msg, sig + strlen(l1) + 101);
	assert_int_equal(mlen, strlen(message));

	/* An empty message signs and checks too. */
	char *empty = signify_sign(f.key, "e", "", 0, &len);
	assert_non_null(empty);
	assert_int_equal(signify_check(&f.pub, empty, len, &msg, &mlen, &err), 0);
	assert_int_equal(mlen, 0);
	free(empty);

	/* Comments signify could not read back are refused. */
	static const char *const bad_comments[] = { "", "two\nlines" };
	for (size_t i = 0; i < ARRAY_SIZE(bad_comments); i++) {
		last_error[0] = '\0';
		assert_null(signify_sign(f.key, bad_comments[i], "x", 1, &len));
		assert_non_null(strstr(last_error, "comment"));
	}
	char *long_comment = xmalloc(1100);
	memset(long_comment, 'c', 1099);
	long_comment[1099] = '\0';
	assert_null(signify_sign(f.key, long_comment, "x", 1, &len));
	long_comment[1024 - 19] = '\0';
	char *edge = signify_sign(f.key, long_comment, "x", 1, &len);
	assert_non_null(edge);
	assert_int_equal(signify_check(&f.pub, edge, len, &msg, &mlen, &err), 0);
	free(edge);
	free(long_comment);

	free(sig);
	keyfix_release(&f);
}

/* Rewrites the signature blob of a signature file through fn. */
static char *with_blob(const char *sig, void (*fn)(unsigned char *blob))
{
	const char *l2 = strchr(sig, '\n') + 1;
	unsigned char blob[80];
	char enc[128];
	assert_int_equal(EVP_DecodeBlock(blob, (const unsigned char *)l2, 100), 75);
	fn(blob);
	EVP_EncodeBlock((unsigned char *)enc, blob, 74);
	return xasprintf("%.*s%s%s", (int)(l2 - sig), sig, enc, l2 + 100);
}

static void flip_sig_byte(unsigned char *blob)
{
	blob[10 + 17] ^= 0x01;
}

static void flip_tag(unsigned char *blob)
{
	blob[0] = 'X';
}

static void test_check_refuses(void **state)
{
	(void)state;
	struct keyfix a, b;
	size_t len = 0, blen = 0;
	char kn_a[17], kn_b[17];

	keyfix_make(&a, NULL);
	keyfix_make(&b, NULL);
	char *sig = signify_sign(a.key, "c", message, strlen(message), &len);
	char *sig_b = signify_sign(b.key, "c", message, strlen(message), &blen);
	assert_non_null(sig);
	assert_non_null(sig_b);
	const char *l2 = strchr(sig, '\n') + 1;
	size_t head = (size_t)(l2 - sig) + 101;
	for (int i = 0; i < 8; i++) {
		snprintf(kn_a + 2 * i, 3, "%02x", a.pub.keynum[i]);
		snprintf(kn_b + 2 * i, 3, "%02x", b.pub.keynum[i]);
	}
	char *another = xasprintf("signed with another key (key number %s, expected %s)", kn_b,
				  kn_a);

	char *c[16];
	size_t clen[16];
	const char *want[16];
	size_t n = 0;
#define CASE(w, s, l) (want[n] = (w), c[n] = (s), clen[n++] = (l))
	/* One flipped byte in the message. */
	char *m1 = xstrdup(sig);
	m1[head + 3] ^= 0x20;
	CASE("bad signature", m1, len);
	/* One flipped byte in the signature itself (re-encoded, so it parses). */
	char *s1 = with_blob(sig, flip_sig_byte);
	CASE("bad signature", s1, len);
	/* One flipped base64 character. */
	char *s2 = xstrdup(sig);
	s2[(size_t)(l2 - sig) + 40] = s2[(size_t)(l2 - sig) + 40] == 'A' ? 'B' : 'A';
	CASE("bad signature", s2, len);
	/* Another key. */
	CASE(another, xstrdup(sig_b), blen);
	/* Truncated: the message cut short, in the base64 line, in the comment. */
	CASE("bad signature", xstrdup(sig), len - 1);
	CASE("missing newline after the base64 line", xstrdup(sig), (size_t)(l2 - sig) + 50);
	CASE("missing newline after the comment line", xstrdup(sig), 10);
	CASE("empty file", xstrdup(sig), 0);
	/* CRLF line endings, as a Windows editor writes them. */
	CASE("CRLF line ending", xasprintf("untrusted comment: c\r\n%s", l2),
	     len - (size_t)(l2 - sig) + strlen("untrusted comment: c\r\n"));
	/* Garbage base64 of the right length. */
	char *g = xstrdup(sig);
	memset(g + (l2 - sig), '!', 100);
	CASE("not base64 of 74 bytes", g, len);
	/* A comment line without the prefix. */
	CASE("must start with 'untrusted comment: '", xasprintf("comment: c\n%s", l2),
	     len - strlen("untrusted "));
	/* An algorithm tag other than Ed. */
	CASE("algorithm tag is not 'Ed'", with_blob(sig, flip_tag), len);
#undef CASE

	for (size_t i = 0; i < n; i++) {
		const char *msg = NULL;
		size_t mlen = 0;
		char *err = NULL;
		assert_int_equal(signify_check(&a.pub, c[i], clen[i], &msg, &mlen, &err), -1);
		assert_non_null(err);
		if (!strstr(err, want[i]))
			fail_msg("case %zu: error '%s' lacks '%s'", i, err, want[i]);
		assert_null(msg);
		free(err);
		free(c[i]);
	}
	/* Both untouched signatures check with their own keys. */
	const char *msg;
	size_t mlen;
	char *err = NULL;
	assert_int_equal(signify_check(&a.pub, sig, len, &msg, &mlen, &err), 0);
	assert_int_equal(signify_check(&b.pub, sig_b, blen, &msg, &mlen, &err), 0);

	free(another);
	free(sig);
	free(sig_b);
	keyfix_release(&a);
	keyfix_release(&b);
}

/* ---- manifest ------------------------------------------------------ */

static void test_name_problem(void **state)
{
	(void)state;
	char long_name[1100];
	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	static const struct {
		const char *name;
		const char *want;  /* NULL: safe */
	} cases[] = {
		{ "a", NULL },
		{ "runs/a/run-1/test.log", NULL },
		{ "with space", NULL },
		{ ".hidden", NULL },
		{ "a..b/...", NULL },
		{ "caf\xc3\xa9", NULL },
		{ "SHA256", NULL },
		{ "", "empty name" },
		{ "/etc/passwd", "absolute path" },
		{ "..", "'..' component" },
		{ "a/../b", "'..' component" },
		{ "a/..", "'..' component" },
		{ ".", "'.' component" },
		{ "./x", "'.' component" },
		{ "a/./x", "'.' component" },
		{ "a)b", "contains ')'" },
		{ "a\nb", "newline" },
		{ "a\tb", "control character" },
		{ "a\x7f", "control character" },
		{ "a\\b", "backslash" },
		{ "a//b", "empty path component" },
		{ "a/", "empty path component" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *why = evname_problem(cases[i].name);
		if (!cases[i].want) {
			if (why)
				fail_msg("case %zu: '%s' refused: %s", i, cases[i].name, why);
			continue;
		}
		if (!why || !strstr(why, cases[i].want))
			fail_msg("case %zu: want '%s', got '%s'", i, cases[i].want,
				 why ? why : "(safe)");
	}
	assert_non_null(evname_problem(long_name));
	long_name[1023] = '\0';
	assert_null(evname_problem(long_name));
}

static void test_manifest_round_trip(void **state)
{
	(void)state;
	char *dir = tu_tmpdir("seal");
	static const struct {
		const char *name;
		const char *content;
	} files[] = {
		{ "b.txt", "abc" },
		{ "a", "" },
		{ "runs/a/run-1/test.log", "log\n" },
		{ "runs/a/SHA256", "nested manifests are ordinary files" },
		{ "runs/a-b", "byte order: '-' (0x2d) sorts before '/' (0x2f)" },
		{ "with space", "x" },
		{ "Z", "uppercase sorts first" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		tu_puts(dir, files[i].name, files[i].content);
	tu_puts(dir, "SHA256", "old manifest, skipped");
	tu_puts(dir, "SHA256.sig", "old signature, skipped");
	char *empty_dir = path_join(dir, "empty/dir");
	assert_int_equal(mkdir_p(empty_dir), 0);
	free(empty_dir);

	struct manifest m = { NULL, 0 };
	assert_int_equal(manifest_build(dir, &m), 0);
	static const char *const order[] = { "Z",	   "a",		      "b.txt",
					     "runs/a-b", "runs/a/SHA256", "runs/a/run-1/test.log",
					     "with space" };
	assert_int_equal(m.n, ARRAY_SIZE(order));
	for (size_t i = 0; i < m.n; i++) {
		assert_string_equal(m.e[i].name, order[i]);
		for (size_t j = 0; j < ARRAY_SIZE(files); j++) {
			if (strcmp(files[j].name, order[i]))
				continue;
			unsigned char d[SHA256_LEN];
			sha256_buf(files[j].content, strlen(files[j].content), d);
			assert_memory_equal(m.e[i].digest, d, SHA256_LEN);
			assert_int_equal(m.e[i].size, strlen(files[j].content));
		}
	}

	size_t len;
	char *text = manifest_text(&m, &len);
	assert_int_equal(len, strlen(text));
	const char *line3 = "SHA256 (b.txt) = "
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n";
	assert_non_null(strstr(text, line3));
	assert_memory_equal(text, "SHA256 (Z) = ", 13);

	struct manifest back = { NULL, 0 };
	char *err = NULL;
	assert_int_equal(manifest_parse(text, len, &back, &err), 0);
	assert_null(err);
	assert_int_equal(back.n, m.n);
	for (size_t i = 0; i < m.n; i++) {
		assert_string_equal(back.e[i].name, m.e[i].name);
		assert_memory_equal(back.e[i].digest, m.e[i].digest, SHA256_LEN);
	}
	size_t len2;
	char *text2 = manifest_text(&back, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(text2, text, len);

	/* An empty manifest is the empty text. */
	struct manifest none = { NULL, 0 };
	assert_int_equal(manifest_parse("", 0, &none, &err), 0);
	assert_int_equal(none.n, 0);

	free(text2);
	free(text);
	manifest_release(&back);
	manifest_release(&m);
	manifest_release(&m);
	tu_rm_rf(dir);
	free(dir);
}

static void test_manifest_build_refuses(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		const char *name;
		const char *want;
	} cases[] = {
		{ "symlink", "sub/link", "is a symbolic link" },
		{ "symlink", "SHA256.txt", "is a symbolic link" },
		{ "fifo", "sub/fifo", "is a FIFO" },
		{ "file", "sub/a)b", "contains ')'" },
		{ "file", "new\nline", "newline" },
		{ "file", "back\\slash", "backslash" },
		{ "dirlink", "sub/d", "is a symbolic link" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *dir = tu_tmpdir("seal");
		struct manifest m = { NULL, 0 };
		tu_puts(dir, "sub/ok", "fine");
		char *p = path_join(dir, cases[i].name);
		if (!strcmp(cases[i].what, "symlink"))
			assert_int_equal(symlink("ok", p), 0);
		else if (!strcmp(cases[i].what, "dirlink"))
			assert_int_equal(symlink(".", p), 0);
		else if (!strcmp(cases[i].what, "fifo"))
			assert_int_equal(mkfifo(p, 0600), 0);
		else
			tu_puts(dir, cases[i].name, "x");
		last_error[0] = '\0';
		assert_int_equal(manifest_build(dir, &m), -1);
		assert_int_equal(m.n, 0);
		if (!strstr(last_error, cases[i].want))
			fail_msg("case %zu: error '%s' lacks '%s'", i, last_error, cases[i].want);
		/* The error names the file, escaped (a newline shown as \n). */
		struct strbuf shown = STRBUF_INIT;
		strbuf_add_escaped(&shown, cases[i].name, strlen(cases[i].name));
		if (!strstr(last_error, shown.buf))
			fail_msg("case %zu: error '%s' does not name '%s'", i, last_error, shown.buf);
		strbuf_release(&shown);
		free(p);
		tu_rm_rf(dir);
		free(dir);
	}
	struct manifest m = { NULL, 0 };
	assert_int_equal(manifest_build("/nonexistent-abev-dir", &m), -1);
	assert_non_null(strstr(last_error, "cannot open directory '/nonexistent-abev-dir'"));
}

#define H64 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static void test_manifest_parse_refuses(void **state)
{
	(void)state;
	char *long_line = xmalloc(4300);
	memset(long_line, 'a', 4299);
	long_line[4299] = '\0';
	memcpy(long_line, "SHA256 (", 8);
	char *over_cap = NULL;
	{
		struct strbuf sb = STRBUF_INIT;
		for (int i = 0; i <= 100000; i++)
			strbuf_addf(&sb, "SHA256 (f%06d) = " H64 "\n", i);
		over_cap = strbuf_detach(&sb, NULL);
	}
	const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "SHA256 (a) = " H64, "SHA256:1: missing newline at the end" },
		{ "SHA256 (a) = " H64 "\n\n", "SHA256:2: blank line; expected 'SHA256 (name) = " },
		{ "SHA256 (a) = " H64 "\nSHA256 (b) = " H64 "\nSHA256 (c)= " H64 "\n",
		  "SHA256:3: expected 'SHA256 (name) = <64 hex digits>'" },
		{ "SHA256 (a) = " H64 "0\n", "SHA256:1: expected" },
		{ "SHA256 (a) = BA7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n",
		  "SHA256:1: uppercase hex digits" },
		{ "SHA256 (a)  = " H64 "\n", "SHA256:1: expected" },
		{ "SHA256  (a) = " H64 "\n", "SHA256:1: expected" },
		{ "sha256 (a) = " H64 "\n", "SHA256:1: expected" },
		{ "SHA256 () = " H64 "\n", "SHA256:1: expected" },
		{ H64 "  a\n", "SHA256:1: the untagged sha256sum form" },
		{ H64 " *a\n", "SHA256:1: the untagged sha256sum form" },
		{ "SHA256 (a) = " H64 "\r\n", "SHA256:1: CRLF line ending" },
		{ "# comment\n", "SHA256:1: expected" },
		{ "SHA256 (b) = " H64 "\nSHA256 (a) = " H64 "\n", "SHA256:2: 'a' is out of order" },
		{ "SHA256 (a) = " H64 "\nSHA256 (a) = " H64 "\n", "SHA256:2: 'a' is listed twice" },
		{ "SHA256 (/etc/passwd) = " H64 "\n", "SHA256:1: unsafe name '/etc/passwd': absolute" },
		{ "SHA256 (../x) = " H64 "\n", "SHA256:1: unsafe name '../x': '..' component" },
		{ "SHA256 (./x) = " H64 "\n", "SHA256:1: unsafe name './x': '.' component" },
		{ "SHA256 (a//b) = " H64 "\n", "empty path component" },
		{ "SHA256 (a)b) = " H64 "\n", "SHA256:1: unsafe name 'a)b'" },
		{ "SHA256 (a\tb) = " H64 "\n", "SHA256:1: unsafe name 'a\\tb': contains a control" },
		{ "SHA256 (SHA256.sig) = " H64 "\n", "cannot list itself or its signature" },
		{ "SHA256 (SHA256) = " H64 "\n", "cannot list itself or its signature" },
		{ long_line, "SHA256:1: line longer than 4200 bytes" },
		{ over_cap, "SHA256: more than 100000 entries" },
	};
	/* The cap, lowered to what a test can write quickly, is the one parsed against. */
	manifest_set_max_entries(100000);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct manifest m = { NULL, 0 };
		char *err = NULL;
		assert_int_equal(manifest_parse(cases[i].text, strlen(cases[i].text), &m, &err), -1);
		assert_int_equal(m.n, 0);
		assert_null(m.e);
		assert_non_null(err);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: error '%s' lacks '%s'", i, err, cases[i].want);
		free(err);
	}
	/* A NUL inside a line: the length, not the NUL, ends the text. */
	struct manifest m = { NULL, 0 };
	char *err = NULL;
	static const char nul[] = "SHA256 (a\0b) = " H64 "\n";
	assert_int_equal(manifest_parse(nul, sizeof(nul) - 1, &m, &err), -1);
	assert_non_null(strstr(err, "SHA256:1:"));
	free(err);
	/* Exactly at the cap parses. */
	*strrchr(over_cap, 'S') = '\0';
	assert_int_equal(manifest_parse(over_cap, strlen(over_cap), &m, &err), 0);
	assert_int_equal(m.n, 100000);
	manifest_release(&m);
	manifest_set_max_entries(0);
	/* The real cap is far above it. */
	assert_int_equal(manifest_parse(over_cap, strlen(over_cap), &m, &err), 0);
	manifest_release(&m);
	free(over_cap);
	free(long_line);
}

/* ---- sealing and stock tools --------------------------------------- */

/* An evidence directory sealed with a fresh key. */
struct sealed {
	struct keyfix key;
	char *dir;
};

static void sealed_make(struct sealed *s)
{
	keyfix_make(&s->key, "pw");
	s->dir = path_join(s->key.dir, "evidence");
	tu_puts(s->dir, "summary.json", "{\"schema\": \"abev\"}\n");
	tu_puts(s->dir, "runs/a/run-1/stdout.log", "hello\n");
	tu_puts(s->dir, "runs/b/run-1/stdout.log", "world\n");
	tu_puts(s->dir, "with space.txt", "spaces are fine\n");
	assert_int_equal(seal_evidence(s->dir, s->key.key), 0);
}

static void sealed_release(struct sealed *s)
{
	free(s->dir);
	keyfix_release(&s->key);
}

/*
 * What a run may leave that abev verify refuses — empty directories, a
 * file linked in from elsewhere — is settled by sealing, so that abev's
 * own evidence verifies; the file outside keeps its bytes.
 */
static void test_seal_settles(void **state)
{
	char *d = tu_tmpdir("settle"), *ev = path_join(d, "ev");
	char *outside = path_join(d, "outside.log"), *inside = path_join(ev, "runs/a/linked.log");
	char *deep = path_join(ev, "runs/empty/deeper/still");
	struct verify_result r;
	struct stat st;
	(void)state;

	tu_puts(ev, "runs/a/test.log", "log\n");
	tu_puts(d, "outside.log", "shared bytes\n");
	assert_int_equal(link(outside, inside), 0);
	assert_int_equal(mkdir_p(deep), 0);
	assert_int_equal(seal_evidence(ev, NULL), 0);

	assert_int_equal(verify_path(ev, NULL, &r), 0);
	for (size_t i = 0; i < r.nproblems; i++)
		print_message("problem: %s: %s\n", r.problems[i].file, r.problems[i].reason);
	assert_int_equal(r.nproblems, 0);
	assert_int_equal(r.files_checked, 2);
	verify_result_release(&r);
	char *empty = path_join(ev, "runs/empty");
	assert_int_equal(lstat(empty, &st), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(lstat(inside, &st), 0);
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(lstat(outside, &st), 0);
	assert_int_equal(st.st_nlink, 1);
	size_t len;
	char *text = slurp(inside, &len);
	assert_string_equal(text, "shared bytes\n");
	free(text);
	free(empty);
	free(deep);
	free(inside);
	free(outside);
	free(ev);
	tu_rm_rf(d);
	free(d);
}

static int exists_in(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	int yes = exists(p);
	free(p);
	return yes;
}

/*
 * The final seal of a run: the staged copies are what the manifest lists
 * under the final names, and are renamed into place after it; the old
 * files of those names are not listed. The same directory sealed plainly
 * afterwards gives the same manifest.
 */
static void test_seal_staged(void **state)
{
	char *d = tu_tmpdir("staged"), *ev = path_join(d, "ev");
	char *mpath = path_join(ev, "SHA256"), *text, *again;
	struct dirat root = DIRAT_INIT;
	struct verify_result r;
	size_t len;
	(void)state;

	tu_puts(ev, "result.json", "{\"status\": \"running\"}\n");
	tu_puts(ev, "result.json.sealing", "{\"status\": \"completed\"}\n");
	tu_puts(ev, "report.md.sealing", "- Status: completed\n");
	tu_puts(ev, "runs/a/run-1/result.json.sealing", "a run's own file, not staged\n");
	assert_int_equal(dirat_open_path(&root, ev), 0);
	assert_int_equal(seal_evidence_final(&root, NULL, NULL), 0);
	text = slurp(mpath, &len);
	assert_non_null(strstr(text, "SHA256 (result.json) = "));
	assert_non_null(strstr(text, "SHA256 (report.md) = "));
	assert_non_null(strstr(text, "SHA256 (runs/a/run-1/result.json.sealing) = "));
	assert_null(strstr(text, "SHA256 (result.json.sealing)"));
	assert_false(exists_in(ev, "result.json.sealing"));
	assert_false(exists_in(ev, "report.md.sealing"));
	assert_true(exists_in(ev, "result.json"));
	assert_int_equal(verify_path(ev, NULL, &r), 0);
	assert_int_equal(r.nproblems, 0);
	assert_int_equal(r.files_listed, 3);
	verify_result_release(&r);
	assert_int_equal(seal_evidence(ev, NULL), 0);
	again = slurp(mpath, &len);
	assert_string_equal(again, text);
	free(again);
	free(text);

	/* A staged copy left beside a seal: verify says unfinished and names it. */
	tu_puts(ev, "result.json.sealing", "{\"status\": \"failed\"}\n");
	assert_int_equal(verify_path(ev, NULL, &r), 0);
	assert_true(r.unfinished);
	assert_true(r.nproblems >= 1);
	assert_string_equal(r.problems[0].file, "result.json.sealing");
	assert_non_null(strstr(r.problems[0].reason, "left by abev stopped while sealing"));
	verify_result_release(&r);

	/* Nothing staged: the final seal is the plain one. */
	again = path_join(ev, "result.json.sealing");
	assert_int_equal(unlink(again), 0);
	free(again);
	assert_int_equal(seal_evidence_final(&root, NULL, NULL), 0);
	assert_int_equal(verify_path(ev, NULL, &r), 0);
	assert_int_equal(r.nproblems, 0);
	assert_false(r.unfinished);
	verify_result_release(&r);
	dirat_release(&root);
	free(mpath);
	free(ev);
	tu_rm_rf(d);
	free(d);
}

static void note_line(void *ctx, char *line)
{
	struct strbuf *sb = ctx;
	strbuf_addf(sb, "%s\n", line);
	free(line);
}

/* The manifest line of name in dir's SHA256, or NULL. Caller frees. */
static char *manifest_line(const char *dir, const char *name)
{
	char *p = path_join(dir, "SHA256"), *text, *want = xasprintf("SHA256 (%s) = ", name);
	char *at, *line = NULL;
	size_t len;

	text = slurp(p, &len);
	at = strstr(text, want);
	if (at)
		line = xstrndup(at, strcspn(at, "\n"));
	free(want);
	free(text);
	free(p);
	return line;
}

/*
 * The final seal held against the ledger (issue 40 §1): what changed
 * after the ledger's check stops a strict seal before anything is written,
 * each change named, and is taken as found; sealed again, it is listed as
 * found (the evidence records it). A change after that is never signed:
 * abev's bytes are listed for its own file, a run's changed file and a
 * new one are left out, and abev verify fails on each.
 */
static void test_seal_watch(void **state)
{
	char *d = tu_tmpdir("watch"), *ev = path_join(d, "ev"), *p, *line, *written;
	struct dirat root = DIRAT_INIT;
	struct ledger l = LEDGER_INIT;
	struct strbuf notes = STRBUF_INIT;
	struct seal_watch w = { &l, 1, note_line, &notes, 0 };
	static const char *const own[] = { "result.json", "report.md", NULL };
	struct verify_result r;
	unsigned char trx[SHA256_LEN];
	(void)state;

	tu_puts(ev, "runs/a/run-1/test.log", "log\n");
	tu_puts(ev, "runs/a/run-1/t.trx", "<TestRun/>\n");
	sha256_buf("<TestRun/>\n", 11, trx);
	assert_int_equal(dirat_open_path(&root, ev), 0);
	ledger_parsed(&l, "runs/a/run-1/t.trx", trx, 11);
	assert_int_equal(ledger_write(&l, &root, "plan.json", "{}\n", 3), 0);
	assert_int_equal(ledger_write(&l, &root, "metadata.json", "{}\n", 3), 0);
	assert_int_equal(ledger_keep_tree(&l, &root, "runs/a/run-1"), 0);
	assert_int_equal(ledger_check(&l, &root, own, note_line, &notes), 0);
	assert_int_equal(ledger_rewrite(&l, &root, "result.json.sealing", "{\"d\": \"rejected\"}\n", 18), 0);

	/* Unchanged: sealed, nothing found. */
	assert_int_equal(seal_evidence_final(&root, NULL, &w), 0);
	assert_int_equal(w.found, 0);
	assert_int_equal(verify_path(ev, NULL, &r), 0);
	assert_int_equal(r.nproblems, 0);
	verify_result_release(&r);

	/* Changed between the check and the seal: each named, nothing written. */
	p = path_join(ev, "SHA256");
	assert_int_equal(unlink(p), 0);
	free(p);
	assert_int_equal(ledger_rewrite(&l, &root, "result.json.sealing", "{\"d\": \"rejected\"}\n", 18), 0);
	tu_puts(ev, "result.json.sealing", "{\"d\": \"accepted\"}\n");
	tu_puts(ev, "evil.txt", "e");
	tu_append(ev, "runs/a/run-1/test.log", "+");
	p = path_join(ev, "metadata.json");
	assert_int_equal(unlink(p), 0);
	free(p);
	tu_puts(ev, "runs/a/run-1/t.trx", "<TestRun>\n");
	assert_int_equal(seal_evidence_final(&root, NULL, &w), 1);
	assert_int_equal(w.found, 5);
	assert_non_null(strstr(notes.buf, "runs/a/run-1/t.trx: changed while abev sealed the "
				     "evidence, after abev read its figures from it"));
	assert_false(exists_in(ev, "SHA256"));
	assert_true(exists_in(ev, "result.json.sealing"));
	assert_non_null(strstr(notes.buf, "result.json: changed while abev sealed the evidence, "
				     "after abev wrote it"));
	assert_non_null(strstr(notes.buf, "evil.txt: a regular file abev did not write appeared "
				     "while abev sealed"));
	assert_non_null(strstr(notes.buf, "runs/a/run-1/test.log: changed or replaced while abev "
				     "sealed"));
	assert_non_null(strstr(notes.buf, "metadata.json: abev wrote it, and it was removed while "
				     "abev sealed"));

	/* Recorded, as found: sealed again, with nothing more found. */
	strbuf_reset(&notes);
	w.strict = 0;
	assert_int_equal(seal_evidence_final(&root, NULL, &w), 0);
	assert_int_equal(w.found, 0);
	assert_int_equal(verify_path(ev, NULL, &r), 0);
	assert_int_equal(r.nproblems, 0);
	verify_result_release(&r);
	assert_non_null(line = manifest_line(ev, "evil.txt"));
	free(line);

	/* After that, never signed: abev's bytes in place of others, the rest left out. */
	assert_int_equal(ledger_rewrite(&l, &root, "result.json.sealing", "{\"d\": \"rejected\"}\n", 18), 0);
	written = manifest_line(ev, "plan.json");
	tu_puts(ev, "plan.json", "[]\n");
	tu_puts(ev, "result.json.sealing", "{\"d\": \"accepted\"}\n");
	tu_puts(ev, "runs/a/run-1/late.txt", "l");
	assert_int_equal(seal_evidence_final(&root, NULL, &w), 0);
	assert_int_equal(w.found, 3);
	line = manifest_line(ev, "plan.json");
	assert_string_equal(line, written);
	free(line);
	assert_null(manifest_line(ev, "runs/a/run-1/late.txt"));
	assert_int_equal(verify_path(ev, NULL, &r), 0);
	assert_int_equal(r.nproblems, 3);
	for (size_t i = 0; i < r.nproblems; i++)
		assert_true(strstr(r.problems[i].reason, "content changed") ||
			    strstr(r.problems[i].reason, "not listed in SHA256"));
	verify_result_release(&r);

	free(written);
	ledger_release(&l);
	dirat_release(&root);
	strbuf_release(&notes);
	free(ev);
	tu_rm_rf(d);
	free(d);
}

/* What the seal asks hash.h for its stop (hash_stop_on_change()): bumped by a test as a signal. */
static int signals_seen;
static int count_signals(void)
{
	return signals_seen;
}

/* ledger_files() of what abev never read, into a strbuf, one name per line. */
static void list_unread(void *ctx, const char *rel, const unsigned char *digest, off_t size)
{
	(void)size;
	if (!digest)
		strbuf_addf(ctx, "%s\n", rel);
}

/*
 * What a seal read is kept for the next (ledger_cache(), ledger_known()),
 * a signal stops the seal with nothing written, and the seal made then
 * from the ledger alone lists what abev knows the bytes of, under the
 * staged copy's final name, and leaves out what it never read (issue 40
 * §3).
 */
static void test_seal_after_a_signal(void **state)
{
	char *d = tu_tmpdir("signal"), *ev = path_join(d, "ev"), *p, *line;
	struct dirat root = DIRAT_INIT;
	struct ledger l = LEDGER_INIT;
	struct strbuf notes = STRBUF_INIT, unread = STRBUF_INIT;
	struct seal_watch w = { &l, 1, note_line, &notes, 0 };
	static const char *const own[] = { "result.json", "report.md", NULL };
	unsigned char trx[SHA256_LEN], want[SHA256_LEN], got[SHA256_LEN];
	struct stat st;
	(void)state;

	tu_puts(ev, "runs/a/run-1/data.bin", "data\n");
	tu_puts(ev, "runs/a/run-1/t.trx", "<TestRun/>\n");
	sha256_buf("<TestRun/>\n", 11, trx);
	assert_int_equal(dirat_open_path(&root, ev), 0);
	ledger_parsed(&l, "runs/a/run-1/t.trx", trx, 11);
	assert_int_equal(ledger_write(&l, &root, "plan.json", "{}\n", 3), 0);
	assert_int_equal(ledger_write(&l, &root, "result.json", "{\"s\": \"running\"}\n", 17), 0);
	assert_int_equal(ledger_keep_tree(&l, &root, "runs/a/run-1"), 0);
	assert_int_equal(ledger_check(&l, &root, own, note_line, &notes), 0);
	assert_int_equal(ledger_rewrite(&l, &root, "result.json.sealing", "{\"s\": \"done\"}\n", 14), 0);

	/* Never read: nothing known of the run's file. */
	p = path_join(ev, "runs/a/run-1/data.bin");
	assert_int_equal(lstat(p, &st), 0);
	assert_int_equal(ledger_known(&l, "runs/a/run-1/data.bin", &st, got), 0);
	ledger_files(&l, list_unread, &unread);
	assert_string_equal(unread.buf, "runs/a/run-1/data.bin\n");

	/* A signal before the seal reads anything: it stops, nothing written. */
	hash_stop_on_change(count_signals);
	signals_seen++;
	assert_int_equal(seal_evidence_final(&root, NULL, &w), 2);
	hash_stop_clear();
	assert_false(exists_in(ev, "SHA256"));

	/* Sealed: what it read is known while unchanged, and no longer once changed. */
	hash_stop_on_change(count_signals);
	assert_int_equal(seal_evidence_final(&root, NULL, &w), 0);
	hash_stop_clear();
	assert_int_equal(w.found, 0);
	sha256_buf("data\n", 5, want);
	assert_int_equal(ledger_known(&l, "runs/a/run-1/data.bin", &st, got), 1);
	assert_memory_equal(got, want, SHA256_LEN);
	strbuf_reset(&unread);
	ledger_files(&l, list_unread, &unread);
	assert_string_equal(unread.buf, "");
	tu_append(ev, "runs/a/run-1/data.bin", "+");
	{
		struct stat now;

		assert_int_equal(lstat(p, &now), 0);
		assert_int_equal(ledger_known(&l, "runs/a/run-1/data.bin", &now, got), 0);
	}

	/* From the ledger alone: abev's bytes, the staged copy as result.json. */
	{
		struct ledger fresh = LEDGER_INIT;

		ledger_parsed(&fresh, "runs/a/run-1/t.trx", trx, 11);
		assert_int_equal(ledger_write(&fresh, &root, "plan.json", "{}\n", 3), 0);
		assert_int_equal(ledger_write(&fresh, &root, "result.json", "{\"s\": \"running\"}\n", 17), 0);
		assert_int_equal(ledger_keep_tree(&fresh, &root, "runs/a/run-1"), 0);
		assert_int_equal(ledger_rewrite(&fresh, &root, "result.json.sealing",
						"{\"s\": \"stopped\"}\n", 17), 0);
		/* Changed after abev wrote it: the seal still lists abev's bytes. */
		tu_puts(ev, "plan.json", "[]\n");
		assert_int_equal(seal_evidence_ledger(&root, NULL, &fresh), 0);
		ledger_release(&fresh);
	}
	assert_false(exists_in(ev, "result.json.sealing"));
	assert_non_null(line = manifest_line(ev, "result.json"));
	sha256_buf("{\"s\": \"stopped\"}\n", 17, want);
	{
		char hex[SHA256_HEX_LEN + 1];

		sha256_hex(want, hex);
		assert_non_null(strstr(line, hex));
	}
	free(line);
	assert_non_null(line = manifest_line(ev, "runs/a/run-1/t.trx"));
	free(line);
	assert_null(manifest_line(ev, "runs/a/run-1/data.bin"));
	assert_null(manifest_line(ev, "result.json.sealing"));
	assert_non_null(line = manifest_line(ev, "plan.json"));
	sha256_buf("{}\n", 3, want);
	{
		char hex[SHA256_HEX_LEN + 1];

		sha256_hex(want, hex);
		assert_non_null(strstr(line, hex));
	}
	free(line);

	free(p);
	ledger_release(&l);
	dirat_release(&root);
	strbuf_release(&notes);
	strbuf_release(&unread);
	free(ev);
	tu_rm_rf(d);
	free(d);
}

static void test_seal_evidence(void **state)
{
	(void)state;
	struct sealed s;
	size_t mlen, slen, clen;
	const char *msg;
	char *err = NULL;

	sealed_make(&s);
	char *mpath = path_join(s.dir, "SHA256");
	char *spath = path_join(s.dir, "SHA256.sig");
	char *manifest = slurp(mpath, &mlen);
	char *sig = slurp(spath, &slen);

	assert_int_equal(signify_check(&s.key.pub, sig, slen, &msg, &clen, &err), 0);
	assert_int_equal(clen, mlen);
	assert_memory_equal(msg, manifest, mlen);
	char *comment = xasprintf("untrusted comment: abev evidence signature, key %.16s\n",
				  s.key.fp);
	assert_memory_equal(sig, comment, strlen(comment));
	struct manifest m = { NULL, 0 };
	assert_int_equal(manifest_parse(manifest, mlen, &m, &err), 0);
	assert_int_equal(m.n, 4);
	manifest_release(&m);

	/* Sealing again gives the same manifest bytes (Ed25519 is deterministic too). */
	char *sig_before = sig;
	assert_int_equal(seal_evidence(s.dir, s.key.key), 0);
	char *again = slurp(mpath, &slen);
	assert_string_equal(again, manifest);
	free(again);
	sig = slurp(spath, &slen);
	assert_string_equal(sig, sig_before);
	free(sig_before);

	/* Unsigned sealing removes the stale signature. */
	tu_puts(s.dir, "late.txt", "added after signing\n");
	assert_int_equal(seal_evidence(s.dir, NULL), 0);
	assert_false(exists(spath));
	free(manifest);
	manifest = slurp(mpath, &mlen);
	assert_non_null(strstr(manifest, "SHA256 (late.txt) = "));
	assert_int_equal(seal_evidence(s.dir, NULL), 0);

	/* A symlink stops sealing before anything is written. */
	char *link = path_join(s.dir, "runs/evil");
	assert_int_equal(symlink("/etc/passwd", link), 0);
	assert_int_equal(seal_evidence(s.dir, s.key.key), -1);
	assert_non_null(strstr(last_error, "runs/evil' is a symbolic link"));
	assert_false(exists(spath));
	free(again = slurp(mpath, &slen));
	free(link);

	free(comment);
	free(manifest);
	free(sig);
	free(mpath);
	free(spath);
	sealed_release(&s);
}

static void test_interop_openssl(void **state)
{
	(void)state;
	if (!have_tool("/usr/bin/openssl"))
		skip();
	struct sealed s;
	sealed_make(&s);
	const char *p = s.key.prefix, *d = s.dir;

	/* The raw signature is bytes 10..73 of the base64 blob on line 2. */
	assert_int_equal(run("sed -n 2p '%s/SHA256.sig' | base64 -d | tail -c +11 > '%s/raw.sig'",
			     d, s.key.dir),
			 0);
	char *raw = path_join(s.key.dir, "raw.sig");
	struct stat st;
	assert_int_equal(stat(raw, &st), 0);
	assert_int_equal(st.st_size, 64);
	assert_int_equal(run("openssl pkeyutl -verify -pubin -inkey '%s.pub.pem' -rawin -in "
			     "'%s/SHA256' -sigfile '%s'",
			     p, d, raw),
			 0);
	/* The same check fails on a changed manifest: the test can fail. */
	assert_int_equal(run("sed 's/^SHA256 (s/SHA256 (t/' '%s/SHA256' > '%s/changed'", d,
			     s.key.dir),
			 0);
	assert_int_not_equal(run("openssl pkeyutl -verify -pubin -inkey '%s.pub.pem' -rawin -in "
				 "'%s/changed' -sigfile '%s'",
				 p, s.key.dir, raw),
			     0);
	/* openssl decrypts our encrypted PKCS#8 and derives the same public key. */
	assert_int_equal(run("openssl pkey -in '%s.key' -passin pass:pw -pubout | cmp - '%s.pub.pem'",
			     p, p),
			 0);
	assert_int_not_equal(run("openssl pkey -in '%s.key' -passin pass:nope -pubout", p), 0);
	free(raw);
	sealed_release(&s);
}

static void test_interop_signify(void **state)
{
	(void)state;
	if (!have_tool("/usr/bin/signify-openbsd"))
		skip();
	struct sealed s;
	sealed_make(&s);

	/* signify checks the signature and every listed hash. */
	assert_int_equal(run("cd '%s' && signify-openbsd -C -p '%s.pub' -x SHA256.sig", s.dir,
			     s.key.prefix),
			 0);
	assert_int_equal(run("signify-openbsd -V -e -p '%s.pub' -x '%s/SHA256.sig' -m '%s/out'",
			     s.key.prefix, s.dir, s.key.dir),
			 0);
	/* ... and notices a changed file. */
	tu_puts(s.dir, "runs/a/run-1/stdout.log", "hellO\n");
	assert_int_not_equal(run("cd '%s' && signify-openbsd -C -p '%s.pub' -x SHA256.sig", s.dir,
				 s.key.prefix),
			     0);

	/* The other way: a key and signature made by signify check here. */
	const char *k = s.key.dir;
	assert_int_equal(run("cd '%s' && signify-openbsd -G -n -p s.pub -s s.sec && "
			     "printf 'signed by signify\\n' > m && "
			     "signify-openbsd -S -e -s s.sec -m m -x m.sig",
			     k),
			 0);
	struct signify_pub pub;
	char *err = NULL, *path = path_join(k, "s.pub");
	assert_int_equal(signify_pub_read(path, &pub, &err), 0);
	free(path);
	path = path_join(k, "m.sig");
	size_t len, mlen;
	const char *msg;
	char *sig = slurp(path, &len);
	assert_int_equal(signify_check(&pub, sig, len, &msg, &mlen, &err), 0);
	assert_int_equal(mlen, strlen("signed by signify\n"));
	assert_memory_equal(msg, "signed by signify\n", mlen);
	assert_int_equal(signify_check(&s.key.pub, sig, len, &msg, &mlen, &err), -1);
	assert_non_null(strstr(err, "signed with another key"));
	free(err);
	free(sig);
	free(path);
	sealed_release(&s);
}

static void test_interop_sha256sum(void **state)
{
	(void)state;
	if (!have_tool("/usr/bin/sha256sum"))
		skip();
	struct sealed s;
	sealed_make(&s);
	assert_int_equal(run("cd '%s' && sha256sum -c --strict SHA256", s.dir), 0);
	/* Our text is byte for byte what sha256sum --tag writes. */
	assert_int_equal(run("cd '%s' && find . -type f ! -name 'SHA256*' | sed 's|^\\./||' | "
			     "LC_ALL=C sort | tr '\\n' '\\0' | xargs -0 sha256sum --tag | "
			     "cmp - SHA256",
			     s.dir),
			 0);
	tu_puts(s.dir, "summary.json", "{}\n");
	assert_int_not_equal(run("cd '%s' && sha256sum -c --strict SHA256", s.dir), 0);
	sealed_release(&s);
}

static int setup(void **state)
{
	(void)state;
	set_error_routine(capture);
	umask(022);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keygen),
		cmocka_unit_test(test_keygen_refuses),
		cmocka_unit_test(test_encrypted_key),
		cmocka_unit_test(test_key_load_refuses),
		cmocka_unit_test(test_pub_read_refuses),
		cmocka_unit_test(test_sign_check),
		cmocka_unit_test(test_check_refuses),
		cmocka_unit_test(test_name_problem),
		cmocka_unit_test(test_manifest_round_trip),
		cmocka_unit_test(test_manifest_build_refuses),
		cmocka_unit_test(test_manifest_parse_refuses),
		cmocka_unit_test(test_seal_evidence),
		cmocka_unit_test(test_seal_staged),
		cmocka_unit_test(test_seal_watch),
		cmocka_unit_test(test_seal_after_a_signal),
		cmocka_unit_test(test_seal_settles),
		cmocka_unit_test(test_interop_openssl),
		cmocka_unit_test(test_interop_signify),
		cmocka_unit_test(test_interop_sha256sum),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
