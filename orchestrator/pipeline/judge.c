/*
 * judge: result files, metrics and guards for one invocation.
 *
 * Result files are read from the evidence directory, never from where the
 * test runner left them: a file outside the invocation's directory is
 * copied in first, so that what the counts come from is what an auditor
 * can re-read. A match is opened only when it is a regular file reached
 * without a link (open_result()): a pattern that matches a FIFO must not
 * block abev, and one that matches a link to /etc/shadow must not copy it
 * into evidence that may be shared. Reading streams each test through a
 * callback that keeps only what the guards and metrics need: the test
 * names (for test_set) and the few tests a results/duration metric asks
 * for.
 */
#include "pipeline/judge.h"
#include "record/layout.h"
#include "run/prepare.h"
#include "run/proc.h"

#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decide/compare.h"
#include "util/dirat.h"
#include "guards/guard.h"
#include "measure/overlap.h"
#include "results/metrics.h"
#include "results/results.h"
#include "seal/seal.h"
#include "util/tree.h"
#include "util/alloc.h"
#include "util/escape.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/pathglob.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/utf8.h"
#include "util/writefile.h"

/* Bounds on what is kept of the tests a metric asks for. */
#define JUDGE_METRIC_TESTS_MAX 100000
#define JUDGE_METRIC_BYTES_MAX (64u << 20)
/* Result files matched per invocation. */
#define JUDGE_FILES_MAX 1000
/*
 * Room an evidence directory keeps, beyond the entries the runs leave,
 * for abev's files: the top-level documents and plots, each run's two
 * logs and the result files copied in.
 */
