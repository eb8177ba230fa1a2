/*
 * seal: the manifest SHA256 and its signature SHA256.sig, and the key
 * files behind them. Keys are Ed25519 through libcrypto; the files are
 * laid out so that stock tools check them without abev: the manifest is
 * `sha256sum --tag` text, the signature an OpenBSD signify embedded
 * signature, the public key both a signify key and a PEM SubjectPublicKeyInfo.
 * Everything read back (keys, signatures, manifests) is parsed strictly and
 * treated as hostile. This module does not compare a manifest with the
 * files on disk (verify.c does) nor pack bundles (bundle.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "seal.h"
#include "tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "util.h"

#define COMMENT_HDR "untrusted comment: "
#define COMMENT_HDR_LEN (sizeof(COMMENT_HDR) - 1)
/* signify keeps the comment in a 1024-byte buffer; the line fits it. */
#define COMMENT_LINE_MAX 1024
#define PKALG "Ed"
#define PUB_BLOB_LEN (2 + SIGNIFY_KEYNUM_LEN + ED25519_PUB_LEN)   /* 42 */
#define SIG_BLOB_LEN (2 + SIGNIFY_KEYNUM_LEN + ED25519_SIG_LEN)   /* 74 */
#define PUB_FILE_MAX 4096
/* Longer than the base64 of either blob: a bound on the search for its end. */
#define B64_LINE_MAX 256
#define KEY_FILE_MAX 65536
/* libcrypto hands password callbacks a buffer of PEM_BUFSIZE (1024). */
#define PASSPHRASE_MAX 1023

#define MANIFEST_MAX_ENTRIES SEAL_MAX_FILES
#define MANIFEST_LINE_MAX 4200
/* signify -C reads names with "%1023[^)]". */
#define MANIFEST_NAME_MAX 1023
#define MANIFEST_MAX_DEPTH 64
#define MANIFEST_PREFIX "SHA256 ("
#define MANIFEST_MID ") = "

struct seal_key {
	EVP_PKEY *pkey;
	struct seal_pub pub;
};

/* The oldest libcrypto error as text; empties the (per-thread) queue. */
static const char *crypto_err(char *buf, size_t len)
{
	unsigned long e = ERR_get_error();
	if (e)
		ERR_error_string_n(e, buf, len);
	else
		snprintf(buf, len, "unknown libcrypto error");
	ERR_clear_error();
	return buf;
}

static void hex_of(const unsigned char *d, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 0xf];
	}
	out[2 * n] = '\0';
}

/*
 * A copy of an outside string fit to quote in one line of an error:
 * control characters become '?', and it is cut at 200 bytes.
 */
static char *printable(const char *s, size_t len)
{
	size_t n = len > 200 ? 200 : len;
	char *p = xstrndup(s, n);
	for (size_t i = 0; i < n && p[i]; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			p[i] = '?';
	if (len > n) {
		char *q = xasprintf("%s...", p);
		free(p);
		p = q;
	}
	return p;
}

/* ---- keys ---------------------------------------------------------- */

static int pub_from_pkey(EVP_PKEY *pkey, struct seal_pub *pub)
{
	size_t len = ED25519_PUB_LEN;
	unsigned char d[SHA256_LEN];
	char msg[256];
	if (EVP_PKEY_get_raw_public_key(pkey, pub->key, &len) != 1 || len != ED25519_PUB_LEN)
		return error("cannot get the Ed25519 public key: %s", crypto_err(msg, sizeof(msg)));
	sha256_buf(pub->key, ED25519_PUB_LEN, d);
	memcpy(pub->keynum, d, SIGNIFY_KEYNUM_LEN);
	return 0;
}

void seal_pub_of(const struct seal_key *k, struct seal_pub *pub)
{
	*pub = k->pub;
}

void seal_fingerprint(const struct seal_pub *pub, char out[65])
{
	unsigned char d[SHA256_LEN];
	sha256_buf(pub->key, ED25519_PUB_LEN, d);
	sha256_hex(d, out);
}

void seal_key_free(struct seal_key *k)
{
	if (!k)
		return;
	EVP_PKEY_free(k->pkey);
	free(k);
}

/* Base64 of len bytes, NUL-terminated. Caller frees. */
static char *b64_encode(const unsigned char *in, size_t len)
{
	char *out = xmalloc(4 * ((len + 2) / 3) + 1);
	int n = EVP_EncodeBlock((unsigned char *)out, in, (int)len);
	if (n < 0)
		die_oom();
	out[n] = '\0';
	return out;
}

/*
 * Decodes exactly want bytes from the base64 text s[0..len). Only the
 * canonical encoding is accepted (re-encoding gives the same text), so a
 * file has one spelling. EVP_DecodeBlock() counts padding as zero bytes:
 * the true length is 3/4 of the text minus the '=' at its end.
 */
static int b64_decode_exact(const char *s, size_t len, unsigned char *out, size_t want)
{
	unsigned char buf[128];
	size_t pad = 0;
	char *again;
	int n, ok;

	if (len == 0 || len % 4 || len / 4 * 3 > sizeof(buf))
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			    (c >= '0' && c <= '9') || c == '+' || c == '/';
		if (c == '=' && i >= len - 2) {
			pad++;
			continue;
		}
		if (!alpha || pad)
			return -1;
	}
	n = EVP_DecodeBlock(buf, (const unsigned char *)s, (int)len);
	if (n < 0 || (size_t)n < pad || (size_t)n - pad != want)
		return -1;
	again = b64_encode(buf, want);
	ok = strlen(again) == len && memcmp(again, s, len) == 0;
	free(again);
	if (!ok)
		return -1;
	memcpy(out, buf, want);
	return 0;
}

