/*
 * results_sax: libxml2's side of the results reader — the SAX2 push parser
 * that the core (results.c) drives, the read loop that feeds it, access to
 * the attributes of the element being started, and libxml2's errors said
 * in abev's words. It builds no node and no document: libxml2 hands each
 * start tag, end tag and run of text to a callback, and the core keeps
 * only what the dialects ask for. What the elements mean is not here
 * (results_trx.c, results_junit.c), nor opening the file (results.c).
 *
 * Hostile input is handled in layers. The read loop counts bytes, so a
 * FIFO is capped like a file, and follows the prolog byte by byte,
 * withholding the input as soon as "<!DOCTYPE" appears there: libxml2
 * never sees a DTD, so no external entity, external subset or entity loop
 * can be expanded. The handler declares nothing for the DTD events, and
 * the ones that would (internal or external subset, entity, notation,
 * element or attribute declarations, an entity reference) refuse and stop
 * the parser, for a DOCTYPE the byte scan could not follow. getEntity
 * knows no entity, so "&x;" is an error, while the five predefined ones
 * and character references are libxml2's own and always work. The parser
 * runs without NOENT, DTDLOAD, DTDATTR, DTDVALID, XINCLUDE, HUGE and
 * RECOVER, with NONET, and a process-wide external entity loader refuses
 * everything (the document itself comes through the read loop).
 * libxml2 holds a piece of markup (a start tag with its attributes, a
 * comment, a CDATA section) until it has seen its end; the read loop
 * refuses a tag longer than RESULTS_MARKUP_MAX and anything else longer
 * than RESULTS_HELD_MAX, in abev's words, before libxml2 reaches its own
 * "Huge input lookup" at 10 MB.
 */
#include "util/hash.h"
#include "results/results.h"
#include "results/results_reader.h"
#include "util/alloc.h"
#include "util/strbuf.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

/* Bytes per read() and per xmlParseChunk(): fewer calls, one buffer in cache. */
#ifndef CHUNK
#define CHUNK (256 * 1024)
#endif

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

long results_line(struct parser *p)
{
	return p->ctxt ? (long)xmlSAX2GetLineNumber(p->ctxt) : -1;
}

/* Refuses from inside a callback and stops libxml2 at once. */
static void sax_refuse(struct parser *p, const char *why)
{
	results_refuse(p, results_line(p), "%s", why);
	xmlStopParser(p->ctxt);
}

/* ---- attributes of the element being started ---- */

/*
 * Appends the value [v, end) to sb, NUL-terminated. Without entity
 * substitution libxml2 hands an '&' (written "&amp;" or "&#38;") as
 * "&#38;" for a tree builder to decode; every other reference is already
 * decoded, so that is the one sequence to undo.
 */
static void attr_add(struct strbuf *sb, const xmlChar *v, const xmlChar *end)
{
	size_t len = (size_t)(end - v);
	const char *s = (const char *)v, *amp;

	while ((amp = memchr(s, '&', len))) {
		size_t k = (size_t)(amp - s);
		strbuf_add(sb, s, k);
		strbuf_addch(sb, '&');
		k += len - k >= 5 && !memcmp(amp, "&#38;", 5) ? 5 : 1;
		s += k;
		len -= k;
	}
	strbuf_add(sb, s, len);
	strbuf_addch(sb, '\0');
}

/*
 * The index of the attribute called name in p->attrs, or -1. A prefixed
 * attribute never matches: it is in a namespace or, when its prefix is
 * unbound, named "x:name" (as libxml2's tree, which the reader before this
 * one read, names it).
 */
static int attr_find(const struct parser *p, const char *name)
{
	for (int i = 0; i < p->nattrs; i++) {
		const xmlChar *const *a = p->attrs + 5 * i;
		if (!a[1] && a[0][0] == (xmlChar)name[0] && !strcmp((const char *)a[0], name))
			return i;
	}
	return -1;
}