#define JUDGE_RESERVED_FILES (1000 + JUDGE_FILES_MAX)
/* What a result file looked like before the invocation started. */
struct file_id {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

struct judge {
	const struct plan *plan;
	struct metric_set *metrics;
	struct test_set *ref;       /* test names of the first recorded invocation with results */
	char *ref_label;
	struct file_id *before;     /* judge_before()'s snapshot */
	size_t nbefore;
	size_t files_total;         /* entries kept by the invocations judged so far */
	int first_read;             /* the first run's result files were looked for */
};

struct judge *judge_new(const struct plan *plan, char **err)
{
	struct judge *j = xcalloc(1, sizeof(*j));
	j->plan = plan;
	if (plan->nmetrics) {
		j->metrics = metrics_compile(plan->metrics, plan->nmetrics, err);
		if (!j->metrics) {
			free(j);
			return NULL;
		}
	}
	return j;
}

static void snapshot_clear(struct judge *j)
{
	for (size_t i = 0; i < j->nbefore; i++)
		free(j->before[i].path);
	free(j->before);
	j->before = NULL;
	j->nbefore = 0;
}

void judge_before(struct judge *j, const struct invocation *inv)
{
	char **paths = NULL, *err = NULL;
	size_t n = 0;

	snapshot_clear(j);
	if (!inv->results_files)
		return;
	/* What cannot be listed now is said once the run is over (read_results()). */
	if (pathglob_match(inv->cwd, inv->results_files, &paths, &n, &err) == 0) {
		j->before = xcalloc(n ? n : 1, sizeof(*j->before));
		for (size_t i = 0; i < n && i < JUDGE_FILES_MAX; i++) {
			struct stat st;
			struct file_id *f = &j->before[j->nbefore];
			if (lstat(paths[i], &st) < 0 || !S_ISREG(st.st_mode))
				continue;
			f->path = xstrdup(paths[i]);
			f->dev = st.st_dev;
			f->ino = st.st_ino;
			f->size = st.st_size;
			f->mtime = st.st_mtim;
			f->ctime = st.st_ctim;
			j->nbefore++;
		}
	}
	pathglob_free(paths, n);
	free(err);
}

void judge_free(struct judge *j)
{
	if (!j)
		return;
	snapshot_clear(j);
	metrics_free(j->metrics);
	test_set_free(j->ref);
	free(j->ref_label);
	free(j);
}

static void push_guard(struct invocation *inv, struct guard_result *g)
{
	ALLOC_GROW(inv->guards, inv->nguards + 1, inv->guards_alloc);
	inv->guards[inv->nguards++] = *g;
	memset(g, 0, sizeof(*g));
}

/* What the streaming callback keeps. */
struct collect {
	struct invocation *inv;  /* gets the names of failed tests */
	const struct plan *plan; /* its results.known_failures */
	size_t unexpected, known; /* failed tests, by whether the plan allows them */
	struct test_set *names;
	const struct metric_set *ms;
	struct metric_test *tests;
	size_t ntests, alloc, bytes;
	int capped;
};

/* Whether results.known_failures allows the test named name to fail. */
static int known_failure(const struct plan *plan, const char *name)
{
	for (size_t i = 0; plan && i < plan->nknown_failures; i++)
		if (!fnmatch(plan->known_failures[i], name, 0))
			return 1;
	return 0;
}

/* A failed or errored test: counted, and kept with its outcome and message up to the cap. */
static void collect_failure(struct collect *c, const struct test_case *tc)
{
	struct invocation *inv = c->inv;
	struct invocation_test_failure *f;
	int known = known_failure(c->plan, tc->name);

	if (known)
		c->known++;
	else
		c->unexpected++;
	if (inv->nfailed_tests == EVIDENCE_FAILED_TESTS_MAX) {
		inv->failed_tests_omitted++;
		return;
	}
	if (!inv->failed_tests) {
		inv->failed_tests = xcalloc(EVIDENCE_FAILED_TESTS_MAX + 1, sizeof(*inv->failed_tests));
		inv->test_failures = xcalloc(EVIDENCE_FAILED_TESTS_MAX, sizeof(*inv->test_failures));
	}
	inv->failed_tests[inv->nfailed_tests++] = xstrdup(tc->name);
	f = &inv->test_failures[inv->ntest_failures++];
	f->name = xstrdup(tc->name);
	f->outcome = utf8_clean(tc->outcome_raw ? tc->outcome_raw : "",
				tc->outcome_raw ? strlen(tc->outcome_raw) : 0);
	f->message = xstrdup(tc->message ? tc->message : "");
	f->known = known;
}

static int collect_test(void *arg, const struct test_case *tc)
{
	struct collect *c = arg;
	struct metric_test *t;

	if (c->inv && (tc->outcome == OUTCOME_FAILED || tc->outcome == OUTCOME_ERROR))
		collect_failure(c, tc);
	/* The comparison is about what ran: a skipped test did not. */
	if (c->names && tc->executed)
		test_set_add(c->names, tc->name);
	if (c->inv && tc->executed && tc->duration_s >= 0 && isfinite(tc->duration_s))
		invocation_add_test_time(c->inv, tc->name, tc->duration_s * 1000.0);
	if (!c->ms || !metrics_wants_test(c->ms, tc->name, tc->written_name))
		return 0;
	if (c->ntests >= JUDGE_METRIC_TESTS_MAX ||
	    c->bytes + tc->stdout_len > JUDGE_METRIC_BYTES_MAX) {
		c->capped = 1;
		return 0;
	}
	ALLOC_GROW(c->tests, c->ntests + 1, c->alloc);
	t = &c->tests[c->ntests++];
	t->name = xstrdup(tc->name);
	t->written_name = xstrdup(tc->written_name ? tc->written_name : tc->name);
	t->duration_s = tc->duration_s;
	t->stdout_text = xstrndup(tc->stdout_text, tc->stdout_len);
	t->stdout_len = tc->stdout_len;
	c->bytes += tc->stdout_len;
	return 0;
}

static void collect_release(struct collect *c)
{
	for (size_t i = 0; i < c->ntests; i++) {
		free((char *)c->tests[i].name);
		free((char *)c->tests[i].written_name);
		free((char *)c->tests[i].stdout_text);
	}
	free(c->tests);
	test_set_free(c->names);
	memset(c, 0, sizeof(*c));
}

/*
 * Copies what in (borrowed, the opened src) holds to name in dir
 * (created exclusively, no link followed; dst names it in messages), at
 * most max bytes. 0 or -1 with *err.
 */
static int copy_file(int in, const char *src, const struct dirat *dir, const char *name,
		     const char *dst, uint64_t max, char **err)
{
	int out = -1, ret = -1;

	out = openat(dir->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (out < 0) {
		*err = xasprintf("cannot create '%s': %s", dst, strerror(errno));
		goto out;
	}
	switch (copy_fd(in, out, max)) {
	case COPY_OK:
		break;
	case COPY_READ:
		*err = xasprintf("cannot read '%s': %s", src, strerror(errno));
		goto out;
	case COPY_WRITE:
		*err = xasprintf("cannot write '%s': %s", dst, strerror(errno));
		goto out;
	case COPY_TOO_BIG:
		*err = xasprintf("'%s' is larger than the limit of %llu bytes", src,
				 (unsigned long long)max);
		goto out;
	case COPY_STOPPED:      /* copy_fd() never stops */
		*err = xasprintf("stopped copying '%s'", src);
		goto out;
	}
	if (close(out) < 0) {
		out = -1;
		*err = xasprintf("cannot close '%s': %s", dst, strerror(errno));
		goto out;
	}
	out = -1;
	ret = 0;
out:
	if (out >= 0)
		close(out);
	if (ret < 0)
		unlinkat(dir->fd, name, 0);
	return ret;
}

/*
 * Opens a matched file only if it is a regular file reached without a
 * link: lstat() first, so that a FIFO or a device is never opened (an
 * open could block, or have effects); O_NOFOLLOW, so that a link swapped
 * in after the lstat() is not followed; O_NONBLOCK, so that a FIFO swapped
 * in does not block the open; and fstat() must then show the same file.
 * Returns the descriptor, or -1 with *why (caller frees) saying what the
 * path is instead.
 */
static int open_result(const char *path, struct stat *st, char **why)
{
	struct stat lst;
	int fd;

	if (lstat(path, &lst) < 0) {
		*why = xasprintf("cannot stat '%s': %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(lst.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		*why = xasprintf("skipped '%s': a symlink to '%s', not a regular file (result files "
				 "are not read through links)", path, target);
		return -1;
	}
	if (!S_ISREG(lst.st_mode)) {
		*why = xasprintf("skipped '%s': a %s, not a regular file (never opened)", path,
				 tree_kind(lst.st_mode));
		return -1;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*why = xasprintf("skipped '%s': cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_dev != lst.st_dev ||
	    st->st_ino != lst.st_ino) {
		*why = xasprintf("skipped '%s': it changed while it was being opened", path);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Where path (a regular file, not a link) really is: its directory
 * resolved, its own name kept. Caller frees; NULL with *err.
 */
static char *real_location(const char *path, char **err)
{
	char dir[PATH_MAX], *parent;
	const char *slash = strrchr(path, '/');
	char *ret = NULL;

	parent = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	if (!realpath(parent, dir))
		*err = xasprintf("cannot resolve '%s': %s", parent, strerror(errno));
	else
		ret = path_join(dir, slash ? slash + 1 : path);
	free(parent);
	return ret;
}

/*
 * Brings the matched file, open as fd (borrowed), into the invocation's
 * directory if it is not there yet. Returns the path relative to the
 * evidence root (caller frees), or NULL with *err; *copied says whether a
 * copy was made.
 */
static char *adopt_file(const struct dirat *root, const char *inv_dir, const char *path, int fd,
			int *copied, char **err)
{
	char real_dir[PATH_MAX], *abs_dir = path_join(root->path, inv_dir), *dst = NULL, *rel = NULL;
	char *safe = NULL, *real = NULL, *results_rel = path_join(inv_dir, "results");
	struct dirat results = DIRAT_INIT;
	const char *base;
	size_t dlen;

	*copied = 0;
	if (!realpath(abs_dir, real_dir)) {
		*err = xasprintf("cannot resolve '%s': %s", abs_dir, strerror(errno));
		goto out;
	}
	dlen = strlen(real_dir);
	real = real_location(path, err);
	if (!real)
		goto out;
	if (!strncmp(real, real_dir, dlen) && real[dlen] == '/') {
		rel = xasprintf("%s/%s", inv_dir, real + dlen + 1);
		goto out;
	}
	base = strrchr(real, '/');
	/* The copy's name must be one the manifest can list. */
	safe = evname_safe_component(base ? base + 1 : real);
	base = safe;
	/* Beneath the evidence root, no link followed: a run cannot aim the copy elsewhere. */
	if (dirat_mkdirs(root, results_rel, &results) < 0) {
		*err = xasprintf("cannot create '%s/results': %s", abs_dir, strerror(errno));
		goto out;
	}
	for (unsigned k = 1; k < 1000 && !rel; k++) {
		struct stat st;
		char *name = k == 1 ? xstrdup(base) : xasprintf("%u-%s", k, base);
		free(dst);
		dst = xasprintf("%s/results/%s", abs_dir, name);
		if (fstatat(results.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			free(name);
			continue;
		}
		if (copy_file(fd, real, &results, name, dst, RESULTS_MAX_BYTES_DEFAULT, err) == 0) {
			rel = xasprintf("%s/results/%s", inv_dir, name);
			*copied = 1;
		}
		free(name);
		break;
	}
	if (!rel && !*err)
		*err = xasprintf("cannot find a free name for '%s' in '%s/results'", base, abs_dir);
out:
	dirat_release(&results);
	free(results_rel);
	free(abs_dir);
	free(dst);
	free(safe);
	free(real);
	return rel;
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Was path (whose file is st) there, unchanged, before the invocation started? */
static int is_stale(const struct judge *j, const char *path, const struct stat *st)
{
	for (size_t i = 0; i < j->nbefore; i++) {
		const struct file_id *f = &j->before[i];
		if (strcmp(f->path, path))
			continue;
		return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
		       same_time(&f->mtime, &st->st_mtim) && same_time(&f->ctime, &st->st_ctim);
	}
	return 0;
}

/* The files read for one invocation, by device and inode: one file counts once. */
struct seen {
	struct seen_file {
		dev_t dev;
		ino_t ino;
		char *path;
	} *v;
	size_t n, alloc;
};

static const char *seen_before(const struct seen *s, const struct stat *st)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].dev == st->st_dev && s->v[i].ino == st->st_ino)
			return s->v[i].path;
	return NULL;
}

/*
 * Reads one matched file: safely opened (open_result()), not stale, not
 * seen before, brought into the evidence and parsed from there. Every
 * outcome but READ_OK comes with its note.
 */
enum read_outcome { READ_OK, READ_REFUSED, READ_SKIPPED, READ_STALE };

static enum read_outcome read_one(const struct judge *j, struct invocation *inv,
				  const struct dirat *root,
		    const char *p, struct collect *c, struct seen *seen,
		    judge_note_fn note, void *ctx)
{
	struct results_limits limits = RESULTS_LIMITS_DEFAULT;
	struct results_file f = RESULTS_FILE_INIT;
	char *rel = NULL, *err = NULL, *abs = NULL;
	const char *first;
	struct stat st, est;
	int fd, efd = -1, copied = 0;
	enum read_outcome ret = READ_REFUSED;

	fd = open_result(p, &st, &err);
	if (fd < 0) {
		note(ctx, xasprintf("%s: %s", inv->dir, err));
		free(err);
		return READ_SKIPPED;
	}
	if (is_stale(j, p, &st)) {
		note(ctx, xasprintf("%s: ignored '%s': it was there, unchanged, before this "
				    "invocation started", inv->dir, p));
		ret = READ_STALE;
		goto out;
	}
	first = seen_before(seen, &st);
	if (first) {
		note(ctx, xasprintf("%s: '%s' is the same file as '%s' (matched twice, or under two "
				    "names): counted once", inv->dir, p, first));
		ret = READ_SKIPPED;
		goto out;
	}
	ALLOC_GROW(seen->v, seen->n + 1, seen->alloc);
	seen->v[seen->n].dev = st.st_dev;
	seen->v[seen->n].ino = st.st_ino;
	seen->v[seen->n].path = xstrdup(p);
	seen->n++;

	rel = adopt_file(root, inv->dir, p, fd, &copied, &err);
	if (!rel) {
		note(ctx, xasprintf("%s: %s", inv->dir, err));
		goto out;
	}
	/* Read from the evidence: the copy, or the file itself if it was the same one. */
	abs = path_join(root->path, rel);
	efd = dirat_openat(root, rel, O_RDONLY | O_NONBLOCK, 0);
	if (efd < 0) {
		err = xasprintf("cannot open '%s': %s", abs, strerror(errno));
	} else if (fstat(efd, &est) < 0 || !S_ISREG(est.st_mode)) {
		err = xasprintf("'%s' is not a regular file", abs);
		close(efd);
		efd = -1;
	} else if (!copied && (est.st_dev != st.st_dev || est.st_ino != st.st_ino)) {
		err = xasprintf("'%s' changed while it was being read", p);
		close(efd);
		efd = -1;
	}
	if (efd < 0) {
		note(ctx, xasprintf("%s: refused result file: %s", inv->dir, err));
		goto out;
	}
	limits.sha256 = 1;
	if (results_parse_fd(efd, abs, &limits, collect_test, c, &f, &err) < 0) {
		note(ctx, xasprintf("%s: refused result file: %s", inv->dir, err));
		goto out;
	}
	/* Its figures and its hash (f.sha256) come from one read: the file did not change meanwhile. */
	if (fstat(efd, &st) < 0 || st.st_dev != est.st_dev || st.st_ino != est.st_ino ||
	    st.st_size != est.st_size || st.st_mtim.tv_sec != est.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != est.st_mtim.tv_nsec || st.st_ctim.tv_sec != est.st_ctim.tv_sec ||
	    st.st_ctim.tv_nsec != est.st_ctim.tv_nsec || f.bytes != (uint64_t)st.st_size) {
		note(ctx, xasprintf("%s: refused result file: '%s' changed while it was being read",
				    inv->dir, abs));
		results_file_release(&f);
		goto out;
	}
	free(f.path);
	f.path = xstrdup(rel);
	results_file_counts_add(&inv->tests, &f.counts);
	ALLOC_GROW(inv->results, inv->nresults + 1, inv->results_alloc);
	inv->results[inv->nresults++] = f;
	ret = READ_OK;
out:
	if (efd >= 0)
		close(efd);
	close(fd);
	free(err);
	free(abs);
	free(rel);
	return ret;
}

/*
 * Reads the files results.files matches after inv ran; *refused and
 * *nfiles count those that could not be read and those that were. Returns
 * how many paths the pattern matched at all.
 */
static size_t read_results(const struct judge *j, struct invocation *inv, const struct dirat *root,
			   struct collect *c, size_t *refused, size_t *nfiles, judge_note_fn note,
			   void *ctx)
{
	struct seen seen = { NULL, 0, 0 };
	size_t skipped = 0, n = 0;
	char **paths = NULL, *err = NULL;

	if (pathglob_match(inv->cwd, inv->results_files, &paths, &n, &err) < 0)
		note(ctx, xasprintf("%s: cannot expand results.files '%s': %s", inv->dir,
				    inv->results_files, err));
	for (size_t i = 0; i < n; i++) {
		enum read_outcome r;
		/* Stale files do not count: a shared results folder may hold many. */
		if (*nfiles + *refused + skipped >= JUDGE_FILES_MAX) {
			note(ctx, xasprintf("%s: more than %d result files matched; the rest were "
					    "not read", inv->dir, JUDGE_FILES_MAX));
			break;
		}
		r = read_one(j, inv, root, paths[i], c, &seen, note, ctx);
		if (r == READ_OK)
			(*nfiles)++;
		else if (r == READ_REFUSED)
			(*refused)++;
		else if (r == READ_SKIPPED)
			skipped++;
	}
	for (size_t i = 0; i < seen.n; i++)
		free(seen.v[i].path);
	free(seen.v);
	pathglob_free(paths, n);
	free(err);
	return n;
}

/*
 * results.files that matched nothing after the first run (warmup or
 * recorded) is most likely a wrong pattern: every run would fail the
 * min_executed guard, so it is said at once, on the terminal and in the
 * notes, rather than only run by run.
 */
static void warn_no_match(struct judge *j, const struct invocation *inv, size_t matched,
			  judge_note_fn note, void *ctx)
{
	char *shown, *dir, *text;

	if (j->first_read)
		return;
	j->first_read = 1;
	if (matched)
		return;
	shown = xstrdup_escaped(inv->results_files);
	dir = xstrdup_escaped(inv->cwd);
	text = xasprintf("results.files '%s' matched no file after the first run (%s), "
			 "relative to '%s'; check the pattern (`**` matches any number of "
			 "directories)", shown, inv->dir, dir);
	warning("%s", text);
	note(ctx, text);
	free(shown);
	free(dir);
}

/*
 * What a run left in its directory, but for abev's logs: every entry —
 * regular file, directory, and anything else still there — with a
 * regular file's size. Sorted by name once listed; a directory's
 * descendants all sort after it.
 */
struct left_entry {
	char *name;
	off_t size;      /* a regular file's st_size, else 0 */
	mode_t type;     /* st_mode & S_IFMT */
	int gone;        /* removed by abev */
	int holds;       /* a directory with an entry beneath it that stays */
};
struct left_list {
	struct left_entry *v;
	size_t n, alloc;
};

/* abev's own logs in a run directory: bounded by limits.max_log_bytes, not counted as the run's. */
static const char *const run_logs[] = { EVIDENCE_STDOUT_LOG, EVIDENCE_STDERR_LOG,
					EVIDENCE_PREPARE_LOG, NULL };

static int is_run_log(const char *name)
{
	for (size_t i = 0; run_logs[i]; i++)
		if (!strcmp(name, run_logs[i]))
			return 1;
	return 0;
}

static enum tree_step list_entry(void *ctx, const struct tree_entry *e)
{
	struct left_list *l = ctx;
	struct left_entry *le;

	if (e->depth == 0 && S_ISREG(e->st->st_mode) && is_run_log(e->name))
		return TREE_NEXT;
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	le = &l->v[l->n++];
	memset(le, 0, sizeof(*le));
	le->name = xstrdup(e->name);
	le->type = e->st->st_mode & S_IFMT;
	le->size = S_ISREG(e->st->st_mode) ? e->st->st_size : 0;
	return S_ISDIR(e->st->st_mode) ? TREE_DESCEND : TREE_NEXT;
}

/* An unreadable directory is left for the seal to report. */
static enum tree_step list_failed(void *ctx, const char *name, const char *what, int err)
{
	(void)ctx;
	(void)name;
	(void)what;
	(void)err;
	return TREE_NEXT;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct left_entry *)a)->name, ((const struct left_entry *)b)->name);
}

static void left_release(struct left_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Lists what the run left in its directory run (one walk), in name order. 0, or -1 after error(). */
static int list_left(const struct dirat *run, struct left_list *l)
{
	static const struct tree_ops ops = { list_entry, list_failed };

	if (tree_walk_at(run, "", &ops, l) < 0)
		return -1;
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), by_name);
	return 0;
}

/*
 * Marks the directory that holds l->v[i] as holding something that
 * stays. Its parent sorts before it: searched for among the first i.
 */
static void left_holds(struct left_list *l, size_t i)
{
	const char *name = l->v[i].name, *slash = strrchr(name, '/');
	size_t len, lo = 0, hi = i;

	if (!slash)
		return;
	len = (size_t)(slash - name);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = l->v[mid].name;
		int c = strncmp(m, name, len);
		if (c == 0)
			c = m[len] != '\0';
		if (c == 0) {
			l->v[mid].holds = 1;
			return;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
}

/*
 * Removes e from the run's directory run (no link followed): unlinkat(),
 * AT_REMOVEDIR for a directory; marks it gone. 0 or -1 with errno.
 */
static int left_remove(const struct dirat *run, struct left_entry *e)
{
	int ret = dirat_unlink(run, e->name, S_ISDIR(e->type) ? AT_REMOVEDIR : 0);

	if (ret == 0)
		e->gone = 1;
	return ret;
}

/*
 * Removes the entries past the first limit, from the last backwards: a
 * directory's descendants sort after it, so they go before it and it
 * goes with them. Returns how many went.
 */
static size_t cut_past_limit(const struct dirat *run, struct left_list *l, size_t limit)
{
	size_t removed = 0;

	for (size_t i = l->n; i-- > limit;) {
		if (left_remove(run, &l->v[i]) == 0)
			removed++;
		else
			left_holds(l, i);
	}
	return removed;
}

/*
 * Removes the directories among the first kept entries that hold
 * nothing, the deepest first (backwards in name order), so that a tree of
 * empty directories goes. What the walk could not list is kept: its
 * directory's removal fails (ENOTEMPTY). Returns how many went.
 */
static size_t cut_empty_dirs(const struct dirat *run, struct left_list *l, size_t kept)
{
	size_t removed = 0;

	for (size_t i = kept; i-- > 0;) {
		struct left_entry *e = &l->v[i];

		if (e->gone)
			continue;
		if (S_ISDIR(e->type) && !e->holds && left_remove(run, e) == 0) {
			removed++;
			continue;
		}
		left_holds(l, i);
	}
	return removed;
}

/*
 * Cuts each of abev's logs in inv's directory that is longer than
 * limits.max_log_bytes back to it: abev writes no more than that, so the
 * rest is the run's own (a sparse terabyte appended by a test is
 * otherwise hashed in full). Opened beneath root, no link followed, a
 * regular file only. Returns how many were cut; each has a note.
 */
static size_t cut_logs(const struct judge *j, const struct invocation *inv,
		       const struct dirat *root, judge_note_fn note, void *ctx)
{
	size_t cut = 0;

	for (size_t i = 0; run_logs[i]; i++) {
		char *rel = path_join(inv->dir, run_logs[i]);
		int fd = dirat_openat(root, rel, O_WRONLY | O_NONBLOCK, 0);
		struct stat st;

		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size > j->plan->max_log_bytes) {
			if (ftruncate(fd, (off_t)j->plan->max_log_bytes) == 0) {
				cut++;
				note(ctx, xasprintf("%s: %s was %jd bytes, longer than abev writes "
						    "(limits.max_log_bytes, %jd): the run wrote to it "
						    "itself, and it was cut back to %jd bytes",
						    inv->dir, run_logs[i], (intmax_t)st.st_size,
						    (intmax_t)j->plan->max_log_bytes,
						    (intmax_t)j->plan->max_log_bytes));
			} else {
				note(ctx, xasprintf("%s: %s is %jd bytes, longer than abev writes, and "
						    "could not be cut back: %s", inv->dir,
						    run_logs[i], (intmax_t)st.st_size,
						    strerror(errno)));
			}
		}
		if (fd >= 0)
			close(fd);
		free(rel);
	}
	return cut;
}

/*
 * Holds the regular files among the first kept entries to
 * limits.max_run_bytes: in name order, a file that does not fit in the
 * bytes left is removed. Sizes are apparent sizes (st_size): a sparse
 * file counts as what hashing it would read. Returns how many went; the
 * note names them, and why says so.
 */
static size_t cut_bytes(const struct judge *j, const struct invocation *inv,
			const struct dirat *run, struct left_list *l, size_t kept,
			struct strbuf *why, judge_note_fn note, void *ctx)
{
	struct strbuf gone = STRBUF_INIT;
	uintmax_t total = 0, left = (uintmax_t)j->plan->max_run_bytes, big = 0;
	size_t nbig = 0;

