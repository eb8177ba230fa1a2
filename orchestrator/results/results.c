/*
 * results: reads VSTest TRX and JUnit XML files into counts, the file's
 * own counters, one-line notes and one callback per leaf test. It keeps no
 * DOM and no test beyond the one being read, so memory depends on the
 * limits, not on the file. It does not validate either format, decide what
 * the counts mean for a run (the guards do) or print anything (the caller
 * reports). This file is the reader core: opening the input, the element
 * dispatch to the dialect the root chose, the shared helpers and the
 * reasons for a refusal; libxml2's SAX2 push parser and the hardening
 * around it are results_sax.c's; what TRX and JUnit elements mean is in
 * results_trx.c and results_junit.c, plugged in through the table in
 * results_reader.h.
 *
 * JUnit suite-level errors: a testsuite may declare errors (jest: a suite
 * that failed to run) without a testcase for them. Counts come from test
 * cases only, so such errors are not counted; the suite's disagreement
 * with what was counted inside it becomes a note.
 */
#include "util/hash.h"
#include "results/results.h"
#include "results/results_reader.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/number.h"
#include "util/strbuf.h"
#include "util/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copies s into dst (size n) as one printable line. */
void results_clean_line(char *dst, size_t n, const char *s)
{
	size_t j = 0;
	int space = 0;
	if (!n)
		return;
	for (; s && *s && j + 1 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
			space = j > 0;
			continue;
		}
		if (space && j + 2 < n)
			dst[j++] = ' ';
		space = 0;
		dst[j++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	dst[j] = '\0';
}

void results_note(struct parser *p, const char *fmt, ...)
{
	struct results_file *f = p->out;
	struct strbuf sb = STRBUF_INIT;
	char line[512];
	va_list ap;
	if (f->nnotes >= NOTES_MAX) {
		p->notes_dropped++;
		return;
	}
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	results_clean_line(line, sizeof(line), sb.buf);
	strbuf_release(&sb);
	ALLOC_GROW(f->notes, f->nnotes + 1, f->notes_alloc);
	f->notes[f->nnotes++] = xstrdup(line);
}

void results_refuse(struct parser *p, long line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	if (p->reason)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	p->reason = strbuf_detach(&sb, NULL);
	p->reason_line = line;
}

char *results_attr_field(struct parser *p, const char *name)
{
	char *v = results_attr(p, name);
	if (v && strlen(v) > FIELD_MAX)
		v[utf8_cut(v, strlen(v), FIELD_MAX)] = '\0';
	return v;
}

/* A non-negative count attribute; -1 when absent, noted when unreadable. */
int64_t results_count_attr(struct parser *p, const char *elem, const char *name)
{
	char *v = results_attr(p, name);
	int64_t n = -1;
	if (v && (parse_int64(v, &n) < 0 || n < 0)) {
		char label[LABEL_MAX];
		results_clean_line(label, sizeof(label), v);
		results_note(p, "ignored %s@%s='%s' (not a count)", elem, name, label);
		n = -1;
	}
	free(v);
	return n;
}

int64_t results_sum_present(const int64_t *v, size_t n)
{
	int64_t sum = -1;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= 0)
			sum = (sum < 0 ? 0 : sum) + v[i];
	return sum;
}

void results_frame_reset(struct test_frame *t)
{
	strbuf_reset(&t->name);
	strbuf_reset(&t->written);
	strbuf_reset(&t->out);
	strbuf_reset(&t->raw_buf);
	strbuf_reset(&t->msg);
	t->msg_set = 0;
	t->raw = NULL;
	t->out_truncated = 0;
	t->duration = -1;
	t->children = 0;
	t->has_error = t->has_failure = t->has_skipped = 0;
	t->attr_outcome = OUTCOME_PASSED;
}

void results_frame_set_raw(struct test_frame *t, const char *v)
{
	strbuf_reset(&t->raw_buf);
	strbuf_add(&t->raw_buf, v, utf8_cut(v, strlen(v), FIELD_MAX));
	t->raw = t->raw_buf.buf;
}

