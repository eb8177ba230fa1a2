/*
 * Unit tests of metadata.c: a tree of files under a variant's cwd matched
 * by assemblies patterns (`**` over none and several directories, hidden
 * names, a symbolic link, sorting), each file's size and SHA-256; versions
 * commands (output, exit code, environment and cwd, a missing program);
 * git state of a plain directory and of a fresh repository, clean then
 * dirty; the host figures and label; the errors for a pattern that matches nothing
 * and for a match that cannot be hashed; and that writing twice gives the
 * same bytes. Everything is built in a fresh mkdtemp directory and
 * metadata.json is read back with cJSON, as a user's tool would read it.
 * In plan fixtures ' stands for ".
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/hash.h"
#include "evidence/evidence_read.h"
#include "host/metadata.h"
#include "plan/plan.h"
#include "util/name_rule.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"

static char tmpdir[PATH_MAX];
static char *realdir;
static char last_error[4096];
static int nerrors;

static void capture(const char *prefix, const char *msg)
{
	(void)prefix;
	nerrors++;
	snprintf(last_error, sizeof(last_error), "%s", msg);
	if (getenv("TEST_METADATA_VERBOSE"))
		fprintf(stderr, "  %s: %s\n", prefix, msg);
}

static void reset_errors(void)
{
	nerrors = 0;
	last_error[0] = '\0';
}

/* Writes content under tmpdir (creating parents); returns the path (caller frees). */
static char *put_file(const char *rel, const char *content)
{
	char *path = path_join(realdir, rel);
	char *dir = xstrdup(path);
	FILE *f;
	*strrchr(dir, '/') = '\0';
	assert_int_equal(mkdir_p(dir), 0);
	free(dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, strlen(content), f), strlen(content));
	assert_int_equal(fclose(f), 0);
	return path;
}

static void put(const char *rel, const char *content)
{
	free(put_file(rel, content));
}

/* A plan fixture: ' becomes ". Returns the plan's path (caller frees). */
static char *put_plan(const char *name, const char *fixture)
{
	char *s = xstrdup(fixture);
	char *path;
	for (char *p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	path = put_file(name, s);
	free(s);
	return path;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/abev-test-metadata-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	realdir = realpath(tmpdir, NULL);
	if (!realdir)
		return -1;
	/*
	 * A temporary directory inside someone's checkout would otherwise be
	 * "in a git checkout": git must not look above the test's directory.
	 */
	if (setenv("GIT_CEILING_DIRECTORIES", realdir, 1) < 0)
		return -1;
	set_error_routine(capture);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	set_error_routine(NULL);
	unsetenv("GIT_CEILING_DIRECTORIES");
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(realdir);
	return 0;
}

/*
 * Collects with plan and host label (NULL: the default) and writes
 * metadata.json into a fresh directory; returns it parsed.
 */
static cJSON *collect_json(const struct plan *plan, const char *label, const char *outdir)
{
	struct strbuf sb = STRBUF_INIT;
	struct metadata *md;
	char *dir = path_join(realdir, outdir), *file;
	cJSON *root;

	reset_errors();
	md = metadata_collect(plan, label, NULL);
	if (!md)
		fail_msg("metadata_collect: %s", last_error);
	assert_int_equal(nerrors, 0);
	assert_int_equal(mkdir_p(dir), 0);
	assert_int_equal(metadata_write(dir, md), 0);
	metadata_free(md);
	file = path_join(dir, "metadata.json");
	assert_int_equal(read_file_capped(&sb, file, 1u << 24), 0);
	assert_true(sb.len > 0 && sb.buf[sb.len - 1] == '\n');
	root = cJSON_Parse(sb.buf);
	assert_non_null(root);
	strbuf_release(&sb);
	free(file);
	free(dir);
	return root;
}

static const cJSON *get(const cJSON *o, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!j)
		fail_msg("missing key '%s'", key);
	return j;
}

static const char *get_str(const cJSON *o, const char *key)
{
	const cJSON *j = get(o, key);
	assert_true(cJSON_IsString(j));
	return j->valuestring;
}

