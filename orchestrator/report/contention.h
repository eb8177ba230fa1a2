/*
 * contention: what load the recorded runs saw, counted from their
 * records, and the words it is told in. The terminal's `load:` lines and
 * report.md's verdict both take their sentences from here, so that they
 * say the same facts alike. It counts, sums and takes the largest and the
 * median of recorded figures; it measures, judges and prints nothing.
 */
#ifndef ABEV_CONTENTION_H
#define ABEV_CONTENTION_H

#include <stddef.h>
#include <stdint.h>

struct invocation;
struct strbuf;

/* The share of wall time a run waited on others: the largest and the median, over n runs. */
struct contention_pct {
	size_t n;            /* runs whose foreign wait is known */
	double max, median;  /* foreign_wait_pct; -1 when n is 0 */
};

struct contention {
	size_t counted;      /* recorded runs that were not discarded */
	size_t loaded;       /* of them, kept under load (marked loaded) */
	struct contention_pct all;    /* the counted runs' wait on others */
	struct contention_pct of_loaded; /* the loaded runs' */
	/*
	 * Of the counted runs that waited on others COMPARE_CONTENDED_PCT of
	 * their wall time or more, those whose wall_own is an estimate (their
	 * foreign_wait_basis is not one_thread: measure/foreignwait.h).
	 */
	size_t contended, estimated;
	size_t waits;        /* runs (any) that waited for a quieter machine first */
	int64_t waited_ns;   /* those waits in all */
};

/* Counts the load of invs[0..n) (execution order) into *ct. */
void contention_count(struct contention *ct, const struct invocation *invs, size_t n);
/*
 * Whether there is contention to speak of: a counted run waited on others
 * COMPARE_CONTENDED_PCT of its wall time or more, one was kept under
 * load, or abev waited for a quieter machine.
 */
int contention_seen(const struct contention *ct);

/*
 * The sentences, each without a full stop or a newline, so that the
 * terminal and the report can frame them:
 *
 * "waited 12.3 s in all for a quieter machine, before 2 run(s) (at most
 * 60 s: load.max_wait_seconds)"; setting names where the limit is set.
 */
void contention_waited(struct strbuf *sb, const struct contention *ct, double max_wait_seconds,
		       const char *setting);
/*
 * "1 of 6 counted run(s) ran under load, kept and marked loaded: their
 * wall times include up to 45.0 % (median 30.2 %) waiting for CPUs other
 * work held" (the median where two or more were measured).
 */
void contention_loaded(struct strbuf *sb, const struct contention *ct);
/*
 * "Counted runs waited up to 4.2 % (median 1.3 %) of their wall time for
 * CPUs other work held" (a sentence's start); "" when no counted run's
 * wait is known.
 */
void contention_counted(struct strbuf *sb, const struct contention *ct);
/*
 * Which figures to trust. Where every run that waited on others ran one
 * thread at a time (wall_own exact by construction): "wall_own (wall less
 * that wait) and CPU time (cpu) are not lengthened by it: trust them over
 * wall here". Else: "wall_own (wall less that wait) is an estimate for 3
 * of 4 run(s) that waited (their threads ran side by side, or others' CPU
 * time bounded the wait: docs/plan.md, Contention) and CPU time (cpu) is
 * not lengthened by it: compare both rather than wall here".
 */
void contention_trust(struct strbuf *sb, const struct contention *ct);

#endif
