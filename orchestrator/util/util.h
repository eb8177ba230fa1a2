/*
 * util: the small pieces every module of abev leans on — allocation that
 * aborts on exhaustion, error reporting that returns instead of exiting, a
 * bounded growable string buffer, bounded file reading, clocks and a
 * seeded generator. It knows nothing of plans, processes or evidence.
 */
#ifndef ABEV_UTIL_H
#define ABEV_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#if defined(__GNUC__)
#define ABEV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ABEV_NORETURN __attribute__((noreturn))
#else
#define ABEV_PRINTF(f, a)
#define ABEV_NORETURN
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * ALLOC_GROW(x, nr, alloc): makes the array x (a pointer, NULL at first)
 * hold at least nr elements, alloc (a size_t lvalue) being its capacity.
 * The capacity doubles (from 16), so appending one at a time is amortised
 * constant; a size that overflows aborts like exhaustion. The usual use:
 *     ALLOC_GROW(v, n + 1, alloc);
 *     v[n++] = item;
 * (git's ALLOC_GROW.) New elements are not initialised.
 */
#define ALLOC_GROW(x, nr, alloc) ((x) = alloc_grow((x), sizeof(*(x)), (nr), &(alloc)))
void *alloc_grow(void *p, size_t elem_size, size_t nr, size_t *alloc);
/*
 * ALLOC_GROW() for an array that abev keeps per invocation and no child
 * process ever needs: it lives in a mapping of its own that fork() does
 * not copy (MADV_DONTFORK), so that starting a process costs the same
 * after a million invocations as after ten. Free with unforked_free(x,
 * alloc, sizeof(*x)).
 */
#define UNFORKED_GROW(x, nr, alloc) ((x) = unforked_grow((x), sizeof(*(x)), (nr), &(alloc)))
void *unforked_grow(void *p, size_t elem_size, size_t nr, size_t *alloc);
void unforked_free(void *p, size_t alloc, size_t elem_size);

/* Out of memory aborts with a message: callers never check for NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a newly allocated formatted string; caller frees. */
char *xasprintf(const char *fmt, ...) ABEV_PRINTF(1, 2);
ABEV_NORETURN void die_oom(void);

/*
 * error(): formats a one-line message, hands it to the current error
 * routine (by default: "abev: error: <msg>\n" on stderr) and returns -1,
 * so leaves can write `return error("cannot open '%s': %s", ...)`.
 * warning() is the same with "warning:" and returns nothing.
 */
int error(const char *fmt, ...) ABEV_PRINTF(1, 2);
void warning(const char *fmt, ...) ABEV_PRINTF(1, 2);
typedef void (*report_fn)(const char *prefix, const char *msg);
/* Replaces the routine (NULL restores the default); tests use it to capture. */
void set_error_routine(report_fn fn);

/*
 * strbuf: a NUL-terminated growable buffer. buf is never NULL after
 * STRBUF_INIT (it points at a shared empty string until the first add).
 * A strbuf has no ceiling of its own: growth past SIZE_MAX/2 aborts via
 * die_oom(), and readers that take outside input pass their own limits
 * (read_small()'s max, read_fd_capped()'s max).
 */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0 }
void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) ABEV_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Hands the buffer to the caller (caller frees) and re-inits sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

/*
 * The length of the valid UTF-8 sequence at s (at most n bytes), or 0 for
 * a NUL or a byte that starts none: overlong forms, surrogates and code
 * points above U+10FFFF are invalid.
 */
size_t utf8_char_len(const char *s, size_t n);
/*
 * The longest prefix of s (len bytes) of at most max bytes that does not
 * split a UTF-8 character. A character has at most three continuation
 * bytes: a longer run of them is not UTF-8 and is cut where it falls.
 */
