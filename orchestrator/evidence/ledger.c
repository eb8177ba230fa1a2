/*
 * ledger: abev's own record of the evidence it wrote, and the comparison
 * with what is on disk before sealing. Names are kept in the order they
 * were noted and sorted once, for the check; a name noted twice (a file
 * hashed when written, then kept with its run directory) is checked
 * both ways.
 */
#include "evidence/ledger.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/dirat.h"
#include "evidence/evname.h"
#include "util/tree.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/usage.h"

void ledger_release(struct ledger *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	unforked_free(l->v, l->alloc, sizeof(*l->v));
	l->v = NULL;
	l->n = l->alloc = 0;
}

static struct ledger_entry *add(struct ledger *l, const char *name)
{
	struct ledger_entry *e;

	/* Five entries per invocation: kept out of every child's fork (util/alloc.h). */
	UNFORKED_GROW(l->v, l->n + 1, l->alloc);
	e = &l->v[l->n++];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	return e;
}

static void keep_stat(struct ledger_entry *e, const struct stat *st)
{
	e->is_dir = S_ISDIR(st->st_mode);
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->size = st->st_size;
	e->mtime = st->st_mtim;
	e->ctime = st->st_ctim;
}

int ledger_write(struct ledger *l, const struct dirat *root, const char *rel, const void *data,
		 size_t len)
{
	struct ledger_entry *e;

	if (dirat_write_atomic(root, rel, data, len) < 0)
		return -1;
	e = add(l, rel);
	e->hashed = 1;
	sha256_buf(data, len, e->digest);
	return 0;
}

int ledger_rewrite(struct ledger *l, const struct dirat *root, const char *rel,
		   const void *data, size_t len)
{
	for (size_t i = 0; i < l->n; i++) {
		struct ledger_entry *e = &l->v[i];
		if (!e->hashed || strcmp(e->name, rel))
			continue;
		if (dirat_write_atomic(root, rel, data, len) < 0)
			return -1;
		sha256_buf(data, len, e->digest);
		return 0;
	}
	return ledger_write(l, root, rel, data, len);
}

int ledger_keep_dir(struct ledger *l, const struct dirat *root, const char *rel)
{
	struct stat st;

	if (dirat_lstat(root, rel, &st) < 0 || !S_ISDIR(st.st_mode))
		return error("cannot note the directory '%s/%s': %s", root->path, rel,
			     errno ? strerror(errno) : "not a directory");
	keep_stat(add(l, rel), &st);
	return 0;
}

struct keep_walk {
	struct ledger *l;
	const char *rel;
};

static enum tree_step keep_entry(void *ctx, const struct tree_entry *e)
{
	struct keep_walk *k = ctx;
	char *name = xasprintf("%s/%s", k->rel, e->name);

	keep_stat(add(k->l, name), e->st);
	free(name);
	return S_ISDIR(e->st->st_mode) && e->depth < EVIDENCE_MAX_DEPTH ? TREE_DESCEND : TREE_NEXT;
}

/* What cannot be read now is reported by the check and by the seal. */
static enum tree_step keep_failed(void *ctx, const char *name, const char *what, int err)
{
	(void)ctx;
	(void)name;
	(void)what;
	(void)err;
	return TREE_NEXT;
}

int ledger_keep_tree(struct ledger *l, const struct dirat *root, const char *rel)
{
	static const struct tree_ops ops = { keep_entry, keep_failed };
	struct keep_walk k = { l, rel };

	if (ledger_keep_dir(l, root, rel) < 0)
		return -1;
	return tree_walk_at(root, rel, &ops, &k);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct ledger_entry *)a)->name, ((const struct ledger_entry *)b)->name);
}

static const struct ledger_entry *find(const struct ledger *l, const char *name)
{
	struct ledger_entry key;
	const struct ledger_entry *e;

	key.name = (char *)name;
	e = bsearch(&key, l->v, l->n, sizeof(*l->v), by_name);
	/* The first of equal names: the caller looks at each from there. */
	while (e && e > l->v && !strcmp(e[-1].name, name))
		e--;
	return e;
}

/* Whether the ledger notes a name beneath the directory name: then abev made that directory. */
static int holds_beneath(const struct ledger *l, const char *name)
{
	size_t n = strlen(name), lo = 0, hi = l->n;

	/* The first entry not below name + "/" in byte order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(l->v[mid].name, name, n);
		if (c < 0 || (c == 0 && (unsigned char)l->v[mid].name[n] < '/'))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && !strncmp(l->v[lo].name, name, n) && l->v[lo].name[n] == '/';
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

struct check {
	struct ledger *l;
	const struct dirat *root;
	const char *const *own;
	void (*note)(void *ctx, char *line);
	void *ctx;
	long problems;
	/* Files abev wrote, hashed once the walk is over (in parallel, as the manifest is). */
	const struct ledger_entry **hashed;
	size_t nhashed, hashed_alloc;
};

