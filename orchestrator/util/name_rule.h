/*
 * name_rule: the one rule for the names abev turns into file and
 * directory names — variant and version names, host labels, quick-mode
 * names, cgroup leaves, plot files: 1 to NAME_RULE_MAX bytes of ASCII
 * letters, digits, '.', '_' and '-'. Where a name becomes a path
 * component it must not start with '.' either (no hidden file, no "..").
 * Checking only; callers say what is wrong in their own words.
 */
#ifndef ABEV_NAME_RULE_H
#define ABEV_NAME_RULE_H

#include <stddef.h>

#define NAME_RULE_MAX 64
/* The rule in words, for messages. */
#define NAME_RULE_TEXT "letters, digits, '.', '_' and '-'"

/* Non-zero when c is one of the rule's characters. */
int name_rule_char(int c);
/* Non-zero when s is 1 to NAME_RULE_MAX of the rule's characters. */
int name_rule_ok(const char *s);
/* name_rule_ok(), and s does not start with '.': a path component. */
int name_rule_component_ok(const char *s);
/*
 * s (at most max bytes of it) with every character outside the rule made
 * '_', and a leading '.' too; "_" for an empty s. Caller frees.
 */
char *name_rule_sanitize(const char *s, size_t max);

#endif
