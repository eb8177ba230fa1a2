/*
 * plan_check: templates are expanded twice, as for two different runs
 * (another run directory, phase and round); what comes out the same both
 * times does not depend on the run and can be checked now, and what
 * differs is left alone. A command run through `sh -c ...` is thus
 * checked as far as `sh`.
 */
#include "pipeline/plan_check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/errlist.h"
#include "host/metadata.h"
#include "run/dotnet_hook.h"
#include "run/proc.h"
#include "measure/sysstat.h"
#include "util/cpulist.h"
#include "util/alloc.h"
#include "util/env.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/strbuf.h"

/* The two run directories of the double expansion; the second one never exists. */
#define RUN_DIR_A "/nonexistent/abev-run-dir-a"
#define RUN_DIR_B "/nonexistent/abev-run-dir-b"
#define SHOW_MAX 128

struct checker {
	const struct plan *plan;
	struct errlist *errors;
	char *path;    /* the plan's path, escaped as the plan's own errors show it */
};

/* "variants[1].cwd" for a listed variant, "base.cwd" for one from the variants file. */
static char *key_of(const struct plan *plan, size_t vi, const char *key)
{
	if (vi < plan->nlisted)
		return xasprintf("variants[%zu].%s", plan->variants[vi].listed_at, key);
	return xasprintf("base.%s", key);
}

static void problem(struct checker *ck, size_t vi, const char *key, const char *what)
{
	char *k = key_of(ck->plan, vi, key);
	errlist_add(ck->errors, "%s: %s: %s (variant '%s')", ck->path, k, what,
		    ck->plan->variants[vi].name);
	free(k);
}

/* The template expanded for two runs; NULL when the two differ (it depends on the run). */
static char *expand_fixed(const char *tmpl, const char *variant)
{
	struct plan_vars a = { RUN_DIR_A, variant, "run", 1 };
	struct plan_vars b = { RUN_DIR_B, variant, "warmup", 2 };
	char *x = plan_expand(tmpl, &a), *y = plan_expand(tmpl, &b);

	if (x && y && !strcmp(x, y)) {
		free(y);
		return x;
	}
	free(x);
	free(y);
	return NULL;
}

static int check_cwd(struct checker *ck, size_t vi)
{
	const char *cwd = ck->plan->variants[vi].cwd;
	char b[SHOW_MAX], *why;
	struct stat st;
	int r = stat(cwd, &st);

	if (r == 0 && S_ISDIR(st.st_mode))
		return 0;
	show_text(b, sizeof(b), cwd, strlen(cwd));
	if (r == 0)
		why = xasprintf("'%s' is not a directory", b);
	else if (errno == ENOENT)
		why = xasprintf("directory '%s' does not exist", b);
	else
		why = xasprintf("cannot use directory '%s': %s", b, strerror(errno));
	problem(ck, vi, "cwd", why);
	free(why);
	return -1;
}

/* Whether the directory an absolute path's last part would be made in is one. */
static int parent_is_dir(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	struct stat st;
	int ok;

	if (slash)
		slash[slash == dir] = '\0';
	ok = slash && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	free(dir);
	return ok;
}

/*
 * An output file (plan.h: PLAN_OUTPUT_FILE) that abev would refuse at the
 * first run — a symlink, a hard link, not a regular file, a directory that
 * is not there — is refused before anything runs. proc checks again as it
 * opens it, since a run may change what the path names.
 */
static void check_output_file(struct checker *ck, size_t vi)
{
	const char *path = ck->plan->variants[vi].output_file;
	char b[SHOW_MAX], *why = NULL;
	struct stat st;

	if (ck->plan->variants[vi].output != PLAN_OUTPUT_FILE)
		return;
	show_text(b, sizeof(b), path, strlen(path));
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			why = xasprintf("cannot use output file '%s': %s", b, strerror(errno));
		else if (!parent_is_dir(path))
			why = xasprintf("output file '%s': its directory does not exist", b);
	} else if (S_ISLNK(st.st_mode)) {
		why = xasprintf("output file '%s' is a symbolic link, which abev does not follow", b);
	} else if (!S_ISREG(st.st_mode)) {
		why = xasprintf("output file '%s' is not a regular file", b);
	} else if (st.st_nlink > 1) {
		why = xasprintf("output file '%s' has another hard link, whose file abev would "
				"overwrite", b);
	}
	if (why)
		problem(ck, vi, "output", why);
	free(why);
}

