/*
 * evidence_read: reads an evidence directory's top-level result.json
 * (abev.run/1) back into the records abev wrote — the run's header, every
 * invocation, and the configuration of its comparison — so that `abev
 * report`, `abev export` and `abev compare` work from the evidence alone.
 * The file is outside input: sizes are capped, every field's type is
 * checked, and an unknown status, phase, guard or variant is an error
 * naming the JSON path. It does not verify signatures (verify.c does) and
 * computes nothing.
 */
#ifndef ABEV_EVIDENCE_READ_H
#define ABEV_EVIDENCE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "decide/compare.h"
#include "evidence/evidence.h"
#include "record/host_facts.h"
#include "record/run_header.h"

/* result.json larger than this is refused. */
#define EVIDENCE_READ_MAX (512u << 20)

struct evidence_run {
	char *dir;                  /* as given */
	struct run_header hdr;      /* its strings and lists owned here (strings) */
	char *template_text;        /* DIR/EVIDENCE_TEMPLATE_FILE when result.json names it, or NULL */
	size_t template_len;
	struct invocation *invs;    /* execution order; strings owned */
	size_t ninvs;

	/*
	 * The comparison's configuration as recorded; cfg points into the
	 * arrays below. has_comparison is 0 for a run that never finished.
	 */
	int has_comparison;
	struct compare_config cfg;
	struct compare_metric_def *metric_defs; /* the plan's metrics (no built-ins) */
	struct compare_gate_def *gate_defs;
	struct compare_sequential *sequential; /* cfg.sequential: its looks and taken, or NULL */
	void **strings;             /* owned allocations the header and the defs borrow */
	size_t nstrings, strings_alloc;
	void *stored_comparison;    /* the recorded "comparison" as parsed; evidence_read.c's own */
};

#define EVIDENCE_RUN_INIT { 0 }

/*
 * Reads DIR/result.json into *out. 0, or -1 with *err (caller frees)
 * naming the file and what is wrong; *out is then released.
 */
int evidence_read(const char *dir, struct evidence_run *out, char **err);
void evidence_run_release(struct evidence_run *r);

/*
 * Whether doc (an evidence_comparison_document()) says exactly what the
 * recorded comparison says: the check that result.json's comparison does
 * follow from its invocations.
 */
int evidence_comparison_matches(const struct evidence_run *r, const char *doc);

/*
 * metadata.json (abev.metadata/1) as the report shows it: the host and,
 * per variant, its cwd, git state, environment, versions and assemblies.
 * Strings owned; -1 in an integer and NULL in a string mean unknown.
 */
struct env_version {
	char *name, *output, *error;
	int64_t exit_code;
};
struct env_file {
	char *path, *sha256;
	int64_t size;
};
/*
 * The variables of a recorded environment known to change a runtime
 * (envname.h), by name in byte order; a hashed value, and text that
 * looks secret (older evidence), reads "(secret, SHA-256 0123456789ab…)".
 * known: metadata.json recorded the environment (older evidence did not).
 */
struct env_runtime {
	int known;
	char **keys, **values;        /* NULL-terminated */
	size_t n, keys_alloc, values_alloc;
};
struct env_variant {
	char *name, *cwd;
	int git_known, git_dirty;
	char *git_head;
	char **env_keys, **env_values;  /* what the plan set; a secret value shown as above */
	size_t nenv;
	char **param_keys, **param_values; /* the plan's parameters (a scan's values), or none */
	size_t nparams;
	struct env_version *versions;
	size_t nversions;
	struct env_file *files;       /* every assembly pattern's files, in pattern order */
	size_t nfiles, files_alloc;
	struct env_runtime runtime;   /* of its environment */
};
struct run_environment {
	struct host_facts host;       /* "host", read through metadata_fields.c's table */
	struct env_variant *variants;
	size_t nvariants;
	struct env_runtime runtime;   /* of abev's own environment */
};

/*
 * The status recorded in the result.json at path ("running", "completed",
 * "failed", "interrupted"), as a static string, or NULL when the file
 * cannot be read, is over 4 MiB, or names no such status. For messages
 * about evidence that cannot be read otherwise (`abev verify` of evidence
 * that was never sealed).
 */
const char *evidence_read_status(const char *path);

