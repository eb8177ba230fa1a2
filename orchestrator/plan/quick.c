/*
 * quick: plan text for `abev bench` and `abev init`. The plan is built
 * as a cJSON tree in the plan format's own key order and printed; it is
 * then read by plan.c like any plan file, so nothing here decides what a
 * key means. Variant names and the default evidence directory are
 * derived here too, so that the unit tests can pin them.
 */
#include "plan/quick.h"

#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/json_out.h"
#include "plan/plan.h"
#include "util/name_rule.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/cpulist.h"
#include "util/env.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/utf8.h"

/* Longest evidence-directory slug. */
#define QUICK_SLUG_MAX 60
/* Room for a name quoted in a message. */
#define SHOW_NAME_MAX 80
/* How much of a command is looked at for what tells it from the others. */
#define QUICK_FULL_NAME_MAX 4096
#define QUICK_NAME_RULE "use letters, digits, '.', '_' and '-', not starting with '.', at most 64 " \
	"characters"

/*
 * s made a valid variant name of at most max characters: runs of dashes
 * and other characters become one '-' between words, leading dots go
 * ("gzip -1 f" -> "gzip-1-f"). Empty when nothing is left. Caller frees.
 */
static char *name_from(const char *s, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	int dash = 0;

	strbuf_grow(&sb, max + 1);
	for (; *s && sb.len < max; s++) {
		if (name_rule_char((unsigned char)*s) && *s != '-' && !(sb.len == 0 && *s == '.')) {
			if (dash && sb.len)
				strbuf_addch(&sb, '-');
			dash = 0;
			if (sb.len < max)
				strbuf_addch(&sb, *s);
		} else {
			dash = 1;
		}
	}
	while (sb.len && sb.buf[sb.len - 1] == '-')
		sb.buf[--sb.len] = '\0';
	return strbuf_detach(&sb, NULL);
}

/* Taken ignoring case, as the plan loader compares names. */
static int name_taken(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(names[i], name))
			return 1;
	return 0;
}

/* Why the -n names cannot be used as they are, or NULL. */
static char *names_problem(const struct quick_spec *spec)
{
	char b[SHOW_NAME_MAX], c[SHOW_NAME_MAX];

	for (size_t i = 0; i < spec->nnames; i++) {
		size_t n = strlen(spec->names[i]);
		char desc[UNSHOWN_DESC_LEN];
		/* The character is named: a terminal would not show it in the name. */
		if (text_unshown(spec->names[i], n, desc) < n)
			return xasprintf("-n '%s': %s (a name may hold no control, bidirectional, "
					 "invisible or line-separator characters)",
					 show_str(b, sizeof(b), spec->names[i]), desc);
		if (!name_rule_component_ok(spec->names[i]))
			return xasprintf("-n '%s' is not a valid variant name (" QUICK_NAME_RULE ")",
					 show_str(b, sizeof(b), spec->names[i]));
		for (size_t k = 0; k < i; k++)
			if (!strcasecmp(spec->names[k], spec->names[i]))
				return xasprintf("-n '%s' and -n '%s' name two commands alike (variant "
						 "names must differ, also ignoring case)",
						 show_str(c, sizeof(c), spec->names[k]),
						 show_str(b, sizeof(b), spec->names[i]));
	}
	return NULL;
}

/* The length of the longest run of whole '-'-separated words a and b start with. */
static size_t common_words(const char *a, const char *b)
{
	size_t i = 0, words = 0;

	for (; a[i] && a[i] == b[i]; i++)
		if (a[i] == '-')
			words = i;
	/* A word ends where both names do, or where both go on with a dash. */
	if ((!a[i] || a[i] == '-') && (!b[i] || b[i] == '-'))
		words = i;
	return words;
}

/* The same from the end: the length of the run of whole words a and b end with. */
static size_t common_tail_words(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), k = 0, words = 0;

	for (; k < la && k < lb && a[la - 1 - k] == b[lb - 1 - k]; k++)
		if (a[la - 1 - k] == '-')
			words = k;
	if ((k == la || a[la - 1 - k] == '-') && (k == lb || b[lb - 1 - k] == '-'))
		words = k;
	return words;
}

/*
 * Names derived from commands that differ only past QUICK_DERIVED_NAME_MAX
 * would all be the same cut ("NODE_OPTIONS-max-semi-space-size" for =1 and
 * =16): instead each keeps the words where the commands differ, after as
 * many of the words they share before as fit ("max-semi-space-size-1",
 * "max-semi-space-size-16"), else after their first word ("echo-a").
 * full holds the uncut names (n >= 2); returns the names, or NULL when one
 * would be empty or two still alike (the caller then numbers the cut names).
 */
