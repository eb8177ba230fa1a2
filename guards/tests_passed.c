/*
 * tests_passed guard: a release is not accepted over a failing test. Any
 * failed, errored, aborted or timed-out test in an invocation's result
 * files fails it, whatever the runner's exit code (the exit_code guard is
 * another: `-i` or allowed_exit_codes admit the code, never the failure);
 * the plan's results.known_failures name tests allowed to fail. The
 * reason names the first few failures, their outcome as the file writes
 * it and the first line of their message.
 */
#include "guards/guard.h"

#include <stdlib.h>

#include "util/strbuf.h"

/* Failures a reason names; the rest are counted. */
#define NAMED_MAX 3

/* "Ns.C.M (Failed: Expected 1, got 2)", the failures of known == want. */
static size_t name_some(struct strbuf *sb, const struct test_failure_view *v, size_t n,
			int want)
{
	size_t named = 0;
	for (size_t i = 0; i < n && named < NAMED_MAX; i++) {
		if (!v[i].known != !want)
			continue;
		strbuf_addf(sb, "%s%s (%s%s%s)", named ? ", " : "", v[i].name,
			    v[i].outcome && *v[i].outcome ? v[i].outcome : "failed",
			    v[i].message && *v[i].message ? ": " : "",
			    v[i].message ? v[i].message : "");
		named++;
	}
	return named;
}

void guard_tests_passed(size_t unexpected, size_t known, const struct test_failure_view *v,
			size_t n, size_t nfiles, size_t refused, struct guard_result *out)
{
	struct strbuf sb;
	size_t named;

	out->kind = GUARD_TESTS_PASSED;
	strbuf_init(&sb);
	if (unexpected) {
		out->verdict = GUARD_FAIL;
		strbuf_addf(&sb, "%zu test(s) failed: ", unexpected);
		named = name_some(&sb, v, n, 0);
		if (named < unexpected)
			strbuf_addf(&sb, "%s%zu more", named ? " and " : "", unexpected - named);
	} else if (refused) {
		out->verdict = GUARD_UNCHECKED;
		strbuf_addf(&sb, "%zu of %zu result file(s) could not be read; no failed test "
			    "in the rest", refused, nfiles + refused);
	} else if (!nfiles) {
		out->verdict = GUARD_UNCHECKED;
		strbuf_adds(&sb, "no result file was read");
	} else {
		out->verdict = GUARD_PASS;
		strbuf_addf(&sb, "no test failed in %zu file(s)", nfiles);
	}
	if (known) {
		strbuf_addf(&sb, "; %zu known failure(s) allowed: ", known);
		named = name_some(&sb, v, n, 1);
		if (named < known)
			strbuf_addf(&sb, "%s%zu more", named ? " and " : "", known - named);
	}
	out->reason = strbuf_detach(&sb, NULL);
}