/*
 * What sealed evidence says of itself, as `abev verify` shows it once the
 * seal holds: result.json's status and interrupt, the decision of its
 * comparison, the notes that record a change made to abev's own files
 * while it ran (run_header.h's tampered), and what a signal kept out of
 * the seal (run_header.h's unsealed). Strings owned.
 */
struct evidence_self {
	const char *status;      /* invocation_run_status_name(), static */
	char *interrupt;         /* the signal's name ("SIGINT"), or NULL */
	const char *decision;    /* decision_name(), static; NULL: no comparison was made */
	char **tampered;         /* NULL-terminated, or NULL */
	size_t ntampered;
	int tampered_known;      /* result.json has "tampered"; evidence of older abevs does not */
	char **unsealed;         /* NULL-terminated, or NULL: as recorded, unchecked */
	size_t nunsealed;
	int run_as_known;        /* result.json has "run_as"; evidence of older abevs does not */
	int run_as;              /* the runs ran as another user than abev (run_as not null) */
};
#define EVIDENCE_SELF_INIT { NULL, NULL, NULL, NULL, 0, 0, NULL, 0, 0, 0 }

/*
 * Reads them from text, the bytes of a result.json (name: what messages
 * call it). Only these members are read, so that evidence of an older
 * abev, without members `abev report` needs, still says what it records;
 * a missing "tampered" is not recorded, not "none", a missing "unsealed"
 * is empty, and a missing "run_as" is not known. 0, or -1 with *err
 * (caller frees) naming the member and what is wrong; *out is then
 * released.
 */
int evidence_self_parse(const char *name, const char *text, size_t len,
			struct evidence_self *out, char **err);
/*
 * Whether it records a clean run: completed, with no change to abev's
 * files recorded and nothing left out of the seal.
 */
int evidence_self_clean(const struct evidence_self *s);

/*
 * Only the "unsealed" list of text, the bytes of a result.json (name:
 * what messages call it), into *out (NULL-terminated; caller frees with
 * strv_free()) and *n: for `abev verify`, which must know it before it
 * judges the files SHA256 does not list, whatever else the file holds.
 * Returns 1 when the member is there; 0 when it is not (an older abev),
 * and also when text is no JSON object at all: then *err (caller frees)
 * says why, as evidence_self_parse() would; -1 with *err naming the
 * member when it is not an array of strings. *out is NULL unless 1 is
 * returned.
 */
int evidence_unsealed_parse(const char *name, const char *text, size_t len, char ***out,
			    size_t *n, char **err);
/*
 * Why name cannot stand in the "unsealed" list — every entry must be a
 * path beneath runs/ that evname_problem() accepts (relative, no "." or
 * ".." component, ...) — as a static reason, or NULL when it can.
 */
const char *evidence_unsealed_problem(const char *name);
void evidence_self_release(struct evidence_self *s);

/* Reads DIR/metadata.json. 0, or -1 with *err (caller frees); *out is then released. */
int evidence_read_environment(const char *dir, struct run_environment *out, char **err);
void evidence_environment_release(struct run_environment *e);
/*
 * The value of a recorded variable as the report shows it (owned): text
 * as recorded, or "(secret, SHA-256 0123456789ab…)" when it was recorded
 * as its hash (hashed: the SHA-256 in hex, text NULL) — and for text
 * that looks secret (envname.h), as evidence written before a rule was
 * widened holds, so that no report shows it again. The reader and host/metadata.c's
 * metadata_environment() both show values through it.
 */
char *evidence_environment_shown(const char *name, const char *text, const char *hashed);
/*
 * Marks rt known and, when name is a runtime variable (envname.h), adds
 * it with shown (taken over; freed otherwise). Called in the recorded
 * environment's order.
 */
void evidence_environment_runtime_add(struct env_runtime *rt, const char *name, char *shown);
/*
 * Adds to out one line ("NODE_OPTIONS: '--x' in OLD, unset in NEW") per
 * runtime variable whose value differs between a and b, labelled with
 * la and lb: abev's own environment, and each variant both name. Nothing
 * when either did not record its environment. Returns the lines added.
 */
struct strbuf;
size_t evidence_environment_runtime_diff(const struct run_environment *a, const char *la,
					 const struct run_environment *b, const char *lb,
					 struct strbuf *out);

#endif
