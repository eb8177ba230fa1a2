/*
 * Unit tests of report: a report rendered from hand-built invocations
 * shows the medians, ranges and changes a reader would check, leaves out
 * warmups, discarded and failed runs, escapes table cells, fills every
 * placeholder and does not change between two renderings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/compiler.h"

#define MS 1000000LL
#define MIB_B (1024LL * 1024)

/* Strings in struct invocation are owned (char *); the tests only borrow literals. */
static char *s(const char *lit)
{
	return (char *)(uintptr_t)lit;
}

static struct invocation inv(unsigned seq, const char *variant, int warmup, unsigned round,
			     unsigned attempt, enum inv_status st, int64_t wall_ms,
			     int64_t cpu_ms, int64_t rss_mib)
{
	struct invocation v;

	memset(&v, 0, sizeof(v));
	v.seq = seq;
	v.variant = s(variant);
	v.warmup = warmup;
	v.round = round;
	v.attempt = attempt;
	v.status = st;
	v.dir = s("runs/x/run-1");
	v.fig.wall_ns = wall_ms * MS;
	v.fig.user_ns = cpu_ms * MS * 3 / 4;
	v.fig.sys_ns = cpu_ms * MS - v.fig.user_ns;
	v.fig.max_rss_bytes = rss_mib * MIB_B;
	v.exit_code = st == INV_OK ? 0 : 1;
	v.foreign_cpu = 0.125;
	v.cpu_wait_ns = v.fig.wall_ns / 100;
	v.run_cpus = 2;
	v.foreign_busy_ns = 0;
	v.foreign_wait_ns = 0;
	v.foreign_wait_basis = FOREIGN_WAIT_ONE_THREAD;
	v.cpu_wait_source = s("schedstat");
	v.max_cpu_wait_pct = 10;
	return v;
}

struct fixture {
	struct invocation invs[20];
	const char *names[3];
	struct run_header hdr;
	struct report_input in;
};

static void build(struct fixture *f)
{
	size_t n = 0;

	memset(f, 0, sizeof(*f));
	/* Warmups are far off the runs: a leak into the summary would show. */
	f->invs[n++] = inv(1, "baseline", 1, 1, 1, INV_OK, 9000, 9000, 900);
	f->invs[n++] = inv(2, "candidate", 1, 1, 1, INV_OK, 9000, 9000, 900);
	f->invs[n++] = inv(3, "baseline", 0, 1, 1, INV_OK, 1000, 800, 100);
	f->invs[n++] = inv(4, "candidate", 0, 1, 1, INV_DISCARDED, 50000, 50000, 5000);
	f->invs[n - 1].reason = s("foreign load 1.50 cores > 0.75");
	f->invs[n - 1].foreign_cpu = 1.5;
	f->invs[n - 1].cpu_wait_ns = f->invs[n - 1].fig.wall_ns / 2;
	f->invs[n - 1].foreign_busy_ns = f->invs[n - 1].fig.wall_ns / 2;
	f->invs[n - 1].foreign_wait_ns = f->invs[n - 1].fig.wall_ns / 4;
	f->invs[n++] = inv(5, "candidate", 0, 1, 2, INV_OK, 800, 600, 200);
	/* Its repeat ran after a wait for a quieter machine, and was kept under load. */
	f->invs[n - 1].load_wait_ns = 12300 * MS;
	f->invs[n - 1].loaded = 1;
	f->invs[n++] = inv(6, "candidate", 0, 2, 1, INV_FAILED, 100, 50, 3000);
	f->invs[n - 1].reason = s("exited with status 1 | see test.log");
	f->invs[n++] = inv(7, "baseline", 0, 2, 1, INV_OK, 1200, 1000, 110);
	f->invs[n++] = inv(8, "baseline", 0, 3, 1, INV_OK, 1100, 900, 105);
	f->invs[n++] = inv(9, "candidate", 0, 3, 1, INV_TIMED_OUT, 70000, 100, 220);
	f->invs[n - 1].signal = 9;
	f->invs[n - 1].exit_code = -1;
	f->invs[n - 1].timed_out = 1;
	f->invs[n - 1].foreign_cpu = -1;
	f->invs[n - 1].cpu_wait_ns = -1;
	f->invs[n - 1].foreign_busy_ns = -1;
	f->invs[n - 1].foreign_wait_ns = -1;
	f->invs[n - 1].reason = s("timed out after 60 s");

	f->names[0] = "baseline";
	f->names[1] = "candidate";
	f->names[2] = "empty";
	f->hdr.plan_name = "sort|hash";
	f->hdr.status = "failed";
	f->hdr.started_utc = "2026-11-10T16:54:37.980941+00:00";
	f->hdr.ended_utc = "2026-11-10T16:55:01.000001+00:00";
	f->hdr.set.order = RUN_ORDER_REVERSE;
	f->hdr.set.warmups = 1;
	f->hdr.set.runs = 3;
	f->hdr.set.gap_seconds = 1;
	f->in.run = &f->hdr;
	f->hdr.variant_names = f->names;
	f->hdr.nvariants = 3;
	f->in.invs = f->invs;
	f->in.ninvs = n;
	f->hdr.reproduce = "abev run examples/demo/plan.json --out build/demo/x";
}

