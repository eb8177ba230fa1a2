/*
 * min_executed guard: a timing is worthless if the tests behind it did not
 * run. Counts executed leaf results (skipped and not-run ones are not
 * executed) summed over the invocation's result files against the plan's
 * minimum. No result file at all is a failure: a runner that crashed
 * before writing one must not pass. A test run the result file says was
 * aborted (a crashed test host) is named as such, in dotnet's words: "0 of
 * 0 executed" alone reads as an empty project.
 */
#include "guards/guard.h"

#include <stdlib.h>

#include "util/escape.h"
#include "util/strbuf.h"

void guard_min_executed(int64_t executed, int64_t total, int64_t required, size_t nfiles,
			size_t refused, const char *pattern, const char *aborted,
			struct guard_result *out)
{
	out->kind = GUARD_MIN_EXECUTED;
	if (refused) {
		out->verdict = GUARD_UNCHECKED;
		out->reason = xasprintf("%zu of %zu result file(s) could not be read; %lld executed "
					"in the rest, %lld required",
					refused, nfiles, (long long)executed, (long long)required);
	} else if (nfiles == 0) {
		/* The pattern holds the run's directory, and so the --out path as given. */
		char *shown = xstrdup_escaped(pattern ? pattern : "");
		out->verdict = GUARD_FAIL;
		out->reason = xasprintf("no result file matched '%s'; %lld executed test(s) required",
					shown, (long long)required);
		free(shown);
	} else if (executed < required) {
		out->verdict = GUARD_FAIL;
		out->reason = xasprintf("%s%s%s%lld of %lld test(s) executed in %zu file(s), fewer "
					"than the %lld required",
					aborted ? "test run aborted: " : "",
					aborted ? aborted : "", aborted ? "; " : "",
					(long long)executed, (long long)total, nfiles,
					(long long)required);
	} else {
		out->verdict = GUARD_PASS;
		out->reason = xasprintf("%lld of %lld test(s) executed in %zu file(s), %lld required",
					(long long)executed, (long long)total, nfiles,
					(long long)required);
	}
}
