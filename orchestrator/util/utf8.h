/*
 * utf8: what a byte string is as UTF-8 — where a character ends, its code
 * point, where a string may be cut — and the one table of the characters
 * a terminal, an editor or a viewer acts on rather than shows
 * (unicode_hidden()). Pure functions of their input, no I/O. How such
 * characters are then written out is escape.h's (and quote.h's, and
 * json_out's \u escapes).
 */
#ifndef ABEV_UTF8_H
#define ABEV_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * The length of the valid UTF-8 sequence at s (at most n bytes), or 0 for
 * a NUL or a byte that starts none: overlong forms, surrogates and code
 * points above U+10FFFF are invalid.
 */
size_t utf8_char_len(const char *s, size_t n);
/*
 * The longest prefix of s (len bytes) of at most max bytes that does not
 * split a UTF-8 character. A character has at most three continuation
 * bytes: a longer run of them is not UTF-8 and is cut where it falls.
 */
size_t utf8_cut(const char *s, size_t len, size_t max);
/* The code point of the character s[0..len), len being utf8_char_len()'s non-zero answer. */
uint32_t utf8_code_point(const char *s, size_t len);
/*
 * Non-zero for a code point above U+007F that a terminal, an editor or a
 * viewer would not show as itself: C1 controls (U+0080-U+009F; U+009B is
 * an 8-bit CSI), zero-width and invisible characters (U+200B-U+200D,
 * U+2060-U+2065, U+206A-U+206F), direction marks (U+200E, U+200F), the
 * line and paragraph separators (U+2028, U+2029), the bidirectional
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and
 * the byte order mark (U+FEFF). With C0 and DEL, these are what the one
 * escaping (escape.h) writes as \xNN, what JSON output writes as \uNNNN,
 * and what a name in a plan may not hold.
 */
int unicode_hidden(uint32_t cp);
/*
 * The offset of the first character of s[0..n) that strbuf_add_escaped()
 * writes as \xNN (a C0 control or DEL, a code point unicode_hidden()
 * names, a byte that is not UTF-8), n when there is none; desc then
 * names it for a message: "U+202E (a bidirectional control)", "byte 0x9b
 * (not UTF-8)", or "" when there is none.
 */
#define UNSHOWN_DESC_LEN 48
size_t text_unshown(const char *s, size_t n, char desc[UNSHOWN_DESC_LEN]);
/*
 * Outside text (command output, file names, /proc) made fit for a JSON
 * string: UTF-8 that ends at its NUL. Each byte of s[0..n) that starts
 * no valid UTF-8 sequence (a NUL among them) becomes U+FFFD. Caller frees.
 * utf8_clean_trim() first drops surrounding white space.
 */
char *utf8_clean(const char *s, size_t n);
char *utf8_clean_trim(const char *s, size_t n);

#endif
