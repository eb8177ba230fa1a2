/*
 * sysstat: reads /proc/loadavg and /proc/stat (the machine's line, and the
 * lines of the CPUs a run may use), and turns two /proc/stat samples into
 * estimates of the CPU that other processes used during a run: on the
 * whole machine, and on the run's own CPUs — the bound on how long the
 * run can have waited for them. It never reports errors: a figure that cannot be read
 * is marked invalid and the caller records it as null.
 */
#include "measure/sysstat.h"

#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cpulist.h"
#include "util/alloc.h"
#include "util/readfile.h"

/* /proc/loadavg is a line; the first line of /proc/stat is all sysstat_cpustat_read() needs. */
#define SYSSTAT_READ_MAX 4096
/*
 * /proc/stat up to the last cpuN line of CPULIST_MAX CPUs: each line is at
 * most 10 numbers of 20 digits, its name and blanks.
 */
#define SYSSTAT_STAT_MAX (256 * (CPULIST_MAX + 1))
/*
 * The machine-wide files read around every invocation, each through one
 * descriptor kept open for the whole run of abev and read again from its
 * start (pread() at 0 makes procfs and cgroupfs render the file afresh):
 * an open of a /proc path costs more than the read. Only these fixed
 * paths, which never go away, are kept.
 */
static const char *const kept_paths[] = {
	"/proc/stat", "/proc/loadavg", "/proc/pressure/cpu", "/proc/schedstat",
	"/sys/fs/cgroup/cpuacct/cpuacct.usage_percpu",
};
static int kept_fds[ARRAY_SIZE(kept_paths)];
static int kept_init;

/* read_head() of path, through its kept descriptor when it is one of kept_paths. */
static ssize_t read_kept(const char *path, char *buf, size_t cap)
{
	size_t i;

	if (!kept_init) {
		for (i = 0; i < ARRAY_SIZE(kept_fds); i++)
			kept_fds[i] = -1;
		kept_init = 1;
	}
	for (i = 0; i < ARRAY_SIZE(kept_paths) && strcmp(path, kept_paths[i]); i++)
		;
	if (i == ARRAY_SIZE(kept_paths))
		return read_head(path, buf, cap);
	if (kept_fds[i] < 0) {
		kept_fds[i] = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (kept_fds[i] < 0)
			return -1;
	}
	return read_head_at(kept_fds[i], buf, cap);
}

/*
 * The text of /proc/stat and of the per-CPU run time, read twice for
 * every invocation: one buffer for the whole run of abev rather than a
 * 256 KiB allocation each time (abev's measuring is single-threaded).
 */
static char stat_buf[SYSSTAT_STAT_MAX];

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Parses a non-negative decimal double ending at a blank or NUL. */
static int take_double(const char **pp, double *out)
{
	const char *p = skip_blanks(*pp);
	char *end;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	*out = strtod(p, &end);
	if (errno || end == p || (*end != ' ' && *end != '\t' && *end != '\n' && *end != '\0'))
		return -1;
	*pp = end;
	return 0;
}

static int take_u64(const char **pp, uint64_t *out, char stop)
{
	const char *p = skip_blanks(*pp);
	char *end;
	unsigned long long v;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || end == p)
		return -1;
	if (*end != ' ' && *end != '\t' && *end != '\n' && *end != '\0' && *end != stop)
		return -1;
	*out = v;
	*pp = end;
	return 0;
}

int sysstat_loadavg_parse(const char *text, struct loadavg *out)
{
	/* "0.52 0.58 0.59 2/1234 56789" */
	const char *p = text;
	uint64_t runnable, total;
	struct loadavg la = { 0 };

	out->valid = 0;
	if (take_double(&p, &la.m1) < 0 || take_double(&p, &la.m5) < 0 ||
	    take_double(&p, &la.m15) < 0)
		return -1;
	if (take_u64(&p, &runnable, '/') < 0 || *p != '/')
		return -1;
	p++;
	if (*p < '0' || *p > '9' || take_u64(&p, &total, 0) < 0)
		return -1;
	if (runnable > (uint64_t)LONG_MAX || total > (uint64_t)LONG_MAX)
		return -1;
	la.runnable = (long)runnable;
	la.total = (long)total;
	la.valid = 1;
	*out = la;
	return 0;
}

int sysstat_loadavg_read(struct loadavg *out)
{
	char buf[SYSSTAT_READ_MAX];
	out->valid = 0;
	if (read_kept("/proc/loadavg", buf, sizeof(buf)) < 0)
		return -1;
	return sysstat_loadavg_parse(buf, out);
}

