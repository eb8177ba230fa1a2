/*
 * alloc: the xmalloc family and the growth of arrays. Nothing here
 * returns NULL: memory exhaustion is the one failure abev does not
 * recover from, so it aborts with a message rather than leave every
 * caller a check it could get wrong.
 */
#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void die_oom(void)
{
	static const char msg[] = "abev: fatal: out of memory\n";
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die_oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom();
	return q;
}

void *alloc_grow(void *p, size_t elem_size, size_t nr, size_t *alloc)
{
	size_t cap = *alloc;

	if (nr <= cap)
		return p;
	cap = cap ? cap : 16;
	while (cap < nr) {
		if (cap > SIZE_MAX / 2)
			die_oom();
		cap *= 2;
	}
	if (elem_size && cap > SIZE_MAX / elem_size)
		die_oom();
	*alloc = cap;
	return xrealloc(p, cap * elem_size);
}

/* The bytes of a mapping that holds n elements of elem_size: whole pages. */
static size_t unforked_bytes(size_t n, size_t elem_size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (elem_size && n > (SIZE_MAX - page) / elem_size)
		die_oom();
	return (n * elem_size + page - 1) / page * page;
}

void *unforked_grow(void *p, size_t elem_size, size_t nr, size_t *alloc)
{
	size_t want = *alloc ? *alloc : 256, old = unforked_bytes(*alloc, elem_size);
	void *q;

	if (nr <= *alloc)
		return p;
	while (want < nr) {
		if (want > SIZE_MAX / 2)
			die_oom();
		want *= 2;
	}
	if (p)
		q = mremap(p, old, unforked_bytes(want, elem_size), MREMAP_MAYMOVE);
	else
		q = mmap(NULL, unforked_bytes(want, elem_size), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		die_oom();
	(void)madvise(q, unforked_bytes(want, elem_size), MADV_DONTFORK);
	*alloc = want;
	return q;
}

void unforked_free(void *p, size_t alloc, size_t elem_size)
{
	if (p)
		munmap(p, unforked_bytes(alloc, elem_size));
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