/* The keys of o, in order, must be exactly want (NULL-terminated). */
static void assert_keys(const cJSON *o, const char *const *want)
{
	const cJSON *c = o->child;
	size_t i = 0;
	for (; c && want[i]; c = c->next, i++)
		if (strcmp(c->string, want[i]))
			fail_msg("key %zu is '%s', expected '%s'", i, c->string, want[i]);
	if (c || want[i])
		fail_msg("key %zu: '%s' vs expected '%s'", i, c ? c->string : "(end)",
			 want[i] ? want[i] : "(end)");
}

static void assert_file(const cJSON *f, const char *path, const char *content)
{
	unsigned char d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	static const char *const keys[] = { "path", "size", "sha256", NULL };

	assert_keys(f, keys);
	sha256_buf(content, strlen(content), d);
	sha256_hex(d, hex);
	assert_string_equal(get_str(f, "path"), path);
	assert_true(cJSON_IsNumber(get(f, "size")));
	assert_int_equal((size_t)get(f, "size")->valuedouble, strlen(content));
	assert_string_equal(get_str(f, "sha256"), hex);
}

/* The tree variant a's assemblies run over. */
static void build_tree(void)
{
	put("a/bin/top.dll", "top");                 /* `**` over no directory */
	put("a/bin/x/one.dll", "one one");           /* over one */
	put("a/bin/x/y/two.dll", "two two two");     /* over two */
	put("a/bin/x/readme.txt", "not a dll");
	put("a/bin/.hidden/h.dll", "hidden dir");    /* `**` does not enter hidden directories */
	put("a/bin/.dot.dll", "hidden file");        /* `*` does not match a leading dot */
	put("a/bin/dir.dll/inner.dll", "inner");     /* a directory named like a match: skipped, entered */
	put("a/lib/libfoo.so", "foo");
	put("a/lib/libbar.so", "bar bar");
	put("a/lib/sub/deep.so", "too deep for lib/*.so");
	put("a/bin/z/placeholder", "");
	{
		char *link = path_join(realdir, "a/bin/z/link.dll");
		char *loop = path_join(realdir, "a/bin/x/up");
		assert_int_equal(symlink("../top.dll", link), 0);
		/* `**` does not follow links to directories: this one would loop. */
		assert_int_equal(symlink("..", loop), 0);
		free(loop);
		free(link);
	}
}

