/*
 * manifest: the file SHA256 of an evidence directory, every other file in
 * `sha256sum --tag` form ("SHA256 (name) = hex"), byte-sorted. It builds
 * one from a directory (hashing in parallel through hash.c), writes its
 * text, and parses one back strictly. It does not sign (signify.c), does
 * not decide which names are safe (evname.c), and does not compare a
 * manifest with files on disk (verify.c).
 */
#ifndef ABEV_MANIFEST_H
#define ABEV_MANIFEST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util/hash.h"
#include "record/layout.h"

/* name's staged copy: "name" EVIDENCE_STAGED_SUFFIX. Caller frees. */
char *manifest_staged_name(const char *name);

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
 * Walks root (every regular file except SHA256 and SHA256.sig), hashes in
 * parallel, and fills m sorted by name (byte order). A symlink, device,
 * FIFO or socket, or an unsafe name, is an error. 0 or -1 after error().
 */
int manifest_build(const char *root, struct manifest *m);
/* manifest_build() of the directory open as root (dirat.h: no link followed beneath it). */
struct dirat;
int manifest_build_at(const struct dirat *root, struct manifest *m);
/*
 * manifest_build_at() in which, for each top-level name of staged (NULL
 * terminated, or NULL), "name.sealing" when it exists is hashed and listed
 * as name, and name itself is left out: the manifest of the evidence as it
 * will be once each is renamed into place.
 */
int manifest_build_staged(const struct dirat *root, const char *const *staged,
			  struct manifest *m);
/*
 * Asked of each file once hashed, before it is listed: job holds what was
 * read (job->path the name hashed, a staged copy's own; its digest, size
 * and st, the file's fstat() once read). MANIFEST_LIST lists it with the
 * digest and size in job, which the vet may have replaced;
 * MANIFEST_LEAVE_OUT leaves it out.
 */
enum manifest_vote { MANIFEST_LIST, MANIFEST_LEAVE_OUT };
struct manifest_vet {
	enum manifest_vote (*fn)(void *ctx, struct hash_job *job);
	/*
	 * Or NULL. Asked of each file before it is hashed, with st as the
	 * walk found it: non-zero, with its digest in digest, when the
	 * file is known as it is (read before, unchanged since) — it is
	 * then not read again, and put to fn with st as its st.
	 */
	int (*known)(void *ctx, const char *path, const struct stat *st,
		     unsigned char digest[SHA256_LEN]);
	void *ctx;
};
/*
 * manifest_build_staged() with each file put to vet (or none, with
 * NULL). A signal while sealing (hash.h: hash_stop_on_change()) stops
 * the walk and the hashing: the files hashed before it are still put to
 * vet, nothing is built, and it returns 1. 0, 1 or -1 after error().
 */
int manifest_build_vetted(const struct dirat *root, const char *const *staged,
			  const struct manifest_vet *vet, struct manifest *m);
/* The manifest's text: "SHA256 (name) = hex\n" per entry. Caller frees. */
char *manifest_text(const struct manifest *m, size_t *len);
/*
 * Parses manifest text strictly (exact format, sorted, unique, safe
 * names). 0, or -1 with *err (caller frees) naming the line.
 */
int manifest_parse(const char *text, size_t len, struct manifest *m, char **err);
/* Lowers the most entries built or parsed (0: EVIDENCE_MAX_FILES again), for tests of the cap. */
void manifest_set_max_entries(size_t n);

#endif