char *results_attr(struct parser *p, const char *name)
{
	int i = p->attrs ? attr_find(p, name) : -1;
	struct strbuf sb = STRBUF_INIT;

	/* Its own buffer: what results_attrs_get() lent stays valid. */
	if (i < 0)
		return NULL;
	attr_add(&sb, p->attrs[5 * i + 3], p->attrs[5 * i + 4]);
	return strbuf_detach(&sb, NULL);
}

void results_attrs_get(struct parser *p, const char *const *names, size_t n,
		       struct attr_vals *out)
{
	size_t off[ATTRS_WANT_MAX];
	int found[ATTRS_WANT_MAX] = { 0 };

	memset(out, 0, sizeof(*out));
	strbuf_reset(&p->attrbuf);
	if (!p->attrs || n > ATTRS_WANT_MAX)
		return;
	/* One walk of the list; pointers are set once the buffer has stopped moving. */
	for (int k = 0; k < p->nattrs; k++) {
		const xmlChar *const *a = p->attrs + 5 * k;
		size_t i;
		if (a[1])
			continue;   /* prefixed: in a namespace, or named "x:name" when x is unbound */
		for (i = 0; i < n; i++)
			if (a[0][0] == (xmlChar)names[i][0] && !strcmp((const char *)a[0], names[i]))
				break;
		if (i == n || found[i])
			continue;
		found[i] = 1;
		off[i] = p->attrbuf.len;
		attr_add(&p->attrbuf, a[3], a[4]);
	}
	for (size_t i = 0; i < n; i++)
		if (found[i])
			out->v[i] = p->attrbuf.buf + off[i];
}

/* ---- the SAX2 handler ---- */

/*
 * Captured text is what the xmlTextReader-based reader before this one
 * gave, byte for byte: it ran with NOBLANKS, under which libxml2's
 * areBlanks() drops a run of blanks inside the capturing element when it
 * comes before markup ('<', or a CR), the element has no text yet (nor
 * xml:space="preserve"), and it is not the element's only content
 * ("<StdOut>  </StdOut>" keeps its blanks). Indentation around a CDATA
 * section in a JUnit system-out is the case the corpus holds.
 */
static int blanks_dropped(struct parser *p, const xmlChar *s, int len)
{
	const xmlChar *next = p->ctxt->input ? p->ctxt->input->cur : NULL;
	if (p->cap_text || !next || (*next != '<' && *next != '\r'))
		return 0;
	if (!p->cap_child && next[0] == '<' && next[1] == '/')
		return 0;
	if (p->ctxt->space && *p->ctxt->space == 1)
		return 0;
	for (int i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return 0;
	return 1;
}

static void on_text(void *ctx, const xmlChar *s, int len)
{
	struct parser *p = ctx;
	if (len <= 0 || blanks_dropped(p, s, len))
		return;
	p->cap_text = 1;
	results_text(p, (const char *)s, (size_t)len);
}

static void on_cdata(void *ctx, const xmlChar *s, int len)
{
	struct parser *p = ctx;
	p->cap_child = 1;
	if (len > 0)
		results_text(p, (const char *)s, (size_t)len);
}

static void on_comment(void *ctx, const xmlChar *s)
{
	struct parser *p = ctx;
	(void)s;
	p->cap_child = 1;
}

static void on_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
	(void)target;
	on_comment(ctx, data);
}

/*
 * Text is wanted only directly inside an element whose output is captured,
 * and only when a callback will see it: elsewhere the text handlers are
 * unset, and libxml2 skips the call for every run of text and indentation.
 * Returns whether they are set.
 */
