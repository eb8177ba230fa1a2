/*
 * metrics_yielded: the metrics guard — every metric the plan defines must be yielded by every
 * recorded invocation, or the comparison would be made of gaps. It only
 * judges the values metrics_extract() produced; extracting them is
 * results/metrics.c's job and applying the guard pipeline/judge.c's.
 */
#include "guards/guard.h"

#include "results/metrics.h"
#include "util/strbuf.h"

void guard_metrics(const struct metric_value *values, size_t n, int capped,
		   struct guard_result *out)
{
	struct strbuf why = STRBUF_INIT;
	size_t missing = 0;

	for (size_t i = 0; i < n; i++) {
		const struct metric_value *m = &values[i];
		if (m->ok)
			continue;
		strbuf_addf(&why, "%s'%s': %s", missing ? "; " : "", m->name, m->why);
		missing++;
	}
	out->kind = GUARD_METRICS;
	if (missing) {
		out->verdict = GUARD_FAIL;
		out->reason = xasprintf("%zu of %zu metric(s) not yielded: %s%s", missing, n,
					why.buf,
					capped ? " (some tests were not kept: over the memory cap)"
					       : "");
	} else {
		out->verdict = GUARD_PASS;
		out->reason = xasprintf("all %zu metric(s) yielded", n);
	}
	strbuf_release(&why);
}
