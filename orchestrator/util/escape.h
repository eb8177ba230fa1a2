/*
 * escape: the one escaping of outside names and text abev prints
 * (messages through show_text() and error(), evname_printable(), verify's
 * problems, results --list, the terminal summaries, report.md's text
 * through the template's Markdown escaping, the CSV export), so that a
 * name can neither end a line, nor hide a byte, nor reorder or drive the
 * terminal. Which characters need it is utf8.h's table; quoting for sh
 * and XML is quote.h's.
 */
#ifndef ABEV_ESCAPE_H
#define ABEV_ESCAPE_H

#include <stddef.h>

struct strbuf;

/*
 * n bytes of s appended with a backslash as \\, tab, newline and carriage
 * return as \t \n \r, every other control character and every byte that
 * is not part of valid UTF-8 as \xNN, and so are the bytes of the code
 * points unicode_hidden() names (U+202E shows as \xe2\x80\xae, a byte
 * order mark as \xef\xbb\xbf); other valid UTF-8 is kept.
 */
void strbuf_add_escaped(struct strbuf *sb, const char *s, size_t n);
/*
 * The same for a line abev composed around outside text (error()'s
 * messages, the run summary): a backslash is kept, since one there is
 * abev's own or part of an escape already made.
 */
void strbuf_add_escaped_line(struct strbuf *sb, const char *s, size_t n);
/* strbuf_add_escaped() of the whole of s into a new string. Caller frees. */
char *xstrdup_escaped(const char *s);
/*
 * Outside text quoted in a one-line message through strbuf_add_escaped():
 * the text stops at a NUL or after n bytes, and whatever does not fit in
 * size bytes is cut, between characters, with "...". Returns buf.
 */
const char *show_text(char *buf, size_t size, const char *s, size_t n);
/* show_text() of the whole of s: show_str(b, sizeof(b), name). */
const char *show_str(char *buf, size_t size, const char *s);

#endif
