/*
 * seal: what makes an evidence directory checkable months later — the
 * manifest SHA256 (manifest.h) written after the evidence reached the
 * disk, and SHA256.sig, an OpenBSD signify embedded signature over it
 * (signify.h). This header also brings in the three modules sealing is
 * made of, so that a caller of the seal sees one interface: keys and
 * signatures (signify.h), the manifest (manifest.h) and the evidence-name
 * policy (evidence/evname.h).
 */
#ifndef ABEV_SEAL_H
#define ABEV_SEAL_H

#include "evidence/evname.h"
#include "seal/manifest.h"
#include "seal/signify.h"

/*
 * Writes root/SHA256 and, when key is non-NULL, root/SHA256.sig, with
 * the evidence flushed to disk before the manifest and the seal after
 * it. First it settles what abev verify would refuse: empty directories
 * are removed, and a file with a second name (a hardlink) is given an
 * inode of its own. 0 or -1 after error().
 */
int seal_evidence(const char *root, const struct signify_key *key);
/* seal_evidence() of the directory open as root: no link beneath it is followed. */
struct dirat;
int seal_evidence_at(const struct dirat *root, const struct signify_key *key);

/*
 * The names abev writes last, staged: abev run writes its final
 * report.md and result.json as "report.md.sealing" and
 * "result.json.sealing" (EVIDENCE_STAGED_SUFFIX), and they take their names
 * only once the seal that lists them is on disk, in this order — so that
 * result.json never shows a final status in evidence whose seal is not
 * there. NULL-terminated.
 */
extern const char *const seal_staged_names[];
/*
 * seal_evidence_at() of a run's evidence at its end: the manifest lists
 * each staged name's staged copy, if there, under its own name; after
 * SHA256 and SHA256.sig are on disk the copies are renamed into place
 * (seal_put_staged()). Killed before the renames, the evidence is
 * unfinished: result.json still says "running", and `abev verify` names
 * the staged files left. 0 or -1 after error().
 */
struct ledger;
/*
 * What the final seal holds the evidence against (seal_evidence_final()):
 * the ledger of what abev wrote and kept (evidence/ledger.h). Each file
 * is judged as the seal reads it (ledger_vet()): a file abev wrote is
 * listed with the bytes abev wrote, never with others found in its
 * place; a run's file whose identity changed, or a file nobody noted, is
 * left out — so that what was changed after abev last looked is never
 * signed, and abev verify fails on it. With strict, a difference instead
 * stops the seal before anything is written: it is handed to note,
 * taken into the ledger as found (ledger_learn()), and the caller
 * records it in the evidence and seals again.
 */
struct seal_watch {
	struct ledger *ledger;
	int strict;
	void (*note)(void *ctx, char *line);   /* takes line */
	void *ctx;
	long found;                            /* out: the differences found */
};
/*
 * seal_evidence_final() of a run's evidence, held against w (or nothing,
 * with NULL). A file the seal read before (a seal made again) and that is
 * unchanged since is not read again (ledger_known()). The caller arms the
 * stop (hash.h: hash_stop_on_change()): a signal stops the walks, the
 * copies and the hashing, and nothing is written — what was read is kept
 * in the ledger, for seal_evidence_ledger(). 0 sealed, 1 (w->strict)
 * differences found and nothing written, 2 stopped by a signal, -1 after
 * error().
 */
int seal_evidence_final(const struct dirat *root, const struct signify_key *key,
			struct seal_watch *w);
/*
 * The seal of a run's evidence at once, after a signal: made from the
 * ledger alone, nothing walked or read. It lists each file whose bytes
 * abev knows (ledger_files(): it wrote them, read them for its figures,
 * or a seal read them) with those bytes' digest, a staged copy under its
 * final name, and leaves out every file abev never read — which the
 * caller names in the evidence (result.json's "unsealed"), so that abev
 * verify tells them from files that appeared. A file changed on disk
 * since abev read it is listed with the bytes abev read, and abev verify
 * fails on it. Signals do not stop it. 0 or -1 after error().
 */
int seal_evidence_ledger(const struct dirat *root, const struct signify_key *key,
			 struct ledger *l);
/*
 * What a run left that abev verify refuses, settled (the first step of
 * every seal): a file with a second name given one of its own, the modes
 * evidence keeps, and with empty_dirs, empty directories removed. A run's
 * end does it (without empty_dirs, which the ledger notes as the run left
 * them) before the ledger's check (ledger_check()), so that what the seal
 * then changes is a change made after that check. A file l (or NULL)
 * kept that gets an inode of its own is followed there (ledger_moved()),
 * when it was as kept and stayed so while it was copied. 0 or -1 after
 * error(); 1 when a signal stopped it (hash.h).
 */
int seal_settle(const struct dirat *root, int empty_dirs, struct ledger *l);
/*
 * Renames each staged copy of staged (NULL-terminated) that exists into
 * place, in order, and flushes them to disk. 0 or -1 after error().
 */
int seal_put_staged(const struct dirat *root, const char *const *staged);

#endif
