/*
 * plan_setups: whether two variants' setup steps may overwrite each
 * other's products. A setup runs once, before its variant's runs; when
 * two variants' setups differ and share a working directory, the one
 * that ran last is what both variants' runs would see, so such a plan
 * runs each variant after its own setup (order "sequential"). This file
 * only answers the question; plan.c decides the order from it, and the
 * runner carries the order out.
 */
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

/*
 * Argument k of variant v's setup as it will run. {run_dir} stands for
 * the variant's own directory, which differs between variants as the
 * real one does; {phase} is "setup" and {round} 0, as run_slot_step()
 * expands them.
 */
static char *setup_arg(const struct plan_variant *v, size_t k)
{
	char *run_dir = xasprintf("runs/%s", v->name);
	struct plan_vars vars = { run_dir, v->name, "setup", 0 };
	char *out = plan_expand(v->setup[k], &vars);

	free(run_dir);
	return out;
}

/* Whether the two setups run the same command line once expanded. */
static int same_setup(const struct plan_variant *a, const struct plan_variant *b)
{
	int same = a->setup_len == b->setup_len;

	for (size_t k = 0; same && k < a->setup_len; k++) {
		char *x = setup_arg(a, k), *y = setup_arg(b, k);

		/* A template that does not expand (a bug plan_load() refused) is not the same. */
		same = x && y && !strcmp(x, y);
		free(x);
		free(y);
	}
	return same;
}

int plan_setups_collide(const struct plan *plan, size_t a, size_t b)
{
	const struct plan_variant *va = &plan->variants[a], *vb = &plan->variants[b];

	if (a == b || !va->setup_len || !vb->setup_len || !va->cwd || !vb->cwd)
		return 0;
	return !strcmp(va->cwd, vb->cwd) && !same_setup(va, vb);
}

int plan_setups_collision(const struct plan *plan, size_t *a, size_t *b)
{
	for (size_t i = 0; i < plan->nvariants; i++)
		for (size_t j = i + 1; j < plan->nvariants; j++)
			if (plan_setups_collide(plan, i, j)) {
				*a = i;
				*b = j;
				return 1;
			}
	return 0;
}
