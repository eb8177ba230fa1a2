/*
 * template: the records of names (template_ctx) and the engine that renders
 * a mustache-like template against them. A render is two passes: parse()
 * checks the whole syntax and lays the template out as a flat array of
 * nodes, where a section node knows where its body ends; render_nodes()
 * then walks that array, repeating a list's body once per record, so the
 * template is never parsed twice. It does no I/O and prints nothing:
 * every error is a message for the caller, who decides what to do.
 */
#include "report/template.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/compiler.h"
#include "util/escape.h"
#include "util/strbuf.h"
#include "util/utf8.h"

/* Room for a quoted name in a message. */
#define SHOW_MAX 96

enum tv_kind { TV_STRING, TV_FLAG, TV_LIST };

struct tmpl_value {
	char *name;
	size_t name_len;
	enum tv_kind kind;
	char *str;                 /* TV_STRING */
	int flag;                  /* TV_FLAG */
	struct template_ctx **items;   /* TV_LIST: owned records */
	size_t nitems, alloc;      /* TV_LIST: nitems also of a made list */
	template_fill_fn *fill;    /* TV_LIST made as it renders (template_list_made()), or NULL */
	const void *fill_arg;
};

struct template_ctx {
	struct tmpl_value *v;
	size_t n, alloc;
};

struct template_ctx *template_ctx_new(void)
{
	return xcalloc(1, sizeof(struct template_ctx));
}

/* Frees what v holds, keeping its name. */
static void value_clear(struct tmpl_value *v)
{
	free(v->str);
	v->str = NULL;
	/* A made list (fill) holds no records. */
	for (size_t i = 0; v->items && i < v->nitems; i++)
		template_ctx_free(v->items[i]);
	free(v->items);
	v->items = NULL;
	v->nitems = v->alloc = 0;
	v->flag = 0;
	v->fill = NULL;
	v->fill_arg = NULL;
}

void template_ctx_free(struct template_ctx *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		value_clear(&c->v[i]);
		free(c->v[i].name);
	}
	free(c->v);
	free(c);
}

/* The index of name in c, or c->n when c does not set it. */
static size_t find(const struct template_ctx *c, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].name_len == len && !memcmp(c->v[i].name, name, len))
			break;
	return i;
}

/* The value of name in c, emptied, or a new one: ready to be set. */
static struct tmpl_value *slot(struct template_ctx *c, const char *name, enum tv_kind kind)
{
	size_t len = strlen(name), i = find(c, name, len);
	struct tmpl_value *v;

	if (i < c->n) {
		v = &c->v[i];
		value_clear(v);
	} else {
		ALLOC_GROW(c->v, c->n + 1, c->alloc);
		v = &c->v[c->n++];
		memset(v, 0, sizeof(*v));
		v->name = xstrndup(name, len);
		v->name_len = len;
	}
	v->kind = kind;
	return v;
}

void template_set(struct template_ctx *c, const char *name, const char *value)
{
	/* Copy first: value may be the string this slot is about to free. */
	char *s = xstrdup(value ? value : "");
	slot(c, name, TV_STRING)->str = s;
}

void template_setf(struct template_ctx *c, const char *name, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	slot(c, name, TV_STRING)->str = strbuf_detach(&sb, NULL);
}

void template_set_bool(struct template_ctx *c, const char *name, int v)
{
	slot(c, name, TV_FLAG)->flag = !!v;
}

void template_list(struct template_ctx *c, const char *list)
{
	slot(c, list, TV_LIST);
}

void template_list_made(struct template_ctx *c, const char *list, size_t n,
			template_fill_fn *fill, const void *arg)
{
	struct tmpl_value *v = slot(c, list, TV_LIST);

	v->nitems = n;
	v->fill = fill;
	v->fill_arg = arg;
}

struct template_ctx *template_add(struct template_ctx *c, const char *list)
{
	size_t i = find(c, list, strlen(list));
	struct tmpl_value *v;

	if (i < c->n && c->v[i].kind == TV_LIST && !c->v[i].fill)
		v = &c->v[i];
	else
		v = slot(c, list, TV_LIST);

	ALLOC_GROW(v->items, v->nitems + 1, v->alloc);
	v->items[v->nitems] = template_ctx_new();
	return v->items[v->nitems++];
}

