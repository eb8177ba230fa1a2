/*
 * results: reads VSTest TRX and JUnit XML files with libxml2's streaming
 * reader (xmlTextReader) into counts, the file's own counters, one-line
 * notes and one callback per leaf test. It keeps no DOM and no test beyond
 * the one being read, so memory depends on the limits, not on the file.
 * It does not validate either format, decide what the counts mean for a
 * run (the guards do) or print anything (the caller reports). This file
 * is the reader core: input, hostility, the element loop and the shared
 * helpers; what TRX and JUnit elements mean is in results_trx.c and
 * results_junit.c, plugged in through the table in results_reader.h.
 *
 * Hostile input is handled in layers. The file is opened here (regular
 * files and FIFOs only) and fed to libxml2 through a read callback that
 * counts bytes, so a FIFO is capped like a file. The same callback follows
 * the prolog byte by byte and withholds the input as soon as "<!DOCTYPE"
 * appears there, so libxml2 never sees a DTD: no external entity, external
 * subset or entity loop can be expanded. A DOCTYPE node that slips past
 * the byte scan (UTF-16 input) is refused when the reader reports it. The
 * parser runs without NOENT, DTDLOAD, DTDATTR, DTDVALID, XINCLUDE, HUGE
 * and RECOVER, with NONET, and a process-wide external entity loader that
 * refuses everything (the main document comes through the callback, not
 * the loader).
 *
 * JUnit suite-level errors: a testsuite may declare errors (jest: a suite
 * that failed to run) without a testcase for them. Counts come from test
 * cases only, so such errors are not counted; the suite's disagreement
 * with what was counted inside it becomes a note.
 */
#define _POSIX_C_SOURCE 200809L
#include "results.h"
#include "results_reader.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static xmlParserInputPtr deny_entity_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
	(void)url;
	(void)id;
	(void)ctxt;
	return NULL;
}

static void xml_setup(void)
{
	xmlInitParser();
	xmlSetExternalEntityLoader(deny_entity_loader);
}

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

/* The longest prefix of s (len bytes) of at most max bytes that does not split a UTF-8 sequence. */
size_t results_utf8_cut(const char *s, size_t len, size_t max)
{
	size_t cut;
	if (len <= max)
		return len;
	cut = max;
	while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
		cut--;
	return cut;
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
	f->notes = xrealloc(f->notes, (f->nnotes + 1) * sizeof(*f->notes));
	f->notes[f->nnotes++] = xstrdup(line);
}

