/*
 * proctree: each process of a run's tree with its own figures
 * (record/proc_tree.h), where wait4() gives only the tree's largest peak
 * RSS and its summed CPU time.
 *
 * Two sources. The kernel's taskstats exit records (generic netlink
 * family "TASKSTATS", a listener registered for every CPU): one record
 * per exiting thread with its command name, pid, thread group, parent,
 * the process's peak RSS, the thread's CPU time and, with delay
 * accounting on (kernel.task_delayacct), its run-queue wait. Registering
 * needs CAP_NET_ADMIN in the initial namespaces; records come for every
 * task of the machine, and those of the run's tree are found by their
 * parents when the run is over. Without taskstats (or with
 * ABEV_TASKSTATS=0), /proc: every process of the tree read at each tick
 * and once more at the root's exit (its comm, parent and CPU time from
 * stat, VmHWM from status, its command line, and the run_delay of its
 * threads from taskdelay's reading), keeping each process's last values;
 * a process that lives less than a tick is missed. proc_tree.note says
 * which limits apply.
 *
 * The buffers are bounded (PROCTREE_MAX_EXITS records, PROCTREE_MAX_SEEN
 * processes; past them counted and noted), and the list handed out keeps
 * PROC_TREE_MAX processes, those with the most CPU time. The merge
 * (proctree_finish()) and the parsing are pure and tested on constructed
 * records.
 */
#ifndef ABEV_PROCTREE_H
#define ABEV_PROCTREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/proc_tree.h"

#define PROCTREE_MAX_EXITS 65536
#define PROCTREE_MAX_SEEN 4096
/* The environment variable that turns taskstats off ("0"), for tests and comparisons. */
#define PROCTREE_TASKSTATS_ENV "ABEV_TASKSTATS"

/* One thread's exit record. */
struct proctree_exit {
	pid_t pid, tgid, ppid;
	char comm[16];
	int64_t rss_kib;        /* the process's peak RSS when the thread exited */
	int64_t cpu_us;         /* the thread's user + system time */
	int64_t wait_ns;        /* the thread's run-queue wait; -1 without delay accounting */
};

/* One process as /proc showed it at its last reading. */
struct proctree_seen {
	pid_t pid, ppid;
	unsigned long long start;   /* clock ticks after boot: tells a reused pid apart */
	char comm[16];
	char *cmdline;              /* owned; NULL until read */
	int64_t rss_kib;            /* -1: not read */
	int64_t cpu_ns;
	int64_t wait_ns;            /* the largest sum of its threads' run_delay read; -1 */
};

struct proctree {
	int fd;                     /* the listener's taskstats socket (borrowed), or -1 */
	uint16_t family;
	const char *why_not;        /* why no taskstats (static), or NULL */
	int delayacct;              /* exit records carry the run-queue wait */
	struct proctree_exit *x;
	size_t nx, xalloc;
	unsigned x_lost;            /* records past PROCTREE_MAX_EXITS or dropped by the kernel */
	struct proctree_seen *s;
	size_t ns, salloc;
	unsigned s_over;            /* processes past PROCTREE_MAX_SEEN */
	unsigned readings;
};
#define PROCTREE_INIT { -1, 0, NULL, 0, NULL, 0, 0, 0, NULL, 0, 0, 0, 0 }

/*
 * Before the child is started: borrows the listener for exit records,
 * registering it at the first call (or sets why_not, the first call's
 * reason, for every run: a message to the user is not printed, the
 * evidence says it). The listener stays registered from run to run; the
 * records of the machine's exits between two runs are thrown away here,
 * at most PROCTREE_DISCARD_MAX of them, and a loss among them is not this
 * run's.
 */
void proctree_start(struct proctree *pt);
#define PROCTREE_DISCARD_MAX 65536
/* Deregisters and closes the listener (at exit, or earlier); runs after it have no taskstats. */
void proctree_listen_stop(void);
/*
 * For the unit tests: fd (owned from now on; a datagram socket the test
 * writes netlink messages into) becomes the listener, registered for
 * family on the CPUs mask, its records carrying the run-queue wait when
 * delayacct.
 */
void proctree_listen_on(int fd, uint16_t family, const char *mask, int delayacct);
/* The descriptor to poll for records, or -1. */
int proctree_fd(const struct proctree *pt);
/* Reads the records waiting (never blocks). */
void proctree_drain(struct proctree *pt);
/*
 * taskdelay's reading of the tree calls this for each process it read,
 * with the sum of its threads' run_delay in that reading (-1: none).
 */
void proctree_sample(struct proctree *pt, pid_t pid, int64_t threads_wait_ns);
/*
 * Once the tree is gone (leftovers reaped): the processes of root's tree
 * (root, and every process whose parent is in it or is self, abev the
 * subreaper) into *out (initialised here). The listener stays registered.
 */
void proctree_finish(struct proctree *pt, pid_t root, pid_t self, struct proc_tree *out);
void proctree_release(struct proctree *pt);

/* Pure parts, for the unit tests. */
/* Parses the netlink messages in buf (a recv()), keeping exit records. */
void proctree_parse(struct proctree *pt, const void *buf, size_t len);
void proctree_note_exit(struct proctree *pt, const struct proctree_exit *e);
/*
 * A /proc/PID/stat line: comm, ppid, utime + stime (ticks), start. 0 or
 * -1 when it does not parse.
 */
int proctree_parse_stat(const char *text, char comm[16], pid_t *ppid,
			unsigned long long *ticks, unsigned long long *start);
/* Notes one reading of a process (pure): a pid with a new start is a new process. */
struct proctree_seen *proctree_note_seen(struct proctree *pt, pid_t pid, pid_t ppid,
					 unsigned long long start, const char *comm);

#endif
