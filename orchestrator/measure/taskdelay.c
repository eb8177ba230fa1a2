/*
 * taskdelay: the per-thread CPU and run-queue counters of a run's process
 * tree, and the wall time they say it lost waiting for a CPU (the formula
 * and where it is exact: taskdelay.h). It reads /proc only; when to read
 * is proc's, and judging the figure against other processes' CPU time is
 * the caller's.
 */
#include "measure/taskdelay.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/proctree.h"
#include "measure/sysstat.h"
#include "util/alloc.h"
#include "util/readfile.h"

/* Bounds on one reading of the tree: its processes, and threads per process. */
#define TASKDELAY_MAX_PROCS 4096
#define TASKDELAY_MAX_THREADS 65536
/* A children file read at most (pids of about 1,000 children). */
#define CHILDREN_READ_MAX 8192

/* Index of tid in td->t, or where it goes (sorted), with *found. */
static size_t find_thread(const struct taskdelay *td, pid_t tid, int *found)
{
	size_t lo = 0, hi = td->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (td->t[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < td->n && td->t[lo].tid == tid;
	return lo;
}

/* A thread's part of the three sums of the formula. */
static void thread_sums(const struct taskdelay_thread *t, double *cpu, double *weighted,
			double *active)
{
	double c = (double)t->cpu_ns, w = (double)t->wait_ns;

	*cpu = c;
	*active = c + w;
	*weighted = c + w > 0 ? c * w / (c + w) : 0;
}

void taskdelay_note(struct taskdelay *td, pid_t tid, int64_t cpu_ns, int64_t wait_ns)
{
	int found;
	size_t i;

	if (cpu_ns < 0 || wait_ns < 0)
		return;
	i = find_thread(td, tid, &found);
	if (found) {
		struct taskdelay_thread *t = &td->t[i];
		if (cpu_ns < t->cpu_ns || wait_ns < t->wait_ns) {
			/* Counters only grow: the tid belongs to a new thread now. */
			double c, w, a;
			thread_sums(t, &c, &w, &a);
			td->ended_cpu_ns += c;
			td->ended_weighted_ns += w;
			td->ended_active_ns += a;
			td->ended++;
		}
		t->cpu_ns = cpu_ns;
		t->wait_ns = wait_ns;
		return;
	}
	ALLOC_GROW(td->t, td->n + 1, td->alloc);
	memmove(&td->t[i + 1], &td->t[i], (td->n - i) * sizeof(*td->t));
	td->t[i] = (struct taskdelay_thread){ .tid = tid, .cpu_ns = cpu_ns, .wait_ns = wait_ns };
	td->n++;
}

/*
 * A share of waiting past which the time the readings missed is not
 * extrapolated further: m / (1 - s) grows without bound as s nears 1.
 */
#define MISSED_SHARE_MAX 0.99

/* The three sums of the formula over every thread, and what the readings missed (taskdelay.h). */
static void tree_sums(const struct taskdelay *td, int64_t tree_cpu_ns, double *cpu,
		      double *weighted, double *active)
{
	*cpu = td->ended_cpu_ns;
	*weighted = td->ended_weighted_ns;
	*active = td->ended_active_ns;
	for (size_t i = 0; i < td->n; i++) {
		double c, w, a;
		thread_sums(&td->t[i], &c, &w, &a);
		*cpu += c;
		*weighted += w;
		*active += a;
	}
	if (*cpu > 0 && (double)tree_cpu_ns > *cpu) {
		double missed = (double)tree_cpu_ns - *cpu, share = *weighted / *cpu;
		if (share > MISSED_SHARE_MAX)
			share = MISSED_SHARE_MAX;
		*weighted += missed * share;
		*cpu += missed;
		*active += missed / (1 - share);
	}
}

int64_t taskdelay_lost(const struct taskdelay *td, int64_t wall_ns, int64_t tree_cpu_ns)
{
	double cpu, weighted, active, lost;

	if (!td->n && !td->ended)
		return -1;
	tree_sums(td, tree_cpu_ns, &cpu, &weighted, &active);
	if (cpu <= 0 || wall_ns <= 0)
		return 0;
	lost = weighted / cpu * (active < (double)wall_ns ? active : (double)wall_ns);
	return lost < (double)wall_ns ? (int64_t)lost : wall_ns;
}

int64_t taskdelay_active(const struct taskdelay *td, int64_t tree_cpu_ns)
{
	double cpu, weighted, active;

	if (!td->n && !td->ended)
		return -1;
	tree_sums(td, tree_cpu_ns, &cpu, &weighted, &active);
	return active < (double)INT64_MAX ? (int64_t)active : INT64_MAX;
}

unsigned taskdelay_threads(const struct taskdelay *td)
{
	return (unsigned)td->n + td->ended;
}

void taskdelay_release(struct taskdelay *td)
{
	free(td->t);
	*td = (struct taskdelay)TASKDELAY_INIT;
}

/* The pids listed in a children file, appended to procs (bounded; *truncated set past it). */
static void add_children(int *truncated, const char *path, pid_t *procs, size_t *nprocs)
{
	char buf[CHILDREN_READ_MAX];
	ssize_t len = read_head(path, buf, sizeof(buf));
	char *p = buf, *end;

	if (len < 0)
		return;
	if ((size_t)len >= sizeof(buf) - 1)
		*truncated = 1;
	for (;;) {
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		p = end;
		if (pid <= 0)
			continue;
		if (*nprocs >= TASKDELAY_MAX_PROCS) {
			*truncated = 1;
			return;
		}
		procs[(*nprocs)++] = (pid_t)pid;
	}
}

/* Reads each thread of pid; its threads' children go onto procs. */
static void sample_process(struct taskdelay *td, pid_t pid, pid_t *procs, size_t *nprocs)
{
	char path[96];
	struct dirent *de;
	unsigned seen = 0;
	int64_t waited = -1;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char buf[256];
		int64_t cpu, wait;
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (tid <= 0 || *end)
			continue;
		if (++seen > TASKDELAY_MAX_THREADS) {
			td->truncated = 1;
			break;
		}
		snprintf(path, sizeof(path), "/proc/%ld/task/%ld/schedstat", (long)pid, tid);
		if (read_head(path, buf, sizeof(buf)) >= 0 && sysstat_schedstat_parse(buf, &cpu, &wait) == 0) {
			taskdelay_note(td, (pid_t)tid, cpu, wait);
			if (wait >= 0)
				waited = (waited < 0 ? 0 : waited) + wait;
		}
		snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)pid, tid);
		add_children(&td->truncated, path, procs, nprocs);
	}
	closedir(d);
	if (td->procs)
		proctree_sample(td->procs, pid, waited);
}

