/*
 * reason_words: the one place the comparison's reason codes
 * (record/reason.h) become sentences — a gate's reason, why a change has
 * no interval, a warning, a run that blocks acceptance, why a figure is
 * missing — from the code and the numbers decide/ recorded beside it.
 * report.md, the terminal summary, the exports and abev's commands all
 * print these; result.json keeps the codes. Every result is a new
 * string the caller frees.
 */
#ifndef ABEV_REASON_WORDS_H
#define ABEV_REASON_WORDS_H

#include "decide/compare.h"

/* Gate g of c: "cand wall changed +1.00% [-0.50%, +2.10%] (...) against ...: ...". */
char *reason_words_gate(const struct comparison *c, const struct cmp_gate *g);
/*
 * Why sample s of metric cm in c has no gate interval ("needs at least
 * 4 rounds for 95 % (has 2; ...)"), or NULL when it has one or no note.
 */
char *reason_words_interval(const struct comparison *c, const struct cmp_metric *cm,
			    const struct cmp_sample *s);
/* "wall of cand is noisy: coefficient of variation 12.3% (over 10%)", ... */
char *reason_words_warning(const struct cmp_warning *w);
/* "cand run 2 failed the test_set guard: ..." */
char *reason_words_blocking(const struct cmp_blocking *b);
/* "'cand' has no counted run: all 3 runs failed: ...", ... */
char *reason_words_missing(const struct cmp_missing *m);
/*
 * Why a decision is "no decision" though not for want of gates:
 * "interrupted after 8 of 20 rounds", "nothing could be compared: ...";
 * NULL without such a reason (c->no_decision).
 */
char *reason_words_no_decision(const struct comparison *c);

#endif