	for (size_t i = 0; i < kept; i++) {
		struct left_entry *e = &l->v[i];
		uintmax_t size = e->size > 0 ? (uintmax_t)e->size : 0;
		char *shown;

		if (!S_ISREG(e->type))
			continue;
		total += size;
		if (size <= left) {
			left -= size;
			continue;
		}
		if (left_remove(run, e) < 0)
			continue;
		nbig++;
		big += size;
		shown = evname_printable(e->name, strlen(e->name));
		if (nbig <= 10)
			strbuf_addf(&gone, "%s'%s' (%ju bytes)", nbig > 1 ? ", " : "", shown, size);
		free(shown);
	}
	if (nbig) {
		note(ctx, xasprintf("%s: left %ju bytes in its files, more than limits.max_run_bytes "
				    "of %jd: %zu file(s) of %ju bytes that did not fit, in name order, "
				    "were removed before anything was hashed, so that the evidence can "
				    "be sealed: %s%s", inv->dir, total,
				    (intmax_t)j->plan->max_run_bytes, nbig, big, gone.buf,
				    nbig > 10 ? ", ..." : ""));
		strbuf_addf(why, "%sleft %ju bytes in its directory, more than "
			    "limits.max_run_bytes of %jd", why->len ? "; " : "", total,
			    (intmax_t)j->plan->max_run_bytes);
	}
	strbuf_release(&gone);
	return nbig;
}

/*
 * Holds what inv left in its directory to limits.max_files and
 * limits.max_run_bytes, and to what the evidence directory has room for,
 * before a byte of it is hashed or read, all from one walk. Every entry
 * counts — a regular file, a directory, anything else — but abev's own
 * logs. Past the entry limit, entries are removed in name order from the
 * end (the first ones kept, the same ones whatever readdir's order; a
 * directory with all beneath it); then the files that do not fit in the
 * bytes left (cut_bytes()); then the directories left empty
 * (cut_empty_dirs()), which hold nothing a manifest can list, so that
 * they are gone before the ledger notes the run's tree and the seal need
 * not look for them. Returns NULL, or why the invocation failed (caller
 * frees).
 */
static char *limit_files(struct judge *j, const struct invocation *inv, const struct dirat *root,
			 judge_note_fn note, void *ctx)
{
	struct left_list l = { NULL, 0, 0 };
	struct dirat run = DIRAT_INIT;
	struct strbuf why = STRBUF_INIT;
	size_t limit = j->plan->max_files, room = 0, removed, kept = 0, nbig = 0, nempty = 0, logs;
	const char *which = "limits.max_files";

	if (j->files_total + JUDGE_RESERVED_FILES < EVIDENCE_MAX_FILES)
		room = EVIDENCE_MAX_FILES - JUDGE_RESERVED_FILES - j->files_total;
	if (room < limit) {
		limit = room;
		which = "the room left in the evidence directory (it holds at most "
			EVIDENCE_MAX_FILES_TEXT " entries in all)";
	}
	logs = cut_logs(j, inv, root, note, ctx);
	if (logs)
		strbuf_addf(&why, "wrote to abev's logs itself (%zu cut back to limits.max_log_bytes)",
			    logs);
	/* Opened once, beneath the evidence root, no link followed: only the run's own entries go. */
	if (dirat_sub(root, inv->dir, &run) < 0) {
		error("cannot open directory '%s/%s': %s", root->path, inv->dir,
		      errno == ELOOP || errno == ENOTDIR ? "not a directory abev made"
							 : strerror(errno));
		goto out;
	}
	if (list_left(&run, &l) < 0)
		goto out;
	kept = l.n;
	if (l.n > limit) {
		removed = cut_past_limit(&run, &l, limit);
		note(ctx, xasprintf("%s: left %zu entries (files and directories), more than %s of "
				    "%zu: the %zu past the first %zu in name order were removed (a "
				    "directory with all beneath it), so that the evidence can be sealed",
				    inv->dir, l.n, which, limit, removed, limit));
		strbuf_addf(&why, "%sleft %zu entries in its directory, more than %s of %zu",
			    why.len ? "; " : "", l.n, which, limit);
		kept = limit;
	}
	nbig = cut_bytes(j, inv, &run, &l, kept, &why, note, ctx);
	nempty = cut_empty_dirs(&run, &l, kept);
	if (nempty)
		note(ctx, xasprintf("%s: %zu empty director%s removed: an empty directory holds "
				    "nothing the manifest can list, and abev verify refuses one",
				    inv->dir, nempty, nempty == 1 ? "y was" : "ies were"));
out:
	j->files_total += kept - nbig - nempty + 2;
	left_release(&l);
	dirat_release(&run);
	if (!why.len) {
		strbuf_release(&why);
		return NULL;
	}
	return strbuf_detach(&why, NULL);
}

void judge_limit_files(struct judge *j, struct invocation *inv, const struct dirat *root,
		       judge_note_fn note, void *ctx)
{
	char *why = limit_files(j, inv, root, note, ctx);
	char *reason;

	if (!why)
		return;
	reason = inv->reason ? xasprintf("%s; %s", inv->reason, why) : xstrdup(why);
	free(inv->reason);
	inv->reason = reason;
	free(why);
}

static void judge_metrics(struct judge *j, struct invocation *inv, const struct dirat *root,
			  const struct collect *c)
{
	char *out = path_join(inv->dir, EVIDENCE_STDOUT_LOG), *err = path_join(inv->dir, EVIDENCE_STDERR_LOG);
	struct metric_inputs in = {
		.dir = root,
		.stdout_path = out,
		.stderr_path = err,
		.run_dir = inv->dir,
		.fig = inv->fig,
		.procs = &inv->procs,
		.tests = c->tests,
		.ntests = c->ntests,
		.pattern_cpu_seconds = j->plan->pattern_cpu_seconds,
		/* The ledger holds each file a metric read to the bytes read (run_slot.c). */
		.reads = inv->logs_read,
		.dotnet_reads = &inv->dotnet_read,
		.ndotnet_reads = &inv->ndotnet_read,
	};

	if (c->names)
		in.test_names = test_set_names(c->names, &in.ntest_names);
	free(inv->dotnet_read);
	metrics_extract(j->metrics, &in, &inv->metrics, &inv->nmetrics);
	free(out);
	free(err);
}

/*
 * The invocation's status and reason from its guards: too many files
 * (too_many, taken over) fails it whatever else happened and says so
 * first; otherwise the first guard that did not pass is its reason.
 */
static void settle_status(struct invocation *inv, char *too_many)
{
	/* Too many files fails the invocation whatever else happened, and says so first. */
	if (too_many && inv->status == INV_OK) {
		inv->status = INV_FAILED;
		free(inv->reason);
		inv->reason = too_many;
		return;
	}
	if (too_many) {
		char *r = inv->reason ? xasprintf("%s; %s", too_many, inv->reason) : too_many;
		if (r != too_many)
			free(too_many);
		free(inv->reason);
		inv->reason = r;
		return;
	}
	/* The first guard that did not pass is the invocation's reason. */
	if (inv->status != INV_OK)
		return;
	for (size_t i = 0; i < inv->nguards; i++) {
		if (inv->guards[i].verdict == GUARD_PASS)
			continue;
		inv->status = INV_FAILED;
		free(inv->reason);
		inv->reason = xasprintf("%s guard %s: %s", guard_kind_name(inv->guards[i].kind),
					inv->guards[i].verdict == GUARD_FAIL ? "failed"
									     : "could not check",
					inv->guards[i].reason);
		break;
	}
}

/* Keeps in end (*n of size bytes) the last bytes of what it held and of data. */
static void keep_end(char *end, size_t size, size_t *n, const char *data, size_t len)
{
	size_t keep;

	if (len >= size) {
		memcpy(end, data + len - size, size);
		*n = size;
		return;
	}
	keep = *n < size - len ? *n : size - len;
	memmove(end, end + *n - keep, keep);
	memcpy(end + keep, data, len);
	*n = keep + len;
}

/*
 * The last size bytes of the regular file rel beneath root (no link
 * followed) into end, *n of them, read to its end through a SHA-256 into
 * *got: the ledger can then hold the file to the bytes its end was taken
 * from. 0, or -1 when it cannot be opened or read whole, or is larger
 * than cap (abev wrote no such log).
 */
static int read_end_hashed(const struct dirat *root, const char *rel, int64_t cap, char *end,
			   size_t size, size_t *n, struct file_read *got)
{
	char chunk[16384];
	struct sha256 *h = NULL;
	struct stat st;
	int64_t total = 0;
	ssize_t r = -1;
	int fd = dirat_openat(root, rel, O_RDONLY | O_NONBLOCK, 0);

	*n = 0;
	memset(got, 0, sizeof(*got));
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > cap)
		goto out;
	h = sha256_new();
	while (total <= cap) {
		r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		sha256_update(h, chunk, (size_t)r);
		keep_end(end, size, n, chunk, (size_t)r);
		total += r;
	}
	sha256_final(h, got->sha256);
	got->hashed = r == 0 && total <= cap;
	got->bytes = (uint64_t)total;
out:
	if (fd >= 0)
		close(fd);
	return got->hashed ? 0 : -1;
}