static void assert_has(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("report lacks \"%s\"; report:\n%s", needle, text);
}

static void assert_lacks(const char *text, const char *needle)
{
	if (strstr(text, needle))
		fail_msg("report should not contain \"%s\"; report:\n%s", needle, text);
}

/*
 * Renders f as abev run would at its end: the comparison computed from
 * the fixture's invocations (reference: the first of hdr.variant_names),
 * with the given gates, then the report.
 */
static char *render(struct fixture *f, const struct compare_gate_def *gates, size_t ngates)
{
	struct compare_config cfg = {
		.variants = f->hdr.variant_names,
		.nvariants = f->hdr.nvariants,
		.gates = gates,
		.ngates = ngates,
		.confidence = 0.95,
		.resamples = 1000,
		.seed = 1,
	};
	struct comparison c;
	char *r;

	compare_compute(&cfg, f->in.invs, f->in.ninvs, &c);
	f->in.comparison = &c;
	r = report_render(&f->in);
	f->in.comparison = NULL;
	compare_release(&c);
	return r;
}

static void test_summary_rows(void **state)
{
	struct fixture f;
	char *r;

	(void)state;
	build(&f);
	/* The one candidate "ok" run that is not a warmup is the repeated slot. */
	f.invs[8].status = INV_OK;
	f.invs[8].fig.wall_ns = 900 * MS;
	f.invs[8].fig.user_ns = 700 * MS;
	f.invs[8].fig.sys_ns = 0;
	f.invs[8].signal = 0;
	f.invs[8].exit_code = 0;
	r = render(&f, NULL, 0);
	/* baseline: wall 1.0 1.2 1.1, cpu 0.8 1.0 0.9, rss 100 110 105; one row scale each. */
	/* The rows show wall in s here: the line above them claims no unit they do not use. */
	assert_lacks(r, "Unit ms");
	assert_has(r, "### wall\n\nLower is better; recorded in ms, each row shown in the unit of "
		   "its median; the child's wall time on the "
		   "monotonic clock.\n\n![wall: each recorded run and each variant's median]"
		   "(plots/wall.svg)\n");
	assert_has(r, "the child's peak resident memory (wait4).\n\n![max\\_rss: each recorded "
		   "run and each variant's median](plots/max_rss.svg)\n");
	assert_has(r, "[plot](plots/runs.svg)");
	assert_has(r, "| baseline | 3 | 1.10 s | 1.00–1.20 s | reference |  |  |");
	assert_has(r, "| baseline | 3 | 900 ms | 800–1000 ms | reference |  |  |");
	assert_has(r, "| baseline | 3 | 105 MiB | 100–110 MiB | reference |  |  |");
	/* mean 1.1, sd 0.1, MAD 0.1 (s); cv 9.1 %. */
	assert_has(r, "- baseline, in execution order: 1.00, 1.20, 1.10 s; mean 1.10, sd 0.10, "
		   "MAD 0.10 s, coefficient of variation 9.1%\n");
	/* baseline ran first in rounds 1 and 3 and second in round 2 (after seq 6). */
	assert_has(r, "- baseline, order effect: median when first in its round 1.05 s (n 2), when "
		   "later 1.20 s (n 1): +14.29%, p = 0.667\n");
	/*
	 * candidate: wall 0.8 0.9 (median of two = mean), cpu 0.6 0.7, rss 200 220;
	 * both of its values below all of the baseline's: U = 0, p = 2 / C(5, 2) = 0.2.
	 */
	/* Two rounds: no exact interval reaches 95 %, and the row says what it needs. */
	assert_has(r, "| candidate | 2 | 850 ms | 800–900 ms | -22.73% | 1.29× faster (no interval: needs "
		   "at least 4 rounds for 95 % (has 2; below 7 rounds the interval is unpaired)) |");
	assert_has(r, "| candidate | 2 | 650 ms | 600–700 ms | -27.78% | 1.38× faster (no interval: ");
	assert_has(r, "| candidate | 2 | 210 MiB | 200–220 MiB | +100.00% | 2.00× larger (no interval: ");
	assert_has(r, "- candidate, in execution order: 800, 900 ms; mean 850, sd 71, MAD 50 ms, "
		   "coefficient of variation 8.3% (1 recorded run did not count)\n");
	assert_has(r, "- candidate against baseline: Mann–Whitney U = 0, p = 0.2 (exact; the "
		   "smallest attainable is 0.2), Hodges–Lehmann shift -250 ms; paired by round (2 pairs)");
	assert_has(r, "| empty | 0 | n/a (no counted run) | n/a (no counted run) | n/a (no counted "
		   "run) | n/a (no counted run) |  | none |");
	assert_has(r, "- empty, in execution order: none counted\n");
	/* What 2 or 3 runs allow, said for the n at hand. */
	assert_has(r, "For wall: with 3 runs of the reference and 2 of the fewest of another variant "
		   "the smallest attainable two-sided p-value is 0.2 (exact Mann–Whitney, ties as "
		   "observed), so no difference can reach p \\< 0.05; that needs at least 4 runs a "
		   "side.");
	assert_has(r, "Change gates judge an exact 95% interval: from 7 rounds, the Wilcoxon "
		   "signed-rank interval of the rounds' paired ratios and the Mann–Whitney interval "
		   "of the Hodges–Lehmann ratio together, each at its share of the error, where they "
		   "meet; with fewer pairs, the unpaired one alone (at least 4 runs a side), not a "
		   "p-value; the 95% bootstrap interval of the ratio of medians (1000 resamples) is "
		   "context.");
	/* No gate: the decision says so, and no table of gates follows it. */
	assert_has(r, "## Verdict\n\n**Decision: no decision: the plan sets no gate; ");
	assert_lacks(r, "| Limit | Verdict |");
	free(r);
}

