/*
 * proc: runs one child and measures it. It lets the prepared child go
 * and sleeps in poll() on a self-pipe fed by the SIGCHLD and interrupt
 * handlers and reaps with wait4(), so the end time is taken the moment the
 * child is reaped; a timeout or an interrupt sends SIGTERM to the child's
 * group and cgroup, then SIGKILL after the grace period. In capture and
 * log mode the same poll() also reads the child's output pipes, so that a
 * chatty child never blocks on a full pipe, and writes what it keeps of
 * them: that work is abev's (its own CPU, self_cpu_ns), never the child's.
 *
 * It does not interpret outcomes: the caller decides what a timeout or a
 * non-zero exit means. Preparing and starting the child (fork, clone3,
 * execve) is proc_spawn.c's alone, making sure that nothing the child
 * started outlives it proc_leftovers.c's; the output streams are
 * proc_io.c's, the CPU-wait figures cpuwait.c's and the signal self-pipe
 * proc_signal.c's.
 */
#include "run/proc_parts.h"
#include "run/proc_fork.h"
#include "run/proc_io.h"
#include "run/proc_signal.h"
#include "measure/cgroup.h"
#include "run/cpuwait.h"
#include "measure/proctree.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int64_t tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

void proc_add_rusage(struct proc_result *res, const struct rusage *ru)
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

void proc_wait_event(struct run *r, int ms)
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
			if (!r->child_stopped)
				r->stopped_at = mono_ns();
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
	return r->phase == TERM_SENT &&
	       (n >= 2 || (n >= 1 && (r->reason == STOP_TIMEOUT || r->reason == STOP_STAYED_STOPPED)));
}

static void stop_kill(struct run *r)
{
	r->phase = KILL_SENT;
	r->res->stop_signal = SIGKILL;
	kill(-r->pid, SIGKILL);
	if (r->cg.path)
		cgroup_kill_all(&r->cg);
}

void proc_reap_group(struct run *r)
{
	struct rusage ru;
	int status;
	while (wait4(-r->pid, &status, WNOHANG, &ru) > 0)
		proc_add_rusage(r->res, &ru);
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
	res->tree_active_ns = -1;
	res->cgroup_cpu_wait_ns = -1;
	res->system_cpu_wait_ns = -1;
	res->procs = (struct proc_tree)PROC_TREE_INIT;
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
			else if (r->child_stopped && now - r->stopped_at >= PROC_STAYED_STOPPED_NS)
				stop_term(r, STOP_STAYED_STOPPED, now, spec->grace_ns);
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
		if (r->phase == RUNNING && r->child_stopped &&
		    r->stopped_at + PROC_STAYED_STOPPED_NS < wake)
			wake = r->stopped_at + PROC_STAYED_STOPPED_NS;
		if (r->phase == TERM_SENT && r->kill_at < wake)
			wake = r->kill_at;
		/* A KILL_SENT child dies at once; still, do not spin if it is stuck in D state. */
		proc_wait_event(r, proc_ms_until(now, wake, 100));
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
		proc_reap_group(r);
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
		proc_wait_event(r, proc_ms_until(now, r->kill_at, 100));
	}
}

void proc_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
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
	proc_close_fd(&r->go[1]);
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
	r->res->exec_error = proc_spawn_error_text(spec, &ce);
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
	proc_add_rusage(res, &ru);
	set_status(res, status);
	if (r->reason == STOP_TIMEOUT || r->reason == STOP_STAYED_STOPPED)
		res->outcome = PROC_TIMED_OUT;
	else if (r->reason == STOP_INTERRUPT)
		res->outcome = PROC_INTERRUPTED;
	res->stayed_stopped = r->reason == STOP_STAYED_STOPPED;
	if (r->reason != STOP_NONE && proc_interrupted())
		res->interrupt_signal = proc_interrupted();
	finish_stop(r, spec, r->start);
	if (r->killed_early)
		warning("%s: process group %ld was killed at once (SIGKILL), without waiting out "
			"the grace period",
			r->reason == STOP_INTERRUPT ? "interrupted again" : "interrupted during a timeout",
			(long)r->pid);
	res->killed_early = r->killed_early;
	proc_leftovers_clean(r);
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
		cgroup_done(&r->cg, cgroup_kill_all(&r->cg) == 0);
	}
	if (recorded && r->wait.tasks.procs)
		proctree_finish(&r->tree, r->pid, getpid(), &res->procs);
	proctree_release(&r->tree);
	if (recorded)
		cpuwait_finish(&r->wait, res);
	cpuwait_release(&r->wait);
	proc_close_fd(&r->cg_fd);
	for (int i = 0; i < 2; i++) {
		proc_close_fd(&r->go[i]);
		proc_close_fd(&r->errp[i]);
	}
	proc_close_fd(&r->fd_in);
	proc_close_fd(&r->fd_out);
	proc_close_fd(&r->fd_err);
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
	if (proc_spawn_prepare(spec, &r) < 0 || proc_spawn(spec, &r) < 0 || release_child(&r) < 0)
		goto out;
	if (!exec_failed(spec, &r) && follow_child(spec, &r) < 0)
		goto out;
	ret = 0;
out:
	finish_run(&r, ret == 0);
	return ret;
}

char *proc_timeout_text(const struct proc_result *res, double timeout_s, const char *limit)
{
	char *how = proc_stop_text(res), *text;

	if (res->stayed_stopped)
		text = xasprintf("stayed stopped (SIGSTOP or SIGTSTP) for %lld s, which a process "
				 "does not leave by itself; %s",
				 (long long)(PROC_STAYED_STOPPED_NS / 1000000000LL), how);
	else if (limit)
		text = xasprintf("timed out after %g s (%s); %s", timeout_s, limit, how);
	else
		text = xasprintf("timed out after %g s; %s", timeout_s, how);
	free(how);
	return text;
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
