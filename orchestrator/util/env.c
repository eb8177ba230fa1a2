/* env: environment arrays for a child. */
#include "util/env.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strbuf.h"

extern char **environ;

char **env_inherit(size_t *n)
{
	size_t count = 0;
	char **env;

	for (char **e = environ; e && *e; e++)
		count++;
	env = xcalloc(count + 1, sizeof(*env));
	*n = 0;
	for (char **e = environ; e && *e; e++)
		if (strchr(*e, '='))
			env[(*n)++] = xstrdup(*e);
	env[*n] = NULL;
	return env;
}

void env_set(char ***env, size_t *n, const char *key, const char *value)
{
	size_t klen = strlen(key);
	char *entry = xasprintf("%s=%s", key, value);
	for (size_t i = 0; i < *n; i++) {
		if (!strncmp((*env)[i], key, klen) && (*env)[i][klen] == '=') {
			free((*env)[i]);
			(*env)[i] = entry;
			return;
		}
	}
	*env = xrealloc(*env, (*n + 2) * sizeof(**env));
	(*env)[(*n)++] = entry;
	(*env)[*n] = NULL;
}

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}
