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
 * the caller decides what a timeout or a non-zero exit means.
 */
#define _GNU_SOURCE
#include "proc.h"
#include "cgroup.h"
#include "cpulist.h"
#include "sysstat.h"
#include "util.h"

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

extern char **environ;

#define TICK_NS (100 * 1000 * 1000LL)
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define PATH_ENTRIES_MAX 256
#define PATH_VALUE_MAX 65536
#define LEFTOVER_WAIT_NS (2 * 1000 * 1000 * 1000LL)
#define LEFTOVER_POLL_MS 5
#define LEFTOVER_SEEN_MAX 4096
#define SCAN_ENTRIES_MAX (1 << 20)
#define PROC_STAT_MAX 1024

/* What the child reports over the error pipe before it gives up. */
enum child_stage { STAGE_CHDIR = 1, STAGE_REDIRECT, STAGE_AFFINITY, STAGE_EXEC };
struct child_error {
	int stage;
	int err;
};

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t interrupt_sig;

/* The terminating signals a user or a supervisor sends: each one interrupts. */
static const int interrupt_sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2 };

static void on_signal(int sig)
{
	int saved = errno;
	if (sig != SIGCHLD && !interrupt_sig)
		interrupt_sig = sig;
	if (sig_pipe[1] >= 0)
		(void)!write(sig_pipe[1], "", 1);
	errno = saved;
}

int proc_setup(void)
{
	struct sigaction sa;
	size_t i;

	if (sig_pipe[0] >= 0)
		return 0;
	if (pipe2(sig_pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
		sig_pipe[0] = sig_pipe[1] = -1;
		return error("cannot create signal pipe: %s", strerror(errno));
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() and read() return EINTR and the loops re-check. */
	sa.sa_flags = SA_NOCLDSTOP;
	if (sigaction(SIGCHLD, &sa, NULL) < 0)
		return error("cannot install handler for SIGCHLD: %s", strerror(errno));
	sa.sa_flags = 0;
	for (i = 0; i < ARRAY_SIZE(interrupt_sigs); i++)
		if (sigaction(interrupt_sigs[i], &sa, NULL) < 0)
			return error("cannot install handler for signal %d: %s",
				     interrupt_sigs[i], strerror(errno));
	/*
	 * A closed stdout (abev run ... | head) or a file-size limit must not
	 * kill abev with its evidence half written: the write fails with
	 * EPIPE or EFBIG instead and is reported where it happens. Children
	 * get the default dispositions back before exec.
	 */
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) < 0 || sigaction(SIGXFSZ, &sa, NULL) < 0)
		return error("cannot ignore SIGPIPE and SIGXFSZ: %s", strerror(errno));
	/*
	 * Orphans of the child come back to abev instead of init, so that a
	 * daemonising grandchild can still be found, killed and reaped.
	 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return error("cannot become a child subreaper: %s", strerror(errno));
	return 0;
}

int proc_interrupted(void)
{
	return interrupt_sig;
}

const char *proc_signal_name(int sig)
{
	switch (sig) {
	case SIGHUP: return "SIGHUP";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGILL: return "SIGILL";
	case SIGTRAP: return "SIGTRAP";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGUSR1: return "SIGUSR1";
	case SIGSEGV: return "SIGSEGV";
	case SIGUSR2: return "SIGUSR2";
	case SIGPIPE: return "SIGPIPE";
	case SIGALRM: return "SIGALRM";
	case SIGTERM: return "SIGTERM";
	case SIGXCPU: return "SIGXCPU";
	case SIGXFSZ: return "SIGXFSZ";
	case SIGSYS: return "SIGSYS";
	}
	return "signal";
}

static void drain_sig_pipe(void)
{
	char buf[64];
	if (sig_pipe[0] < 0)
		return;
	while (read(sig_pipe[0], buf, sizeof(buf)) > 0)
		;
}

/* Sleeps until a signal arrives or ms pass (poll ignores a negative fd). */
static void wait_signal(int ms)
{
	struct pollfd pfd = { .fd = sig_pipe[0], .events = POLLIN, .revents = 0 };
	if (ms < 0)
		ms = 0;
	(void)poll(&pfd, 1, ms);
	drain_sig_pipe();
}

/* Milliseconds until `when`, rounded up so that we do not wake early, capped. */
static int ms_until(int64_t now, int64_t when, int cap)
{
	int64_t d;
	if (when <= now)
		return 0;
	d = (when - now + 999999) / 1000000;
	return d > cap ? cap : (int)d;
}

int proc_sleep(int64_t ns, void (*tick)(void *, int64_t), void *arg)
{
	int64_t start = mono_ns(), end = start + (ns > 0 ? ns : 0);
	int64_t next_tick = start + TICK_NS;

	for (;;) {
		int64_t now;
		if (interrupt_sig)
			return interrupt_sig;
		now = mono_ns();
		if (now >= end)
			return 0;
		if (now >= next_tick) {
			if (tick)
				tick(arg, now - start);
			while (next_tick <= now)
				next_tick += TICK_NS;
		}
		wait_signal(ms_until(now, end < next_tick ? end : next_tick, 100));
	}
}

static int64_t tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

static void add_rusage(struct proc_result *res, const struct rusage *ru)
{
	int64_t rss = (int64_t)ru->ru_maxrss * 1024;
	res->user_ns += tv_ns(&ru->ru_utime);
	res->sys_ns += tv_ns(&ru->ru_stime);
	if (rss > res->max_rss_bytes)
		res->max_rss_bytes = rss;
	res->minflt += ru->ru_minflt;
	res->majflt += ru->ru_majflt;
	res->nvcsw += ru->ru_nvcsw;
	res->nivcsw += ru->ru_nivcsw;
}

/* Opens path with fd >= 3, so that dup2() onto 0/1/2 in the child never collides. */
static int open_high(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOCTTY, 0644);
	int hi;
	if (fd < 0 || fd > 2)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return hi;
}