static void test_excluded_runs(void **state)
{
	struct fixture f;
	char *r;

	(void)state;
	build(&f);
	r = render(&f, NULL, 0);
	/* Only seq 5 counts for candidate: the warmup, discarded, failed and timed-out do not. */
	assert_has(r, "| candidate | 1 | 800 ms | 800–800 ms | -27.27% | 1.38× faster (no interval: needs "
		   "at least 4 rounds for 95 % (has 1; below 7 rounds the interval is unpaired)) | "
		   "0.727× (-27.27%) | none |");
	assert_has(r, "| candidate | 1 | 200 MiB | 200–200 MiB | +90.48% |");
	assert_has(r, "- candidate, in execution order: 800 ms; mean 800, MAD 0 ms (2 recorded runs "
		   "did not count)\n");
	assert_lacks(r, "–9.00 s");
	assert_lacks(r, "–50.0 s");
	assert_lacks(r, ", 9.00");
	/* Every invocation is still listed, in execution order, with its load. */
	assert_has(r, "| 1 | baseline | warmup 1 | n/a (not started) | n/a (not started) | 9.00 s | ok "
		   "| runs/x/run-1 |");
	assert_has(r, "| 4 | candidate | run 1 | n/a (not started) | n/a (not started) | 50.0 s | "
		   "discarded | runs/x/run-1 |");
	assert_has(r, "| 9 | candidate | run 3 | n/a (not started) | n/a (not started) | 70.0 s | "
		   "timed\\_out | runs/x/run-1 |");
	assert_has(r, "| 4 | candidate | run 1 | any | n/a (not readable) | n/a (not readable) | "
		   "50.0 % (schedstat) | 25.0 % (one\\_thread) | 1.50 | discarded |");
	assert_has(r, "| 9 | candidate | run 3 | any | n/a (not readable) | n/a (not readable) | "
		   "n/a (not measured) | n/a (all the wait judged) | n/a (not measured) | timed\\_out |");
	assert_true(strstr(r, "| 4 | candidate | run 1 | n/a (not started)") <
		    strstr(r, "| 5 | candidate | run 1, attempt 2 | n/a (not started)"));
	/* Counts and the reasons of the non-ok ones. */
	assert_has(r, "Invocations: 9 (2 warmup, 7 recorded). Discarded for contention or overlap: 1. "
		   "Kept under load (loaded): 1. Waited for a quieter machine before 1 run(s), 12.3 s "
		   "in all. Failed (failed, timed\\_out, exec\\_failed or interrupted): 2.");
	assert_has(r, "| 5 | candidate | run 1, attempt 2 | any | n/a (not readable) | n/a (not readable) | ");
	assert_has(r, "| ok, loaded (after 12.3 s waiting for a quieter machine) |");
	assert_has(r, "- seq 4, candidate run 1 attempt 1, discarded: foreign load 1.50 cores \\> 0.75");
	assert_has(r, "- seq 9, candidate run 3 attempt 1, timed\\_out: timed out after 60 s");
	assert_lacks(r, "- seq 5,");
	free(r);
}

