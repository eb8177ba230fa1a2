/*
 * cli: parsing a command's arguments — options from a table (long, short,
 * "--name=VALUE"), operands, repeatable options, counts — and the usage
 * error every command reports the same way. What the options mean is the
 * command's business (cli_*.c); which exit code a failure gives is
 * cli_exit.c's.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "util/number.h"
#include "util/usage.h"

int usage_error(const char *msg, const char *hint)
{
	error("%s", msg);
	fprintf(stderr, "%s\n", hint);
	return EXIT_USAGE;
}

/*
 * Matches "--name VALUE" or "--name=VALUE" (and the short form, if any) at
 * argv[*i]. Returns 1 with *val set (advancing *i past a separate value),
 * 0 when argv[*i] is another option, -1 after error() when the value is
 * missing.
 */
static int opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
		     const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);

	if (!strncmp(a, lng, n) && a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (strcmp(a, lng) && (!shrt || strcmp(a, shrt)))
		return 0;
	if (*i + 1 >= argc) {
		error("option '%s' needs a value", lng);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

int parse_args(int argc, char **argv, int first, const char *cmd, const char *help,
	       const char *tail, const char *usage, const struct cli_opt *opts, size_t nopts,
	       const char **pos, size_t npos, size_t *npos_out, int *helped)
{
	int operands_only = 0;

	*npos_out = 0;
	*helped = 0;
	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *val;
		size_t k;
		int m = 0;

		if (operands_only || a[0] != '-' || !a[1]) {
			if (*npos_out == npos) {
				error("unexpected argument '%s' for 'abev %s'", a, cmd);
				fputs(usage, stderr);
				return -1;
			}
			pos[(*npos_out)++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			operands_only = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help, stdout);
			fputs(tail, stdout);
			*helped = 1;
			return 0;
		}
		for (k = 0; k < nopts; k++) {
			if (opts[k].flag) {
				if (!strcmp(a, opts[k].lng) || (opts[k].shrt && !strcmp(a, opts[k].shrt))) {
					*opts[k].flag = 1;
					break;
				}
			} else if ((m = opt_value(argc, argv, &i, opts[k].lng, opts[k].shrt, &val)) != 0) {
				if (m < 0)
					return -1;
				*opts[k].val = val;
				break;
			}
		}
		if (k == nopts) {
			error("unknown option '%s' for 'abev %s'", a, cmd);
			fputs(usage, stderr);
			return -1;
		}
	}
	return 0;
}

int parse_count(const char *opt, const char *val, int64_t *out)
{
	if (!val || parse_int64(val, out) < 0 || *out < 0) {
		error("option '%s' needs a non-negative integer, not '%s'", opt, val ? val : "");
		return -1;
	}
	return 0;
}

int take_repeated(int *argc, char **argv, int first, const struct cli_opt *opts, size_t nopts,
		  struct cli_repeat *rep, size_t nrep)
{
	int out = first;

	for (int i = first; i < *argc; i++) {
		const char *a = argv[i], *val;
		int taken = 0;

		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		for (size_t r = 0; a[0] == '-' && r < nrep && !taken; r++) {
			int m = opt_value(*argc, argv, &i, rep[r].lng, rep[r].shrt, &val);
			if (m < 0)
				return -1;
			if (m && rep[r].n == rep[r].max)
				return error("option '%s' given more than %zu times", rep[r].lng,
					     rep[r].max);
			if (m)
				rep[r].v[rep[r].n++] = val;
			taken = m;
		}
		for (size_t k = 0; a[0] == '-' && k < nopts && !taken; k++)
			if (!opts[k].flag && i + 1 < *argc &&
			    (!strcmp(a, opts[k].lng) || (opts[k].shrt && !strcmp(a, opts[k].shrt)))) {
				argv[out++] = argv[i++];
				argv[out++] = argv[i];
				taken = 1;
			}
		if (!taken)
			argv[out++] = argv[i];
	}
	*argc = out;
	return 0;
}
