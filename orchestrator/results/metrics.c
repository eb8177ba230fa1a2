/*
 * metrics: applies the plan's metric definitions to what one invocation
 * produced — its process figures, its stdout and stderr files, the
 * captured stdout and durations of its test results — and says for every
 * metric either its value or why there is none. Patterns are compiled
 * once per set and run over the text a window of METRICS_WINDOW bytes at
 * a time, so they may span lines but not stall a run (see scan()).
 * It reads the two text files itself, bounded, and prints nothing: a
 * missing or oversize file is a reason on the metric, not a message.
 * It does not parse plans (plan.c does) or result files (results.c does).
 */
#include "results/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results/dotnet_runtime.h"
#include "util/dirat.h"
#include "util/suggest.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/escape.h"
#include "util/hash.h"
#include "util/number.h"
#include "util/readfile.h"
#include "util/strbuf.h"

/* Room for a quoted piece of input (a pattern, a capture) in a reason. */
#define SHOW_MAX 96
/* Test names a metric that matched none suggests. */
#define METRICS_NEAREST_MAX 5
/* Longer captures are not numbers anyone writes. */
#define NUMBER_MAX 64

/*
 * Patterns are checked here and compiled again for each text scanned
 * (scan()): glibc keeps the states a match builds in the regex_t, so one
 * compiled for good would grow by up to the memory cap on every
 * text.
 */
struct metric_set {
	const struct metric_def *defs;
	size_t ndefs;
};


/* Skips a bracket expression starting at p ('['): returns the byte after its ']'. */
static const char *skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		/* [:class:], [=equiv=] and [.coll.] hold a ']' of their own. */
		if (p[0] == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			const char *close = p + 2;
			while (*close && !(close[0] == p[1] && close[1] == ']'))
				close++;
			p = *close ? close + 2 : close;
			continue;
		}
		p++;
	}
	return *p ? p + 1 : p;
}

/*
 * glibc's regcomp() copies what a repetition repeats: x{m,n} becomes up
 * to max(m, n) copies of x, and x+ two, so repetitions of repetitions
 * ("b+++...", "((x{99}){99}){99}") multiply while the pattern is compiled:
 * gigabytes for a hundred characters (found by the plan fuzzer). The
 * estimate below follows that copying and PATTERN_NODES_MAX bounds it.
 */
#define PATTERN_NODES_MAX 20000.0
#define PATTERN_GROUPS_MAX 32

/* The copies a repetition at p makes (its largest count, at least 2); *end after it. */
static double repeat_factor(const char *p, const char **end)
{
	double hi = 0, n;
	char *e;

	*end = p + 1;
	if (*p != '{')
		return 2;
	n = strtod(p + 1, &e);
	hi = n;
	if (*e == ',') {
		if (e[1] >= '0' && e[1] <= '9')
			hi = strtod(e + 1, &e);
		else
			e++;
	}
	*end = *e == '}' ? e + 1 : e;
	return hi > 2 ? hi : 2;
}

static const char *pattern_size_problem(const char *pattern)
{
	double outer[PATTERN_GROUPS_MAX], size = 0, last = 0;
	int depth = 0;

	for (const char *p = pattern; *p;) {
		int is_repeat = *p == '*' || *p == '+' || *p == '?' ||
				(*p == '{' && ((p[1] >= '0' && p[1] <= '9') || p[1] == ','));
		if (is_repeat) {
			const char *end;
			double f = repeat_factor(p, &end);
			size += last * (f - 1);
			last *= f;
			p = end;
		} else {
			if (*p == '(') {
				if (depth == PATTERN_GROUPS_MAX)
					return "groups nested more than 32 deep are not allowed";
				outer[depth++] = size;
				size = last = 0;
				p++;
			} else if (*p == ')' && depth) {
				last = size + 1;
				size = outer[--depth] + last;
				p++;
			} else {
				const char *next = *p == '[' ? skip_bracket(p)
					     : p + (*p == '\\' && p[1] ? 2 : 1);
				last = 1;
				size += 1;
				p = next;
			}
		}
		if (size > PATTERN_NODES_MAX || last > PATTERN_NODES_MAX)
			return "its repetitions multiply to more than 20000 copies of its parts "
			       "(e.g. 'x++++++++++++++++' or '((x{99}){99}){99}'): too many to compile "
			       "safely";
	}
	return NULL;
}

const char *metrics_pattern_problem(const char *pattern)
{
	for (const char *p = pattern; *p;) {
		if (*p == '[') {
			p = skip_bracket(p);
		} else if (*p == '\\') {
			if (p[1] >= '1' && p[1] <= '9')
				return "back-references (\\1 to \\9) are not allowed: their matching "
				       "time has no bound";
			/* glibc reads \d as the letter d: the pattern would match, wrongly. */
			if (p[1] == 'd' || p[1] == 'D')
				return "\\d and \\D are Perl's, not POSIX extended regular "
				       "expressions' (where \\d is the letter d): use [0-9] or [^0-9]";
			p += p[1] ? 2 : 1;
		} else {
			p++;
		}
	}
	return pattern_size_problem(pattern);
}

