/*
 * results_reader: what the reader core (results.c) shares with the
 * format files (results_trx.c, results_junit.c) — the parser state, the
 * helpers a format uses to read attributes, count leaves, emit tests and
 * note or refuse, and the table of callbacks by which each format (a
 * "dialect") plugs into the core, one file per format as libarchive
 * registers its readers. Internal to the results module: nothing outside
 * results*.c includes it. The format files never touch libxml2: the
 * reader pointer below is the core's.
 */
#ifndef ABEV_RESULTS_READER_H
#define ABEV_RESULTS_READER_H

#include <stddef.h>
#include <stdint.h>

#include "results.h"
#include "util.h"

struct _xmlTextReader;
struct results_dialect;

#define NOTES_MAX 20
#define DEPTH_CEILING 1024   /* libxml2 itself stops at 256 without HUGE */
#define FIELD_MAX 256        /* run outcome, timestamps */
#define LABEL_MAX 80         /* names quoted in notes */
#define REASON_MAX 300

enum role {
	R_OTHER,
	R_TRX_ROOT, R_TRX_RESULTS, R_TRX_INNER, R_TRX_RESULT, R_TRX_OUTPUT, R_TRX_STDOUT,
	R_TRX_SUMMARY, R_TRX_COUNTERS, R_TRX_TIMES,
	R_JU_SUITES, R_JU_SUITE, R_JU_CASE, R_JU_FAILURE, R_JU_ERROR, R_JU_SKIPPED, R_JU_SYSOUT,
};

/* The prolog scanner of the read callback (see the file comment). */
enum prolog_state { PS_TEXT, PS_LT, PS_PI, PS_BANG, PS_COMMENT, PS_DONE };

struct prolog {
	enum prolog_state state;
	const char *want;   /* PS_BANG: "--" or "DOCTYPE" once chosen */
	size_t sub;         /* PS_BANG: bytes of want matched; PS_PI/PS_COMMENT: trailing '?' or '-' */
	long line;
	long doctype_line;  /* > 0 once "<!DOCTYPE" was seen */
};

/* One TRX result or JUnit testcase being read. */
struct test_frame {
	struct strbuf name;
	struct strbuf out;      /* captured stdout, at most max_stdout bytes */
	const char *raw;        /* outcome as written: points into raw_buf or a literal */
	struct strbuf raw_buf;
	int out_truncated;
	double duration;
	int64_t children;       /* TRX: results inside its InnerResults */
	int has_error, has_failure, has_skipped;   /* JUnit children */
	enum test_outcome attr_outcome;            /* JUnit status/result attributes */
};

/* JUnit: tests, failures, errors, skipped(+disabled) declared and counted. */
enum { JU_TESTS, JU_FAILURES, JU_ERRORS, JU_SKIPPED, JU_N };

struct suite_frame {
	struct strbuf name;
	int64_t decl[JU_N];
	int64_t got[JU_N];
};

struct parser {
	const struct results_dialect *dialect; /* chosen by the root element */
	const char *path;
	struct results_limits lim;
	unsigned depth_limit;
	results_test_fn fn;
	void *ctx;
	struct results_file *out;
	struct _xmlTextReader *r; /* libxml2's reader: results.c's alone */
	int fd;

	uint64_t nread;
	int oversize;
	int read_errno;
	struct prolog pro;

	char *reason;           /* our refusal, first one wins */
	long reason_line;
	char *xml_reason;       /* libxml2's first error */
	long xml_line;
	int xml_code;
	struct strbuf generic;  /* libxml2's unstructured messages, if any */

	int root_seen, root_closed;
	unsigned char *roles;   /* role of the open element at each depth */
	struct test_frame *tests;
	unsigned ntests;
	struct suite_frame *suites;
	unsigned nsuites;

	int64_t parents, missing_outcome, unknown_outcome, bad_duration, long_names, stray;
	char first_unknown[LABEL_MAX], first_stray[LABEL_MAX];
	int summary_seen, counters_seen, times_seen, start_seen;
	int64_t root_decl[JU_N], top_decl[JU_N];
	size_t notes_dropped;
};

#define ATTRS_WANT_MAX 8
struct attr_vals {
	const char *v[ATTRS_WANT_MAX];
	char *owned[ATTRS_WANT_MAX];
};

/*
 * One format. root() gives the role of a root element named name, or
 * R_OTHER when the root is not this format's (it may read the root's
 * attributes); classify() the role of an element below; start() and end()
 * see every element open and close (end() with its role); finish() adds
 * the cross-checks of counted against declared once the file is read.
 */
struct results_dialect {
	enum results_format format;
	enum role (*root)(struct parser *p, const char *name);
	enum role (*classify)(enum role parent, const char *name);
	void (*start)(struct parser *p, enum role parent, enum role role, const char *name);
	void (*end)(struct parser *p, enum role role);
	void (*finish)(struct parser *p);
};

extern const struct results_dialect results_trx_dialect;
extern const struct results_dialect results_junit_dialect;

/* s as one printable line in dst (size n): blanks folded, controls '?'. */
void results_clean_line(char *dst, size_t n, const char *s);
/* The longest prefix of s (len bytes), at most max, that splits no UTF-8 sequence. */
size_t results_utf8_cut(const char *s, size_t len, size_t max);
/* A one-line note on the file (at most NOTES_MAX; the rest are counted). */
void results_note(struct parser *p, const char *fmt, ...) ABEV_PRINTF(2, 3);
/* The line of the current node. */
long results_line(struct parser *p);
/* Stops the read with a reason (the first one wins). */
void results_refuse(struct parser *p, long line, const char *fmt, ...) ABEV_PRINTF(3, 4);
/* The current element's attribute name, or NULL; caller frees. */
char *results_attr(struct parser *p, const char *name);
/* Several attributes in one walk (see results.c); release with results_attrs_release(). */
void results_attrs_get(struct parser *p, const char *const *names, size_t n,
		       struct attr_vals *out);
void results_attrs_release(struct attr_vals *a);
/* results_attr() cut to FIELD_MAX bytes. */
char *results_attr_field(struct parser *p, const char *name);
/* A non-negative count attribute; -1 when absent, noted when unreadable. */
int64_t results_count_attr(struct parser *p, const char *elem, const char *name);
/* The sum of the values that are not negative, or -1 when none is. */
int64_t results_sum_present(const int64_t *v, size_t n);
void results_frame_reset(struct test_frame *t);
void results_frame_set_raw(struct test_frame *t, const char *v);
/* "classname.name", cut to the name limit (counted in long_names). */
void results_frame_set_name(struct parser *p, struct test_frame *t, const char *classname,
			    const char *name);
/* Appends captured output text, up to the stdout limit. */
void results_capture_text(struct parser *p, struct test_frame *t, const char *s);
/* Counts a leaf test and hands it to the caller's callback. */
void results_emit(struct parser *p, struct test_frame *t, const char *parent,
		  enum test_outcome o, int executed);

#endif
