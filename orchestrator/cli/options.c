/*
 * options: reading a command line by its table, printing the table as
 * help, and dumping it for the completions (options.h). One parser serves
 * every command, so that an option is spelt, refused and explained the
 * same way everywhere. Nothing here knows what an option means.
 */
#include "cli/options.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/compiler.h"
#include "util/json_out.h"
#include "util/number.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/usage.h"

/* -h, --help: every command has it, after its own rows. */
static const struct cli_option help_option = {
	.kind = CLI_OPT_FLAG, .short_name = 'h', .long_name = "help", .help = "show this help",
};

/* What a row without its optional value keeps until convert(): not "" (which "--name=" gives). */
static const char no_value[] = "";

/* The help column, and the longest line the help of an option makes. */
#define HELP_INDENT 2
#define HELP_COLUMN 20
#define HELP_WIDTH 79

static int visible(const struct cli_option *o)
{
	return !(o->flags & CLI_OPT_HIDDEN);
}

static int takes_value(const struct cli_option *o)
{
	return o->kind != CLI_OPT_FLAG;
}

static void *dest_of(const struct cli_option *o, void *opts)
{
	return (char *)opts + o->offset;
}

/* The row for "--name" (len bytes of name), or NULL. */
static const struct cli_option *find_long(const struct cli_option *opts, const char *name,
					  size_t len)
{
	for (; opts->kind != CLI_OPT_END; opts++)
		if (strlen(opts->long_name) == len && !memcmp(opts->long_name, name, len))
			return opts;
	return NULL;
}

static const struct cli_option *find_short(const struct cli_option *opts, char c)
{
	for (; opts->kind != CLI_OPT_END; opts++)
		if (opts->short_name && opts->short_name == c)
			return opts;
	return NULL;
}

static void print_usage(const struct cli_command *c)
{
	fputs(c->usage, stderr);
}

/*
 * The long option nearest to what was typed: its dashes and any
 * "=VALUE" taken off ("-dry-run", "--outt=x"). Borrowed, or NULL.
 */
static const char *nearest_option(const struct cli_option *opts, const char *arg)
{
	const char *names[256], *eq;
	char word[SUGGEST_WORD_MAX + 1];
	size_t n = 0, len;

	while (*arg == '-')
		arg++;
	eq = strchr(arg, '=');
	len = eq ? (size_t)(eq - arg) : strlen(arg);
	if (len < 2 || len > SUGGEST_WORD_MAX)
		return NULL;
	memcpy(word, arg, len);
	word[len] = '\0';
	for (; opts->kind != CLI_OPT_END && n < ARRAY_SIZE(names) - 1; opts++)
		if (visible(opts))
			names[n++] = opts->long_name;
	names[n++] = help_option.long_name;
	/* The name itself, misspelt only in its dashes or given a value it does not take. */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(word, names[i]))
			return names[i];
	return suggest_nearest(word, names, n);
}

static int unknown_option(const struct cli_command *c, const char *arg)
{
	const char *near = nearest_option(c->options, arg);
	size_t len = strcspn(arg, "=");

	for (const struct cli_foreign *f = c->foreign; f && f->name; f++)
		if (strlen(f->name) == len && !strncmp(arg, f->name, len)) {
			error("'%s' is %s's and 'abev %s' does not take it: %s", f->name, f->tool,
			      c->name, f->instead);
			print_usage(c);
			return -1;
		}

	error("unknown option '%s' for 'abev %s'%s%s%s", arg, c->name,
	      near ? ", did you mean '--" : "", near ? near : "", near ? "'?" : "");
	print_usage(c);
	return -1;
}

