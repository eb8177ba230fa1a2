/*
 * proc: runs one child process the way a measurement needs it — argv
 * executed directly (no shell), its own process group, stdin from
 * /dev/null, stdout/stderr into files, a chosen cwd and environment, an
 * optional cgroup joined and CPU affinity set before exec, a timeout (SIGTERM to the group,
 * SIGKILL after a grace period), wait4() rusage, and a record of every
 * descendant left behind and killed. In log mode abev writes the log
 * files itself from pipes, up to a cap per stream. In capture mode the child's stdout
 * (and stderr, if asked) comes back in a bounded buffer instead of a file:
 * that is how abev runs git and the plan's versions commands. It is the
 * only module that starts processes.
 *
 * It owns abev's signal handling: SIGHUP, SIGINT, SIGQUIT, SIGTERM,
 * SIGUSR1 and SIGUSR2 each set the interrupt flag (the first one wins),
 * stop a running child's group and are reported as PROC_INTERRUPTED (a
 * second one kills the group at once); SIGCONT counts abev's own stops;
 * SIGPIPE and SIGXFSZ are ignored, so that the write fails with EPIPE or
 * EFBIG and is reported where it happens. Every child dies with abev
 * (PR_SET_PDEATHSIG, and a watchdog for the rest of its tree) and runs as
 * the run_as user when one is set. It does not know about plans or
 * evidence.
 */
#ifndef ABEV_PROC_H
#define ABEV_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "record/proc_figures.h"
#include "record/proc_tree.h"
#include "util/hash.h"

struct strbuf;
struct cpulist;
struct dirat;

enum proc_outcome {
	PROC_EXITED,       /* exit_code valid */
	PROC_SIGNALED,     /* signal valid */
	PROC_TIMED_OUT,    /* killed by abev at the timeout */
	PROC_EXEC_FAILED,  /* never ran: exec_error says why */
	PROC_INTERRUPTED,  /* abev got an interrupt signal while the child ran (or before) */
};

/*
 * The paths a child tries for argv0, in order, like execvpe(): argv0
 * itself when it has a '/', else each entry of envp's PATH (or a default)
 * joined with it; relative ones ("./x" for an empty entry) are relative to
 * the child's cwd. NULL-terminated; caller frees with strv_free().
 */
char **proc_exec_candidates(const char *argv0, const char *const *envp);
/*
 * How many of cands (proc_exec_candidates()) the child need not try: the
 * leading absolute ones that do not exist (stat(): ENOENT, ENOTDIR) before
 * the first that does; 0 when none does. proc_run() finds this once per
 * command name and PATH, the first time the program is there, and the
 * child then execs from that candidate on: a program that appears later
 * in an earlier PATH entry is not run, one that disappears fails as it
 * would have (the candidates after it are still tried).
 */
size_t proc_exec_missing(char *const *cands);

