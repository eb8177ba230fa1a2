/*
 * Calibration of the change gate by simulation (calibration_sim.h): the
 * acceptance criteria of abev's gate rule "higher is worse, limit L %",
 * judged on the paired exact Wilcoxon signed-rank interval of the
 * rounds' log-ratios at 95 %. Seeded, so the same figures every run; no
 * clock. bench/calibration.c prints the whole table (bench/results.md).
 *
 * Datasets per cell: ABEV_CALIBRATION_DATASETS (default 2000; 200 keeps a
 * valgrind run to seconds), bootstrap resamples ABEV_CALIBRATION_RESAMPLES
 * (default 999). The comparison with the bootstrap runs on the first half
 * of the datasets, the bootstrap being 40 times the cost of the paired
 * interval.
 *
 * What is not asserted, because it does not hold (2000 datasets,
 * bench/results.md has the table):
 * - under the heavy-tailed model (10 % of runs slowed by 1 + 3 cv |t3|)
 *   the paired interval's power for +20 % at L = 5 is 82 % at CV 5 % with
 *   8 rounds and 78 % at CV 10 % with 16 rounds, below the 90 % asked for
 *   and below the bootstrap of medians (93 % and 81 %): an outlier in
 *   either run of a round moves that round's log-ratio, and the
 *   interval's lower end at 8 rounds is the 4th smallest of 36 Walsh
 *   averages. Its A/A rates are asserted like every model's;
 * - at CV 5 % with 8 rounds the paired interval FAILs a little less often
 *   than the bootstrap, both near 99 %: 99.20 against 99.35 % (lognormal,
 *   -0.15 +- 0.23 points on the same datasets) and 98.60 against 99.20 %
 *   (drift, -0.60 +- 0.26): the exact interval covers 96.1 % there, the
 *   bootstrap's percentile interval less than its 95 %. That cell is held
 *   to "not worse by more than 1 point"; CV 10 % with 16 rounds to "not
 *   worse" (the paired interval is 5 to 13 points better there);
 * - under one-sided bursts (15 % of runs slowed 1.3-2x, alike for both
 *   sides) the paired interval's power for +20 % at L = 5 and CV 10 % is
 *   64.5 % with 24 rounds, 88.0 % with 40, and 92.7 % with 48, the cell
 *   asserted. The bootstrap of medians does better with 24 rounds
 *   (78.8 %): a burst in either run of a round moves that round's
 *   log-ratio by 0.26 to 0.69, two to five times the 0.14 sd that CV 10 %
 *   gives it, as heavy tails do. Its A/A rates hold like every model's.
 *   Under the shared slow-down the round's factor cancels in the
 *   log-ratio: 99.2 % with 24 rounds, against 4.7 % for the bootstrap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "calibration_sim.h"
#include "decide/compare.h"
#include "util/compiler.h"

#define DEFAULT_DATASETS 2000u
#define DEFAULT_RESAMPLES 999u
#define MAX_DATASETS 1000000u

/* What a user wants from an interval at 95 %: a false FAIL in at most 2.5 % of A/A datasets. */
#define AA_FAIL_MAX 0.025
/* And a +20 % change caught against a 5 % limit in at least 90 %. */
#define POWER_MIN 0.90

static unsigned datasets(void)
{
	unsigned n = cal_env_unsigned(CAL_ENV_DATASETS, DEFAULT_DATASETS, MAX_DATASETS);

	if (!n)
		fail_msg("%s must be a number of datasets from 1 to %u", CAL_ENV_DATASETS,
			 MAX_DATASETS);
	return n;
}

static unsigned resamples(void)
{
	unsigned n = cal_env_unsigned(CAL_ENV_RESAMPLES, DEFAULT_RESAMPLES,
				      STATS_BOOT_MAX_RESAMPLES);

	if (!n)
		fail_msg("%s must be a number of resamples from 1 to %u", CAL_ENV_RESAMPLES,
			 STATS_BOOT_MAX_RESAMPLES);
	return n;
}