static int text_sync(struct parser *p)
{
	int want = p->depth > 0 && results_text_wanted(p, p->roles[p->depth - 1]);
	xmlSAXHandlerPtr sax = p->ctxt->sax;
	if (want != (sax->characters != NULL)) {
		sax->characters = sax->ignorableWhitespace = want ? on_text : NULL;
		sax->cdataBlock = want ? on_cdata : NULL;
		sax->comment = want ? on_comment : NULL;
		sax->processingInstruction = want ? on_pi : NULL;
	}
	return want;
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
		     const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
		     int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
	struct parser *p = ctx;
	char qname[LABEL_MAX];
	(void)nb_namespaces;
	(void)namespaces;
	(void)nb_defaulted;
	if (nb_attributes > RESULTS_ATTRS_MAX) {
		char label[LABEL_MAX];
		results_clean_line(label, sizeof(label), (const char *)localname);
		results_refuse(p, results_line(p), "element '%s' has %d attributes, more than %d: "
			       "not a test-result file abev can read", label, nb_attributes,
			       RESULTS_ATTRS_MAX);
		xmlStopParser(p->ctxt);
		return;
	}
	p->attrs = attributes;
	p->nattrs = nb_attributes;
	if (p->ctxt->sax->characters)
		p->cap_child = 1;   /* an element inside the capturing one */
	if (prefix && !uri) {
		/*
		 * An unbound prefix (libxml2 has raised it, and it becomes a note):
		 * the element is "x:name", as libxml2's tree names it. Cut to
		 * LABEL_MAX it still matches no element abev knows (their names
		 * are short and have no ':').
		 */
		if (snprintf(qname, sizeof(qname), "%s:%s", (const char *)prefix,
			     (const char *)localname) < 0)
			memcpy(qname, ":", 2);
		localname = (const xmlChar *)qname;
	}
	results_element_start(p, (const char *)localname);
	p->attrs = NULL;
	p->nattrs = 0;
	if (p->reason)
		xmlStopParser(p->ctxt);
	else if (text_sync(p))
		p->cap_text = p->cap_child = 0;   /* a capturing element begins */
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
	struct parser *p = ctx;
	(void)localname;
	(void)prefix;
	(void)uri;
	results_element_end(p);
	if (p->reason)
		xmlStopParser(p->ctxt);
	else
		text_sync(p);
}

static void on_subset(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys)
{
	(void)name;
	(void)ext;
	(void)sys;
	sax_refuse(ctx, "DOCTYPE is not allowed in test results "
		   "(possible external entity or entity expansion attack)");
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *pub,
			   const xmlChar *sys, xmlChar *content)
{
	(void)name;
	(void)type;
	(void)pub;
	(void)sys;
	(void)content;
	sax_refuse(ctx, "entity declarations are not allowed in test results");
}

static void on_decl(void *ctx, const xmlChar *name, const xmlChar *pub, const xmlChar *sys)
{
	(void)name;
	(void)pub;
	(void)sys;
	sax_refuse(ctx, "DTD declarations are not allowed in test results");
}

static void on_unparsed(void *ctx, const xmlChar *name, const xmlChar *pub, const xmlChar *sys,
			const xmlChar *notation)
{
	(void)notation;
	on_decl(ctx, name, pub, sys);
}

static void on_attribute_decl(void *ctx, const xmlChar *elem, const xmlChar *fullname, int type,
			      int def, const xmlChar *defaultValue, xmlEnumerationPtr tree)
{
	(void)elem;
	(void)fullname;
	(void)type;
	(void)def;
	(void)defaultValue;
	xmlFreeEnumeration(tree);   /* the callee owns it */
	sax_refuse(ctx, "DTD declarations are not allowed in test results");
}

static void on_element_decl(void *ctx, const xmlChar *name, int type, xmlElementContentPtr content)
{
	(void)name;
	(void)type;
	(void)content;
	sax_refuse(ctx, "DTD declarations are not allowed in test results");
}

static void on_reference(void *ctx, const xmlChar *name)
{
	(void)name;
	sax_refuse(ctx, "entity references are not allowed in test results");
}

