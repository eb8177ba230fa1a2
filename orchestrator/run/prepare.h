/*
 * prepare: the step a plan's "prepare" command (schedule.prepare or a
 * variant's own) takes before each invocation — hyperfine's --prepare:
 * clear a cache, reset a file. It runs through proc in the variant's cwd
 * and environment, within the steps' limit (schedule.step_timeout_seconds,
 * by default the plan's timeout or an hour), its stdout and stderr kept
 * together in the invocation's prepare.log (at most the plan's
 * limits.max_step_log_bytes), and is not measured. It decides nothing
 * about the invocation: the runner does not run the measured command
 * after a prepare that did not exit 0. Setup and cleanup steps run here
 * too, within the same limit.
 */
#ifndef ABEV_PREPARE_H
#define ABEV_PREPARE_H

#include "record/invocation.h"
#include "plan/plan.h"

/*
 * Runs v's prepare command (v->prepare_len > 0) with vars expanded, in
 * env (borrowed), through runner (NULL: proc_run()), its output appended
 * to log (at most plan->max_step_log_bytes), which the caller writes to
 * the invocation's prepare.log. *out (release with
 * invocation_prepare_free()) records what happened, also when the
 * command failed or could not be executed. 0, or -1 after error() when
 * abev itself could not go on (cannot fork).
 */
struct strbuf;
struct proc_runner;
int prepare_run(const struct plan *plan, const struct plan_variant *v,
		const struct plan_vars *vars, char *const *env, const struct proc_runner *runner,
		struct strbuf *log, struct invocation_prepare **out);
/*
 * The same for another command of v's (n argv templates): its setup or
 * cleanup step, run once, in a cgroup named cgroup_name.
 */
int prepare_run_argv(const struct plan *plan, const struct plan_variant *v,
		     char *const *tmpl, size_t n, const struct plan_vars *vars, char *const *env,
		     const struct proc_runner *runner, struct strbuf *log, const char *cgroup_name,
		     struct invocation_prepare **out);

#endif
