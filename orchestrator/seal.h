/*
 * seal: what makes an evidence directory checkable months later — the
 * manifest SHA256 (every other file in `sha256sum --tag` form, byte-sorted)
 * and SHA256.sig, an OpenBSD signify embedded signature over it made with
 * Ed25519 through libcrypto, plus the signify and PEM key files that let
 * stock tools (sha256sum, signify-openbsd, openssl) check it without abev.
 * Byte layouts: ../shared/REFERENCE.md, "Ed25519 signatures that stock
 * tools verify".
 */
#ifndef ABEV_SEAL_H
#define ABEV_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

#define SEAL_MANIFEST "SHA256"
#define SEAL_SIGNATURE "SHA256.sig"
#define SIGNIFY_KEYNUM_LEN 8
#define ED25519_PUB_LEN 32
#define ED25519_SIG_LEN 64
/* The most files an evidence directory (and so its manifest) holds. */
#define SEAL_MAX_FILES 100000

/* A signing key (opaque; wraps an EVP_PKEY). */
struct seal_key;

/*
 * Generates an Ed25519 key and writes PREFIX.key (PKCS#8 PEM, mode 0600,
 * encrypted with AES-256-CBC when passphrase is non-NULL), PREFIX.pub
 * (signify public key) and PREFIX.pub.pem. None of them may exist. Puts
 * the key's fingerprint (see seal_fingerprint) in fp. 0 or -1 after error().
 */
int seal_keygen(const char *prefix, const char *passphrase, char fp[65]);
/* Loads PREFIX.key (PEM, possibly encrypted). NULL after error(). */
struct seal_key *seal_key_load(const char *path, const char *passphrase);
void seal_key_free(struct seal_key *k);

/* A public key as signify files carry it. */
struct seal_pub {
	unsigned char keynum[SIGNIFY_KEYNUM_LEN];
	unsigned char key[ED25519_PUB_LEN];
};
/* The key number of a signify key: the first 8 bytes of SHA-256 of the public key. */
void seal_pub_of(const struct seal_key *k, struct seal_pub *pub);
/*
 * Reads a signify public key file (two lines: "untrusted comment: ...",
 * base64 of "Ed" + keynum + key). 0, or -1 with *err (caller frees).
 */
int seal_pub_read(const char *path, struct seal_pub *pub, char **err);
/* Lowercase hex of SHA-256 over the 32 raw public key bytes. */
void seal_fingerprint(const struct seal_pub *pub, char out[65]);

/* One line of the manifest. */
struct manifest_entry {
	char *name;                        /* relative path, '/'-separated */
	unsigned char digest[SHA256_LEN];
	uint64_t size;
};
struct manifest {
	struct manifest_entry *e;
	size_t n;
};
void manifest_release(struct manifest *m);

/*
 * A name that stock tools can read back: relative, non-empty, no "." or
 * ".." component, no empty component, no ')' (signify cannot parse it),
 * no control character or newline, no backslash, valid UTF-8 not needed.
 * Returns NULL when safe, else a static reason.
 */
const char *manifest_name_problem(const char *name);

/*
 * Makes what a run left under root/sub sealable without losing a byte of
 * content: a symlink, FIFO, socket or device is removed (it holds no
 * data of its own), a file or directory whose name stock tools cannot
 * read is renamed to a safe one ("bad)name" -> "bad_name", with a numeric
 * suffix when taken). Each change is handed to note(ctx, line) (ownership
 * passes) so that the evidence says what was changed. Returns the number
 * of changes, or -1 after error() when one could not be made.
 */
int seal_tidy(const char *root, const char *sub, void (*note)(void *ctx, char *line), void *ctx);
/* A name component stock tools can read: offending bytes become '_'. Caller frees. */
char *seal_safe_component(const char *name);

/*
 * Walks root (every regular file except SHA256 and SHA256.sig), hashes in
 * parallel, and fills m sorted by name (byte order). A symlink, device,
 * FIFO or socket, or an unsafe name, is an error. 0 or -1 after error().
 */
int manifest_build(const char *root, struct manifest *m);
/* The manifest's text: "SHA256 (name) = hex\n" per entry. Caller frees. */
char *manifest_text(const struct manifest *m, size_t *len);
/*
 * Parses manifest text strictly (exact format, sorted, unique, safe
 * names). 0, or -1 with *err (caller frees) naming the line.
 */
int manifest_parse(const char *text, size_t len, struct manifest *m, char **err);

/*
 * Signs msg (the manifest text) and returns the embedded signature file
 * (caller frees): "untrusted comment: <comment>\n" base64(Ed+keynum+sig)
 * "\n" then msg verbatim.
 */
char *seal_sign(const struct seal_key *k, const char *comment, const char *msg, size_t len,
		size_t *out_len);
/*
 * The message an embedded signature file carries, read for its layout
 * only: nothing is checked against a key, so the text is not vouched for.
 * On success *msg and *msg_len point into sig. 0, or -1 with *err (caller
 * frees) when the file is not a signify embedded signature.
 */
int seal_signed_text(const char *sig, size_t sig_len, const char **msg, size_t *msg_len,
		     char **err);
/*
 * Checks an embedded signature file against pub. On success *msg and *msg_len
 * point into sig (the signed message). 0, or -1 with *err (caller frees):
 * malformed file, key number mismatch ("signed with another key"), bad
 * signature.
 */
int seal_check(const struct seal_pub *pub, const char *sig, size_t sig_len, const char **msg,
	       size_t *msg_len, char **err);

/*
 * Writes root/SHA256 and, when key is non-NULL, root/SHA256.sig, with
 * the evidence flushed to disk before the manifest and the seal after
 * it. 0 or -1 after error().
 */
int seal_evidence(const char *root, const struct seal_key *key);

#endif
