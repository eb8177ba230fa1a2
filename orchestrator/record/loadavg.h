/*
 * loadavg: the host's load averages as /proc/loadavg gives them, before
 * and after a run (measure/sysstat.c reads them).
 */
#ifndef ABEV_LOADAVG_H
#define ABEV_LOADAVG_H

struct loadavg {
	int valid;          /* 0 when /proc/loadavg could not be read */
	double m1, m5, m15;
	long runnable, total;
};

#endif
