/*
 * proc_spawn: prepares and starts the child of a run. Everything the
 * child needs (argv, envp, candidate exec paths, open log files, its
 * cgroup and CPUs) is prepared before fork(), so that the child only makes
 * async-signal-safe calls; it waits on a "go" pipe so that it is in its
 * process group and cgroup before it runs a single instruction of the
 * measured program, and an exec failure travels back over a close-on-exec
 * pipe. Starting a process is this file's alone (fork, clone3, execve);
 * sending the go byte, waiting and measuring are proc.c's.
 */
#include "run/proc_parts.h"
#include "run/proc_fork.h"
#include "run/proc_io.h"
#include "run/proc_signal.h"
#include "run/proc_user.h"
#include "measure/cgroup.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/cpulist.h"
#include "util/env.h"
#include "util/strbuf.h"
#include "util/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define PATH_ENTRIES_MAX 256
#define PATH_VALUE_MAX 65536
/* The command names (with their PATH) whose program is remembered. */
#define EXEC_MEMO_MAX 64

static char *getenv_from(const char *const *envp, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return (char *)envp[i] + n + 1;
	return NULL;
}

/* The PATH the candidates of envp come from: its own, or the default (also for one too long). */
static const char *exec_path(const char *const *envp)
{
	const char *path = getenv_from(envp, "PATH");

	if (!path || strnlen(path, PATH_VALUE_MAX + 1) > PATH_VALUE_MAX)
		path = DEFAULT_PATH;
	return path;
}

char **proc_exec_candidates(const char *argv0, const char *const *envp)
{
	char **list = xcalloc(PATH_ENTRIES_MAX + 1, sizeof(*list));
	const char *path = exec_path(envp), *p;
	size_t n = 0;

	if (!*argv0)
		return list;
	if (strchr(argv0, '/')) {
		list[0] = xstrdup(argv0);
		return list;
	}
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

size_t proc_exec_missing(char *const *cands)
{
	struct stat st;
	size_t k;

	for (k = 0; cands[k] && cands[k][0] == '/'; k++)
		if (stat(cands[k], &st) == 0 || (errno != ENOENT && errno != ENOTDIR))
			return k;
	/*
	 * A relative one next (the child's cwd decides): from there. None
	 * there at all: the child looks at every one, as execvp() would.
	 */
	return cands[k] ? k : 0;
}

/*
 * The program each command name resolves to, found once per PATH for the
 * whole run of abev: how many of its candidates to skip. Only a program
 * found is kept (one a prepare step makes later is looked for again).
 */
struct exec_memo {
	char *argv0, *path;
	size_t skip;
};
static struct exec_memo exec_memo[EXEC_MEMO_MAX];
static size_t exec_memo_n;

static size_t exec_skip(const char *argv0, const char *const *envp, char *const *cands)
{
	const char *path = exec_path(envp);
	size_t skip;

	if (strchr(argv0, '/'))
		return 0;
	for (size_t i = 0; i < exec_memo_n; i++)
		if (!strcmp(exec_memo[i].argv0, argv0) && !strcmp(exec_memo[i].path, path))
			return exec_memo[i].skip;
	skip = proc_exec_missing(cands);
	if (skip && exec_memo_n < EXEC_MEMO_MAX)
		exec_memo[exec_memo_n++] = (struct exec_memo){ xstrdup(argv0), xstrdup(path), skip };
	return skip;
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

char *proc_spawn_error_text(const struct proc_spec *spec, const struct child_error *ce)
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
 * heap and the libraries given back first (they stay withheld from every
 * clone3() child otherwise: marked once, not around each fork).
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
int proc_spawn_prepare(const struct proc_spec *spec, struct run *r)
{
	size_t skip;

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
	/*
	 * The PATH entries that do not hold the program are passed over here,
	 * once, and not tried by the child inside the measured window.
	 */
	skip = exec_skip(spec->argv[0], (const char *const *)r->envp, r->cands);
	if (proc_fork_copy_make(&r->fc, spec->argv, (const char *const *)r->envp,
				(const char *const *)r->cands + skip, spec->cwd,
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

/*
 * Forks the child into its process group (and cgroup), where it waits
 * for the go byte. 0 or -1 after error().
 */
int proc_spawn(const struct proc_spec *spec, struct run *r)
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
	proc_fork_heap_give_back();
	sigprocmask(SIG_SETMASK, &old, NULL);
	proc_fork_copy_release(&r->fc);
	if (pid < 0)
		return error("cannot fork: %s", strerror(errno));
	r->forked = 1;
	r->pid = pid;
	proc_watchdog_follow(pid);
	proc_close_fd(&r->go[0]);
	proc_close_fd(&r->errp[1]);
	/* Only the child may hold the output pipes' write ends: their end is our EOF. */
	proc_close_fd(&r->fd_out);
	proc_close_fd(&r->fd_err);
	/* Both sides call setpgid(), so the group exists before either goes on. */
	if (setpgid(pid, pid) < 0 && errno != EACCES && errno != ESRCH)
		warning("cannot put process %ld in its own group: %s", (long)pid,
			strerror(errno));
	if (r->cg.path && !placed && cgroup_add(&r->cg, pid, &r->res->cgroup_reason) < 0)
		cgroup_release(&r->cg);
	return 0;
}
