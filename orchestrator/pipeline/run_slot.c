/*
 * run_slot: one slot of the schedule — each attempt waits out the gap,
 * runs the prepare step and the measured command through proc with the
 * samples around it that judge its load (machine CPU, load average, other
 * abev runs, load.exclusive processes), records what was measured, has
 * judge.c judge it, writes its files and result.json, and repeats the
 * slot while judge_load() discards the attempt and repeats are left. It
 * does not decide whether a run counts (judge.c) and does not set up or
 * finish the run (runner.c).
 */
#include "pipeline/run_slot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cpulist.h"
#include "util/dirat.h"
#include "decide/compare.h"
#include "guards/guard.h"
#include "pipeline/judge.h"
#include "pipeline/quiet.h"
#include "evidence/ledger.h"
#include "run/dotnet_hook.h"
#include "run/prepare.h"
#include "run/proc.h"
#include "seal/seal.h"
#include "measure/foreignwait.h"
#include "measure/sysstat.h"
#include "util/tree.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/usage.h"

/*
 * The child's environment: abev's own, then the plan's, then ABEV_*, and
 * with hook (NULL: none) the .NET startup hook added to the user's
 * DOTNET_STARTUP_HOOKS. Caller frees.
 */
static char **build_env(const struct plan_variant *v, const struct plan_vars *vars,
			const char *hook)
{
	struct env_array env = ENV_ARRAY_INIT;
	char round[16];

	plan_variant_env(v, vars, &env);
	snprintf(round, sizeof(round), "%u", vars->round);
	env_set(&env, "ABEV_RUN_DIR", vars->run_dir);
	env_set(&env, "ABEV_VARIANT", vars->variant);
	env_set(&env, "ABEV_PHASE", vars->phase);
	env_set(&env, "ABEV_ROUND", round);
	if (hook)
		dotnet_hook_env(&env, hook);
	return env.v;
}

struct tick_ctx {
	struct progress *prog;
	int64_t gap_total_ns;
	struct overlap_watch *watch;
	const struct machine_ops *m;  /* scans watch, when set */
};

static void run_tick(void *arg, int64_t elapsed_ns)
{
	struct tick_ctx *t = arg;
	progress_tick(t->prog, elapsed_ns);
	if (t->watch)
		t->m->overlap_scan(t->m->arg, t->watch);
}

static void gap_tick(void *arg, int64_t elapsed_ns)
{
	struct tick_ctx *t = arg;
	progress_gap(t->prog, t->gap_total_ns - elapsed_ns);
}

static void set_status(struct invocation *inv, const struct proc_result *res,
		       const struct plan *plan)
{
	switch (res->outcome) {
	case PROC_EXITED:
		/* Whether the exit code is acceptable is the exit_code guard's call. */
		inv->status = INV_OK;
		break;
	case PROC_SIGNALED:
		inv->status = INV_FAILED;
		inv->reason = xasprintf("killed by signal %d (%s)%s", res->signal,
					proc_signal_name(res->signal),
					res->core_dumped ? ", core dumped" : "");
		break;
	case PROC_TIMED_OUT:
		inv->status = INV_TIMED_OUT;
		inv->reason = proc_timeout_text(res, plan->set.timeout_seconds, NULL);
		break;
	case PROC_EXEC_FAILED:
		inv->status = INV_EXEC_FAILED;
		inv->reason = xstrdup(res->exec_error ? res->exec_error : "could not be executed");
		break;
	case PROC_INTERRUPTED:
		inv->status = INV_INTERRUPTED;
		inv->reason = xasprintf("abev received %s; the process group was stopped",
					proc_signal_name(res->interrupt_signal));
		break;
	}
}

/*
 * The contention figures of a run as proc measured them: the child tree's
 * CPU wait, and the machine's (/proc/pressure/cpu) over the same window for
 * context. A command that never ran waited for nothing.
 */
static void record_cpu_wait(struct invocation *inv, const struct proc_result *res)
{
	if (res->outcome == PROC_EXEC_FAILED) {
		inv->cpu_wait_note = xstrdup("the command was not executed");
		return;
	}
	inv->cpu_wait_ns = res->cpu_wait_ns;
	inv->tree_wait_ns = res->tree_wait_ns;
	inv->tree_active_ns = res->tree_active_ns;
	inv->cgroup_cpu_wait_ns = res->cgroup_cpu_wait_ns;
	inv->cpu_wait_source = res->cpu_wait_source ? xstrdup(res->cpu_wait_source) : NULL;
	inv->cpu_wait_note = res->cpu_wait_note ? xstrdup(res->cpu_wait_note) : NULL;
	inv->system_cpu_wait_ns = res->system_cpu_wait_ns;
}

/*
 * An invocation whose prepare command did not succeed: the measured
 * command was not run, so the slot fails (or stops the run, when abev
 * was interrupted) with the prepare step's reason.
 */
static void record_unprepared(struct run_state *st, struct invocation *inv)
{
	const struct invocation_prepare *p = inv->prepare;

	run_state_now_utc(st, inv->start_utc);
	memcpy(inv->end_utc, inv->start_utc, sizeof(inv->end_utc));
	inv->cpu_wait_note = xstrdup("the command was not run: its prepare command failed");
	if (p->interrupt_signal) {
		inv->status = INV_INTERRUPTED;
		st->interrupt = p->interrupt_signal;
	} else {
		inv->status = INV_FAILED;
	}
	inv->reason = xasprintf("not run: the prepare command %s", p->reason);
}

