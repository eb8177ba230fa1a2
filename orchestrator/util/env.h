/*
 * env: environment arrays — "KEY=VALUE" strings, NULL-terminated, owned —
 * as abev builds them for a child before it forks. Which names are secret
 * or change a runtime is evidence/envname.h's; starting the child is
 * run/'s.
 */
#ifndef ABEV_ENV_H
#define ABEV_ENV_H

#include <stddef.h>

/*
 * v is NULL until the first env_inherit() or env_set(), then a
 * NULL-terminated array of n entries (alloc: its capacity, ALLOC_GROW's).
 * Free it with strv_free(e.v); a caller may take v over instead.
 */
struct env_array {
	char **v;
	size_t n, alloc;
};
#define ENV_ARRAY_INIT { NULL, 0, 0 }

/*
 * Names whose value no child of abev receives from abev's own environment:
 * abev's secrets (the signing key's text or path, the --passphrase-env
 * variable). A name is copied; at most ENV_WITHHELD_MAX are kept (a further
 * one is refused with -1 after error()). A plan that sets such a name for a
 * variant still sets it: only the inherited value is withheld. The value
 * is also taken out of the environment block abev was started with (what
 * /proc/PID/environ shows): getenv() still returns it, from a copy on the
 * heap, and its bytes in the block are overwritten. Call it before any
 * child starts.
 */
#define ENV_WITHHELD_MAX 8
int env_withhold(const char *name);
/* 1 when entry ("KEY=VALUE" or "KEY") names a withheld variable, else 0. */
int env_is_withheld(const char *entry);

/*
 * Appends a copy of abev's own environment as a child inherits it: an entry
 * without '=' and every withheld name (env_withhold()) are left out.
 */
void env_inherit(struct env_array *e);
/* Appends a copy of abev's own environment, withheld names too: for the record only. */
void env_own(struct env_array *e);
/* The value of KEY in e (borrowed, valid until e changes), or NULL. */
const char *env_get(const struct env_array *e, const char *key);
/* Sets KEY to value: replaces the entry for KEY where there is one, else appends one. */
void env_set(struct env_array *e, const char *key, const char *value);
/* Frees a NULL-terminated array of strings and its strings; v may be NULL. */
void strv_free(char **v);
/* Frees the n strings of v and v (v may hold NULLs, or be NULL). */
void strv_free_n(char **v, size_t n);

#endif