/*
 * Parses the two signify lines at the start of buf: the comment line and
 * the base64 blob of blob_len bytes starting with "Ed". Sets *used to the
 * bytes they take (both newlines included). what names the file in errors.
 */
static int signify_lines(const char *what, const char *buf, size_t len, unsigned char *blob,
			 size_t blob_len, size_t *used, char **err)
{
	const char *nl1, *nl2, *b64;
	size_t scan = len < COMMENT_LINE_MAX + 1 ? len : COMMENT_LINE_MAX + 1;

	nl1 = memchr(buf, '\n', scan);
	if (!nl1) {
		if (len > COMMENT_LINE_MAX)
			*err = xasprintf("'%s': comment line longer than %d bytes", what,
					 COMMENT_LINE_MAX);
		else
			*err = xasprintf("'%s': missing newline after the comment line", what);
		return -1;
	}
	if ((size_t)(nl1 - buf) <= COMMENT_HDR_LEN || memcmp(buf, COMMENT_HDR, COMMENT_HDR_LEN)) {
		*err = xasprintf("'%s': the first line must start with '%s' and have a comment",
				 what, COMMENT_HDR);
		return -1;
	}
	if (memchr(buf, '\0', (size_t)(nl1 - buf))) {
		*err = xasprintf("'%s': NUL byte in the comment line", what);
		return -1;
	}
	b64 = nl1 + 1;
	scan = (size_t)(buf + len - b64);
	if (scan > B64_LINE_MAX)
		scan = B64_LINE_MAX;
	nl2 = memchr(b64, '\n', scan);
	if (!nl2 && scan == B64_LINE_MAX) {
		*err = xasprintf("'%s': the second line is not base64 of %zu bytes", what, blob_len);
		return -1;
	}
	if (!nl2) {
		*err = xasprintf("'%s': missing newline after the base64 line", what);
		return -1;
	}
	if (b64_decode_exact(b64, (size_t)(nl2 - b64), blob, blob_len) < 0) {
		*err = xasprintf("'%s': the second line is not base64 of %zu bytes", what, blob_len);
		return -1;
	}
	if (memcmp(blob, PKALG, 2)) {
		*err = xasprintf("'%s': not an Ed25519 signify file (algorithm tag is not 'Ed')",
				 what);
		return -1;
	}
	*used = (size_t)(nl2 - buf) + 1;
	return 0;
}

