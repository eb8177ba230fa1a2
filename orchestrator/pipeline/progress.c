/*
 * progress: renders the live line and the per-invocation lines. The ETA
 * is the mean wall time of the invocations finished so far times those
 * left, plus the gaps still to wait; before the first finishes there is
 * no ETA rather than a guess. The median shown is of the runs the
 * comparison will count (compare_counts()), so that what the line says
 * is what the result will be made of.
 *
 * The live line is redrawn with "\r" and erase-to-end-of-line, which
 * return to the start of the screen line only: a line the terminal
 * wrapped would leave its first part behind on every redraw. So the line
 * is cut to one character less than the terminal's width, asked of stderr
 * at each redraw (the window may be resized), with COLUMNS and then 80
 * when it does not say.
 */
#include "pipeline/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "decide/compare.h"
#include "decide/stats.h"
#include "decide/units.h"
#include "util/alloc.h"
#include "util/escape.h"
#include "util/strbuf.h"

static void fmt_duration(char *out, size_t len, double s)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(out, len, "%.1fs", s);
	else if (s < 3600)
		snprintf(out, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		snprintf(out, len, "%dh%02dm", (int)(s / 3600), ((int)s % 3600) / 60);
}

void progress_init(struct progress *p, enum progress_mode mode, size_t total, double gap_seconds)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	p->out = stderr;
	p->total = total;
	p->gap_seconds = gap_seconds;
}

void progress_start(struct progress *p, size_t index, const char *variant, int warmup,
		    unsigned round, unsigned attempt)
{
	p->index = index;
	p->variant = variant;
	p->warmup = warmup;
	p->round = round;
	p->attempt = attempt;
	p->quiet_said = 0;
}

/*
 * Time left: the rest of the current invocation (by the mean so far), the
 * invocations after it, and the gaps before each of them. in_gap says the
 * current invocation has not started yet and gap_left_s is still to wait.
 */
static void eta(const struct progress *p, double elapsed_s, int in_gap, double gap_left_s,
		char *out, size_t len)
{
	size_t left, after;
	double mean, current, s;
	char d[32];

	if (!p->done) {
		snprintf(out, len, "ETA --");
		return;
	}
	left = p->total > p->done ? p->total - p->done : 0;
	after = left ? left - 1 : 0;
	mean = (double)p->run_ns_sum / 1e9 / (double)p->done;
	current = in_gap ? gap_left_s + mean : (mean > elapsed_s ? mean - elapsed_s : 0);
	s = (left ? current : 0) + (mean + p->gap_seconds) * (double)after;
	fmt_duration(d, sizeof(d), s);
	snprintf(out, len, "ETA %s", d);
}

static struct progress_variant *find_variant(const struct progress *p, const char *name)
{
	for (size_t i = 0; name && i < p->nvariants; i++)
		if (!strcmp(p->variants[i].name, name))
			return &p->variants[i];
	return NULL;
}

void progress_line(const struct progress *p, const char *what, struct strbuf *sb)
{
	const struct progress_variant *v = find_variant(p, p->variant);

	strbuf_addf(sb, "[%zu/%zu] %s %s %u%s %s | median ", p->index + 1, p->total,
		    p->variant ? p->variant : "", p->warmup ? "warmup" : "run", p->round,
		    p->attempt > 1 ? " (repeat)" : "", what);
	if (v && v->n)
		units_add(sb, stats_median(v->wall_ms, v->n), "ms");
	else
		strbuf_adds(sb, "--");
	strbuf_addf(sb, " (n=%zu)", v ? v->n : 0);
}

#define PROGRESS_COLUMNS_DEFAULT 80
#define PROGRESS_COLUMNS_MAX 4096

static size_t terminal_columns(const struct progress *p)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	char *end;
	unsigned long n;

	if (p->columns)
		return p->columns;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (env && *env) {
		n = strtoul(env, &end, 10);
		if (!*end && n > 0 && n <= PROGRESS_COLUMNS_MAX)
			return n;
	}
	return PROGRESS_COLUMNS_DEFAULT;
}

void progress_fit(struct strbuf *sb, size_t columns)
{
	size_t chars = 0;

	if (!columns)
		return;
	for (size_t i = 0; i < sb->len; i++) {
		/* UTF-8 continuation bytes belong to the character before them. */
		if (((unsigned char)sb->buf[i] & 0xc0) == 0x80)
			continue;
		if (++chars >= columns) {
			sb->len = i;
			sb->buf[i] = '\0';
			return;
		}
	}
}

static void live(struct progress *p, const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	progress_line(p, what, &sb);
	progress_fit(&sb, terminal_columns(p));
	fprintf(p->out, "\r\033[K%s", sb.buf);
	fflush(p->out);
	strbuf_release(&sb);
	p->line_dirty = 1;
}

