/*
 * plan_loader: what the modules that read a plan file share while one
 * plan is loaded — the plan being filled, the names messages use, where
 * problems go — and the reading steps more than one of them takes
 * (plan_loader.c). plan.c reads the document and its small sections,
 * plan_schedule.c the schedule, plan_variants.c the variants (with the
 * variants file), plan_metrics.c the metric definitions and gates.
 * Private to those: nothing else includes it.
 * Like json_in.h it takes cJSON's node as json_node; the readers include
 * <cjson/cJSON.h> themselves.
 */
#ifndef ABEV_PLAN_LOADER_H
#define ABEV_PLAN_LOADER_H

#include <stddef.h>
#include <string.h>

#include "util/json_in.h"
#include "plan/plan.h"

/* Across "variants" and the variants file together. */
#define PLAN_MAX_VARIANTS 10000
#define PLAN_MAX_ENV 4096
/* Most entries of a variant's "parameters". */
#define PLAN_MAX_PARAMETERS 64

struct plan_loader {
	struct plan *plan;
	const char *file;    /* the plan as given, for messages */
	char *vfile_shown;   /* the variants file as messages name it */
	char **origin;       /* per variant: "variants[1]" or "vars.txt:3" */
	size_t origin_alloc;
	struct json_in in;   /* every problem found, reported together at the end */
};

/*
 * Refuses members that the reference (plan_doc.c) does not list under
 * doc_parent (without "name" when skip_name: the base variant); see
 * json_check_keys().
 */
int plan_loader_keys(const struct plan_loader *ld, const json_node *obj, const char *path,
		     const char *doc_parent, int skip_name);
/* A template that may use the placeholders allowed (PLAN_PH_ALL, PLAN_PH_VARIANT). */
int plan_loader_template(const struct plan_loader *ld, const char *path, const char *tmpl,
			 unsigned allowed);
/* An array j of strings (each a template) into a NULL-free vector. */
int plan_loader_strings(const struct plan_loader *ld, const json_node *j, const char *path,
			unsigned allowed, char ***out, size_t *out_len);
/*
 * An argv template array under key of obj ("command", "prepare"): a
 * non-empty array of strings whose first is a program name. Absent is an
 * error when required, else leaves *argv NULL.
 */
int plan_loader_argv(const struct plan_loader *ld, const json_node *obj, const char *path,
		     const char *key, int required, char ***argv, size_t *argc);
/*
 * A setup or cleanup command under key of obj: an argv as for
 * plan_loader_argv(), absent allowed, whose templates may use only
 * {variant} (it runs once, outside any run).
 */
int plan_loader_step(const struct plan_loader *ld, const json_node *obj, const char *path,
		     const char *key, char ***argv, size_t *argc);
/* "cpus": a CPU list in *out, canonical (caller frees); left alone when absent. */
int plan_loader_cpus(const struct plan_loader *ld, const json_node *obj, const char *path,
		     char **out);


/* Index of value in names[0..n), or -1. */
static inline int plan_name_index(const char *value, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(value, names[i]))
			return (int)i;
	return -1;
}

/*
 * plan_schedule.c: "schedule" (its settings, until, looks, order, cpus,
 * prepare, setup, cleanup). 0, or -1 when any was refused.
 */
int plan_loader_schedule(const struct plan_loader *ld, const json_node *root);
/*
 * plan_schedule.c, once the gates and the decision's confidence are
 * known: how many rounds. A plan with a gate, two variants or more and
 * no runs runs until "decided", at most PLAN_DECIDED_MAX_ROUNDS rounds
 * (set.runs_from RUN_RUNS_FROM_GATES). Until "decided": the looks,
 * min_rounds and each look's confidence, refusing a plan with no gate.
 * Either way, refuses rounds too few to ever decide a gate.
 */
void plan_loader_settle_rounds(const struct plan_loader *ld);
/*
 * plan_schedule.c: what a variant takes from the schedule when it has no
 * "cpus", "prepare", "setup" or "cleanup" of its own (a partial plan too:
 * plan_check() asks whether a variant is prepared).
 */
void plan_loader_inherit_schedule(struct plan *plan);
/*
 * plan_schedule.c, once every variant has its setup and cwd: "sequential"
 * when the setups may collide, unless the plan asked for an order that
 * alternates them (refused), as is until "decided" with a sequential
 * order. 0, or -1 after json_in_error().
 */
int plan_loader_settle_order(const struct plan_loader *ld);
/* plan_variants.c: "variants", "base" and "variants_file". 0, or -1 when any was refused. */
int plan_loader_variants(struct plan_loader *ld, const json_node *root);
void plan_variant_release(struct plan_variant *v);

/*
 * plan_metrics.c: member key of obj, a non-empty string of at most max
 * characters into *out; absent is an error when required. Unless
 * allow_control (patterns may well match a newline), it may hold no
 * character a terminal would act on or not show (text_unshown(): C0, DEL,
 * C1, bidirectional controls, line separators, zero-width characters),
 * and the refusal names the first as U+XXXX.
 */
#define PLAN_TEXT_RULE "no control, bidirectional, invisible or line-separator characters"
int plan_loader_text(const struct plan_loader *ld, const json_node *obj, const char *path,
		     const char *key, int required, size_t max, int allow_control, char **out);
/* plan_metrics.c: "metrics" (a refused one is left out), then the gates. */
int plan_loader_metrics(const struct plan_loader *ld, const json_node *root);
int plan_loader_gates(const struct plan_loader *ld, const json_node *root, int metrics_ok);
void plan_metric_def_release(struct metric_def *d);

#endif
