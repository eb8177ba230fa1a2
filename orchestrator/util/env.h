/*
 * env: environment arrays — "KEY=VALUE" strings, NULL-terminated, owned —
 * as abev builds them for a child before it forks. Which names are secret
 * or change a runtime is envnames.h's; starting the child is run/'s.
 */
#ifndef ABEV_ENV_H
#define ABEV_ENV_H

#include <stddef.h>

/*
 * env_inherit() copies abev's own environment; env_set() adds or replaces
 * KEY (n is the count, kept in step); strv_free() frees either.
 */
char **env_inherit(size_t *n);
void env_set(char ***env, size_t *n, const char *key, const char *value);
void strv_free(char **v);

#endif
