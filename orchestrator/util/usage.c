/* usage: error() and warning(), and the routine that prints them. */
#include "util/usage.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/escape.h"
#include "util/strbuf.h"

static void default_report(const char *prefix, const char *msg)
{
	fprintf(stderr, "abev: %s: %s\n", prefix, msg);
	fflush(stderr);
}

static report_fn report_routine = default_report;

void set_error_routine(report_fn fn)
{
	report_routine = fn ? fn : default_report;
}

/*
 * A message is one line. Names in it should have been escaped by their
 * caller (show_text() and the like); what was not, such as a path from
 * the command line in a library's error, is made safe here by the same
 * escaping, backslashes kept, so that no message can break its line, hide
 * a byte or drive the terminal.
 */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT, safe = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	strbuf_add_escaped_line(&safe, sb.buf, sb.len);
	report_routine(prefix, safe.buf);
	strbuf_release(&sb);
	strbuf_release(&safe);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning", fmt, ap);
	va_end(ap);
}
