/*
 * signify: Ed25519 keys through libcrypto, written and read in the
 * layouts stock tools use — the private key as PKCS#8 PEM, the public key
 * as an OpenBSD signify key and as PEM SubjectPublicKeyInfo, signatures as
 * signify embedded signatures. Every key and signature file read back is
 * parsed strictly and treated as hostile. This file does not know what a
 * signature covers (seal.c signs the manifest) nor where keys come from
 * (signkey.c).
 */
#include "seal/signify.h"

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

#include "util/hash.h"
#include "seal/manifest.h"
#include "util/alloc.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

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

struct signify_key {
	EVP_PKEY *pkey;
	struct signify_pub pub;
};

static void hex_of(const unsigned char *d, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 0xf];
	}
	out[2 * n] = '\0';
}

/* ---- keys ---------------------------------------------------------- */

static int pub_from_pkey(EVP_PKEY *pkey, struct signify_pub *pub)
{
	size_t len = ED25519_PUB_LEN;
	unsigned char d[SHA256_LEN];
	char msg[256];
	if (EVP_PKEY_get_raw_public_key(pkey, pub->key, &len) != 1 || len != ED25519_PUB_LEN)
		return error("cannot get the Ed25519 public key: %s",
			     hash_crypto_err(msg, sizeof(msg)));
	sha256_buf(pub->key, ED25519_PUB_LEN, d);
	memcpy(pub->keynum, d, SIGNIFY_KEYNUM_LEN);
	return 0;
}

void signify_pub_of(const struct signify_key *k, struct signify_pub *pub)
{
	*pub = k->pub;
}

void signify_fingerprint(const struct signify_pub *pub, char out[SHA256_HEX_LEN + 1])
{
	unsigned char d[SHA256_LEN];
	sha256_buf(pub->key, ED25519_PUB_LEN, d);
	sha256_hex(d, out);
}

