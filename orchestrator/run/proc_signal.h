/*
 * proc_signal: the self-pipe behind abev's signal handling, shared by
 * proc.c's wait loop and proc_sleep(). Internal to proc: the rest of abev
 * uses proc_setup(), proc_interrupted() and proc_sleep() (proc.h).
 */
#ifndef ABEV_PROC_SIGNAL_H
#define ABEV_PROC_SIGNAL_H

#include <stdint.h>
#include <sys/types.h>

/* How often the tick callbacks of proc_run() and proc_sleep() are called. */
#define PROC_TICK_NS (100 * 1000 * 1000LL)

/* The read end of the self-pipe (-1 before proc_setup()): readable after a signal. */
int proc_signal_fd(void);
/* Empties the self-pipe after a wake-up. */
void proc_signal_drain(void);
/* Milliseconds until `when`, rounded up so that a sleep does not wake early, capped. */
int proc_ms_until(int64_t now, int64_t when, int cap);

/* How many times abev was continued after a stop (SIGCONT); compare two readings. */
unsigned proc_cont_count(void);

/*
 * The watchdog (proc_watchdog.c). start: forks it (once); 0 or -1 after
 * error(). follow: names the process group of the child that runs now, 0
 * when none does. stop: an orderly exit — tells the watchdog, closes the
 * pipe and waits (briefly) until it is gone. Each does nothing without a
 * watchdog.
 */
int proc_watchdog_start(void);
void proc_watchdog_follow(pid_t pgid);
void proc_watchdog_stop(void);

#endif
