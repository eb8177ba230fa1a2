/*
 * verify: the check a reader of evidence runs months later. It gathers
 * what is there — from a directory walk, or by streaming a bundle through
 * bundle_read() without extracting it — then holds that against the
 * signed manifest: the signature of SHA256.sig, the copy of SHA256 next to
 * it, every listed hash, and every file nobody listed — but those that
 * result.json, as listed, says abev left out of the seal when a signal
 * stopped it (its "unsealed"). It collects every
 * problem instead of stopping at the first, because the person reading the
 * report needs to know how much of the evidence still stands. For `abev
 * verify`, when nothing is wrong, it reads what the evidence says of
 * itself from the bytes of result.json it hashed (evidence_read.c parses
 * them). It does not
 * print anything or decide exit codes (main.c does), and it does not know
 * the manifest format or the signature layout (seal.c does).
 */
#include "seal/verify.h"
#include "util/tree.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "evidence/evidence_read.h"
#include "evidence/evname.h"
#include "util/hash.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/escape.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* SHA256 and SHA256.sig are small text; anything bigger is not ours. */
#define VERIFY_MAX_META (256u << 20)
/* Bounds of a directory walk, matching what a bundle may hold. */
#define VERIFY_MAX_FILES BUNDLE_MAX_ENTRIES
#define VERIFY_MAX_DEPTH 64

enum meta_state { META_ABSENT, META_PRESENT, META_BAD };

/* A file found in the evidence, other than SHA256 and SHA256.sig. */
struct found {
	char *name;                        /* relative, '/'-separated */
	char *path;                        /* on disk (directory mode only) */
	unsigned char digest[SHA256_LEN];
	uint64_t size;                     /* as the directory or the bundle entry says */
	int failed;                        /* could not be hashed; a problem says why */
	int matched;                       /* named by the manifest */
	int hashed;                        /* digest already taken, from gather's self_text */
};

/* result.json's bytes, as gathered for what the evidence says of itself. */
enum self_state { SELF_NONE, SELF_READ, SELF_NOT_READ };

/* What one verification gathered before judging it. */
struct gather {
	struct verify_result *out;
	struct found *f;
	size_t n, alloc;
	struct strbuf meta[2];             /* contents of SHA256, SHA256.sig */
	enum meta_state state[2];
	/* bundle mode: where the data of the current entry goes */
	int cur_meta;                      /* 0/1: into meta[], -1: hashed, -2: nowhere */
	struct sha256 *h;
	size_t walked;                     /* directory entries seen, of any kind */
	size_t entries;                    /* bundle entries read */
	int self;                          /* read what the evidence says of itself */
	struct strbuf self_text;           /* the top-level result.json, as hashed */
	enum self_state self_state;
	char *self_why;                    /* SELF_NOT_READ: why */
	unsigned char self_digest[SHA256_LEN]; /* of self_text, once self_hashed */
	int self_hashed;
	char *self_unreadable;             /* self_text is no JSON object: why (judge_self says it) */
	int cur_self;                      /* bundle mode: the current entry is result.json */
	char **dirs;                       /* directories below the root, relative */
	size_t ndirs, dirs_alloc;
	char **unsealed;                   /* result.json's "unsealed" as trusted: byte order */
	size_t nunsealed;
};

static const char *const meta_name[2] = { EVIDENCE_MANIFEST_FILE, EVIDENCE_SIGNATURE_FILE };

static void problem(struct verify_result *r, const char *file, const char *fmt, ...)
	ABEV_PRINTF(3, 4);

static void problem(struct verify_result *r, const char *file, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(r->problems, r->nproblems + 1, r->problems_alloc);
	/* Names come from the evidence: printed escaped, they cannot fake a line. */
	r->problems[r->nproblems].file = xstrdup_escaped(file);
	r->problems[r->nproblems].reason = strbuf_detach(&sb, NULL);
	r->nproblems++;
}

static struct found *add_found(struct gather *g, const char *name)
{
	struct found *f;
	ALLOC_GROW(g->f, g->n + 1, g->alloc);
	f = &g->f[g->n++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	return f;
}

static void add_dir(struct gather *g, const char *name)
{
	ALLOC_GROW(g->dirs, g->ndirs + 1, g->dirs_alloc);
	g->dirs[g->ndirs++] = xstrdup(name);
}

static int meta_index(const char *name)
{
	for (int i = 0; i < 2; i++)
		if (!strcmp(name, meta_name[i]))
			return i;
	return -1;
}

/*
 * Reads a regular file of at most max bytes without following a symlink
 * or blocking on a FIFO planted in its place. 0, or -1 with *err (caller
 * frees).
 */
static int read_meta(const char *path, struct strbuf *sb, size_t max, char **err)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	int ret = -1;