static char **differing_names(char **full, size_t n)
{
	size_t pre = SIZE_MAX, suf = SIZE_MAX;
	char **out = xcalloc(n + 1, sizeof(*out));

	for (size_t i = 1; i < n; i++) {
		size_t c = common_words(full[0], full[i]), t = common_tail_words(full[0], full[i]);
		pre = c < pre ? c : pre;
		suf = t < suf ? t : suf;
	}
	for (size_t i = 0; i < n; i++) {
		const char *f = full[i];
		size_t len = strlen(f), from = pre + (f[pre] == '-'), to, dlen, start;
		struct strbuf sb = STRBUF_INIT;

		to = len > suf ? len - suf : 0;
		if (to < len && to > 0 && f[to - 1] == '-' && suf)
			to--;
		if (to <= from)
			goto fail;
		dlen = to - from;
		if (dlen > QUICK_DERIVED_NAME_MAX)
			dlen = QUICK_DERIVED_NAME_MAX;
		/* Words of the shared part, from its end, while they fit: f[start..pre) is kept. */
		start = pre;
		for (size_t w = pre; w > 0;) {
			size_t b = w;
			while (b > 0 && f[b - 1] != '-')
				b--;
			if (pre - b + 1 + dlen > QUICK_DERIVED_NAME_MAX)
				break;
			start = b;
			w = b ? b - 1 : 0;
		}
		if (start < pre) {
			strbuf_add(&sb, f + start, pre - start);
			strbuf_addch(&sb, '-');
		} else if (pre) {
			/* None fits whole: the first word, the program, if it does. */
			size_t w = strcspn(f, "-");
			if (w < pre && w + 1 + dlen <= QUICK_DERIVED_NAME_MAX) {
				strbuf_add(&sb, f, w);
				strbuf_addch(&sb, '-');
			}
		}
		strbuf_add(&sb, f + from, dlen);
		while (sb.len && sb.buf[sb.len - 1] == '-')
			sb.buf[--sb.len] = '\0';
		out[i] = strbuf_detach(&sb, NULL);
		if (!*out[i] || out[i][0] == '.')
			goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if (name_taken(out, i, out[i]))
			goto fail;
	return out;
fail:
	strv_free(out);
	return NULL;
}

/* What command i's name is made from when -n gives none: its label, or itself. */
static const char *name_source(const struct quick_spec *spec, size_t i)
{
	return spec->labels ? spec->labels[i] : spec->commands[i];
}

/*
 * For each group of unnamed commands whose names would be cut alike (two
 * or more, at least one past the cut), what differs within the group
 * (differing_names()): a scan's "long-command ... {t}" keeps its value
 * beside a short command of its own. diff[i] is NULL for command i
 * otherwise.
 */
static void cut_alike_names(const struct quick_spec *spec, char **diff)
{
	size_t n = spec->ncommands, first = spec->nnames;
	char **full = xcalloc(n + 1, sizeof(*full)), **cut = xcalloc(n + 1, sizeof(*cut));
	size_t *group = xcalloc(n + 1, sizeof(*group));

	for (size_t i = first; i < n; i++) {
		full[i] = name_from(name_source(spec, i), QUICK_FULL_NAME_MAX);
		cut[i] = name_from(name_source(spec, i), QUICK_DERIVED_NAME_MAX);
	}
	for (size_t i = first; i < n; i++) {
		size_t g = 0;
		int past = 0;
		char **members, **made;

		if (diff[i])
			continue;
		for (size_t k = i; k < n; k++)
			if (!diff[k] && !strcasecmp(cut[k], cut[i])) {
				group[g++] = k;
				past |= strlen(full[k]) > QUICK_DERIVED_NAME_MAX;
			}
		if (g < 2 || !past)
			continue;
		members = xcalloc(g + 1, sizeof(*members));
		for (size_t k = 0; k < g; k++)
			members[k] = full[group[k]];
		made = differing_names(members, g);
		free(members);
		if (!made)
			continue;
		for (size_t k = 0; k < g; k++)
			diff[group[k]] = made[k];
		free(made);
	}
	for (size_t i = 0; i < n; i++) {
		free(full[i]);
		free(cut[i]);
	}
	free(full);
	free(cut);
	free(group);
}

void quick_names(const struct quick_spec *spec, char ***out)
{
	char **names = xcalloc(spec->ncommands + 1, sizeof(*names));
	char **diff = xcalloc(spec->ncommands + 1, sizeof(*diff));

	cut_alike_names(spec, diff);
	for (size_t i = 0; i < spec->ncommands; i++) {
		char *base, *name;

		/* A valid given name is used as it is (quick_plan() refuses the others). */
		if (i < spec->nnames && name_rule_component_ok(spec->names[i]))
			base = xstrdup(spec->names[i]);
		else if (i < spec->nnames)
			base = name_from(spec->names[i], NAME_RULE_MAX - 4);
		else if (diff[i])
			base = xstrdup(diff[i]);
		else
			base = name_from(name_source(spec, i), QUICK_DERIVED_NAME_MAX);

		if (!*base) {
			free(base);
			base = xasprintf("cmd%zu", i + 1);
		}
		name = xstrdup(base);
		for (unsigned k = 2; name_taken(names, i, name); k++) {
			free(name);
			name = xasprintf("%s-%u", base, k);
		}
		free(base);
		names[i] = name;
	}
	for (size_t i = 0; i < spec->ncommands; i++)
		free(diff[i]);
	free(diff);
	*out = names;
}

char *quick_out_dir(const struct quick_spec *spec, time_t now)
{
	struct strbuf slug = STRBUF_INIT;
	char stamp[32], **names;
	struct tm tm;
	char *dir;

	quick_names(spec, &names);
	for (size_t i = 0; i < spec->ncommands; i++)
		strbuf_addf(&slug, "%s%s", i ? "-vs-" : "", names[i]);
	if (slug.len > QUICK_SLUG_MAX)
		slug.buf[slug.len = QUICK_SLUG_MAX] = '\0';
	while (slug.len && (slug.buf[slug.len - 1] == '-' || slug.buf[slug.len - 1] == '.'))
		slug.buf[--slug.len] = '\0';
	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
	dir = xasprintf("abev-evidence/%s%s%s", stamp, slug.len ? "-" : "", slug.buf ? slug.buf : "");
	strbuf_release(&slug);
	strv_free(names);
	return dir;
}

/* Ends the current word of quick_split(). */
static void word_end(struct strbuf *w, int *in_word, char ***words, size_t *n, size_t *alloc)
{
	if (!*in_word)
		return;
	ALLOC_GROW(*words, *n + 2, *alloc);
	(*words)[(*n)++] = strbuf_detach(w, NULL);
	(*words)[*n] = NULL;
	*in_word = 0;
}

int quick_split(const char *cmd, char ***words, size_t *nwords, char **err)
{
	struct strbuf w = STRBUF_INIT;
	int in_word = 0;
	char quote = 0;
	const char *p;
	size_t alloc = 0;

	*words = NULL;
	*nwords = 0;
	*err = NULL;
	for (p = cmd; *p && !*err; p++) {
		char c = *p;

		if (quote == '\'' && c != '\'') {
			strbuf_addch(&w, c);
		} else if (quote == '"' && c == '\\' && (p[1] == '"' || p[1] == '\\')) {
			strbuf_addch(&w, *++p);
		} else if (quote && c == quote) {
			quote = 0;
		} else if (quote) {
			strbuf_addch(&w, c);
		} else if (c == '\'' || c == '"') {
			quote = c;
			in_word = 1;
		} else if (c == '\\') {
			if (!p[1])
				*err = xasprintf("'%s' ends with a backslash", cmd);
			else
				strbuf_addch(&w, *++p);
			in_word = 1;
		} else if (c == ' ' || c == '\t' || c == '\n') {
			word_end(&w, &in_word, words, nwords, &alloc);
		} else {
			strbuf_addch(&w, c);
			in_word = 1;
		}
		if (*nwords >= QUICK_MAX_WORDS && !*err)
			*err = xasprintf("'%.40s...' has more than %d words", cmd, QUICK_MAX_WORDS);
	}
	if (!*err && quote)
		*err = xasprintf("'%s' has an unclosed %s quote", cmd,
				 quote == '"' ? "double" : "single");
	if (!*err)
		word_end(&w, &in_word, words, nwords, &alloc);
	if (!*err && !*nwords)
		*err = xasprintf("the command '%s' has no word to run", cmd);
	strbuf_release(&w);
	if (*err) {
		strv_free(*words);
		*words = NULL;
		*nwords = 0;
		return -1;
	}
	return 0;
}

/*
 * s as a plan template that stands for s itself: a command is taken
 * literally, so its braces (awk '{print}') are doubled rather than read
 * as placeholders.
 */
static cJSON *literal(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *j;

	for (; *s; s++) {
		if (*s == '{' || *s == '}')
			strbuf_addch(&sb, *s);
		strbuf_addch(&sb, *s);
	}
	j = cJSON_CreateString(sb.buf);
	strbuf_release(&sb);
	if (!j)
		die_oom();
	return j;
}

/* cmd as a plan's command array: its words (-N) or sh -c cmd. NULL with *err. */
static cJSON *command_array(const char *cmd, int no_shell, char **err)
{
	cJSON *arr = jnew_array();
	char **words;
	size_t n;

	if (strlen(cmd) > QUICK_COMMAND_MAX) {
		*err = xasprintf("a command is longer than %d bytes", QUICK_COMMAND_MAX);
		cJSON_Delete(arr);
		return NULL;
	}
	if (!no_shell) {
		if (!*cmd) {
			*err = xstrdup("a command is empty");
			cJSON_Delete(arr);
			return NULL;
		}
		jpush(arr, cJSON_CreateString("sh"));
		jpush(arr, cJSON_CreateString("-c"));
		jpush(arr, literal(cmd));
		return arr;
	}
	if (quick_split(cmd, &words, &n, err) < 0) {
		cJSON_Delete(arr);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		jpush(arr, literal(words[i]));
	strv_free(words);
	return arr;
}

/* The example variants of a starter plan without commands. */
const char *const quick_starter_names[QUICK_STARTER_VARIANTS] = { "baseline", "candidate" };
static const char starter_command[] =
	"printf '%s\\n' '<testsuite name=\"example\"><testcase name=\"replace-me\"/></testsuite>' "
	"> '{run_dir}/results.xml'";

/*
 * abev init --dotnet: the environment that keeps `dotnet test` quiet and
 * leaves no build server or MSBuild node running after it.
 */
static const char *const dotnet_env[][2] = {
	{ "DOTNET_CLI_TELEMETRY_OPTOUT", "1" },
	{ "DOTNET_NOLOGO", "1" },
	{ "MSBUILDDISABLENODEREUSE", "1" },
	{ "DOTNET_CLI_USE_MSBUILD_SERVER", "0" },
};
/* Where `dotnet build -c Release` puts a test project's assemblies, from its directory. */
#define DOTNET_OUTPUT "bin/Release/net*/"
/* Longest NuGet id, and so --package NAME. */
#define DOTNET_NAME_MAX 100

/* The runtime figures a .NET starter compares: the test host's, not the CLI's or MSBuild's. */
static const char *const dotnet_metrics[][2] = {
	{ "allocated", "allocated_bytes" },
	{ "gc_pause", "gc_pause_us" },
	{ "lock_contentions", "lock_contentions" },
};

/*
 * A starter's schedule.timeout_seconds, and the --blame-hang-timeout of
 * `dotnet test` under it: half of it, so that a test that hangs in the
 * first half of a run is stopped by the blame collector, which names it in
 * the TRX (and the console), rather than by abev's timeout, after which no
 * TRX is written at all. The other half is the margin for the tests that
 * ran before the hang, the hang dump and the report. Change both together.
 */
#define STARTER_TIMEOUT_SECONDS 3600
#define DOTNET_HANG_TIMEOUT_SECONDS (STARTER_TIMEOUT_SECONDS / 2)

/*
 * The versions command "packages": the resolved version of each direct
 * dependency of the test project (its test framework among them) and of
 * each --package, one "NAME VERSION" a line, read by POSIX awk from the
 * restore's obj/project.assets.json, so that the evidence says how they
 * were found. Fields are split at '"': NuGet indents that file by two
 * spaces, the keys of "libraries" ("Name/Version": {) at four and the
 * entries of "projectFileDependencyGroups" ("Name >= 1.0") at six; a
 * --package the file lacks is said to be missing.
 */
static const char dotnet_packages_awk[] =
	"BEGIN { n = split(named, a, \" \"); for (i = 1; i <= n; i++) want[tolower(a[i])] = 1 }\n"
	"$1 == \"  \" { s = $2 }\n"
	"s == \"libraries\" && $1 == \"    \" && $3 ~ /^: [{]/ { lib[++m] = $2 }\n"
	"s == \"projectFileDependencyGroups\" && $1 == \"      \" "
	"{ split($2, w, \" \"); want[tolower(w[1])] = 1 }\n"
	"END {\n"
	"  for (i = 1; i <= m; i++) {\n"
	"    k = index(lib[i], \"/\"); id = substr(lib[i], 1, k - 1)\n"
	"    if (tolower(id) in want) { print id \" \" substr(lib[i], k + 1); seen[tolower(id)] = 1 }\n"
	"  }\n"
	"  for (i = 1; i <= n; i++) if (!(tolower(a[i]) in seen)) print a[i] \": not restored\"\n"
	"}\n";

/* The test project's directory within a checkout. */
static const char *dotnet_project(const struct quick_spec *spec)
{
	return spec->net.project ? spec->net.project : QUICK_DOTNET_PROJECT;
}

/* The test project's assembly name: given, else its directory's last part. */
static const char *dotnet_assembly(const struct quick_spec *spec)
{
	const char *project = dotnet_project(spec), *slash = strrchr(project, '/');

	if (spec->net.assembly)
		return spec->net.assembly;
	return slash ? slash + 1 : project;
}

/*
 * What a variant hashes of its build: the test assembly and the dll of
 * each --package, not the dozens of dlls of the test framework and the
 * runtime that a build copies beside them.
 */
static cJSON *dotnet_assemblies(const struct quick_spec *spec)
{
	cJSON *a = jnew_array();
	char *p = xasprintf(DOTNET_OUTPUT "%s.dll", dotnet_assembly(spec));

	jpush(a, cJSON_CreateString(p));
	free(p);
	for (size_t i = 0; i < spec->net.npackages; i++) {
		p = xasprintf(DOTNET_OUTPUT "%s.dll", spec->net.packages[i]);
		jpush(a, cJSON_CreateString(p));
		free(p);
	}
	return a;
}

/* The versions a .NET comparison records of each variant. */
static cJSON *dotnet_versions(const struct quick_spec *spec)
{
	cJSON *o = jnew_object(), *cmd;
	struct strbuf named = STRBUF_INIT;

	/* The commit each variant's worktree was made at, beside metadata's git HEAD. */
	if (spec->net.checkouts) {
		cmd = jnew_array();
		jpush(cmd, cJSON_CreateString("git"));
		jpush(cmd, cJSON_CreateString("rev-parse"));
		jpush(cmd, cJSON_CreateString("HEAD"));
		jadd(o, "commit", cmd);
	}
	cmd = jnew_array();
	jpush(cmd, cJSON_CreateString("dotnet"));
	jpush(cmd, cJSON_CreateString("--version"));
	jadd(o, "dotnet", cmd);
	/* Every runtime of the dotnet on the variant's PATH: the test host rolls forward to one. */
	cmd = jnew_array();
	jpush(cmd, cJSON_CreateString("dotnet"));
	jpush(cmd, cJSON_CreateString("--list-runtimes"));
	jadd(o, "runtimes", cmd);
	cmd = jnew_array();
	jpush(cmd, cJSON_CreateString("awk"));
	jpush(cmd, cJSON_CreateString("-F"));
	jpush(cmd, cJSON_CreateString("\""));
	if (spec->net.npackages) {
		strbuf_adds(&named, "named=");
		for (size_t i = 0; i < spec->net.npackages; i++)
			strbuf_addf(&named, "%s%s", i ? " " : "", spec->net.packages[i]);
		jpush(cmd, cJSON_CreateString("-v"));
		jpush(cmd, cJSON_CreateString(named.buf));
	}
	jpush(cmd, cJSON_CreateString(dotnet_packages_awk));
	jpush(cmd, cJSON_CreateString("obj/project.assets.json"));
	jadd(o, "packages", cmd);
	strbuf_release(&named);
	return o;
}

/*
 * The arguments that make dotnet test write one TRX into the run's
 * directory: VSTest's logger, or on Microsoft.Testing.Platform (which has
 * no --logger) its TrxReport extension's options — after `--` when only
 * the project opted in, as dotnet test of SDK 8 and 9 passes them on.
 */
static void dotnet_trx_args(cJSON *cmd, enum dotnet_runner runner)
{
	static const char *const vstest[] = { "--blame-hang-timeout", NULL /* hang */,
					      "--logger", "trx;LogFileName={run_dir}/tests.trx" };
	static const char *const mtp[] = { "--report-trx", "--report-trx-filename", "tests.trx",
					   "--results-directory", "{run_dir}" };
	char hang[32];

	/* VSTest's blame collector names a hung test (MTP's needs an extension of its own). */
	if (runner == DOTNET_RUNNER_VSTEST) {
		snprintf(hang, sizeof(hang), "%ds", DOTNET_HANG_TIMEOUT_SECONDS);
		for (size_t i = 0; i < ARRAY_SIZE(vstest); i++)
			jpush(cmd, cJSON_CreateString(vstest[i] ? vstest[i] : hang));
		return;
	}
	if (runner == DOTNET_RUNNER_MTP_BRIDGE)
		jpush(cmd, cJSON_CreateString("--"));
	for (size_t i = 0; i < ARRAY_SIZE(mtp); i++)
		jpush(cmd, cJSON_CreateString(mtp[i]));
}

/*
 * Starter variant i: `dotnet test --no-build` in its checkout's test
 * project, which is either the user's (../<name>) or abev init's own
 * worktree, then built once by the variant's setup step, in the same
 * quiet environment as the runs.
 */
static cJSON *dotnet_variant(const struct quick_spec *spec, size_t i)
{
	static const char *const command[] = { "dotnet", "test", "--no-build", "-c", "Release" };
	static const char *const build[] = { "dotnet", "build", "-c", "Release" };
	const struct quick_checkout *co = spec->net.checkouts ? &spec->net.checkouts[i] : NULL;
	const char *name = quick_starter_names[i];
	cJSON *v = jnew_object(), *cmd = jnew_array(), *env = jnew_object();
	char *cwd = co ? path_join(co->dir, dotnet_project(spec))
		       : xasprintf("../%s/%s", name, dotnet_project(spec));

	jadd_str(v, "name", name);
	jadd_str(v, "cwd", cwd);
	for (size_t k = 0; k < ARRAY_SIZE(command); k++)
		jpush(cmd, cJSON_CreateString(command[k]));
	dotnet_trx_args(cmd, spec->net.runner);
	jadd(v, "command", cmd);
	if (co) {
		cmd = jnew_array();
		for (size_t k = 0; k < ARRAY_SIZE(build); k++)
			jpush(cmd, cJSON_CreateString(build[k]));
		jadd(v, "setup", cmd);
	}
	for (size_t k = 0; k < ARRAY_SIZE(dotnet_env); k++)
		jadd_str(env, dotnet_env[k][0], dotnet_env[k][1]);
	jadd(v, "env", env);
	jadd(v, "assemblies", dotnet_assemblies(spec));
	free(cwd);
	return v;
}

/* The commands around a variant's runs: prepare (before each), setup and cleanup (once). */
enum { STEP_PREPARE, STEP_SETUP, STEP_CLEANUP, STEP_KINDS };
static const char *const step_keys[STEP_KINDS] = { "prepare", "setup", "cleanup" };

/* spec's commands of step kind k: none, one for every variant, or one each. */
static const char *const *step_cmds(const struct quick_spec *spec, int k, size_t *n)
{
	switch (k) {
	case STEP_PREPARE: *n = spec->nprepare; return spec->prepare;
	case STEP_SETUP: *n = spec->nsetup; return spec->setup;
	default: *n = spec->ncleanup; return spec->cleanup;
	}
}

static cJSON *variant_object(const char *name, const char *cwd, cJSON *command,
			     cJSON *params, cJSON *const *steps)
{
	cJSON *v = jnew_object();

	jadd_str(v, "name", name);
	jadd_str(v, "cwd", cwd);
	jadd(v, "command", command);
	if (params)
		jadd(v, "parameters", params);
	for (int k = 0; steps && k < STEP_KINDS; k++)
		if (steps[k])
			jadd(v, step_keys[k], steps[k]);
	return v;
}

/*
 * A variant's "output" from --output: a relative file is made absolute
 * against the commands' cwd, where the user typed it (the plan's own
 * directory is the evidence's).
 */
static void add_output(cJSON *v, const struct quick_spec *spec, const char *output)
{
	char *abs = NULL;

	if (strchr(output, '/') && output[0] != '/' && spec->cwd && spec->cwd[0] == '/') {
		while (output[0] == '.' && output[1] == '/')
			output += 2;
		abs = path_join(spec->cwd, output);
	}
	jadd_str(v, "output", abs ? abs : output);
	free(abs);
}

/* Command i's scan values as the plan's "parameters", or NULL when there was no scan. */
static cJSON *parameters_object(const struct quick_spec *spec, size_t i)
{
	cJSON *o;

	if (!spec->nparams)
		return NULL;
	o = jnew_object();
	for (size_t k = 0; k < spec->nparams; k++)
		jadd_str(o, spec->param_names[k], spec->param_values[i * spec->nparams + k]);
	return o;
}

/*
 * The variants array, and the schedule's prepare, setup and cleanup
 * (one command for every variant) into shared[], or NULL with *err.
 */
static cJSON *variants_array(const struct quick_spec *spec, cJSON **shared, char **err)
{
	cJSON *arr = jnew_array();
	const char *cwd = spec->cwd ? spec->cwd : ".";
	char **names = NULL;

	for (int k = 0; k < STEP_KINDS; k++)
		shared[k] = NULL;
	if (!spec->ncommands && spec->dotnet) {
		for (size_t i = 0; i < ARRAY_SIZE(quick_starter_names); i++)
			jpush(arr, dotnet_variant(spec, i));
		return arr;
	}
	if (!spec->ncommands) {
		for (size_t i = 0; i < ARRAY_SIZE(quick_starter_names); i++) {
			cJSON *cmd = jnew_array();
			jpush(cmd, cJSON_CreateString("sh"));
			jpush(cmd, cJSON_CreateString("-c"));
			jpush(cmd, cJSON_CreateString(starter_command));
			jpush(arr, variant_object(quick_starter_names[i], cwd, cmd, NULL, NULL));
		}
		return arr;
	}
	for (int k = 0; k < STEP_KINDS; k++) {
		size_t n;
		const char *const *cmds = step_cmds(spec, k, &n);
		if (n == 1 && !(shared[k] = command_array(cmds[0], spec->no_shell, err)))
			goto fail;
	}
	quick_names(spec, &names);
	for (size_t i = 0; i < spec->ncommands; i++) {
		cJSON *cmd = command_array(spec->commands[i], spec->no_shell, err);
		cJSON *own[STEP_KINDS] = { NULL, NULL, NULL };
		if (!cmd)
			goto fail;
		for (int k = 0; k < STEP_KINDS; k++) {
			size_t n;
			const char *const *cmds = step_cmds(spec, k, &n);
			if (n > 1 && !(own[k] = command_array(cmds[i], spec->no_shell, err))) {
				cJSON_Delete(cmd);
				for (int j = 0; j < k; j++)
					cJSON_Delete(own[j]);
				goto fail;
			}
		}
		jpush(arr, variant_object(names[i], cwd, cmd, parameters_object(spec, i), own));
		if (spec->noutputs)
			add_output(cJSON_GetArrayItem(arr, (int)i), spec,
				   spec->outputs[spec->noutputs > 1 ? i : 0]);
	}
	strv_free(names);
	return arr;
fail:
	strv_free(names);
	for (int k = 0; k < STEP_KINDS; k++) {
		cJSON_Delete(shared[k]);
		shared[k] = NULL;
	}
	cJSON_Delete(arr);
	return NULL;
}

static cJSON *schedule_object(const struct quick_spec *spec, const char *order,
			      cJSON *const *shared)
{
	cJSON *s = jnew_object();

	/*
	 * A .NET starter: one warmup (the first run after a build pays for the
	 * disk cache), rounds until its three gates are decided (a fixed eight
	 * ended inconclusive on a busy machine, where the test host's CPU time
	 * needed about 17: issue 39), 5 s between processes for what a test
	 * host leaves behind to settle.
	 */
	jadd_int(s, "warmups", spec->warmups >= 0 ? spec->warmups : spec->dotnet ? 1 : 0);
	/*
	 * abev bench with a gate and no -r writes no runs, so that the plan
	 * runs until the gate is decided (plan.h: PLAN_DECIDED_MAX_ROUNDS), as
	 * a plan file with a gate and no runs does.
	 */
	if (spec->until_decided > 0) {
		jadd_str(s, "until", "decided");
		jadd_int(s, "max_rounds", spec->until_decided);
		if (spec->min_rounds > 0)
			jadd_int(s, "min_rounds", spec->min_rounds);
	} else if (spec->dotnet && spec->runs < 0) {
		jadd_str(s, "until", "decided");
		jadd_int(s, "max_rounds", PLAN_DECIDED_MAX_ROUNDS);
	} else if (spec->runs >= 0 || spec->starter || !spec->ngates) {
		jadd_int(s, "runs", spec->runs >= 0 ? spec->runs : QUICK_DEFAULT_RUNS);
	}
	/*
	 * No order given: none in the plan, whose default is balanced, or
	 * sequential when the setups collide (plan.c); a starter names it,
	 * unless it has setups, which may collide.
	 */
	if (spec->order || (spec->starter && !spec->nsetup))
		jadd_str(s, "order", order);
	if (spec->starter || !strcmp(order, "shuffle"))
		jadd_int(s, "seed", 1);
	jadd_real(s, "gap_seconds",
		  spec->gap_seconds >= 0 ? spec->gap_seconds : spec->dotnet ? 5 : 0);
	if (spec->cpus)
		jadd_str(s, "cpus", spec->cpus);
	if (spec->starter) {
		jadd_int(s, "timeout_seconds", STARTER_TIMEOUT_SECONDS);
		jadd_int(s, "kill_grace_seconds", 5);
	}
	for (int k = 0; k < STEP_KINDS; k++)
		if (shared[k])
			jadd(s, step_keys[k], shared[k]);
	return s;
}

/*
 * "[METRIC=]P" of --max-regression: the metric and P. Without a metric it
 * is wall_own: wall itself on a quiet machine, and on a busy one the wall
 * time other work did not lengthen by taking the run's CPUs.
 * NULL, or why not (caller frees).
 */
static char *gate_spec(const char *text, char **metric, double *pct)
{
	const char *eq = strrchr(text, '=');
	const char *num = eq ? eq + 1 : text;
	char *end;

	*metric = eq ? xstrndup(text, (size_t)(eq - text)) : xstrdup(COMPARE_WALL_OWN);
	errno = 0;
	*pct = strtod(num, &end);
	if (!*num || *end || errno || !(*pct >= 0) || *pct > 1e6 || !**metric) {
		free(*metric);
		*metric = NULL;
		return xasprintf("--max-regression '%s': expected [METRIC=]P, P a number of "
				 "percent from 0 (e.g. wall=10)", text);
	}
	return NULL;
}

/* The --max-regression gates into the plan's gates object o (checked by spec_problem()). */
static void add_gates(cJSON *o, const struct quick_spec *spec)
{
	for (size_t i = 0; i < spec->ngates; i++) {
		char *metric;
		double pct;
		cJSON *g = jnew_object();

		free(gate_spec(spec->gates[i], &metric, &pct));
		jadd_real(g, "max_regression_pct", pct);
		jadd(o, metric, g);
		free(metric);
	}
}

/* allowed_exit_codes: 0, or with -i every code (hyperfine's --ignore-failure). */
static cJSON *exit_codes(const struct quick_spec *spec)
{
	cJSON *o = jnew_array();

	for (int code = 0; code <= (spec->ignore_failure ? 255 : 0); code++)
		jpush(o, cJSON_CreateNumber(code));
	return o;
}

/*
 * abev init --dotnet: the test host's own peak memory and CPU time, where
 * the library under test runs (the tree's max_rss is the dotnet CLI's,
 * larger, and hides it): metrics naming the process, gated below.
 */
static const char *const testhost_metrics[][2] = {
	{ "testhost_max_rss", "max_rss" },
	{ "testhost_cpu", "cpu" },
};

/*
 * The process the tests run in, as a glob: VSTest's test host (testhost,
 * or `dotnet exec testhost.dll`); on Microsoft.Testing.Platform the test
 * project runs as its own program (its apphost, or `dotnet exec NAME.dll`,
 * its runtime figures under the entry assembly's name). Owned.
 */
static char *testhost_glob(const struct quick_spec *spec)
{
	if (spec->net.runner == DOTNET_RUNNER_VSTEST)
		return xstrdup("testhost*");
	return xasprintf("%s*", dotnet_assembly(spec));
}

static void add_testhost_metrics(cJSON *plan, const char *host)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(plan, "metrics");

	if (!arr) {
		arr = jnew_array();
		jadd(plan, "metrics", arr);
	}
	for (size_t i = 0; i < ARRAY_SIZE(testhost_metrics); i++) {
		cJSON *m = jnew_object();
		jadd_str(m, "name", testhost_metrics[i][0]);
		jadd_str(m, "source", "process");
		jadd_str(m, "field", testhost_metrics[i][1]);
		jadd_str(m, "process", host);
		jpush(arr, m);
	}
}

/* What only a starter plan has, after the schedule: results, load, metrics, gates, decision. */
static void add_starter_keys(cJSON *plan, const struct quick_spec *spec)
{
	cJSON *o, *m, *g;
	char *host = spec->dotnet ? testhost_glob(spec) : NULL;

	if (!spec->ncommands && !spec->results) {
		o = jnew_object();
		jadd_str(o, "files", spec->dotnet ? "{run_dir}/*.trx" : "{run_dir}/results.xml");
		jadd_int(o, "min_executed", 1);
		jadd(plan, "results", o);
	}
	if (spec->dotnet)
		jadd(plan, "versions", dotnet_versions(spec));
	o = jnew_object();
	/*
	 * The CLR's own JIT, GC and thread-pool threads wait on each other for
	 * 5 to 11 % of a run on a quiet 2-core machine: not foreign load.
	 */
	jadd_int(o, "max_cpu_wait_pct",
		 spec->dotnet ? 25 : (int64_t)PLAN_MAX_CPU_WAIT_PCT_DEFAULT);
	jadd_int(o, "max_repeats", spec->dotnet ? 3 : 2);
	jadd_real(o, "max_wait_seconds", PLAN_MAX_WAIT_SECONDS_DEFAULT);
	jadd(plan, "load", o);
	/* The runtime figures of every .NET process of a run (dotnet-hook/). */
	if (spec->dotnet)
		jadd_bool(plan, "dotnet_runtime", 1);
	/* An example metric, unless --metric gave the plan's own. */
	if (!spec->nmetrics) {
		o = jnew_array();
		m = jnew_object();
		jadd_str(m, "name", "user_cpu");
		jadd_str(m, "source", "process");
		jadd_str(m, "field", "user");
		jpush(o, m);
		for (size_t i = 0; spec->dotnet && i < ARRAY_SIZE(dotnet_metrics); i++) {
			m = jnew_object();
			jadd_str(m, "name", dotnet_metrics[i][0]);
			jadd_str(m, "source", "dotnet");
			jadd_str(m, "field", dotnet_metrics[i][1]);
			jadd_str(m, "process", host);
			jpush(o, m);
		}
		jadd(plan, "metrics", o);
	}
	if (spec->dotnet)
		add_testhost_metrics(plan, host);
	free(host);
	jadd(plan, "allowed_exit_codes", exit_codes(spec));
	o = jnew_object();
	if (!spec->ngates) {
		g = jnew_object();
		jadd_int(g, "max_regression_pct", 10);
		jadd(o, COMPARE_WALL_OWN, g);
	}
	for (size_t i = 0; spec->dotnet && i < ARRAY_SIZE(testhost_metrics); i++) {
		g = jnew_object();
		jadd_int(g, "max_regression_pct", 15);
		jadd(o, testhost_metrics[i][0], g);
	}
	add_gates(o, spec);
	jadd(plan, "gates", o);
	o = jnew_object();
	jadd_bool(o, "acceptance", 0);
	jadd_str(o, "inconclusive", spec->inconclusive_pass ? "pass" : "fail");
	jadd_real(o, "confidence", 0.95);
	jadd_int(o, "bootstrap_resamples", 10000);
	jadd(plan, "decision", o);
}

/*
 * --metric NAME[UNIT]=SOURCE:ARG as a plan's metric: stdout:REGEX,
 * stderr:REGEX (the first group of the first match is the number; these
 * and results need the [UNIT]), process:FIELD, duration:TESTGLOB or
 * results:TESTGLOB:REGEX. *out is the metrics[]
 * object (NULL when only checking). NULL, or why not (caller frees).
 */
static char *metric_spec(const char *text, cJSON **out)
{
	const char *eq = strchr(text, '='), *colon = eq ? strchr(eq + 1, ':') : NULL;
	char *name, *source, *unit = NULL, *why = NULL;
	const char *arg, *open;
	cJSON *m;

	if (out)
		*out = NULL;
	if (!eq || eq == text || !colon)
		return xasprintf("--metric '%s': expected NAME[UNIT]=SOURCE:ARG (stdout:REGEX, "
				 "stderr:REGEX, process:FIELD, duration:TESTGLOB or "
				 "results:TESTGLOB:REGEX)", text);
	/* NAME[UNIT]: the unit stdout, stderr and results need ("parse[ms]"). */
	open = memchr(text, '[', (size_t)(eq - text));
	if (open && open > text && eq[-1] == ']') {
		name = xstrndup(text, (size_t)(open - text));
		unit = xstrndup(open + 1, (size_t)(eq - 1 - (open + 1)));
	} else {
		name = xstrndup(text, (size_t)(eq - text));
	}
	source = xstrndup(eq + 1, (size_t)(colon - eq - 1));
	arg = colon + 1;
	m = jnew_object();
	jadd_str(m, "name", name);
	if (unit)
		jadd_str(m, "unit", unit);
	jadd_str(m, "source", source);
	if (!strcmp(source, "stdout") || !strcmp(source, "stderr")) {
		jadd_str(m, "pattern", arg);
	} else if (!strcmp(source, "process")) {
		jadd_str(m, "field", arg);
	} else if (!strcmp(source, "duration")) {
		jadd_str(m, "test", arg);
	} else if (!strcmp(source, "results") && strchr(arg, ':')) {
		char *glob = xstrndup(arg, strcspn(arg, ":"));
		jadd_str(m, "test", glob);
		jadd_str(m, "pattern", arg + strlen(glob) + 1);
		free(glob);
	} else {
		why = xasprintf("--metric '%s': the source '%s' is none of stdout:REGEX, "
				"stderr:REGEX, process:FIELD, duration:TESTGLOB and "
				"results:TESTGLOB:REGEX", text, source);
	}
	if (!why && !*arg)
		why = xasprintf("--metric '%s': nothing after '%s:'", text, source);
	free(name);
	free(unit);
	free(source);
	if (why || !out)
		cJSON_Delete(m);
	else
		*out = m;
	return why;
}

/* A NuGet id or assembly name that fits a glob and an awk word as it is. */
static int dotnet_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > DOTNET_NAME_MAX || s[0] == '.')
		return 0;
	for (; *s; s++)
		if (!name_rule_char((unsigned char)*s))
			return 0;
	return 1;
}

