/*
 * run_settings: how a run is scheduled and what load it tolerates — the
 * order, seed, warmups, runs, gap, timeouts and load limits — as one
 * struct, which the plan holds (plan.h: plan.set, filled from the plan's
 * rows in plan_doc.c) and the header of result.json embeds whole
 * (run_header.h), so that a setting the run records is declared once.
 * Strings and lists are the plan's own in the plan; borrowed in a header
 * made from it, and the reader's in a header read back (evidence_read.h).
 */
#ifndef ABEV_RUN_SETTINGS_H
#define ABEV_RUN_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

/* The order of the variants within each round (run/schedule.h builds it). */
enum run_order {
	RUN_ORDER_ALTERNATE,  /* A B, A B, ... */
	RUN_ORDER_REVERSE,    /* A B, B A, A B, ... */
	RUN_ORDER_SHUFFLE,    /* each round drawn from seed */
	RUN_ORDER_BALANCED,   /* Williams rows: A B, B A for two (run/schedule.h) */
	RUN_ORDER_SEQUENTIAL, /* every run of A, then every run of B, each after its own setup */
};
#define RUN_ORDER_COUNT 5
/* run_settings.runs_from of a plan with gates and no runs, which runs until "decided". */
#define RUN_RUNS_FROM_GATES "gates"
/* run_settings.step_timeout_seconds_from when the steps take schedule.timeout_seconds. */
#define RUN_STEP_TIMEOUT_FROM_TIMEOUT "timeout_seconds"
/* The orders' names, as plans and result.json write them ("alternate", ...), by value. */
extern const char *const run_order_names[RUN_ORDER_COUNT];
/* The name of order, or "unknown". */
const char *run_order_name(enum run_order order);
/* The order named name (exactly, lower case). 0, or -1 when there is none. */
int run_order_parse(const char *name, enum run_order *order);

struct run_settings {
	/* schedule */
	enum run_order order;
	/*
	 * Who chose the order (static): "plan" (schedule.order), "default", or
	 * "setups" (plan.h: PLAN_ORDER_FROM_SETUPS); NULL in a header read from
	 * evidence before abev recorded it.
	 */
	const char *order_from;
	uint64_t seed;              /* default 1 */
	unsigned warmups;           /* default 0 */
	unsigned runs;              /* default 3, >= 1; with schedule.until "decided", max_rounds */
	/*
	 * Who chose the runs (static): "plan" (schedule.runs, or until
	 * "decided" with its max_rounds), "default" (3: a plan without gates),
	 * or RUN_RUNS_FROM_GATES (a plan with gates and no runs runs until
	 * "decided", at most plan.h's PLAN_DECIDED_MAX_ROUNDS rounds); NULL in
	 * a header read from evidence before abev recorded it.
	 */
	const char *runs_from;
	double gap_seconds;         /* default 0, >= 0 */
	double timeout_seconds;     /* default 0 = none, else > 0 */
	/*
	 * The limit of each setup, cleanup and prepare step, > 0 (a header
	 * read from evidence before abev recorded it: 0), and who chose it
	 * (static): "plan" (schedule.step_timeout_seconds),
	 * RUN_STEP_TIMEOUT_FROM_TIMEOUT (schedule.timeout_seconds) or
	 * "default" (plan.h: PLAN_STEP_TIMEOUT_DEFAULT); NULL in such a header.
	 */
	double step_timeout_seconds;
	const char *step_timeout_seconds_from;
	char *cpus;                 /* schedule.cpus, canonical, or NULL */
	/* load */
	double max_cpu_wait_pct;    /* load.max_cpu_wait_pct: 0..100 */
	const char *max_cpu_wait_pct_from; /* "default", "plan" or "--max-cpu-wait-pct" (static) */
	double max_foreign_cpu;     /* cores; < 0 (the default): no limit */
	unsigned max_repeats;       /* load.max_repeats, default 2 */
	double max_wait_seconds;    /* load.max_wait_seconds: 0..86400 */
	const char *max_wait_seconds_from; /* "default", "plan" or "--max-load-wait" (static) */
	char **exclusive;           /* load.exclusive: command-line patterns (fnmatch) */
	size_t nexclusive, exclusive_alloc;
};

#endif
