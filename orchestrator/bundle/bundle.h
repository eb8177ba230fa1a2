/*
 * bundle: evidence as one archive. Packing is deterministic — entries in
 * byte-sorted path order, built with archive_entry_new() (never read from
 * disk), regular files 0644 and directories 0755, a fixed mtime, uid/gid 0,
 * fixed owner names, pax_restricted, no gzip timestamp — so the same
 * evidence gives the same bytes on any machine. Reading accepts only the
 * tar format with the zstd or gzip filter, only regular files and
 * directories with safe relative names, within caps on entry count and
 * sizes, and hands each entry to a callback as it streams.
 */
#ifndef ABEV_BUNDLE_H
#define ABEV_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

/* The files of EVIDENCE_MAX_FILES and a directory for each, at most. */
#define BUNDLE_MAX_ENTRIES 2000000
#define BUNDLE_MAX_ENTRY_BYTES (4ull << 30)
#define BUNDLE_MAX_TOTAL_BYTES (16ull << 30)

/*
 * Packs the directory dir into out (".tar.zst" or ".tar.gz", told from
 * the name; out must not exist). Symlinks and special files in dir are
 * refused. 0 or -1 after error().
 */
int bundle_pack(const char *dir, const char *out);
/* Lowers the most entries packed or read (0: BUNDLE_MAX_ENTRIES again), for tests of the cap. */
void bundle_set_max_entries(size_t n);
/*
 * bundle_pack() that stops, removing what it wrote, as soon as stop()
 * (NULL: never) returns non-zero — for a caller whose signal handler
 * records an interruption (proc_interrupted()). The temporary file beside
 * out is removed on every way out that runs code; one left by a pack that
 * was killed outright (its name holds the pid) is removed by the next pack
 * to the same out once that pid is gone. 0 or -1 after error().
 */
int bundle_pack_until(const char *dir, const char *out, int (*stop)(void));
/*
 * What bundle_pack() checks of out before it packs anything: the name's
 * extension, that it does not exist, that its directory is writable.
 * For checking options before a run. 0 or -1 after error().
 */
int bundle_check_target(const char *out);

/* Non-zero when path names a file that looks like a bundle (by its first bytes). */
int bundle_is_bundle(const char *path);
/*
 * Non-zero when path's name says it is meant as a bundle: it ends in
 * .tar.zst, .tar.gz, .tgz or .tar. Whether it is a good one, bundle_read() tells.
 */
int bundle_named_like(const char *path);

enum bundle_entry_type { BUNDLE_FILE, BUNDLE_DIR, BUNDLE_OTHER };

struct bundle_entry {
	const char *name;          /* normalised: no leading "./", no trailing '/' */
	enum bundle_entry_type type;
	const char *other;         /* for BUNDLE_OTHER: "symlink", "hardlink", "device", ... */
	const char *unsafe_mode;   /* "unsafe mode 4755 (setuid)" and the like, or NULL */
	const char *unsafe_meta;   /* "carries an extended attribute 'security.capability'"
				    * (ACLs, file flags), or NULL */
	uint64_t size;
	int is_root;               /* the "./" or "." entry: the bundle itself; handed on
				    * (named ".") only when its mode or metadata is unsafe */
};

/*
 * Streams the bundle at path. For each entry calls entry(ctx, e); for a
 * BUNDLE_FILE then data(ctx, buf, len) for its content in order, then
 * data(ctx, NULL, 0) at its end. An entry with an unsafe name (absolute,
 * "..", control characters) is reported with type BUNDLE_OTHER and other
 * "unsafe name" rather than skipped, so that the caller names it. An
 * entry whose mode would be dangerous to extract as root (setuid, setgid,
 * sticky, world-writable) carries unsafe_mode; one that carries extended
 * attributes, ACLs or file flags, which extracting it as root would apply,
 * carries unsafe_meta. A leading "./" (stock tar's `tar -C DIR -czf FILE
 * .`) is taken off every name, and the root entry itself is not handed on
 * unless its mode or metadata is unsafe. Nothing after
 * the archive is accepted: not a second zstd frame or gzip member, not a
 * skippable frame, not data after the tar's end-of-archive marker other
 * than zero padding, nor a gzip header comment or extra field. A gzip
 * member's CRC-32 and size must match its content, as zstd's checksum
 * must when the frame has one. Returns 0, or -1 with
 * *err (caller frees) saying why: an empty file, not a zstd or gzip
 * stream, truncated or corrupt, over a cap.
 */
int bundle_read(const char *path, void (*entry)(void *ctx, const struct bundle_entry *e),
		void (*data)(void *ctx, const void *buf, size_t len), void *ctx, char **err);

#endif