/* An invocation of slot, attempt (1-based), before anything runs. */
static void inv_init(const struct run_state *st, const struct sched_slot *slot,
		     unsigned attempt, struct invocation *inv)
{
	const struct plan *plan = st->plan;
	const struct plan_variant *v = &plan->variants[slot->variant];
	const char *phase = slot->warmup ? "warmup" : "run";

	memset(inv, 0, sizeof(*inv));
	inv->seq = (unsigned)st->ninvs + 1;
	inv->variant = xstrdup(v->name);
	inv->warmup = slot->warmup;
	inv->round = slot->round;
	inv->attempt = attempt;
	inv->exit_code = -1;
	inv->foreign_cpu = -1;
	inv->foreign_cpu_resolution = -1;
	inv->max_foreign_cpu = plan->set.max_foreign_cpu;
	inv->max_cpu_wait_pct = plan->set.max_cpu_wait_pct;
	inv->cpu_wait_ns = -1;
	inv->tree_wait_ns = -1;
	inv->tree_active_ns = -1;
	inv->cgroup_cpu_wait_ns = -1;
	inv->foreign_busy_fine_ns = -1;
	inv->system_cpu_wait_ns = -1;
	inv->foreign_busy_ns = -1;
	inv->foreign_wait_ns = -1;
	inv->cpus = v->cpus ? xstrdup(v->cpus) : NULL;
	inv->load_wait_ns = st->load_wait_next_ns;
	inv->cg_memory_peak_bytes = -1;
	inv->cg_cpu_usage_ns = -1;
	if (attempt == 1)
		inv->dir = xasprintf(EVIDENCE_RUNS_DIR "/%s/%s-%u", v->name, phase, slot->round);
	else
		inv->dir = xasprintf(EVIDENCE_RUNS_DIR "/%s/%s-%u-attempt-%u", v->name, phase, slot->round, attempt);
	inv->cwd = xstrdup(v->cwd);
}

/* The command and results pattern with the placeholders expanded. 0, or -1 after error(). */
static int inv_expand(const struct plan *plan, const struct plan_variant *v,
		      const struct plan_vars *vars, struct invocation *inv)
{
	inv->argv = xcalloc(v->command_len + 1, sizeof(*inv->argv));
	for (size_t i = 0; i < v->command_len; i++) {
		inv->argv[i] = plan_expand(v->command[i], vars);
		if (!inv->argv[i])
			return -1;
		inv->argc++;
	}
	if (plan->results_files)
		inv->results_files = plan_expand(plan->results_files, vars);
	return 0;
}

/*
 * The part of the run's wait other processes caused, and how it was
 * found (measure/foreignwait.h): what wall_own takes out and the load
 * guard judges.
 */
static void record_foreign_wait(struct invocation *inv)
{
	struct foreignwait fw;
	struct foreignwait_in in = {
		.wall_ns = inv->fig.wall_ns,
		.wait_ns = inv->cpu_wait_ns,
		.from_threads = inv->cpu_wait_source && !strcmp(inv->cpu_wait_source, "schedstat"),
		.active_ns = inv->tree_active_ns,
		.busy_ns = inv->foreign_busy_ns,
		.set_cpus = inv->run_cpus,
		.busy_fine_ns = inv->foreign_busy_fine_ns,
	};

	foreignwait_estimate(&in, &fw);
	inv->foreign_wait_ns = fw.ns;
	inv->foreign_wait_basis = fw.basis;
}

/* What was kept of one stream, and what it was whole when proc hashed it. */
static void inv_record_log(struct invocation_log *lg, const struct proc_stream *st)
{
	*lg = (struct invocation_log){ st->bytes_written, st->bytes_dropped, st->bytes_left_out,
				       0, "" };
	if (st->hashed) {
		lg->bytes_total = st->bytes_total;
		sha256_hex(st->sha256, lg->sha256);
	}
}

/* What proc measured, as the invocation records it. */
static void inv_record(struct invocation *inv, const struct proc_result *res,
		       const struct cpustat *cs_before, const struct cpustat *cs_after,
		       const struct plan *plan)
{
	utc_format(inv->start_utc, &res->start_real);
	utc_format(inv->end_utc, &res->end_real);
	inv->fig = res->fig;
	proc_tree_release(&inv->procs);
	proc_tree_copy(&inv->procs, &res->procs);
	inv->exit_code = res->outcome == PROC_EXITED ? res->exit_code : -1;
	inv->signal = res->signal;
	inv->core_dumped = res->core_dumped;
	inv->timed_out = res->outcome == PROC_TIMED_OUT;
	inv->exec_error = res->exec_error ? xstrdup(res->exec_error) : NULL;
	inv->leftovers_killed = res->leftovers_killed;
	inv->stops_abev = res->stops_abev;
	inv->stops_child = res->stops_child;
	inv->suspended_ns = res->suspended_ns;
	inv_record_log(&inv->logs[0], &res->out);
	inv_record_log(&inv->logs[1], &res->err);
	if (res->outcome != PROC_EXEC_FAILED) {
		inv->foreign_cpu = sysstat_foreign_cpu(cs_before, cs_after,
						       res->fig.user_ns + res->fig.sys_ns + res->self_cpu_ns,
						       res->fig.wall_ns);
		/*
		 * Kept as result.json keeps it (6 decimals), so that a report
		 * rendered again from the evidence shows the same figures.
		 */
		if (inv->foreign_cpu >= 0) {
			inv->foreign_cpu = round(inv->foreign_cpu * 1e6) / 1e6;
			inv->foreign_cpu_resolution = sysstat_foreign_cpu_resolution(res->fig.wall_ns);
		}
		inv->foreign_busy_ns = sysstat_foreign_busy_ns(cs_before, cs_after,
							       res->fig.user_ns + res->fig.sys_ns +
							       res->self_cpu_ns,
							       res->fig.wall_ns);
		if (inv->foreign_busy_ns >= 0)
			inv->run_cpus = cs_before->set_cpus;
		inv->foreign_busy_fine_ns = sysstat_foreign_busy_fine_ns(cs_before, cs_after,
									 res->fig.user_ns +
									 res->fig.sys_ns +
									 res->self_cpu_ns,
									 res->fig.wall_ns);
		if (inv->foreign_busy_fine_ns >= 0)
			inv->foreign_busy_fine_source = xstrdup(cs_before->run_source);
	}
	record_cpu_wait(inv, res);
	record_foreign_wait(inv);
	if (!res->cgroup_reason) {
		inv->cgroup_valid = 1;
		inv->cg_memory_peak_bytes = res->cg_memory_peak_bytes;
		inv->cg_cpu_usage_ns = res->cg_cpu_usage_ns;
		if (res->cg_memory_note)
			inv->cgroup_note = xstrdup(res->cg_memory_note);
	} else {
		inv->cgroup_note = xstrdup(res->cgroup_reason);
	}
	set_status(inv, res, plan);
}

