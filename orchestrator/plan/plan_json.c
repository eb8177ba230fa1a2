/*
 * plan_json: cJSON through json_out's helpers. A metric's own gates stay
 * in its definition and only the others go into "gates", since a gate
 * given in both places is refused when the plan is read again.
 */
#include "plan/plan_json.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "plan/plan_settings.h"
#include "util/json_out.h"
#include "util/usage.h"

static cJSON *strings(char *const *v, size_t n)
{
	cJSON *a = jnew_array();
	for (size_t i = 0; i < n; i++)
		jpush(a, cJSON_CreateString(v[i]));
	return a;
}

static cJSON *variant_json(const struct plan_variant *v)
{
	cJSON *o = jnew_object(), *env = jnew_object();

	jadd_str(o, "name", v->name);
	jadd_str(o, "cwd", v->cwd);
	jadd(o, "command", strings(v->command, v->command_len));
	for (size_t i = 0; i < v->env_len; i++)
		jadd_str(env, v->env[i].key, v->env[i].value);
	jadd(o, "env", env);
	jadd(o, "assemblies", strings(v->assemblies, v->assemblies_len));
	if (v->cpus)
		jadd_str(o, "cpus", v->cpus);
	if (v->output != PLAN_OUTPUT_LOG)
		jadd_str(o, "output", plan_output_text(v));
	/* Its own or the schedule's: each variant says how it is prepared. */
	if (v->prepare_len)
		jadd(o, "prepare", strings(v->prepare, v->prepare_len));
	if (v->setup_len)
		jadd(o, "setup", strings(v->setup, v->setup_len));
	if (v->cleanup_len)
		jadd(o, "cleanup", strings(v->cleanup, v->cleanup_len));
	return o;
}

static cJSON *metric_json(const struct metric_def *d)
{
	cJSON *o = jnew_object();

	jadd_str(o, "name", d->name);
	jadd_str(o, "source", metric_def_source_name(d->source));
	/* process, duration and dotnet metrics imply their unit, and a plan may not give it */
	if (d->source != METRIC_PROCESS && d->source != METRIC_DURATION &&
	    d->source != METRIC_DOTNET)
		jadd_str(o, "unit", d->unit);
	if (d->field)
		jadd_str(o, "field", d->field);
	if (d->process)
		jadd_str(o, "process", d->process);
	if (d->test)
		jadd_str(o, "test", d->test);
	if (d->pattern)
		jadd_str(o, "pattern", d->pattern);
	if (d->source != METRIC_PROCESS && d->source != METRIC_DOTNET)
		jadd_str(o, "match", metric_def_match_name(d->match));
	jadd_str(o, "better", d->better_higher ? "higher" : "lower");
	if (d->derive_rate)
		jadd_str(o, "derive", "rate");
	if (d->max_regression_pct >= 0)
		jadd_real(o, "max_regression_pct", d->max_regression_pct);
	if (d->max_improvement_pct >= 0)
		jadd_real(o, "max_improvement_pct", d->max_improvement_pct);
	if (d->has_budget)
		jadd_real(o, "budget", d->budget);
	return o;
}

static const char *gate_key(enum gate_kind kind)
{
	return kind == GATE_MAX_REGRESSION ? "max_regression_pct"
	       : kind == GATE_MAX_IMPROVEMENT ? "max_improvement_pct" : "budget";
}

/* The gates not set in a metric's own definition, by metric. */
static cJSON *gates_json(const struct plan *plan)
{
	cJSON *o = jnew_object();

	for (size_t i = 0; i < plan->ngates; i++) {
		const struct plan_gate *g = &plan->gates[i];
		cJSON *limits;
		size_t k;
		for (k = 0; k < plan->nmetrics; k++)
			if (!strcmp(plan->metrics[k].name, g->metric))
				break;
		if (k < plan->nmetrics)
			continue;
		limits = cJSON_GetObjectItemCaseSensitive(o, g->metric);
		if (!limits) {
			limits = jnew_object();
			jadd(o, g->metric, limits);
		}
		jadd_real(limits, gate_key(g->kind), g->limit);
	}
	return o;
}

