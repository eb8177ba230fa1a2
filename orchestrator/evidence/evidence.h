/*
 * evidence: the files of an evidence directory that record what ran —
 * the top-level result.json, the journal's lines, and an invocation's own
 * result.json where the journal could not hold it — written deterministically (fixed key order) and
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
#include "record/run_header.h"
#include "results/results.h"

struct comparison;
struct dirat;
struct ledger;
struct compare_gate_def;

#define EVIDENCE_RUN_SCHEMA "abev.run/1"
#define EVIDENCE_INVOCATION_SCHEMA "abev.invocation/1"
#define EVIDENCE_RESULTS_SCHEMA "abev.results/1"
#define EVIDENCE_COMPARE_SCHEMA "abev.compare/1"


/*
 * Writes <inv->dir>/result.json beneath root (no link followed), the
 * invocation's own document (abev.invocation/1), noted in the ledger with
 * its SHA-256: the record of an invocation the journal could not hold
 * (run_state.c). 0 or -1 after error().
 */
int evidence_write_invocation(struct ledger *l, const struct dirat *root,
			      const struct invocation *inv);
/* The decision result.json records after the header. */
struct evidence_decision {
	const struct comparison *comparison;
	const struct compare_gate_def *gate_defs;
	size_t ngate_defs;
};
/*
 * Writes result.json (or file, when not NULL) beneath root: the header
 * fields (run_fields.h), the decision (NULL while the run is going: the
 * comparison is made once, at the end) and every invocation in execution
 * order, one at a time (its size is not held in memory), and notes the
 * bytes written in l (ledger.h) unless l is NULL. 0 or -1 after error(),
 * errno saying why (ENOSPC, EFBIG, ...).
 */
int evidence_write_run(const struct dirat *root, struct ledger *l, const char *file,
		       const struct run_header *hdr, const struct evidence_decision *dec,
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
