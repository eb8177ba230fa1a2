/*
 * journal: the record of a run while it goes on — invocations.jsonl in the
 * evidence root, one line per finished invocation (its own result.json
 * document, abev.invocation/1, on one line), appended as it ends — and the
 * reserve beside it: disk space held back in a file of its own, so that a
 * file system that fills up during the run (a child's flood of output)
 * still leaves room to finish the evidence and seal it. The top-level
 * result.json is written at the start and at the end only; between the
 * two the journal is the record, and once the final result.json holds
 * every invocation the journal goes. Reading it back is evidence_read.c's.
 */
#ifndef ABEV_JOURNAL_H
#define ABEV_JOURNAL_H

#include <stdint.h>

#include "record/invocation.h"
#include "record/layout.h"
#include "util/hash.h"

/*
 * The reserve: this much, plus twice what the journal holds (the final
 * result.json prints the same records with indentation, and the manifest
 * names each invocation's files), grown in steps of this much.
 */
#define JOURNAL_RESERVE_BASE (1u << 20)
/*
 * Inodes held back beside the bytes: the final writes make new files
 * (result.json and report.md staged, SHA256, SHA256.sig, and again when
 * the seal fails), and a run that used up the file system's inodes would
 * otherwise leave result.json saying "running". Each is an unnamed file
 * (O_TMPFILE) in the evidence directory: nothing to see, nothing left
 * behind if abev is killed.
 */
#define JOURNAL_RESERVE_INODES 8

struct dirat;
struct sha256;
struct journal {
	const struct dirat *root;   /* the evidence directory (borrowed) */
	char *path, *reserve_path;  /* for messages; NULL: not open, or removed */
	int fd, reserve_fd;         /* fd -1 once a write failed: nothing more is appended */
	int inode_fd[JOURNAL_RESERVE_INODES]; /* the inodes held, -1 where none */
	uint64_t bytes;             /* appended so far, in whole lines */
	uint64_t cut;               /* the start of a line whose write failed, after them */
	struct sha256 *sum;         /* of the bytes written, bytes + cut; NULL once closed */
	uint64_t reserved;          /* held in the reserve file */
	unsigned lines;
	/*
	 * Why the reserve stopped growing (a full disk, the file-size limit),
	 * set once, for the caller to record and free; NULL: it keeps up.
	 */
	char *reserve_problem;
	int reserve_stuck;
};
#define JOURNAL_INIT { .fd = -1, .reserve_fd = -1, \
		       .inode_fd = { -1, -1, -1, -1, -1, -1, -1, -1 } }

/*
 * Creates EVIDENCE_JOURNAL_FILE and the reserve EVIDENCE_RESERVE_FILE beneath root
 * (borrowed for the journal's life; neither may exist, no link followed). 0, or -1 after error() with nothing left behind.
 * A reserve that cannot be had in full (a nearly full disk, ulimit -f) is
 * no failure: reserve_problem says so and the run goes on.
 */
int journal_open(struct journal *j, const struct dirat *root);
/*
 * Appends inv's line (one write) and grows the reserve to match. Nothing
 * is fsynced: a killed abev loses nothing the page cache holds, and the
 * syncfs() before sealing covers a crash of the machine. 0, or -1 after
 * error() when the line could not be written (errno ENOSPC, EFBIG, ...):
 * the journal then stops, later calls do nothing and return 0, and the
 * file stays for journal_remove() or journal_release() to deal with.
 */
int journal_append(struct journal *j, const struct invocation *inv);
/* Whether appends have stopped: a write failed, or journal_close() was called. */
int journal_stopped(const struct journal *j);
/*
 * No more lines: the journal is closed to appends, and its SHA-256 and
 * size — of the bytes abev wrote, a line whose write failed as far as it
 * got — go to digest and *size, for the ledger (ledger_written()): a
 * journal that stays in the evidence is held to them like every file
 * abev writes. 1, or 0 when there is no journal file (never opened, or
 * removed). A second call returns 0.
 */
int journal_close(struct journal *j, unsigned char digest[SHA256_LEN], uint64_t *size);
/*
 * Gives the reserve's space and inodes back (removes the file, closes the
 * unnamed ones), before the final writes. The bytes it held. Does nothing
 * when there is none.
 */
uint64_t journal_release_reserve(struct journal *j);
/*
 * The journal is no longer needed: the final result.json holds every
 * record. Closes and removes it. 0, or -1 after error().
 */
int journal_remove(struct journal *j);
/* Closes both files, removes the reserve, keeps the journal. A second call does nothing. */
void journal_release(struct journal *j);

#endif
