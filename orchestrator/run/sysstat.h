/*
 * sysstat: machine-wide figures from /proc that frame a run — load
 * averages (/proc/loadavg) and busy CPU time (/proc/stat) — and the
 * foreign-load estimate computed from them — and the kernel's own account
 * of CPU contention: pressure stall information (/proc/pressure/cpu and a
 * cgroup's cpu.pressure) and a task's run_delay (/proc/PID/schedstat).
 * Parsing is split from reading so that the parsers can be tested on
 * fixed text.
 */
#ifndef ABEV_SYSSTAT_H
#define ABEV_SYSSTAT_H

#include <stdint.h>
#include <sys/types.h>

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

/*
 * The "some ... total=N" of a pressure file: microseconds during which at
 * least one task (of the machine, or of the group) was runnable but not
 * running. 0, or -1 when the line is missing or malformed.
 */
int psi_parse_some_total(const char *text, int64_t *total_us);
/* Reads path (a pressure file) and parses it; -1 when absent or unreadable. */
int64_t psi_read_some_total(const char *path);
/* /proc/pressure/cpu, machine-wide; -1 without PSI (kernel < 4.20, psi=0). */
#define PSI_SYSTEM_CPU "/proc/pressure/cpu"

/* The run_delay (ns, second field) of a schedstat line. 0 or -1. */
int schedstat_parse_run_delay(const char *text, int64_t *run_delay_ns);
/*
 * The run_delay of every thread of pid, summed over /proc/PID/task/TID/schedstat
 * (the leader is one of them; /proc/PID/schedstat alone when the task
 * directory cannot be listed). Works on a zombie that is not yet reaped.
 * -1 when nothing could be read (no schedstats in this kernel, pid gone).
 */
int64_t schedstat_run_delay(pid_t pid);

#endif