/* Run-level notes on what the invocation's logs and leftovers lost. */
static void note_losses(struct run_state *st, const struct invocation *inv)
{
	const struct plan *plan = st->plan;

	for (int i = 0; i < 2; i++) {
		const struct invocation_log *lg = &inv->logs[i];
		if (lg->bytes_dropped <= 0)
			continue;
		if (lg->bytes_written >= plan->max_log_bytes)
			run_state_note(st, xasprintf("%s: %s was truncated at limits.max_log_bytes: %lld "
					       "bytes kept, %lld more read and dropped",
					       inv->dir, i ? EVIDENCE_STDERR_LOG : EVIDENCE_STDOUT_LOG,
					       (long long)lg->bytes_written,
					       (long long)lg->bytes_dropped));
		else
			run_state_note(st, xasprintf("%s: %s is incomplete: writing it failed after %lld "
					       "bytes (see abev's error output, e.g. the file-size "
					       "limit), %lld more read and dropped",
					       inv->dir, i ? EVIDENCE_STDERR_LOG : EVIDENCE_STDOUT_LOG,
					       (long long)lg->bytes_written,
					       (long long)lg->bytes_dropped));
	}
	if (inv->leftovers_killed)
		run_state_note(st, xasprintf("%s: %u process(es) left behind by the child were killed",
				       inv->dir, inv->leftovers_killed));
}

/*
 * Runs proc with the samples around it that judge the run's load. 0, or
 * -1 after error() when the process could not be run.
 */
static int measure(struct run_state *st, const struct proc_spec *spec, struct invocation *inv,
		   struct proc_result *res, const struct cpulist *run_cpus,
		   struct cpustat *cs_before, struct cpustat *cs_after)
{
	const struct machine_ops *m = st->m;
	struct peers_look look_before = PEERS_LOOK_INIT, look_after = PEERS_LOOK_INIT;
	int ret = -1;

	judge_before(st->judge, inv);
	m->loadavg(m->arg, &inv->load_before);
	m->peers_look(m->arg, &st->peers, &look_before);
	m->overlap_scan(m->arg, &st->watch);
	m->cpustat(m->arg, run_cpus, cs_before);
	if (m->run(m->arg, spec, res) < 0)
		goto out;
	m->cpustat(m->arg, run_cpus, cs_after);
	m->overlap_scan(m->arg, &st->watch);
	m->peers_look(m->arg, &st->peers, &look_after);
	peers_overlap(&st->peers, &look_before, &look_after, &st->watch);
	overlap_watch_take(&st->watch, &inv->overlaps, &inv->noverlaps, &inv->overlaps_unnamed);
	m->loadavg(m->arg, &inv->load_after);
	ret = 0;
out:
	peers_look_release(&look_before);
	peers_look_release(&look_after);
	return ret;
}

/*
 * The directory rel beneath the evidence root (one abev made) given
 * u+rwx back, when a run took it away (a run of abev's own user can):
 * abev must write, rename and remove there to seal. The note says so.
 */