/* 1 when path (relative to cwd unless absolute) is a regular file abev may execute. */
static int executable(const char *cwd, const char *path, int *exists)
{
	char *abs = path[0] == '/' ? xstrdup(path) : path_join(cwd, path);
	struct stat st;
	int ok = 0;

	if (stat(abs, &st) == 0) {
		*exists = 1;
		ok = S_ISREG(st.st_mode) && access(abs, X_OK) == 0;
	}
	free(abs);
	return ok;
}

/*
 * The program a shell command line runs first, when that can be told
 * without running a shell: `sh -c 'CMD ...'` (sh, bash, dash, zsh) whose
 * first word is a plain word — no quote, expansion, redirection or
 * assignment — and no shell keyword or builtin. Caller frees; NULL when
 * there is none to check.
 */
static char *shell_first_program(const struct plan_variant *v, const char *prog)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh" };
	static const char *const builtins[] = {
		"!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if",
		"in", "then", "until", "while", "function", "select", "time", "[[",
		".", ":", "break", "continue", "eval", "exec", "exit", "export", "readonly",
		"return", "set", "shift", "times", "trap", "unset", "cd", "alias", "bg",
		"command", "false", "fc", "fg", "getopts", "jobs", "kill", "newgrp", "pwd",
		"read", "true", "type", "ulimit", "umask", "unalias", "wait", "echo", "printf",
		"test", "[", "source", "builtin", "local", "declare", "typeset", "let",
		"shopt", "hash", "history", "pushd", "popd", "dirs", "disown", "enable", "help",
		"logout", "mapfile", "readarray", "suspend", "caller", "compgen", "complete",
	};
	const char *base = strrchr(prog, '/'), *cmd, *end;
	int shell = 0;

	base = base ? base + 1 : prog;
	for (size_t i = 0; i < ARRAY_SIZE(shells); i++)
		shell |= !strcmp(base, shells[i]);
	if (!shell || v->command_len < 3 || strcmp(v->command[1], "-c"))
		return NULL;
	cmd = v->command[2];
	cmd += strspn(cmd, " \t\n");
	end = cmd + strcspn(cmd, " \t\n;&|");
	if (end == cmd)
		return NULL;
	for (const char *p = cmd; p < end; p++)
		if (strchr("'\"\\$`<>(){}=*?[]~#", *p))
			return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (strlen(builtins[i]) == (size_t)(end - cmd) && !strncmp(cmd, builtins[i], (size_t)(end - cmd)))
			return NULL;
	return xstrndup(cmd, (size_t)(end - cmd));
}

/*
 * command[0] looked up as the child will look it up: in the PATH of the
 * variant's environment (abev's own, plus the plan's env), relative
 * entries from the variant's cwd.
 */
