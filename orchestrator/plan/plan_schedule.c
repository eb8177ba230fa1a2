/*
 * plan_schedule: the plan's "schedule" — its settings (through the rows
 * of plan_doc.c), the steps' limit, until "decided" with its looks and
 * the confidence of each, the schedule's prepare, setup and cleanup that
 * variants without their own take, and the order once the variants are
 * known (a plan whose setups may collide runs sequentially,
 * plan_setups.c). plan.c calls it while reading the document;
 * schedule.c builds the slots.
 */
#include "plan/plan_loader.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "decide/stats.h"
#include "decide/stats_exact.h"
#include "plan/plan_settings.h"
#include "record/gate_def.h"
#include "util/alloc.h"
#include "util/escape.h"
#include "util/json_in.h"
#include "util/suggest.h"

/* schedule.looks: ascending round numbers within [min_rounds, max_rounds]. */
static int parse_looks(const struct plan_loader *ld, const cJSON *looks)
{
	struct plan *plan = ld->plan;
	const cJSON *e;
	size_t n = 0;

	cJSON_ArrayForEach(e, looks)
		n++;
	if (!n || n > PLAN_MAX_LOOKS)
		return json_in_error(&ld->in, "schedule.looks", "%zu looks: give 1 to %d round "
				     "numbers", n, PLAN_MAX_LOOKS);
	plan->looks = xcalloc(n + 1, sizeof(*plan->looks));
	cJSON_ArrayForEach(e, looks) {
		double v = cJSON_IsNumber(e) ? e->valuedouble : -1;
		unsigned prev = plan->nlooks ? plan->looks[plan->nlooks - 1] : 0;

		if (!(v >= plan->min_rounds && v <= plan->max_rounds) || v != floor(v))
			return json_in_error(&ld->in, "schedule.looks",
					     "[%zu] must be a whole number of rounds from min_rounds "
					     "%u to max_rounds %u", plan->nlooks, plan->min_rounds,
					     plan->max_rounds);
		if ((unsigned)v <= prev)
			return json_in_error(&ld->in, "schedule.looks", "[%zu] %u: the looks must "
					     "ascend", plan->nlooks, (unsigned)v);
		plan->looks[plan->nlooks++] = (unsigned)v;
	}
	/* The last look is at max_rounds: the run ends there anyway. */
	if (plan->looks[plan->nlooks - 1] != plan->max_rounds)
		plan->looks[plan->nlooks++] = plan->max_rounds;
	plan->looks_from_plan = 1;
	return 0;
}

/*
 * schedule.until: "runs" (the default: a fixed number of rounds) or
 * "decided" (rounds until every gate is decided, from min_rounds to
 * max_rounds; the default looks are fixed once the decision's confidence
 * is known, plan_loader_fix_looks()).
 */
static int parse_until(const struct plan_loader *ld, const cJSON *s, const char *until,
		       int64_t min_rounds, int64_t max_rounds, const cJSON *looks)
{
	struct plan *plan = ld->plan;
	char b[SHOW_MAX];

	if (!until || !strcmp(until, "runs")) {
		if (min_rounds || max_rounds || looks)
			return json_in_error(&ld->in, "schedule", "min_rounds, max_rounds and looks "
					     "are for until \"decided\" (add \"until\": "
					     "\"decided\", or leave them out)");
		return 0;
	}
	if (strcmp(until, "decided"))
		return json_in_error(&ld->in, "schedule.until", "unknown value '%s' (expected "
				     "\"runs\" or \"decided\")", show_str(b, sizeof(b), until));
	if (cJSON_GetObjectItemCaseSensitive(s, "runs"))
		return json_in_error(&ld->in, "schedule.runs", "with until \"decided\" the number "
				     "of rounds is min_rounds to max_rounds: leave runs out");
	if (!max_rounds)
		return json_in_error(&ld->in, "schedule.max_rounds", "required with until "
				     "\"decided\": the most rounds to run before giving up");
	if (min_rounds > max_rounds)
		return json_in_error(&ld->in, "schedule.min_rounds", "%lld is more than max_rounds "
				     "%lld", (long long)min_rounds, (long long)max_rounds);
	plan->until_decided = 1;
	plan->min_rounds = (unsigned)min_rounds;
	plan->max_rounds = (unsigned)max_rounds;
	plan->set.runs = plan->max_rounds;
	if (looks) {
		if (!plan->min_rounds)
			plan->min_rounds = 1;
		return parse_looks(ld, looks);
	}
	return 0;
}