static void test_header_and_conditions(void **state)
{
	struct fixture f;
	char *r;

	(void)state;
	build(&f);
	f.hdr.plan_description = "the *candidate* of 2.0";
	f.hdr.set.timeout_seconds = 60;
	f.hdr.set.max_foreign_cpu = 0.75;
	f.hdr.set.max_cpu_wait_pct = 10;
	f.hdr.set.max_repeats = 2;
	f.hdr.set.max_wait_seconds = 60;
	f.hdr.set.seed = 42;
	r = render(&f, NULL, 0);
	assert_has(r, "# abev report: sort\\|hash\n\n## Verdict\n\n**Decision: ");
	assert_has(r, "sign.\n\nthe \\*candidate\\* of 2.0\n");
	assert_has(r, "- Status: failed\n");
	assert_has(r, "- Started (UTC): 2026-11-10T16:54:37.980941+00:00\n");
	assert_has(r, "- Ended (UTC): 2026-11-10T16:55:01.000001+00:00\n");
	assert_has(r, "- Reference: baseline; compared: candidate, empty\n");
	assert_has(r, "Limits in force: order reverse, seed 42; 1 warmup round(s) and 3 recorded "
		   "run(s) per variant; gap 1 s between invocations; timeout 60 s; a recorded run "
		   "discarded when it waited for CPUs other processes held more than 10 % of its wall time; at most "
		   "0.75 foreign cores, a discarded slot repeated at most 2 time(s) (its last attempt "
		   "kept, marked loaded, when the load alone discarded it); before recorded runs at "
		   "most 60 s in all spent waiting for a quieter machine, after which runs went ahead "
		   "under load, kept and marked loaded.");
	assert_has(r, "No invocation had a cgroup of its own");
	assert_has(r, "```sh\nabev run examples/demo/plan.json --out build/demo/x\n```");
	free(r);
}

/*
 * The fixture with seven rounds of both variants, the fewest the gates
 * judge paired and unpaired at 95 % (stats_joint_interval_n_needed()): the fixture's
 * counted ones (rounds 1-3, candidate in round 1 only) and rounds 2-7 of
 * the candidate, 4-7 of the baseline.
 */
static void build_seven_rounds(struct fixture *f)
{
	build(f);
	f->hdr.nvariants = 2;
	f->invs[8].status = INV_OK;
	f->invs[8].fig.wall_ns = 900 * MS;
	f->invs[8].fig.max_rss_bytes = 220 * MIB_B;
	f->invs[8].signal = 0;
	f->invs[8].exit_code = 0;
	f->invs[8].timed_out = 0;
	f->invs[5].status = INV_OK;
	f->invs[5].fig.wall_ns = 850 * MS;
	f->invs[5].fig.max_rss_bytes = 210 * MIB_B;
	f->invs[5].exit_code = 0;
	for (unsigned r6 = 4; r6 <= 7; r6++) {
		f->invs[f->in.ninvs] = inv((unsigned)f->in.ninvs + 1, "baseline", 0, r6, 1, INV_OK,
					 1100 + r6 * 10, 900, 105);
		f->in.ninvs++;
		f->invs[f->in.ninvs] = inv((unsigned)f->in.ninvs + 1, "candidate", 0, r6, 1, INV_OK,
					 820 + r6 * 10, 600, 215);
		f->in.ninvs++;
	}
}

/* The decision at the top, every gate in its table, failed ones in words. */
static void test_verdict_and_gates(void **state)
{
	static const struct compare_gate_def gates[] = {
		{ "wall", GATE_MAX_REGRESSION, 10 },
		{ "max_rss", GATE_MAX_REGRESSION, 25 },
	};
	struct fixture f;
	char *r;

	(void)state;
	build_seven_rounds(&f);
	r = render(&f, gates, ARRAY_SIZE(gates));
	/*
	 * rss doubled: the whole interval is beyond +25 %. Two gates, each at
	 * 97.5 % so that the decision holds at 95 % (Bonferroni): the paired
	 * interval is as tight as the unpaired one from 8 rounds at that level,
	 * so with 7 the unpaired interval judges.
	 */
	assert_has(r, "## Verdict\n\n**Decision: rejected: 1 of 2 gates failed.**\n\n");
	assert_has(r, "sign.\n\n- **FAIL**: candidate max\\_rss changed +104.76% \\[+90.91%, +109.52%\\] (unpaired, "
		   "7 runs a side, exact 98.3 %) against");
	assert_has(r, "against a regression limit of +25.00%: the whole interval is beyond the "
		   "limit.\n");
	/* Each gate a row of the first screen, its change in the terminal's words. */
	assert_has(r, "| Variant | Metric | Median vs reference | Change [interval] | Limit | Verdict |\n"
		   "|---|---|---:|---|---:|---|\n"
		   "| candidate | wall | 870 ms vs 1.15 s | 1.32× faster \\[1.22, 1.40\\] (-24.14%) | "
		   "≤ +10.00% | pass |\n"
		   "| candidate | max\\_rss | 215 MiB vs 105 MiB | 2.05× larger \\[1.91, 2.10\\] "
		   "(+104.76%) | ≤ +25.00% | **FAIL** |\n");
	assert_has(r, "| 2.05× larger \\[1.91, 2.10\\] (unpaired, exact 98.3 %) |");
	/* The text gives the rows' exact coverage beside each gate's 97.5 %. */
	assert_has(r, "the exact interval the gates judge, at least 97.5%; exact 97.8–98.3");
	assert_has(r, " % for these rounds, as the rows say.");
	/* The judged change, then the medians' ratio as context. */
	assert_has(r, "(unpaired, exact 98.3 %) | 2.048× (+104.76%) | ≤ +25.00%: FAIL |");
	assert_has(r, "each of the decision's 2 gate judgements (gates × compared variants) at that "
		   "level so that together they hold at 95% (Bonferroni: 1 − 5% / 2)");
	/* wall went down 24 %: the whole interval is below +10 %. */
	assert_has(r, "This plan does not declare itself an acceptance plan");
	assert_true(strstr(r, "## Verdict") < strstr(r, "## Comparison"));
	free(r);
}