struct metric_set *metrics_compile(const struct metric_def *defs, size_t ndefs, char **err)
{
	struct metric_set *set = xcalloc(1, sizeof(*set));
	char b[SHOW_MAX];

	*err = NULL;
	set->defs = defs;
	set->ndefs = ndefs;
	for (size_t i = 0; i < ndefs; i++) {
		const struct metric_def *d = &defs[i];
		int wants_pattern = d->source == METRIC_STDOUT || d->source == METRIC_STDERR ||
				    d->source == METRIC_RESULTS;
		int wants_test = d->source == METRIC_RESULTS || d->source == METRIC_DURATION;
		regex_t re;
		size_t nsub;
		int rc;

		if (!d->name) {
			*err = xasprintf("metric %zu has no name", i + 1);
			goto fail;
		}
		if ((size_t)d->source >= METRIC_SOURCE_COUNT) {
			*err = xasprintf("metric '%s': unknown source", show_str(b, sizeof(b), d->name));
			goto fail;
		}
		if (d->source == METRIC_PROCESS && metric_def_field_index(d->field) < 0) {
			*err = xasprintf("metric '%s': unknown process field", show_str(b, sizeof(b), d->name));
			goto fail;
		}
		if (d->source == METRIC_DOTNET && dotnet_runtime_figure_index(d->field) < 0) {
			*err = xasprintf("metric '%s': unknown runtime figure", show_str(b, sizeof(b), d->name));
			goto fail;
		}
		if (wants_test && !d->test) {
			*err = xasprintf("metric '%s': source %s needs a test glob", show_str(b, sizeof(b), d->name),
					 metric_def_source_name(d->source));
			goto fail;
		}
		if (!wants_pattern)
			continue;
		if (!d->pattern) {
			*err = xasprintf("metric '%s': source %s needs a pattern", show_str(b, sizeof(b), d->name),
					 metric_def_source_name(d->source));
			goto fail;
		}
		if (metrics_pattern_problem(d->pattern)) {
			char pb[SHOW_MAX];
			*err = xasprintf("metric '%s': pattern '%s': %s", show_str(b, sizeof(b), d->name),
					 show_str(pb, sizeof(pb), d->pattern), metrics_pattern_problem(d->pattern));
			goto fail;
		}
		rc = regcomp(&re, d->pattern, REG_EXTENDED);
		if (rc) {
			char why[256], pb[SHOW_MAX];
			regerror(rc, &re, why, sizeof(why));
			*err = xasprintf("metric '%s': invalid regular expression '%s': %s",
					 show_str(b, sizeof(b), d->name), show_str(pb, sizeof(pb), d->pattern), why);
			goto fail;
		}
		nsub = re.re_nsub;
		regfree(&re);
		if (nsub < 1) {
			char pb[SHOW_MAX];
			*err = xasprintf("metric '%s': pattern '%s' has no capture group",
					 show_str(b, sizeof(b), d->name), show_str(pb, sizeof(pb), d->pattern));
			goto fail;
		}
	}
	return set;
fail:
	metrics_free(set);
	return NULL;
}

void metrics_free(struct metric_set *set)
{
	free(set);
}

static int test_matches(const struct metric_def *d, const char *name, const char *written)
{
	return (d->source == METRIC_RESULTS || d->source == METRIC_DURATION) && d->test &&
	       ((name && fnmatch(d->test, name, 0) == 0) ||
		(written && fnmatch(d->test, written, 0) == 0));
}

int metrics_wants_test(const struct metric_set *set, const char *name, const char *written)
{
	for (size_t i = 0; set && i < set->ndefs; i++)
		if (test_matches(&set->defs[i], name, written))
			return 1;
	return 0;
}

