/*
 * overlap_hit: something that ran on the host beside a recorded run — a
 * process matching a load.exclusive pattern, or another abev run — as the
 * invocation record keeps it. measure/overlap.c and measure/peers.c find them.
 */
#ifndef ABEV_OVERLAP_HIT_H
#define ABEV_OVERLAP_HIT_H

#include <stddef.h>

/* Bytes of a command line kept in the evidence (the rest is cut, "..." added). */
#define OVERLAP_COMMAND_MAX 256
/* Processes named per invocation; more are counted, not named. */
#define OVERLAP_HITS_MAX 16

enum overlap_kind {
	OVERLAP_EXCLUSIVE, /* a process matching a load.exclusive pattern */
	OVERLAP_ABEV,      /* another abev run on this host (peers.c) */
};

struct overlap_hit {
	enum overlap_kind kind;
	long pid;          /* 0: unknown (an abev run that came and went unseen) */
	char *command;     /* its command line, arguments joined by spaces; owned */
	char *pattern;     /* OVERLAP_EXCLUSIVE: the pattern it matched; owned */
	char *evidence;    /* OVERLAP_ABEV: the directory that run writes, or NULL; owned */
};

const char *overlap_hit_kind_name(enum overlap_kind k);
void overlap_hit_release(struct overlap_hit *h);
void overlap_hit_list_free(struct overlap_hit *hits, size_t n);

#endif
