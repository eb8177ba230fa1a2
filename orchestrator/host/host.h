/*
 * host: the facts of the machine abev runs on, as metadata.json records
 * them — hostname and label, OS release, kernel, architecture, CPU model,
 * logical and physical cores, online CPUs, frequency governor and boost,
 * memory, cgroup version and clock resolution. Read from uname(2),
 * sysconf(3), /proc, /sys and /etc, silently: a figure that cannot be
 * read is unknown (NULL or -1), never an error, since a container without
 * cpufreq is still a host to benchmark on. It measures nothing over time
 * and writes nothing; metadata.c writes what it finds through the table
 * of evidence/metadata_fields.c.
 */
#ifndef ABEV_HOST_H
#define ABEV_HOST_H

#include "record/host_facts.h"

/*
 * Fills h with what is readable; what it held is overwritten, not freed.
 * label (borrowed) becomes h->label; NULL takes the hostname. Strings
 * are cleaned to UTF-8 and owned by h until metadata_fields_release().
 */
void host_collect(struct host_facts *h, const char *label);

#endif
