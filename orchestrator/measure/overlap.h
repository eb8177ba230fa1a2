/*
 * overlap: what else ran on the host beside a recorded run, by name —
 * processes outside the child's tree whose command line matches one of
 * the plan's load.exclusive patterns. The runner looks just before the
 * child starts, on every tick while it runs (proc.c's 100 ms) and just
 * after it exits; a matching process that starts and ends between two
 * looks is not seen. Other abev runs are peers.c's; both kinds end up as
 * overlap_hit records of the invocation. This module only watches: the
 * load guard judges and the runner repeats.
 */
#ifndef ABEV_OVERLAP_H
#define ABEV_OVERLAP_H

#include <stddef.h>
#include <sys/types.h>

#include "record/overlap_hit.h"


struct overlap_watch {
	const char *const *patterns; /* borrowed, fnmatch(3) patterns on the whole command line */
	size_t npatterns;
	pid_t self;                  /* abev: it and its descendants are never foreign */
	struct overlap_hit *hits;    /* what was seen since the last overlap_watch_take() */
	size_t nhits, hits_alloc;
	unsigned unnamed;            /* matches past OVERLAP_HITS_MAX */
};

#define OVERLAP_WATCH_INIT { NULL, 0, 0, NULL, 0, 0, 0 }


/* Watches for patterns (borrowed; n may be 0: then scans do nothing). */
void overlap_watch_init(struct overlap_watch *w, const char *const *patterns, size_t n);

/*
 * Looks at every process now: one whose command line matches a pattern
 * and which is not abev or its descendant is added (once per pid). A
 * process whose ancestry cannot be read (it ended meanwhile) is left out:
 * it may have been the child's own.
 */
void overlap_watch_scan(struct overlap_watch *w);

/* Adds a hit (moved in: its strings become the watch's), merging a pid seen before. */
void overlap_watch_add(struct overlap_watch *w, struct overlap_hit *hit);

/* Moves the hits out (caller releases them with overlap_hit_list_free) and starts afresh. */
void overlap_watch_take(struct overlap_watch *w, struct overlap_hit **hits, size_t *n,
			unsigned *unnamed);

void overlap_watch_release(struct overlap_watch *w);


/*
 * One sentence naming what overlapped, for the load guard's reason:
 * "overlapped pid 812 'dotnet test x.dll' (load.exclusive 'dotnet test*')".
 * Caller frees.
 */
char *overlap_describe(const struct overlap_hit *hits, size_t n, unsigned unnamed);

/*
 * The command line of pid, arguments joined by spaces, cut at
 * OVERLAP_COMMAND_MAX bytes; NULL when it cannot be read or is empty
 * (a kernel thread). Caller frees.
 */
char *overlap_command_line(long pid);

#endif
