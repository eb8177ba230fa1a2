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
#include "evidence/ledger.h"
#include "evidence/evname.h"
#include "run/proc.h"

/* As deep as manifest_build() goes. */
#define SETTLE_MAX_DEPTH 64

/* Paths found by the walk: directories in walk order, files with more than one name. */
struct settle {
	char **dirs, **linked;
	struct stat *linked_st;   /* each linked file as the walk found it */
	size_t ndirs, dirs_alloc, nlinked, linked_alloc, linked_st_alloc;
};

static enum tree_step settle_entry(void *ctx, const struct tree_entry *e)
{
	struct settle *s = ctx;
	mode_t want = evname_mode(e->st->st_mode);

	/* A signal while sealing stops the walk as it stops the hashing (hash.h). */
	if (hash_stopped())
		return TREE_STOP;

	/*
	 * Modes evidence keeps, before a directory is entered: what a run
	 * took back after it ended has them already (evname_take_back()); this
	 * is for the rest, and what cannot be changed the manifest reports.
	 * Never through a second name: a hard-linked file's copy (unshare())
	 * is made with a mode of its own.
	 */
	if ((e->st->st_mode & 07777) != want && (S_ISDIR(e->st->st_mode) || e->st->st_nlink == 1))
		(void)fchmodat(e->dirfd, e->base, want, AT_SYMLINK_NOFOLLOW);
	/* Nor extended attributes: what a run left had them removed, with a note (evname.h). */
	if (S_ISDIR(e->st->st_mode) || (S_ISREG(e->st->st_mode) && e->st->st_nlink == 1))
		(void)evname_strip_xattrs(e->dirfd, e->base);
	if (S_ISDIR(e->st->st_mode)) {
		ALLOC_GROW(s->dirs, s->ndirs + 1, s->dirs_alloc);
		s->dirs[s->ndirs++] = xstrdup(e->name);
		return e->depth < SETTLE_MAX_DEPTH ? TREE_DESCEND : TREE_NEXT;
	}
	if (S_ISREG(e->st->st_mode) && e->st->st_nlink > 1) {
		ALLOC_GROW(s->linked, s->nlinked + 1, s->linked_alloc);
		ALLOC_GROW(s->linked_st, s->nlinked + 1, s->linked_st_alloc);
		s->linked_st[s->nlinked] = *e->st;
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

/* The same file, unchanged: device, inode, size and both times. */
static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * Gives rel (beneath root) an inode of its own: its bytes are copied
 * beside it, under a name nobody can guess and holes kept, and renamed
 * over it, so that the other name (a test's `ln` into $ABEV_RUN_DIR)
 * keeps the old inode. *left: the old inode once rel no longer names it
 * (its other names' change time moved with the rename), when it stayed as
 * found while it was copied, and then l (or NULL) follows rel to its new
 * inode (ledger_moved()); st_ino 0 otherwise. 0 or -1 after error().
 */
static int unshare(const struct dirat *root, const char *rel, const struct stat *found,
		   struct ledger *l, struct stat *left)
{
	struct atomic_file f = ATOMIC_FILE_INIT;
	char *shown = path_join(root->path, rel);
	const char *base;
	int dfd = dirat_parent(root, rel, &base), in = -1, ret = -1;
	enum copy_result cr;
	struct stat st, after;

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
	/* Read while it stayed as the walk found it: the ledger follows it to its new inode. */
	if (fstat(in, &after) < 0)
		after.st_ino = 0;
	ret = atomic_file_commit(&f);
	left->st_ino = 0;
	if (ret == 0 && same_file(found, &st) && same_file(found, &after)) {
		if (fstat(in, left) < 0)
			left->st_ino = 0;
		if (l && dirat_lstat(root, rel, &after) == 0)
			ledger_moved(l, rel, found, &after);
	}
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
 * a second name is given one of its own. 0, 1 when a signal stopped it
 * (hash.h), or -1 after error().
 */
int seal_settle(const struct dirat *root, int empty_dirs, struct ledger *l)
{
	static const struct tree_ops ops = { settle_entry, settle_failed };
	struct settle s = { NULL, NULL, NULL, 0, 0, 0, 0, 0 };
	int ret = tree_walk_at(root, "", &ops, &s);

	for (size_t i = 0; i < s.nlinked && ret == 0; i++) {
		struct stat was = s.linked_st[i], left;

		if (unshare(root, s.linked[i], &was, l, &left) < 0) {
			ret = -1;
			break;
		}
		/* Its other names here saw only abev's rename: the ledger and the walk follow. */
		for (size_t j = i + 1; left.st_ino && j < s.nlinked; j++)
			if (same_file(&s.linked_st[j], &was)) {
				if (l)
					ledger_moved(l, s.linked[j], &was, &left);
				s.linked_st[j] = left;
			}
	}
	/* Children come after their parent in the walk: backwards, they go first. */
	for (size_t i = s.ndirs; empty_dirs && ret == 0 && i-- > 0;) {
		if (hash_stopped())
			break;
		if (dirat_unlink(root, s.dirs[i], AT_REMOVEDIR) < 0 && errno != ENOTEMPTY &&
		    errno != EEXIST)
			ret = error("cannot remove the empty directory '%s/%s': %s", root->path,
				    s.dirs[i], strerror(errno));
	}
	if (hash_stopped())
		ret = 1;
	for (size_t i = 0; i < s.ndirs; i++)
		free(s.dirs[i]);
	for (size_t i = 0; i < s.nlinked; i++)
		free(s.linked[i]);
	free(s.dirs);
	free(s.linked);
	free(s.linked_st);
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
/* Room for seal_staged_names, NULL included. */
#define SEAL_STAGED_MAX 3
_Static_assert(sizeof(seal_staged_names) / sizeof(*seal_staged_names) <= SEAL_STAGED_MAX,
	       "seal_evidence_ledger() holds every staged name");

/* A difference a strict seal found, taken into the ledger once the read is over (one sort). */
struct learned {
	char *name;
	unsigned char digest[SHA256_LEN];
	struct stat st;
	int unknown;   /* ledger_vet() knew no such name */
};
struct watching {
	struct seal_watch *w;
	struct learned *v;
	size_t n, alloc;
};

/*
 * A file as the seal read it, against the ledger (struct seal_watch):
 * what is listed, and each difference noted. The name a note gives is
 * the evidence's (a staged copy's final name).
 */
static enum manifest_vote vet(void *ctx, struct hash_job *job)
{
	struct watching *wg = ctx;
	struct seal_watch *w = wg->w;
	const struct ledger_entry *written;
	enum ledger_seen seen = ledger_vet(w->ledger, job->path, job->digest, &job->st, &written);
	size_t plen = strlen(job->path), slen = strlen(EVIDENCE_STAGED_SUFFIX);
	char *shown, hex[SHA256_HEX_LEN + 1];

	if (seen == LEDGER_AS_NOTED) {
		ledger_cache(w->ledger, job->path, job->digest, &job->st);
		return MANIFEST_LIST;
	}
	w->found++;
	if (plen > slen && !strcmp(job->path + plen - slen, EVIDENCE_STAGED_SUFFIX))
		plen -= slen;
	shown = evname_printable(job->path, plen);
	if (written && written->parsed) {
		sha256_hex(written->digest, hex);
		w->note(w->ctx, xasprintf("%s: changed while abev sealed the evidence, after abev "
					  "read its figures from it (SHA-256 %.16s… when read); it "
					  "is not what abev recorded", shown, hex));
	} else if (written) {
		sha256_hex(written->digest, hex);
		w->note(w->ctx, xasprintf("%s: changed while abev sealed the evidence, after abev "
					  "wrote it (SHA-256 %.16s… when written); it is not abev's "
					  "record", shown, hex));
	} else if (seen == LEDGER_CHANGED) {
		w->note(w->ctx, xasprintf("%s: changed or replaced while abev sealed the evidence, "
					  "after its invocation was over", shown));
	} else {
		w->note(w->ctx, xasprintf("%s: a regular file abev did not write appeared while "
					  "abev sealed the evidence; it is not part of what abev "
					  "recorded", shown));
	}
	free(shown);
	if (w->strict) {
		struct learned *k;

		ALLOC_GROW(wg->v, wg->n + 1, wg->alloc);
		k = &wg->v[wg->n++];
		k->name = xstrdup(job->path);
		memcpy(k->digest, job->digest, SHA256_LEN);
		k->st = job->st;
		k->unknown = seen == LEDGER_UNKNOWN;
		return MANIFEST_LIST;
	}
	/* Never signed: abev's own bytes are listed in their place, and the rest left out. */
	if (!written)
		return MANIFEST_LEAVE_OUT;
	memcpy(job->digest, written->digest, SHA256_LEN);
	job->size = (uint64_t)written->size;
	return MANIFEST_LIST;
}

/* A file the last seal read, unchanged since: not read again (ledger_known()). */
static int known(void *ctx, const char *path, const struct stat *st,
		 unsigned char digest[SHA256_LEN])
{
	struct watching *wg = ctx;

	return ledger_known(wg->w->ledger, path, st, digest);
}

/* What the seal lists, for gone(): abev's bytes for a file abev wrote that is gone. */
struct gone_ctx {
	struct seal_watch *w;
	struct manifest *m;
	size_t alloc;
	int unlistable;   /* a run's file gone, outside strict: nothing to list */
};

/* A file the ledger holds that the seal did not find (ledger_unseen()). */
static int gone(void *ctx, const struct ledger_entry *e)
{
	struct gone_ctx *g = ctx;
	size_t len = strlen(e->name), slen = strlen(EVIDENCE_STAGED_SUFFIX);
	char *shown;

	if (len > slen && !strcmp(e->name + len - slen, EVIDENCE_STAGED_SUFFIX))
		len -= slen;
	shown = evname_printable(e->name, len);
	g->w->found++;
	g->w->note(g->w->ctx, xasprintf("%s: %s, and it was removed while abev sealed the "
					"evidence", shown,
					e->parsed ? "abev read its figures from it"
					: e->hashed ? "abev wrote it" : "its run left it"));
	if (g->w->strict) {
		free(shown);
		return 1;
	}
	/* Listed as written, it is "listed but missing" to abev verify; a run's file cannot be. */
	if (e->hashed) {
		struct manifest_entry *me;

		ALLOC_GROW(g->m->e, g->m->n + 1, g->alloc);
		me = &g->m->e[g->m->n++];
		me->name = xstrndup(e->name, len);
		memcpy(me->digest, e->digest, SHA256_LEN);
		me->size = (uint64_t)e->size;
	} else {
		g->unlistable = 1;
	}
	free(shown);
	return 0;
}

static int by_entry_name(const void *a, const void *b)
{
	return strcmp(((const struct manifest_entry *)a)->name,
		      ((const struct manifest_entry *)b)->name);
}

/*
 * After the manifest of a watched seal is built: what the ledger holds
 * and the seal did not read is gone. 0, or -1 after error() when a run's
 * file is gone outside strict (nothing can stand in its place).
 */
static int watch_gone(struct seal_watch *w, struct manifest *m)
{
	struct gone_ctx g = { w, m, m->n, 0 };

	ledger_unseen(w->ledger, seal_staged_names, gone, &g);
	qsort(m->e, m->n, sizeof(*m->e), by_entry_name);
	if (g.unlistable)
		return error("files the runs left were removed while abev sealed the evidence a "
			     "second time (above): it is not sealed");
	return 0;
}

/* seal_put_staged(); with quick, only root itself is flushed then (sync_names()). */
static int put_staged(const struct dirat *root, const char *const *staged, int quick)
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
	if (!moved)
		return 0;
	if (quick && fsync(root->fd) < 0)
		return error("cannot flush '%s' to disk: %s", root->path, strerror(errno));
	return quick ? 0 : dirat_sync(root);
}

/*
 * Flushes to disk the files of names (NULL-terminated) that are there
 * beneath root, each staged copy's too, and root itself: the seal made
 * at once after a signal (seal_evidence_ledger()), which does not wait
 * for the disk to take everything the runs wrote (syncfs()). 0 or -1
 * after error().
 */
static int sync_names(const struct dirat *root, const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		for (int staged = 0; staged <= 1; staged++) {
			char *rel = staged ? manifest_staged_name(names[i]) : xstrdup(names[i]);
			int fd = dirat_openat(root, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);

			if (fd < 0 && errno != ENOENT) {
				error("cannot open '%s/%s' to flush it to disk: %s", root->path, rel,
				      strerror(errno));
				free(rel);
				return -1;
			}
			if (fd >= 0 && fsync(fd) < 0) {
				error("cannot flush '%s/%s' to disk: %s", root->path, rel,
				      strerror(errno));
				close(fd);
				free(rel);
				return -1;
			}
			if (fd >= 0)
				close(fd);
			free(rel);
		}
	}
	if (fsync(root->fd) < 0)
		return error("cannot flush '%s' to disk: %s", root->path, strerror(errno));
	return 0;
}

/* What the seal made at once flushes: the files it names and writes. */
static const char *const quick_synced[] = { EVIDENCE_REPORT_FILE, EVIDENCE_RESULT_FILE,
					    EVIDENCE_MANIFEST_FILE, EVIDENCE_SIGNATURE_FILE, NULL };

/*
 * Writes the seal of m — SHA256, and SHA256.sig with key — into root,
 * after the evidence reached the disk, and then renames each staged copy
 * of staged (or NULL) into place. With quick, only abev's final files
 * and the seal are flushed (sync_names()). 0 or -1 after error().
 */
static int write_seal(const struct dirat *root, const struct signify_key *key,
		      const struct manifest *m, const char *const *staged, int quick)
{
	char *text, *sig = NULL;
	size_t tlen = 0, slen = 0;
	int ret = -1;

	text = manifest_text(m, &tlen);
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
	if (quick ? sync_names(root, quick_synced) < 0 : dirat_sync(root) < 0)
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
	if (quick ? sync_names(root, quick_synced) < 0 : dirat_sync(root) < 0)
		goto out;
	if (put_staged(root, staged, quick) < 0)
		goto out;
	ret = 0;
out:
	free(text);
	free(sig);
	return ret;
}

/*
 * Seals root, listing each name of staged (or NULL) by its staged copy,
 * which is then renamed into place in staged's order, after the seal is
 * on disk. Everything is computed before the directory changes. With w,
 * each file is held against w's ledger first (vet()), and one the last
 * seal read and that is unchanged since is not read again (known()).
 * 0, 1 (w->strict) differences found, 2 a signal stopped it (hash.h),
 * or -1 after error().
 */
static int seal_staged(const struct dirat *root, const struct signify_key *key,
		       const char *const *staged, struct seal_watch *w)
{
	struct manifest m = { NULL, 0 };
	struct watching wg = { w, NULL, 0, 0 };
	struct manifest_vet v = { vet, known, &wg };
	int ret = -1, r;

	if (w) {
		w->found = 0;
		ledger_seen_clear(w->ledger);
	}
	r = seal_settle(root, 1, w ? w->ledger : NULL);
	if (r == 0)
		r = manifest_build_vetted(root, staged, w ? &v : NULL, &m);
	/* The names the ledger knows first: a new one unsorts it, and each lookup would sort again. */
	for (int unknown = 0; unknown <= 1; unknown++)
		for (size_t i = 0; i < wg.n; i++)
			if (wg.v[i].unknown == unknown)
				ledger_learn(w->ledger, wg.v[i].name, wg.v[i].digest, &wg.v[i].st,
					     unknown);
	if (r != 0) {
		ret = r > 0 ? 2 : -1;
		goto out;
	}
	if (w && watch_gone(w, &m) < 0)
		goto out;
	if (w && w->strict && w->found) {
		ret = 1;
		goto out;
	}
	ret = write_seal(root, key, &m, staged, 0);
out:
	for (size_t i = 0; i < wg.n; i++)
		free(wg.v[i].name);
	free(wg.v);
	manifest_release(&m);
	return ret;
}

int seal_put_staged(const struct dirat *root, const char *const *staged)
{
	return put_staged(root, staged, 0);
}

int seal_evidence_at(const struct dirat *root, const struct signify_key *key)
{
	int ret;

	/* A signal from here on stops the hashing and copying (hash.h): sealing a terabyte waits for nobody. */
	hash_stop_on_change(proc_interrupt_count);
	ret = seal_staged(root, key, NULL, NULL);
	hash_stop_clear();
	if (ret > 0)
		return error("abev received a signal while sealing '%s' and stopped: it is not sealed",
			     root->path);
	return ret;
}

int seal_evidence_final(const struct dirat *root, const struct signify_key *key,
			struct seal_watch *w)
{
	return seal_staged(root, key, seal_staged_names, w);
}

/* The manifest of what the ledger knows the bytes of (seal_evidence_ledger()). */
struct from_ledger {
	struct manifest m;
	size_t alloc;
};

static void list_known(void *ctx, const char *rel, const unsigned char *digest, off_t size)
{
	struct from_ledger *fl = ctx;
	struct manifest_entry *e;

	if (!digest || !strcmp(rel, EVIDENCE_MANIFEST_FILE) || !strcmp(rel, EVIDENCE_SIGNATURE_FILE))
		return;
	ALLOC_GROW(fl->m.e, fl->m.n + 1, fl->alloc);
	e = &fl->m.e[fl->m.n++];
	e->name = xstrdup(rel);
	memcpy(e->digest, digest, SHA256_LEN);
	e->size = (uint64_t)size;
}

/* The entry of name in m (sorted), or NULL. */
static struct manifest_entry *entry_of(struct manifest *m, const char *name)
{
	struct manifest_entry key = { (char *)name, { 0 }, 0 };

	return bsearch(&key, m->e, m->n, sizeof(*m->e), by_entry_name);
}

int seal_evidence_ledger(const struct dirat *root, const struct signify_key *key,
			 struct ledger *l)
{
	struct from_ledger fl = { { NULL, 0 }, 0 };
	int ret;

	ledger_files(l, list_known, &fl);
	/* Each staged copy abev wrote stands for its name, as it will once renamed. */
	{
		struct manifest_entry *copy[SEAL_STAGED_MAX] = { NULL }, *own[SEAL_STAGED_MAX] = { NULL };

		/* All looked up before any is renamed: the search needs the order. */
		for (size_t i = 0; seal_staged_names[i]; i++) {
			char *from = manifest_staged_name(seal_staged_names[i]);

			copy[i] = entry_of(&fl.m, from);
			own[i] = entry_of(&fl.m, seal_staged_names[i]);
			free(from);
		}
		for (size_t i = 0; seal_staged_names[i]; i++) {
			if (!copy[i])
				continue;
			if (own[i])
				own[i]->name[0] = '\0';
			free(copy[i]->name);
			copy[i]->name = xstrdup(seal_staged_names[i]);
		}
	}
	{
		size_t kept = 0;

		for (size_t i = 0; i < fl.m.n; i++) {
			if (fl.m.e[i].name[0])
				fl.m.e[kept++] = fl.m.e[i];
			else
				free(fl.m.e[i].name);
		}
		fl.m.n = kept;
	}
	qsort(fl.m.e, fl.m.n, sizeof(*fl.m.e), by_entry_name);
	ret = write_seal(root, key, &fl.m, seal_staged_names, 1);
	manifest_release(&fl.m);
	return ret;
}
