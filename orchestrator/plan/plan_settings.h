/*
 * plan_settings: the plan's scalar settings, driven by their rows in the
 * reference (plan_doc.c: a row with a value names its member of struct
 * plan, its bounds and its default). One row is all a new number, count
 * or switch needs to be read, bounded, defaulted, written back and
 * documented; its use is the caller's.
 */
#ifndef ABEV_PLAN_SETTINGS_H
#define ABEV_PLAN_SETTINGS_H

#include "plan/plan.h"
#include "util/json_in.h"

/*
 * Reads every setting directly inside parent ("" for the top level,
 * "schedule", "load", ...) from obj, the object at parent, into plan,
 * each within its row's bounds; a refused value is added to in's
 * problems and leaves the member alone. Returns how many were refused.
 */
size_t plan_settings_read(const struct json_in *in, const json_node *obj, const char *parent,
			  struct plan *plan);
/* Sets every setting of plan to its row's default. */
void plan_settings_defaults(struct plan *plan);
/*
 * Adds to o every setting directly inside parent, in reference order,
 * but those whose default means "none" (outside the bounds) and that
 * hold it.
 */
void plan_settings_json(json_node *o, const char *parent, const struct plan *plan);

#endif