/*
 * Issue 33 §2: the first 40 lines hold the decision, every gate's row, the
 * name of every failed test, the contention and a limit set on the command
 * line — before what ran, the tables and the rest.
 */
static void test_first_screen(void **state)
{
	static const struct compare_gate_def gates[] = {
		{ "wall", GATE_MAX_REGRESSION, 10 },
		{ "max_rss", GATE_MAX_REGRESSION, 25 },
		{ "cpu", GATE_MAX_REGRESSION, 50 },
	};
	char *failed[] = { s("Ns.Sort_test"), s("Ns.Hash_test") };
	struct guard_result guards[] = {
		{ GUARD_TEST_SET, GUARD_FAIL, s("not comparable: ran 5 test(s), baseline run 1 ran 6; "
						"missing 1: 'Ns.Gone_test'") },
	};
	const char *want[] = {
		"**Decision: rejected: ",
		"| candidate | wall | 870 ms vs 1.15 s | 1.32× faster \\[1.18, 1.41\\] (-24.14%) | "
		"≤ +10.00% | pass |",
		"| candidate | max\\_rss | 215 MiB vs 105 MiB | 2.05× larger \\[1.90, 2.10\\] "
		"(+104.76%) | ≤ +25.00% | **FAIL** |",
		"| candidate | cpu | ",
		"- **candidate**: Ns.Sort\\_test (2 of 2 runs), Ns.Hash\\_test (1 of 2 runs)\n",
		"- **candidate**, 1 run: not comparable: ran 5 test(s), baseline run 1 ran 6; missing 1: "
		"'Ns.Gone\\_test'\n",
		"**Contention:** ",
		"Set on the command line, not in the plan: load.max\\_cpu\\_wait\\_pct 100 % "
		"(--max-cpu-wait-pct).",
	};
	struct fixture f;
	const char *end, *ran;
	char *r;
	size_t lines = 0;

	(void)state;
	build_seven_rounds(&f);
	f.hdr.set.max_cpu_wait_pct = 100;
	f.hdr.set.max_cpu_wait_pct_from = "--max-cpu-wait-pct";
	f.hdr.plan_description = "a description long enough to be a line of its own";
	/* On the candidate's warmup and a run whose guards do not judge its tests. */
	for (size_t i = 1; i <= 5; i += 4) {
		f.invs[i].has_tests = 1;
		f.invs[i].failed_tests = failed;
		f.invs[i].nfailed_tests = i == 1 ? 2 : 1;
	}
	f.invs[1].guards = guards;
	f.invs[1].nguards = ARRAY_SIZE(guards);
	r = render(&f, gates, ARRAY_SIZE(gates));
	for (end = r; *end && lines < 40; end++)
		lines += *end == '\n';
	/* And before anything else: what ran, the description, the gates' reasons. */
	ran = strstr(r, "## What ran");
	if (ran && ran < end)
		end = ran;
	if (strstr(r, "a description long") < end)
		end = strstr(r, "a description long");
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const char *at = strstr(r, want[i]);
		if (!at || at >= end)
			fail_msg("not in the first 40 lines, first: \"%s\"; report:\n%s", want[i], r);
	}
	free(r);
}

