/*
 * fuzz_bundle: the bundle reader. Each input is written as a .tar.gz
 * file (the reader tells gzip from zstd by the bytes, not the name) and
 * streamed with bundle_read(), whose callbacks read every name and byte
 * they are handed; then verify_path_self() checks it without a key, as
 * `abev verify` does, which reads the manifest and signature out of the
 * stream. Nothing is extracted.
 */
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "fuzz_common.h"
#include "seal/verify.h"

struct sink {
	size_t entries;
	uint64_t bytes;
	int in_file;
};

static void on_entry(void *ctx, const struct bundle_entry *e)
{
	struct sink *s = ctx;

	/* A file's data ends with data(NULL, 0) before the next entry. */
	if (s->in_file)
		abort();
	s->entries++;
	s->bytes += strlen(e->name);
	if (e->type == BUNDLE_OTHER)
		s->bytes += strlen(e->other);
	s->in_file = e->type == BUNDLE_FILE;
}

static void on_data(void *ctx, const void *buf, size_t len)
{
	struct sink *s = ctx;
	const unsigned char *p = buf;

	if (!s->in_file)
		abort();
	if (!buf) {
		s->in_file = 0;
		return;
	}
	for (size_t i = 0; i < len; i++)
		s->bytes += p[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink s = { 0, 0, 0 };
	struct verify_result r;
	char *err = NULL, *path;

	fuzz_quiet();
	path = fuzz_write("evidence.tar.gz", data, size);
	if (bundle_read(path, on_entry, on_data, &s, &err) == 0 && s.in_file)
		abort();
	free(err);
	if (verify_path_self(path, NULL, &r) == 0) {
		for (size_t i = 0; i < r.nproblems; i++)
			s.bytes += strlen(r.problems[i].file) + strlen(r.problems[i].reason);
		verify_result_release(&r);
	}
	free(path);
	return 0;
}
