/*
 * cgroup: a cgroup v2 group of its own for each invocation, where the machine has a
 * writable cgroup v2 hierarchy: whole-tree memory peak and CPU time, and
 * cgroup.kill for processes the run left behind. Where there is none,
 * cgroup_create() fails softly and says why, and the runner records null
 * with that reason. A group is named abev-<pid>-<name> after the abev
 * process that made it, so that a later run can tell a stale one.
 */
#ifndef ABEV_CGROUP_H
#define ABEV_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

struct cgroup {
	char *path;        /* absolute directory, NULL when not created */
	int64_t cpu_base_ns;  /* cpu.stat usage when it was handed out again, else 0 */
	int killed;           /* cgroup.kill was written: never handed out again */
};
#define CGROUP_INIT { NULL, 0, 0 }

struct cgroup_stats {
	int64_t memory_peak_bytes;  /* -1 when memory.peak is unavailable */
	int64_t cpu_usage_ns;       /* -1 when cpu.stat is unavailable */
};

/*
 * Creates a fresh group named `name` under abev's own cgroup, or hands
 * out again the one cgroup_done() kept (empty, see there). Returns 0,
 * or -1 with a one-line reason in *reason (caller frees) and no message
 * printed: the absence of cgroups is a fact to record, not an error.
 */
int cgroup_create(struct cgroup *cg, const char *name, char **reason);
/* Moves pid into the group. 0, or -1 with *reason set (caller frees). */
int cgroup_add(struct cgroup *cg, pid_t pid, char **reason);
/*
 * Reads the figures; fields that cannot be read are -1. The CPU time is
 * what the group used since cgroup_create() handed it out.
 */
void cgroup_read(const struct cgroup *cg, struct cgroup_stats *st);
/*
 * The group's cpu.pressure "some total" (microseconds during which a task
 * of the group was runnable but waiting for a CPU), or -1 when there is no
 * group or no pressure file (kernel < 4.20, psi=0). The file exists in
 * every cgroup v2 group, whether or not the cpu controller is enabled.
 */
int64_t cgroup_cpu_pressure_us(const struct cgroup *cg);
/* Notes why memory_peak_bytes is -1 (static string) or NULL. */
const char *cgroup_memory_note(const struct cgroup *cg);
/*
 * Fills pids with at most max pids listed in the group's cgroup.procs and
 * returns how many, or -1 when there is no group or it cannot be read.
 */
int cgroup_pids(const struct cgroup *cg, pid_t *pids, int max);
/*
 * Kills every process still in the group (cgroup.kill, else SIGKILL to
 * each pid of cgroup.procs) and returns how many were found, or -1.
 */
int cgroup_kill_all(struct cgroup *cg);
/*
 * Removes the groups "abev-<pid>-*" beside abev's own whose owner process
 * is gone (an abev killed with SIGKILL leaves them), killing whatever they
 * still hold. Returns how many were removed; failures are silent, as for
 * every cgroup operation.
 */
int cgroup_remove_stale(void);
/*
 * Kills what the groups "abev-<owner>-*" hold and removes them, whether
 * or not owner is alive (abev's watchdog, once abev is gone). Returns how
 * many were removed; failures are silent.
 */
int cgroup_remove_owned(pid_t owner);
/* Removes the directory (retrying briefly while it empties) and frees. */
void cgroup_release(struct cgroup *cg);
/*
 * The end of a command's use of its group; empty: cgroup_kill_all()
 * found no process left in it. Where the group gives no memory peak
 * (memory.peak absent: no memory controller, or a kernel before 5.19) an
 * empty group is kept for the next command rather than removed and made
 * again (two directory operations of the kernel's per invocation): its
 * CPU time is then counted from where it stood, its pressure is read as
 * a difference anyway, and nothing of the last command can be in it. A
 * group cgroup.kill was written to is removed all the same: a kernel may
 * kill a process born into it later (clone3() with CLONE_INTO_CGROUP
 * compares the group's count of kills from before the child was made).
 * Where there is a memory peak, every command gets a fresh group, whose
 * peak is its own. Otherwise as cgroup_release(). The kept group is
 * removed when abev exits.
 */
void cgroup_done(struct cgroup *cg, int empty);

#endif
