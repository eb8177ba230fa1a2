/* Unit tests of util: array and strbuf growth, bounded file reading,
 * atomic writes, strict number parsing, UTC formatting, error routing and
 * the seeded generator, and text for XML. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/env.h"
#include "evidence/envname.h"
#include "evidence/evname.h"
#include "util/json_out.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/escape.h"
#include "util/number.h"
#include "util/path.h"
#include "util/quote.h"
#include "util/readfile.h"
#include "util/rng.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/utf8.h"
#include "testutil.h"

static char last_error[512];

static void capture(const char *prefix, const char *msg)
{
	snprintf(last_error, sizeof(last_error), "%s: %s", prefix, msg);
}

/*
 * ALLOC_GROW: appending one at a time, the capacity doubles from 16 (so
 * 10000 appends move the array 10 times, not 10000), what was stored
 * survives every move, and asking for less never shrinks it.
 */
static void test_alloc_grow(void **state)
{
	size_t *v = NULL, n = 0, alloc = 0, grows = 0;
	(void)state;

	for (size_t i = 0; i < 10000; i++) {
		size_t before = alloc;

		ALLOC_GROW(v, n + 1, alloc);
		if (alloc != before) {
			assert_int_equal(alloc, before ? 2 * before : 16);
			grows++;
		}
		v[n++] = i * 7;
	}
	assert_int_equal(grows, 11);
	assert_int_equal(alloc, 16384);
	ALLOC_GROW(v, 3, alloc);
	assert_int_equal(alloc, 16384);
	/* A jump past the next doubling goes there at once. */
	ALLOC_GROW(v, 100000, alloc);
	assert_int_equal(alloc, 131072);
	for (size_t i = 0; i < n; i++)
		if (v[i] != i * 7)
			fail_msg("element %zu is %zu after growing, want %zu", i, v[i], i * 7);
	free(v);
}

/*
 * alloc_grow() of nr elements of elem_size in a child: it must abort
 * (SIGABRT) with die_oom()'s message rather than wrap the byte count
 * around and hand back a buffer smaller than asked for.
 */
static void expect_grow_aborts(size_t elem_size, size_t nr)
{
	char msg[128];
	ssize_t len = 0, r;
	int fds[2], status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		size_t alloc = 0;

		(void)setrlimit(RLIMIT_CORE, &no_core);
		dup2(fds[1], STDERR_FILENO);
		(void)alloc_grow(NULL, elem_size, nr, &alloc);
		_exit(0);
	}
	close(fds[1]);
	while (len < (ssize_t)sizeof(msg) - 1 &&
	       (r = read(fds[0], msg + len, sizeof(msg) - 1 - (size_t)len)) > 0)
		len += r;
	msg[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT)
		fail_msg("alloc_grow(%zu x %zu) did not abort (status 0x%x)", nr, elem_size, status);
	assert_string_equal(msg, "abev: fatal: out of memory\n");
}

static void test_alloc_grow_overflow(void **state)
{
	(void)state;
	/* The count fits, its size in bytes does not. */
	expect_grow_aborts(8, SIZE_MAX / 8 + 1);
	expect_grow_aborts(sizeof(struct strbuf), SIZE_MAX / sizeof(struct strbuf) + 1);
	/* The doubling itself would pass SIZE_MAX. */
	expect_grow_aborts(1, SIZE_MAX);
}

static void test_strbuf(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i);
	assert_int_equal(sb.len, strlen(sb.buf));
	assert_memory_equal(sb.buf, "0,1,2,", 6);
	strbuf_reset(&sb);
	assert_int_equal(sb.len, 0);
	strbuf_adds(&sb, "abc");
	strbuf_addch(&sb, 'd');
	size_t len;
	char *s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "abcd");
	assert_int_equal(len, 4);
	assert_string_equal(sb.buf, "");
	free(s);
	strbuf_release(&sb);
	strbuf_release(&sb);
}

static void test_read_file_capped(void **state)
{
	char dir[] = "/tmp/abev-util-XXXXXX";
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_non_null(mkdtemp(dir));
	char *p = path_join(dir, "f");
	assert_int_equal(write_file_atomic(p, "hello world", 11), 0);
	assert_int_equal(read_file_capped(&sb, p, 11), 0);
	assert_string_equal(sb.buf, "hello world");
	strbuf_reset(&sb);

	set_error_routine(capture);
	assert_int_equal(read_file_capped(&sb, p, 10), -1);
	assert_non_null(strstr(last_error, "larger than the limit"));
	assert_non_null(strstr(last_error, p));
	assert_int_equal(sb.len, 0);
	assert_int_equal(read_file_capped(&sb, dir, 10), -1);
	assert_non_null(strstr(last_error, "is a directory"));
	char *missing = path_join(dir, "missing");
	assert_int_equal(read_file_capped(&sb, missing, 10), -1);
	assert_non_null(strstr(last_error, "No such file"));
	set_error_routine(NULL);

	unlink(p);
	rmdir(dir);
	free(p);
	free(missing);
	strbuf_release(&sb);
}