/* Stores arg (NULL: an optional value not given) by row o. 0 or -1 after error(). */
static int store(const struct cli_option *o, const char *arg, void *opts, const char **deferred)
{
	void *dest = dest_of(o, opts);

	switch (o->kind) {
	case CLI_OPT_FLAG:
		*(int *)dest = 1;
		return 0;
	case CLI_OPT_STRING:
		*(const char **)dest = arg ? arg : "";
		return 0;
	case CLI_OPT_STRINGS: {
		struct cli_strings *s = dest;
		size_t per = o->nargs > 1 ? o->nargs : 1;
		if (s->n >= (size_t)o->max * per && o->max == 1)
			return error("option '--%s' given more than once", o->long_name);
		if (s->n >= (size_t)o->max * per)
			return error("option '--%s' given more than %zu times", o->long_name,
				     (size_t)o->max);
		ALLOC_GROW(s->v, s->n + 1, s->alloc);
		s->v[s->n++] = arg ? arg : "";
		return 0;
	}
	case CLI_OPT_INT:
	case CLI_OPT_DOUBLE:
	case CLI_OPT_CALLBACK:
		/* Checked once every argument is read: see convert(). */
		*deferred = arg ? arg : no_value;
		return 0;
	case CLI_OPT_END:
		break;
	}
	return error("option '--%s' has no kind", o->long_name);
}

/* A value that must be a number, checked after the arguments are read. 0 or -1 after error(). */
static int convert(const struct cli_option *o, const char *arg, void *opts)
{
	void *dest = dest_of(o, opts);
	const char *unit = o->unit ? " of " : "", *what = o->unit ? o->unit : "";
	int64_t v;
	double d;

	switch (o->kind) {
	case CLI_OPT_INT:
		if (parse_int64(arg, &v) == 0 && v >= o->min && v <= o->max) {
			*(int64_t *)dest = v;
			return 0;
		}
		/* A bound past UINT_MAX is the type's, not one a person would type. */
		if (o->max >= (int64_t)UINT_MAX)
			return error("'--%s' must be a whole number%s%s of at least %" PRId64,
				     o->long_name, unit, what, o->min);
		return error("'--%s' must be a whole number%s%s from %" PRId64 " to %" PRId64,
			     o->long_name, unit, what, o->min, o->max);
	case CLI_OPT_DOUBLE:
		if (parse_double(arg, &d) == 0 && d >= o->dmin && d <= o->dmax) {
			*(double *)dest = d;
			return 0;
		}
		return error("'--%s' must be a number%s%s from %g to %g", o->long_name, unit, what,
			     o->dmin, o->dmax);
	case CLI_OPT_CALLBACK:
		return o->callback(o, arg == no_value ? NULL : arg, dest);
	default:
		return 0;
	}
}

/*
 * The row argv[*i] names, its value taken (from "=VALUE" or the next
 * argument, advancing *i) and stored. 0, or -1 after the message.
 */