/* Test counts per invocation, failed test names, and every guard that did not pass. */
static void test_tests_and_guards(void **state)
{
	static char *names[12];
	struct guard_result guards[2] = {
		{ GUARD_EXIT_CODE, GUARD_FAIL, s("exited with code 1 (allowed: 0)") },
		{ GUARD_MIN_EXECUTED, GUARD_PASS, s("6 of 6 test(s) executed") },
	};
	struct fixture f;
	char *r;

	(void)state;
	build(&f);
	r = render(&f, NULL, 0);
	assert_has(r, "The plan reads no test result files (`results.files`), so no test was "
		   "counted. Guards that ran: none.");
	free(r);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		names[i] = s(i == 0 ? "Ns.Lock_test" : "t");
	f.invs[5].has_tests = 1;
	f.invs[5].tests.total = 14;
	f.invs[5].tests.executed = 13;
	f.invs[5].tests.passed = 1;
	f.invs[5].tests.failed = 11;
	f.invs[5].tests.errors = 1;
	f.invs[5].tests.skipped = 1;
	f.invs[5].failed_tests = names;
	f.invs[5].nfailed_tests = 12;
	f.invs[5].failed_tests_omitted = 3;
	f.invs[5].guards = guards;
	f.invs[5].nguards = 2;
	r = render(&f, NULL, 0);
	assert_has(r, "| Seq | Variant | Run | Executed | Passed | Failed | Skipped | Guards |");
	assert_has(r, "| 6 | candidate | run 2 | 13 | 1 | 12 | 1 | exit\\_code FAIL; 1 pass |");
	assert_has(r, "| 3 | baseline | run 1 | n/a (not read) | n/a | n/a | n/a | none |");
	assert_has(r, "Failed tests, run by run:\n\n- seq 6, candidate run 2: Ns.Lock\\_test, t, t, t, t, t, t, "
		   "t, t, t and 5 more (see the invocation of runs/x/run-1 in result.json)\n");
	assert_has(r, "Guards that did not pass:\n\n- seq 6, candidate run 2, exit\\_code failed: "
		   "exited with code 1 (allowed: 0)\n");
	free(r);
}

/* The host and, per variant, git, the plan's environment, versions and assemblies. */
static void test_environment(void **state)
{
	char *keys[] = { s("SDK"), s("GC"), NULL }, *vals[] = { s("2.0"), s("server"), NULL };
	struct env_version ver = { s("dotnet"), s("8.0.100"), NULL, 0 };
	struct env_file file = { s("bin/App.dll"), s("ab12"), 1536 };
	struct env_variant v = {
		.name = s("candidate"), .cwd = s("/src/b"), .git_known = 1, .git_dirty = 1,
		.git_head = s("83ed880e"), .env_keys = keys, .env_values = vals, .nenv = 2,
		.versions = &ver, .nversions = 1, .files = &file, .nfiles = 1,
	};
	struct run_environment e = {
		.host = { .hostname = s("ci-7"), .os_release = s("Debian 12"), .kernel = s("6.1.0"),
			  .arch = s("x86_64"), .cpu_model = s("EPYC"), .logical_cpus = 2,
			  .physical_cores = -1, .memory_bytes = 8LL << 30, .boost = -1,
			  .clock_resolution_ns = -1 },
		.variants = &v, .nvariants = 1,
	};
	struct fixture f;
	char *r;

	(void)state;
	build(&f);
	r = render(&f, NULL, 0);
	assert_has(r, "The host was not recorded (metadata.json could not be read).");
	free(r);
	f.in.environment = &e;
	r = render(&f, NULL, 0);
	assert_has(r, "Host: ci-7, Debian 12, kernel 6.1.0 (x86\\_64); CPU EPYC, 2 logical CPUs; "
		   "memory 8.00 GiB; frequency governor not readable; cgroup unknown.");
	assert_has(r, "**candidate** in `/src/b`, git HEAD 83ed880e with local changes.\n"
		   "- environment set by the plan: SDK=2.0, GC=server\n"
		   "- dotnet: 8.0.100\n"
		   "- `bin/App.dll`: 1.50 KiB, SHA-256 `ab12`\n");
	free(r);
}

static void test_escaping_and_placeholders(void **state)
{
	struct fixture f;
	char *r, *again;
	const char *line;

	(void)state;
	build(&f);
	f.invs[2].dir = s("runs/a|b/run-1");
	r = render(&f, NULL, 0);
	assert_has(r, "exited with status 1 \\| see test.log");
	assert_lacks(r, "status 1 | see");
	assert_has(r, "| runs/a\\|b/run-1 |");
	assert_lacks(r, "{{");
	assert_lacks(r, "}}");
	/* Every table row has as many unescaped pipes as its header. */
	for (line = r; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		static int cols_metric = 8, cols_invs = 9, cols_load = 11;
		int pipes = 0;

		if (*line != '|')
			continue;
		for (const char *p = line; *p && *p != '\n'; p++)
			if (*p == '|' && (p == line || p[-1] != '\\'))
				pipes++;
		assert_true(pipes == cols_metric || pipes == cols_invs || pipes == cols_load);
	}
	again = render(&f, NULL, 0);
	assert_string_equal(r, again);
	free(again);
	free(r);
}