/* Appends len bytes of s to t's name, cut at the name limit; 1 once cut. */
static int name_add(struct parser *p, struct test_frame *t, const char *s, size_t len)
{
	size_t room = p->lim.max_name - t->name.len;
	int cut = len > room;
	if (cut)
		len = utf8_cut(s, len, room);
	strbuf_add(&t->name, s, len);
	return cut;
}

void results_frame_set_name(struct parser *p, struct test_frame *t, const char *classname,
			   const char *name)
{
	size_t clen = classname ? strlen(classname) : 0, nlen;
	const char *own;
	int cut = 0;

	if (!name)
		name = "";
	nlen = strlen(name);
	strbuf_reset(&t->name);
	strbuf_reset(&t->written);
	strbuf_add(&t->written, name, utf8_cut(name, nlen, p->lim.max_name));
	own = classname ? strrchr(classname, '.') : NULL;
	own = own ? own + 1 : classname;
	if (!clen || (nlen > clen && !strncmp(name, classname, clen) && name[clen] == '.')) {
		cut = name_add(p, t, name, nlen);
	} else if (own > classname && nlen > strlen(own) && !strncmp(name, own, strlen(own)) &&
		   name[strlen(own)] == '.') {
		/* "Class.Method" under "Ns.Class": only the namespace is missing. */
		cut = name_add(p, t, classname, (size_t)(own - classname)) ||
		      name_add(p, t, name, nlen);
	} else {
		cut = name_add(p, t, classname, clen) || name_add(p, t, ".", 1) ||
		      name_add(p, t, name, nlen);
	}
	if (cut)
		p->long_names++;
}

/* Appends captured output text (len bytes of s), up to the stdout limit. */
static void results_capture_text(struct parser *p, struct test_frame *t, const char *s, size_t len)
{
	size_t room;
	if (t->out_truncated)
		return;
	room = p->lim.max_stdout - t->out.len;
	if (len > room) {
		len = utf8_cut(s, len, room);
		t->out_truncated = 1;
	}
	strbuf_add(&t->out, s, len);
}

void results_capture_message(struct test_frame *t, const char *s, size_t len)
{
	size_t room = RESULTS_MESSAGE_HOLD - t->msg.len;
	if (t->msg_set)
		return;
	if (len > room)
		len = utf8_cut(s, len, room);
	strbuf_add(&t->msg, s, len);
}

