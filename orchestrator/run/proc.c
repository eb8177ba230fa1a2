/*
 * proc: starts one child, measures it, and makes sure that nothing it
 * started outlives it. Everything the child needs (argv, envp, candidate
 * exec paths, open log files) is prepared before fork(), so that the child
 * only makes async-signal-safe calls; it waits on a "go" pipe so that it is
 * in its process group and cgroup before it runs a single instruction of
 * the measured program, and an exec failure travels back over a
 * close-on-exec pipe. The parent sleeps in poll() on a self-pipe fed by
 * the SIGCHLD and interrupt handlers and reaps with wait4(), so the end
 * time is taken the moment the child is reaped. In capture and log mode
 * the same poll() also reads the child's output pipes, so that a chatty
 * child never blocks on a full pipe, and writes what it keeps of them:
 * that work is abev's (its own CPU, self_cpu_ns), never the child's.
 *
 * After the child, abev (a child subreaper) finds every process still in
 * the child's process group, its cgroup, or re-parented to abev, kills
 * them, reaps them and adds their rusage. It does not interpret outcomes:
 * the caller decides what a timeout or a non-zero exit means. The output
 * streams are proc_io.c's, the CPU-wait figures cpuwait.c's and the
 * signal self-pipe proc_signal.c's; starting a process is this file's
 * alone (fork, clone3, execve).
 */
#include "run/proc.h"
#include "run/proc_fork.h"
#include "run/proc_io.h"
#include "run/proc_signal.h"
#include "run/proc_user.h"
#include "measure/cgroup.h"
#include "run/cpuwait.h"
#include "measure/proctree.h"
#include "util/cpulist.h"
#include "measure/sysstat.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/number.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

#include <dirent.h>
#include <linux/sched.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define PATH_ENTRIES_MAX 256
#define PATH_VALUE_MAX 65536
#define LEFTOVER_WAIT_NS (2 * 1000 * 1000 * 1000LL)
#define LEFTOVER_POLL_MS 5
#define LEFTOVER_SEEN_MAX 4096
#define SCAN_ENTRIES_MAX (1 << 20)
#define PROC_STAT_MAX 1024

/* What the child reports over the error pipe before it gives up. */
enum child_stage { STAGE_USER = 1, STAGE_CHDIR, STAGE_REDIRECT, STAGE_AFFINITY, STAGE_EXEC };
struct child_error {
	int stage;
	int err;
};

static int64_t tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

static void add_rusage(struct proc_result *res, const struct rusage *ru)
{
	int64_t rss = (int64_t)ru->ru_maxrss * 1024;
	res->fig.user_ns += tv_ns(&ru->ru_utime);
	res->fig.sys_ns += tv_ns(&ru->ru_stime);
	if (rss > res->fig.max_rss_bytes)
		res->fig.max_rss_bytes = rss;
	res->fig.minflt += ru->ru_minflt;
	res->fig.majflt += ru->ru_majflt;
	res->fig.nvcsw += ru->ru_nvcsw;
	res->fig.nivcsw += ru->ru_nivcsw;
}

static char *getenv_from(const char *const *envp, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return (char *)envp[i] + n + 1;
	return NULL;
}

char **proc_exec_candidates(const char *argv0, const char *const *envp)
{
	char **list = xcalloc(PATH_ENTRIES_MAX + 1, sizeof(*list));
	const char *path, *p;
	size_t n = 0;

	if (!*argv0)
		return list;
	if (strchr(argv0, '/')) {
		list[0] = xstrdup(argv0);
		return list;
	}
	path = getenv_from(envp, "PATH");
	if (!path)
		path = DEFAULT_PATH;
	if (strnlen(path, PATH_VALUE_MAX + 1) > PATH_VALUE_MAX)
		path = DEFAULT_PATH;
	for (p = path; n < PATH_ENTRIES_MAX; ) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		if (len == 0)
			list[n++] = xasprintf("./%s", argv0);
		else
			list[n++] = xasprintf("%.*s/%s", (int)len, p, argv0);
		if (!colon)
			break;
		p = colon + 1;
	}
	return list;
}