void signify_key_free(struct signify_key *k)
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

	if (!len) {
		*err = xasprintf("'%s': empty file; expected a signify file: '%s...' and a "
				 "base64 line", what, COMMENT_HDR);
		return -1;
	}
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
	if (nl1[-1] == '\r') {
		*err = xasprintf("'%s': CRLF line ending; signify files end their lines with LF "
				 "only (convert it with dos2unix)", what);
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

#define PEM_PUB_HDR "-----BEGIN PUBLIC KEY-----"

/*
 * A PEM SubjectPublicKeyInfo (abev keygen's PREFIX.pub.pem, openssl's
 * form). It carries no key number: abev numbers its keys by the public
 * key itself (pub_from_pkey), so abev's signatures check, and a signify
 * key's signatures report "signed with another key". 0, or -1 with *err.
 */
static int pub_read_pem(const char *path, const struct strbuf *sb, struct signify_pub *pub,
			char **err)
{
	BIO *bio = BIO_new_mem_buf(sb->buf, (int)sb->len);
	EVP_PKEY *pk = NULL;
	char msg[256];
	int ret = -1;

	if (!bio)
		die_oom();
	pk = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	if (!pk) {
		*err = xasprintf("'%s': not a PEM public key abev can read (%s)", path,
				 hash_crypto_err(msg, sizeof(msg)));
		goto out;
	}
	if (EVP_PKEY_id(pk) != EVP_PKEY_ED25519) {
		*err = xasprintf("'%s': a public key, but not an Ed25519 one; abev signs with "
				 "Ed25519 keys ('abev keygen')", path);
		goto out;
	}
	if (pub_from_pkey(pk, pub) < 0) {
		*err = xasprintf("'%s': cannot read the Ed25519 public key", path);
		goto out;
	}
	ret = 0;
out:
	EVP_PKEY_free(pk);
	BIO_free(bio);
	return ret;
}

/* A private key or a signify secret key where a public key belongs: say so. */
static int pub_is_secret(const char *path, const struct strbuf *sb, char **err)
{
	const char *nl = memchr(sb->buf, '\n', sb->len);
	char *first = xstrndup(sb->buf, nl ? (size_t)(nl - sb->buf) : sb->len);
	int secret = 1;

	if (strstr(sb->buf, "PRIVATE KEY-----"))
		*err = xasprintf("'%s' is a private key: --pubkey takes the public key (PREFIX.pub "
				 "or PREFIX.pub.pem from 'abev keygen'); keep the private key to "
				 "yourself", path);
	else if (!strncmp(first, COMMENT_HDR, COMMENT_HDR_LEN) && strstr(first, "secret key"))
		*err = xasprintf("'%s' is a signify secret key: --pubkey takes the public key "
				 "(the .pub file)", path);
	else
		secret = 0;
	free(first);
	return secret;
}

int signify_pub_read(const char *path, struct signify_pub *pub, char **err)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char blob[PUB_BLOB_LEN];
	size_t used = 0;
	int ret = -1;

	*err = NULL;
	if (slurp(path, PUB_FILE_MAX, &sb, err) < 0)
		goto out;
	if (memchr(sb.buf, '\0', sb.len) == NULL && pub_is_secret(path, &sb, err))
		goto out;
	if (sb.len >= sizeof(PEM_PUB_HDR) - 1 &&
	    !memcmp(sb.buf, PEM_PUB_HDR, sizeof(PEM_PUB_HDR) - 1)) {
		ret = pub_read_pem(path, &sb, pub, err);
		goto out;
	}
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

enum { KEYGEN_KEY, KEYGEN_PUB, KEYGEN_PEM, KEYGEN_NFILES };

/* PREFIX.key, .pub and .pub.pem, none of which may exist, and a usable passphrase. */
static int keygen_paths(const char *prefix, const char *passphrase, char *path[KEYGEN_NFILES])
{
	static const char *const suffix[KEYGEN_NFILES] = { ".key", ".pub", ".pub.pem" };

	for (int i = 0; i < KEYGEN_NFILES; i++) {
		struct stat st;
		path[i] = xasprintf("%s%s", prefix, suffix[i]);
		if (lstat(path[i], &st) == 0)
			return error("'%s' already exists: choose another key name or remove it",
				     path[i]);
		if (errno != ENOENT)
			return error("cannot stat '%s': %s", path[i], strerror(errno));
	}
	if (passphrase && !*passphrase)
		return error("empty passphrase: give none for an unencrypted key");
	if (passphrase && strlen(passphrase) > PASSPHRASE_MAX)
		return error("passphrase longer than %d bytes", PASSPHRASE_MAX);
	return 0;
}

/*
 * A new Ed25519 key: its private key as PKCS#8 PEM (text[KEYGEN_KEY]),
 * its public key as PEM (text[KEYGEN_PEM]) and as *pub. 0 or -1 after error().
 */
static int keygen_pem(const char *passphrase, char *text[KEYGEN_NFILES],
		      size_t len[KEYGEN_NFILES], struct signify_pub *pub)
{
	EVP_PKEY_CTX *pctx = NULL;
	EVP_PKEY *pkey = NULL;
	BIO *kbio = NULL, *pbio = NULL;
	char msg[256];
	int ret = -1;

	pctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
	if (!pctx || EVP_PKEY_keygen_init(pctx) != 1 || EVP_PKEY_keygen(pctx, &pkey) != 1) {
		error("cannot generate an Ed25519 key: %s", hash_crypto_err(msg, sizeof(msg)));
		goto out;
	}
	if (pub_from_pkey(pkey, pub) < 0)
		goto out;

	/* A secure-heap BIO: the private key text is wiped when freed. */
	kbio = BIO_new(BIO_s_secmem());
	pbio = BIO_new(BIO_s_mem());
	if (!kbio || !pbio) {
		error("cannot allocate a BIO: %s", hash_crypto_err(msg, sizeof(msg)));
		goto out;
	}
	/* PKCS#8, PBES2 with AES-256-CBC when encrypted; never a prompt. */
	if (PEM_write_bio_PKCS8PrivateKey(kbio, pkey, passphrase ? EVP_aes_256_cbc() : NULL,
					  passphrase, passphrase ? (int)strlen(passphrase) : 0, NULL,
					  NULL) != 1) {
		error("cannot encode the private key: %s", hash_crypto_err(msg, sizeof(msg)));
		goto out;
	}
	if (PEM_write_bio_PUBKEY(pbio, pkey) != 1) {
		error("cannot encode the public key: %s", hash_crypto_err(msg, sizeof(msg)));
		goto out;
	}
	text[KEYGEN_KEY] = bio_text(kbio, &len[KEYGEN_KEY]);
	text[KEYGEN_PEM] = bio_text(pbio, &len[KEYGEN_PEM]);
	if (!text[KEYGEN_KEY] || !text[KEYGEN_PEM]) {
		error("cannot read back the encoded keys");
		goto out;
	}
	ret = 0;
out:
	BIO_free(kbio);
	BIO_free(pbio);
	EVP_PKEY_free(pkey);
	EVP_PKEY_CTX_free(pctx);
	return ret;
}

/* The signify public key file of pub, and its fingerprint in fp. Caller frees. */
static char *signify_pub_text(const struct signify_pub *pub, char fp[SHA256_HEX_LEN + 1])
{
	unsigned char blob[PUB_BLOB_LEN];
	char *b64, *text;

	memcpy(blob, PKALG, 2);
	memcpy(blob + 2, pub->keynum, SIGNIFY_KEYNUM_LEN);
	memcpy(blob + 2 + SIGNIFY_KEYNUM_LEN, pub->key, ED25519_PUB_LEN);
	b64 = b64_encode(blob, sizeof(blob));
	signify_fingerprint(pub, fp);
	text = xasprintf(COMMENT_HDR "abev public key %.16s\n%s\n", fp, b64);
	free(b64);
	return text;
}

int signify_keygen(const char *prefix, const char *passphrase, char fp[SHA256_HEX_LEN + 1])
{
	static const mode_t mode[KEYGEN_NFILES] = { 0600, 0644, 0644 };
	char *path[KEYGEN_NFILES] = { NULL, NULL, NULL };
	char *text[KEYGEN_NFILES] = { NULL, NULL, NULL };
	size_t len[KEYGEN_NFILES] = { 0, 0, 0 };
	int created[KEYGEN_NFILES] = { 0, 0, 0 };
	struct signify_pub pub;
	int ret = -1;

	if (keygen_paths(prefix, passphrase, path) < 0 || keygen_pem(passphrase, text, len, &pub) < 0)
		goto out;
	text[KEYGEN_PUB] = signify_pub_text(&pub, fp);
	len[KEYGEN_PUB] = strlen(text[KEYGEN_PUB]);
	for (int i = 0; i < KEYGEN_NFILES; i++) {
		if (write_file_new(path[i], mode[i], text[i], len[i]) < 0)
			goto out;
		created[i] = 1;
	}
	ret = 0;
out:
	for (int i = 0; i < KEYGEN_NFILES; i++) {
		if (ret < 0 && created[i])
			unlink(path[i]);
		free(path[i]);
		if (text[i]) {
			OPENSSL_cleanse(text[i], len[i]);
			free(text[i]);
		}
	}
	return ret;
}

struct signify_key *signify_key_load(const char *path, const char *passphrase)
{
	struct strbuf sb = STRBUF_INIT;
	struct signify_key *k = NULL;
	char *err = NULL;

	if (slurp(path, KEY_FILE_MAX, &sb, &err) < 0) {
		error("%s", err);
		goto out;
	}
	k = signify_key_parse(sb.buf, sb.len, path, passphrase);
out:
	if (sb.alloc)
		OPENSSL_cleanse(sb.buf, sb.alloc);
	strbuf_release(&sb);
	free(err);
	return k;
}

struct signify_key *signify_key_parse(const char *text, size_t len, const char *what,
				      const char *passphrase)
{
	struct pass_ctx pc = { passphrase, 0 };
	struct signify_key *k = NULL;
	EVP_PKEY *pkey = NULL;
	BIO *bio = NULL;
	char msg[256];

	if (len > KEY_FILE_MAX) {
		error("%s is larger than a key (%zu bytes)", what, len);
		goto out;
	}
	bio = BIO_new_mem_buf(text, (int)len);
	if (!bio) {
		error("cannot allocate a BIO: %s", hash_crypto_err(msg, sizeof(msg)));
		goto out;
	}
	pkey = PEM_read_bio_PrivateKey(bio, NULL, pass_cb, &pc);
	if (!pkey) {
		if (pc.asked && !passphrase)
			error("%s is encrypted: give its passphrase", what);
		else if (pc.asked)
			error("cannot decrypt %s: wrong passphrase?", what);
		else
			error("%s is not a private key abev can read: expected the PKCS#8 PEM "
			      "private key that 'abev keygen' writes (PREFIX.key, beginning "
			      "'-----BEGIN PRIVATE KEY-----' or '-----BEGIN ENCRYPTED PRIVATE "
			      "KEY-----')", what);
		ERR_clear_error();
		goto out;
	}
	if (EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) {
		error("%s is a private key, but not an Ed25519 one: abev signs with the Ed25519 "
		      "key that 'abev keygen' writes (PREFIX.key)", what);
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
	return k;
}

/* ---- signatures ---------------------------------------------------- */

char *signify_sign(const struct signify_key *k, const char *comment, const char *msg, size_t len,
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
		error("cannot sign: %s", hash_crypto_err(err, sizeof(err)));
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

int signify_signed_text(const char *sig, size_t sig_len, const char **msg, size_t *msg_len,
			char **err)
{
	unsigned char blob[SIG_BLOB_LEN];
	size_t used = 0;

	*err = NULL;
	if (signify_lines(EVIDENCE_SIGNATURE_FILE, sig, sig_len, blob, sizeof(blob), &used, err) < 0)
		return -1;
	*msg = sig + used;
	*msg_len = sig_len - used;
	return 0;
}

int signify_check(const struct signify_pub *pub, const char *sig, size_t sig_len, const char **msg,
		  size_t *msg_len, char **err)
{
	unsigned char blob[SIG_BLOB_LEN];
	EVP_PKEY *pk = NULL;
	EVP_MD_CTX *ctx = NULL;
	size_t used = 0;
	char m[256];
	int ret = -1, r;

	*err = NULL;
	if (signify_lines(EVIDENCE_SIGNATURE_FILE, sig, sig_len, blob, sizeof(blob), &used, err) < 0)
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
				 hash_crypto_err(m, sizeof(m)));
		goto out;
	}
	r = EVP_DigestVerify(ctx, blob + 2 + SIGNIFY_KEYNUM_LEN, ED25519_SIG_LEN,
			     (const unsigned char *)sig + used, sig_len - used);
	ERR_clear_error();
	if (r != 1) {
		*err = xasprintf("bad signature: %s does not match the signed data "
				 "(changed after signing, or a forged signature)", EVIDENCE_SIGNATURE_FILE);
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
