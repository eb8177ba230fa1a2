/*
 * fuzz_plan: the plan reader. Each input is written as plan.json in the
 * target's temp directory and loaded with plan_load(); a plan that loads
 * then has every variant's command and env expanded as a run would, so
 * the template code sees what the validator let through.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "plan/plan.h"
#include "util/env.h"

static void expand_all(const struct plan *plan)
{
	struct plan_vars vars = { "/nonexistent/run", NULL, "run", 1 };

	for (size_t i = 0; i < plan->nvariants; i++) {
		const struct plan_variant *v = &plan->variants[i];
		struct env_array env = ENV_ARRAY_INIT;

		vars.variant = v->name;
		for (size_t k = 0; k < v->command_len; k++)
			free(plan_expand(v->command[k], &vars));
		plan_variant_env(v, &vars, &env);
		strv_free(env.v);
	}
	if (plan->results_files)
		free(plan_expand(plan->results_files, &vars));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *path;
	struct plan plan = PLAN_INIT;
	char *sub;

	if (!path) {
		fuzz_quiet();
		path = fuzz_path("plan.json");
		/* The unit tests' plans name a "cwd" of "sub" beside the plan. */
		sub = fuzz_path("sub");
		if (mkdir(sub, 0755) < 0)
			abort();
		free(sub);
	}
	free(fuzz_write("plan.json", data, size));
	if (plan_load(&plan, path) == 0)
		expand_all(&plan);
	plan_release(&plan);
	return 0;
}