/*
 * The child between fork() and execve(): async-signal-safe calls only,
 * because abev's memory (malloc locks, stdio) is a snapshot of an
 * arbitrary moment. abev's heap is not there at all (proc_fork.h): the
 * child reads only its stack, static data and the copy its arguments
 * point into.
 */
ABEV_NORETURN static void child_main(const char *cwd, char *const *argv,
				     char *const *envp, char *const *cands, const cpu_set_t *cpus,
				     const struct proc_user *user, pid_t parent, int go_rd, int go_wr, int err_wr, int fd_in,
				     int fd_out, int fd_err)
{
	struct child_error ce = { 0, 0 };
	struct sigaction sa;
	sigset_t none;
	char go;
	ssize_t n;
	int saw_eacces = 0;

	/* abev's handlers would write into its self-pipe: back to defaults first. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (int s = 1; s < NSIG; s++)
		(void)sigaction(s, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	setpgid(0, 0);
	/* Close our copy of the write end, so that a dead parent means EOF here. */
	close(go_wr);
	/*
	 * Everything but execve() happens before the go byte, outside the
	 * measured window. A failure is kept and reported after it, so that
	 * the parent's side of the protocol is the same either way. The
	 * pipes to abev move out of the way of dup2() first (abev may have
	 * been started with 0, 1 or 2 closed).
	 */
	if (go_rd <= 2)
		go_rd = fcntl(go_rd, F_DUPFD_CLOEXEC, 3);
	if (err_wr <= 2)
		err_wr = fcntl(err_wr, F_DUPFD_CLOEXEC, 3);
	if (user && proc_user_switch(user) < 0) {
		ce.stage = STAGE_USER;
		ce.err = errno;
	} else if (cwd && chdir(cwd) < 0) {
		ce.stage = STAGE_CHDIR;
		ce.err = errno;
	} else if (dup2(fd_in, 0) < 0 || dup2(fd_out, 1) < 0 || dup2(fd_err, 2) < 0) {
		ce.stage = STAGE_REDIRECT;
		ce.err = errno;
	} else if (cpus && sched_setaffinity(0, sizeof(*cpus), cpus) < 0) {
		ce.stage = STAGE_AFFINITY;
		ce.err = errno;
	}
	/*
	 * The child dies with abev, however abev dies (the watchdog takes care
	 * of the child's own children). After the switch of user, which clears
	 * the setting. Had abev died before the prctl(), the child was
	 * re-parented already and would never get the signal: look.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(127);
#ifdef SYS_close_range
	/* Whatever else abev has open must not leak into the measured program. */
	(void)syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
#endif
	do {
		n = read(go_rd, &go, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	close(go_rd);
	if (ce.stage)
		goto fail;

	ce.stage = STAGE_EXEC;
	ce.err = ENOENT;
	for (size_t i = 0; cands[i]; i++) {
		execve(cands[i], argv, envp);
		/* Like execvpe(): a permission problem is more telling than a miss. */
		if (errno == EACCES)
			saw_eacces = 1;
		else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE &&
			 errno != ENODEV && errno != ETIMEDOUT && errno != ENAMETOOLONG) {
			ce.err = errno;
			saw_eacces = 0;
			break;
		}
		ce.err = errno;
	}
	if (saw_eacces)
		ce.err = EACCES;
fail:
	(void)!write(err_wr, &ce, sizeof(ce));
	_exit(127);
}

/* Stop and kill phases of a timeout or an interrupt. */
enum stop_phase { RUNNING, TERM_SENT, KILL_SENT };
enum stop_reason { STOP_NONE, STOP_TIMEOUT, STOP_INTERRUPT };

struct run {
	pid_t pid;              /* also the process group id */
	pid_t self;
	struct cgroup cg;
	enum stop_phase phase;
	enum stop_reason reason;
	int64_t kill_at;
	struct proc_result *res;
	struct cpuwait wait;    /* its CPU wait, read around the run */
	struct proctree tree;   /* its processes, each with its own figures */
	struct proc_sink sinks[2];   /* stdout, stderr: pipes read in the wait loop */
	/* What the launch needs, all made before fork() (prepare_launch()). */
	char *const *envp;      /* the spec's (borrowed), or env_inherited below */
	char **env_inherited;   /* abev's environment as a child inherits it, when the spec has none */
	char **cands;           /* exec candidates */
	cpu_set_t cpus;         /* valid when the spec asks for CPUs */
	int fd_in, fd_out, fd_err;   /* the child's ends */
	int go[2], errp[2];     /* the "go" pipe and the exec-error pipe */
	int cg_fd;              /* the cgroup's directory, for clone3() */
	int forked;             /* a child is running that abev has not reaped */
	struct fork_copy fc;    /* what the child reads, outside the heap (proc_fork.h) */
	struct rusage self0;    /* abev's own usage at the start */
	int64_t start, end;     /* CLOCK_MONOTONIC around the run */
	/* Pauses inside the window (see watch_stops()). */
	unsigned cont0;         /* proc_cont_count() at the start */
	int64_t boot_off0;      /* CLOCK_BOOTTIME - CLOCK_MONOTONIC at the start */
	int child_stopped;      /* the child's last reported state was stopped */
	int killed_early;       /* a second stop request cut the grace period short */
};

/*
 * Sleeps until a signal arrives, output is ready, or ms pass; reads that
 * output.
 */
static void wait_event(struct run *r, int ms)
{
	struct pollfd pfd[4] = {
		{ .fd = proc_signal_fd(), .events = POLLIN, .revents = 0 },
		{ .fd = r->sinks[0].rd, .events = POLLIN, .revents = 0 },
		{ .fd = r->sinks[1].rd, .events = POLLIN, .revents = 0 },
		{ .fd = proctree_fd(&r->tree), .events = POLLIN, .revents = 0 },
	};
	if (ms < 0)
		ms = 0;
	(void)poll(pfd, 4, ms);
	proc_signal_drain();
	/* Exit records of the whole machine: read as they come, so that none is dropped. */
	if (pfd[3].revents)
		proctree_drain(&r->tree);
	for (int i = 0; i < 2; i++)
		if (r->sinks[i].rd >= 0 && pfd[i + 1].revents)
			proc_io_drain(&r->sinks[i]);
}

static void signal_cgroup(struct run *r, int sig)
{
	pid_t pids[1024];
	int n = cgroup_pids(&r->cg, pids, (int)ARRAY_SIZE(pids));
	for (int i = 0; i < n; i++)
		kill(pids[i], sig);
}

static void stop_term(struct run *r, enum stop_reason why, int64_t now, int64_t grace)
{
	r->reason = why;
	r->phase = TERM_SENT;
	r->kill_at = now + (grace > 0 ? grace : 0);
	r->res->stop_signal = SIGTERM;
	kill(-r->pid, SIGTERM);
	signal_cgroup(r, SIGTERM);
	/* A stopped process would keep the SIGTERM pending until the SIGKILL. */
	kill(-r->pid, SIGCONT);
}

/* CLOCK_BOOTTIME minus CLOCK_MONOTONIC: grows by the time the machine was suspended. */
static int64_t boot_offset(void)
{
	struct timespec b;
	int64_t m = mono_ns();

	if (clock_gettime(CLOCK_BOOTTIME, &b) < 0)
		return 0;
	return (int64_t)b.tv_sec * 1000000000 + b.tv_nsec - m;
}

/*
 * Counts the child's stops (SIGSTOP, SIGTSTP to its group) as the kernel
 * reports them; a stop and continue between two looks shows as a
 * continue alone, which counts as one stop too.
 */
static void watch_stops(struct run *r)
{
	for (int i = 0; i < 64; i++) {
		siginfo_t si;
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)r->pid, &si, WSTOPPED | WCONTINUED | WNOHANG) < 0 ||
		    si.si_pid != r->pid)
			return;
		if (si.si_code == CLD_STOPPED || si.si_code == CLD_TRAPPED) {
			r->res->stops_child++;
			r->child_stopped = 1;
		} else if (si.si_code == CLD_CONTINUED) {
			if (!r->child_stopped)
				r->res->stops_child++;
			r->child_stopped = 0;
		} else {
			return;
		}
	}
}

