/*
 * taskdelay: how much wall time a run's process tree lost waiting for a
 * CPU, from the kernel's per-task counters (/proc/PID/task/TID/schedstat:
 * the CPU time a thread ran, and the time it was runnable but waited,
 * "run_delay"). proc reads every thread of the tree at each tick and once
 * more when the child has exited; each thread keeps its last reading, so a
 * thread that ended between two readings counts to its last one, and the
 * tree's CPU time by wait4() beyond the readings' is extrapolated (below).
 *
 * Combining threads into one figure (docs/plan.md, Contention): each thread's
 * share of its active time spent waiting, s = wait / (cpu + wait), is
 * averaged with the thread's CPU time as weight (the threads that did the
 * work count), and applied to the tree's active time, at most the wall:
 *
 *     lost = (sum cpu_i * s_i / sum cpu_i) * min(wall, sum (cpu_i + wait_i))
 *
 * Exact for one thread (sleeping or not), for single-threaded processes
 * run one after another with the same share, and for threads running side
 * by side with the same share. Where a runtime's threads also wait on each
 * other (a CLR's thread pool on fewer CPUs than threads), that wait is in
 * too: the caller bounds the figure by the CPU time other processes used.
 *
 * The arithmetic (taskdelay_note(), taskdelay_lost()) is pure and tested
 * on scripted readings; taskdelay_sample() reads /proc.
 */
#ifndef ABEV_TASKDELAY_H
#define ABEV_TASKDELAY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proctree;

struct taskdelay_thread {
	pid_t tid;
	int64_t cpu_ns;    /* sum_exec_runtime at the last reading */
	int64_t wait_ns;   /* run_delay at the last reading */
};

struct taskdelay {
	struct taskdelay_thread *t;  /* sorted by tid */
	size_t n, alloc;
	/* Threads whose tid was taken again by a new thread, folded in. */
	double ended_cpu_ns, ended_weighted_ns, ended_active_ns;
	unsigned ended;
	unsigned samples;    /* readings of the tree taken */
	int truncated;       /* a reading stopped at a bound (threads, processes) */
	/* Borrowed, or NULL: told of each process read, with its threads' run_delay. */
	struct proctree *procs;
};
#define TASKDELAY_INIT { NULL, 0, 0, 0, 0, 0, 0, 0, 0, NULL }

/* Records one thread's counters (pure). A tid whose counters went back is a new thread. */
void taskdelay_note(struct taskdelay *td, pid_t tid, int64_t cpu_ns, int64_t wait_ns);
/*
 * Reads every thread of root's tree: root, its descendants through
 * /proc/PID/task/TID/children, and abev's own children in root's process
 * group (orphans abev reaped as subreaper). Quiet on failure: a process
 * that ended meanwhile is skipped.
 */
void taskdelay_sample(struct taskdelay *td, pid_t root);
/*
 * The wall time lost (ns, formula above), or -1 when no thread was read.
 * tree_cpu_ns (-1: unknown) is the tree's CPU time by wait4(), which also
 * counts what the readings missed: the end of a thread that ended between
 * two readings (a child its parent reaped), a process that lived less
 * than a tick. The missed CPU time m is counted as having waited like the
 * rest: it adds m * s to the weighted sum and m / (1 - s) to the active
 * time, s = sum cpu_i * s_i / sum cpu_i, so the share stays s.
 */
int64_t taskdelay_lost(const struct taskdelay *td, int64_t wall_ns, int64_t tree_cpu_ns);
/*
 * The threads' active time, sum (cpu_i + wait_i) in ns (ended threads
 * and, with tree_cpu_ns, what the readings missed included), or -1 when
 * no thread was read. Over the wall time it is how many of the tree's
 * threads were runnable at once, on average.
 */
int64_t taskdelay_active(const struct taskdelay *td, int64_t tree_cpu_ns);
/* Threads read in all (ended ones included). */
unsigned taskdelay_threads(const struct taskdelay *td);
void taskdelay_release(struct taskdelay *td);

#endif