static void test_parse_numbers(void **state)
{
	int64_t i;
	double d;
	(void)state;
	assert_int_equal(parse_int64("42", &i), 0);
	assert_int_equal(i, 42);
	assert_int_equal(parse_int64("-7", &i), 0);
	assert_int_equal(i, -7);
	assert_int_equal(parse_int64("4x", &i), -1);
	assert_int_equal(parse_int64("", &i), -1);
	assert_int_equal(parse_int64("99999999999999999999", &i), -1);
	assert_int_equal(parse_double("1.5", &d), 0);
	assert_true(d == 1.5);
	assert_int_equal(parse_double("nan", &d), -1);
	assert_int_equal(parse_double("1e999", &d), -1);
	/* Decimal only: strtod() would read these. */
	static const char *const not_decimal[] = { "0x10", "0X1p4", "inf", "-infinity", " 1",
						   "1 ", "", ".", "+", "1e", "1e+", "e5", "--1" };
	for (size_t k = 0; k < ARRAY_SIZE(not_decimal); k++)
		if (parse_double(not_decimal[k], &d) == 0 || parse_int64(not_decimal[k], &i) == 0)
			fail_msg("'%s' read as a number", not_decimal[k]);
	static const struct { const char *s; double v; } decimal[] = {
		{ "-7", -7 }, { "+2.5", 2.5 }, { ".5", 0.5 }, { "5.", 5 }, { "1e3", 1000 },
		{ "1.5E-1", 0.15 }, { "010", 10 },
	};
	for (size_t k = 0; k < ARRAY_SIZE(decimal); k++) {
		assert_int_equal(parse_double(decimal[k].s, &d), 0);
		assert_true(d == decimal[k].v);
	}
	assert_int_equal(parse_int64("+5", &i), 0);
	assert_int_equal(i, 5);
	assert_int_equal(parse_int64("-", &i), -1);
}

static void test_utc_format(void **state)
{
	char out[UTC_STAMP_LEN];
	struct timespec ts = { 1762793677, 980941123 };
	(void)state;
	utc_format(out, &ts);
	assert_string_equal(out, "2025-11-10T16:54:37.980941+00:00");
}

static void test_mkdir_p_and_join(void **state)
{
	char dir[] = "/tmp/abev-util-XXXXXX";
	struct stat st;
	(void)state;
	assert_non_null(mkdtemp(dir));
	char *deep = xasprintf("%s/a/b/c", dir);
	assert_int_equal(mkdir_p(deep), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(mkdir_p(deep), 0);
	char *j = path_join("x/", "y");
	assert_string_equal(j, "x/y");
	free(j);
	j = path_join("x", "y");
	assert_string_equal(j, "x/y");
	free(j);
	tu_rm_rf(dir);
	free(deep);
}

/*
 * Pinned from a separate implementation of splitmix64 (Python, integers
 * masked to 64 bits); seed 0 also matches the published reference
 * output 0xe220a8397b1dcdaf. A change here changes recorded shuffles and
 * bootstrap intervals, so it must be deliberate.
 */
static void test_rng(void **state)
{
	static const uint64_t seed0[] = {
		UINT64_C(0xe220a8397b1dcdaf), UINT64_C(0x6e789e6aa1b965f4), UINT64_C(0x06c45d188009454f),
	};
	static const uint64_t below10[] = { 3, 1, 8, 4, 0, 2, 5, 8, 5, 4, 7, 6 };
	uint64_t st = 0;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(seed0); i++)
		assert_true(rng_next(&st) == seed0[i]);
	st = 42;
	for (size_t i = 0; i < ARRAY_SIZE(below10); i++)
		assert_true(rng_below(&st, 10) == below10[i]);
	st = 7;
	for (int i = 0; i < 1000; i++)
		assert_true(rng_below(&st, 3) < 3);
	assert_true(rng_below(&st, 1) == 0);

	/*
	 * bound 2^63 + 1 rejects every draw below 2^63 - 1: from seed 7 the
	 * first two raw draws are rejected and the third, 16616101746815609346,
	 * gives 16616101746815609346 - (2^63 + 1).
	 */
	st = 7;
	assert_true(rng_below(&st, (UINT64_C(1) << 63) + 1) == UINT64_C(7392729709960833537));
	assert_true(st == 7 + 3 * UINT64_C(0x9e3779b97f4a7c15));
}

