/*
 * seal: what makes an evidence directory checkable months later — the
 * manifest SHA256 (manifest.h) written after the evidence reached the
 * disk, and SHA256.sig, an OpenBSD signify embedded signature over it
 * (signify.h). This header also brings in the three modules sealing is
 * made of, so that a caller of the seal sees one interface: keys and
 * signatures (signify.h), the manifest (manifest.h) and the evidence-name
 * policy (evname.h).
 */
#ifndef ABEV_SEAL_H
#define ABEV_SEAL_H

#include "evname.h"
#include "manifest.h"
#include "signify.h"

/*
 * Writes root/SHA256 and, when key is non-NULL, root/SHA256.sig, with
 * the evidence flushed to disk before the manifest and the seal after
 * it. First it settles what abev verify would refuse: empty directories
 * are removed, and a file with a second name (a hardlink) is given an
 * inode of its own. 0 or -1 after error().
 */
int seal_evidence(const char *root, const struct seal_key *key);
/* seal_evidence() of the directory open as root: no link beneath it is followed. */
struct dirat;
int seal_evidence_at(const struct dirat *root, const struct seal_key *key);

#endif
