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
	l->sorted = 0;
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
	e->size = (off_t)len;
	sha256_buf(data, len, e->digest);
	return 0;
}

void ledger_written(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
		    off_t size)
{
	struct ledger_entry *e = NULL;

	/* Linear: a file is written again a few times per run, not per invocation. */
	for (size_t i = 0; i < l->n && !e; i++)
		if (l->v[i].hashed && !strcmp(l->v[i].name, rel))
			e = &l->v[i];
	if (!e) {
		e = add(l, rel);
		e->hashed = 1;
	}
	memcpy(e->digest, digest, SHA256_LEN);
	e->size = size;
	/* New bytes: what a seal read of the old ones is no longer known. */
	e->cached = 0;
}

void ledger_forget(struct ledger *l, const char *rel)
{
	size_t kept = 0;

	/* Linear, and in the order noted: once per run. */
	for (size_t i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].name, rel))
			free(l->v[i].name);
		else
			l->v[kept++] = l->v[i];
	}
	l->n = kept;
}

void ledger_parsed(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
		   uint64_t size)
{
	struct ledger_entry *e = add(l, rel);

	e->hashed = 1;
	e->parsed = 1;
	memcpy(e->digest, digest, SHA256_LEN);
	e->size = (off_t)size;
}

int ledger_rewrite(struct ledger *l, const struct dirat *root, const char *rel,
		   const void *data, size_t len)
{
	unsigned char digest[SHA256_LEN];

	if (dirat_write_atomic(root, rel, data, len) < 0)
		return -1;
	sha256_buf(data, len, digest);
	ledger_written(l, rel, digest, (off_t)len);
	return 0;
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
	char *name;

	/* A link, FIFO or socket is no file a manifest holds: the run's end removes it (evname.h). */
	if (!S_ISREG(e->st->st_mode) && !S_ISDIR(e->st->st_mode))
		return TREE_NEXT;
	name = xasprintf("%s/%s", k->rel, e->name);

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

static struct ledger_entry *find(struct ledger *l, const char *name)
{
	struct ledger_entry key;
	struct ledger_entry *e;

	key.name = (char *)name;
	if (!l->sorted) {
		qsort(l->v, l->n, sizeof(*l->v), by_name);
		l->sorted = 1;
	}
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
	struct ledger_entry **hashed;
	size_t nhashed, hashed_alloc;
	/* What appeared, taken into the ledger once the walk is over (it moves the entries). */
	char **appeared;
	size_t nappeared, appeared_alloc;
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
	if (e->parsed)
		problem(c, xasprintf("%s: changed after abev read its figures from it (SHA-256 "
				     "%.16s… when read); it is not what abev recorded", shown, hex));
	else
		problem(c, xasprintf("%s: changed after abev wrote it (SHA-256 %.16s… when "
				     "written); it is not abev's record", shown, hex));
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
	struct ledger_entry *e;
	const struct stat *st = te->st;
	char *shown;
	int dir = S_ISDIR(st->st_mode);

	/* A signal while abev finishes the evidence stops the check (util/hash.h). */
	if (hash_stopped())
		return TREE_STOP;
	e = find(c->l, te->name);
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
		ALLOC_GROW(c->appeared, c->nappeared + 1, c->appeared_alloc);
		c->appeared[c->nappeared++] = xstrdup(te->name);
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
			/* Recorded: it is sealed as found (ledger_learn()). */
			for (; e < c->l->v + c->l->n && !strcmp(e->name, te->name); e++)
				if (!e->hashed)
					keep_stat(e, st);
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
		/* Not read, because of a signal: nothing is known of it. */
		if (jobs[i].stopped) {
			free(jobs[i].err);
			continue;
		}
		if (jobs[i].err || memcmp(jobs[i].digest, c->hashed[i]->digest, SHA256_LEN)) {
			changed(c, c->hashed[i]);
			/* Recorded: the bytes found are what the seal lists. */
			if (!jobs[i].err) {
				memcpy(c->hashed[i]->digest, jobs[i].digest, SHA256_LEN);
				c->hashed[i]->size = (off_t)jobs[i].size;
			}
		}
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
	struct check c = { l, root, own, note, ctx, 0, NULL, 0, 0, NULL, 0, 0 };
	int walked;

	qsort(l->v, l->n, sizeof(*l->v), by_name);
	l->sorted = 1;
	walked = tree_walk_at(root, "", &ops, &c);
	if (walked == 0)
		check_hashes(&c);
	free(c.hashed);
	/* What appeared is recorded now: it is sealed as found, with all beneath it. */
	for (size_t i = 0; i < c.nappeared; i++) {
		struct stat st;

		/* A link, FIFO or socket no manifest holds: the run's end removes it (evname_tidy()). */
		if (walked == 0 && dirat_lstat(root, c.appeared[i], &st) == 0) {
			if (S_ISDIR(st.st_mode))
				(void)ledger_keep_tree(l, root, c.appeared[i]);
			else if (S_ISREG(st.st_mode))
				keep_stat(add(l, c.appeared[i]), &st);
		}
		free(c.appeared[i]);
	}
	free(c.appeared);
	if (walked < 0 || hash_stopped())
		return -1;
	/* What the ledger knows and the walk did not meet is gone. */
	qsort(l->v, l->n, sizeof(*l->v), by_name);
	l->sorted = 1;
	{
		size_t kept = 0, j;

		/* By name: the entries from i on are untouched while those before are compacted. */
		for (size_t i = 0; i < l->n; i = j) {
			struct stat st;
			int gone = dirat_lstat(root, l->v[i].name, &st) < 0;

			if (gone) {
				char *shown = evname_printable(l->v[i].name, strlen(l->v[i].name));
				problem(&c, xasprintf("%s: abev wrote it, and it is gone (%s)", shown,
						      strerror(errno)));
				free(shown);
			}
			for (j = i + 1; j < l->n && !strcmp(l->v[j].name, l->v[i].name); j++)
				;
			/* Recorded gone: no longer looked for (the seal would name it again). */
			for (size_t k = i; k < j; k++) {
				if (gone)
					free(l->v[k].name);
				else
					l->v[kept++] = l->v[k];
			}
		}
		l->n = kept;
	}
	if (c.problems > LEDGER_NOTES_MAX)
		note(ctx, xasprintf("... and %ld more such differences", c.problems - LEDGER_NOTES_MAX));
	return c.problems;
}

/* Whether the file st is still the one e kept: device, inode, size and times. */
static int same_identity(const struct ledger_entry *e, const struct stat *st)
{
	return !e->is_dir && !S_ISDIR(st->st_mode) && e->dev == st->st_dev &&
	       e->ino == st->st_ino && e->size == st->st_size &&
	       same_time(&e->mtime, &st->st_mtim) && same_time(&e->ctime, &st->st_ctim);
}

enum ledger_seen ledger_vet(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
			    const struct stat *st, const struct ledger_entry **written)
{
	struct ledger_entry *first = find(l, rel), *end = l->v + l->n;
	enum ledger_seen seen = LEDGER_AS_NOTED;

	*written = NULL;
	if (!first)
		return LEDGER_UNKNOWN;
	for (struct ledger_entry *e = first; e < end && !strcmp(e->name, rel); e++)
		e->seen = 1;
	/* Bytes abev wrote are judged by themselves, whatever else was noted of the name. */
	for (struct ledger_entry *e = first; e < end && !strcmp(e->name, rel); e++) {
		if (!e->hashed)
			continue;
		if (!memcmp(e->digest, digest, SHA256_LEN))
			return LEDGER_AS_NOTED;
		*written = e;
		return LEDGER_CHANGED;
	}
	for (struct ledger_entry *e = first; e < end && !strcmp(e->name, rel); e++)
		if (!same_identity(e, st))
			seen = LEDGER_CHANGED;
	return seen;
}

void ledger_learn(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
		  const struct stat *st, int is_new)
{
	struct ledger_entry *first = is_new ? NULL : find(l, rel), *end = l->v + l->n;

	if (!first) {
		struct ledger_entry *e = add(l, rel);

		keep_stat(e, st);
		memcpy(e->digest, digest, SHA256_LEN);
		e->cached = 1;
		e->seen = 1;
		return;
	}
	for (struct ledger_entry *e = first; e < end && !strcmp(e->name, rel); e++) {
		e->seen = 1;
		memcpy(e->digest, digest, SHA256_LEN);
		keep_stat(e, st);
		e->cached = 1;
	}
}

void ledger_cache(struct ledger *l, const char *rel, const unsigned char digest[SHA256_LEN],
		  const struct stat *st)
{
	struct ledger_entry *e = find(l, rel), *end = l->v + l->n;

	/* A file abev wrote keeps its digest: the seal found these very bytes. */
	for (; e && e < end && !strcmp(e->name, rel); e++) {
		if (!e->hashed)
			memcpy(e->digest, digest, SHA256_LEN);
		keep_stat(e, st);
		e->cached = 1;
	}
}

int ledger_known(struct ledger *l, const char *rel, const struct stat *st,
		 unsigned char digest[SHA256_LEN])
{
	struct ledger_entry *first = find(l, rel), *end = l->v + l->n;

	if (!first)
		return 0;
	for (struct ledger_entry *e = first; e < end && !strcmp(e->name, rel); e++)
		if (!e->cached || !same_identity(e, st))
			return 0;
	memcpy(digest, first->digest, SHA256_LEN);
	return 1;
}

void ledger_files(struct ledger *l,
		  void (*fn)(void *ctx, const char *rel, const unsigned char *digest, off_t size),
		  void *ctx)
{
	if (!l->sorted) {
		qsort(l->v, l->n, sizeof(*l->v), by_name);
		l->sorted = 1;
	}
	for (size_t i = 0, j; i < l->n; i = j) {
		const struct ledger_entry *known = NULL;
		int dir = 0, all_cached = 1;

		for (j = i; j < l->n && !strcmp(l->v[j].name, l->v[i].name); j++) {
			dir |= l->v[j].is_dir;
			if (l->v[j].hashed && !known)
				known = &l->v[j];
			all_cached &= l->v[j].cached;
		}
		if (dir)
			continue;
		if (!known && all_cached)
			known = &l->v[i];
		fn(ctx, l->v[i].name, known ? known->digest : NULL,
		   known ? known->size : l->v[i].size);
	}
}

void ledger_seen_clear(struct ledger *l)
{
	for (size_t i = 0; i < l->n; i++)
		l->v[i].seen = 0;
}

long ledger_unseen(struct ledger *l, const char *const *skip,
		   int (*fn)(void *ctx, const struct ledger_entry *e), void *ctx)
{
	long count = 0;
	size_t kept = 0;

	if (!l->sorted) {
		qsort(l->v, l->n, sizeof(*l->v), by_name);
		l->sorted = 1;
	}
	for (size_t i = 0; i < l->n;) {
		size_t j = i;
		const struct ledger_entry *written = NULL;
		int file = 0, seen = 0, skipped = 0, drop = 0;

		for (; j < l->n && !strcmp(l->v[j].name, l->v[i].name); j++) {
			file |= !l->v[j].is_dir;
			seen |= l->v[j].seen;
			if (l->v[j].hashed && !written)
				written = &l->v[j];
		}
		for (const char *const *s = skip; s && *s && !skipped; s++)
			skipped = !strcmp(*s, l->v[i].name);
		if (file && !seen && !skipped) {
			count++;
			drop = fn(ctx, written ? written : &l->v[i]);
		}
		for (; i < j; i++) {
			if (drop) {
				free(l->v[i].name);
				continue;
			}
			l->v[kept++] = l->v[i];
		}
	}
	l->n = kept;
	return count;
}

void ledger_moved(struct ledger *l, const char *rel, const struct stat *old,
		  const struct stat *new)
{
	struct ledger_entry *e = find(l, rel), *end = l->v + l->n;

	for (; e && e < end && !strcmp(e->name, rel); e++)
		if (!e->hashed && same_identity(e, old))
			keep_stat(e, new);
}
