/*
 * errlist: a bounded list of messages. Past ERRLIST_KEEP a broken input
 * (a plan generated wrong, a variants file of the wrong format) would
 * only bury the first, most useful lines.
 */
#include "util/errlist.h"

#include <stdlib.h>

#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/usage.h"

static int errlist_vadd(struct errlist *el, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	el->total++;
	if (el->nmsgs >= ERRLIST_KEEP)
		return -1;
	strbuf_vaddf(&sb, fmt, ap);
	if (!el->msgs)
		el->msgs = xcalloc(ERRLIST_KEEP, sizeof(*el->msgs));
	el->msgs[el->nmsgs++] = strbuf_detach(&sb, NULL);
	return -1;
}

int errlist_add(struct errlist *el, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	errlist_vadd(el, fmt, ap);
	va_end(ap);
	return -1;
}

int errlist_report(struct errlist *el)
{
	int ret = el->total ? -1 : 0;

	for (size_t i = 0; i < el->nmsgs; i++)
		error("%s", el->msgs[i]);
	if (el->total > el->nmsgs)
		error("... and %zu more", el->total - el->nmsgs);
	errlist_release(el);
	return ret;
}

void errlist_release(struct errlist *el)
{
	if (!el)
		return;
	for (size_t i = 0; i < el->nmsgs; i++)
		free(el->msgs[i]);
	free(el->msgs);
	el->msgs = NULL;
	el->nmsgs = 0;
	el->total = 0;
}
