/*
 * invocation: releasing the record and naming its statuses
 * (invocation.h). Serialising it is evidence.c's; reading it back is
 * evidence_read.c's.
 */
#include "record/invocation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/env.h"
#include "util/strbuf.h"

const char *const invocation_wait_basis_names[FOREIGN_WAIT_BASES] = {
	[FOREIGN_WAIT_UNKNOWN] = NULL,
	[FOREIGN_WAIT_ONE_THREAD] = "one_thread",
	[FOREIGN_WAIT_THREADS] = "threads",
	[FOREIGN_WAIT_FOREIGN_BUSY] = "foreign_busy",
	[FOREIGN_WAIT_CGROUP] = "cgroup",
};

void invocation_release(struct invocation *inv)
{
	if (!inv)
		return;
	free(inv->variant);
	free(inv->reason);
	for (size_t i = 0; i < inv->argc; i++)
		free(inv->argv[i]);
	free(inv->argv);
	free(inv->cwd);
	free(inv->dir);
	free(inv->exec_error);
	free(inv->stderr_tail);
	proc_tree_release(&inv->procs);
	free(inv->cgroup_note);
	free(inv->cpu_wait_source);
	free(inv->foreign_busy_fine_source);
	free(inv->cpu_wait_note);
	free(inv->cpus);
	free(inv->output);
	overlap_hit_list_free(inv->overlaps, inv->noverlaps);
	free(inv->results_files);
	for (size_t i = 0; i < inv->nresults; i++)
		results_file_release(&inv->results[i]);
	free(inv->results);
	for (size_t i = 0; i < inv->nfailed_tests; i++)
		free(inv->failed_tests[i]);
	free(inv->failed_tests);
	for (size_t i = 0; i < inv->ntest_failures; i++) {
		free(inv->test_failures[i].name);
		free(inv->test_failures[i].outcome);
		free(inv->test_failures[i].message);
	}
	free(inv->test_failures);
	for (size_t i = 0; i < inv->ntest_times; i++)
		free(inv->test_times[i].name);
	free(inv->test_times);
	metric_def_values_free(inv->metrics, inv->nmetrics);
	free(inv->dotnet_read);
	for (size_t i = 0; i < inv->nguards; i++)
		guard_result_release(&inv->guards[i]);
	free(inv->guards);
	invocation_prepare_free(inv->prepare);
	memset(inv, 0, sizeof(*inv));
}

void invocation_prepare_free(struct invocation_prepare *p)
{
	if (!p)
		return;
	strv_free(p->argv);
	free(p->reason);
	free(p);
}

/* ns as a percentage of the invocation's wall time, to 4 decimals; -1 when unknown. */
static double pct_of_wall(const struct invocation *inv, int64_t ns)
{
	if (ns < 0 || inv->fig.wall_ns <= 0)
		return -1;
	return round((double)ns * 100.0 / (double)inv->fig.wall_ns * 1e4) / 1e4;
}

void invocation_add_test_time(struct invocation *inv, const char *name, double ms)
{
	if (inv->ntest_times == EVIDENCE_TEST_TIMES_MAX) {
		inv->test_times_omitted++;
		return;
	}
	ALLOC_GROW(inv->test_times, inv->ntest_times + 1, inv->test_times_alloc);
	inv->test_times[inv->ntest_times].name = xstrdup(name);
	/* As result.json keeps it (6 decimals), so that a report rendered again agrees. */
	inv->test_times[inv->ntest_times].ms = round(ms * 1e6) / 1e6;
	inv->ntest_times++;
}

double invocation_cpu_wait_pct(const struct invocation *inv)
{
	return pct_of_wall(inv, inv->cpu_wait_ns);
}

double invocation_foreign_wait_pct(const struct invocation *inv)
{
	return pct_of_wall(inv, inv->foreign_wait_ns);
}

double invocation_foreign_busy_cores(const struct invocation *inv)
{
	if (inv->foreign_busy_ns < 0 || inv->fig.wall_ns <= 0)
		return -1;
	return (double)inv->foreign_busy_ns / (double)inv->fig.wall_ns;
}

double invocation_judged_wait_pct(const struct invocation *inv)
{
	double f = invocation_foreign_wait_pct(inv);
	return f >= 0 ? f : invocation_cpu_wait_pct(inv);
}

char *invocation_pauses_describe(const struct invocation *inv)
{
	struct strbuf sb = STRBUF_INIT;

	if (!inv->stops_abev && !inv->stops_child && inv->suspended_ns <= 0)
		return NULL;
	strbuf_adds(&sb, "paused during the run:");
	if (inv->stops_abev)
		strbuf_addf(&sb, " abev was stopped and continued %u time(s) (Ctrl-Z, SIGTSTP, "
			    "SIGSTOP);", inv->stops_abev);
	if (inv->stops_child)
		strbuf_addf(&sb, " the command was stopped %u time(s) (SIGSTOP, SIGTSTP);",
			    inv->stops_child);
	if (inv->suspended_ns > 0)
		strbuf_addf(&sb, " the machine was suspended for %.3f s;",
			    (double)inv->suspended_ns / 1e9);
	strbuf_adds(&sb, " its figures include the pause");
	return strbuf_detach(&sb, NULL);
}

const char *invocation_status_name(enum inv_status st)
{
	switch (st) {
	case INV_OK: return "ok";
	case INV_FAILED: return "failed";
	case INV_TIMED_OUT: return "timed_out";
	case INV_DISCARDED: return "discarded";
	case INV_EXEC_FAILED: return "exec_failed";
	case INV_INTERRUPTED: return "interrupted";
	}
	return "unknown";
}

const char *invocation_run_status_name(enum run_status st)
{
	switch (st) {
	case RUN_RUNNING: return "running";
	case RUN_COMPLETED: return "completed";
	case RUN_FAILED: return "failed";
	case RUN_INTERRUPTED: return "interrupted";
	}
	return "unknown";
}
