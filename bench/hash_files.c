/*
 * bench-hash: hashes the files named on its command line with abev's own
 * sha256_files() (orchestrator/util/hash.c: one thread per online core, biggest
 * files first), the code behind metadata.json's assembly hashes, the
 * manifest SHA256 and abev verify, and prints one "DIGEST  PATH" line each,
 * as sha256sum does, so that the bench can check the digests against
 * sha256sum's before it trusts the timing. Built by `make bench` only;
 * never part of abev or of make check.
 *
 *   bench-hash [--threads N] FILE...     (N 0: one per online core, the default)
 * Exit 0, or 1 when a file could not be hashed (its error on stderr), 2 on usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/alloc.h"

int main(int argc, char **argv)
{
	unsigned threads = 0;
	int first = 1;
	size_t failed;
	struct hash_job *jobs;

	if (argc > 2 && !strcmp(argv[1], "--threads")) {
		char *end;
		unsigned long t = strtoul(argv[2], &end, 10);
		if (*end || end == argv[2] || t > 1024) {
			fprintf(stderr, "bench-hash: --threads takes 0 to 1024\n");
			return 2;
		}
		threads = (unsigned)t;
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: bench-hash [--threads N] FILE...\n");
		return 2;
	}
	jobs = xcalloc((size_t)(argc - first), sizeof(*jobs));
	for (int i = first; i < argc; i++)
		jobs[i - first].path = argv[i];
	failed = sha256_files(jobs, (size_t)(argc - first), threads);
	for (int i = 0; i < argc - first; i++) {
		char hex[SHA256_HEX_LEN + 1];
		if (jobs[i].err) {
			fprintf(stderr, "bench-hash: %s\n", jobs[i].err);
			free(jobs[i].err);
			continue;
		}
		sha256_hex(jobs[i].digest, hex);
		printf("%s  %s\n", hex, jobs[i].path);
	}
	free(jobs);
	return failed ? 1 : 0;
}
