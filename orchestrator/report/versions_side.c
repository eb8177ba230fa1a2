/*
 * versions_side: the variants' versions as rows. A version's output is
 * split into one row per line only when some variant printed two lines
 * or more and every variant's output splits the same way (at most
 * SPLIT_LINES_MAX lines, each "NAME REST", each NAME once, the command
 * exited 0): otherwise a row per NAME would hide
 * a line or pair two different things. Rows keep the order in which
 * names were first recorded, so the table reads like metadata.json.
 */
#include "report/versions_side.h"
#include <stdlib.h>
#include <string.h>
#include "evidence/evidence_read.h"
#include "util/alloc.h"
#include "util/strbuf.h"

#define NOT_RECORDED "not recorded"
#define SPLIT_LINES_MAX 256  /* a longer output stays one row */

/* One "NAME REST" line of an output: borrowed spans of it. */
struct item {
	const char *name, *rest;
	size_t name_len, rest_len;
};

/* The text of one recorded version as one cell: lines joined, the error or exit code after. */
static char *version_cell(const struct env_version *ver)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = ver->output ? ver->output : "";
	int any = 0;

	while (*p) {
		size_t len = strcspn(p, "\n"), n = len;

		if (n && p[n - 1] == '\r')
			n--;
		if (n) {
			strbuf_addf(&sb, "%s%.*s", any ? "; " : "", (int)n, p);
			any = 1;
		}
		p += len + (p[len] == '\n');
	}
	if (!any)
		strbuf_adds(&sb, "(no output)");
	if (ver->error)
		strbuf_addf(&sb, " (%s)", ver->error);
	else if (ver->exit_code > 0)
		strbuf_addf(&sb, " (exit %lld)", (long long)ver->exit_code);
	return strbuf_detach(&sb, NULL);
}

static const struct env_version *find_version(const struct env_variant *v, const char *name)
{
	for (size_t i = 0; i < v->nversions; i++)
		if (v->versions[i].name && !strcmp(v->versions[i].name, name))
			return &v->versions[i];
	return NULL;
}

/* line (len bytes, no newline) as "NAME REST" into it; 0 when it is not one. */
static int parse_item(const char *line, size_t len, struct item *it)
{
	size_t n = 0, k;

	while (n < len && line[n] != ' ' && line[n] != '\t')
		n++;
	for (k = n; k < len && (line[k] == ' ' || line[k] == '\t'); k++)
		;
	if (!n || k == len)
		return 0;
	*it = (struct item){ line, line + k, n, len - k };
	return 1;
}

/*
 * The non-blank lines of ver's output as items, into items[SPLIT_LINES_MAX].
 * Their count, or -1 when the output is not a list of distinct names.
 */
static int items_of(const struct env_version *ver, struct item *items)
{
	const char *p = ver->output;
	int n = 0;

	if (ver->error || ver->exit_code != 0 || !p)
		return -1;
	while (*p) {
		size_t len = strcspn(p, "\n"), m = len;

		if (m && p[m - 1] == '\r')
			m--;
		if (m) {
			if (n == SPLIT_LINES_MAX || !parse_item(p, m, &items[n]))
				return -1;
			for (int i = 0; i < n; i++)
				if (items[i].name_len == items[n].name_len &&
				    !memcmp(items[i].name, items[n].name, items[n].name_len))
					return -1;
			n++;
		}
		p += len + (p[len] == '\n');
	}
	return n;
}

static struct version_row *add_row(struct version_rows *out, char *key)
{
	struct version_row *r;

	if (out->n >= VERSIONS_SIDE_ROWS_MAX) {
		out->left_out++;
		free(key);
		return NULL;
	}
	ALLOC_GROW(out->rows, out->n + 1, out->alloc);
	r = &out->rows[out->n++];
	r->key = key;
	r->cells = xcalloc(out->ncells, sizeof(*r->cells));
	r->differs = 0;
	return r;
}

static void mark_differs(struct version_row *r, size_t ncells)
{
	for (size_t i = 1; i < ncells; i++)
		if (strcmp(r->cells[i], r->cells[0]))
			r->differs = 1;
}

