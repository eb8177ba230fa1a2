/*
 * summary: ratios are told the way benchmark tools tell them (hyperfine's
 * "1.19 times faster"): a ratio below 1 is turned over, so the number is
 * always at least 1 and the word carries the direction. The interval is
 * turned over with it.
 */
#include "report/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/units.h"
#include "report/reason_words.h"
#include "util/colour.h"
#include "util/escape.h"
#include "util/strbuf.h"

static const char *direction_word(const struct cmp_metric *m, int more)
{
	if (units_seconds(m->unit) > 0)
		return more ? "slower" : "faster";
	if (units_is_bytes(m->unit))
		return more ? "larger" : "smaller";
	return more ? "higher" : "lower";
}

void summary_median(struct strbuf *sb, const struct cmp_metric *m, const struct cmp_sample *s)
{
	if (s && s->n)
		units_add(sb, s->median, m->unit);
	else
		strbuf_adds(sb, "n/a");
}

void summary_ratio(struct strbuf *sb, const struct cmp_metric *m, const struct cmp_sample *s)
{
	int more;
	double r, lo, hi;

	/*
	 * An interval that holds 1 shows no direction: "1.32x slower [0.74,
	 * 1.91]" read as a finding when the data could not tell.
	 */
	if (s->has_gi && s->gi_lo <= 1 && 1 <= s->gi_hi) {
		strbuf_addf(sb, "no clear difference: %.2f\xc3\x97 [%.2f, %.2f]", compare_estimate(s),
			    s->gi_lo, s->gi_hi);
		return;
	}
	/* The estimate the interval is of (compare.h), so that it lies within it. */
	more = compare_estimate(s) >= 1;
	r = more ? compare_estimate(s) : 1 / compare_estimate(s);
	if (compare_estimate(s) == 1)
		strbuf_adds(sb, "1.00\xc3\x97 (no change)");
	else
		strbuf_addf(sb, "%.2f\xc3\x97 %s", r, direction_word(m, more));
	if (s->has_gi) {
		lo = more ? s->gi_lo : 1 / s->gi_hi;
		hi = more ? s->gi_hi : 1 / s->gi_lo;
		strbuf_addf(sb, " [%.2f, %.2f]", lo, hi);
	}
}

void summary_change(struct strbuf *sb, const struct cmp_metric *m, const struct cmp_sample *s)
{
	if (!s->has_change) {
		strbuf_addf(sb, "n/a (%s)", s->change_note ? s->change_note : "no change computed");
		return;
	}
	summary_ratio(sb, m, s);
	strbuf_adds(sb, " (");
	units_add_pct(sb, compare_estimate_pct(s));
	strbuf_addch(sb, ')');
}

void summary_gate_limit(struct strbuf *sb, const struct cmp_metric *m, const struct cmp_gate *g)
{
	int lower = !m->better_higher;

	if (g->kind == GATE_BUDGET) {
		strbuf_adds(sb, lower ? "\xe2\x89\xa4 " : "\xe2\x89\xa5 ");
		units_add(sb, g->limit, m->unit);
		return;
	}
	/* Regression limits sit on the worse side, improvement limits on the better side. */
	if ((g->kind == GATE_MAX_REGRESSION) == lower) {
		strbuf_adds(sb, "\xe2\x89\xa4 ");
		units_add_pct(sb, g->limit);
	} else {
		strbuf_adds(sb, "\xe2\x89\xa5 ");
		units_add_pct(sb, -g->limit);
	}
}

/*
 * Without a gate there is no decision, but there is still an answer:
 * hyperfine's "Summary: b ran 1.53 ± 0.05 times slower than a", here the
 * ratio of wall times with the interval the gates would judge, told as
 * not gated. Variants without a change (no counted run) are left to the
 * reasons that follow.
 */