/*
 * The fields of one "cpu..." line from just after its name: busy and total
 * ticks. Old kernels print fewer columns (no steal before 2.6.11); the
 * first four are always there, the rest count as 0 when the line ends.
 */
static int cpu_fields(const char *p, uint64_t *busy, uint64_t *total)
{
	/* "user nice system idle iowait irq softirq steal guest guest_nice" */
	enum { USER, NICE, SYSTEM, IDLE, IOWAIT, IRQ, SOFTIRQ, STEAL, NFIELDS };
	uint64_t f[NFIELDS] = { 0 };

	for (size_t i = 0; i < NFIELDS; i++) {
		p = skip_blanks(p);
		if (*p == '\n' || *p == '\0') {
			if (i <= IDLE)
				return -1;
			break;
		}
		if (take_u64(&p, &f[i], 0) < 0)
			return -1;
	}
	*busy = f[USER] + f[NICE] + f[SYSTEM] + f[IRQ] + f[SOFTIRQ] + f[STEAL];
	*total = *busy + f[IDLE] + f[IOWAIT];
	return 0;
}

/*
 * The "cpuN" lines after the first: busy ticks summed over the CPUs of
 * set. Only whole lines count (a read cut short ends mid-line); the sum is
 * valid when every CPU of the set had its line.
 */
static void cpu_lines_of_set(const char *text, const struct cpulist *set, struct cpustat *out)
{
	const char *line = strchr(text, '\n');
	uint64_t busy = 0;
	unsigned seen = 0;

	while (line && strncmp(++line, "cpu", 3) == 0) {
		const char *eol = strchr(line, '\n');
		const char *p = line + 3;
		uint64_t n, b, t;

		if (!eol)
			break;
		if (*p < '0' || *p > '9' || take_u64(&p, &n, 0) < 0 || cpu_fields(p, &b, &t) < 0)
			return;
		if (n < CPULIST_MAX && cpulist_has(set, (unsigned)n)) {
			busy += b;
			seen++;
		}
		line = eol;
	}
	if (seen && seen == set->count) {
		out->set_busy_ticks = busy;
		out->set_cpus = seen;
	}
}

int sysstat_cpustat_parse_set(const char *text, const struct cpulist *set, struct cpustat *out)
{
	uint64_t busy, total;

	memset(out, 0, sizeof(*out));
	/* First line: "cpu  user nice system idle ..." */
	if (strncmp(text, "cpu", 3) != 0 || (text[3] != ' ' && text[3] != '\t') ||
	    cpu_fields(text + 3, &busy, &total) < 0)
		return -1;
	out->busy_ticks = busy;
	out->total_ticks = total;
	out->valid = 1;
	if (set && set->count)
		cpu_lines_of_set(text, set, out);
	return 0;
}

int sysstat_cpustat_parse(const char *text, struct cpustat *out)
{
	return sysstat_cpustat_parse_set(text, NULL, out);
}

int sysstat_cpustat_read(struct cpustat *out)
{
	char buf[SYSSTAT_READ_MAX];
	memset(out, 0, sizeof(*out));
	if (read_kept("/proc/stat", buf, sizeof(buf)) < 0)
		return -1;
	return sysstat_cpustat_parse(buf, out);
}

int sysstat_schedstat_cpus_parse(const char *text, const struct cpulist *set, uint64_t *ns)
{
	const char *line = text;
	uint64_t sum = 0, version;
	unsigned seen = 0;

	/* "version 15": the per-CPU fields below are as described from 15 on. */
	if (strncmp(text, "version ", 8) != 0)
		return -1;
	line = text + 8;
	if (take_u64(&line, &version, 0) < 0 || version < 15)
		return -1;
	while ((line = strchr(line, '\n')) && *++line) {
		const char *p = line + 3;
		uint64_t n, f = 0;
		if (strncmp(line, "cpu", 3) != 0 || *p < '0' || *p > '9')
			continue;
		if (take_u64(&p, &n, 0) < 0)
			return -1;
		/* yld_count, 0, sched_count, sched_goidle, ttwu_count, ttwu_local, rq_cpu_time */
		for (int i = 0; i < 7; i++) {
			p = skip_blanks(p);
			if (take_u64(&p, &f, 0) < 0)
				return -1;
		}
		if (n < CPULIST_MAX && cpulist_has(set, (unsigned)n)) {
			sum += f;
			seen++;
		}
	}
	if (!seen || seen != set->count)
		return -1;
	*ns = sum;
	return 0;
}

