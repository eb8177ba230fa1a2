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

#endif
