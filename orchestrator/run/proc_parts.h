/*
 * proc_parts: what the files of the process runner share and nothing
 * else sees: the state of one run. proc.c runs, waits for and stops the
 * child; proc_spawn.c prepares and starts it; proc_leftovers.c sweeps
 * what it left behind. Internal to proc: the rest of abev includes
 * run/proc.h.
 */
#ifndef ABEV_PROC_PARTS_H
#define ABEV_PROC_PARTS_H

#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "measure/cgroup.h"
#include "measure/proctree.h"
#include "run/cpuwait.h"
#include "run/proc.h"
#include "run/proc_fork.h"
#include "run/proc_io.h"

/* What the child reports over the error pipe before it gives up. */
enum child_stage { STAGE_USER = 1, STAGE_CHDIR, STAGE_REDIRECT, STAGE_AFFINITY, STAGE_EXEC };
struct child_error {
	int stage;
	int err;
};

/* Stop and kill phases of a timeout or an interrupt. */
enum stop_phase { RUNNING, TERM_SENT, KILL_SENT };
enum stop_reason { STOP_NONE, STOP_TIMEOUT, STOP_INTERRUPT, STOP_STAYED_STOPPED };

/* One proc_run(): its child, how it is being stopped, what it needs and measures. */
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
	/* What the launch needs, all made before fork() (proc_spawn_prepare()). */
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
	int64_t stopped_at;     /* CLOCK_MONOTONIC when it was seen stopped */
	int killed_early;       /* a second stop request cut the grace period short */
};

/* Adds ru, the usage of one reaped process, to res's figures. */
void proc_add_rusage(struct proc_result *res, const struct rusage *ru);
/* Reaps whatever has died in the child's process group and is ours. */
void proc_reap_group(struct run *r);
/*
 * Sleeps until a signal arrives, output is ready, or ms pass; reads that
 * output.
 */
void proc_wait_event(struct run *r, int ms);
/* Closes *fd unless it is -1, and sets it to -1. */
void proc_close_fd(int *fd);

/*
 * proc_spawn.c: everything the child needs, before fork(): its exec
 * candidates, stdin, output streams, the go and error pipes, its cgroup
 * and CPU set. 0 or -1 after error().
 */
int proc_spawn_prepare(const struct proc_spec *spec, struct run *r);
/*
 * proc_spawn.c: forks the child into its process group (and cgroup),
 * where it waits for the go byte. 0 or -1 after error().
 */
int proc_spawn(const struct proc_spec *spec, struct run *r);
/* proc_spawn.c: what the child reported over the error pipe, in words (caller frees). */
char *proc_spawn_error_text(const struct proc_spec *spec, const struct child_error *ce);

/*
 * proc_leftovers.c: kills and reaps everything the run left behind, and
 * counts it in r->res->leftovers_killed.
 */
void proc_leftovers_clean(struct run *r);

#endif