/* The literal text of a glob: what is left without its wildcards and bracket expressions. */
static char *glob_literal(const char *glob, int *has_star)
{
	struct strbuf sb = STRBUF_INIT;

	*has_star = 0;
	for (const char *p = glob; *p;) {
		if (*p == '[') {
			p = skip_bracket(p);
		} else if (*p == '*' || *p == '?') {
			*has_star |= *p == '*';
			p++;
		} else {
			if (*p == '\\' && p[1])
				p++;
			strbuf_addch(&sb, *p++);
		}
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * Why a results or duration metric got nothing: its glob matched no test,
 * with the names nearest to it, so that a typo or a name the producer
 * writes differently ("Class.Method" in JUnit) is seen at once.
 */
static char *no_match(const struct metric_def *d, const struct metric_inputs *in,
		      struct metric_value *v)
{
	const char *near[METRICS_NEAREST_MAX];
	struct strbuf sb = STRBUF_INIT;
	char b[SHOW_MAX];
	char *literal;
	size_t n;
	int has_star;

	strbuf_addf(&sb, "no test result matches '%s'", show_str(b, sizeof(b), d->test));
	v->no_test = 1;
	if (!in->ntest_names) {
		strbuf_adds(&sb, " (no test was read)");
		return strbuf_detach(&sb, NULL);
	}
	literal = glob_literal(d->test, &has_star);
	n = suggest_list(literal, in->test_names, in->ntest_names,
			 SUGGEST_ANY_CASE | (has_star ? SUGGEST_PART : 0), SIZE_MAX, near,
			 METRICS_NEAREST_MAX);
	free(literal);
	v->no_test = 1;
	v->near_names = n;
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s'%s'", i ? ", " : "; nearest test names: ", show_str(b, sizeof(b), near[i]));
	strbuf_adds(&sb, " ('abev results --list FILE' lists every name)");
	return strbuf_detach(&sb, NULL);
}

/* A text a pattern runs over: NUL-free, so that regexec sees all of it. */
struct text {
	int loaded;
	struct strbuf sb;
	char *why;           /* set when the file could not be used */
	const char *label;   /* the file's base name, for reasons */
};
#define TEXT_INIT { 0, STRBUF_INIT, NULL, NULL }

static void text_release(struct text *t)
{
	strbuf_release(&t->sb);
	free(t->why);
}

/*
 * regexec() stops at a NUL, and a binary byte in a log must not hide the
 * rest of it: NULs become newlines, which a number pattern does not span.
 */
static void replace_nuls(char *s, size_t len)
{
	for (char *p = memchr(s, '\0', len); p; p = memchr(p, '\0', len - (size_t)(p - s)))
		*p = '\n';
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/*
 * read_small(), with the reason on the metric instead of through error():
 * an absent stderr.log is a property of the run, not an error of abev.
 * The file may still be growing (a straggling grandchild): read_small()
 * checks the limit as it reads.
 */
/* read_small() of path beneath dir: a regular file only, opened non-blocking. */
static enum read_small_result read_beneath(struct strbuf *sb, const struct dirat *dir,
					   const char *path, size_t max)
{
	enum read_small_result r = READ_SMALL_OK;
	struct stat st;
	int fd = dirat_openat(dir, path, O_RDONLY | O_NONBLOCK, 0), err;

	if (fd < 0)
		return READ_SMALL_OPEN;
	if (fstat(fd, &st) < 0)
		r = READ_SMALL_STAT;
	else if (!S_ISREG(st.st_mode))
		r = READ_SMALL_TYPE;
	else if (read_fd_capped(sb, fd, max) < 0)
		r = errno == EFBIG ? READ_SMALL_TOO_BIG : READ_SMALL_READ;
	err = errno;
	close(fd);
	errno = err;
	return r;
}

/*
 * Loads the text a metric matches; with read set, also the SHA-256 and
 * size of its bytes as read, before anything in them is replaced.
 */
static void text_load(struct text *t, const struct dirat *dir, const char *path,
		      struct file_read *read)
{
	enum read_small_result r;

	t->loaded = 1;
	if (!path) {
		t->why = xstrdup("no output file was captured");
		return;
	}
	t->label = base_name(path);
	r = dir ? read_beneath(&t->sb, dir, path, METRICS_MAX_TEXT)
		: read_small(&t->sb, path, METRICS_MAX_TEXT, READ_REGULAR | READ_NOFOLLOW);
	switch (r) {
	case READ_SMALL_OK:
		if (read) {
			sha256_buf(t->sb.buf, t->sb.len, read->sha256);
			read->bytes = t->sb.len;
			read->hashed = 1;
		}
		replace_nuls(t->sb.buf, t->sb.len);
		return;
	case READ_SMALL_OPEN:
		/* abev makes no empty log (run/proc_io.c): none is an empty stream. */
		if (errno == ENOENT && dir) {
			strbuf_reset(&t->sb);
			return;
		}
		t->why = xasprintf("cannot open %s: %s", t->label,
				   errno == ELOOP || errno == EXDEV ? "it is a symbolic link"
								    : strerror(errno));
		break;
	case READ_SMALL_STAT:
		t->why = xasprintf("cannot stat %s: %s", t->label, strerror(errno));
		break;
	case READ_SMALL_TYPE:
		t->why = xasprintf("%s is not a regular file", t->label);
		break;
	case READ_SMALL_READ:
		t->why = xasprintf("cannot read %s: %s", t->label, strerror(errno));
		break;
	case READ_SMALL_TOO_BIG:
		t->why = xasprintf("%s is larger than the limit of %u bytes", t->label,
				   METRICS_MAX_TEXT);
		break;
	}
	strbuf_release(&t->sb);
}

/* The values a metric's matches (or tests) gave, combined by its match mode. */
struct acc {
	size_t n;
	double first, last, sum;
};

static void acc_add(struct acc *a, double v)
{
	if (!a->n)
		a->first = v;
	a->last = v;
	a->sum += v;
	a->n++;
}

/* 0 with the combined value, or -1 with *why set (caller frees). */
static int acc_result(const struct acc *a, enum metric_match match, double *out, char **why)
{
	double v;
	switch (match) {
	case MATCH_LAST:
		v = a->last;
		break;
	case MATCH_SUM:
		v = a->sum;
		break;
	case MATCH_MEAN:
		v = a->sum / (double)a->n;
		break;
	default:
		v = a->first;
		break;
	}
	if (!isfinite(v)) {
		*why = xasprintf("the %s of %zu values is out of range", metric_def_match_name(match),
				 a->n);
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * A capture as a number: decimal digits, sign, point and exponent only,
 * blanks around it ignored — strtod() alone would take "inf", "nan" and
 * hexadecimal too, none of which a benchmark means.
 */
static int capture_number(const char *s, size_t len, double *out, char **why)
{
	char num[NUMBER_MAX], b[SHOW_MAX];
	size_t start = 0, end = len;

	while (start < end && (s[start] == ' ' || s[start] == '\t' || s[start] == '\r' ||
			       s[start] == '\n'))
		start++;
	while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r' ||
			       s[end - 1] == '\n'))
		end--;
	if (end - start < sizeof(num)) {
		size_t k;
		for (k = start; k < end && s[k] && strchr("0123456789.eE+-", s[k]); k++)
			;
		memcpy(num, s + start, end - start);
		num[end - start] = '\0';
		if (k == end && parse_double(num, out) == 0)
			return 0;
	}
	*why = xasprintf("captured '%s', which is not a number", show_text(b, sizeof(b), s, len));
	return -1;
}

/*
 * The CPU time one metric's pattern may spend on one invocation's texts,
 * and the memory it may take on each of them.
 */
struct budget {
	int64_t limit_ns;
	int64_t start_ns;
	size_t mem_bytes;
};

/* The address-space limit regexec() runs under (RLIM_INFINITY: none) and the one it replaces. */
struct mem_cap {
	rlim_t cap;
	struct rlimit saved;
};

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* abev's address space now, in bytes (/proc/self/statm's first field); 0 when unknown. */
static size_t address_space_bytes(void)
{
	char buf[128];
	unsigned long long pages;
	long page = sysconf(_SC_PAGESIZE);

	if (read_head("/proc/self/statm", buf, sizeof(buf)) <= 0 || page <= 0 ||
	    sscanf(buf, "%llu", &pages) != 1)
		return 0;
	return (size_t)pages * (size_t)page;
}

static void budget_start(struct budget *b, const struct metric_inputs *in)
{
	double s = in->pattern_cpu_seconds > 0 ? in->pattern_cpu_seconds
					       : METRICS_PATTERN_CPU_SECONDS_DEFAULT;

	b->limit_ns = (int64_t)(s * 1e9);
	b->start_ns = thread_cpu_ns();
	b->mem_bytes = in->pattern_memory_bytes ? in->pattern_memory_bytes
						: METRICS_PATTERN_MEMORY_DEFAULT;
}

/*
 * The cap for one text: what abev holds now and the pattern's share,
 * never above a limit abev was given. Without a figure for now, no cap.
 */
static void mem_cap_start(struct mem_cap *c, const struct budget *b)
{
	size_t now = address_space_bytes();

	c->cap = RLIM_INFINITY;
	if (getrlimit(RLIMIT_AS, &c->saved) < 0 || !now)
		return;
	if ((rlim_t)now + b->mem_bytes < c->saved.rlim_cur)
		c->cap = (rlim_t)now + b->mem_bytes;
}

/*
 * One call of glibc's regexec() cannot be interrupted, and it may build a
 * state per byte of the window, each as large as the pattern (hundreds of
 * MiB for [ab]*a[ab]{64} over 8 KiB): the CPU budget, checked between
 * calls, cannot stop that. Under the cap its malloc() fails instead and
 * regexec() gives up — with REG_ESPACE, or on some paths with REG_NOMATCH,
 * so the ENOMEM that malloc() leaves in errno tells the two apart. abev
 * runs no other thread while it matches, so nothing else meets the
 * lowered limit.
 */
static int capped_regexec(const regex_t *re, const char *s, regmatch_t m[2], int eflags,
			  const struct mem_cap *c)
{
	struct rlimit lowered = { c->cap, c->saved.rlim_max };
	int capped = c->cap != RLIM_INFINITY && setrlimit(RLIMIT_AS, &lowered) == 0;
	int rc, err;

	errno = 0;
	rc = regexec(re, s, 2, m, eflags);
	err = errno;
	if (capped)
		setrlimit(RLIMIT_AS, &c->saved);
	return rc != 0 && err == ENOMEM ? REG_ESPACE : rc;
}

/*
 * One regexec() over text[off..end), which is made a string for the call
 * and restored. '^' and '$' keep meaning the start and the end of the
 * whole text: a window that starts later or ends earlier says so.
 */
static int match_window(const regex_t *re, char *text, size_t len, size_t off, size_t end,
			regmatch_t m[2], const struct mem_cap *cap)
{
	int eflags = (off ? REG_NOTBOL : 0) | (end < len ? REG_NOTEOL : 0);
	char saved = text[end];
	int rc;

	/* text[len] is the buffer's NUL, which may be a shared empty string: never written. */
	if (saved)
		text[end] = '\0';
	rc = capped_regexec(re, text + off, m, eflags, cap);
	if (saved)
		text[end] = saved;
	return rc;
}

/*
 * Runs re over text[0..len), adding group 1 of every match (only the
 * first for MATCH_FIRST). Returns 0, or -1 with *why set when a capture
 * is not a number, a match is longer than a window, or the budget ran out.
 *
 * Why windows: glibc's regexec() takes time quadratic in the text for
 * patterns such as (a|a)*b or (a)*b when they do not match (98 s on
 * 200 KB), and one call cannot be interrupted. Each call sees at most
 * METRICS_WINDOW bytes, so one call is short and the total grows with
 * the text, not its square; the CPU budget is checked between calls, so
 * no pattern stalls a run. A window without a match moves on by half its
 * size, so every match up to half a window long is found whole; a match
 * that reaches the end of its window is looked at again from its own
 * start, so that a number cut by the window's end is never taken.
 */
static int scan_windows(const regex_t *re, const struct mem_cap *cap, enum metric_match match,
			char *text, size_t len, struct acc *acc, const struct budget *budget,
			char **why)
{
	size_t off = 0;

	while (off <= len) {
		size_t end = len - off > METRICS_WINDOW ? off + METRICS_WINDOW : len;
		regmatch_t m[2];
		double v;
		size_t next;
		int rc;

		if (thread_cpu_ns() - budget->start_ns > budget->limit_ns) {
			*why = xasprintf("matching stopped at byte %zu of %zu: the pattern used up its "
					 "%g s of CPU time (limits.pattern_cpu_seconds); nested or "
					 "overlapping repetition such as (a|a)* or (a*)* is slow, "
					 "simplify the pattern", off, len, budget->limit_ns / 1e9);
			return -1;
		}
		rc = match_window(re, text, len, off, end, m, cap);
		if (rc == REG_ESPACE) {
			*why = xasprintf("matching stopped at byte %zu of %zu: the pattern needed more "
					 "than %zu MiB of memory; repetition after an ambiguous one "
					 "such as [ab]*a[ab]{64} builds a state per byte, simplify the "
					 "pattern", off, len, budget->mem_bytes >> 20);
			return -1;
		}
		if (rc != 0) {
			if (end == len)
				break;
			off += METRICS_WINDOW / 2;
			continue;
		}
		if (end < len && off + (size_t)m[0].rm_eo == end) {
			if (m[0].rm_so > 0) {
				off += (size_t)m[0].rm_so;
				continue;
			}
			*why = xasprintf("a match at byte %zu is longer than %u bytes, the most a "
					 "pattern sees at a time", off, METRICS_WINDOW);
			return -1;
		}
		if (m[1].rm_so < 0) {
			*why = xasprintf("the first group took no part in the match at byte %zu",
					 off + (size_t)m[0].rm_so);
			return -1;
		}
		if (capture_number(text + off + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so), &v,
				   why) < 0) {
			char *w = *why;
			*why = xasprintf("%s (at byte %zu)", w, off + (size_t)m[1].rm_so);
			free(w);
			return -1;
		}
		acc_add(acc, v);
		if (match == MATCH_FIRST)
			break;
		/* An empty match would be found again at the same place: step past it. */
		next = off + (size_t)m[0].rm_eo;
		if (m[0].rm_eo == m[0].rm_so)
			next++;
		off = next;
	}
	return 0;
}

/*
 * scan_windows() with pattern compiled for this text alone and freed
 * after it, so that the states matching builds die with it, under a
 * memory cap taken now.
 */
static int scan(const char *pattern, enum metric_match match, char *text, size_t len,
		struct acc *acc, const struct budget *budget, char **why)
{
	struct mem_cap cap;
	regex_t re;
	int ret;

	if (regcomp(&re, pattern, REG_EXTENDED)) {
		*why = xstrdup("the pattern no longer compiles");
		return -1;
	}
	mem_cap_start(&cap, budget);
	ret = scan_windows(&re, &cap, match, text, len, acc, budget, why);
	regfree(&re);
	return ret;
}

static void from_text(const struct metric_set *set, size_t i, struct text *t, const char *path,
		      struct file_read *read, const struct metric_inputs *in, struct metric_value *v)
{
	const struct metric_def *d = &set->defs[i];
	struct acc acc = { 0 };
	struct budget budget;
	char b[SHOW_MAX];

	if (!t->loaded)
		text_load(t, in->dir, path, read);
	if (t->why) {
		v->why = xstrdup(t->why);
		return;
	}
	budget_start(&budget, in);
	if (scan(d->pattern, d->match, t->sb.buf, t->sb.len, &acc, &budget, &v->why) < 0) {
		char *w = v->why;
		v->why = xasprintf("%s: %s", t->label, w);
		free(w);
	} else if (!acc.n) {
		v->why = xasprintf("pattern '%s' did not match %s (%zu bytes)", show_str(b, sizeof(b), d->pattern),
				   t->label, t->sb.len);
	} else {
		v->ok = acc_result(&acc, d->match, &v->value, &v->why) == 0;
	}
}

static void from_results(const struct metric_set *set, size_t i, const struct metric_inputs *in,
			 struct metric_value *v)
{
	const struct metric_def *d = &set->defs[i];
	struct strbuf sb = STRBUF_INIT;
	struct acc acc = { 0 };
	struct budget budget;
	char b[SHOW_MAX], tb[SHOW_MAX];
	size_t ntests = 0;

	budget_start(&budget, in);

	for (size_t k = 0; k < in->ntests; k++) {
		const struct metric_test *t = &in->tests[k];
		size_t len = t->stdout_text ? t->stdout_len : 0;
		if (!test_matches(d, t->name, t->written_name))
			continue;
		ntests++;
		if (d->match == MATCH_FIRST && acc.n)
			continue;
		if (len > METRICS_MAX_TEXT)
			len = METRICS_MAX_TEXT;
		strbuf_reset(&sb);
		strbuf_add(&sb, t->stdout_text ? t->stdout_text : "", len);
		replace_nuls(sb.buf, sb.len);
		if (scan(d->pattern, d->match, sb.buf, sb.len, &acc, &budget, &v->why) < 0) {
			char *w = v->why;
			v->why = xasprintf("test '%s': %s", show_str(tb, sizeof(tb), t->name), w);
			free(w);
			goto out;
		}
	}
	if (!ntests) {
		v->why = no_match(d, in, v);
		goto out;
	}
	if (!acc.n) {
		v->why = xasprintf("pattern '%s' did not match the output of the %zu test result%s "
				   "matching '%s'", show_str(b, sizeof(b), d->pattern), ntests,
				   ntests == 1 ? "" : "s", show_str(tb, sizeof(tb), d->test));
		goto out;
	}
	v->ok = acc_result(&acc, d->match, &v->value, &v->why) == 0;
out:
	strbuf_release(&sb);
}

static void from_durations(const struct metric_def *d, const struct metric_inputs *in,
			   struct metric_value *v)
{
	struct acc acc = { 0 };
	char b[SHOW_MAX];
	size_t ntests = 0;

	for (size_t k = 0; k < in->ntests; k++) {
		const struct metric_test *t = &in->tests[k];
		if (!test_matches(d, t->name, t->written_name))
			continue;
		ntests++;
		if (t->duration_s >= 0 && isfinite(t->duration_s) &&
		    !(d->match == MATCH_FIRST && acc.n))
			acc_add(&acc, t->duration_s * 1000.0);
	}
	if (!ntests) {
		v->why = no_match(d, in, v);
		return;
	}
	if (!acc.n) {
		v->why = xasprintf("the %zu test result%s matching '%s' give%s no duration", ntests,
				   ntests == 1 ? "" : "s", show_str(b, sizeof(b), d->test), ntests == 1 ? "s" : "");
		return;
	}
	v->ok = acc_result(&acc, d->match, &v->value, &v->why) == 0;
}

/*
 * A process metric with a "process" glob: the largest peak RSS, or the
 * sum of CPU time, of the tree's processes it names (a test host may be
 * one process or several in turn), less those that started another one
 * it names: Microsoft.Testing.Platform's test host controller runs under
 * the test program's name too, and its figures are not the test host's.
 * Not yielded when it names none, or none with the figure known.
 */
static void from_named_processes(const struct metric_def *d, const struct metric_inputs *in,
				 int f, struct metric_value *v)
{
	const struct proc_tree *t = in->procs;
	int64_t n = -1;
	size_t named = 0;
	char b[SHOW_MAX];

	for (size_t i = 0; t && i < t->n; i++) {
		const struct proc_tree_proc *p = &t->p[i];
		int64_t x = f == METRIC_FIELD_MAX_RSS ? p->peak_rss_bytes : p->cpu_ns;

		if (!proc_tree_matches(p, d->process) || proc_tree_starts_named(t, i, d->process))
			continue;
		named++;
		if (x < 0)
			continue;
		if (f == METRIC_FIELD_MAX_RSS)
			n = x > n ? x : n;
		else
			n = (n < 0 ? 0 : n) + x;
	}
	if (!named) {
		v->why = xasprintf("no process of the tree is named like '%s' (%zu recorded%s)",
				   show_str(b, sizeof(b), d->process), t ? t->n : 0,
				   t && t->omitted ? ", more left out" : "");
		return;
	}
	if (n < 0) {
		v->why = xasprintf("the %s of the processes named like '%s' was not measured",
				   metric_def_field_name((size_t)f), show_str(b, sizeof(b), d->process));
		return;
	}
	v->ok = 1;
	v->value = f == METRIC_FIELD_CPU ? (double)n * 1e-6 : (double)n;
}

static void from_process(const struct metric_def *d, const struct metric_inputs *in,
			 struct metric_value *v)
{
	int f = metric_def_field_index(d->field);
	int64_t n = -1;
	double scale = 1;

	if (d->process && (f == METRIC_FIELD_MAX_RSS || f == METRIC_FIELD_CPU)) {
		from_named_processes(d, in, f, v);
		return;
	}

	switch (f) {
	case METRIC_FIELD_WALL:
		n = in->fig.wall_ns;
		scale = 1e-6;
		break;
	case METRIC_FIELD_USER:
		n = in->fig.user_ns;
		scale = 1e-6;
		break;
	case METRIC_FIELD_SYS:
		n = in->fig.sys_ns;
		scale = 1e-6;
		break;
	case METRIC_FIELD_CPU:
		n = in->fig.user_ns < 0 || in->fig.sys_ns < 0 ? -1 : in->fig.user_ns + in->fig.sys_ns;
		scale = 1e-6;
		break;
	case METRIC_FIELD_MAX_RSS:
		n = in->fig.max_rss_bytes;
		break;
	case METRIC_FIELD_MINFLT:
		n = in->fig.minflt;
		break;
	case METRIC_FIELD_MAJFLT:
		n = in->fig.majflt;
		break;
	case METRIC_FIELD_NVCSW:
		n = in->fig.nvcsw;
		break;
	case METRIC_FIELD_NIVCSW:
		n = in->fig.nivcsw;
		break;
	default:
		break;
	}
	/* Negative figures are how the runner says "not measured" (no child ran). */
	if (n < 0) {
		v->why = xasprintf("%s was not measured", f >= 0 ? metric_def_field_name((size_t)f) : "?");
		return;
	}
	v->ok = 1;
	v->value = (double)n * scale;
}

/*
 * A runtime figure of the run's .NET processes: the hook's files are read
 * once per invocation (*set, loaded on first use) for all dotnet metrics.
 */
static void from_dotnet(const struct metric_def *d, const struct metric_inputs *in,
			struct dotnet_rt_set *set, int *loaded, struct metric_value *v)
{
	int f = dotnet_runtime_figure_index(d->field);

	if (!in->run_dir) {
		v->why = xstrdup("no run directory to read runtime figures from");
		return;
	}
	if (!*loaded) {
		dotnet_runtime_read(in->dir, in->run_dir, set);
		*loaded = 1;
	}
	if (f < 0) {
		v->why = xstrdup("unknown runtime figure");
		return;
	}
	v->ok = dotnet_runtime_combine(set, (size_t)f, d->process, &v->value, &v->why) == 0;
}

/* The files of *set read whole, into *in's dotnet_reads (metrics.h). */
static void dotnet_reads_out(const struct dotnet_rt_set *set, const struct metric_inputs *in)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++)
		n += !!set->procs[i].file.read.hashed;
	*in->dotnet_reads = n ? xcalloc(n, sizeof(**in->dotnet_reads)) : NULL;
	*in->ndotnet_reads = n;
	n = 0;
	for (size_t i = 0; i < set->n; i++)
		if (set->procs[i].file.read.hashed)
			(*in->dotnet_reads)[n++] = set->procs[i].file;
}

