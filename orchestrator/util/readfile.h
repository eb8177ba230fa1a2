/*
 * readfile: reading with a ceiling — the one reader of small files
 * (read_small()), its message-making forms, the head of a /proc or /sys
 * file, and a descriptor read to its end. Every reader takes a maximum.
 * Files reached beneath a directory descriptor with no link followed are
 * dirat.h's; writing is writefile.h's and atomic_file.h's.
 */
#ifndef ABEV_READFILE_H
#define ABEV_READFILE_H

#include <stddef.h>
#include <sys/types.h>

struct strbuf;

/*
 * read_small(): the one reader of small files, silent. Appends the whole
 * file at path, at most max bytes, to sb; on failure sb keeps what it had
 * before, errno says why and the result says at which step:
 * READ_SMALL_OPEN, _STAT, _TYPE (a directory; with READ_REGULAR anything
 * but a regular file), _READ, or _TOO_BIG (more than max bytes: errno
 * EFBIG). Flags: READ_REGULAR opens with O_NONBLOCK, so that a FIFO
 * planted under a known name (/proc, /sys, a run directory) cannot hang
 * abev, and refuses what is not a regular file; READ_NOFOLLOW does not
 * follow a symbolic link at path.
 */
#define READ_REGULAR 1u
#define READ_NOFOLLOW 2u
enum read_small_result {
	READ_SMALL_OK = 0,
	READ_SMALL_OPEN = -1,
	READ_SMALL_STAT = -2,
	READ_SMALL_TYPE = -3,
	READ_SMALL_READ = -4,
	READ_SMALL_TOO_BIG = -5,
};
enum read_small_result read_small(struct strbuf *sb, const char *path, size_t max,
				  unsigned flags);
/*
 * Why read_small() failed with r, errno err and limit max, to end "cannot
 * read 'F': ...": "it is a directory", "it is not a regular file (a FIFO,
 * a device, ...)", "it is larger than the limit of N bytes", or
 * strerror(err). Caller frees.
 */
char *read_small_why(enum read_small_result r, int err, size_t max);
/*
 * The head of a /proc or /sys file into a fixed buffer: at most cap-1
 * bytes, NUL-terminated (the file may hold NULs itself: the length says
 * where it ends). Such files are generated on read, so one read() may
 * return less than there is: it reads until EOF or the buffer is full.
 * The length read, or -1 with errno; silent.
 */
ssize_t read_head(const char *path, char *buf, size_t cap);
/*
 * read_head() of the file open at fd, from its start whatever its offset
 * (pread()): a /proc or /sys file kept open is rendered afresh by a read
 * at 0.
 */
ssize_t read_head_at(int fd, char *buf, size_t cap);
/*
 * read_small() (no flags) with an error naming the file: refuses files
 * larger than max bytes and directories. Returns 0 or -1.
 */
int read_file_capped(struct strbuf *sb, const char *path, size_t max);
/*
 * Appends everything fd holds to sb, retrying on EINTR. More than max
 * bytes (counted from the call) is an error with errno EFBIG; sb then
 * keeps what it had before. 0, or -1 with errno set; prints nothing.
 */
int read_fd_capped(struct strbuf *sb, int fd, size_t max);

#endif