static void summary_ungated(struct strbuf *sb, const struct comparison *c)
{
	const struct cmp_metric *m = NULL;
	const char *ref = NULL;
	size_t told = 0;

	for (size_t i = 0; i < c->nmetrics && !m; i++)
		if (!strcmp(c->metrics[i].name, COMPARE_WALL) &&
		    !strcmp(c->metrics[i].source, "builtin"))
			m = &c->metrics[i];
	for (size_t v = 0; m && v < m->nsamples; v++)
		if (m->samples[v].is_reference)
			ref = m->samples[v].variant;
	for (size_t v = 0; ref && v < m->nsamples; v++) {
		const struct cmp_sample *s = &m->samples[v];
		int clear = compare_estimate(s) != 1 &&
			    !(s->has_gi && s->gi_lo <= 1 && 1 <= s->gi_hi);
		char *why;

		if (s->is_reference || !s->has_change)
			continue;
		strbuf_adds(sb, told++ ? ", " : "; not a gated decision, by wall time: ");
		if (clear) {
			strbuf_addf(sb, "'%s' ran ", s->variant);
			summary_ratio(sb, m, s);
			strbuf_addf(sb, " than '%s'", ref);
		} else {
			strbuf_addf(sb, "'%s' against '%s': ", s->variant, ref);
			summary_ratio(sb, m, s);
		}
		why = reason_words_interval(c, m, s);
		if (why)
			strbuf_addf(sb, " (no interval: %s)", why);
		free(why);
	}
}

/* Decision d of c's gates in words: its word, then why ("all 2 gates passed", ...). */
static void decision_words(struct strbuf *sb, const struct comparison *c, enum decision d)
{
	size_t fail = 0, inconclusive = 0;

	for (size_t i = 0; i < c->ngates; i++) {
		fail += c->gates[i].verdict == GATE_FAIL;
		inconclusive += c->gates[i].verdict == GATE_INCONCLUSIVE;
	}
	strbuf_adds(sb, decision_name(d));
	switch (d) {
	case DECISION_NONE:
		strbuf_adds(sb, ": the plan sets no gate");
		summary_ungated(sb, c);
		break;
	case DECISION_ACCEPTED:
		strbuf_addf(sb, ": all %zu gate%s passed", c->ngates, c->ngates == 1 ? "" : "s");
		break;
	case DECISION_REJECTED:
		if (c->nblocking) {
			/* The tests came first: figures of runs that skipped tests prove nothing. */
			char *first = reason_words_blocking(&c->blocking[0]);

			strbuf_addf(sb, ": %s", first);
			free(first);
			if (c->nblocking + c->blocking_omitted > 1)
				strbuf_addf(sb, " (and %zu more run%s failing a test guard)",
					    c->nblocking + c->blocking_omitted - 1,
					    c->nblocking + c->blocking_omitted == 2 ? "" : "s");
			if (fail)
				strbuf_addf(sb, "; %zu of %zu gate%s failed", fail, c->ngates,
					    c->ngates == 1 ? "" : "s");
			break;
		}
		strbuf_addf(sb, ": %zu of %zu gate%s failed", fail, c->ngates,
			    c->ngates == 1 ? "" : "s");
		if (inconclusive)
			strbuf_addf(sb, ", %zu inconclusive", inconclusive);
		break;
	case DECISION_INCONCLUSIVE:
		strbuf_addf(sb, ": %zu of %zu gate%s could not be decided (the interval straddles "
			    "the limit, or there are too few runs)", inconclusive, c->ngates,
			    c->ngates == 1 ? "" : "s");
		break;
	}
}

void summary_decision(struct strbuf *sb, const struct comparison *c)
{
	char *none = reason_words_no_decision(c);

	if (!none) {
		decision_words(sb, c, c->decision);
	} else {
		strbuf_addf(sb, "%s: %s", decision_name(c->decision), none);
		/* What the rounds run showed is said, and said not to be the decision. */
		if (c->no_decision == REASON_INTERRUPTED) {
			strbuf_adds(sb, "; what they showed, not a decision: ");
			decision_words(sb, c, c->shown);
		}
		free(none);
	}
	/* What no figure can say: why a variant, or a metric of it, has none. */
	for (size_t i = 0; i < c->nmissing; i++) {
		char *why = reason_words_missing(&c->missing[i]);

		strbuf_addf(sb, "; %s", why);
		free(why);
	}
}

