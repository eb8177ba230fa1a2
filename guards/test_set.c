/*
 * test_set guard: a comparison is only fair when every recorded
 * invocation ran the same tests. A candidate that quietly runs fewer (a
 * filter, a discovery failure, a skipped assembly) is not comparable, and
 * the reason names the tests that differ. A test is its qualified name
 * (class and method, results.h); the sets are multisets — a test that ran
 * twice is two, and a run that has it once misses one — kept as sorted
 * arrays and compared by a merge walk.
 */
#include "guards/guard.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/escape.h"
#include "util/strbuf.h"

/* How many differing names a reason lists before it says "and N more". */
#define TEST_SET_SHOW 5
/* Longest name quoted in a reason, escaped, before "...". */
#define TEST_SET_NAME_SHOW 200

struct test_set {
	char **names;
	size_t n, alloc;
	int sealed;
};

struct test_set *test_set_new(void)
{
	return xcalloc(1, sizeof(struct test_set));
}

void test_set_add(struct test_set *set, const char *name)
{
	ALLOC_GROW(set->names, set->n + 1, set->alloc);
	set->names[set->n++] = xstrdup(name);
	set->sealed = 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void test_set_seal(struct test_set *set)
{
	qsort(set->names, set->n, sizeof(*set->names), cmp_names);
	set->sealed = 1;
}

size_t test_set_size(const struct test_set *set)
{
	return set->n;
}

const char *const *test_set_names(const struct test_set *set, size_t *n)
{
	*n = set->n;
	return (const char *const *)set->names;
}

void test_set_free(struct test_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		free(set->names[i]);
	free(set->names);
	free(set);
}

static void list_add(struct strbuf *sb, size_t *shown, size_t *more, const char *name)
{
	if (*shown < TEST_SET_SHOW) {
		char b[TEST_SET_NAME_SHOW + 4];
		/*
		 * Names come from result files: escaped, so that the reason stays
		 * on one line and no terminal or viewer acts on it.
		 */
		strbuf_addf(sb, "%s'%s'", *shown ? ", " : "", show_str(b, sizeof(b), name));
		(*shown)++;
	} else {
		(*more)++;
	}
}

void guard_test_set(const struct test_set *ref, const char *ref_label,
		    const struct test_set *got, struct guard_result *out)
{
	struct strbuf missing = STRBUF_INIT, extra = STRBUF_INIT;
	size_t i = 0, j = 0, nmiss = 0, nextra = 0, smiss = 0, sextra = 0, mmiss = 0, mextra = 0;

	while (i < ref->n || j < got->n) {
		int c = i == ref->n ? 1 : j == got->n ? -1 : strcmp(ref->names[i], got->names[j]);
		if (c < 0) {
			nmiss++;
			list_add(&missing, &smiss, &mmiss, ref->names[i++]);
		} else if (c > 0) {
			nextra++;
			list_add(&extra, &sextra, &mextra, got->names[j++]);
		} else {
			i++;
			j++;
		}
	}
	out->kind = GUARD_TEST_SET;
	if (!nmiss && !nextra) {
		out->verdict = GUARD_PASS;
		out->reason = xasprintf("ran the same %zu test(s) as %s", got->n, ref_label);
	} else {
		struct strbuf r = STRBUF_INIT;
		out->verdict = GUARD_FAIL;
		strbuf_addf(&r, "not comparable: ran %zu test(s), %s ran %zu", got->n, ref_label,
			    ref->n);
		if (nmiss) {
			strbuf_addf(&r, "; missing %zu: %s", nmiss, missing.buf);
			if (mmiss)
				strbuf_addf(&r, " and %zu more", mmiss);
		}
		if (nextra) {
			strbuf_addf(&r, "; extra %zu: %s", nextra, extra.buf);
			if (mextra)
				strbuf_addf(&r, " and %zu more", mextra);
		}
		out->reason = strbuf_detach(&r, NULL);
	}
	strbuf_release(&missing);
	strbuf_release(&extra);
}

/*
 * The first invocation to run tests sets the reference only when it
 * passed everything else: a failed run's test set says nothing about
 * what the suite is.
 */
int guard_test_set_first(const struct test_set *got, int sound, struct guard_result *out)
{
	out->kind = GUARD_TEST_SET;
	if (!sound) {
		out->verdict = GUARD_UNCHECKED;
		out->reason = xasprintf("ran %zu test(s); no reference set yet to compare with",
					got->n);
		return 0;
	}
	out->verdict = GUARD_PASS;
	out->reason = xasprintf("ran %zu test(s); the reference set for the other invocations",
				got->n);
	return 1;
}
