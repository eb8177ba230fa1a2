/*
 * seal: seals an evidence directory — settles what abev verify would
 * refuse although it holds nothing (empty directories) or holds it under
 * a second name (hardlinks), builds its manifest (manifest.c), signs it
 * when a key is given (signify.c), and writes SHA256 and SHA256.sig after
 * the evidence reached the disk. Checking a seal is verify.c's job.
 */
#include "seal/seal.h"
#include "util/dirat.h"
#include "util/tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"
#include "run/proc.h"

/* As deep as manifest_build() goes. */
#define SETTLE_MAX_DEPTH 64

/* Paths found by the walk: directories in walk order, files with more than one name. */
struct settle {
	char **dirs, **linked;
	size_t ndirs, dirs_alloc, nlinked, linked_alloc;
};

static enum tree_step settle_entry(void *ctx, const struct tree_entry *e)
{
	struct settle *s = ctx;
	mode_t want = evname_mode(e->st->st_mode);

	/*
	 * Modes evidence keeps, before a directory is entered: what a run
	 * took back after it ended has them already (evname_take_back()); this
	 * is for the rest, and what cannot be changed the manifest reports.
	 * Never through a second name: a hard-linked file's copy (unshare())
	 * is made with a mode of its own.
	 */
	if ((e->st->st_mode & 07777) != want && (S_ISDIR(e->st->st_mode) || e->st->st_nlink == 1))
		(void)fchmodat(e->dirfd, e->base, want, AT_SYMLINK_NOFOLLOW);
	if (S_ISDIR(e->st->st_mode)) {
		ALLOC_GROW(s->dirs, s->ndirs + 1, s->dirs_alloc);
		s->dirs[s->ndirs++] = xstrdup(e->name);
		return e->depth < SETTLE_MAX_DEPTH ? TREE_DESCEND : TREE_NEXT;
	}
	if (S_ISREG(e->st->st_mode) && e->st->st_nlink > 1) {
		ALLOC_GROW(s->linked, s->nlinked + 1, s->linked_alloc);
		s->linked[s->nlinked++] = xstrdup(e->name);
	}
	return TREE_NEXT;
}

/* What cannot be read here, manifest_build() reports. */
static enum tree_step settle_failed(void *ctx, const char *name, const char *what, int err)
{
	(void)ctx;
	(void)name;
	(void)what;
	(void)err;
	return TREE_NEXT;
}

/* copy_file_sparse()'s stop: the sealing's hashing stop (hash.h). */
static int copy_stopped(void *arg)
{
	(void)arg;
	return hash_stopped();
}

/*
 * Gives rel (beneath root) an inode of its own: its bytes are copied
 * beside it, under a name nobody can guess and holes kept, and renamed
 * over it, so that the other name (a test's `ln` into $ABEV_RUN_DIR)
 * keeps the old inode. 0 or -1 after error().
 */
static int unshare(const struct dirat *root, const char *rel)
{
	struct atomic_file f = ATOMIC_FILE_INIT;
	char *shown = path_join(root->path, rel);
	const char *base;
	int dfd = dirat_parent(root, rel, &base), in = -1, ret = -1;
	enum copy_result cr;
	struct stat st;

	if (dfd >= 0)
		in = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (in < 0 || fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		error("cannot read '%s': %s", shown, in < 0 || errno ? strerror(errno) : "not a regular file");
		goto out;
	}
	if (atomic_file_open_at(&f, root, rel) < 0)
		goto out;
	cr = copy_file_sparse(in, f.fd, (uint64_t)st.st_size, copy_stopped, NULL);
	if (cr == COPY_STOPPED) {
		error("stopped copying '%s' (to give it a name of its own): abev received a signal",
		      shown);
		goto out;
	}
	if (cr != COPY_OK) {
		error("cannot copy '%s' to give it a name of its own: %s", shown, strerror(errno));
		goto out;
	}
	ret = atomic_file_commit(&f);
out:
	atomic_file_abort(&f);
	if (in >= 0)
		close(in);
	if (dfd >= 0)
		close(dfd);
	free(shown);
	return ret;
}

/*
 * What a run left that abev verify refuses, settled before the manifest
 * is built: empty directories hold nothing a manifest can list and are
 * removed (deepest first, so a tree of empty ones goes), and a file with
 * a second name is given one of its own. 0 or -1 after error().
 */
