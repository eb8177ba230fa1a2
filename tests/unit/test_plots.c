/*
 * Unit tests of plots: from a comparison made by compare_compute() over
 * hand-made invocations, every recorded run has one mark (hollow when it
 * did not count, a cross without a value), each variant a median line,
 * each gate definition one line where its limit lies; outside names are
 * escaped; the same input gives the same bytes; a metric without values
 * and a run without invocations still give a document; file names follow
 * the rule in plots.h. Every document is parsed with libxml2 and may hold
 * only the elements plots.h allows.
 *
 * With ABEV_PLOTS_OUT set, test_write writes its plots there and keeps
 * them: tests/integration/test_plots.py checks them with xmllint and
 * rsvg-convert.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "decide/compare.h"
#include "util/dirat.h"
#include "report/plots.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"

#define MS 1000000LL
#define MAXI 64

static char *s(const char *lit)
{
	return (char *)(uintptr_t)lit;
}

struct fixture {
	struct invocation invs[MAXI];
	struct metric_value mv[MAXI][2];   /* t, and ops where a test adds it */
	struct guard_result guards[MAXI][2];
	size_t n;
	const char *names[3];
	struct compare_metric_def defs[8];
	struct compare_gate_def gates[4];
	struct compare_config cfg;
};

static void setup(struct fixture *f, size_t nvariants)
{
	static const char *const names[] = { "base", "cand", "third" };

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < nvariants; i++)
		f->names[i] = names[i];
	f->defs[0] = (struct compare_metric_def){ "t", "ms", 0, "stdout" };
	f->cfg.variants = f->names;
	f->cfg.nvariants = nvariants;
	f->cfg.metrics = f->defs;
	f->cfg.nmetrics = 1;
	f->cfg.gates = f->gates;
	f->cfg.confidence = 0.95;
	f->cfg.resamples = 200;
	f->cfg.seed = 7;
}

/* A run that counts: exited 0, guards passed, wall = t ms, waited 0-3 % of it for a CPU. */
static struct invocation *add(struct fixture *f, const char *variant, unsigned round, double t)
{
	struct invocation *v = &f->invs[f->n];
	struct metric_value *m = &f->mv[f->n][0];

	memset(v, 0, sizeof(*v));
	v->seq = (unsigned)f->n + 1;
	v->variant = s(variant);
	v->round = round;
	v->attempt = 1;
	v->status = INV_OK;
	v->fig.wall_ns = (int64_t)llround(t * MS);
	v->fig.user_ns = v->fig.wall_ns / 2;
	v->fig.sys_ns = v->fig.wall_ns / 4;
	v->fig.max_rss_bytes = (int64_t)(3 << 20) + (int64_t)f->n * 4096;
	v->foreign_cpu = 0.05 * (double)(f->n % 4);
	v->max_foreign_cpu = 0.5;
	v->cpu_wait_ns = v->fig.wall_ns / 100 * (int64_t)(f->n % 4);
	/* the last of every four (3 % wait) waited on its own threads only */
	v->run_cpus = 2;
	v->foreign_busy_ns = f->n % 4 == 3 ? 0 : v->cpu_wait_ns;
	v->foreign_wait_ns = v->foreign_busy_ns;
	v->cpu_wait_source = s("cgroup");
	v->max_cpu_wait_pct = 10;
	m->name = s("t");
	m->unit = s("ms");
	m->ok = 1;
	m->value = t;
	v->metrics = m;
	v->nmetrics = 1;
	f->guards[f->n][0] = (struct guard_result){ GUARD_EXIT_CODE, GUARD_PASS, NULL };
	v->guards = f->guards[f->n];
	v->nguards = 1;
	f->n++;
	return v;
}

static struct invocation *warmup(struct fixture *f, const char *variant, double t)
{
	struct invocation *v = add(f, variant, 1, t);
	v->warmup = 1;
	return v;
}

