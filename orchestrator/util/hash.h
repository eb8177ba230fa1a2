/*
 * hash: SHA-256 of files and buffers through libcrypto's EVP interface,
 * streamed in fixed-size chunks so that memory stays flat whatever the
 * file size, and in parallel over many files using every online core.
 * It knows nothing of manifests or signatures.
 */
#ifndef ABEV_HASH_H
#define ABEV_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* SHA-256, as every file, assembly, plan and key fingerprint is recorded. */
#define SHA256_LEN 32
#define SHA256_HEX_LEN 64


/* A running SHA-256 (opaque; wraps an EVP_MD_CTX). */
struct sha256;
struct sha256 *sha256_new(void);
void sha256_update(struct sha256 *h, const void *data, size_t len);
/* Writes the digest and frees h. */
void sha256_final(struct sha256 *h, unsigned char out[SHA256_LEN]);

void sha256_buf(const void *data, size_t len, unsigned char out[SHA256_LEN]);
/* Lowercase hex of a digest into out (SHA256_HEX_LEN + 1 bytes). */
void sha256_hex(const unsigned char d[SHA256_LEN], char out[SHA256_HEX_LEN + 1]);

/*
 * Hashes the regular file at path (opened with O_NOFOLLOW: a symlink is
 * refused). Returns 0, or -1 with *err (caller frees) naming the file.
 */
int sha256_file(const char *path, unsigned char out[SHA256_LEN], uint64_t *size, char **err);

/* One file of a parallel job. */
struct dirat;
struct hash_job {
	const char *path;              /* borrowed; beneath root when root is set */
	const struct dirat *root;      /* borrowed, or NULL */
	unsigned char digest[SHA256_LEN];
	uint64_t size;
	struct stat st;                /* fstat() of the file once read */
	char *err;                     /* set on failure; caller frees */
	int stopped;                   /* failed because hashing was stopped (hash_stop_on_change()) */
};
/*
 * Hashes every job, on up to `threads` threads (0: one per online core).
 * Returns the number of jobs that failed (each has err set).
 */
size_t sha256_files(struct hash_job *jobs, size_t n, unsigned threads);

/*
 * From this call until hash_stop_clear(), hashing stops as soon as
 * count() returns another value than it returns now — abev's sealing
 * passes its count of interrupt signals (run/proc.h:
 * proc_interrupt_count()) —, within one read: the file being hashed and
 * every one not started fail, marked stopped. A signal that came before
 * the call does not stop it: an interrupted run's evidence is still
 * sealed. count must be safe to call from any thread.
 */
void hash_stop_on_change(int (*count)(void));
/*
 * The same, stopping as soon as count() returns another value than base:
 * with base below count()'s value now, it is stopped from the start — a
 * signal came before the call that nothing took (run/proc.h).
 */
void hash_stop_on_change_from(int (*count)(void), int base);
void hash_stop_clear(void);
/* Whether hashing (or a copy that asks) is to stop now. */
int hash_stopped(void);

/*
 * The oldest libcrypto error as text in buf (for signify.c too), and an
 * empty queue afterwards so that a later failure is not blamed on this
 * one. The queue is per thread. Returns buf.
 */
const char *hash_crypto_err(char *buf, size_t len);

#endif
