/*
 * tree: one careful directory walk for the modules that read evidence
 * from disk (seal, bundle, verify). Entries are lstat()ed, never followed;
 * what to do with a link, a device or an unsafe name is the caller's
 * decision, taken in its callback.
 */
#define _POSIX_C_SOURCE 200809L
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

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

static int walk(const char *root, const char *rel, int depth, const struct tree_ops *ops,
		void *ctx)
{
	char *dirpath = rel[0] ? path_join(root, rel) : xstrdup(root);
	DIR *d = opendir(dirpath);
	int ret = -1;

	if (!d) {
		if (!rel[0])
			error("cannot open directory '%s': %s", root, strerror(errno));
		else if (ops->failed(ctx, rel, "cannot read directory", errno) != TREE_STOP)
			ret = 0;
		goto out;
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
		if (lstat(full, &st) < 0) {
			step = ops->failed(ctx, name, "cannot stat", errno);
		} else {
			e.name = name;
			e.path = full;
			e.st = &st;
			e.depth = depth;
			step = ops->entry(ctx, &e);
			if (step == TREE_DESCEND && S_ISDIR(st.st_mode) &&
			    walk(root, name, depth + 1, ops, ctx) < 0)
				step = TREE_STOP;
		}
		free(full);
		free(name);
		if (step == TREE_STOP)
			goto out;
	}
	ret = 0;
out:
	if (d && closedir(d) < 0 && ret == 0)
		ret = error("cannot close directory '%s': %s", dirpath, strerror(errno));
	free(dirpath);
	return ret;
}

int tree_walk(const char *root, const struct tree_ops *ops, void *ctx)
{
	return walk(root, "", 0, ops, ctx);
}