static int take_option(const struct cli_command *c, int argc, char **argv, int *i, void *opts,
		       const char **deferred)
{
	const char *a = argv[*i], *val = NULL, *eq = NULL;
	const struct cli_option *o;

	if (a[1] == '-') {
		eq = strchr(a + 2, '=');
		o = find_long(c->options, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
	} else {
		o = a[2] ? NULL : find_short(c->options, a[1]);
	}
	/* A flag given "=VALUE" is no spelling of the flag. */
	if (!o || (eq && !takes_value(o)))
		return unknown_option(c, a);
	if (o->nargs > 1) {
		/* Its values follow it, one argument each: "--name=VALUE" gives one only. */
		if (eq)
			return error("option '--%s' takes %u values (%s) as the arguments after it, "
				     "not after '='", o->long_name, o->nargs, o->argh);
		if (*i + (int)o->nargs >= argc)
			return error("option '--%s' needs %u values: %s", o->long_name, o->nargs,
				     o->argh);
		for (unsigned k = 0; k < o->nargs; k++)
			if (store(o, argv[++*i], opts, &deferred[o - c->options]) < 0)
				return -1;
		return 0;
	}
	if (eq)
		val = eq + 1;
	else if (takes_value(o) && !(o->flags & CLI_OPT_OPTARG)) {
		if (*i + 1 >= argc)
			return error("option '--%s' needs a value", o->long_name);
		val = argv[++*i];
	}
	return store(o, val, opts, &deferred[o - c->options]);
}

enum cli_parse_result cli_parse(const struct cli_command *c, int argc, char **argv, void *opts,
				size_t *noperands)
{
	size_t nrows = 0, n = 0;
	const char **deferred;
	int operands_only = 0;
	enum cli_parse_result res = CLI_PARSED;

	while (c->options[nrows].kind != CLI_OPT_END)
		nrows++;
	deferred = xcalloc(nrows + 1, sizeof(*deferred));
	for (int i = 1; i < argc && res == CLI_PARSED; i++) {
		const char *a = argv[i];

		if (operands_only || a[0] != '-' || !a[1]) {
			if (n == c->max_operands) {
				error("unexpected argument '%s' for 'abev %s'", a, c->name);
				print_usage(c);
				res = CLI_BAD_USAGE;
				break;
			}
			/* Written behind the argument being read: argv[n] was read already. */
			argv[n++] = argv[i];
			operands_only |= c->stop_at_operand;
		} else if (!strcmp(a, "--")) {
			operands_only = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cli_help_print(c, stdout);
			res = CLI_HELPED;
		} else if (take_option(c, argc, argv, &i, opts, deferred) < 0) {
			res = CLI_BAD_USAGE;
		}
	}
	for (size_t k = 0; k < nrows && res == CLI_PARSED; k++)
		if (deferred[k] && convert(&c->options[k], deferred[k], opts) < 0) {
			print_usage(c);
			res = CLI_BAD_USAGE;
		}
	free(deferred);
	*noperands = n;
	return res;
}

void cli_options_release(const struct cli_command *c, void *opts)
{
	for (const struct cli_option *o = c->options; o->kind != CLI_OPT_END; o++)
		if (o->kind == CLI_OPT_STRINGS) {
			struct cli_strings *s = dest_of(o, opts);
			free(s->v);
			memset(s, 0, sizeof(*s));
		}
}

/* "-o, --out DIR": how the help names a row. */
static void add_header(struct strbuf *sb, const struct cli_option *o)
{
	if (o->short_name)
		strbuf_addf(sb, "-%c, ", o->short_name);
	strbuf_addf(sb, "--%s", o->long_name);
	if (o->argh)
		strbuf_addf(sb, (o->flags & CLI_OPT_OPTARG) ? "[=%s]" : " %s", o->argh);
}

void cli_print_wrapped(FILE *f, const char *text, size_t col, size_t indent)
{
	const char *w = text;

	while (*w) {
		size_t len = strcspn(w, " ");

		if (col > indent && col + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, len, f);
		col += len;
		w += len;
		while (*w == ' ')
			w++;
	}
	fputc('\n', f);
}

static void print_option(const struct cli_option *o, FILE *f)
{
	struct strbuf head = STRBUF_INIT;

	add_header(&head, o);
	/* Two spaces at least between the name and its help, else the help on a line of its own. */
	if (HELP_INDENT + head.len + 2 <= HELP_COLUMN)
		fprintf(f, "%*s%-*s", HELP_INDENT, "", HELP_COLUMN - HELP_INDENT, head.buf);
	else
		fprintf(f, "%*s%s\n%*s", HELP_INDENT, "", head.buf, HELP_COLUMN, "");
	cli_print_wrapped(f, o->help, HELP_COLUMN, HELP_COLUMN);
	strbuf_release(&head);
}

void cli_options_print(const struct cli_option *options, FILE *f)
{
	fputs("Options:\n", f);
	for (const struct cli_option *o = options; o->kind != CLI_OPT_END; o++)
		if (visible(o))
			print_option(o, f);
	print_option(&help_option, f);
}

void cli_help_print(const struct cli_command *c, FILE *f)
{
	fputs(c->usage, f);
	if (c->about) {
		fputc('\n', f);
		fputs(c->about, f);
	}
	fputc('\n', f);
	cli_options_print(c->options, f);
	if (c->tail) {
		fputc('\n', f);
		fputs(c->tail, f);
	}
	if (c->tail_more) {
		fputc('\n', f);
		c->tail_more(f);
	}
}

/* text on f with '|' escaped, as a Markdown table cell needs. */
static void put_cell(FILE *f, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (*p == '|')
			fputc('\\', f);
		fputc(*p, f);
	}
}