/* Reads at most max bytes of a small file; errors go to *err. */
static int slurp(const char *path, size_t max, struct strbuf *sb, char **err)
{
	int fd = -1, ret = -1;
	struct stat st;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		*err = xasprintf("cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		*err = xasprintf("cannot stat '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("cannot read '%s': not a regular file", path);
		goto out;
	}
	if (read_fd_capped(sb, fd, max) < 0) {
		if (errno == EFBIG)
			*err = xasprintf("'%s' is larger than the limit of %zu bytes", path, max);
		else
			*err = xasprintf("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

int seal_pub_read(const char *path, struct seal_pub *pub, char **err)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char blob[PUB_BLOB_LEN];
	size_t used = 0;
	int ret = -1;

	*err = NULL;
	if (slurp(path, PUB_FILE_MAX, &sb, err) < 0)
		goto out;
	if (signify_lines(path, sb.buf, sb.len, blob, sizeof(blob), &used, err) < 0)
		goto out;
	if (used != sb.len) {
		*err = xasprintf("'%s': a public key file has exactly two lines", path);
		goto out;
	}
	memcpy(pub->keynum, blob + 2, SIGNIFY_KEYNUM_LEN);
	memcpy(pub->key, blob + 2 + SIGNIFY_KEYNUM_LEN, ED25519_PUB_LEN);
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

/* Hands the passphrase to libcrypto without ever prompting on a terminal. */
struct pass_ctx {
	const char *pass;
	int asked;
};

static int pass_cb(char *buf, int size, int rwflag, void *u)
{
	struct pass_ctx *pc = u;
	size_t len;
	(void)rwflag;
	pc->asked = 1;
	if (!pc->pass || size <= 0)
		return -1;
	len = strlen(pc->pass);
	if (len > (size_t)size)
		return -1;
	memcpy(buf, pc->pass, len);
	return (int)len;
}

/* The contents of a memory BIO as a heap string (caller frees). */
static char *bio_text(BIO *b, size_t *len)
{
	char *data = NULL;
	long n = BIO_get_mem_data(b, &data);
	if (n < 0 || (n > 0 && !data))
		return NULL;
	*len = (size_t)n;
	return xstrndup(data ? data : "", (size_t)n);
}

int seal_keygen(const char *prefix, const char *passphrase, char fp[65])
{
	enum { KEY, PUB, PEM, NFILES };
	static const char *const suffix[NFILES] = { ".key", ".pub", ".pub.pem" };
	static const mode_t mode[NFILES] = { 0600, 0644, 0644 };
	char *path[NFILES] = { NULL, NULL, NULL };
	char *text[NFILES] = { NULL, NULL, NULL };
	size_t len[NFILES] = { 0, 0, 0 };
	int created[NFILES] = { 0, 0, 0 };
	EVP_PKEY_CTX *pctx = NULL;
	EVP_PKEY *pkey = NULL;
	BIO *kbio = NULL, *pbio = NULL;
	struct seal_pub pub;
	unsigned char blob[PUB_BLOB_LEN];
	char *b64 = NULL, msg[256];
	int ret = -1;

	for (int i = 0; i < NFILES; i++) {
		struct stat st;
		path[i] = xasprintf("%s%s", prefix, suffix[i]);
		if (lstat(path[i], &st) == 0) {
			error("'%s' already exists: choose another key name or remove it", path[i]);
			goto out;
		}
		if (errno != ENOENT) {
			error("cannot stat '%s': %s", path[i], strerror(errno));
			goto out;
		}
	}
	if (passphrase && !*passphrase) {
		error("empty passphrase: give none for an unencrypted key");
		goto out;
	}
	if (passphrase && strlen(passphrase) > PASSPHRASE_MAX) {
		error("passphrase longer than %d bytes", PASSPHRASE_MAX);
		goto out;
	}

	pctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
	if (!pctx || EVP_PKEY_keygen_init(pctx) != 1 || EVP_PKEY_keygen(pctx, &pkey) != 1) {
		error("cannot generate an Ed25519 key: %s", crypto_err(msg, sizeof(msg)));
		goto out;
	}
	if (pub_from_pkey(pkey, &pub) < 0)
		goto out;

	/* A secure-heap BIO: the private key text is wiped when freed. */
	kbio = BIO_new(BIO_s_secmem());
	pbio = BIO_new(BIO_s_mem());
	if (!kbio || !pbio) {
		error("cannot allocate a BIO: %s", crypto_err(msg, sizeof(msg)));
		goto out;
	}
	/* PKCS#8, PBES2 with AES-256-CBC when encrypted; never a prompt. */
	if (PEM_write_bio_PKCS8PrivateKey(kbio, pkey, passphrase ? EVP_aes_256_cbc() : NULL,
					  passphrase, passphrase ? (int)strlen(passphrase) : 0, NULL,
					  NULL) != 1) {
		error("cannot encode the private key: %s", crypto_err(msg, sizeof(msg)));
		goto out;
	}
	if (PEM_write_bio_PUBKEY(pbio, pkey) != 1) {
		error("cannot encode the public key: %s", crypto_err(msg, sizeof(msg)));
		goto out;
	}
	text[KEY] = bio_text(kbio, &len[KEY]);
	text[PEM] = bio_text(pbio, &len[PEM]);
	if (!text[KEY] || !text[PEM]) {
		error("cannot read back the encoded keys");
		goto out;
	}

	memcpy(blob, PKALG, 2);
	memcpy(blob + 2, pub.keynum, SIGNIFY_KEYNUM_LEN);
	memcpy(blob + 2 + SIGNIFY_KEYNUM_LEN, pub.key, ED25519_PUB_LEN);
	b64 = b64_encode(blob, sizeof(blob));
	seal_fingerprint(&pub, fp);
	text[PUB] = xasprintf(COMMENT_HDR "abev public key %.16s\n%s\n", fp, b64);
	len[PUB] = strlen(text[PUB]);

	for (int i = 0; i < NFILES; i++) {
		if (write_file_new(path[i], mode[i], text[i], len[i]) < 0)
			goto out;
		created[i] = 1;
	}
	ret = 0;
out:
	for (int i = 0; i < NFILES; i++) {
		if (ret < 0 && created[i])
			unlink(path[i]);
		free(path[i]);
		if (text[i]) {
			OPENSSL_cleanse(text[i], len[i]);
			free(text[i]);
		}
	}
	free(b64);
	BIO_free(kbio);
	BIO_free(pbio);
	EVP_PKEY_free(pkey);
	EVP_PKEY_CTX_free(pctx);
	return ret;
}

struct seal_key *seal_key_load(const char *path, const char *passphrase)
{
	struct strbuf sb = STRBUF_INIT;
	struct pass_ctx pc = { passphrase, 0 };
	struct seal_key *k = NULL;
	EVP_PKEY *pkey = NULL;
	BIO *bio = NULL;
	char *err = NULL, msg[256];

	if (slurp(path, KEY_FILE_MAX, &sb, &err) < 0) {
		error("%s", err);
		goto out;
	}
	bio = BIO_new_mem_buf(sb.buf, (int)sb.len);
	if (!bio) {
		error("cannot allocate a BIO: %s", crypto_err(msg, sizeof(msg)));
		goto out;
	}
	pkey = PEM_read_bio_PrivateKey(bio, NULL, pass_cb, &pc);
	if (!pkey) {
		if (pc.asked && !passphrase)
			error("'%s' is encrypted: give its passphrase", path);
		else if (pc.asked)
			error("cannot decrypt '%s': wrong passphrase?", path);
		else
			error("%s is not a private key abev can read: expected the PKCS#8 PEM "
			      "private key that 'abev keygen' writes (PREFIX.key, beginning "
			      "'-----BEGIN PRIVATE KEY-----' or '-----BEGIN ENCRYPTED PRIVATE "
			      "KEY-----')", path);
		ERR_clear_error();
		goto out;
	}
	if (EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) {
		error("%s is a private key, but not an Ed25519 one: abev signs with the Ed25519 "
		      "key that 'abev keygen' writes (PREFIX.key)", path);
		goto out;
	}
	k = xcalloc(1, sizeof(*k));
	if (pub_from_pkey(pkey, &k->pub) < 0) {
		free(k);
		k = NULL;
		goto out;
	}
	k->pkey = pkey;
	pkey = NULL;
out:
	EVP_PKEY_free(pkey);
	BIO_free(bio);
	if (sb.alloc)
		OPENSSL_cleanse(sb.buf, sb.alloc);
	strbuf_release(&sb);
	free(err);
	return k;
}

/* ---- signatures ---------------------------------------------------- */

char *seal_sign(const struct seal_key *k, const char *comment, const char *msg, size_t len,
		size_t *out_len)
{
	EVP_MD_CTX *ctx = NULL;
	unsigned char blob[SIG_BLOB_LEN];
	size_t siglen = ED25519_SIG_LEN;
	struct strbuf sb = STRBUF_INIT;
	char *b64 = NULL, *out = NULL, err[256];
	size_t clen = strlen(comment);

	if (!clen || COMMENT_HDR_LEN + clen > COMMENT_LINE_MAX || strchr(comment, '\n')) {
		error("a signature comment must be one non-empty line of at most %zu bytes",
		      COMMENT_LINE_MAX - COMMENT_HDR_LEN);
		goto out;
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		die_oom();
	/* Ed25519 is pure: no digest, and one call over the whole message. */
	if (EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) != 1 ||
	    EVP_DigestSign(ctx, blob + 2 + SIGNIFY_KEYNUM_LEN, &siglen, (const unsigned char *)msg,
			   len) != 1 ||
	    siglen != ED25519_SIG_LEN) {
		error("cannot sign: %s", crypto_err(err, sizeof(err)));
		goto out;
	}
	memcpy(blob, PKALG, 2);
	memcpy(blob + 2, k->pub.keynum, SIGNIFY_KEYNUM_LEN);
	b64 = b64_encode(blob, sizeof(blob));
	strbuf_grow(&sb, COMMENT_HDR_LEN + clen + strlen(b64) + 2 + len);
	strbuf_addf(&sb, COMMENT_HDR "%s\n%s\n", comment, b64);
	strbuf_add(&sb, msg, len);
	out = strbuf_detach(&sb, out_len);
out:
	EVP_MD_CTX_free(ctx);
	free(b64);
	strbuf_release(&sb);
	return out;
}

int seal_signed_text(const char *sig, size_t sig_len, const char **msg, size_t *msg_len,
		     char **err)
{
	unsigned char blob[SIG_BLOB_LEN];
	size_t used = 0;

	*err = NULL;
	if (signify_lines(SEAL_SIGNATURE, sig, sig_len, blob, sizeof(blob), &used, err) < 0)
		return -1;
	*msg = sig + used;
	*msg_len = sig_len - used;
	return 0;
}

int seal_check(const struct seal_pub *pub, const char *sig, size_t sig_len, const char **msg,
	       size_t *msg_len, char **err)
{
	unsigned char blob[SIG_BLOB_LEN];
	EVP_PKEY *pk = NULL;
	EVP_MD_CTX *ctx = NULL;
	size_t used = 0;
	char m[256];
	int ret = -1, r;

	*err = NULL;
	if (signify_lines(SEAL_SIGNATURE, sig, sig_len, blob, sizeof(blob), &used, err) < 0)
		goto out;
	if (memcmp(blob + 2, pub->keynum, SIGNIFY_KEYNUM_LEN)) {
		char got[2 * SIGNIFY_KEYNUM_LEN + 1], want[2 * SIGNIFY_KEYNUM_LEN + 1];
		hex_of(blob + 2, SIGNIFY_KEYNUM_LEN, got);
		hex_of(pub->keynum, SIGNIFY_KEYNUM_LEN, want);
		*err = xasprintf("signed with another key (key number %s, expected %s)", got, want);
		goto out;
	}
	pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub->key, ED25519_PUB_LEN);
	ctx = EVP_MD_CTX_new();
	if (!pk || !ctx || EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pk) != 1) {
		*err = xasprintf("cannot set up Ed25519 verification: %s",
				 crypto_err(m, sizeof(m)));
		goto out;
	}
	r = EVP_DigestVerify(ctx, blob + 2 + SIGNIFY_KEYNUM_LEN, ED25519_SIG_LEN,
			     (const unsigned char *)sig + used, sig_len - used);
	ERR_clear_error();
	if (r != 1) {
		*err = xasprintf("bad signature: %s does not match the signed data "
				 "(changed after signing, or a forged signature)", SEAL_SIGNATURE);
		goto out;
	}
	*msg = sig + used;
	*msg_len = sig_len - used;
	ret = 0;
out:
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pk);
	return ret;
}