/* abev's own stops and the machine's suspends during the window, once it ended. */
static void record_pauses(struct run *r)
{
	int64_t suspended = boot_offset() - r->boot_off0;

	r->res->stops_abev = proc_cont_count() - r->cont0;
	/* The two clocks are read one after the other: a millisecond is noise. */
	r->res->suspended_ns = suspended > 1000000 ? suspended : 0;
}

/*
 * A stop request on top of a stop under way (a second interrupt signal,
 * or an interrupt during a timeout's grace period) does not wait out
 * kill_grace_seconds: the user asked twice.
 */
static int asked_twice(const struct run *r)
{
	int n = proc_interrupt_count();
	return r->phase == TERM_SENT && (n >= 2 || (n >= 1 && r->reason == STOP_TIMEOUT));
}

static void stop_kill(struct run *r)
{
	r->phase = KILL_SENT;
	r->res->stop_signal = SIGKILL;
	kill(-r->pid, SIGKILL);
	if (r->cg.path)
		cgroup_kill_all(&r->cg);
}

/* Reaps whatever has died in the child's process group and is ours. */
static void reap_group(struct run *r)
{
	struct rusage ru;
	int status;
	while (wait4(-r->pid, &status, WNOHANG, &ru) > 0)
		add_rusage(r->res, &ru);
}

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
static void clean_leftovers(struct run *r)
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
		reap_group(r);
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
				add_rusage(r->res, &ru);
		}
		if (mono_ns() >= deadline) {
			warning("processes left behind by process %ld did not go away "
				"within 2 seconds", (long)r->pid);
			break;
		}
		wait_event(r, LEFTOVER_POLL_MS);
	}
	free(list);
}