static struct invocation *discarded(struct fixture *f, const char *variant, unsigned round,
				    double t)
{
	struct invocation *v = add(f, variant, round, t);
	v->status = INV_DISCARDED;
	v->reason = s("foreign CPU 1.2 cores over 0.5");
	v->foreign_cpu = 1.2;
	v->cpu_wait_ns = v->fig.wall_ns / 2;
	v->foreign_busy_ns = v->cpu_wait_ns;
	v->foreign_wait_ns = v->cpu_wait_ns;
	f->guards[f->n - 1][0] = (struct guard_result){ GUARD_LOAD, GUARD_FAIL, NULL };
	return v;
}

static struct invocation *failed(struct fixture *f, const char *variant, unsigned round,
				 double t)
{
	struct invocation *v = add(f, variant, round, t);
	v->status = INV_FAILED;
	v->exit_code = 1;
	v->reason = s("exit code 1");
	f->guards[f->n - 1][0].verdict = GUARD_FAIL;
	return v;
}

/* Counted for wall, but metric t was not yielded: a cross on t's plot. */
static struct invocation *no_t(struct fixture *f, const char *variant, unsigned round, double t)
{
	struct invocation *v = add(f, variant, round, t);
	v->status = INV_FAILED;
	f->mv[f->n - 1][0].ok = 0;
	f->guards[f->n - 1][1] = (struct guard_result){ GUARD_METRICS, GUARD_FAIL, NULL };
	v->nguards = 2;
	return v;
}

static void gate(struct fixture *f, const char *metric, enum gate_kind k, double limit)
{
	f->gates[f->cfg.ngates++] = (struct compare_gate_def){ metric, k, limit };
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);
	for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle))
		n++;
	return n;
}

static size_t metric_index(const struct comparison *c, const char *name)
{
	for (size_t m = 0; m < c->nmetrics; m++)
		if (!strcmp(c->metrics[m].name, name))
			return m;
	fail_msg("no metric %s", name);
	return 0;
}

/*
 * The number in attribute attr of the nth (0-based) element whose class
 * is cls.
 */
static double attr_of(const char *svg, const char *cls, size_t nth, const char *attr)
{
	char key[64], name[32];
	const char *p, *start, *end, *a;

	snprintf(key, sizeof(key), "class=\"%s\"", cls);
	snprintf(name, sizeof(name), " %s=\"", attr);
	p = strstr(svg, key);
	for (size_t i = 0; p && i < nth; i++)
		p = strstr(p + 1, key);
	assert_non_null(p);
	for (start = p; start > svg && *start != '<'; start--)
		;
	end = strchr(p, '>');
	a = strstr(start, name);
	assert_true(a && a < end);
	return strtod(a + strlen(name), NULL);
}

static int allowed(const char *name)
{
	static const char *const ok[] = { "svg", "g", "rect", "line", "polyline", "circle",
					  "path", "text", "title" };
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		if (!strcmp(name, ok[i]))
			return 1;
	return 0;
}

static void check_elements(xmlNode *n)
{
	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!allowed((const char *)n->name))
			fail_msg("element <%s> is not one plots.h allows", n->name);
		for (xmlAttr *a = n->properties; a; a = a->next)
			if (!strncmp((const char *)a->name, "on", 2) ||
			    !strcmp((const char *)a->name, "href") || a->ns)
				fail_msg("attribute %s on <%s>", a->name, n->name);
		check_elements(n->children);
	}
}

/* Well-formed SVG in the SVG namespace, with only the allowed elements. */
static void check_svg(const char *svg)
{
	xmlDoc *doc;
	xmlNode *root;

	assert_non_null(svg);
	assert_memory_equal(svg, "<svg", 4);
	assert_non_null(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(svg, "viewBox=\"0 0 840 "));
	assert_null(strstr(svg, "e+"));
	assert_null(strstr(svg, "nan"));
	assert_null(strstr(svg, "inf"));
	doc = xmlReadMemory(svg, (int)strlen(svg), "plot.svg", NULL, XML_PARSE_NONET);
	if (!doc)
		fail_msg("not well-formed XML");
	root = xmlDocGetRootElement(doc);
	assert_string_equal((const char *)root->name, "svg");
	assert_non_null(root->ns);
	assert_string_equal((const char *)root->ns->href, "http://www.w3.org/2000/svg");
	check_elements(root);
	xmlFreeDoc(doc);
}