static cJSON *schedule_json(const struct plan *plan)
{
	cJSON *o = jnew_object();

	plan_settings_json(o, "schedule", plan);
	/* Rounds until decided: max_rounds is the runs' ceiling, not their count. */
	if (plan->until_decided) {
		cJSON *looks = jnew_array();

		jadd_str(o, "until", "decided");
		jadd_int(o, "min_rounds", plan->min_rounds);
		jadd_int(o, "max_rounds", plan->max_rounds);
		/* The looks as they will be taken, given or made from the confidence. */
		for (size_t i = 0; i < plan->nlooks; i++)
			jpush(looks, cJSON_CreateNumber(plan->looks[i]));
		jadd(o, "looks", looks);
		cJSON_DeleteItemFromObjectCaseSensitive(o, "runs");
	}
	jadd_str(o, "order", run_order_name(plan->set.order));
	if (plan->set.cpus)
		jadd_str(o, "cpus", plan->set.cpus);
	return o;
}

/* Everything outside variants, metrics and schedule. */
static void add_rest(cJSON *o, const struct plan *plan)
{
	cJSON *load = jnew_object(), *limits = jnew_object(), *codes = jnew_array();
	cJSON *versions = jnew_object(), *decision = jnew_object();

	if (plan->results_files) {
		cJSON *r = jnew_object();
		jadd_str(r, "files", plan->results_files);
		jadd_int(r, "min_executed", plan->min_executed);
		if (plan->nknown_failures)
			jadd(r, "known_failures", strings(plan->known_failures,
							  plan->nknown_failures));
		jadd(o, "results", r);
	}
	plan_settings_json(load, "load", plan);
	if (plan->set.nexclusive)
		jadd(load, "exclusive", strings(plan->set.exclusive, plan->set.nexclusive));
	jadd(o, "load", load);
	plan_settings_json(limits, "limits", plan);
	jadd(o, "limits", limits);
	for (size_t i = 0; i < plan->nallowed_exit_codes; i++)
		jpush(codes, cJSON_CreateNumber(plan->allowed_exit_codes[i]));
	jadd(o, "allowed_exit_codes", codes);
	for (size_t i = 0; i < plan->nversions; i++)
		jadd(versions, plan->versions[i].name,
		     strings(plan->versions[i].argv, plan->versions[i].argc));
	jadd(o, "versions", versions);
	jadd_str(o, "reference", plan->variants[plan->reference].name);
	jadd(o, "gates", gates_json(plan));
	plan_settings_json(decision, "decision", plan);
	jadd_str(decision, "inconclusive", plan->inconclusive_fails ? "fail" : "pass");
	jadd(o, "decision", decision);
	if (plan->report_template_path) {
		cJSON *r = jnew_object();
		jadd_str(r, "template", plan->report_template_path);
		jadd(o, "report", r);
	}
}

int plan_json_print(const struct plan *plan, FILE *f)
{
	cJSON *o = jnew_object(), *vs = jnew_array(), *ms = jnew_array();
	char *text;
	int ret = 0;

	jadd_str(o, "schema", "abev.plan/1");
	jadd_str(o, "name", plan->name);
	if (plan->description)
		jadd_str(o, "description", plan->description);
	if (plan->run_as)
		jadd_str(o, "run_as", plan->run_as);
	plan_settings_json(o, "", plan);
	for (size_t i = 0; i < plan->nvariants; i++)
		jpush(vs, variant_json(&plan->variants[i]));
	jadd(o, "variants", vs);
	jadd(o, "schedule", schedule_json(plan));
	for (size_t i = 0; i < plan->nmetrics; i++)
		jpush(ms, metric_json(&plan->metrics[i]));
	jadd(o, "metrics", ms);
	add_rest(o, plan);
	text = json_print(o);
	if (fputs(text, f) == EOF || fflush(f) == EOF)
		ret = error("cannot write the plan to stdout");
	free(text);
	cJSON_Delete(o);
	return ret;
}