static int seal_settle(const struct dirat *root)
{
	static const struct tree_ops ops = { settle_entry, settle_failed };
	struct settle s = { NULL, NULL, 0, 0, 0, 0 };
	int ret = tree_walk_at(root, "", &ops, &s);

	for (size_t i = 0; i < s.nlinked; i++)
		if (ret == 0 && unshare(root, s.linked[i]) < 0)
			ret = -1;
	/* Children come after their parent in the walk: backwards, they go first. */
	for (size_t i = s.ndirs; i-- > 0;)
		if (ret == 0 && dirat_unlink(root, s.dirs[i], AT_REMOVEDIR) < 0 &&
		    errno != ENOTEMPTY && errno != EEXIST)
			ret = error("cannot remove the empty directory '%s/%s': %s", root->path,
				    s.dirs[i], strerror(errno));
	for (size_t i = 0; i < s.ndirs; i++)
		free(s.dirs[i]);
	for (size_t i = 0; i < s.nlinked; i++)
		free(s.linked[i]);
	free(s.dirs);
	free(s.linked);
	return ret;
}

int seal_evidence(const char *root, const struct signify_key *key)
{
	struct dirat d = DIRAT_INIT;
	int ret;

	if (dirat_open_path(&d, root) < 0)
		return error("cannot open directory '%s': %s", root, strerror(errno));
	ret = seal_evidence_at(&d, key);
	dirat_release(&d);
	return ret;
}

const char *const seal_staged_names[] = { EVIDENCE_REPORT_FILE, EVIDENCE_RESULT_FILE, NULL };

/*
 * Seals root, listing each name of staged (or NULL) by its staged copy,
 * which is then renamed into place in staged's order, after the seal is
 * on disk. Everything is computed before the directory changes.
 */
static int seal_staged(const struct dirat *root, const struct signify_key *key,
		       const char *const *staged)
{
	struct manifest m = { NULL, 0 };
	char *text = NULL, *sig = NULL;
	size_t tlen = 0, slen = 0;
	int ret = -1;

	/* A signal from here on stops the hashing and copying (hash.h): sealing a terabyte waits for nobody. */
	hash_stop_on_change(proc_interrupt_count);
	if (seal_settle(root) < 0 || manifest_build_staged(root, staged, &m) < 0)
		goto out;
	hash_stop_clear();
	text = manifest_text(&m, &tlen);
	if (key) {
		char fp[SHA256_HEX_LEN + 1], *comment;
		struct signify_pub pub;
		signify_pub_of(key, &pub);
		signify_fingerprint(&pub, fp);
		comment = xasprintf("abev evidence signature, key %.16s", fp);
		sig = signify_sign(key, comment, text, tlen, &slen);
		free(comment);
		if (!sig)
			goto out;
	}
	/*
	 * The evidence files are written without fsync (write_file_atomic()):
	 * they reach the disk here, once, before the manifest that names
	 * them, and the manifest and signature after it.
	 */
	if (dirat_sync(root) < 0)
		goto out;
	/*
	 * The old signature goes first, so that no moment pairs it with the
	 * new manifest: at worst the evidence is briefly unsigned.
	 */
	if (dirat_unlink(root, EVIDENCE_SIGNATURE_FILE, 0) < 0 && errno != ENOENT) {
		error("cannot remove the old signature '%s/%s': %s", root->path, EVIDENCE_SIGNATURE_FILE,
		      strerror(errno));
		goto out;
	}
	if (dirat_write_atomic(root, EVIDENCE_MANIFEST_FILE, text, tlen) < 0)
		goto out;
	if (sig && dirat_write_atomic(root, EVIDENCE_SIGNATURE_FILE, sig, slen) < 0)
		goto out;
	if (dirat_sync(root) < 0)
		goto out;
	if (seal_put_staged(root, staged) < 0)
		goto out;
	ret = 0;
out:
	hash_stop_clear();
	manifest_release(&m);
	free(text);
	free(sig);
	return ret;
}

int seal_put_staged(const struct dirat *root, const char *const *staged)
{
	int moved = 0;

	for (size_t i = 0; staged && staged[i]; i++) {
		char *from = manifest_staged_name(staged[i]);
		int r = dirat_rename(root, from, staged[i]);

		if (r < 0 && errno != ENOENT) {
			error("cannot put '%s/%s' in place: %s", root->path, from, strerror(errno));
			free(from);
			return -1;
		}
		moved += r == 0;
		free(from);
	}
	return moved ? dirat_sync(root) : 0;
}

int seal_evidence_at(const struct dirat *root, const struct signify_key *key)
{
	return seal_staged(root, key, NULL);
}

int seal_evidence_final(const struct dirat *root, const struct signify_key *key)
{
	return seal_staged(root, key, seal_staged_names);
}
