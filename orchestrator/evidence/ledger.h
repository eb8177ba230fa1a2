/*
 * ledger: what abev wrote into an evidence directory while the programs
 * under test ran beside it, and the check, before sealing, that it is all
 * still there as written and that nothing else appeared. The files abev
 * writes itself (plan.json, metadata.json, the plan's template, the
 * journal over every line appended, an invocation's own result.json
 * where the journal could not take its line) are noted with
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
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "util/hash.h"

struct dirat;

struct ledger_entry {
	char *name;               /* relative to the evidence root */
	int hashed;               /* digest is valid: abev wrote these bytes, or read them */
	int parsed;               /* hashed: a run's file, the bytes abev's figures come from */
	int is_dir;               /* a directory: only its identity is kept */
	int seen;                 /* put to ledger_vet() since ledger_unseen_clear() */
	int cached;               /* the seal read the file with this identity (ledger_cache()) */
	unsigned char digest[SHA256_LEN];   /* hashed or cached: its bytes' */
	off_t size;               /* the bytes written, or the file's size as noted */
	dev_t dev;                /* when !hashed or cached: the file as it was noted */
	ino_t ino;
	struct timespec mtime, ctime;
};

struct ledger {
	struct ledger_entry *v;
	size_t n, alloc;
	int sorted;               /* v is in name order */
};
#define LEDGER_INIT { NULL, 0, 0, 0 }
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
/*
 * Notes that abev wrote rel (beneath the evidence root) with these bytes'
 * digest and size, written by the caller (a file written in pieces): an
 * entry of that name abev wrote before is replaced.
 */
void ledger_written(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
		    off_t size);
/*
 * abev removed rel, a file it wrote (the journal, once the final
 * result.json holds its records): the ledger no longer holds it, and a
 * seal does not look for it.
 */
void ledger_forget(struct ledger *l, const char *rel);
/*
 * Notes that abev read the run's file rel (a test-result file) for its
 * figures, hashed in that read: from now on the file is held to those
 * bytes, as one abev wrote would be.
 */
void ledger_parsed(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
		   uint64_t size);
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
 * handed to note (a sentence naming the file; note takes it) and taken
 * into the ledger as found (ledger_learn(); a directory that appeared,
 * with all beneath it): recorded, it is sealed as found, and a change
 * after this check shows at the seal (ledger_vet()). Returns the number
 * of differences, or -1 after error() when root cannot be walked.
 */
long ledger_check(struct ledger *l, const struct dirat *root, const char *const *own,
		  void (*note)(void *ctx, char *line), void *ctx);

/*
 * What a file read for the seal is against the ledger (ledger_vet()):
 * as noted (the bytes abev wrote, or a run's file with its identity as
 * kept), changed since, or unknown (neither written nor kept by abev).
 */
enum ledger_seen { LEDGER_AS_NOTED, LEDGER_CHANGED, LEDGER_UNKNOWN };
/*
 * Judges the file rel as the seal read it — its SHA-256 and size, and
 * st, its fstat() once read — against the ledger. A file abev wrote is
 * judged by its bytes alone; a run's file by its identity, device,
 * inode, size and times, which a write, a rename over it or a new link
 * changes (the change time cannot be set back). For LEDGER_CHANGED of a
 * file abev wrote, *written is its entry (the digest and size written),
 * else NULL.
 */
enum ledger_seen ledger_vet(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
			    const struct stat *st, const struct ledger_entry **written);
/*
 * Takes the file rel as it was found (its digest and st) into the ledger,
 * once a difference ledger_vet() found is recorded in the evidence: the
 * evidence can then be sealed as found, saying so, and a change after this
 * shows again. With is_new, the caller knows the ledger has no such name
 * (ledger_vet() said LEDGER_UNKNOWN), and it is added without a lookup.
 */
void ledger_learn(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
		  const struct stat *st, int is_new);
/*
 * The run's file rel, kept as old, is now new: abev gave it an inode of
 * its own (seal.h: seal_settle()) while it stayed as old. Entries that
 * kept it as old follow it; others (it had changed before) do not.
 */
void ledger_moved(struct ledger *l, const char *rel, const struct stat *old,
		  const struct stat *new);
/*
 * What a seal read, kept for the next one (a seal made again after a
 * difference or a signal reads only what changed): the file rel, which
 * ledger_vet() found as noted or ledger_learn() took in, had these
 * bytes (digest) when its identity was st.
 */
void ledger_cache(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
		  const struct stat *st);
/*
 * Whether the file rel, whose identity is now st, is one a seal read
 * (ledger_cache()) and is unchanged since — device, inode, size and both
 * times, which a write, a rename over it or a new link changes: then its
 * digest is put in digest and 1 returned, else 0.
 */
int ledger_known(struct ledger *l, const char *rel, const struct stat *st,
		 unsigned char digest[SHA256_LEN]);
/*
 * Each file the ledger holds, once per name, in name order: with the
 * digest of its bytes when abev knows them — it wrote them, read them
 * for its figures, or a seal read the file as noted (ledger_cache()) —
 * and the size that goes with them, else with digest NULL (a run's file
 * abev never read) and its size as noted. Directories are not passed.
 */
void ledger_files(struct ledger *l,
		  void (*fn)(void *ctx, const char *rel, const unsigned char *digest, off_t size),
		  void *ctx);

/*
 * The files ledger_vet() has not been asked of since ledger_seen_clear():
 * after a seal's read, what abev wrote or kept that is gone. Each file
 * (not directory) whose name is not in skip (NULL-terminated, or NULL)
 * goes to fn, once per name, with the entry of the bytes abev wrote if
 * there is one; fn returns nonzero to have the name dropped from the
 * ledger (the caller recorded it gone). Returns how many went to fn.
 */
void ledger_seen_clear(struct ledger *l);
long ledger_unseen(struct ledger *l, const char *const *skip,
		   int (*fn)(void *ctx, const struct ledger_entry *e), void *ctx);

#endif
