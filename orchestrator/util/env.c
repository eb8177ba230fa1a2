/* env: environment arrays for a child. */
#include "util/env.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strbuf.h"

#include "util/usage.h"

extern char **environ;

/* Process-wide: set once by the command line, before any child starts. */
static char *withheld[ENV_WITHHELD_MAX];
static size_t nwithheld;

/*
 * /proc/PID/environ shows the block the process was started with, not
 * environ[]: unsetenv() and setenv() only move pointers. So the value is
 * first copied where setenv() keeps it (the heap, out of that file's
 * reach), then every "NAME=" entry of the name in the block has its value
 * overwritten in place. A name given twice keeps its first value, as
 * getenv() found it; the later ones read empty from then on.
 */
static void scrub(const char *name)
{
	size_t klen = strlen(name);
	char *value = getenv(name), *copy;
	char **found = NULL;
	size_t n = 0, alloc = 0;

	if (!value)
		return;
	for (char **p = environ; p && *p; p++) {
		if (!strncmp(*p, name, klen) && (*p)[klen] == '=') {
			ALLOC_GROW(found, n + 1, alloc);
			found[n++] = *p + klen + 1;
		}
	}
	copy = xstrdup(value);
	if (setenv(name, copy, 1) < 0)
		die_oom();
	explicit_bzero(copy, strlen(copy));
	free(copy);
	value = getenv(name);
	for (size_t i = 0; i < n; i++)
		if (found[i] != value)
			explicit_bzero(found[i], strlen(found[i]));
	free(found);
}

int env_withhold(const char *name)
{
	if (!name || !*name || strchr(name, '='))
		return error("'%s' cannot be withheld from a child: not a variable name",
			     name ? name : "");
	if (env_is_withheld(name))
		return 0;
	if (nwithheld == ENV_WITHHELD_MAX)
		return error("more than %d variables to withhold from children", ENV_WITHHELD_MAX);
	withheld[nwithheld++] = xstrdup(name);
	scrub(name);
	return 0;
}

int env_is_withheld(const char *entry)
{
	size_t klen = strcspn(entry, "=");

	for (size_t i = 0; i < nwithheld; i++)
		if (strlen(withheld[i]) == klen && !strncmp(entry, withheld[i], klen))
			return 1;
	return 0;
}

static void env_copy(struct env_array *e, int keep_withheld)
{
	size_t count = 0;

	for (char **p = environ; p && *p; p++)
		count++;
	/* One allocation for the whole copy, and the terminator. */
	ALLOC_GROW(e->v, e->n + count + 1, e->alloc);
	for (char **p = environ; p && *p; p++)
		if (strchr(*p, '=') && (keep_withheld || !env_is_withheld(*p)))
			e->v[e->n++] = xstrdup(*p);
	e->v[e->n] = NULL;
}

void env_inherit(struct env_array *e)
{
	env_copy(e, 0);
}

void env_own(struct env_array *e)
{
	env_copy(e, 1);
}

const char *env_get(const struct env_array *e, const char *key)
{
	size_t klen = strlen(key);
	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->v[i], key, klen) && e->v[i][klen] == '=')
			return e->v[i] + klen + 1;
	return NULL;
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