int sysstat_cpuacct_percpu_parse(const char *text, const struct cpulist *set, uint64_t *ns)
{
	const char *p = text;
	uint64_t sum = 0, v;
	unsigned seen = 0;

	for (unsigned cpu = 0; cpu < CPULIST_MAX; cpu++) {
		p = skip_blanks(p);
		if (*p == '\n' || *p == '\0')
			break;
		if (take_u64(&p, &v, 0) < 0)
			return -1;
		if (cpulist_has(set, cpu)) {
			sum += v;
			seen++;
		}
	}
	if (!seen || seen != set->count)
		return -1;
	*ns = sum;
	return 0;
}

/*
 * The set's CPU time in ns, where the machine keeps it: the scheduler's
 * statistics (CONFIG_SCHEDSTATS), else the cgroup v1 cpuacct root, which
 * charges every task's run time as the scheduler updates it.
 */
static void run_ns_read(const struct cpulist *set, struct cpustat *out)
{
	static const struct {
		const char *path, *name;
		int (*parse)(const char *, const struct cpulist *, uint64_t *);
	} sources[] = {
		{ "/proc/schedstat", "schedstat", sysstat_schedstat_cpus_parse },
		{ "/sys/fs/cgroup/cpuacct/cpuacct.usage_percpu", "cpuacct", sysstat_cpuacct_percpu_parse },
	};
	/* A source the kernel does not have (ENOENT) is not looked for again. */
	static int absent[ARRAY_SIZE(sources)];

	for (size_t i = 0; i < ARRAY_SIZE(sources); i++) {
		if (absent[i])
			continue;
		if (read_kept(sources[i].path, stat_buf, sizeof(stat_buf)) < 0) {
			absent[i] = errno == ENOENT;
			continue;
		}
		if (sources[i].parse(stat_buf, set, &out->set_run_ns) < 0)
			continue;
		out->run_source = sources[i].name;
		break;
	}
}

int sysstat_cpustat_read_set(const struct cpulist *set, struct cpustat *out)
{
	int ret = -1;

	if (!set || !set->count)
		return sysstat_cpustat_read(out);
	/* The cpuN lines come first: a CPU past its set's highest is never needed. */
	memset(out, 0, sizeof(*out));
	if (read_kept("/proc/stat", stat_buf, sizeof(stat_buf)) >= 0)
		ret = sysstat_cpustat_parse_set(stat_buf, set, out);
	if (ret == 0)
		run_ns_read(set, out);
	return ret;
}

long sysstat_ticks_per_second(void)
{
	long hz = sysconf(_SC_CLK_TCK);
	return hz > 0 ? hz : 100;
}

/* Online CPUs, read once: glibc reads /sys/devices/system/cpu/online for it every time. */
static long online_cpus(void)
{
	static long ncpu;

	if (!ncpu) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		if (ncpu < 1)
			ncpu = 1;
	}
	return ncpu;
}

double sysstat_foreign_cpu(const struct cpustat *before, const struct cpustat *after,
			   int64_t own_cpu_ns, int64_t wall_ns)
{
	double busy_ns, foreign;
	if (!before || !after || !before->valid || !after->valid || wall_ns <= 0)
		return -1;
	/* A counter that went backwards (it cannot, but hostile input can) is no window. */
	if (after->busy_ticks < before->busy_ticks)
		return -1;
	busy_ns = (double)(after->busy_ticks - before->busy_ticks) * 1e9 /
		  (double)sysstat_ticks_per_second();
	foreign = (busy_ns - (double)(own_cpu_ns > 0 ? own_cpu_ns : 0)) / (double)wall_ns;
	/*
	 * Others cannot keep more than every CPU busy. Over a short window the
	 * raw figure can say they did: a tickless kernel books an idle CPU's
	 * time in one lump when it wakes (644 "cores" over a 0.1 ms run).
	 */
	if (foreign > (double)online_cpus())
		foreign = (double)online_cpus();
	return foreign > 0 ? foreign : 0;
}

double sysstat_foreign_cpu_resolution(int64_t wall_ns)
{
	long ncpu = online_cpus();

	if (wall_ns <= 0)
		return -1;
	/*
	 * /proc/stat counts whole ticks per CPU, so each CPU's counter can be
	 * off by up to one tick over the window: ncpu ticks in all.
	 */
	return (double)ncpu * 1e9 / (double)sysstat_ticks_per_second() / (double)wall_ns;
}