/* What abev init --dotnet was told of the project, checked. NULL, or the message. */
static char *dotnet_problem(const struct quick_spec *spec)
{
	const struct quick_dotnet *net = &spec->net;
	const char *project = dotnet_project(spec);
	char b[SHOW_NAME_MAX];

	if (!spec->dotnet)
		return net->project || net->npackages ? xstrdup("--project and --package are for "
							       "--dotnet") : NULL;
	if (!*project || project[0] == '/' || project[strlen(project) - 1] == '/' ||
	    strstr(project, "//") || !strcmp(project, "..") || !strncmp(project, "../", 3) ||
	    strstr(project, "/../") || (strlen(project) >= 3 &&
					!strcmp(project + strlen(project) - 3, "/..")))
		return xasprintf("--project '%s': expected the test project's directory relative "
				 "to the repository's top, without '..'",
				 show_str(b, sizeof(b), project));
	for (size_t i = 0; net->checkouts && i < QUICK_STARTER_VARIANTS; i++)
		if (!net->checkouts[i].dir || net->checkouts[i].dir[0] != '/' ||
		    !net->checkouts[i].ref || !net->checkouts[i].commit)
			return xasprintf("the %s checkout is not an absolute directory with its ref "
					 "and commit", quick_starter_names[i]);
	if (!dotnet_name_ok(dotnet_assembly(spec)))
		return xasprintf("the assembly name '%s' is not one abev can hash by name (use "
				 "letters, digits, '.', '_' and '-')",
				 show_str(b, sizeof(b), dotnet_assembly(spec)));
	if (net->npackages > QUICK_MAX_PACKAGES)
		return xasprintf("more than %d --package names", QUICK_MAX_PACKAGES);
	for (size_t i = 0; i < net->npackages; i++) {
		if (!dotnet_name_ok(net->packages[i]))
			return xasprintf("--package '%s' is not a NuGet id (letters, digits, '.', "
					 "'_' and '-', at most %d characters)",
					 show_str(b, sizeof(b), net->packages[i]), DOTNET_NAME_MAX);
		for (size_t k = 0; k < i; k++)
			if (!strcasecmp(net->packages[k], net->packages[i]))
				return xasprintf("--package '%s' given twice (NuGet ids ignore case)",
						 show_str(b, sizeof(b), net->packages[i]));
	}
	return NULL;
}

