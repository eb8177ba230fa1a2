/*
 * evname: which names evidence may hold, and making what a run left
 * behind fit that rule. A name is safe when sha256sum and signify read it
 * back from the manifest unchanged; a run's leftovers with other names
 * are renamed, and its symlinks, FIFOs, sockets and devices removed, each
 * change noted for the evidence. This file neither hashes nor lists files
 * for the manifest (manifest.c).
 */
#include "evidence/evname.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "util/dirat.h"
#include "util/hash.h"
#include "util/tree.h"
#include "util/alloc.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/utf8.h"

/*
 * A copy of an outside string fit to quote in one line of an error:
 * escaped by util's strbuf_add_escaped() (the one escaping of names), the
 * first 200 bytes only (cut between characters).
 */
char *evname_printable(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	/* Not inside a UTF-8 character, which would show as escaped bytes. */
	size_t n = utf8_cut(s, len, 200);

	strbuf_add_escaped(&sb, s, n);
	if (n < len)
		strbuf_adds(&sb, "...");
	return strbuf_detach(&sb, NULL);
}

const char *evname_problem(const char *name)
{
	size_t comp = 0;
	if (!*name)
		return "empty name";
	if (name[0] == '/')
		return "absolute path";
	if (strlen(name) > EVIDENCE_NAME_MAX)
		return "longer than 1023 bytes";
	for (const char *p = name;; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '/' || c == '\0') {
			const char *start = p - comp;
			if (comp == 0)
				return "empty path component";
			if (comp == 1 && start[0] == '.')
				return "'.' component";
			if (comp == 2 && start[0] == '.' && start[1] == '.')
				return "'..' component";
			if (c == '\0')
				return NULL;
			comp = 0;
			continue;
		}
		if (c == '\n')
			return "contains a newline";
		if (c < 0x20 || c == 0x7f)
			return "contains a control character";
		if (c == ')')
			return "contains ')', which signify cannot read";
		if (c == '\\')
			return "contains a backslash";
		comp++;
	}
}

/* What evname_tidy() will change, found first and done after the walk. */
struct tidy_item {
	char *name;        /* relative to the root */
	int remove;        /* 1: not a file or directory; 2: a directory too deep; 3: a path too
			      long (moved up); 0: rename */
	char kind[16];
	char *target;      /* a symlink's target, for the note */
};
struct tidy {
	struct tidy_item *v;
	size_t n, alloc;
	int max_depth;     /* a directory this deep below the walk's root is too deep */
	size_t prefix;     /* the bytes of the walk's root in an evidence path ("runs/a/run-1/") */
};

static enum tree_step tidy_entry(void *ctx, const struct tree_entry *e)
{
	struct tidy *t = ctx;
	mode_t mode = e->st->st_mode;
	const char *base = strrchr(e->name, '/');
	int bad_name, special = !S_ISREG(mode) && !S_ISDIR(mode);

	/* A signal while abev finishes the evidence stops the walk (util/hash.h). */
	if (hash_stopped())
		return TREE_STOP;
	base = base ? base + 1 : e->name;
	bad_name = evname_problem(base) != NULL;
	if (S_ISDIR(mode) && e->depth >= t->max_depth) {
		special = 2;
		bad_name = 0;
	}
	/* A file whose evidence path no manifest line can hold: moved up, not lost. */
	if (S_ISREG(mode) && t->prefix + strlen(e->name) > EVIDENCE_NAME_MAX) {
		special = 3;
		bad_name = 0;
	}
	if (special || bad_name) {
		struct tidy_item *it;
		ALLOC_GROW(t->v, t->n + 1, t->alloc);
		it = &t->v[t->n++];
		memset(it, 0, sizeof(*it));
		it->name = xstrdup(e->name);
		it->remove = special;
		snprintf(it->kind, sizeof(it->kind), "%s", tree_kind(mode));
		if (S_ISLNK(mode)) {
			char buf[1024];
			ssize_t n = readlinkat(e->dirfd, e->base, buf, sizeof(buf) - 1);
			if (n >= 0) {
				buf[n] = '\0';
				it->target = xstrdup(buf);
			}
		}
	}
	/* A renamed directory is walked under its old name first: inner names come first below. */
	return S_ISDIR(mode) && special != 2 ? TREE_DESCEND : TREE_NEXT;
}

static enum tree_step tidy_failed(void *ctx, const char *name, const char *what, int err)
{
	(void)ctx;
	error("%s '%s': %s", what, name, strerror(err));
	return TREE_STOP;
}

/* One level of trim_tree()'s way down: its name in its parent, and its identity. */
struct trim_level {
	char *name;
	dev_t dev;
	ino_t ino;
};