/*
 * The fewest rounds in which every gate of plan can be decided at conf:
 * a change gate on the gates' interval with the fewest rounds, the exact
 * unpaired one (stats_mw_interval_n_needed()), a budget on the
 * order-statistic interval of its median (stats_median_ci_n_needed()).
 * *budget says whether a budget needs the most. 0 without gates.
 */
static unsigned rounds_to_decide(const struct plan *plan, double conf, int *budget)
{
	size_t change = stats_mw_interval_n_needed(conf), median = stats_median_ci_n_needed(conf);
	size_t most = 0;

	*budget = 0;
	for (size_t i = 0; i < plan->ngates; i++) {
		int b = plan->gates[i].kind == GATE_BUDGET;
		size_t n = b ? median : change;

		if (n > most || (n == most && b)) {
			most = n;
			*budget = b;
		}
	}
	return (unsigned)most;
}

/*
 * Each gate judgement's share of conf, as the comparison will take it
 * (gate_def_judgement_confidence(): Bonferroni over the gates times the
 * variants compared with the reference).
 */
static double judgement_confidence(const struct plan *plan, double conf)
{
	return gate_def_judgement_confidence(conf, gate_def_judgements(plan->ngates,
									  plan->nvariants));
}

/*
 * Rounds that can never decide a gate are refused before they run: a
 * fixed schedule.runs (key "schedule.runs") judged at the decision's
 * confidence, or until "decided"'s max_rounds (key
 * "schedule.max_rounds"), each look at look_confidence — either split
 * over the gate judgements as the comparison splits it. One rule for
 * both, and for abev bench's -r and --until-decided, whose plans say the
 * same. Adds the problem to ld's and returns -1, or 0.
 */
static int refuse_undecidable(const struct plan_loader *ld, const char *key, unsigned rounds,
			      double decision_conf)
{
	const struct plan *plan = ld->plan;
	double conf = judgement_confidence(plan, decision_conf);
	int budget;
	unsigned need = rounds_to_decide(plan, conf, &budget);
	const char *kind = budget ? "budget" : "change";

	if (rounds >= need)
		return 0;
	if (!strcmp(key, "schedule.max_rounds"))
		return json_in_error(&ld->in, key, "%u rounds can never decide a %s gate at %.4g %% "
				     "a look (%zu look%s): give at least %u", rounds, kind,
				     conf * 100, plan->nlooks, plan->nlooks == 1 ? "" : "s", need);
	return json_in_error(&ld->in, key, "%u rounds can never decide a %s gate at %.4g %%: "
			     "give at least %u, or leave out runs (abev bench: -r) to run until "
			     "every gate is decided, at most %u rounds", rounds, kind, conf * 100,
			     need, PLAN_DECIDED_MAX_ROUNDS);
}

/* The default looks from start: start, then half as many again (at least 2 more), then max. */
static size_t looks_from(unsigned *looks, unsigned start, unsigned max_rounds)
{
	unsigned r = start;
	size_t n = 0;

	while (r < max_rounds && n + 1 < PLAN_MAX_LOOKS) {
		unsigned next = r + (r + 1) / 2;
		looks[n++] = r;
		r = next > r + 2 ? next : r + 2;
	}
	looks[n++] = max_rounds;
	return n;
}

size_t plan_default_looks(double conf, unsigned min_rounds, unsigned max_rounds,
			  unsigned *looks)
{
	double alpha = 1 - conf;
	unsigned start = (unsigned)stats_wsr_interval_n_needed(conf);
	size_t n = 0;

	if (start < min_rounds)
		start = min_rounds;
	for (int pass = 0; pass < 8; pass++) {
		unsigned need;

		n = looks_from(looks, start < max_rounds ? start : max_rounds, max_rounds);
		need = (unsigned)stats_wsr_interval_n_needed(1 - alpha / (double)n);
		if (need < min_rounds)
			need = min_rounds;
		if (need <= start)
			break;
		start = need;
	}
	return n;
}

/*
 * With until "decided", once the confidence is known: the looks (the
 * plan's, or plan_default_looks()), min_rounds, and the confidence of
 * each look.
 */