/* ---- manifest ------------------------------------------------------ */

void manifest_release(struct manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->e[i].name);
	free(m->e);
	m->e = NULL;
	m->n = 0;
}

const char *manifest_name_problem(const char *name)
{
	size_t comp = 0;
	if (!*name)
		return "empty name";
	if (name[0] == '/')
		return "absolute path";
	if (strlen(name) > MANIFEST_NAME_MAX)
		return "longer than 1023 bytes";
	for (const char *p = name;; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '/' || c == '\0') {
			const char *start = p - comp;
			if (comp == 0)
				return "empty path component";
			if (comp == 1 && start[0] == '.')
				return "'.' component";
			if (comp == 2 && start[0] == '.' && start[1] == '.')
				return "'..' component";
			if (c == '\0')
				return NULL;
			comp = 0;
			continue;
		}
		if (c == '\n')
			return "contains a newline";
		if (c < 0x20 || c == 0x7f)
			return "contains a control character";
		if (c == ')')
			return "contains ')', which signify cannot read";
		if (c == '\\')
			return "contains a backslash";
		comp++;
	}
}

/* What seal_tidy() will change, found first and done after the walk. */
struct tidy_item {
	char *name;        /* relative to the root */
	int remove;        /* 1: not a file or directory; 0: rename */
	char kind[16];
	char *target;      /* a symlink's target, for the note */
};
struct tidy {
	struct tidy_item *v;
	size_t n, alloc;
};