/* The verdict rule itself, at and around its edges. */
static void test_verdict_rule(void **state)
{
	static const struct {
		double lo, hi, limit;
		enum cal_verdict want;
	} cases[] = {
		/* Binary fractions, so that the change is exactly the limit where it should be. */
		{ 1.0703125, 1.25, 6.25, CAL_FAIL },         /* all of it above +6.25 % */
		{ 1.0625, 1.25, 6.25, CAL_INCONCLUSIVE },    /* +6.25 % is within the limit */
		{ 0.875, 1.0625, 6.25, CAL_PASS },           /* all of it at or below */
		{ 0.875, 1.0703125, 6.25, CAL_INCONCLUSIVE },
		{ 1.001, 1.2, 0, CAL_FAIL },                 /* L = 0: any increase */
		{ 0.98, 1.0, 0, CAL_PASS },
		{ 0.98, 1.01, 0, CAL_INCONCLUSIVE },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum cal_verdict v = cal_verdict(cases[i].lo, cases[i].hi, cases[i].limit);

		if (v != cases[i].want)
			fail_msg("[%g, %g] at %g %%: verdict %d, want %d", cases[i].lo,
				 cases[i].hi, cases[i].limit, v, cases[i].want);
	}
}

/* One A/A cell: the paired interval's FAIL share at each limit is at most bound. */
static void check_aa_cell(const struct cal_cell *cell, const struct cal_options *o,
			  double bound)
{
	struct cal_result res;

	cal_run(cell, o, &res);
	for (int l = 0; l < CAL_LIMITS; l++) {
		double f = cal_share(&res, CAL_PAIRED, l, CAL_FAIL);

		if (f > bound)
			fail_msg("A/A %s, CV %g, %zu rounds, L = %g: FAIL in %.2f %% of %u "
				 "datasets (at most %.2f %%)", cal_model_names[cell->model],
				 cell->cv, cell->rounds, cal_limits[l], f * 100, o->datasets,
				 bound * 100);
	}
}

/*
 * A/A: baseline and candidate from the same distribution, every model but
 * the shape change, which is a change (the machine drifting in time among
 * them, in abev's default balanced order), CV 5 % and 10 %, 6 to 20
 * rounds. The FAIL share at L = 0 and at L = 5 is at most 2.5 % plus three
 * simulation standard errors.
 */
static void test_aa_fail_rate(void **state)
{
	static const double cvs[] = { 0.05, 0.10 };
	static const size_t rounds[] = { 6, 8, 10, 20 };
	struct cal_options o = { .datasets = datasets(), .resamples = resamples(), .methods = 1u << CAL_PAIRED };
	double bound = AA_FAIL_MAX + 3 * cal_se(AA_FAIL_MAX, o.datasets);

	(void)state;
	for (int m = 0; m < CAL_MODELS; m++)
		for (size_t c = 0; m != CAL_SHAPE && c < ARRAY_SIZE(cvs); c++)
			for (size_t r = 0; r < ARRAY_SIZE(rounds); r++) {
				struct cal_cell cell = { (enum cal_model)m, cvs[c], rounds[r], 1, 0,
							 CAL_ORDER_BALANCED };

				check_aa_cell(&cell, &o, bound);
			}
}

/* The A/A decisions of test_gates_family(): datasets, rounds and gates. */
#define FAMILY_DATASETS 400u
#define FAMILY_ROUNDS 10u
#define FAMILY_GATES 3u
#define FAMILY_RUNS (2 * FAMILY_ROUNDS)

/* Strings in struct invocation are owned (char *); the test only borrows literals. */
static char *lit(const char *s)
{
	return (char *)(uintptr_t)s;
}

/*
 * One simulated A/A dataset as abev records it: FAMILY_ROUNDS rounds of
 * base and cand, each run with FAMILY_GATES stdout metrics drawn alike and
 * independently (lognormal, CV 5 %), in invs[0..FAMILY_RUNS).
 */
static void family_dataset(uint64_t *rng, struct invocation *invs,
			   struct metric_value (*mv)[FAMILY_GATES], struct guard_result *guards)
{
	static const char *const names[FAMILY_GATES] = { "a", "b", "c" };

	for (size_t i = 0; i < FAMILY_RUNS; i++) {
		struct invocation *v = &invs[i];

		memset(v, 0, sizeof(*v));
		v->seq = (unsigned)i + 1;
		v->variant = lit(i % 2 ? "cand" : "base");
		v->round = (unsigned)i / 2 + 1;
		v->attempt = 1;
		v->status = INV_OK;
		v->fig.wall_ns = 100000000;
		for (size_t k = 0; k < FAMILY_GATES; k++)
			mv[i][k] = (struct metric_value){ .name = lit(names[k]), .unit = lit("ms"),
							  .ok = 1,
							  .value = 100 * cal_lognormal(rng, 0.05) };
		v->metrics = mv[i];
		v->nmetrics = FAMILY_GATES;
		guards[i] = (struct guard_result){ GUARD_EXIT_CODE, GUARD_PASS, NULL };
		v->guards = &guards[i];
		v->nguards = 1;
	}
}