struct proc_spec {
	const char *const *argv;   /* argv[0] searched in the child's PATH unless it has a '/' */
	/* complete environment of the child; NULL: abev's own less env_withhold()'s names */
	const char *const *envp;
	const char *cwd;
	const char *stdout_path;   /* created/truncated, mode 0644; NULL: /dev/null */
	/*
	 * When set (borrowed), stdout_path and stderr_path are names beneath
	 * this directory (dirat.h: opened with no link followed), so that a
	 * run cannot make abev create or truncate a file elsewhere.
	 */
	const struct dirat *log_dir;
	const char *stderr_path;   /* likewise; unless capture_stderr */
	/*
	 * Capture mode when set (borrowed): stdout goes through a pipe into
	 * *capture, which keeps its first capture_max bytes (the rest is read
	 * and counted in proc_result.out.bytes_dropped); stdout_path is then
	 * unused. capture_stderr sends stderr into the same pipe.
	 */
	struct strbuf *capture;
	size_t capture_max;
	int capture_stderr;
	/*
	 * Log mode when set (and not capture mode): stdout_path and
	 * stderr_path (those not NULL) are written by abev from pipes, at most
	 * log_max_bytes each; the rest is read, so the child never blocks on
	 * it, and counted in proc_result.out/err.bytes_dropped. Otherwise the
	 * child writes the files itself, without a cap.
	 */
	int log_capped;
	int64_t log_max_bytes;
	/*
	 * Log mode: when > 0 and 2 * log_keep_bytes + PROC_LOG_MARKER_MAX
	 * fits in log_max_bytes, each log keeps only the stream's first and
	 * last log_keep_bytes, with one marker line between them saying how
	 * many bytes were left out (counted in proc_stream.bytes_left_out).
	 * 0: the whole stream up to log_max_bytes.
	 */
	int64_t log_keep_bytes;
	/*
	 * Log mode: hash each stream whole as it is read (proc_stream.hashed,
	 * bytes_total, sha256), whatever of it the log keeps. abev then reads
	 * every byte itself rather than splice() it into the file.
	 */
	int log_hash;
	/*
	 * Log mode, where the streams go instead (proc_io.c): log_discard
	 * reads both pipes and writes nothing (stdout_path and stderr_path
	 * unused); stdout_file (borrowed) takes the whole stdout, no cap, no
	 * head and tail: the name stdout_file_name beneath stdout_file_dir
	 * (borrowed, the directory the caller opened once, before any run),
	 * opened by abev with no link followed and truncated — a symlink, a
	 * file with another hard link or one that is not regular is refused
	 * (proc_run() returns -1) and left untouched. stdout_file names it in
	 * messages. A run that replaces a directory on the path by a link
	 * cannot move the file elsewhere: the directory is reached by its
	 * descriptor, not by its path.
	 */
	int log_discard;
	const char *stdout_file;
	const struct dirat *stdout_file_dir;
	const char *stdout_file_name;
	/* The child's stdout and stderr are abev's own (not in capture or log mode). */
	int inherit_output;
	int64_t timeout_ns;        /* 0: none */
	int64_t grace_ns;          /* SIGTERM -> SIGKILL delay */
	const char *cgroup_name;   /* NULL: no cgroup attempted */
	const struct cpulist *cpus;/* CPUs the child may run on (borrowed); NULL: abev's own */
	/*
	 * Run as abev itself even when proc_run_as() set a user: for abev's
	 * own look at the checkout (git), never for the plan's commands.
	 */
	int as_abev;
	/* Called about every 100 ms while the child runs (may be NULL). */
	void (*tick)(void *arg, int64_t elapsed_ns);
	void *tick_arg;
};

struct proc_stream {
	int64_t bytes_written;     /* kept (written to the file or the capture) */
	int64_t bytes_dropped;     /* read from the pipe and thrown away */
	int64_t bytes_left_out;    /* log_keep_bytes: the middle of the stream, not kept */
	/*
	 * log_hash: the whole stream as abev read it from the pipe, its size
	 * and SHA-256; hashed is 0 when it was not hashed.
	 */
	int hashed;
	int64_t bytes_total;
	unsigned char sha256[SHA256_LEN];
};

/* The most bytes of the marker line that stands for the middle left out of a log. */
#define PROC_LOG_MARKER_MAX 80

/* How long a child may stay stopped before abev ends it (proc_result.stayed_stopped). */
#define PROC_STAYED_STOPPED_NS (10 * 1000000000LL)

