/*
 * demo-suite: the test program of abev's bundled example (make demo). It
 * runs six small tests that do real work — sorting, hashing, building a
 * string, multiplying matrices, sieving primes, counting distinct keys —
 * times each, checks each result against a value known in advance, prints
 * one line per test and a summary, and writes a VSTest TRX file when
 * given --trx PATH.
 *
 * Two implementations, chosen by DEMO_IMPL=baseline|candidate, compute the
 * same results with different work: the candidate uses a radix sort, a
 * table-driven CRC, one preallocated string buffer and a direct-address
 * counting table, so it spends less CPU time but holds a 48 MiB table that
 * the baseline does not. An A/B run of the two shows a change in both
 * directions. Inputs come from fixed seeds, so results never vary.
 *
 * DEMO_FAIL=<test name> corrupts that test's result (to see a failing
 * run); --only NAME runs one test and reports the others as NotExecuted.
 * Exit status: 0 all executed tests passed, 1 a test failed, 2 usage or
 * I/O error. Plain C11 and POSIX, no dependencies.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Sizes: one run of either implementation takes a few tenths of a second. */
#define SORT_N 750000u
#define CRC_BYTES (6u << 20)
#define STR_ENTRIES 225000u
#define MAT_N 560u
#define MAT_REPS 6u
#define SIEVE_LIMIT 6000000u
#define KEYS_N 1125000u
#define KEY_RANGE 12582912u /* 12 Mi keys: 48 MiB of uint32 counters */

/* Results known in advance (the same for both implementations). */
#define SORT_SUM 0x5b9e2794d58d2ull
#define CRC_EXPECT 0x3cd62185u
#define STR_LEN_EXPECT 3463894u
#define STR_FNV_EXPECT 0xc0d77a20a4e54c31ull
#define PRIMES_EXPECT 412849u /* pi(6e6) */
#define DISTINCT_EXPECT 1076251u
#define MAXFREQ_EXPECT 5u

enum impl { IMPL_BASELINE, IMPL_CANDIDATE };

enum outcome { OUT_PASSED, OUT_FAILED, OUT_NOT_EXECUTED };

struct test {
	const char *name;
	int (*run)(enum impl impl, int corrupt, char *why, size_t why_len);
	enum outcome outcome;
	double ms;
	char why[160];
	struct timespec start, end;
};

