/*
 * writefile: writing that finishes or says why not — all of a buffer to
 * a descriptor, a bounded copy between descriptors, a new file created
 * exclusively and synced, and flushing a file system to disk. A file
 * replaced whole, readers never seeing it half-written, is atomic_file.h's;
 * reading is readfile.h's.
 */
#ifndef ABEV_WRITEFILE_H
#define ABEV_WRITEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Writes all of len bytes to fd, retrying on EINTR. 0 or -1 (errno set). */
int write_all(int fd, const void *data, size_t len);
/* What copy_fd() did; on COPY_READ and COPY_WRITE errno says why. */
enum copy_result { COPY_OK, COPY_READ, COPY_WRITE, COPY_TOO_BIG, COPY_STOPPED };
/*
 * Copies what is left to read of in to out, at most max bytes (one more
 * is COPY_TOO_BIG), retrying on EINTR. Closes neither descriptor.
 */
enum copy_result copy_fd(int in, int out, uint64_t max);
/*
 * Copies all of the regular file in (size bytes, its st_size) to the
 * empty file out, holes kept: only the data SEEK_DATA finds is read and
 * written (pread/pwrite), and out is then cut to size, so that a sparse
 * file of a terabyte takes the blocks it has, not a terabyte. Where the
 * file system has no SEEK_DATA the whole file is data. Before each chunk
 * stop(arg) is asked (NULL: never): non-zero stops the copy with
 * COPY_STOPPED. COPY_READ and COPY_WRITE set errno.
 */
enum copy_result copy_file_sparse(int in, int out, uint64_t size, int (*stop)(void *arg),
				  void *arg);
/*
 * Creates path, which must not exist (O_EXCL, no symlink followed), with
 * mode, writes data and syncs it. 0, or -1 after an error naming the
 * file (also when it exists); a half-written file is removed.
 */
int write_file_new(const char *path, mode_t mode, const void *data, size_t len);

#endif