struct proc_result {
	enum proc_outcome outcome;
	int exit_code;             /* -1 unless exited (also set for timeouts: how it ended) */
	int signal;                /* 0 unless killed by a signal (also set for timeouts) */
	/*
	 * The last signal abev sent the group to stop it (a timeout or an
	 * interrupt): SIGTERM, or SIGKILL once the grace period was over or
	 * a second interrupt came; 0 when none was sent.
	 */
	int stop_signal;
	int core_dumped;
	int interrupt_signal;      /* the interrupt signal received by abev, or 0 */
	char *exec_error;          /* "cannot execute 'x': No such file or directory"; caller frees */
	struct timespec start_real, end_real;
	/*
	 * CLOCK_MONOTONIC, from the "go" byte to the child's reaping. Before
	 * the clock starts: fork, the child's signal reset and process group,
	 * its cgroup (born in it, or moved), every pipe and log file. Inside
	 * the window: the child's wake-up on the go pipe, chdir, dup2 of its
	 * streams, execve (including the release of the address space it
	 * shared with abev), the program itself, its exit and abev's wake-up
	 * on SIGCHLD. After it: leftovers, the last of the output pipes,
	 * cgroup figures. What abev does meanwhile (reading the pipes) is
	 * abev's CPU (self_cpu_ns), not the child's.
	 */
	struct proc_figures fig;
	int64_t self_cpu_ns;       /* abev's own CPU time during the window */
	unsigned leftovers_killed; /* descendants still alive after the child exited */
	/*
	 * Pauses inside the window, which its figures then include: how often
	 * abev itself was stopped and continued (Ctrl-Z, SIGSTOP: it reaps
	 * late), how often the child was (SIGSTOP or SIGTSTP to its group),
	 * and how long the machine was suspended (CLOCK_BOOTTIME against
	 * CLOCK_MONOTONIC; 0 under a millisecond).
	 */
	unsigned stops_abev, stops_child;
	int64_t suspended_ns;
	/* A second interrupt (or one during a timeout's grace) killed the group at once. */
	int killed_early;
	/*
	 * The child stopped (SIGSTOP, SIGTSTP) and stayed stopped for
	 * PROC_STAYED_STOPPED_NS: abev ended it as it ends one that times out
	 * (outcome PROC_TIMED_OUT), since a stopped process never ends by
	 * itself, with or without a timeout.
	 */
	int stayed_stopped;
	/* cgroup figures: valid when cgroup_reason == NULL */
	int64_t cg_memory_peak_bytes; /* -1: not available (see cg_memory_note) */
	int64_t cg_cpu_usage_ns;
	char *cgroup_reason;       /* why there is no cgroup; caller frees */
	const char *cg_memory_note;/* static: why memory_peak is -1, or NULL */
	/*
	 * Time the child was runnable but waiting for a CPU: tree_wait_ns
	 * where the tree's threads could be read, else the cgroup's
	 * cpu.pressure "some" over the run, over the wall time (never more).
	 * -1 when neither could be read;
	 * cpu_wait_source is then NULL and cpu_wait_note says why. Static strings.
	 */
	int64_t cpu_wait_ns;
	const char *cpu_wait_source;  /* "schedstat", "cgroup" or NULL */
	const char *cpu_wait_note;    /* why unknown, or what the figure leaves out; or NULL */
	/*
	 * The wall time the tree's threads lost waiting for a CPU, by their
	 * schedstat counters (measure/taskdelay.h: exact for one thread, an
	 * estimate for many), and their active time, sum (cpu + run_delay);
	 * -1 when none could be read.
	 */
	int64_t tree_wait_ns;
	int64_t tree_active_ns;
	/*
	 * The cgroup's cpu.pressure "some" over the run, as context: it counts
	 * the tree as waiting whenever one of its threads waits, and reads low
	 * beside unpinned busy loops (docs/plan.md, Contention). -1: no cgroup or PSI.
	 */
	int64_t cgroup_cpu_wait_ns;
	int64_t system_cpu_wait_ns;   /* /proc/pressure/cpu "some" over the same window; -1 */
	/* capture and log mode: what was kept and what was read past the cap */
	struct proc_stream out, err;
	/*
	 * Each process of the tree with its own figures (measure/proctree.h: from
	 * taskstats exit records, else /proc); empty in capture mode.
	 */
	struct proc_tree procs;
};

/*
 * Must be called once before the first proc_run(), as early as possible
 * (a signal before it kills abev the default way): installs the signal
 * handlers, ignores SIGPIPE and SIGXFSZ, forks the watchdog (abev waits
 * for it at exit; without one a warning says so and the run goes on),
 * makes abev a child subreaper so orphans come back to it. Returns 0 or
 * -1. A second call does nothing.
 */
int proc_setup(void);
/* Non-zero once an interrupt signal has reached abev (the first one's number). */
int proc_interrupted(void);
/*
 * How many interrupt signals have reached abev (a second one kills at
 * once): two readings tell whether one came between them.
 */