static void reclaim_dir(struct run_state *st, const char *rel)
{
	/* The root itself through abev's own descriptor: "." in it needs the search right it lost. */
	int fd = *rel ? dirat_openat(&st->ev, rel, O_RDONLY | O_DIRECTORY, 0) : dup(st->ev.fd);
	char link[48];
	struct stat sb;

	if (fd < 0 && errno == EACCES) {
		/* Closed to abev itself: opened through O_PATH, which needs no permission on it. */
		fd = dirat_openat(&st->ev, rel, O_PATH | O_DIRECTORY, 0);
	}
	if (fd < 0 || fstat(fd, &sb) < 0 || (sb.st_mode & S_IRWXU) == S_IRWXU ||
	    sb.st_uid != geteuid())
		goto out;
	/* An O_PATH descriptor takes no fchmod(): its /proc name does. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (chmod(link, (sb.st_mode & 07777) | S_IRWXU) < 0)
		goto out;
	run_state_note(st, xasprintf("%s: its mode was changed to %04o during the run; abev took "
				     "u+rwx back to seal the evidence", *rel ? rel : ".",
				     (unsigned)(sb.st_mode & 07777)));
out:
	if (fd >= 0)
		close(fd);
}

void run_slot_reclaim_above(struct run_state *st, const char *rel)
{
	char *path = xstrdup(rel);

	reclaim_dir(st, "");
	for (char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		reclaim_dir(st, path);
		*slash = '/';
	}
	reclaim_dir(st, path);
	free(path);
}

/*
 * Whether the invocation's directory is still the one abev made (made:
 * its identity then). A run may have deleted it, or replaced it (or a
 * directory above it) by a link to elsewhere, another directory or a
 * file: abev follows nothing, removes only the link or file that stands
 * at the run directory's own name, makes the directory again for the
 * record, and says what it found. Returns NULL when it is intact, else
 * the reason the invocation fails (caller frees); -1 in *err when the
 * record has no place (a directory above it is not abev's).
 */
static char *run_dir_check(struct run_state *st, const struct invocation *inv,
			   const struct stat *made, int *err)
{
	struct stat now;
	struct dirat again = DIRAT_INIT;
	char *what = NULL, *reason = NULL;
	int r;

	/* A run of abev's own user may have closed abev's directories on the way: taken back first. */
	{
		char *parent = xstrdup(inv->dir), *slash = strrchr(parent, '/');

		if (slash) {
			*slash = '\0';
			run_slot_reclaim_above(st, parent);
		}
		free(parent);
	}
	r = dirat_lstat(&st->ev, inv->dir, &now);

	*err = 0;
	if (r == 0 && S_ISDIR(now.st_mode) && now.st_dev == made->st_dev &&
	    now.st_ino == made->st_ino)
		return NULL;
	if (r < 0 && errno == ENOENT) {
		what = xstrdup("deleted it");
	} else if (r < 0) {
		*err = error("%s: a directory above the run directory was replaced during the "
			     "run (%s); abev did not follow it", inv->dir, strerror(errno));
		return NULL;
	} else if (S_ISLNK(now.st_mode)) {
		char target[1024];
		const char *base;
		int dfd = dirat_parent(&st->ev, inv->dir, &base);
		ssize_t n = dfd >= 0 ? readlinkat(dfd, base, target, sizeof(target) - 1) : -1;
		char *shown;
		if (dfd >= 0)
			close(dfd);
		target[n < 0 ? 0 : n] = '\0';
		shown = evname_printable(target, strlen(target));
		what = xasprintf("replaced it by a symbolic link to '%s'", shown);
		free(shown);
	} else if (S_ISDIR(now.st_mode)) {
		what = xstrdup("replaced it by another directory");
	} else {
		what = xasprintf("replaced it by a %s", tree_kind(now.st_mode));
	}
	/* Only the link or file at the run directory's own name goes: never what it points to. */
	if (r == 0 && !S_ISDIR(now.st_mode) && dirat_unlink(&st->ev, inv->dir, 0) < 0) {
		*err = error("cannot remove '%s/%s': %s", st->root, inv->dir, strerror(errno));
		goto out;
	}
	if (dirat_mkdirs(&st->ev, inv->dir, &again) < 0) {
		*err = -1;
		goto out;
	}
	reason = xasprintf("the run %s during the run (abev followed nothing there; what the "
			   "run wrote in its directory is not in the evidence)", what);
	run_state_note_tampered(st, xasprintf("%s: %s", inv->dir, reason));
out:
	dirat_release(&again);
	free(what);
	return reason;
}

/*
 * What an earlier run planted where this invocation's directory is to be
 * made (runs/, runs/<variant>/ or the directory itself): a link or other
 * non-directory at one of those names is removed (the link itself, never
 * what it points to), a directory at the invocation's own name is moved
 * aside. Either makes the evidence failed: the notes say what was found.
 * 0, or -1 after error().
 */
static int clear_planted(struct run_state *st, const char *dir)
{
	char *prefix = xstrdup(dir);
	int ret = 0;

	for (char *p = prefix;; p++) {
		struct stat now;
		char c = *p;
		if (c && c != '/')
			continue;
		*p = '\0';
		if (dirat_lstat(&st->ev, prefix, &now) == 0 && (!S_ISDIR(now.st_mode) || !c)) {
			char *aside = NULL;
			if (!S_ISDIR(now.st_mode)) {
				if (dirat_unlink(&st->ev, prefix, 0) < 0)
					ret = error("cannot remove '%s/%s': %s", st->root, prefix,
						    strerror(errno));
			} else {
				aside = xasprintf("%s-planted", prefix);
				if (dirat_rename(&st->ev, prefix, aside) < 0)
					ret = error("cannot move '%s/%s' aside: %s", st->root, prefix,
						    strerror(errno));
			}
			run_state_note_tampered(st, xasprintf("%s: a %s planted by an earlier run "
							      "stood where abev makes this "
							      "directory; %s", prefix,
							      tree_kind(now.st_mode),
							      aside ? "it was moved aside, and is "
								      "not abev's record"
								    : "it was removed (not followed)"));
			st->tampered++;
			free(aside);
		}
		*p = c;
		if (!c || ret < 0)
			break;
	}
	free(prefix);
	return ret;
}

/* A run directory that was swapped fails its invocation, whatever else happened. */
static void fail_swapped(struct invocation *inv, char *why)
{
	char *reason = inv->reason ? xasprintf("%s; %s", why, inv->reason) : xstrdup(why);

	if (inv->status != INV_INTERRUPTED)
		inv->status = INV_FAILED;
	free(inv->reason);
	inv->reason = reason;
	free(why);
}

/*
 * The CPUs variant v's runs may use: its cpus (pinned), else abev's own
 * affinity, which a child inherits (empty when unreadable). 0, or -1
 * after error() when its list does not parse: the plan checked it, so
 * that would be abev's own fault.
 */
static int variant_cpus(const struct plan_variant *v, struct cpulist *cpus)
{
	char *bad = NULL;

	if (!v->cpus) {
		sysstat_affinity(cpus);
		return 0;
	}
	if (cpulist_parse(v->cpus, cpus, &bad) < 0) {
		error("variant '%s': cpus %s", v->name, bad);
		free(bad);
		return -1;
	}
	return 0;
}

/*
 * What a command left in inv's directory made sealable: modes abev can
 * read (and none it should not keep), then links and odd names go. 0, or
 * -1 after error().
 */
static int take_back_run_dir(struct run_state *st, const struct invocation *inv)
{
	if (evname_take_back(&st->ev, inv->dir, proc_run_as_user() != NULL, run_state_note_cb,
			     st) < 0 ||
	    evname_tidy(&st->ev, inv->dir, run_state_note_cb, st) < 0)
		return -1;
	return 0;
}

/* Whether a metric reads test.log or stderr.log, which must then hold the whole stream. */
static int reads_output(const struct plan *plan)
{
	for (size_t i = 0; i < plan->nmetrics; i++)
		if (plan->metrics[i].source == METRIC_STDOUT || plan->metrics[i].source == METRIC_STDERR)
			return 1;
	return 0;
}

int run_slot_open_outputs(struct run_state *st)
{
	const struct plan *plan = st->plan;

	st->output_dirs = xcalloc(plan->nvariants, sizeof(*st->output_dirs));
	for (size_t i = 0; i < plan->nvariants; i++)
		st->output_dirs[i] = (struct dirat)DIRAT_INIT;
	for (size_t i = 0; i < plan->nvariants; i++) {
		const char *file = plan->variants[i].output_file;
		const char *slash = file ? strrchr(file, '/') : NULL;
		struct dirat *d = &st->output_dirs[i];

		if (plan->variants[i].output != PLAN_OUTPUT_FILE || !slash)
			continue;
		/* The directory the user named, links and all, as it is before any run. */
		d->path = slash == file ? xstrdup("/") : xstrndup(file, (size_t)(slash - file));
		d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d->fd < 0)
			return error("cannot open the directory of output file '%s': %s", file,
				     strerror(errno));
	}
	return 0;
}

