/*
 * run_summary: the terminal summary at the end of `abev run` (see
 * run_summary.c). Prints only; the evidence is written before it.
 */
#ifndef ABEV_RUN_SUMMARY_H
#define ABEV_RUN_SUMMARY_H

#include "pipeline/run_state.h"

/*
 * Prints the end of the run: final is the status the evidence records,
 * sealed and bundled whether the manifest and the bundle were written.
 */
void run_summary_print(const struct run_state *st, enum run_status final, int sealed,
		       int bundled);

#endif