/* Outside text as XML: the five specials, controls dropped, broken UTF-8 repaired. */
static void test_add_xml(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "<&>\"'", "&lt;&amp;&gt;&quot;&#39;" },
		{ "a\tb\nc\rd\x01" "e\x7f", "abcde" },
		/* U+0085 (C1) shown escaped, not acted on; U+00E9 and U+00B5 kept. */
		{ "\xc2\x85" "caf\xc3\xa9 \xc2\xb5s", "\\xc2\\x85caf\xc3\xa9 \xc2\xb5s" },
		/* A bidirectional override and a line separator, likewise. */
		{ "a\xe2\x80\xae" "b\xe2\x80\xa8", "a\\xe2\\x80\\xaeb\\xe2\\x80\\xa8" },
		/* A lone continuation byte, a cut sequence, an overlong '/', a surrogate. */
		{ "x\x80y", "x\xef\xbf\xbdy" },
		{ "z\xe2\x82", "z\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		/* U+FFFF is no XML character; U+1F600 is. */
		{ "\xef\xbf\xbf\xf0\x9f\x98\x80", "\xef\xbf\xbd\xf0\x9f\x98\x80" },
		{ "", "" },
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		strbuf_reset(&sb);
		strbuf_add_xml(&sb, cases[i].in);
		assert_string_equal(sb.buf, cases[i].out);
	}
	strbuf_reset(&sb);
	strbuf_add_xml(&sb, NULL);
	assert_int_equal(sb.len, 0);
	assert_int_equal(utf8_char_len("\xc3\xa9!", 1), 0);
	assert_int_equal(utf8_char_len("\xc3\xa9!", 3), 2);
	assert_int_equal(utf8_char_len("", 1), 0);
	strbuf_release(&sb);
}

