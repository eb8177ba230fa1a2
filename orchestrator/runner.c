/*
 * runner: the `abev run` loop. Order of work for each slot: wait out the
 * gap since the previous process ended, sample load and machine CPU,
 * run the child, sample again, judge foreign load, write the
 * invocation's files, then rewrite result.json and report.md (back to
 * back, at most once a second). Because result.json is written at the
 * start and kept current, a run killed at any point leaves evidence whose
 * status ("running", "interrupted") says it is incomplete.
 */
#define _XOPEN_SOURCE 700
#include "runner.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "evidence.h"
#include "evidence_read.h"
#include "guard.h"
#include "hash.h"
#include "judge.h"
#include "bundle.h"
#include "cgroup.h"
#include "cpulist.h"
#include "compare.h"
#include "metadata.h"
#include "overlap.h"
#include "peers.h"
#include "plots.h"
#include "prepare.h"
#include "proc.h"
#include "report.h"
#include "schedule.h"
#include "summary.h"
#include "sysstat.h"
#include "util.h"

struct run_state {
	const struct plan *plan;
	const struct runner_options *opt;
	char *root;                 /* absolute evidence directory */
	struct invocation *invs;
	size_t ninvs, alloc;
	char **notes;
	size_t nnotes;
	size_t planned;
	unsigned lost;              /* recorded slots with no valid measurement */
	int interrupt;              /* signal number, or 0 */
	int runtime_error;
	char started[UTC_STAMP_LEN];
	char ended[UTC_STAMP_LEN];
	const char **variant_names;
	struct progress prog;
	struct judge *judge;
	/* The comparison, made once when the run is over. */
	struct compare_config ccfg;
	struct metric_value *outputs;   /* the plan's metrics as compared, owned */
	size_t noutputs;
	struct compare_gate_def *gate_defs;
	struct comparison cmp;
	int compared;
	char *cwd;                  /* where abev runs, for the reproduce command */
	struct run_environment env; /* metadata.json as written, for the report */
	int have_env;
	char plan_sha256[SHA256_HEX_LEN + 1];
	/* What is not redone after every invocation (see write_state()). */
	int64_t max_rss_bytes;      /* abev's own, as last read */
	int64_t state_read_at;      /* mono_ns() of that reading */
	int64_t report_written_at;  /* mono_ns() of the last report.md, 0: never */
	int64_t state_written_at;   /* mono_ns() of the last result.json, 0: never */
	/* What else ran beside each invocation. */
	struct overlap_watch watch; /* load.exclusive */
	struct peers peers;         /* other abev runs on this host */
	int64_t waited_ns;          /* --wait: time spent waiting for them, -1: not asked */
};

/*
 * How stale result.json, report.md and abev_max_rss_bytes may get while
 * back-to-back invocations (no gap) go on: each invocation's own files
 * are written at once, and a signal makes the final write anyway. With a
 * gap both are rewritten every time: abev is about to wait, so the work
 * costs nothing, and abev killed in the gap leaves them current.
 */
#define STATE_REFRESH_NS (1000 * 1000 * 1000LL)

static void add_note(struct run_state *st, char *note)
{
	st->notes = xrealloc(st->notes, (st->nnotes + 1) * sizeof(*st->notes));
	st->notes[st->nnotes++] = note;
}

static void note_cb(void *ctx, char *note)
{
	add_note(ctx, note);
}

/*
 * abev's own peak RSS. VmHWM belongs to this process's address space
 * alone; ru_maxrss would also carry the high-water mark of whatever
 * process started abev (the kernel keeps it across execve), so it is the
 * fallback only.
 */
static int64_t self_max_rss(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct rusage ru;
	int64_t kib = -1;

	if (read_file_capped(&sb, "/proc/self/status", 64 * 1024) == 0) {
		const char *p = strstr(sb.buf, "\nVmHWM:");
		if (p && sscanf(p + 7, "%" SCNd64, &kib) != 1)
			kib = -1;
	}
	strbuf_release(&sb);
	if (kib >= 0)
		return kib * 1024;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (int64_t)ru.ru_maxrss * 1024;
}

static void now_utc(char out[UTC_STAMP_LEN])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	utc_format(out, &ts);
}

static enum run_status current_status(const struct run_state *st, int final)
{
	if (!final)
		return RUN_RUNNING;
	if (st->interrupt)
		return RUN_INTERRUPTED;
	if (st->runtime_error || st->lost)
		return RUN_FAILED;
	for (size_t i = 0; i < st->ninvs; i++)
		if (st->invs[i].status != INV_OK && st->invs[i].status != INV_DISCARDED)
			return RUN_FAILED;
	return RUN_COMPLETED;
}

/*
 * The last result.json could not be written whole (the file-size limit,
 * a full disk): a short one without the invocation records, which each
 * invocation's own result.json keeps, so that the evidence does not say
 * "running" as if abev had been killed, and says what is missing.
 */
static void write_short_state(struct run_state *st, struct run_header *hdr,
			      enum run_status status, int err)
{
	const char **notes = xcalloc(st->nnotes + 1, sizeof(*notes));
	char *why = xasprintf("result.json could not be written in full (%s%s); this shorter "
			      "one leaves out the %zu invocation record(s): each invocation's "
			      "own result.json under runs/ has its record",
			      strerror(err), err == EFBIG ? ": the file-size limit, ulimit -f" : "",
			      st->ninvs);