static void set_status(struct proc_result *res, int status)
{
	if (WIFEXITED(status)) {
		res->outcome = PROC_EXITED;
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->outcome = PROC_SIGNALED;
		res->signal = WTERMSIG(status);
#ifdef WCOREDUMP
		res->core_dumped = WCOREDUMP(status) ? 1 : 0;
#endif
	}
}

static void result_init(struct proc_result *res)
{
	memset(res, 0, sizeof(*res));
	res->outcome = PROC_EXITED;
	res->exit_code = -1;
	res->cg_memory_peak_bytes = -1;
	res->cg_cpu_usage_ns = -1;
	res->cpu_wait_ns = -1;
	res->tree_wait_ns = -1;
	res->system_cpu_wait_ns = -1;
	res->procs = (struct proc_tree)PROC_TREE_INIT;
}

static char *exec_error_text(const struct proc_spec *spec, const struct child_error *ce)
{
	const struct proc_user *u = proc_run_as_user();

	switch (ce->stage) {
	case STAGE_USER:
		return xasprintf("cannot run as user '%s' (run_as): %s", u ? u->name : "?",
				 strerror(ce->err));
	case STAGE_CHDIR:
		return xasprintf("cannot change directory to '%s': %s", spec->cwd,
				 strerror(ce->err));
	case STAGE_REDIRECT:
		return xasprintf("cannot redirect standard streams: %s", strerror(ce->err));
	case STAGE_AFFINITY:
		return xasprintf("cannot run on the CPUs asked for (cpus): %s", strerror(ce->err));
	default:
		return xasprintf("cannot execute '%s': %s", spec->argv[0], strerror(ce->err));
	}
}

/*
 * Waits for the child, driving the timeout and interrupt sequence and the
 * tick. Returns 0 once reaped, -1 if the child was lost (reaped elsewhere).
 */