static void test_collect(void **state)
{
	static const char *const top_keys[] = { "schema", "abev_version", "host", "environment",
						"dotnet_hook", "variants", NULL };
	static const char *const host_keys[] = {
		"label", "hostname", "os_release", "kernel", "kernel_version", "arch", "cpu_model",
		"logical_cpus", "physical_cores", "online_cpus", "governor", "boost",
		"memory_bytes", "cgroup_version", "clock_resolution_ns", NULL,
	};
	static const char *const variant_keys[] = {
		"name", "cwd", "env", "git", "versions", "assemblies", "environment", NULL,
	};
	static const char *const version_keys[] = { "argv", "exit_code", "output", "error", NULL };
	struct plan plan = PLAN_INIT;
	char *path, *cwd;
	cJSON *root;
	const cJSON *host, *v, *vers, *e, *asm_arr, *files;
	(void)state;

	build_tree();
	path = put_plan("plan.json",
		"{'schema':'abev.plan/1','name':'m',\n"
		" 'versions':{'echo':['echo','hello'],\n"
		"             'fails':['sh','-c','echo oops >&2; exit 3'],\n"
		"             'env':['sh','-c','echo \\'  \\'$GREETING $ABEV_VARIANT; pwd; echo'],\n"
		"             'missing':['abev-no-such-program-here','--version']},\n"
		" 'variants':[{'name':'a','cwd':'a','command':['true'],\n"
		"              'env':{'GREETING':'hi-{variant}'},\n"
		"              'assemblies':['bin/**/*.dll','lib/*.so']}]}\n");
	reset_errors();
	assert_int_equal(plan_load(&plan, path), 0);
	cwd = path_join(realdir, "a");
	root = collect_json(&plan, NULL, "out1");

	assert_keys(root, top_keys);
	/* No dotnet_runtime, no hook. */
	assert_true(cJSON_IsNull(get(root, "dotnet_hook")));
	assert_string_equal(get_str(root, "schema"), "abev.metadata/1");
	assert_string_equal(get_str(root, "abev_version"), ABEV_VERSION);

	host = get(root, "host");
	assert_keys(host, host_keys);
	assert_true(strlen(get_str(host, "hostname")) > 0);
	/* Without --host-label the host is named by its hostname. */
	assert_string_equal(get_str(host, "label"), get_str(host, "hostname"));
	assert_true(strlen(get_str(host, "kernel")) > 0);
	assert_true(strlen(get_str(host, "arch")) > 0);
	assert_true(cJSON_IsNumber(get(host, "logical_cpus")));
	assert_true(get(host, "logical_cpus")->valuedouble >= 1);
	assert_true(cJSON_IsNull(get(host, "physical_cores")) ||
		    get(host, "physical_cores")->valuedouble >= 1);
	assert_true(cJSON_IsNull(get(host, "boost")) || cJSON_IsBool(get(host, "boost")));
	assert_true(cJSON_IsNull(get(host, "cgroup_version")) ||
		    !strcmp(get(host, "cgroup_version")->valuestring, "2") ||
		    !strcmp(get(host, "cgroup_version")->valuestring, "1") ||
		    !strcmp(get(host, "cgroup_version")->valuestring, "hybrid"));
	/* Linux always has these. */
	assert_true(get(host, "memory_bytes")->valuedouble > 0);
	assert_true(get(host, "clock_resolution_ns")->valuedouble >= 1);

	v = get(root, "variants");
	assert_int_equal(cJSON_GetArraySize(v), 1);
	v = v->child;
	assert_keys(v, variant_keys);
	assert_string_equal(get_str(v, "name"), "a");
	assert_string_equal(get_str(v, "cwd"), cwd);
	assert_true(cJSON_IsNull(get(v, "git")));

	/* versions, in plan order */
	vers = get(v, "versions");
	assert_int_equal(cJSON_GetArraySize(vers), 4);
	e = get(vers, "echo");
	assert_string_equal(vers->child->string, "echo");
	assert_keys(e, version_keys);
	assert_int_equal(cJSON_GetArraySize(get(e, "argv")), 2);
	assert_string_equal(cJSON_GetArrayItem(get(e, "argv"), 0)->valuestring, "echo");
	assert_string_equal(cJSON_GetArrayItem(get(e, "argv"), 1)->valuestring, "hello");
	assert_int_equal((int)get(e, "exit_code")->valuedouble, 0);
	assert_string_equal(get_str(e, "output"), "hello");
	assert_true(cJSON_IsNull(get(e, "error")));
	/* A failing command is recorded, not an error; stderr is part of the output. */
	e = get(vers, "fails");
	assert_int_equal((int)get(e, "exit_code")->valuedouble, 3);
	assert_string_equal(get_str(e, "output"), "oops");
	assert_true(cJSON_IsNull(get(e, "error")));
	/* The variant's env (expanded), ABEV_VARIANT and cwd; output trimmed at both ends. */
	{
		char *want = xasprintf("hi-a a\n%s", cwd);
		e = get(vers, "env");
		assert_int_equal((int)get(e, "exit_code")->valuedouble, 0);
		assert_string_equal(get_str(e, "output"), want);
		free(want);
	}
	e = get(vers, "missing");
	assert_true(cJSON_IsNull(get(e, "exit_code")));
	assert_string_equal(get_str(e, "output"), "");
	assert_non_null(strstr(get_str(e, "error"),
			       "cannot execute 'abev-no-such-program-here': No such file"));

	/* assemblies */
	asm_arr = get(v, "assemblies");
	assert_int_equal(cJSON_GetArraySize(asm_arr), 2);
	assert_string_equal(get_str(asm_arr->child, "pattern"), "bin/**/*.dll");
	files = get(asm_arr->child, "files");
	assert_int_equal(cJSON_GetArraySize(files), 5);
	/* Sorted by path; a link is recorded where it matched, hashed as its target. */
	assert_file(cJSON_GetArrayItem(files, 0), "bin/dir.dll/inner.dll", "inner");
	assert_file(cJSON_GetArrayItem(files, 1), "bin/top.dll", "top");
	assert_file(cJSON_GetArrayItem(files, 2), "bin/x/one.dll", "one one");
	assert_file(cJSON_GetArrayItem(files, 3), "bin/x/y/two.dll", "two two two");
	assert_file(cJSON_GetArrayItem(files, 4), "bin/z/link.dll", "top");
	assert_string_equal(get_str(asm_arr->child->next, "pattern"), "lib/*.so");
	files = get(asm_arr->child->next, "files");
	assert_int_equal(cJSON_GetArraySize(files), 2);
	assert_file(cJSON_GetArrayItem(files, 0), "lib/libbar.so", "bar bar");
	assert_file(cJSON_GetArrayItem(files, 1), "lib/libfoo.so", "foo");

	cJSON_Delete(root);
	plan_release(&plan);
	free(cwd);
	free(path);
}

