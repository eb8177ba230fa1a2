/*
 * colour: TERM unset counts as dumb, as in hyperfine: a stream that is a
 * terminal but whose type nobody named may not understand the escapes.
 * An empty NO_COLOR does not count, as no-color.org asks, so that
 * "NO_COLOR= abev ..." can undo an exported one.
 */
#include "util/colour.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/compiler.h"
#include "util/strbuf.h"

int colour_when_parse(const char *word, enum colour_when *when)
{
	static const char *const words[] = { "auto", "always", "never" };

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(word, words[i])) {
			*when = (enum colour_when)i;
			return 0;
		}
	return -1;
}

int colour_decide(enum colour_when when, int is_tty, const char *no_color, const char *term)
{
	if (when != COLOUR_AUTO)
		return when == COLOUR_ALWAYS;
	if (!is_tty || (no_color && *no_color))
		return 0;
	return term && *term && strcmp(term, "dumb");
}

int colour_stream(enum colour_when when, FILE *f)
{
	return colour_decide(when, isatty(fileno(f)), getenv("NO_COLOR"), getenv("TERM"));
}

void colour_add(struct strbuf *sb, int on, const char *sgr, const char *text)
{
	if (on)
		strbuf_addf(sb, "\033[%sm%s\033[0m", sgr, text);
	else
		strbuf_adds(sb, text);
}
