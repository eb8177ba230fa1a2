/*
 * inspect: `abev results` and `abev guard min-executed`. Every file is
 * read even when an earlier one is refused, so that one bad file does not
 * hide the counts of the others; a refused file still makes the verb fail.
 * A file named twice (the same path, or another name for the same device
 * and inode) is counted once, with a warning. The paths are the user's
 * own choice, so a link or a FIFO (`<(...)`) is read as cat(1) would; the
 * stricter opening of files a run left is judge.c's.
 */
#include "cli/inspect.h"

#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/evidence.h"
#include "guards/guard.h"
#include "results/results.h"
#include "util/alloc.h"
#include "util/escape.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* The file column is as wide as the longest name, within reason. */
#define NAME_COL_MIN 5
#define NAME_COL_MAX 80

/* name is a path from the command line: escaped, like every name abev prints. */
static void print_row(int width, const char *name, const char *format,
		      const struct results_counts *c)
{
	char *shown = xstrdup_escaped(name);

	printf("%-*s  %-6s %8lld %8lld %8lld %8lld %8lld %8lld %8lld\n", width, shown, format,
	       (long long)c->total, (long long)c->executed, (long long)c->passed,
	       (long long)c->failed, (long long)c->errors, (long long)c->skipped,
	       (long long)c->other);
	free(shown);
}

/*
 * --list: one line per leaf test as read, "[FILE<TAB>]NAME<TAB>OUTCOME<TAB>
 * DURATION", the name exactly as a metric's test glob is matched against
 * it, escaped by strbuf_add_escaped() (a tab would break the columns, a
 * newline the lines): \\, \t, \n, \r, \xNN.
 */
struct list_ctx {
	const char *file;      /* NULL: one file, no file column */
};

static void put_listed(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_escaped(&sb, s, strlen(s));
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

static int list_test(void *arg, const struct test_case *tc)
{
	const struct list_ctx *l = arg;

	if (l->file) {
		put_listed(l->file);
		putchar('\t');
	}
	put_listed(tc->name ? tc->name : "");
	printf("\t%s\t", results_outcome_name(tc->outcome));
	if (tc->duration_s >= 0)
		printf("%.3f ms\n", tc->duration_s * 1e3);
	else
		fputs("-\n", stdout);
	return 0;
}

static const char *total_format(const struct results_file *files, size_t n)
{
	if (!n)
		return "none";
	for (size_t i = 1; i < n; i++)
		if (files[i].format != files[0].format)
			return "mixed";
	return results_file_format_name(files[0].format);
}

enum inspect_outcome inspect_results(const char *const *paths, int npaths,
				     const struct inspect_options *opt)
{
	const struct results_limits limits = RESULTS_LIMITS_DEFAULT;
	struct results_file *files = xcalloc((size_t)npaths, sizeof(*files));
	struct stat *ids = xcalloc((size_t)npaths, sizeof(*ids));
	unsigned char *has_id = xcalloc((size_t)npaths, 1);
	struct results_counts total = { 0 };
	struct guard_result guard = { 0 };
	size_t nfiles = 0, refused = 0;
	enum inspect_outcome outcome = INSPECT_OK;
	struct list_ctx list = { NULL };

	for (int i = 0; i < npaths; i++) {
		char *err = NULL;
		int dup = -1;
		/* stat() does not open: a FIFO named twice is not waited for twice. */
		if (stat(paths[i], &ids[i]) == 0) {
			has_id[i] = 1;
			for (int k = 0; k < i && dup < 0; k++)
				if (has_id[k] && ids[k].st_dev == ids[i].st_dev &&
				    ids[k].st_ino == ids[i].st_ino)
					dup = k;
		}
		if (dup >= 0) {
			warning("'%s' is the same file as '%s': counted once", paths[i], paths[dup]);
			continue;
		}
		list.file = npaths > 1 ? paths[i] : NULL;
		if (results_parse(paths[i], &limits, opt->list ? list_test : NULL, &list,
				  &files[nfiles], &err) < 0) {
			error("%s", err);
			free(err);
			refused++;
			continue;
		}
		results_file_counts_add(&total, &files[nfiles].counts);
		nfiles++;
	}
	if (opt->min_executed >= 0) {
		const char *aborted = NULL;
		for (size_t i = 0; i < nfiles && !aborted; i++)
			aborted = files[i].aborted;
		guard_min_executed(total.executed, total.total, opt->min_executed,
				   nfiles + refused, refused, npaths == 1 ? paths[0] : "the files given",
				   aborted, &guard);
	}

	if (opt->json) {
		char *doc = evidence_results_document(files, nfiles, &total,
						      opt->min_executed >= 0 ? &guard : NULL);
		fputs(doc, stdout);
		free(doc);
	} else if (!opt->guard_only && !opt->list && (nfiles || !refused)) {
		/* Nothing read and something refused: the errors say it all, a row of zeros would not. */
		int width = NAME_COL_MIN;
		for (size_t i = 0; i < nfiles; i++) {
			size_t len = strlen(files[i].path);
			if (len > (size_t)width)
				width = len > NAME_COL_MAX ? NAME_COL_MAX : (int)len;
		}
		printf("%-*s  %-6s %8s %8s %8s %8s %8s %8s %8s\n", width, "file", "format", "total",
		       "executed", "passed", "failed", "errors", "skipped", "other");
		for (size_t i = 0; i < nfiles; i++)
			print_row(width, files[i].path, results_file_format_name(files[i].format),
				  &files[i].counts);
		print_row(width, "total", total_format(files, nfiles), &total);
		for (size_t i = 0; i < nfiles; i++)
			for (size_t k = 0; k < files[i].nnotes; k++) {
				char *shown = xstrdup_escaped(files[i].path);
				printf("note: %s: %s\n", shown, files[i].notes[k]);
				free(shown);
			}
		if (refused)
			printf("note: %zu of %zu files refused (their errors are on stderr): the "
			       "total counts only the files read\n", refused, nfiles + refused);
	}
	if (opt->min_executed >= 0 && !opt->json)
		printf("%s: %s: %s\n", guard_kind_name(guard.kind), guard_verdict_name(guard.verdict), guard.reason);

	if (refused)
		outcome = INSPECT_REFUSED;
	else if (opt->min_executed >= 0 && guard.verdict != GUARD_PASS)
		outcome = INSPECT_GUARD_FAILED;
	for (size_t i = 0; i < nfiles; i++)
		results_file_release(&files[i]);
	free(files);
	free(ids);
	free(has_id);
	guard_result_release(&guard);
	return outcome;
}