/* Where the command's streams go, by the variant's "output" (plan.h). */
static void spec_output(struct proc_spec *spec, const struct run_state *st, size_t vi)
{
	const struct plan_variant *v = &st->plan->variants[vi];

	switch (v->output) {
	case PLAN_OUTPUT_NULL:
		spec->stdout_path = spec->stderr_path = NULL;
		break;
	case PLAN_OUTPUT_PIPE:
		spec->stdout_path = spec->stderr_path = NULL;
		spec->log_discard = 1;
		break;
	case PLAN_OUTPUT_INHERIT:
		spec->inherit_output = 1;
		break;
	case PLAN_OUTPUT_FILE:
		spec->stdout_file = v->output_file;
		spec->stdout_file_dir = st->output_dirs ? &st->output_dirs[vi] : NULL;
		spec->stdout_file_name = strrchr(v->output_file, '/') + 1;
		break;
	case PLAN_OUTPUT_LOG:
		break;
	}
}

/*
 * Runs the invocation's command in its directory abs_dir and records what
 * was measured. *signo: the interrupt signal when abev was interrupted
 * while it ran, else 0. 0, or -1 after error().
 */
static int run_process(struct run_state *st, const struct plan_variant *v, char **env,
		       const struct stat *made, struct invocation *inv, int *signo, int *swapped)
{
	const struct plan *plan = st->plan;
	char *out_path = path_join(inv->dir, EVIDENCE_STDOUT_LOG);
	char *err_path = path_join(inv->dir, EVIDENCE_STDERR_LOG);
	char *why = NULL;
	int err = 0;
	char *cg_name = xasprintf("%u", inv->seq);
	struct cpulist cpus = CPULIST_INIT;
	struct tick_ctx tick = { &st->prog, 0, &st->watch, st->m };
	struct proc_result res;
	struct cpustat cs_before, cs_after;
	int ret = -1;

	memset(&res, 0, sizeof(res));
	if (variant_cpus(v, &cpus) < 0)
		goto out;

	struct proc_spec spec = {
		.argv = (const char *const *)inv->argv,
		.envp = (const char *const *)env,
		.cwd = v->cwd,
		.stdout_path = out_path,
		.stderr_path = err_path,
		.log_dir = &st->ev,
		.timeout_ns = (int64_t)(plan->set.timeout_seconds * 1e9),
		.grace_ns = (int64_t)(plan->kill_grace_seconds * 1e9),
		.log_capped = 1,
		.log_max_bytes = plan->max_log_bytes,
		.log_keep_bytes = reads_output(plan) ? 0 : plan->log_keep_bytes,
		.log_hash = 1,
		.cgroup_name = cg_name,
		.cpus = v->cpus ? &cpus : NULL,
		.tick = run_tick,
		.tick_arg = &tick,
	};

	spec_output(&spec, st, (size_t)(v - plan->variants));
	free(inv->output);
	inv->output = xstrdup(plan_output_text(v));
	if (measure(st, &spec, inv, &res, &cpus, &cs_before, &cs_after) < 0)
		goto out;
	why = run_dir_check(st, inv, made, &err);
	if (err < 0)
		goto out;
	if (!why && take_back_run_dir(st, inv) < 0)
		goto out;
	inv_record(inv, &res, &cs_before, &cs_after, plan);
	*swapped = why != NULL;
	if (why)
		fail_swapped(inv, why);
	why = NULL;
	*signo = res.outcome == PROC_INTERRUPTED ? res.interrupt_signal : 0;
	ret = 0;
out:
	proc_result_release(&res);
	free(out_path);
	free(err_path);
	free(cg_name);
	free(why);
	return ret;
}

/*
 * The variant's prepare command, its log kept in the invocation's
 * directory once that is known to be abev's still. 0, or -1 after
 * error() when abev itself could not go on.
 */
static int run_prepare(struct run_state *st, const struct plan_variant *v,
		       const struct plan_vars *vars, char **env, const struct stat *made,
		       struct invocation *inv, int *swapped)
{
	struct strbuf log = STRBUF_INIT;
	char *why = NULL, *log_rel = NULL;
	int err = 0, ret = -1;

	const struct proc_runner runner = { st->m->run, st->m->arg };

	if (prepare_run(st->plan, v, vars, env, &runner, &log, &inv->prepare) < 0)
		goto out;
	why = run_dir_check(st, inv, made, &err);
	if (err < 0)
		goto out;
	if (why) {
		*swapped = 1;
		free(inv->prepare->reason);
		inv->prepare->reason = xasprintf("left its run directory changed: %s", why);
		ret = 0;
		goto out;
	}
	log_rel = path_join(inv->dir, EVIDENCE_PREPARE_LOG);
	ret = ledger_write(&st->ledger, &st->ev, log_rel, log.buf, log.len);
out:
	strbuf_release(&log);
	free(log_rel);
	free(why);
	return ret;
}

/* Counted runs of a round at most compared with (the plan's variants, bounded). */
#define ROUND_PARTNERS_MAX 64

/*
 * Whether inv was loaded like the counted runs of its round that ran
 * before it (guard_load_balanced()): then other work lengthened the whole
 * round alike and its ratios are fair, so it is kept, not repeated; a run
 * hit where its partner was not is still repeated. The reason, or NULL
 * (no partner yet, or not alike). Caller frees.
 */
static char *round_balanced(const struct run_state *st, const struct invocation *inv)
{
	double shares[ROUND_PARTNERS_MAX];
	const struct invocation *last = NULL;
	size_t n = 0;

	if (inv->warmup)
		return NULL;
	for (size_t i = 0; i < st->ninvs && n < ROUND_PARTNERS_MAX; i++) {
		const struct invocation *p = &st->invs[i];
		if (p->round != inv->round || !strcmp(p->variant, inv->variant) || !compare_counts(p))
			continue;
		shares[n++] = invocation_foreign_wait_pct(p);
		last = p;
	}
	if (!guard_load_balanced(invocation_foreign_wait_pct(inv), shares, n,
				 st->plan->set.max_cpu_wait_pct))
		return NULL;
	if (n == 1)
		return xasprintf("its round is balanced: %s run %u waited %.1f %% on other "
				 "processes, this one %.1f %%, so other work lengthened both alike",
				 last->variant, last->round, shares[0],
				 invocation_foreign_wait_pct(inv));
	return xasprintf("its round is balanced: the round's %zu other counted runs waited on "
			 "other processes as much as this one (%.1f %%)",
			 n, invocation_foreign_wait_pct(inv));
}