/*
 * base and cand in 6 rounds (cand 10% slower, both drifting up), with a
 * warmup each, a discarded run repeated, a failed run, and a run that
 * did not yield t.
 */
static void sample_runs(struct fixture *f)
{
	static const double base[] = { 100, 101, 99, 102, 103, 104 };
	static const double cand[] = { 110, 112, 109, 111, 114, 116 };

	setup(f, 2);
	warmup(f, "base", 140);
	warmup(f, "cand", 150);
	for (unsigned r = 1; r <= 6; r++) {
		if (r == 3)
			discarded(f, "base", r, 180);
		add(f, "base", r, base[r - 1]);
		if (r == 4)
			failed(f, "cand", r, 130);
		else if (r == 5)
			no_t(f, "cand", r, cand[r - 1]);
		else
			add(f, "cand", r, cand[r - 1]);
	}
	gate(f, "t", GATE_MAX_REGRESSION, 15);
	gate(f, "t", GATE_BUDGET, 120);
}

static void test_marks(void **state)
{
	struct fixture f;
	struct comparison c;
	char *wall, *t;

	(void)state;
	sample_runs(&f);
	compare_compute(&f.cfg, f.invs, f.n, &c);
	wall = plots_metric_svg(&c, metric_index(&c, "wall"), f.invs, f.n);
	t = plots_metric_svg(&c, metric_index(&c, "t"), f.invs, f.n);
	check_svg(wall);
	check_svg(t);

	/* 13 recorded runs (2 warmups left out): each one mark. */
	assert_int_equal(count(wall, "class=\"run "), 13);
	assert_int_equal(count(wall, "class=\"run counted\""), 11);
	/* Hollow: the discarded and the failed run, both with a wall time. */
	assert_int_equal(count(wall, "class=\"run excluded\""), 2);
	assert_int_equal(count(wall, "class=\"run novalue\""), 0);
	assert_int_equal(count(t, "class=\"run "), 13);
	assert_int_equal(count(t, "class=\"run counted\""), 10);
	assert_int_equal(count(t, "class=\"run excluded\""), 2);
	assert_int_equal(count(t, "class=\"run novalue\""), 1);
	/* Hollow marks are white inside; base's are circles, cand's squares. */
	assert_int_equal(count(wall, "fill=\"#ffffff\" stroke=\"#0072B2\""), 1);
	assert_int_equal(count(wall, "fill=\"#ffffff\" stroke=\"#D55E00\""), 1);
	assert_int_equal(count(wall, "<circle class=\"run"), 7);
	assert_int_equal(count(wall, "<rect class=\"run"), 6);
	assert_non_null(strstr(wall, "base, run 7 (round 3): 180 ms, discarded (foreign CPU 1.2 "
				     "cores over 0.5)"));

	assert_int_equal(count(wall, "class=\"median\""), 2);
	assert_int_equal(count(t, "class=\"median\""), 2);
	/* Titles with the unit; ticks in one display unit; the axis labelled with it. */
	assert_non_null(strstr(wall, ">wall (ms)</text>"));
	assert_non_null(strstr(t, ">t (ms)</text>"));
	assert_non_null(strstr(wall, "rotate(-90 24,223)\">ms</text>"));
	assert_non_null(strstr(wall, ">run (execution order)</text>"));
	assert_non_null(strstr(wall, "lower is better"));

	/* The gates are on t only. */
	assert_int_equal(count(wall, "class=\"gate\""), 0);
	assert_int_equal(count(t, "class=\"gate\""), 2);
	assert_non_null(strstr(t, ">regression gate \xe2\x89\xa4 +15%</text>"));
	assert_non_null(strstr(t, ">budget \xe2\x89\xa4 120 ms</text>"));
	free(wall);
	free(t);
	compare_release(&c);
}

/*
 * Where the limits lie: the plot's y is linear in the value, so against
 * the medians (base 100, cand 110) a limit's distance from base's median
 * is a known multiple of cand's.
 */
