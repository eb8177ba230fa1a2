/*
 * peers: other abev runs on this host, seen through a lock directory.
 * Each `abev run` holds an flock()ed file <pid>.run there for as long as
 * it lives, saying whether it waits (--wait) or runs and which evidence
 * directory it writes, and appends its pid to the file "events" when it
 * starts to run. A look (peers_look()) lists the peers that run now and
 * reads how far "events" has grown: two looks, before and after an
 * invocation, tell whether another abev ran at any moment in between.
 * A file whose lock is free belongs to a dead run and is removed.
 *
 * The directory: $ABEV_LOCK_DIR, else /run/lock/abev, else (when
 * /run/lock/abev cannot be made) ${TMPDIR:-/tmp}/abev-lock (mode 1777:
 * every user's runs see each other). A symbolic link there is not
 * followed, and a directory that others can write in without the sticky
 * bit is not used; a planted /run/lock/abev is not traded for the
 * fallback. When no directory can be used, peers_join() says why in
 * p->note and every look finds nobody; when "events" cannot be (it is a
 * FIFO, a link), p->note says so and only the runs' own files are seen. This module does not sleep or judge: the
 * runner waits and the load guard discards.
 */
#ifndef ABEV_PEERS_H
#define ABEV_PEERS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "measure/overlap.h"

struct peers {
	char *dir;        /* the lock directory in use, or NULL */
	char *path;       /* our own <pid>.run, or NULL */
	int fd;           /* its descriptor, holding LOCK_EX; -1 */
	int64_t ticket;   /* CLOCK_MONOTONIC at joining: the order of waiters */
	int running;      /* we told the others we run */
	char *note;       /* why other runs cannot be seen (or only in part), or NULL */
	int dfd;          /* the lock directory, opened once: every file in it is reached from here */
	int events_fd;    /* "events", a regular file opened at joining; -1 */
	int events_own;   /* it is abev's user's own: the only case it is ever truncated */
	unsigned long ignored;   /* looks at other users' files that are no verified abev run */
	char *ignored_note;      /* the first of them, said once (also a warning), or NULL */
	/*
	 * The last look that found no other run at all: the lock
	 * directory's times and the size of "events" then (quiet: valid).
	 */
	int quiet;
	struct timespec quiet_mtime, quiet_ctime;
	uint64_t quiet_events;
};

#define PEERS_INIT { NULL, NULL, -1, 0, 0, NULL, -1, -1, 0, 0, NULL, 0, { 0, 0 }, { 0, 0 }, 0 }

/* What one look saw. */
struct peers_look {
	uint64_t events;          /* size of "events"; UINT64_MAX: unknown */
	struct overlap_hit *running; /* the other runs running now (kind OVERLAP_ABEV) */
	size_t nrunning, running_alloc;
};

#define PEERS_LOOK_INIT { UINT64_MAX, NULL, 0, 0 }

/*
 * Registers this run as waiting, writing evidence_dir (absolute or as
 * given). Never fails: a directory that cannot be used leaves p->dir NULL
 * and p->note set (also printed as a warning), and abev goes on without
 * seeing other runs.
 */
void peers_join(struct peers *p, const char *evidence_dir);

/*
 * The peer this run must wait for under --wait: one that runs, or one
 * that waits and joined earlier. 1 with *who filled (caller releases),
 * 0 when there is none.
 */
int peers_blocker(struct peers *p, struct overlap_hit *who);

/* Tells the others this run runs now (appends to "events"). */
void peers_start(struct peers *p);

/* Looks at the others now (see the top). */
void peers_look_now(struct peers *p, struct peers_look *out);
void peers_look_release(struct peers_look *l);

/*
 * The runs that overlapped the window between two looks: those running
 * at either, and, when "events" grew meanwhile, those that started in
 * between (named from "events"; pid 0 when unreadable). Added to w.
 */
void peers_overlap(struct peers *p, const struct peers_look *before,
		   const struct peers_look *after, struct overlap_watch *w);

/* Leaves: removes our file, drops the lock. Accepts a second call. */
void peers_leave(struct peers *p);

#endif