/* splitmix64: a fixed, portable stream of pseudo-random numbers. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "demo-suite: out of memory\n");
		exit(2);
	}
	return p;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "demo-suite: out of memory\n");
		exit(2);
	}
	return p;
}

static double elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* ---- sort_uint32 ------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* LSD radix sort, four passes of eight bits, through one scratch array. */
static void radix_sort(uint32_t *v, size_t n)
{
	uint32_t *tmp = xmalloc(n * sizeof(*tmp));
	uint32_t *src = v, *dst = tmp;

	for (unsigned shift = 0; shift < 32; shift += 8) {
		size_t count[256] = { 0 };
		size_t pos = 0;

		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xff]++;
		for (unsigned b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	/* Four passes: the sorted data is back in v. */
	free(tmp);
}

static int test_sort(enum impl impl, int corrupt, char *why, size_t why_len)
{
	uint32_t *v = xmalloc(SORT_N * sizeof(*v));
	uint64_t seed = 1, sum = 0;
	int ok = 1;

	for (size_t i = 0; i < SORT_N; i++)
		v[i] = (uint32_t)rng_next(&seed);
	if (impl == IMPL_CANDIDATE)
		radix_sort(v, SORT_N);
	else
		qsort(v, SORT_N, sizeof(*v), cmp_u32);
	if (corrupt)
		v[SORT_N / 2] = 0;
	for (size_t i = 0; i < SORT_N; i++) {
		sum += v[i];
		if (i && v[i - 1] > v[i] && ok) {
			snprintf(why, why_len, "out of order at index %zu", i);
			ok = 0;
		}
	}
	if (ok && sum != SORT_SUM) {
		snprintf(why, why_len, "sum 0x%llx, expected 0x%llx", (unsigned long long)sum,
			 (unsigned long long)SORT_SUM);
		ok = 0;
	}
	free(v);
	return ok ? 0 : -1;
}

/* ---- crc32 ------------------------------------------------------------ */

static uint32_t crc32_bitwise(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return ~c;
}

static uint32_t crc32_table(const unsigned char *p, size_t n)
{
	uint32_t t[256];
	uint32_t c = 0xffffffffu;

	for (uint32_t b = 0; b < 256; b++) {
		uint32_t x = b;

		for (int k = 0; k < 8; k++)
			x = (x >> 1) ^ (0xedb88320u & (0u - (x & 1u)));
		t[b] = x;
	}
	for (size_t i = 0; i < n; i++)
		c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

static int test_crc(enum impl impl, int corrupt, char *why, size_t why_len)
{
	static const char check[] = "123456789";
	unsigned char *data = xmalloc(CRC_BYTES);
	uint32_t (*crc)(const unsigned char *, size_t) =
		impl == IMPL_CANDIDATE ? crc32_table : crc32_bitwise;
	uint64_t seed = 2;
	uint32_t got, known;
	int ret = 0;

	for (size_t i = 0; i < CRC_BYTES; i += 8) {
		uint64_t r = rng_next(&seed);

		memcpy(data + i, &r, 8);
	}
	/* The same bytes on every machine, whatever its byte order. */
	for (size_t i = 0; i < CRC_BYTES; i++)
		data[i] = (unsigned char)(data[i] ^ (i * 31u));
	known = crc((const unsigned char *)check, sizeof(check) - 1);
	got = crc(data, CRC_BYTES) ^ (corrupt ? 1u : 0u);
	if (known != 0xcbf43926u) {
		snprintf(why, why_len, "crc32(\"123456789\") = %08x, expected cbf43926",
			 (unsigned)known);
		ret = -1;
	} else if (got != CRC_EXPECT) {
		snprintf(why, why_len, "crc32 %08x, expected %08x", (unsigned)got,
			 (unsigned)CRC_EXPECT);
		ret = -1;
	}
	free(data);
	return ret;
}

/* ---- string_build ----------------------------------------------------- */

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

struct piece {
	struct piece *next;
	size_t len;
	char text[];
};

/* One allocation per entry, then one pass to join them. */
static char *build_pieces(size_t *len_out)
{
	struct piece *head = NULL, **tail = &head;
	size_t total = 0;
	char *out, *w;

	for (uint32_t i = 0; i < STR_ENTRIES; i++) {
		char tmp[48];
		int n = snprintf(tmp, sizeof(tmp), "key%u=%u;", i, (i * 2654435761u) % 100000u);
		struct piece *p = xmalloc(sizeof(*p) + (size_t)n + 1);

		memcpy(p->text, tmp, (size_t)n + 1);
		p->len = (size_t)n;
		p->next = NULL;
		*tail = p;
		tail = &p->next;
		total += (size_t)n;
	}
	out = xmalloc(total + 1);
	w = out;
	while (head) {
		struct piece *next = head->next;

		memcpy(w, head->text, head->len);
		w += head->len;
		free(head);
		head = next;
	}
	*w = '\0';
	*len_out = total;
	return out;
}

static char *put_u32(char *w, uint32_t v)
{
	char d[10];
	int n = 0;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*w++ = d[--n];
	return w;
}

/* One buffer sized for the worst case, digits written by hand. */
static char *build_buffer(size_t *len_out)
{
	char *out = xmalloc((size_t)STR_ENTRIES * 28 + 1);
	char *w = out;

	for (uint32_t i = 0; i < STR_ENTRIES; i++) {
		memcpy(w, "key", 3);
		w = put_u32(w + 3, i);
		*w++ = '=';
		w = put_u32(w, (i * 2654435761u) % 100000u);
		*w++ = ';';
	}
	*w = '\0';
	*len_out = (size_t)(w - out);
	return out;
}

static int test_string(enum impl impl, int corrupt, char *why, size_t why_len)
{
	size_t len;
	char *s = impl == IMPL_CANDIDATE ? build_buffer(&len) : build_pieces(&len);
	uint64_t h;
	int ret = 0;

	if (corrupt)
		s[0] = 'K';
	h = fnv1a(s, len);
	if (len != STR_LEN_EXPECT || h != STR_FNV_EXPECT || strncmp(s, "key0=0;key1=", 12)) {
		snprintf(why, why_len, "length %zu hash 0x%016llx, expected %u 0x%016llx", len,
			 (unsigned long long)h, STR_LEN_EXPECT, (unsigned long long)STR_FNV_EXPECT);
		ret = -1;
	}
	free(s);
	return ret;
}

/* ---- matrix_multiply -------------------------------------------------- */

static int test_matrix(enum impl impl, int corrupt, char *why, size_t why_len)
{
	const size_t n = MAT_N;
	double *a = xmalloc(n * n * sizeof(*a));
	double *b = xmalloc(n * n * sizeof(*b));
	double *c = xcalloc(n * n, sizeof(*c));
	double got = 0, want = 0;
	int ret = 0;

	/* Small integers: every sum is exact, so the check can be exact too. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			a[i * n + j] = (double)((i * 7 + j * 3) % 10);
			b[i * n + j] = (double)((i * 5 + j * 11) % 10);
		}
	(void)impl; /* the same product in both: not every test has to differ */
	for (unsigned r = 0; r < MAT_REPS; r++)
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < n; k++) {
				double aik = a[i * n + k];

				for (size_t j = 0; j < n; j++)
					c[i * n + j] += aik * b[k * n + j];
			}
	if (corrupt)
		c[0] += 1;
	/*
	 * C holds MAT_REPS times AB, and sum(AB) = sum over k of (column k of A
	 * summed) * (row k of B summed): an O(n^2) check of an O(n^3) product.
	 */
	for (size_t k = 0; k < n; k++) {
		double col = 0, row = 0;

		for (size_t i = 0; i < n; i++) {
			col += a[i * n + k];
			row += b[k * n + i];
		}
		want += col * row * MAT_REPS;
	}
	for (size_t i = 0; i < n * n; i++)
		got += c[i];
	if (got != want) {
		snprintf(why, why_len, "sum of the product %.0f, expected %.0f", got, want);
		ret = -1;
	}
	free(a);
	free(b);
	free(c);
	return ret;
}

/* ---- prime_sieve ------------------------------------------------------ */

static int test_sieve(enum impl impl, int corrupt, char *why, size_t why_len)
{
	uint32_t count = 0;
	unsigned char *composite;

	(void)impl; /* the same sieve in both: not every test has to differ */
	composite = xcalloc(SIEVE_LIMIT, 1);
	for (uint32_t i = 2; (uint64_t)i * i < SIEVE_LIMIT; i++)
		if (!composite[i])
			for (uint32_t j = i * i; j < SIEVE_LIMIT; j += i)
				composite[j] = 1;
	for (uint32_t i = 2; i < SIEVE_LIMIT; i++)
		count += !composite[i];
	free(composite);
	if (corrupt)
		count++;
	if (count != PRIMES_EXPECT) {
		snprintf(why, why_len, "%u primes below %u, expected %u", count, SIEVE_LIMIT,
			 PRIMES_EXPECT);
		return -1;
	}
	return 0;
}

/* ---- distinct_keys ---------------------------------------------------- */

static void distinct_sorted(const uint32_t *keys, uint32_t *distinct, uint32_t *maxfreq)
{
	uint32_t *v = xmalloc(KEYS_N * sizeof(*v));
	uint32_t run = 0;

	memcpy(v, keys, KEYS_N * sizeof(*v));
	qsort(v, KEYS_N, sizeof(*v), cmp_u32);
	*distinct = 0;
	*maxfreq = 0;
	for (size_t i = 0; i < KEYS_N; i++) {
		if (i == 0 || v[i] != v[i - 1]) {
			++*distinct;
			run = 0;
		}
		if (++run > *maxfreq)
			*maxfreq = run;
	}
	free(v);
}

/* A counter for every possible key: no sorting, but 48 MiB of table. */
static void distinct_table(const uint32_t *keys, uint32_t *distinct, uint32_t *maxfreq)
{
	uint32_t *count = xcalloc(KEY_RANGE, sizeof(*count));

	*distinct = 0;
	*maxfreq = 0;
	/* Touch every page up front so the memory cost does not depend on the keys. */
	for (size_t i = 0; i < KEY_RANGE; i += 1024)
		count[i] = 0;
	for (size_t i = 0; i < KEYS_N; i++) {
		uint32_t c = ++count[keys[i]];

		*distinct += c == 1;
		if (c > *maxfreq)
			*maxfreq = c;
	}
	free(count);
}

static int test_distinct(enum impl impl, int corrupt, char *why, size_t why_len)
{
	uint32_t *keys = xmalloc(KEYS_N * sizeof(*keys));
	uint64_t seed = 3;
	uint32_t distinct, maxfreq;
	int ret = 0;

	for (size_t i = 0; i < KEYS_N; i++)
		keys[i] = (uint32_t)(rng_next(&seed) % KEY_RANGE);
	if (impl == IMPL_CANDIDATE)
		distinct_table(keys, &distinct, &maxfreq);
	else
		distinct_sorted(keys, &distinct, &maxfreq);
	if (corrupt)
		distinct--;
	if (distinct != DISTINCT_EXPECT || maxfreq != MAXFREQ_EXPECT) {
		snprintf(why, why_len, "%u distinct keys, max frequency %u; expected %u and %u",
			 distinct, maxfreq, DISTINCT_EXPECT, MAXFREQ_EXPECT);
		ret = -1;
	}
	free(keys);
	return ret;
}

/* ---- TRX -------------------------------------------------------------- */

static void format_duration(char *out, size_t len, double ms)
{
	long long ticks = (long long)(ms * 1e4 + 0.5); /* 100 ns */
	long long s = ticks / 10000000;

	snprintf(out, len, "%02lld:%02lld:%02lld.%07lld", s / 3600, s / 60 % 60, s % 60,
		 ticks % 10000000);
}

static void format_utc(char *out, size_t len, const struct timespec *ts)
{
	struct tm tm;

	if (!gmtime_r(&ts->tv_sec, &tm) ||
	    !strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(out, len, "1970-01-01T00:00:00");
		return;
	}
	snprintf(out + strlen(out), len - strlen(out), ".%07ld+00:00", ts->tv_nsec / 100);
}

/* Deterministic GUIDs: kind 1 = test id, 2 = execution id, 0 = the run. */
static void guid(char *out, size_t len, unsigned kind, unsigned index)
{
	snprintf(out, len, "a6e5c0de-0000-4000-8%03x-%012x", kind, index);
}

static const char *outcome_name(enum outcome o)
{
	switch (o) {
	case OUT_PASSED:
		return "Passed";
	case OUT_FAILED:
		return "Failed";
	case OUT_NOT_EXECUTED:
		break;
	}
	return "NotExecuted";
}

/* Appends s with XML's five special characters escaped. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f);
		}
	}
}

#define LIST_ID "8c84fa94-04c1-424b-9868-57a2d4851a1d"
#define TEST_TYPE "13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b"

static int write_trx(const char *path, const char *impl_name, const struct test *tests,
		     size_t n, const struct timespec *start, const struct timespec *finish)
{
	FILE *f = fopen(path, "w");
	char id[64], exec[64], t0[48], t1[48], dur[32];
	unsigned passed = 0, failed = 0, skipped = 0;
	int ret = 0;

	if (!f) {
		fprintf(stderr, "demo-suite: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		passed += tests[i].outcome == OUT_PASSED;
		failed += tests[i].outcome == OUT_FAILED;
		skipped += tests[i].outcome == OUT_NOT_EXECUTED;
	}
	guid(id, sizeof(id), 0, 0);
	format_utc(t0, sizeof(t0), start);
	format_utc(t1, sizeof(t1), finish);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		"<TestRun id=\"%s\" name=\"demo-suite %s\" runUser=\"abev-demo\" "
		"xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\">\n"
		"  <Times creation=\"%s\" queuing=\"%s\" start=\"%s\" finish=\"%s\" />\n"
		"  <Results>\n", id, impl_name, t0, t0, t0, t1);
	for (size_t i = 0; i < n; i++) {
		const struct test *t = &tests[i];

		guid(id, sizeof(id), 1, (unsigned)i + 1);
		guid(exec, sizeof(exec), 2, (unsigned)i + 1);
		format_duration(dur, sizeof(dur), t->outcome == OUT_NOT_EXECUTED ? 0 : t->ms);
		format_utc(t0, sizeof(t0), t->outcome == OUT_NOT_EXECUTED ? start : &t->start);
		format_utc(t1, sizeof(t1), t->outcome == OUT_NOT_EXECUTED ? start : &t->end);
		fprintf(f, "    <UnitTestResult executionId=\"%s\" testId=\"%s\" testName=\"%s\" "
			"computerName=\"localhost\" duration=\"%s\" startTime=\"%s\" endTime=\"%s\" "
			"testType=\"" TEST_TYPE "\" outcome=\"%s\" testListId=\"" LIST_ID "\">\n",
			exec, id, t->name, dur, t0, t1, outcome_name(t->outcome));
		if (t->outcome != OUT_NOT_EXECUTED) {
			fprintf(f, "      <Output>\n        <StdOut>BENCH %s_ms=%.3f</StdOut>\n",
				t->name, t->ms);
			if (t->outcome == OUT_FAILED) {
				fputs("        <ErrorInfo>\n          <Message>", f);
				xml_text(f, t->why);
				fputs("</Message>\n        </ErrorInfo>\n", f);
			}
			fputs("      </Output>\n", f);
		}
		fputs("    </UnitTestResult>\n", f);
	}
	fputs("  </Results>\n  <TestDefinitions>\n", f);
	for (size_t i = 0; i < n; i++) {
		guid(id, sizeof(id), 1, (unsigned)i + 1);
		guid(exec, sizeof(exec), 2, (unsigned)i + 1);
		fprintf(f, "    <UnitTest name=\"%s\" storage=\"demo-suite\" id=\"%s\">\n"
			"      <Execution id=\"%s\" />\n"
			"      <TestMethod codeBase=\"demo-suite\" adapterTypeName=\"executor://abev-demo\" "
			"className=\"DemoSuite\" name=\"%s\" />\n"
			"    </UnitTest>\n", tests[i].name, id, exec, tests[i].name);
	}
	fputs("  </TestDefinitions>\n  <TestEntries>\n", f);
	for (size_t i = 0; i < n; i++) {
		guid(id, sizeof(id), 1, (unsigned)i + 1);
		guid(exec, sizeof(exec), 2, (unsigned)i + 1);
		fprintf(f, "    <TestEntry testId=\"%s\" executionId=\"%s\" testListId=\"" LIST_ID
			"\" />\n", id, exec);
	}
	fprintf(f, "  </TestEntries>\n  <TestLists>\n"
		"    <TestList name=\"Results Not in a List\" id=\"" LIST_ID "\" />\n"
		"  </TestLists>\n"
		"  <ResultSummary outcome=\"%s\">\n"
		"    <Counters total=\"%zu\" executed=\"%u\" passed=\"%u\" failed=\"%u\" error=\"0\" "
		"timeout=\"0\" aborted=\"0\" inconclusive=\"0\" passedButRunAborted=\"0\" "
		"notRunnable=\"0\" notExecuted=\"%u\" disconnected=\"0\" warning=\"0\" "
		"completed=\"0\" inProgress=\"0\" pending=\"0\" />\n"
		"  </ResultSummary>\n</TestRun>\n",
		failed ? "Failed" : "Completed", n, passed + failed, passed, failed, skipped);
	if (ferror(f)) {
		fprintf(stderr, "demo-suite: cannot write '%s'\n", path);
		ret = -1;
	}
	if (fclose(f) != 0 && !ret) {
		fprintf(stderr, "demo-suite: cannot write '%s': %s\n", path, strerror(errno));
		ret = -1;
	}
	return ret;
}

/* ---- main ------------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("usage: demo-suite [--trx PATH] [--only TEST]\n"
	      "  DEMO_IMPL=baseline|candidate  the implementation (default baseline)\n"
	      "  DEMO_FAIL=TEST                make TEST fail on purpose\n"
	      "tests: sort_uint32 crc32 string_build matrix_multiply prime_sieve distinct_keys\n", f);
}

int main(int argc, char **argv)
{
	struct test tests[] = {
		{ .name = "sort_uint32", .run = test_sort },
		{ .name = "crc32", .run = test_crc },
		{ .name = "string_build", .run = test_string },
		{ .name = "matrix_multiply", .run = test_matrix },
		{ .name = "prime_sieve", .run = test_sieve },
		{ .name = "distinct_keys", .run = test_distinct },
	};
	const size_t ntests = sizeof(tests) / sizeof(tests[0]);
	const char *trx = NULL, *only = NULL;
	const char *impl_name = getenv("DEMO_IMPL");
	const char *fail = getenv("DEMO_FAIL");
	struct timespec start, finish;
	unsigned passed = 0, failed = 0, skipped = 0;
	double total_ms = 0;
	enum impl impl;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--trx") && i + 1 < argc) {
			trx = argv[++i];
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "demo-suite: unknown or incomplete argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (!impl_name || !*impl_name)
		impl_name = "baseline";
	if (!strcmp(impl_name, "baseline")) {
		impl = IMPL_BASELINE;
	} else if (!strcmp(impl_name, "candidate")) {
		impl = IMPL_CANDIDATE;
	} else {
		fprintf(stderr, "demo-suite: DEMO_IMPL must be baseline or candidate, not '%s'\n",
			impl_name);
		return 2;
	}
	if (only) {
		size_t k = 0;

		while (k < ntests && strcmp(tests[k].name, only))
			k++;
		if (k == ntests) {
			fprintf(stderr, "demo-suite: no test named '%s'\n", only);
			usage(stderr);
			return 2;
		}
	}

	printf("demo-suite: %s implementation, %zu tests\n", impl_name, ntests);
	clock_gettime(CLOCK_REALTIME, &start);
	for (size_t i = 0; i < ntests; i++) {
		struct test *t = &tests[i];
		struct timespec a, b;
		int r;

		if (only && strcmp(only, t->name)) {
			t->outcome = OUT_NOT_EXECUTED;
			skipped++;
			printf("  %-16s not executed\n", t->name);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &t->start);
		clock_gettime(CLOCK_MONOTONIC, &a);
		r = t->run(impl, fail && !strcmp(fail, t->name), t->why, sizeof(t->why));
		clock_gettime(CLOCK_MONOTONIC, &b);
		clock_gettime(CLOCK_REALTIME, &t->end);
		t->ms = elapsed_ms(&a, &b);
		total_ms += t->ms;
		t->outcome = r ? OUT_FAILED : OUT_PASSED;
		if (r) {
			failed++;
			printf("  %-16s FAILED  %9.3f ms  %s\n", t->name, t->ms, t->why);
		} else {
			passed++;
			printf("  %-16s passed  %9.3f ms\n", t->name, t->ms);
		}
		printf("BENCH %s_ms=%.3f\n", t->name, t->ms);
	}
	clock_gettime(CLOCK_REALTIME, &finish);
	printf("demo-suite: %u passed, %u failed, %u not executed; %.3f ms in tests\n", passed,
	       failed, skipped, total_ms);
	if (fflush(stdout) != 0)
		return 2;
	if (trx && write_trx(trx, impl_name, tests, ntests, &start, &finish))
		return 2;
	return failed ? 1 : 0;
}
