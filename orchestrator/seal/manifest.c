/*
 * manifest: SHA256, the list of an evidence directory's files with their
 * SHA-256, in `sha256sum --tag` form and byte order. Built by walking the
 * directory (only regular files and directories with safe names) and
 * hashing in parallel; parsed back strictly, as hostile input. Signing the
 * manifest is signify.c's job, sealing a directory seal.c's, comparing a
 * manifest with the files verify.c's.
 */
#include "seal/manifest.h"

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

#define MANIFEST_MAX_ENTRIES EVIDENCE_MAX_FILES
#define MANIFEST_LINE_MAX 4200
#define MANIFEST_PREFIX "SHA256 ("
#define MANIFEST_MID ") = "

/* MANIFEST_MAX_ENTRIES, unless a test lowered it (manifest_set_max_entries()). */
static size_t max_entries = MANIFEST_MAX_ENTRIES;

void manifest_set_max_entries(size_t n)
{
	max_entries = n ? n : MANIFEST_MAX_ENTRIES;
}

char *manifest_staged_name(const char *name)
{
	return xasprintf("%s%s", name, EVIDENCE_STAGED_SUFFIX);
}

void manifest_release(struct manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->e[i].name);
	free(m->e);
	m->e = NULL;
	m->n = 0;
}

struct walk {
	const char *root;
	const char *const *staged;   /* top-level names whose staged copy stands in */
	struct manifest_entry *e;
	char **from;                 /* per entry: the name hashed, when not its own */
	struct stat *st;             /* per entry: as the walk found it (lstat()) */
	size_t n, alloc, from_alloc, st_alloc;
};

/*
 * Whether the top-level name is one of w->staged or a staged copy of one:
 * either is added after the walk (add_staged()), not by it.
 */
static int is_staged(const struct walk *w, const char *name)
{
	for (size_t i = 0; w->staged && w->staged[i]; i++) {
		size_t n = strlen(w->staged[i]);
		if (!strncmp(name, w->staged[i], n) &&
		    (!name[n] || !strcmp(name + n, EVIDENCE_STAGED_SUFFIX)))
			return 1;
	}
	return 0;
}

static int add_entry(struct walk *w, const char *name, const char *from, const struct stat *st)
{
	if (w->n >= max_entries)
		return error("'%s' holds more than %zu files", w->root, max_entries);
	ALLOC_GROW(w->e, w->n + 1, w->alloc);
	ALLOC_GROW(w->from, w->n + 1, w->from_alloc);
	ALLOC_GROW(w->st, w->n + 1, w->st_alloc);
	memset(&w->e[w->n], 0, sizeof(w->e[w->n]));
	w->e[w->n].name = xstrdup(name);
	w->e[w->n].size = (uint64_t)st->st_size;
	w->st[w->n] = *st;
	w->from[w->n] = from ? xstrdup(from) : NULL;
	w->n++;
	return 0;
}

/* Evidence holds regular files and directories with safe names, and nothing else. */
static enum tree_step walk_entry(void *ctx, const struct tree_entry *te)
{
	struct walk *w = ctx;
	const char *why;

	/* A signal while sealing stops the walk as it stops the hashing (hash.h). */
	if (hash_stopped())
		return TREE_STOP;
	if (te->depth == 0 && (!strcmp(te->name, EVIDENCE_MANIFEST_FILE) ||
			       !strcmp(te->name, EVIDENCE_SIGNATURE_FILE)))
		return TREE_NEXT;
	if (te->depth == 0 && is_staged(w, te->name))
		return TREE_NEXT;
	why = evname_problem(te->name);
	if (why) {
		char *shown = evname_printable(te->name, strlen(te->name));
		error("unsafe file name '%s' in '%s': %s", shown, w->root, why);
		free(shown);
		return TREE_STOP;
	}
	if (S_ISDIR(te->st->st_mode)) {
		if (te->depth + 1 > EVIDENCE_MAX_DEPTH) {
			error("'%s' is nested deeper than %d directories", te->path,
			      EVIDENCE_MAX_DEPTH);
			return TREE_STOP;
		}
		return TREE_DESCEND;
	}
	if (!S_ISREG(te->st->st_mode)) {
		mode_t mode = te->st->st_mode;
		const char *kind = S_ISLNK(mode)	? "a symbolic link"
				   : S_ISFIFO(mode) ? "a FIFO"
				   : S_ISSOCK(mode) ? "a socket"
				   : S_ISCHR(mode)	? "a character device"
				   : S_ISBLK(mode)	? "a block device"
							: "not a regular file";
		error("'%s' is %s: evidence holds only regular files and directories", te->path,
		      kind);
		return TREE_STOP;
	}
	return add_entry(w, te->name, NULL, te->st) < 0 ? TREE_STOP : TREE_NEXT;
}