/* The checks of quick_plan() that need no JSON. NULL, or the message. */
static char *spec_problem(const struct quick_spec *spec, const char **order)
{
	char *why;
	enum run_order known;

	*order = spec->order ? spec->order : run_order_name(PLAN_ORDER_DEFAULT);
	if (!spec->ncommands && !spec->starter)
		return xstrdup("no command given");
	if (spec->ncommands > QUICK_MAX_COMMANDS)
		return xasprintf("more than %d commands given: abev bench compares at most %d at "
				 "once (a plan's variants_file holds more)",
				 QUICK_MAX_COMMANDS, QUICK_MAX_COMMANDS);
	if (spec->nnames > spec->ncommands)
		return xasprintf("%zu names (-n) for %zu command%s", spec->nnames, spec->ncommands,
				 spec->ncommands == 1 ? "" : "s");
	if ((why = names_problem(spec)))
		return why;
	if ((why = dotnet_problem(spec)))
		return why;
	if (spec->nprepare > 1 && spec->nprepare != spec->ncommands)
		return xasprintf("%zu --prepare commands for %zu commands: give one for all, or "
				 "one per command", spec->nprepare, spec->ncommands);
	if (spec->noutputs > 1 && spec->noutputs != spec->ncommands)
		return xasprintf("%zu --output values for %zu commands: give one for all, or "
				 "one per command", spec->noutputs, spec->ncommands);
	if ((spec->nsetup > 1 && spec->nsetup != spec->ncommands) ||
	    (spec->ncleanup > 1 && spec->ncleanup != spec->ncommands))
		return xasprintf("--setup and --cleanup are one command each, for every command");
	if (run_order_parse(*order, &known) < 0)
		return xasprintf("unknown order '%s' (expected one of: " PLAN_ORDER_LIST ")",
				 *order);
	if (spec->cpus) {
		struct cpulist cl;
		char *bad = NULL;

		if (cpulist_parse(spec->cpus, &cl, &bad) < 0) {
			why = xasprintf("--cpus: %s", bad);
			free(bad);
			return why;
		}
	}
	if (spec->min_executed >= 0 && !spec->results)
		return xstrdup("--min-executed needs --results (the files whose tests it counts)");
	if (spec->results && !*spec->results)
		return xstrdup("--results is empty");
	for (size_t i = 0; i < spec->nmetrics; i++) {
		if ((why = metric_spec(spec->metrics[i], NULL)))
			return why;
		for (size_t k = 0; k < i; k++)
			if (strcspn(spec->metrics[i], "=") == strcspn(spec->metrics[k], "=") &&
			    !strncmp(spec->metrics[i], spec->metrics[k], strcspn(spec->metrics[i], "=")))
				return xasprintf("--metric '%.*s' given twice",
						 (int)strcspn(spec->metrics[i], "="), spec->metrics[i]);
	}
	for (size_t i = 0; i < spec->ngates; i++) {
		char *metric, *other;
		double pct;

		if ((why = gate_spec(spec->gates[i], &metric, &pct)))
			return why;
		for (size_t k = 0; k < i; k++) {
			gate_spec(spec->gates[k], &other, &pct);
			if (!strcmp(metric, other))
				why = xasprintf("--max-regression given twice for '%s'", metric);
			free(other);
		}
		free(metric);
		if (why)
			return why;
	}
	return NULL;
}

