/*
 * compare_runs: `abev compare OLD NEW` — two evidence directories, from
 * the same plan or different ones, compared variant by variant and
 * metric by metric with compare.c's statistics: for each variant name
 * both have, OLD's counted runs are the reference and NEW's the
 * candidate. Runs of different schedules are not paired and no gate is
 * judged. It prints; evidence_read loads, compare computes.
 */
#ifndef ABEV_COMPARE_RUNS_H
#define ABEV_COMPARE_RUNS_H

#include <stdio.h>

#include "evidence/evidence_read.h"

/*
 * Compares and prints to f (text, or an abev.compare/1 document with
 * json). 0, or -1 with *err (caller frees) when the two share no variant
 * name; the message names what each has.
 */
int compare_runs(const struct evidence_run *old, const struct evidence_run *new, int json,
		 FILE *f, char **err);

#endif