/*
 * Issue 39 §3: the false-fail bound holds per decision, not per gate.
 * Three A/A gates at 0 %, each judged at 95 %, rejected 7.3 % of the
 * decisions through the binary (2.4 % per gate as designed). Each gate is
 * now judged at 1 - 5 % / 3 (Bonferroni over gates x compared variants):
 * over FAMILY_DATASETS seeded A/A datasets the decision is rejected in at
 * most 5 %, and the comparison states both levels.
 */
static void test_gates_family(void **state)
{
	static const char *const variants[] = { "base", "cand" };
	static const struct compare_metric_def defs[FAMILY_GATES] = {
		{ "a", "ms", 0, "stdout" }, { "b", "ms", 0, "stdout" }, { "c", "ms", 0, "stdout" },
	};
	static const struct compare_gate_def gates[FAMILY_GATES] = {
		{ "a", GATE_MAX_REGRESSION, 0 }, { "b", GATE_MAX_REGRESSION, 0 },
		{ "c", GATE_MAX_REGRESSION, 0 },
	};
	struct compare_config cfg = {
		.variants = variants, .nvariants = 2, .metrics = defs, .nmetrics = FAMILY_GATES,
		.gates = gates, .ngates = FAMILY_GATES, .confidence = 0.95, .resamples = 200,
		.seed = 39,
	};
	static struct invocation invs[FAMILY_RUNS];
	static struct metric_value mv[FAMILY_RUNS][FAMILY_GATES];
	static struct guard_result guards[FAMILY_RUNS];
	uint64_t rng = UINT64_C(0xfa3117);
	unsigned rejected = 0, gate_fails = 0;

	(void)state;
	for (unsigned t = 0; t < FAMILY_DATASETS; t++) {
		struct comparison c;

		family_dataset(&rng, invs, mv, guards);
		compare_compute(&cfg, invs, FAMILY_RUNS, &c);
		assert_int_equal(c.gate_judgements, FAMILY_GATES);
		assert_true(fabs(c.gate_confidence - (1 - 0.05 / FAMILY_GATES)) < 1e-12);
		assert_true(fabs(c.confidence - 0.95) < 1e-12);
		rejected += c.decision == DECISION_REJECTED;
		for (size_t g = 0; g < c.ngates; g++)
			gate_fails += c.gates[g].verdict == GATE_FAIL;
		compare_release(&c);
	}
	if (rejected > FAMILY_DATASETS / 20)
		fail_msg("3 A/A gates at 0 %%: %u of %u decisions rejected (at most 5 %%)", rejected,
			 FAMILY_DATASETS);
	/* Not a test that cannot fail: gates do fail now and then, as they should. */
	assert_true(gate_fails > 0);
	print_message("3 A/A gates at 0 %%: %u of %u decisions rejected, %u gate fails\n",
		      rejected, FAMILY_DATASETS, gate_fails);
}

/*
 * One power cell at L = 5 (cal_limits[1]): the paired interval FAILs in at
 * least POWER_MIN of n datasets.
 */
static void check_paired_power(const struct cal_cell *cell, unsigned n)
{
	struct cal_options o = { .datasets = n, .resamples = resamples(), .methods = 1u << CAL_PAIRED };
	struct cal_result res;
	double f;

	cal_run(cell, &o, &res);
	f = cal_share(&res, CAL_PAIRED, 1, CAL_FAIL);
	if (f < POWER_MIN)
		fail_msg("+20 %% %s, CV %g, %zu rounds: the paired interval FAILs %.2f %% of %u "
			 "datasets at L = 5 (at least %.0f %%)", cal_model_names[cell->model],
			 cell->cv, cell->rounds, f * 100, n, POWER_MIN * 100);
}

/*
 * check_paired_power(), and, on the first n / 2 of the datasets, the
 * paired interval FAILs not less often than the bootstrap beyond two
 * standard errors of the difference and margin.
 */
