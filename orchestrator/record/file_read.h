/*
 * file_read: a run's file as abev read it for its figures — the SHA-256
 * and size of the bytes read, hashed in that very read — so that the
 * ledger can hold the file to those bytes (evidence/ledger.h:
 * ledger_parsed()) and the figures and the sealed bytes are one input.
 * Plain data.
 */
#ifndef ABEV_FILE_READ_H
#define ABEV_FILE_READ_H

#include <stdint.h>

#include "util/hash.h"

struct file_read {
	int hashed;                       /* 0: not read, or not read whole */
	uint64_t bytes;
	unsigned char sha256[SHA256_LEN];
};

/* The longest name of a file_read_named. */
#define FILE_READ_NAME_MAX 63

/* A file of a run directory, by its name there, as read for its figures. */
struct file_read_named {
	char name[FILE_READ_NAME_MAX + 1];
	struct file_read read;
};

#endif