/*
 * Why a recorded attempt whose load figures are over the limits is kept
 * rather than discarded, or NULL: its round is balanced (round_balanced()),
 * the machine stayed busy through the wait for a quieter one, or the slot
 * has no repeat left (a slot is never lost to load alone). Caller frees.
 */
static char *keep_loaded_reason(const struct run_state *st, const struct invocation *inv,
				unsigned attempt)
{
	const struct plan *plan = st->plan;
	char *balanced = round_balanced(st, inv);

	if (balanced)
		return balanced;
	if (st->load_spent)
		return xasprintf("the machine stayed busy through the wait for a quieter one "
				 "(load.max_wait_seconds %g s, spent)", plan->set.max_wait_seconds);
	if (attempt > plan->set.max_repeats)
		return xasprintf("the slot's last attempt (load.max_repeats %u)", plan->set.max_repeats);
	return NULL;
}

/*
 * Runs one attempt of a slot and fills *inv. Returns 0 when the attempt
 * is recorded (whatever its status), -1 on a runtime error of abev's own.
 */
static int run_one(struct run_state *st, const struct sched_slot *slot, unsigned attempt,
		   struct invocation *inv)
{
	const struct plan *plan = st->plan;
	const struct plan_variant *v = &plan->variants[slot->variant];
	struct dirat made_dir = DIRAT_INIT;
	struct stat made;
	char *abs_dir, *keep = NULL;
	char **env = NULL;
	int signo = 0, swapped = 0, ret = -1;

	inv_init(st, slot, attempt, inv);
	abs_dir = path_join(st->root, inv->dir);
	/* Made beneath the evidence root, with no link followed: what is there already is not abev's. */
	if (clear_planted(st, inv->dir) < 0 || dirat_mkdirs(&st->ev, inv->dir, &made_dir) < 0)
		goto out;
	/* Under run_as the child may write its own directory, and nothing else of the evidence. */
	if (proc_run_as_reach(&st->ev, inv->dir) < 0 || proc_run_as_grant(made_dir.fd, abs_dir) < 0)
		goto out;
	if (fstat(made_dir.fd, &made) < 0) {
		error("cannot stat '%s': %s", abs_dir, strerror(errno));
		goto out;
	}
	struct plan_vars vars = { abs_dir, v->name, slot->warmup ? "warmup" : "run", slot->round };
	if (inv_expand(plan, v, &vars, inv) < 0)
		goto out;
	/* Only the measured command's .NET processes write runtime figures, not prepare's. */
	env = build_env(v, &vars, NULL);
	if (v->prepare_len && run_prepare(st, v, &vars, env, &made, inv, &swapped) < 0)
		goto out;
	if (v->prepare_len && (swapped || strcmp(inv->prepare->status, "ok"))) {
		record_unprepared(st, inv);
		/* What the prepare command left is held to what a run may leave. */
		if (!swapped && take_back_run_dir(st, inv) < 0)
			goto out;
		judge_limit_files(st->judge, inv, &st->ev, run_state_note_cb, st);
		ret = 0;
		goto out;
	}
	if (st->dotnet_hook) {
		strv_free(env);
		env = build_env(v, &vars, st->dotnet_hook);
	}
	if (run_process(st, v, env, &made, inv, &signo, &swapped) < 0)
		goto out;
	if (swapped) {
		judge_limit_files(st->judge, inv, &st->ev, run_state_note_cb, st);
	} else if (inv->status == INV_INTERRUPTED) {
		st->interrupt = signo;
		judge_limit_files(st->judge, inv, &st->ev, run_state_note_cb, st);
	} else {
		judge_invocation(st->judge, inv, &st->ev, run_state_note_cb, st);
	}
	keep = keep_loaded_reason(st, inv, attempt);
	judge_load(st->judge, inv, attempt, keep);
	note_losses(st, inv);
	ret = 0;
out:
	/* Back to abev, whatever ran: the directory it made is abev's again. */
	if (made_dir.fd >= 0 && proc_run_as_revoke(made_dir.fd, abs_dir) < 0)
		ret = -1;
	/* A run that never got as far as the watch leaves nothing for the next one. */
	overlap_watch_release(&st->watch);
	strv_free(env);
	dirat_release(&made_dir);
	free(abs_dir);
	free(keep);
	return ret;
}

static void ensure_capacity(struct run_state *st)
{
	/* Kept out of every child's fork (util/alloc.h): the records grow with the run. */
	UNFORKED_GROW(st->invs, st->ninvs + 1, st->alloc);
}

/* Waits out the gap since the previous process ended. The interrupt signal, or 0. */
static int wait_gap(struct run_state *st)
{
	if (st->have_prev) {
		int64_t wait = st->next_start - st->m->now(st->m->arg);
		struct tick_ctx t = { &st->prog, wait, NULL, NULL };
		if (wait > 0 && st->m->sleep(st->m->arg, wait, gap_tick, &t))
			st->interrupt = proc_interrupted();
	}
	if (!st->interrupt)
		st->interrupt = proc_interrupted();
	return st->interrupt;
}

/* What quiet_wait() samples, sleeps and shows for a slot (quiet.h). */
struct quiet_ctx {
	struct run_state *st;
	const struct cpulist *cpus;
};

static double quiet_sample(void *arg, int64_t window_ns, int *signo)
{
	struct quiet_ctx *q = arg;
	const struct machine_ops *m = q->st->m;
	struct cpustat before, after;
	int64_t start = m->now(m->arg), elapsed, busy;

	if (m->cpustat(m->arg, q->cpus, &before) < 0)
		return -1;
	*signo = m->sleep(m->arg, window_ns, NULL, NULL);
	if (*signo || m->cpustat(m->arg, q->cpus, &after) < 0)
		return -1;
	/* abev only sleeps meanwhile: all the busy time on these CPUs is others'. */
	elapsed = m->now(m->arg) - start;
	busy = sysstat_foreign_busy_ns(&before, &after, 0, elapsed);
	return busy < 0 ? -1 : (double)busy / (double)elapsed;
}

