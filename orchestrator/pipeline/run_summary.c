/*
 * run_summary: what `abev run` prints on the terminal when it is over —
 * where the evidence is, its status, seal and bundle, how busy the
 * machine was and what was discarded for it, then the decision (the
 * comparison's summary, or its JSON document with --json). It writes no
 * evidence and changes no state: run_state.c writes the files.
 */
#include "pipeline/run_summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/evidence.h"
#include "plan/plan.h"
#include "report/contention.h"
#include "report/report.h"
#include "report/summary.h"
#include "report/timing.h"
#include "util/colour.h"
#include "util/strbuf.h"
#include "util/escape.h"

/* Whether any variant of the plan is pinned to CPUs (its own cpus or schedule.cpus). */
static int plan_pins(const struct plan *plan)
{
	for (size_t v = 0; v < plan->nvariants; v++)
		if (plan->variants[v].cpus)
			return 1;
	return plan->set.cpus != NULL;
}

/*
 * What to change when slots were lost, from the figures. A run is
 * discarded for the wait other processes can have caused on its CPUs;
 * where that share could not be measured the whole wait was judged, and
 * when other processes kept less than a quarter of a core busy during
 * every such run, the wait was the run's own threads waiting for each
 * other (a multi-threaded runtime), which pinning to fewer CPUs would
 * lengthen. Pinning is suggested only where foreign load was there and
 * the plan does not pin already. Runs discarded for an overlap get advice
 * about the overlap alone.
 */
static void print_advice(FILE *f, const struct run_state *st, double foreign_max,
			 int all_overlaps)
{
	const struct plan *plan = st->plan;
	int pinned = plan_pins(plan);

	if (all_overlaps) {
		fprintf(f, "          Every discarded run overlapped another abev run or a process "
			   "matching load.exclusive (named above and in result.json): to keep them, "
			   "stop it first, or let abev take turns (its default; --wait-max sets how long).\n");
		return;
	}
	if (foreign_max >= 0 && foreign_max < 0.25) {
		fprintf(f, "          What other processes used of the runs' CPUs could not be "
			   "measured here, so all the wait was judged; they kept at most %.2f cores "
			   "busy: the wait was the runs' own threads waiting for each other,\n"
			   "          which pinning to fewer CPUs would lengthen. To keep them: raise "
			   "load.max_cpu_wait_pct (or --max-cpu-wait-pct).\n",
			foreign_max);
		return;
	}
	if (pinned)
		fprintf(f, "          The plan pins its variants already: give them CPUs other work "
			   "does not use, raise load.max_cpu_wait_pct (or --max-cpu-wait-pct), or "
			   "quiet the machine.\n");
	else
		fprintf(f, "          To keep them: pin the variants to CPUs other work does not use "
			   "(\"cpus\": \"1\" in the plan,\n          per variant or in schedule), "
			   "raise load.max_cpu_wait_pct (or --max-cpu-wait-pct), or quiet the "
			   "machine.\n");
}

/*
 * The wait for a quieter machine and the runs kept under load: how long,
 * how many, how loaded, and which figures to trust then. Waiting for a CPU
 * lengthens wall time but neither wall_own (wall less that wait) nor CPU
 * time: under load those are the ones to judge, and the advice names how,
 * in the command's own terms.
 */
static void print_load(FILE *f, const struct run_state *st)
{
	struct contention ct;
	struct strbuf sb = STRBUF_INIT;

	contention_count(&ct, st->invs, st->ninvs);
	if (ct.waits) {
		contention_waited(&sb, &ct, st->plan->set.max_wait_seconds,
				  st->opt->bench ? "--max-load-wait" : "load.max_wait_seconds");
		fprintf(f, "load:     %s\n", sb.buf);
		strbuf_reset(&sb);
	}
	if (!ct.loaded) {
		strbuf_release(&sb);
		return;
	}
	contention_loaded(&sb, &ct);
	fprintf(f, "load:     %s.\n          ", sb.buf);
	strbuf_reset(&sb);
	contention_trust(&sb, &ct);
	fputs(sb.buf, f);
	strbuf_release(&sb);
	if (st->opt->bench)
		fputs(" (gate: --max-regression wall_own=P, the default, or cpu=P)", f);
	else
		fputs(" (gate them in the plan's gates: wall_own, cpu)", f);
	fputs(", or run again on a quieter machine.\n", f);
	if (st->compared && st->cmp.decision == DECISION_INCONCLUSIVE)
		fprintf(f, "          The decision is inconclusive with runs under load: the gate "
			   "lines below say how many rounds would decide at this noise (%s).\n",
			st->opt->bench ? "--until-decided N" : "schedule.until \"decided\"");
}