static void check_power_cell(const struct cal_cell *cell, unsigned n, double margin)
{
	const char *model = cal_model_names[cell->model];
	struct cal_options o = { .datasets = n, .resamples = resamples(), .methods = 1u << CAL_PAIRED };
	struct cal_result res;
	double diff, se;

	check_paired_power(cell, n);
	o.datasets = n / 2 ? n / 2 : 1;
	o.methods = 1u << CAL_PAIRED | 1u << CAL_BOOTSTRAP;
	cal_run(cell, &o, &res);
	diff = cal_fail_diff(&res, CAL_BOOTSTRAP, 1, &se);
	if (diff < -2 * se - margin)
		fail_msg("+20 %% %s, CV %g, %zu rounds: paired FAILs %.2f %%, bootstrap %.2f %% "
			 "of %u datasets", model, cell->cv, cell->rounds,
			 cal_share(&res, CAL_PAIRED, 1, CAL_FAIL) * 100,
			 cal_share(&res, CAL_BOOTSTRAP, 1, CAL_FAIL) * 100, o.datasets);
}

/*
 * +20 % against L = 5, at CV 5 % with 8 rounds and CV 10 % with 16: see
 * check_power_cell(). The heavy-tailed model is left out, and the margin
 * is not 0 everywhere: see the top of the file.
 */
static void test_power(void **state)
{
	static const struct {
		double cv;
		size_t rounds;
		double margin;   /* share the paired interval may FAIL less often */
	} cells[] = { { 0.05, 8, 0.01 }, { 0.10, 16, 0 } };
	static const enum cal_model models[] = { CAL_LOGNORMAL, CAL_DRIFT, CAL_ROUND };
	unsigned n = datasets();

	(void)state;
	assert_true(cal_limits[1] == 5);
	for (size_t m = 0; m < ARRAY_SIZE(models); m++)
		for (size_t c = 0; c < ARRAY_SIZE(cells); c++) {
			struct cal_cell cell = { models[m], cells[c].cv, cells[c].rounds, 1.2, 0,
						 CAL_ORDER_BALANCED };

			check_power_cell(&cell, n, cells[c].margin);
		}
}

/*
 * schedule.until "decided" with abev's default looks for 32 rounds at 95 %
 * (8, 12, 18, 27, 32), each at 99 %: over all the looks, an A/A gate at
 * L = 0 FAILs at most the nominal 2.5 % (plus 3 SE), and a true +20 % at
 * L = 5 and CV 10 % is rejected in at least 90 % of datasets, on fewer
 * rounds on average than the 32 a fixed design would run.
 */
static void test_sequential(void **state)
{
	static const size_t looks[] = { 8, 12, 18, 27, 32 };
	static const enum cal_model models[] = { CAL_LOGNORMAL, CAL_DRIFT };
	unsigned n = datasets();

	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(models); m++) {
		struct cal_cell aa = { models[m], 0.10, 32, 1.0, 0, CAL_ORDER_BALANCED };
		struct cal_cell slow = { models[m], 0.10, 32, 1.2, 0, CAL_ORDER_BALANCED };
		struct cal_seq_result r;
		double fail, limit = 0.025 + 3 * cal_se(0.025, n);

		cal_run_sequential(&aa, looks, ARRAY_SIZE(looks), 0, n, &r);
		fail = (double)r.verdicts[CAL_FAIL] / n;
		if (fail > limit)
			fail_msg("sequential A/A %s: FAIL %.2f %% over 5 looks, above %.2f %%",
				 cal_model_names[models[m]], fail * 100, limit * 100);
		cal_run_sequential(&slow, looks, ARRAY_SIZE(looks), 5, n, &r);
		fail = (double)r.verdicts[CAL_FAIL] / n;
		if (fail < 0.90 - 3 * cal_se(0.90, n))
			fail_msg("sequential +20 %% %s: rejected in %.2f %%", cal_model_names[models[m]],
				 fail * 100);
		/* It stops early: on average well before the last look. */
		assert_true((double)r.rounds / n < 24);
	}
}

/*
 * Contention, the shared slow-down and one-sided bursts of
 * calibration_sim.h, with every one of the rounds counted (no warmup, no
 * load guard): A/A at CV 10 % with 24 rounds is held to the same bound as
 * every model (test_aa_fail_rate() covers 6 to 20 rounds); a +20 % at
 * L = 5 and CV 10 % is FAILed in at least 90 % of datasets within 24
 * rounds under the shared slow-down, where the paired interval also
 * beats the bootstrap (on the same datasets); one-sided bursts need 48
 * when every run counts, and 24 with abev's load guard, which repeats a
 * run hit where its round's other run was not (calibration_sim.h).
 */