/*
 * The last lines of the invocation's stderr.log, opened beneath the
 * evidence root without following a link: at most
 * INVOCATION_STDERR_TAIL_LINES non-empty lines and
 * INVOCATION_STDERR_TAIL_BYTES bytes (the end kept), as valid UTF-8.
 * NULL when there is none or it cannot be read whole (at most cap
 * bytes). The read is hashed into *held, for the ledger to hold the
 * file to the bytes the tail comes from; when a metric read the log
 * already (held->hashed), a tail of other bytes is not used.
 */
static char *stderr_tail(const struct dirat *root, const char *dir, int64_t cap,
			 struct file_read *held)
{
	char *rel = path_join(dir, EVIDENCE_STDERR_LOG), buf[1024], *tail = NULL;
	struct file_read got;
	size_t n, end, start, lines = 0;
	int r = read_end_hashed(root, rel, cap, buf, sizeof(buf), &n, &got);

	free(rel);
	if (r < 0)
		return NULL;
	if (held->hashed && (held->bytes != got.bytes ||
			     memcmp(held->sha256, got.sha256, SHA256_LEN)))
		return NULL;
	*held = got;
	if (!n)
		return NULL;
	end = n;
	while (end && (buf[end - 1] == '\n' || buf[end - 1] == '\r' || buf[end - 1] == ' ' ||
		       buf[end - 1] == '\t'))
		end--;
	/* Back over whole lines: the last few, within the byte limit. */
	start = end;
	while (start && lines < INVOCATION_STDERR_TAIL_LINES) {
		size_t s = start;
		while (s && buf[s - 1] != '\n')
			s--;
		if (end - s > INVOCATION_STDERR_TAIL_BYTES)
			break;
		start = s;
		lines++;
		while (start && buf[start - 1] == '\n')
			start--;
	}
	while (start < end && buf[start] == '\n')
		start++;
	if (start == end) {
		/* One line longer than the limit: its end, from a character's start. */
		start = end - INVOCATION_STDERR_TAIL_BYTES;
		while (start < end && ((unsigned char)buf[start] & 0xc0) == 0x80)
			start++;
	}
	if (end > start)
		tail = utf8_clean(buf + start, end - start);
	return tail;
}

