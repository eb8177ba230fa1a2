/*
 * outpath: the paths a command is told to create (--out, --bundle,
 * --save-plan, a key prefix), checked before anything is written: a
 * trailing '/' or '/.' taken off, no path inside sealed evidence (which is never
 * rewritten), two options not naming one file, and the default evidence
 * directory of abev bench made under a name nobody else took. It writes
 * none of the files itself; the exit code stays the command's.
 */
#ifndef ABEV_OUTPATH_H
#define ABEV_OUTPATH_H

/*
 * path without trailing slashes and "/." ("ev/" and "ev/./." -> "ev"; "/"
 * and "." stay). Caller frees.
 */
char *outpath_clean(const char *path);

/* Non-zero when path (cleaned) ends in "..": a directory that exists, never a new one. */
int outpath_is_dotdot(const char *path);

/*
 * Refuses path (of option opt, for the message) when a directory above it
 * holds abev evidence — a result.json whose schema is abev.run/...: a file
 * written there would change evidence that is, or will be, sealed.
 * 0, or -1 after error() naming the evidence directory.
 */
int outpath_check_evidence(const char *opt, const char *path);

/*
 * Refuses path (of option opt) as a file abev is to create later, so
 * that a mistake is found before anything runs rather than after: one
 * that exists (abev never replaces a file), one whose directory does not
 * exist, is no directory or cannot be written into, and one inside
 * evidence (outpath_check_evidence()). 0, or -1 after error().
 */
int outpath_check_new_file(const char *opt, const char *path);

/*
 * Non-zero when path lies inside directory dir (neither need exist),
 * compared as absolute paths with "." and ".." taken lexically: an
 * export written into the evidence directory about to be made would be
 * a file its manifest does not list.
 */
int outpath_inside(const char *path, const char *dir);

/* Non-zero when a and b (which need not exist) name the same file. */
int outpath_same(const char *a, const char *b);

/*
 * Makes the directory base, or when that name is taken base-2, base-3,
 * ... (each attempt one mkdir(), so that two abev runs started at once
 * never get the same one), and its missing parents. The path made
 * (caller frees), or NULL after error().
 */
char *outpath_make_unique(const char *base);

#endif
