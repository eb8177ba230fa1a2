/*
 * evidence: the files of an evidence directory that record what ran —
 * each invocation's result.json and resource.log, and the top-level
 * result.json — written deterministically (fixed key order) and
 * atomically (a half-written file is never left under its final name).
 * It does not run anything and does not compute statistics. The record
 * it serialises, struct invocation, is invocation.h's.
 */
#ifndef ABEV_EVIDENCE_H
#define ABEV_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "guards/guard.h"
#include "record/invocation.h"
#include "results/results.h"

struct comparison;
struct dirat;
struct ledger;
struct compare_gate_def;

#define EVIDENCE_RUN_SCHEMA "abev.run/1"
#define EVIDENCE_INVOCATION_SCHEMA "abev.invocation/1"
#define EVIDENCE_RESULTS_SCHEMA "abev.results/1"
#define EVIDENCE_COMPARE_SCHEMA "abev.compare/1"


struct run_header {
	const char *file;         /* the name written beneath root; NULL: EVIDENCE_RESULT_FILE */
	const char *plan_name;
	const char *plan_description; /* or NULL */
	const char *plan_path;   /* as given */
	const char *order;       /* plan_order_name() */
	uint64_t seed;
	unsigned warmups, runs;
	double gap_seconds, timeout_seconds, max_foreign_cpu;
	double max_cpu_wait_pct;
	const char *max_cpu_wait_pct_from; /* "plan", "default" or "--max-cpu-wait-pct" */
	const char *cpus;        /* schedule.cpus, or NULL */
	unsigned max_repeats;
	const char *const *exclusive; /* load.exclusive */
	size_t nexclusive;
	const char *lock_dir;    /* where other abev runs are seen (peers.h), or NULL */
	int wait;                /* --wait */
	int64_t waited_ns;       /* time spent waiting for them; -1: not asked to */
	const char *run_as_user; /* the user the commands ran as (run_as), or NULL */
	const char *run_as_from; /* "plan" or "--run-as" */
	int64_t run_as_uid, run_as_gid;
	const char *abev_version;
	const char *started_utc;
	const char *ended_utc;   /* "" while running */
	const char *const *variant_names;
	size_t nvariants;
	unsigned planned;        /* slots in the schedule (warmups + runs) */
	const char *interrupt;   /* "SIGINT"/"SIGTERM" or NULL */
	int64_t abev_max_rss_bytes; /* abev's own peak RSS so far */
	const char *const *notes;   /* run-level remarks (e.g. a slot lost to load), may be NULL */
	size_t left_out;            /* invocations executed but not in the record (a short one) */
	size_t nnotes;
	/* What `abev report DIR` needs to render report.md again, byte for byte. */
	const char *reproduce;      /* the command line that re-runs this, or NULL */
	const char *reproduce_cwd;  /* the directory it was run from, or NULL */
	const char *plan_sha256;    /* of the plan's bytes (plan.json), hex */
	const char *evidence_dir;   /* as the user named it */
	int signed_evidence;
	const char *pubkey;         /* the signer's public key file, or NULL */
	const char *key_source;     /* "option" (--key), "environment" (ABEV_SIGNING_KEY), or NULL */
	const char *report_template; /* EVIDENCE_TEMPLATE_FILE when the plan has its own, or NULL */
	/* NULL while the run is going: the comparison is made once, at the end. */
	const struct comparison *comparison;
	const struct compare_gate_def *gate_defs;
	size_t ngate_defs;
};

/*
 * Writes <inv->dir>/result.json, resource.log and guard.log beneath root
 * (no link followed), each noted in the ledger with its SHA-256. 0 or -1
 * after error().
 */
int evidence_write_invocation(struct ledger *l, const struct dirat *root,
			      const struct invocation *inv);
/*
 * Writes result.json (or hdr->file) beneath root: the header fields, status, and every
 * invocation in execution order, one at a time (its size is not held in
 * memory). 0 or -1 after error(), errno saying why (ENOSPC, EFBIG, ...).
 */
int evidence_write_run(const struct dirat *root, const struct run_header *hdr, enum run_status st,
		       const struct invocation *invs, size_t ninvs);

/*
 * inv's own result.json document (abev.invocation/1) on one line, ending
 * with a newline: a line of the run's journal (journal.h). Caller frees.
 */
char *evidence_invocation_line(const struct invocation *inv);

/*
 * The "comparison" object of result.json, alone, as `abev run --json` and
 * `abev export --format json` print it. Caller frees.
 */
char *evidence_comparison_document(const struct comparison *c,
				   const struct compare_gate_def *defs, size_t ndefs);

/*
 * The abev.compare/1 document of `abev compare --json`: per shared
 * variant the comparison of old's runs (reference) with new's. Caller frees.
 */
char *evidence_compare_document(const char *old_dir, const char *new_dir,
				const char *const *variants, const struct comparison *cmps, size_t n,
				const char *not_compared);

/*
 * The abev.results/1 document of `abev results --json`: every file, the
 * total, and the guard's verdict (guard may be NULL). Caller frees.
 */
char *evidence_results_document(const struct results_file *files, size_t n,
				const struct results_counts *total,
				const struct guard_result *guard);

#endif