/* Same machine, same inputs: the same bytes (nothing time-dependent is recorded). */
static void test_deterministic(void **state)
{
	struct plan plan = PLAN_INIT;
	struct strbuf one = STRBUF_INIT, two = STRBUF_INIT;
	char *path, *f1, *f2;
	cJSON *r;
	(void)state;

	put("d/bin/a/b/c.dll", "c");
	put("d/bin/b.dll", "b");
	path = put_plan("det.json",
		"{'schema':'abev.plan/1','name':'m','versions':{'v':['echo','1.0']},\n"
		" 'variants':[{'name':'x','cwd':'d','command':['true'],'assemblies':['**/*.dll']},\n"
		"             {'name':'y','cwd':'d','command':['true'],'assemblies':['bin/**']}]}");
	assert_int_equal(plan_load(&plan, path), 0);
	cJSON_Delete(collect_json(&plan, NULL, "det1"));
	r = collect_json(&plan, NULL, "det2");
	f1 = path_join(realdir, "det1/metadata.json");
	f2 = path_join(realdir, "det2/metadata.json");
	assert_int_equal(read_file_capped(&one, f1, 1u << 24), 0);
	assert_int_equal(read_file_capped(&two, f2, 1u << 24), 0);
	assert_int_equal(one.len, two.len);
	assert_memory_equal(one.buf, two.buf, one.len);
	/* `**` leading the pattern, and a trailing `**` (every file below). */
	{
		const cJSON *x = get(r, "variants")->child, *y = x->next;
		const cJSON *fx = get(get(x, "assemblies")->child, "files");
		const cJSON *fy = get(get(y, "assemblies")->child, "files");
		assert_int_equal(cJSON_GetArraySize(fx), 2);
		assert_file(cJSON_GetArrayItem(fx, 0), "bin/a/b/c.dll", "c");
		assert_file(cJSON_GetArrayItem(fx, 1), "bin/b.dll", "b");
		assert_int_equal(cJSON_GetArraySize(fy), 2);
		assert_file(cJSON_GetArrayItem(fy, 0), "bin/a/b/c.dll", "c");
	}
	cJSON_Delete(r);
	strbuf_release(&one);
	strbuf_release(&two);
	plan_release(&plan);
	free(f1);
	free(f2);
	free(path);
}

/* A given label replaces the hostname as host.label; the hostname stays. */
static void test_label(void **state)
{
	static const struct { const char *label; int valid; } cases[] = {
		{ "x86-runner_1.a", 1 }, { "A", 1 },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1 },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0 },
		{ "", 0 }, { "two words", 0 }, { "a/b", 0 }, { "caf\xc3\xa9", 0 }, { "tab\t", 0 },
	};
	struct plan plan = PLAN_INIT;
	char *path;
	cJSON *r;
	const cJSON *host;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (name_rule_ok(cases[i].label) != cases[i].valid)
			fail_msg("name_rule_ok(\"%s\") != %d", cases[i].label, cases[i].valid);

	path = put_plan("label.json",
		"{'schema':'abev.plan/1','name':'m','variants':[{'name':'x','command':['true']}]}");
	assert_int_equal(plan_load(&plan, path), 0);
	r = collect_json(&plan, "arm64-node.7", "label");
	host = get(r, "host");
	assert_string_equal(get_str(host, "label"), "arm64-node.7");
	assert_true(strlen(get_str(host, "hostname")) > 0);
	cJSON_Delete(r);
	plan_release(&plan);
	free(path);
}