	if (fd < 0) {
		*err = xasprintf("cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*err = xstrdup("not a regular file");
		goto out;
	}
	/*
	 * Room for the whole file and the little more read_fd_capped() asks
	 * for: grown by doubling, a 40 MB result.json would take 64 MB.
	 */
	if (st.st_size > 0 && (uint64_t)st.st_size <= max)
		strbuf_grow(sb, (size_t)st.st_size + 8192 + 1);
	if (read_fd_capped(sb, fd, max) < 0) {
		if (errno == EFBIG)
			*err = xasprintf("larger than %zu MiB; not read", max >> 20);
		else
			*err = xasprintf("cannot read: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

/*
 * The top-level result.json is read once, into memory, and hashed from
 * there: what verify then takes from it — its "unsealed" list, which
 * every verification needs, and for verify_path_self() what the evidence
 * records — comes from the very bytes it checked, not from a second read
 * that a writer could race. When it cannot be read so (too large), it is
 * hashed by path as any other file, and self_why says why it was not read.
 */
static void read_self(struct gather *g, struct found *f)
{
	char *err = NULL;

	if (read_meta(f->path, &g->self_text, EVIDENCE_READ_MAX, &err) < 0) {
		strbuf_release(&g->self_text);
		g->self_state = SELF_NOT_READ;
		g->self_why = err;
		return;
	}
	sha256_buf(g->self_text.buf, g->self_text.len, f->digest);
	f->hashed = 1;
	memcpy(g->self_digest, f->digest, SHA256_LEN);
	g->self_hashed = 1;
	g->self_state = SELF_READ;
}

struct walk_ctx {
	struct gather *g;
	const char *root;
};

/*
 * Another name for the same file, inside the evidence or out, changes it
 * behind the manifest's back; a bundle refuses hardlink entries for the
 * same reason.
 */
static void hardlink_problem(struct gather *g, const struct tree_entry *e)
{
	problem(g->out, e->name, "a hardlink (the file has %ju names); evidence holds only "
		"files with a single name", (uintmax_t)e->st->st_nlink);
}

static enum tree_step walk_entry(void *ctx, const struct tree_entry *e)
{
	struct walk_ctx *w = ctx;
	struct gather *g = w->g;
	const char *why;
	int mi;

	if (++g->walked > VERIFY_MAX_FILES) {
		error("'%s' holds more than %d entries; not evidence abev wrote", w->root,
		      VERIFY_MAX_FILES);
		return TREE_STOP;
	}
	if ((why = evname_problem(e->name))) {
		/* Not descended into: every name below it has the same flaw. */
		problem(g->out, e->name, "unsafe name: %s", why);
	} else if (e->depth == 0 && (mi = meta_index(e->name)) >= 0) {
		char *err = NULL;
		if (!S_ISREG(e->st->st_mode)) {
			problem(g->out, e->name, "a %s, not a regular file",
				S_ISDIR(e->st->st_mode) ? "directory" : tree_kind(e->st->st_mode));
			g->state[mi] = META_BAD;
		} else if (read_meta(e->path, &g->meta[mi], VERIFY_MAX_META, &err) < 0) {
			problem(g->out, e->name, "%s", err);
			free(err);
			g->state[mi] = META_BAD;
		} else {
			g->state[mi] = META_PRESENT;
			if (e->st->st_nlink > 1)
				hardlink_problem(g, e);
		}
	} else if (S_ISDIR(e->st->st_mode)) {
		if (e->depth >= VERIFY_MAX_DEPTH) {
			problem(g->out, e->name, "nested more than %d levels deep; not checked",
				VERIFY_MAX_DEPTH);
			return TREE_NEXT;
		}
		add_dir(g, e->name);
		return TREE_DESCEND;
	} else if (!S_ISREG(e->st->st_mode)) {
		problem(g->out, e->name, "a %s; evidence holds only regular files",
			tree_kind(e->st->st_mode));
	} else {
		struct found *f = add_found(g, e->name);
		f->path = xstrdup(e->path);
		f->size = (uint64_t)e->st->st_size;
		if (e->st->st_nlink > 1)
			hardlink_problem(g, e);
		else if (e->depth == 0 && !strcmp(e->name, EVIDENCE_RESULT_FILE))
			read_self(g, f);
	}
	return TREE_NEXT;
}

/* Below the root, an unreadable entry is a problem of that entry, not the end of the check. */
static enum tree_step walk_failed(void *ctx, const char *name, const char *what, int err)
{
	struct walk_ctx *w = ctx;
	problem(w->g->out, name, "%s: %s", what, strerror(err));
	return TREE_NEXT;
}

static int walk(struct gather *g, const char *root)
{
	static const struct tree_ops ops = { walk_entry, walk_failed };
	struct walk_ctx w = { g, root };
	return tree_walk(root, &ops, &w);
}

static int by_entry_name(const void *a, const void *b)
{
	return strcmp(((const struct manifest_entry *)a)->name,
		      ((const struct manifest_entry *)b)->name);
}

/*
 * Whether name is listed by the manifest text (m, parsed from SHA256 or
 * the copy in SHA256.sig; both when they differ). A file neither lists
 * is a problem, or left out by an interrupted seal, whatever its bytes:
 * it is not read.
 */
static int listed_somewhere(const struct manifest *m, size_t nm, const char *name)
{
	for (size_t k = 0; k < nm; k++) {
		struct manifest_entry key = { (char *)name, { 0 }, 0 };

		if (m[k].n > 0 && bsearch(&key, m[k].e, m[k].n, sizeof(*m[k].e), by_entry_name))
			return 1;
	}
	return 0;
}

/*
 * The manifests SHA256 and SHA256.sig carry, parsed loosely: only to know
 * which files need hashing. Returns how many parsed; 0 when neither
 * does, and then every file is hashed.
 */
static size_t listed_by(const struct gather *g, struct manifest m[2])
{
	size_t nm = 0;
	char *err = NULL;

	if (g->state[0] == META_PRESENT &&
	    manifest_parse(g->meta[0].buf, g->meta[0].len, &m[nm], &err) == 0)
		nm++;
	free(err);
	err = NULL;
	if (g->state[1] == META_PRESENT) {
		const char *text;
		size_t len;

		if (signify_signed_text(g->meta[1].buf, g->meta[1].len, &text, &len, &err) == 0 &&
		    manifest_parse(text, len, &m[nm], &err) == 0)
			nm++;
		free(err);
	}
	return nm;
}

static int gather_dir(struct gather *g, const char *root)
{
	struct hash_job *jobs;
	struct manifest m[2] = { { NULL, 0 }, { NULL, 0 } };
	size_t *of, n = 0, nm;

	if (walk(g, root) < 0)
		return -1;
	nm = listed_by(g, m);
	jobs = xcalloc(g->n + 1, sizeof(*jobs));
	of = xcalloc(g->n + 1, sizeof(*of));
	for (size_t i = 0; i < g->n; i++)
		if (!g->f[i].hashed && (!nm || listed_somewhere(m, nm, g->f[i].name))) {
			of[n] = i;
			jobs[n++].path = g->f[i].path;
		}
	sha256_files(jobs, n, 0);
	for (size_t j = 0; j < n; j++) {
		struct found *f = &g->f[of[j]];
		if (jobs[j].err) {
			problem(g->out, f->name, "%s", jobs[j].err);
			f->failed = 1;
			free(jobs[j].err);
		} else {
			memcpy(f->digest, jobs[j].digest, SHA256_LEN);
		}
	}
	free(of);
	free(jobs);
	for (size_t k = 0; k < nm; k++)
		manifest_release(&m[k]);
	return 0;
}

static void on_entry(void *ctx, const struct bundle_entry *e)
{
	struct gather *g = ctx;
	int mi;

	g->cur_meta = -2;
	g->cur_self = 0;
	g->entries++;
	if (e->unsafe_mode)
		problem(g->out, e->name, "%s: extracting it as root would be dangerous",
			e->unsafe_mode);
	if (e->unsafe_meta)
		problem(g->out, e->name, "%s, which extracting it as root would apply; a bundle "
			"holds no extended attributes, ACLs or file flags", e->unsafe_meta);
	if (e->is_root)
		return;
	if (e->type == BUNDLE_DIR) {
		add_dir(g, e->name);
		return;
	}
	if (e->type == BUNDLE_OTHER) {
		const char *name = e->name[0] ? e->name : "(entry without a name)";
		if (!strncmp(e->other, "unsafe name", 11))
			problem(g->out, name, "%s", e->other);
		else
			problem(g->out, name, "a %s; evidence holds only regular files", e->other);
		return;
	}
	mi = meta_index(e->name);
	if (mi >= 0) {
		if (g->state[mi] != META_ABSENT) {
			/* An extractor would keep the last copy; refuse to guess. */
			problem(g->out, e->name, "appears more than once in the bundle");
			g->state[mi] = META_BAD;
			return;
		}
		g->state[mi] = META_PRESENT;
		g->cur_meta = mi;
		return;
	}
	add_found(g, e->name)->size = e->size;
	g->h = sha256_new();
	g->cur_meta = -1;
	/* A second result.json is a problem already: what the evidence says is not read then. */
	if (!strcmp(e->name, EVIDENCE_RESULT_FILE) && g->self_state == SELF_NONE) {
		g->cur_self = 1;
		g->self_state = SELF_READ;
	}
}

static void on_data(void *ctx, const void *buf, size_t len)
{
	struct gather *g = ctx;

	if (g->cur_meta == -1) {
		if (buf) {
			sha256_update(g->h, buf, len);
			if (g->cur_self && g->self_state == SELF_READ &&
			    len > EVIDENCE_READ_MAX - g->self_text.len) {
				g->self_state = SELF_NOT_READ;
				g->self_why = xasprintf("larger than %u MiB; not read",
							EVIDENCE_READ_MAX >> 20);
				strbuf_release(&g->self_text);
			}
			if (g->cur_self && g->self_state == SELF_READ)
				strbuf_add(&g->self_text, buf, len);
		} else {
			sha256_final(g->h, g->f[g->n - 1].digest);
			g->h = NULL;
			if (g->cur_self && g->self_state == SELF_READ) {
				memcpy(g->self_digest, g->f[g->n - 1].digest, SHA256_LEN);
				g->self_hashed = 1;
			}
		}
	} else if (g->cur_meta >= 0 && buf) {
		int mi = g->cur_meta;
		if (g->state[mi] == META_PRESENT && len > VERIFY_MAX_META - g->meta[mi].len) {
			problem(g->out, meta_name[mi], "larger than %u MiB; not read",
				VERIFY_MAX_META >> 20);
			g->state[mi] = META_BAD;
			strbuf_release(&g->meta[mi]);
		}
		if (g->state[mi] == META_PRESENT)
			strbuf_add(&g->meta[mi], buf, len);
	}
}

/*
 * Streams the bundle. Returns 0 when something of it was read (judge
 * that), -1 when nothing was: then the one problem says why, and a list
 * of missing files would only bury it.
 */
static int gather_bundle(struct gather *g, const char *path)
{
	char *err = NULL;

	g->out->is_bundle = 1;
	if (bundle_read(path, on_entry, on_data, g, &err) < 0) {
		/* What was read so far is still judged: it tells which files survive. */
		problem(g->out, path, "%s", err);
		free(err);
		if (g->h) {
			unsigned char dummy[SHA256_LEN];
			sha256_final(g->h, dummy);
			g->h = NULL;
			g->f[g->n - 1].failed = 1;
			problem(g->out, g->f[g->n - 1].name, "not checked: the bundle breaks off "
				"inside it");
		}
		return g->entries ? 0 : -1;
	}
	return 0;
}

static int found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	return strcmp(x->name, y->name);
}

static int problem_cmp(const void *a, const void *b)
{
	const struct verify_problem *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	return c ? c : strcmp(x->reason, y->reason);
}

static struct found *find(struct gather *g, const char *name)
{
	struct found key;
	key.name = (char *)name;
	if (!g->n)
		return NULL;
	return bsearch(&key, g->f, g->n, sizeof(*g->f), found_cmp);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Non-zero when a sorted array of n records of size bytes, each starting
 * with its char *name (struct found, struct manifest_entry), names
 * something below directory dir.
 */
_Static_assert(offsetof(struct found, name) == 0, "any_below() reads the name first");
_Static_assert(offsetof(struct manifest_entry, name) == 0, "any_below() reads the name first");

static int any_below(const void *base, size_t n, size_t size, const char *dir)
{
	size_t lo = 0, hi = n, len = strlen(dir);
	char *prefix = xasprintf("%s/", dir);
	int found;

#define NAME_AT(i) (*(char *const *)((const char *)base + (i) * size))
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(NAME_AT(mid), prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	found = lo < n && !strncmp(NAME_AT(lo), prefix, len + 1);
#undef NAME_AT
	free(prefix);
	return found;
}

/*
 * Whether result.json's trusted "unsealed" list names name, or a
 * directory above it: a file or directory there that SHA256 does not
 * list is one abev left out of the seal when a signal stopped it.
 */
static int unsealed_covers(const struct gather *g, const char *name)
{
	char *p;
	int found = 0;

	if (!g->nunsealed)
		return 0;
	p = xstrdup(name);
	for (;;) {
		char *slash;
		if (bsearch(&p, g->unsealed, g->nunsealed, sizeof(*g->unsealed), str_cmp)) {
			found = 1;
			break;
		}
		if (!(slash = strrchr(p, '/')))
			break;
		*slash = '\0';
	}
	free(p);
	return found;
}

/*
 * Every directory must hold a listed file (m NULL: not known), and no
 * name may stand for both a directory and a file, or for two entries:
 * an extractor would keep one of them, or make the directory and fail on
 * the file, and an auditor extracting must get exactly what was signed.
 */
static void judge_dirs(struct gather *g, const struct manifest *m)
{
	struct verify_result *r = g->out;

	if (g->ndirs)
		qsort(g->dirs, g->ndirs, sizeof(*g->dirs), str_cmp);
	for (size_t i = 0; i < g->ndirs; i++) {
		const char *d = g->dirs[i];
		if (i && !strcmp(g->dirs[i - 1], d)) {
			problem(r, d, "appears more than once in the bundle (as a directory)");
			continue;
		}
		int mi = meta_index(d);
		if (find(g, d) || (mi >= 0 && g->state[mi] != META_ABSENT))
			problem(r, d, "both a directory and a file: extracting keeps only one of "
				"them");
		/*
		 * A directory of unlisted files: those files are named already.
		 * One at or beneath what result.json says was left out of the
		 * seal is part of what was left out.
		 */
		else if (m && !any_below(m->e, m->n, sizeof(*m->e), d) &&
			 !any_below(g->f, g->n, sizeof(*g->f), d) && !unsealed_covers(g, d))
			problem(r, d, "unlisted directory: SHA256 lists no file in it, and an "
				"extracted copy must hold exactly what was signed");
	}
}

/*
 * SHA256 is missing at the top but sits one level down: the evidence was
 * given (or packed) from the directory above it. Says how to do it, and
 * returns 1; 0 when there is no such file.
 */
static int nested_manifest(struct gather *g)
{
	for (size_t i = 0; i < g->n; i++) {
		const char *slash = strchr(g->f[i].name, '/');
		if (!slash || strcmp(slash + 1, EVIDENCE_MANIFEST_FILE))
			continue;
		if (g->out->is_bundle)
			problem(g->out, EVIDENCE_MANIFEST_FILE, "not at the top level of the bundle: found "
				"'%s'; entries must be at the top level (SHA256, SHA256.sig, "
				"report.md, ...), as 'abev pack DIR --out FILE' or 'tar -C DIR "
				"-czf FILE .' write them", g->f[i].name);
		else
			problem(g->out, EVIDENCE_MANIFEST_FILE, "not at the top level: found '%s'; give the "
				"directory that holds it", g->f[i].name);
		return 1;
	}
	return 0;
}

/*
 * The manifest text SHA256.sig carries: checked against pub, or, without
 * a key, only read, so that a SHA256 edited apart from its signature file
 * is still caught.
 */
static int signed_text(const struct signify_pub *pub, const struct strbuf *sig, const char **text,
		       size_t *len, char **err)
{
	if (pub)
		return signify_check(pub, sig->buf, sig->len, text, len, err);
	return signify_signed_text(sig->buf, sig->len, text, len, err);
}

/*
 * Says that the evidence is unfinished when abev stopped (was killed, or
 * lost its machine) while sealing it: each copy abev run staged for its
 * seal to put in place (seal.h) and left behind is named, with the status
 * the run would have recorded, so that nobody mistakes the files for
 * tampering; out->unfinished is set.
 */
static void stopped_while_sealing(struct gather *g)
{
	for (size_t i = 0; seal_staged_names[i]; i++) {
		char *name = manifest_staged_name(seal_staged_names[i]);
		struct found *f = find(g, name);
		const char *status = f && f->path && !strcmp(seal_staged_names[i], EVIDENCE_RESULT_FILE)
					     ? evidence_read_status(f->path)
					     : NULL;

		if (f) {
			g->out->unfinished = 1;
			problem(g->out, name, "left by abev stopped while sealing: it holds the final "
				"%s%s%s%s, which abev puts in place only once the seal is written; "
				"the evidence is unfinished and not sealed",
				seal_staged_names[i], status ? " (status: " : "",
				status ? status : "", status ? ")" : "");
		}
		free(name);
	}
}

/*
 * Neither SHA256 nor SHA256.sig: abev never got as far as sealing (it was
 * killed, or could not finish). result.json's status says how far it got;
 * the missing signature is no sign of --unsigned then.
 */
static void never_sealed(struct gather *g)
{
	struct found *rj = find(g, EVIDENCE_RESULT_FILE);
	const char *status = rj && rj->path ? evidence_read_status(rj->path) : NULL;

	if (g->out->unfinished)
		problem(g->out, EVIDENCE_MANIFEST_FILE, "missing: abev stopped while sealing, before "
			"the manifest was written");
	else if (status)
		problem(g->out, EVIDENCE_MANIFEST_FILE, "missing: the evidence was never sealed "
			"(result.json status: %s)", status);
	else
		problem(g->out, EVIDENCE_MANIFEST_FILE, "missing: the evidence was never sealed "
			"(result.json: %s)", !rj ? "missing" : rj->path ? "unreadable" : "in the bundle");
}

static int entry_cmp(const void *a, const void *b)
{
	const struct manifest_entry *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* The entry of m (sorted, as parsed) named name, or NULL. */
static const struct manifest_entry *listed(const struct manifest *m, const char *name)
{
	struct manifest_entry key;
	key.name = (char *)name;
	if (!m->n)
		return NULL;
	return bsearch(&key, m->e, m->n, sizeof(*m->e), entry_cmp);
}

/*
 * Takes result.json's "unsealed" list into g->unsealed (byte order), but
 * only from the bytes of result.json that were read and hashed, when they
 * are the bytes m lists for it, and m is vouched for (with a key, m is
 * the text the signature covers): a list anyone could have written would
 * excuse any file added to the evidence. A name the list may not hold is
 * a problem of result.json and is not honoured; so is a list that is not
 * one. Text that is no JSON object has no list: judge_self() says why.
 */
static void trust_unsealed(struct gather *g, const struct manifest *m, int vouched)
{
	static const char prefix[] = EVIDENCE_RESULT_FILE ": ";
	struct verify_result *r = g->out;
	const struct manifest_entry *e = listed(m, EVIDENCE_RESULT_FILE);
	char **v = NULL, *err = NULL;
	size_t n = 0, bad = 0;
	int rc;

	if (!vouched || g->self_state != SELF_READ || !g->self_hashed || !e ||
	    memcmp(e->digest, g->self_digest, SHA256_LEN))
		return;
	rc = evidence_unsealed_parse(EVIDENCE_RESULT_FILE, g->self_text.buf, g->self_text.len, &v,
				     &n, &err);
	if (rc < 0) {
		problem(r, EVIDENCE_RESULT_FILE, "%s; no file is taken as left out of the seal",
			strncmp(err, prefix, sizeof(prefix) - 1) ? err : err + sizeof(prefix) - 1);
		free(err);
		return;
	}
	if (rc == 0) {
		g->self_unreadable = err;
		return;
	}
	g->unsealed = xcalloc(n + 1, sizeof(*g->unsealed));
	for (size_t i = 0; i < n; i++) {
		const char *why = evidence_unsealed_problem(v[i]);
		char *shown;

		if (!why) {
			g->unsealed[g->nunsealed++] = v[i];
			v[i] = NULL;
		} else if (bad++ < VERIFY_UNSEALED_NAMED) {
			shown = evname_printable(v[i], strlen(v[i]));
			problem(r, EVIDENCE_RESULT_FILE, "\"unsealed\" names '%s' (%s): abev leaves "
				"only what is beneath " EVIDENCE_RUNS_DIR "/ out of the seal; not "
				"honoured", shown, why);
			free(shown);
		}
	}
	if (bad > VERIFY_UNSEALED_NAMED)
		problem(r, EVIDENCE_RESULT_FILE, "\"unsealed\" names %zu more such paths; not "
			"honoured", bad - VERIFY_UNSEALED_NAMED);
	strv_free_n(v, n);
	if (g->nunsealed)
		qsort(g->unsealed, g->nunsealed, sizeof(*g->unsealed), str_cmp);
}

/* An unlisted file that result.json says abev left out of the seal: counted, not a problem. */
static void count_unsealed(struct verify_result *r, const struct found *f)
{
	r->unsealed_files++;
	r->unsealed_bytes += f->size;
	if (r->nunsealed_names < VERIFY_UNSEALED_NAMED)
		r->unsealed_names[r->nunsealed_names++] = xstrdup_escaped(f->name);
}

/*
 * Holds what was gathered against the signature and the manifest; with
 * no key (pub NULL) against the manifest alone.
 */
static void judge(struct gather *g, const struct signify_pub *pub)
{
	struct verify_result *r = g->out;
	struct manifest m = { NULL, 0 };
	const char *text = NULL, *source = NULL;
	size_t text_len = 0;
	char *err = NULL;

	if (g->n)
		qsort(g->f, g->n, sizeof(*g->f), found_cmp);
	for (size_t i = 1; i < g->n; i++)
		if (!strcmp(g->f[i - 1].name, g->f[i].name))
			problem(r, g->f[i].name, "appears more than once in the bundle");

	/* Nothing else can be judged: every name is one level off. */
	if (g->state[0] == META_ABSENT && g->state[1] == META_ABSENT && nested_manifest(g))
		return;
	r->signature_present = g->state[1] != META_ABSENT;
	stopped_while_sealing(g);
	if (g->state[0] == META_ABSENT && g->state[1] == META_ABSENT) {
		never_sealed(g);
	} else if (g->state[1] == META_ABSENT && pub) {
		problem(r, EVIDENCE_SIGNATURE_FILE, "missing: the evidence is unsigned (sealed with "
			"--unsigned), so no key vouches for it; 'abev verify' without --pubkey "
			"checks its contents");
	} else if (g->state[1] == META_PRESENT) {
		if (signed_text(pub, &g->meta[1], &text, &text_len, &err) < 0) {
			problem(r, EVIDENCE_SIGNATURE_FILE, "%s", err ? err : "signature check failed");
			free(err);
			err = NULL;
			text = NULL;
		} else {
			r->signature_ok = pub != NULL;
			source = EVIDENCE_SIGNATURE_FILE;
		}
	}
	if (g->state[0] == META_ABSENT && g->state[1] != META_ABSENT) {
		problem(r, EVIDENCE_MANIFEST_FILE, "missing");
	} else if (g->state[0] == META_PRESENT && text &&
		   (g->meta[0].len != text_len || memcmp(g->meta[0].buf, text, text_len))) {
		problem(r, EVIDENCE_MANIFEST_FILE, "differs from the %s copy in SHA256.sig",
			pub ? "signed" : "(unchecked)");
	}
	/*
	 * Without a valid signature nothing is trusted and the verdict already
	 * fails, but the unsigned SHA256 still tells the reader which files
	 * changed, as `sha256sum -c` would.
	 */
	if (!text && g->state[0] == META_PRESENT) {
		text = g->meta[0].buf;
		text_len = g->meta[0].len;
		source = EVIDENCE_MANIFEST_FILE;
	}
	if (!text) {
		judge_dirs(g, NULL);
		return;
	}
	if (manifest_parse(text, text_len, &m, &err) < 0) {
		problem(r, source, "%s", err ? err : "malformed manifest");
		free(err);
		judge_dirs(g, NULL);
		return;
	}
	r->files_listed = m.n;
	trust_unsealed(g, &m, !pub || r->signature_ok);
	judge_dirs(g, &m);
	for (size_t i = 0; i < m.n; i++) {
		struct found *f = find(g, m.e[i].name);
		char have[SHA256_HEX_LEN + 1], want[SHA256_HEX_LEN + 1];

		if (!f) {
			problem(r, m.e[i].name, "listed but missing");
			continue;
		}
		f->matched = 1;
		if (f->failed)
			continue;
		if (memcmp(f->digest, m.e[i].digest, SHA256_LEN)) {
			sha256_hex(f->digest, have);
			sha256_hex(m.e[i].digest, want);
			problem(r, f->name, "content changed (sha256 %s, listed %s)", have, want);
			continue;
		}
		r->files_checked++;
	}
	/* A name that appears twice is a problem already; one of its copies matched. */
	for (size_t i = 0; i < g->n; i++) {
		if (g->f[i].matched || (i > 0 && !strcmp(g->f[i - 1].name, g->f[i].name)) ||
		    (i + 1 < g->n && !strcmp(g->f[i + 1].name, g->f[i].name)))
			continue;
		if (unsealed_covers(g, g->f[i].name))
			count_unsealed(r, &g->f[i]);
		else
			problem(r, g->f[i].name, "not listed in SHA256");
	}
	manifest_release(&m);
}

/*
 * What the evidence says of itself, once nothing is wrong with it: read
 * from the bytes of result.json that were checked against the manifest.
 */
static void judge_self(struct gather *g)
{
	struct verify_result *r = g->out;
	char *err = NULL;

	if (g->self_state == SELF_NONE) {
		r->self_err = xstrdup(EVIDENCE_RESULT_FILE ": missing: nothing in the evidence says "
				      "what it records");
	} else if (g->self_state == SELF_NOT_READ) {
		r->self_err = xasprintf("%s: %s", EVIDENCE_RESULT_FILE, g->self_why);
	} else if (g->self_unreadable) {
		/* trust_unsealed() found it so: parsing it again would only say so twice. */
		r->self_err = g->self_unreadable;
		g->self_unreadable = NULL;
	} else if (evidence_self_parse(EVIDENCE_RESULT_FILE, g->self_text.buf, g->self_text.len,
				       &r->self, &err) < 0) {
		r->self_err = err;
	} else {
		r->self_read = 1;
	}
}

static int verify(const char *path, const struct signify_pub *pub, int self,
		  struct verify_result *out)
{
	struct gather g;
	struct stat st;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&g, 0, sizeof(g));
	g.out = out;
	g.self = self;
	strbuf_init(&g.meta[0]);
	strbuf_init(&g.meta[1]);
	strbuf_init(&g.self_text);
	if (pub)
		signify_fingerprint(pub, out->fingerprint);

	if (stat(path, &st) < 0)
		return error("cannot verify '%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (gather_dir(&g, path) < 0)
			goto out;
	} else if (bundle_named_like(path) || bundle_is_bundle(path)) {
		/* Meant as a bundle: whatever is wrong with it is a verdict, not a usage error. */
		if (gather_bundle(&g, path) < 0) {
			ret = 0;
			goto out;
		}
	} else {
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			error("cannot verify '%s': %s", path, strerror(errno));
			goto out;
		}
		close(fd);
		error("'%s' is neither an evidence directory nor a bundle (.tar.zst, .tar.gz)", path);
		goto out;
	}
	judge(&g, pub);
	if (out->nproblems)
		qsort(out->problems, out->nproblems, sizeof(*out->problems), problem_cmp);
	else if (self)
		judge_self(&g);
	ret = 0;
out:
	for (size_t i = 0; i < g.n; i++) {
		free(g.f[i].name);
		free(g.f[i].path);
	}
	free(g.f);
	for (size_t i = 0; i < g.ndirs; i++)
		free(g.dirs[i]);
	free(g.dirs);
	strbuf_release(&g.meta[0]);
	strbuf_release(&g.meta[1]);
	strbuf_release(&g.self_text);
	free(g.self_why);
	free(g.self_unreadable);
	strv_free_n(g.unsealed, g.nunsealed);
	if (ret < 0)
		verify_result_release(out);
	return ret;
}

int verify_path(const char *path, const struct signify_pub *pub, struct verify_result *out)
{
	return verify(path, pub, 0, out);
}

int verify_path_self(const char *path, const struct signify_pub *pub, struct verify_result *out)
{
	return verify(path, pub, 1, out);
}

void verify_result_release(struct verify_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nproblems; i++) {
		free(r->problems[i].file);
		free(r->problems[i].reason);
	}
	free(r->problems);
	for (size_t i = 0; i < r->nunsealed_names; i++)
		free(r->unsealed_names[i]);
	evidence_self_release(&r->self);
	free(r->self_err);
	memset(r, 0, sizeof(*r));
}
