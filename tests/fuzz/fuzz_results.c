/*
 * fuzz_results: the TRX/JUnit reader. Each input is written to a file and
 * read with results_parse() under small limits (so that the caps on
 * depth, names and captured stdout are reached by short inputs); the
 * callback reads every byte of each test case it is handed, so that ASan
 * checks the borrowed strings are whole.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "results/results.h"

struct sink {
	size_t cases;
	size_t bytes;
};

static int on_test(void *ctx, const struct test_case *tc)
{
	struct sink *s = ctx;

	s->cases++;
	s->bytes += strlen(tc->name);
	if (tc->outcome_raw)
		s->bytes += strlen(tc->outcome_raw);
	if (tc->parent)
		s->bytes += strlen(tc->parent);
	for (size_t i = 0; i < tc->stdout_len; i++)
		s->bytes += (unsigned char)tc->stdout_text[i];
	(void)results_outcome_name(tc->outcome);
	return 0;
}

static void read_with(const char *path, const struct results_limits *lim)
{
	struct results_file f = RESULTS_FILE_INIT;
	struct sink s = { 0, 0 };
	char *err = NULL;

	if (results_parse(path, lim, on_test, &s, &f, &err) == 0) {
		for (size_t i = 0; i < f.nnotes; i++)
			s.bytes += strlen(f.notes[i]);
		(void)results_file_format_name(f.format);
		results_file_release(&f);
	} else {
		free(err);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct results_limits def = RESULTS_LIMITS_DEFAULT;
	static const struct results_limits tight = { 1 << 20, 16, 8, 12, 0 };
	char *path;

	fuzz_quiet();
	path = fuzz_write("results.xml", data, size);
	read_with(path, &def);
	read_with(path, &tight);
	free(path);
	return 0;
}