/* Paths outside the cwd are absolute; ".." is resolved before matching. */
static void test_outside_cwd(void **state)
{
	struct plan plan = PLAN_INIT;
	char *path, *want;
	cJSON *r;
	const cJSON *files;
	(void)state;

	put("o/cwd/keep", "");
	put("o/shared/s.so", "shared");
	path = put_plan("out.json",
		"{'schema':'abev.plan/1','name':'m',\n"
		" 'variants':[{'name':'x','cwd':'o/cwd','command':['true'],\n"
		"              'assemblies':['../shared/*.so','./keep']}]}");
	assert_int_equal(plan_load(&plan, path), 0);
	r = collect_json(&plan, NULL, "outside");
	files = get(get(get(r, "variants")->child, "assemblies")->child, "files");
	want = path_join(realdir, "o/shared/s.so");
	assert_file(files->child, want, "shared");
	files = get(get(get(r, "variants")->child, "assemblies")->child->next, "files");
	assert_file(files->child, "keep", "");
	cJSON_Delete(r);
	plan_release(&plan);
	free(want);
	free(path);
}

static void test_no_match(void **state)
{
	struct plan plan = PLAN_INIT;
	char *path, *cwd, *want;
	(void)state;

	put("n/bin/one.dll", "1");
	put("n/lib/.hidden.so", "hidden: '*' does not match it");
	path = put_plan("nomatch.json",
		"{'schema':'abev.plan/1','name':'m',\n"
		" 'variants':[{'name':'x','cwd':'n','command':['true'],\n"
		"              'assemblies':['bin/**/*.dll','lib/*.so']}]}");
	assert_int_equal(plan_load(&plan, path), 0);
	cwd = path_join(realdir, "n");
	want = xasprintf("%s: variants[0].assemblies[1]: 'lib/*.so' matches no file in '%s'",
			 path, cwd);
	reset_errors();
	assert_null(metadata_collect(&plan, NULL, NULL));
	assert_int_equal(nerrors, 1);
	assert_string_equal(last_error, want);
	plan_release(&plan);
	metadata_free(NULL);
	free(want);
	free(cwd);
	free(path);
}

/*
 * dotnet_runtime: the hook (here ABEV_DOTNET_HOOK's) is recorded with its
 * size and SHA-256, and each variant's environment holds it after the
 * user's own DOTNET_STARTUP_HOOKS; a hook that is not there fails.
 */
static void test_dotnet_hook(void **state)
{
	unsigned char d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1], *path, *hook, *want;
	struct plan plan = PLAN_INIT;
	const cJSON *h, *env;
	struct metadata *md;
	cJSON *root;
	(void)state;

	put("hook/h.dll", "MZ not really an assembly");
	hook = path_join(realdir, "hook/h.dll");
	path = put_plan("hook.json",
		"{'schema':'abev.plan/1','name':'m','dotnet_runtime':true,\n"
		" 'variants':[{'name':'x','cwd':'hook','command':['true'],\n"
		"              'env':{'DOTNET_STARTUP_HOOKS':'/user/own.dll'}}]}");
	assert_int_equal(plan_load(&plan, path), 0);
	assert_int_equal(setenv("ABEV_DOTNET_HOOK", hook, 1), 0);
	root = collect_json(&plan, NULL, "outhook");
	h = get(root, "dotnet_hook");
	assert_string_equal(get_str(h, "added_to"), "DOTNET_STARTUP_HOOKS");
	assert_string_equal(get_str(h, "path"), hook);
	sha256_buf("MZ not really an assembly", 25, d);
	sha256_hex(d, hex);
	assert_string_equal(get_str(h, "sha256"), hex);
	assert_int_equal(get(h, "size")->valuedouble, 25);
	env = get(cJSON_GetArrayItem(get(root, "variants"), 0), "environment");
	want = xasprintf("/user/own.dll:%s", hook);
	assert_string_equal(get_str(env, "DOTNET_STARTUP_HOOKS"), want);
	cJSON_Delete(root);
	/* Gone: the collection fails, saying what is missing. */
	assert_int_equal(unlink(hook), 0);
	reset_errors();
	md = metadata_collect(&plan, NULL, NULL);
	assert_null(md);
	assert_non_null(strstr(last_error, "dotnet_runtime: ABEV_DOTNET_HOOK="));
	unsetenv("ABEV_DOTNET_HOOK");
	plan_release(&plan);
	free(want);
	free(hook);
	free(path);
}

