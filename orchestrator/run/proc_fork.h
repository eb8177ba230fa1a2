/*
 * proc_fork: starting a child costs the same however large abev has grown.
 * fork() copies the page tables of every anonymous page abev holds — its
 * heap grows with a run, a few KiB per invocation, and each library abev
 * links has pages its relocations wrote (libcrypto alone about 400 KiB) —
 * and the child's peak RSS (ru_maxrss) starts from that copy. So the
 * child is forked without abev's heap and without the libraries it does
 * not run (MADV_DONTFORK across the fork, with malloc keeping what abev
 * allocates on the heap), and what the child reads between fork() and
 * execve() is first copied into a mapping of its own. Internal to proc.
 */
#ifndef ABEV_PROC_FORK_H
#define ABEV_PROC_FORK_H

#include <stddef.h>

struct proc_user;

/* What child_main() (proc_spawn.c) reads, outside abev's heap. */
struct fork_copy {
	void *base;
	size_t size;
	char **argv, **envp, **cands;
	char *cwd;                    /* NULL: none */
	struct proc_user *user;       /* NULL: none */
};
#define FORK_COPY_INIT { NULL, 0, NULL, NULL, NULL, NULL, NULL }

/*
 * Copies the NULL-terminated argv, envp and cands, cwd and user (each may
 * be NULL where the child needs none) into one private mapping. 0, or -1
 * after error().
 */
int proc_fork_copy_make(struct fork_copy *fc, const char *const *argv, const char *const *envp,
			const char *const *cands, const char *cwd, const struct proc_user *user);
/* Unmaps the copy (the parent's, after the fork). A second call does nothing. */
void proc_fork_copy_release(struct fork_copy *fc);

/*
 * Once, before the first fork: malloc keeps allocations below 32 MiB on
 * the heap (brk), where proc_fork_heap_withhold() can find them.
 */
void proc_fork_heap_setup(void);
/*
 * on: the heap and the libraries the child does not run are not copied
 * into a child forked from now on — called before each child's clone3()
 * (the libraries are marked at the first call and stay so; the heap is
 * given back after each child); off: they are copied again, before any plain
 * fork() of abev (which runs the C library's fork handlers in the child,
 * and they need both).
 */
void proc_fork_heap_withhold(int on);
/*
 * The heap copied again after a child's clone3(), the libraries still
 * withheld: around each child, so that the heap stays one mapping.
 */
void proc_fork_heap_give_back(void);
/*
 * How many libraries proc_fork_heap_withhold() withholds with the heap: 0 when
 * abev was not linked with -z now, or one of the child's calls has no
 * object dladdr() knows.
 */
size_t proc_fork_libs_withheld(void);
/* Whether p lies in the heap proc_fork_heap_withhold() withholds (not so under a sanitizer's malloc). */
int proc_fork_heap_holds(const void *p);

#endif
