/*
 * Unit tests of proc: real children (/bin/sh snippets, /bin/sleep, ...)
 * run through proc_run(), checking what a user of the evidence would check:
 * outcome, exit code and signal, exec failures and their reasons, timeouts
 * that reach a TERM-ignoring child, wall-clock accuracy, redirections, cwd,
 * environment, and that nothing the child started survives it.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"

#define MS (1000 * 1000LL)

static char tmpdir[] = "/tmp/abev-test-proc-XXXXXX";
static char *out_path, *err_path;

static const char *const base_env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };

static int group_setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	out_path = path_join(tmpdir, "stdout.log");
	err_path = path_join(tmpdir, "stderr.log");
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

static void test_sleep_accuracy(void **state)
{
	const char *argv[] = { "/bin/sleep", "0.2", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;

	run_ok(&s, &res);
	print_message("sleep 0.2: wall_ns=%lld user_ns=%lld sys_ns=%lld self_cpu_ns=%lld "
		      "max_rss=%lld\n", (long long)res.wall_ns, (long long)res.user_ns,
		      (long long)res.sys_ns, (long long)res.self_cpu_ns,
		      (long long)res.max_rss_bytes);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_code, 0);
	assert_true(res.wall_ns >= 200 * MS);
	assert_true(res.wall_ns < 220 * MS);
	assert_true(res.user_ns + res.sys_ns < 100 * MS);
	assert_true(res.max_rss_bytes > 0);
	assert_true(res.self_cpu_ns >= 0 && res.self_cpu_ns < 100 * MS);
	/* The labels agree with the duration. */
	{
		int64_t real = (int64_t)(res.end_real.tv_sec - res.start_real.tv_sec) * 1000000000 +
			       (res.end_real.tv_nsec - res.start_real.tv_nsec);
		assert_true(real >= 190 * MS && real < 300 * MS);
	}
	proc_result_release(&res);
}

static void test_cpu_time(void **state)
{
	const char *argv[] = { "sh", "-c",
			       "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	(void)state;
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	print_message("busy loop: wall_ns=%lld cpu_ns=%lld self_cpu_ns=%lld\n",
		      (long long)res.wall_ns, (long long)(res.user_ns + res.sys_ns),
		      (long long)res.self_cpu_ns);
	/*
	 * A busy single-threaded child: real CPU time, never more than its wall
	 * time (on a shared machine it may get much less); abev's own is tiny.
	 */
	assert_true(res.user_ns + res.sys_ns > 50 * MS);
	assert_true(res.user_ns + res.sys_ns <= res.wall_ns + 10 * MS);
	assert_true(res.self_cpu_ns < 50 * MS);
	assert_true(res.minflt > 0);
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

	s.timeout_ns = 200 * MS;
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_TIMED_OUT);
	assert_int_equal(res.signal, SIGTERM);
	assert_true(res.wall_ns >= 200 * MS && res.wall_ns < 400 * MS);
	assert_int_equal(res.interrupt_signal, 0);
	proc_result_release(&res);
}

static void test_timeout_kills_term_trapper(void **state)
{
	/* The shell and its sleep both ignore SIGTERM: only the SIGKILL ends them. */
	const char *argv[] = { "sh", "-c", "trap '' TERM; sleep 30 & echo $! > pid; wait; wait",
			       NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	pid_t grandchild;
	(void)state;

	s.timeout_ns = 300 * MS;
	s.grace_ns = 300 * MS;
	run_ok(&s, &res);
	assert_int_equal(res.outcome, PROC_TIMED_OUT);
	assert_int_equal(res.signal, SIGKILL);
	assert_true(res.wall_ns >= 600 * MS && res.wall_ns < 1000 * MS);
	grandchild = read_pidfile();
	assert_gone(grandchild);
	proc_result_release(&res);
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
	/* The wall time is the shell's, not the leftover's. */
	assert_true(res.wall_ns < 500 * MS);
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

static void count_tick(void *arg, int64_t elapsed)
{
	int64_t *last = arg;
	assert_true(elapsed >= last[1]);
	last[0]++;
	last[1] = elapsed;
}

static void test_tick_and_sleep(void **state)
{
	const char *argv[] = { "/bin/sleep", "0.35", NULL };
	struct proc_spec s = spec_for(argv);
	struct proc_result res;
	int64_t ticks[2] = { 0, 0 }, t0;
	(void)state;

	s.tick = count_tick;
	s.tick_arg = ticks;
	run_ok(&s, &res);
	assert_true(ticks[0] >= 2 && ticks[0] <= 4);
	proc_result_release(&res);

	ticks[0] = ticks[1] = 0;
	t0 = mono_ns();
	assert_int_equal(proc_sleep(250 * MS, count_tick, ticks), 0);
	assert_true(mono_ns() - t0 >= 250 * MS);
	assert_true(mono_ns() - t0 < 300 * MS);
	assert_true(ticks[0] >= 1 && ticks[0] <= 3);
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
			      (long long)(res.user_ns + res.sys_ns));
		assert_true(res.cg_cpu_usage_ns > 0);
		assert_true(res.cg_memory_peak_bytes > 0 || res.cg_memory_note);
	}
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
	assert_true(res.wall_ns < 1000 * MS);
	assert_gone(read_pidfile());
	proc_result_release(&res);
	/* proc_sleep returns at once once abev has been interrupted. */
	assert_int_equal(proc_sleep(10 * 1000 * MS, NULL, NULL), SIGTERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_and_signal),
		cmocka_unit_test(test_exec_failed),
		cmocka_unit_test(test_sleep_accuracy),
		cmocka_unit_test(test_cpu_time),
		cmocka_unit_test(test_output_files),
		cmocka_unit_test(test_cwd_env_stdin),
		cmocka_unit_test(test_timeout_term),
		cmocka_unit_test(test_timeout_kills_term_trapper),
		cmocka_unit_test(test_leftover_background),
		cmocka_unit_test(test_leftover_new_session),
		cmocka_unit_test(test_tick_and_sleep),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_bad_log_path),
		cmocka_unit_test(test_interrupt),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