/* What cannot be hashed is refused, naming the pattern, rather than skipped. */
static void test_unhashable(void **state)
{
	static const struct {
		const char *what;
		const char *want;
	} cases[] = {
		{ "fifo", "' is not a regular file" },
		{ "dangling", "' is a symbolic link whose target cannot be hashed" },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = PLAN_INIT;
		char *dir = xasprintf("u%zu", i);
		char *ok = xasprintf("%s/bin/ok.dll", dir);
		char *bad = xasprintf("%s/%s/bin/bad.dll", realdir, dir);
		char *fixture = xasprintf(
			"{'schema':'abev.plan/1','name':'m','variants':[{'name':'x','cwd':'%s',"
			"'command':['true'],'assemblies':['lib/*','bin/*.dll']}]}", dir);
		char *lib = xasprintf("%s/lib/x", dir);
		char *path;

		put(ok, "fine");
		put(lib, "fine");
		if (!strcmp(cases[i].what, "fifo"))
			assert_int_equal(mkfifo(bad, 0644), 0);
		else
			assert_int_equal(symlink("nowhere.dll", bad), 0);
		path = put_plan("unhashable.json", fixture);
		assert_int_equal(plan_load(&plan, path), 0);
		reset_errors();
		assert_null(metadata_collect(&plan, NULL, NULL));
		assert_int_equal(nerrors, 1);
		assert_non_null(strstr(last_error, ": variants[0].assemblies[1]: 'bin/*.dll': '"));
		if (!strstr(last_error, cases[i].want))
			fail_msg("%s: got '%s'", cases[i].what, last_error);
		plan_release(&plan);
		free(path);
		free(lib);
		free(fixture);
		free(bad);
		free(ok);
		free(dir);
	}
}

static int have_git(void)
{
	return system("git --version >/dev/null 2>&1") == 0;
}

static void run_in(const char *dir, const char *cmd)
{
	char *full = xasprintf("cd '%s' && %s >/dev/null 2>&1", dir, cmd);
	if (system(full) != 0)
		fail_msg("failed: %s", full);
	free(full);
}

/* HEAD as git prints it, for comparison. */
static char *git_head(const char *dir)
{
	char *cmd = xasprintf("git -C '%s' rev-parse HEAD", dir);
	char buf[128] = "";
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(buf, sizeof(buf), p));
	assert_int_equal(pclose(p), 0);
	free(cmd);
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf);
}

static void test_git(void **state)
{
	struct plan plan = PLAN_INIT;
	char *path, *repo, *head;
	const cJSON *g;
	cJSON *r;
	(void)state;

	if (!have_git()) {
		skip();
		return;
	}
	put("repo/src/main.c", "int main(void) { return 0; }\n");
	put("plain/file", "not in a checkout\n");
	repo = path_join(realdir, "repo");
	run_in(repo, "git init -q . && git add -A && "
		     "git -c user.name=abev -c user.email=abev@abev.invalid -c commit.gpgsign=false "
		     "commit -q -m initial");
	head = git_head(repo);
	path = put_plan("git.json",
		"{'schema':'abev.plan/1','name':'m',\n"
		" 'variants':[{'name':'g','cwd':'repo/src','command':['true']},\n"
		"             {'name':'p','cwd':'plain','command':['true']},\n"
		"             {'name':'g2','cwd':'repo/src','command':['true']}]}");
	assert_int_equal(plan_load(&plan, path), 0);

	r = collect_json(&plan, NULL, "git1");
	g = get(get(r, "variants")->child, "git");
	assert_true(cJSON_IsObject(g));
	assert_string_equal(get_str(g, "head"), head);
	assert_int_equal(strlen(head), 40);
	assert_true(cJSON_IsFalse(get(g, "dirty")));
	/* not a checkout (the ceiling keeps git from finding one above) */
	assert_true(cJSON_IsNull(get(get(r, "variants")->child->next, "git")));
	/* a variant in the same directory: the same answer */
	g = get(get(r, "variants")->child->next->next, "git");
	assert_string_equal(get_str(g, "head"), head);
	assert_true(cJSON_IsFalse(get(g, "dirty")));
	/* no assemblies, no versions: empty, not missing */
	assert_int_equal(cJSON_GetArraySize(get(get(r, "variants")->child, "assemblies")), 0);
	assert_int_equal(cJSON_GetArraySize(get(get(r, "variants")->child, "versions")), 0);
	cJSON_Delete(r);

	/* a modified tracked file */
	put("repo/src/main.c", "int main(void) { return 1; }\n");
	r = collect_json(&plan, NULL, "git2");
	g = get(get(r, "variants")->child, "git");
	assert_string_equal(get_str(g, "head"), head);
	assert_true(cJSON_IsTrue(get(g, "dirty")));
	assert_true(cJSON_IsTrue(get(get(get(r, "variants")->child->next->next, "git"), "dirty")));
	cJSON_Delete(r);

	/* an untracked file only */
	run_in(repo, "git checkout -q -- src/main.c");
	put("repo/new.txt", "untracked\n");
	r = collect_json(&plan, NULL, "git3");
	assert_true(cJSON_IsTrue(get(get(get(r, "variants")->child, "git"), "dirty")));
	cJSON_Delete(r);

	plan_release(&plan);
	free(head);
	free(repo);
	free(path);
}