/* The description of a .NET starter whose variants are worktrees of two refs. */
static void add_checkouts_description(cJSON *plan, const struct quick_checkout *co)
{
	struct strbuf d = STRBUF_INIT;

	strbuf_adds(&d, "Written by abev init --dotnet --baseline --candidate:");
	for (size_t i = 0; i < QUICK_STARTER_VARIANTS; i++)
		strbuf_addf(&d, "%s %s is %s (commit %s), checked out in the git worktree %s",
			    i ? ";" : "", quick_starter_names[i], co[i].ref, co[i].commit,
			    co[i].dir);
	strbuf_adds(&d, ". Each build has its own bin/ and obj/; each variant's setup builds it "
		    "once (dotnet build -c Release) and the runs are dotnet test --no-build, one "
		    "TRX each. The first variant is the reference. Remove the worktrees with git "
		    "worktree remove DIR. See abev(1) for every key.");
	jadd_str(plan, "description", d.buf);
	strbuf_release(&d);
}

char *quick_plan(const struct quick_spec *spec, char **err)
{
	cJSON *plan = NULL, *variants, *shared[STEP_KINDS], *o;
	char **names = NULL, *text = NULL;
	struct strbuf title = STRBUF_INIT;
	const char *order;

	*err = spec_problem(spec, &order);
	if (*err)
		return NULL;
	variants = variants_array(spec, shared, err);
	if (!variants)
		return NULL;
	if (spec->ncommands) {
		quick_names(spec, &names);
		strbuf_adds(&title, "bench:");
		for (size_t i = 0; i < spec->ncommands; i++)
			strbuf_addf(&title, "%s%s", i ? " vs " : " ", names[i]);
	} else {
		strbuf_adds(&title, spec->dotnet ? "dotnet-starter" : "starter");
	}
	plan = jnew_object();
	jadd_str(plan, "schema", "abev.plan/1");
	jadd_str(plan, "name", title.buf);
	if (spec->starter && spec->dotnet && spec->net.checkouts)
		add_checkouts_description(plan, spec->net.checkouts);
	else if (spec->starter && spec->dotnet)
		jadd_str(plan, "description",
			 "Written by abev init --dotnet: set each variant's cwd to the test project "
			 "of the old and the new build, and build each once before the run (dotnet "
			 "build -c Release): the runs are dotnet test --no-build, one TRX each. The "
			 "first variant is the reference. See abev(1) for every key.");
	else if (spec->starter)
		jadd_str(plan, "description",
			 spec->ncommands
				 ? "Written by abev init from commands: the first variant is the "
				   "reference. Edit the schedule, metrics and gates; see abev(1)."
				 : "Written by abev init: replace each variant's command with yours (the "
				   "first variant is the reference; results.files names the test-result "
				   "files a run writes). See abev(1) for every key.");
	jadd(plan, "variants", variants);
	jadd(plan, "schedule", schedule_object(spec, order, shared));
	if (spec->results) {
		o = jnew_object();
		jadd_str(o, "files", spec->results);
		if (spec->min_executed >= 0)
			jadd_int(o, "min_executed", spec->min_executed);
		jadd(plan, "results", o);
	}
	if (spec->nmetrics) {
		o = jnew_array();
		for (size_t i = 0; i < spec->nmetrics; i++) {
			cJSON *m;
			free(metric_spec(spec->metrics[i], &m));
			jpush(o, m);
		}
		jadd(plan, "metrics", o);
	}
	if (spec->starter) {
		add_starter_keys(plan, spec);
	} else {
		o = jnew_object();
		jadd_real(o, "max_wait_seconds", QUICK_MAX_WAIT_SECONDS);
		jadd(plan, "load", o);
		if (spec->ignore_failure)
			jadd(plan, "allowed_exit_codes", exit_codes(spec));
	}
	if (!spec->starter && spec->ngates) {
		o = jnew_object();
		add_gates(o, spec);
		jadd(plan, "gates", o);
	}
	if (!spec->starter && spec->inconclusive_pass) {
		o = jnew_object();
		jadd_str(o, "inconclusive", "pass");
		jadd(plan, "decision", o);
	}
	text = json_print(plan);
	cJSON_Delete(plan);
	strbuf_release(&title);
	strv_free(names);
	return text;
}
