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

#include "util/alloc.h"
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

/* A variant with a setup: its cwd, its setup as it will run (NULL: does not expand), its index. */
struct setup_entry {
	const char *cwd;
	char *key;
	size_t i;
};

/* Variant v's setup, expanded, as one string: each argument's length, then its bytes. */
static char *setup_key(const struct plan_variant *v)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t k = 0; k < v->setup_len; k++) {
		char *arg = setup_arg(v, k);
		if (!arg) {
			strbuf_release(&sb);
			return NULL;
		}
		strbuf_addf(&sb, "%zu:%s;", strlen(arg), arg);
		free(arg);
	}
	return strbuf_detach(&sb, NULL);
}

/* By cwd, then plan order. */
static int by_cwd(const void *x, const void *y)
{
	const struct setup_entry *a = x, *b = y;
	int c = strcmp(a->cwd, b->cwd);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int same_key(const char *x, const char *y)
{
	return x && y && !strcmp(x, y);
}

/*
 * Each setup is expanded once and the variants grouped by cwd, so that a
 * variants file of thousands sharing one setup costs a sort, not a
 * comparison of every pair. Within a cwd the first pair in plan order is
 * the group's first variant and the first after it whose setup differs
 * (when every later one matched the first, all are the same); across
 * the groups, the pair with the smallest indices.
 */
int plan_setups_collision(const struct plan *plan, size_t *a, size_t *b)
{
	struct setup_entry *e = xcalloc(plan->nvariants ? plan->nvariants : 1, sizeof(*e));
	size_t n = 0;
	int found = 0;

	for (size_t i = 0; i < plan->nvariants; i++) {
		const struct plan_variant *v = &plan->variants[i];
		if (!v->setup_len || !v->cwd)
			continue;
		e[n++] = (struct setup_entry){ v->cwd, setup_key(v), i };
	}
	qsort(e, n, sizeof(*e), by_cwd);
	for (size_t g = 0, end; g < n; g = end) {
		for (end = g + 1; end < n && !strcmp(e[end].cwd, e[g].cwd); end++)
			;
		for (size_t j = g + 1; j < end; j++) {
			if (same_key(e[g].key, e[j].key))
				continue;
			if (!found || e[g].i < *a || (e[g].i == *a && e[j].i < *b)) {
				*a = e[g].i;
				*b = e[j].i;
				found = 1;
			}
			break;
		}
	}
	for (size_t k = 0; k < n; k++)
		free(e[k].key);
	free(e);
	return found;
}
