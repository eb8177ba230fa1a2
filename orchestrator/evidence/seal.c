/*
 * seal: seals an evidence directory — builds its manifest (manifest.c),
 * signs it when a key is given (signify.c), and writes SHA256 and
 * SHA256.sig after the evidence reached the disk. Checking a seal is
 * verify.c's job.
 */
#define _POSIX_C_SOURCE 200809L
#include "seal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int seal_evidence(const char *root, const struct seal_key *key)
{
	struct manifest m = { NULL, 0 };
	char *text = NULL, *sig = NULL, *mpath = NULL, *spath = NULL;
	size_t tlen = 0, slen = 0;
	int ret = -1;

	if (manifest_build(root, &m) < 0)
		goto out;
	text = manifest_text(&m, &tlen);
	if (key) {
		char fp[65], *comment;
		struct seal_pub pub;
		seal_pub_of(key, &pub);
		seal_fingerprint(&pub, fp);
		comment = xasprintf("abev evidence signature, key %.16s", fp);
		sig = seal_sign(key, comment, text, tlen, &slen);
		free(comment);
		if (!sig)
			goto out;
	}
	mpath = path_join(root, SEAL_MANIFEST);
	spath = path_join(root, SEAL_SIGNATURE);
	/*
	 * The evidence files are written without fsync (write_file_atomic()):
	 * they reach the disk here, once, before the manifest that names
	 * them, and the manifest and signature after it.
	 */
	if (sync_filesystem(root) < 0)
		goto out;
	/*
	 * Everything is computed before the directory changes. The old
	 * signature goes first, so that no moment pairs it with the new
	 * manifest: at worst the evidence is briefly unsigned.
	 */
	if (unlink(spath) < 0 && errno != ENOENT) {
		error("cannot remove the old signature '%s': %s", spath, strerror(errno));
		goto out;
	}
	if (write_file_atomic(mpath, text, tlen) < 0)
		goto out;
	if (sig && write_file_atomic(spath, sig, slen) < 0)
		goto out;
	if (sync_filesystem(root) < 0)
		goto out;
	ret = 0;
out:
	manifest_release(&m);
	free(text);
	free(sig);
	free(mpath);
	free(spath);
	return ret;
}

