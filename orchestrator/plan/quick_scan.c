/*
 * quick_scan: hyperfine's parameter scans for `abev bench` and `abev
 * init --from-bench`. Each command is expanded once per combination of
 * values — -L lists (every combination, the commands varying fastest,
 * then the first -L, then the next, as hyperfine orders them) or one -P
 * range (its values in turn, the commands within each) — so that the plan
 * holds the commands as they run, each a variant of its own (their names
 * and prepare commands replaced alike). Only {VAR}
 * of a scanned VAR is replaced, in one pass (a value holding "{other}"
 * stays as it is); every other brace stays literal, as in any abev bench
 * command. Pure computation: no I/O.
 */
#include "plan/quick.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/env.h"
#include "util/strbuf.h"

/* Most digits after the point of a -P/-D decimal, so that every value is exact. */
#define SCAN_DECIMALS_MAX 9

struct scan_param {
	const char *name;
	char **values;
	size_t nvalues;
};

/* Frees params[0..n) and the array. */
static void params_free(struct scan_param *params, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strv_free(params[i].values);
	free(params);
}

/* Appends s to *v (n values, *alloc slots), taking it over. */
static void values_push(char ***v, size_t *n, size_t *alloc, char *s)
{
	ALLOC_GROW(*v, *n + 2, *alloc);
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

/*
 * "a,b\,c,d\\,e\d" as hyperfine's tokenize() splits it: a, b,c, d\ and
 * e\d. Only a comma or a backslash is escaped; a backslash before anything
 * else stays, so that a value such as a regex ('\d+') or a Windows path
 * reaches the command as it was typed.
 */
static void split_list(const char *list, struct scan_param *p)
{
	struct strbuf w = STRBUF_INIT;
	size_t alloc = 0;

	for (const char *s = list;; s++) {
		if (*s == '\\' && (s[1] == ',' || s[1] == '\\')) {
			strbuf_addch(&w, *++s);
		} else if (*s == ',' || !*s) {
			values_push(&p->values, &p->nvalues, &alloc, strbuf_detach(&w, NULL));
			if (!*s)
				break;
		} else {
			strbuf_addch(&w, *s);
		}
	}
	strbuf_release(&w);
}

/*
 * A decimal number ("-3", "0.25") as an integer count of 10^-decimals;
 * *digits is how many it has after the point. 0, or -1 when it is none or
 * too large.
 */
static int parse_decimal(const char *s, int64_t *units, unsigned *digits)
{
	const char *p = s;
	int neg = 0;
	int64_t v = 0;

	*digits = 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (!(*p >= '0' && *p <= '9'))
		return -1;
	for (int frac = 0; *p; p++) {
		if (*p == '.' && !frac) {
			frac = 1;
			if (!(p[1] >= '0' && p[1] <= '9'))
				return -1;
			continue;
		}
		if (!(*p >= '0' && *p <= '9') || v > (INT64_MAX - 9) / 10 ||
		    (frac && *digits == SCAN_DECIMALS_MAX))
			return -1;
		v = v * 10 + (*p - '0');
		*digits += (unsigned)frac;
	}
	*units = neg ? -v : v;
	return 0;
}

/* v * 10^k, or -1 when it would not fit. */
static int scale_up(int64_t *v, unsigned k)
{
	for (; k; k--) {
		if (*v > INT64_MAX / 10 || *v < INT64_MIN / 10)
			return -1;
		*v *= 10;
	}
	return 0;
}

/* units * 10^-digits as text: "-0.25", "3", "1.50". */
static char *format_decimal(int64_t units, unsigned digits)
{
	uint64_t mag = units < 0 ? (uint64_t)0 - (uint64_t)units : (uint64_t)units, div = 1;

	for (unsigned k = 0; k < digits; k++)
		div *= 10;
	if (!digits)
		return xasprintf("%s%" PRIu64, units < 0 ? "-" : "", mag);
	return xasprintf("%s%" PRIu64 ".%0*" PRIu64, units < 0 ? "-" : "", mag / div,
			 (int)digits, mag % div);
}

/*
 * -P VAR MIN MAX with -D STEP (1 when NULL): whole numbers, or decimals
 * when any of them has a point (then -D is required, as in hyperfine),
 * each value written with the most digits after the point any of the
 * three has. NULL, or why not (caller frees).
 */
static char *range_values(const char *const *range, const char *step, size_t most,
			  struct scan_param *p)
{
	const char *texts[3] = { range[1], range[2], step ? step : "1" };
	const char *what[3] = { "MIN", "MAX", "-D's STEP" };
	int64_t v[3];
	unsigned digits[3], d = 0;
	size_t alloc = 0;

	for (int i = 0; i < 3; i++) {
		if (parse_decimal(texts[i], &v[i], &digits[i]) < 0)
			return xasprintf("-P %s: %s '%s' is no number (a whole number, or a decimal "
					 "with at most %d digits after the point)", range[0], what[i],
					 texts[i], SCAN_DECIMALS_MAX);
		d = digits[i] > d ? digits[i] : d;
	}
	if (d && !step)
		return xasprintf("-P %s %s %s: a decimal range needs its step: add -D STEP",
				 range[0], range[1], range[2]);
	for (int i = 0; i < 3; i++)
		if (scale_up(&v[i], d - digits[i]) < 0)
			return xasprintf("-P %s: '%s' is too large", range[0], texts[i]);
	if (v[2] <= 0)
		return xasprintf("-D %s: the step must be more than 0", texts[2]);
	if (v[0] > v[1])
		return xasprintf("-P %s %s %s: MIN is more than MAX: the range is empty", range[0],
				 range[1], range[2]);
	/* Counted before any is made: a range of a million values is refused, not built. */
	if (((uint64_t)v[1] - (uint64_t)v[0]) / (uint64_t)v[2] >= most)
		return xasprintf("-P %s %s %s%s%s makes more than %zu values: abev bench compares at "
				 "most %d commands at once (a plan's variants_file holds more)",
				 range[0], range[1], range[2], step ? " -D " : "", step ? step : "",
				 most, QUICK_MAX_COMMANDS);
	for (int64_t x = v[0]; x <= v[1]; x += v[2]) {
		values_push(&p->values, &p->nvalues, &alloc, format_decimal(x, d));
		if (x > INT64_MAX - v[2])
			break;
	}
	return NULL;
}

/* Whether text holds "{name}". */
static int mentions(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *s = strchr(text, '{'); s; s = strchr(s + 1, '{'))
		if (!strncmp(s + 1, name, len) && s[1 + len] == '}')
			return 1;
	return 0;
}