static void test_contention(void **state)
{
	static const struct {
		enum cal_model model;
		size_t rounds;     /* rounds the paired interval needs for POWER_MIN */
		int vs_bootstrap;  /* compared with the bootstrap as well */
		int guarded;       /* with abev's load guard */
	} cells[] = {
		{ CAL_SHARED_LOAD, 24, 1, 0 },
		{ CAL_BURSTS, 48, 0, 0 },
		{ CAL_SHARED_LOAD, 24, 0, 1 },
		{ CAL_BURSTS, 24, 0, 1 },
	};
	struct cal_options o = { .datasets = datasets(), .resamples = resamples(), .methods = 1u << CAL_PAIRED };
	double bound = AA_FAIL_MAX + 3 * cal_se(AA_FAIL_MAX, o.datasets);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cells); i++) {
		struct cal_cell aa = { cells[i].model, 0.10, 24, 1, cells[i].guarded,
				       CAL_ORDER_BALANCED };
		struct cal_cell slow = { cells[i].model, 0.10, cells[i].rounds, 1.2,
					 cells[i].guarded, CAL_ORDER_BALANCED };

		check_aa_cell(&aa, &o, bound);
		if (cells[i].vs_bootstrap)
			check_power_cell(&slow, o.datasets, 0);
		else
			check_paired_power(&slow, o.datasets);
	}
}

/*
 * A machine drifting 1 % a round (calibration_sim.h), A/A at CV 2 %, the
 * cells where the drift weighs most against the noise, with 16 and 32
 * rounds. In the balanced order (A B, B A: abev's default) the drift adds
 * to both sides alike: the paired interval FAILs at most 2.5 % + 3 SE of
 * datasets at L = 0 and L = 5 (issue 30 asks for 5 %), and holds the true
 * ratio at least 95 % - 3 SE of the time. In alternate order the candidate
 * always runs later and, on the same noise, FAILs more often than the
 * nominal 2.5 % and than in balanced order: the bias the model is there
 * to show (8.2 % and 13.2 % with 2000 datasets, bench/results.md).
 */
static void test_machine_drift(void **state)
{
	static const size_t rounds[] = { 16, 32 };
	struct cal_options o = { .datasets = datasets(), .resamples = resamples(), .methods = 1u << CAL_PAIRED };
	double bound = AA_FAIL_MAX + 3 * cal_se(AA_FAIL_MAX, o.datasets);
	double least = CAL_LEVEL - 3 * cal_se(CAL_LEVEL, o.datasets);

	(void)state;
	for (size_t r = 0; r < ARRAY_SIZE(rounds); r++) {
		struct cal_cell cell = { CAL_MACHINE_DRIFT, 0.02, rounds[r], 1, 0,
					 CAL_ORDER_BALANCED };
		struct cal_result bal, alt;
		double stated, covered, fb, fa;

		check_aa_cell(&cell, &o, bound);
		cal_run(&cell, &o, &bal);
		covered = cal_coverage(&bal, CAL_PAIRED, &stated);
		if (covered < least)
			fail_msg("A/A machine drift, balanced, %zu rounds: the interval held 1 in "
				 "%.2f %% of datasets (stated %.2f %%, at least %.2f %%)",
				 rounds[r], covered * 100, stated * 100, least * 100);
		cell.order = CAL_ORDER_ALTERNATE;
		cal_run(&cell, &o, &alt);
		fb = cal_share(&bal, CAL_PAIRED, 0, CAL_FAIL);
		fa = cal_share(&alt, CAL_PAIRED, 0, CAL_FAIL);
		if (fa <= AA_FAIL_MAX || fa <= fb)
			fail_msg("A/A machine drift, %zu rounds, L = 0: alternate FAILs %.2f %%, "
				 "balanced %.2f %%: the drift no longer biases alternate",
				 rounds[r], fa * 100, fb * 100);
	}
}

/*
 * Issue 30 §4, the choice of method, on the figures it rests on (the same
 * datasets for every method; bench/results.md has the table). Under the
 * slow tail (10 % of runs 1.5 times as slow) every exact method keeps
 * A/A within the bound, and the unpaired Mann-Whitney interval FAILs a
 * +20 % more often than the paired one, beyond two standard errors of the
 * difference: a slow run spoils its whole round's ratio, so pairing
 * doubles the tail. Under the shared slow-down (the contention measured
 * on this host) the paired interval FAILs more often than the unpaired
 * one, by far more: the round's factor cancels in its ratio and is spread
 * to the unpaired one. abev's rule, the two together (CAL_BOTH,
 * stats_joint_interval()), stays between: above the paired interval under
 * the slow tail, below it under the shared slow-down.
 */
