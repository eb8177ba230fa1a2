/*
 * timing: the layout and the colours are hyperfine's (its benchmark/mod.rs),
 * so that a reader who knows one reads the other: each figure right-aligned
 * in eight columns with its unit, the unit chosen once from the mean
 * (units_pick(), as abev's other figures) and kept for σ, the range and
 * the CPU times; the mean bold green, σ green, User and System blue, min
 * cyan, max magenta, the number of runs dim.
 */
#include "report/timing.h"

#include <string.h>

#include "decide/units.h"
#include "util/colour.h"
#include "util/escape.h"
#include "util/strbuf.h"

/* The runs' figures a block shows, in the wall metric's unit. */
struct timing_figures {
	size_t n;
	double mean, sd, min, max, user, sys;
	int has_cpu;     /* every counted run has a record with CPU times */
};

static const struct invocation *timing_find(const struct invocation *invs, size_t ninvs,
					    unsigned seq)
{
	/* Records are kept in execution order: seq is one past the index, unless some are missing. */
	if (seq >= 1 && seq <= ninvs && invs[seq - 1].seq == seq)
		return &invs[seq - 1];
	for (size_t i = 0; i < ninvs; i++)
		if (invs[i].seq == seq)
			return &invs[i];
	return NULL;
}

static void timing_collect(struct timing_figures *t, const struct cmp_metric *m,
			   const struct cmp_sample *s, const struct invocation *invs,
			   size_t ninvs)
{
	/* ns in the metric's unit: wall is kept in ms. */
	double per_ns = 1e-9 / units_seconds(m->unit);

	*t = (struct timing_figures){ .n = s->n, .mean = s->mean, .sd = s->sd, .min = s->min,
				      .max = s->max, .has_cpu = s->n > 0 };
	for (size_t i = 0; i < s->n; i++) {
		const struct invocation *inv = timing_find(invs, ninvs, s->values[i].seq);
		if (!inv) {
			t->has_cpu = 0;
			break;
		}
		t->user += (double)inv->fig.user_ns * per_ns;
		t->sys += (double)inv->fig.sys_ns * per_ns;
	}
	if (t->has_cpu) {
		t->user /= (double)s->n;
		t->sys /= (double)s->n;
	}
}

/* v in scale sc with its unit, right-aligned in width columns, coloured sgr. */
static void timing_value(struct strbuf *sb, double v, const struct units_scale *sc,
			 size_t width, int colour, const char *sgr)
{
	struct strbuf num = STRBUF_INIT, pad = STRBUF_INIT;

	units_add_in(&num, v, sc);
	strbuf_addf(&num, " %s", sc->name);
	/* The unit names (µs) are the only non-ASCII bytes: count characters, not bytes. */
	for (size_t cols = num.len - (strcmp(sc->name, "\xc2\xb5s") ? 0 : 1); cols < width; cols++)
		strbuf_addch(&pad, ' ');
	strbuf_adds(sb, pad.buf);
	colour_add(sb, colour, sgr, num.buf);
	strbuf_release(&pad);
	strbuf_release(&num);
}

static const struct cmp_metric *timing_wall(const struct comparison *c)
{
	for (size_t m = 0; m < c->nmetrics; m++)
		if (!strcmp(c->metrics[m].name, COMPARE_WALL) &&
		    !strcmp(c->metrics[m].source, "builtin"))
			return &c->metrics[m];
	return NULL;
}

static void timing_lines(struct strbuf *sb, const struct timing_figures *t, const char *unit,
			 int colour)
{
	struct units_scale sc;

	units_pick(t->mean, unit, &sc);
	if (t->n == 1) {
		strbuf_adds(sb, "  Time (");
		colour_add(sb, colour, COLOUR_BOLD_GREEN, "abs");
		strbuf_adds(sb, " \xe2\x89\xa1):        ");
		timing_value(sb, t->mean, &sc, 8, colour, COLOUR_BOLD_GREEN);
		strbuf_adds(sb, "              ");
	} else {
		strbuf_adds(sb, "  Time (");
		colour_add(sb, colour, COLOUR_BOLD_GREEN, "mean");
		strbuf_adds(sb, " \xc2\xb1 ");
		colour_add(sb, colour, COLOUR_GREEN, "\xcf\x83");
		strbuf_adds(sb, "):     ");
		timing_value(sb, t->mean, &sc, 8, colour, COLOUR_BOLD_GREEN);
		strbuf_adds(sb, " \xc2\xb1 ");
		timing_value(sb, t->sd, &sc, 8, colour, COLOUR_GREEN);
		strbuf_adds(sb, "    ");
	}
	if (t->has_cpu) {
		strbuf_adds(sb, "[User: ");
		timing_value(sb, t->user, &sc, 0, colour, COLOUR_BLUE);
		strbuf_adds(sb, ", System: ");
		timing_value(sb, t->sys, &sc, 0, colour, COLOUR_BLUE);
		strbuf_addch(sb, ']');
	}
	strbuf_addch(sb, '\n');
	if (t->n == 1)
		return;
	strbuf_adds(sb, "  Range (");
	colour_add(sb, colour, COLOUR_CYAN, "min");
	strbuf_adds(sb, " \xe2\x80\xa6 ");
	colour_add(sb, colour, COLOUR_MAGENTA, "max");
	strbuf_adds(sb, "):   ");
	timing_value(sb, t->min, &sc, 8, colour, COLOUR_CYAN);
	strbuf_adds(sb, " \xe2\x80\xa6 ");
	timing_value(sb, t->max, &sc, 8, colour, COLOUR_MAGENTA);
	strbuf_adds(sb, "    ");
	{
		char runs[40];
		snprintf(runs, sizeof(runs), "%zu runs", t->n);
		colour_add(sb, colour, COLOUR_DIM, runs);
	}
	strbuf_addch(sb, '\n');
}

void timing_add(struct strbuf *sb, const struct comparison *c, size_t v,
		const struct invocation *invs, size_t ninvs, int colour)
{
	const struct cmp_metric *m = timing_wall(c);
	struct strbuf name = STRBUF_INIT;
	struct timing_figures t;
	char head[40];

	snprintf(head, sizeof(head), "Benchmark %zu", v + 1);
	colour_add(sb, colour, COLOUR_BOLD, head);
	strbuf_adds(sb, ": ");
	if (m && v < m->nsamples)
		strbuf_add_escaped(&name, m->samples[v].variant, strlen(m->samples[v].variant));
	strbuf_adds(sb, name.buf);
	strbuf_addch(sb, '\n');
	strbuf_release(&name);
	if (!m || v >= m->nsamples || !m->samples[v].n) {
		strbuf_adds(sb, "  Time: no counted run\n");
		return;
	}
	timing_collect(&t, m, &m->samples[v], invs, ninvs);
	timing_lines(sb, &t, m->unit, colour);
}

void timing_print(FILE *f, const struct comparison *c, const struct invocation *invs,
		  size_t ninvs, int colour)
{
	const struct cmp_metric *m = timing_wall(c);
	struct strbuf sb = STRBUF_INIT;

	for (size_t v = 0; m && v < m->nsamples; v++) {
		timing_add(&sb, c, v, invs, ninvs, colour);
		strbuf_addch(&sb, '\n');
	}
	fputs(sb.buf, f);
	strbuf_release(&sb);
}