static void assert_same_str(const char *what, const char *a, const char *b)
{
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b)))
		fail_msg("%s: '%s' read back, '%s' collected", what, a ? a : "(null)",
			 b ? b : "(null)");
}

static void assert_same_strv(const char *what, char **a, char **b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_same_str(what, a[i], b[i]);
}

static void assert_same_runtime(const struct env_runtime *a, const struct env_runtime *b)
{
	assert_int_equal(a->known, b->known);
	assert_int_equal(a->n, b->n);
	assert_same_strv("runtime key", a->keys, b->keys, a->n);
	assert_same_strv("runtime value", a->values, b->values, a->n);
}

/* Every member of two run_environments, field by field. */
static void assert_same_environment(const struct run_environment *a,
				    const struct run_environment *b)
{
	const struct host_facts *x = &a->host, *y = &b->host;

	assert_same_str("label", x->label, y->label);
	assert_same_str("hostname", x->hostname, y->hostname);
	assert_same_str("os_release", x->os_release, y->os_release);
	assert_same_str("kernel", x->kernel, y->kernel);
	assert_same_str("kernel_version", x->kernel_version, y->kernel_version);
	assert_same_str("arch", x->arch, y->arch);
	assert_same_str("cpu_model", x->cpu_model, y->cpu_model);
	assert_same_str("online_cpus", x->online_cpus, y->online_cpus);
	assert_same_str("governor", x->governor, y->governor);
	assert_same_str("cgroup_version", x->cgroup_version, y->cgroup_version);
	assert_true(x->logical_cpus == y->logical_cpus && x->physical_cores == y->physical_cores);
	assert_true(x->memory_bytes == y->memory_bytes);
	assert_true(x->clock_resolution_ns == y->clock_resolution_ns);
	assert_int_equal(x->boost, y->boost);
	assert_same_runtime(&a->runtime, &b->runtime);
	assert_int_equal(a->nvariants, b->nvariants);
	for (size_t i = 0; i < a->nvariants; i++) {
		const struct env_variant *v = &a->variants[i], *w = &b->variants[i];

		assert_same_str("name", v->name, w->name);
		assert_same_str("cwd", v->cwd, w->cwd);
		assert_int_equal(v->git_known, w->git_known);
		assert_int_equal(v->git_dirty, w->git_dirty);
		assert_same_str("git head", v->git_head, w->git_head);
		assert_int_equal(v->nenv, w->nenv);
		assert_same_strv("env key", v->env_keys, w->env_keys, v->nenv);
		assert_same_strv("env value", v->env_values, w->env_values, v->nenv);
		assert_int_equal(v->nparams, w->nparams);
		assert_same_strv("parameter key", v->param_keys, w->param_keys, v->nparams);
		assert_same_strv("parameter value", v->param_values, w->param_values, v->nparams);
		assert_int_equal(v->nversions, w->nversions);
		for (size_t k = 0; k < v->nversions; k++) {
			assert_same_str("version", v->versions[k].name, w->versions[k].name);
			assert_same_str("output", v->versions[k].output, w->versions[k].output);
			assert_same_str("error", v->versions[k].error, w->versions[k].error);
			assert_true(v->versions[k].exit_code == w->versions[k].exit_code);
		}
		assert_int_equal(v->nfiles, w->nfiles);
		for (size_t k = 0; k < v->nfiles; k++) {
			assert_same_str("file", v->files[k].path, w->files[k].path);
			assert_same_str("sha256", v->files[k].sha256, w->files[k].sha256);
			assert_true(v->files[k].size == w->files[k].size);
		}
		assert_same_runtime(&v->runtime, &w->runtime);
	}
}

