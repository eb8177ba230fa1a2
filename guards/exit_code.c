/*
 * exit_code guard: a non-zero exit fails the invocation unless the plan
 * lists the code in allowed_exit_codes (a benchmark suite may exit 1 when
 * a known test fails and still be worth timing).
 */
#include "guards/guard.h"

#include "util/strbuf.h"

void guard_exit_code(int exit_code, const int *allowed, size_t nallowed,
		     struct guard_result *out)
{
	struct strbuf list = STRBUF_INIT;
	int ok = 0;

	for (size_t i = 0; i < nallowed; i++) {
		strbuf_addf(&list, "%s%d", i ? ", " : "", allowed[i]);
		ok |= allowed[i] == exit_code;
	}
	out->kind = GUARD_EXIT_CODE;
	out->verdict = ok ? GUARD_PASS : GUARD_FAIL;
	out->reason = xasprintf("exited with code %d (allowed: %s)", exit_code, list.buf);
	strbuf_release(&list);
}
