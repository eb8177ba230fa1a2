/*
 * proc_signal: abev's signal handling and the sleeps that notice it. The
 * handlers of SIGCHLD, SIGCONT and the interrupt signals write a byte
 * into a self-pipe, so that proc's poll() loops wake at once; the first
 * interrupt signal is kept (proc_interrupted()), the interrupts and
 * continues are counted. proc_setup() also ignores SIGPIPE and SIGXFSZ,
 * starts the watchdog (proc_watchdog.c) and makes abev a child subreaper.
 * It starts no measured process: that is proc_spawn.c's alone.
 */
#include "run/proc.h"
#include "run/proc_signal.h"
#include "run/proc_fork.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t interrupt_sig;
static volatile sig_atomic_t interrupt_count;
static volatile sig_atomic_t cont_count;

/* The terminating signals a user or a supervisor sends: each one interrupts. */
static const int interrupt_sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2 };

static void on_signal(int sig)
{
	int saved = errno;
	if (sig == SIGCONT) {
		cont_count++;
	} else if (sig != SIGCHLD) {
		if (!interrupt_sig)
			interrupt_sig = sig;
		if (interrupt_count < 1000)
			interrupt_count++;
	}
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
	proc_fork_heap_setup();
	if (pipe2(sig_pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
		sig_pipe[0] = sig_pipe[1] = -1;
		return error("cannot create signal pipe: %s", strerror(errno));
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/*
	 * No SA_RESTART: poll() and read() return EINTR and the loops re-check.
	 * No SA_NOCLDSTOP either: a child stopped or continued wakes the wait
	 * loop, which records it. SIGCONT counts abev's own stops (SIGTSTP,
	 * SIGSTOP): a run's window that holds one measured the pause too.
	 */
	sa.sa_flags = 0;
	if (sigaction(SIGCHLD, &sa, NULL) < 0 || sigaction(SIGCONT, &sa, NULL) < 0)
		return error("cannot install handlers for SIGCHLD and SIGCONT: %s", strerror(errno));
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
	 * The watchdog first, while abev is small and not yet a subreaper (it
	 * must not come back to abev as an orphan). Without it the children
	 * still die with abev (PR_SET_PDEATHSIG), their descendants not.
	 */
	if (proc_watchdog_start() == 0)
		atexit(proc_watchdog_stop);
	else
		warning("without a watchdog, what a run started outlives abev if abev is killed");
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

int proc_interrupt_count(void)
{
	return interrupt_count;
}

unsigned proc_cont_count(void)
{
	return (unsigned)cont_count;
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

void proc_signal_drain(void)
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
	proc_signal_drain();
}

int proc_ms_until(int64_t now, int64_t when, int cap)
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
	int64_t next_tick = start + PROC_TICK_NS;

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
				next_tick += PROC_TICK_NS;
		}
		wait_signal(proc_ms_until(now, end < next_tick ? end : next_tick, 100));
	}
}

int proc_signal_fd(void)
{
	return sig_pipe[0];
}
