/*
 * metadata: what was compared, where. Collected once before the first
 * invocation and written as metadata.json (schema abev.metadata/1): abev's
 * version; the host (its label, hostname, OS release, kernel,
 * architecture, CPU model, logical and physical cores, online CPU list,
 * frequency governor and boost state where readable, memory, cgroup
 * version, clock resolution); abev's environment; and per variant its
 * environment, cwd, git HEAD and
 * dirtiness where the cwd is in a git checkout, the output of the plan's
 * `versions` commands, and every file its `assemblies` globs match (`**`
 * crosses directories) with size and SHA-256, hashed on every core; and
 * the .NET startup hook abev adds to every run (path, size, SHA-256)
 * when the plan sets dotnet_runtime.
 */
#ifndef ABEV_METADATA_H
#define ABEV_METADATA_H

#include "plan/plan.h"

#define METADATA_SCHEMA "abev.metadata/1"
/*
 * Each versions command and each git call may take this long; then its
 * process group gets SIGTERM and, a second later, SIGKILL, and the
 * version records "timed out". Fixed, documented in abev help run.
 */
#define METADATA_CMD_TIMEOUT_NS (10 * 1000000000LL)
struct metadata;

/*
 * Collects everything. host_label (borrowed; valid per
 * name_rule_ok(), which the caller checks) is recorded as
 * host.label, the name of this machine in a combined report; NULL records
 * the hostname there. An assemblies pattern that matches nothing, or a
 * file that cannot be hashed, is an error naming the variant and the
 * pattern (variants[0].assemblies[1]); a versions command that fails is
 * recorded with its exit status, not an error. Commands run through proc
 * (proc_setup() first): once abev is interrupted the running one is
 * stopped, the rest are not started, and each records why; the caller
 * checks proc_interrupted(). abev's own environment and each variant's
 * (as its commands get it, but for the per-invocation ABEV_RUN_DIR,
 * ABEV_PHASE and ABEV_ROUND) are recorded, and what the plan's env set;
 * the values of variables that look secret by name or value (envname.h)
 * and of secret_name (the --passphrase-env variable, or NULL) as their
 * SHA-256 only. NULL after error().
 */
struct metadata *metadata_collect(const struct plan *plan, const char *host_label,
				  const char *secret_name);
/*
 * How many files an assemblies pattern (placeholders already expanded)
 * matches in cwd, matched as metadata_collect() matches them, for checks
 * before a run. 0, or -1 with the reason in *err (caller frees) when the
 * pattern is too broad or a match cannot be used.
 */
int metadata_match_count(const char *cwd, const char *pattern, size_t *n, char **err);
/*
 * The startup hook metadata_collect() found for a plan with
 * dotnet_runtime (absolute; borrowed, valid until metadata_free()), which
 * every run's DOTNET_STARTUP_HOOKS gets; NULL without. A plan with
 * dotnet_runtime whose hook cannot be found or hashed fails
 * metadata_collect().
 */
const char *metadata_dotnet_hook(const struct metadata *md);
/*
 * A variant with a setup step has its assemblies matched and hashed after
 * that step, which may build them: metadata_collect() leaves them
 * unmatched, and this matches those of each variant whose setup ended ok
 * (set_up[v] != 0). The number of variants it matched, or -1 with *why
 * (caller frees) when a pattern matches nothing (or cannot be used)
 * after the setup, or the files cannot be hashed.
 */
int metadata_assemblies_after_setup(struct metadata *md, const struct plan *plan,
				    const unsigned char *set_up, char **why);
/* Whether some variant's assemblies wait to be matched after its setup. */
int metadata_assemblies_pending(const struct metadata *md);
/* metadata.json's text. Caller frees. */
char *metadata_text(const struct metadata *md);
/*
 * Fills *out (its contents overwritten, not freed; release with
 * evidence_environment_release()) with what metadata_text() records, as
 * evidence_read_environment() reads it back from the file: the host
 * facts themselves (the same struct, through the same table), and per
 * variant the values the report shows. The report of a run shows it, so
 * that report.md is what `abev report DIR` renders from the files.
 */
struct run_environment;
void metadata_environment(const struct metadata *md, struct run_environment *out);
/* Writes <root>/metadata.json. 0 or -1 after error(). */
int metadata_write(const char *root, const struct metadata *md);
void metadata_free(struct metadata *md);

#endif