static void test_gate_positions(void **state)
{
	static const double base[] = { 100, 98, 102, 100, 99, 101 };
	static const double cand[] = { 110, 108, 112, 110, 111, 109 };
	static const double third[] = { 95, 96, 94, 95, 97, 96 };
	struct fixture f;
	struct comparison c;
	char *t, *ops;
	double yb, yc;

	(void)state;
	setup(&f, 3);
	for (unsigned r = 1; r <= 6; r++) {
		add(&f, "base", r, base[r - 1]);
		add(&f, "cand", r, cand[r - 1]);
		add(&f, "third", r, third[r - 1]);
	}
	gate(&f, "t", GATE_MAX_REGRESSION, 15);
	gate(&f, "t", GATE_MAX_IMPROVEMENT, 20);
	gate(&f, "t", GATE_BUDGET, 120);
	/* Higher is better for ops: a regression is a fall. */
	f.defs[1] = (struct compare_metric_def){ "ops", "1/s", 1, "stdout" };
	f.cfg.nmetrics = 2;
	for (size_t i = 0; i < f.n; i++) {
		f.mv[i][1] = f.mv[i][0];
		f.mv[i][1].name = s("ops");
		f.mv[i][1].unit = s("1/s");
		f.invs[i].nmetrics = 2;
	}
	gate(&f, "ops", GATE_MAX_REGRESSION, 10);
	compare_compute(&f.cfg, f.invs, f.n, &c);
	t = plots_metric_svg(&c, metric_index(&c, "t"), f.invs, f.n);
	check_svg(t);
	/* Three definitions, each one line for both candidates. */
	assert_int_equal(count(t, "class=\"gate\""), 3);
	assert_non_null(strstr(t, "regression gate \xe2\x89\xa4 +15%: cand pass, third pass"));
	assert_non_null(strstr(t, ">improvement gate \xe2\x89\xa5 \xe2\x88\x92" "20%</text>"));
	yb = attr_of(t, "median", 0, "y1");
	yc = attr_of(t, "median", 1, "y1");
	assert_true(yc < yb);
	assert_true(fabs((yb - attr_of(t, "gate", 0, "y1")) / (yb - yc) - 1.5) < 0.01);
	assert_true(fabs((yb - attr_of(t, "gate", 1, "y1")) / (yb - yc) + 2.0) < 0.01);
	assert_true(fabs((yb - attr_of(t, "gate", 2, "y1")) / (yb - yc) - 2.0) < 0.01);
	free(t);

	/* ops = t here, but higher is better: the regression limit is 10% below base. */
	ops = plots_metric_svg(&c, metric_index(&c, "ops"), f.invs, f.n);
	check_svg(ops);
	assert_int_equal(count(ops, "class=\"gate\""), 1);
	assert_non_null(strstr(ops, ">regression gate \xe2\x89\xa5 \xe2\x88\x92" "10%</text>"));
	assert_non_null(strstr(ops, "higher is better"));
	yb = attr_of(ops, "median", 0, "y1");
	yc = attr_of(ops, "median", 1, "y1");
	assert_true(fabs((yb - attr_of(ops, "gate", 0, "y1")) / (yb - yc) + 1.0) < 0.01);
	free(ops);
	compare_release(&c);
}