static int wait_child(struct run *r, const struct proc_spec *spec, int64_t start,
		      int *status, struct rusage *ru, int64_t *end)
{
	int64_t deadline = spec->timeout_ns > 0 ? start + spec->timeout_ns : INT64_MAX;
	int64_t next_tick = start + PROC_TICK_NS;

	for (;;) {
		int64_t now, wake;
		siginfo_t si;
		int w;

		/*
		 * Observe the exit without reaping: a zombie's schedstat is still
		 * readable, and once reaped it is gone.
		 */
		si.si_pid = 0;
		w = waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if (w == 0 && si.si_pid == r->pid) {
			*end = mono_ns();
			clock_gettime(CLOCK_REALTIME, &r->res->end_real);
			record_pauses(r);
			cpuwait_stop(&r->wait, &r->cg, r->pid);
			while (wait4(r->pid, status, 0, ru) < 0)
				if (errno != EINTR)
					return error("lost track of process %ld: %s", (long)r->pid,
						     strerror(errno));
			return 0;
		}
		if (w < 0 && errno != EINTR) {
			*end = mono_ns();
			clock_gettime(CLOCK_REALTIME, &r->res->end_real);
			return error("lost track of process %ld: %s", (long)r->pid,
				     strerror(errno));
		}
		now = mono_ns();
		if (r->phase == RUNNING) {
			if (proc_interrupted())
				stop_term(r, STOP_INTERRUPT, now, spec->grace_ns);
			else if (now >= deadline)
				stop_term(r, STOP_TIMEOUT, now, spec->grace_ns);
		}
		if (r->phase == TERM_SENT && (now >= r->kill_at || asked_twice(r))) {
			r->killed_early = now < r->kill_at;
			stop_kill(r);
		}
		watch_stops(r);
		if (now >= next_tick) {
			cpuwait_sample(&r->wait, r->pid);
			if (spec->tick)
				spec->tick(spec->tick_arg, now - start);
			while (next_tick <= now)
				next_tick += PROC_TICK_NS;
		}
		wake = next_tick;
		if (r->phase == RUNNING && deadline < wake)
			wake = deadline;
		if (r->phase == TERM_SENT && r->kill_at < wake)
			wake = r->kill_at;
		/* A KILL_SENT child dies at once; still, do not spin if it is stuck in D state. */
		wait_event(r, proc_ms_until(now, wake, 100));
	}
}

/*
 * After a stopped child is reaped, the rest of its group still gets the
 * grace period that the SIGTERM promised before the SIGKILL.
 */
static void finish_stop(struct run *r, const struct proc_spec *spec, int64_t start)
{
	while (r->phase == TERM_SENT) {
		int64_t now;
		reap_group(r);
		if (kill(-r->pid, 0) < 0 && errno == ESRCH)
			return;
		now = mono_ns();
		if (now >= r->kill_at || asked_twice(r)) {
			r->killed_early = now < r->kill_at;
			stop_kill(r);
			return;
		}
		if (spec->tick)
			spec->tick(spec->tick_arg, now - start);
		wait_event(r, proc_ms_until(now, r->kill_at, 100));
	}
}

/*
 * fork(), with the child born in the cgroup open at cg_fd when that is
 * >= 0 (clone3() with CLONE_INTO_CGROUP, Linux 5.7). Moving a running
 * process into a cgroup waits for the kernel's cgroup_threadgroup_rwsem
 * (an RCU grace period, often 10 ms on a hybrid hierarchy); a process
 * born there costs nothing extra. *placed says whether it was. Anything
 * clone3() refuses is tried again without a cgroup, and the caller moves
 * the child. The child then runs only the async-signal-safe calls of
 * child_main(), so skipping fork()'s libc bookkeeping is safe — and
 * needed: abev's heap is withheld from the child (proc_fork.h), and the C
 * library's fork() handlers walk lists on the heap (its open FILEs). Only
 * where the kernel has no clone3() (before 5.3) is fork() used, with the
 * heap given back first.
 */
