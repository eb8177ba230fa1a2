/*
 * versions: git state and `versions` commands of a variant (versions.h),
 * run through proc_run() in capture mode. Output is cleaned to UTF-8 and
 * cut to VERSION_OUTPUT_MAX bytes here; serialising it is metadata.c's.
 */
#include "host/versions.h"

#include <stdlib.h>
#include <string.h>

#include "host/metadata.h"
#include "run/proc.h"
#include "util/alloc.h"
#include "util/env.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/utf8.h"

/* After METADATA_CMD_TIMEOUT_NS (metadata.h) a command gets SIGTERM, then SIGKILL. */
#define CMD_GRACE_NS (1000000000LL)
#define GIT_OUTPUT_MAX (1u << 20)
#define VERSION_OUTPUT_MAX 4096

/*
 * Runs argv in cwd with envp (NULL: abev's own) through proc, in capture
 * mode: stdout (and stderr with merge_stderr, else /dev/null) into out,
 * the first cap bytes kept, in a cgroup of its own where the machine has
 * cgroups (so that what it leaves behind is found and killed, also by the
 * watchdog if abev dies), METADATA_CMD_TIMEOUT_NS then SIGTERM
 * to its group and SIGKILL a grace period later; whatever it leaves behind
 * is killed. An abev interrupt stops it like any child (PROC_INTERRUPTED).
 * as_abev: as abev itself even under run_as (git: abev's own look at the
 * checkout); the plan's versions commands run as the plan's commands do.
 * Returns 0 with the outcome in *res (exec failure included; release it),
 * -1 after error() when abev could not run anything at all.
 */
static int command_output(const char *const *argv, const char *const *envp, const char *cwd,
		   int merge_stderr, int as_abev, size_t cap, struct strbuf *out,
		   struct proc_result *res)
{
	struct proc_spec spec = {
		.argv = argv,
		.envp = envp,
		.cwd = cwd,
		.timeout_ns = METADATA_CMD_TIMEOUT_NS,
		.grace_ns = CMD_GRACE_NS,
		.capture = out,
		.capture_max = cap,
		.capture_stderr = merge_stderr,
		.cgroup_name = "versions",
		.as_abev = as_abev,
	};

	return proc_run(&spec, res);
}


static int is_hex_id(const char *s)
{
	size_t n = strlen(s);
	if (n != 40 && n != SHA256_HEX_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/*
 * HEAD and dirtiness, in abev's own environment. Anything short of both
 * answers (no git, not a checkout, no commit yet, a repository git refuses
 * as unsafe) leaves git unknown: the field is a record, not a gate.
 * --no-optional-locks keeps status from rewriting the user's index.
 */
int versions_git_state(const char *cwd, struct git_state *g)
{
	const char *head_argv[] = { "git", "-C", cwd, "rev-parse", "HEAD", NULL };
	const char *status_argv[] = { "git", "--no-optional-locks", "-C", cwd, "status",
				      "--porcelain", "--untracked-files=normal", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_result r;
	char *head = NULL;
	int ret = -1;

	memset(g, 0, sizeof(*g));
	memset(&r, 0, sizeof(r));
	if (proc_interrupted()) {
		ret = 0;
		goto out;
	}
	if (command_output(head_argv, NULL, cwd, 0, 1, GIT_OUTPUT_MAX, &out, &r) < 0)
		goto out;
	if (r.outcome == PROC_EXITED && r.exit_code == 0)
		head = utf8_clean_trim(out.buf, out.len);
	proc_result_release(&r);
	strbuf_reset(&out);
	if (!head || !is_hex_id(head)) {
		ret = 0;
		goto out;
	}
	if (command_output(status_argv, NULL, cwd, 0, 1, GIT_OUTPUT_MAX, &out, &r) < 0)
		goto out;
	if (r.outcome == PROC_EXITED && r.exit_code == 0) {
		g->known = 1;
		memcpy(g->head, head, strlen(head) + 1);
		g->dirty = out.len > 0;
	} else if (r.outcome != PROC_INTERRUPTED) {
		warning("'git status' failed in '%s': its git state is not recorded", cwd);
	}
	ret = 0;
out:
	proc_result_release(&r);
	strbuf_release(&out);
	free(head);
	return ret;
}


/*
 * abev's environment, the variant's additions and ABEV_VARIANT. Nothing
 * has run yet, so {run_dir} and {phase} expand to "" and {round} to 0.
 */
char **versions_env(const struct plan_variant *v)
{
	struct plan_vars vars = { NULL, v->name, NULL, 0 };
	struct env_array env = ENV_ARRAY_INIT;

	plan_variant_env(v, &vars, &env);
	env_set(&env, "ABEV_VARIANT", v->name);
	return env.v;
}

int versions_run(const struct plan_version *pv, const struct plan_variant *v,
		 char *const *envp, struct version_record *mv)
{
	const char **argv = xcalloc(pv->argc + 1, sizeof(*argv));
	struct strbuf out = STRBUF_INIT;
	struct proc_result r;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	mv->name = xstrdup(pv->name);
	mv->argv = xcalloc(pv->argc, sizeof(*mv->argv));
	for (size_t i = 0; i < pv->argc; i++) {
		mv->argv[i] = xstrdup(pv->argv[i]);
		argv[i] = pv->argv[i];
	}
	mv->argc = pv->argc;
	mv->exit_code = -1;
	if (proc_interrupted()) {
		/* The run is over before it began: say so rather than start more. */
		mv->output = xstrdup("");
		mv->error = xasprintf("not run: abev received %s", proc_signal_name(proc_interrupted()));
		ret = 0;
		goto out;
	}
	if (command_output(argv, (const char *const *)envp, v->cwd, 1, 0, VERSION_OUTPUT_MAX, &out, &r) < 0)
		goto out;
	/* Cleaning may widen bytes into U+FFFD: cut again to keep the ceiling. */
	mv->output = utf8_clean_trim(out.buf, out.len);
	mv->output[utf8_cut(mv->output, strlen(mv->output), VERSION_OUTPUT_MAX)] = '\0';
	switch (r.outcome) {
	case PROC_EXITED:
		mv->exit_code = r.exit_code;
		break;
	case PROC_SIGNALED:
		mv->error = xasprintf("killed by signal %d (%s)", r.signal, proc_signal_name(r.signal));
		break;
	case PROC_TIMED_OUT:
		mv->error = proc_timeout_text(&r, (double)(METADATA_CMD_TIMEOUT_NS / 1000000000),
					      NULL);
		break;
	case PROC_EXEC_FAILED:
		mv->error = xstrdup(r.exec_error ? r.exec_error : "could not be executed");
		break;
	case PROC_INTERRUPTED:
		mv->error = xasprintf("interrupted: abev received %s; the command was stopped",
				      proc_signal_name(r.interrupt_signal));
		break;
	}
	ret = 0;
out:
	proc_result_release(&r);
	strbuf_release(&out);
	free(argv);
	return ret;
}

void versions_release(struct version_record *mv)
{
	free(mv->name);
	for (size_t i = 0; i < mv->argc; i++)
		free(mv->argv[i]);
	free(mv->argv);
	free(mv->output);
	free(mv->error);
	memset(mv, 0, sizeof(*mv));
}

