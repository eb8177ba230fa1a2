/*
 * layout: the evidence directory's shape, the one definition of it —
 * every file and folder name abev writes there, the limits of its depth,
 * names and file count, and the length of the digests it records. The
 * runner, the writer, the reader, the sealer, `abev verify` and the
 * report all name a file through these; none spells one of its own.
 *
 *   EVIDENCE/
 *     plan.json metadata.json result.json report.md [report-template.md]
 *     plots/<metric>.svg runs.svg
 *     runs/<variant>/<phase>-<round>[-attempt-<k>]/
 *         test.log stderr.log [prepare.log] and what the command wrote there
 *     SHA256 [SHA256.sig]
 *   and, while a run is going: invocations.jsonl, abev-reserve, *.sealing
 *
 * Each invocation's record is a line of invocations.jsonl while the run
 * goes on and an entry of result.json's "invocations" once it is over.
 * Only where the journal stopped (a file-size limit, a full disk) is an
 * invocation's record written in its directory as its own result.json,
 * and the journal kept when the final result.json is cut short too.
 * Older evidence has result.json, resource.log and guard.log in every
 * invocation's directory: abev verify checks them through the manifest
 * like any file, and no reader needs them.
 */
#ifndef ABEV_LAYOUT_H
#define ABEV_LAYOUT_H

/* SHA-256, as every file, assembly, plan and key fingerprint is recorded (SHA256_LEN). */
#include "util/hash.h"

/* At the top of the evidence. */
#define EVIDENCE_PLAN_FILE "plan.json"
#define EVIDENCE_METADATA_FILE "metadata.json"
#define EVIDENCE_RESULT_FILE "result.json"         /* also an invocation's own (journal.h) */
#define EVIDENCE_REPORT_FILE "report.md"
#define EVIDENCE_TEMPLATE_FILE "report-template.md" /* a plan's own report template */
/* Bytes of a report template: a plan's own, as read and kept, and any the engine renders. */
#define EVIDENCE_TEMPLATE_MAX (1024 * 1024)
#define EVIDENCE_MANIFEST_FILE "SHA256"
#define EVIDENCE_SIGNATURE_FILE "SHA256.sig"
#define EVIDENCE_PLOTS_DIR "plots"
#define EVIDENCE_PLOTS_RUNS_FILE "runs.svg"         /* in EVIDENCE_PLOTS_DIR */
#define EVIDENCE_RUNS_DIR "runs"
/* While the run is going (removed before sealing, but the journal beside a short result.json). */
#define EVIDENCE_JOURNAL_FILE "invocations.jsonl"
#define EVIDENCE_RESERVE_FILE "abev-reserve"
/*
 * A file abev has written but not yet put in place: it stands in for its
 * name without the suffix in a manifest made before the rename
 * (manifest_build_staged(), seal_evidence_final()).
 */
#define EVIDENCE_STAGED_SUFFIX ".sealing"

/* In each invocation's folder. */
#define EVIDENCE_STDOUT_LOG "test.log"
#define EVIDENCE_STDERR_LOG "stderr.log"
#define EVIDENCE_PREPARE_LOG "prepare.log"

/* Limits. signify -C reads names with "%1023[^)]". */
#define EVIDENCE_NAME_MAX 1023
/* The deepest directory nesting evidence holds. */
#define EVIDENCE_MAX_DEPTH 64
/*
 * The most files an evidence directory (and so its manifest) holds: a run
 * of 200,000 invocations at five files each (the two logs and what the
 * command writes, as results files). Its manifest is then about
 * 130 MB (VERIFY_MAX_META leaves room for it).
 */
#define EVIDENCE_MAX_FILES 1000000
#define EVIDENCE_MAX_FILES_TEXT "1,000,000"


#endif
