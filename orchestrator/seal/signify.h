/*
 * signify: Ed25519 keys and the OpenBSD signify file format, through
 * libcrypto. It makes and loads signing keys (PREFIX.key, PKCS#8 PEM;
 * PREFIX.pub, a signify public key; PREFIX.pub.pem), signs a message into
 * an embedded signature file and checks one. It does not know what is
 * signed (manifest.c writes the manifest, seal.c seals the evidence) nor
 * where a key comes from (signkey.c: --key, ABEV_SIGNING_KEY, passphrases).
 * No EVP_PKEY leaves signify.c: a key is the opaque struct signify_key.
 * Byte layouts: ../shared/REFERENCE.md, "Ed25519 signatures that stock
 * tools verify".
 */
#ifndef ABEV_SIGNIFY_H
#define ABEV_SIGNIFY_H

#include <stddef.h>

#include "record/layout.h"

#define SIGNIFY_KEYNUM_LEN 8
#define ED25519_PUB_LEN 32
#define ED25519_SIG_LEN 64

/* A signing key (opaque; wraps an EVP_PKEY). */
struct signify_key;

/*
 * Generates an Ed25519 key and writes PREFIX.key (PKCS#8 PEM, mode 0600,
 * encrypted with AES-256-CBC when passphrase is non-NULL), PREFIX.pub
 * (signify public key) and PREFIX.pub.pem. None of them may exist. Puts
 * the key's fingerprint (see signify_fingerprint) in fp. 0 or -1 after error().
 */
int signify_keygen(const char *prefix, const char *passphrase, char fp[SHA256_HEX_LEN + 1]);
/* Loads PREFIX.key (PEM, possibly encrypted). NULL after error(). */
struct signify_key *signify_key_load(const char *path, const char *passphrase);
/*
 * The same from the key's text (len bytes, borrowed; the caller wipes it).
 * what names the key in messages ("k.key", "the key text in
 * ABEV_SIGNING_KEY"): the text itself is never printed. NULL after error().
 */
struct signify_key *signify_key_parse(const char *text, size_t len, const char *what,
				      const char *passphrase);
void signify_key_free(struct signify_key *k);

/* A public key as signify files carry it. */
struct signify_pub {
	unsigned char keynum[SIGNIFY_KEYNUM_LEN];
	unsigned char key[ED25519_PUB_LEN];
};
/* The key number of a signify key: the first 8 bytes of SHA-256 of the public key. */
void signify_pub_of(const struct signify_key *k, struct signify_pub *pub);
/*
 * Reads a signify public key file (two lines: "untrusted comment: ...",
 * base64 of "Ed" + keynum + key), or a PEM Ed25519 public key (PREFIX.pub.pem;
 * its key number is abev's, derived from the key). 0, or -1 with *err
 * (caller frees), which names a private key given by mistake.
 */
int signify_pub_read(const char *path, struct signify_pub *pub, char **err);
/* Lowercase hex of SHA-256 over the 32 raw public key bytes. */
void signify_fingerprint(const struct signify_pub *pub, char out[SHA256_HEX_LEN + 1]);

/*
 * Signs msg (the manifest text) and returns the embedded signature file
 * (caller frees): "untrusted comment: <comment>\n" base64(Ed+keynum+sig)
 * "\n" then msg verbatim.
 */
char *signify_sign(const struct signify_key *k, const char *comment, const char *msg, size_t len,
		   size_t *out_len);
/*
 * The message an embedded signature file carries, read for its layout
 * only: nothing is checked against a key, so the text is not vouched for.
 * On success *msg and *msg_len point into sig. 0, or -1 with *err (caller
 * frees) when the file is not a signify embedded signature.
 */
int signify_signed_text(const char *sig, size_t sig_len, const char **msg, size_t *msg_len,
			char **err);
/*
 * Checks an embedded signature file against pub. On success *msg and *msg_len
 * point into sig (the signed message). 0, or -1 with *err (caller frees):
 * malformed file, key number mismatch ("signed with another key"), bad
 * signature.
 */
int signify_check(const struct signify_pub *pub, const char *sig, size_t sig_len, const char **msg,
		  size_t *msg_len, char **err);

#endif
