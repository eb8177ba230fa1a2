/*
 * results_file: release, format names and sums of counts (results_file.h).
 */
#include "record/results_file.h"

#include <stdlib.h>
#include <string.h>

void results_file_release(struct results_file *f)
{
	if (!f)
		return;
	free(f->path);
	free(f->outcome);
	free(f->aborted);
	free(f->start);
	free(f->finish);
	for (size_t i = 0; i < f->nnotes; i++)
		free(f->notes[i]);
	free(f->notes);
	memset(f, 0, sizeof(*f));
}

const char *results_file_format_name(enum results_format f)
{
	switch (f) {
	case RESULTS_TRX: return "trx";
	case RESULTS_JUNIT: return "junit";
	}
	return "unknown";
}

void results_file_counts_add(struct results_counts *sum, const struct results_counts *c)
{
	sum->total += c->total;
	sum->executed += c->executed;
	sum->passed += c->passed;
	sum->failed += c->failed;
	sum->errors += c->errors;
	sum->skipped += c->skipped;
	sum->other += c->other;
}
