/*
 * results_reader: what the reader core (results.c) shares with the
 * format files (results_trx.c, results_junit.c) — the parser state, the
 * helpers a format uses to read attributes, count leaves, emit tests and
 * note or refuse, and the table of callbacks by which each format (a
 * "dialect") plugs into the core, one file per format as libarchive
 * registers its readers. Internal to the results module: nothing outside
 * results*.c includes it. The format files never touch libxml2: the
 * parser context below is results_sax.c's alone.
 */
#ifndef ABEV_RESULTS_READER_H
#define ABEV_RESULTS_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "results/results.h"
#include "util/compiler.h"
#include "util/strbuf.h"

struct _xmlParserCtxt;
struct results_dialect;
struct trx_classes;

#define NOTES_MAX 20
#define DEPTH_CEILING 1024   /* libxml2 itself stops at 256 without HUGE */
#define FIELD_MAX 256        /* run outcome, timestamps */
#define LABEL_MAX 80         /* names quoted in notes */
#define REASON_MAX 300
/*
 * The longest start or end tag libxml2 may hold unparsed while it waits
 * for its end: past it the file is refused in abev's words. Real start
 * tags are a few KiB. It also bounds the attributes of one element, which
 * libxml2 2.9 checks for duplicates pairwise: 256 KiB hold some 40,000
 * ("a=''"), 0.3 s of that check, where 1 MiB held 150,000 and took 5 s.
 */
#define RESULTS_MARKUP_MAX (256 * 1024)
/*
 * The same for anything else libxml2 holds whole until its end — a CDATA
 * section (libxml2 2.9's push parser hands one out 300 bytes per call, so
 * a long one in a JUnit system-out is held), a comment, a PI: below
 * libxml2's own "Huge input lookup" at 10,000,000 bytes, which the reader
 * before this one ran into.
 */
#define RESULTS_HELD_MAX (8 * 1024 * 1024)
/* The reason that ends the first read of a file once it has what it reads for. */
#define PREPASS_DONE "read for the test definitions"
/* Attributes on one element. */
#define RESULTS_ATTRS_MAX 4096

enum role {
	R_OTHER,
	R_TRX_ROOT, R_TRX_RESULTS, R_TRX_INNER, R_TRX_RESULT, R_TRX_OUTPUT, R_TRX_STDOUT,
	R_TRX_SUMMARY, R_TRX_COUNTERS, R_TRX_TIMES, R_TRX_DEFS, R_TRX_DEF, R_TRX_METHOD,
	R_TRX_ERRINFO, R_TRX_MESSAGE, R_TRX_RUNINFOS, R_TRX_RUNINFO, R_TRX_RUNINFO_TEXT,
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
	struct strbuf name;     /* the qualified name (results_frame_set_name()) */
	struct strbuf written;  /* the name as the file writes it: TRX testName, JUnit name */
	struct strbuf out;      /* captured stdout, at most max_stdout bytes */
	const char *raw;        /* outcome as written: points into raw_buf or a literal */
	struct strbuf raw_buf;
	int out_truncated;
	/*
	 * A failure's message as the file gives it (TRX ErrorInfo/Message,
	 * JUnit failure/error message attribute or text), at most
	 * RESULTS_MESSAGE_HOLD bytes: the test case gets its first line
	 * (results.c's results_message_line()).
	 * msg_set: an attribute gave it, the text inside is not wanted.
	 */
	struct strbuf msg;
	int msg_set;
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
	struct _xmlParserCtxt *ctxt; /* libxml2's push parser: results_sax.c's alone */
	int fd;
	unsigned depth;         /* elements open */
	/* The attributes of the element being started (libxml2's 5-tuples), during start() only. */
	const unsigned char *const *attrs;
	int nattrs;
	struct strbuf attrbuf;  /* NUL-terminated copies of the values asked for */
	/* In the capturing element: text kept so far; a child other than text (see results_sax.c). */
	int cap_text, cap_child;

	uint64_t nread;
	struct sha256 *hash;     /* the bytes read, hashed as read (not in the prepass) */
	int oversize;
	int read_errno;
	struct prolog pro;

	char *reason;           /* our refusal, first one wins */
	long reason_line;
	char *xml_reason;       /* libxml2's first error */
	long xml_line;
	int xml_code;
	int xml_fatal;          /* that error stopped the parse */
	int xml_at_end;         /* ... and was raised once all the input was given */
	int eof;                /* all the input has been given to libxml2 */
	char xml_str1[LABEL_MAX];   /* the name libxml2's error is about, if any */
	struct strbuf generic;  /* libxml2's unstructured messages, if any */

	int root_seen, root_closed;
	unsigned char *roles;   /* role of the open element at each depth */
	struct test_frame *tests;
	unsigned ntests;
	struct suite_frame *suites;
	unsigned nsuites;

	/*
	 * TRX: the class of each test definition, by testId (results_trx.c's).
	 * prepass: this read only collects them (results.c reads a seekable
	 * file twice, since the vstest logger writes the definitions after the
	 * results); classes_done: they were all collected before this read.
	 */
	struct trx_classes *classes;
	int prepass, classes_done;
	/*
	 * The prepass's jump: once the read reaches file offset skip_from
	 * (the end of the root's start tag), it goes on at skip_to (where the
	 * definitions start), so that what lies between is never parsed
	 * (results_scan.c). pos: the file offset the next read starts at.
	 */
	off_t skip_from, skip_to, pos;
	int64_t unqualified;    /* TRX results whose testId has no definition read */

