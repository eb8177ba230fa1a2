/*
 * name_rule: the character rule of names (name_rule.h).
 */
#include "util/name_rule.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

int name_rule_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

int name_rule_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > NAME_RULE_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!name_rule_char((unsigned char)s[i]))
			return 0;
	return 1;
}

int name_rule_component_ok(const char *s)
{
	return s[0] != '.' && name_rule_ok(s);
}

char *name_rule_sanitize(const char *s, size_t max)
{
	char *b = xstrndup(s, max);

	if (!*b) {
		free(b);
		return xstrdup("_");
	}
	for (size_t i = 0; b[i]; i++)
		if (!name_rule_char((unsigned char)b[i]) || (i == 0 && b[i] == '.'))
			b[i] = '_';
	return b;
}