/* Whether fd is the directory id says (st_dev and st_ino as opened). */
static int same_dir(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

/*
 * Removes the directory name in parent and everything under it, however
 * deep, holding two descriptors at a time: it goes down through the first
 * subdirectory it finds, empties a directory that has none, and climbs
 * back through "..", keeping the names and identities (st_dev, st_ino) of
 * the levels on the way. Nothing is followed, and each ".." is checked
 * against the level it should be: a directory of the tree moved elsewhere
 * meanwhile (by a process abev does not control) would lead ".." out of
 * the tree, and there the removal stops, with errno EXDEV, having removed
 * nothing outside it. Counts what it removed. 0 or -1 with errno.
 */
static int trim_tree(int parent, const char *name, size_t *nfiles, size_t *ndirs)
{
	struct trim_level *path = NULL;
	struct stat top;
	size_t depth = 0, alloc = 0;
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ret = -1;

	if (fd >= 0 && fstat(fd, &top) < 0) {
		close(fd);
		fd = -1;
	}
	while (fd >= 0) {
		DIR *d;
		struct dirent *de;
		char *sub = NULL;
		int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3), up;

		d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
		if (!d) {
			if (dup_fd >= 0)
				close(dup_fd);
			goto out;
		}
		while (!sub && (de = readdir(d))) {
			struct stat st;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			if (S_ISDIR(st.st_mode))
				sub = xstrdup(de->d_name);
			else if (unlinkat(fd, de->d_name, 0) == 0)
				(*nfiles)++;
		}
		closedir(d);
		if (sub) {
			int down = openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			struct stat st;
			if (down < 0 || fstat(down, &st) < 0) {
				if (down >= 0)
					close(down);
				free(sub);
				goto out;
			}
			ALLOC_GROW(path, depth + 1, alloc);
			path[depth++] = (struct trim_level){ sub, st.st_dev, st.st_ino };
			close(fd);
			fd = down;
			continue;
		}
		/* Empty now: remove it from its parent. */
		if (!depth) {
			close(fd);
			fd = -1;
			if (unlinkat(parent, name, AT_REMOVEDIR) < 0)
				goto out;
			(*ndirs)++;
			ret = 0;
			break;
		}
		up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = up;
		if (fd < 0)
			goto out;
		/* The level above, as it was on the way down: else the tree was moved. */
		if (depth >= 2 ? !same_dir(fd, path[depth - 2].dev, path[depth - 2].ino)
			       : !same_dir(fd, top.st_dev, top.st_ino)) {
			errno = EXDEV;
			goto out;
		}
		if (unlinkat(fd, path[--depth].name, AT_REMOVEDIR) < 0)
			goto out;
		free(path[depth].name);
		(*ndirs)++;
	}
out:
	if (fd >= 0) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	for (size_t i = 0; i < depth; i++)
		free(path[i].name);
	free(path);
	return ret;
}

mode_t evname_mode(mode_t m)
{
	mode_t keep = m & 0755;

	if (S_ISDIR(m))
		return keep | S_IRWXU;
	if (S_ISREG(m))
		return keep | S_IRUSR | S_IWUSR;
	return m & 07777;
}

/* The most bytes of attribute names a file's list may take; more is noted as not removed. */
#define XATTR_LIST_MAX_BYTES 65536

long evname_strip_xattrs(int dirfd, const char *base)
{
	char path[64 + 4096], *names = NULL;
	ssize_t len;
	long removed = 0;

	/* No *xattrat() call: the directory's own name in /proc, the last component not followed. */
	if ((size_t)snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, base) >= sizeof(path))
		return -1;
	len = llistxattr(path, NULL, 0);
	if (len <= 0)
		return len == 0 || errno == ENOTSUP || errno == ENOENT ? 0 : -1;
	if (len > XATTR_LIST_MAX_BYTES)
		return -1;
	names = xmalloc((size_t)len + 1);
	len = llistxattr(path, names, (size_t)len);
	for (ssize_t i = 0; len > 0 && i < len; i += (ssize_t)strlen(names + i) + 1) {
		names[len] = '\0';
		/* A security label is the system's, not the file's: it stays. */
		if (!strncmp(names + i, "security.", 9) && strcmp(names + i, "security.capability"))
			continue;
		if (lremovexattr(path, names + i) == 0)
			removed++;
	}
	free(names);
	return len < 0 ? -1 : removed;
}

/* What evname_take_back() changed, for its note. */
struct take_back {
	size_t opened;    /* made readable (and a directory enterable) again */
	size_t cleared;   /* setuid, setgid, sticky or group/other-writable bits dropped */
	size_t stripped;  /* entries that had extended attributes (ACLs, capabilities, user.*) */
	mode_t keep;      /* the permission bits evidence keeps: 0700 when private */
	size_t failed;
	int first_err;
	char *first_failed;
};