long results_line(struct parser *p)
{
	xmlNodePtr n = xmlTextReaderCurrentNode(p->r);
	long line = n ? xmlGetLineNo(n) : -1;
	/* Element lines are stored in 16 bits: past 65535 the parser's position is closer. */
	if (line <= 0 || line >= 65535)
		line = xmlTextReaderGetParserLineNumber(p->r);
	return line;
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

static void on_xml_error(void *arg, xmlErrorPtr e)
{
	struct parser *p = arg;
	char line[REASON_MAX];
	if (!e || e->level < XML_ERR_ERROR || p->xml_reason)
		return;
	results_clean_line(line, sizeof(line), e->message ? e->message : "malformed XML");
	p->xml_reason = xstrdup(line[0] ? line : "malformed XML");
	p->xml_line = e->line;
	p->xml_code = e->code;
}

/* libxml2 reports a few problems without a parser context; keep them off stderr. */
static void on_generic_error(void *arg, const char *fmt, ...)
{
	struct parser *p = arg;
	va_list ap;
	char buf[REASON_MAX];
	int n;
	if (!p || p->generic.len >= REASON_MAX)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		strbuf_add(&p->generic, buf, strlen(buf));
}

/*
 * Follows the prolog (XML declaration, PIs, comments, whitespace) up to the
 * root's start tag. Returns 1 when "<!DOCTYPE" starts at buf[i].
 */
static int prolog_scan(struct prolog *ps, const char *buf, size_t n)
{
	for (size_t i = 0; i < n && ps->state != PS_DONE; i++) {
		char c = buf[i];
		/* NUL is no XML character: skipping it reads UTF-16 and UTF-32 prologs too. */
		if (c == '\0')
			continue;
		if (c == '\n')
			ps->line++;
		switch (ps->state) {
		case PS_TEXT:
			if (c == '<')
				ps->state = PS_LT;
			break;
		case PS_LT:
			if (c == '?') {
				ps->state = PS_PI;
				ps->sub = 0;
			} else if (c == '!') {
				ps->state = PS_BANG;
				ps->want = NULL;
				ps->sub = 0;
			} else {
				ps->state = PS_DONE;
			}
			break;
		case PS_PI:
			if (c == '>' && ps->sub)
				ps->state = PS_TEXT;
			else
				ps->sub = c == '?';
			break;
		case PS_BANG:
			if (!ps->want)
				ps->want = c == '-' ? "--" : c == 'D' ? "DOCTYPE" : "";
			if (c != ps->want[ps->sub]) {
				ps->state = PS_DONE;   /* not a prolog construct: libxml2 will say so */
				break;
			}
			if (ps->want[++ps->sub])
				break;
			if (ps->want[0] == 'D') {
				ps->doctype_line = ps->line;
				ps->state = PS_DONE;
				return 1;
			}
			ps->state = PS_COMMENT;
			ps->sub = 0;
			break;
		case PS_COMMENT:
			if (c == '>' && ps->sub >= 2)
				ps->state = PS_TEXT;
			else
				ps->sub = c == '-' ? ps->sub + 1 : 0;
			break;
		case PS_DONE:
			break;
		}
	}
	return 0;
}

static int io_read(void *arg, char *buf, int len)
{
	struct parser *p = arg;
	uint64_t room;
	size_t want;
	ssize_t n;
	if (p->oversize || p->read_errno || p->pro.doctype_line > 0)
		return -1;
	if (len <= 0)
		return 0;
	/* Read one byte past the limit so that a file of exactly max_bytes passes. */
	room = p->lim.max_bytes - p->nread;
	if (room < UINT64_MAX)
		room++;
	want = (uint64_t)len < room ? (size_t)len : (size_t)room;
	do
		n = read(p->fd, buf, want);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		p->read_errno = errno ? errno : EIO;
		return -1;
	}
	p->nread += (uint64_t)n;
	if (p->nread > p->lim.max_bytes) {
		p->oversize = 1;
		return -1;
	}
	if (p->pro.state != PS_DONE && prolog_scan(&p->pro, buf, (size_t)n))
		return -1;
	return (int)n;
}

/*
 * The attribute called name (no namespace, as xmlTextReaderGetAttribute
 * matches it) of the current element; caller frees. The common case — a
 * plain text value — is read straight from the element's attribute list:
 * asking the reader walks the list and allocates on every call, which was
 * most of abev's own cost on a TRX of many small results.
 */
char *results_attr(struct parser *p, const char *name)
{
	xmlNodePtr node = xmlTextReaderCurrentNode(p->r);
	xmlChar *v;
	char *s;

	if (node && node->type == XML_ELEMENT_NODE) {
		xmlAttrPtr a;
		for (a = node->properties; a; a = a->next)
			if (!a->ns && xmlStrEqual(a->name, (const xmlChar *)name))
				break;
		if (!a)
			return NULL;
		if (!a->children)
			return xstrdup("");
		if (a->children->type == XML_TEXT_NODE && !a->children->next)
			return xstrdup(a->children->content ? (const char *)a->children->content : "");
	}
	v = xmlTextReaderGetAttribute(p->r, (const xmlChar *)name);
	if (!v)
		return NULL;
	s = xstrdup((const char *)v);
	xmlFree(v);
	return s;
}

/*
 * Several attributes of the current element in one walk of its list, for
 * the per-test hot path. vals[i] is borrowed from the reader (valid until
 * the next read) or, for a value that is not plain text, a copy recorded
 * in owned[i]; NULL when absent. Release with results_attrs_release().
 */

void results_attrs_get(struct parser *p, const char *const *names, size_t n,
		      struct attr_vals *out)
{
	xmlNodePtr node = xmlTextReaderCurrentNode(p->r);

