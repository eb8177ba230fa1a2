/*
 * gate_def: the names of gate kinds, gate verdicts and decisions as the
 * evidence and the report write them, and the level each gate judgement
 * gets of a decision's (gate_def.h).
 */
#include "record/gate_def.h"

const char *gate_kind_name(enum gate_kind k)
{
	switch (k) {
	case GATE_MAX_REGRESSION: return "max_regression_pct";
	case GATE_MAX_IMPROVEMENT: return "max_improvement_pct";
	case GATE_BUDGET: return "budget";
	}
	return "unknown";
}

const char *gate_verdict_word(enum gate_verdict v)
{
	switch (v) {
	case GATE_PASS: return "pass";
	case GATE_FAIL: return "fail";
	case GATE_INCONCLUSIVE: return "inconclusive";
	}
	return "unknown";
}

const char *decision_name(enum decision d)
{
	switch (d) {
	case DECISION_NONE: return "no decision";
	case DECISION_ACCEPTED: return "accepted";
	case DECISION_REJECTED: return "rejected";
	case DECISION_INCONCLUSIVE: return "inconclusive";
	}
	return "unknown";
}

size_t gate_def_judgements(size_t ngates, size_t nvariants)
{
	size_t m = ngates * (nvariants > 1 ? nvariants - 1 : 0);

	return m ? m : 1;
}

double gate_def_judgement_confidence(double confidence, size_t judgements)
{
	return 1 - (1 - confidence) / (double)(judgements ? judgements : 1);
}
