/*
 * options: abev's option tables and the one parser that reads them (git's
 * parse_options). Each command describes its command line once, in a
 * struct cli_command: its usage lines, what it says about itself, and a
 * table of rows (struct cli_option, written with the CLI_* macros below),
 * each row naming an option's short and long name, its argument, its kind,
 * where its value goes and its help. From that table come the parsing
 * (cli_parse()), the help (cli_help_print()), the usage error, and — via
 * cli_options_dump(), `abev __options` — the shell completions and the
 * checks of the manual. What an option means, and which exit code a
 * failure gives, is the command's business and main.c's.
 */
#ifndef ABEV_OPTIONS_H
#define ABEV_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cli_opt_kind {
	CLI_OPT_END,      /* ends a table */
	CLI_OPT_FLAG,     /* no value: sets an int to 1 */
	CLI_OPT_INT,      /* a whole number in [min, max], into an int64_t */
	CLI_OPT_DOUBLE,   /* a finite number in [dmin, dmax], into a double */
	CLI_OPT_STRING,   /* a string (borrowed from argv), into a const char *; the last wins */
	CLI_OPT_STRINGS,  /* repeatable: each value appended to a struct cli_strings, at most max */
	CLI_OPT_CALLBACK, /* the value handed to callback() with the destination */
};

enum cli_opt_flags {
	CLI_OPT_HIDDEN = 1, /* parsed, but not in the help, the completions or the dump */
	/*
	 * The value is optional: only "--name=VALUE" gives one; "--name" alone
	 * gives a string "", a callback NULL (numbers need a value).
	 */
	CLI_OPT_OPTARG = 2,
};

/* The values of a CLI_OPT_STRINGS option, in order (borrowed from argv). */
struct cli_strings {
	const char **v;
	size_t n, alloc;
};

struct cli_option {
	enum cli_opt_kind kind;
	char short_name;        /* 'o' for -o; 0: none */
	const char *long_name;  /* "out" for --out; every option has one */
	const char *argh;       /* the value's name in the help ("DIR"); NULL for a flag */
	size_t offset;          /* of the destination in the command's option struct */
	const char *help;       /* one paragraph, wrapped when printed */
	unsigned flags;         /* enum cli_opt_flags */
	int64_t min, max;       /* CLI_OPT_INT's bounds; CLI_OPT_STRINGS's most times given (max) */
	/*
	 * CLI_OPT_STRINGS: the values one use takes, as separate arguments
	 * ("-L VAR VALUES": 2); 0 or 1: one, which "--name=VALUE" may give.
	 */
	unsigned nargs;
	double dmin, dmax;      /* CLI_OPT_DOUBLE's bounds */
	const char *unit;       /* "seconds": said in the message on a bad number; or NULL */
	/* CLI_OPT_CALLBACK: takes arg (NULL with CLI_OPT_OPTARG and none given); 0 or -1 after error(). */
	int (*callback)(const struct cli_option *opt, const char *arg, void *dest);
	/*
	 * What the value completes to in the shell completions: NULL (anything,
	 * nothing offered), CLI_COMPLETE_DIRS, CLI_COMPLETE_ANY_FILE,
	 * CLI_COMPLETE_FILES("*.key *.pem") (and directories), CLI_COMPLETE_WORDS("a b"),
	 * CLI_COMPLETE_ENV (variable names) or, for operands, CLI_COMPLETE_COMMANDS.
	 */
	const char *complete;
};

#define CLI_COMPLETE_DIRS "dirs"
#define CLI_COMPLETE_ANY_FILE "files"
#define CLI_COMPLETE_FILES(globs) "files " globs
#define CLI_COMPLETE_WORDS(words) "words " words
#define CLI_COMPLETE_ENV "env"
#define CLI_COMPLETE_COMMANDS "commands"

/*
 * The destination of a row: member m of the option struct T (m may be a
 * path, "run.out"), of C type ct — a row whose member has another type
 * does not compile (comparison of distinct pointer types).
 */
#define CLI_DEST(T, m, ct) (offsetof(T, m) + 0 * sizeof(&((T *)0)->m == (ct *)0))

/*
 * The rows, git-style: short name (0: none), long name, the option
 * struct and member, the value's name, then the kind's own settings, then
 * the help. Each is a list of designators, so that a row can add more:
 *     { CLI_STRING('o', "out", struct run_opts, out, "DIR", "..."),
 *       .complete = CLI_COMPLETE_DIRS },
 */
#define CLI_FLAG(s, l, T, m, h) \
	.kind = CLI_OPT_FLAG, .short_name = (s), .long_name = (l), \
	.offset = CLI_DEST(T, m, int), .help = (h)
#define CLI_STRING(s, l, T, m, a, h) \
	.kind = CLI_OPT_STRING, .short_name = (s), .long_name = (l), .argh = (a), \
	.offset = CLI_DEST(T, m, const char *), .help = (h)
#define CLI_STRINGS(s, l, T, m, a, most, h) \
	.kind = CLI_OPT_STRINGS, .short_name = (s), .long_name = (l), .argh = (a), \
	.offset = CLI_DEST(T, m, struct cli_strings), .max = (most), .help = (h)
/* A repeatable option that takes n values each time ("VAR MIN MAX"): they follow it. */
#define CLI_STRINGS_N(s, l, T, m, a, n, most, h) \
	CLI_STRINGS(s, l, T, m, a, most, h), .nargs = (n)