static enum tree_step tidy_entry(void *ctx, const struct tree_entry *e)
{
	struct tidy *t = ctx;
	mode_t mode = e->st->st_mode;
	const char *base = strrchr(e->name, '/');
	int bad_name, special = !S_ISREG(mode) && !S_ISDIR(mode);

	base = base ? base + 1 : e->name;
	bad_name = manifest_name_problem(base) != NULL;
	if (special || bad_name) {
		struct tidy_item *it;
		if (t->n == t->alloc) {
			t->alloc = t->alloc ? 2 * t->alloc : 8;
			t->v = xrealloc(t->v, t->alloc * sizeof(*t->v));
		}
		it = &t->v[t->n++];
		memset(it, 0, sizeof(*it));
		it->name = xstrdup(e->name);
		it->remove = special;
		snprintf(it->kind, sizeof(it->kind), "%s", tree_kind(mode));
		if (S_ISLNK(mode)) {
			char buf[1024];
			ssize_t n = readlink(e->path, buf, sizeof(buf) - 1);
			if (n >= 0) {
				buf[n] = '\0';
				it->target = xstrdup(buf);
			}
		}
	}
	/* A renamed directory is walked under its old name first: inner names come first below. */
	return S_ISDIR(mode) && e->depth < MANIFEST_MAX_DEPTH ? TREE_DESCEND : TREE_NEXT;
}