static void take_back_one(struct take_back *t, int dirfd, const char *base, const char *name,
			  mode_t m)
{
	mode_t base_want = evname_mode(m), want = base_want & (t->keep | ~(mode_t)0777);

	t->stripped += evname_strip_xattrs(dirfd, base) > 0;
	if ((m & 07777) == want)
		return;
	/* AT_SYMLINK_NOFOLLOW: a name swapped for a link meanwhile is refused, not followed. */
	if (fchmodat(dirfd, base, want, AT_SYMLINK_NOFOLLOW) < 0) {
		if (!t->failed++) {
			t->first_err = errno;
			t->first_failed = xstrdup(name);
		}
		return;
	}
	/* What a private evidence closes is policy, not the run's doing: not counted. */
	if ((m & 07777 & ~base_want) != 0)
		t->cleared++;
	if ((want & ~m & 0700) != 0)
		t->opened++;
}

static enum tree_step take_back_entry(void *ctx, const struct tree_entry *e)
{
	struct take_back *t = ctx;
	mode_t m = e->st->st_mode;

	if (!S_ISDIR(m) && !S_ISREG(m))
		return TREE_NEXT;
	/*
	 * A file with a second name shares its mode with that name, which may
	 * be anywhere (a run's `ln /usr/bin/su`): the seal gives it an inode
	 * of its own first, and the copy a mode of its own.
	 */
	if (S_ISREG(m) && e->st->st_nlink > 1)
		return TREE_NEXT;
	take_back_one(t, e->dirfd, e->base, e->name, m);
	return S_ISDIR(m) ? TREE_DESCEND : TREE_NEXT;
}

/* What cannot be read even so, evname_tidy() and the manifest report. */
static enum tree_step take_back_failed(void *ctx, const char *name, const char *what, int err)
{
	(void)ctx;
	(void)name;
	(void)what;
	(void)err;
	return TREE_NEXT;
}

int evname_take_back(const struct dirat *root, const char *sub, int private_modes,
		     void (*note)(void *ctx, char *line), void *ctx)
{
	static const struct tree_ops ops = { take_back_entry, take_back_failed };
	struct take_back t = { 0, 0, 0, private_modes ? 0700 : 0777, 0, 0, NULL };
	struct stat st;
	const char *base;
	int pfd = dirat_parent(root, sub, &base), ret = -1;

	if (pfd < 0 || fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		error("cannot stat '%s/%s': %s", root->path, sub, strerror(errno));
		goto out;
	}
	/* The directory itself first: a run may have closed it to its owner too. */
	if (S_ISDIR(st.st_mode))
		take_back_one(&t, pfd, base, sub, st.st_mode);
	if (tree_walk_at(root, sub, &ops, &t) < 0)
		goto out;
	if (t.opened || t.cleared)
		note(ctx, xasprintf("%s: the run left %zu entr%s its owner could not read, enter "
				    "or change, and %zu with setuid, setgid, sticky or "
				    "group/other-writable bits: abev set their modes to what "
				    "evidence keeps (u+rw files, u+rwx directories, nothing "
				    "else added)", sub, t.opened, t.opened == 1 ? "y" : "ies",
				    t.cleared));
	if (t.stripped)
		note(ctx, xasprintf("%s: the run left %zu entr%s with extended attributes (ACLs, "
				    "file capabilities, user.* attributes): abev removed them, since "
				    "evidence holds bytes and modes only", sub, t.stripped,
				    t.stripped == 1 ? "y" : "ies"));
	if (t.failed) {
		char *shown = evname_printable(t.first_failed, strlen(t.first_failed));
		note(ctx, xasprintf("%s: abev could not set the mode of %zu entr%s (the first, "
				    "'%s': %s)", sub, t.failed, t.failed == 1 ? "y" : "ies", shown,
				    strerror(t.first_err)));
		free(shown);
	}
	ret = (int)(t.opened + t.cleared);
out:
	if (pfd >= 0)
		close(pfd);
	free(t.first_failed);
	return ret;
}

/* A safe form of one name component: offending bytes become '_', cut to fit. */
char *evname_safe_component(const char *name)
{
	size_t n = strlen(name);
	char *s;
	if (n > 200)
		n = 200;
	s = xstrndup(name, n);
	for (char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c == 0x7f || c == ')' || c == '\\' || c == '/')
			*p = '_';
	}
	if (!*s || !strcmp(s, ".") || !strcmp(s, "..")) {
		free(s);
		s = xstrdup("_");
	}
	return s;
}