/* One command's section: its heading, summary, usage and a row per option. */
static void command_markdown(const struct cli_command *c, FILE *f)
{
	struct strbuf head = STRBUF_INIT;

	fprintf(f, "\n## abev%s%s\n\n", *c->name ? " " : "", c->name);
	if (c->summary)
		fprintf(f, "%c%s.\n\n", toupper((unsigned char)c->summary[0]), c->summary + 1);
	fprintf(f, "```text\n%s```\n\n| option | meaning |\n|---|---|\n", c->usage);
	for (const struct cli_option *o = c->options;; o++) {
		if (o->kind == CLI_OPT_END)
			o = &help_option;
		if (!visible(o))
			continue;
		strbuf_reset(&head);
		add_header(&head, o);
		fputs("| `", f);
		put_cell(f, head.buf);
		fputs("` | ", f);
		put_cell(f, o->help);
		fputs(" |\n", f);
		if (o == &help_option)
			break;
	}
	strbuf_release(&head);
}

int cli_options_markdown(const struct cli_command *const *cmds, size_t n, FILE *f)
{
	fputs("# Options\n\nEvery command's options, as its `--help` lists them; the manual (abev.1)\n"
	      "says what each does in full.\n", f);
	for (size_t i = 0; i < n; i++)
		command_markdown(cmds[i], f);
	if (fflush(f) || ferror(f))
		return error("cannot write the option tables");
	return 0;
}

static const char *kind_name(enum cli_opt_kind k)
{
	switch (k) {
	case CLI_OPT_FLAG: return "flag";
	case CLI_OPT_INT: return "int";
	case CLI_OPT_DOUBLE: return "double";
	case CLI_OPT_STRING: return "string";
	case CLI_OPT_STRINGS: return "strings";
	case CLI_OPT_CALLBACK: return "callback";
	case CLI_OPT_END: break;
	}
	return "end";
}

static cJSON *option_json(const struct cli_option *o)
{
	cJSON *j = jnew_object();
	char s[2] = { o->short_name, '\0' };

	jadd_str(j, "short", o->short_name ? s : NULL);
	jadd_str(j, "long", o->long_name);
	jadd_str(j, "arg", o->argh);
	jadd_str(j, "kind", kind_name(o->kind));
	jadd_bool(j, "repeatable", o->kind == CLI_OPT_STRINGS);
	jadd_int(j, "values", o->kind == CLI_OPT_FLAG ? 0 : o->nargs > 1 ? o->nargs : 1);
	jadd_bool(j, "optional_value", !!(o->flags & CLI_OPT_OPTARG));
	jadd_str(j, "complete", o->complete);
	jadd_str(j, "help", o->help);
	return j;
}

static cJSON *command_json(const struct cli_command *c)
{
	cJSON *j = jnew_object(), *opts = jnew_array();

	jadd_str(j, "name", c->name);
	jadd_str(j, "summary", c->summary);
	jadd_str(j, "usage", c->usage);
	jadd_str(j, "operands", c->operands);
	jadd_int_or_null(j, "max_operands", (int64_t)c->max_operands,
			 c->max_operands != CLI_MANY);
	jadd_str(j, "complete", c->complete);
	for (const struct cli_option *o = c->options; o->kind != CLI_OPT_END; o++)
		if (visible(o))
			jpush(opts, option_json(o));
	jpush(opts, option_json(&help_option));
	jadd(j, "options", opts);
	return j;
}

int cli_options_dump(const struct cli_command *const *cmds, size_t n, FILE *f)
{
	cJSON *doc = jnew_object(), *arr = jnew_array();
	char *text;
	int rc = 0;

	jadd_str(doc, "schema", "abev.options/1");
	for (size_t i = 0; i < n; i++)
		jpush(arr, command_json(cmds[i]));
	jadd(doc, "commands", arr);
	text = json_print(doc);
	if (fputs(text, f) == EOF || fflush(f))
		rc = error("cannot write the option tables");
	free(text);
	cJSON_Delete(doc);
	return rc;
}