static void test_method_choice(void **state)
{
	static const struct {
		double cv;
		size_t rounds;
	} cells[] = { { 0.05, 8 }, { 0.10, 16 } };
	struct cal_options o = { .datasets = datasets() / 2 ? datasets() / 2 : 1,
				 .resamples = 1, .methods = CAL_EXACT_METHODS };
	double bound = AA_FAIL_MAX + 3 * cal_se(AA_FAIL_MAX, o.datasets);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cells); i++) {
		struct cal_cell tail = { CAL_SLOW_TAIL, cells[i].cv, cells[i].rounds, 1, 0,
					 CAL_ORDER_BALANCED };
		struct cal_cell load = tail;
		struct cal_result res;
		double se, diff;

		cal_run(&tail, &o, &res);
		for (int m = 0; m < CAL_BOOTSTRAP; m++)
			for (int l = 0; l < CAL_LIMITS; l++)
				if (cal_share(&res, (enum cal_method)m, l, CAL_FAIL) > bound)
					fail_msg("A/A slow tail, CV %g, %zu rounds, L = %g: %s FAILs "
						 "%.2f %%", tail.cv, tail.rounds, cal_limits[l],
						 cal_method_names[m],
						 cal_share(&res, (enum cal_method)m, l, CAL_FAIL) * 100);
		tail.effect = 1.2;
		cal_run(&tail, &o, &res);
		diff = cal_fail_diff(&res, CAL_MW, 1, &se);
		if (diff > -2 * se)
			fail_msg("+20 %% slow tail, CV %g, %zu rounds: paired FAILs %.2f %%, "
				 "unpaired MW %.2f %%", tail.cv, tail.rounds,
				 cal_share(&res, CAL_PAIRED, 1, CAL_FAIL) * 100,
				 cal_share(&res, CAL_MW, 1, CAL_FAIL) * 100);
		assert_true(cal_share(&res, CAL_BOTH, 1, CAL_FAIL) >
			    cal_share(&res, CAL_PAIRED, 1, CAL_FAIL));
		load.model = CAL_SHARED_LOAD;
		load.effect = 1.2;
		cal_run(&load, &o, &res);
		diff = cal_fail_diff(&res, CAL_MW, 1, &se);
		if (diff < 2 * se)
			fail_msg("+20 %% shared slow-down, CV %g, %zu rounds: paired FAILs %.2f %%, "
				 "unpaired MW %.2f %%", load.cv, load.rounds,
				 cal_share(&res, CAL_PAIRED, 1, CAL_FAIL) * 100,
				 cal_share(&res, CAL_MW, 1, CAL_FAIL) * 100);
		assert_true(cal_share(&res, CAL_PAIRED, 1, CAL_FAIL) >= POWER_MIN);
		assert_true(cal_share(&res, CAL_BOTH, 1, CAL_FAIL) <
			    cal_share(&res, CAL_PAIRED, 1, CAL_FAIL));
	}
}

/*
 * Issue 39 §2: a round more never lowers the gate's power. Judged as
 * abev's change gate judges (cal_gate(), CAL_RULE_ABEV: unpaired below
 * stats_joint_interval_n_needed() rounds, the paired and the unpaired
 * interval together from there), with rounds added to the same datasets
 * (cal_run_curve()), the share of a true change FAILed at L = 5 does not
 * fall from any number of rounds from 4 to 12 to the next, beyond the
 * simulation's noise: no step falls by 2 standard errors of the step
 * (from the datasets whose verdict it changed; one dataset of 2000 lost
 * near 100 % is 1 SE), under every noise model of the power table. The
 * shared slow-down is held to it from 6 rounds: below that no exact
 * interval exists but the unpaired one, which cannot see through a
 * factor a round's two runs share (its power there is at the A/A level,
 * and dips from 4 to 5 rounds; bench/results.md). The rules before fail
 * this, which the test checks too, so that it can tell: the paired
 * interval from 6 rounds in the two cells (+10 % at CV 2 %: 80.7
 * % at 5 rounds, 72.4 % at 6; +20 % at CV 5 %: 90.5 %, 85.9 %), from 7
 * under one-sided bursts and the slow tail (50.0 % at 6, 37.4 % at 7). On
 * the way the A/A FAIL share at L = 0 stays within 2.5 % + 3 SE at every
 * number of rounds.
 */
