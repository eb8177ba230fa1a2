/*
 * strbuf: a NUL-terminated growable buffer, and xasprintf(), a formatted
 * string built in one. It only grows and formats: escaping outside text
 * into one is escape.h's and quote.h's, filling one from a file is
 * readfile.h's.
 */
#ifndef ABEV_STRBUF_H
#define ABEV_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "util/compiler.h"

/*
 * buf is never NULL after STRBUF_INIT (it points at a shared empty string
 * until the first add). A strbuf has no ceiling of its own: growth past
 * SIZE_MAX/2 aborts via die_oom(), and readers that take outside input
 * pass their own limits (read_small()'s max, read_fd_capped()'s max).
 */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0 }
void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) ABEV_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Hands the buffer to the caller (caller frees) and re-inits sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

/* Returns a newly allocated formatted string; caller frees. */
char *xasprintf(const char *fmt, ...) ABEV_PRINTF(1, 2);

#endif
