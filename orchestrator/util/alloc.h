/*
 * alloc: memory that never comes back NULL — the xmalloc family, which
 * aborts with a message on exhaustion (abev treats it as unrecoverable),
 * and the one way to grow an array, ALLOC_GROW. Not formatted strings
 * (xasprintf(): strbuf.h) nor escaped ones (xstrdup_escaped(): escape.h).
 */
#ifndef ABEV_ALLOC_H
#define ABEV_ALLOC_H

#include <stddef.h>

#include "util/compiler.h"

/* Out of memory aborts with a message: callers never check for NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* At most n bytes of s (less at a NUL), NUL-terminated. Caller frees. */
char *xstrndup(const char *s, size_t n);
/* Writes "abev: fatal: out of memory" and aborts. */
ABEV_NORETURN void die_oom(void);

/*
 * ALLOC_GROW(x, nr, alloc): makes the array x (a pointer, NULL at first)
 * hold at least nr elements, alloc (a size_t lvalue, 0 at first) being its
 * capacity. The capacity doubles (from 16), so appending one at a time is
 * amortised constant; a capacity whose size in bytes overflows size_t
 * aborts like exhaustion. The usual use:
 *     ALLOC_GROW(v, n + 1, alloc);
 *     v[n++] = item;
 * (git's ALLOC_GROW.) New elements are not initialised. It is the one way
 * abev grows an array: no other realloc() of an array by hand.
 */
#define ALLOC_GROW(x, nr, alloc) ((x) = alloc_grow((x), sizeof(*(x)), (nr), &(alloc)))
void *alloc_grow(void *p, size_t elem_size, size_t nr, size_t *alloc);
/*
 * ALLOC_GROW() for an array that abev keeps per invocation and no child
 * process ever needs: it lives in a mapping of its own that fork() does
 * not copy (MADV_DONTFORK), so that starting a process costs the same
 * after a million invocations as after ten. Free with unforked_free(x,
 * alloc, sizeof(*x)).
 */
#define UNFORKED_GROW(x, nr, alloc) ((x) = unforked_grow((x), sizeof(*(x)), (nr), &(alloc)))
void *unforked_grow(void *p, size_t elem_size, size_t nr, size_t *alloc);
void unforked_free(void *p, size_t alloc, size_t elem_size);

#endif
