/*
 * versions_side: the versions each variant recorded (metadata.json's
 * "versions", e.g. `dotnet --version`, the runtimes, the packages a test
 * project restored), laid side by side as rows of one table, so that a
 * reviewer sees at once what changed between baseline and candidate. A
 * command that printed one "NAME VERSION" per line, each name once (a
 * package list, `dotnet --list-runtimes` with one version of each), gives
 * one row per name; any other output is one row, its lines joined. It
 * reads the parsed metadata only; report.c renders the rows.
 */
#ifndef ABEV_VERSIONS_SIDE_H
#define ABEV_VERSIONS_SIDE_H

#include <stddef.h>

struct env_variant;

#define VERSIONS_SIDE_ROWS_MAX 256  /* rows shown; the rest are counted */

struct version_row {
	char *key;          /* "dotnet", or "packages: YamlDotNet" */
	char **cells;       /* one per variant: its text, "not recorded" where absent */
	int differs;        /* some cell is not the first variant's */
};

struct version_rows {
	struct version_row *rows;
	size_t n, alloc, ncells;
	size_t left_out;    /* rows over VERSIONS_SIDE_ROWS_MAX */
};
#define VERSION_ROWS_INIT { 0 }

/* Fills out (VERSION_ROWS_INIT) from the nv variants' versions, in the order first recorded. */
void versions_side(struct version_rows *out, const struct env_variant *v, size_t nv);
void versions_side_rows_release(struct version_rows *r);

#endif
