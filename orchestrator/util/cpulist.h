/*
 * cpulist: the kernel's CPU list syntax ("0-1", "0,2-3") as a plan writes
 * it for "cpus": parsed into a set and formatted back in canonical form.
 * Pure computation: no I/O, no system calls; applying the set to a
 * process is proc's job.
 */
#ifndef ABEV_CPULIST_H
#define ABEV_CPULIST_H

#include <stddef.h>

/* CPUs 0..CPULIST_MAX-1 (glibc's CPU_SETSIZE). */
#define CPULIST_MAX 1024
/* A list longer than this is refused before it is parsed. */
#define CPULIST_TEXT_MAX 4096

struct cpulist {
	unsigned char bits[CPULIST_MAX / 8];
	unsigned count;            /* CPUs in the set; 0 only for CPULIST_INIT */
};
#define CPULIST_INIT { { 0 }, 0 }

/*
 * Parses "N", "N-M" and comma-separated lists of them (blanks around
 * items allowed). Returns 0, or -1 with a one-line reason in *why (caller
 * frees) for an empty list, a bad number, a backwards range or a CPU at or
 * past CPULIST_MAX.
 */
int cpulist_parse(const char *text, struct cpulist *out, char **why);
/* Adds cpu to the set (nothing past CPULIST_MAX-1). */
void cpulist_add(struct cpulist *cl, unsigned cpu);
/* Whether cpu is in the set. */
int cpulist_has(const struct cpulist *cl, unsigned cpu);
/* Canonical form, ranges merged: "0-2,5". Caller frees. */
char *cpulist_format(const struct cpulist *cl);

#endif