size_t utf8_cut(const char *s, size_t len, size_t max);
/* The code point of the character s[0..len), len being utf8_char_len()'s non-zero answer. */
uint32_t utf8_code_point(const char *s, size_t len);
/*
 * Non-zero for a code point above U+007F that a terminal, an editor or a
 * viewer would not show as itself: C1 controls (U+0080-U+009F; U+009B is
 * an 8-bit CSI), zero-width and invisible characters (U+200B-U+200D,
 * U+2060-U+2065, U+206A-U+206F), direction marks (U+200E, U+200F), the
 * line and paragraph separators (U+2028, U+2029), the bidirectional
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and
 * the byte order mark (U+FEFF). With C0 and DEL, these are what the one
 * escaping below writes as \xNN, what JSON output writes as \uNNNN, and
 * what a name in a plan may not hold.
 */
int unicode_hidden(uint32_t cp);
/*
 * The offset of the first character of s[0..n) that strbuf_add_escaped()
 * writes as \xNN (a C0 control or DEL, a code point unicode_hidden()
 * names, a byte that is not UTF-8), n when there is none; desc then
 * names it for a message: "U+202E (a bidirectional control)", "byte 0x9b
 * (not UTF-8)", or "" when there is none.
 */
#define UNSHOWN_DESC_LEN 48
size_t text_unshown(const char *s, size_t n, char desc[UNSHOWN_DESC_LEN]);
/*
 * Outside text (command output, file names, /proc) made fit for a JSON
 * string: UTF-8 that ends at its NUL. Each byte of s[0..n) that starts
 * no valid UTF-8 sequence (a NUL among them) becomes U+FFFD. Caller frees.
 * utf8_clean_trim() first drops surrounding white space.
 */
char *utf8_clean(const char *s, size_t n);
char *utf8_clean_trim(const char *s, size_t n);
/*
 * Appends outside text s as XML 1.0 character data, fit for element
 * content and for attribute values in either quotes: & < > " ' become
 * references, C0 control characters (tab and newline among them) and DEL
 * are dropped, the code points unicode_hidden() names (C1 controls,
 * bidirectional controls, line separators...) are written as
 * strbuf_add_escaped() writes them (\xe2\x80\xae), so that no viewer acts on
 * them, and every byte that is not part of valid UTF-8, like U+FFFE and
 * U+FFFF, becomes U+FFFD. s may be NULL.
 */
void strbuf_add_xml(struct strbuf *sb, const char *s);
/*
 * Appends s quoted for sh: bare when it is made of safe characters, else
 * in single quotes (a control character, a code point unicode_hidden()
 * names and a byte that is not UTF-8 each become '?').
 */
void strbuf_add_sh(struct strbuf *sb, const char *s);

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
/*
 * Writes data to path atomically (temporary file in the same directory,
 * rename). Not synced to disk: see sync_filesystem(). Returns 0 or -1
 * with an error naming the file, errno telling why (EFBIG, ENOSPC, ...).
 */
int write_file_atomic(const char *path, const void *data, size_t len);
/*
 * write_file_atomic() in pieces, for a file too large to build in memory
 * first: atomic_file_open() creates the temporary file beside path,
 * atomic_file_write() appends, atomic_file_commit() closes and renames it
 * to path; atomic_file_abort() (also after a failed write or commit, and
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
int atomic_file_open(struct atomic_file *f, const char *path);
/* atomic_file_open() of rel beneath d (dirat.h: no link followed on the way). */
struct dirat;
int atomic_file_open_at(struct atomic_file *f, const struct dirat *d, const char *rel);
int atomic_file_write(struct atomic_file *f, const void *data, size_t len);
int atomic_file_commit(struct atomic_file *f);
void atomic_file_abort(struct atomic_file *f);
/*
 * Creates path, which must not exist (O_EXCL, no symlink followed), with
 * mode, writes data and syncs it. 0, or -1 after an error naming the
 * file (also when it exists); a half-written file is removed.
 */
int write_file_new(const char *path, mode_t mode, const void *data, size_t len);
/*
 * Flushes the file system that holds dir to disk (syncfs()): one call
 * makes every file written there durable. 0 or -1 after error().
 */