	memset(out, 0, sizeof(*out));
	if (!node || node->type != XML_ELEMENT_NODE) {
		for (size_t i = 0; i < n; i++)
			out->v[i] = out->owned[i] = results_attr(p, names[i]);
		return;
	}
	for (xmlAttrPtr a = node->properties; a; a = a->next) {
		size_t i;
		if (a->ns)
			continue;
		/* The first byte rules out most names without a call. */
		for (i = 0; i < n; i++)
			if (a->name[0] == (xmlChar)names[i][0] &&
			    xmlStrEqual(a->name, (const xmlChar *)names[i]))
				break;
		if (i == n || out->v[i])
			continue;
		if (!a->children)
			out->v[i] = "";
		else if (a->children->type == XML_TEXT_NODE && !a->children->next)
			out->v[i] = a->children->content ? (const char *)a->children->content : "";
		else
			out->v[i] = out->owned[i] = results_attr(p, names[i]);
	}
}

void results_attrs_release(struct attr_vals *a)
{
	for (size_t i = 0; i < ATTRS_WANT_MAX; i++)
		free(a->owned[i]);
}

char *results_attr_field(struct parser *p, const char *name)
{
	char *v = results_attr(p, name);
	if (v && strlen(v) > FIELD_MAX)
		v[results_utf8_cut(v, strlen(v), FIELD_MAX)] = '\0';
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
	strbuf_reset(&t->out);
	strbuf_reset(&t->raw_buf);
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
	strbuf_add(&t->raw_buf, v, results_utf8_cut(v, strlen(v), FIELD_MAX));
	t->raw = t->raw_buf.buf;
}

void results_frame_set_name(struct parser *p, struct test_frame *t, const char *classname,
			   const char *name)
{
	size_t max = p->lim.max_name;
	int cut = 0;
	const char *parts[3] = { classname, classname ? "." : NULL, name ? name : "" };
	strbuf_reset(&t->name);
	for (size_t i = 0; i < ARRAY_SIZE(parts) && !cut; i++) {
		size_t len, room = max - t->name.len;
		if (!parts[i])
			continue;
		len = strlen(parts[i]);
		if (len > room) {
			len = results_utf8_cut(parts[i], len, room);
			cut = 1;
		}
		strbuf_add(&t->name, parts[i], len);
	}
	if (cut)
		p->long_names++;
}

void results_capture_text(struct parser *p, struct test_frame *t, const char *s)
{
	size_t len = strlen(s), room;
	if (t->out_truncated)
		return;
	room = p->lim.max_stdout - t->out.len;
	if (len > room) {
		len = results_utf8_cut(s, len, room);
		t->out_truncated = 1;
	}
	strbuf_add(&t->out, s, len);
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
	struct test_case tc = {
		.name = t->name.buf,
		.outcome_raw = t->raw,
		.outcome = o,
		.executed = executed,
		.duration_s = t->duration,
		.stdout_text = t->out.buf,
		.stdout_len = t->out.len,
		.stdout_truncated = t->out_truncated,
		.parent = parent,
	};
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

static void text_node(struct parser *p, int depth)
{
	enum role role;
	const xmlChar *v;
	if (depth < 1)
		return;
	role = (enum role)p->roles[depth - 1];
	if (role != R_TRX_STDOUT && role != R_JU_SYSOUT)
		return;
	v = xmlTextReaderConstValue(p->r);
	if (!v) {
		results_refuse(p, results_line(p), "cannot read a text node");
		return;
	}
	results_capture_text(p, &p->tests[p->ntests - 1], (const char *)v);
}

/* Handles the reader's current node; 0, or -1 once a reason to stop is set. */
static int handle_node(struct parser *p)
{
	int type = xmlTextReaderNodeType(p->r);
	int depth = xmlTextReaderDepth(p->r);
	int empty;
	const xmlChar *name;
	if (type < 0 || depth < 0) {
		results_refuse(p, xmlTextReaderGetParserLineNumber(p->r), "the XML reader failed");
		return -1;
	}
	switch (type) {
	case XML_READER_TYPE_DOCUMENT_TYPE:
		results_refuse(p, results_line(p), "DOCTYPE is not allowed in test results "
		       "(possible external entity or entity expansion attack)");
		break;
	case XML_READER_TYPE_ENTITY_REFERENCE:
	case XML_READER_TYPE_ENTITY:
		results_refuse(p, results_line(p), "entity references are not allowed in test results");
		break;
	case XML_READER_TYPE_ELEMENT:
		if ((unsigned)depth >= p->depth_limit) {
			results_refuse(p, results_line(p), "elements nested deeper than %u levels", p->depth_limit);
			break;
		}
		name = xmlTextReaderConstLocalName(p->r);
		empty = xmlTextReaderIsEmptyElement(p->r);
		if (!name || empty < 0) {
			results_refuse(p, results_line(p), "the XML reader failed on an element");
			break;
		}
		element_start(p, depth, (const char *)name);
		if (empty && !p->reason)
			element_end(p, depth);
		break;
	case XML_READER_TYPE_END_ELEMENT:
		if ((unsigned)depth < p->depth_limit)
			element_end(p, depth);
		break;
	case XML_READER_TYPE_TEXT:
	case XML_READER_TYPE_CDATA:
	case XML_READER_TYPE_WHITESPACE:
	case XML_READER_TYPE_SIGNIFICANT_WHITESPACE:
		if ((unsigned)depth <= p->depth_limit)
			text_node(p, depth);
		break;
	default:
		break;
	}
	return p->reason ? -1 : 0;
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
			strbuf_release(&p->tests[i].out);
			strbuf_release(&p->tests[i].raw_buf);
		}
	if (p->suites)
		for (unsigned i = 0; i <= p->depth_limit; i++)
			strbuf_release(&p->suites[i].name);
	free(p->tests);
	free(p->suites);
	free(p->roles);
	free(p->reason);
	free(p->xml_reason);
	strbuf_release(&p->generic);
}

