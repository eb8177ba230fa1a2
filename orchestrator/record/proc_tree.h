/*
 * proc_tree: the processes of one run's tree, each with its own figures
 * (command name, pid, parent, peak RSS, CPU time, run-queue wait), as
 * proc gathers them (measure/proctree.h says from where), the invocation
 * record keeps them and a metric with a "process" glob reads them. Plain
 * data, the glob's match and release; no I/O.
 */
#ifndef ABEV_PROC_TREE_H
#define ABEV_PROC_TREE_H

#include <stddef.h>
#include <stdint.h>

/* Processes recorded per run; the rest are counted in proc_tree.omitted. */
#define PROC_TREE_MAX 64
/* Bytes of a process's command line kept. */
#define PROC_TREE_CMDLINE_MAX 2048
/* What parts a command line's arguments in proc_tree_proc.cmdline (result.json shows a space). */
#define PROC_TREE_ARG_SEP '\x1f'

struct proc_tree_proc {
	char *comm;              /* the kernel's command name (15 bytes at most), as UTF-8 */
	char *cmdline;           /* its arguments apart by PROC_TREE_ARG_SEP, as /proc showed them while it ran; NULL: never seen */
	long pid, ppid;
	int64_t peak_rss_bytes;  /* -1: unknown */
	int64_t cpu_ns;          /* user + system, its threads together; -1: unknown */
	int64_t wait_ns;         /* runnable but not running, its threads together; -1: unknown */
	const char *source;      /* "taskstats" (its exit record) or "proc" (sampled); static */
};

struct proc_tree {
	struct proc_tree_proc *p;   /* in the order the processes started (by pid within a reading) */
	size_t n, alloc;
	unsigned omitted;           /* processes of the tree past PROC_TREE_MAX */
	const char *source;         /* "taskstats", "proc" or NULL (none recorded); static */
	char *note;                 /* what the figures leave out, or why there are none; or NULL */
};
#define PROC_TREE_INIT { NULL, 0, 0, 0, NULL, NULL }

/* Appends one process (strings copied; NULL cmdline allowed), or counts it past PROC_TREE_MAX. */
struct proc_tree_proc *proc_tree_add(struct proc_tree *t, const char *comm, const char *cmdline,
				     long pid, long ppid);
/*
 * Whether glob (fnmatch) names process p: its command name, or the last
 * path component of one of its arguments that holds no space
 * ("testhost*" finds `dotnet exec … testhost.dll`, whose command name is
 * "dotnet", and not `sh -c "testhost …"`).
 */
int proc_tree_matches(const struct proc_tree_proc *p, const char *glob);
/*
 * Whether process i of t started, itself or through its descendants in
 * t, another process that glob names: a launcher of the named process,
 * such as the test host controller Microsoft.Testing.Platform runs under
 * the test program's own name to watch the test host, its child.
 */
int proc_tree_starts_named(const struct proc_tree *t, size_t i, const char *glob);
/* dst (initialised here) becomes a copy of src. */
void proc_tree_copy(struct proc_tree *dst, const struct proc_tree *src);
void proc_tree_release(struct proc_tree *t);

#endif