/* Whether text holds the {name} of any of params[0..n). */
static int mentions_any(const char *text, const struct scan_param *params, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (mentions(text, params[i].name))
			return 1;
	return 0;
}

/*
 * cmd followed by the parameters it has no {VAR} of, with their values at
 * idx[], as hyperfine's name_with_unused_parameters(): "true (t = 1, w = a)".
 */
static char *label_of(const char *cmd, const char *made, const struct scan_param *params,
		      size_t nparams, const size_t *idx)
{
	struct strbuf sb = STRBUF_INIT;
	const char *sep = " (";

	strbuf_adds(&sb, made);
	for (size_t i = 0; i < nparams; i++) {
		if (mentions(cmd, params[i].name))
			continue;
		strbuf_adds(&sb, sep);
		strbuf_adds(&sb, params[i].name);
		strbuf_adds(&sb, " = ");
		strbuf_adds(&sb, params[i].values[idx[i]]);
		sep = ", ";
	}
	if (strcmp(sep, " ("))
		strbuf_addch(&sb, ')');
	return strbuf_detach(&sb, NULL);
}

/* text with each {name} of params replaced by its value at idx[], in one pass. */
static char *substitute(const char *text, const struct scan_param *params, size_t nparams,
			const size_t *idx)
{
	struct strbuf sb = STRBUF_INIT;

	while (*text) {
		size_t k = nparams;

		if (*text == '{')
			for (k = 0; k < nparams; k++) {
				size_t len = strlen(params[k].name);
				if (!strncmp(text + 1, params[k].name, len) && text[1 + len] == '}')
					break;
			}
		if (k < nparams) {
			strbuf_adds(&sb, params[k].values[idx[k]]);
			text += strlen(params[k].name) + 2;
		} else {
			strbuf_addch(&sb, *text++);
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* The parameters of scan, their values made: NULL, or why not (caller frees). */
static char *scan_params(const struct quick_scan *scan, size_t ncommands,
			 struct scan_param **out, size_t *nout)
{
	size_t n = scan->nlists + (scan->range ? 1 : 0);
	struct scan_param *params = xcalloc(n ? n : 1, sizeof(*params));
	char *why = NULL;

	*out = params;
	*nout = n;
	if (scan->range && scan->nlists)
		return xstrdup("-P and -L cannot be given together (as in hyperfine): one range, "
			       "or lists");
	if (scan->step && !scan->range)
		return xstrdup("-D sets the step of a -P range: give -P VAR MIN MAX");
	for (size_t i = 0; i < scan->nlists; i++) {
		params[i].name = scan->lists[2 * i];
		split_list(scan->lists[2 * i + 1], &params[i]);
	}
	if (scan->range) {
		params[n - 1].name = scan->range[0];
		if ((why = range_values(scan->range, scan->step, QUICK_MAX_COMMANDS,
					 &params[n - 1])))
			return why;
	}
	for (size_t i = 0; i < n; i++) {
		int used = 0;

		if (!*params[i].name || strpbrk(params[i].name, "{}"))
			return xasprintf("%s '%s': a parameter's name is a word without braces",
					 scan->range && i == n - 1 ? "-P" : "-L", params[i].name);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(params[k].name, params[i].name))
				return xasprintf("parameter '%s' is scanned twice", params[i].name);
		for (size_t c = 0; c < ncommands && !used; c++)
			used = mentions(scan->commands[c], params[i].name);
		for (size_t c = 0; c < scan->nprepare && !used; c++)
			used = mentions(scan->prepare[c], params[i].name);
		used = used || (scan->setup && mentions(scan->setup, params[i].name)) ||
		       (scan->cleanup && mentions(scan->cleanup, params[i].name));
		if (!used)
			return xasprintf("no command has '{%s}' for %s %s to replace", params[i].name,
					 scan->range && i == n - 1 ? "-P" : "-L", params[i].name);
	}
	return NULL;
}

int quick_scan_expand(const struct quick_scan *scan, struct quick_scan_result *out, char **err)
{
	struct scan_param *params = NULL;
	size_t nparams = 0, total = scan->ncommands, *idx = NULL;
	size_t alloc_c = 0, alloc_l = 0, nlabels = 0, alloc_n = 0, nnames = 0;
	size_t alloc_pn = 0, alloc_pv = 0, npn = 0, npv = 0;
	/* The commands around the runs: --prepare (one, or one per command), --setup, --cleanup. */
	const char *const *in[3] = { scan->prepare, scan->setup ? &scan->setup : NULL,
				     scan->cleanup ? &scan->cleanup : NULL };
	size_t nin[3] = { scan->nprepare, scan->setup != NULL, scan->cleanup != NULL };
	char **outv[3] = { NULL, NULL, NULL };
	size_t nout[3] = { 0, 0, 0 }, alloc[3] = { 0, 0, 0 };
	int per_command[3] = { 0, 0, 0 };

	memset(out, 0, sizeof(*out));
	*err = scan_params(scan, scan->ncommands, &params, &nparams);
	if (*err)
		goto fail;
	for (size_t i = 0; i < nparams; i++) {
		if (!params[i].nvalues || total > QUICK_MAX_COMMANDS / params[i].nvalues) {
			*err = xasprintf("the scan makes more than %d commands: abev bench compares at "
					 "most %d at once (a plan's variants_file holds more)",
					 QUICK_MAX_COMMANDS, QUICK_MAX_COMMANDS);
			goto fail;
		}
		total *= params[i].nvalues;
	}
	/* hyperfine's rule: one name for all (its {VAR} replaced), or one for each command made. */
	if (scan->nnames > 1 && scan->nnames != total) {
		*err = xasprintf("%zu names (-n) for the %zu commands the scan makes: give one, "
				 "with {VAR} in it, or one for each", scan->nnames, total);
		goto fail;
	}
	/* hyperfine would give them all that one name; a variant's name must be its own. */
	if (scan->nnames == 1 && total > 1 && !mentions_any(scan->names[0], params, nparams)) {
		*err = xasprintf("-n '%s' would name all %zu commands the scan makes alike: put "
				 "{%s} in it (-n '%s-{%s}'), or give one -n for each", scan->names[0],
				 total, params[0].name, scan->names[0], params[0].name);
		goto fail;
	}
	if (scan->nprepare > 1 && scan->nprepare != scan->ncommands) {
		*err = xasprintf("%zu --prepare commands for %zu commands: give one for all, or "
				 "one per command", scan->nprepare, scan->ncommands);
		goto fail;
	}
	for (int s = 0; s < 3; s++) {
		for (size_t k = 0; k < nin[s] && !per_command[s]; k++)
			per_command[s] = mentions_any(in[s][k], params, nparams);
		/* One command that names no parameter stays one, for every variant. */
		if (nin[s] == 1 && !per_command[s])
			values_push(&outv[s], &nout[s], &alloc[s], xstrdup(in[s][0]));
	}
	idx = xcalloc(nparams + 1, sizeof(*idx));
	/* The commands vary fastest, then the first parameter, then the next. */
	for (size_t made = 0; made < total; made++) {
		size_t c = made % scan->ncommands, rest = made / scan->ncommands;

		for (size_t i = 0; i < nparams; i++) {
			idx[i] = rest % params[i].nvalues;
			rest /= params[i].nvalues;
		}
		values_push(&out->commands, &out->ncommands, &alloc_c,
			    substitute(scan->commands[c], params, nparams, idx));
		values_push(&out->labels, &nlabels, &alloc_l,
			    label_of(scan->commands[c], out->commands[made], params, nparams, idx));
		for (size_t i = 0; i < nparams; i++)
			values_push(&out->param_values, &npv, &alloc_pv,
				    xstrdup(params[i].values[idx[i]]));
		if (scan->nnames)
			values_push(&out->names, &nnames, &alloc_n,
				    substitute(scan->names[scan->nnames == 1 ? 0 : made], params,
					       nparams, idx));
		for (int s = 0; s < 3; s++)
			if (nin[s] > 1 || per_command[s])
				values_push(&outv[s], &nout[s], &alloc[s],
					    substitute(in[s][nin[s] == 1 ? 0 : c], params, nparams,
						       idx));
	}
	out->nnames = nnames;
	for (size_t i = 0; i < nparams; i++)
		values_push(&out->param_names, &npn, &alloc_pn, xstrdup(params[i].name));
	out->nparams = nparams;
	out->prepare = outv[0];
	out->nprepare = nout[0];
	out->setup = outv[1];
	out->nsetup = nout[1];
	out->cleanup = outv[2];
	out->ncleanup = nout[2];
	free(idx);
	params_free(params, nparams);
	return 0;
fail:
	params_free(params, nparams);
	for (int s = 0; s < 3; s++)
		strv_free(outv[s]);
	quick_scan_release(out);
	return -1;
}

void quick_scan_release(struct quick_scan_result *r)
{
	strv_free(r->commands);
	strv_free(r->labels);
	strv_free(r->names);
	strv_free(r->param_names);
	strv_free(r->param_values);
	strv_free(r->prepare);
	strv_free(r->setup);
	strv_free(r->cleanup);
	memset(r, 0, sizeof(*r));
}