/*
 * An output pipe: its read end non-blocking for the parent, its write
 * end at fd >= 3 for the child's dup2(). size > 0 asks for that pipe
 * size (best effort). 0 or -1 after error().
 */
static int open_pipe(int *rd, int *wr, int size)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return error("cannot create a pipe: %s", strerror(errno));
	/* The child's stdout blocks as a pipe normally does. */
	if (fcntl(p[1], F_SETFL, 0) < 0 ||
	    (*wr = p[1] > 2 ? p[1] : fcntl(p[1], F_DUPFD_CLOEXEC, 3)) < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return error("cannot set up a pipe: %s", strerror(e));
	}
	if (*wr != p[1])
		close(p[1]);
	*rd = p[0];
	if (size > 0)
		(void)fcntl(*rd, F_SETPIPE_SZ, size);
	return 0;
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

static void free_list(char **list)
{
	for (size_t i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

/*
 * The child between fork() and execve(): async-signal-safe calls only,
 * because abev's memory (malloc locks, stdio) is a snapshot of an
 * arbitrary moment.
 */
ABEV_NORETURN static void child_main(const struct proc_spec *spec, char *const *argv,
				     char *const *envp, char *const *cands, const cpu_set_t *cpus,
				     int go_rd, int go_wr, int err_wr, int fd_in, int fd_out,
				     int fd_err)
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
	if (spec->cwd && chdir(spec->cwd) < 0) {
		ce.stage = STAGE_CHDIR;
		ce.err = errno;
	} else if (dup2(fd_in, 0) < 0 || dup2(fd_out, 1) < 0 || dup2(fd_err, 2) < 0) {
		ce.stage = STAGE_REDIRECT;
		ce.err = errno;
	} else if (cpus && sched_setaffinity(0, sizeof(*cpus), cpus) < 0) {
		ce.stage = STAGE_AFFINITY;
		ce.err = errno;
	}
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

/*
 * Where one of the child's output pipes goes: into a strbuf (capture
 * mode) or into a log file (log mode), at most max bytes either way.
 */
struct sink {
	int rd;                 /* read end of the pipe, or -1 once at end of file */
	int file;               /* log mode: the log file, else -1 */
	const char *path;       /* log mode, for messages (borrowed) */
	struct strbuf *buf;     /* capture mode (borrowed) */
	int64_t max;
	struct proc_stream *st; /* counts, in the caller's proc_result */
	int can_splice;         /* log mode: splice() into the file works */
};

#define SINK_INIT { -1, -1, NULL, NULL, 0, NULL, 1 }

struct run {
	pid_t pid;              /* also the process group id */
	pid_t self;
	struct cgroup cg;
	enum stop_phase phase;
	enum stop_reason reason;
	int64_t kill_at;
	struct proc_result *res;
	int64_t run_delay_ns;   /* the child's threads' schedstat, read before reaping; -1 */
	int64_t psi_after_us;   /* the cgroup's cpu.pressure when the child exited; -1 */
	int64_t sys_psi_after_us; /* /proc/pressure/cpu then; -1 */
	struct sink sinks[2];   /* stdout, stderr: pipes read in the wait loop */
};

/* Bytes of output read per sink and call, so that a flood cannot keep the caller from its deadline. */
#define DRAIN_BUDGET (1 << 20)
/* The pipe size asked for in log mode: fewer wake-ups, less blocking of a chatty child. */
#define LOG_PIPE_SIZE (1 << 20)

/* Keeps what fits of data under the sink's cap and counts the rest as dropped. */
static void sink_keep(struct sink *s, const char *data, size_t n)
{
	int64_t room = s->max > s->st->bytes_written ? s->max - s->st->bytes_written : 0;
	size_t keep = (int64_t)n < room ? n : (size_t)room;

	if (keep && s->buf) {
		strbuf_add(s->buf, data, keep);
	} else if (keep && s->file >= 0 && write_all(s->file, data, keep) < 0) {
		/* A full disk is reported once; what could not be written counts as dropped. */
		warning("cannot write '%s': %s; the rest of the stream is dropped", s->path,
			strerror(errno));
		s->max = s->st->bytes_written;
		keep = 0;
	}
	s->st->bytes_written += (int64_t)keep;
	s->st->bytes_dropped += (int64_t)(n - keep);
}

/*
 * Log mode, under the cap: moves what the pipe holds straight into the
 * file (splice(), no copy through abev), so that abev keeps up with a
 * child that writes as fast as it can and the child does not wait on a
 * full pipe any longer than it would on the file. Returns the bytes
 * moved, 0 at end of file, -1 with errno (EAGAIN: the pipe is empty;
 * EINVAL: the file cannot take a splice, read() instead).
 */
static ssize_t sink_splice(struct sink *s, size_t max)
{
	ssize_t n = splice(s->rd, NULL, s->file, NULL, max, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);

	if (n > 0)
		s->st->bytes_written += n;
	return n;
}

/*
 * Reads what the pipe holds, at most DRAIN_BUDGET bytes. Closes the pipe
 * at end of file. Returns 1 when the budget ran out with more possibly
 * waiting, 0 otherwise.
 */
static int sink_drain(struct sink *s)
{
	char buf[65536];
	size_t total = 0;

	while (s->rd >= 0) {
		int64_t room = s->max - s->st->bytes_written;
		ssize_t n;
		if (total >= DRAIN_BUDGET)
			return 1;
		if (s->file >= 0 && room > 0 && s->can_splice) {
			n = sink_splice(s, room < DRAIN_BUDGET ? (size_t)room : DRAIN_BUDGET);
			if (n > 0) {
				total += (size_t)n;
				continue;
			}
			if (n < 0 && (errno == EINVAL || errno == ENOSYS)) {
				s->can_splice = 0;
				continue;
			}
			if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
				/* The file refused (a full disk): read() and write() say so once. */
				s->can_splice = 0;
				continue;
			}
		} else {
			n = read(s->rd, buf, sizeof(buf));
			if (n > 0) {
				sink_keep(s, buf, (size_t)n);
				total += (size_t)n;
				continue;
			}
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		/* End of file, or an unreadable pipe: nothing more will come. */
		close(s->rd);
		s->rd = -1;
	}
	return 0;
}

/*
 * Sleeps until a signal arrives, output is ready, or ms pass; reads that
 * output.
 */
static void wait_event(struct run *r, int ms)
{
	struct pollfd pfd[3] = {
		{ .fd = sig_pipe[0], .events = POLLIN, .revents = 0 },
		{ .fd = r->sinks[0].rd, .events = POLLIN, .revents = 0 },
		{ .fd = r->sinks[1].rd, .events = POLLIN, .revents = 0 },
	};
	if (ms < 0)
		ms = 0;
	(void)poll(pfd, 3, ms);
	drain_sig_pipe();
	for (int i = 0; i < 2; i++)
		if (r->sinks[i].rd >= 0 && pfd[i + 1].revents)
			sink_drain(&r->sinks[i]);
}

/*
 * After the child and its leftovers are gone, whatever they wrote is
 * still in the pipes. Reads it to the end, or as far as a process that
 * escaped the kill has written so far (bounded: such a process could
 * write for ever).
 */
static void drain_rest(struct run *r)
{
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 64 && sink_drain(&r->sinks[i]); k++)
			;
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
	kill(-r->pid, SIGTERM);
	signal_cgroup(r, SIGTERM);
	/* A stopped process would keep the SIGTERM pending until the SIGKILL. */
	kill(-r->pid, SIGCONT);
}

static void stop_kill(struct run *r)
{
	r->phase = KILL_SENT;
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
		if (n == *alloc) {
			*alloc = *alloc ? *alloc * 2 : 256;
			*out = xrealloc(*out, *alloc * sizeof(**out));
		}
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
	res->system_cpu_wait_ns = -1;
}

static char *exec_error_text(const struct proc_spec *spec, const struct child_error *ce)
{
	switch (ce->stage) {
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
	int64_t next_tick = start + TICK_NS;

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
			/* The window closes with the child: what leftovers do later is not its wait. */
			r->psi_after_us = cgroup_cpu_pressure_us(&r->cg);
			r->sys_psi_after_us = psi_read_some_total(PSI_SYSTEM_CPU);
			r->run_delay_ns = schedstat_run_delay(r->pid);
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
			if (interrupt_sig)
				stop_term(r, STOP_INTERRUPT, now, spec->grace_ns);
			else if (now >= deadline)
				stop_term(r, STOP_TIMEOUT, now, spec->grace_ns);
		}
		if (r->phase == TERM_SENT && now >= r->kill_at)
			stop_kill(r);
		if (now >= next_tick) {
			if (spec->tick)
				spec->tick(spec->tick_arg, now - start);
			while (next_tick <= now)
				next_tick += TICK_NS;
		}
		wake = next_tick;
		if (r->phase == RUNNING && deadline < wake)
			wake = deadline;
		if (r->phase == TERM_SENT && r->kill_at < wake)
			wake = r->kill_at;
		/* A KILL_SENT child dies at once; still, do not spin if it is stuck in D state. */
		wait_event(r, ms_until(now, wake, 100));
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
		if (now >= r->kill_at) {
			stop_kill(r);
			return;
		}
		if (spec->tick)
			spec->tick(spec->tick_arg, now - start);
		wait_event(r, ms_until(now, r->kill_at, 100));
	}
}

