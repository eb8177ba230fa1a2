/*
 * usage: how a problem is told — error() and warning() format a one-line
 * message, make whatever outside text it holds safe to print (escape.h)
 * and hand it to the report routine, which tests may replace. They never
 * exit: which exit code a problem leads to is cli's to decide, and out of
 * memory is alloc.h's.
 */
#ifndef ABEV_USAGE_H
#define ABEV_USAGE_H

#include "util/compiler.h"

/*
 * error(): formats a one-line message, hands it to the current error
 * routine (by default: "abev: error: <msg>\n" on stderr) and returns -1,
 * so leaves can write `return error("cannot open '%s': %s", ...)`.
 * warning() is the same with "warning:" and returns nothing.
 */
int error(const char *fmt, ...) ABEV_PRINTF(1, 2);
void warning(const char *fmt, ...) ABEV_PRINTF(1, 2);
typedef void (*report_fn)(const char *prefix, const char *msg);
/* Replaces the routine (NULL restores the default); tests use it to capture. */
void set_error_routine(report_fn fn);

#endif
