/*
 * cli_reasons: the reference of the comparison's reason codes that
 * `abev help reasons` prints (docs/reason-codes.md is made from it), from
 * record/reason.h's one table. Only main.c calls it.
 */
#ifndef ABEV_CLI_REASONS_H
#define ABEV_CLI_REASONS_H

#include <stdio.h>

/* Every code with its field and meaning, as text or (markdown) a table. 0, or -1 after a message. */
int cli_reasons_print(FILE *f, int markdown);

#endif