/* Keeps a counted run's wall time for its variant's median. */
static void keep_wall(struct progress *p, const struct invocation *inv)
{
	struct progress_variant *v;

	if (!p->variant || !compare_counts(inv))
		return;
	v = find_variant(p, p->variant);
	if (!v) {
		ALLOC_GROW(p->variants, p->nvariants + 1, p->variants_alloc);
		v = &p->variants[p->nvariants++];
		memset(v, 0, sizeof(*v));
		v->name = p->variant;
	}
	ALLOC_GROW(v->wall_ms, v->n + 1, v->alloc);
	v->wall_ms[v->n++] = (double)inv->fig.wall_ns / 1e6;
}

void progress_release(struct progress *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nvariants; i++)
		free(p->variants[i].wall_ms);
	free(p->variants);
	p->variants = NULL;
	p->nvariants = p->variants_alloc = 0;
}

void progress_tick(struct progress *p, int64_t elapsed_ns)
{
	char el[32], e[48], buf[96];
	if (p->mode != PROGRESS_LIVE)
		return;
	fmt_duration(el, sizeof(el), (double)elapsed_ns / 1e9);
	eta(p, (double)elapsed_ns / 1e9, 0, 0, e, sizeof(e));
	snprintf(buf, sizeof(buf), "| %s | %s", el, e);
	live(p, buf);
}

void progress_gap(struct progress *p, int64_t remaining_ns)
{
	char r[32], e[48], buf[96];
	if (p->mode != PROGRESS_LIVE)
		return;
	fmt_duration(r, sizeof(r), (double)remaining_ns / 1e9);
	eta(p, 0, 1, (double)remaining_ns / 1e9, e, sizeof(e));
	snprintf(buf, sizeof(buf), "| gap %s | %s", r, e);
	live(p, buf);
}

void progress_quiet(struct progress *p, double cores, double limit, int64_t waited_ns)
{
	char w[32], buf[160];

	if (p->mode == PROGRESS_QUIET || (p->mode == PROGRESS_LINES && p->quiet_said))
		return;
	fmt_duration(w, sizeof(w), (double)waited_ns / 1e9);
	snprintf(buf, sizeof(buf), "waiting for a quieter machine: %.2f cores busy with other "
		 "work (limit %.2f), %s", cores, limit, w);
	if (p->mode == PROGRESS_LIVE) {
		char line[176];
		snprintf(line, sizeof(line), "| %s", buf);
		live(p, line);
		return;
	}
	fprintf(p->out, "abev: [%zu/%zu] %s run %u: %s\n", p->index + 1, p->total, p->variant,
		p->round, buf);
	fflush(p->out);
	p->quiet_said = 1;
}

void progress_clear(struct progress *p)
{
	if (p->mode == PROGRESS_LIVE && p->line_dirty) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
		p->line_dirty = 0;
	}
}

void progress_done(struct progress *p, const struct invocation *inv)
{
	p->done++;
	p->run_ns_sum += inv->fig.wall_ns;
	keep_wall(p, inv);
	/* On a terminal the live line is all there is until the summary. */
	if (p->mode != PROGRESS_LINES)
		return;
	progress_clear(p);
	fprintf(p->out, "abev: [%zu/%zu] %s %s %u%s: %s, %.3f s", p->index + 1, p->total,
		inv->variant, inv->warmup ? "warmup" : "run", inv->round,
		inv->attempt > 1 ? " (repeat)" : "", invocation_status_name(inv->status),
		(double)inv->fig.wall_ns / 1e9);
	if (invocation_cpu_wait_pct(inv) >= 0)
		fprintf(p->out, ", waited for a CPU %.1f %%", invocation_cpu_wait_pct(inv));
	if (invocation_foreign_wait_pct(inv) >= 0)
		fprintf(p->out, " (%.1f %% on others)", invocation_foreign_wait_pct(inv));
	if (inv->foreign_cpu >= 0)
		fprintf(p->out, ", foreign cpu %.2f", inv->foreign_cpu);
	if (inv->load_wait_ns > 0)
		fprintf(p->out, ", after %.1f s waiting for a quieter machine",
			(double)inv->load_wait_ns / 1e9);
	if (inv->loaded)
		fputs(", kept under load", p->out);
	if (inv->reason) {
		/* Reasons quote outside text (test names, paths, signals' words): escaped here too. */
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_escaped_line(&sb, inv->reason, strlen(inv->reason));
		fprintf(p->out, " (%s)", sb.buf);
		strbuf_release(&sb);
	}
	fputc('\n', p->out);
	fflush(p->out);
}