/* The one escaping of outside names: nothing printed can end a line or drive a terminal. */
static void test_add_escaped(void **state)
{
	static const struct {
		const char *in;
		size_t len;            /* 0: strlen */
		const char *want;
	} cases[] = {
		{ "plain name.trx", 0, "plain name.trx" },
		{ "zz\nverdict:     verified\n\x1b[2K", 0, "zz\\nverdict:     verified\\n\\x1b[2K" },
		{ "a\tb\rc\\d", 0, "a\\tb\\rc\\\\d" },
		{ "caf\xc3\xa9 \xe2\x9c\x93", 0, "caf\xc3\xa9 \xe2\x9c\x93" },   /* valid UTF-8 kept */
		{ "bad\xff\xc3(", 0, "bad\\xff\\xc3(" },                   /* invalid bytes escaped */
		{ "\xc0\xaf\xed\xa0\x80", 0, "\\xc0\\xaf\\xed\\xa0\\x80" },    /* overlong, surrogate */
		{ "nul\0x", 5, "nul\\x00x" },
		{ "del\x7f", 0, "del\\x7f" },
		{ "\xef\xbb\xbf" "a\xc2\x9b[2J\xe2\x80\xae", 0, "\\xef\\xbb\\xbfa\\xc2\\x9b[2J\\xe2\\x80\\xae" },
		{ "\xc2\xa0\xe2\x80\x94", 0, "\xc2\xa0\xe2\x80\x94" },      /* no-break space, dash kept */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_escaped(&sb, cases[i].in, cases[i].len ? cases[i].len : strlen(cases[i].in));
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
}

/* show_text() and evname_printable() escape through strbuf_add_escaped() and cut between characters. */
static void test_show_text(void **state)
{
	char b[16], big[300];
	char *p;

	(void)state;
	assert_string_equal(show_str(b, sizeof(b), "a\\b\tc\xff"), "a\\\\b\\tc\\xff");
	assert_string_equal(show_str(b, sizeof(b), "\xef\xbb\xbf" "a"), "\\xef\\xbb\\xbfa");
	/* Exactly fits: 15 characters and the NUL. */
	assert_string_equal(show_str(b, sizeof(b), "123456789012345"), "123456789012345");
	/* Too long: cut with "...", never inside an escape or a character. */
	assert_string_equal(show_str(b, sizeof(b), "1234567890123456"), "123456789012...");
	assert_string_equal(show_str(b, sizeof(b), "12345678901\n3456"), "12345678901...");
	assert_string_equal(show_str(b, sizeof(b), "1234567890\xc3\xa9\xc3\xa9\xc3\xa9"),
			    "1234567890\xc3\xa9...");
	/* It stops at a NUL, and after n bytes. */
	assert_string_equal(show_text(b, sizeof(b), "ab\0cd", 5), "ab");
	assert_string_equal(show_text(b, sizeof(b), "abcd", 2), "ab");
	p = xstrdup_escaped("dir\n/v\x1bx.txt");
	assert_string_equal(p, "dir\\n/v\\x1bx.txt");
	free(p);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	p = evname_printable("a\nb\x1b[2K\xff", 8);
	assert_string_equal(p, "a\\nb\\x1b[2K\\xff");
	free(p);
	p = evname_printable(big, strlen(big));
	assert_int_equal(strlen(p), 203);
	assert_string_equal(p + 200, "...");
	free(p);
	memcpy(big + 199, "\xc3\xa9", 2);   /* an é across the cut: left out whole */
	p = evname_printable(big, strlen(big));
	assert_int_equal(strlen(p), 202);
	assert_string_equal(p + 199, "...");
	free(p);
}

/* Cut between characters: never inside one, and a run of stray continuation bytes where it falls. */
static void test_utf8_cut(void **state)
{
	const char *e = "ab\xc3\xa9";           /* "abé": é is 2 bytes */
	const char *euro = "a\xe2\x82\xac";      /* "a€": € is 3 bytes */
	const char *g = "a\xf0\x9f\x98\x80";      /* a 4-byte character */
	const char *stray = "a\x80\x80\x80\x80\x80"; /* not UTF-8 */

	(void)state;
	assert_int_equal(utf8_cut(e, 4, 10), 4);
	assert_int_equal(utf8_cut(e, 4, 4), 4);
	assert_int_equal(utf8_cut(e, 4, 3), 2);
	assert_int_equal(utf8_cut(euro, 4, 3), 1);
	assert_int_equal(utf8_cut(euro, 4, 2), 1);
	assert_int_equal(utf8_cut(g, 5, 4), 1);
	assert_int_equal(utf8_cut(g, 5, 2), 1);
	assert_int_equal(utf8_cut(stray, 6, 5), 5);
	assert_int_equal(utf8_cut(stray + 1, 5, 2), 2);
}

static char last_message[256];

static void capture_message(const char *prefix, const char *msg)
{
	snprintf(last_message, sizeof(last_message), "%s: %s", prefix, msg);
}

/* error() keeps a message on one line whatever its arguments hold. */
/*
 * Each class of character a terminal would act on, at the edges of its
 * range, against its neighbours that show as themselves: escaped by the
 * one escaping, named by text_unshown(), '?' in sh quoting, \xNN in XML.
 */
static void test_unshown_classes(void **state)
{
	static const struct {
		const char *ch;
		const char *desc;      /* text_unshown(); "" when it shows as itself */
	} cases[] = {
		{ "\x1b", "U+001B (a control character)" },
		{ "\x7f", "U+007F (a control character)" },
		{ "\xc2\x80", "U+0080 (a C1 control)" },
		{ "\xc2\x9b", "U+009B (a C1 control)" },
		{ "\xc2\x9f", "U+009F (a C1 control)" },
		{ "\xc2\xa0", "" },                                   /* no-break space */
		{ "\xe2\x80\x8a", "" },                               /* hair space */
		{ "\xe2\x80\x8b", "U+200B (an invisible character)" },
		{ "\xe2\x80\x8f", "U+200F (a direction mark)" },
		{ "\xe2\x80\xa7", "" },                               /* hyphenation point */
		{ "\xe2\x80\xa8", "U+2028 (a line separator)" },
		{ "\xe2\x80\xa9", "U+2029 (a paragraph separator)" },
		{ "\xe2\x80\xaa", "U+202A (a bidirectional control)" },
		{ "\xe2\x80\xae", "U+202E (a bidirectional control)" },
		{ "\xe2\x80\xaf", "" },                               /* narrow no-break space */
		{ "\xe2\x81\xa0", "U+2060 (an invisible character)" },
		{ "\xe2\x81\xa6", "U+2066 (a bidirectional control)" },
		{ "\xe2\x81\xa9", "U+2069 (a bidirectional control)" },
		{ "\xe2\x81\xaf", "U+206F (an invisible character)" },
		{ "\xe2\x81\xb0", "" },                               /* superscript zero */
		{ "\xef\xbb\xbf", "U+FEFF (a byte order mark)" },
		{ "\x9b", "byte 0x9b (not UTF-8)" },
	};
	char desc[UNSHOWN_DESC_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *ch = cases[i].ch;
		int shown = !cases[i].desc[0];
		struct strbuf in = STRBUF_INIT, esc = STRBUF_INIT, want = STRBUF_INIT;

		strbuf_addf(&in, "a%sb", ch);
		assert_int_equal(text_unshown(in.buf, in.len, desc), shown ? in.len : 1);
		assert_string_equal(desc, cases[i].desc);
		strbuf_add_escaped(&esc, in.buf, in.len);
		strbuf_addch(&want, 'a');
		for (const char *p = ch; *p; p++)
			if (shown)
				strbuf_addch(&want, *p);
			else
				strbuf_addf(&want, "\\x%02x", (unsigned char)*p);
		strbuf_addch(&want, 'b');
		if (strcmp(esc.buf, want.buf))
			fail_msg("case %zu: escaped '%s', want '%s'", i, esc.buf, want.buf);
		/* The same character policy in sh quoting and in XML. */
		strbuf_reset(&esc);
		strbuf_add_sh(&esc, in.buf);
		strbuf_reset(&want);
		strbuf_addf(&want, "'a%sb'", shown ? ch : "?");
		if (strcmp(esc.buf, want.buf))
			fail_msg("case %zu: sh '%s', want '%s'", i, esc.buf, want.buf);
		strbuf_reset(&esc);
		strbuf_add_xml(&esc, in.buf);
		assert_int_equal(strstr(esc.buf, ch) != NULL, shown);
		strbuf_release(&in);
		strbuf_release(&esc);
		strbuf_release(&want);
	}
	assert_int_equal(text_unshown("a\0b", 3, desc), 1);
	assert_string_equal(desc, "U+0000 (a control character)");
	assert_int_equal(text_unshown("plain", 5, desc), 5);
	assert_string_equal(desc, "");
	assert_int_equal(unicode_hidden(0x1b), 0);            /* C0 is every writer's own business */
	assert_int_equal(unicode_hidden(0x202e), 1);
	assert_int_equal(utf8_code_point("\xf0\x9f\x98\x80", 4), 0x1f600);
}

/* JSON output: what a viewer would act on goes out as \u escapes, and reads back as it was. */
static void test_json_print_escapes(void **state)
{
	cJSON *o = jnew_object(), *back;
	char *text;

	(void)state;
	jadd_str(o, "k\xe2\x80\xae", "a\x7f\xc2\x9b\xe2\x80\xae\xe2\x80\xa8\xe2\x81\xa9\xc3\xa9\xff\x1b");
	text = json_print(o);
	assert_string_equal(text, "{\n\t\"k\\u202e\":\t\"a\\u007f\\u009b\\u202e\\u2028\\u2069\xc3\xa9\\ufffd"
			    "\\u001b\"\n}\n");
	back = cJSON_Parse(text);
	assert_non_null(back);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(back, "k\xe2\x80\xae")->valuestring,
			    "a\x7f\xc2\x9b\xe2\x80\xae\xe2\x80\xa8\xe2\x81\xa9\xc3\xa9\xef\xbf\xbd\x1b");
	cJSON_Delete(back);
	cJSON_Delete(o);
	free(text);
}