static int have_row(const struct version_rows *out, size_t from, const char *key)
{
	for (size_t i = from; i < out->n; i++)
		if (!strcmp(out->rows[i].key, key))
			return 1;
	return 0;
}

static const struct item *find_item(const struct item *items, int n, const struct item *like)
{
	for (int i = 0; i < n; i++)
		if (items[i].name_len == like->name_len &&
		    !memcmp(items[i].name, like->name, like->name_len))
			return &items[i];
	return NULL;
}

/*
 * One row per NAME of version name, in the order the variants first
 * printed them; items[c] and counts[c] are variant c's (-2: not recorded).
 */
static void split_rows(struct version_rows *out, const char *name, struct item **items,
		       const int *counts, size_t nv)
{
	size_t from = out->n;

	for (size_t i = 0; i < nv; i++)
		for (int l = 0; l < counts[i]; l++) {
			const struct item *it = &items[i][l];
			char *key = xasprintf("%s: %.*s", name, (int)it->name_len, it->name);
			struct version_row *r;

			if (have_row(out, from, key)) {
				free(key);
				continue;
			}
			if (!(r = add_row(out, key)))
				continue;
			for (size_t c = 0; c < nv; c++) {
				const struct item *m = counts[c] < 0 ? NULL
								     : find_item(items[c], counts[c], it);

				r->cells[c] = m ? xstrndup(m->rest, m->rest_len)
						: xstrdup(counts[c] < 0 ? NOT_RECORDED : "not listed");
			}
			mark_differs(r, nv);
		}
}

static void whole_row(struct version_rows *out, const struct env_variant *v, size_t nv,
		      const char *name)
{
	struct version_row *r = add_row(out, xstrdup(name));

	if (!r)
		return;
	for (size_t c = 0; c < nv; c++) {
		const struct env_version *ver = find_version(&v[c], name);

		r->cells[c] = ver ? version_cell(ver) : xstrdup(NOT_RECORDED);
	}
	mark_differs(r, nv);
}

/* The rows of version name: split when every variant that recorded it printed a list. */
static void name_rows(struct version_rows *out, const struct env_variant *v, size_t nv,
		      const char *name)
{
	struct item **items = xcalloc(nv, sizeof(*items));
	int *counts = xcalloc(nv, sizeof(*counts)), most = 0, split = 1;

	for (size_t c = 0; c < nv && split; c++) {
		const struct env_version *ver = find_version(&v[c], name);

		counts[c] = -2;
		if (!ver)
			continue;
		items[c] = xcalloc(SPLIT_LINES_MAX, sizeof(**items));
		counts[c] = items_of(ver, items[c]);
		split = counts[c] >= 0;
		most = split && counts[c] > most ? counts[c] : most;
	}
	/* One line ("Python 3.11.2") reads better whole. */
	if (split && most > 1)
		split_rows(out, name, items, counts, nv);
	else
		whole_row(out, v, nv, name);
	for (size_t c = 0; c < nv; c++)
		free(items[c]);
	free(items);
	free(counts);
}

/* Was version name already laid out from an earlier variant? */
static int seen_before(const struct env_variant *v, size_t upto, const char *name)
{
	for (size_t i = 0; i < upto; i++)
		if (find_version(&v[i], name))
			return 1;
	return 0;
}

void versions_side(struct version_rows *out, const struct env_variant *v, size_t nv)
{
	out->ncells = nv;
	for (size_t i = 0; i < nv; i++)
		for (size_t k = 0; k < v[i].nversions; k++) {
			const char *name = v[i].versions[k].name;

			/* Each name once: its first variant, its first entry there. */
			if (name && !seen_before(v, i, name) &&
			    find_version(&v[i], name) == &v[i].versions[k])
				name_rows(out, v, nv, name);
		}
}

void versions_side_rows_release(struct version_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		for (size_t c = 0; c < r->ncells; c++)
			free(r->rows[i].cells[c]);
		free(r->rows[i].cells);
		free(r->rows[i].key);
	}
	free(r->rows);
	*r = (struct version_rows)VERSION_ROWS_INIT;
}