#define CURVE_ROUNDS 12

/*
 * The worst step of c's curve from `from` to CURVE_ROUNDS rounds, in
 * standard errors; 0 if none falls.
 */
static double worst_step(const struct cal_curve *c, size_t from, size_t *at)
{
	double worst = 0;

	*at = 0;
	for (size_t r = from; r < CURVE_ROUNDS; r++) {
		double se, step = cal_curve_step(c, r, &se);

		if (step < 0 && (se <= 0 || step / se < worst)) {
			worst = se > 0 ? step / se : -INFINITY;
			*at = r;
		}
	}
	return worst;
}

static void test_power_curve(void **state)
{
	static const struct {
		enum cal_model model;
		double cv, effect;
		size_t from;          /* held to it from this many rounds */
		enum cal_rule fails;  /* a rule before that fails it (CAL_RULE_ABEV: none) */
		size_t fails_at;      /* ... from this many rounds to one more */
	} cells[] = {
		{ CAL_LOGNORMAL, 0.02, 1.1, 4, CAL_RULE_PAIRED_FROM_6, 5 },
		{ CAL_LOGNORMAL, 0.05, 1.2, 4, CAL_RULE_PAIRED_FROM_6, 5 },
		{ CAL_LOGNORMAL, 0.05, 1.1, 4, CAL_RULE_ABEV, 0 },
		{ CAL_LOGNORMAL, 0.10, 1.2, 4, CAL_RULE_ABEV, 0 },
		{ CAL_DRIFT, 0.05, 1.2, 4, CAL_RULE_ABEV, 0 },
		{ CAL_ROUND, 0.05, 1.2, 4, CAL_RULE_ABEV, 0 },
		{ CAL_SHARED_LOAD, 0.05, 1.2, 6, CAL_RULE_ABEV, 0 },
		{ CAL_MACHINE_DRIFT, 0.05, 1.2, 4, CAL_RULE_ABEV, 0 },
		{ CAL_HEAVY, 0.05, 1.2, 4, CAL_RULE_ABEV, 0 },
		{ CAL_BURSTS, 0.05, 1.2, 4, CAL_RULE_PAIRED_FROM_7, 6 },
		{ CAL_SLOW_TAIL, 0.05, 1.2, 4, CAL_RULE_PAIRED_FROM_7, 6 },
	};
	size_t at;
	unsigned n = datasets();
	double bound = AA_FAIL_MAX + 3 * cal_se(AA_FAIL_MAX, n), worst;
	struct cal_curve c;

	(void)state;
	assert_int_equal(stats_joint_interval_n_needed(CAL_LEVEL), 7);
	for (size_t i = 0; i < ARRAY_SIZE(cells); i++) {
		struct cal_cell cell = { cells[i].model, cells[i].cv, CURVE_ROUNDS, cells[i].effect,
					 0, CAL_ORDER_BALANCED };

		cal_run_curve(&cell, CAL_RULE_ABEV, 5, n, &c);
		worst = worst_step(&c, cells[i].from, &at);
		if (worst <= -2)
			fail_msg("%s, CV %g, %+g %%: the power falls from %zu rounds to %zu, %.1f %% "
				 "to %.1f %% (%.1f SE)", cal_model_names[cells[i].model],
				 cells[i].cv, (cells[i].effect - 1) * 100, at, at + 1,
				 cal_curve_share(&c, at, CAL_FAIL) * 100,
				 cal_curve_share(&c, at + 1, CAL_FAIL) * 100, worst);
		if (cells[i].fails != CAL_RULE_ABEV) {
			cal_run_curve(&cell, cells[i].fails, 5, n, &c);
			assert_true(worst_step(&c, cells[i].from, &at) <= -2);
			assert_int_equal(at, cells[i].fails_at);
		}
	}
	for (size_t i = 0; i < 2; i++) {
		struct cal_cell aa = { i ? CAL_SHARED_LOAD : CAL_LOGNORMAL, 0.05, CURVE_ROUNDS, 1, 0,
				       CAL_ORDER_BALANCED };

		cal_run_curve(&aa, CAL_RULE_ABEV, 0, n, &c);
		for (size_t r = 4; r <= CURVE_ROUNDS; r++)
			if (cal_curve_share(&c, r, CAL_FAIL) > bound)
				fail_msg("A/A %s, %zu rounds: the gate FAILs %.2f %% at L = 0",
					 cal_model_names[aa.model], r,
					 cal_curve_share(&c, r, CAL_FAIL) * 100);
	}
}