static enum tree_step tidy_failed(void *ctx, const char *name, const char *what, int err)
{
	(void)ctx;
	error("%s '%s': %s", what, name, strerror(err));
	return TREE_STOP;
}

/* A safe form of one name component: offending bytes become '_', cut to fit. */
char *seal_safe_component(const char *name)
{
	size_t n = strlen(name);
	char *s;
	if (n > 200)
		n = 200;
	s = xstrndup(name, n);
	for (char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c == 0x7f || c == ')' || c == '\\' || c == '/')
			*p = '_';
	}
	if (!*s || !strcmp(s, ".") || !strcmp(s, "..")) {
		free(s);
		s = xstrdup("_");
	}
	return s;
}

int seal_tidy(const char *root, const char *sub, void (*note)(void *ctx, char *line), void *ctx)
{
	static const struct tree_ops ops = { tidy_entry, tidy_failed };
	char *dir = path_join(root, sub);
	struct tidy t = { NULL, 0, 0 };
	int ret = -1;

	if (tree_walk(dir, &ops, &t) < 0)
		goto out;
	/* Deepest first, so that renaming a directory leaves the paths below it valid until then. */
	for (size_t k = t.n; k-- > 0;) {
		struct tidy_item *it = &t.v[k];
		char *path = path_join(dir, it->name), *shown = printable(it->name, strlen(it->name));
		if (it->remove) {
			if (unlink(path) < 0) {
				error("cannot remove '%s': %s", path, strerror(errno));
				free(path);
				free(shown);
				goto out;
			}
			if (it->target) {
				char *tgt = printable(it->target, strlen(it->target));
				note(ctx, xasprintf("%s/%s: a symlink to '%s' left by the run was removed "
						    "(evidence holds only regular files)", sub, shown, tgt));
				free(tgt);
			} else {
				note(ctx, xasprintf("%s/%s: a %s left by the run was removed (evidence "
						    "holds only regular files)", sub, shown, it->kind));
			}
		} else {
			const char *slash = strrchr(it->name, '/');
			size_t plen = slash ? (size_t)(slash - it->name) + 1 : 0;
			char *safe = seal_safe_component(slash ? slash + 1 : it->name), *to = NULL, *rel = NULL;
			struct stat st;
			for (unsigned i = 1; i < 1000; i++) {
				free(rel);
				rel = i == 1 ? xasprintf("%.*s%s", (int)plen, it->name, safe)
					     : xasprintf("%.*s%s-%u", (int)plen, it->name, safe, i);
				free(to);
				to = path_join(dir, rel);
				if (lstat(to, &st) < 0)
					break;
			}
			if (rename(path, to) < 0) {
				error("cannot rename '%s': %s", path, strerror(errno));
				free(safe);
				free(to);
				free(rel);
				free(path);
				free(shown);
				goto out;
			}
			note(ctx, xasprintf("%s/%s: renamed to '%s/%s': its name cannot be listed in "
					    "SHA256", sub, shown, sub, rel));
			free(safe);
			free(to);
			free(rel);
		}
		free(path);
		free(shown);
	}
	ret = (int)t.n;
out:
	for (size_t k = 0; k < t.n; k++) {
		free(t.v[k].name);
		free(t.v[k].target);
	}
	free(t.v);
	free(dir);
	return ret;
}

struct walk {
	const char *root;
	struct manifest_entry *e;
	size_t n, alloc;
};

/* Evidence holds regular files and directories with safe names, and nothing else. */
static enum tree_step walk_entry(void *ctx, const struct tree_entry *te)
{
	struct walk *w = ctx;
	const char *why;

