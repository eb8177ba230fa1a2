/*
 * plan_check: what a loaded plan names on this machine, checked before
 * anything runs — each variant's cwd is a directory, its program
 * (command[0], where it does not depend on a run) is found on the PATH
 * its child will have and is executable, its assemblies patterns match a
 * file, and the directory of results.files exists or lies in the run's
 * own directory. Every problem is added to the caller's errlist, each
 * naming the variant and the key, so that the plan's own errors
 * (plan_load_partial()) and these are reported together. It runs nothing;
 * plan.c has already checked the document itself (and read the variants
 * file), and a partial plan holds only what it could check.
 */
#ifndef ABEV_PLAN_CHECK_H
#define ABEV_PLAN_CHECK_H

#include "plan/plan.h"

struct errlist;

/* Each variant's cwd is always checked; these add to it. */
enum plan_check_what {
	PLAN_CHECK_PROGRAMS = 1u << 1,
	PLAN_CHECK_ASSEMBLIES = 1u << 2,
	PLAN_CHECK_RESULTS = 1u << 3,
	PLAN_CHECK_ALL = 0xeu,
	/*
	 * Before a real run: everything, but the program of a variant with
	 * a prepare step, which that step may make (a build), or of one
	 * whose prepare a partial plan does not know; a dry run checks it too.
	 */
	PLAN_CHECK_UNPREPARED = 1u << 4,
	PLAN_CHECK_RUN = PLAN_CHECK_ALL | PLAN_CHECK_UNPREPARED,
};

/*
 * Checks what (PLAN_CHECK_* bits) of plan, whole or partial, adding each
 * problem to errors (the caller reports them). Returns 0, or -1 when it
 * added any.
 */
int plan_check(const struct plan *plan, unsigned what, struct errlist *errors);

#endif
