/*
 * load guard: judges whether a run waited for a CPU longer than the plan
 * allows, where the plan limits it whether others kept more cores busy
 * meanwhile, and whether a process the plan wants alone with the run
 * (load.exclusive) or another abev run overlapped it; a run over the
 * figures' limits that the runner keeps all the same (keep_loaded) passes,
 * its reason saying so. It only judges:
 * judge_load() applies it, and repeating the slot is the runner's job.
 */
#include "guards/guard.h"

#include "util/strbuf.h"

int guard_load(const struct load_figures *f, struct guard_result *out)
{
	struct strbuf sb = STRBUF_INIT;
	double resolution = f->resolution > 0 ? f->resolution : 0;
	int wait_known = f->cpu_wait_pct >= 0;
	int split = wait_known && f->foreign_wait_pct >= 0;
	double judged = split ? f->foreign_wait_pct : f->cpu_wait_pct;
	int foreign_judged = f->max_foreign_cpu >= 0 && f->foreign_cpu >= 0;
	int wait_over = wait_known && judged > f->max_cpu_wait_pct;
	int foreign_over = foreign_judged && f->foreign_cpu - resolution > f->max_foreign_cpu;

	out->kind = GUARD_LOAD;
	if (split)
		strbuf_addf(&sb, "waited for a CPU %.1f %% of the run (%s), at most %.1f %% of it "
			    "on other processes (they used %.2f cores of its %u CPU(s)), %s the "
			    "limit of %g %% (load.max_cpu_wait_pct)",
			    f->cpu_wait_pct, f->cpu_wait_source ? f->cpu_wait_source : "measured",
			    f->foreign_wait_pct, f->foreign_busy_cores, f->run_cpus,
			    wait_over ? "over" : "within", f->max_cpu_wait_pct);
	else if (wait_known)
		strbuf_addf(&sb, "waited for a CPU %.1f %% of the run (%s; what other processes "
			    "used of its CPUs is unknown, so all of it is judged), %s the limit of "
			    "%g %% (load.max_cpu_wait_pct)",
			    f->cpu_wait_pct, f->cpu_wait_source ? f->cpu_wait_source : "measured",
			    wait_over ? "over" : "within", f->max_cpu_wait_pct);
	else
		strbuf_addf(&sb, "CPU wait unknown (no cgroup cpu.pressure or schedstat); limit %g %%",
			    f->max_cpu_wait_pct);
	if (foreign_judged)
		strbuf_addf(&sb, "; other processes used %.2f cores (±%.2f), %s the limit of %.2f "
			    "(load.max_foreign_cpu)",
			    f->foreign_cpu, resolution, foreign_over ? "over" : "within",
			    f->max_foreign_cpu);
	else if (f->max_foreign_cpu >= 0)
		strbuf_addf(&sb, "; foreign CPU load unknown (/proc/stat unreadable); limit %.2f "
			    "cores",
			    f->max_foreign_cpu);
	if (f->overlap)
		strbuf_addf(&sb, "; %s", f->overlap);
	if (f->paused)
		strbuf_addf(&sb, "; %s", f->paused);
	if ((wait_over || foreign_over) && f->keep_loaded && !f->overlap && !f->paused) {
		strbuf_addf(&sb, "; kept under load: %s", f->keep_loaded);
		out->verdict = GUARD_PASS;
	} else if (wait_over || foreign_over || f->overlap || f->paused) {
		out->verdict = GUARD_FAIL;
	} else if (wait_known || foreign_judged) {
		out->verdict = GUARD_PASS;
	} else {
		out->verdict = GUARD_UNCHECKED;
	}
	out->reason = strbuf_detach(&sb, NULL);
	return wait_over || foreign_over;
}

int guard_load_balanced(double wait_pct, const double *partners, size_t n, double limit_pct)
{
	double most;

	if (!n || wait_pct < 0 || wait_pct >= 100 || limit_pct < 0 || limit_pct >= 100)
		return 0;
	most = 1 / (1 - limit_pct / 100);
	for (size_t i = 0; i < n; i++) {
		double a = 1 - wait_pct / 100, b = 1 - partners[i] / 100;
		if (partners[i] < 0 || partners[i] >= 100)
			return 0;
		/* A tiny slack: at exactly the limit the division may round either way. */
		if ((a > b ? a / b : b / a) > most * (1 + 1e-12))
			return 0;
	}
	return 1;
}