static int quiet_sleep(void *arg, int64_t ns)
{
	const struct machine_ops *m = ((struct quiet_ctx *)arg)->st->m;

	return m->sleep(m->arg, ns, NULL, NULL);
}

static int64_t quiet_now(void *arg)
{
	const struct machine_ops *m = ((struct quiet_ctx *)arg)->st->m;

	return m->now(m->arg);
}

static void quiet_show(void *arg, double cores, double limit, int64_t waited_ns)
{
	struct quiet_ctx *q = arg;

	progress_quiet(&q->st->prog, cores, limit, waited_ns);
}

/*
 * The cores variant kept busy in its last counted run, at least 1: its
 * CPU time over its wall time less the wait on others (a run slowed by
 * them would otherwise seem to need less than it does).
 */
static double variant_need(const struct run_state *st, const char *variant)
{
	for (size_t i = st->ninvs; i-- > 0;) {
		const struct invocation *inv = &st->invs[i];
		int64_t wall = inv->fig.wall_ns - (inv->foreign_wait_ns > 0 ? inv->foreign_wait_ns : 0);
		double need;

		if (strcmp(inv->variant, variant) || !compare_counts(inv) || wall <= 0)
			continue;
		need = (double)(inv->fig.user_ns + inv->fig.sys_ns) / (double)wall;
		return need > 1 ? need : 1;
	}
	return 1;
}

/*
 * Whether to look at the load before a recorded run: before the first,
 * and after one that others' work crowded (its foreign load over limit,
 * discarded or kept under load); a run that saw a quiet machine needs no
 * look before the next (no cost on a quiet machine).
 */
static int quiet_needed(const struct run_state *st, double limit)
{
	const struct invocation *prev = NULL;

	for (size_t i = st->ninvs; i-- > 0 && !prev;)
		if (!st->invs[i].warmup)
			prev = &st->invs[i];
	if (!prev)
		return 1;
	if (prev->status == INV_DISCARDED || prev->loaded)
		return 1;
	return invocation_foreign_busy_cores(prev) > limit;
}

/*
 * Before a recorded run: waits for a quieter machine while others keep
 * more of the run's CPUs busy than it can stand, within what is left of
 * load.max_wait_seconds; records the wait for the invocation and the run.
 * Sets st->interrupt when abev was interrupted meanwhile.
 */
static void wait_for_quiet(struct run_state *st, const struct sched_slot *slot)
{
	const struct plan *plan = st->plan;
	const struct plan_variant *v = &plan->variants[slot->variant];
	int64_t budget = (int64_t)(plan->set.max_wait_seconds * 1e9) - st->load_waited_ns;
	struct cpulist cpus = CPULIST_INIT;
	struct quiet_ctx q = { st, &cpus };
	struct quiet_ops ops = { quiet_sample, quiet_sleep, quiet_now, quiet_show, &q };
	struct quiet_result r;
	double limit;

	st->load_wait_next_ns = 0;
	/* Limits no load can exceed (a wait of 100 %, no foreign limit): nothing to wait for. */
	if (slot->warmup || st->load_spent ||
	    (plan->set.max_cpu_wait_pct >= 100 && plan->set.max_foreign_cpu < 0))
		return;
	if (variant_cpus(v, &cpus) < 0)
		return;
	limit = quiet_limit(cpus.count, variant_need(st, v->name), plan->set.max_foreign_cpu);
	if (!cpus.count || !quiet_needed(st, limit))
		return;
	if (budget <= 0) {
		st->load_spent = 1;
		return;
	}
	quiet_wait(&ops, limit, budget, &r);
	progress_clear(&st->prog);
	st->load_waited_ns += r.waited_ns;
	if (r.naps)
		st->load_wait_next_ns = r.waited_ns;
	if (r.outcome == QUIET_SPENT) {
		st->load_spent = 1;
		run_state_note(st, xasprintf("the machine stayed busy: %.2f cores of the %u CPU(s) "
					     "abev runs on were busy with other work (the limit is "
					     "%.2f) through %.1f s of waiting for a quieter machine "
					     "(load.max_wait_seconds %g); from %s run %u on, runs "
					     "went ahead under load, kept and marked loaded when over "
					     "the load limits",
					     r.cores, cpus.count, limit,
					     (double)st->load_waited_ns / 1e9, plan->set.max_wait_seconds,
					     v->name, slot->round));
	}
	if (r.outcome == QUIET_INTERRUPTED)
		st->interrupt = r.signo;
}

/* The run's file name, as read into read, into the ledger. */
static void hold_read(struct run_state *st, const struct invocation *inv, const char *name,
		      const struct file_read *read)
{
	char *rel;

	if (!read->hashed)
		return;
	rel = path_join(inv->dir, name);
	ledger_parsed(&st->ledger, rel, read->sha256, read->bytes);
	free(rel);
}

/*
 * test.log and stderr.log, and the .NET runtime figure files, each as a
 * metric (or stderr_tail) read it (invocation.h: logs_read, dotnet_read),
 * into the ledger.
 */
static void hold_logs_read(struct run_state *st, const struct invocation *inv)
{
	hold_read(st, inv, EVIDENCE_STDOUT_LOG, &inv->logs_read[0]);
	hold_read(st, inv, EVIDENCE_STDERR_LOG, &inv->logs_read[1]);
	for (size_t i = 0; i < inv->ndotnet_read; i++)
		hold_read(st, inv, inv->dotnet_read[i].name, &inv->dotnet_read[i].read);
}

/* Whether variant has a recorded run (not a warmup) that was not discarded. */
static int has_kept_run(const struct run_state *st, const char *variant)
{
	for (size_t i = 0; i < st->ninvs; i++)
		if (!st->invs[i].warmup && st->invs[i].status != INV_DISCARDED &&
		    !strcmp(st->invs[i].variant, variant))
			return 1;
	return 0;
}

/*
 * One attempt of slot, recorded and written. Returns 1 when the slot is
 * done (kept, failed, lost, or the run stops), 0 when it is repeated.
 */