/* What the first result file that says its test run was aborted says, or NULL. */
static const char *run_aborted(const struct invocation *inv)
{
	for (size_t i = 0; i < inv->nresults; i++)
		if (inv->results[i].aborted)
			return inv->results[i].aborted;
	return NULL;
}

/*
 * A failed invocation whose test run was aborted says so, in the words of
 * the result file, whichever guard failed first (dotnet test exits 1 when
 * its test host crashes: the exit_code guard's reason alone hides why).
 */
static void say_aborted(struct invocation *inv)
{
	const char *aborted = run_aborted(inv);
	char *r;

	if (!aborted || inv->status == INV_OK || !inv->reason || strstr(inv->reason, aborted))
		return;
	r = xasprintf("%s; test run aborted: %s", inv->reason, aborted);
	free(inv->reason);
	inv->reason = r;
}

/* The guards' view of what c counted and kept of the invocation's tests. */
static void tests_input(struct guard_input *in, const struct invocation *inv,
			const struct collect *c, struct test_failure_view *v)
{
	for (size_t i = 0; i < inv->ntest_failures; i++)
		v[i] = (struct test_failure_view){
			.name = inv->test_failures[i].name,
			.outcome = inv->test_failures[i].outcome,
			.message = inv->test_failures[i].message,
			.known = inv->test_failures[i].known,
		};
	in->executed = inv->tests.executed;
	in->total = inv->tests.total;
	in->results_pattern = inv->results_files;
	in->aborted = run_aborted(inv);
	in->unexpected = c->unexpected;
	in->known = c->known;
	in->failures = v;
	in->nfailures = inv->ntest_failures;
}

