/*
 * Unit tests of proc: real children (/bin/sh snippets, /bin/sleep, the
 * test helper) run through proc_run(), checking what a user of the evidence
 * would check: outcome, exit code and signal, exec failures and their
 * reasons, timeouts that reach a TERM-ignoring child (SIGTERM first, SIGKILL
 * after the grace period; a second interrupt at once), redirections, cwd,
 * environment, stops of the child counted, and that nothing the child
 * started survives it.
 *
 * The machine is shared and may be busy: durations and CPU times are
 * compared with what the helper measured of itself ($ABEV_HELPER, see
 * tests/helpers/helper.c) and with the window of the proc_run() call, never
 * with the clock on the wall. How close abev gets to the clock is
 * bench/clock-accuracy.sh's business.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/cpulist.h"
#include "run/proc.h"
#include "run/proc_fork.h"
#include "run/proc_io.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/env.h"
#include "util/hash.h"
#include "util/number.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

#define MS (1000 * 1000LL)
/* proc's tick period (proc.h: "about every 100 ms"). */
#define TICK_NS (100 * MS)

static char tmpdir[] = "/tmp/abev-test-proc-XXXXXX";
static char *out_path, *err_path;
static const char *helper;   /* $ABEV_HELPER, or NULL: the tests that need it skip */

static const char *const base_env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };

static int group_setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	out_path = path_join(tmpdir, "stdout.log");
	err_path = path_join(tmpdir, "stderr.log");
	helper = getenv("ABEV_HELPER");
	if (helper && !*helper)
		helper = NULL;
	return proc_setup();
}

static int group_teardown(void **state)
{
	char *cmd;
	(void)state;
	unlink(out_path);
	unlink(err_path);
	cmd = path_join(tmpdir, "pid");
	unlink(cmd);
	free(cmd);
	rmdir(tmpdir);
	free(out_path);
	free(err_path);
	return 0;
}

static struct proc_spec spec_for(const char *const *argv)
{
	struct proc_spec s = {
		.argv = argv,
		.envp = base_env,
		.cwd = tmpdir,
		.stdout_path = out_path,
		.stderr_path = err_path,
		.timeout_ns = 0,
		.grace_ns = 500 * MS,
		.cgroup_name = NULL,
		.tick = NULL,
		.tick_arg = NULL,
	};
	return s;
}

