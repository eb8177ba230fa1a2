/*
 * bench-calibration: how often the change gate "higher is worse, limit
 * L %" fails, passes or cannot decide on simulated benchmark runs, for the
 * paired exact Wilcoxon signed-rank interval (what the gates judge) and
 * the unpaired bootstrap of the ratio of medians (what they judged
 * before). Prints Markdown on stdout: one row per data model (contention
 * among them), noise (CV), number of rounds and method, then the
 * acceptance cells on their own, the run-until-decided design, the
 * contention models' power with more rounds, and with abev's load guard,
 * and the machine drifting in time in either order of a round's runs.
 * The simulation is tests/unit/calibration_sim.h, the one the unit test
 * test_calibration asserts on: the same cell and number of datasets give
 * the same figures in both. Built and run by `make bench-calibration`;
 * never part of make check.
 *
 * Last, the change gate's power curve: as abev judges it (the unpaired
 * interval below the rounds where the paired one is as tight, the paired
 * one from there), with rounds added to the same data, 4 to 24 rounds.
 *
 * ABEV_CALIBRATION_DATASETS (default 2000) datasets per cell and
 * ABEV_CALIBRATION_RESAMPLES (default 999) bootstrap resamples scale it;
 * the defaults take about six minutes on one core of a busy machine.
 * ABEV_CALIBRATION_ONLY=power-curve prints the power curve alone (make
 * bench-calibration-power), in seconds. Exit 0, or 2 when a variable is
 * not a number in range or names no table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration_sim.h"
#include "util/compiler.h"

/* The one table printed alone when set to ONLY_POWER_CURVE. */
#define ENV_ONLY "ABEV_CALIBRATION_ONLY"
#define ONLY_POWER_CURVE "power-curve"

#define DEFAULT_DATASETS 2000u
#define DEFAULT_RESAMPLES 999u
#define MAX_DATASETS 1000000u

static const double cvs[] = { 0.02, 0.05, 0.10 };
static const size_t rounds[] = { 6, 8, 10, 12, 16, 20, 24 };
/* The true change simulated for power: the candidate 20 % slower. */
#define EFFECT 1.2
/* The limit power is judged at: cal_limits[L5] == 5. */
#define L5 1

/*
 * The acceptance cells: power for +20 % at L = 5 must reach 90 % at these;
 * under contention at CV 10 % within 24 rounds.
 */
static const struct {
	double cv;
	size_t rounds;
} accept[] = { { 0.05, 8 }, { 0.10, 16 }, { 0.10, 24 } };

static struct cal_result aa[CAL_MODELS][ARRAY_SIZE(cvs)][ARRAY_SIZE(rounds)];
static struct cal_result power[CAL_MODELS][ARRAY_SIZE(cvs)][ARRAY_SIZE(rounds)];

static double pct(const struct cal_result *r, int m, int l, enum cal_verdict v)
{
	return cal_share(r, (enum cal_method)m, l, v) * 100;
}

/* One row: a model, CV and number of rounds judged by one method. */
static void print_row(int mo, size_t c, size_t r, int me, double aa_bound)
{
	const struct cal_result *a = &aa[mo][c][r], *p = &power[mo][c][r];
	double f0 = pct(a, me, 0, CAL_FAIL), f5 = pct(a, me, L5, CAL_FAIL);

	printf("| %s | %g %% | %zu | %s | %.2f%s | %.2f%s | %.1f | %.1f | %.1f |\n",
	       cal_model_names[mo], cvs[c] * 100, rounds[r], cal_method_names[me],
	       f0, f0 > aa_bound ? " (!)" : "", f5, f5 > aa_bound ? " (!)" : "",
	       pct(a, me, L5, CAL_INCONCLUSIVE), pct(p, me, L5, CAL_FAIL),
	       pct(p, me, L5, CAL_INCONCLUSIVE));
}

