/*
 * export: an evidence directory's figures in the formats other tools
 * read — the files hyperfine's --export-json, --export-csv and
 * --export-markdown write, one entry or row per command (so that its
 * scripts read abev evidence unchanged), CSV with one row per invocation
 * and metric, JUnit XML
 * with one testcase per gate (for CI dashboards), and the comparison as
 * JSON. It renders what evidence_read and compare give it; it reads no
 * file and computes no statistic of its own (hyperfine's mean and
 * standard deviation are the comparison's).
 */
#ifndef ABEV_EXPORT_H
#define ABEV_EXPORT_H

#include "decide/compare.h"
#include "evidence/evidence_read.h"

enum export_format {
	EXPORT_HYPERFINE, EXPORT_HYPERFINE_CSV, EXPORT_HYPERFINE_MARKDOWN, EXPORT_CSV,
	EXPORT_JUNIT, EXPORT_JSON
};

/* The names export_format_parse() takes, for messages and help. */
#define EXPORT_FORMAT_LIST "hyperfine, hyperfine-csv, hyperfine-markdown, csv, junit or json"

/* "hyperfine", "hyperfine-csv", ... -> *out; -1 for anything else. */
int export_format_parse(const char *name, enum export_format *out);

/*
 * The document (caller frees): deterministic bytes for the same evidence.
 * env (borrowed, may be NULL) gives each variant's scan parameters.
 */
char *export_render(enum export_format f, const struct evidence_run *r,
		    const struct comparison *c, const struct run_environment *env);

#endif