/*
 * What a derived rate is called and measured in: per second for time
 * units, per unit otherwise; its direction is the base's reversed.
 * Returns the factor that turns 1/value into that unit.
 */
static double rate_identity(const char *base_name, const char *base_unit, int base_higher,
			    struct metric_value *r)
{
	static const struct {
		const char *unit;
		double per_second;
	} times[] = { { "ns", 1e9 }, { "us", 1e6 }, { "\xc2\xb5s", 1e6 }, { "ms", 1e3 }, { "s", 1 } };

	r->name = xasprintf("%s (rate)", base_name);
	r->better_higher = !base_higher;
	/* The threshold stays on the base: one regression should fail one check. */
	r->max_regression_pct = -1;
	for (size_t k = 0; k < ARRAY_SIZE(times); k++)
		if (!strcmp(base_unit, times[k].unit)) {
			r->unit = xstrdup("1/s");
			return times[k].per_second;
		}
	r->unit = xasprintf("1/%s", base_unit);
	return 1;
}

static void derive_rate(const struct metric_value *base, struct metric_value *r)
{
	double scale = rate_identity(base->name, base->unit, base->better_higher, r);

	if (!base->ok) {
		r->why = xasprintf("no rate without '%s': %s", base->name, base->why);
		return;
	}
	if (base->value == 0) {
		r->why = xasprintf("'%s' is 0, which has no rate", base->name);
		return;
	}
	r->value = scale / base->value;
	if (!isfinite(r->value)) {
		r->why = xasprintf("the rate of '%s' = %g is out of range", base->name, base->value);
		return;
	}
	r->ok = 1;
}

