/*
 * atomic_file: a file replaced whole — written beside its name under a
 * temporary one and renamed over it, so that a reader sees the old file
 * or the new, never half of one. Not synced to disk (dirat_sync() in
 * dirat.h does that once per run); names beneath a directory
 * descriptor are resolved by dirat.h.
 */
#ifndef ABEV_ATOMIC_FILE_H
#define ABEV_ATOMIC_FILE_H

#include <stddef.h>

struct dirat;

/*
 * Writes data to path atomically (temporary file in the same directory,
 * rename). Returns 0 or -1 with an error naming the file, errno telling
 * why (EFBIG, ENOSPC, ...).
 */
int write_file_atomic(const char *path, const void *data, size_t len);
/*
 * write_file_atomic() in pieces, for a file too large to build in memory
 * first: atomic_file_open_at() creates the temporary file beside rel
 * beneath d (dirat.h: no link followed on the way), atomic_file_write()
 * appends, atomic_file_commit() closes and renames it to rel; atomic_file_abort() (also after a failed write or commit, and
 * on a struct that was never opened) removes it. Each returns 0, or -1
 * with an error naming the file and errno telling why (ENOSPC, EFBIG, ...).
 */
struct atomic_file {
	char *path;         /* for messages */
	char *name, *tmp;   /* the file and its temporary, in dir */
	int dir;            /* AT_FDCWD, or a directory descriptor (owned) */
	int fd;
};
#define ATOMIC_FILE_INIT { NULL, NULL, NULL, -100 /* AT_FDCWD */, -1 }
int atomic_file_open_at(struct atomic_file *f, const struct dirat *d, const char *rel);
int atomic_file_write(struct atomic_file *f, const void *data, size_t len);
int atomic_file_commit(struct atomic_file *f);
void atomic_file_abort(struct atomic_file *f);

#endif