/*
 * fork(), with the child born in the cgroup open at cg_fd when that is
 * >= 0 (clone3() with CLONE_INTO_CGROUP, Linux 5.7). Moving a running
 * process into a cgroup waits for the kernel's cgroup_threadgroup_rwsem
 * (an RCU grace period, often 10 ms on a hybrid hierarchy); a process
 * born there costs nothing extra. *placed says whether it was. Anything
 * clone3() refuses falls back to fork(), and the caller moves the child.
 * The child then runs only the async-signal-safe calls of child_main(),
 * so skipping fork()'s libc bookkeeping is safe.
 */
static pid_t fork_into(int cg_fd, int *placed)
{
	*placed = 0;
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
	if (cg_fd >= 0) {
		struct clone_args ca;
		long pid;

		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_INTO_CGROUP;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = (uint64_t)cg_fd;
		pid = syscall(SYS_clone3, &ca, sizeof(ca));
		if (pid >= 0) {
			*placed = 1;
			return (pid_t)pid;
		}
	}
#else
	(void)cg_fd;
#endif
	return fork();
}

/*
 * Opens what the child's stdout and stderr go to: its ends in *fd_out and
 * *fd_err (abev closes them after fork), abev's ends in r->sinks. In
 * capture mode stdout is a pipe into spec->capture; in log mode each log
 * file is fed by abev from a pipe, so that the cap holds whatever the
 * child writes; otherwise the child writes the files itself. 0 or -1
 * after error().
 */