int proc_interrupt_count(void);
/* "SIGTERM" and so on; "signal" for one without a name here. Static. */
const char *proc_signal_name(int sig);
/*
 * Sleeps ns, returning early with the signal number if an interrupt signal
 * arrives; 0 otherwise. Calls tick as proc_run() does (elapsed counts up).
 */
int proc_sleep(int64_t ns, void (*tick)(void *, int64_t), void *arg);

/*
 * The user the children run as (`run_as`): looked up before anything
 * runs, switched to in the child before exec (setgroups with the user's
 * groups, setgid, setuid), so that the commands cannot read what only
 * root may (the signing key) nor write the evidence outside their run
 * directory.
 */
struct proc_user {
	char *name;
	uid_t uid;
	gid_t gid;
	gid_t *groups;     /* supplementary groups, as initgroups() would set them */
	int ngroups;
	mode_t umask;      /* the file mode mask it runs with (proc_run_as(): abev's own before) */
};
#define PROC_USER_INIT { NULL, 0, 0, NULL, 0, 022 }

/* Looks name up (getpwnam, getgrouplist). 0, or -1 without a message: no such user. */
int proc_user_lookup(struct proc_user *u, const char *name);
void proc_user_release(struct proc_user *u);
/*
 * From now on every child proc_run() starts (but those with as_abev) runs
 * as u (copied); NULL: as abev. Only root can: otherwise -1 after error().
 * abev's own file mode mask becomes 077 meanwhile, so that what it writes
 * is not the user's to read whatever the umask (the directories on the way
 * to a run's own are let through, o+x, and no more); the children get the
 * mask abev was started with. NULL gives it back.
 */
int proc_run_as(const struct proc_user *u);
/* The user set by proc_run_as(), or NULL. Borrowed, valid until the next call. */
const struct proc_user *proc_run_as_user(void);
/*
 * Hands a run directory, open as fd (dir names it in messages), to that
 * user so that its child can write there, and back to abev once the
 * child is gone (revoke: what the child made inside stays its own). Both
 * do nothing without a user. 0 or -1 after error().
 */
int proc_run_as_grant(int fd, const char *dir);
/*
 * Lets that user through abev's own directories above a run directory:
 * root (the evidence root, borrowed) and every directory of rel but its
 * last, each given search permission for others (S_IXOTH: pass, not
 * list) when abev owns it and it lacks it — under a umask of 077 they
 * are made 0700, and the user could not reach its run directory. Opened
 * one by one beneath root, no link followed. Does nothing without a
 * user. 0 or -1 after error().
 */
int proc_run_as_reach(const struct dirat *root, const char *rel);
int proc_run_as_revoke(int fd, const char *dir);

/*
 * Runs the child to completion. Returns 0 when the outcome is recorded in
 * *res (whatever it is, including exec failure), -1 when abev itself could
 * not proceed (cannot open the log files, fork failed) after error().
 * res must be released with proc_result_release().
 */
int proc_run(const struct proc_spec *spec, struct proc_result *res);
/*
 * A way to run a spec as proc_run() does: proc_run() itself (NULL where a
 * caller takes one), or a stand-in for it — the pipeline's machine
 * operations, a unit test's scripted runs (pipeline/machine.h).
 */
struct proc_runner {
	int (*run)(void *arg, const struct proc_spec *spec, struct proc_result *res);
	void *arg;
};
void proc_result_release(struct proc_result *res);
/*
 * How a child abev stopped (res->stop_signal set: a timeout, an
 * interrupt) was stopped and how it ended, for a reason: "stopped with
 * SIGTERM; it exited with code 143", "stopped with SIGTERM, then SIGKILL
 * after the grace period; it was killed by SIGKILL". Caller frees.
 */
char *proc_stop_text(const struct proc_result *res);
/*
 * The reason of a PROC_TIMED_OUT result: "timed out after timeout_s s;
 * <proc_stop_text()>" — "timed out after timeout_s s (<limit>); ..." with
 * limit, words saying whose limit it was (borrowed; NULL: none) — or,
 * when it stayed stopped, that it did and for how long. Caller frees.
 */
char *proc_timeout_text(const struct proc_result *res, double timeout_s, const char *limit);

#endif