void summary_sample_size(struct strbuf *sb, const struct comparison *c)
{
	if (c->min_n == 0) {
		strbuf_adds(sb, "No variant has counted runs on both sides of a comparison: "
			    "no difference can be tested.");
		return;
	}
	if (c->size_metric)
		strbuf_addf(sb, "For %s%s: ", c->size_metric,
			    c->ngates ? " (of the gated metrics, the one with the least to go on)"
				      : "");
	if (c->min_n_ref == c->min_n_other)
		strbuf_addf(sb, "with %zu run%s a side", c->min_n_ref,
			    c->min_n_ref == 1 ? "" : "s");
	else
		strbuf_addf(sb, "with %zu run%s of the reference and %zu of %s", c->min_n_ref,
			    c->min_n_ref == 1 ? "" : "s", c->min_n_other,
			    c->nmetrics && c->metrics[0].nsamples > 2 ? "the fewest of another variant"
								       : "the other");
	strbuf_addf(sb, " the smallest attainable two-sided p-value is %.3g (exact "
		    "Mann\xe2\x80\x93Whitney, ties as observed)", c->mw_min_p);
	if (c->mw_min_p >= c->alpha)
		strbuf_addf(sb, ", so no difference can reach p < %.2g; that needs at least %zu "
			    "runs a side", c->alpha, c->mw_n_needed);
	if (!c->unpaired) {
		strbuf_addf(sb, ". Paired by round (%zu pair%s), the smallest attainable p is %.3g "
			    "(exact Wilcoxon signed-rank)", c->min_pairs,
			    c->min_pairs == 1 ? "" : "s", c->wsr_min_p);
		if (c->wsr_min_p >= c->alpha)
			strbuf_addf(sb, "; reaching p < %.2g needs at least %zu rounds", c->alpha,
				    c->wsr_n_needed);
	}
	if (c->unpaired)
		strbuf_addf(sb, ". Change gates judge the exact %.4g%% Mann\xe2\x80\x93Whitney "
			    "interval of the Hodges\xe2\x80\x93Lehmann ratio (at least %zu runs a "
			    "side)",
			    c->gate_confidence * 100, c->runs_needed_ci);
	else
		strbuf_addf(sb, ". Change gates judge an exact %.4g%% interval: from %zu rounds, "
			    "the Wilcoxon signed-rank interval of the rounds' paired ratios and the "
			    "Mann\xe2\x80\x93Whitney interval of the Hodges\xe2\x80\x93Lehmann "
			    "ratio together, each at its share of the error, where they meet; with "
			    "fewer pairs, the unpaired one alone (at least %zu runs a side)",
			    c->gate_confidence * 100, c->pairs_needed_ci, c->runs_needed_ci);
	summary_levels(sb, c);
	strbuf_addf(sb, ", not a p-value; the %.4g%% bootstrap interval of the ratio of medians "
		    "(%u resamples) is context", c->confidence * 100, c->resamples);
	strbuf_addch(sb, '.');
}

void summary_levels(struct strbuf *sb, const struct comparison *c)
{
	if (c->gate_judgements > 1)
		strbuf_addf(sb, ", each of the decision's %zu gate judgements (gates \xc3\x97 "
			    "compared variants) at that level so that together they hold at %.4g%% "
			    "(Bonferroni: 1 \xe2\x88\x92 %.4g%% / %zu)",
			    c->gate_judgements, c->confidence * 100, (1 - c->confidence) * 100,
			    c->gate_judgements);
}