static pid_t fork_into(int cg_fd, int *placed)
{
	*placed = 0;
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
	for (int into = cg_fd >= 0; into >= 0; into--) {
		struct clone_args ca;
		long pid;

		memset(&ca, 0, sizeof(ca));
		ca.flags = into ? CLONE_INTO_CGROUP : 0;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = into ? (uint64_t)cg_fd : 0;
		pid = syscall(SYS_clone3, &ca, sizeof(ca));
		if (pid >= 0) {
			*placed = into;
			return (pid_t)pid;
		}
		if (errno == ENOSYS)
			break;
	}
#else
	(void)cg_fd;
#endif
	proc_fork_heap_withhold(0);
	return fork();
}

/*
 * Everything the child needs, before fork(): its exec candidates, stdin,
 * output streams, the go and error pipes, its cgroup (created first, so
 * that the child can be born in it) and CPU set. 0 or -1 after error().
 */
static int prepare_launch(const struct proc_spec *spec, struct run *r)
{
	/*
	 * Without an environment of its own the child inherits abev's, less
	 * what abev withholds from every child (its signing key, its
	 * passphrase): env_inherit() leaves those out.
	 */
	if (spec->envp) {
		r->envp = (char *const *)spec->envp;
	} else {
		struct env_array env = ENV_ARRAY_INIT;
		env_inherit(&env);
		r->env_inherited = env.v ? env.v : xcalloc(1, sizeof(*r->env_inherited));
		r->envp = r->env_inherited;
	}
	r->cands = proc_exec_candidates(spec->argv[0], (const char *const *)r->envp);
	if (proc_fork_copy_make(&r->fc, spec->argv, (const char *const *)r->envp,
				(const char *const *)r->cands, spec->cwd,
				spec->as_abev ? NULL : proc_run_as_user()) < 0)
		return -1;
	r->fd_in = proc_io_open_high(NULL, "/dev/null", O_RDONLY);
	if (r->fd_in < 0)
		return error("cannot open '/dev/null': %s", strerror(errno));
	if (proc_io_open_streams(spec, r->sinks, r->res, &r->fd_out, &r->fd_err) < 0)
		return -1;
	if (pipe2(r->go, O_CLOEXEC) < 0 || pipe2(r->errp, O_CLOEXEC) < 0)
		return error("cannot create pipe: %s", strerror(errno));
	if (spec->cgroup_name) {
		if (cgroup_create(&r->cg, spec->cgroup_name, &r->res->cgroup_reason) == 0)
			r->cg_fd = open(r->cg.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		r->res->cgroup_reason = xstrdup("no cgroup requested");
	}
	if (spec->cpus) {
		CPU_ZERO(&r->cpus);
		for (unsigned c = 0; c < CPULIST_MAX && c < CPU_SETSIZE; c++)
			if (cpulist_has(spec->cpus, c))
				CPU_SET(c, &r->cpus);
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Forks the child into its process group (and cgroup), where it waits
 * for the go byte. 0 or -1 after error().
 */
static int spawn(const struct proc_spec *spec, struct run *r)
{
	sigset_t all, old;
	int placed = 0;
	pid_t pid;

	/*
	 * Block signals across fork() so that the child cannot run abev's
	 * handlers before it has reset them.
	 */
	sigfillset(&all);
	r->self = getpid();
	sigprocmask(SIG_SETMASK, &all, &old);
	proc_fork_heap_withhold(1);
	pid = fork_into(r->cg_fd, &placed);
	if (pid == 0)
		child_main(r->fc.cwd, r->fc.argv, r->fc.envp, r->fc.cands,
			   spec->cpus ? &r->cpus : NULL, r->fc.user, r->self, r->go[0], r->go[1],
			   r->errp[1], r->fd_in, r->fd_out, r->fd_err);
	proc_fork_heap_withhold(0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	proc_fork_copy_release(&r->fc);
	if (pid < 0)
		return error("cannot fork: %s", strerror(errno));
	r->forked = 1;
	r->pid = pid;
	proc_watchdog_follow(pid);
	close_fd(&r->go[0]);
	close_fd(&r->errp[1]);
	/* Only the child may hold the output pipes' write ends: their end is our EOF. */
	close_fd(&r->fd_out);
	close_fd(&r->fd_err);
	/* Both sides call setpgid(), so the group exists before either goes on. */
	if (setpgid(pid, pid) < 0 && errno != EACCES && errno != ESRCH)
		warning("cannot put process %ld in its own group: %s", (long)pid,
			strerror(errno));
	if (r->cg.path && !placed && cgroup_add(&r->cg, pid, &r->res->cgroup_reason) < 0)
		cgroup_release(&r->cg);
	return 0;
}

/* Starts the clock and lets the child go. 0 or -1 after error(). */
static int release_child(struct run *r)
{
	cpuwait_start(&r->wait, &r->cg);
	getrusage(RUSAGE_SELF, &r->self0);
	clock_gettime(CLOCK_REALTIME, &r->res->start_real);
	r->cont0 = proc_cont_count();
	r->boot_off0 = boot_offset();
	r->start = mono_ns();
	if (write_all(r->go[1], "g", 1) < 0) {
		error("cannot start process %ld: %s", (long)r->pid, strerror(errno));
		kill(r->pid, SIGKILL);
		return -1;
	}
	close_fd(&r->go[1]);
	return 0;
}

/* The window's wall time and abev's own CPU over it, once r->end is set. */
static void record_window(struct run *r)
{
	struct rusage self1;

	getrusage(RUSAGE_SELF, &self1);
	r->res->fig.wall_ns = r->end - r->start;
	r->res->self_cpu_ns = tv_ns(&self1.ru_utime) + tv_ns(&self1.ru_stime) -
			      tv_ns(&r->self0.ru_utime) - tv_ns(&r->self0.ru_stime);
}

/*
 * Whether the exec failed: EOF on the error pipe means it happened (the
 * pipe is close-on-exec), data that it did not — then the child is
 * reaped and the outcome is PROC_EXEC_FAILED.
 */
static int exec_failed(const struct proc_spec *spec, struct run *r)
{
	struct child_error ce;
	struct rusage ru;
	int status;
	ssize_t n;

	do {
		n = read(r->errp[0], &ce, sizeof(ce));
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(ce))
		return 0;
	while (wait4(r->pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	r->end = mono_ns();
	clock_gettime(CLOCK_REALTIME, &r->res->end_real);
	record_pauses(r);
	r->forked = 0;
	r->res->outcome = PROC_EXEC_FAILED;
	r->res->exec_error = exec_error_text(spec, &ce);
	record_window(r);
	return 1;
}

/* Waits for the child and records how it ended; then its leftovers go. 0 or -1. */
static int follow_child(const struct proc_spec *spec, struct run *r)
{
	struct proc_result *res = r->res;
	struct rusage ru;
	int status = 0;

	if (wait_child(r, spec, r->start, &status, &ru, &r->end) < 0)
		return -1;
	r->forked = 0;
	record_window(r);
	add_rusage(res, &ru);
	set_status(res, status);
	if (r->reason == STOP_TIMEOUT)
		res->outcome = PROC_TIMED_OUT;
	else if (r->reason == STOP_INTERRUPT)
		res->outcome = PROC_INTERRUPTED;
	if (r->reason != STOP_NONE && proc_interrupted())
		res->interrupt_signal = proc_interrupted();
	finish_stop(r, spec, r->start);
	if (r->killed_early)
		warning("%s: process group %ld was killed at once (SIGKILL), without waiting out "
			"the grace period",
			r->reason == STOP_TIMEOUT ? "interrupted during a timeout" : "interrupted again",
			(long)r->pid);
	res->killed_early = r->killed_early;
	clean_leftovers(r);
	proc_io_drain_rest(r->sinks);
	return 0;
}

/*
 * Whatever happened: a child abev lost track of is killed, the cgroup's
 * figures read (when the run was recorded) and the group removed, the CPU
 * wait worked out, and every descriptor closed.
 */
static void finish_run(struct run *r, int recorded)
{
	struct proc_result *res = r->res;
	int status;

	proc_fork_copy_release(&r->fc);
	if (r->forked) {
		/* abev could not follow the child: it must not outlive this call. */
		kill(-r->pid, SIGKILL);
		kill(r->pid, SIGKILL);
		while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (r->cg.path) {
		struct cgroup_stats st;
		if (recorded) {
			cgroup_read(&r->cg, &st);
			res->cg_memory_peak_bytes = st.memory_peak_bytes;
			res->cg_cpu_usage_ns = st.cpu_usage_ns;
			res->cg_memory_note = cgroup_memory_note(&r->cg);
			cpuwait_from_cgroup(&r->wait, res);
		}
		cgroup_kill_all(&r->cg);
		cgroup_release(&r->cg);
	}
	if (recorded && r->wait.tasks.procs)
		proctree_finish(&r->tree, r->pid, getpid(), &res->procs);
	proctree_release(&r->tree);
	if (recorded)
		cpuwait_finish(&r->wait, res);
	cpuwait_release(&r->wait);
	close_fd(&r->cg_fd);
	for (int i = 0; i < 2; i++) {
		close_fd(&r->go[i]);
		close_fd(&r->errp[i]);
	}
	close_fd(&r->fd_in);
	close_fd(&r->fd_out);
	close_fd(&r->fd_err);
	proc_io_close(r->sinks, recorded);
	strv_free(r->cands);
	r->cands = NULL;
	strv_free(r->env_inherited);
	r->env_inherited = NULL;
	r->envp = NULL;
	if (r->self)
		proc_watchdog_follow(0);
}

int proc_run(const struct proc_spec *spec, struct proc_result *res)
{
	struct run r = {
		.cg = CGROUP_INIT,
		.phase = RUNNING,
		.reason = STOP_NONE,
		.res = res,
		.wait = CPUWAIT_INIT,
		.tree = PROCTREE_INIT,
		.sinks = { PROC_SINK_INIT, PROC_SINK_INIT },
		.fd_in = -1, .fd_out = -1, .fd_err = -1,
		.go = { -1, -1 }, .errp = { -1, -1 },
		.fc = FORK_COPY_INIT,
		.cg_fd = -1,
	};
	int ret = -1;

	result_init(res);
	if (!spec->argv || !spec->argv[0])
		return error("no command to run");
	/* The plan's commands, not abev's own look at git: their processes, one by one. */
	if (!spec->capture) {
		proctree_start(&r.tree);
		r.wait.tasks.procs = &r.tree;
	}
	if (prepare_launch(spec, &r) < 0 || spawn(spec, &r) < 0 || release_child(&r) < 0)
		goto out;
	if (!exec_failed(spec, &r) && follow_child(spec, &r) < 0)
		goto out;
	ret = 0;
out:
	finish_run(&r, ret == 0);
	return ret;
}

char *proc_stop_text(const struct proc_result *res)
{
	const char *sent = res->stop_signal == SIGKILL
				   ? (res->killed_early ? "stopped with SIGTERM, then SIGKILL at once"
							: "stopped with SIGTERM, then SIGKILL after "
							  "the grace period")
				   : "stopped with SIGTERM";

	if (res->signal)
		return xasprintf("%s; it was killed by %s%s", sent, proc_signal_name(res->signal),
				 res->core_dumped ? " (core dumped)" : "");
	if (res->exit_code >= 0)
		return xasprintf("%s; it exited with code %d", sent, res->exit_code);
	return xstrdup(sent);
}

void proc_result_release(struct proc_result *res)
{
	if (!res)
		return;
	free(res->exec_error);
	res->exec_error = NULL;
	free(res->cgroup_reason);
	res->cgroup_reason = NULL;
	proc_tree_release(&res->procs);
}
