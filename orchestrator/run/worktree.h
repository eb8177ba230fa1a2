/*
 * worktree: the git checkouts that `abev init --dotnet --baseline REF
 * --candidate REF` gives each variant, so that two builds of one project
 * never share an output folder: the top of the work tree a directory is
 * in, a ref resolved to its commit, whether a directory is in a commit,
 * and a detached `git worktree` made, or one already there reused. git
 * runs through proc_run() (call proc_setup() first) with argv built here,
 * never through a shell. It neither decides where the worktrees go nor
 * writes a plan: cli_run.c and quick.c do.
 */
#ifndef ABEV_WORKTREE_H
#define ABEV_WORKTREE_H

/* What became of a request; every outcome but WORKTREE_OK comes after error(). */
enum worktree_status {
	WORKTREE_OK,
	WORKTREE_REFUSED,  /* the input: not a work tree, an unknown ref, a directory taken */
	WORKTREE_FAILED,   /* git could not be run, was stopped, or could not make one */
};

/* The top of the git work tree dir is in, absolute, into *top (caller frees). */
enum worktree_status worktree_top(const char *dir, char **top);
/*
 * ref, resolved in the repository at top (`git rev-parse --verify
 * --end-of-options REF^{commit}`), as a full commit id into *commit
 * (caller frees). A ref that is empty or begins with '-' is refused
 * before git sees it; what names it in messages (the option, e.g.
 * "--baseline").
 */
enum worktree_status worktree_commit(const char *top, const char *what, const char *ref,
				     char **commit);
/* REFUSED unless path (relative to the repository's top) is a directory of commit. */
enum worktree_status worktree_has_dir(const char *top, const char *commit, const char *path);
/*
 * Whether dir can be the worktree of commit, looked at only: free (it does
 * not exist; *there cleared), or a worktree of top's repository at that
 * commit already (*there set, to be reused). Anything else at dir is
 * refused. Check every directory before making any, so that a refusal
 * leaves nothing made.
 */
enum worktree_status worktree_check(const char *top, const char *dir, const char *commit,
				    int *there);
/* Makes dir (and its missing parents) a detached worktree of top's repository at commit. */
enum worktree_status worktree_add(const char *top, const char *dir, const char *commit);

#endif
