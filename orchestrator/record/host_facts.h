/*
 * host_facts: the facts of the machine a run ran on, as metadata.json
 * records them under "host" — one struct for both sides: host/host.c
 * fills it while collecting, host/metadata.c writes it and
 * evidence/evidence_read.c reads it back through the one table of
 * evidence/metadata_fields.c, which also initialises, copies and
 * releases it. A new host fact is a member here, a row there, and its
 * collection in host.c. Plain data: no functions.
 */
#ifndef ABEV_HOST_FACTS_H
#define ABEV_HOST_FACTS_H

#include <stdint.h>

/* Strings owned (NULL: unknown); numbers -1 when unknown (metadata_fields_unset()). */
struct host_facts {
	char *label;                 /* --host-label, else the hostname; NULL in older evidence */
	char *hostname, *os_release, *kernel, *kernel_version, *arch, *cpu_model;
	int64_t logical_cpus;
	int64_t physical_cores;
	char *online_cpus, *governor;
	int boost;                   /* 1 on, 0 off, -1 unknown */
	int64_t memory_bytes;
	char *cgroup_version;        /* "2", "hybrid", "1", or NULL */
	int64_t clock_resolution_ns;
};

#endif