static int open_streams(const struct proc_spec *spec, struct run *r, int *fd_out, int *fd_err)
{
	const char *out_path = spec->stdout_path ? spec->stdout_path : "/dev/null";
	const char *err_path = spec->stderr_path ? spec->stderr_path : "/dev/null";
	const char *paths[2] = { spec->stdout_path, spec->stderr_path };
	int *ends[2] = { fd_out, fd_err };
	struct proc_stream *counts[2] = { &r->res->out, &r->res->err };
	/* One file for both: share the offset (or the pipe), or each stream overwrites the other. */
	int shared = spec->capture ? spec->capture_stderr : strcmp(err_path, out_path) == 0;

	if (spec->capture) {
		struct sink *s = &r->sinks[0];
		s->buf = spec->capture;
		s->max = (int64_t)spec->capture_max;
		s->st = counts[0];
		if (open_pipe(&s->rd, fd_out, 0) < 0)
			return -1;
	}
	for (int i = spec->capture ? 1 : 0; i < 2 && !(i == 1 && shared); i++) {
		const char *path = paths[i] ? paths[i] : "/dev/null";
		struct sink *s = &r->sinks[i];

		if (!spec->log_capped || !paths[i]) {
			*ends[i] = open_high(path, O_WRONLY | O_CREAT | O_TRUNC);
			if (*ends[i] < 0)
				return error("cannot open '%s': %s", path, strerror(errno));
			continue;
		}
		s->file = open_high(path, O_WRONLY | O_CREAT | O_TRUNC);
		if (s->file < 0)
			return error("cannot open '%s': %s", path, strerror(errno));
		s->path = path;
		s->max = spec->log_max_bytes;
		s->st = counts[i];
		if (open_pipe(&s->rd, ends[i], LOG_PIPE_SIZE) < 0)
			return -1;
	}
	if (shared) {
		*fd_err = fcntl(*fd_out, F_DUPFD_CLOEXEC, 3);
		if (*fd_err < 0)
			return error("cannot open '%s': %s", err_path, strerror(errno));
	}
	return 0;
}