static const char *implied_unit(const struct metric_def *d)
{
	int f;
	if (d->unit)
		return d->unit;
	f = metric_def_field_index(d->field);
	if (d->source == METRIC_PROCESS && f >= 0)
		return metric_def_field_unit((size_t)f);
	f = dotnet_runtime_figure_index(d->field);
	if (d->source == METRIC_DOTNET && f >= 0)
		return dotnet_runtime_figure_unit((size_t)f);
	return d->source == METRIC_DURATION ? "ms" : "";
}

void metrics_extract(const struct metric_set *set, const struct metric_inputs *in,
		     struct metric_value **out, size_t *nout)
{
	struct text out_text = TEXT_INIT, err_text = TEXT_INIT;
	struct dotnet_rt_set rt = DOTNET_RT_SET_INIT;
	struct metric_value *v;
	size_t n = 0, k = 0;
	int rt_loaded = 0;

	if (in->reads)
		memset(in->reads, 0, 2 * sizeof(*in->reads));
	if (in->dotnet_reads) {
		*in->dotnet_reads = NULL;
		*in->ndotnet_reads = 0;
	}
	for (size_t i = 0; set && i < set->ndefs; i++)
		n += 1 + !!set->defs[i].derive_rate;
	v = xcalloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; set && i < set->ndefs; i++) {
		const struct metric_def *d = &set->defs[i];
		struct metric_value *mv = &v[k++];

		mv->name = xstrdup(d->name);
		mv->unit = xstrdup(implied_unit(d));
		mv->better_higher = d->better_higher;
		mv->max_regression_pct = d->max_regression_pct;
		switch (d->source) {
		case METRIC_PROCESS:
			from_process(d, in, mv);
			break;
		case METRIC_STDOUT:
			from_text(set, i, &out_text, in->stdout_path, in->reads ? &in->reads[0] : NULL,
				  in, mv);
			break;
		case METRIC_STDERR:
			from_text(set, i, &err_text, in->stderr_path, in->reads ? &in->reads[1] : NULL,
				  in, mv);
			break;
		case METRIC_RESULTS:
			from_results(set, i, in, mv);
			break;
		case METRIC_DURATION:
			from_durations(d, in, mv);
			break;
		case METRIC_DOTNET:
			from_dotnet(d, in, &rt, &rt_loaded, mv);
			break;
		}
		if (mv->ok)
			mv->value += 0.0; /* -0.0 would print as "-0" */
		if (d->derive_rate)
			derive_rate(mv, &v[k++]);
	}
	text_release(&out_text);
	text_release(&err_text);
	if (rt_loaded && in->dotnet_reads)
		dotnet_reads_out(&rt, in);
	dotnet_runtime_set_release(&rt);
	*out = v;
	*nout = n;
}

void metrics_defs_outputs(const struct metric_def *defs, size_t ndefs, struct metric_value **out,
			  size_t *nout)
{
	size_t n = 0, k = 0;
	struct metric_value *v;

	for (size_t i = 0; i < ndefs; i++)
		n += 1 + !!defs[i].derive_rate;
	v = xcalloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < ndefs; i++) {
		const struct metric_def *d = &defs[i];
		struct metric_value *mv = &v[k++];

		mv->name = xstrdup(d->name);
		mv->unit = xstrdup(implied_unit(d));
		mv->better_higher = d->better_higher;
		mv->max_regression_pct = d->max_regression_pct;
		if (d->derive_rate)
			rate_identity(mv->name, mv->unit, mv->better_higher, &v[k++]);
	}
	*out = v;
	*nout = n;
}

