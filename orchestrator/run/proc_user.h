/*
 * proc_user: the user proc's children run as (proc.h, proc_run_as()).
 * Internal to proc: what the child calls between fork and exec.
 */
#ifndef ABEV_PROC_USER_H
#define ABEV_PROC_USER_H

#include "run/proc.h"

/*
 * In the child, before exec: setgroups, setgid, setuid to u, with raw
 * system calls (async-signal-safe; libc's wrappers would signal threads
 * the child does not have). 0, or -1 with errno.
 */
int proc_user_switch(const struct proc_user *u);

#endif
