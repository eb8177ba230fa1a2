/*
 * metric_def: the names of the metric enums as plans write them, the
 * table of process fields, and the release of extracted values
 * (metric_def.h).
 */
#include "record/metric_def.h"

#include <stdlib.h>
#include <string.h>

#include "util/compiler.h"

static const char *const source_names[] = {
	[METRIC_PROCESS] = "process",
	[METRIC_STDOUT] = "stdout",
	[METRIC_STDERR] = "stderr",
	[METRIC_RESULTS] = "results",
	[METRIC_DURATION] = "duration",
	[METRIC_DOTNET] = "dotnet",
};

_Static_assert(ARRAY_SIZE(source_names) == METRIC_SOURCE_COUNT, "source_names");

static const char *const match_names[] = {
	[MATCH_FIRST] = "first",
	[MATCH_LAST] = "last",
	[MATCH_SUM] = "sum",
	[MATCH_MEAN] = "mean",
};

const char *metric_def_source_name(enum metric_source s)
{
	if ((size_t)s < ARRAY_SIZE(source_names))
		return source_names[s];
	return "unknown";
}

const char *metric_def_match_name(enum metric_match m)
{
	if ((size_t)m < ARRAY_SIZE(match_names))
		return match_names[m];
	return "unknown";
}

static const struct {
	const char *name;
	const char *unit;
} process_fields[] = {
	[METRIC_FIELD_WALL] = { "wall", "ms" },
	[METRIC_FIELD_USER] = { "user", "ms" },
	[METRIC_FIELD_SYS] = { "sys", "ms" },
	[METRIC_FIELD_CPU] = { "cpu", "ms" },
	[METRIC_FIELD_MAX_RSS] = { "max_rss", "bytes" },
	[METRIC_FIELD_MINFLT] = { "minflt", "count" },
	[METRIC_FIELD_MAJFLT] = { "majflt", "count" },
	[METRIC_FIELD_NVCSW] = { "nvcsw", "count" },
	[METRIC_FIELD_NIVCSW] = { "nivcsw", "count" },
};

/* The enum in metric_def.h and the table go together. */
_Static_assert(ARRAY_SIZE(process_fields) == METRIC_PROCESS_FIELDS, "process_fields");

int metric_def_field_index(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(process_fields); i++)
		if (!strcmp(name, process_fields[i].name))
			return (int)i;
	return -1;
}

const char *metric_def_field_name(size_t i)
{
	return i < ARRAY_SIZE(process_fields) ? process_fields[i].name : NULL;
}

const char *metric_def_field_unit(size_t i)
{
	return i < ARRAY_SIZE(process_fields) ? process_fields[i].unit : NULL;
}

void metric_def_values_free(struct metric_value *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].unit);
		free(v[i].why);
	}
	free(v);
}