	for (size_t i = 0; i < st->nnotes; i++)
		notes[i] = st->notes[i];
	notes[st->nnotes] = why;
	hdr->notes = notes;
	hdr->nnotes = st->nnotes + 1;
	hdr->left_out = st->ninvs;
	if (status == RUN_COMPLETED)
		status = RUN_FAILED;
	if (evidence_write_run(st->root, hdr, status, NULL, 0) == 0)
		error("wrote a shorter result.json without the invocation records instead");
	hdr->notes = (const char *const *)st->notes;
	hdr->nnotes = st->nnotes;
	hdr->left_out = 0;
	free(why);
	free(notes);
}

/*
 * Rewrites result.json and, when final or STATE_REFRESH_NS have passed
 * since it was last written, report.md; final says whether the run is
 * over.
 */
static int write_state(struct run_state *st, int final)
{
	const struct plan *plan = st->plan;
	enum run_status status = current_status(st, final);
	struct run_header hdr;
	struct report_input rin;
	int64_t now = mono_ns();
	int refresh = final || !st->report_written_at || plan->gap_seconds > 0 ||
		      now - st->report_written_at >= STATE_REFRESH_NS;
	int ret = 0;

	if (final && !st->compared) {
		compare_compute(&st->ccfg, st->invs, st->ninvs, &st->cmp);
		st->compared = 1;
		if (plots_write(st->root, &st->cmp, st->invs, st->ninvs) < 0)
			ret = -1;
	}
	if (final || !st->state_read_at || now - st->state_read_at >= STATE_REFRESH_NS) {
		st->max_rss_bytes = self_max_rss();
		st->state_read_at = now;
	}
	hdr = (struct run_header){
		.plan_name = plan->name,
		.plan_description = plan->description,
		.plan_path = plan->path,
		.order = plan_order_name(plan->order),
		.seed = plan->seed,
		.warmups = plan->warmups,
		.runs = plan->runs,
		.gap_seconds = plan->gap_seconds,
		.timeout_seconds = plan->timeout_seconds,
		.max_foreign_cpu = plan->max_foreign_cpu,
		.max_cpu_wait_pct = plan->max_cpu_wait_pct,
		.max_cpu_wait_pct_from = plan->max_cpu_wait_pct_from,
		.cpus = plan->cpus,
		.max_repeats = plan->max_repeats,
		.exclusive = (const char *const *)plan->exclusive,
		.nexclusive = plan->nexclusive,
		.lock_dir = st->peers.dir,
		.wait = st->opt->wait,
		.waited_ns = st->waited_ns,
		.abev_version = ABEV_VERSION,
		.started_utc = st->started,
		.ended_utc = final ? st->ended : "",
		.variant_names = st->variant_names,
		.nvariants = plan->nvariants,
		.planned = (unsigned)st->planned,
		.interrupt = st->interrupt ? proc_signal_name(st->interrupt) : NULL,
		.abev_max_rss_bytes = st->max_rss_bytes,
		.notes = (const char *const *)st->notes,
		.nnotes = st->nnotes,
		.reproduce = st->opt->reproduce,
		.reproduce_cwd = st->cwd,
		.plan_sha256 = st->plan_sha256,
		.evidence_dir = st->opt->out_dir,
		.signed_evidence = st->opt->key != NULL,
		.pubkey = st->opt->pubkey,
		.key_source = st->opt->key_source,
		.report_template = plan->report_template ? REPORT_TEMPLATE_FILE : NULL,
		.comparison = st->compared ? &st->cmp : NULL,
		.gate_defs = st->gate_defs,
		.ngate_defs = st->plan->ngates,
	};
	rin = (struct report_input){
		.plan_name = plan->name,
		.description = plan->description,
		.status = run_status_name(status),
		.started_utc = st->started,
		.ended_utc = final ? st->ended : "",
		.order = plan_order_name(plan->order),
		.warmups = plan->warmups,
		.runs = plan->runs,
		.gap_seconds = plan->gap_seconds,
		.seed = plan->seed,
		.timeout_seconds = plan->timeout_seconds,
		.max_foreign_cpu = plan->max_foreign_cpu,
		.max_cpu_wait_pct = plan->max_cpu_wait_pct,
		.max_repeats = plan->max_repeats,
		.variant_names = st->variant_names,
		.nvariants = plan->nvariants,
		.invs = st->invs,
		.ninvs = st->ninvs,
		.reproduce = st->opt->reproduce,
		.reproduce_cwd = st->cwd,
		.plan_path = plan->path,
		.plan_sha256 = st->plan_sha256,
		.notes = (const char *const *)st->notes,
		.nnotes = st->nnotes,
		.signed_evidence = st->opt->key != NULL,
		.evidence_dir = st->opt->out_dir,
		.pubkey = st->opt->pubkey,
		.comparison = st->compared ? &st->cmp : NULL,
		.environment = st->have_env ? &st->env : NULL,
		.template_text = plan->report_template,
		.template_len = plan->report_template_len,
	};

	/*
	 * Back to back (no gap), result.json too is rewritten at most once a
	 * second: each rewrite serialises every invocation so far and creates
	 * a file, which made the work between invocations grow with the run.
	 * A run killed outright (SIGKILL) then leaves a result.json at most a
	 * second behind, still "running"; each invocation's own result.json
	 * is written at once.
	 */
	if (final || plan->gap_seconds > 0 || !st->state_written_at ||
	    now - st->state_written_at >= STATE_REFRESH_NS) {
		if (evidence_write_run(st->root, &hdr, status, st->invs, st->ninvs) < 0) {
			ret = -1;
			if (final)
				write_short_state(st, &hdr, status, errno);
		}
		st->state_written_at = now;
	}
	if (refresh) {
		if (report_write(st->root, &rin) < 0)
			ret = -1;
		st->report_written_at = now;
	}
	return ret;
}