static int md_special(unsigned char c)
{
	switch (c) {
	case '\\': case '|': case '*': case '_': case '`': case '<': case '>': case '[': case ']':
		return 1;
	default:
		return 0;
	}
}

/*
 * Markdown's own specials get a backslash; every other character goes
 * through the one escaping of outside text, so that report.md holds no
 * control, invisible or direction-changing character a viewer would act
 * on (CommonMark gives "\x1b" no meaning: it shows as written).
 */
void template_md_text(struct strbuf *sb, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n;) {
		size_t len, run = i;

		/* Printable ASCII but Markdown's specials goes out as it is, a run at a time. */
		while (run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7f &&
		       !md_special((unsigned char)s[run]))
			run++;
		if (run > i) {
			strbuf_add(sb, s + i, run - i);
			i = run;
			continue;
		}
		len = utf8_char_len(s + i, n - i);

		if (!len)
			len = 1;
		if (len == 1 && md_special((unsigned char)s[i])) {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, s[i]);
		} else {
			strbuf_add_escaped(sb, s + i, len);
		}
		i += len;
	}
}

/* --- parsing --- */

enum node_kind { N_TEXT, N_VALUE, N_RAW, N_SECTION, N_INVERTED };

struct node {
	enum node_kind kind;
	const char *s;   /* N_TEXT: the text; others: the name */
	size_t len;
	size_t line;     /* 1-based line of the tag, or where the text starts */
	size_t end;      /* sections: index of the first node after the body */
};

struct parser {
	const char *t;
	size_t len;
	const char *name;
	struct node *nodes;
	size_t n, alloc;
	size_t open[TMPL_DEPTH_MAX];  /* indices of the sections still open */
	size_t depth;
	size_t line, line_pos;        /* line holds the byte at line_pos */
	char *err;
};

/* Tag kinds as written; a value tag has no sigil. */
enum tag_kind { T_VALUE, T_RAW, T_SECTION, T_INVERTED, T_CLOSE, T_COMMENT };

struct tag {
	enum tag_kind kind;
	size_t start, end;  /* "{{" to just past the closing braces */
	const char *name;
	size_t name_len;
	size_t line;
};

/* "NAME:LINE: message", the shape of every error of a render. */
static char *located(const char *name, size_t line, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s:%zu: ", name, line);
	strbuf_vaddf(&sb, fmt, ap);
	return strbuf_detach(&sb, NULL);
}

static int parse_error(struct parser *p, size_t line, const char *fmt, ...) ABEV_PRINTF(3, 4);
static int parse_error(struct parser *p, size_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	p->err = located(p->name, line, fmt, ap);
	va_end(ap);
	return -1;
}

/* The line of the byte at pos; pos never goes backwards between calls. */
static size_t line_at(struct parser *p, size_t pos)
{
	const char *nl;

	while (p->line_pos < pos &&
	       (nl = memchr(p->t + p->line_pos, '\n', pos - p->line_pos)) != NULL) {
		p->line++;
		p->line_pos = (size_t)(nl - p->t) + 1;
	}
	if (p->line_pos < pos)
		p->line_pos = pos;
	return p->line;
}