/*
 * A pressure total's growth over the run in ns, or -1. At most the wall
 * time: the kernel's per-CPU aggregation can round a short window up.
 */
static int64_t psi_delta_ns(int64_t before_us, int64_t after_us, int64_t wall_ns)
{
	int64_t ns;
	if (before_us < 0 || after_us < before_us || after_us - before_us > INT64_MAX / 1000)
		return -1;
	ns = (after_us - before_us) * 1000;
	return ns < wall_ns ? ns : wall_ns;
}

static void cpu_wait_from_cgroup(struct proc_result *res, int64_t before_us, int64_t after_us)
{
	int64_t ns = psi_delta_ns(before_us, after_us, res->wall_ns);
	if (ns < 0)
		return;
	res->cpu_wait_ns = ns;
	res->cpu_wait_source = "cgroup";
	res->cpu_wait_note = NULL;
}

/* Without the cgroup's pressure: the child's own threads, or why there is nothing. */
static void cpu_wait_fallback(struct proc_result *res, int64_t run_delay_ns)
{
	if (res->cpu_wait_source)
		return;
	if (res->outcome == PROC_EXEC_FAILED) {
		res->cpu_wait_note = "the command was not executed";
	} else if (run_delay_ns >= 0) {
		res->cpu_wait_ns = run_delay_ns < res->wall_ns ? run_delay_ns : res->wall_ns;
		res->cpu_wait_source = "schedstat";
		res->cpu_wait_note = "no cgroup CPU pressure: run_delay of the child's own threads, "
				     "its descendants not included";
	} else {
		res->cpu_wait_note = "neither a cgroup's cpu.pressure nor /proc/PID/schedstat "
				     "could be read (no cgroup v2, PSI off, or schedstats off)";
	}
}