static void fix_looks(const struct plan_loader *ld)
{
	struct plan *plan = ld->plan;
	double alpha = 1 - plan->confidence;

	if (!plan->ngates)
		json_in_error(&ld->in, "schedule.until", "\"decided\" needs a gate to decide (add "
			      "one to \"gates\", or run a fixed number of rounds)");
	if (!plan->looks_from_plan) {
		plan->looks = xcalloc(PLAN_MAX_LOOKS, sizeof(*plan->looks));
		plan->nlooks = plan_default_looks(judgement_confidence(plan, plan->confidence),
						  plan->min_rounds, plan->max_rounds, plan->looks);
		if (!plan->min_rounds)
			plan->min_rounds = plan->looks[0];
	}
	plan->look_confidence = 1 - alpha / (double)plan->nlooks;
	refuse_undecidable(ld, "schedule.max_rounds", plan->max_rounds, plan->look_confidence);
}

void plan_loader_settle_rounds(const struct plan_loader *ld)
{
	struct plan *plan = ld->plan;
	/* A lone variant is compared with nothing: its gates judge nothing either way. */
	int gated = plan->ngates && plan->nvariants > 1;

	/*
	 * A gate with the default 3 rounds can never be decided: without runs
	 * the plan runs until it is, so that "inconclusive" means the change
	 * sits on the limit, not that the rounds were too few (issue 39).
	 */
	if (gated && !plan->until_decided && !strcmp(plan->set.runs_from, "default")) {
		plan->until_decided = 1;
		plan->max_rounds = PLAN_DECIDED_MAX_ROUNDS;
		plan->set.runs = plan->max_rounds;
		plan->set.runs_from = RUN_RUNS_FROM_GATES;
	}
	if (plan->until_decided)
		fix_looks(ld);
	else if (gated)
		refuse_undecidable(ld, "schedule.runs", plan->set.runs, plan->confidence);
}

/*
 * The steps' limit: the plan's step_timeout_seconds, else its
 * timeout_seconds, else the row's default (PLAN_STEP_TIMEOUT_DEFAULT),
 * so that no setup, cleanup or prepare step can wait for ever.
 */
static void step_timeout(struct plan *plan, const cJSON *s)
{
	if (cJSON_GetObjectItemCaseSensitive(s, "step_timeout_seconds")) {
		plan->set.step_timeout_seconds_from = "plan";
	} else if (plan->set.timeout_seconds > 0) {
		plan->set.step_timeout_seconds = plan->set.timeout_seconds;
		plan->set.step_timeout_seconds_from = RUN_STEP_TIMEOUT_FROM_TIMEOUT;
	}
}

int plan_loader_schedule(const struct plan_loader *ld, const cJSON *root)
{
	struct plan *plan = ld->plan;
	const cJSON *s;
	char b[SHOW_MAX];
	char *order = NULL;
	size_t before = json_in_count(&ld->in);
	int64_t min_rounds = 0, max_rounds = 0;
	const cJSON *looks = NULL;
	char *until = NULL;
	int ret = -1;

	if (json_get_object(&ld->in, root, "", "schedule", 0, &s) < 0)
		goto out;
	if (!s)
		return 0;
	plan_loader_keys(ld, s, "schedule", "schedule", 0);
	plan_settings_read(&ld->in, s, "schedule", plan);
	json_get_string(&ld->in, s, "schedule", "until", 0, &until);
	json_get_int(&ld->in, s, "schedule", "min_rounds", 0, 1, PLAN_MAX_ROUNDS, &min_rounds);
	json_get_int(&ld->in, s, "schedule", "max_rounds", 0, 1, PLAN_MAX_ROUNDS, &max_rounds);
	json_get_array(&ld->in, s, "schedule", "looks", 0, &looks);
	json_get_string(&ld->in, s, "schedule", "order", 0, &order);
	plan_loader_cpus(ld, s, "schedule", &plan->set.cpus);
	plan_loader_argv(ld, s, "schedule", "prepare", 0, &plan->prepare, &plan->prepare_len);
	plan_loader_step(ld, s, "schedule", "setup", &plan->setup, &plan->setup_len);
	plan_loader_step(ld, s, "schedule", "cleanup", &plan->cleanup, &plan->cleanup_len);
	if (parse_until(ld, s, until, min_rounds, max_rounds, looks) < 0)
		goto out;
	if (plan->until_decided || cJSON_GetObjectItemCaseSensitive(s, "runs"))
		plan->set.runs_from = "plan";
	if (order && run_order_parse(order, &plan->set.order) < 0) {
		const char *near = suggest_nearest(order, run_order_names, RUN_ORDER_COUNT);
		json_in_error(&ld->in, "schedule.order", "unknown order '%s'" SUGGEST_FMT
			      " (expected one of: " PLAN_ORDER_LIST ")", show_str(b, sizeof(b), order),
			      SUGGEST_ARGS(near));
		goto out;
	}
	if (order)
		plan->set.order_from = "plan";
	step_timeout(plan, s);
	ret = json_in_count(&ld->in) > before ? -1 : 0;
out:
	free(order);
	free(until);
	return ret;
}

