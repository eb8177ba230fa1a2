/*
 * reason: why the comparison said what it said, as codes — a gate's
 * reason, why a change has no interval, a warning, a run that blocks
 * acceptance, why a figure is missing. decide/ records a code and the
 * numbers it rests on; result.json writes the code's name beside them;
 * report/reason_words.c alone turns them into a sentence. The names are
 * stable: evidence keeps them and readers match on them.
 */
#ifndef ABEV_REASON_H
#define ABEV_REASON_H

/* Which field of the comparison a code belongs in. */
enum reason_place {
	REASON_IN_GATE,       /* gates[].reason */
	REASON_IN_INTERVAL,   /* a variant's gate_interval.note (and a gate's note) */
	REASON_IN_WARNING,    /* warnings[].code */
	REASON_IN_BLOCKING,   /* blocking[].code */
	REASON_IN_MISSING,    /* missing[].code */
	REASON_IN_DECISION,   /* no_decision.reason: why a gated plan has no decision */
};

enum reason_code {
	REASON_NONE,                   /* no reason: the field is null */
	/* A gate's. */
	REASON_NO_CHANGE,              /* no change against the reference can be computed */
	REASON_NO_INTERVAL,            /* a change, but no interval to judge a limit by */
	REASON_INTERVAL_WITHIN_LIMIT,
	REASON_INTERVAL_BEYOND_LIMIT,
	REASON_INTERVAL_STRADDLES_LIMIT,
	REASON_BUDGET_NO_RUN,          /* no counted run to hold against the budget */
	REASON_BUDGET_TOO_FEW_RUNS,    /* too few runs for the median's interval */
	REASON_BUDGET_WITHIN,
	REASON_BUDGET_BEYOND,
	REASON_BUDGET_STRADDLES,
	REASON_METRIC_NOT_RECORDED,    /* the gate's metric is not one the run recorded */
	/* Why a change has no interval. */
	REASON_NO_REFERENCE_RUN,       /* no counted run of the reference */
	REASON_NO_COUNTED_RUN,         /* no counted run of this variant */
	REASON_CHANGE_UNKNOWN,         /* no change (the sample's change_note says why) */
	REASON_NOT_POSITIVE,           /* negative values of a lower-is-better metric: no ratio */
	REASON_TOO_FEW_ROUNDS,         /* too few rounds paired, too few runs unpaired */
	REASON_TOO_FEW_RUNS,           /* unpaired runs (abev compare): too few a side */
	REASON_TOO_FEW_ROUNDS_OR_RUNS, /* too few rounds, and the runs cannot give it unpaired */
	/* Warnings. */
	REASON_NOISY,                  /* coefficient of variation over the limit */
	REASON_SLOT_EFFECT,            /* the slot in the round shifts the figures */
	REASON_OUTLIERS,               /* values flagged as outliers, kept */
	/* What blocks acceptance. */
	REASON_TEST_GUARD_FAILED,      /* a run failed tests_passed, test_set or min_executed */
	/* Why a figure is missing. */
	REASON_NO_RECORDED_RUN,        /* the variant has no recorded run */
	REASON_NO_COUNTED_RUNS,        /* the variant has runs, none counted */
	REASON_METRIC_NO_VALUE,        /* a plan metric has no value in any counted run */
	/* Why a plan with gates has no decision. */
	REASON_NOTHING_COMPARED,       /* no gate had counted runs on both sides to judge */
	REASON_INTERRUPTED,            /* the run was interrupted: its rounds decide nothing */
	REASON_CODES
};

/* The stable snake_case name of code ("interval_beyond_limit", ...); NULL for REASON_NONE. Static. */
const char *reason_code_name(enum reason_code code);
/* The code named name into *code: 0, or -1 when no code has that name. */
int reason_code_parse(const char *name, enum reason_code *code);
/* Where code is written (a gate's reason, a warning, ...). */
enum reason_place reason_code_place(enum reason_code code);
/* The place's name as the docs write it ("gate", "interval", ...). Static. */
const char *reason_place_name(enum reason_place place);
/* What code means and the numbers beside it, one sentence for the docs. Static. */
const char *reason_code_doc(enum reason_code code);

#endif