static enum tree_step walk_failed(void *ctx, const char *name, const char *what, int err)
{
	struct walk *w = ctx;
	error("%s '%s' in '%s': %s", what, name, w->root, strerror(err));
	return TREE_STOP;
}

static int by_name(const void *a, const void *b)
{
	const struct manifest_entry *x = a, *y = b;
	return strcmp(x->name, y->name);
}

int manifest_build(const char *root, struct manifest *m)
{
	struct dirat d = DIRAT_INIT;
	int ret;

	m->e = NULL;
	m->n = 0;
	if (dirat_open_path(&d, root) < 0)
		return error("cannot open directory '%s': %s", root, strerror(errno));
	ret = manifest_build_at(&d, m);
	dirat_release(&d);
	return ret;
}

int manifest_build_at(const struct dirat *root, struct manifest *m)
{
	return manifest_build_staged(root, NULL, m);
}

/*
 * The staged names, after the walk: each one's staged copy when it is
 * there, else the name itself when it is. Either must be a regular file.
 */
static int add_staged(const struct dirat *root, struct walk *w)
{
	for (size_t i = 0; w->staged && w->staged[i]; i++) {
		const char *name = w->staged[i];
		char *from = manifest_staged_name(name);
		struct stat st;
		int ret = 0;

		if (dirat_lstat(root, from, &st) < 0) {
			if (errno != ENOENT) {
				ret = error("cannot stat '%s/%s': %s", root->path, from,
					    strerror(errno));
				free(from);
				return ret;
			}
			free(from);
			from = NULL;
			if (dirat_lstat(root, name, &st) < 0) {
				if (errno == ENOENT)
					continue;
				return error("cannot stat '%s/%s': %s", root->path, name,
					     strerror(errno));
			}
		}
		if (!S_ISREG(st.st_mode))
			ret = error("'%s/%s' is not a regular file: evidence holds only regular "
				    "files and directories", root->path, from ? from : name);
		else
			ret = add_entry(w, name, from, &st);
		free(from);
		if (ret < 0)
			return -1;
	}
	return 0;
}

int manifest_build_staged(const struct dirat *root, const char *const *staged,
			  struct manifest *m)
{
	return manifest_build_vetted(root, staged, NULL, m);
}

/*
 * The jobs of w's entries: each one vet knows (vet->known()) filled in
 * from what it knows, the rest hashed, in parallel. Returns how many
 * could not be hashed (each has err set, and stopped when a signal
 * stopped it).
 */
static size_t hash_entries(const struct dirat *root, struct walk *w,
			   const struct manifest_vet *vet, struct hash_job *jobs)
{
	struct hash_job *todo = xcalloc(w->n + 1, sizeof(*todo));
	size_t *at = xcalloc(w->n + 1, sizeof(*at)), ntodo = 0, failed;

	for (size_t i = 0; i < w->n; i++) {
		jobs[i].path = w->from[i] ? w->from[i] : w->e[i].name;
		jobs[i].root = root;
		if (vet && vet->known && vet->known(vet->ctx, jobs[i].path, &w->st[i], jobs[i].digest)) {
			jobs[i].size = (uint64_t)w->st[i].st_size;
			jobs[i].st = w->st[i];
			continue;
		}
		todo[ntodo] = jobs[i];
		at[ntodo++] = i;
	}
	failed = sha256_files(todo, ntodo, 0);
	for (size_t k = 0; k < ntodo; k++)
		jobs[at[k]] = todo[k];
	free(todo);
	free(at);
	return failed;
}