static void check_program(struct checker *ck, size_t vi)
{
	const struct plan_variant *v = &ck->plan->variants[vi];
	struct plan_vars a = { RUN_DIR_A, v->name, "run", 1 };
	struct plan_vars b = { RUN_DIR_B, v->name, "warmup", 2 };
	char *prog = expand_fixed(v->command[0], v->name);
	struct env_array env = ENV_ARRAY_INIT, env_b = ENV_ARRAY_INIT;
	const char *path_a = NULL, *path_b = NULL;
	char shown[SHOW_MAX], *why = NULL, **cands = NULL, *inner;
	const char *key = "command[0]";
	int found = 0, exists = 0;

	if (!prog || !*prog)
		goto out;
	/* A shell is there; what counts is the program its command line starts. */
	inner = shell_first_program(v, prog);
	if (inner) {
		free(prog);
		prog = inner;
		key = "command[2]";
	}
	plan_variant_env(v, &a, &env);
	plan_variant_env(v, &b, &env_b);
	for (size_t i = 0; i < env.n; i++)
		if (!strncmp(env.v[i], "PATH=", 5))
			path_a = env.v[i] + 5;
	for (size_t i = 0; i < env_b.n; i++)
		if (!strncmp(env_b.v[i], "PATH=", 5))
			path_b = env_b.v[i] + 5;
	/* A PATH that names the run's own directory is looked in during the run. */
	if ((path_a || path_b) && (!path_a || !path_b || strcmp(path_a, path_b)))
		goto out;
	cands = proc_exec_candidates(prog, (const char *const *)env.v);
	for (size_t i = 0; cands[i] && !found; i++)
		found = executable(v->cwd, cands[i], &exists);
	if (found)
		goto out;
	show_text(shown, sizeof(shown), prog, strlen(prog));
	if (exists)
		why = xasprintf("program '%s' is not an executable file", shown);
	else if (strchr(prog, '/'))
		why = xasprintf("program '%s' does not exist", shown);
	else
		why = xasprintf("program '%s' is not on the PATH (%.200s)%s", shown,
				path_a ? path_a : "abev's default",
				inner ? ": the shell would say 'not found' and exit 127" : "");
	problem(ck, vi, key, why);
out:
	free(why);
	strv_free(cands);
	strv_free(env.v);
	strv_free(env_b.v);
	free(prog);
}

static void check_assemblies(struct checker *ck, size_t vi)
{
	const struct plan_variant *v = &ck->plan->variants[vi];

	for (size_t k = 0; k < v->assemblies_len; k++) {
		char *pattern = expand_fixed(v->assemblies[k], v->name);
		char *key = xasprintf("assemblies[%zu]", k), *err = NULL, *why = NULL;
		char shown[SHOW_MAX], dir[SHOW_MAX];
		size_t n = 0;

		if (!pattern)
			goto next;
		show_text(shown, sizeof(shown), v->assemblies[k], strlen(v->assemblies[k]));
		show_text(dir, sizeof(dir), v->cwd, strlen(v->cwd));
		if (metadata_match_count(v->cwd, pattern, &n, &err) < 0)
			why = xasprintf("'%s': %s", shown, err);
		else if (!n)
			why = xasprintf("'%s' matches no file in '%s'", shown, dir);
		if (why)
			problem(ck, vi, key, why);
next:
		free(why);
		free(err);
		free(key);
		free(pattern);
	}
}

/*
 * The directory results.files reads from: the pattern up to the last '/'
 * before its first wildcard. Under the run's own directory it is made by
 * abev (or the run); anywhere else it has to exist now.
 */
static void check_results(struct checker *ck, size_t vi)
{
	const struct plan_variant *v = &ck->plan->variants[vi];
	char *pattern = expand_fixed(ck->plan->results_files, v->name);
	char *dir = NULL, *abs = NULL, *why = NULL;
	char shown[SHOW_MAX];
	size_t wild, slash;
	struct stat st;

	if (!pattern)
		goto out;
	wild = strcspn(pattern, "*?[");
	for (slash = wild; slash > 0 && pattern[slash - 1] != '/'; slash--)
		;
	dir = slash > 1 ? xstrndup(pattern, slash - 1) : slash ? xstrdup("/") : xstrdup(".");
	abs = dir[0] == '/' ? xstrdup(dir) : path_join(v->cwd, dir);
	if (stat(abs, &st) == 0 && S_ISDIR(st.st_mode))
		goto out;
	show_text(shown, sizeof(shown), abs, strlen(abs));
	why = xasprintf("directory '%s' does not exist (write the results into {run_dir}, or "
			"create it)", shown);
	errlist_add(ck->errors, "%s: results.files: %s (variant '%s')", ck->path, why,
		    v->name);
out:
	free(why);
	free(abs);
	free(dir);
	free(pattern);
}

/* results.files is the same for variants sharing a cwd: say so once. */
static int same_cwd_before(const struct plan *plan, size_t vi)
{
	for (size_t i = 0; i < vi; i++)
		if (!strcmp(plan->variants[i].cwd, plan->variants[vi].cwd))
			return 1;
	return 0;
}

