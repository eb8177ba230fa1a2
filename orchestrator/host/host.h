/*
 * host: the facts of the machine abev runs on, as metadata.json records
 * them — hostname and label, OS release, kernel, architecture, CPU model,
 * logical and physical cores, online CPUs, frequency governor and boost,
 * memory, cgroup version and clock resolution. Read from uname(2),
 * sysconf(3), /proc, /sys and /etc, silently: a figure that cannot be
 * read is unknown (NULL or -1), never an error, since a container without
 * cpufreq is still a host to benchmark on. It measures nothing over time
 * and writes nothing; metadata.c serialises what it finds.
 */
#ifndef ABEV_HOST_H
#define ABEV_HOST_H

#include <stdint.h>

struct host_facts {
	char *label;                 /* --host-label, else the hostname */
	char *hostname, *os_release, *kernel, *kernel_version, *arch, *cpu_model;
	long logical_cpus;           /* -1: unknown */
	long physical_cores;         /* -1: unknown */
	char *online_cpus, *governor;
	int boost;                   /* -1: unknown */
	int64_t memory_bytes;        /* -1: unknown */
	const char *cgroup_version;  /* static "2", "hybrid", "1", or NULL */
	int64_t clock_resolution_ns; /* -1: unknown */
};

/*
 * Fills h (zeroed by the caller) with what is readable. label (borrowed)
 * becomes h->label; NULL takes the hostname. Strings are cleaned to UTF-8
 * and owned by h until host_release(), which leaves h zeroed.
 */
void host_collect(struct host_facts *h, const char *label);
void host_release(struct host_facts *h);

#endif
