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

#include "record/loadavg.h"


struct cpulist;

struct cpustat {
	int valid;              /* the machine's line was read */
	uint64_t busy_ticks;    /* user+nice+system+irq+softirq+steal, every CPU */
	uint64_t total_ticks;   /* busy + idle + iowait */
	uint64_t set_busy_ticks;/* busy, summed over the CPUs of a set (cpustat_*_set) */
	unsigned set_cpus;      /* CPUs summed; 0 when no set, or a CPU of it had no line */
	/*
	 * The set's CPU time in nanoseconds, from the scheduler's own
	 * accounting (sysstat_cpustat_read_set()): /proc/schedstat's per-CPU run time,
	 * or the cgroup v1 root's cpuacct.usage_percpu. run_source names it
	 * (static), NULL when neither could be read for every CPU of the set.
	 */
	uint64_t set_run_ns;
	const char *run_source;
};

int sysstat_loadavg_parse(const char *text, struct loadavg *out);
int sysstat_loadavg_read(struct loadavg *out);       /* never calls error(): sets valid=0 */
/*
 * The machine's line (the first); with a set (not NULL, not empty), also
 * the cpuN lines of its CPUs. A set one of whose CPUs has no whole line
 * (offline, or past what was read) leaves set_cpus 0. 0, or -1 when the
 * first line is malformed (valid 0).
 */
int sysstat_cpustat_parse_set(const char *text, const struct cpulist *set, struct cpustat *out);
int sysstat_cpustat_parse(const char *text, struct cpustat *out);
int sysstat_cpustat_read(struct cpustat *out);
/*
 * Reads /proc/stat as far as a set of up to CPULIST_MAX CPUs needs, and
 * the set's CPU time in nanoseconds where the machine has a source of it.
 */
int sysstat_cpustat_read_set(const struct cpulist *set, struct cpustat *out);
/*
 * The set's CPU time in ns from /proc/schedstat text (version 15 or
 * later: the 7th number of a "cpuN" line is the time tasks ran on it) or
 * from cpuacct.usage_percpu text (one number per CPU, in CPU order). 0,
 * or -1 when the text lacks a CPU of the set or is not such a file.
 */
int sysstat_schedstat_cpus_parse(const char *text, const struct cpulist *set, uint64_t *ns);
int sysstat_cpuacct_percpu_parse(const char *text, const struct cpulist *set, uint64_t *ns);

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
 * The CPUs abev may run on (its affinity, which a child inherits): the
 * set of a run that is not pinned. Empty when it cannot be read.
 */
void sysstat_affinity(struct cpulist *out);

/*
 * CPU time others used on the run's CPUs (the set both samples summed)
 * during a window of wall_ns: their busy time between before and after,
 * minus own_cpu_ns, clamped to [0, set_cpus * wall_ns]. -1 when a sample
 * has no set figure, the sets differ, a counter went backwards or wall_ns
 * <= 0.
 */
int64_t sysstat_foreign_busy_ns(const struct cpustat *before, const struct cpustat *after,
				int64_t own_cpu_ns, int64_t wall_ns);
/* How far off that figure can be: two ticks for each CPU of the set. */
int64_t sysstat_set_resolution_ns(unsigned set_cpus);
/*
 * The same from the nanosecond figures (set_run_ns) of both samples: no
 * tick to round to, so a 12 ms run beside a busy loop is seen. -1 when a
 * sample has none, the sources differ, or the counter went backwards.
 */
int64_t sysstat_foreign_busy_fine_ns(const struct cpustat *before, const struct cpustat *after,
				     int64_t own_cpu_ns, int64_t wall_ns);
/*
 * How long a run can have waited on foreign work: no longer than foreign
 * work ran on its CPUs, so the larger of foreign_busy_ns less its
 * resolution and the nanosecond figure fine_ns, at least 0. The two
 * figures bound the same time from different counters; the larger holds
 * where one misses work (ticks round a short run to nothing, a
 * container's cpuacct root sees only its own tasks). -1 when both are
 * unknown (< 0). measure/foreignwait.h turns it into the foreign wait.
 */
int64_t sysstat_foreign_bound_ns(int64_t foreign_busy_ns, unsigned set_cpus, int64_t fine_ns);

/*
 * The "some ... total=N" of a pressure file: microseconds during which at
 * least one task (of the machine, or of the group) was runnable but not
 * running. 0, or -1 when the line is missing or malformed.
 */
int sysstat_psi_parse_some_total(const char *text, int64_t *total_us);
/* Reads path (a pressure file) and parses it; -1 when absent or unreadable. */
int64_t sysstat_psi_read_some_total(const char *path);
/* /proc/pressure/cpu, machine-wide; -1 without PSI (kernel < 4.20, psi=0). */
#define PSI_SYSTEM_CPU "/proc/pressure/cpu"

/*
 * A schedstat line (/proc/PID/task/TID/schedstat): the CPU time the task
 * ran (ns, first field) and its run_delay (ns, second field: runnable but
 * waiting for a CPU). 0, or -1 when the text is not such a line.
 */
int sysstat_schedstat_parse(const char *text, int64_t *cpu_ns, int64_t *run_delay_ns);

#endif
