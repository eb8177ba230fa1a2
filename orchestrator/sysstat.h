/*
 * sysstat: machine-wide figures from /proc that frame a run — load
 * averages (/proc/loadavg) and busy CPU time (/proc/stat) — and the
 * foreign-load estimate computed from them. Parsing is split from reading
 * so that the parsers can be tested on fixed text.
 */
#ifndef ABEV_SYSSTAT_H
#define ABEV_SYSSTAT_H

#include <stdint.h>

struct loadavg {
	int valid;          /* 0 when /proc/loadavg could not be read */
	double m1, m5, m15;
	long runnable, total;
};

struct cpustat {
	int valid;
	uint64_t busy_ticks;  /* user+nice+system+irq+softirq+steal */
	uint64_t total_ticks; /* busy + idle + iowait */
};

int loadavg_parse(const char *text, struct loadavg *out);
int loadavg_read(struct loadavg *out);       /* never calls error(): sets valid=0 */
int cpustat_parse(const char *text, struct cpustat *out);
int cpustat_read(struct cpustat *out);

/* USER_HZ, the unit of /proc/stat (sysconf(_SC_CLK_TCK)). */
long sysstat_ticks_per_second(void);

/*
 * Average number of cores that others kept busy during a window of wall_ns:
 * (machine busy time between before and after, minus own_cpu_ns — the
 * child tree's and abev's own CPU time) / wall_ns, clamped at 0.
 * Returns -1 when either sample is invalid or wall_ns <= 0.
 */
double sysstat_foreign_cpu(const struct cpustat *before, const struct cpustat *after,
			   int64_t own_cpu_ns, int64_t wall_ns);

/*
 * How coarse that estimate is, in cores, for a window of wall_ns: the
 * tick counters of /proc/stat can each be a tick off, so a short run's
 * figure can be off by online_cpus / (USER_HZ * seconds). -1 if wall_ns <= 0.
 */
double sysstat_foreign_cpu_resolution(int64_t wall_ns);

#endif