/* Pushes the results guards_run() gave, in order. */
static void push_guards(struct invocation *inv, struct guard_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		push_guard(inv, &res[i]);
}

void judge_invocation(struct judge *j, struct invocation *inv, const struct dirat *root,
		      judge_note_fn note, void *ctx)
{
	const struct plan *plan = j->plan;
	struct test_failure_view v[EVIDENCE_FAILED_TESTS_MAX];
	struct guard_result res[GUARD_KINDS];
	struct guard_effect fx;
	struct collect c;
	int exited = inv->status == INV_OK && inv->exit_code >= 0;
	int ran = exited || inv->status == INV_FAILED || inv->status == INV_TIMED_OUT;
	size_t refused = 0, nfiles = 0;
	char *too_many;
	struct guard_input in = {
		.exited = exited,
		.exit_code = inv->exit_code,
		.allowed_codes = plan->allowed_exit_codes,
		.nallowed_codes = plan->nallowed_exit_codes,
		.min_executed = plan->min_executed,
		.ref = j->ref,
		.ref_label = j->ref_label,
	};

	memset(&c, 0, sizeof(c));
	/* First, so that every result file read is one the evidence keeps. */
	too_many = limit_files(j, inv, root, note, ctx);
	if (ran && inv->results_files) {
		if (!inv->warmup)
			c.names = test_set_new();
		c.ms = inv->warmup ? NULL : j->metrics;
		c.inv = inv;
		c.plan = plan;
		inv->has_tests = 1;
		warn_no_match(j, inv, read_results(j, inv, root, &c, &refused, &nfiles, note, ctx),
			      note, ctx);
		j->files_total += nfiles + refused;   /* copies, at most */
		in.has_results = 1;
		in.nfiles = nfiles;
		in.refused = refused;
		tests_input(&in, inv, &c, v);
	}
	if (ran && !inv->warmup && j->metrics) {
		judge_metrics(j, inv, root, &c);
		in.has_metrics = 1;
		in.metrics = inv->metrics;
		in.nmetrics = inv->nmetrics;
		in.capped = c.capped;
	}
	if (c.names && !refused && nfiles) {
		test_set_seal(c.names);
		in.names = c.names;
	}
	in.status_ok = inv->status == INV_OK;
	push_guards(inv, res, guards_run(&in, GUARD_PHASE_RUN, res, &fx));
	if (fx.took_reference) {
		j->ref = c.names;
		j->ref_label = xstrdup(inv->dir);
		c.names = NULL;
	}
	collect_release(&c);
	settle_status(inv, too_many);
	say_aborted(inv);
	/* What the command said last, for the decision to say why the run did not count. */
	if (inv->status != INV_OK && !inv->stderr_tail)
		inv->stderr_tail = stderr_tail(root, inv->dir, plan->max_log_bytes + PROC_LOG_MARKER_MAX,
					       &inv->logs_read[1]);
}