void summary_sequential(struct strbuf *sb, const struct comparison *c)
{
	const struct compare_sequential *q = c->sequential;

	if (!q)
		return;
	strbuf_adds(sb, "Sequential design (schedule.until decided): the gates were to be looked "
		    "at after round");
	strbuf_adds(sb, q->nlooks == 1 ? " " : "s ");
	for (size_t i = 0; i < q->nlooks; i++)
		strbuf_addf(sb, "%s%u", !i ? "" : i + 1 == q->nlooks ? " and " : ", ", q->looks[i]);
	strbuf_addf(sb, " (%zu look%s), each at %.4g%% confidence (Bonferroni: 1 \xe2\x88\x92 "
		    "%.4g%% / %zu), so that the chance of a wrong pass or fail over all the looks "
		    "stays within %.4g%%. Looks taken: ", q->nlooks, q->nlooks == 1 ? "" : "s",
		    q->look_confidence * 100, (1 - q->confidence) * 100, q->nlooks,
		    (1 - q->confidence) * 100);
	if (!q->ntaken)
		strbuf_adds(sb, "none (the run ended before the first)");
	for (size_t i = 0; i < q->ntaken; i++)
		strbuf_addf(sb, "%safter round %u %s", i ? ", " : "", q->taken[i].round,
			    decision_name(q->taken[i].decision));
	if (q->decided_round)
		strbuf_addf(sb, "; every gate was decided after round %u, and the run stopped there "
			    "(of at most %u rounds).", q->decided_round, q->max_rounds);
	else
		strbuf_addf(sb, "; no look decided every gate%s: the decision is made on the rounds "
			    "run, at the looks' confidence.",
			    q->ntaken && q->taken[q->ntaken - 1].round == q->max_rounds
				    ? " by max_rounds" : "");
	/* Optional stopping: a look's exact coverage is of that look alone. */
	strbuf_addf(sb, " The intervals shown are the last look's, labelled with that look's "
		    "exact coverage; since the data chose where to stop, what holds for them is "
		    "the bound over all the looks: at least %.4g%%, not the label's figure.",
		    q->confidence * 100);
}

const char *summary_acceptance_caveat(const struct comparison *c)
{
	if (c->acceptance)
		return "";
	return "This plan does not declare itself an acceptance plan (decision.acceptance): "
	       "a pass here implies no acceptance decision.";
}

void summary_put_line(FILE *f, struct strbuf *line)
{
	struct strbuf out = STRBUF_INIT;

	strbuf_add_escaped_line(&out, line->buf, line->len);
	strbuf_addch(&out, '\n');
	fputs(out.buf, f);
	strbuf_release(&out);
	strbuf_reset(line);
}

/*
 * The p-value beside s's change: that of the test whose interval the
 * gates judged — the round-paired Wilcoxon signed-rank test and
 * Mann–Whitney both for the joint interval, Mann–Whitney for an unpaired
 * one — so that a verdict never stands beside a p-value of a test that
 * did not make it. Without an interval, the paired test when the runs
 * pair by round, else Mann–Whitney; nothing without one.
 */
static void summary_p(struct strbuf *sb, const struct comparison *c, const struct cmp_sample *s)
{
	int joint = s->has_gi && !strcmp(s->gi_method, COMPARE_GI_JOINT);
	int paired = s->has_gi ? compare_gi_by_round(s->gi_method) : !c->unpaired && s->has_paired;

	if (joint && s->has_paired && s->has_mw)
		strbuf_addf(sb, "  p=%.2g (paired), %.2g (unpaired)", s->wsr_p, s->mw_p);
	else if (paired && s->has_paired)
		strbuf_addf(sb, "  p=%.2g (paired)", s->wsr_p);
	else if (!paired && s->has_mw)
		strbuf_addf(sb, "  p=%.2g%s", s->mw_p, s->has_gi ? " (unpaired)" : "");
}

void summary_gate_needed(struct strbuf *sb, const struct cmp_gate *g)
{
	const char *unit = g->n_needed_paired ? "rounds" : "runs a side";

	if (g->verdict != GATE_INCONCLUSIVE || !g->n_needed)
		return;
	if (g->has_interval)
		strbuf_addf(sb, " (needs about %zu %s at this noise)", g->n_needed, unit);
	else
		strbuf_addf(sb, " (needs at least %zu %s)", g->n_needed, unit);
}

int summary_metric_shown(const struct comparison *c, const struct cmp_metric *cm)
{
	if (strcmp(cm->name, COMPARE_WALL_OWN) || strcmp(cm->source, "builtin") || c->contended)
		return 1;
	for (size_t g = 0; g < c->ngates; g++)
		if (!strcmp(c->gates[g].metric, cm->name))
			return 1;
	return 0;
}