/*
 * Issue 30 §2, a shape change: 30 % of the candidate's runs 1.3 times as
 * slow, no shift. The estimate abev prints, the paired Hodges-Lehmann
 * one, aims at the pseudo-median of a round's ratio, and its interval
 * holds that at least 95 % - 3 SE of the time; it holds the ratio of
 * medians (the "median change" a user may read it as, much smaller)
 * less often than that, at CV 5 % with 16 rounds: the interval says
 * what a typical round's ratio did, not how the median moved.
 */
static void test_shape_change(void **state)
{
	struct cal_cell cell = { CAL_SHAPE, 0.05, 16, 1, 0, CAL_ORDER_BALANCED };
	double *work = malloc(3 * (size_t)CAL_TRUTH_DRAWS * sizeof(*work));
	double truths[CAL_TRUTHS];
	struct cal_options o = { .datasets = datasets(), .resamples = 1,
				 .methods = 1u << CAL_PAIRED, .truths = truths,
				 .ntruths = CAL_TRUTHS };
	double least = CAL_LEVEL - 3 * cal_se(CAL_LEVEL, o.datasets);
	struct cal_result res;
	double pseudo, median;

	(void)state;
	assert_non_null(work);
	cal_shape_truths(cell.cv, work, truths);
	free(work);
	/* The ratio of medians is well below the pseudo-median: the point of the model. */
	assert_true(truths[0] < truths[2]);
	cal_run(&cell, &o, &res);
	assert_int_equal(res.intervals[CAL_PAIRED], o.datasets);
	pseudo = (double)res.holds[CAL_PAIRED][2] / o.datasets;
	median = (double)res.holds[CAL_PAIRED][0] / o.datasets;
	if (pseudo < least || median >= least)
		fail_msg("shape change: the paired interval held the pseudo-median ratio in %.2f %%, "
			 "the ratio of medians in %.2f %% (want at least and under %.2f %%)",
			 pseudo * 100, median * 100, least * 100);
}

/*
 * Issue 30 §1 in the simulation: a metric that reads 0 in 5 % of runs.
 * No method PASSes or FAILs a dataset with a 0 (abev's gates have no
 * interval then: test_compare's test_no_round_dropped_silently), while the
 * paired interval on the rounds left, had they been dropped, PASSes many
 * A/A datasets at L = 5. Under schedule.until "decided" a 0 leaves that
 * look and every later one undecided: an A/A gate PASSes at most in the
 * datasets whose first look (8 rounds, 16 runs) has no 0, 0.95^16.
 */
static void test_zero_values(void **state)
{
	static const size_t looks[] = { 8, 12, 18, 27, 32 };
	struct cal_cell cell = { CAL_ZERO, 0.05, 16, 1, 0, CAL_ORDER_BALANCED };
	struct cal_options o = { .datasets = datasets(), .resamples = 1,
				 .methods = CAL_EXACT_METHODS };
	struct cal_result res;
	struct cal_seq_result seq;
	double clean = pow(1 - CAL_ZERO_SHARE, 16), pass;

	(void)state;
	cal_run(&cell, &o, &res);
	assert_true(res.with_zero > 0);
	for (int m = 0; m < CAL_BOOTSTRAP; m++)
		for (int l = 0; l < CAL_LIMITS; l++)
			assert_true(res.verdicts[m][l][CAL_PASS] + res.verdicts[m][l][CAL_FAIL] <=
				    o.datasets - res.with_zero);
	assert_true(res.subset[1][CAL_PASS] > res.with_zero / 2);
	cal_run_sequential(&cell, looks, ARRAY_SIZE(looks), 5, o.datasets, &seq);
	pass = (double)seq.verdicts[CAL_PASS] / o.datasets;
	if (pass > clean + 3 * cal_se(clean, o.datasets))
		fail_msg("until decided, zero values: A/A PASSed in %.2f %%, above the %.2f %% "
			 "without a 0 in the first look", pass * 100, clean * 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_rule),
		cmocka_unit_test(test_aa_fail_rate),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_contention),
		cmocka_unit_test(test_machine_drift),
		cmocka_unit_test(test_method_choice),
		cmocka_unit_test(test_power_curve),
		cmocka_unit_test(test_shape_change),
		cmocka_unit_test(test_zero_values),
		cmocka_unit_test(test_gates_family),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