int judge_load(struct judge *j, struct invocation *inv, unsigned attempt,
	       const char *keep_loaded)
{
	const struct plan *plan = j->plan;
	char *overlap, *paused;
	struct guard_result res[GUARD_KINDS];
	struct guard_effect fx;
	struct guard_input in = { 0 };
	struct load_figures f;
	size_t n;

	/*
	 * Only a run that would otherwise count is discarded: a failure under
	 * load is still a failure, and a warmup never counts anyway. An
	 * unknown load (no /proc/stat) cannot be held against the run.
	 */
	if (!compare_counts(inv))
		return 0;
	overlap = inv->noverlaps ? overlap_describe(inv->overlaps, inv->noverlaps,
						   inv->overlaps_unnamed)
				 : NULL;
	f = (struct load_figures){
		.cpu_wait_pct = invocation_cpu_wait_pct(inv),
		.cpu_wait_source = inv->cpu_wait_source,
		.foreign_wait_pct = invocation_foreign_wait_pct(inv),
		.foreign_busy_cores = invocation_foreign_busy_cores(inv),
		.run_cpus = inv->run_cpus,
		.max_cpu_wait_pct = plan->set.max_cpu_wait_pct,
		.foreign_cpu = inv->foreign_cpu,
		.resolution = inv->foreign_cpu_resolution,
		.max_foreign_cpu = plan->set.max_foreign_cpu,
		.overlap = overlap,
		.paused = paused = invocation_pauses_describe(inv),
		.keep_loaded = keep_loaded,
	};
	in.load = &f;
	n = guards_run(&in, GUARD_PHASE_LOAD, res, &fx);
	free(overlap);
	free(paused);
	/* Over a limit and passed all the same: kept, marked loaded. */
	inv->loaded = fx.over_limits && n && res[0].verdict == GUARD_PASS;
	for (size_t i = 0; i < n; i++) {
		if (res[i].verdict == GUARD_FAIL && inv->status != INV_DISCARDED) {
			inv->status = INV_DISCARDED;
			inv->reason = xasprintf("%s; %s", res[i].reason,
						attempt <= plan->set.max_repeats ? "the slot is repeated"
									     : "no repeats left");
		}
	}
	push_guards(inv, res, n);
	return inv->status == INV_DISCARDED;
}
