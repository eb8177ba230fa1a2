/*
 * run_slot: runs one slot of `abev run`'s schedule — every attempt of it,
 * until one is kept, fails, runs out of repeats, or the run stops — and
 * records each in the run state and the evidence. Setting the run up and
 * finishing it are runner.c's; judging each attempt is judge.c's.
 */
#ifndef ABEV_RUN_SLOT_H
#define ABEV_RUN_SLOT_H

#include "pipeline/run_state.h"
#include "run/schedule.h"

/*
 * Runs slot. Sets st->interrupt on a signal, st->runtime_error (with a
 * note) when abev itself could not go on, st->lost when every attempt was
 * discarded.
 */
void run_slot(struct run_state *st, const struct sched_slot *slot);

/*
 * The setup (cleanup 0) or cleanup (1) step of variant vi, when it has
 * one: its command run once in the variant's cwd and environment, not
 * measured, its output kept in runs/<variant>/<kind>.log, recorded in
 * st->steps and said in a note. Returns 1 when it ran and ended ok, 0
 * when it has none or did not end ok (st->interrupt set on a signal),
 * -1 after error() when abev itself could not go on.
 */
int run_slot_step(struct run_state *st, size_t vi, int cleanup);

/*
 * Opens, into st->output_dirs, the directory of every variant's output
 * file (plan.h: PLAN_OUTPUT_FILE) as it is now, before anything runs:
 * each run's file is then reached beneath that descriptor, so that a run
 * that replaces a directory on the path by a link cannot make abev create
 * or truncate a file elsewhere. 0, or -1 after error().
 */
int run_slot_open_outputs(struct run_state *st);
/*
 * The evidence root and each directory on the way to rel beneath it (rel
 * included), abev's own, given u+rwx back when a run of abev's own user
 * took it away, each with a note: abev must reach, write and seal there.
 */
void run_slot_reclaim_above(struct run_state *st, const char *rel);

#endif