/* Names from the plan are outside text: escaped, cleaned, cut in the legend. */
static void test_hostile_names(void **state)
{
	static const char *const hostile[] = { "<&>\"' base\xe2\x80\xae\xc2\x9b\xe2\x80\xa8",
					       "cand\x01\xff</text><script>" };
	struct fixture f;
	struct comparison c;
	char *t, *runs;

	(void)state;
	setup(&f, 2);
	f.names[0] = hostile[0];
	f.names[1] = hostile[1];
	f.defs[0].name = "<b>t&amp;\"'</b>";
	f.defs[0].unit = "<ms>";
	for (unsigned r = 1; r <= 3; r++) {
		add(&f, hostile[0], r, 100 + r);
		add(&f, hostile[1], r, 110 + r);
	}
	for (size_t i = 0; i < f.n; i++)
		f.mv[i][0].name = s(f.defs[0].name);
	gate(&f, f.defs[0].name, GATE_MAX_REGRESSION, 5);
	compare_compute(&f.cfg, f.invs, f.n, &c);
	t = plots_metric_svg(&c, 4, f.invs, f.n);
	runs = plots_runs_svg(&c, f.invs, f.n);
	check_svg(t);
	check_svg(runs);
	assert_null(strstr(t, "<&>"));
	assert_null(strstr(t, "<script"));
	assert_null(strstr(t, "<b>"));
	assert_null(strstr(runs, "<script"));
	/* A bidirectional override, the 8-bit CSI and a line separator show as their bytes. */
	assert_non_null(strstr(t, ">&lt;&amp;&gt;&quot;&#39; base\\xe2\\x80\\xae\\xc2\\x9b\\xe2\\x80\\xa8</text>"));
	assert_null(strstr(t, "\xe2\x80\xae"));
	assert_null(strstr(runs, "\xe2\x80\xae"));
	assert_null(strstr(t, "\xc2\x9b"));
	assert_null(strstr(t, "\xe2\x80\xa8"));
	assert_non_null(strstr(t, ">&lt;b&gt;t&amp;amp;&quot;&#39;&lt;/b&gt; (&lt;ms&gt;)</text>"));
	/* The control character is dropped, the stray byte replaced. */
	assert_non_null(strstr(t, "cand\xef\xbf\xbd&lt;/text&gt;&lt;script&gt;"));
	assert_null(strstr(t, "\x01"));
	assert_int_equal(count(t, "class=\"gate\""), 1);
	free(t);
	free(runs);
	compare_release(&c);
}

/* A long name is cut in the legend (and kept whole in the tooltips). */
static void test_long_name(void **state)
{
	static const char *const longname = "a-very-long-variant-name-that-goes-on-and-on";
	struct fixture f;
	struct comparison c;
	char *wall;

	(void)state;
	setup(&f, 2);
	f.names[1] = longname;
	add(&f, "base", 1, 100);
	add(&f, longname, 1, 105);
	compare_compute(&f.cfg, f.invs, f.n, &c);
	wall = plots_metric_svg(&c, 0, f.invs, f.n);
	check_svg(wall);
	assert_non_null(strstr(wall, ">a-very-long-variant-\xe2\x80\xa6</text>"));
	assert_non_null(strstr(wall, "a-very-long-variant-name-that-goes-on-and-on, run 2"));
	free(wall);
	compare_release(&c);
}