static void print_table(unsigned n)
{
	double aa_bound = (0.025 + 3 * cal_se(0.025, n)) * 100;

	printf("| model | CV | rounds | method | A/A FAIL %% (L=0) | A/A FAIL %% (L=5) | "
	       "A/A INCONCLUSIVE %% (L=5) | +20 %% FAIL %% (L=5) | "
	       "+20 %% INCONCLUSIVE %% (L=5) |\n");
	printf("|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
	for (int mo = 0; mo < CAL_MODELS; mo++)
		for (size_t c = 0; mo != CAL_SHAPE && c < ARRAY_SIZE(cvs); c++)
			for (size_t r = 0; r < ARRAY_SIZE(rounds); r++) {
				print_row(mo, c, r, CAL_PAIRED, aa_bound);
				print_row(mo, c, r, CAL_BOOTSTRAP, aa_bound);
			}
	printf("\n(!) marks an A/A FAIL share above 2.5 %% + 3 simulation SE (%.2f %%).\n",
	       aa_bound);
}

/* The index of x in v[0..n), n when it is not there. */
static size_t index_of(const double *v, size_t n, double x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return i;
	return n;
}

static size_t rounds_index(size_t x)
{
	for (size_t i = 0; i < ARRAY_SIZE(rounds); i++)
		if (rounds[i] == x)
			return i;
	return ARRAY_SIZE(rounds);
}

static void print_acceptance(void)
{
	printf("\n| model | CV | rounds | +20 %% FAIL %% (L=5): paired | bootstrap | "
	       "paired - bootstrap (SE), same datasets | paired >= 90 %% |\n");
	printf("|---|---:|---:|---:|---:|---:|---|\n");
	for (int mo = 0; mo < CAL_MODELS; mo++)
		for (size_t i = 0; mo != CAL_SHAPE && i < ARRAY_SIZE(accept); i++) {
			size_t c = index_of(cvs, ARRAY_SIZE(cvs), accept[i].cv);
			const struct cal_result *p = &power[mo][c][rounds_index(accept[i].rounds)];
			double se, diff = cal_fail_diff(p, CAL_BOOTSTRAP, L5, &se);
			double fp = pct(p, CAL_PAIRED, L5, CAL_FAIL);

			printf("| %s | %g %% | %zu | %.2f | %.2f | %+.2f (%.2f) | %s |\n",
			       cal_model_names[mo], accept[i].cv * 100, accept[i].rounds, fp,
			       pct(p, CAL_BOOTSTRAP, L5, CAL_FAIL), diff * 100, se * 100,
			       fp >= 90 ? "yes" : "**no**");
		}
}

/*
 * schedule.until "decided" with the default looks for 32 rounds at 95 %
 * (8, 12, 18, 27, 32; each at 99 %): the final verdict over all the looks,
 * and the rounds run on average.
 */
static void print_sequential(unsigned n)
{
	static const size_t looks[] = { 8, 12, 18, 27, 32 };

	printf("\nschedule.until \"decided\", looks after rounds 8, 12, 18, 27, 32, each at 99 %% "
	       "(Bonferroni), judged as abev's gates judge (cal_gate_at(): the paired and the "
	       "unpaired interval together from the rounds at which both exist, else the unpaired "
	       "one alone):\n\n");
	printf("| model | CV | A/A FAIL %% (L=0) | A/A FAIL %% (L=5) | +20 %% FAIL %% (L=5) | "
	       "mean rounds (+20 %%) | +20 %% INCONCLUSIVE %% |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|\n");
	for (int mo = 0; mo < CAL_MODELS; mo++)
		for (size_t c = 1; mo != CAL_SHAPE && c < ARRAY_SIZE(cvs); c++) {
			struct cal_cell same = { (enum cal_model)mo, cvs[c], 32, 1, 0,
						 CAL_ORDER_BALANCED };
			struct cal_cell slow = { (enum cal_model)mo, cvs[c], 32, EFFECT, 0,
						 CAL_ORDER_BALANCED };
			struct cal_seq_result a0, a5, p5;

			cal_run_sequential(&same, looks, ARRAY_SIZE(looks), 0, n, &a0);
			cal_run_sequential(&same, looks, ARRAY_SIZE(looks), 5, n, &a5);
			cal_run_sequential(&slow, looks, ARRAY_SIZE(looks), 5, n, &p5);
			printf("| %s | %g %% | %.2f | %.2f | %.1f | %.1f | %.1f |\n",
			       cal_model_names[mo], cvs[c] * 100,
			       100.0 * a0.verdicts[CAL_FAIL] / n, 100.0 * a5.verdicts[CAL_FAIL] / n,
			       100.0 * p5.verdicts[CAL_FAIL] / n, (double)p5.rounds / n,
			       100.0 * p5.verdicts[CAL_INCONCLUSIVE] / n);
		}
}

/*
 * A table's header whose middle columns are numbers of rounds: head's
 * cells, one per cols[0..n), then tail's; align, the n right-aligned
 * columns and tail_align make its second line.
 */
static void print_rounds_header(const char *head, const char *align, const size_t *cols,
				size_t n, const char *tail, const char *tail_align)
{
	printf("%s", head);
	for (size_t k = 0; k < n; k++)
		printf(" %zu |", cols[k]);
	printf("%s\n%s", tail, align);
	for (size_t k = 0; k < n; k++)
		printf("---:|");
	printf("%s\n", tail_align);
}

/*
 * Contention and heavy tails past the table's rounds: the paired
 * interval's power for +20 % at L = 5 with 24 to 64 rounds, to show how
 * many these models need for 90 %.
 */
static void print_contention_rounds(unsigned n)
{
	static const size_t more[] = { 24, 32, 40, 48, 56, 64 };
	static const enum cal_model models[] = { CAL_SHARED_LOAD, CAL_BURSTS, CAL_HEAVY,
						 CAL_SLOW_TAIL };
	struct cal_options o = { .datasets = n, .resamples = 1, .methods = 1u << CAL_PAIRED };

	printf("\nContention and heavy tails, paired exact WSR, +20 %% FAIL %% (L=5) by rounds:\n\n");
	print_rounds_header("| model | CV |", "|---|---:|", more, ARRAY_SIZE(more), "", "");
	for (size_t m = 0; m < ARRAY_SIZE(models); m++)
		for (size_t c = 1; c < ARRAY_SIZE(cvs); c++) {
			printf("| %s | %g %% |", cal_model_names[models[m]], cvs[c] * 100);
			for (size_t r = 0; r < ARRAY_SIZE(more); r++) {
				struct cal_cell cell = { models[m], cvs[c], more[r], EFFECT, 0,
							 CAL_ORDER_BALANCED };
				struct cal_result res;

				cal_run(&cell, &o, &res);
				printf(" %.1f |", pct(&res, CAL_PAIRED, L5, CAL_FAIL));
			}
			printf("\n");
		}
}

/*
 * The contention models with abev's load guard (calibration_sim.h): a run
 * hit where its round's other run was not is repeated, a round loaded
 * alike is kept. A/A and +20 % by rounds, paired exact WSR.
 */
static void print_guarded(unsigned n)
{
	static const size_t some[] = { 8, 12, 16, 24 };
	static const enum cal_model models[] = { CAL_SHARED_LOAD, CAL_BURSTS };
	struct cal_options o = { .datasets = n, .resamples = 1, .methods = 1u << CAL_PAIRED };

	printf("\nContention with abev's load guard (limit %g %%, %d repeats), paired exact WSR:\n\n",
	       CAL_GUARD_LIMIT, CAL_GUARD_REPEATS);
	printf("| model | CV | rounds | A/A FAIL %% (L=0) | A/A FAIL %% (L=5) | "
	       "+20 %% FAIL %% (L=5) | +20 %% INCONCLUSIVE %% (L=5) |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t m = 0; m < ARRAY_SIZE(models); m++)
		for (size_t c = 1; c < ARRAY_SIZE(cvs); c++)
			for (size_t r = 0; r < ARRAY_SIZE(some); r++) {
				struct cal_cell cell = { models[m], cvs[c], some[r], 1, 1,
							 CAL_ORDER_BALANCED };
				struct cal_result a, p;

				cal_run(&cell, &o, &a);
				cell.effect = EFFECT;
				cal_run(&cell, &o, &p);
				printf("| %s | %g %% | %zu | %.2f | %.2f | %.1f | %.1f |\n",
				       cal_model_names[models[m]], cvs[c] * 100, some[r],
				       pct(&a, CAL_PAIRED, 0, CAL_FAIL),
				       pct(&a, CAL_PAIRED, L5, CAL_FAIL),
				       pct(&p, CAL_PAIRED, L5, CAL_FAIL),
				       pct(&p, CAL_PAIRED, L5, CAL_INCONCLUSIVE));
			}
}

/*
 * The machine drifting 1 % a round (calibration_sim.h), in the two orders
 * of a round's runs: A/A FAIL shares, how often the paired interval held
 * the true ratio against the coverage it stated, and power, by CV and
 * rounds. The orders see the same noise (cal_seed()).
 */
static void print_machine_drift(unsigned n)
{
	static const size_t some[] = { 8, 16, 32 };
	struct cal_options o = { .datasets = n, .resamples = 1, .methods = 1u << CAL_PAIRED };

	printf("\nMachine drift (%g %% a round), by the order of a round's runs, "
	       "paired exact WSR:\n\n", CAL_MACHINE_DRIFT_PER_ROUND * 100);
	printf("| order | CV | rounds | A/A FAIL %% (L=0) | A/A FAIL %% (L=5) | "
	       "A/A coverage %% (stated) | +20 %% FAIL %% (L=5) |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|\n");
	for (int ord = 0; ord < CAL_ORDERS; ord++)
		for (size_t c = 0; c < ARRAY_SIZE(cvs); c++)
			for (size_t r = 0; r < ARRAY_SIZE(some); r++) {
				struct cal_cell cell = { CAL_MACHINE_DRIFT, cvs[c], some[r], 1, 0,
							 (enum cal_order)ord };
				struct cal_result a, p;
				double stated, covered;

				cal_run(&cell, &o, &a);
				cell.effect = EFFECT;
				cal_run(&cell, &o, &p);
				covered = cal_coverage(&a, CAL_PAIRED, &stated);
				printf("| %s | %g %% | %zu | %.2f | %.2f | %.1f (%.1f) | %.1f |\n",
				       cal_order_names[ord], cvs[c] * 100, some[r],
				       pct(&a, CAL_PAIRED, 0, CAL_FAIL),
				       pct(&a, CAL_PAIRED, L5, CAL_FAIL), covered * 100,
				       stated * 100, pct(&p, CAL_PAIRED, L5, CAL_FAIL));
			}
}

/* The A/A FAIL share of method me at limit index l, the largest over model mo's cells. */
static double worst_aa(int mo, int me, int l)
{
	double w = 0;

	for (size_t c = 0; c < ARRAY_SIZE(cvs); c++)
		for (size_t r = 0; r < ARRAY_SIZE(rounds); r++)
			if (pct(&aa[mo][c][r], me, l, CAL_FAIL) > w)
				w = pct(&aa[mo][c][r], me, l, CAL_FAIL);
	return w;
}

/*
 * Per model and method: the largest A/A FAIL share over the model's 21
 * cells (CV x rounds) and the power at the acceptance cells: what the
 * choice of method rests on.
 */
static void print_methods(void)
{
	printf("\nEvery method, per model: the largest A/A FAIL share over its 21 cells (CV 2-10 %%, "
	       "6-24 rounds) and +20 %% FAIL %% (L=5) at the acceptance cells:\n\n");
	printf("| model | method | worst A/A FAIL %% (L=0) | worst A/A FAIL %% (L=5) |");
	for (size_t i = 0; i < ARRAY_SIZE(accept); i++)
		printf(" +20 %%, CV %g %%, %zu rounds |", accept[i].cv * 100, accept[i].rounds);
	printf("\n|---|---|---:|---:|");
	for (size_t i = 0; i < ARRAY_SIZE(accept); i++)
		printf("---:|");
	printf("\n");
	for (int mo = 0; mo < CAL_MODELS; mo++)
		for (int me = 0; mo != CAL_SHAPE && me < CAL_METHODS; me++) {
			printf("| %s | %s | %.2f | %.2f |", cal_model_names[mo], cal_method_names[me],
			       worst_aa(mo, me, 0), worst_aa(mo, me, L5));
			for (size_t i = 0; i < ARRAY_SIZE(accept); i++) {
				size_t c = index_of(cvs, ARRAY_SIZE(cvs), accept[i].cv);
				const struct cal_result *p =
					&power[mo][c][rounds_index(accept[i].rounds)];

				printf(" %.1f |", pct(p, me, L5, CAL_FAIL));
			}
			printf("\n");
		}
}

/*
 * The shape change (CAL_SHAPE) without a shift: what each method decides
 * at L = 0 and L = 5, the geometric mean of its estimates, and how often
 * its interval held each of the true ratios (cal_shape_truths()).
 */
static void print_shape(unsigned n, unsigned b)
{
	static const size_t some[] = { 8, 16, 24 };
	static const char *const truth_names[CAL_TRUTHS] = {
		"ratio of medians", "median ratio", "pseudo-median ratio", "ratio of means",
	};
	double *work = malloc(3 * (size_t)CAL_TRUTH_DRAWS * sizeof(*work));

	if (!work) {
		fprintf(stderr, "bench-calibration: out of memory\n");
		exit(1);
	}
	printf("\nShape change: %g %% of the candidate's runs %g times as slow, no shift. The true "
	       "ratios, from %u draws a side:\n\n", CAL_SHAPE_SHARE * 100, CAL_SHAPE_FACTOR,
	       CAL_TRUTH_DRAWS);
	printf("| CV |");
	for (int i = 0; i < CAL_TRUTHS; i++)
		printf(" %s |", truth_names[i]);
	printf("\n|---:|---:|---:|---:|---:|\n");
	for (size_t c = 0; c < ARRAY_SIZE(cvs); c++) {
		double t[CAL_TRUTHS];

		cal_shape_truths(cvs[c], work, t);
		printf("| %g %% |", cvs[c] * 100);
		for (int i = 0; i < CAL_TRUTHS; i++)
			printf(" %+.2f %% |", (t[i] - 1) * 100);
		printf("\n");
	}
	printf("\nShape change, by method: verdicts, the estimate (geometric mean over the datasets) "
	       "and how often the interval held each true ratio:\n\n");
	printf("| CV | rounds | method | FAIL %% (L=0) | FAIL %% (L=5) | PASS %% (L=5) | estimate |");
	for (int i = 0; i < CAL_TRUTHS; i++)
		printf(" holds %s %% |", truth_names[i]);
	printf("\n|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t c = 0; c < ARRAY_SIZE(cvs); c++) {
		double t[CAL_TRUTHS];

		cal_shape_truths(cvs[c], work, t);
		for (size_t r = 0; r < ARRAY_SIZE(some); r++) {
			struct cal_cell cell = { CAL_SHAPE, cvs[c], some[r], 1, 0,
						 CAL_ORDER_BALANCED };
			struct cal_options o = { .datasets = n, .resamples = b,
						 .methods = CAL_EXACT_METHODS | 1u << CAL_BOOTSTRAP,
						 .truths = t, .ntruths = CAL_TRUTHS };
			struct cal_result res;

			cal_run(&cell, &o, &res);
			for (int me = 0; me < CAL_METHODS; me++) {
				unsigned k = res.intervals[me];

				printf("| %g %% | %zu | %s | %.1f | %.1f | %.1f | %+.2f %% |",
				       cvs[c] * 100, some[r], cal_method_names[me],
				       pct(&res, me, 0, CAL_FAIL), pct(&res, me, L5, CAL_FAIL),
				       pct(&res, me, L5, CAL_PASS),
				       k ? (exp(res.log_point[me] / k) - 1) * 100 : NAN);
				for (int i = 0; i < CAL_TRUTHS; i++)
					printf(" %.1f |", k ? 100.0 * res.holds[me][i] / k : NAN);
				printf("\n");
			}
		}
	}
	free(work);
}

/*
 * Zero values (CAL_ZERO): the share of datasets with a reading of 0,
 * which every method leaves INCONCLUSIVE as abev's gates do (its PASS and
 * FAIL come from the others alone), and what the paired interval would
 * have said had the rounds with a 0 been dropped.
 */
static void print_zero(unsigned n)
{
	static const size_t some[] = { 8, 16, 24 };
	struct cal_options o = { .datasets = n, .resamples = 1, .methods = CAL_EXACT_METHODS };

	printf("\nZero values: %g %% of the runs of either side read 0. Datasets with a 0, what "
	       "the gates said of them, and what the paired interval says of the rounds left when "
	       "those with a 0 are dropped:\n\n", CAL_ZERO_SHARE * 100);
	printf("| CV | rounds | true change | datasets with a 0 %% | paired: PASS %% (L=5) | "
	       "paired: FAIL %% (L=5) | rounds with a 0 dropped: PASS %% (L=5) | "
	       "rounds with a 0 dropped: FAIL %% (L=5) |\n");
	printf("|---:|---:|---|---:|---:|---:|---:|---:|\n");
	for (size_t c = 1; c < ARRAY_SIZE(cvs); c++)
		for (size_t r = 0; r < ARRAY_SIZE(some); r++)
			for (int e = 0; e < 2; e++) {
				struct cal_cell cell = { CAL_ZERO, cvs[c], some[r], e ? EFFECT : 1, 0,
							 CAL_ORDER_BALANCED };
				struct cal_result res;

				cal_run(&cell, &o, &res);
				printf("| %g %% | %zu | %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n",
				       cvs[c] * 100, some[r], e ? "+20 %" : "none (A/A)",
				       100.0 * res.with_zero / n, pct(&res, CAL_PAIRED, L5, CAL_PASS),
				       pct(&res, CAL_PAIRED, L5, CAL_FAIL),
				       100.0 * res.subset[L5][CAL_PASS] / n,
				       100.0 * res.subset[L5][CAL_FAIL] / n);
			}
}

/*
 * The change gate's power curve (cal_run_curve()): the FAIL share at L = 5
 * by rounds, each dataset drawn to the last column's rounds and judged on
 * its first n, so that each column adds a round to the data of the one
 * before. Each row is abev's rule (CAL_RULE_ABEV: the unpaired interval
 * below stats_joint_interval_n_needed() rounds, 7 at 95 %, the paired and
 * the unpaired one together from there); some also by the rules before
 * (the paired interval alone from 6 rounds, whose sixth round lowered the
 * power in the two cells, and from 7, whose seventh lowered it
 * under one-sided bursts and the slow tail); and A/A rows at L = 0, the
 * false FAILs the rule gives on the way.
 */
static void print_power_curve(unsigned n)
{
	static const size_t cols[] = { 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 20, 24 };
	static const struct {
		enum cal_model model;
		double cv, effect, limit;
		unsigned rules;   /* 1 << enum cal_rule: the rules it is shown under */
	} rows[] = {
#define ALL (1u << CAL_RULE_ABEV | 1u << CAL_RULE_PAIRED_FROM_6 | 1u << CAL_RULE_PAIRED_FROM_7)
#define ABEV (1u << CAL_RULE_ABEV)
		{ CAL_LOGNORMAL, 0.02, 1.10, 5, ALL },
		{ CAL_LOGNORMAL, 0.05, 1.20, 5, ALL },
		{ CAL_LOGNORMAL, 0.05, 1.10, 5, ABEV },
		{ CAL_LOGNORMAL, 0.10, 1.20, 5, ABEV },
		{ CAL_DRIFT, 0.05, 1.20, 5, ABEV },
		{ CAL_ROUND, 0.05, 1.20, 5, ABEV },
		{ CAL_SHARED_LOAD, 0.05, 1.20, 5, ALL },
		{ CAL_MACHINE_DRIFT, 0.05, 1.20, 5, ABEV },
		{ CAL_HEAVY, 0.05, 1.20, 5, ABEV | 1u << CAL_RULE_PAIRED_FROM_7 },
		{ CAL_BURSTS, 0.05, 1.20, 5, ABEV | 1u << CAL_RULE_PAIRED_FROM_7 },
		{ CAL_SLOW_TAIL, 0.05, 1.20, 5, ABEV | 1u << CAL_RULE_PAIRED_FROM_7 },
		{ CAL_LOGNORMAL, 0.05, 1.00, 0, ABEV | 1u << CAL_RULE_PAIRED_FROM_7 },
		{ CAL_SHARED_LOAD, 0.05, 1.00, 0, ABEV | 1u << CAL_RULE_PAIRED_FROM_7 },
		{ CAL_BURSTS, 0.05, 1.00, 0, ABEV | 1u << CAL_RULE_PAIRED_FROM_7 },
		{ CAL_SLOW_TAIL, 0.05, 1.00, 0, ABEV | 1u << CAL_RULE_PAIRED_FROM_7 },
#undef ALL
#undef ABEV
	};
	size_t last = cols[ARRAY_SIZE(cols) - 1];
	size_t from = stats_joint_interval_n_needed(CAL_LEVEL);

	printf("\nThe change gate's power curve: FAIL %% by rounds, each dataset drawn to %zu "
	       "rounds and judged on its first n (a column adds a round to the data of the one "
	       "before); abev's rule: the unpaired exact interval below %zu rounds, the paired "
	       "and the unpaired one together from %zu:\n\n", last, from, from);
	print_rounds_header("| model | CV | true change | L | rule |", "|---|---:|---:|---:|---|",
			    cols, ARRAY_SIZE(cols), " never lower, 4-12 |", "---|");
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		for (int rule = 0; rule < CAL_RULES; rule++) {
			struct cal_cell cell = { rows[i].model, rows[i].cv, last, rows[i].effect, 0,
						 CAL_ORDER_BALANCED };
			struct cal_curve cv;
			size_t worst = 0;
			double step, se, worst_step = 0, worst_se = 0;

			if (!(rows[i].rules & 1u << rule))
				continue;
			cal_run_curve(&cell, (enum cal_rule)rule, rows[i].limit, n, &cv);
			printf("| %s | %g %% | %+g %% | %g %% | %s |", cal_model_names[rows[i].model],
			       rows[i].cv * 100, (rows[i].effect - 1) * 100, rows[i].limit,
			       cal_rule_names[rule]);
			for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
				printf(" %.1f |", cal_curve_share(&cv, cols[k], CAL_FAIL) * 100);
			/* The largest fall from one round to the next, with its SE. */
			for (size_t r = 4; r < 12; r++) {
				step = cal_curve_step(&cv, r, &se);
				if (step < worst_step) {
					worst = r;
					worst_step = step;
					worst_se = se;
				}
			}
			if (rows[i].effect == 1)
				printf(" (A/A) |\n");
			else if (!worst)
				printf(" yes |\n");
			else if (worst_step > -2 * worst_se)
				printf(" yes, within noise: %zu to %zu rounds %+.1f (SE %.1f) |\n", worst,
				       worst + 1, worst_step * 100, worst_se * 100);
			else
				printf(" **no**: %zu to %zu rounds %+.1f (SE %.1f) |\n", worst, worst + 1,
				       worst_step * 100, worst_se * 100);
		}
}

int main(void)
{
	unsigned n = cal_env_unsigned(CAL_ENV_DATASETS, DEFAULT_DATASETS, MAX_DATASETS);
	unsigned b = cal_env_unsigned(CAL_ENV_RESAMPLES, DEFAULT_RESAMPLES,
				      STATS_BOOT_MAX_RESAMPLES);
	struct cal_options o = { .datasets = n, .resamples = b,
				 .methods = CAL_EXACT_METHODS | 1u << CAL_BOOTSTRAP };

	const char *only = getenv(ENV_ONLY);

	if (!n || !b) {
		fprintf(stderr, "bench-calibration: %s takes 1 to %u, %s 1 to %u\n",
			CAL_ENV_DATASETS, MAX_DATASETS, CAL_ENV_RESAMPLES,
			STATS_BOOT_MAX_RESAMPLES);
		return 2;
	}
	if (only && *only && strcmp(only, ONLY_POWER_CURVE)) {
		fprintf(stderr, "bench-calibration: %s takes only \"%s\"\n", ENV_ONLY,
			ONLY_POWER_CURVE);
		return 2;
	}
	if (only && *only) {
		printf("Seeded simulation, %u datasets per cell, level 95 %%.\n", n);
		print_power_curve(n);
		return 0;
	}
	for (int mo = 0; mo < CAL_MODELS; mo++)
		for (size_t c = 0; c < ARRAY_SIZE(cvs); c++)
			for (size_t r = 0; r < ARRAY_SIZE(rounds); r++) {
				struct cal_cell cell = { (enum cal_model)mo, cvs[c], rounds[r], 1,
							 0, CAL_ORDER_BALANCED };

				cal_run(&cell, &o, &aa[mo][c][r]);
				cell.effect = EFFECT;
				cal_run(&cell, &o, &power[mo][c][r]);
			}
	printf("Seeded simulation, %u datasets per cell, %u bootstrap resamples, "
	       "level 95 %%.\n\n", n, b);
	print_table(n);
	print_acceptance();
	print_sequential(n);
	print_contention_rounds(n);
	print_guarded(n);
	print_machine_drift(n);
	print_methods();
	print_shape(n, b);
	print_zero(n);
	print_power_curve(n);
	return 0;
}
