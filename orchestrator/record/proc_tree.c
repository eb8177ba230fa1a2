/*
 * proc_tree: the per-process list of a run's tree and the "process"
 * glob's match (proc_tree.h).
 */
#include "record/proc_tree.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/utf8.h"

struct proc_tree_proc *proc_tree_add(struct proc_tree *t, const char *comm, const char *cmdline,
				     long pid, long ppid)
{
	struct proc_tree_proc *p;

	if (t->n >= PROC_TREE_MAX) {
		t->omitted++;
		return NULL;
	}
	ALLOC_GROW(t->p, t->n + 1, t->alloc);
	p = &t->p[t->n++];
	*p = (struct proc_tree_proc){
		/* The program chose both: made valid UTF-8 for the record. */
		.comm = utf8_clean(comm ? comm : "", comm ? strlen(comm) : 0),
		.cmdline = cmdline ? utf8_clean(cmdline, strlen(cmdline)) : NULL,
		.pid = pid,
		.ppid = ppid,
		.peak_rss_bytes = -1,
		.cpu_ns = -1,
		.wait_ns = -1,
		.source = "proc",
	};
	return p;
}

/* Whether glob matches the last path component of an argument of line without a space. */
static int word_matches(const char *line, const char *glob)
{
	char word[PROC_TREE_CMDLINE_MAX + 1];
	const char *p = line;

	for (;;) {
		size_t len = strcspn(p, (char[]){ PROC_TREE_ARG_SEP, '\0' });
		const char *slash;

		if (len && len < sizeof(word) && !memchr(p, ' ', len)) {
			memcpy(word, p, len);
			word[len] = '\0';
			slash = strrchr(word, '/');
			if (fnmatch(glob, slash ? slash + 1 : word, 0) == 0)
				return 1;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

int proc_tree_matches(const struct proc_tree_proc *p, const char *glob)
{
	if (!glob)
		return 0;
	if (p->comm && fnmatch(glob, p->comm, 0) == 0)
		return 1;
	return p->cmdline && word_matches(p->cmdline, glob);
}

/* The parent of the process pid in t, or -1 when t does not hold it. */
static long proc_tree_ppid(const struct proc_tree *t, long pid)
{
	for (size_t k = 0; k < t->n; k++)
		if (t->p[k].pid == pid)
			return t->p[k].ppid;
	return -1;
}

int proc_tree_starts_named(const struct proc_tree *t, size_t i, const char *glob)
{
	for (size_t k = 0; k < t->n; k++) {
		long up;

		if (k == i || !proc_tree_matches(&t->p[k], glob))
			continue;
		/* Up from k through its ancestors in t; a cycle of reused pids ends at t->n steps. */
		up = t->p[k].ppid;
		for (size_t steps = 0; up > 0 && steps < t->n; steps++) {
			if (up == t->p[i].pid)
				return 1;
			up = proc_tree_ppid(t, up);
		}
	}
	return 0;
}

void proc_tree_copy(struct proc_tree *dst, const struct proc_tree *src)
{
	*dst = (struct proc_tree)PROC_TREE_INIT;
	/*
	 * Exactly as many as src holds: a copy is what an invocation's record
	 * keeps for the rest of the run, and most trees are one process,
	 * where growing would hold room for sixteen.
	 */
	if (src->n) {
		dst->p = xcalloc(src->n, sizeof(*dst->p));
		dst->alloc = src->n;
	}
	for (size_t i = 0; i < src->n; i++) {
		const struct proc_tree_proc *s = &src->p[i];
		struct proc_tree_proc *d = proc_tree_add(dst, s->comm, s->cmdline, s->pid, s->ppid);
		d->peak_rss_bytes = s->peak_rss_bytes;
		d->cpu_ns = s->cpu_ns;
		d->wait_ns = s->wait_ns;
		d->source = s->source;
	}
	dst->omitted = src->omitted;
	dst->source = src->source;
	dst->note = src->note ? xstrdup(src->note) : NULL;
}

void proc_tree_release(struct proc_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->p[i].comm);
		free(t->p[i].cmdline);
	}
	free(t->p);
	free(t->note);
	*t = (struct proc_tree)PROC_TREE_INIT;
}