/*
 * The one-line reason why reading failed (caller frees), or NULL when it
 * did not. rc is the last xmlTextReaderRead() result. Our own findings come
 * before libxml2's, which are often consequences of them (the read callback
 * failing on a DOCTYPE or on the size limit).
 */
static char *failure_reason(struct parser *p, int rc)
{
	const char *path = p->path;
	long at = p->xml_line > 0 ? p->xml_line : 1;
	char line[REASON_MAX];

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
	if (!p->r)
		return NULL;
	if (p->nread == 0)
		return xasprintf("%s: file is empty", path);
	if (rc < 0 && p->xml_code == XML_ERR_DOCUMENT_END && p->root_seen && !p->root_closed)
		/* libxml2's reader reports a truncated document as "Extra content at the end". */
		return xasprintf("%s:%ld: premature end of the document (truncated file?)", path, at);
	if (rc < 0 && p->xml_code == XML_ERR_DOCUMENT_EMPTY)
		/* libxml2 says "Document is empty" of any input that does not start with markup. */
		return xasprintf("%s:%ld: not an XML document (no markup where it should begin)", path, at);
	if (rc < 0) {
		if (!p->xml_reason)
			at = xmlTextReaderGetParserLineNumber(p->r);
		results_clean_line(line, sizeof(line), p->xml_reason ? p->xml_reason : p->generic.buf);
		return xasprintf("%s:%ld: %s", path, at > 0 ? at : 1, line[0] ? line : "not well-formed XML");
	}
	if (!p->root_seen)
		return xasprintf("%s:1: no root element (empty document)", path);
	return NULL;
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

/* Parses what fd (borrowed, open for reading) gives; path names it in reasons. */
static int parse_fd(int fd, const char *path, const struct results_limits *limits,
		    results_test_fn fn, void *ctx, struct results_file *out, char **err)
{
	static const struct results_limits defaults = RESULTS_LIMITS_DEFAULT;
	struct parser p = { 0 };
	xmlGenericErrorFunc old_generic = xmlGenericError;
	void *old_generic_ctx = xmlGenericErrorContext;
	xmlStructuredErrorFunc old_structured = xmlStructuredError;
	void *old_structured_ctx = xmlStructuredErrorContext;
	int handlers_set = 0, rc = 0, ret = -1;

	*err = NULL;
	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	p.path = path;
	p.lim = limits ? *limits : defaults;
	p.depth_limit = p.lim.max_depth < DEPTH_CEILING ? p.lim.max_depth : DEPTH_CEILING;
	p.fn = fn;
	p.ctx = ctx;
	p.out = out;
	p.fd = -1;
	p.pro.line = 1;
	strbuf_init(&p.generic);
	for (int i = 0; i < JU_N; i++)
		p.root_decl[i] = p.top_decl[i] = -1;
	p.roles = xcalloc(p.depth_limit + 1, 1);
	p.tests = xcalloc(p.depth_limit + 1, sizeof(*p.tests));
	p.suites = xcalloc(p.depth_limit + 1, sizeof(*p.suites));
	for (unsigned i = 0; i <= p.depth_limit; i++) {
		strbuf_init(&p.tests[i].name);
		strbuf_init(&p.tests[i].out);
		strbuf_init(&p.tests[i].raw_buf);
		strbuf_init(&p.suites[i].name);
	}

	p.fd = fd;
	if (pthread_once(&xml_once, xml_setup) != 0) {
		*err = xasprintf("%s: cannot initialise libxml2", path);
		goto out;
	}
	/* Per-thread in libxml2: messages raised outside the parser context land here, not on stderr. */
	xmlSetGenericErrorFunc(&p, on_generic_error);
	xmlSetStructuredErrorFunc(&p, on_xml_error);
	handlers_set = 1;

	/*
	 * COMPACT keeps small text nodes inside their node (fewer mallocs, as
	 * xmllint does by default); NOBLANKS drops the indentation between
	 * elements instead of making text nodes of it (3% fewer instructions
	 * on a vstest TRX); BIG_LINES gives true line numbers past 65535 for
	 * error messages. None of them loads or expands anything.
	 */
	p.r = xmlReaderForIO(io_read, NULL, &p, path, NULL,
			     XML_PARSE_NONET | XML_PARSE_COMPACT | XML_PARSE_BIG_LINES | XML_PARSE_NOBLANKS);
	if (!p.r) {
		/* Creating the reader reads the first bytes: they may be the reason. */
		*err = failure_reason(&p, -1);
		if (!*err)
			*err = xasprintf("%s: cannot create an XML reader", path);
		goto out;
	}
	xmlTextReaderSetStructuredErrorHandler(p.r, on_xml_error, &p);

	/* Bounded: every step consumes input, and input stops at max_bytes. */
	while ((rc = xmlTextReaderRead(p.r)) == 1)
		if (handle_node(&p) < 0)
			break;

	*err = failure_reason(&p, rc);
	if (xmlTextReaderClose(p.r) < 0 && !*err)
		*err = xasprintf("%s: cannot close the XML reader", path);
	if (*err)
		goto out;

	/* Without a root the read has failed above; TRX is the format's zero value. */
	(p.dialect ? p.dialect : &results_trx_dialect)->finish(&p);
	finish_notes(&p);
	if (!out->has_declared) {
		struct results_counts none = { -1, -1, -1, -1, -1, -1, -1 };
		out->declared = none;
	}
	ret = 0;
out:
	if (p.r)
		xmlFreeTextReader(p.r);   /* returns nothing */
	if (handlers_set) {
		xmlSetGenericErrorFunc(old_generic_ctx, old_generic);
		xmlSetStructuredErrorFunc(old_structured_ctx, old_structured);
	}
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

void results_file_release(struct results_file *f)
{
	if (!f)
		return;
	free(f->path);
	free(f->outcome);
	free(f->start);
	free(f->finish);
	for (size_t i = 0; i < f->nnotes; i++)
		free(f->notes[i]);
	free(f->notes);
	memset(f, 0, sizeof(*f));
}

const char *results_format_name(enum results_format f)
{
	switch (f) {
	case RESULTS_TRX: return "trx";
	case RESULTS_JUNIT: return "junit";
	}
	return "unknown";
}

const char *test_outcome_name(enum test_outcome o)
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

void results_counts_add(struct results_counts *sum, const struct results_counts *c)
{
	sum->total += c->total;
	sum->executed += c->executed;
	sum->passed += c->passed;
	sum->failed += c->failed;
	sum->errors += c->errors;
	sum->skipped += c->skipped;
	sum->other += c->other;
}

