/*
 * report_hosts: the side-by-side report of one plan run on several hosts
 * (`abev report DIR1 DIR2 ...`): the combined decision, each host's
 * decision and machine, and per metric and variant a column group per
 * host, through templates/report-hosts.md. It renders what the caller
 * read and compared; checking that the directories come from the same
 * plan is the caller's (main.c's) job, as is verifying them.
 */
#ifndef ABEV_REPORT_HOSTS_H
#define ABEV_REPORT_HOSTS_H

#include <stddef.h>

#include "decide/compare.h"
#include "evidence/evidence_read.h"

/* Hosts side by side in one table; more are split into further tables. */
#define REPORT_HOSTS_PER_TABLE 3

struct report_host {
	const char *dir;                       /* as given */
	const struct evidence_run *run;
	const struct comparison *comparison;
	const struct run_environment *environment;  /* or NULL */
};

/* rejected if any host rejects, else inconclusive if any is, else accepted (or no decision). */
enum decision report_hosts_decision(const struct report_host *hosts, size_t n);

/* The text (caller frees), or NULL after error(). verified: the directories were checked. */
char *report_hosts_render(const struct report_host *hosts, size_t n, int verified);

#endif
