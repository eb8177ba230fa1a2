/*
 * prepare: runs a plan's prepare command before an invocation. Its
 * output is captured (stderr into the same stream, as a terminal would
 * show it) and written to prepare.log, so that a failing prepare step
 * can be read in the evidence like the measured command's logs.
 */
#include "run/prepare.h"

#include <stdlib.h>
#include <string.h>

#include "run/proc.h"
#include "util/alloc.h"
#include "util/strbuf.h"

/*
 * Whose limit a step that timed out met, for its reason: the plan's
 * step_timeout_seconds, its timeout_seconds, or the default — so that
 * a step ended after an hour says which key would give it longer.
 */
static const char *step_limit(const struct plan *plan)
{
	const char *from = plan->set.step_timeout_seconds_from;

	if (from && !strcmp(from, "plan"))
		return "schedule.step_timeout_seconds";
	if (from && !strcmp(from, RUN_STEP_TIMEOUT_FROM_TIMEOUT))
		return "schedule.timeout_seconds, which steps take without "
		       "schedule.step_timeout_seconds";
	return "the default of schedule.step_timeout_seconds";
}

/* The outcome of the command in words, or NULL when it exited 0. */
static char *prepare_reason(const struct proc_result *res, const struct plan *plan)
{
	switch (res->outcome) {
	case PROC_EXITED:
		return res->exit_code ? xasprintf("exited with code %d", res->exit_code) : NULL;
	case PROC_SIGNALED:
		return xasprintf("was killed by signal %d (%s)", res->signal,
				 proc_signal_name(res->signal));
	case PROC_TIMED_OUT:
		return proc_timeout_text(res, plan->set.step_timeout_seconds, step_limit(plan));
	case PROC_EXEC_FAILED:
		return xstrdup(res->exec_error ? res->exec_error : "could not be executed");
	case PROC_INTERRUPTED:
		return xasprintf("was stopped: abev received %s",
				 proc_signal_name(res->interrupt_signal));
	}
	return xstrdup("ended in an unknown way");
}

static const char *prepare_status(const struct proc_result *res)
{
	switch (res->outcome) {
	case PROC_EXITED: return res->exit_code ? "failed" : "ok";
	case PROC_SIGNALED: return "failed";
	case PROC_TIMED_OUT: return "timed_out";
	case PROC_EXEC_FAILED: return "exec_failed";
	case PROC_INTERRUPTED: return "interrupted";
	}
	return "failed";
}

int prepare_run(const struct plan *plan, const struct plan_variant *v,
		const struct plan_vars *vars, char *const *env, const struct proc_runner *runner,
		struct strbuf *log, struct invocation_prepare **out)
{
	return prepare_run_argv(plan, v, v->prepare, v->prepare_len, vars, env, runner, log,
				"prepare", out);
}

int prepare_run_argv(const struct plan *plan, const struct plan_variant *v,
		     char *const *tmpl, size_t n, const struct plan_vars *vars, char *const *env,
		     const struct proc_runner *runner, struct strbuf *log, const char *cgroup_name,
		     struct invocation_prepare **out)
{
	struct invocation_prepare *p = xcalloc(1, sizeof(*p));
	struct proc_result res;
	int ret = -1;

	memset(&res, 0, sizeof(res));
	p->argv = xcalloc(n + 1, sizeof(*p->argv));
	for (; p->argc < n; p->argc++) {
		p->argv[p->argc] = plan_expand(tmpl[p->argc], vars);
		if (!p->argv[p->argc])
			goto out;
	}
	struct proc_spec spec = {
		.argv = (const char *const *)p->argv,
		.envp = (const char *const *)env,
		.cwd = v->cwd,
		.capture = log,
		.capture_max = (size_t)plan->max_step_log_bytes,
		.capture_stderr = 1,
		.timeout_ns = (int64_t)(plan->set.step_timeout_seconds * 1e9),
		.grace_ns = (int64_t)(plan->kill_grace_seconds * 1e9),
		/* In a cgroup of its own, so that whatever it leaves behind is found and killed. */
		.cgroup_name = cgroup_name,
	};
	if ((runner ? runner->run(runner->arg, &spec, &res) : proc_run(&spec, &res)) < 0)
		goto out;
	p->status = prepare_status(&res);
	p->exit_code = res.outcome == PROC_EXITED ? res.exit_code : -1;
	p->signal = res.signal;
	p->interrupt_signal = res.outcome == PROC_INTERRUPTED ? res.interrupt_signal : 0;
	p->wall_ns = res.fig.wall_ns;
	p->reason = prepare_reason(&res, plan);
	p->log_bytes = (int64_t)log->len;
	p->log_bytes_dropped = res.out.bytes_dropped;
	ret = 0;
out:
	proc_result_release(&res);
	if (ret < 0) {
		invocation_prepare_free(p);
		p = NULL;
	}
	*out = p;
	return ret;
}
