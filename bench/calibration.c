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
 * ABEV_CALIBRATION_DATASETS (default 2000) datasets per cell and
 * ABEV_CALIBRATION_RESAMPLES (default 999) bootstrap resamples scale it;
 * the defaults take about six minutes on one core of a busy machine.
 * Exit 0, or 2 when a variable is not a number in range.
 */
#include <stdio.h>

#include "calibration_sim.h"
#include "util/compiler.h"

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
		for (size_t c = 0; c < ARRAY_SIZE(cvs); c++)
			for (size_t r = 0; r < ARRAY_SIZE(rounds); r++)
				for (int me = 0; me < CAL_METHODS; me++)
					print_row(mo, c, r, me, aa_bound);
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
		for (size_t i = 0; i < ARRAY_SIZE(accept); i++) {
			size_t c = index_of(cvs, ARRAY_SIZE(cvs), accept[i].cv);
			const struct cal_result *p = &power[mo][c][rounds_index(accept[i].rounds)];
			double se, diff = cal_fail_diff(p, L5, &se);
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
	       "(Bonferroni), paired exact WSR:\n\n");
	printf("| model | CV | A/A FAIL %% (L=0) | A/A FAIL %% (L=5) | +20 %% FAIL %% (L=5) | "
	       "mean rounds (+20 %%) | +20 %% INCONCLUSIVE %% |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|\n");
	for (int mo = 0; mo < CAL_MODELS; mo++)
		for (size_t c = 1; c < ARRAY_SIZE(cvs); c++) {
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
 * Contention past the table's rounds: the paired interval's power for
 * +20 % at L = 5 with 24 to 64 rounds, to show how many the contention
 * models need for 90 %.
 */
static void print_contention_rounds(unsigned n)
{
	static const size_t more[] = { 24, 32, 40, 48, 56, 64 };
	static const enum cal_model models[] = { CAL_SHARED_LOAD, CAL_BURSTS };
	struct cal_options o = { n, 1, 1u << CAL_PAIRED };

	printf("\nContention, paired exact WSR, +20 %% FAIL %% (L=5) by rounds:\n\n");
	printf("| model | CV |");
	for (size_t r = 0; r < ARRAY_SIZE(more); r++)
		printf(" %zu |", more[r]);
	printf("\n|---|---:|");
	for (size_t r = 0; r < ARRAY_SIZE(more); r++)
		printf("---:|");
	printf("\n");
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
	struct cal_options o = { n, 1, 1u << CAL_PAIRED };

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
	struct cal_options o = { n, 1, 1u << CAL_PAIRED };

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

int main(void)
{
	unsigned n = cal_env_unsigned(CAL_ENV_DATASETS, DEFAULT_DATASETS, MAX_DATASETS);
	unsigned b = cal_env_unsigned(CAL_ENV_RESAMPLES, DEFAULT_RESAMPLES,
				      STATS_BOOT_MAX_RESAMPLES);
	struct cal_options o = { n, b, 1u << CAL_PAIRED | 1u << CAL_BOOTSTRAP };

	if (!n || !b) {
		fprintf(stderr, "bench-calibration: %s takes 1 to %u, %s 1 to %u\n",
			CAL_ENV_DATASETS, MAX_DATASETS, CAL_ENV_RESAMPLES,
			STATS_BOOT_MAX_RESAMPLES);
		return 2;
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
	return 0;
}
