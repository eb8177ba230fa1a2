/*
 * dirat: a directory abev opened itself, and the files beneath it reached
 * through its descriptor, never through a symbolic link. The evidence
 * directory and every run directory in it are opened once, when abev
 * creates them; a program under test that later replaces one of them (or
 * anything below) by a link to elsewhere cannot make abev read, write,
 * rename or remove anything outside: every name is resolved component by
 * component beneath the descriptor, with no link followed and no "..".
 * It does not decide what a changed directory means; the caller does.
 */
#ifndef ABEV_DIRAT_H
#define ABEV_DIRAT_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct strbuf;

struct dirat {
	int fd;      /* O_DIRECTORY, close-on-exec; -1 when closed */
	char *path;  /* how messages name it (not used to reach it); owned */
};
#define DIRAT_INIT { -1, NULL }
/* Closes the descriptor and frees the path; safe on DIRAT_INIT and twice. */
void dirat_release(struct dirat *d);

/*
 * Creates the directory path (which must not exist; its parents are
 * created as needed) with mode 0755 and opens it without following a
 * link at its last component. 0, or -1 after error() with errno kept
 * (EEXIST: it exists already).
 */
int dirat_create(struct dirat *d, const char *path);
/* Opens an existing directory path (a link at its last component is refused). 0 or -1, errno set, silent. */
int dirat_open_path(struct dirat *d, const char *path);

/*
 * Opens rel, a '/'-separated name beneath d ("" or "." is d itself),
 * with flags (O_CLOEXEC, O_NOCTTY and O_NOFOLLOW are added; no component
 * may be a symbolic link or ".."). Returns the descriptor, or -1 with
 * errno (ELOOP or ENOTDIR for a link on the way, EXDEV for ".."); silent.
 * Uses openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the kernel
 * has it, else opens one component at a time.
 */
int dirat_openat(const struct dirat *d, const char *rel, int flags, mode_t mode);
/* Whether dirat_openat() tries openat2() first (the default); tests turn it off to check the fallback. */
void dirat_use_openat2(int on);
/* The directory rel beneath d as a dirat of its own (path joined for messages). 0 or -1, errno set, silent. */
int dirat_sub(const struct dirat *d, const char *rel, struct dirat *out);
/*
 * Creates the directories of rel beneath d that do not exist (mode 0755)
 * and opens the last as *out. An existing component must be a directory,
 * not a link. 0, or -1 after error() naming the directory, errno kept.
 */
int dirat_mkdirs(const struct dirat *d, const char *rel, struct dirat *out);
/*
 * The parent directory of rel beneath d, opened; *base points at rel's
 * last component. -1 with errno; silent.
 */
int dirat_parent(const struct dirat *d, const char *rel, const char **base);
/* lstat() of rel beneath d. 0 or -1 with errno; silent. */
int dirat_lstat(const struct dirat *d, const char *rel, struct stat *st);
/* Removes the file (or, with AT_REMOVEDIR, the empty directory) rel beneath d. 0 or -1 with errno; silent. */
int dirat_unlink(const struct dirat *d, const char *rel, int flags);
/* Renames from to to, both beneath d. 0 or -1 with errno; silent. */
int dirat_rename(const struct dirat *d, const char *from, const char *to);

/*
 * write_file_atomic() beneath d: a temporary file beside rel, written,
 * then renamed over it. 0, or -1 after error() naming the file, errno
 * kept (ENOSPC, EFBIG, ELOOP, ...).
 */
int dirat_write_atomic(const struct dirat *d, const char *rel, const void *data, size_t len);
/*
 * read_small() of rel beneath d: a regular file only (opened non-blocking),
 * at most max bytes appended to sb. 0, or -1 after error() naming it.
 */
int dirat_read(const struct dirat *d, const char *rel, struct strbuf *sb, size_t max);
/* syncfs() of the file system that holds d. 0 or -1 after error(). */
int dirat_sync(const struct dirat *d);
/*
 * Whether the path d was opened as still names the directory open as d
 * (the same device and inode, reached with no link at its last
 * component). 1 yes, 0 no (errno says why when it is gone), -1 on error.
 */
int dirat_still_at(const struct dirat *d, const char *path);

#endif