/*
 * How busy the machine was, from what the runs recorded: the range of
 * their CPU wait and the machine's CPU pressure over their wall time; and,
 * when runs were discarded for it, how many, why, and what to change.
 */
static void print_contention(FILE *f, const struct run_state *st)
{
	const struct plan *plan = st->plan;
	double lo = -1, hi = -1, fhi = -1;
	int64_t sys_ns = 0, sys_wall_ns = 0;
	size_t measured = 0, fmeasured = 0, discarded = 0, by_abev = 0, by_exclusive = 0,
	       by_overlap = 0, judged_whole = 0;
	/* the most foreign CPU of a run discarded on its whole wait; -1: unknown */
	double foreign_max = -1;

	for (size_t i = 0; i < st->ninvs; i++) {
		const struct invocation *inv = &st->invs[i];
		double pct = invocation_cpu_wait_pct(inv);
		double fpct = invocation_foreign_wait_pct(inv);

		discarded += inv->status == INV_DISCARDED;
		if (inv->status == INV_DISCARDED && fpct < 0 && pct > plan->set.max_cpu_wait_pct) {
			judged_whole++;
			if (inv->foreign_cpu > foreign_max)
				foreign_max = inv->foreign_cpu;
		}
		if (fpct >= 0) {
			fhi = fmeasured && fhi > fpct ? fhi : fpct;
			fmeasured++;
		}
		if (inv->status == INV_DISCARDED) {
			int abev = 0, excl = 0;
			for (size_t k = 0; k < inv->noverlaps; k++) {
				abev |= inv->overlaps[k].kind == OVERLAP_ABEV;
				excl |= inv->overlaps[k].kind == OVERLAP_EXCLUSIVE;
			}
			by_abev += abev;
			by_exclusive += excl;
			by_overlap += abev || excl;
		}
		if (pct >= 0) {
			lo = measured && lo < pct ? lo : pct;
			hi = measured && hi > pct ? hi : pct;
			measured++;
		}
		if (inv->system_cpu_wait_ns >= 0 && inv->fig.wall_ns > 0) {
			sys_ns += inv->system_cpu_wait_ns;
			sys_wall_ns += inv->fig.wall_ns;
		}
	}
	if (measured && fmeasured)
		fprintf(f, "cpu wait: runs waited for a CPU %.1f-%.1f %% of their wall time, "
			   "at most %.1f %% on other processes (limit %g %%)",
			lo, hi, fhi, plan->set.max_cpu_wait_pct);
	else if (measured)
		fprintf(f, "cpu wait: runs waited for a CPU %.1f-%.1f %% of their wall time "
			   "(limit %g %%)",
			lo, hi, plan->set.max_cpu_wait_pct);
	else
		fprintf(f, "cpu wait: not measured (no cgroup cpu.pressure or schedstat)");
	if (sys_wall_ns > 0)
		fprintf(f, "; machine-wide, some task waited for a CPU %.0f %% of that time",
			100.0 * (double)sys_ns / (double)sys_wall_ns);
	fputc('\n', f);
	if (!discarded)
		return;
	if (by_abev)
		fprintf(f, "overlap: another abev run on this host overlapped %zu run(s); "
			   "abev takes turns by default (--wait-max 0 does not)\n", by_abev);
	if (by_exclusive)
		fprintf(f, "overlap: a process matching load.exclusive overlapped %zu run(s) "
			   "(result.json names it)\n", by_exclusive);
	fprintf(f, "discarded: %zu run(s) for contention or overlap%s", discarded,
		st->lost ? "" : ", each repeated until it was kept\n");
	if (st->lost) {
		fprintf(f, "; %u slot(s) lost after %u repeat(s) each.\n", st->lost,
			plan->set.max_repeats);
		print_advice(f, st, judged_whole + by_overlap >= discarded ? foreign_max : -1,
			     by_overlap == discarded);
	}
}

