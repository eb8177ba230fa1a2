/*
 * cli_reasons: `abev help reasons` — every reason code result.json can
 * hold, in the order of record/reason.h's table (cli_reasons.h).
 */
#include "cli/cli_reasons.h"

#include "cli/options.h"
#include "record/reason.h"
#include "util/usage.h"

/* Which field of result.json's comparison holds each place's codes. */
static const char *place_field(enum reason_place p)
{
	switch (p) {
	case REASON_IN_GATE: return "gates[].reason";
	case REASON_IN_INTERVAL: return "gate_interval.note, gates[].note";
	case REASON_IN_WARNING: return "warnings[].code";
	case REASON_IN_BLOCKING: return "blocking[].code";
	case REASON_IN_MISSING: return "missing[].code";
	case REASON_IN_DECISION: return "no_decision.reason";
	}
	return "?";
}

static const char reasons_lead[] =
	"Why the comparison says what it says, as result.json records it: a code in the "
	"field named, beside the numbers it rests on (the names in backquotes are fields "
	"of the same object, or of the variant's sample). report.md, the terminal and the exports put each in "
	"words; the codes' names are stable.";

int cli_reasons_print(FILE *f, int markdown)
{
	if (markdown) {
		fprintf(f, "# Reason codes\n\n%s\n\n| code | field | meaning |\n|---|---|---|\n",
			reasons_lead);
	} else {
		fputs("Reason codes\n\n", f);
		cli_print_wrapped(f, reasons_lead, 0, 0);
		fputc('\n', f);
	}
	for (int k = REASON_NONE + 1; k < REASON_CODES; k++) {
		enum reason_code c = (enum reason_code)k;

		if (markdown) {
			fprintf(f, "| `%s` | `%s` | %s |\n", reason_code_name(c),
				place_field(reason_code_place(c)), reason_code_doc(c));
		} else {
			fprintf(f, "  %s (%s)\n", reason_code_name(c), place_field(reason_code_place(c)));
			fputs("        ", f);
			cli_print_wrapped(f, reason_code_doc(c), 8, 8);
		}
	}
	if (fflush(f) || ferror(f))
		return error("cannot write the reason codes");
	return 0;
}
