/* env: environment arrays for a child. */
#include "util/env.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strbuf.h"

extern char **environ;

void env_inherit(struct env_array *e)
{
	size_t count = 0;

	for (char **p = environ; p && *p; p++)
		count++;
	/* One allocation for the whole copy, and the terminator. */
	ALLOC_GROW(e->v, e->n + count + 1, e->alloc);
	for (char **p = environ; p && *p; p++)
		if (strchr(*p, '='))
			e->v[e->n++] = xstrdup(*p);
	e->v[e->n] = NULL;
}

void env_set(struct env_array *e, const char *key, const char *value)
{
	size_t klen = strlen(key);
	char *entry = xasprintf("%s=%s", key, value);
	for (size_t i = 0; i < e->n; i++) {
		if (!strncmp(e->v[i], key, klen) && e->v[i][klen] == '=') {
			free(e->v[i]);
			e->v[i] = entry;
			return;
		}
	}
	ALLOC_GROW(e->v, e->n + 2, e->alloc);
	e->v[e->n++] = entry;
	e->v[e->n] = NULL;
}

void strv_free_n(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}
