/*
 * plan_expand: the placeholders of a plan's templates ({run_dir},
 * {variant}, {phase}, {round}; "{{" and "}}" for braces), checked when
 * the plan is read and expanded for each run, and the environment a
 * variant's processes get. One walk over a template serves both, so that
 * what is checked is exactly what is expanded. No I/O.
 */
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/compiler.h"
#include "util/env.h"
#include "util/escape.h"
#include "util/strbuf.h"
#include "util/usage.h"

#define SHOW_MAX 64

static const char *const known_placeholders[] = { "run_dir", "variant", "phase", "round" };
#define KNOWN_PLACEHOLDERS "{run_dir}, {variant}, {phase}, {round}"
/* Bit i stands for known_placeholders[i]. */
#define PH_ALL PLAN_PH_ALL
#define PH_VARIANT_NAME "{variant}"

/*
 * One walk serves both checking and expanding: out is NULL when only
 * checking. Returns 0, or -1 with the reason in why.
 */
static int template_walk(const char *tmpl, const struct plan_vars *vars, unsigned allowed,
			 struct strbuf *out, char *why, size_t why_len)
{
	char b[SHOW_MAX];
	const char *p = tmpl;

	while (*p) {
		const char *close;
		size_t i, n;
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			if (out)
				strbuf_addch(out, p[0]);
			p += 2;
			continue;
		}
		if (*p == '}') {
			snprintf(why, why_len, "unbalanced '}' (write '}}' for a literal brace)");
			return -1;
		}
		if (*p != '{') {
			if (out)
				strbuf_addch(out, *p);
			p++;
			continue;
		}
		close = strchr(p, '}');
		if (!close) {
			snprintf(why, why_len, "unterminated '{' (write '{{' for a literal brace)");
			return -1;
		}
		n = (size_t)(close - p - 1);
		for (i = 0; i < ARRAY_SIZE(known_placeholders); i++)
			if (strlen(known_placeholders[i]) == n &&
			    !memcmp(known_placeholders[i], p + 1, n))
				break;
		if (i == ARRAY_SIZE(known_placeholders) && (allowed & PLAN_PH_SECRET)) {
			snprintf(why, why_len, "an unknown placeholder, not shown since the value looks "
				 "secret (known: " KNOWN_PLACEHOLDERS "; write '{{' for a literal brace)");
			return -1;
		}
		if (i == ARRAY_SIZE(known_placeholders)) {
			snprintf(why, why_len, "unknown placeholder '{%s}' (known: " KNOWN_PLACEHOLDERS ")",
				 show_text(b, sizeof(b), p + 1, n));
			return -1;
		}
		if (!(allowed & (1u << i))) {
			snprintf(why, why_len, "placeholder '{%s}' cannot be used here (only "
				 PH_VARIANT_NAME ": this is used outside any run)",
				 known_placeholders[i]);
			return -1;
		}
		if (out) {
			switch (i) {
			case 0:
				strbuf_adds(out, vars->run_dir ? vars->run_dir : "");
				break;
			case 1:
				strbuf_adds(out, vars->variant ? vars->variant : "");
				break;
			case 2:
				strbuf_adds(out, vars->phase ? vars->phase : "");
				break;
			default:
				strbuf_addf(out, "%u", vars->round);
				break;
			}
		}
		p = close + 1;
	}
	return 0;
}

int plan_template_check(const char *tmpl, unsigned allowed, char *why, size_t why_len)
{
	return template_walk(tmpl, NULL, allowed, NULL, why, why_len);
}

int plan_check_template(const char *tmpl, char *why, size_t why_len)
{
	return template_walk(tmpl, NULL, PH_ALL, NULL, why, why_len);
}

char *plan_expand(const char *tmpl, const struct plan_vars *vars)
{
	struct strbuf sb = STRBUF_INIT;
	char why[160], b[SHOW_MAX];

	if (template_walk(tmpl, vars, PH_ALL, &sb, why, sizeof(why)) < 0) {
		strbuf_release(&sb);
		error("template '%s': %s", show_text(b, sizeof(b), tmpl, strlen(tmpl)), why);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

void plan_variant_env(const struct plan_variant *v, const struct plan_vars *vars,
		      struct env_array *env)
{
	env_inherit(env);
	for (size_t i = 0; i < v->env_len; i++) {
		char *val = plan_expand(v->env[i].value, vars);
		env_set(env, v->env[i].key, val ? val : "");
		free(val);
	}
}
