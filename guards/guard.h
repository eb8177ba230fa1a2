/*
 * guard: the contract every check that judges a run follows. A guard
 * looks at what was measured and returns pass, fail, or could-not-check,
 * always with a one-line reason that carries the numbers it judged by.
 * Guards never run processes or write evidence; the runner does both.
 */
#ifndef ABEV_GUARD_H
#define ABEV_GUARD_H

enum guard_verdict {
	GUARD_PASS,
	GUARD_FAIL,
	GUARD_UNCHECKED, /* the figure needed was not available */
};

struct guard_result {
	const char *guard;       /* the guard's name, static */
	enum guard_verdict verdict;
	char *reason;            /* one line, caller frees */
};

const char *guard_verdict_name(enum guard_verdict v);
void guard_result_release(struct guard_result *r);

/*
 * load: the foreign-load check. foreign_cpu is the average number of
 * cores other processes kept busy during the run (< 0: unknown),
 * resolution how far off that figure can be (the run fails the guard only
 * when foreign_cpu - resolution is over the limit, so a short run is not
 * thrown away for a tick of noise), max_foreign_cpu the plan's limit.
 */
void guard_load(double foreign_cpu, double resolution, double max_foreign_cpu,
		struct guard_result *out);

#endif
