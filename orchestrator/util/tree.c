/*
 * tree: one careful directory walk for the modules that read evidence
 * from disk (seal, bundle, verify). Entries are lstat()ed, never followed;
 * what to do with a link, a device or an unsafe name is the caller's
 * decision, taken in its callback.
 */
#include "util/tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "util/dirat.h"
#include "util/alloc.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"

static int descend(const char *root, int parent, const char *base, const char *name,
		   const struct stat *st, int depth, const struct tree_ops *ops, void *ctx);

const char *tree_kind(mode_t mode)
{
	if (S_ISLNK(mode))
		return "symlink";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "device";
	if (S_ISFIFO(mode))
		return "FIFO";
	if (S_ISSOCK(mode))
		return "socket";
	if (S_ISDIR(mode))
		return "directory";
	if (S_ISREG(mode))
		return "regular file";
	return "special file";
}

/*
 * Walks the directory open as dfd (its name rel, "" for the root): every
 * entry lstat()ed through dfd, every directory entered through a
 * descriptor opened with O_NOFOLLOW and checked to be the one that was
 * stat'ed, so that a directory swapped for a link meanwhile is never
 * followed. Takes dfd over and closes it.
 */
static int walk(const char *root, int dfd, const char *rel, int depth, const struct tree_ops *ops,
		void *ctx)
{
	DIR *d = fdopendir(dfd);
	int ret = -1;

	if (!d) {
		close(dfd);
		if (!rel[0])
			error("cannot open directory '%s': %s", root, strerror(errno));
		else if (ops->failed(ctx, rel, "cannot read directory", errno) != TREE_STOP)
			ret = 0;
		return ret;
	}
	for (;;) {
		struct dirent *de;
		struct stat st;
		struct tree_entry e;
		enum tree_step step;
		char *name, *full;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno && ops->failed(ctx, rel[0] ? rel : ".", "cannot read directory",
						 errno) == TREE_STOP)
				goto out;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		name = rel[0] ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		full = path_join(root, name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			step = ops->failed(ctx, name, "cannot stat", errno);
		} else {
			e.name = name;
			e.base = de->d_name;
			e.path = full;
			e.dirfd = dirfd(d);
			e.st = &st;
			e.depth = depth;
			step = ops->entry(ctx, &e);
			if (step == TREE_DESCEND && S_ISDIR(st.st_mode) &&
			    descend(root, dirfd(d), de->d_name, name, &st, depth, ops, ctx) < 0)
				step = TREE_STOP;
		}
		free(full);
		free(name);
		if (step == TREE_STOP)
			goto out;
	}
	ret = 0;
out:
	if (closedir(d) < 0 && ret == 0)
		ret = error("cannot close directory '%s%s%s': %s", root, rel[0] ? "/" : "", rel,
			    strerror(errno));
	return ret;
}

static int descend(const char *root, int parent, const char *base, const char *name,
		   const struct stat *st, int depth, const struct tree_ops *ops, void *ctx)
{
	struct stat now;
	int fd = openat(parent, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return ops->failed(ctx, name, "cannot read directory", errno) == TREE_STOP ? -1 : 0;
	if (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return ops->failed(ctx, name, "cannot read directory", ESTALE) == TREE_STOP ? -1
											  : 0;
	}
	return walk(root, fd, name, depth + 1, ops, ctx);
}

int tree_walk(const char *root, const struct tree_ops *ops, void *ctx)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return error("cannot open directory '%s': %s", root, strerror(errno));
	return walk(root, fd, "", 0, ops, ctx);
}

int tree_walk_at(const struct dirat *d, const char *rel, const struct tree_ops *ops, void *ctx)
{
	struct dirat sub = DIRAT_INIT;
	int fd, ret;

	if (dirat_sub(d, rel, &sub) < 0)
		return error("cannot open directory '%s/%s': %s", d->path, rel,
			     errno == ELOOP || errno == ENOTDIR ? "not a directory abev made" : strerror(errno));
	fd = sub.fd;
	sub.fd = -1;
	ret = walk(sub.path, fd, "", 0, ops, ctx);
	dirat_release(&sub);
	return ret;
}