/* Characters (UTF-8 code points) in s: what a terminal's column counts, near enough. */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

void summary_figures(struct strbuf *sb, const struct cmp_metric *cm, const struct cmp_sample *s)
{
	const struct cmp_sample *ref = NULL;

	for (size_t v = 0; v < cm->nsamples; v++)
		if (cm->samples[v].is_reference)
			ref = &cm->samples[v];
	summary_median(sb, cm, s);
	strbuf_adds(sb, " vs ");
	summary_median(sb, cm, ref);
}

/* The widths of the variant, metric and figures columns: the widest shown, within bounds. */
struct summary_widths {
	size_t variant, metric, figures;
};
#define SUMMARY_WIDTH_MAX 48

static void widen(size_t *width, size_t text)
{
	if (text > *width)
		*width = text < SUMMARY_WIDTH_MAX ? text : SUMMARY_WIDTH_MAX;
}

static void summary_widths(const struct comparison *c, struct summary_widths *w)
{
	struct strbuf sb = STRBUF_INIT;

	*w = (struct summary_widths){ 12, 16, 22 };
	for (size_t m = 0; m < c->nmetrics; m++) {
		const struct cmp_metric *cm = &c->metrics[m];

		if (!summary_metric_shown(c, cm))
			continue;
		for (size_t v = 0; v < cm->nsamples; v++) {
			const struct cmp_sample *s = &cm->samples[v];

			if (s->is_reference)
				continue;
			strbuf_reset(&sb);
			summary_figures(&sb, cm, s);
			widen(&w->variant, text_width(s->variant));
			widen(&w->metric, text_width(cm->name));
			widen(&w->figures, text_width(sb.buf));
		}
	}
	strbuf_release(&sb);
}

/*
 * Outside text appended to a line printed as it is: escaped as
 * summary_put_line() would escape it, then coloured sgr (NULL: not), so
 * that no name can bring an escape of its own in with the colours.
 */
static void add_cell(struct strbuf *line, int colour, const char *sgr, const char *text)
{
	struct strbuf esc = STRBUF_INIT;

	strbuf_add_escaped_line(&esc, text, strlen(text));
	if (sgr)
		colour_add(line, colour, sgr, esc.buf);
	else
		strbuf_adds(line, esc.buf);
	strbuf_release(&esc);
}

/* add_cell(), then blanks to width characters of text (none when it is wider). */
static void add_padded_cell(struct strbuf *line, int colour, const char *sgr, const char *text,
			    size_t width)
{
	add_cell(line, colour, sgr, text);
	for (size_t w = text_width(text); w < width; w++)
		strbuf_addch(line, ' ');
}

/* Prints line and a newline to f, as built: every piece of it was escaped. Resets line. */
static void put_built(FILE *f, struct strbuf *line)
{
	strbuf_addch(line, '\n');
	fputs(line->buf, f);
	strbuf_reset(line);
}

/* The verdicts' colours: good green, bad red, undecided yellow; no decision plain. */
static const char *decision_sgr(enum decision d)
{
	return d == DECISION_ACCEPTED ? COLOUR_GREEN
	       : d == DECISION_REJECTED ? COLOUR_RED
	       : d == DECISION_INCONCLUSIVE ? COLOUR_YELLOW : NULL;
}

static const char *gate_sgr(enum gate_verdict v)
{
	return v == GATE_FAIL ? COLOUR_RED : v == GATE_PASS ? COLOUR_GREEN : COLOUR_YELLOW;
}

/* "decision: " and the decision, which begins with its word: that word in its colour. */
static void print_decision(FILE *f, const struct comparison *c, int colour)
{
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;
	const char *word = decision_name(c->decision);

	summary_decision(&sb, c);
	strbuf_adds(&line, "decision: ");
	add_cell(&line, colour, decision_sgr(c->decision), word);
	add_cell(&line, colour, NULL, sb.buf + strlen(word));
	put_built(f, &line);
	strbuf_release(&sb);
	strbuf_release(&line);
}

