/*
 * fuzz_variants: the variants-file reader. A fixed plan (with "base" and
 * "variants_file") is written once; each input becomes its variants file,
 * read through plan_load() as abev reads it, and every variant it defines
 * has its command and env expanded.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "plan/plan.h"
#include "util/env.h"

static const char fixed_plan[] =
	"{\"schema\": \"abev.plan/1\", \"name\": \"fuzz\",\n"
	" \"variants\": [{\"name\": \"ref\", \"command\": [\"ref\"]}],\n"
	" \"base\": {\"command\": [\"run\", \"--x\", \"{variant}\"], \"env\": {\"A\": \"1\"},\n"
	"          \"assemblies\": [\"*.dll\"]},\n"
	" \"variants_file\": \"vars.txt\"}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *path;
	struct plan plan = PLAN_INIT;
	struct plan_vars vars = { "/nonexistent/run", NULL, "warmup", 2 };

	if (!path) {
		fuzz_quiet();
		path = fuzz_write("plan.json", fixed_plan, strlen(fixed_plan));
	}
	free(fuzz_write("vars.txt", data, size));
	if (plan_load(&plan, path) == 0) {
		for (size_t i = 0; i < plan.nvariants; i++) {
			const struct plan_variant *v = &plan.variants[i];
			struct env_array env = ENV_ARRAY_INIT;
			vars.variant = v->name;
			for (size_t k = 0; k < v->command_len; k++)
				free(plan_expand(v->command[k], &vars));
			plan_variant_env(v, &vars, &env);
			strv_free(env.v);
		}
	}
	plan_release(&plan);
	return 0;
}