#define CLI_INT(s, l, T, m, a, lo, hi, u, h) \
	.kind = CLI_OPT_INT, .short_name = (s), .long_name = (l), .argh = (a), \
	.offset = CLI_DEST(T, m, int64_t), .min = (lo), .max = (hi), .unit = (u), .help = (h)
#define CLI_DOUBLE(s, l, T, m, a, lo, hi, u, h) \
	.kind = CLI_OPT_DOUBLE, .short_name = (s), .long_name = (l), .argh = (a), \
	.offset = CLI_DEST(T, m, double), .dmin = (lo), .dmax = (hi), .unit = (u), .help = (h)
#define CLI_CALLBACK(s, l, T, m, a, cb, h) \
	.kind = CLI_OPT_CALLBACK, .short_name = (s), .long_name = (l), .argh = (a), \
	.offset = offsetof(T, m), .callback = (cb), .help = (h)
#define CLI_END() .kind = CLI_OPT_END

/* Operand limit of a command that takes any number. */
#define CLI_MANY SIZE_MAX

/*
 * A command's command line. The help is usage, about, the options (every
 * row but the hidden ones, then -h, --help) and tail; a usage error prints
 * the usage alone. Every string ends with a newline.
 */
/*
 * An option another tool takes that this command does not, and what to
 * do instead: "--setup" of hyperfine, "abev has none: ...". An unknown
 * option named here is refused with these words rather than a guess.
 */
struct cli_foreign {
	const char *name;        /* "--setup", "-L" */
	const char *tool;        /* "hyperfine" */
	const char *instead;     /* one sentence, lower case */
};

struct cli_command {
	const char *name;        /* as in messages: "run", "guard min-executed" */
	const char *summary;     /* one line, lower case: what the command does */
	const char *usage;       /* "usage: abev run PLAN ...\n", maybe several lines */
	const char *about;       /* paragraphs before the options; or NULL */
	const char *tail;        /* paragraphs after them (exit codes, ...); or NULL */
	void (*tail_more)(FILE *f); /* prints what follows the tail (the exit codes), or NULL */
	const struct cli_option *options; /* ends with CLI_END() */
	const char *operands;    /* their name in the completions ("PLAN", "DIR...") */
	size_t max_operands;     /* more is a usage error; CLI_MANY: any number */
	const char *complete;    /* what operands complete to (as cli_option.complete) */
	int stop_at_operand;     /* everything after the first operand is one too */
	size_t opts_size;        /* the option struct the rows write into */
	const void *defaults;    /* its values before parsing (opts_size bytes); NULL: zeros */
	const struct cli_foreign *foreign; /* ends with a NULL name; or NULL: none */
	/* The command itself: its options, and its operands (argv's own strings). */
	int (*fn)(void *opts, size_t noperands, char **operands);
};

enum cli_parse_result {
	CLI_PARSED,    /* go on: the options are set, the operands counted */
	CLI_HELPED,    /* -h or --help: the help is on stdout, nothing else to do */
	CLI_BAD_USAGE, /* a message (and for most, the usage) is on stderr */
};

/*
 * Parses argv[1..argc) (argv[0] is the command's name) by c's table into
 * opts (c->opts_size bytes, set up by the caller): "--long", "--long=VALUE",
 * "--long VALUE", "-s", "-s VALUE" (no "-sVALUE", no bundled flags), "--"
 * (every later argument an operand), "-" an operand, and -h/--help, which
 * prints the help on stdout and stops. Numbers and callbacks are checked
 * after every argument is read, in table order, so that --help wins over a
 * bad value. The operands are moved to argv[0..*noperands).
 * Usage errors, each one message: an unknown option (with the nearest
 * known one, when one is near), a missing value, a flag given a value, a
 * bad number, a repeatable option given more than its most, a surplus
 * operand; all but a missing value or too many values are followed by the
 * usage on stderr. Release opts with cli_options_release().
 */
enum cli_parse_result cli_parse(const struct cli_command *c, int argc, char **argv, void *opts,
				size_t *noperands);

/* Frees what cli_parse() allocated in opts (the CLI_OPT_STRINGS arrays); opts stays. */
void cli_options_release(const struct cli_command *c, void *opts);

/*
 * text's words on f, filled into lines of at most 79 columns that start at
 * column indent; col is the column f is at now (indent: a line's start).
 */
void cli_print_wrapped(FILE *f, const char *text, size_t col, size_t indent);

/* The whole help of c: usage, about, the options, tail. */
void cli_help_print(const struct cli_command *c, FILE *f);

/* The options part of the help: one entry per visible row and -h, --help, wrapped. */
void cli_options_print(const struct cli_option *options, FILE *f);

/*
 * The tables of the n commands as one JSON document (abev.options/1) on f:
 * per command its name, summary, usage, operands and options (short,
 * long, argument, kind, repeatable, completion, help; -h/--help last),
 * hidden rows left out. What completions and the manual are checked against.
 * 0, or -1 after error() when f cannot be written.
 */
int cli_options_dump(const struct cli_command *const *cmds, size_t n, FILE *f);

/*
 * The tables of the n commands as Markdown on f (docs/options.md, `abev
 * help options --markdown`): per command a heading, its summary and usage,
 * and a table of its visible options with their help, -h/--help last.
 * 0, or -1 after error() when f cannot be written.
 */
int cli_options_markdown(const struct cli_command *const *cmds, size_t n, FILE *f);

#endif