int manifest_build_vetted(const struct dirat *root, const char *const *staged,
			  const struct manifest_vet *vet, struct manifest *m)
{
	static const struct tree_ops ops = { walk_entry, walk_failed };
	struct walk w = { root->path, staged, NULL, NULL, NULL, 0, 0, 0, 0 };
	struct hash_job *jobs = NULL;
	size_t failed, njobs = 0, nstopped = 0;
	int ret = -1;

	m->e = NULL;
	m->n = 0;
	if (tree_walk_at(root, "", &ops, &w) < 0 || add_staged(root, &w) < 0) {
		if (hash_stopped())
			ret = 1;
		goto out;
	}
	njobs = w.n;
	jobs = xcalloc(njobs + 1, sizeof(*jobs));
	failed = hash_entries(root, &w, vet, jobs);
	/* What was hashed before a signal stopped the rest is vetted all the same. */
	for (size_t i = 0; i < w.n; i++) {
		if (jobs[i].stopped) {
			nstopped++;
			continue;
		}
		if (jobs[i].err) {
			error("%s", jobs[i].err);
			continue;
		}
		if (vet && vet->fn(vet->ctx, &jobs[i]) == MANIFEST_LEAVE_OUT) {
			free(w.e[i].name);
			w.e[i].name = NULL;
			continue;
		}
		memcpy(w.e[i].digest, jobs[i].digest, SHA256_LEN);
		w.e[i].size = jobs[i].size;
	}
	if (nstopped && failed == nstopped) {
		ret = 1;
		goto out;
	}
	if (failed)
		goto out;
	/* Hashed: the staged names are no longer needed, and the sort would part them. */
	{
		size_t kept = 0;

		for (size_t i = 0; i < w.n; i++) {
			free(w.from[i]);
			w.from[i] = NULL;
			if (w.e[i].name)
				w.e[kept++] = w.e[i];
		}
		w.n = kept;
	}
	qsort(w.e, w.n, sizeof(*w.e), by_name);
	m->e = w.e;
	m->n = w.n;
	w.e = NULL;
	w.n = 0;
	ret = 0;
out:
	for (size_t i = 0; i < njobs; i++)
		free(jobs[i].err);
	free(jobs);
	for (size_t i = 0; i < w.n; i++)
		free(w.from[i]);
	for (size_t i = 0; i < w.n; i++)
		free(w.e[i].name);
	free(w.e);
	free(w.from);
	free(w.st);
	return ret;
}

