/*
 * plan_json: a loaded plan written back as an "abev.plan/1" document with
 * everything abev decided made explicit — every default, the variants of a
 * variants file listed in "variants" (base and variants_file gone), cwd and
 * the report template as absolute paths, schedule.cpus copied into the
 * variants that had none. It is a valid plan that loads to the same
 * struct plan (for `abev run --dry-run --json`). Placeholders stay
 * templates: they are expanded per run.
 */
#ifndef ABEV_PLAN_JSON_H
#define ABEV_PLAN_JSON_H

#include <stdio.h>

#include "plan/plan.h"

/* Prints the document to f. 0, or -1 after error() when it cannot be written. */
int plan_json_print(const struct plan *plan, FILE *f);

#endif
