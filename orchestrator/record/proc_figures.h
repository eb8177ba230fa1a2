/*
 * proc_figures: what the clock and wait4() say of one process tree, as
 * one piece: proc fills it, the invocation record keeps it, the metrics
 * read it. Plain numbers, no I/O.
 */
#ifndef ABEV_PROC_FIGURES_H
#define ABEV_PROC_FIGURES_H

#include <stdint.h>

struct proc_figures {
	int64_t wall_ns;           /* the measured window (proc.h says what it covers) */
	int64_t user_ns, sys_ns;   /* the child tree as waited, plus reaped orphans */
	int64_t max_rss_bytes;     /* the largest peak RSS of any process of the tree */
	long minflt, majflt, nvcsw, nivcsw;
};

#endif
