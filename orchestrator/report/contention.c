/*
 * contention: the load the recorded runs saw and its sentences (see
 * contention.h). The figures are the records' own: a run's foreign wait
 * is invocation_foreign_wait_pct(), how it was found foreign_wait_basis,
 * the wait before it load_wait_ns.
 */
#include "report/contention.h"

#include <stdlib.h>

#include "decide/compare.h"
#include "decide/stats.h"
#include "record/invocation.h"
#include "util/alloc.h"
#include "util/strbuf.h"

static void pct_of(struct contention_pct *p, const double *v, size_t n)
{
	struct stats_desc d;

	p->n = n;
	p->max = p->median = -1;
	if (!n)
		return;
	stats_describe(v, n, &d);
	p->max = d.max;
	p->median = d.median;
}

void contention_count(struct contention *ct, const struct invocation *invs, size_t n)
{
	/* The known waits of the counted runs, and of the loaded ones among them. */
	double *all = xcalloc(n ? n : 1, sizeof(*all));
	double *loaded = xcalloc(n ? n : 1, sizeof(*loaded));
	size_t nall = 0, nloaded = 0;

	*ct = (struct contention){ 0 };
	for (size_t i = 0; i < n; i++) {
		const struct invocation *inv = &invs[i];
		double fpct = invocation_foreign_wait_pct(inv);

		if (inv->load_wait_ns > 0) {
			ct->waits++;
			ct->waited_ns += inv->load_wait_ns;
		}
		if (inv->warmup || inv->status == INV_DISCARDED)
			continue;
		ct->counted++;
		ct->loaded += inv->loaded != 0;
		if (fpct < 0)
			continue;
		all[nall++] = fpct;
		if (fpct >= COMPARE_CONTENDED_PCT) {
			ct->contended++;
			ct->estimated += inv->foreign_wait_basis != FOREIGN_WAIT_ONE_THREAD;
		}
		if (inv->loaded)
			loaded[nloaded++] = fpct;
	}
	pct_of(&ct->all, all, nall);
	pct_of(&ct->of_loaded, loaded, nloaded);
	free(all);
	free(loaded);
}

int contention_seen(const struct contention *ct)
{
	return ct->all.max >= COMPARE_CONTENDED_PCT || ct->loaded || ct->waits;
}

void contention_waited(struct strbuf *sb, const struct contention *ct, double max_wait_seconds,
		       const char *setting)
{
	strbuf_addf(sb, "waited %.1f s in all for a quieter machine, before %zu run(s) "
		    "(at most %g s: %s)", (double)ct->waited_ns / 1e9, ct->waits, max_wait_seconds,
		    setting);
}

/* "up to 45.0 %", and " (median 30.2 %)" where there is more than one figure. */
static void pct_words(struct strbuf *sb, const struct contention_pct *p)
{
	strbuf_addf(sb, "up to %.1f %%", p->max);
	if (p->n > 1)
		strbuf_addf(sb, " (median %.1f %%)", p->median);
}

void contention_loaded(struct strbuf *sb, const struct contention *ct)
{
	strbuf_addf(sb, "%zu of %zu counted run(s) ran under load, kept and marked loaded: "
		    "their wall times include ", ct->loaded, ct->counted);
	if (ct->of_loaded.n) {
		pct_words(sb, &ct->of_loaded);
		strbuf_adds(sb, " waiting for CPUs other work held");
	} else {
		strbuf_adds(sb, "waiting for CPUs other work held (how much was not measured)");
	}
}

void contention_counted(struct strbuf *sb, const struct contention *ct)
{
	if (!ct->all.n)
		return;
	strbuf_adds(sb, "Counted runs waited ");
	pct_words(sb, &ct->all);
	strbuf_adds(sb, " of their wall time for CPUs other work held");
}

void contention_trust(struct strbuf *sb, const struct contention *ct)
{
	if (!ct->estimated) {
		strbuf_adds(sb, "wall_own (wall less that wait) and CPU time (cpu) are not lengthened "
			    "by it: trust them over wall here");
		return;
	}
	strbuf_addf(sb, "wall_own (wall less that wait) is an estimate for %zu of %zu run(s) that "
		    "waited (their threads ran side by side, or others' CPU time bounded the wait: "
		    "docs/plan.md, Contention) and CPU time (cpu) is not lengthened by it: compare "
		    "both rather than wall here", ct->estimated, ct->contended);
}