char *manifest_text(const struct manifest *m, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char hex[SHA256_HEX_LEN + 1];
	for (size_t i = 0; i < m->n; i++) {
		sha256_hex(m->e[i].digest, hex);
		strbuf_addf(&sb, MANIFEST_PREFIX "%s" MANIFEST_MID "%s\n", m->e[i].name, hex);
	}
	return strbuf_detach(&sb, len);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The manifest may not list itself or its signature: neither can match. */
static int is_seal_file(const char *name)
{
	return !strcmp(name, EVIDENCE_MANIFEST_FILE) || !strcmp(name, EVIDENCE_SIGNATURE_FILE);
}

/* What is wrong with a line that is not 'SHA256 (name) = <hex>', in words a user can act on. */
static const char *bad_line_why(const char *s, size_t llen)
{
	size_t hexlen = 0;

	if (!llen)
		return "blank line";
	if (s[llen - 1] == '\r')
		return "CRLF line ending; the manifest ends its lines with LF only";
	while (hexlen < llen && (hexval(s[hexlen]) >= 0 || (s[hexlen] >= 'A' && s[hexlen] <= 'F')))
		hexlen++;
	if (hexlen == SHA256_HEX_LEN && llen > hexlen + 2 && s[hexlen] == ' ' &&
	    (s[hexlen + 1] == ' ' || s[hexlen + 1] == '*'))
		return "the untagged sha256sum form ('<hex>  name' or '<hex> *name'); the "
		       "manifest is in the --tag form";
	if (llen > SHA256_HEX_LEN && !memcmp(s, MANIFEST_PREFIX, sizeof(MANIFEST_PREFIX) - 1)) {
		const char *hex = s + llen - SHA256_HEX_LEN;
		for (size_t i = 0; i < SHA256_HEX_LEN; i++)
			if (hex[i] >= 'A' && hex[i] <= 'F')
				return "uppercase hex digits; abev writes and reads lowercase only";
	}
	return NULL;
}

int manifest_parse(const char *text, size_t len, struct manifest *m, char **err)
{
	static const size_t fixed = sizeof(MANIFEST_PREFIX) - 1 + sizeof(MANIFEST_MID) - 1 +
				    SHA256_HEX_LEN;
	size_t alloc = 0, pos = 0, line = 0;
	int ret = -1;

	*err = NULL;
	m->e = NULL;
	m->n = 0;
	while (pos < len) {
		const char *s = text + pos, *nl, *name, *hex;
		size_t scan = len - pos, llen, nlen;
		struct manifest_entry *e;
		const char *why;
		char *nm;

		line++;
		if (m->n >= max_entries) {
			*err = xasprintf("%s: more than %zu entries", EVIDENCE_MANIFEST_FILE, max_entries);
			goto out;
		}
		if (scan > MANIFEST_LINE_MAX + 1)
			scan = MANIFEST_LINE_MAX + 1;
		nl = memchr(s, '\n', scan);
		if (!nl) {
			if (len - pos > MANIFEST_LINE_MAX)
				*err = xasprintf("%s:%zu: line longer than %d bytes", EVIDENCE_MANIFEST_FILE,
						 line, MANIFEST_LINE_MAX);
			else
				*err = xasprintf("%s:%zu: missing newline at the end", EVIDENCE_MANIFEST_FILE,
						 line);
			goto out;
		}
		llen = (size_t)(nl - s);
		pos += llen + 1;
		if ((why = bad_line_why(s, llen))) {
			*err = xasprintf("%s:%zu: %s; expected 'SHA256 (name) = <64 lowercase hex "
					 "digits>'", EVIDENCE_MANIFEST_FILE, line, why);
			goto out;
		}
		if (llen <= fixed || memcmp(s, MANIFEST_PREFIX, sizeof(MANIFEST_PREFIX) - 1) ||
		    memcmp(s + llen - SHA256_HEX_LEN - (sizeof(MANIFEST_MID) - 1), MANIFEST_MID,
			   sizeof(MANIFEST_MID) - 1))
			goto bad_line;
		name = s + sizeof(MANIFEST_PREFIX) - 1;
		nlen = llen - fixed;
		hex = s + llen - SHA256_HEX_LEN;
		if (memchr(name, '\0', nlen))
			goto bad_line;
		for (size_t i = 0; i < SHA256_HEX_LEN; i++)
			if (hexval(hex[i]) < 0)
				goto bad_line;
		nm = xstrndup(name, nlen);
		why = evname_problem(nm);
		if (!why && is_seal_file(nm))
			why = "the manifest cannot list itself or its signature";
		if (why || (m->n && strcmp(m->e[m->n - 1].name, nm) >= 0)) {
			char *shown = evname_printable(nm, nlen);
			if (why)
				*err = xasprintf("%s:%zu: unsafe name '%s': %s", EVIDENCE_MANIFEST_FILE, line,
						 shown, why);
			else
				*err = xasprintf("%s:%zu: '%s' is %s (names must be byte-sorted "
						 "and unique)",
						 EVIDENCE_MANIFEST_FILE, line, shown,
						 strcmp(m->e[m->n - 1].name, nm) ? "out of order"
										 : "listed twice");
			free(shown);
			free(nm);
			goto out;
		}
		ALLOC_GROW(m->e, m->n + 1, alloc);
		e = &m->e[m->n++];
		memset(e, 0, sizeof(*e));
		e->name = nm;
		for (size_t i = 0; i < SHA256_LEN; i++)
			e->digest[i] = (unsigned char)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
	}
	ret = 0;
	goto out;
bad_line:
	*err = xasprintf("%s:%zu: expected 'SHA256 (name) = <64 hex digits>'", EVIDENCE_MANIFEST_FILE, line);
out:
	if (ret < 0)
		manifest_release(m);
	return ret;
}