static xmlEntityPtr no_entity(void *ctx, const xmlChar *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

static xmlParserInputPtr no_input(void *ctx, const xmlChar *pub, const xmlChar *sys)
{
	(void)pub;
	(void)sys;
	sax_refuse(ctx, "external entities are not allowed in test results");
	return NULL;
}

static void on_xml_error(void *arg, xmlErrorPtr e)
{
	struct parser *p = arg;
	char line[REASON_MAX];
	/*
	 * The first error, unless a fatal one follows a recoverable one (a
	 * namespace error): the fatal one is why the read stopped.
	 */
	if (!e || e->level < XML_ERR_ERROR || (p->xml_reason && (p->xml_fatal || e->level != XML_ERR_FATAL)))
		return;
	results_clean_line(line, sizeof(line), e->message ? e->message : "malformed XML");
	free(p->xml_reason);
	p->xml_reason = xstrdup(line[0] ? line : "malformed XML");
	p->xml_line = e->line;
	p->xml_code = e->code;
	p->xml_fatal = e->level == XML_ERR_FATAL;
	p->xml_at_end = p->eof;
	results_clean_line(p->xml_str1, sizeof(p->xml_str1), e->str1 ? e->str1 : "");
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

/* Only the events abev uses, and refusals for every DTD event: nothing of xmlSAX2's defaults. */
static void handler_init(xmlSAXHandler *h)
{
	memset(h, 0, sizeof(*h));
	h->initialized = XML_SAX2_MAGIC;
	h->startElementNs = on_start;
	h->endElementNs = on_end;
	/* characters, cdataBlock, ignorableWhitespace, comment, PIs: set by text_sync() where text is kept. */
	h->internalSubset = on_subset;
	h->externalSubset = on_subset;
	h->entityDecl = on_entity_decl;
	h->notationDecl = on_decl;
	h->unparsedEntityDecl = on_unparsed;
	h->attributeDecl = on_attribute_decl;
	h->elementDecl = on_element_decl;
	h->reference = on_reference;
	h->getEntity = no_entity;
	h->getParameterEntity = no_entity;
	h->resolveEntity = no_input;
	h->serror = on_xml_error;
}

/* ---- the read loop ---- */

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

/*
 * Up to len bytes of the input into buf: their count, 0 at the end, or -1
 * when the input must not reach libxml2 (over the size limit, a read
 * error, a DOCTYPE in the prolog), with the reason in p.
 */
static ssize_t read_chunk(struct parser *p, char *buf, size_t len)
{
	uint64_t room = p->lim.max_bytes - p->nread;
	size_t want;
	ssize_t n;

	/* Read one byte past the limit so that a file of exactly max_bytes passes. */
	if (room < UINT64_MAX)
		room++;
	want = (uint64_t)len < room ? len : (size_t)room;
	if (p->skip_to) {
		/* The prepass's jump (results_scan.c): up to skip_from, then on from skip_to. */
		if (p->pos == p->skip_from) {
			if (lseek(p->fd, p->skip_to, SEEK_SET) != p->skip_to) {
				p->read_errno = errno ? errno : EIO;
				return -1;
			}
			p->pos = p->skip_to;
			p->skip_to = 0;
		} else if ((off_t)want > p->skip_from - p->pos) {
			want = (size_t)(p->skip_from - p->pos);
		}
	}
	do
		n = read(p->fd, buf, want);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		p->read_errno = errno ? errno : EIO;
		return -1;
	}
	p->pos += n;
	p->nread += (uint64_t)n;
	if (p->hash)
		sha256_update(p->hash, buf, (size_t)n);
	if (p->nread > p->lim.max_bytes) {
		p->oversize = 1;
		return -1;
	}
	if (p->pro.state != PS_DONE && prolog_scan(&p->pro, buf, (size_t)n))
		return -1;
	return n;
}

/* The bytes libxml2 holds unparsed: the piece of markup it waits to see the end of. */
static size_t held(const struct parser *p)
{
	xmlParserInputPtr in = p->ctxt->input;
	return in && in->cur && in->end > in->cur ? (size_t)(in->end - in->cur) : 0;
}

/* How much libxml2 may hold unparsed in the state it is in. */
static size_t held_max(const struct parser *p)
{
	switch (p->ctxt->instate) {
	case XML_PARSER_START_TAG:
	case XML_PARSER_END_TAG:
		return RESULTS_MARKUP_MAX;
	default:
		return RESULTS_HELD_MAX;
	}
}

/* Refuses the markup libxml2 holds unparsed at s (len bytes, at least max), saying what it is. */
static void refuse_held(struct parser *p, const char *s, size_t len, size_t max)
{
	char name[LABEL_MAX];
	size_t i = 1, k = 0;
	char quote = 0;
	const char *what = p->ctxt->instate == XML_PARSER_CDATA_SECTION ? "a CDATA section"
			 : len >= 4 && !memcmp(s, "<!--", 4) ? "a comment"
			 : len >= 2 && !memcmp(s, "<?", 2) ? "a processing instruction"
			 : len >= 2 && !memcmp(s, "</", 2) ? "an end tag" : NULL;

	if (what || len < 2 || s[0] != '<') {
		results_refuse(p, results_line(p), "%s longer than %zu bytes (abev's limit): "
			       "not a test-result file abev can read", what ? what : "markup", max);
		return;
	}
	while (i < len && k + 1 < sizeof(name) && !strchr(" \t\r\n/>", s[i]))
		name[k++] = s[i++];
	name[k] = '\0';
	results_clean_line(name, sizeof(name), name);
	/* Inside a quoted value at the end of what is held: the value is what is too long. */
	for (; i < len; i++)
		if (quote ? s[i] == quote : (s[i] == '"' || s[i] == '\''))
			quote = quote ? 0 : s[i];
	results_refuse(p, results_line(p), "element '%s': %s longer than %zu bytes (abev's limit): "
		       "not a test-result file abev can read", name,
		       quote ? "an attribute value" : "a start tag", max);
}

/* Gives libxml2 n bytes (none, with terminate, for the end); -1 once the parse has stopped. */
static int feed_step(struct parser *p, const char *buf, size_t n, int terminate)
{
	xmlParserCtxtPtr ctxt = p->ctxt;
	size_t h, max;
	xmlParseChunk(ctxt, buf, (int)n, terminate);   /* its result is the error recorded below */
	/* Not well-formed and no longer reporting (its fatal errors): nothing more will be read. */
	if (p->reason || p->xml_fatal || (!ctxt->wellFormed && ctxt->disableSAX))
		return -1;
	/* Halted before the end without an error of its own (it should not happen): stop too. */
	if (ctxt->instate == XML_PARSER_EOF && !terminate)
		return -1;
	h = held(p);
	max = held_max(p);
	if (h >= max && !terminate) {
		refuse_held(p, (const char *)ctxt->input->cur, h, max);
		return -1;
	}
	return 0;
}

/*
 * Gives libxml2 n bytes in steps that leave it holding less than
 * held_max() unparsed: a start tag of exactly RESULTS_MARKUP_MAX bytes
 * passes, one byte more is refused, wherever the chunks fall.
 */
static int feed(struct parser *p, const char *buf, size_t n)
{
	while (n > 0) {
		size_t h = held(p), max = held_max(p), step = n;
		if (h + step > max)
			step = max > h ? max - h : 1;
		if (feed_step(p, buf, step, 0) < 0)
			return -1;
		buf += step;
		n -= step;
	}
	return 0;
}

/* The push parser, created on the first bytes (libxml2 detects the encoding from four). */
static int parser_create(struct parser *p, const char *buf, size_t n)
{
	xmlSAXHandler h;

	handler_init(&h);
	p->ctxt = xmlCreatePushParserCtxt(&h, p, buf, (int)n, p->path);
	if (!p->ctxt) {
		results_refuse(p, 0, "cannot create an XML parser");
		return -1;
	}
	if (xmlCtxtUseOptions(p->ctxt, XML_PARSE_NONET | XML_PARSE_BIG_LINES) != 0) {
		results_refuse(p, 0, "cannot set the XML parser's options");
		return -1;
	}
	/* What xmlCtxtUseOptions already clears, stated: nothing loaded, substituted or validated. */
	p->ctxt->replaceEntities = 0;
	p->ctxt->loadsubset = 0;
	p->ctxt->validate = 0;
	return 0;
}

int results_sax_read(struct parser *p)
{
	xmlGenericErrorFunc old_generic = xmlGenericError;
	void *old_generic_ctx = xmlGenericErrorContext;
	xmlStructuredErrorFunc old_structured = xmlStructuredError;
	void *old_structured_ctx = xmlStructuredErrorContext;
	char *buf = xmalloc(CHUNK);
	size_t head;
	ssize_t n;
	int ret = -1;

	if (pthread_once(&xml_once, xml_setup) != 0) {
		results_refuse(p, 0, "cannot initialise libxml2");
		free(buf);
		return -1;
	}
	/* Per-thread in libxml2: messages raised outside the parser context land here, not on stderr. */
	xmlSetGenericErrorFunc(p, on_generic_error);
	xmlSetStructuredErrorFunc(p, on_xml_error);

	n = read_chunk(p, buf, CHUNK);
	if (n <= 0)
		goto out;
	head = n < 4 ? (size_t)n : 4;
	if (parser_create(p, buf, head) < 0 ||
	    ((size_t)n > head && feed(p, buf + head, (size_t)n - head) < 0))
		goto out;
	/* Bounded: every round consumes input, and input stops at max_bytes. */
	while ((n = read_chunk(p, buf, CHUNK)) > 0)
		if (feed(p, buf, (size_t)n) < 0)
			goto out;
	if (n < 0)
		goto out;
	p->eof = 1;
	if (feed_step(p, NULL, 0, 1) < 0)
		goto out;
	ret = 0;
out:
	if (p->ctxt) {
		xmlFreeParserCtxt(p->ctxt);   /* returns nothing */
		p->ctxt = NULL;
	}
	xmlSetGenericErrorFunc(old_generic_ctx, old_generic);
	xmlSetStructuredErrorFunc(old_structured_ctx, old_structured);
	free(buf);
	return ret;
}

/* ---- libxml2's errors in abev's words ---- */

char *results_sax_reason(struct parser *p)
{
	char line[REASON_MAX];

	if (p->xml_at_end && p->root_seen && !p->root_closed)
		/* The input ended inside the root: libxml2 says "Extra content" or "Premature end". */
		return xstrdup("premature end of the document (truncated file?)");
	switch (p->xml_code) {
	case XML_ERR_DOCUMENT_END:
		if (p->root_closed)
			return xstrdup("content after the end of the root element (a second root?): "
				       "a test-result file has one root element");
		break;
	case XML_ERR_DOCUMENT_EMPTY:
		/* libxml2 says "Document is empty" of any input that does not start with markup. */
		return xstrdup("not an XML document (no markup where it should begin)");
	case XML_ERR_INVALID_CHAR:
	case XML_ERR_INVALID_ENCODING:
		if (p->xml_reason && !strncmp(p->xml_reason, "Input is not proper UTF-8", 25))
			return xstrdup("bytes that are not valid UTF-8 (a test-result file is UTF-8 "
				       "unless its XML declaration names another encoding)");
		return xasprintf("a character XML does not allow (%s): a NUL byte or control "
				 "character has no place in a test-result file",
				 p->xml_reason ? p->xml_reason : "invalid character");
	case XML_ERR_ATTRIBUTE_REDEFINED:
		return xasprintf("attribute '%s' is given twice on one element: not well-formed XML",
				 p->xml_str1);
	case XML_ERR_UNDECLARED_ENTITY:
	case XML_WAR_UNDECLARED_ENTITY:
		return xasprintf("entity '&%s;' is not defined: test results may use only &amp; &lt; "
				 "&gt; &quot; &apos; and character references", p->xml_str1);
	default:
		break;
	}
	results_clean_line(line, sizeof(line), p->xml_reason ? p->xml_reason : p->generic.buf);
	return xasprintf("not well-formed XML: %s", line[0] ? line : "the XML parser failed");
}