/* The child's environment: abev's own, then the plan's, then ABEV_*. Caller frees. */
static char **build_env(const struct plan_variant *v, const struct plan_vars *vars)
{
	size_t n;
	char **env = plan_variant_env(v, vars, &n);
	char round[16];

	snprintf(round, sizeof(round), "%u", vars->round);
	env_set(&env, &n, "ABEV_RUN_DIR", vars->run_dir);
	env_set(&env, &n, "ABEV_VARIANT", vars->variant);
	env_set(&env, &n, "ABEV_PHASE", vars->phase);
	env_set(&env, &n, "ABEV_ROUND", round);
	return env;
}

struct tick_ctx {
	struct progress *prog;
	int64_t gap_total_ns;
	struct overlap_watch *watch;
};

static void run_tick(void *arg, int64_t elapsed_ns)
{
	struct tick_ctx *t = arg;
	progress_tick(t->prog, elapsed_ns);
	if (t->watch)
		overlap_watch_scan(t->watch);
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
		inv->reason = xasprintf("timed out after %g s; stopped with %s", plan->timeout_seconds,
					proc_signal_name(res->signal));
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

	now_utc(inv->start_utc);
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

/*
 * Runs one attempt of a slot and fills *inv. Returns 0 when the attempt
 * is recorded (whatever its status), -1 on a runtime error of abev's own.
 */
static int run_one(struct run_state *st, const struct sched_slot *slot, unsigned attempt,
		   struct invocation *inv)
{
	const struct plan *plan = st->plan;
	const struct plan_variant *v = &plan->variants[slot->variant];
	const char *phase = slot->warmup ? "warmup" : "run";
	char *abs_dir = NULL, *out_path = NULL, *err_path = NULL, *cg_name = NULL;
	char **env = NULL;
	struct proc_result res;
	struct cpustat cs_before, cs_after;
	struct cpulist cpus = CPULIST_INIT;
	struct tick_ctx tick = { &st->prog, 0, &st->watch };
	struct peers_look look_before = PEERS_LOOK_INIT, look_after = PEERS_LOOK_INIT;
	int ret = -1;

	memset(&res, 0, sizeof(res));
	memset(inv, 0, sizeof(*inv));
	inv->seq = (unsigned)st->ninvs + 1;
	inv->variant = xstrdup(v->name);
	inv->warmup = slot->warmup;
	inv->round = slot->round;
	inv->attempt = attempt;
	inv->exit_code = -1;
	inv->foreign_cpu = -1;
	inv->foreign_cpu_resolution = -1;
	inv->max_foreign_cpu = plan->max_foreign_cpu;
	inv->max_cpu_wait_pct = plan->max_cpu_wait_pct;
	inv->cpu_wait_ns = -1;
	inv->system_cpu_wait_ns = -1;
	inv->cpus = v->cpus ? xstrdup(v->cpus) : NULL;
	inv->cg_memory_peak_bytes = -1;
	inv->cg_cpu_usage_ns = -1;
	if (attempt == 1)
		inv->dir = xasprintf("runs/%s/%s-%u", v->name, phase, slot->round);
	else
		inv->dir = xasprintf("runs/%s/%s-%u-attempt-%u", v->name, phase, slot->round, attempt);
	inv->cwd = xstrdup(v->cwd);

	abs_dir = path_join(st->root, inv->dir);
	if (mkdir_p(abs_dir) < 0)
		goto out;
	struct plan_vars vars = { abs_dir, v->name, phase, slot->round };
	inv->argv = xcalloc(v->command_len + 1, sizeof(*inv->argv));
	for (size_t i = 0; i < v->command_len; i++) {
		inv->argv[i] = plan_expand(v->command[i], &vars);
		if (!inv->argv[i])
			goto out;
		inv->argc++;
	}
	if (plan->results_files)
		inv->results_files = plan_expand(plan->results_files, &vars);
	env = build_env(v, &vars);
	if (v->prepare_len) {
		if (prepare_run(plan, v, &vars, env, abs_dir, &inv->prepare) < 0)
			goto out;
		if (strcmp(inv->prepare->status, "ok")) {
			record_unprepared(st, inv);
			ret = 0;
			goto out;
		}
	}
	out_path = path_join(abs_dir, "test.log");
	err_path = path_join(abs_dir, "stderr.log");
	cg_name = xasprintf("%u", inv->seq);
	if (v->cpus) {
		char *why = NULL;
		/* The plan checked it; a failure here is abev's own. */
		if (cpulist_parse(v->cpus, &cpus, &why) < 0) {
			error("variant '%s': cpus %s", v->name, why);
			free(why);
			goto out;
		}
	}

	struct proc_spec spec = {
		.argv = (const char *const *)inv->argv,
		.envp = (const char *const *)env,
		.cwd = v->cwd,
		.stdout_path = out_path,
		.stderr_path = err_path,
		.timeout_ns = (int64_t)(plan->timeout_seconds * 1e9),
		.grace_ns = (int64_t)(plan->kill_grace_seconds * 1e9),
		.log_capped = 1,
		.log_max_bytes = plan->max_log_bytes,
		.cgroup_name = cg_name,
		.cpus = v->cpus ? &cpus : NULL,
		.tick = run_tick,
		.tick_arg = &tick,
	};

	judge_before(st->judge, inv);
	loadavg_read(&inv->load_before);
	peers_look_now(&st->peers, &look_before);
	overlap_watch_scan(&st->watch);
	cpustat_read(&cs_before);
	if (proc_run(&spec, &res) < 0)
		goto out;
	cpustat_read(&cs_after);
	overlap_watch_scan(&st->watch);
	peers_look_now(&st->peers, &look_after);
	peers_overlap(&st->peers, &look_before, &look_after, &st->watch);
	overlap_watch_take(&st->watch, &inv->overlaps, &inv->noverlaps, &inv->overlaps_unnamed);
	loadavg_read(&inv->load_after);
	/* What the child left in its directory must be sealable: links and odd names go. */
	if (seal_tidy(st->root, inv->dir, note_cb, st) < 0)
		goto out;

	utc_format(inv->start_utc, &res.start_real);
	utc_format(inv->end_utc, &res.end_real);
	inv->wall_ns = res.wall_ns;
	inv->exit_code = res.outcome == PROC_EXITED ? res.exit_code : -1;
	inv->signal = res.signal;
	inv->core_dumped = res.core_dumped;
	inv->timed_out = res.outcome == PROC_TIMED_OUT;
	inv->exec_error = res.exec_error ? xstrdup(res.exec_error) : NULL;
	inv->user_ns = res.user_ns;
	inv->sys_ns = res.sys_ns;
	inv->max_rss_bytes = res.max_rss_bytes;
	inv->minflt = res.minflt;
	inv->majflt = res.majflt;
	inv->nvcsw = res.nvcsw;
	inv->nivcsw = res.nivcsw;
	inv->leftovers_killed = res.leftovers_killed;
	inv->logs[0] = (struct invocation_log){ res.out.bytes_written, res.out.bytes_dropped };
	inv->logs[1] = (struct invocation_log){ res.err.bytes_written, res.err.bytes_dropped };
	if (res.outcome != PROC_EXEC_FAILED) {
		inv->foreign_cpu = sysstat_foreign_cpu(&cs_before, &cs_after,
						       res.user_ns + res.sys_ns + res.self_cpu_ns,
						       res.wall_ns);
		/*
		 * Kept as result.json keeps it (6 decimals), so that a report
		 * rendered again from the evidence shows the same figures.
		 */
		if (inv->foreign_cpu >= 0) {
			inv->foreign_cpu = round(inv->foreign_cpu * 1e6) / 1e6;
			inv->foreign_cpu_resolution = sysstat_foreign_cpu_resolution(res.wall_ns);
		}
	}
	record_cpu_wait(inv, &res);
	if (!res.cgroup_reason) {
		inv->cgroup_valid = 1;
		inv->cg_memory_peak_bytes = res.cg_memory_peak_bytes;
		inv->cg_cpu_usage_ns = res.cg_cpu_usage_ns;
		if (res.cg_memory_note)
			inv->cgroup_note = xstrdup(res.cg_memory_note);
	} else {
		inv->cgroup_note = xstrdup(res.cgroup_reason);
	}
	set_status(inv, &res, plan);
	if (res.outcome == PROC_INTERRUPTED) {
		st->interrupt = res.interrupt_signal;
		judge_limit_files(st->judge, inv, st->root, note_cb, st);
	} else {
		judge_invocation(st->judge, inv, st->root, note_cb, st);
	}

	/*
	 * Only a run that would otherwise count is discarded: a failure under
	 * load is still a failure, and a warmup never counts anyway. An
	 * unknown load (no /proc/stat) cannot be held against the run.
	 */
	if (compare_counts(inv)) {
		char *overlap = inv->noverlaps ? overlap_describe(inv->overlaps, inv->noverlaps,
								   inv->overlaps_unnamed)
					       : NULL;
		struct guard_result g = { 0 };
		struct load_figures f = {
			.cpu_wait_pct = invocation_cpu_wait_pct(inv),
			.cpu_wait_source = inv->cpu_wait_source,
			.max_cpu_wait_pct = plan->max_cpu_wait_pct,
			.foreign_cpu = inv->foreign_cpu,
			.resolution = inv->foreign_cpu_resolution,
			.max_foreign_cpu = plan->max_foreign_cpu,
			.overlap = overlap,
		};
		guard_load(&f, &g);
		free(overlap);
		if (g.verdict == GUARD_FAIL) {
			inv->status = INV_DISCARDED;
			inv->reason = xasprintf("%s; %s", g.reason,
						attempt <= plan->max_repeats ? "the slot is repeated"
									     : "no repeats left");
		}
		inv->guards = xrealloc(inv->guards, (inv->nguards + 1) * sizeof(*inv->guards));
		inv->guards[inv->nguards++] = g;
	}
	for (int i = 0; i < 2; i++) {
		const struct invocation_log *lg = &inv->logs[i];
		if (lg->bytes_dropped <= 0)
			continue;
		if (lg->bytes_written >= plan->max_log_bytes)
			add_note(st, xasprintf("%s: %s was truncated at limits.max_log_bytes: %lld "
					       "bytes kept, %lld more read and dropped",
					       inv->dir, i ? "stderr.log" : "test.log",
					       (long long)lg->bytes_written,
					       (long long)lg->bytes_dropped));
		else
			add_note(st, xasprintf("%s: %s is incomplete: writing it failed after %lld "
					       "bytes (see abev's error output, e.g. the file-size "
					       "limit), %lld more read and dropped",
					       inv->dir, i ? "stderr.log" : "test.log",
					       (long long)lg->bytes_written,
					       (long long)lg->bytes_dropped));
	}
	if (inv->leftovers_killed)
		add_note(st, xasprintf("%s: %u process(es) left behind by the child were killed",
				       inv->dir, inv->leftovers_killed));
	ret = 0;
out:
	/* A run that never got as far as the watch leaves nothing for the next one. */
	overlap_watch_release(&st->watch);
	peers_look_release(&look_before);
	peers_look_release(&look_after);
	proc_result_release(&res);
	strv_free(env);
	free(abs_dir);
	free(out_path);
	free(err_path);
	free(cg_name);
	return ret;
}

/* What the comparison is made of, from the plan: borrowed names, owned arrays. */
static void compare_setup(struct run_state *st)
{
	const struct plan *plan = st->plan;
	struct compare_metric_def *defs;

	metric_defs_outputs(plan->metrics, plan->nmetrics, &st->outputs, &st->noutputs);
	defs = xcalloc(st->noutputs + 1, sizeof(*defs));
	for (size_t i = 0, k = 0; i < plan->nmetrics; i++) {
		const struct metric_def *d = &plan->metrics[i];
		for (size_t j = 0; j < 1u + !!d->derive_rate; j++, k++) {
			defs[k].name = st->outputs[k].name;
			defs[k].unit = st->outputs[k].unit;
			defs[k].better_higher = st->outputs[k].better_higher;
			defs[k].source = j ? "derived" : metric_source_name(d->source);
		}
	}
	st->gate_defs = xcalloc(plan->ngates + 1, sizeof(*st->gate_defs));
	for (size_t i = 0; i < plan->ngates; i++) {
		st->gate_defs[i].metric = plan->gates[i].metric;
		st->gate_defs[i].kind = plan->gates[i].kind;
		st->gate_defs[i].limit = plan->gates[i].limit;
	}
	st->ccfg = (struct compare_config){
		.variants = st->variant_names,
		.nvariants = plan->nvariants,
		.reference = plan->reference,
		.metrics = defs,
		.nmetrics = st->noutputs,
		.gates = st->gate_defs,
		.ngates = plan->ngates,
		.confidence = plan->confidence,
		.resamples = plan->resamples,
		.seed = plan->seed,
		.acceptance = plan->acceptance,
		.inconclusive_fails = plan->inconclusive_fails,
	};
}

static void compare_teardown(struct run_state *st)
{
	comparison_release(&st->cmp);
	free((void *)st->ccfg.metrics);
	metric_values_free(st->outputs, st->noutputs);
	free(st->gate_defs);
}

/*
 * The nearest existing ancestor of path must be a directory abev can
 * write: that is where create_root() will make the rest.
 */
static int check_out_parent(const char *out)
{
	char *dir = xstrdup(out), *slash;
	struct stat sb;
	int ret = -1;

	for (;;) {
		slash = strrchr(dir, '/');
		if (!slash) {
			free(dir);
			dir = xstrdup(".");
		} else if (slash == dir) {
			dir[1] = '\0';
		} else {
			*slash = '\0';
		}
		if (stat(dir, &sb) == 0)
			break;
		if (errno != ENOENT || !slash || slash == dir) {
			error("cannot create '%s': '%s': %s", out, dir, strerror(errno));
			goto out;
		}
	}
	if (!S_ISDIR(sb.st_mode)) {
		error("cannot create '%s': '%s' is not a directory", out, dir);
		goto out;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		error("cannot create '%s' in '%s': %s", out, dir, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(dir);
	return ret;
}

int runner_check_options(const struct runner_options *opt)
{
	struct stat sb;
	size_t n = strlen(opt->out_dir);

	if (lstat(opt->out_dir, &sb) == 0)
		return error("'%s' already exists; abev never writes into an existing "
			     "directory: choose a new --out", opt->out_dir);
	if (check_out_parent(opt->out_dir) < 0)
		return -1;
	if (!opt->bundle)
		return 0;
	if (!strncmp(opt->bundle, opt->out_dir, n) && opt->bundle[n] == '/')
		return error("cannot write bundle '%s' inside the evidence directory it packs",
			     opt->bundle);
	return bundle_check_target(opt->bundle);
}

static int create_root(struct run_state *st, enum runner_outcome *why)
{
	const char *out = st->opt->out_dir;
	char *parent = xstrdup(out), *slash;
	char resolved[PATH_MAX];
	struct stat sb;
	int ret = -1;

	if (lstat(out, &sb) == 0) {
		*why = RUNNER_USAGE;
		error("'%s' already exists; abev never writes into an existing directory: "
		      "choose a new --out", out);
		goto out;
	}
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if (mkdir_p(parent) < 0)
			goto out;
	}
	if (mkdir(out, 0755) < 0) {
		if (errno == EEXIST) {
			*why = RUNNER_USAGE;
			error("'%s' already exists; choose a new --out", out);
		} else {
			error("cannot create '%s': %s", out, strerror(errno));
		}
		goto out;
	}
	if (!realpath(out, resolved)) {
		error("cannot resolve '%s': %s", out, strerror(errno));
		goto out;
	}
	st->root = xstrdup(resolved);
	ret = 0;
out:
	free(parent);
	return ret;
}

static void ensure_capacity(struct run_state *st)
{
	if (st->ninvs < st->alloc)
		return;
	st->alloc = st->alloc ? st->alloc * 2 : 16;
	st->invs = xrealloc(st->invs, st->alloc * sizeof(*st->invs));
}

void runner_print_schedule(const struct plan *plan, FILE *f)
{
	struct sched_slot *slots = NULL;
	size_t n = 0;

	schedule_build(plan->order, plan->seed, plan->nvariants, plan->warmups, plan->runs, &slots,
		       &n);
	fprintf(f, "# plan '%s': %zu variant(s), %u warmup round(s), %u recorded round(s), order %s, "
	       "seed %llu, gap %g s\n",
	       plan->name, plan->nvariants, plan->warmups, plan->runs, plan_order_name(plan->order),
	       (unsigned long long)plan->seed, plan->gap_seconds);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%4zu  %-6s %3u  %s\n", i + 1, slots[i].warmup ? "warmup" : "run",
		       slots[i].round, plan->variants[slots[i].variant].name);
	free(slots);
}

/*
 * What the user sees at the end: where the evidence is and its status,
 * then the decision and one line per metric and compared variant. With
 * --json stdout carries the comparison alone and the rest goes to
 * stderr; --quiet keeps the decision line and the evidence path.
 */
/*
 * How busy the machine was, from what the runs recorded: the range of
 * their CPU wait and the machine's CPU pressure over their wall time; and,
 * when runs were discarded for it, how many, why, and what to change.
 */
static void print_contention(FILE *f, const struct run_state *st)
{
	const struct plan *plan = st->plan;
	double lo = -1, hi = -1;
	int64_t sys_ns = 0, sys_wall_ns = 0;
	size_t measured = 0, discarded = 0, by_abev = 0, by_exclusive = 0;

	for (size_t i = 0; i < st->ninvs; i++) {
		const struct invocation *inv = &st->invs[i];
		double pct = invocation_cpu_wait_pct(inv);

		discarded += inv->status == INV_DISCARDED;
		if (inv->status == INV_DISCARDED) {
			int abev = 0, excl = 0;
			for (size_t k = 0; k < inv->noverlaps; k++) {
				abev |= inv->overlaps[k].kind == OVERLAP_ABEV;
				excl |= inv->overlaps[k].kind == OVERLAP_EXCLUSIVE;
			}
			by_abev += abev;
			by_exclusive += excl;
		}
		if (pct >= 0) {
			lo = measured && lo < pct ? lo : pct;
			hi = measured && hi > pct ? hi : pct;
			measured++;
		}
		if (inv->system_cpu_wait_ns >= 0 && inv->wall_ns > 0) {
			sys_ns += inv->system_cpu_wait_ns;
			sys_wall_ns += inv->wall_ns;
		}
	}
	if (measured)
		fprintf(f, "cpu wait: runs waited for a CPU %.1f-%.1f %% of their wall time "
			   "(limit %g %%)",
			lo, hi, plan->max_cpu_wait_pct);
	else
		fprintf(f, "cpu wait: not measured (no cgroup cpu.pressure or schedstat)");
	if (sys_wall_ns > 0)
		fprintf(f, "; machine-wide, some task waited for a CPU %.0f %% of that time",
			100.0 * (double)sys_ns / (double)sys_wall_ns);
	fputc('\n', f);
	if (!discarded)
		return;
	if (by_abev)
		fprintf(f, "overlap: another abev run on this host overlapped %zu run(s); "
			   "'abev run --wait' takes turns instead\n", by_abev);
	if (by_exclusive)
		fprintf(f, "overlap: a process matching load.exclusive overlapped %zu run(s) "
			   "(result.json names it)\n", by_exclusive);
	fprintf(f, "discarded: %zu run(s) for contention or overlap%s", discarded,
		st->lost ? "" : ", each repeated until it was kept\n");
	if (st->lost)
		fprintf(f, "; %u slot(s) lost after %u repeat(s) each.\n"
			   "          To keep them: pin the variants to CPUs other work does not use "
			   "(\"cpus\": \"1\" in the plan,\n"
			   "          per variant or in schedule), raise load.max_cpu_wait_pct "
			   "(or --max-cpu-wait-pct), or quiet the machine.\n",
			st->lost, plan->max_repeats);
}

static void print_end(const struct run_state *st, enum run_status final, int sealed,
		      int bundled)
{
	const struct runner_options *opt = st->opt;
	FILE *f = opt->json ? stderr : stdout;
	int quiet = opt->progress == PROGRESS_QUIET;

	if (opt->json) {
		char *doc = evidence_comparison_document(&st->cmp, st->gate_defs, st->plan->ngates);
		fputs(doc, stdout);
		free(doc);
		fflush(stdout);
	}
	if (quiet) {
		if (!opt->json)
			summary_print(f, &st->cmp, 1);
		fprintf(f, "evidence: %s\n", st->root);
		fflush(f);
		return;
	}
	fprintf(f, "evidence: %s\nreport:   %s/report.md\nstatus:   %s\n", st->root, st->root,
		run_status_name(final));
	if (!sealed)
		fprintf(f, "sealed:   NO: the manifest could not be written (see the error above)\n");
	else
		fprintf(f, "sealed:   %s\n", opt->key ? "SHA256, signed in SHA256.sig"
						   : "SHA256 (UNSIGNED: run with --key to sign)");
	if (bundled)
		fprintf(f, "bundle:   %s\n", opt->bundle);
	print_contention(f, st);
	fputc('\n', f);
	summary_print(f, &st->cmp, 0);
	fflush(f);
}

/* The plan's own report template, kept in the evidence so that `abev report DIR` can use it. */
static int write_template(const char *root, const struct plan *plan)
{
	char *path;
	int ret;

	if (!plan->report_template)
		return 0;
	path = path_join(root, REPORT_TEMPLATE_FILE);
	ret = write_file_atomic(path, plan->report_template, plan->report_template_len);
	free(path);
	return ret;
}

/*
 * The end of every run: result.json and report.md written as final,
 * sealed, packed. A signal that arrives meanwhile is not lost: the
 * evidence is written again as interrupted, sealed again and packed
 * again. That happens at most once, since the interrupt flag only goes
 * from 0 to a signal. *final is the status the evidence records.
 */
static void finish_evidence(struct run_state *st, enum run_status *final, int *sealed,
			    int *bundled)
{
	const struct runner_options *opt = st->opt;

	for (;;) {
		now_utc(st->ended);
		if (write_state(st, 1) < 0)
			st->runtime_error = 1;
		*final = current_status(st, 1);
		*sealed = *bundled = 0;
		/* Sealed whatever the outcome, an interrupted run included: it says so itself. */
		if (seal_evidence(st->root, opt->key) < 0) {
			st->runtime_error = 1;
		} else {
			*sealed = 1;
			if (opt->bundle && bundle_pack(st->root, opt->bundle) < 0)
				st->runtime_error = 1;
			else
				*bundled = opt->bundle != NULL;
		}
		if (st->interrupt || !proc_interrupted())
			return;
		st->interrupt = proc_interrupted();
		add_note(st, xasprintf("abev received %s after the last invocation, while "
				       "writing, sealing or packing the evidence; every "
				       "invocation recorded here had finished",
				       proc_signal_name(st->interrupt)));
		/* bundle_pack() made it (it never replaces a file): it is made again. */
		if (*bundled && unlink(opt->bundle) < 0) {
			error("cannot remove '%s' to pack it again: %s", opt->bundle,
			      strerror(errno));
			st->runtime_error = 1;
			*bundled = 0;
		}
	}
}

/* How often a run under --wait looks whether it may start. */
#define PEERS_POLL_NS (250 * 1000 * 1000LL)

/*
 * Registers with the other abev runs on this host and, under --wait,
 * waits until none runs and no earlier waiter is left — before the git
 * and versions commands, which would disturb a run going on. A signal
 * while waiting is an interrupt like any other: the evidence says so.
 */
static void join_peers(struct run_state *st)
{
	const char *out = st->opt->out_dir;
	char *cwd = out[0] == '/' ? NULL : getcwd(NULL, 0);
	char *abs = cwd ? path_join(cwd, out) : xstrdup(out);
	struct overlap_hit who;
	long last = 0;
	int64_t t0 = mono_ns();

	peers_join(&st->peers, abs);
	free(abs);
	free(cwd);
	if (st->peers.note)
		add_note(st, xstrdup(st->peers.note));
	st->waited_ns = -1;
	if (st->opt->wait) {
		while (peers_blocker(&st->peers, &who)) {
			if (who.pid != last && st->opt->progress != PROGRESS_QUIET)
				fprintf(stderr, "abev: waiting for another abev run on this host to "
						"finish (pid %ld%s%s%s) — --wait\n",
					who.pid, who.evidence ? ", writing '" : "",
					who.evidence ? who.evidence : "", who.evidence ? "'" : "");
			last = who.pid;
			overlap_hit_release(&who);
			if (proc_sleep(PEERS_POLL_NS, NULL, NULL))
				break;
		}
		st->waited_ns = mono_ns() - t0;
		if (proc_interrupted()) {
			add_note(st, xasprintf("abev received %s while waiting for another abev run "
					       "on this host to finish (--wait); no invocation ran",
					       proc_signal_name(proc_interrupted())));
			return;
		}
	}
	peers_start(&st->peers);
}

enum runner_outcome runner_run(const struct plan *plan, const struct runner_options *opt,
			       struct runner_result *res)
{
	struct run_state st;
	struct sched_slot *slots = NULL;
	size_t nslots = 0;
	enum runner_outcome outcome = RUNNER_ERROR;
	int64_t next_start = 0;
	int have_prev = 0;
	char *plan_copy = NULL, *err = NULL;
	struct metadata *md = NULL;
	enum run_status final;
	int sealed = 0, bundled = 0;

	memset(&st, 0, sizeof(st));
	st.plan = plan;
	st.opt = opt;
	memset(res, 0, sizeof(*res));

	/* From here on a signal is an interrupt, recorded in the evidence. */
	if (proc_setup() < 0)
		goto out;
	cgroup_remove_stale();
	overlap_watch_init(&st.watch, (const char *const *)plan->exclusive, plan->nexclusive);
	join_peers(&st);
	/* A signal while waiting under --wait: the note says so (join_peers()). */
	st.interrupt = opt->wait ? proc_interrupted() : 0;
	/* What is compared is pinned down before anything runs or is written. */
	md = metadata_collect(plan, opt->host_label);
	if (!md) {
		outcome = RUNNER_USAGE;
		goto out;
	}
	if (!st.interrupt && proc_interrupted()) {
		st.interrupt = proc_interrupted();
		add_note(&st, xasprintf("abev received %s before the first invocation, while "
					"collecting metadata.json (git, versions commands); no "
					"invocation ran", proc_signal_name(st.interrupt)));
	}
	if (create_root(&st, &outcome) < 0)
		goto out;
	plan_copy = path_join(st.root, "plan.json");
	if (write_file_atomic(plan_copy, plan->raw, plan->raw_len) < 0 ||
	    metadata_write(st.root, md) < 0 || write_template(st.root, plan) < 0)
		goto out;
	/* The report shows metadata.json as written, as `abev report DIR` will read it. */
	if (evidence_read_environment(st.root, &st.env, &err) < 0) {
		error("%s", err);
		free(err);
		err = NULL;
		goto out;
	}
	st.have_env = 1;
	st.judge = judge_new(plan, &err);
	if (!st.judge) {
		error("%s", err);
		free(err);
		goto out;
	}

	st.variant_names = xcalloc(plan->nvariants, sizeof(*st.variant_names));
	for (size_t i = 0; i < plan->nvariants; i++)
		st.variant_names[i] = plan->variants[i].name;
	compare_setup(&st);
	st.cwd = getcwd(NULL, 0);
	{
		unsigned char d[SHA256_LEN];
		sha256_buf(plan->raw, plan->raw_len, d);
		sha256_hex(d, st.plan_sha256);
	}
	schedule_build(plan->order, plan->seed, plan->nvariants, plan->warmups, plan->runs, &slots,
		       &nslots);
	st.planned = nslots;
	now_utc(st.started);
	if (write_state(&st, 0) < 0)
		goto out;
	progress_init(&st.prog, opt->progress, nslots, plan->gap_seconds);

	for (size_t i = 0; i < nslots && !st.interrupt && !st.runtime_error; i++) {
		for (unsigned attempt = 1;; attempt++) {
			struct invocation *inv;

			progress_start(&st.prog, st.ninvs, plan->variants[slots[i].variant].name,
				       slots[i].warmup, slots[i].round, attempt);
			if (have_prev) {
				int64_t wait = next_start - mono_ns();
				struct tick_ctx t = { &st.prog, wait, NULL };
				if (wait > 0 && proc_sleep(wait, gap_tick, &t))
					st.interrupt = proc_interrupted();
			}
			if (!st.interrupt)
				st.interrupt = proc_interrupted();
			if (st.interrupt)
				break;

			ensure_capacity(&st);
			inv = &st.invs[st.ninvs];
			if (run_one(&st, &slots[i], attempt, inv) < 0) {
				invocation_release(inv);
				st.runtime_error = 1;
				add_note(&st, xasprintf("abev stopped: could not start %s %s %u",
							plan->variants[slots[i].variant].name,
							slots[i].warmup ? "warmup" : "run",
							slots[i].round));
				break;
			}
			st.ninvs++;
			next_start = mono_ns() + (int64_t)(plan->gap_seconds * 1e9);
			have_prev = 1;
			if (evidence_write_invocation(st.root, inv) < 0 || write_state(&st, 0) < 0) {
				st.runtime_error = 1;
				add_note(&st, xasprintf("abev stopped: the files of %s could not be "
							"written (see abev's error output); they may "
							"be missing or incomplete here",
							inv->dir));
				break;
			}
			progress_done(&st.prog, inv);
			if (inv->status != INV_DISCARDED)
				break;
			if (attempt > plan->max_repeats) {
				st.lost++;
				add_note(&st, xasprintf("%s run %u: all %u attempt(s) were discarded "
							"for contention or overlap (last: %s); this slot has no "
							"measurement",
							inv->variant, inv->round, attempt,
							inv->guards[inv->nguards - 1].reason));
				break;
			}
			st.prog.total++;
		}
	}

	progress_clear(&st.prog);
	finish_evidence(&st, &final, &sealed, &bundled);
	if (st.interrupt) {
		res->signo = st.interrupt;
		outcome = RUNNER_INTERRUPTED;
	} else if (st.runtime_error) {
		outcome = RUNNER_ERROR;
	} else {
		outcome = final == RUN_COMPLETED ? RUNNER_PASSED : RUNNER_FAILED;
	}
	res->decision = st.cmp.decision;
	print_end(&st, final, sealed, bundled);
	/* The run is over and sealed: a closed stdout is worth a message, not a failure. */
	if (fflush(stdout) != 0 || ferror(stdout))
		error("cannot write the summary to standard output: %s (the evidence in '%s' "
		      "is complete)", errno ? strerror(errno) : "write error", st.root);
out:
	for (size_t i = 0; i < st.ninvs; i++)
		invocation_release(&st.invs[i]);
	free(st.invs);
	for (size_t i = 0; i < st.nnotes; i++)
		free(st.notes[i]);
	free(st.notes);
	free(st.variant_names);
	judge_free(st.judge);
	progress_release(&st.prog);
	compare_teardown(&st);
	free(st.cwd);
	run_environment_release(&st.env);
	metadata_free(md);
	overlap_watch_release(&st.watch);
	peers_leave(&st.peers);
	free(st.root);
	free(slots);
	free(plan_copy);
	return outcome;
}
