/*
 * ledger: what abev wrote into an evidence directory while the programs
 * under test ran beside it, and the check, before sealing, that it is all
 * still there as written and that nothing else appeared. The files abev
 * writes itself (plan.json, metadata.json, the plan's template, each
 * invocation's result.json, resource.log and guard.log) are noted with
 * their SHA-256 as they are written; a run directory, once its
 * invocation is over, is noted file by file as it is then (device,
 * inode, size, modification and change times: a later write, rename or
 * replacement changes one of them). A program under test runs with
 * abev's privileges and can write anywhere; the ledger makes what it
 * changed outside its own run, or after it, show instead of being
 * sealed as abev's record. It does not decide what a change means for
 * the run (runner.c) and does not seal (seal.c).
 */
#ifndef ABEV_LEDGER_H
#define ABEV_LEDGER_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "util/hash.h"

struct dirat;

struct ledger_entry {
	char *name;               /* relative to the evidence root */
	int hashed;               /* digest is valid: abev wrote these bytes */
	int is_dir;               /* a directory: only its identity is kept */
	unsigned char digest[SHA256_LEN];
	dev_t dev;                /* when !hashed: the file as it was noted */
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

struct ledger {
	struct ledger_entry *v;
	size_t n, alloc;
};
#define LEDGER_INIT { NULL, 0, 0 }
void ledger_release(struct ledger *l);

/*
 * Writes data to rel beneath root (dirat_write_atomic()) and notes its
 * SHA-256. 0, or -1 after error().
 */
/*
 * The same for a file ledger_write() wrote before (metadata.json, written
 * again once the assemblies a setup built are hashed): its entry is
 * replaced, not added to. 0, or -1 after error().
 */
int ledger_rewrite(struct ledger *l, const struct dirat *root, const char *rel,
		   const void *data, size_t len);
int ledger_write(struct ledger *l, const struct dirat *root, const char *rel, const void *data,
		 size_t len);
/* Notes the directory rel beneath root as it is now (its identity). 0 or -1 after error(). */
int ledger_keep_dir(struct ledger *l, const struct dirat *root, const char *rel);
/*
 * Notes every file and directory under rel beneath root (rel itself
 * included) as it is now: a run directory whose invocation is over. 0 or
 * -1 after error().
 */
int ledger_keep_tree(struct ledger *l, const struct dirat *root, const char *rel);

/*
 * Compares the evidence under root with the ledger: every noted file must
 * be there, unchanged (same SHA-256, or same identity and times), and
 * nothing may be there that the ledger does not know, but for the names
 * in own (top-level names abev writes again at the end: result.json,
 * report.md, SHA256, SHA256.sig; NULL-terminated). Each difference is
 * handed to note (a sentence naming the file; note takes it). Returns the
 * number of differences, or -1 after error() when root cannot be walked.
 */
long ledger_check(struct ledger *l, const struct dirat *root, const char *const *own,
		  void (*note)(void *ctx, char *line), void *ctx);

#endif
