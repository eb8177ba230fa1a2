/*
 * proc_leftovers: makes sure that nothing a child started outlives it.
 * Once the child is reaped, abev (a child subreaper) finds every process
 * still in the child's process group, its cgroup, or re-parented to abev,
 * and their descendants, by a bounded scan of /proc; it kills them, reaps
 * them and adds their rusage, and counts those that the run's own stop
 * sequence had not reached. Running and stopping the child are proc.c's.
 */
#include "run/proc_parts.h"
#include "measure/cgroup.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/number.h"
#include "util/usage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEFTOVER_WAIT_NS (2 * 1000 * 1000 * 1000LL)
#define LEFTOVER_POLL_MS 5
#define LEFTOVER_SEEN_MAX 4096
#define SCAN_ENTRIES_MAX (1 << 20)
#define PROC_STAT_MAX 1024

struct pinfo {
	pid_t pid, ppid, pgrp;
	char state;
	char match;
};

static int read_pinfo(pid_t pid, struct pinfo *pi)
{
	char path[64], buf[PROC_STAT_MAX];
	char *p, *end;
	ssize_t n;
	size_t len = 0;
	long v;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	while (len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	/* "pid (comm) S ppid pgrp ...": comm may hold anything, so go from the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	pi->pid = pid;
	pi->state = p[2];
	p += 4;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || end == p || *end != ' ' || v < 0 || v > INT32_MAX)
		return -1;
	pi->ppid = (pid_t)v;
	p = end + 1;
	v = strtol(p, &end, 10);
	if (errno || end == p || *end != ' ' || v < 0 || v > INT32_MAX)
		return -1;
	pi->pgrp = (pid_t)v;
	pi->match = 0;
	return 0;
}

static int pid_in(const pid_t *pids, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return 1;
	return 0;
}

/*
 * Lists the processes the run left: those in the child's process group or
 * cgroup, those re-parented to abev, and all their descendants. Returns
 * how many matched (they are moved to the front of *out).
 */
static size_t scan_leftovers(struct run *r, struct pinfo **out, size_t *alloc,
			     const pid_t *cgpids, int ncg)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0, m = 0;
	int changed;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL && n < SCAN_ENTRIES_MAX) {
		int64_t pid;
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (parse_int64(de->d_name, &pid) < 0 || pid <= 0 || pid > INT32_MAX)
			continue;
		ALLOC_GROW(*out, n + 1, *alloc);
		if (read_pinfo((pid_t)pid, &(*out)[n]) < 0)
			continue;
		if ((pid_t)pid == r->self)
			continue;
		n++;
	}
	closedir(d);

	for (size_t i = 0; i < n; i++) {
		struct pinfo *pi = &(*out)[i];
		pi->match = pi->pgrp == r->pid || pi->ppid == r->self ||
			    pid_in(cgpids, ncg, pi->pid);
	}
	/* Descendants of a match match too; each pass adds one generation. */
	do {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			struct pinfo *pi = &(*out)[i];
			if (pi->match)
				continue;
			for (size_t j = 0; j < n; j++) {
				if ((*out)[j].match && (*out)[j].pid == pi->ppid) {
					pi->match = 1;
					changed = 1;
					break;
				}
			}
		}
	} while (changed);

	for (size_t i = 0; i < n; i++) {
		if ((*out)[i].match) {
			struct pinfo t = (*out)[m];
			(*out)[m++] = (*out)[i];
			(*out)[i] = t;
		}
	}
	return m;
}

/*
 * Whether abev has any child at all, alive or dead and unreaped. abev is
 * a child subreaper, so every descendant of the run that is still alive
 * has an ancestor (perhaps itself) that is abev's child: when there is
 * none, nothing was left and the /proc scan can be skipped.
 */
static int any_child_left(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return !(waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD);
}

/*
 * Kills and reaps everything the run left behind. After a timeout or an
 * interrupt, the group and the cgroup were already stopped by that
 * sequence: only processes that escaped both count as leftovers then.
 */
void proc_leftovers_clean(struct run *r)
{
	struct pinfo *list = NULL;
	size_t alloc = 0;
	pid_t seen[LEFTOVER_SEEN_MAX];
	pid_t cgpids[LEFTOVER_SEEN_MAX];
	int nseen = 0;
	int64_t deadline = mono_ns() + LEFTOVER_WAIT_NS;
	int stopped = r->phase != RUNNING;

	for (;;) {
		int ncg = cgroup_pids(&r->cg, cgpids, (int)ARRAY_SIZE(cgpids));
		size_t m;

		if (ncg < 0)
			ncg = 0;
		proc_reap_group(r);
		if (ncg == 0 && !any_child_left())
			break;
		m = scan_leftovers(r, &list, &alloc, cgpids, ncg);
		if (m == 0 && ncg == 0)
			break;
		for (size_t i = 0; i < m; i++) {
			struct pinfo *pi = &list[i];
			int counts;
			if (pi->state == 'Z' || pi->state == 'X')
				continue;
			counts = !stopped ||
				 (pi->pgrp != r->pid && !pid_in(cgpids, ncg, pi->pid));
			if (counts && !pid_in(seen, nseen, pi->pid) && nseen < LEFTOVER_SEEN_MAX) {
				seen[nseen++] = pi->pid;
				r->res->leftovers_killed++;
			}
		}
		kill(-r->pid, SIGKILL);
		if (r->cg.path)
			cgroup_kill_all(&r->cg);
		for (size_t i = 0; i < m; i++)
			if (list[i].state != 'Z' && list[i].state != 'X')
				kill(list[i].pid, SIGKILL);
		for (size_t i = 0; i < m; i++) {
			struct rusage ru;
			int status;
			if (list[i].ppid == r->self &&
			    wait4(list[i].pid, &status, WNOHANG, &ru) == list[i].pid)
				proc_add_rusage(r->res, &ru);
		}
		if (mono_ns() >= deadline) {
			warning("processes left behind by process %ld did not go away "
				"within 2 seconds", (long)r->pid);
			break;
		}
		proc_wait_event(r, LEFTOVER_POLL_MS);
	}
	free(list);
}