/*
 * One row: variant, metric, figures, then the change, its ratio in
 * hyperfine's bold green and the variant in the magenta of its "than
 * NAME", the p-value and each gate on it with its verdict coloured.
 */
static void print_row(FILE *f, const struct comparison *c, const struct cmp_metric *cm,
		      const struct cmp_sample *s, const struct summary_widths *w, int colour)
{
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;

	summary_figures(&sb, cm, s);
	/* Columns as wide as the widest shown, so that the rows line up. */
	strbuf_adds(&line, "  ");
	add_padded_cell(&line, colour, COLOUR_MAGENTA, s->variant, w->variant + 1);
	add_padded_cell(&line, colour, NULL, cm->name, w->metric + 1);
	add_padded_cell(&line, colour, NULL, sb.buf, w->figures + 1);
	strbuf_reset(&sb);
	if (s->has_change) {
		summary_ratio(&sb, cm, s);
		add_cell(&line, colour, COLOUR_BOLD_GREEN, sb.buf);
		strbuf_reset(&sb);
		strbuf_adds(&sb, " (");
		units_add_pct(&sb, compare_estimate_pct(s));
		strbuf_addch(&sb, ')');
	} else {
		summary_change(&sb, cm, s);
	}
	summary_p(&sb, c, s);
	add_cell(&line, colour, NULL, sb.buf);
	for (size_t g = 0; g < c->ngates; g++) {
		const struct cmp_gate *gt = &c->gates[g];
		if (strcmp(gt->metric, cm->name) || strcmp(gt->variant, s->variant))
			continue;
		strbuf_reset(&sb);
		strbuf_adds(&sb, "  gate ");
		summary_gate_limit(&sb, cm, gt);
		strbuf_adds(&sb, ": ");
		add_cell(&line, colour, NULL, sb.buf);
		add_cell(&line, colour, gate_sgr(gt->verdict),
			 gt->verdict == GATE_FAIL ? "FAIL"
			 : gt->verdict == GATE_PASS ? "pass" : "INCONCLUSIVE");
		strbuf_reset(&sb);
		summary_gate_needed(&sb, gt);
		add_cell(&line, colour, NULL, sb.buf);
	}
	put_built(f, &line);
	strbuf_release(&sb);
	strbuf_release(&line);
}

void summary_print(FILE *f, const struct comparison *c, int quiet, int colour)
{
	struct strbuf sb = STRBUF_INIT;
	struct summary_widths w;

	/* The decision can quote a command's stderr: escaped like every line of outside text. */
	print_decision(f, c, colour);
	if (quiet)
		goto out;
	if (c->sequential) {
		const struct compare_sequential *q = c->sequential;
		for (size_t i = 0; i < q->ntaken; i++)
			strbuf_addf(&sb, "%s%u %s", i ? ", " : "", q->taken[i].round,
				    decision_name(q->taken[i].decision));
		fprintf(f, "looks:    after round %s (each at %.4g%%, %zu planned up to round %u)%s; "
			"intervals hold at least %.4g%% over all looks\n",
			q->ntaken ? sb.buf : "- (none taken)", q->look_confidence * 100, q->nlooks,
			q->max_rounds, q->decided_round ? "; stopped: decided" : "",
			q->confidence * 100);
	}
	summary_widths(c, &w);
	for (size_t m = 0; m < c->nmetrics; m++) {
		const struct cmp_metric *cm = &c->metrics[m];

		if (!summary_metric_shown(c, cm))
			continue;
		for (size_t v = 0; v < cm->nsamples; v++)
			if (!cm->samples[v].is_reference)
				print_row(f, c, cm, &cm->samples[v], &w, colour);
	}
	strbuf_reset(&sb);
	summary_sample_size(&sb, c);
	fprintf(f, "note: %s\n", sb.buf);
	if (c->decision == DECISION_ACCEPTED && !c->acceptance)
		fprintf(f, "note: %s\n", summary_acceptance_caveat(c));
out:
	strbuf_release(&sb);
}