int evname_tidy(const struct dirat *root, const char *sub,
		void (*note)(void *ctx, char *line), void *ctx)
{
	static const struct tree_ops ops = { tidy_entry, tidy_failed };
	struct dirat dir = DIRAT_INIT;
	struct tidy t = { NULL, 0, 0, EVIDENCE_MAX_DEPTH, 0 };
	int ret = -1;

	/* The manifest holds directories up to EVIDENCE_MAX_DEPTH below the evidence root. */
	for (const char *p = sub; *p; p++)
		t.max_depth -= *p == '/';
	/* sub's own components: none for the root itself. */
	if (*sub && strcmp(sub, ".")) {
		t.max_depth--;
		t.prefix = strlen(sub) + 1;
	}

	if (dirat_sub(root, sub, &dir) < 0) {
		error("cannot open directory '%s/%s': %s", root->path, sub, strerror(errno));
		goto out;
	}
	if (tree_walk_at(&dir, "", &ops, &t) < 0)
		goto out;
	/* Deepest first, so that renaming a directory leaves the paths below it valid until then. */
	for (size_t k = t.n; k-- > 0;) {
		struct tidy_item *it = &t.v[k];
		char *path = path_join(dir.path, it->name);
		char *shown = evname_printable(it->name, strlen(it->name));
		if (it->remove == 3) {
			char *rel = NULL;
			struct stat st;

			for (unsigned i = 1; i < 100000; i++) {
				free(rel);
				rel = xasprintf("long-path-%u", i);
				if (dirat_lstat(&dir, rel, &st) < 0)
					break;
			}
			if (dirat_rename(&dir, it->name, rel) < 0) {
				error("cannot move '%s' up: %s", path, strerror(errno));
				free(rel);
				free(path);
				free(shown);
				goto out;
			}
			note(ctx, xasprintf("%s/%.300s%s: its path is longer than %d bytes, which no "
					    "manifest line holds (signify reads at most %d): moved to "
					    "'%s/%s'", sub, shown, strlen(shown) > 300 ? "…" : "",
					    EVIDENCE_NAME_MAX, EVIDENCE_NAME_MAX, sub, rel));
			free(rel);
		} else if (it->remove == 2) {
			const char *base;
			size_t nfiles = 0, ndirs = 0;
			int pfd = dirat_parent(&dir, it->name, &base);
			if (pfd < 0 || trim_tree(pfd, base, &nfiles, &ndirs) < 0) {
				if (errno == EXDEV)
					error("cannot remove '%s': a directory of it was moved out of "
					      "the run's tree while abev removed it; abev stopped there "
					      "and removed nothing outside it", path);
				else
					error("cannot remove '%s': %s", path, strerror(errno));
				if (pfd >= 0)
					close(pfd);
				free(path);
				free(shown);
				goto out;
			}
			close(pfd);
			note(ctx, xasprintf("%s/%s: nested deeper than %d directories below the "
					    "evidence root, which a manifest holds: removed with the "
					    "%zu file(s) and %zu director(ies) under it, so that the "
					    "evidence can be sealed", sub, shown, EVIDENCE_MAX_DEPTH,
					    nfiles, ndirs - 1));
		} else if (it->remove) {
			if (dirat_unlink(&dir, it->name, 0) < 0) {
				error("cannot remove '%s': %s", path, strerror(errno));
				free(path);
				free(shown);
				goto out;
			}
			if (it->target) {
				char *tgt = evname_printable(it->target, strlen(it->target));
				note(ctx, xasprintf("%s/%s: a symlink to '%s' left by the run was removed "
						    "(evidence holds only regular files)", sub, shown, tgt));
				free(tgt);
			} else {
				note(ctx, xasprintf("%s/%s: a %s left by the run was removed (evidence "
						    "holds only regular files)", sub, shown, it->kind));
			}
		} else {
			const char *slash = strrchr(it->name, '/');
			size_t plen = slash ? (size_t)(slash - it->name) + 1 : 0;
			char *safe = evname_safe_component(slash ? slash + 1 : it->name), *rel = NULL;
			struct stat st;
			for (unsigned i = 1; i < 1000; i++) {
				free(rel);
				rel = i == 1 ? xasprintf("%.*s%s", (int)plen, it->name, safe)
					     : xasprintf("%.*s%s-%u", (int)plen, it->name, safe, i);
				if (dirat_lstat(&dir, rel, &st) < 0)
					break;
			}
			if (dirat_rename(&dir, it->name, rel) < 0) {
				error("cannot rename '%s': %s", path, strerror(errno));
				free(safe);
				free(rel);
				free(path);
				free(shown);
				goto out;
			}
			note(ctx, xasprintf("%s/%s: renamed to '%s/%s': its name cannot be listed in "
					    EVIDENCE_MANIFEST_FILE, sub, shown, sub, rel));
			free(safe);
			free(rel);
		}
		free(path);
		free(shown);
	}
	ret = (int)t.n;
out:
	for (size_t k = 0; k < t.n; k++) {
		free(t.v[k].name);
		free(t.v[k].target);
	}
	free(t.v);
	dirat_release(&dir);
	return ret;
}
