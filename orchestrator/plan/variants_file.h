/*
 * variants_file: the text of a plan's variants file, one variant a line
 * ("name|ENV=V ENV2='two words'|extra args"), cut into lines and words.
 * Blank lines and lines starting with '#' are skipped; a trailing CR is
 * dropped; every line must be UTF-8. It knows nothing of variants, names or placeholders: the plan
 * loader (plan_variants.c) checks what the words say.
 */
#ifndef ABEV_VARIANTS_FILE_H
#define ABEV_VARIANTS_FILE_H

#include <stddef.h>

struct strbuf;

/*
 * Calls fn(ctx, line, lineno, why) for every line of text[0..len) that is
 * not blank or a comment, lineno counting from 1. A leading UTF-8 byte
 * order mark is skipped, as text editors write one. A line holding a NUL
 * byte or a byte that is not strict UTF-8 comes as line NULL with why
 * saying so ("byte 0xff at column 3 is not UTF-8 ..."); otherwise why is
 * NULL. line and why are valid during the call only.
 */
void variants_file_lines(const char *text, size_t len,
			 void (*fn)(void *ctx, const char *line, size_t lineno, const char *why),
			 void *ctx);

/*
 * Splits one word off *s: blanks end it, single and double quotes group
 * (no escapes inside), and with stop_at_pipe an unquoted '|' ends the
 * section. Returns 1 with the word in *word, 0 at the end of the section
 * (*s at the '|' or the end), -1 for an unterminated quote (its character
 * in *quote).
 */
int variants_file_word(const char **s, int stop_at_pipe, struct strbuf *word, char *quote);

#endif
