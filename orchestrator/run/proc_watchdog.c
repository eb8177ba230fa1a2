/*
 * proc_watchdog: makes the children die with abev, however abev dies.
 * Each child gets PR_SET_PDEATHSIG (SIGKILL) before exec (proc_spawn.c), but
 * that reaches the child alone, not what it started. So proc_setup()
 * forks, while abev is still small, a watchdog process that is neither
 * abev's child nor in its session: it holds the read end of a pipe whose
 * only writer is abev, and abev tells it, over that pipe, the process
 * group of the child that runs now (0 between children). When abev is
 * gone, even by SIGKILL, the pipe reads EOF: the watchdog then kills that
 * process group and every cgroup abev made (abev-<pid>-*, cgroup.kill
 * catches the processes that left the group), and exits. A second pipe,
 * the other way, lets abev wait at exit until the watchdog is gone, so
 * that no process of abev's outlives it. The watchdog knows nothing of
 * runs or evidence, and starts no program.
 */
#include "run/proc_signal.h"
#include "measure/cgroup.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* What abev sends at an orderly exit, instead of a process group. */
#define WATCHDOG_BYE (-1)
/* How long abev waits at exit for the watchdog to go. */
#define WATCHDOG_EXIT_WAIT_MS 2000

static int tell_fd = -1;   /* abev's write end: process groups, EOF when abev dies */
static int gone_fd = -1;   /* abev's read end: EOF once the watchdog has exited */

/* The signals a terminal or a supervisor sends to abev's group: not the watchdog's business. */
static const int ignored_sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
				    SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGXFSZ };

/* Kills what abev left running: the last process group it named and its cgroups. */
static void watchdog_strike(pid_t abev, pid_t pgid)
{
	if (pgid > 0)
		kill(-pgid, SIGKILL);
	cgroup_remove_owned(abev);
	if (pgid > 0)
		kill(-pgid, SIGKILL);
}

/* Closes every descriptor from 3 up but a and b. */
static void close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;
	int ranges[3][2] = { { 3, lo - 1 }, { lo + 1, hi - 1 }, { hi + 1, -1 } };

	for (int i = 0; i < 3; i++) {
		unsigned first = (unsigned)ranges[i][0];
		unsigned last = ranges[i][1] < 0 ? ~0U : (unsigned)ranges[i][1];
		if (ranges[i][1] >= 0 && ranges[i][1] < ranges[i][0])
			continue;
#ifdef SYS_close_range
		if (syscall(SYS_close_range, first, last, 0U) == 0)
			continue;
#endif
		for (unsigned fd = first; fd <= last && fd < 4096; fd++)
			if ((int)fd != a && (int)fd != b)
				close((int)fd);
	}
}

ABEV_NORETURN static void watchdog_main(pid_t abev, int rd, int alive)
{
	struct sigaction sa;
	int32_t pgid = 0, msg;
	int nul;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(ignored_sigs); i++)
		(void)sigaction(ignored_sigs[i], &sa, NULL);
	(void)setsid();
	(void)prctl(PR_SET_NAME, "abev-watchdog", 0, 0, 0);
	/* No terminal, no pipe of abev's caller held open: only the two pipes. */
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		(void)dup2(nul, 0);
		(void)dup2(nul, 1);
		(void)dup2(nul, 2);
	}
	close_all_but(rd, alive);
	for (;;) {
		ssize_t n = read(rd, &msg, sizeof(msg));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(msg))
			break;
		pgid = msg;
	}
	/* EOF: abev said goodbye (WATCHDOG_BYE), or it died. */
	if (pgid != WATCHDOG_BYE)
		watchdog_strike(abev, pgid);
	_exit(0);
}

int proc_watchdog_start(void)
{
	int tell[2] = { -1, -1 }, gone[2] = { -1, -1 };
	pid_t abev = getpid(), mid;
	int status;

	if (tell_fd >= 0)
		return 0;
	if (pipe2(tell, O_CLOEXEC) < 0 || pipe2(gone, O_CLOEXEC) < 0) {
		error("cannot create the watchdog's pipes: %s", strerror(errno));
		goto fail;
	}
	/*
	 * Forked twice, so that the watchdog is not abev's child: abev's
	 * leftover scan and its waits see only what the runs started.
	 */
	mid = fork();
	if (mid < 0) {
		error("cannot start the watchdog: %s", strerror(errno));
		goto fail;
	}
	if (mid == 0) {
		pid_t w;
		close(tell[1]);
		close(gone[0]);
		w = fork();
		if (w == 0)
			watchdog_main(abev, tell[0], gone[1]);
		_exit(w < 0 ? 1 : 0);
	}
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	close(tell[0]);
	close(gone[1]);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		close(tell[1]);
		close(gone[0]);
		return error("cannot start the watchdog");
	}
	tell_fd = tell[1];
	gone_fd = gone[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (tell[i] >= 0)
			close(tell[i]);
		if (gone[i] >= 0)
			close(gone[i]);
	}
	return -1;
}

void proc_watchdog_follow(pid_t pgid)
{
	int32_t msg = (int32_t)pgid;

	if (tell_fd < 0)
		return;
	/* Four bytes into a pipe are written whole or not at all. */
	while (write(tell_fd, &msg, sizeof(msg)) < 0 && errno == EINTR)
		;
}

void proc_watchdog_stop(void)
{
	struct pollfd pfd = { .fd = gone_fd, .events = POLLIN, .revents = 0 };
	int64_t deadline = mono_ns() + (int64_t)WATCHDOG_EXIT_WAIT_MS * 1000000;
	char c;

	if (tell_fd < 0)
		return;
	proc_watchdog_follow(WATCHDOG_BYE);
	close(tell_fd);
	tell_fd = -1;
	for (;;) {
		int64_t now = mono_ns();
		ssize_t n;
		if (now >= deadline)
			break;
		if (poll(&pfd, 1, proc_ms_until(now, deadline, WATCHDOG_EXIT_WAIT_MS)) < 0 &&
		    errno != EINTR)
			break;
		n = read(gone_fd, &c, 1);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			break;
	}
	close(gone_fd);
	gone_fd = -1;
}