	int64_t parents, missing_outcome, unknown_outcome, bad_duration, long_names, stray;
	char first_unknown[LABEL_MAX], first_stray[LABEL_MAX];
	int summary_seen, counters_seen, times_seen, start_seen;
	/*
	 * TRX: the RunInfo Text being read (at most RESULTS_MESSAGE_HOLD
	 * bytes), and the first line of the one that says why the run
	 * stopped ("The active test run was aborted. Reason: Test host
	 * process crashed ..."), else of the first with text.
	 */
	struct strbuf run_info;
	char run_info_line[RESULTS_MESSAGE_MAX + 4];
	int run_info_says_aborted;
	int64_t root_decl[JU_N], top_decl[JU_N];
	size_t notes_dropped;
};

#define ATTRS_WANT_MAX 8
struct attr_vals {
	const char *v[ATTRS_WANT_MAX];
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
	int definitions;   /* the file names its tests' classes apart from the results: read twice */
};

extern const struct results_dialect results_trx_dialect;
extern const struct results_dialect results_junit_dialect;

/* s as one printable line in dst (size n): blanks folded, controls '?'. */
void results_clean_line(char *dst, size_t n, const char *s);
/* A one-line note on the file (at most NOTES_MAX; the rest are counted). */
void results_note(struct parser *p, const char *fmt, ...) ABEV_PRINTF(2, 3);
/* The line the parser is at (in a start() callback: the element's). */
long results_line(struct parser *p);
/* Stops the read with a reason (the first one wins). */
void results_refuse(struct parser *p, long line, const char *fmt, ...) ABEV_PRINTF(3, 4);
/*
 * The current element's attribute name (without a namespace), or NULL;
 * caller frees. Only from a dialect's root() or start().
 */
char *results_attr(struct parser *p, const char *name);
/*
 * Several attributes in one walk, for the per-test path: out->v[i] the
 * value of names[i] (n <= ATTRS_WANT_MAX) or NULL, borrowed until the
 * next call or the end of start().
 */
void results_attrs_get(struct parser *p, const char *const *names, size_t n,
		       struct attr_vals *out);
/* results_attr() cut to FIELD_MAX bytes. */
char *results_attr_field(struct parser *p, const char *name);
/* A non-negative count attribute; -1 when absent, noted when unreadable. */
int64_t results_count_attr(struct parser *p, const char *elem, const char *name);
/* The sum of the values that are not negative, or -1 when none is. */
int64_t results_sum_present(const int64_t *v, size_t n);
void results_frame_reset(struct test_frame *t);
void results_frame_set_raw(struct test_frame *t, const char *v);
/*
 * A test's identity from its class (NULL or "": none) and its name as the
 * file writes it: name alone when it already starts with "classname."
 * (xUnit's testName, some JUnit writers), the namespace put in front when
 * it starts with the class's own name and a dot, else "classname.name".
 * Cut to the name limit (counted in long_names); name is also kept as
 * written.
 */
void results_frame_set_name(struct parser *p, struct test_frame *t, const char *classname,
			    const char *name);
/* Frees the TRX class map (NULL allowed). */
void results_trx_classes_free(struct trx_classes *c);
/* The bytes of a failure's message held to find its first line. */
#define RESULTS_MESSAGE_HOLD 4096
/* Appends to a failure's message (len bytes of s), up to RESULTS_MESSAGE_HOLD. */
void results_capture_message(struct test_frame *t, const char *s, size_t len);
/* Counts a leaf test and hands it to the caller's callback. */
void results_emit(struct parser *p, struct test_frame *t, const char *parent,
		  enum test_outcome o, int executed);

/* ---- between the core (results.c) and libxml2's side (results_sax.c) ---- */

/* An element opened (its attributes in p->attrs), closed; text inside the open one. */
void results_element_start(struct parser *p, const char *name);
void results_element_end(struct parser *p);
void results_text(struct parser *p, const char *s, size_t len);
/*
 * Whether the text directly inside the open element (of this role) is
 * kept: captured output or a failure's message a callback will see, or a
 * TRX RunInfo's text.
 */
int results_text_wanted(const struct parser *p, unsigned char role);
/*
 * The first line of msg with text on it, blanks at both ends trimmed and
 * controls made '?', cut to RESULTS_MESSAGE_MAX bytes at a character's
 * start (an ellipsis then ends it): dst, size RESULTS_MESSAGE_MAX + 4.
 * "" when it has none.
 */
void results_first_line(char *dst, const struct strbuf *msg);
/*
 * Reads p->fd to its end through libxml2's push parser, calling the three
 * functions above. 0 when libxml2 accepted the document; -1 when reading
 * stopped: our reason in p->reason, or the input's state (oversize,
 * read_errno, pro.doctype_line) or libxml2's error (xml_*).
 */
int results_sax_read(struct parser *p);
/* The one-line reason (without the path) for libxml2's error, in abev's words; caller frees. */
char *results_sax_reason(struct parser *p);

/*
 * Where a seekable TRX read from start (an fd) has its test definitions
 * (results_scan.c): SCAN_DEFS with *root_end, the offset just past the
 * root's start tag, and *defs_at, that of the '<' of the root's first
 * TestDefinitions child; SCAN_NONE when the file has none to read (its
 * root closes first, or is not a TestRun); SCAN_UNSURE when the scan
 * cannot tell (a DOCTYPE, input that is not ASCII-compatible, a read
 * error, an unfinished document, or what the parse refuses by its size:
 * over max_bytes from start, a tag over RESULTS_MARKUP_MAX, a comment,
 * CDATA section or processing instruction over RESULTS_HELD_MAX): then the
 * whole file is read for them, as far as the parse goes.
 */
enum scan_result { SCAN_UNSURE, SCAN_NONE, SCAN_DEFS };

enum scan_result results_scan_trx_definitions(int fd, off_t start, uint64_t max_bytes,
					      off_t *root_end, off_t *defs_at);

#endif