	if (te->depth == 0 && (!strcmp(te->name, SEAL_MANIFEST) ||
			       !strcmp(te->name, SEAL_SIGNATURE)))
		return TREE_NEXT;
	why = manifest_name_problem(te->name);
	if (why) {
		char *shown = printable(te->name, strlen(te->name));
		error("unsafe file name '%s' in '%s': %s", shown, w->root, why);
		free(shown);
		return TREE_STOP;
	}
	if (S_ISDIR(te->st->st_mode)) {
		if (te->depth + 1 > MANIFEST_MAX_DEPTH) {
			error("'%s' is nested deeper than %d directories", te->path,
			      MANIFEST_MAX_DEPTH);
			return TREE_STOP;
		}
		return TREE_DESCEND;
	}
	if (!S_ISREG(te->st->st_mode)) {
		mode_t mode = te->st->st_mode;
		const char *kind = S_ISLNK(mode)	? "a symbolic link"
				   : S_ISFIFO(mode) ? "a FIFO"
				   : S_ISSOCK(mode) ? "a socket"
				   : S_ISCHR(mode)	? "a character device"
				   : S_ISBLK(mode)	? "a block device"
							: "not a regular file";
		error("'%s' is %s: evidence holds only regular files and directories", te->path,
		      kind);
		return TREE_STOP;
	}
	if (w->n >= MANIFEST_MAX_ENTRIES) {
		error("'%s' holds more than %d files", w->root, MANIFEST_MAX_ENTRIES);
		return TREE_STOP;
	}
	if (w->n == w->alloc) {
		w->alloc = w->alloc ? 2 * w->alloc : 64;
		w->e = xrealloc(w->e, w->alloc * sizeof(*w->e));
	}
	memset(&w->e[w->n], 0, sizeof(w->e[w->n]));
	w->e[w->n].name = xstrdup(te->name);
	w->e[w->n].size = (uint64_t)te->st->st_size;
	w->n++;
	return TREE_NEXT;
}

static enum tree_step walk_failed(void *ctx, const char *name, const char *what, int err)
{
	struct walk *w = ctx;
	error("%s '%s' in '%s': %s", what, name, w->root, strerror(err));
	return TREE_STOP;
}

static int by_name(const void *a, const void *b)
{
	const struct manifest_entry *x = a, *y = b;
	return strcmp(x->name, y->name);
}

int manifest_build(const char *root, struct manifest *m)
{
	static const struct tree_ops ops = { walk_entry, walk_failed };
	struct walk w = { root, NULL, 0, 0 };
	struct hash_job *jobs = NULL;
	size_t failed, njobs = 0;
	int ret = -1;

	m->e = NULL;
	m->n = 0;
	if (tree_walk(root, &ops, &w) < 0)
		goto out;
	njobs = w.n;
	jobs = xcalloc(njobs, sizeof(*jobs));
	for (size_t i = 0; i < njobs; i++)
		jobs[i].path = path_join(root, w.e[i].name);
	failed = sha256_files(jobs, njobs, 0);
	for (size_t i = 0; i < w.n; i++) {
		if (jobs[i].err) {
			error("%s", jobs[i].err);
			continue;
		}
		memcpy(w.e[i].digest, jobs[i].digest, SHA256_LEN);
		w.e[i].size = jobs[i].size;
	}
	if (failed)
		goto out;
	qsort(w.e, w.n, sizeof(*w.e), by_name);
	m->e = w.e;
	m->n = w.n;
	w.e = NULL;
	w.n = 0;
	ret = 0;
out:
	for (size_t i = 0; i < njobs; i++) {
		free((char *)jobs[i].path);
		free(jobs[i].err);
	}
	free(jobs);
	for (size_t i = 0; i < w.n; i++)
		free(w.e[i].name);
	free(w.e);
	return ret;
}

