/*
 * report: renders report.md for an evidence directory, through the
 * template in templates/report.md (compiled into the binary): the
 * decision, the comparison per metric, the gates, the tests and guards,
 * the conditions of the run, the environment, every invocation, how to
 * reproduce it and how to verify it. It renders; every figure it shows
 * comes from the comparison (compare.c), the invocation records or
 * metadata.json as recorded.
 */
#ifndef ABEV_REPORT_H
#define ABEV_REPORT_H

#include <stddef.h>

#include "decide/compare.h"
#include "record/invocation.h"
#include "record/run_header.h"
#include "evidence/evidence_read.h"

/*
 * Why the order was "sequential", for the summary and report.md: what
 * follows "order: sequential — " (no full stop), from result.json's
 * schedule.order and schedule.order_from; NULL for any other order.
 * Static.
 */
const char *report_order_why(const char *order, const char *order_from);

struct report_input {
	const char *file;                /* the name written beneath root; NULL: EVIDENCE_REPORT_FILE */
	const struct run_header *run;    /* the run as result.json has it */
	const struct invocation *invs;   /* execution order */
	size_t ninvs;
	int signature_unchecked;         /* rendered again without checking the signature */
	const struct comparison *comparison; /* NULL while the run is going */
	const struct run_environment *environment; /* metadata.json as read, or NULL */
	/* The plan's own template (EVIDENCE_TEMPLATE_FILE in the evidence), or NULL for abev's. */
	const char *template_text;
	size_t template_len;
};


/*
 * The report's text (caller frees). A plan's own template that cannot
 * be rendered (an unknown name, say) gives abev's own report, which then
 * opens with the reason; NULL after error() only if abev's own fails.
 */
char *report_render(const struct report_input *in);
/* The report input of evidence read back, borrowing from r; comparison and environment as given. */
void report_input_from_evidence(const struct evidence_run *r, const struct comparison *c,
				 const struct run_environment *env, struct report_input *in);
struct dirat;
struct ledger;
/*
 * Renders and writes report.md (or in->file) beneath root atomically, and
 * notes it in l (evidence/ledger.h) unless l is NULL. 0 or -1 after error().
 */
int report_write(const struct dirat *root, struct ledger *l, const struct report_input *in);

#endif