static int run_attempt(struct run_state *st, const struct sched_slot *slot, unsigned attempt)
{
	const struct plan *plan = st->plan;
	struct invocation *inv;
	int wrote;

	progress_start(&st->prog, st->ninvs, plan->variants[slot->variant].name, slot->warmup,
		       slot->round, attempt);
	if (wait_gap(st))
		return 1;
	wait_for_quiet(st, slot);
	if (st->interrupt)
		return 1;
	ensure_capacity(st);
	inv = &st->invs[st->ninvs];
	if (run_one(st, slot, attempt, inv) < 0) {
		/* What it left is not abev's record, but it is no stranger's either. */
		if (inv->dir)
			(void)ledger_keep_tree(&st->ledger, &st->ev, inv->dir);
		invocation_release(inv);
		st->runtime_error = 1;
		run_state_note(st, xasprintf("abev stopped: could not start %s %s %u",
					     plan->variants[slot->variant].name,
					     slot->warmup ? "warmup" : "run", slot->round));
		return 1;
	}
	st->ninvs++;
	st->next_start = st->m->now(st->m->arg) + (int64_t)(plan->set.gap_seconds * 1e9);
	st->have_prev = 1;
	/*
	 * The result files and logs its figures come from are held to the bytes
	 * they were read from: a change after that read is one to the record,
	 * never sealed as the run's own output.
	 */
	for (size_t i = 0; i < inv->nresults; i++)
		if (inv->results[i].hashed)
			ledger_parsed(&st->ledger, inv->results[i].path, inv->results[i].sha256,
				      inv->results[i].bytes);
	hold_logs_read(st, inv);
	/*
	 * Its record is a line of the journal (run_state_write()), which
	 * writes nothing into its directory unless the journal has stopped.
	 * Then the directory is final: the ledger keeps it — also when the
	 * writing failed (a full disk), or the directories abev made would
	 * read as a stranger's.
	 */
	wrote = run_state_write(st, 0);
	if (ledger_keep_tree(&st->ledger, &st->ev, inv->dir) < 0 || wrote < 0) {
		st->runtime_error = 1;
		run_state_note(st, xasprintf("abev stopped: the files of %s could not be written "
					     "(see abev's error output); they may be missing or "
					     "incomplete here",
					     inv->dir));
		return 1;
	}
	progress_done(&st->prog, inv);
	if (inv->status != INV_DISCARDED)
		return 1;
	if (attempt > plan->set.max_repeats) {
		st->lost++;
		run_state_note(st, xasprintf("%s run %u: all %u attempt(s) were discarded for "
					     "contention or overlap (last: %s); this slot has no "
					     "measurement",
					     inv->variant, inv->round, attempt,
					     inv->guards[inv->nguards - 1].reason));
		/*
		 * Fail fast: a variant that has not had one counted run within the
		 * repeat budget will not get its comparison from the slots left,
		 * so the plan stops now rather than minutes later.
		 */
		if (!has_kept_run(st, inv->variant))
			st->gave_up = xasprintf("abev stopped the plan after %s run %u: all %u "
						"attempt(s) were discarded and %s has no counted run "
						"yet, so no comparison could be made of the rest",
						inv->variant, inv->round, attempt, inv->variant);
		return 1;
	}
	return 0;
}

void run_slot(struct run_state *st, const struct sched_slot *slot)
{
	for (unsigned attempt = 1; !run_attempt(st, slot, attempt); attempt++)
		st->prog.total++;
}

int run_slot_step(struct run_state *st, size_t vi, int cleanup)
{
	const struct plan *plan = st->plan;
	const struct plan_variant *v = &plan->variants[vi];
	const char *kind = cleanup ? "cleanup" : "setup";
	char *const *argv = cleanup ? v->cleanup : v->setup;
	size_t argc = cleanup ? v->cleanup_len : v->setup_len;
	struct dirat made = DIRAT_INIT;
	struct strbuf log = STRBUF_INIT, shown = STRBUF_INIT;
	struct invocation_prepare *rec = NULL;
	struct run_step *step;
	char *dir, *abs_dir = NULL, *log_rel = NULL, **env = NULL;
	int ret = -1;

	if (!argc)
		return 0;
	dir = xasprintf(EVIDENCE_RUNS_DIR "/%s", v->name);
	/* Beneath the evidence root, no link followed: the variant's directory, as its runs'. */
	if (dirat_mkdirs(&st->ev, dir, &made) < 0)
		goto out;
	abs_dir = path_join(st->root, dir);
	struct plan_vars vars = { abs_dir, v->name, kind, 0 };
	env = build_env(v, &vars, NULL);
	progress_clear(&st->prog);
	const struct proc_runner runner = { st->m->run, st->m->arg };

	if (prepare_run_argv(plan, v, argv, argc, &vars, env, &runner, &log, kind, &rec) < 0)
		goto out;
	log_rel = xasprintf("%s/%s.log", dir, kind);
	if (ledger_write(&st->ledger, &st->ev, log_rel, log.buf, log.len) < 0)
		goto out;
	ALLOC_GROW(st->steps, st->nsteps + 1, st->steps_alloc);
	step = &st->steps[st->nsteps++];
	*step = (struct run_step){ v->name, kind, log_rel, rec };
	log_rel = NULL;
	strbuf_add_argv_sh(&shown, rec->argv, rec->argc);
	if (!strcmp(rec->status, "ok"))
		run_state_note(st, xasprintf("the %s command of '%s' (%s) ended ok in %.3f s (%s)",
					     kind, v->name, shown.buf, (double)rec->wall_ns / 1e9,
					     step->log));
	else
		run_state_note(st, xasprintf("the %s command of '%s' (%s) %s (%s)%s", kind, v->name,
					     shown.buf, rec->reason ? rec->reason : rec->status,
					     step->log,
					     cleanup ? "; the runs still count" : ""));
	if (rec->interrupt_signal)
		st->interrupt = rec->interrupt_signal;
	ret = !strcmp(rec->status, "ok");
	rec = NULL;
out:
	invocation_prepare_free(rec);
	strv_free(env);
	dirat_release(&made);
	strbuf_release(&log);
	strbuf_release(&shown);
	free(log_rel);
	free(abs_dir);
	free(dir);
	return ret;
}
