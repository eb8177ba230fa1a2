/* Unit tests of overlap (load.exclusive matching, abev's own tree left
 * out, the evidence's wording) and peers (the lock directory: join, look,
 * what overlapped between two looks, dead runs' files). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/overlap.h"
#include "measure/peers.h"
#include "util/alloc.h"
#include "util/strbuf.h"

/* A process that is not ours: its parent exits, so it is nobody's child here. */
static pid_t start_orphan(const char *word)
{
	int fds[2];
	pid_t pid, orphan = -1;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pid_t g = fork();
		if (g == 0) {
			close(fds[0]);
			execl("/bin/sleep", "sleep", word, (char *)NULL);
			_exit(127);
		}
		if (write(fds[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &orphan, sizeof(orphan)), (ssize_t)sizeof(orphan));
	close(fds[0]);
	waitpid(pid, NULL, 0);
	/* Until it has exec'd, its command line is still ours. */
	for (int i = 0; i < 5000; i++) {
		char *cmd = overlap_command_line(orphan);
		int done = cmd && !strncmp(cmd, "sleep ", 6);
		free(cmd);
		if (done)
			break;
		usleep(1000);
	}
	return orphan;
}

static void test_scan_finds_foreign_not_own(void **state)
{
	const char *patterns[] = { "no-such-thing*", "sleep 7777.5*" };
	struct overlap_watch w;
	struct overlap_hit *hits;
	size_t n;
	unsigned unnamed;
	pid_t orphan = start_orphan("7777.5"), own;
	char *text;

	(void)state;
	own = fork();
	if (own == 0) {
		execl("/bin/sleep", "sleep", "7777.51", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 5000; i++) {
		char *cmd = overlap_command_line(own);
		int done = cmd && !strncmp(cmd, "sleep ", 6);
		free(cmd);
		if (done)
			break;
		usleep(1000);
	}
	overlap_watch_init(&w, patterns, 2);
	overlap_watch_scan(&w);
	overlap_watch_scan(&w); /* the same pid is named once */
	overlap_watch_take(&w, &hits, &n, &unnamed);
	kill(orphan, SIGKILL);
	kill(own, SIGKILL);
	waitpid(own, NULL, 0);
	assert_int_equal(n, 1);
	assert_int_equal(unnamed, 0);
	assert_int_equal(hits[0].pid, orphan);
	assert_int_equal(hits[0].kind, OVERLAP_EXCLUSIVE);
	assert_string_equal(hits[0].command, "sleep 7777.5");
	assert_string_equal(hits[0].pattern, "sleep 7777.5*");
	text = overlap_describe(hits, n, 0);
	assert_non_null(strstr(text, "' (load.exclusive 'sleep 7777.5*')"));
	free(text);
	overlap_hit_list_free(hits, n);
	/* After take, a fresh start; no patterns: no scan at all. */
	assert_int_equal(w.nhits, 0);
	overlap_watch_release(&w);
	overlap_watch_init(&w, NULL, 0);
	overlap_watch_scan(&w);
	assert_int_equal(w.nhits, 0);
	overlap_watch_release(&w);
}

static void test_add_caps_and_describes(void **state)
{
	struct overlap_watch w;
	char *text;

	(void)state;
	overlap_watch_init(&w, NULL, 0);
	for (long pid = 1; pid <= OVERLAP_HITS_MAX + 3; pid++) {
		struct overlap_hit h = { .kind = OVERLAP_ABEV, .pid = pid,
					 .evidence = xasprintf("/ev/%ld", pid) };
		overlap_watch_add(&w, &h);
	}
	{
		struct overlap_hit again = { .kind = OVERLAP_ABEV, .pid = 1, .command = xstrdup("x") };
		overlap_watch_add(&w, &again);
	}
	assert_int_equal(w.nhits, OVERLAP_HITS_MAX);
	assert_int_equal(w.unnamed, 3);
	text = overlap_describe(w.hits, 1, w.unnamed);
	assert_string_equal(text, "overlapped another abev run on this host (pid 1, writing '/ev/1'); "
				  "and 3 more");
	free(text);
	overlap_watch_release(&w);
	overlap_watch_release(&w);
	{
		struct overlap_hit h = { .kind = OVERLAP_ABEV, .pid = 0 };
		text = overlap_describe(&h, 1, 0);
		assert_string_equal(text, "overlapped another abev run that started and ended meanwhile");
		free(text);
	}
}

static char *lock_dir(void)
{
	char tmpl[] = "/tmp/abev-test-peers.XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	setenv("ABEV_LOCK_DIR", d, 1);
	return xstrdup(d);
}

static void rm_dir(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* Another run, faked: a locked <pid>.run in state, and its event. */
static int fake_peer(const char *dir, long pid, char state, const char *ev, int append)
{
	char *path = xasprintf("%s/%ld.run", dir, pid);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	FILE *f;

	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	assert_true(dprintf(fd, "%20d %c %s\n", 5, state, ev) > 0);
	free(path);
	if (append) {
		path = xasprintf("%s/events", dir);
		f = fopen(path, "a");
		assert_non_null(f);
		fprintf(f, "%ld\n", pid);
		fclose(f);
		free(path);
	}
	return fd;
}

static void test_peers_look_and_overlap(void **state)
{
	char *dir = lock_dir();
	struct peers p;
	struct peers_look a, b, c;
	struct overlap_watch w;
	struct overlap_hit who;
	int fd;

	(void)state;
	peers_join(&p, "/ev/me");
	assert_null(p.note);
	assert_string_equal(p.dir, dir);
	assert_int_equal(peers_blocker(&p, &who), 0);
	peers_start(&p);
	peers_look_now(&p, &a);
	assert_int_equal(a.nrunning, 0);

	/* A waiting run is no overlap, but under --wait an earlier waiter goes first. */
	fd = fake_peer(dir, 999999, 'W', "/ev/w", 0);
	peers_look_now(&p, &b);
	assert_int_equal(b.nrunning, 0);
	assert_int_equal(peers_blocker(&p, &who), 1);
	assert_int_equal(who.pid, 999999);
	assert_string_equal(who.evidence, "/ev/w");
	overlap_hit_release(&who);
	peers_look_release(&b);
	close(fd); /* it died: its file is dead and is removed by the next look */
	peers_look_now(&p, &b);
	peers_look_release(&b);
	{
		char *gone = xasprintf("%s/999999.run", dir);
		assert_int_equal(access(gone, F_OK), -1);
		free(gone);
	}

	/* One that started and ended between two looks is named from "events". */
	fd = fake_peer(dir, 999998, 'R', "/ev/r", 1);
	close(fd);
	peers_look_now(&p, &b);
	overlap_watch_init(&w, NULL, 0);
	peers_overlap(&p, &a, &b, &w);
	assert_int_equal(w.nhits, 1);
	assert_int_equal(w.hits[0].kind, OVERLAP_ABEV);
	assert_int_equal(w.hits[0].pid, 999998);
	overlap_watch_release(&w);

	/* One running at a look is named with its evidence. */
	fd = fake_peer(dir, 999997, 'R', "/ev/run", 1);
	peers_look_now(&p, &c);
	assert_int_equal(c.nrunning, 1);
	assert_string_equal(c.running[0].evidence, "/ev/run");
	overlap_watch_init(&w, NULL, 0);
	peers_overlap(&p, &b, &c, &w);
	assert_int_equal(w.nhits, 1);
	assert_int_equal(w.hits[0].pid, 999997);
	assert_string_equal(w.hits[0].evidence, "/ev/run");
	overlap_watch_release(&w);
	/* Nothing changed between two looks while nobody else ran: nothing. */
	close(fd);
	peers_look_release(&b);
	peers_look_now(&p, &b);
	peers_look_release(&c);
	peers_look_now(&p, &c);
	overlap_watch_init(&w, NULL, 0);
	peers_overlap(&p, &b, &c, &w);
	assert_int_equal(w.nhits, 0);
	overlap_watch_release(&w);

	peers_look_release(&a);
	peers_look_release(&b);
	peers_look_release(&c);
	peers_leave(&p);
	peers_leave(&p);
	{
		char *mine = xasprintf("%s/%ld.run", dir, (long)getpid());
		assert_int_equal(access(mine, F_OK), -1);
		free(mine);
	}
	rm_dir(dir);
	free(dir);
}

static void test_peers_unusable_dir(void **state)
{
	struct peers p;
	struct peers_look l;

	(void)state;
	setenv("ABEV_LOCK_DIR", "/proc/version", 1);
	peers_join(&p, "/ev");
	assert_null(p.dir);
	assert_non_null(strstr(p.note, "other abev runs on this host cannot be seen"));
	peers_start(&p);
	peers_look_now(&p, &l);
	assert_int_equal(l.nrunning, 0);
	assert_true(l.events == UINT64_MAX);
	peers_leave(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_finds_foreign_not_own),
		cmocka_unit_test(test_add_caps_and_describes),
		cmocka_unit_test(test_peers_look_and_overlap),
		cmocka_unit_test(test_peers_unusable_dir),
	};
	return cmocka_run_group_tests_name("overlap", tests, NULL, NULL);
}