/*
 * The CPUs a list names must be ones abev may run on (its affinity): a
 * child pinned elsewhere could not start. key is "schedule.cpus" or the
 * variant's.
 */
static void check_cpu_list(struct checker *ck, const char *key, const char *cpus,
			   const char *variant)
{
	struct cpulist want, may;
	char *bad = NULL, *allowed;

	if (!cpus || cpulist_parse(cpus, &want, &bad) < 0) {
		free(bad);
		return;
	}
	sysstat_affinity(&may);
	if (!may.count)
		return;
	for (unsigned c = 0; c < CPULIST_MAX; c++) {
		if (!cpulist_has(&want, c) || cpulist_has(&may, c))
			continue;
		allowed = cpulist_format(&may);
		errlist_add(ck->errors, "%s: %s: CPU %u is not one abev may run on here "
			    "(its CPUs: %s)%s%s%s", ck->path, key, c, allowed,
			    variant ? " (variant '" : "", variant ? variant : "", variant ? "')" : "");
		free(allowed);
		return;
	}
}

static void check_cpus(struct checker *ck)
{
	const struct plan *plan = ck->plan;

	check_cpu_list(ck, "schedule.cpus", plan->set.cpus, NULL);
	for (size_t vi = 0; vi < plan->nvariants; vi++) {
		const char *own = plan->variants[vi].cpus;
		char *k;

		/* A variant without its own list has the schedule's, checked above. */
		if (!own || (plan->set.cpus && !strcmp(own, plan->set.cpus)))
			continue;
		k = key_of(plan, vi, "cpus");
		check_cpu_list(ck, k, own, plan->variants[vi].name);
		free(k);
	}
}

/* run_as must name a user of this machine. */
static void check_run_as(struct checker *ck)
{
	struct proc_user u = PROC_USER_INIT;
	char b[SHOW_MAX];

	if (!ck->plan->run_as)
		return;
	if (proc_user_lookup(&u, ck->plan->run_as) < 0)
		errlist_add(ck->errors, "%s: run_as%s: no user '%s' on this machine",
			    ck->path,
			    ck->plan->run_as_from && strcmp(ck->plan->run_as_from, "plan")
				    ? " (--run-as)" : "",
			    show_str(b, sizeof(b), ck->plan->run_as));
	proc_user_release(&u);
}

/* Whether a real run may prepare the variant first, so that its program is not looked for. */
static int may_be_prepared(const struct plan *plan, size_t vi)
{
	return plan->variants[vi].prepare_len || plan->prepare_unknown;
}

/* A plan with dotnet_runtime needs the startup hook built (or named). */
static void check_dotnet_hook(struct checker *ck)
{
	char *path = NULL, *why = NULL;

	if (ck->plan->dotnet_runtime && dotnet_hook_find(&path, &why) < 0)
		errlist_add(ck->errors, "%s: dotnet_runtime: %s", ck->path, why);
	free(path);
	free(why);
}

int plan_check(const struct plan *plan, unsigned what, struct errlist *errors)
{
	struct checker ck = { plan, errors, xstrdup_escaped(plan->path) };
	size_t before = errors->total;

	check_run_as(&ck);
	check_cpus(&ck);
	if (what & PLAN_CHECK_PROGRAMS)
		check_dotnet_hook(&ck);

	for (size_t vi = 0; vi < plan->nvariants; vi++) {
		check_output_file(&ck, vi);
		if (check_cwd(&ck, vi) < 0)
			continue;
		if ((what & PLAN_CHECK_PROGRAMS) &&
		    !((what & PLAN_CHECK_UNPREPARED) && may_be_prepared(plan, vi)))
			check_program(&ck, vi);
		/* A setup may build them: they are matched after it (runner.c). */
		if ((what & PLAN_CHECK_ASSEMBLIES) &&
		    !((what & PLAN_CHECK_UNPREPARED) && plan->variants[vi].setup_len))
			check_assemblies(&ck, vi);
		if ((what & PLAN_CHECK_RESULTS) && plan->results_files && !same_cwd_before(plan, vi))
			check_results(&ck, vi);
	}
	free(ck.path);
	return errors->total > before ? -1 : 0;
}