/*
 * What the user sees at the end: where the evidence is and its status,
 * then the decision and one line per metric and compared variant. With
 * --json stdout carries the comparison alone and the rest goes to
 * stderr; --quiet keeps the decision line and the evidence path.
 */
/*
 * abev bench runs a command through sh -c unless -N, and unlike hyperfine
 * does not subtract the shell's start-up from its times: the summary says
 * so, so that nobody compares its figures with hyperfine's unaware.
 */
static int bench_ran_shell(const struct run_state *st)
{
	if (!st->opt->bench)
		return 0;
	for (size_t i = 0; i < st->plan->nvariants; i++) {
		const struct plan_variant *v = &st->plan->variants[i];
		if (v->command_len >= 2 && !strcmp(v->command[0], "sh") &&
		    !strcmp(v->command[1], "-c"))
			return 1;
	}
	return 0;
}

/* The sequential order, and why: its runs are not alternated. */
static void print_order(FILE *f, const struct run_state *st)
{
	const char *why = report_order_why(run_order_name(st->plan->set.order), st->plan->set.order_from);

	if (why)
		fprintf(f, "order:    sequential: %s.\n", why);
}

void run_summary_print(const struct run_state *st, enum run_status final, int sealed,
		       int bundled)
{
	const struct runner_options *opt = st->opt;
	FILE *f = opt->json ? stderr : stdout;
	int quiet = opt->progress == PROGRESS_QUIET;
	int colour = colour_stream(opt->colour, f);
	char *root = xstrdup_escaped(st->root);

	if (opt->json) {
		char *doc = evidence_comparison_document(&st->cmp, st->gate_defs, st->plan->ngates);
		fputs(doc, stdout);
		free(doc);
		fflush(stdout);
	}
	if (quiet) {
		if (!opt->json)
			summary_print(f, &st->cmp, 1, colour);
		/* A plan stopped before any run: the decision line alone could not say why. */
		if (st->gave_up && !st->ninvs) {
			char *why = xstrdup_escaped(st->gave_up);
			fprintf(f, "stopped:  %s.\n", why);
			free(why);
		}
		fprintf(f, "evidence: %s\n", root);
		fflush(f);
		free(root);
		return;
	}
	fprintf(f, "evidence: %s\nreport:   %s/report.md\nstatus:   %s\n", root, root,
		invocation_run_status_name(final));
	free(root);
	if (!sealed)
		fprintf(f, "sealed:   NO: the manifest could not be written (see the error above)\n");
	else
		fprintf(f, "sealed:   %s\n", opt->key ? "SHA256, signed in SHA256.sig"
						   : "SHA256 (UNSIGNED: run with --key to sign)");
	if (bundled) {
		char *bundle = xstrdup_escaped(opt->bundle);
		fprintf(f, "bundle:   %s\n", bundle);
		free(bundle);
	}
	print_order(f, st);
	print_contention(f, st);
	print_load(f, st);
	if (st->gave_up) {
		/* The reason can quote a command's words: escaped like all outside text. */
		char *why = xstrdup_escaped(st->gave_up);
		fprintf(f, "stopped:  %s.\n", why);
		free(why);
	}
	fputc('\n', f);
	/* bench is hyperfine's command: each command's times first, as hyperfine shows them. */
	if (opt->bench)
		timing_print(f, &st->cmp, st->invs, st->ninvs, colour);
	summary_print(f, &st->cmp, 0, colour);
	if (bench_ran_shell(st))
		fputs("note: times include the shell's start-up (sh -c); -N runs without a shell\n", f);
	fflush(f);
}