/* A line abev composed: escaped like a name, but its backslashes kept. */
static void test_add_escaped_line(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add_escaped_line(&sb, "ev\\x1b \x1b]0;t\x07\xe2\x80\xae\xc3\x97", 18);
	assert_string_equal(sb.buf, "ev\\x1b \\x1b]0;t\\x07\\xe2\\x80\\xae\xc3\x97");
	strbuf_release(&sb);
}

static void test_error_message_escaped(void **state)
{
	(void)state;
	set_error_routine(capture_message);
	assert_int_equal(error("cannot open '%s'", "a\nb\x1b[2K\\c\xff"), -1);
	assert_string_equal(last_message, "error: cannot open 'a\\nb\\x1b[2K\\c\\xff'");
	warning("'%s' kept", "caf\xc3\xa9 \\x41");
	assert_string_equal(last_message, "warning: 'caf\xc3\xa9 \\x41' kept");
	set_error_routine(NULL);
}

/* Which names are hashed when an environment is recorded, and which the report lists. */
static void test_envname(void **state)
{
	static const struct {
		const char *name;
		int secret, runtime;
	} cases[] = {
		{ "PATH", 0, 0 },
		{ "HOME", 0, 0 },
		{ "GITHUB_TOKEN", 1, 0 },
		{ "aws_secret_access_key", 1, 0 },
		{ "ABEV_SIGNING_KEY", 1, 0 },
		{ "DB_PASSWORD", 1, 0 },
		{ "NPM_CONFIG__AUTH", 1, 0 },
		{ "AZURE_CREDENTIALS", 1, 0 },
		{ "NODE_OPTIONS", 0, 1 },
		{ "NODE_AUTH_TOKEN", 1, 1 },
		{ "NODE", 0, 0 },
		{ "DOTNET_gcServer", 0, 1 },
		{ "COMPlus_TieredCompilation", 0, 1 },
		{ "complus_x", 0, 0 },
		{ "PYTHONHASHSEED", 0, 1 },
		{ "LD_PRELOAD", 0, 1 },
		{ "MALLOC_ARENA_MAX", 0, 1 },
		{ "GOGC", 0, 1 },
		{ "GOGCX", 0, 0 },
		{ "JAVA_TOOL_OPTIONS", 0, 1 },
		{ "AUTH_JWT", 1, 0 },
		{ "jwt", 1, 0 },
		{ "SESSION_COOKIE", 1, 0 },
		{ "cookie_jar", 1, 0 },
		{ "MY_SESSION", 1, 0 },
		/* substring, as for every word: a readable value lost, nothing leaked */
		{ "SESSIONS_COUNT", 1, 0 },
		{ "XDG_SESSION_TYPE", 1, 0 },
		/* a name alone says nothing of a URL: its value decides (below) */
		{ "DATABASE_URL", 0, 0 },
		{ "REDIS_URI", 0, 0 },
		{ "SESS", 0, 0 },
		{ "COOK", 0, 0 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (envname_secret(cases[i].name) != cases[i].secret)
			fail_msg("%s: secret %d, want %d", cases[i].name,
				 envname_secret(cases[i].name), cases[i].secret);
		if (envname_runtime(cases[i].name) != cases[i].runtime)
			fail_msg("%s: runtime %d, want %d", cases[i].name,
				 envname_runtime(cases[i].name), cases[i].runtime);
	}
	assert_non_null(strstr(envname_runtime_list(), "NODE_OPTIONS, "));
	assert_non_null(strstr(envname_runtime_list(), ", PERL5OPT"));
}

/*
 * Issue 40 §6: the rule against names real CI systems and tools give their
 * secrets (GitHub Actions, GitLab, Azure, AWS, npm, NuGet, PyPI, Docker,
 * databases, chat webhooks) — all hashed — and everyday names that must stay
 * readable in metadata.json and the report.
 */
static void test_envname_real_secret_names(void **state)
{
	static const char *const secret[] = {
		"GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
		"CI_JOB_TOKEN", "CI_REGISTRY_PASSWORD", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AZURE_CLIENT_SECRET", "ARM_CLIENT_SECRET", "AZURE_STORAGE_KEY",
		"AZURE_STORAGE_CONNECTION_STRING_SAS", "GOOGLE_APPLICATION_CREDENTIALS", "NPM_TOKEN",
		"NODE_AUTH_TOKEN", "NUGET_API_KEY", "NUGET_AUTH_TOKEN", "TWINE_PASSWORD",
		"PYPI_API_TOKEN", "DOCKER_PASSWORD", "DOCKERHUB_TOKEN", "MYSQL_PWD",
		"MYSQL_ROOT_PASSWORD", "PGPASSWORD", "MSSQL_SA_PASSWORD", "LDAP_BIND_PW",
		"RABBITMQ_DEFAULT_PASS", "SMTP_PASS", "DB_PASS", "REDIS_PASS", "MINIO_ROOT_PASSWORD",
		"CREDS", "REGISTRY_CREDS", "SIGNATURE", "REQUEST_SIGNATURE", "SLACK_WEBHOOK",
		"SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK", "TEAMS_WEBHOOK_URL", "SENTRY_DSN",
		"DD_API_KEY", "DD_APP_KEY", "CODECOV_TOKEN", "SONAR_TOKEN", "SNYK_TOKEN",
		"VAULT_TOKEN", "GPG_PASSPHRASE", "COSIGN_PASSWORD", "SSH_PRIVATE_KEY",
		"HEROKU_API_KEY", "STRIPE_SECRET_KEY", "JWT_SECRET", "SESSION_SECRET",
		"COOKIE_SECRET", "PASSWORD_SALT", "WEBHOOK_HMAC", "BEARER", "ABEV_SIGNING_KEY",
		"ARTIFACTORY_PASS", "storage-sas", "db.pw",
	};
	static const char *const readable[] = {
		"PATH", "HOME", "PWD", "OLDPWD", "USER", "SHELL", "LANG", "LC_ALL", "TERM",
		"TMPDIR", "HOSTNAME", "CI", "GITHUB_SHA", "GITHUB_REF", "GITHUB_REPOSITORY",
		"GITHUB_RUN_ID", "RUNNER_OS", "RUNNER_TEMP", "DOTNET_ROOT", "NODE_OPTIONS",
		"JAVA_HOME", "GOPATH", "PASSTHROUGH", "BYPASS_CACHE", "COMPASS_DIR", "SPW_LEVEL",
		"DATABASE_URL", "SASL_MECH",
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(secret); i++)
		if (!envname_secret(secret[i]))
			fail_msg("%s: not judged secret", secret[i]);
	for (size_t i = 0; i < ARRAY_SIZE(readable); i++)
		if (envname_secret(readable[i]))
			fail_msg("%s: judged secret", readable[i]);
}

/*
 * Values that are secret whatever their name — a URL naming a user, a
 * connection string's password, a JWT — and near misses that stay readable.
 */
static void test_envname_secret_value(void **state)
{
	static const struct {
		const char *value;
		int secret;
	} cases[] = {
		{ "", 0 },
		{ "http://host/", 0 },
		{ "https://host:8443/path", 0 },
		{ "http://user:pass@proxy:3128", 1 },
		{ "postgres://app:s3cret@db.internal:5432/app?sslmode=require", 1 },
		{ "https://ghp_0123456789abcdef@github.com/org/repo.git", 1 },
		{ "git+ssh://git@github.com/org/repo", 1 },
		{ "-Dproxy=http://u:p@proxy -Xmx1g", 1 },
		{ "http://a/,http://u:p@b/", 1 },
		/* an '@' in the path or query is no user */
		{ "https://host/users/@me", 0 },
		{ "https://host/?mail=a@b.c", 0 },
		{ "mailto:someone@example.org", 0 },
		{ "user@host", 0 },
		{ "://@host", 0 },
		{ "Server=db;Database=app;User Id=sa;Password=pw;", 1 },
		{ "Driver={ODBC};Server=db;Uid=sa;PWD=pw", 1 },
		{ "host=db user=app password=pw", 1 },
		{ "Password = pw", 1 },
		{ "jdbc:mysql://db/app?user=u&passwd=pw", 1 },
		{ "--password=pw", 1 },
		/* another word ending in pwd, or a password without a value's '=' */
		{ "OLDPWD=/home/u", 0 },
		{ "my_pwd=x", 0 },
		{ "Server=db;Integrated Security=true", 0 },
		{ "password", 0 },
		{ "passwordless=1", 0 },
		{ "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl", 1 },
		{ "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", 1 },
		{ "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ", 0 },
		{ "eyJhbGciOiJIUzI1NiJ9..c2ln", 0 },
		{ "xeyJhbGciOiJIUzI1NiJ9.eyJ.x", 0 },
		{ "version 1.2.3", 0 },
		/* issue 40 §6: Azure keys, key=/token= pairs, tokens in a URL's path or query */
		{ "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=c2VjcmV0;", 1 },
		{ "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=r;SharedAccessKey=k", 1 },
		{ "BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=sv=2020&sig=x", 1 },
		{ "https://a.blob.core.windows.net/c?sv=2020-08-04&sig=abc%3D", 1 },
		{ "https://api.example.com/v1?token=abc", 1 },
		{ "https://api.example.com/v1?access_token=abc", 1 },
		{ "key=abc", 1 },
		{ "api_key=abc", 1 },
		{ "https://hooks.slack.com/services/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", 1 },
		{ "https://discord.com/api/webhooks/123456789012345678/abcDEFghiJKLmnoPQRstuVWXyz0123456789", 1 },
		{ "https://host/path/to/some-long-readable-name/", 0 },
		{ "https://host/releases/v1.2.3/download", 0 },
		{ "monkey=1", 0 },
		{ "keyboard=us", 0 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (envname_secret_value(cases[i].value) != cases[i].secret)
			fail_msg("'%s': secret %d, want %d", cases[i].value,
				 envname_secret_value(cases[i].value), cases[i].secret);
	/* Either rule makes a variable secret. */
	assert_true(envname_secret_var("API_TOKEN", "plain"));
	assert_true(envname_secret_var("HTTP_PROXY", "http://u:p@proxy:3128"));
	assert_true(envname_secret_var("DATABASE_URL", "postgres://u:p@db/app"));
	assert_false(envname_secret_var("HTTP_URL", "http://host/"));
	assert_false(envname_secret_var("PATH", "/usr/bin:/bin"));
}

/* A withheld name is left out of what a child inherits, and kept for the record. */
static void test_env_withhold(void **state)
{
	struct env_array child = ENV_ARRAY_INIT, own = ENV_ARRAY_INIT;
	int seen_child = 0, seen_own = 0, plain = 0;

	(void)state;
	assert_int_equal(setenv("ABEV_TEST_SECRET", "s3cret", 1), 0);
	assert_int_equal(setenv("ABEV_TEST_SECRETX", "plain", 1), 0);
	assert_int_equal(env_withhold("ABEV_TEST_SECRET"), 0);
	assert_int_equal(env_withhold("ABEV_TEST_SECRET"), 0);   /* twice: one entry */
	assert_int_equal(env_withhold("A=B"), -1);
	assert_int_equal(env_withhold(""), -1);
	assert_true(env_is_withheld("ABEV_TEST_SECRET=x"));
	assert_true(env_is_withheld("ABEV_TEST_SECRET"));
	assert_false(env_is_withheld("ABEV_TEST_SECRETX=plain"));
	assert_false(env_is_withheld("ABEV_TEST_SECRE=x"));
	env_inherit(&child);
	env_own(&own);
	for (size_t i = 0; i < child.n; i++) {
		seen_child += !strcmp(child.v[i], "ABEV_TEST_SECRET=s3cret");
		plain += !strcmp(child.v[i], "ABEV_TEST_SECRETX=plain");
	}
	for (size_t i = 0; i < own.n; i++)
		seen_own += !strcmp(own.v[i], "ABEV_TEST_SECRET=s3cret");
	assert_int_equal(seen_child, 0);
	assert_int_equal(plain, 1);
	assert_int_equal(seen_own, 1);
	/* A value set for the child on purpose stays. */
	env_set(&child, "ABEV_TEST_SECRET", "given");
	assert_string_equal(child.v[child.n - 1], "ABEV_TEST_SECRET=given");
	strv_free(child.v);
	strv_free(own.v);
	/* The table is bounded. */
	for (int i = 0; i < ENV_WITHHELD_MAX; i++) {
		char name[32];
		snprintf(name, sizeof(name), "ABEV_TEST_W%d", i);
		(void)env_withhold(name);
	}
	assert_int_equal(env_withhold("ABEV_TEST_ONE_TOO_MANY"), -1);
}

/*
 * A withheld value leaves the block the process was started with, which
 * /proc/PID/environ shows: putenv() stands in for that block here (the
 * entry is this buffer itself), and its value bytes are overwritten while
 * getenv() still gives the value, from a copy. A second entry of the same
 * name is wiped too.
 */
static void test_env_withhold_scrubs(void **state)
{
	static char block[] = "ABEV_TEST_SCRUB=key-text-0123456789";
	static char twice[] = "ABEV_TEST_SCRUB=second-copy";
	const char *value = block + strlen("ABEV_TEST_SCRUB=");
	extern char **environ;
	char **saved, **grown;
	size_t n = 0;

	(void)state;
	assert_int_equal(putenv(block), 0);
	/* A duplicate name, as a hostile parent could pass it: appended by hand. */
	saved = environ;
	for (char **p = environ; *p; p++)
		n++;
	grown = xcalloc(n + 2, sizeof(*grown));
	memcpy(grown, environ, n * sizeof(*grown));
	grown[n] = twice;
	environ = grown;
	assert_int_equal(env_withhold("ABEV_TEST_SCRUB"), 0);
	assert_string_equal(getenv("ABEV_TEST_SCRUB"), "key-text-0123456789");
	for (size_t i = 0; i < sizeof("key-text-0123456789") - 1; i++)
		assert_int_equal(value[i], 0);
	assert_string_equal(block, "ABEV_TEST_SCRUB=");
	assert_string_equal(twice, "ABEV_TEST_SCRUB=");
	environ = saved;
	free(grown);
	/* Not set at all: nothing to do. */
	assert_int_equal(env_withhold("ABEV_TEST_NEVER_SET"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_grow),
		cmocka_unit_test(test_alloc_grow_overflow),
		cmocka_unit_test(test_strbuf),
		/* Before test_env_withhold, which fills the table. */
		cmocka_unit_test(test_env_withhold_scrubs),
		cmocka_unit_test(test_env_withhold),
		cmocka_unit_test(test_read_file_capped),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_utc_format),
		cmocka_unit_test(test_mkdir_p_and_join),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_add_xml),
		cmocka_unit_test(test_add_escaped),
		cmocka_unit_test(test_show_text),
		cmocka_unit_test(test_error_message_escaped),
		cmocka_unit_test(test_unshown_classes),
		cmocka_unit_test(test_add_escaped_line),
		cmocka_unit_test(test_json_print_escapes),
		cmocka_unit_test(test_utf8_cut),
		cmocka_unit_test(test_envname),
		cmocka_unit_test(test_envname_secret_value),
		cmocka_unit_test(test_envname_real_secret_names),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
