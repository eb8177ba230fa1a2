/*
 * guards: the table of guards (guard.h), in the manner of libarchive's
 * registered readers: each row says when its guard applies and adapts a
 * guard_input to the guard's own function, so that the judge runs one
 * loop and a new guard is a file and a row.
 */
#include "guards/guard.h"

#include <string.h>

static int exit_code_applies(const struct guard_input *in)
{
	return in->exited;
}

static void exit_code_judge(const struct guard_input *in, const struct guard_result *before,
			    size_t nbefore, struct guard_result *out, struct guard_effect *fx)
{
	(void)before, (void)nbefore, (void)fx;
	guard_exit_code(in->exit_code, in->allowed_codes, in->nallowed_codes, out);
}

static int results_applies(const struct guard_input *in)
{
	return in->has_results;
}

static void min_executed_judge(const struct guard_input *in, const struct guard_result *before,
			       size_t nbefore, struct guard_result *out, struct guard_effect *fx)
{
	(void)before, (void)nbefore, (void)fx;
	guard_min_executed(in->executed, in->total, in->min_executed, in->nfiles + in->refused,
			   in->refused, in->results_pattern, in->aborted, out);
}

static void tests_passed_judge(const struct guard_input *in, const struct guard_result *before,
			       size_t nbefore, struct guard_result *out, struct guard_effect *fx)
{
	(void)before, (void)nbefore, (void)fx;
	guard_tests_passed(in->unexpected, in->known, in->failures, in->nfailures, in->nfiles,
			   in->refused, out);
}

static int metrics_applies(const struct guard_input *in)
{
	return in->has_metrics;
}

static void metrics_judge(const struct guard_input *in, const struct guard_result *before,
			  size_t nbefore, struct guard_result *out, struct guard_effect *fx)
{
	(void)before, (void)nbefore, (void)fx;
	guard_metrics(in->metrics, in->nmetrics, in->capped, out);
}

static int test_set_applies(const struct guard_input *in)
{
	return in->names != NULL;
}

/*
 * Only an invocation that passed everything else may set the reference;
 * a metric it did not yield says nothing of the tests it ran (and it
 * still counts for the metrics it did yield), so the metrics guard does
 * not stop it.
 */
static void test_set_judge(const struct guard_input *in, const struct guard_result *before,
			   size_t nbefore, struct guard_result *out, struct guard_effect *fx)
{
	int sound = in->status_ok;

	for (size_t i = 0; i < nbefore; i++)
		sound &= before[i].verdict == GUARD_PASS || before[i].kind == GUARD_METRICS;
	if (in->ref)
		guard_test_set(in->ref, in->ref_label, in->names, out);
	else
		fx->took_reference = guard_test_set_first(in->names, sound, out);
}

static int load_applies(const struct guard_input *in)
{
	return in->load != NULL;
}

static void load_judge(const struct guard_input *in, const struct guard_result *before,
		       size_t nbefore, struct guard_result *out, struct guard_effect *fx)
{
	(void)before, (void)nbefore;
	fx->over_limits = guard_load(in->load, out);
}

const struct guard_def guards_table[GUARD_KINDS] = {
	{ GUARD_EXIT_CODE, GUARD_PHASE_RUN, exit_code_applies, exit_code_judge },
	{ GUARD_MIN_EXECUTED, GUARD_PHASE_RUN, results_applies, min_executed_judge },
	{ GUARD_TESTS_PASSED, GUARD_PHASE_RUN, results_applies, tests_passed_judge },
	{ GUARD_METRICS, GUARD_PHASE_RUN, metrics_applies, metrics_judge },
	{ GUARD_TEST_SET, GUARD_PHASE_RUN, test_set_applies, test_set_judge },
	{ GUARD_LOAD, GUARD_PHASE_LOAD, load_applies, load_judge },
};

size_t guards_run(const struct guard_input *in, enum guard_phase phase,
		  struct guard_result *out, struct guard_effect *fx)
{
	size_t n = 0;

	memset(fx, 0, sizeof(*fx));
	for (size_t i = 0; i < GUARD_KINDS; i++) {
		const struct guard_def *d = &guards_table[i];
		if (d->phase != phase || !d->applies(in))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		d->judge(in, out, n, &out[n], fx);
		n++;
	}
	return n;
}