/* Past this many, differences are counted, not each noted. */
#define LEDGER_NOTES_MAX 20

static void problem(struct check *c, char *line)
{
	if (c->problems++ < LEDGER_NOTES_MAX)
		c->note(c->ctx, line);
	else
		free(line);
}

static void changed(struct check *c, const struct ledger_entry *e)
{
	char hex[SHA256_HEX_LEN + 1], *shown = evname_printable(e->name, strlen(e->name));

	sha256_hex(e->digest, hex);
	problem(c, xasprintf("%s: changed after abev wrote it (SHA-256 %.16s… when written); it "
			     "is not abev's record", shown, hex));
	free(shown);
}

static int is_own(const struct check *c, const struct tree_entry *te)
{
	if (te->depth != 0)
		return 0;
	for (const char *const *o = c->own; *o; o++)
		if (!strcmp(*o, te->name))
			return 1;
	return 0;
}

/* An entry on disk: the ledger must know it, as it is now. */
static enum tree_step check_entry(void *ctx, const struct tree_entry *te)
{
	struct check *c = ctx;
	const struct ledger_entry *e = find(c->l, te->name);
	const struct stat *st = te->st;
	char *shown;
	int dir = S_ISDIR(st->st_mode);

	if (is_own(c, te))
		return TREE_NEXT;
	if (!e && dir && holds_beneath(c->l, te->name))
		return TREE_DESCEND;
	shown = evname_printable(te->name, strlen(te->name));
	if (!e) {
		problem(c, xasprintf("%s: a %s abev did not write appeared outside the run "
				     "directories, or in one after its invocation was over; it is "
				     "not part of what abev recorded",
				     shown, tree_kind(st->st_mode)));
		free(shown);
		return TREE_NEXT;
	}
	for (; e < c->l->v + c->l->n && !strcmp(e->name, te->name); e++) {
		if (e->hashed && S_ISREG(st->st_mode)) {
			ALLOC_GROW(c->hashed, c->nhashed + 1, c->hashed_alloc);
			c->hashed[c->nhashed++] = e;
		} else if (e->hashed) {
			changed(c, e);
			break;
		} else if (e->is_dir != dir || e->dev != st->st_dev || e->ino != st->st_ino ||
			   (!dir && (e->size != st->st_size || !same_time(&e->mtime, &st->st_mtim) ||
				     !same_time(&e->ctime, &st->st_ctim)))) {
			problem(c, xasprintf("%s: changed or replaced after its invocation was over",
					     shown));
			break;
		}
	}
	free(shown);
	return dir && te->depth < EVIDENCE_MAX_DEPTH ? TREE_DESCEND : TREE_NEXT;
}

/* The files abev wrote that the walk met, hashed now and compared with their notes. */
static void check_hashes(struct check *c)
{
	struct hash_job *jobs = xcalloc(c->nhashed + 1, sizeof(*jobs));

	for (size_t i = 0; i < c->nhashed; i++) {
		jobs[i].path = c->hashed[i]->name;
		jobs[i].root = c->root;
	}
	sha256_files(jobs, c->nhashed, 0);
	for (size_t i = 0; i < c->nhashed; i++) {
		if (jobs[i].err || memcmp(jobs[i].digest, c->hashed[i]->digest, SHA256_LEN))
			changed(c, c->hashed[i]);
		free(jobs[i].err);
	}
	free(jobs);
}

static enum tree_step check_failed(void *ctx, const char *name, const char *what, int err)
{
	struct check *c = ctx;
	char *shown = evname_printable(name, strlen(name));

	problem(c, xasprintf("%s: %s: %s", shown, what, strerror(err)));
	free(shown);
	return TREE_NEXT;
}

long ledger_check(struct ledger *l, const struct dirat *root, const char *const *own,
		  void (*note)(void *ctx, char *line), void *ctx)
{
	static const struct tree_ops ops = { check_entry, check_failed };
	struct check c = { l, root, own, note, ctx, 0, NULL, 0, 0 };

	qsort(l->v, l->n, sizeof(*l->v), by_name);
	if (tree_walk_at(root, "", &ops, &c) < 0) {
		free(c.hashed);
		return -1;
	}
	check_hashes(&c);
	free(c.hashed);
	/* What the ledger knows and the walk did not meet is gone. */
	for (size_t i = 0; i < l->n; i++) {
		struct stat st;
		char *shown;
		if (i > 0 && !strcmp(l->v[i - 1].name, l->v[i].name))
			continue;
		if (dirat_lstat(root, l->v[i].name, &st) == 0)
			continue;
		shown = evname_printable(l->v[i].name, strlen(l->v[i].name));
		problem(&c, xasprintf("%s: abev wrote it, and it is gone (%s)", shown,
				      strerror(errno)));
		free(shown);
	}
	if (c.problems > LEDGER_NOTES_MAX)
		note(ctx, xasprintf("... and %ld more such differences", c.problems - LEDGER_NOTES_MAX));
	return c.problems;
}