int sync_filesystem(const char *dir);
/* Writes all of len bytes to fd, retrying on EINTR. 0 or -1 (errno set). */
int write_all(int fd, const void *data, size_t len);
/* What copy_fd() did; on COPY_READ and COPY_WRITE errno says why. */
enum copy_result { COPY_OK, COPY_READ, COPY_WRITE, COPY_TOO_BIG };
/*
 * Copies what is left to read of in to out, at most max bytes (one more
 * is COPY_TOO_BIG), retrying on EINTR. Closes neither descriptor.
 */
enum copy_result copy_fd(int in, int out, uint64_t max);

/*
 * A seeded pseudo-random generator that gives the same stream on every
 * platform: splitmix64 (Steele, Lea, Flood), whose whole state is the
 * caller's *state. Seed it by assigning any value. Not for secrets.
 * rng_next() returns the next 64 bits; rng_below() a value uniform in
 * [0, bound) without modulo bias (bound must be > 0; it may draw more
 * than once). schedule's shuffles and stats' bootstrap use it, so a
 * change to either function changes recorded evidence.
 */
uint64_t rng_next(uint64_t *state);
uint64_t rng_below(uint64_t *state, uint64_t bound);

/* Returns CLOCK_MONOTONIC in nanoseconds. */
int64_t mono_ns(void);
/* Formats ts (CLOCK_REALTIME) as 2026-11-10T16:54:37.980941+00:00. */
#define UTC_STAMP_LEN 40
void utc_format(char out[UTC_STAMP_LEN], const struct timespec *ts);

/*
 * Strict number parsing: the whole string must be a number in range.
 * Return 0 or -1 (no message: callers know the context).
 */
int parse_int64(const char *s, int64_t *out);
int parse_double(const char *s, double *out);

/*
 * Environment arrays: "KEY=VALUE" strings, NULL-terminated, owned.
 * env_inherit() copies abev's own environment; env_set() adds or replaces
 * KEY (n is the count, kept in step); strv_free() frees either.
 */
char **env_inherit(size_t *n);
void env_set(char ***env, size_t *n, const char *key, const char *value);
void strv_free(char **v);

/*
 * The one escaping of outside names and text abev prints (messages
 * through show_text(), evname_printable(), verify's problems, results
 * --list, the terminal summaries, report.md's text through the template's
 * Markdown escaping, the CSV export): n bytes of s appended with a
 * backslash as \\, tab, newline and carriage return as \t \n \r, every
 * other control character and every byte that is not part of valid UTF-8
 * as \xNN, and so are the bytes of the code points unicode_hidden() names
 * (U+202E shows as \xe2\x80\xae, a byte order mark as \xef\xbb\xbf); other
 * valid UTF-8 is kept. A name can then neither end a line, nor hide a
 * byte, nor reorder or drive the terminal.
 */
void strbuf_add_escaped(struct strbuf *sb, const char *s, size_t n);
/*
 * The same for a line abev composed around outside text (error()'s
 * messages, the run summary): a backslash is kept, since one there is
 * abev's own or part of an escape already made.
 */
void strbuf_add_escaped_line(struct strbuf *sb, const char *s, size_t n);
/* strbuf_add_escaped() of the whole of s into a new string. Caller frees. */
char *xstrdup_escaped(const char *s);
/*
 * Outside text quoted in a one-line message through strbuf_add_escaped():
 * the text stops at a NUL or after n bytes, and whatever does not fit in
 * size bytes is cut, between characters, with "...". Returns buf.
 */
const char *show_text(char *buf, size_t size, const char *s, size_t n);
/* show_text() of the whole of s: show_str(b, sizeof(b), name). */
const char *show_str(char *buf, size_t size, const char *s);

/*
 * The shortest of v's %.15g, %.16g and %.17g that reads back as exactly
 * v (and "0" for -0.0): the text of a figure that must survive a round
 * trip through a file. Returns buf.
 */
#define DOUBLE_TEXT_LEN 32
const char *double_text(char buf[DOUBLE_TEXT_LEN], double v);

/* Joins dir and name with one '/'. Caller frees. */
char *path_join(const char *dir, const char *name);
/* Creates dir and missing parents with mode 0755. 0 or -1 with error(). */
int mkdir_p(const char *path);

#endif