/* The same records give the same bytes, in a copy of them too. */
static void test_deterministic(void **state)
{
	struct fixture *f = xcalloc(2, sizeof(*f));
	struct comparison c1, c2;

	(void)state;
	sample_runs(&f[0]);
	sample_runs(&f[1]);
	compare_compute(&f[0].cfg, f[0].invs, f[0].n, &c1);
	compare_compute(&f[1].cfg, f[1].invs, f[1].n, &c2);
	for (size_t m = 0; m < c1.nmetrics; m++) {
		char *a = plots_metric_svg(&c1, m, f[0].invs, f[0].n);
		char *b = plots_metric_svg(&c1, m, f[0].invs, f[0].n);
		char *d = plots_metric_svg(&c2, m, f[1].invs, f[1].n);
		assert_string_equal(a, b);
		assert_string_equal(a, d);
		free(a);
		free(b);
		free(d);
	}
	{
		char *a = plots_runs_svg(&c1, f[0].invs, f[0].n);
		char *b = plots_runs_svg(&c2, f[1].invs, f[1].n);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	compare_release(&c1);
	compare_release(&c2);
	free(f);
}

/* No values: still a document that says so; no invocations at all: the same. */
static void test_empty(void **state)
{
	struct fixture f;
	struct comparison c;
	char *svg;

	(void)state;
	setup(&f, 2);
	add(&f, "base", 1, 100);
	add(&f, "cand", 1, 110);
	f.mv[0][0].ok = f.mv[1][0].ok = 0;
	gate(&f, "t", GATE_MAX_REGRESSION, 15);
	compare_compute(&f.cfg, f.invs, f.n, &c);
	svg = plots_metric_svg(&c, 4, f.invs, f.n);
	check_svg(svg);
	assert_non_null(strstr(svg, ">no values</text>"));
	assert_int_equal(count(svg, "class=\"run novalue\""), 2);
	assert_int_equal(count(svg, "class=\"median\""), 0);
	assert_int_equal(count(svg, "class=\"gate\""), 0);
	assert_non_null(strstr(svg, "regression gate \xe2\x89\xa4 +15%: no reference median"));
	free(svg);
	compare_release(&c);

	compare_compute(&f.cfg, f.invs, 0, &c);
	for (size_t m = 0; m < c.nmetrics; m++) {
		svg = plots_metric_svg(&c, m, f.invs, 0);
		check_svg(svg);
		assert_non_null(strstr(svg, ">no values</text>"));
		assert_non_null(strstr(svg, ">no recorded run</text>"));
		free(svg);
	}
	assert_null(plots_metric_svg(&c, c.nmetrics, f.invs, 0));
	svg = plots_runs_svg(&c, f.invs, 0);
	check_svg(svg);
	assert_non_null(strstr(svg, ">no invocations</text>"));
	free(svg);
	svg = plots_runs_svg(NULL, f.invs, 0);
	check_svg(svg);
	free(svg);
	compare_release(&c);
}

/* Every invocation, warmups included, with its status and its CPU wait. */
static void test_runs(void **state)
{
	struct fixture f;
	struct comparison c;
	struct invocation *v;
	char *runs, *wall, *alone;

	(void)state;
	sample_runs(&f);
	v = add(&f, "cand", 7, 0);
	v->status = INV_EXEC_FAILED;
	v->exit_code = -1;
	v->reason = s("cannot execute 'x'");
	v->foreign_cpu = -1;
	v->cpu_wait_ns = -1;
	v->foreign_busy_ns = -1;
	v->foreign_wait_ns = -1;
	v->cpu_wait_source = NULL;
	v->cpu_wait_note = s("the command was not executed");
	compare_compute(&f.cfg, f.invs, f.n, &c);
	runs = plots_runs_svg(&c, f.invs, f.n);
	check_svg(runs);
	assert_int_equal(count(runs, "class=\"inv "), 16);
	assert_int_equal(count(runs, "class=\"inv warmup\""), 2);
	assert_int_equal(count(runs, "class=\"inv counted\""), 11);
	assert_int_equal(count(runs, "class=\"inv excluded\""), 2);
	assert_int_equal(count(runs, "class=\"inv novalue\""), 1);
	assert_int_equal(count(runs, "class=\"status "), 16);
	assert_int_equal(count(runs, "class=\"status discarded\""), 1);
	assert_int_equal(count(runs, "class=\"status failed\""), 2);
	assert_int_equal(count(runs, "class=\"status exec_failed\""), 1);
	assert_int_equal(count(runs, "class=\"wait\""), 15);
	assert_int_equal(count(runs, "class=\"wait unknown\""), 1);
	assert_int_equal(count(runs, "class=\"limit\""), 1);
	assert_null(strstr(runs, "class=\"foreign"));
	assert_non_null(strstr(runs, ">CPU wait on others (% of wall)</text>"));
	assert_non_null(strstr(runs, ">max_cpu_wait_pct 10 %</text>"));
	assert_non_null(strstr(runs, "waited for a CPU 50 % of its wall time (cgroup), at most 50 % on other processes"));
	/* a run whose threads waited for each other: the whole wait, none of it on others */
	assert_non_null(strstr(runs, "waited for a CPU 3 % of its wall time (cgroup), at most 0 % on other processes"));
	assert_non_null(strstr(runs, "waited for a CPU ? (unknown: the command was not executed)"));
	assert_non_null(strstr(runs, ">warmup</text>"));
	/* Warmups hollow; base keeps its colour and marker of the metric plots. */
	assert_non_null(strstr(runs, "cand, run 2 (round 1): 150 ms, warmup"));
	wall = plots_metric_svg(&c, 0, f.invs, f.n);
	assert_int_equal(count(wall, "<circle class=\"run counted\""), 6);
	assert_int_equal(count(runs, "<circle class=\"inv counted\""), 6);
	assert_non_null(strstr(runs, "fill=\"#0072B2\" stroke=\"#0072B2\""));
	/* Without the comparison the variants take their colours as they first appear. */
	alone = plots_runs_svg(NULL, f.invs, f.n);
	check_svg(alone);
	assert_int_equal(count(alone, "class=\"inv "), 16);
	free(alone);
	free(wall);
	free(runs);
	compare_release(&c);
}

static void test_file_names(void **state)
{
	static const struct {
		const char *metric, *file;
	} cases[] = {
		{ "p99 latency", "p99_latency.svg" },
		{ "Wall", "Wall-2.svg" },     /* "wall" is a built-in, whatever the case */
		{ "runs", "runs-2.svg" },     /* runs.svg is the runs plot */
		{ ".hidden", "_hidden.svg" },
		{ "..", "_..svg" },
		{ "", "_.svg" },
		{ "a/b", "a_b.svg" },
		{ "a_b", "a_b-2.svg" },
		{ "a?b", "a_b-3.svg" },
		{ "a_b-2", "a_b-2-2.svg" },   /* taken by "a_b" above */
		{ "\xc3\xa9t\xc3\xa9", "__t__.svg" },
		{ "ok-1.2_X", "ok-1.2_X.svg" },
		{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxyz",
		  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.svg" },
	};
	struct compare_metric_def defs[ARRAY_SIZE(cases)];
	struct compare_config cfg = { 0 };
	struct comparison c;
	char *name;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		defs[i] = (struct compare_metric_def){ cases[i].metric, "", 0, "stdout" };
	cfg.metrics = defs;
	cfg.nmetrics = ARRAY_SIZE(cases);
	cfg.confidence = 0.95;
	compare_compute(&cfg, NULL, 0, &c);
	name = plots_file_name(&c, 0);
	assert_string_equal(name, "wall.svg");
	free(name);
	name = plots_file_name(&c, 2);
	assert_string_equal(name, "max_rss.svg");
	free(name);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		name = plots_file_name(&c, 4 + i);
		assert_string_equal(name, cases[i].file);
		free(name);
	}
	assert_null(plots_file_name(&c, c.nmetrics));
	compare_release(&c);
}

static void check_file(const char *dir, const char *name, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(dir, name);

	assert_int_equal(read_file_capped(&sb, path, 1 << 22), 0);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
	free(path);
}

/* Every plot as a file under root/plots, with the bytes the renderers give. */
static void test_write(void **state)
{
	const char *keep = getenv("ABEV_PLOTS_OUT");
	char tmpl[] = "/tmp/abev-plots-XXXXXX";
	const char *root = keep && *keep ? keep : mkdtemp(tmpl);
	struct fixture f;
	struct comparison c;
	char *dir, *svg;

	(void)state;
	assert_non_null(root);
	sample_runs(&f);
	compare_compute(&f.cfg, f.invs, f.n, &c);
	struct dirat d = DIRAT_INIT;
	assert_int_equal(dirat_open_path(&d, root), 0);
	assert_int_equal(plots_write(&d, NULL, &c, f.invs, f.n), 0);
	dirat_release(&d);
	dir = path_join(root, EVIDENCE_PLOTS_DIR);
	for (size_t m = 0; m < c.nmetrics; m++) {
		char *name = plots_file_name(&c, m);
		svg = plots_metric_svg(&c, m, f.invs, f.n);
		check_file(dir, name, svg);
		free(svg);
		if (!keep || !*keep) {
			char *path = path_join(dir, name);
			unlink(path);
			free(path);
		}
		free(name);
	}
	svg = plots_runs_svg(&c, f.invs, f.n);
	check_file(dir, EVIDENCE_PLOTS_RUNS_FILE, svg);
	free(svg);
	if (!keep || !*keep) {
		char *path = path_join(dir, EVIDENCE_PLOTS_RUNS_FILE);
		unlink(path);
		free(path);
		assert_int_equal(rmdir(dir), 0);
		assert_int_equal(rmdir(root), 0);
	}
	free(dir);
	compare_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_gate_positions),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_file_names),
		cmocka_unit_test(test_write),
	};
	return cmocka_run_group_tests_name("plots", tests, NULL, NULL);
}
