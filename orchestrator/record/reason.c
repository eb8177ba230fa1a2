/*
 * reason: the one table of the comparison's reason codes — name, place
 * and what each means (reason.h). The words a report prints are
 * report/reason_words.c's.
 */
#include "record/reason.h"

#include <string.h>

static const struct {
	const char *name;
	enum reason_place place;
	const char *doc;
} reasons[REASON_CODES] = {
	[REASON_NO_CHANGE] = { "no_change", REASON_IN_GATE,
		"No change against the reference can be computed; the variant's `change_note` says why." },
	[REASON_NO_INTERVAL] = { "no_interval", REASON_IN_GATE,
		"The change (`observed`) has no interval to judge the limit by; the gate's `note` says why "
		"and `n_needed` how many rounds or runs a side the interval needs." },
	[REASON_INTERVAL_WITHIN_LIMIT] = { "interval_within_limit", REASON_IN_GATE,
		"The whole interval of the change (`interval`, `method`, `coverage`, `n`) is within the limit: pass." },
	[REASON_INTERVAL_BEYOND_LIMIT] = { "interval_beyond_limit", REASON_IN_GATE,
		"The whole interval of the change is beyond the limit: fail." },
	[REASON_INTERVAL_STRADDLES_LIMIT] = { "interval_straddles_limit", REASON_IN_GATE,
		"The interval of the change straddles the limit: inconclusive; `n_needed` is about how "
		"many would decide it at the noise seen, null when the estimate sits on the limit." },
	[REASON_BUDGET_NO_RUN] = { "budget_no_run", REASON_IN_GATE,
		"No counted run to hold against the budget." },
	[REASON_BUDGET_TOO_FEW_RUNS] = { "budget_too_few_runs", REASON_IN_GATE,
		"The median (`observed`) of `n` counted runs has no interval: the budget needs at least "
		"`n_min` at the confidence." },
	[REASON_BUDGET_WITHIN] = { "budget_within", REASON_IN_GATE,
		"The whole interval of the median (`interval`, `n` runs) is within the budget: pass." },
	[REASON_BUDGET_BEYOND] = { "budget_beyond", REASON_IN_GATE,
		"The whole interval of the median is beyond the budget: fail." },
	[REASON_BUDGET_STRADDLES] = { "budget_straddles", REASON_IN_GATE,
		"The interval of the median straddles the budget: inconclusive." },
	[REASON_METRIC_NOT_RECORDED] = { "metric_not_recorded", REASON_IN_GATE,
		"The gate's metric was not recorded." },
	[REASON_NO_REFERENCE_RUN] = { "no_reference_run", REASON_IN_INTERVAL,
		"No counted run of the reference." },
	[REASON_NO_COUNTED_RUN] = { "no_counted_run", REASON_IN_INTERVAL,
		"No counted run of this variant." },
	[REASON_CHANGE_UNKNOWN] = { "change_unknown", REASON_IN_INTERVAL,
		"No change can be computed; the variant's `change_note` says why." },
	[REASON_NOT_POSITIVE] = { "not_positive", REASON_IN_INTERVAL,
		"Counted runs of the reference (`not_positive_reference`) or of this variant "
		"(`not_positive`) have a negative value of a lower-is-better metric, which a ratio "
		"cannot take (0 is nothing spent, the best; on a higher-is-better metric 0 or below "
		"is nothing, the worst: both are judged)." },
	[REASON_TOO_FEW_ROUNDS] = { "too_few_rounds", REASON_IN_INTERVAL,
		"Too few paired rounds for the paired interval and too few runs a side for the unpaired "
		"one: it needs `needed` rounds." },
	[REASON_TOO_FEW_RUNS] = { "too_few_runs", REASON_IN_INTERVAL,
		"Runs from different evidence: too few runs a side for the unpaired interval (`needed`)." },
	[REASON_TOO_FEW_ROUNDS_OR_RUNS] = { "too_few_rounds_or_runs", REASON_IN_INTERVAL,
		"Too few rounds for the paired interval (`needed`), and the counted runs cannot give the "
		"unpaired one either." },
	[REASON_NOISY] = { "noisy", REASON_IN_WARNING,
		"The metric of the variant is noisy: coefficient of variation `value` % over `limit` %." },
	[REASON_SLOT_EFFECT] = { "slot_effect", REASON_IN_WARNING,
		"The metric of the variant depends on its slot in the round: `value` % when it ran after "
		"another variant, with Mann–Whitney `p`." },
	[REASON_OUTLIERS] = { "outliers", REASON_IN_WARNING,
		"The metric of the variant has `count` outliers (modified z-score over `limit`), flagged and kept." },
	[REASON_TEST_GUARD_FAILED] = { "test_guard_failed", REASON_IN_BLOCKING,
		"Run `round` of the variant failed the test guard `guard` (tests_passed, test_set or "
		"min_executed) for `guard_reason`: the decision is rejected." },
	[REASON_NO_RECORDED_RUN] = { "no_recorded_run", REASON_IN_MISSING,
		"The variant has no recorded run." },
	[REASON_NO_COUNTED_RUNS] = { "no_counted_runs", REASON_IN_MISSING,
		"None of the variant's `runs` recorded runs counted: `shared` of them ended with `status` "
		"for `reason`; `stderr_tail` is what the first of those wrote last." },
	[REASON_METRIC_NO_VALUE] = { "metric_no_value", REASON_IN_MISSING,
		"The plan metric has no value in any counted run of the variant; `reason` is the "
		"metrics guard's, or null." },
	[REASON_NOTHING_COMPARED] = { "nothing_compared", REASON_IN_DECISION,
		"The plan sets gates, but none had anything to judge: no counted run on a side of "
		"every compared variant (nothing ran, a setup failed, or no run counted). The "
		"decision is `no decision`; `missing` says why the figures are missing." },
	[REASON_INTERRUPTED] = { "interrupted", REASON_IN_DECISION,
		"The run was interrupted after `rounds_done` of `rounds_planned` rounds: the decision "
		"is `no decision`, whatever the rounds run showed; `shown` is what the gates said of "
		"them (`accepted`, `rejected`, `inconclusive`, or `no decision`), not a decision." },
};

const char *reason_code_name(enum reason_code code)
{
	return code > REASON_NONE && code < REASON_CODES ? reasons[code].name : NULL;
}

int reason_code_parse(const char *name, enum reason_code *code)
{
	for (int k = REASON_NONE + 1; k < REASON_CODES; k++)
		if (!strcmp(name, reasons[k].name)) {
			*code = (enum reason_code)k;
			return 0;
		}
	return -1;
}

enum reason_place reason_code_place(enum reason_code code)
{
	return code > REASON_NONE && code < REASON_CODES ? reasons[code].place : REASON_IN_GATE;
}

const char *reason_place_name(enum reason_place place)
{
	switch (place) {
	case REASON_IN_GATE: return "gate";
	case REASON_IN_INTERVAL: return "interval";
	case REASON_IN_WARNING: return "warning";
	case REASON_IN_BLOCKING: return "blocking";
	case REASON_IN_MISSING: return "missing";
	case REASON_IN_DECISION: return "decision";
	}
	return "unknown";
}

const char *reason_code_doc(enum reason_code code)
{
	return code > REASON_NONE && code < REASON_CODES ? reasons[code].doc : "";
}