/* abev must have no child left, alive or zombie, after proc_run(). */
static void assert_no_children(void)
{
	int status;
	assert_int_equal(waitpid(-1, &status, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void assert_gone(pid_t pid)
{
	assert_true(pid > 0);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(read_file_capped(&sb, path, 1 << 20), 0);
	return strbuf_detach(&sb, NULL);
}

static pid_t read_pidfile(void)
{
	char *path = path_join(tmpdir, "pid");
	char *text = slurp(path);
	int64_t v = -1;
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	assert_int_equal(parse_int64(text, &v), 0);
	free(text);
	unlink(path);
	free(path);
	return (pid_t)v;
}

static void run_ok(const struct proc_spec *s, struct proc_result *res)
{
	assert_int_equal(proc_run(s, res), 0);
	assert_no_children();
}

static int64_t realtime_ns(void)
{
	struct timespec ts;
	assert_int_equal(clock_gettime(CLOCK_REALTIME, &ts), 0);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static void need_helper(void)
{
	if (!helper) {
		print_message("skipped: $ABEV_HELPER is not set (run through 'make check')\n");
		skip();
	}
}

/* What the helper measured of itself (tests/helpers/helper.c): -1 if not said. */
struct helper_report {
	int64_t start_mono_ns, end_mono_ns, start_real_ns, end_real_ns;
	int64_t cpu_ns, user_ns, sys_ns;
};

static void read_report(struct helper_report *h)
{
	static const char *const keys[] = { "start_mono_ns", "end_mono_ns", "start_real_ns",
					    "end_real_ns", "cpu_ns", "user_ns", "sys_ns" };
	int64_t *fields[] = { &h->start_mono_ns, &h->end_mono_ns, &h->start_real_ns,
			      &h->end_real_ns, &h->cpu_ns, &h->user_ns, &h->sys_ns };
	char *text = slurp(out_path), *line, *next;

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		*fields[i] = -1;
	for (line = text; line && *line; line = next) {
		char *eq;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (!strcmp(line, keys[i]))
				assert_int_equal(parse_int64(eq + 1, fields[i]), 0);
	}
	free(text);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (*fields[i] < 0)
			fail_msg("the helper did not report %s", keys[i]);
}

/* Time this process spent runnable but not running (/proc/self/schedstat), or -1. */
static int64_t run_delay_ns(void)
{
	struct strbuf sb = STRBUF_INIT;
	int64_t v = -1;
	if (read_file_capped(&sb, "/proc/self/schedstat", 4096) == 0) {
		char *p = strchr(sb.buf, ' '), *end;
		if (p) {
			p++;
			end = strchr(p, ' ');
			if (end)
				*end = '\0';
			if (parse_int64(p, &v) < 0)
				v = -1;
		}
	}
	strbuf_release(&sb);
	return v;
}

struct exit_case {
	const char *script;
	enum proc_outcome outcome;
	int exit_code;
	int signal;
};

static const struct exit_case exit_cases[] = {
	{ "exit 0", PROC_EXITED, 0, 0 },
	{ "exit 3", PROC_EXITED, 3, 0 },
	{ "exit 255", PROC_EXITED, 255, 0 },
	{ "kill -USR1 $$", PROC_SIGNALED, -1, SIGUSR1 },
	{ "kill -KILL $$", PROC_SIGNALED, -1, SIGKILL },
};

static void test_exit_and_signal(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(exit_cases); i++) {
		const struct exit_case *c = &exit_cases[i];
		const char *argv[] = { "sh", "-c", c->script, NULL };
		struct proc_spec s = spec_for(argv);
		struct proc_result res;
		run_ok(&s, &res);
		assert_int_equal(res.outcome, c->outcome);
		assert_int_equal(res.exit_code, c->exit_code);
		assert_int_equal(res.signal, c->signal);
		assert_int_equal(res.leftovers_killed, 0);
		assert_null(res.exec_error);
		assert_non_null(res.cgroup_reason);
		proc_result_release(&res);
		proc_result_release(&res);
	}
}

/*
 * A child's peak RSS is its own however large abev has grown: abev's heap
 * is not copied into it (proc_fork.h). With 256 MiB on the heap, touched,
 * `true` peaks at a few MiB (forked with the heap, it reported 256 MiB).
 */
static void test_child_rss_is_its_own(void **state)
{
	const char *argv[] = { "true", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	char *blocks[256];
	(void)state;

	proc_fork_heap_setup();
	for (size_t i = 0; i < ARRAY_SIZE(blocks); i++) {
		blocks[i] = xmalloc(1u << 20);
		memset(blocks[i], (int)i, 1u << 20);
	}
	if (!proc_fork_heap_holds(blocks[0]) || !proc_fork_heap_holds(blocks[ARRAY_SIZE(blocks) - 1])) {
		for (size_t i = 0; i < ARRAY_SIZE(blocks); i++)
			free(blocks[i]);
		print_message("skipped: malloc does not use the heap here (a sanitizer or valgrind)\n");
		skip();
	}
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	if (res.fig.max_rss_bytes >= 64 << 20)
		fail_msg("true peaked at %lld bytes with 256 MiB on abev's heap",
			 (long long)res.fig.max_rss_bytes);
	proc_result_release(&res);
	for (size_t i = 0; i < ARRAY_SIZE(blocks); i++)
		free(blocks[i]);
}

/* How many mappings of abev's heap /proc/self/maps lists. */
static unsigned heap_mappings(void)
{
	char line[512];
	unsigned n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "[heap]") != NULL;
	fclose(f);
	return n;
}

/*
 * The heap stays a mapping or two however many children abev starts while
 * it grows: left withheld after a child, the pages brk added later were a
 * mapping of their own, one more per child (760 after 3,000 invocations),
 * and every clone3() copied them all — the time between invocations grew
 * with the run. 200 children, the heap grown by 64 KiB before each.
 */
static void test_heap_stays_one_mapping(void **state)
{
	const char *argv[] = { "true", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	char *blocks[200];
	unsigned before;
	(void)state;

	proc_fork_heap_setup();
	blocks[0] = xmalloc(64u << 10);
	if (!proc_fork_heap_holds(blocks[0])) {
		free(blocks[0]);
		print_message("skipped: malloc does not use the heap here (a sanitizer or valgrind)\n");
		skip();
	}
	before = heap_mappings();
	for (size_t i = 0; i < ARRAY_SIZE(blocks); i++) {
		if (i)
			blocks[i] = xmalloc(64u << 10);
		memset(blocks[i], (int)i, 64u << 10);
		run_ok(&s, &res);
		assert_int_equal(res.exit_code, 0);
		proc_result_release(&res);
	}
	if (heap_mappings() > before + 2)
		fail_msg("the heap is %u mappings after 200 children (%u before)", heap_mappings(),
			 before);
	for (size_t i = 0; i < ARRAY_SIZE(blocks); i++)
		free(blocks[i]);
}

/*
 * The flags of the first mapping of the object whose path contains name
 * (smaps' VmFlags line), in buf; 0, or -1 when abev has no such mapping.
 */
static int mapping_flags(const char *name, char *buf, size_t len)
{
	char line[512];
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		/* A mapping's line starts "start-end perms": the keys below it start with a letter. */
		if (isxdigit((unsigned char)line[0]) && strchr(line, '-') &&
		    strchr(line, '-') < strchr(line, ' '))
			in = strstr(line, name) != NULL;
		if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(buf, len, "%.200s ", line + 8);
			buf[strcspn(buf, "\n")] = ' ';
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -1;
}

/*
 * The libraries the child never runs are withheld from the fork with the
 * heap (proc_fork.h): libcrypto's pages its relocations wrote (about
 * 400 KiB) used to be the child's, and `true` peaked at 1.9 MiB, twice
 * GNU time's figure. The C library, which the child runs, stays. This
 * runner's withheld library is cmocka's.
 */
static void test_libraries_withheld(void **state)
{
	const char *argv[] = { "true", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	char flags[256];
	(void)state;

	proc_fork_heap_setup();
	if (proc_fork_libs_withheld() == 0)
		fail_msg("no library is withheld from a fork: is this runner linked with -z now?");
	proc_fork_heap_withhold(1);
	assert_int_equal(mapping_flags("libcmocka.so", flags, sizeof(flags)), 0);
	if (!strstr(flags, " dc "))
		fail_msg("libcmocka is copied into a fork (VmFlags:%s)", flags);
	assert_int_equal(mapping_flags("/libc.so", flags, sizeof(flags)), 0);
	if (strstr(flags, " dc "))
		fail_msg("the C library is withheld from a fork (VmFlags:%s)", flags);
	proc_fork_heap_withhold(0);
	assert_int_equal(mapping_flags("libcmocka.so", flags, sizeof(flags)), 0);
	if (strstr(flags, " dc "))
		fail_msg("libcmocka stays withheld after the fork (VmFlags:%s)", flags);
	/* A child forked without them runs. */
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	proc_result_release(&res);
}

static void test_exec_failed(void **state)
{
	const char *missing[] = { "nosuchprog-abev", NULL };
	const char *abs_missing[] = { "/nonexistent/abev/prog", NULL };
	const char *true_argv[] = { "true", NULL };
	struct proc_spec s = spec_for(missing);
	struct proc_result res;
	char *noexec;
	const char *noexec_argv[2];
	int fd;
	(void)state;

	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_string_equal(res.exec_error,
			    "cannot execute 'nosuchprog-abev': No such file or directory");
	proc_result_release(&res);

	s = spec_for(abs_missing);
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_string_equal(res.exec_error,
			    "cannot execute '/nonexistent/abev/prog': No such file or directory");
	proc_result_release(&res);

	/* A file that is there but not executable: EACCES, as execvpe says. */
	noexec = path_join(tmpdir, "noexec");
	fd = open(noexec, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	noexec_argv[0] = noexec;
	noexec_argv[1] = NULL;
	s = spec_for(noexec_argv);
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_non_null(strstr(res.exec_error, "Permission denied"));
	proc_result_release(&res);
	unlink(noexec);
	free(noexec);

	s = spec_for(true_argv);
	s.cwd = "/nonexistent/abev-dir";
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_string_equal(res.exec_error, "cannot change directory to "
			    "'/nonexistent/abev-dir': No such file or directory");
	proc_result_release(&res);

	/* PATH from the child's environment, not abev's. */
	s = spec_for(true_argv);
	{
		const char *env[] = { "PATH=/nonexistent", NULL };
		s.envp = env;
		run_ok(&s, &res);
		assert_int_equal(res.outcome, PROC_EXEC_FAILED);
		proc_result_release(&res);
	}
	s = spec_for(true_argv);
	{
		const char *env[] = { "PATH=/nonexistent:/bin:/usr/bin", NULL };
		s.envp = env;
		run_ok(&s, &res);
		assert_int_equal(res.outcome, PROC_EXITED);
		assert_int_equal(res.exit_code, 0);
		proc_result_release(&res);
	}
}

/*
 * The PATH entries the child need not try: the leading absolute ones
 * without the program; a relative one (the child's cwd decides) ends
 * them, and with no program anywhere the child tries every one.
 */
static void test_exec_missing(void **state)
{
	char *dir = path_join(tmpdir, "bin"), *prog = path_join(dir, "prog");
	char *path = xasprintf("PATH=/nonexistent:%s/x:%s:/bin", prog, dir);
	char *rel_path = xasprintf("PATH=/nonexistent::%s", dir);
	const char *env[] = { path, NULL }, *rel_env[] = { rel_path, NULL };
	char **cands;
	int fd;
	(void)state;

	assert_int_equal(mkdir(dir, 0755), 0);
	cands = proc_exec_candidates("prog", env);
	assert_int_equal(proc_exec_missing(cands), 0);
	fd = open(prog, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(fd >= 0);
	close(fd);
	/* /nonexistent (ENOENT) and a file used as a directory (ENOTDIR) go. */
	assert_int_equal(proc_exec_missing(cands), 2);
	strv_free(cands);
	cands = proc_exec_candidates("prog", rel_env);
	assert_int_equal(proc_exec_missing(cands), 1);
	strv_free(cands);
	cands = proc_exec_candidates("/nonexistent/prog", env);
	assert_int_equal(proc_exec_missing(cands), 0);
	strv_free(cands);
	unlink(prog);
	rmdir(dir);
	free(rel_path);
	free(path);
	free(prog);
	free(dir);
}

static void test_sleep_wall_time(void **state)
{
	const char *argv[] = { helper, "sleep", "200", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	struct helper_report h;
	int64_t mono0, mono1, real0, real1, own;
	(void)state;
	need_helper();

	real0 = realtime_ns();
	mono0 = mono_ns();
	run_ok(&s, &res);
	mono1 = mono_ns();
	real1 = realtime_ns();
	read_report(&h);
	own = h.end_mono_ns - h.start_mono_ns;
	print_message("sleep 200: wall_ns=%lld, the helper's own %lld (+%.3f ms), proc_run() "
		      "took %lld; user_ns=%lld sys_ns=%lld self_cpu_ns=%lld max_rss=%lld\n",
		      (long long)res.fig.wall_ns, (long long)own, (res.fig.wall_ns - own) / 1e6,
		      (long long)(mono1 - mono0), (long long)res.fig.user_ns, (long long)res.fig.sys_ns,
		      (long long)res.self_cpu_ns, (long long)res.fig.max_rss_bytes);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	assert_true(own >= 200 * MS);
	/* abev's window holds the helper's whole life and lies within proc_run(). */
	assert_true(res.fig.wall_ns >= own);
	assert_true(res.fig.wall_ns <= mono1 - mono0);
	/* A sleeper's CPU time and abev's own are small, however long it waited. */
	assert_true(res.fig.user_ns + res.fig.sys_ns < 100 * MS);
	assert_true(res.fig.max_rss_bytes > 0);
	assert_true(res.self_cpu_ns >= 0 && res.self_cpu_ns < 100 * MS);
	/*
	 * The labels agree with the duration: they frame the helper's own
	 * realtime stamps, lie within the call, and are taken outside the
	 * monotonic readings (so they span at least wall_ns).
	 */
	assert_true(ts_ns(&res.start_real) >= real0);
	assert_true(ts_ns(&res.start_real) <= h.start_real_ns);
	assert_true(ts_ns(&res.end_real) >= h.end_real_ns);
	assert_true(ts_ns(&res.end_real) <= real1);
	assert_true(ts_ns(&res.end_real) - ts_ns(&res.start_real) >= res.fig.wall_ns);
	proc_result_release(&res);
}

static void test_cpu_time(void **state)
{
	const char *argv[] = { helper, "spin", "200", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	struct helper_report h;
	int64_t cpu;
	(void)state;
	need_helper();

	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	read_report(&h);
	cpu = res.fig.user_ns + res.fig.sys_ns;
	print_message("spin 200: user_ns=%lld sys_ns=%lld (the helper's own %lld + %lld, "
		      "cpu clock %lld) wall_ns=%lld self_cpu_ns=%lld\n", (long long)res.fig.user_ns,
		      (long long)res.fig.sys_ns, (long long)h.user_ns, (long long)h.sys_ns,
		      (long long)h.cpu_ns, (long long)res.fig.wall_ns, (long long)res.self_cpu_ns);
	/* The helper burned what it was asked to, however long that took. */
	assert_true(h.cpu_ns >= 200 * MS);
	/*
	 * wait4() covers everything the helper measured of itself, field by
	 * field (the kernel never lowers a reported user or system time; the
	 * slack is the microsecond rounding), plus its exec and exit: little.
	 */
	assert_true(res.fig.user_ns >= h.user_ns - MS);
	assert_true(res.fig.sys_ns >= h.sys_ns - MS);
	assert_true(cpu >= h.cpu_ns - MS);
	assert_true(cpu <= h.cpu_ns + 50 * MS);
	/* A single-threaded child never gets more CPU than its wall time. */
	assert_true(cpu <= res.fig.wall_ns + 10 * MS);
	assert_true(res.self_cpu_ns < 50 * MS);
	assert_true(res.fig.minflt > 0);
	proc_result_release(&res);
}

static void test_output_files(void **state)
{
	const char *argv[] = { "sh", "-c", "echo to-out; echo to-err >&2", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	char *out, *err;
	(void)state;

	/* Old content is truncated. */
	assert_int_equal(write_file_atomic(out_path, "stale stale stale\n", 18), 0);
	run_ok(&s, &res);
	assert_int_equal(res.exit_code, 0);
	out = slurp(out_path);
	err = slurp(err_path);
	assert_string_equal(out, "to-out\n");
	assert_string_equal(err, "to-err\n");
	free(out);
	free(err);
	proc_result_release(&res);
}

static void test_cwd_env_stdin(void **state)
{
	const char *argv[] = { "sh", "-c", "pwd; echo \"foo=$FOO\"; echo \"home=${HOME-unset}\"; "
			       "cat | wc -c", NULL };
	const char *env[] = { "PATH=/usr/bin:/bin", "FOO=bar baz", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	char *out, *expect;
	(void)state;

	s.envp = env;
	s.cwd = "/";
	run_ok(&s, &res);
	assert_int_equal(res.exit_code, 0);
	out = slurp(out_path);
	expect = xasprintf("/\nfoo=bar baz\nhome=unset\n0\n");
	assert_string_equal(out, expect);
	free(out);
	free(expect);
	proc_result_release(&res);
}

static void test_timeout_term(void **state)
{
	const char *argv[] = { "/bin/sleep", "30", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	/* A grace period no busy machine exhausts: the SIGTERM alone ends sleep. */
	s.timeout_ns = 200 * MS;
	s.grace_ns = 20 * 1000 * MS;
	run_ok(&s, &res);
	print_message("timeout 200 ms: wall_ns=%lld\n", (long long)res.fig.wall_ns);
	assert_int_equal(res.outcome, PROC_TIMED_OUT);
	assert_int_equal(res.signal, SIGTERM);
	/* Not before the timeout; long before sleep's own end or the SIGKILL. */
	assert_true(res.fig.wall_ns >= s.timeout_ns);
	assert_true(res.fig.wall_ns < s.grace_ns);
	assert_int_equal(res.interrupt_signal, 0);
	proc_result_release(&res);
}

static void test_timeout_kills_term_trapper(void **state)
{
	/*
	 * The shell notes each SIGTERM and carries on; its sleep ignores it:
	 * only the SIGKILL after the grace period ends them. "ready" says that
	 * both were set up before the timeout came.
	 */
	const char *argv[] = { "sh", "-c", "trap 'echo TERM >> got-term' TERM; "
			       "(trap '' TERM; : > ready; exec sleep 30) & echo $! > pid; wait; wait",
			       NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	char *got_path = path_join(tmpdir, "got-term"), *ready = path_join(tmpdir, "ready");
	char *got = NULL;
	pid_t grandchild;
	int was_ready;
	(void)state;

	s.timeout_ns = 300 * MS;
	s.grace_ns = 300 * MS;
	run_ok(&s, &res);
	print_message("timeout 300 ms + grace 300 ms: wall_ns=%lld\n", (long long)res.fig.wall_ns);
	assert_int_equal(res.outcome, PROC_TIMED_OUT);
	was_ready = access(ready, F_OK) == 0;
	if (was_ready) {
		assert_int_equal(res.signal, SIGKILL);
		/* SIGTERM first, at the timeout; SIGKILL no sooner than the grace period after it. */
		got = slurp(got_path);
		assert_string_equal(got, "TERM\n");
		assert_true(res.fig.wall_ns >= s.timeout_ns + s.grace_ns);
		grandchild = read_pidfile();
		assert_gone(grandchild);
	} else {
		/* Whatever had started got the SIGTERM at the timeout and is gone. */
		char *path = path_join(tmpdir, "pid");
		unlink(path);
		free(path);
		print_message("skipped: the shell was not set up %lld ns after it started; the "
			      "machine is too busy for this test\n", (long long)s.timeout_ns);
	}
	unlink(ready);
	unlink(got_path);
	free(ready);
	free(got_path);
	free(got);
	proc_result_release(&res);
	if (!was_ready)
		skip();
}

static void test_leftover_background(void **state)
{
	const char *argv[] = { "sh", "-c", "sleep 30 & echo $! > pid; exit 0", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	assert_int_equal(res.leftovers_killed, 1);
	assert_gone(read_pidfile());
	/* The wall time is the shell's, not the leftover's 30 s nor its cleanup's. */
	assert_true(res.fig.wall_ns < 10 * 1000 * MS);
	proc_result_release(&res);
}

static void test_leftover_new_session(void **state)
{
	/* setsid leaves the process group: only the subreaper finds it. */
	const char *argv[] = { "sh", "-c", "setsid sleep 30 & echo $! > pid; sleep 0.1; exit 4",
			       NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 4);
	assert_int_equal(res.leftovers_killed, 1);
	assert_gone(read_pidfile());
	proc_result_release(&res);
}

struct ticks {
	int64_t count, last;     /* calls so far, elapsed_ns of the last */
	int stop_after;          /* proc_run: signal the child from this call on */
};

/* "About every 100 ms": the k-th call comes no sooner than k periods in. */
static void count_tick(void *arg, int64_t elapsed)
{
	struct ticks *t = arg;
	assert_true(elapsed >= t->last);
	t->count++;
	t->last = elapsed;
	assert_true(elapsed >= t->count * TICK_NS);
	if (t->stop_after && t->count >= t->stop_after) {
		/* The child writes its pid first: stop it once it has. */
		char *path = path_join(tmpdir, "pid");
		struct strbuf sb = STRBUF_INIT;
		int64_t pid;
		if (read_file_capped(&sb, path, 64) == 0 && sb.len && sb.buf[sb.len - 1] == '\n') {
			sb.buf[sb.len - 1] = '\0';
			if (parse_int64(sb.buf, &pid) == 0 && pid > 0)
				kill((pid_t)pid, SIGUSR1);
		}
		strbuf_release(&sb);
		free(path);
	}
}

static void test_tick_and_sleep(void **state)
{
	/* The child lives until the third tick stops it: the count does not hang on the clock. */
	const char *argv[] = { "sh", "-c", "echo $$ > pid; exec sleep 30", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	struct ticks t = { 0, 0, 3 };
	int64_t t0, took, delay0, delay1;
	(void)state;

	s.tick = count_tick;
	s.tick_arg = &t;
	run_ok(&s, &res);
	print_message("proc_run: %lld ticks, the last at %lld ns, wall_ns=%lld\n",
		      (long long)t.count, (long long)t.last, (long long)res.fig.wall_ns);
	assert_int_equal(res.outcome, PROC_SIGNALED);
	assert_int_equal(res.signal, SIGUSR1);
	assert_true(t.count >= 3);
	assert_true(t.last <= res.fig.wall_ns);
	{
		char *path = path_join(tmpdir, "pid");
		unlink(path);
		free(path);
	}
	proc_result_release(&res);

	t.count = t.last = 0;
	t.stop_after = 0;
	delay0 = run_delay_ns();
	t0 = mono_ns();
	assert_int_equal(proc_sleep(250 * MS, count_tick, &t), 0);
	took = mono_ns() - t0;
	delay1 = run_delay_ns();
	print_message("proc_sleep(250 ms): took %lld ns, %lld ticks, waited %lld ns for a CPU\n",
		      (long long)took, (long long)t.count,
		      delay0 >= 0 && delay1 >= 0 ? (long long)(delay1 - delay0) : -1LL);
	assert_true(took >= 250 * MS);
	/* Ticks come during the sleep only: at 100 and 200 ms. */
	assert_true(t.count <= 2);
	assert_true(t.last < 250 * MS);
	/*
	 * With no tick, proc_sleep did not run between its 100 ms wake-up and
	 * its end: only a machine that kept it waiting for a CPU that long
	 * (its own run delay says so) excuses that.
	 */
	if (t.count == 0) {
		if (delay0 < 0 || delay1 < 0)
			print_message("no tick, and no /proc/self/schedstat to tell whether the "
				      "machine was too busy: not judged\n");
		else if (delay1 - delay0 < 100 * MS)
			fail_msg("proc_sleep(250 ms) called no tick, though it waited only %lld ns "
				 "for a CPU", (long long)(delay1 - delay0));
	}
	assert_int_equal(proc_sleep(0, NULL, NULL), 0);
}

static void test_cgroup(void **state)
{
	const char *argv[] = { "sh", "-c", "sleep 30 & i=0; while [ $i -lt 20000 ]; do "
			       "i=$((i+1)); done", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	s.cgroup_name = "unit/test";
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.leftovers_killed, 1);
	if (res.cgroup_reason) {
		print_message("no cgroup: %s\n", res.cgroup_reason);
		assert_int_equal(res.cg_cpu_usage_ns, -1);
	} else {
		print_message("cgroup: cpu_usage_ns=%lld memory_peak=%lld note=%s "
			      "(rusage cpu %lld)\n", (long long)res.cg_cpu_usage_ns,
			      (long long)res.cg_memory_peak_bytes,
			      res.cg_memory_note ? res.cg_memory_note : "-",
			      (long long)(res.fig.user_ns + res.fig.sys_ns));
		assert_true(res.cg_cpu_usage_ns > 0);
		assert_true(res.cg_memory_peak_bytes > 0 || res.cg_memory_note);
	}
	proc_result_release(&res);
}

/*
 * CPU wait: from the tree's threads' schedstat read before reaping, else
 * from the cgroup's cpu.pressure, else null with a note; the cgroup's
 * figure is kept beside the threads' as context.
 */
static void test_cpu_wait_sources(void **state)
{
	const char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
			       NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	int schedstat = access("/proc/self/schedstat", R_OK) == 0;
	(void)state;

	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.cgroup_cpu_wait_ns, -1);
	if (schedstat) {
		assert_string_equal(res.cpu_wait_source, "schedstat");
		assert_true(res.cpu_wait_ns >= 0);
		assert_null(res.cpu_wait_note);
		assert_int_equal(res.cpu_wait_ns, res.tree_wait_ns);
		/* one shell, one thread: its CPU time and wait, at least its CPU time */
		assert_true(res.tree_active_ns >= res.tree_wait_ns);
	} else {
		assert_null(res.cpu_wait_source);
		assert_int_equal(res.cpu_wait_ns, -1);
		assert_non_null(res.cpu_wait_note);
	}
	proc_result_release(&res);

	s.cgroup_name = "unit/wait";
	run_ok(&s, &res);
	print_message("cpu wait: %lld ns from %s (cgroup %lld ns: %s)\n", (long long)res.cpu_wait_ns,
		      res.cpu_wait_source ? res.cpu_wait_source : "nothing",
		      (long long)res.cgroup_cpu_wait_ns,
		      res.cgroup_reason ? res.cgroup_reason : "cgroup");
	if (!res.cgroup_reason && access("/proc/pressure/cpu", R_OK) == 0) {
		assert_true(res.cgroup_cpu_wait_ns >= 0);
		assert_true(res.cgroup_cpu_wait_ns <= res.fig.wall_ns);
		if (!schedstat) {
			assert_string_equal(res.cpu_wait_source, "cgroup");
			assert_int_equal(res.cpu_wait_ns, res.cgroup_cpu_wait_ns);
		}
	}
	/* The tree's own figure is the one taken, where schedstat exists. */
	if (schedstat) {
		assert_string_equal(res.cpu_wait_source, "schedstat");
		assert_true(res.tree_wait_ns >= 0 && res.tree_wait_ns <= res.fig.wall_ns);
		assert_int_equal(res.cpu_wait_ns, res.tree_wait_ns);
	}
	proc_result_release(&res);
}

/* "cpus": the child runs where it was told, and a set it cannot have is an exec failure. */
static void test_cpu_affinity(void **state)
{
	const char *argv[] = { "sh", "-c", "grep '^Cpus_allowed_list:' /proc/self/status", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	struct cpulist cl = CPULIST_INIT;
	char *why = NULL, *text, *mine, *line, want[64];
	int cpu = -1;
	(void)state;

	/* The last CPU abev itself may run on. */
	mine = slurp("/proc/self/status");
	line = strstr(mine, "Cpus_allowed_list:\t");
	assert_non_null(line);
	line += strlen("Cpus_allowed_list:\t");
	line[strcspn(line, "\n")] = '\0';
	assert_int_equal(cpulist_parse(line, &cl, &why), 0);
	free(mine);
	for (int c = 0; c < CPULIST_MAX; c++)
		if (cpulist_has(&cl, (unsigned)c))
			cpu = c;
	assert_true(cpu >= 0);
	snprintf(want, sizeof(want), "%d", cpu);
	assert_int_equal(cpulist_parse(want, &cl, &why), 0);
	s.cpus = &cl;
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	text = slurp(out_path);
	snprintf(want, sizeof(want), ":\t%d\n", cpu);
	if (!strstr(text, want))
		fail_msg("pinned to CPU %d, the child says '%s'", cpu, text);
	free(text);
	proc_result_release(&res);

	/* The highest CPU number there is: no machine this runs on has it online. */
	assert_int_equal(cpulist_parse("1023", &cl, &why), 0);
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_non_null(strstr(res.exec_error, "cannot run on the CPUs asked for (cpus)"));
	proc_result_release(&res);
}

static char captured[512];

static void capture(const char *prefix, const char *msg)
{
	snprintf(captured, sizeof(captured), "%s: %s", prefix, msg);
}

static void test_bad_log_path(void **state)
{
	const char *argv[] = { "true", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;
	s.stdout_path = "/nonexistent/abev/out.log";
	set_error_routine(capture);
	assert_int_equal(proc_run(&s, &res), -1);
	set_error_routine(NULL);
	assert_string_equal(captured, "error: cannot open '/nonexistent/abev/out.log': "
			    "No such file or directory");
	proc_result_release(&res);
	assert_no_children();
}

/* Runs last: the interrupt flag stays set for the rest of the process. */
/* Runs argv in capture mode into *out; the outcome in *res. */
static void run_capture(const char *const *argv, int merge, size_t max, int64_t timeout_ns,
			struct strbuf *out, struct proc_result *res)
{
	struct proc_spec s = spec_for(argv);
	s.stdout_path = NULL;
	s.capture = out;
	s.capture_max = max;
	s.capture_stderr = merge;
	s.timeout_ns = timeout_ns;
	s.grace_ns = 200 * MS;
	assert_int_equal(proc_run(&s, res), 0);
	assert_no_children();
}

static void test_capture_streams(void **state)
{
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_result res;
	char *err;
	(void)state;

	/* stdout captured, stderr to its file. */
	run_capture(argv, 0, 4096, 0, &out, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 3);
	assert_string_equal(out.buf, "out\n");
	assert_int_equal(res.out.bytes_dropped, 0);
	err = slurp(err_path);
	assert_string_equal(err, "err\n");
	free(err);
	proc_result_release(&res);

	/* Both into the buffer, in the order written. */
	strbuf_reset(&out);
	run_capture(argv, 1, 4096, 0, &out, &res);
	assert_string_equal(out.buf, "out\nerr\n");
	proc_result_release(&res);
	strbuf_release(&out);
}

static void test_capture_bounded(void **state)
{
	/* Far more than a pipe holds: the child must never block on a full pipe. */
	const char *argv[] = { "sh", "-c", "head -c 1000000 /dev/zero; echo end >&2", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_result res;
	(void)state;

	run_capture(argv, 0, 100, 0, &out, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	assert_int_equal(out.len, 100);
	assert_int_equal(res.out.bytes_dropped, 1000000 - 100);
	proc_result_release(&res);
	strbuf_release(&out);
}

static void file_size_is(const char *path, off_t size)
{
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_size, size);
}

/* Log mode: each stream capped on its own; the child never blocks past the cap. */
static void test_log_capped(void **state)
{
	const char *argv[] = { "sh", "-c", "head -c 3000000 /dev/zero; head -c 50 /dev/zero >&2",
			       NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	s.log_capped = 1;
	s.log_max_bytes = 1000;
	assert_int_equal(proc_run(&s, &res), 0);
	assert_no_children();
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	assert_int_equal(res.out.bytes_written, 1000);
	assert_int_equal(res.out.bytes_dropped, 3000000 - 1000);
	assert_int_equal(res.err.bytes_written, 50);
	assert_int_equal(res.err.bytes_dropped, 0);
	file_size_is(out_path, 1000);
	file_size_is(err_path, 50);
	proc_result_release(&res);
}

/*
 * Log mode with log_keep_bytes: the file holds the stream's first and last
 * keep bytes and, when something lies between them, one marker line
 * counting it; short streams are kept whole. seq writes in many chunks,
 * so that the tail's ring wraps.
 */
static void test_log_head_and_tail(void **state)
{
	static const struct {
		const char *cmd;
		int64_t keep, total;
	} cases[] = {
		{ "seq 1 10", 40, 21 },           /* under the head */
		{ "seq 1 30", 40, 81 },           /* past the head, under head and tail */
		{ "seq 1 100000", 40, 588895 },   /* the middle left out */
		{ "seq 1 100000", 5000, 588895 }, /* a tail longer than seq's chunks */
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { "sh", "-c", cases[i].cmd, NULL };
		struct proc_spec s = spec_for(argv);
		struct proc_result res;
		int64_t keep = cases[i].keep, total = cases[i].total;
		int64_t out = total > 2 * keep ? total - 2 * keep : 0;
		char *whole, *got, want[16384];
		unsigned char digest[SHA256_LEN];
		int n = 0;

		s.log_capped = 1;
		s.log_max_bytes = 1 << 20;
		assert_int_equal(proc_run(&s, &res), 0);
		assert_int_equal(res.out.bytes_written, total);
		proc_result_release(&res);
		whole = slurp(out_path);

		s.log_keep_bytes = keep;
		s.log_hash = 1;
		assert_int_equal(proc_run(&s, &res), 0);
		assert_int_equal(res.outcome, PROC_EXITED);
		assert_true(res.out.hashed);
		assert_int_equal(res.out.bytes_total, total);
		sha256_buf(whole, (size_t)total, digest);
		assert_memory_equal(res.out.sha256, digest, SHA256_LEN);
		assert_int_equal(res.out.bytes_written, total - out);
		assert_int_equal(res.out.bytes_left_out, out);
		assert_int_equal(res.out.bytes_dropped, 0);
		if (out) {
			n = snprintf(want, sizeof(want), "%.*s\n[abev: %lld bytes left out here]\n%s",
				     (int)keep, whole, (long long)out, whole + total - keep);
			assert_true(n > 0 && (size_t)n < sizeof(want));
		}
		got = slurp(out_path);
		assert_string_equal(got, out ? want : whole);
		proc_result_release(&res);
		free(whole);
		free(got);
	}
}

/* Byte i of the scripted stream: letters, a line every 61 bytes, so that a misplaced byte shows. */
static char scripted_byte(size_t i)
{
	return i % 61 == 60 ? '\n' : (char)('a' + (i * 7 + i / 61) % 26);
}

/*
 * Log mode with log_keep_bytes and log_hash on a stream written in scripted
 * chunks straight into the pipe proc_io reads, no child: the file keeps the
 * head, the marker and the tail, and the counts and the SHA-256 are the
 * whole stream's, whatever the chunks' sizes against the head and the ring.
 */
static void test_log_hash_scripted(void **state)
{
	static const struct {
		int64_t keep;
		size_t chunks[6];          /* 0-terminated */
	} cases[] = {
		{ 1000, { 0 } },                               /* nothing printed */
		{ 1000, { 700, 0 } },                          /* under the head */
		{ 1000, { 999, 2, 999, 0 } },                  /* head and tail, nothing left out */
		{ 1000, { 1, 65536, 3, 65536, 17, 0 } },       /* chunks past the ring */
		{ 100, { 150, 30, 30, 30, 30, 0 } },           /* the ring wraps */
		{ 0, { 4096, 65536, 5, 0 } },                  /* the whole stream kept */
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const char *argv[] = { "true", NULL };
		struct proc_spec s = spec_for(argv);
		struct proc_sink sinks[2] = { PROC_SINK_INIT, PROC_SINK_INIT };
		struct proc_result res;
		struct strbuf whole = STRBUF_INIT, want = STRBUF_INIT, got = STRBUF_INIT;
		unsigned char digest[SHA256_LEN];
		int fd_out = -1, fd_err = -1;
		int64_t keep = cases[c].keep, out;

		memset(&res, 0, sizeof(res));
		s.log_capped = 1;
		s.log_max_bytes = 1 << 20;
		s.log_keep_bytes = keep;
		s.log_hash = 1;
		assert_int_equal(proc_io_open_streams(&s, sinks, &res, &fd_out, &fd_err), 0);
		for (size_t k = 0; cases[c].chunks[k]; k++) {
			size_t from = whole.len;
			for (size_t i = 0; i < cases[c].chunks[k]; i++)
				strbuf_addch(&whole, scripted_byte(from + i));
			assert_int_equal(write_all(fd_out, whole.buf + from, cases[c].chunks[k]), 0);
			while (proc_io_drain(&sinks[0]))
				;
		}
		close(fd_out);
		close(fd_err);
		proc_io_drain_rest(sinks);
		proc_io_close(sinks, 1);

		out = keep && (int64_t)whole.len > 2 * keep ? (int64_t)whole.len - 2 * keep : 0;
		assert_true(res.out.hashed);
		assert_int_equal(res.out.bytes_total, whole.len);
		sha256_buf(whole.buf, whole.len, digest);
		assert_memory_equal(res.out.sha256, digest, SHA256_LEN);
		assert_int_equal(res.out.bytes_left_out, out);
		assert_int_equal(res.out.bytes_written + res.out.bytes_left_out, whole.len);
		assert_int_equal(res.out.bytes_dropped, 0);
		/* The stream that printed nothing is hashed too: SHA-256 of no bytes. */
		assert_true(res.err.hashed);
		assert_int_equal(res.err.bytes_total, 0);
		sha256_buf("", 0, digest);
		assert_memory_equal(res.err.sha256, digest, SHA256_LEN);

		if (out) {
			strbuf_add(&want, whole.buf, (size_t)keep);
			strbuf_addf(&want, "\n[abev: %lld bytes left out here]\n", (long long)out);
			strbuf_add(&want, whole.buf + whole.len - keep, (size_t)keep);
		} else {
			strbuf_add(&want, whole.buf, whole.len);
		}
		assert_int_equal(read_file_capped(&got, out_path, 1 << 20), 0);
		assert_int_equal(got.len, want.len);
		assert_memory_equal(got.buf, want.buf, want.len);
		strbuf_release(&whole);
		strbuf_release(&want);
		strbuf_release(&got);
	}
}

/*
 * A grandchild that keeps the pipe open and writes on is a leftover like
 * any other: killed, and what it wrote before counts against the cap.
 */
static void test_log_leftover_holds_pipe(void **state)
{
	const char *argv[] = { "sh", "-c", "(while :; do echo more; sleep 0.01; done) & echo first",
			       NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	s.log_capped = 1;
	s.log_max_bytes = 6;
	assert_int_equal(proc_run(&s, &res), 0);
	assert_no_children();
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_true(res.leftovers_killed >= 1);
	assert_int_equal(res.out.bytes_written, 6);
	file_size_is(out_path, 6);
	proc_result_release(&res);
}

static void test_capture_exec_failed(void **state)
{
	const char *argv[] = { "no-such-program-abev", "--version", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_result res;
	(void)state;

	run_capture(argv, 1, 4096, 0, &out, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_non_null(strstr(res.exec_error, "no-such-program-abev"));
	assert_non_null(strstr(res.exec_error, "No such file or directory"));
	assert_int_equal(out.len, 0);
	proc_result_release(&res);
	strbuf_release(&out);
}

static void test_capture_timeout(void **state)
{
	const char *argv[] = { "sh", "-c", "echo partial; exec sleep 30", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_result res;
	(void)state;

	run_capture(argv, 0, 4096, 300 * MS, &out, &res);
	assert_int_equal(res.outcome, PROC_TIMED_OUT);
	assert_int_equal(res.signal, SIGTERM);
	/* What came before the timeout is kept. */
	assert_string_equal(out.buf, "partial\n");
	proc_result_release(&res);
	strbuf_release(&out);
}

static void test_capture_leftover_holds_pipe(void **state)
{
	/* The background sleep keeps the pipe open after sh has exited. */
	const char *argv[] = { "sh", "-c", "sleep 30 & echo $! > pid; echo done", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_result res;
	(void)state;

	run_capture(argv, 0, 4096, 0, &out, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	assert_string_equal(out.buf, "done\n");
	assert_true(res.leftovers_killed >= 1);
	assert_true(res.fig.wall_ns < 10 * 1000 * MS);
	assert_gone(read_pidfile());
	proc_result_release(&res);
	strbuf_release(&out);
}

static void test_child_gets_default_signals(void **state)
{
	/* abev ignores SIGPIPE and SIGXFSZ; its children must not inherit that. */
	const char *argv[] = { "cat", "/proc/self/status", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_result res;
	struct sigaction sa;
	unsigned long long mask;
	const char *ign;
	(void)state;

	assert_int_equal(sigaction(SIGPIPE, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_IGN);
	assert_int_equal(sigaction(SIGXFSZ, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_IGN);
	run_capture(argv, 0, 1 << 16, 0, &out, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	ign = strstr(out.buf, "\nSigIgn:");
	assert_non_null(ign);
	/* Only these two: whoever started the test may ignore others, and that is inherited. */
	mask = strtoull(ign + 9, NULL, 16);
	assert_int_equal(mask & (1ULL << (SIGPIPE - 1)), 0);
	assert_int_equal(mask & (1ULL << (SIGXFSZ - 1)), 0);
	proc_result_release(&res);
	strbuf_release(&out);
}

static void test_interrupt(void **state)
{
	const char *argv[] = { "sh", "-c", "sleep 30 & echo $! > pid; kill -TERM $PPID; wait",
			       NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	assert_int_equal(proc_interrupted(), 0);
	s.grace_ns = 200 * MS;
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_INTERRUPTED);
	assert_int_equal(res.interrupt_signal, SIGTERM);
	assert_int_equal(proc_interrupted(), SIGTERM);
	/* Stopped, not waited for: the sleep would have lasted 30 s. */
	assert_true(res.fig.wall_ns < 10 * 1000 * MS);
	assert_gone(read_pidfile());
	proc_result_release(&res);
	/* proc_sleep returns at once once abev has been interrupted. */
	assert_int_equal(proc_sleep(10 * 1000 * MS, NULL, NULL), SIGTERM);
	/* So does a capture that starts after the interrupt: it is stopped, not waited for. */
	{
		const char *hang[] = { "sleep", "30", NULL };
		struct strbuf out = STRBUF_INIT;
		run_capture(hang, 1, 4096, 0, &out, &res);
		assert_int_equal(res.outcome, PROC_INTERRUPTED);
		assert_int_equal(res.interrupt_signal, SIGTERM);
		assert_true(res.fig.wall_ns < 10 * 1000 * MS);
		proc_result_release(&res);
		strbuf_release(&out);
	}
}

static void test_child_stop_counted(void **state)
{
	/* The shell stops itself; its background subshell continues it. */
	const char *argv[] = { "sh", "-c", "(sleep 0.2; kill -CONT $$) & kill -STOP $$; wait",
			       NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	assert_true(res.stops_child >= 1);
	assert_int_equal(res.stops_abev, 0);
	assert_int_equal(res.suspended_ns, 0);
	proc_result_release(&res);
	/* A run without a stop says so. */
	{
		const char *plain[] = { "true", NULL };
		struct proc_spec p = spec_for(plain);
		run_ok(&p, &res);
		assert_int_equal(res.stops_child, 0);
		assert_int_equal(res.stops_abev, 0);
		proc_result_release(&res);
	}
}

static void test_user_lookup(void **state)
{
	struct proc_user u = PROC_USER_INIT;
	int has_root_group = 0;
	(void)state;

	assert_int_equal(proc_user_lookup(&u, "root"), 0);
	assert_string_equal(u.name, "root");
	assert_int_equal(u.uid, 0);
	assert_int_equal(u.gid, 0);
	assert_true(u.ngroups >= 1);
	for (int i = 0; i < u.ngroups; i++)
		has_root_group |= u.groups[i] == 0;
	assert_true(has_root_group);
	assert_int_equal(proc_user_lookup(&u, "no-such-user-abev-unit"), -1);
	assert_null(u.name);
	assert_int_equal(proc_user_lookup(&u, ""), -1);
	proc_user_release(&u);
	proc_user_release(&u);
	/* No user set: nothing to hand over. */
	assert_null(proc_run_as_user());
	assert_int_equal(proc_run_as_grant(-1, tmpdir), 0);
}

/* After test_interrupt: abev was interrupted once already, so this is the second time. */
static void test_second_interrupt_kills_at_once(void **state)
{
	/* TERM ignored, and a grace period no test waits out: only a SIGKILL ends it early. */
	const char *argv[] = { "sh", "-c", "trap '' TERM; kill -INT $PPID; exec sleep 30", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	assert_int_equal(proc_interrupted(), SIGTERM);
	s.grace_ns = 3600 * 1000 * MS;
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_INTERRUPTED);
	/* The first interrupt signal is the one recorded. */
	assert_int_equal(res.interrupt_signal, SIGTERM);
	/* The SIGTERM alone did not end it; the second interrupt's SIGKILL did. */
	if (res.signal == SIGKILL) {
		assert_true(res.killed_early);
		assert_true(res.fig.wall_ns < 30 * 1000 * MS);
	} else {
		/* The group's SIGTERM reached the shell before its trap: nothing to test. */
		assert_int_equal(res.signal, SIGTERM);
	}
	proc_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_and_signal),
		cmocka_unit_test(test_child_rss_is_its_own),
		cmocka_unit_test(test_libraries_withheld),
		cmocka_unit_test(test_heap_stays_one_mapping),
		cmocka_unit_test(test_exec_failed),
		cmocka_unit_test(test_exec_missing),
		cmocka_unit_test(test_sleep_wall_time),
		cmocka_unit_test(test_cpu_time),
		cmocka_unit_test(test_output_files),
		cmocka_unit_test(test_cwd_env_stdin),
		cmocka_unit_test(test_timeout_term),
		cmocka_unit_test(test_timeout_kills_term_trapper),
		cmocka_unit_test(test_leftover_background),
		cmocka_unit_test(test_leftover_new_session),
		cmocka_unit_test(test_tick_and_sleep),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_cpu_wait_sources),
		cmocka_unit_test(test_cpu_affinity),
		cmocka_unit_test(test_bad_log_path),
		cmocka_unit_test(test_capture_streams),
		cmocka_unit_test(test_capture_bounded),
		cmocka_unit_test(test_log_capped),
		cmocka_unit_test(test_log_hash_scripted),
		cmocka_unit_test(test_log_head_and_tail),
		cmocka_unit_test(test_log_leftover_holds_pipe),
		cmocka_unit_test(test_capture_exec_failed),
		cmocka_unit_test(test_capture_timeout),
		cmocka_unit_test(test_capture_leftover_holds_pipe),
		cmocka_unit_test(test_child_gets_default_signals),
		cmocka_unit_test(test_child_stop_counted),
		cmocka_unit_test(test_user_lookup),
		/* Last: the interrupt flag stays set for the rest of the process. */
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_second_interrupt_kills_at_once),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
