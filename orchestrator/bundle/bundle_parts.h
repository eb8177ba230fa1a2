/*
 * bundle_parts: what the files of bundle/ share and nothing else sees.
 * bundle.c tells a bundle by its name and first bytes, holds the entry cap
 * and words libarchive's failures; pack.c writes a bundle, read.c streams
 * one back. Private to bundle/: other folders include bundle.h.
 */
#ifndef ABEV_BUNDLE_PARTS_H
#define ABEV_BUNDLE_PARTS_H

#include <stddef.h>

#include "bundle/bundle.h"

struct archive;

/* The most bytes of a file's content read or handed on at a time. */
#define CHUNK (64 * 1024)
/* Longer names than this are refused when packing and flagged when reading. */
#define MAX_NAME 4096

/* BUNDLE_MAX_ENTRIES, unless a test lowered it (bundle_set_max_entries()). */
extern size_t bundle_max_entries;

/*
 * What libarchive says went wrong with a, in buf or in libarchive's own
 * message (borrowed, valid until a's next call); fallback when it says
 * nothing.
 */
#define WHY_MAX 256
const char *bundle_archive_why(struct archive *a, const char *fallback, char buf[WHY_MAX]);
#define READ_WHY(a, buf) bundle_archive_why((a), "truncated or corrupt compressed stream", (buf))
#define WRITE_WHY(a, buf) bundle_archive_why((a), "write failed", (buf))

/* Non-zero when s ends in suffix and has more before it. */
int bundle_has_suffix(const char *s, const char *suffix);
/*
 * Why the regular file at path cannot be a bundle, judged from its size
 * and first bytes; NULL when it starts as a zstd or gzip stream does.
 * Caller frees.
 */
char *bundle_not_a_bundle(const char *path);

#endif