/*
 * What a run's report shows of metadata.json (metadata_environment(),
 * no file read) is what `abev report DIR` reads back from the file:
 * host facts, versions (failed and missing too), assemblies, the plan's
 * env with a secret by name and by value, and the runtime variables of
 * abev's environment and the variant's — one hashed as the
 * --passphrase-env variable, one not UTF-8.
 */
static void test_read_back(void **state)
{
	struct plan plan = PLAN_INIT;
	struct run_environment collected, read;
	struct metadata *md;
	char *path, *dir = path_join(realdir, "readback"), *err = NULL;
	(void)state;

	put("rb/bin/one.dll", "one");
	put("rb/lib/two.so", "two two");
	path = put_plan("rb.json",
		"{'schema':'abev.plan/1','name':'m',\n"
		" 'versions':{'echo':['echo','hello'],\n"
		"             'fails':['sh','-c','echo oops >&2; exit 3'],\n"
		"             'missing':['abev-no-such-program-here','--version']},\n"
		" 'variants':[{'name':'a','cwd':'rb','command':['true'],\n"
		"              'env':{'GREETING':'hi-{variant}','API_TOKEN':'s3cret',\n"
		"                     'DB':'https://user:pw@db.example/','DOTNET_TieredPGO':'0'},\n"
		"              'assemblies':['bin/*.dll','lib/*.so']},\n"
		"             {'name':'b','cwd':'rb','command':['true']}]}\n");
	assert_int_equal(setenv("DOTNET_gcServer", "1", 1), 0);
	assert_int_equal(setenv("DOTNET_RB_PASS", "plain-looking", 1), 0);
	assert_int_equal(setenv("NODE_OPTIONS", "--title=\xff\xfe", 1), 0);
	reset_errors();
	assert_int_equal(plan_load(&plan, path), 0);
	md = metadata_collect(&plan, "rb-host", "DOTNET_RB_PASS");
	if (!md)
		fail_msg("metadata_collect: %s", last_error);
	assert_int_equal(mkdir_p(dir), 0);
	assert_int_equal(metadata_write(dir, md), 0);
	metadata_environment(md, &collected);
	if (evidence_read_environment(dir, &read, &err) < 0)
		fail_msg("evidence_read_environment: %s", err);
	assert_same_environment(&read, &collected);

	/* What it compared holds what the test set up, not two empty structs. */
	assert_string_equal(collected.host.label, "rb-host");
	assert_int_equal(collected.nvariants, 2);
	assert_int_equal(collected.variants[0].nversions, 3);
	assert_int_equal(collected.variants[0].nfiles, 2);
	assert_int_equal(collected.variants[0].nenv, 4);
	assert_non_null(strstr(collected.variants[0].env_values[1], "(secret, SHA-256 "));
	assert_non_null(strstr(collected.variants[0].env_values[2], "(secret, SHA-256 "));
	assert_true(collected.runtime.known && collected.runtime.n >= 3);
	for (size_t i = 0; i < collected.runtime.n; i++)
		if (!strcmp(collected.runtime.keys[i], "DOTNET_RB_PASS"))
			assert_non_null(strstr(collected.runtime.values[i], "(secret, SHA-256 "));
	assert_true(collected.variants[0].runtime.n > collected.variants[1].runtime.n);

	evidence_environment_release(&collected);
	evidence_environment_release(&read);
	evidence_environment_release(&read);
	metadata_free(md);
	unsetenv("DOTNET_gcServer");
	unsetenv("DOTNET_RB_PASS");
	unsetenv("NODE_OPTIONS");
	plan_release(&plan);
	free(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_outside_cwd),
		cmocka_unit_test(test_no_match),
		cmocka_unit_test(test_dotnet_hook),
		cmocka_unit_test(test_unhashable),
		cmocka_unit_test(test_git),
		cmocka_unit_test(test_read_back),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
