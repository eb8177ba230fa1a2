/*
 * tree: walks a directory the way evidence must be read — lstat() only, so
 * a symlink is reported and never followed; names relative to the root
 * and '/'-separated; directories entered only when the caller says so —
 * and hands every entry to a callback that applies its module's policy
 * (manifest_build refuses what verify_path reports as a problem). It does
 * not hash, sort or judge names.
 */
#ifndef ABEV_TREE_H
#define ABEV_TREE_H

#include <sys/stat.h>

struct tree_entry {
	const char *name;        /* relative to the root, '/'-separated */
	const char *base;        /* the last component of name */
	const char *path;        /* the root joined with name: for messages */
	int dirfd;               /* the directory that holds it: base is reached from here */
	const struct stat *st;   /* from lstat() */
	int depth;               /* 0 for the root's own entries */
};

enum tree_step {
	TREE_NEXT,     /* go on (a directory is not entered) */
	TREE_DESCEND,  /* enter this directory, then go on */
	TREE_STOP,     /* stop the walk: tree_walk() returns -1 */
};

struct tree_ops {
	/* Called for every entry except "." and "..", in readdir order. */
	enum tree_step (*entry)(void *ctx, const struct tree_entry *e);
	/*
	 * Called when a directory below the root cannot be read, or an entry
	 * cannot be stat'ed: name is the directory or the entry, what says
	 * which ("cannot read directory", "cannot stat"), err is the errno.
	 * TREE_NEXT goes on, TREE_STOP stops.
	 */
	enum tree_step (*failed)(void *ctx, const char *name, const char *what, int err);
};

/*
 * Walks root. Returns 0, or -1 when the root cannot be opened (after
 * error()) or a callback said TREE_STOP.
 */
int tree_walk(const char *root, const struct tree_ops *ops, void *ctx);

struct dirat;
/*
 * Walks rel beneath d (dirat.h: no link followed on the way to it either).
 * Names are relative to rel; path is d's path joined with rel and name.
 */
int tree_walk_at(const struct dirat *d, const char *rel, const struct tree_ops *ops, void *ctx);

/* A word for what a non-regular, non-directory file is: "symlink", "device", ... */
const char *tree_kind(mode_t mode);

#endif
