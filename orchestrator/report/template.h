/*
 * template: a small mustache-like engine, so that a Markdown template
 * holds a report's words and layout while C supplies the values. It
 * parses a template once into a flat tree and renders it against a
 * record of names (struct template_ctx), into deterministic bytes. It does
 * no I/O and knows nothing of reports, evidence or Markdown beyond the
 * escaping of a table cell; partials, lambdas, dotted names and custom
 * delimiters are left out on purpose.
 *
 * The language:
 *   {{name}}             the value of name, escaped by template_md_text()
 *   {{{name}}} {{&name}} the value as it is (for Markdown made elsewhere)
 *   {{#name}}..{{/name}} a list: the body once per record, with that
 *                        record's names in scope (a name is looked up from
 *                        the innermost record out to the root); a flag or
 *                        a string: the body once when true / non-empty;
 *                        an absent name: nothing
 *   {{^name}}..{{/name}} the body once when name is absent, false, an empty
 *                        string or an empty list
 *   {{! comment }}       nothing (may span lines)
 * A name is 1 to TMPL_NAME_MAX letters, digits, '_' or '-', with optional
 * blanks around it inside the braces. A line that holds only one section,
 * inverted, closing or comment tag, with blanks, disappears with its
 * newline ("\n" or "\r\n"); value tags keep their line.
 */
#ifndef ABEV_TEMPLATE_H
#define ABEV_TEMPLATE_H

#include <stddef.h>

#include "record/layout.h"
#include "util/compiler.h"

struct strbuf;

#define TMPL_NAME_MAX 64                  /* bytes in a name */
#define TMPL_DEPTH_MAX 16                 /* sections open at once */
#define TMPL_SIZE_MAX EVIDENCE_TEMPLATE_MAX /* bytes of template */
#define TMPL_OUTPUT_MAX (64 * 1024 * 1024) /* bytes one render may add */

/*
 * A record: names bound to strings, flags or lists of records. Names are
 * matched byte for byte; setting a name again replaces what it held (a
 * list it held is freed with its records). Strings are copied; a NULL
 * string is the empty one.
 */
struct template_ctx;

struct template_ctx *template_ctx_new(void);
/* Frees c, its values and the records of its lists. NULL is fine. */
void template_ctx_free(struct template_ctx *c);

void template_set(struct template_ctx *c, const char *name, const char *value);
void template_setf(struct template_ctx *c, const char *name, const char *fmt, ...) ABEV_PRINTF(3, 4);
/* A flag: usable in {{#name}} and {{^name}} only. */
void template_set_bool(struct template_ctx *c, const char *name, int v);
/*
 * Appends a new empty record to the list `list` of c, making `list` an
 * empty list first when it is not one, and returns it. The record belongs
 * to c: it stays valid until c is freed or `list` is set again.
 */
struct template_ctx *template_add(struct template_ctx *c, const char *list);
/* Sets `list` to an empty list (which template_add() then appends to). */
void template_list(struct template_ctx *c, const char *list);
/*
 * Sets `list` to a list of n records that exist only while it renders:
 * before record k's body, fill(arg, k, rec) sets its names on rec, a new
 * empty record freed after that body. Each call for the same k must set
 * the same (a template may render a list more than once); arg (borrowed)
 * must outlive the renders. For a list with a record per invocation,
 * which would otherwise hold every row's strings at once. template_add()
 * on it makes it an ordinary list again.
 */
typedef void template_fill_fn(const void *arg, size_t k, struct template_ctx *rec);
void template_list_made(struct template_ctx *c, const char *list, size_t n,
			template_fill_fn *fill, const void *arg);

/*
 * Renders the template tmpl (len bytes; NULs are copied as text) against
 * c, appending to out. tmpl_name names the template in messages. Returns
 * 0, or -1 with *err set to "NAME:LINE: what" (caller frees; LINE is the
 * 1-based line of the tag at fault) and out as it was. The errors: a
 * template over TMPL_SIZE_MAX bytes (the one message without a LINE); an
 * unterminated "{{", or a "{{{" closed by "}}"; an empty,
 * over-long or malformed name; a section left open, closed by the wrong
 * name, or a closing tag with no section open; more than TMPL_DEPTH_MAX
 * sections open; a value tag whose name is not set in any enclosing
 * record, or names a list or a flag; output over TMPL_OUTPUT_MAX bytes.
 * The syntax is checked all through before anything is rendered; names
 * are checked where they are rendered, so a value tag in a section that
 * renders zero times is not looked up. c (not NULL) is only read.
 */
int template_render(const char *tmpl, size_t len, const char *tmpl_name,
		    const struct template_ctx *c, struct strbuf *out, char **err);

/* template_render() into a new string (caller frees), or NULL with *err. */
char *template_render_text(const char *tmpl, size_t len, const char *tmpl_name,
			   const struct template_ctx *c, char **err);

/*
 * Checks tmpl's syntax only — everything template_render() would refuse
 * before looking at a value: 0, or -1 with *err as template_render() words
 * it. Names are not looked up (there are no values to look them in).
 */
int template_check(const char *tmpl, size_t len, const char *tmpl_name, char **err);

/*
 * Appends s as text for a Markdown table cell: each of \ | * _ ` < > [ ]
 * gets a backslash, and every other character goes through
 * strbuf_add_escaped(), so that control characters (a newline among
 * them), C1, bidirectional controls, line separators and bytes that are
 * not UTF-8 show as \xNN (\n, \t). NULL adds nothing. This is what
 * {{name}} does to a value.
 */
void template_md_text(struct strbuf *sb, const char *s);

#endif
