/*
 * colour: whether a stream of abev's terminal output gets colours, and
 * the one way to add them. It follows hyperfine and https://no-color.org:
 * colours only on a terminal, never when NO_COLOR is set and not empty or
 * TERM is "dumb" (or unset), whatever the stream; --color=always and
 * --color=never override all of that. The decision is pure
 * (colour_decide()); colour_stream() hands it the stream's isatty() and
 * the environment. It colours only what it is given: outside text must be
 * escaped before (util/escape.h), and no evidence file is ever written
 * through it.
 */
#ifndef ABEV_COLOUR_H
#define ABEV_COLOUR_H

#include <stdio.h>

struct strbuf;

/* --color's values: "auto" (the default), "always", "never". */
enum colour_when {
	COLOUR_AUTO,
	COLOUR_ALWAYS,
	COLOUR_NEVER,
};

/* The words --color takes, for the help and the completions. */
#define COLOUR_WHEN_WORDS "auto always never"

/* when from its word; 0, or -1 for a word that is none of them (no message). */
int colour_when_parse(const char *word, enum colour_when *when);

/*
 * Whether to colour: always or never as told; with auto, only when the
 * stream is a terminal (is_tty), no_color (NO_COLOR's value, or NULL) is
 * unset or empty, and term (TERM's, or NULL) is set and not "dumb".
 */
int colour_decide(enum colour_when when, int is_tty, const char *no_color, const char *term);
/* colour_decide() for stream f, from isatty(fileno(f)) and the environment. */
int colour_stream(enum colour_when when, FILE *f);

/* SGR parameters, as hyperfine's colours (its crate "colored"). */
#define COLOUR_BOLD "1"
#define COLOUR_DIM "2"
#define COLOUR_RED "31"
#define COLOUR_GREEN "32"
#define COLOUR_YELLOW "33"
#define COLOUR_BLUE "34"
#define COLOUR_MAGENTA "35"
#define COLOUR_CYAN "36"
#define COLOUR_BOLD_GREEN "1;32"

/*
 * Appends text, between "ESC [ sgr m" and the reset "ESC [ 0 m" when on,
 * alone otherwise. text is added as it is: escape outside text first.
 */
void colour_add(struct strbuf *sb, int on, const char *sgr, const char *text);

#endif