char *manifest_text(const struct manifest *m, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char hex[SHA256_HEX_LEN + 1];
	for (size_t i = 0; i < m->n; i++) {
		sha256_hex(m->e[i].digest, hex);
		strbuf_addf(&sb, MANIFEST_PREFIX "%s" MANIFEST_MID "%s\n", m->e[i].name, hex);
	}
	return strbuf_detach(&sb, len);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The manifest may not list itself or its signature: neither can match. */
static int is_seal_file(const char *name)
{
	return !strcmp(name, SEAL_MANIFEST) || !strcmp(name, SEAL_SIGNATURE);
}

int manifest_parse(const char *text, size_t len, struct manifest *m, char **err)
{
	static const size_t fixed = sizeof(MANIFEST_PREFIX) - 1 + sizeof(MANIFEST_MID) - 1 +
				    SHA256_HEX_LEN;
	size_t alloc = 0, pos = 0, line = 0;
	int ret = -1;

	*err = NULL;
	m->e = NULL;
	m->n = 0;
	while (pos < len) {
		const char *s = text + pos, *nl, *name, *hex;
		size_t scan = len - pos, llen, nlen;
		struct manifest_entry *e;
		const char *why;
		char *nm;

		line++;
		if (m->n >= MANIFEST_MAX_ENTRIES) {
			*err = xasprintf("%s: more than %d entries", SEAL_MANIFEST,
					 MANIFEST_MAX_ENTRIES);
			goto out;
		}
		if (scan > MANIFEST_LINE_MAX + 1)
			scan = MANIFEST_LINE_MAX + 1;
		nl = memchr(s, '\n', scan);
		if (!nl) {
			if (len - pos > MANIFEST_LINE_MAX)
				*err = xasprintf("%s:%zu: line longer than %d bytes", SEAL_MANIFEST,
						 line, MANIFEST_LINE_MAX);
			else
				*err = xasprintf("%s:%zu: missing newline at the end", SEAL_MANIFEST,
						 line);
			goto out;
		}
		llen = (size_t)(nl - s);
		pos += llen + 1;
		if (llen <= fixed || memcmp(s, MANIFEST_PREFIX, sizeof(MANIFEST_PREFIX) - 1) ||
		    memcmp(s + llen - SHA256_HEX_LEN - (sizeof(MANIFEST_MID) - 1), MANIFEST_MID,
			   sizeof(MANIFEST_MID) - 1))
			goto bad_line;
		name = s + sizeof(MANIFEST_PREFIX) - 1;
		nlen = llen - fixed;
		hex = s + llen - SHA256_HEX_LEN;
		if (memchr(name, '\0', nlen))
			goto bad_line;
		for (size_t i = 0; i < SHA256_HEX_LEN; i++)
			if (hexval(hex[i]) < 0)
				goto bad_line;
		nm = xstrndup(name, nlen);
		why = manifest_name_problem(nm);
		if (!why && is_seal_file(nm))
			why = "the manifest cannot list itself or its signature";
		if (why || (m->n && strcmp(m->e[m->n - 1].name, nm) >= 0)) {
			char *shown = printable(nm, nlen);
			if (why)
				*err = xasprintf("%s:%zu: unsafe name '%s': %s", SEAL_MANIFEST, line,
						 shown, why);
			else
				*err = xasprintf("%s:%zu: '%s' is %s (names must be byte-sorted "
						 "and unique)",
						 SEAL_MANIFEST, line, shown,
						 strcmp(m->e[m->n - 1].name, nm) ? "out of order"
										 : "listed twice");
			free(shown);
			free(nm);
			goto out;
		}
		if (m->n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			m->e = xrealloc(m->e, alloc * sizeof(*m->e));
		}
		e = &m->e[m->n++];
		memset(e, 0, sizeof(*e));
		e->name = nm;
		for (size_t i = 0; i < SHA256_LEN; i++)
			e->digest[i] = (unsigned char)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
	}
	ret = 0;
	goto out;
bad_line:
	*err = xasprintf("%s:%zu: expected 'SHA256 (name) = <64 hex digits>'", SEAL_MANIFEST, line);
out:
	if (ret < 0)
		manifest_release(m);
	return ret;
}

/* ---- sealing ------------------------------------------------------- */

int seal_evidence(const char *root, const struct seal_key *key)
{
	struct manifest m = { NULL, 0 };
	char *text = NULL, *sig = NULL, *mpath = NULL, *spath = NULL;
	size_t tlen = 0, slen = 0;
	int ret = -1;

	if (manifest_build(root, &m) < 0)
		goto out;
	text = manifest_text(&m, &tlen);
	if (key) {
		char fp[65], *comment;
		seal_fingerprint(&key->pub, fp);
		comment = xasprintf("abev evidence signature, key %.16s", fp);
		sig = seal_sign(key, comment, text, tlen, &slen);
		free(comment);
		if (!sig)
			goto out;
	}
	mpath = path_join(root, SEAL_MANIFEST);
	spath = path_join(root, SEAL_SIGNATURE);
	/*
	 * The evidence files are written without fsync (write_file_atomic()):
	 * they reach the disk here, once, before the manifest that names
	 * them, and the manifest and signature after it.
	 */
	if (sync_filesystem(root) < 0)
		goto out;
	/*
	 * Everything is computed before the directory changes. The old
	 * signature goes first, so that no moment pairs it with the new
	 * manifest: at worst the evidence is briefly unsigned.
	 */
	if (unlink(spath) < 0 && errno != ENOENT) {
		error("cannot remove the old signature '%s': %s", spath, strerror(errno));
		goto out;
	}
	if (write_file_atomic(mpath, text, tlen) < 0)
		goto out;
	if (sig && write_file_atomic(spath, sig, slen) < 0)
		goto out;
	if (sync_filesystem(root) < 0)
		goto out;
	ret = 0;
out:
	manifest_release(&m);
	free(text);
	free(sig);
	free(mpath);
	free(spath);
	return ret;
}