static void test_reference_without_data(void **state)
{
	struct fixture f;
	const char *names[2] = { "empty", "baseline" };
	char *r;

	(void)state;
	build(&f);
	f.hdr.variant_names = names;
	f.hdr.nvariants = 2;
	r = render(&f, NULL, 0);
	assert_has(r, "| empty | 0 | n/a (no counted run) | n/a (no counted run) | reference |  |  |");
	assert_has(r, "| baseline | 3 | 1.10 s | 1.00–1.20 s | n/a (no counted run of the "
		   "reference) | n/a (no counted run of the reference) |  | none |");
	assert_has(r, "- Reference: empty; compared: baseline\n");
	assert_has(r, "No variant has counted runs on both sides of a comparison");
	free(r);
}

/* While the run goes on, result.json has no comparison yet and the report says so. */
static void test_running(void **state)
{
	struct fixture f;
	char *r;

	(void)state;
	build(&f);
	f.hdr.status = "running";
	f.hdr.ended_utc = "";
	f.hdr.reproduce = NULL;
	r = report_render(&f.in);
	assert_has(r, "- Status: running (");
	assert_has(r, "- Ended (UTC): not ended");
	assert_has(r, "The command line was not recorded.");
	assert_has(r, "No decision yet: the comparison is made once the run is over");
	assert_has(r, "## Comparison\n\nNot computed yet (the run had not finished).");
	assert_lacks(r, "{{");
	free(r);
}

static void test_no_invocations(void **state)
{
	struct fixture f;
	char *r;

	(void)state;
	build(&f);
	f.in.ninvs = 0;
	f.in.invs = NULL;
	r = render(&f, NULL, 0);
	assert_has(r, "| baseline | 0 | n/a (no counted run) |");
	assert_has(r, "No invocation was recorded.");
	assert_has(r, "Invocations: 0 (0 warmup, 0 recorded).");
	assert_lacks(r, "{{");
	free(r);
}

/*
 * The verdict's section of f rendered, from its heading to the next one:
 * with its comparison, or (not compared) as while the run goes on.
 */
static char *verdict(struct fixture *f, int compared)
{
	char *r = compared ? render(f, NULL, 0) : report_render(&f->in);
	const char *a = strstr(r, "## Verdict\n"), *b = a ? strstr(a, "\n## ") : NULL;
	char *v;

	assert_non_null(b);
	v = strndup(a, (size_t)(b - a));
	free(r);
	return v;
}

/* Sets invocation i's wait on others to pct % of its wall time (-1: not measured). */
static void foreign_wait(struct fixture *f, size_t i, double pct)
{
	f->invs[i].foreign_wait_ns = pct < 0 ? -1 : (int64_t)((double)f->invs[i].fig.wall_ns * pct / 100);
}

/*
 * The verdict names the contention the runs saw, in the terminal's words:
 * the wait for a quieter machine, the runs kept under load with the
 * largest and median share they waited on others, and which figures to
 * trust then.
 */
static void test_verdict_contention(void **state)
{
	struct fixture f;
	char *v;

	(void)state;
	build(&f);
	f.hdr.set.max_wait_seconds = 60;
	f.hdr.set.max_wait_seconds_from = "default";
	foreign_wait(&f, 4, 30);   /* seq 5, loaded, after a wait of 12.3 s */
	foreign_wait(&f, 6, 45);   /* seq 7 */
	f.invs[6].loaded = 1;
	v = verdict(&f, 1);
	assert_has(v, "\n\n**Contention:** abev waited 12.3 s in all for a quieter machine, before 1 "
		   "run(s) (at most 60 s: load.max\\_wait\\_seconds). 2 of 6 counted run(s) ran under "
		   "load, kept and marked loaded: their wall times include up to 45.0 % (median "
		   "37.5 %) waiting for CPUs other work held. wall\\_own (wall less that wait) and CPU "
		   "time (cpu) are not lengthened by it: trust them over wall here.\n\n");
	assert_lacks(v, "No contention");
	free(v);

	/* A run whose threads ran side by side: wall_own is an estimate, and the verdict says so. */
	f.invs[6].foreign_wait_basis = FOREIGN_WAIT_THREADS;
	v = verdict(&f, 1);
	assert_has(v, "wall\\_own (wall less that wait) is an estimate for 1 of 2 run(s) that waited");
	assert_lacks(v, "trust them over wall");
	free(v);

	/* The budget set on the command line is named as such. */
	f.hdr.set.max_wait_seconds = 5;
	f.hdr.set.max_wait_seconds_from = "--max-load-wait";
	v = verdict(&f, 1);
	assert_has(v, "(at most 5 s: --max-load-wait)");
	free(v);
}

