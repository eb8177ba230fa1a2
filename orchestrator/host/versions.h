/*
 * versions: what a variant's code is — the git HEAD and dirtiness of its
 * cwd, and the output of the plan's `versions` commands run in its
 * environment — for metadata.json. Every command runs through proc's one
 * runner, captured and bounded (METADATA_CMD_TIMEOUT_NS, then SIGTERM and
 * SIGKILL to its group), and stops when abev is interrupted. A command
 * that fails is a record (its exit status or why it has none), not an
 * error. It does not decide which variants share a checkout nor write
 * JSON: metadata.c does.
 */
#ifndef ABEV_VERSIONS_H
#define ABEV_VERSIONS_H

#include <stddef.h>

#include "util/hash.h"
#include "plan/plan.h"

struct git_state {
	int known;                   /* 0: not a checkout, or git missing */
	char head[SHA256_HEX_LEN + 1];
	int dirty;
};

struct version_record {
	char *name;
	char **argv;
	size_t argc;
	int exit_code;               /* -1: did not exit normally */
	char *output;                /* cleaned and trimmed */
	char *error;                 /* why there is no exit code, or NULL */
};

/*
 * HEAD and dirtiness of cwd, in abev's own environment. Anything short of
 * both answers leaves g->known 0 (a warning when only `git status` fails).
 * 0, or -1 after error() when no command could be run at all.
 */
int versions_git_state(const char *cwd, struct git_state *g);
/*
 * The environment versions commands of v run with: abev's, the variant's
 * additions and ABEV_VARIANT. Free with strv_free().
 */
char **versions_env(const struct plan_variant *v);
/*
 * Runs pv in v's cwd with envp and records the outcome in mv (zeroed by
 * the caller; release it with versions_release() whatever the result).
 * 0, or -1 after error() when the command could not be run at all.
 */
int versions_run(const struct plan_version *pv, const struct plan_variant *v,
		 char *const *envp, struct version_record *mv);
void versions_release(struct version_record *mv);

#endif