/* The process group of pid (from /proc/PID/stat), or -1. */
static pid_t process_group(pid_t pid)
{
	char path[64], buf[1024];
	const char *p;
	long pgrp;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (read_head(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return -1;
	/* After the command: state, ppid, pgrp. */
	if (sscanf(p + 1, " %*c %*d %ld", &pgrp) != 1)
		return -1;
	return (pid_t)pgrp;
}

/* abev's own children in root's process group: the tree's orphans, reparented to abev. */
static void add_orphans(struct taskdelay *td, pid_t root, pid_t *procs, size_t *nprocs)
{
	pid_t mine[TASKDELAY_MAX_PROCS];
	size_t nmine = 0;
	char path[96];
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/children", de->d_name);
		add_children(&td->truncated, path, mine, &nmine);
	}
	closedir(d);
	for (size_t i = 0; i < nmine; i++) {
		if (mine[i] == root || process_group(mine[i]) != root)
			continue;
		if (*nprocs >= TASKDELAY_MAX_PROCS) {
			td->truncated = 1;
			return;
		}
		procs[(*nprocs)++] = mine[i];
	}
}

void taskdelay_sample(struct taskdelay *td, pid_t root)
{
	pid_t *procs = xmalloc(TASKDELAY_MAX_PROCS * sizeof(*procs));
	size_t nprocs = 0;

	if (root <= 0) {
		free(procs);
		return;
	}
	procs[nprocs++] = root;
	add_orphans(td, root, procs, &nprocs);
	/* Breadth first: each process read adds its children to the end. */
	for (size_t i = 0; i < nprocs; i++)
		sample_process(td, procs[i], procs, &nprocs);
	td->samples++;
	free(procs);
}
