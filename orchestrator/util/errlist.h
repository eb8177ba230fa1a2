/*
 * errlist: problems collected while checking something (a plan, what a
 * dry run can check), so that one pass reports them all instead of the
 * first. It keeps the first ERRLIST_KEEP messages and counts the rest;
 * errlist_report() prints them through error(), then "... and N more".
 * It decides nothing: the caller turns a non-empty list into a failure.
 */
#ifndef ABEV_ERRLIST_H
#define ABEV_ERRLIST_H

#include <stdarg.h>
#include <stddef.h>

#include "util/compiler.h"

/* Messages kept for printing; those past it are only counted. */
#define ERRLIST_KEEP 20

struct errlist {
	char **msgs;   /* the first ERRLIST_KEEP, owned */
	size_t nmsgs;
	size_t total;  /* all that were added */
};

#define ERRLIST_INIT { NULL, 0, 0 }

/* Adds one message (formatted like error()'s, without "abev: error: "). Returns -1. */
int errlist_add(struct errlist *el, const char *fmt, ...) ABEV_PRINTF(2, 3);

/*
 * Prints every kept message through error(), then "... and N more" when
 * some were only counted, and empties the list. Returns -1 when there was
 * anything to print, 0 otherwise.
 */
int errlist_report(struct errlist *el);

void errlist_release(struct errlist *el);

#endif
