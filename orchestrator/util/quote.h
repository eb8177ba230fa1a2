/*
 * quote: outside text made safe inside another language's quoting — a
 * word for sh, character data for XML. The characters neither may carry
 * come from utf8.h's table; escaping for the terminal is escape.h's, for
 * JSON json_out's.
 */
#ifndef ABEV_QUOTE_H
#define ABEV_QUOTE_H

#include <stddef.h>

struct strbuf;

/*
 * Appends outside text s as XML 1.0 character data, fit for element
 * content and for attribute values in either quotes: & < > " ' become
 * references, C0 control characters (tab and newline among them) and DEL
 * are dropped, the code points unicode_hidden() names (C1 controls,
 * bidirectional controls, line separators...) are written as
 * strbuf_add_escaped() writes them (\xe2\x80\xae), so that no viewer acts on
 * them, and every byte that is not part of valid UTF-8, like U+FFFE and
 * U+FFFF, becomes U+FFFD. s may be NULL.
 */
void strbuf_add_xml(struct strbuf *sb, const char *s);
/*
 * Appends s quoted for sh: bare when it is made of safe characters, else
 * in single quotes (a control character, a code point unicode_hidden()
 * names and a byte that is not UTF-8 each become '?').
 */
void strbuf_add_sh(struct strbuf *sb, const char *s);
/* Appends the argc words of argv, each as strbuf_add_sh() does, separated by spaces. */
void strbuf_add_argv_sh(struct strbuf *sb, char *const *argv, size_t argc);

#endif