void sysstat_affinity(struct cpulist *out)
{
	cpu_set_t set;

	*out = (struct cpulist)CPULIST_INIT;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	for (unsigned c = 0; c < CPULIST_MAX && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpulist_add(out, c);
}

int64_t sysstat_foreign_busy_ns(const struct cpustat *before, const struct cpustat *after,
				int64_t own_cpu_ns, int64_t wall_ns)
{
	double busy_ns, cap;

	if (!before || !after || !before->set_cpus || before->set_cpus != after->set_cpus ||
	    wall_ns <= 0 || after->set_busy_ticks < before->set_busy_ticks)
		return -1;
	busy_ns = (double)(after->set_busy_ticks - before->set_busy_ticks) * 1e9 /
		  (double)sysstat_ticks_per_second();
	busy_ns -= (double)(own_cpu_ns > 0 ? own_cpu_ns : 0);
	/* As for sysstat_foreign_cpu(): no more than every CPU of the set, all the time. */
	cap = (double)before->set_cpus * (double)wall_ns;
	if (busy_ns > cap)
		busy_ns = cap;
	return busy_ns > 0 ? (int64_t)llround(busy_ns) : 0;
}

int64_t sysstat_foreign_busy_fine_ns(const struct cpustat *before, const struct cpustat *after,
				     int64_t own_cpu_ns, int64_t wall_ns)
{
	double busy_ns, cap;

	if (!before || !after || !before->run_source || !after->run_source ||
	    strcmp(before->run_source, after->run_source) || !before->set_cpus ||
	    before->set_cpus != after->set_cpus || wall_ns <= 0 ||
	    after->set_run_ns < before->set_run_ns)
		return -1;
	busy_ns = (double)(after->set_run_ns - before->set_run_ns);
	busy_ns -= (double)(own_cpu_ns > 0 ? own_cpu_ns : 0);
	cap = (double)before->set_cpus * (double)wall_ns;
	if (busy_ns > cap)
		busy_ns = cap;
	return busy_ns > 0 ? (int64_t)llround(busy_ns) : 0;
}

int64_t sysstat_set_resolution_ns(unsigned set_cpus)
{
	/*
	 * Each CPU's user and system counters are whole ticks, and each can
	 * be a tick off at either end of the window: two ticks a CPU.
	 */
	return (int64_t)set_cpus * 2 * (int64_t)(1000000000 / sysstat_ticks_per_second());
}

int64_t sysstat_foreign_bound_ns(int64_t foreign_busy_ns, unsigned set_cpus, int64_t fine_ns)
{
	int64_t attributable = -1;

	if (foreign_busy_ns < 0 && fine_ns < 0)
		return -1;
	if (foreign_busy_ns >= 0) {
		attributable = foreign_busy_ns - sysstat_set_resolution_ns(set_cpus);
		if (attributable < 0)
			attributable = 0;
	}
	return fine_ns > attributable ? fine_ns : attributable;
}

int sysstat_psi_parse_some_total(const char *text, int64_t *total_us)
{
	const char *line = text;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		if (len > 5 && strncmp(line, "some ", 5) == 0) {
			const char *t = strstr(line, " total=");
			char *end;
			unsigned long long v;
			if (!t || t >= line + len || t[7] < '0' || t[7] > '9')
				return -1;
			errno = 0;
			v = strtoull(t + 7, &end, 10);
			if (errno || (end != line + len && *end != ' ') || v > INT64_MAX)
				return -1;
			*total_us = (int64_t)v;
			return 0;
		}
		line = eol ? eol + 1 : NULL;
	}
	return -1;
}

int64_t sysstat_psi_read_some_total(const char *path)
{
	char buf[SYSSTAT_READ_MAX];
	int64_t us;
	if (read_kept(path, buf, sizeof(buf)) < 0 || sysstat_psi_parse_some_total(buf, &us) < 0)
		return -1;
	return us;
}

int sysstat_schedstat_parse(const char *text, int64_t *cpu_ns, int64_t *run_delay_ns)
{
	unsigned long long exec_ns, delay;
	char *end;

	errno = 0;
	exec_ns = strtoull(text, &end, 10);
	if (errno || end == text || *end != ' ' || exec_ns > INT64_MAX)
		return -1;
	text = end + 1;
	delay = strtoull(text, &end, 10);
	if (errno || end == text || (*end != ' ' && *end != '\n' && *end != '\0') ||
	    delay > INT64_MAX)
		return -1;
	*cpu_ns = (int64_t)exec_ns;
	*run_delay_ns = (int64_t)delay;
	return 0;
}