/* len bytes of s as one printable line in dst, cut as results_first_line() says. */
static void results_line_out(char *dst, const char *s, size_t len)
{
	if (len > RESULTS_MESSAGE_MAX) {
		len = utf8_cut(s, len, RESULTS_MESSAGE_MAX - 3);
		memcpy(dst, s, len);
		memcpy(dst + len, "...", 4);
	} else {
		memcpy(dst, s, len);
		dst[len] = '\0';
	}
	for (char *q = dst; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
}

/* The next line of *s with text, blanks at both ends trimmed (*len 0: none); *s past it. */
static const char *results_next_line(const char **s, size_t *len)
{
	const char *start = *s, *end;

	while (*start == ' ' || *start == '\t' || *start == '\r' || *start == '\n')
		start++;
	end = start + strcspn(start, "\r\n");
	*s = end;
	while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*len = (size_t)(end - start);
	return start;
}

void results_first_line(char *dst, const struct strbuf *msg)
{
	const char *s = msg->buf ? msg->buf : "", *line;
	size_t len;

	line = results_next_line(&s, &len);
	results_line_out(dst, line, len);
}

/*
 * Whether a message's first line is only MSTest 4's header, which names no
 * failure: "Assertion failed." (Assert.Fail) or "Assert.AreEqual failed."
 * alone, what failed and the test's own words on the lines after it. MSTest
 * 3 ("Assert.AreEqual failed. Expected:<3>. Actual:<2>.") says it on one.
 */
static int results_bare_header(const char *line, size_t len)
{
	static const char assertion[] = "Assertion failed.", pre[] = "Assert.", post[] = " failed.";
	const size_t npre = sizeof(pre) - 1, npost = sizeof(post) - 1;

	if (len == sizeof(assertion) - 1 && !memcmp(line, assertion, len))
		return 1;
	if (len <= npre + npost || memcmp(line, pre, npre) ||
	    memcmp(line + len - npost, post, npost))
		return 0;
	for (size_t i = npre; i < len - npost; i++)
		if (!isalnum((unsigned char)line[i]))
			return 0;
	return 1;
}

/*
 * A failure's message as one line: its first line as above, unless that
 * is only MSTest 4's header ("Assertion failed.", "Assert.AreEqual
 * failed."): then it and the lines with text after it, each trimmed,
 * joined by one space, made printable and cut as above. dst, size
 * RESULTS_MESSAGE_MAX + 4; "" when it has none.
 */
static void results_message_line(char *dst, const struct strbuf *msg)
{
	const char *s = msg->buf ? msg->buf : "", *line;
	char joined[RESULTS_MESSAGE_MAX + 2];
	size_t len, n = 0;

	line = results_next_line(&s, &len);
	if (!results_bare_header(line, len)) {
		results_line_out(dst, line, len);
		return;
	}
	/* The header and the lines after it; past the limit it is cut anyway. */
	while (len && n <= RESULTS_MESSAGE_MAX) {
		if (n)
			joined[n++] = ' ';
		if (len > sizeof(joined) - 1 - n)
			len = sizeof(joined) - 1 - n;
		memcpy(joined + n, line, len);
		n += len;
		line = results_next_line(&s, &len);
	}
	results_line_out(dst, joined, n);
}

static void results_count_leaf(struct parser *p, enum test_outcome o, int executed)
{
	struct results_counts *c = &p->out->counts;
	c->total++;
	c->executed += executed != 0;
	switch (o) {
	case OUTCOME_PASSED: c->passed++; break;
	case OUTCOME_FAILED: c->failed++; break;
	case OUTCOME_ERROR: c->errors++; break;
	case OUTCOME_SKIPPED: c->skipped++; break;
	case OUTCOME_OTHER: c->other++; break;
	}
}

void results_emit(struct parser *p, struct test_frame *t, const char *parent,
		 enum test_outcome o, int executed)
{
	char message[RESULTS_MESSAGE_MAX + 4] = "";
	struct test_case tc = {
		.name = t->name.buf,
		.written_name = t->written.buf,
		.outcome_raw = t->raw,
		.outcome = o,
		.executed = executed,
		.duration_s = t->duration,
		.stdout_text = t->out.buf,
		.stdout_len = t->out.len,
		.stdout_truncated = t->out_truncated,
		.parent = parent,
		.message = message,
	};
	if (o == OUTCOME_FAILED || o == OUTCOME_ERROR || o == OUTCOME_OTHER)
		results_message_line(message, &t->msg);
	results_count_leaf(p, o, executed);
	if (p->fn && p->fn(p->ctx, &tc))
		results_refuse(p, results_line(p), "stopped");
}

/* ---- the reader loop ---- */

static const struct results_dialect *const dialects[] = {
	&results_trx_dialect,
	&results_junit_dialect,
};

/* The root element chooses the dialect; every element below is its to classify. */
static void element_start(struct parser *p, int depth, const char *name)
{
	enum role parent = depth > 0 ? (enum role)p->roles[depth - 1] : R_OTHER;
	enum role role = R_OTHER;
	if (depth == 0) {
		p->root_seen = 1;
		for (size_t i = 0; i < ARRAY_SIZE(dialects) && role == R_OTHER; i++) {
			role = dialects[i]->root(p, name);
			if (role != R_OTHER) {
				p->dialect = dialects[i];
				p->out->format = dialects[i]->format;
			}
		}
		if (role == R_OTHER) {
			char label[LABEL_MAX];
			results_clean_line(label, sizeof(label), name);
			results_refuse(p, results_line(p),
			       "unknown root element '%s' (expected TestRun, testsuites or testsuite)", label);
			return;
		}
		if (p->prepass && !p->dialect->definitions) {
			results_refuse(p, 0, PREPASS_DONE);
			return;
		}
	} else {
		role = p->dialect->classify(parent, name);
	}
	p->roles[depth] = (unsigned char)role;
	p->dialect->start(p, parent, role, name);
}

static void element_end(struct parser *p, int depth)
{
	if (p->dialect)
		p->dialect->end(p, (enum role)p->roles[depth]);
	p->roles[depth] = R_OTHER;
	if (depth == 0)
		p->root_closed = 1;
}

void results_element_start(struct parser *p, const char *name)
{
	unsigned depth = p->depth;
	if (depth >= p->depth_limit) {
		results_refuse(p, results_line(p), "elements nested deeper than %u levels", p->depth_limit);
		return;
	}
	p->depth++;
	element_start(p, (int)depth, name);
}

void results_element_end(struct parser *p)
{
	if (p->depth == 0)
		return;
	element_end(p, (int)--p->depth);
}

void results_text(struct parser *p, const char *s, size_t len)
{
	unsigned char role;
	if (p->depth < 1 || !results_text_wanted(p, p->roles[p->depth - 1]))
		return;
	role = p->roles[p->depth - 1];
	if (role == R_TRX_RUNINFO_TEXT) {
		size_t room = RESULTS_MESSAGE_HOLD - p->run_info.len;
		strbuf_add(&p->run_info, s, len > room ? utf8_cut(s, len, room) : len);
		return;
	}
	/* Captured output only ever reaches the callback: without one, none is kept. */
	if (!p->ntests)
		return;
	if (role == R_TRX_STDOUT || role == R_JU_SYSOUT)
		results_capture_text(p, &p->tests[p->ntests - 1], s, len);
	else
		results_capture_message(&p->tests[p->ntests - 1], s, len);
}

int results_text_wanted(const struct parser *p, unsigned char role)
{
	if (role == R_TRX_RUNINFO_TEXT)
		return !p->prepass;
	return p->fn && (role == R_TRX_STDOUT || role == R_JU_SYSOUT || role == R_TRX_MESSAGE ||
			 role == R_JU_FAILURE || role == R_JU_ERROR);
}

static void finish_notes(struct parser *p)
{
	struct results_file *f = p->out;
	if (p->long_names)
		results_note(p, "%lld test names longer than %zu bytes were truncated",
			 (long long)p->long_names, p->lim.max_name);
	if (p->xml_reason)
		results_note(p, "XML error at line %ld (read on): %s", p->xml_line, p->xml_reason);
	if (p->notes_dropped) {
		free(f->notes[f->nnotes - 1]);
		f->notes[f->nnotes - 1] = xasprintf("%zu more notes not shown", p->notes_dropped + 1);
	}
}

static void parser_release(struct parser *p)
{
	if (p->tests)
		for (unsigned i = 0; i <= p->depth_limit; i++) {
			strbuf_release(&p->tests[i].name);
			strbuf_release(&p->tests[i].written);
			strbuf_release(&p->tests[i].out);
			strbuf_release(&p->tests[i].msg);
			strbuf_release(&p->tests[i].raw_buf);
		}
	if (p->suites)
		for (unsigned i = 0; i <= p->depth_limit; i++)
			strbuf_release(&p->suites[i].name);
	free(p->tests);
	free(p->suites);
	results_trx_classes_free(p->classes);
	free(p->roles);
	free(p->reason);
	free(p->xml_reason);
	strbuf_release(&p->generic);
	strbuf_release(&p->attrbuf);
	strbuf_release(&p->run_info);
	if (p->hash) {
		unsigned char unused[SHA256_LEN];

		sha256_final(p->hash, unused);
		p->hash = NULL;
	}
}

/*
 * The one-line reason why reading failed (caller frees). Our own findings
 * come before libxml2's, which are often consequences of them (input
 * withheld on a DOCTYPE or at the size limit).
 */
static char *failure_reason(struct parser *p)
{
	const char *path = p->path;
	long at = p->xml_line > 0 ? p->xml_line : 1;
	char *why, *line;

	if (p->reason)
		return p->reason_line > 0 ? xasprintf("%s:%ld: %s", path, p->reason_line, p->reason)
					  : xasprintf("%s: %s", path, p->reason);
	if (p->pro.doctype_line > 0)
		return xasprintf("%s:%ld: DOCTYPE is not allowed in test results "
				 "(possible external entity or entity expansion attack)",
				 path, p->pro.doctype_line);
	if (p->oversize)
		return xasprintf("%s: more than %llu bytes, over the limit", path,
				 (unsigned long long)p->lim.max_bytes);
	if (p->read_errno)
		return xasprintf("%s: read error: %s", path, strerror(p->read_errno));
	if (p->nread == 0)
		return xasprintf("%s: file is empty", path);
	why = results_sax_reason(p);
	line = xasprintf("%s:%ld: %s", path, at, why);
	free(why);
	return line;
}

/* Opens path for reading: a regular file within the limit, or a FIFO. -1 with *err set. */
static int open_input(const char *path, uint64_t max_bytes, char **err)
{
	struct stat st;
	int fd, flags;
	/* O_NONBLOCK: nothing (a FIFO, a device) may block before its type is known. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		*err = xasprintf("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		*err = xasprintf("%s: cannot stat: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		*err = xasprintf("%s: is a directory, not a test results file", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		*err = xasprintf("%s: not a regular file or FIFO", path);
		goto fail;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes) {
		*err = xasprintf("%s: file is %lld bytes, over the limit of %llu", path,
				 (long long)st.st_size, (unsigned long long)max_bytes);
		goto fail;
	}
	if (S_ISFIFO(st.st_mode)) {
		/*
		 * A read of a FIFO nobody has opened for writing yet is an
		 * immediate end of file: wait for the writer as cat(1) would,
		 * on the same FIFO that was checked.
		 */
		struct stat st2;
		int bfd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (bfd < 0) {
			*err = xasprintf("%s: cannot open: %s", path, strerror(errno));
			goto fail;
		}
		if (fstat(bfd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
			*err = xasprintf("%s: changed while it was being opened", path);
			close(bfd);
			goto fail;
		}
		close(fd);
		return bfd;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		*err = xasprintf("%s: cannot set blocking mode: %s", path, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

static void parser_init(struct parser *p, int fd, const char *path,
			const struct results_limits *limits, results_test_fn fn, void *ctx,
			struct results_file *out)
{
	static const struct results_limits defaults = RESULTS_LIMITS_DEFAULT;

	memset(p, 0, sizeof(*p));
	p->path = path;
	p->lim = limits ? *limits : defaults;
	p->depth_limit = p->lim.max_depth < DEPTH_CEILING ? p->lim.max_depth : DEPTH_CEILING;
	p->fn = fn;
	p->ctx = ctx;
	p->out = out;
	p->fd = fd;
	p->pro.line = 1;
	strbuf_init(&p->generic);
	strbuf_init(&p->attrbuf);
	strbuf_init(&p->run_info);
	for (int i = 0; i < JU_N; i++)
		p->root_decl[i] = p->top_decl[i] = -1;
	p->roles = xcalloc(p->depth_limit + 1, 1);
	p->tests = xcalloc(p->depth_limit + 1, sizeof(*p->tests));
	p->suites = xcalloc(p->depth_limit + 1, sizeof(*p->suites));
	for (unsigned i = 0; i <= p->depth_limit; i++) {
		strbuf_init(&p->tests[i].name);
		strbuf_init(&p->tests[i].written);
		strbuf_init(&p->tests[i].out);
		strbuf_init(&p->tests[i].msg);
		strbuf_init(&p->tests[i].raw_buf);
		strbuf_init(&p->suites[i].name);
	}
}

/*
 * The first of two reads of a seekable fd: only the TRX test definitions'
 * classes, into p->classes; then fd is back at start. It stops at the
 * root of a file of another format. Whatever makes it fail, the second
 * read meets as well and reports: here it only leaves classes unread.
 * -1 with *err when fd cannot be rewound.
 */
static int read_classes(struct parser *p, off_t start, char **err)
{
	struct results_file scratch = RESULTS_FILE_INIT;
	struct parser q;
	off_t root_end = 0, defs_at = 0;
	enum scan_result where = results_scan_trx_definitions(p->fd, start, p->lim.max_bytes,
							      &root_end, &defs_at);

	/* None to read: no prepass at all (a JUnit file, a TRX without definitions). */
	if (where == SCAN_NONE) {
		p->classes_done = 1;
		return 0;
	}
	parser_init(&q, p->fd, p->path, &p->lim, NULL, NULL, &scratch);
	q.prepass = 1;
	q.pos = start;
	/* Only the prolog, the root's start tag and the definitions are parsed. */
	if (where == SCAN_DEFS && defs_at > root_end) {
		q.skip_from = root_end;
		q.skip_to = defs_at;
	}
	if (results_sax_read(&q) == 0 || (q.reason && !strcmp(q.reason, PREPASS_DONE))) {
		p->classes = q.classes;
		p->classes_done = 1;
		q.classes = NULL;
	}
	parser_release(&q);
	results_file_release(&scratch);
	if (lseek(p->fd, start, SEEK_SET) != start) {
		*err = xasprintf("%s: cannot read it again: %s", p->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Parses what fd (borrowed, open for reading) gives; path names it in reasons. */
static int parse_fd(int fd, const char *path, const struct results_limits *limits,
		    results_test_fn fn, void *ctx, struct results_file *out, char **err)
{
	struct parser p;
	off_t start;
	int ret = -1;

	*err = NULL;
	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	parser_init(&p, fd, path, limits, fn, ctx, out);
	/* A FIFO is read once: its results are named by the definitions before them. */
	start = lseek(fd, 0, SEEK_CUR);
	if (start >= 0 && read_classes(&p, start, err) < 0)
		goto out;
	/* Hashed in the read the figures come from: the manifest can list these very bytes. */
	if (p.lim.sha256)
		p.hash = sha256_new();
	if (results_sax_read(&p) < 0) {
		*err = failure_reason(&p);
		goto out;
	}
	if (p.hash) {
		sha256_final(p.hash, out->sha256);
		p.hash = NULL;
		out->hashed = 1;
	}
	out->bytes = p.nread;
	if (!p.root_seen) {
		*err = xasprintf("%s:1: no root element (empty document)", path);
		goto out;
	}
	p.dialect->finish(&p);
	finish_notes(&p);
	if (!out->has_declared) {
		struct results_counts none = { -1, -1, -1, -1, -1, -1, -1 };
		out->declared = none;
	}
	ret = 0;
out:
	parser_release(&p);
	if (ret < 0)
		results_file_release(out);
	return ret;
}

int results_parse(const char *path, const struct results_limits *limits, results_test_fn fn,
		  void *ctx, struct results_file *out, char **err)
{
	static const struct results_limits defaults = RESULTS_LIMITS_DEFAULT;
	int fd, ret;

	*err = NULL;
	memset(out, 0, sizeof(*out));
	fd = open_input(path, (limits ? limits : &defaults)->max_bytes, err);
	if (fd < 0)
		return -1;
	ret = parse_fd(fd, path, limits, fn, ctx, out, err);
	if (close(fd) < 0 && ret == 0) {
		*err = xasprintf("%s: cannot close: %s", path, strerror(errno));
		results_file_release(out);
		ret = -1;
	}
	return ret;
}

int results_parse_fd(int fd, const char *path, const struct results_limits *limits,
		     results_test_fn fn, void *ctx, struct results_file *out, char **err)
{
	static const struct results_limits defaults = RESULTS_LIMITS_DEFAULT;
	uint64_t max = (limits ? limits : &defaults)->max_bytes;
	struct stat st;

	*err = NULL;
	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st) < 0) {
		*err = xasprintf("%s: cannot stat: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("%s: not a regular file", path);
		return -1;
	}
	if ((uint64_t)st.st_size > max) {
		*err = xasprintf("%s: file is %lld bytes, over the limit of %llu", path,
				 (long long)st.st_size, (unsigned long long)max);
		return -1;
	}
	return parse_fd(fd, path, limits, fn, ctx, out, err);
}



const char *results_outcome_name(enum test_outcome o)
{
	switch (o) {
	case OUTCOME_PASSED: return "passed";
	case OUTCOME_FAILED: return "failed";
	case OUTCOME_ERROR: return "error";
	case OUTCOME_SKIPPED: return "skipped";
	case OUTCOME_OTHER: return "other";
	}
	return "unknown";
}