/* Where the next pair of c ("{{" or "}}") starts at or after pos, or len. */
static size_t find_pair(const struct parser *p, size_t pos, char c)
{
	while (pos + 1 < p->len) {
		const char *b = memchr(p->t + pos, c, p->len - pos - 1);

		if (!b)
			break;
		pos = (size_t)(b - p->t);
		if (p->t[pos + 1] == c)
			return pos;
		pos++;
	}
	return p->len;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int check_name(struct parser *p, const struct tag *tg)
{
	char b[SHOW_MAX];

	if (!tg->name_len)
		return parse_error(p, tg->line, "empty name in a tag");
	if (tg->name_len > TMPL_NAME_MAX)
		return parse_error(p, tg->line, "name '%s' is longer than %d bytes",
				   show_text(b, sizeof(b), tg->name, tg->name_len), TMPL_NAME_MAX);
	for (size_t i = 0; i < tg->name_len; i++)
		if (!name_char(tg->name[i]))
			return parse_error(p, tg->line, "bad name '%s': a name holds letters, "
					   "digits, '_' and '-'",
					   show_text(b, sizeof(b), tg->name, tg->name_len));
	return 0;
}

/* Reads the tag whose "{{" is at start into *tg. */
static int read_tag(struct parser *p, size_t start, struct tag *tg)
{
	static const char sigils[] = "&#^/!";
	static const enum tag_kind kinds[] = { T_RAW, T_SECTION, T_INVERTED, T_CLOSE, T_COMMENT };
	size_t pos = start + 2, close, a, z;
	int triple = 0;
	const char *sg;

	tg->start = start;
	tg->line = line_at(p, start);
	tg->kind = T_VALUE;
	if (pos < p->len && p->t[pos] == '{') {
		triple = 1;
		tg->kind = T_RAW;
		pos++;
	} else if (pos < p->len && p->t[pos] && (sg = strchr(sigils, p->t[pos])) != NULL) {
		tg->kind = kinds[sg - sigils];
		pos++;
	}
	close = find_pair(p, pos, '}');
	if (close == p->len)
		return parse_error(p, tg->line, "unterminated '{{': no '}}' after it");
	tg->end = close + 2;
	if (triple) {
		if (tg->end == p->len || p->t[tg->end] != '}')
			return parse_error(p, tg->line, "'{{{' closed by '}}' rather than '}}}'");
		tg->end++;
	}
	tg->name = NULL;
	tg->name_len = 0;
	if (tg->kind == T_COMMENT)
		return 0;
	for (a = pos; a < close && is_blank(p->t[a]); a++)
		;
	for (z = close; z > a && is_blank(p->t[z - 1]); z--)
		;
	tg->name = p->t + a;
	tg->name_len = z - a;
	return check_name(p, tg);
}

/*
 * Whether the tag is alone on its line (blanks aside). If so, *from is
 * where its line starts and *to where the next line does: the bytes in
 * between are dropped.
 */
static int standalone(const struct parser *p, const struct tag *tg, size_t *from, size_t *to)
{
	size_t a = tg->start, z = tg->end;

	if (tg->kind == T_VALUE || tg->kind == T_RAW)
		return 0;
	while (a > 0 && is_blank(p->t[a - 1]))
		a--;
	if (a > 0 && p->t[a - 1] != '\n')
		return 0;
	while (z < p->len && is_blank(p->t[z]))
		z++;
	if (z < p->len && p->t[z] == '\r' && z + 1 < p->len && p->t[z + 1] == '\n')
		z++;
	if (z < p->len && p->t[z] != '\n')
		return 0;
	*from = a;
	*to = z < p->len ? z + 1 : z;
	return 1;
}

static struct node *add_node(struct parser *p, enum node_kind kind, const char *s, size_t len,
			     size_t line)
{
	struct node *nd;

	ALLOC_GROW(p->nodes, p->n + 1, p->alloc);
	nd = &p->nodes[p->n++];
	nd->kind = kind;
	nd->s = s;
	nd->len = len;
	nd->line = line;
	nd->end = 0;
	return nd;
}

static int close_section(struct parser *p, const struct tag *tg)
{
	char b[SHOW_MAX], b2[SHOW_MAX];
	struct node *o;

	if (!p->depth)
		return parse_error(p, tg->line, "'{{/%s}}' closes no open section",
				   show_text(b, sizeof(b), tg->name, tg->name_len));
	o = &p->nodes[p->open[p->depth - 1]];
	if (o->len != tg->name_len || memcmp(o->s, tg->name, o->len))
		return parse_error(p, tg->line, "'{{/%s}}' does not close '{{%c%s}}' of line %zu",
				   show_text(b, sizeof(b), tg->name, tg->name_len),
				   o->kind == N_SECTION ? '#' : '^',
				   show_text(b2, sizeof(b2), o->s, o->len), o->line);
	o->end = p->n;
	p->depth--;
	return 0;
}

static int add_tag(struct parser *p, const struct tag *tg)
{
	switch (tg->kind) {
	case T_VALUE:
	case T_RAW:
		add_node(p, tg->kind == T_RAW ? N_RAW : N_VALUE, tg->name, tg->name_len, tg->line);
		return 0;
	case T_SECTION:
	case T_INVERTED:
		if (p->depth == TMPL_DEPTH_MAX)
			return parse_error(p, tg->line, "more than %d sections open at once",
					   TMPL_DEPTH_MAX);
		p->open[p->depth++] = p->n;
		add_node(p, tg->kind == T_SECTION ? N_SECTION : N_INVERTED, tg->name,
			 tg->name_len, tg->line);
		return 0;
	case T_CLOSE:
		return close_section(p, tg);
	case T_COMMENT:
		break;
	}
	return 0;
}

static void add_text(struct parser *p, size_t from, size_t to, size_t line)
{
	if (to > from)
		add_node(p, N_TEXT, p->t + from, to - from, line);
}

/* Lays the whole template out as p->nodes, or sets p->err. */
static int parse(struct parser *p)
{
	size_t text = 0, start;

	while ((start = find_pair(p, text, '{')) < p->len) {
		size_t text_line = line_at(p, text), from = start, to;
		struct tag tg = { .kind = T_VALUE };

		if (read_tag(p, start, &tg))
			return -1;
		to = tg.end;
		/* Never reaches back past text: what precedes text is '}' or a dropped '\n'. */
		standalone(p, &tg, &from, &to);
		add_text(p, text, from, text_line);
		if (add_tag(p, &tg))
			return -1;
		text = to;
	}
	add_text(p, text, p->len, line_at(p, text));
	if (p->depth) {
		const struct node *o = &p->nodes[p->open[p->depth - 1]];
		char b[SHOW_MAX];

		return parse_error(p, o->line, "'{{%c%s}}' is never closed",
				   o->kind == N_SECTION ? '#' : '^', show_text(b, sizeof(b), o->s, o->len));
	}
	return 0;
}

/* --- rendering --- */

struct render {
	const struct node *nodes;
	const char *name;
	const struct template_ctx *scope[TMPL_DEPTH_MAX + 1]; /* root, then one per list */
	size_t nscope;
	struct strbuf *out;
	size_t start;                                     /* out->len before the render */
	char *err;
};

static int render_error(struct render *r, const struct node *nd, const char *fmt, ...)
	ABEV_PRINTF(3, 4);
static int render_error(struct render *r, const struct node *nd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r->err = located(r->name, nd->line, fmt, ap);
	va_end(ap);
	return -1;
}

/* The innermost binding of the node's name, or NULL. */
static const struct tmpl_value *lookup(const struct render *r, const struct node *nd)
{
	for (size_t i = r->nscope; i-- > 0;) {
		const struct template_ctx *c = r->scope[i];
		size_t k = find(c, nd->s, nd->len);

		if (k < c->n)
			return &c->v[k];
	}
	return NULL;
}

static int truthy(const struct tmpl_value *v)
{
	if (!v)
		return 0;
	switch (v->kind) {
	case TV_STRING:
		return v->str[0] != '\0';
	case TV_FLAG:
		return v->flag;
	case TV_LIST:
		break;
	}
	return v->nitems > 0;
}

/* Refuses to let out grow by n more bytes past the ceiling. */
static int room(struct render *r, const struct node *nd, size_t n)
{
	if (n > TMPL_OUTPUT_MAX - (r->out->len - r->start))
		return render_error(r, nd, "output larger than %d bytes", TMPL_OUTPUT_MAX);
	return 0;
}

static int render_value(struct render *r, const struct node *nd)
{
	const struct tmpl_value *v = lookup(r, nd);
	char b[SHOW_MAX];

	if (!v)
		return render_error(r, nd, "unknown name '%s': not set in this record "
				    "or any enclosing one", show_text(b, sizeof(b), nd->s, nd->len));
	if (v->kind != TV_STRING)
		return render_error(r, nd, "'%s' is a %s: use it in a section, not as a value",
				    show_text(b, sizeof(b), nd->s, nd->len),
				    v->kind == TV_LIST ? "list" : "flag");
	if (nd->kind == N_RAW) {
		size_t n = strlen(v->str);
		if (room(r, nd, n))
			return -1;
		strbuf_add(r->out, v->str, n);
	} else {
		/* Escaped in place, then held to the ceiling: template_render() drops it on error. */
		size_t before = r->out->len;

		template_md_text(r->out, v->str);
		if (r->out->len - before > TMPL_OUTPUT_MAX - (before - r->start))
			return render_error(r, nd, "output larger than %d bytes", TMPL_OUTPUT_MAX);
	}
	return 0;
}

static int render_nodes(struct render *r, size_t from, size_t to);

/*
 * A made list's body once per record, each made just before its body
 * and freed after it: a record of its own for every section being
 * rendered, so that the list inside its own body makes its own.
 */
static int render_made(struct render *r, size_t i, const struct tmpl_value *v)
{
	const struct node *nd = &r->nodes[i];
	int rc = 0;

	for (size_t k = 0; k < v->nitems && !rc; k++) {
		struct template_ctx *rec = template_ctx_new();

		v->fill(v->fill_arg, k, rec);
		r->scope[r->nscope++] = rec;
		rc = render_nodes(r, i + 1, nd->end);
		r->nscope--;
		template_ctx_free(rec);
	}
	return rc ? -1 : 0;
}

/* A list's body once per record, in scope; anything else once if truthy. */
static int render_section(struct render *r, size_t i)
{
	const struct node *nd = &r->nodes[i];
	const struct tmpl_value *v = lookup(r, nd);

	if (nd->kind == N_INVERTED)
		return truthy(v) ? 0 : render_nodes(r, i + 1, nd->end);
	if (!truthy(v))
		return 0;
	if (v->kind != TV_LIST)
		return render_nodes(r, i + 1, nd->end);
	if (v->fill)
		return render_made(r, i, v);
	for (size_t k = 0; k < v->nitems; k++) {
		int rc;

		r->scope[r->nscope++] = v->items[k];
		rc = render_nodes(r, i + 1, nd->end);
		r->nscope--;
		if (rc)
			return -1;
	}
	return 0;
}

/*
 * Renders nodes [from, to). Sections recurse, at most TMPL_DEPTH_MAX deep,
 * which parse() made sure of; so is the scope stack bounded.
 */
static int render_nodes(struct render *r, size_t from, size_t to)
{
	size_t i = from;

	while (i < to) {
		const struct node *nd = &r->nodes[i];

		switch (nd->kind) {
		case N_TEXT:
			if (room(r, nd, nd->len))
				return -1;
			strbuf_add(r->out, nd->s, nd->len);
			i++;
			break;
		case N_VALUE:
		case N_RAW:
			if (render_value(r, nd))
				return -1;
			i++;
			break;
		case N_SECTION:
		case N_INVERTED:
			if (render_section(r, i))
				return -1;
			i = nd->end;
			break;
		}
	}
	return 0;
}

/* The size limit and the syntax, for template_check() and template_render(). 0, or -1 with *err. */
static int parse_checked(struct parser *p, char **err)
{
	*err = NULL;
	if (p->len > TMPL_SIZE_MAX) {
		*err = xasprintf("%s: template of %zu bytes is larger than the limit of %d",
				 p->name, p->len, TMPL_SIZE_MAX);
		return -1;
	}
	if (parse(p)) {
		*err = p->err;
		return -1;
	}
	return 0;
}

char *template_render_text(const char *tmpl, size_t len, const char *tmpl_name,
			   const struct template_ctx *c, char **err)
{
	struct strbuf out = STRBUF_INIT;

	if (template_render(tmpl, len, tmpl_name, c, &out, err) < 0) {
		strbuf_release(&out);
		return NULL;
	}
	return strbuf_detach(&out, NULL);
}

int template_check(const char *tmpl, size_t len, const char *tmpl_name, char **err)
{
	struct parser p = { .t = tmpl, .len = len, .line = 1 };
	int ret;

	p.name = tmpl_name ? tmpl_name : "template";
	ret = parse_checked(&p, err);
	free(p.nodes);
	return ret;
}

int template_render(const char *tmpl, size_t len, const char *tmpl_name,
		    const struct template_ctx *c, struct strbuf *out, char **err)
{
	struct parser p = { .t = tmpl, .len = len, .line = 1 };
	struct render r = { .out = out, .start = out->len };
	int ret = -1;

	p.name = r.name = tmpl_name ? tmpl_name : "template";
	if (parse_checked(&p, err))
		goto out;
	r.nodes = p.nodes;
	r.scope[r.nscope++] = c;
	if (render_nodes(&r, 0, p.n)) {
		*err = r.err;
		if (out->len > r.start) {
			out->len = r.start;
			out->buf[out->len] = '\0';
		}
		goto out;
	}
	ret = 0;
out:
	free(p.nodes);
	return ret;
}
