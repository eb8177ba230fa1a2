/*
 * verify: checks an evidence directory or bundle against a public key (or,
 * without one, against its manifest alone) — the signature of SHA256,
 * every listed hash, no listed file missing, no
 * unlisted file (but those result.json says a stopped seal left out), no
 * symlink, device or other special file, no unsafe
 * name — and reports every problem with the file it concerns. A bundle
 * is read by streaming it (bundle/read.c), never extracted to disk. When the
 * evidence holds, it also reads what the evidence says of itself (its
 * result.json: status, decision, changes to abev's files, whether its
 * runs ran as abev's own user), from the very bytes it checked.
 */
#ifndef ABEV_VERIFY_H
#define ABEV_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "evidence/evidence_read.h"
#include "seal/seal.h"
#include "record/layout.h"

struct verify_problem {
	char *file;     /* path inside the evidence ("SHA256.sig", "runs/a/run-1/test.log") */
	char *reason;   /* one line */
};

/* How many of the unsealed files a verify_result names. */
#define VERIFY_UNSEALED_NAMED 10

struct verify_result {
	int is_bundle;
	size_t files_checked;        /* manifest entries whose hash matched */
	size_t files_listed;         /* entries in the manifest */
	int signature_present;       /* SHA256.sig is there (checked only with a key) */
	int signature_ok;
	int unfinished;              /* abev stopped while sealing: staged copies are left (seal.h) */
	char fingerprint[SHA256_HEX_LEN + 1];        /* of the key the signature was checked against; "" without */
	struct verify_problem *problems;
	size_t nproblems, problems_alloc;
	/*
	 * Files there that SHA256 does not list, and that abev left out of
	 * the seal when a signal stopped it: result.json's "unsealed" names
	 * each, or a directory above it. That list is taken only from the
	 * bytes of result.json the manifest lists (with pub, the manifest
	 * the signature vouches for). They are no problem, but the evidence
	 * is no clean record. Their number and bytes, and the first
	 * VERIFY_UNSEALED_NAMED names in byte order (escaped, owned).
	 */
	size_t unsealed_files;
	uint64_t unsealed_bytes;
	char *unsealed_names[VERIFY_UNSEALED_NAMED];
	size_t nunsealed_names;
	/*
	 * What the evidence says of itself (verify_path_self() only), read
	 * from result.json only when no problem was found (a changed file
	 * could say anything): then either self_read is set and self holds
	 * it, or self_err (owned) says why it could not be read (no
	 * result.json, not abev's).
	 */
	int self_read;
	struct evidence_self self;
	char *self_err;
};

/*
 * Verifies path (a directory, or a .tar.zst / .tar.gz bundle) against
 * pub, or, when pub is NULL, checks its contents against its manifest
 * only: a missing SHA256.sig is then no problem, and a present one is read
 * for the copy of SHA256 it carries but not checked. Returns 0
 * when the check could be carried out (the verdict is nproblems == 0),
 * -1 when it could not start at all (path unreadable) after error().
 */
int verify_path(const char *path, const struct signify_pub *pub, struct verify_result *out);
/*
 * verify_path(), and then, when it found no problem, what the evidence
 * says of itself (out->self): `abev verify`. The commands that go on to
 * read the evidence themselves need only verify_path().
 */
int verify_path_self(const char *path, const struct signify_pub *pub, struct verify_result *out);
void verify_result_release(struct verify_result *r);

#endif