int proc_run(const struct proc_spec *spec, struct proc_result *res)
{
	char *const *envp;
	char **cands = NULL;
	int fd_in = -1, fd_out = -1, fd_err = -1;
	int go[2] = { -1, -1 }, errp[2] = { -1, -1 };
	struct run r = { 0, 0, CGROUP_INIT, RUNNING, STOP_NONE, 0, res, -1, -1, -1,
			 { SINK_INIT, SINK_INIT } };
	cpu_set_t cpus;
	int64_t psi_before = -1, sys_psi_before = -1;
	struct rusage self0, self1, ru;
	struct child_error ce;
	sigset_t all, old;
	int64_t start = 0, end = 0;
	int status = 0, ret = -1, forked = 0, placed = 0, cg_fd = -1;
	ssize_t n;
	pid_t pid;

	result_init(res);
	if (!spec->argv || !spec->argv[0])
		return error("no command to run");
	envp = spec->envp ? (char *const *)spec->envp : environ;
	cands = proc_exec_candidates(spec->argv[0], (const char *const *)envp);

	fd_in = open_high("/dev/null", O_RDONLY);
	if (fd_in < 0) {
		error("cannot open '/dev/null': %s", strerror(errno));
		goto out;
	}
	if (open_streams(spec, &r, &fd_out, &fd_err) < 0)
		goto out;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		error("cannot create pipe: %s", strerror(errno));
		goto out;
	}

	/* The group exists before the child, so that the child can be born in it. */
	if (spec->cgroup_name) {
		if (cgroup_create(&r.cg, spec->cgroup_name, &res->cgroup_reason) == 0)
			cg_fd = open(r.cg.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		res->cgroup_reason = xstrdup("no cgroup requested");
	}

	if (spec->cpus) {
		CPU_ZERO(&cpus);
		for (unsigned c = 0; c < CPULIST_MAX && c < CPU_SETSIZE; c++)
			if (cpulist_has(spec->cpus, c))
				CPU_SET(c, &cpus);
	}

	/*
	 * Block signals across fork() so that the child cannot run abev's
	 * handlers before it has reset them.
	 */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork_into(cg_fd, &placed);
	if (pid == 0)
		child_main(spec, (char *const *)spec->argv, envp, cands,
			   spec->cpus ? &cpus : NULL, go[0], go[1], errp[1], fd_in, fd_out, fd_err);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		error("cannot fork: %s", strerror(errno));
		goto out;
	}
	forked = 1;
	r.pid = pid;
	r.self = getpid();
	close(go[0]);
	close(errp[1]);
	go[0] = errp[1] = -1;
	/* Only the child may hold the output pipes' write ends: their end is our EOF. */
	close(fd_out);
	close(fd_err);
	fd_out = fd_err = -1;
	/* Both sides call setpgid(), so the group exists before either goes on. */
	if (setpgid(pid, pid) < 0 && errno != EACCES && errno != ESRCH)
		warning("cannot put process %ld in its own group: %s", (long)pid,
			strerror(errno));

	if (r.cg.path && !placed && cgroup_add(&r.cg, pid, &res->cgroup_reason) < 0)
		cgroup_release(&r.cg);
	/* A new group starts at 0, but reading costs nothing and assumes nothing. */
	psi_before = cgroup_cpu_pressure_us(&r.cg);
	sys_psi_before = psi_read_some_total(PSI_SYSTEM_CPU);

	getrusage(RUSAGE_SELF, &self0);
	clock_gettime(CLOCK_REALTIME, &res->start_real);
	start = mono_ns();
	if (write_all(go[1], "g", 1) < 0) {
		error("cannot start process %ld: %s", (long)pid, strerror(errno));
		kill(pid, SIGKILL);
		goto out;
	}
	close(go[1]);
	go[1] = -1;

	/* EOF: the exec happened (the pipe is close-on-exec). Data: it did not. */
	do {
		n = read(errp[0], &ce, sizeof(ce));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(ce)) {
		while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
			;
		end = mono_ns();
		clock_gettime(CLOCK_REALTIME, &res->end_real);
		forked = 0;
		res->outcome = PROC_EXEC_FAILED;
		res->exec_error = exec_error_text(spec, &ce);
		res->wall_ns = end - start;
		getrusage(RUSAGE_SELF, &self1);
		res->self_cpu_ns = tv_ns(&self1.ru_utime) + tv_ns(&self1.ru_stime) -
				   tv_ns(&self0.ru_utime) - tv_ns(&self0.ru_stime);
		ret = 0;
		goto out;
	}

	if (wait_child(&r, spec, start, &status, &ru, &end) < 0)
		goto out;
	forked = 0;
	getrusage(RUSAGE_SELF, &self1);
	res->wall_ns = end - start;
	res->self_cpu_ns = tv_ns(&self1.ru_utime) + tv_ns(&self1.ru_stime) -
			   tv_ns(&self0.ru_utime) - tv_ns(&self0.ru_stime);
	add_rusage(res, &ru);
	set_status(res, status);
	if (r.reason == STOP_TIMEOUT)
		res->outcome = PROC_TIMED_OUT;
	else if (r.reason == STOP_INTERRUPT)
		res->outcome = PROC_INTERRUPTED;
	if (r.reason != STOP_NONE && interrupt_sig)
		res->interrupt_signal = interrupt_sig;

	finish_stop(&r, spec, start);
	clean_leftovers(&r);
	drain_rest(&r);
	ret = 0;