/*
 * Without a wait or a loaded run: runs that waited on others but within
 * the limit (how much, and what to trust); no contention in one line; or,
 * where no run's wait was measured, that.
 */
static void test_verdict_not_loaded(void **state)
{
	static const struct {
		double seq3_pct;   /* seq 3's wait on others; -1: no run's was measured */
		const char *want, *not;
	} cases[] = {
		{ 4, "\n\n**Contention:** Counted runs waited up to 4.0 % (median 0.0 %) of their wall "
		  "time for CPUs other work held. wall\\_own (wall less that wait) and CPU time (cpu) "
		  "are not lengthened by it: trust them over wall here.\n\n", "No contention" },
		/* Under 1 %: the terminal does not show wall_own either. The timed-out seq 9 has no wait. */
		{ 0.9, "\n\nNo contention: no counted run waited 1 % of its wall time or more for CPUs "
		  "other processes held (measured for 5 of 6), none ran under load, and abev did not "
		  "wait for a quieter machine.\n\n", "**Contention:**" },
		{ -1, "\n\nContention was not measured: no counted run's wait for CPUs other processes "
		  "held is known", "No contention" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fixture f;
		char *v;

		build(&f);
		f.invs[4].loaded = 0;
		f.invs[4].load_wait_ns = 0;
		for (size_t k = 0; cases[i].seq3_pct < 0 && k < f.in.ninvs; k++)
			foreign_wait(&f, k, -1);
		foreign_wait(&f, 2, cases[i].seq3_pct);
		print_message("case %zu\n", i);
		v = verdict(&f, 1);
		assert_has(v, cases[i].want);
		assert_lacks(v, cases[i].not);
		assert_lacks(v, "run(s) ran under load");
		assert_lacks(v, "abev waited");
		free(v);
	}
}

/*
 * Every setting the command line gave instead of the plan is named in the
 * verdict with its value and option, finished or not; none, nothing.
 */
static void test_verdict_command_line_settings(void **state)
{
	static const struct {
		const char *status, *pct_from, *wait_from, *run_as_from, *want;
	} cases[] = {
		{ "completed", "--max-cpu-wait-pct", "--max-load-wait", "--run-as",
		  "\n\nSet on the command line, not in the plan: load.max\\_cpu\\_wait\\_pct 100 % "
		  "(--max-cpu-wait-pct), load.max\\_wait\\_seconds 0 s (--max-load-wait), run\\_as "
		  "alice (--run-as).\n\n" },
		/* While the run goes on, too. */
		{ "running", "--max-cpu-wait-pct", "plan", "plan",
		  "\n\nSet on the command line, not in the plan: load.max\\_cpu\\_wait\\_pct 100 % "
		  "(--max-cpu-wait-pct).\n\n" },
		{ "completed", "plan", "--max-load-wait", "plan",
		  "\n\nSet on the command line, not in the plan: load.max\\_wait\\_seconds 0 s "
		  "(--max-load-wait).\n\n" },
		{ "completed", "default", "default", "plan", NULL },
		/* Evidence from before the provenance was recorded: nothing to name. */
		{ "completed", NULL, NULL, NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fixture f;
		char *v;

		build(&f);
		f.hdr.status = cases[i].status;
		f.hdr.set.max_cpu_wait_pct = 100;
		f.hdr.set.max_cpu_wait_pct_from = cases[i].pct_from;
		f.hdr.set.max_wait_seconds = 0;
		f.hdr.set.max_wait_seconds_from = cases[i].wait_from;
		f.hdr.run_as_user = "alice";
		f.hdr.run_as_from = cases[i].run_as_from;
		print_message("case %zu\n", i);
		v = verdict(&f, strcmp(cases[i].status, "running") != 0);
		if (cases[i].want)
			assert_has(v, cases[i].want);
		else
			assert_lacks(v, "Set on the command line");
		free(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_rows),
		cmocka_unit_test(test_excluded_runs),
		cmocka_unit_test(test_header_and_conditions),
		cmocka_unit_test(test_verdict_and_gates),
		cmocka_unit_test(test_first_screen),
		cmocka_unit_test(test_tests_and_guards),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_escaping_and_placeholders),
		cmocka_unit_test(test_reference_without_data),
		cmocka_unit_test(test_running),
		cmocka_unit_test(test_no_invocations),
		cmocka_unit_test(test_verdict_contention),
		cmocka_unit_test(test_verdict_not_loaded),
		cmocka_unit_test(test_verdict_command_line_settings),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