/* A copy of the schedule's argv (n strings) into *argv, unless the variant has its own. */
static void inherit_argv(char ***argv, size_t *len, char *const *from, size_t n)
{
	if (*argv || !from)
		return;
	*argv = xcalloc(n + 1, sizeof(**argv));
	for (*len = 0; *len < n; (*len)++)
		(*argv)[*len] = xstrdup(from[*len]);
}

/*
 * What a variant takes from the schedule when it has no "cpus",
 * "prepare", "setup" or "cleanup" of its own. A partial plan gets it too: plan_check() asks
 * whether a variant is prepared.
 */
void plan_loader_inherit_schedule(struct plan *plan)
{
	for (size_t i = 0; plan->set.cpus && i < plan->nvariants; i++)
		if (!plan->variants[i].cpus)
			plan->variants[i].cpus = xstrdup(plan->set.cpus);
	for (size_t i = 0; i < plan->nvariants; i++) {
		struct plan_variant *v = &plan->variants[i];
		inherit_argv(&v->prepare, &v->prepare_len, plan->prepare, plan->prepare_len);
		inherit_argv(&v->setup, &v->setup_len, plan->setup, plan->setup_len);
		inherit_argv(&v->cleanup, &v->cleanup_len, plan->cleanup, plan->cleanup_len);
	}
}

/*
 * The order, now that every variant has its setup and cwd: a plan whose
 * variants' setups may collide (plan_setups_collision()) runs each
 * variant after its own setup, as hyperfine does, unless it asked for an
 * order that alternates them — which would run every variant on the
 * products of the last setup, and is refused. schedule.until "decided"
 * looks at whole rounds, which a sequential order does not have.
 */
int plan_loader_settle_order(const struct plan_loader *ld)
{
	struct plan *plan = ld->plan;
	char b[SHOW_MAX];
	size_t a, z;
	const char *by_default = !strcmp(plan->set.runs_from, RUN_RUNS_FROM_GATES)
					 ? " (a plan with gates and no runs runs until decided)" : "";

	if (!plan_setups_collision(plan, &a, &z)) {
		if (plan->set.order == RUN_ORDER_SEQUENTIAL && plan->until_decided)
			return json_in_error(&ld->in, "schedule.order", "\"sequential\" runs every "
					     "round of one variant before the next variant's, and "
					     "until \"decided\"%s needs whole rounds to look at: use "
					     "another order, or give runs instead", by_default);
		return 0;
	}
	show_str(b, sizeof(b), plan->variants[a].cwd);
	if (plan->set.order != RUN_ORDER_SEQUENTIAL && !strcmp(plan->set.order_from, "plan"))
		return json_in_error(&ld->in, "schedule.order", "order \"%s\" would run every "
				     "variant on the products of the last setup: the setups of "
				     "'%s' and '%s' differ and both run in '%s'; give the variants "
				     "distinct cwds, or use order \"sequential\" (abev bench: "
				     "--order sequential, or no --order)",
				     run_order_name(plan->set.order), plan->variants[a].name,
				     plan->variants[z].name, b);
	if (plan->until_decided)
		return json_in_error(&ld->in, "schedule.until", "\"decided\"%s needs the variants "
				     "to alternate, but the setups of '%s' and '%s' differ and both "
				     "run in '%s', so each variant must run after its own setup, one "
				     "after another: give the variants distinct cwds, or give runs "
				     "instead", by_default, plan->variants[a].name,
				     plan->variants[z].name, b);
	if (plan->set.order != RUN_ORDER_SEQUENTIAL)
		plan->set.order_from = PLAN_ORDER_FROM_SETUPS;
	plan->set.order = RUN_ORDER_SEQUENTIAL;
	plan->order_pair[0] = a;
	plan->order_pair[1] = z;
	return 0;
}