out:
	if (forked) {
		/* abev could not follow the child: it must not outlive this call. */
		kill(-r.pid, SIGKILL);
		kill(r.pid, SIGKILL);
		while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (r.cg.path) {
		struct cgroup_stats st;
		if (ret == 0) {
			cgroup_read(&r.cg, &st);
			res->cg_memory_peak_bytes = st.memory_peak_bytes;
			res->cg_cpu_usage_ns = st.cpu_usage_ns;
			res->cg_memory_note = cgroup_memory_note(&r.cg);
			cpu_wait_from_cgroup(res, psi_before, r.psi_after_us);
		}
		cgroup_kill_all(&r.cg);
		cgroup_release(&r.cg);
	}
	if (ret == 0) {
		cpu_wait_fallback(res, r.run_delay_ns);
		res->system_cpu_wait_ns = psi_delta_ns(sys_psi_before, r.sys_psi_after_us,
						       res->wall_ns);
	}
	if (cg_fd >= 0)
		close(cg_fd);
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	if (errp[0] >= 0)
		close(errp[0]);
	if (errp[1] >= 0)
		close(errp[1]);
	if (fd_in >= 0)
		close(fd_in);
	if (fd_out >= 0)
		close(fd_out);
	if (fd_err >= 0)
		close(fd_err);
	for (int i = 0; i < 2; i++) {
		if (r.sinks[i].rd >= 0)
			close(r.sinks[i].rd);
		if (r.sinks[i].file >= 0 && close(r.sinks[i].file) < 0 && ret == 0)
			warning("cannot close '%s': %s", r.sinks[i].path, strerror(errno));
	}
	free_list(cands);
	return ret;
}

void proc_result_release(struct proc_result *res)
{
	if (!res)
		return;
	free(res->exec_error);
	res->exec_error = NULL;
	free(res->cgroup_reason);
	res->cgroup_reason = NULL;
}
