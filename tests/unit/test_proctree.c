/* Unit tests of the per-process figures of a run's tree (measure/proctree.h,
 * record/proc_tree.h): taskstats exit records parsed from constructed
 * netlink messages, the tree found among the machine's records by their
 * parents, threads folded into their process, the cap, /proc's stat
 * line, the "process" glob, and the listener kept from run to run (a
 * socket pair standing in for the kernel's). No clock, no real process. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "record/proc_tree.h"
#include "measure/proctree.h"

#define FAMILY 27

/* One TASKSTATS_CMD_NEW message, as the kernel sends it for one exiting thread, into buf. */
static size_t exit_msg(char *buf, size_t cap, const struct taskstats *ts)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(h);
	struct nlattr *aggr = (struct nlattr *)((char *)g + GENL_HDRLEN);
	struct nlattr *pid = (struct nlattr *)((char *)aggr + NLA_HDRLEN);
	struct nlattr *st = (struct nlattr *)((char *)pid + NLA_ALIGN(NLA_HDRLEN + 4));
	size_t len;

	memset(buf, 0, cap);
	pid->nla_type = TASKSTATS_TYPE_PID;
	pid->nla_len = NLA_HDRLEN + 4;
	memcpy((char *)pid + NLA_HDRLEN, &ts->ac_pid, 4);
	st->nla_type = TASKSTATS_TYPE_STATS;
	st->nla_len = (uint16_t)(NLA_HDRLEN + sizeof(*ts));
	memcpy((char *)st + NLA_HDRLEN, ts, sizeof(*ts));
	aggr->nla_type = TASKSTATS_TYPE_AGGR_PID;
	aggr->nla_len = (uint16_t)(NLA_HDRLEN + NLA_ALIGN(pid->nla_len) + NLA_ALIGN(st->nla_len));
	g->cmd = TASKSTATS_CMD_NEW;
	len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(aggr->nla_len);
	assert_true(len <= cap);
	h->nlmsg_len = (uint32_t)len;
	h->nlmsg_type = FAMILY;
	return NLMSG_ALIGN(len);
}

static struct taskstats record(const char *comm, uint32_t pid, uint32_t tgid, uint32_t ppid,
			       uint64_t rss_kib, uint64_t cpu_us, uint64_t wait_ns)
{
	struct taskstats ts;

	memset(&ts, 0, sizeof(ts));
	ts.version = TASKSTATS_VERSION;
	snprintf(ts.ac_comm, sizeof(ts.ac_comm), "%s", comm);
	ts.ac_pid = pid;
	ts.ac_tgid = tgid;
	ts.ac_ppid = ppid;
	ts.hiwater_rss = rss_kib;
	ts.ac_utime = cpu_us / 2;
	ts.ac_stime = cpu_us - cpu_us / 2;
	ts.cpu_delay_total = wait_ns;
	return ts;
}

static const struct proc_tree_proc *find(const struct proc_tree *t, long pid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].pid == pid)
			return &t->p[i];
	return NULL;
}

/*
 * abev is 10, the run's root 100. The machine's records, in exit order:
 * a thread of the test host (200) before its leader, a grandchild (300)
 * whose parent (the host) had not exited yet, a foreign process, an
 * orphan re-parented to abev, the host's leader, the root.
 */
static void test_tree_from_exit_records(void **state)
{
	static const struct {
		const char *comm;
		uint32_t pid, tgid, ppid;
		uint64_t rss_kib, cpu_us, wait_ns;
	} recs[] = {
		{ ".NET TP Worker", 201, 200, 100, 99000, 3000, 70 },
		{ "helper", 300, 300, 200, 2000, 100, 5 },
		{ "cron", 999, 999, 1, 5000, 777, 1 },
		{ "orphan", 400, 400, 10, 1500, 50, 2 },
		{ "dotnet", 200, 200, 100, 99500, 5000, 30 },
		{ "dotnet", 100, 100, 10, 105000, 9000, 40 },
	};
	struct proctree pt = PROCTREE_INIT;
	struct proc_tree out;
	char buf[4096];
	const struct proc_tree_proc *p;
	(void)state;

	pt.family = FAMILY;
	pt.delayacct = 1;
	pt.fd = -1;
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		struct taskstats ts = record(recs[i].comm, recs[i].pid, recs[i].tgid, recs[i].ppid,
					     recs[i].rss_kib, recs[i].cpu_us, recs[i].wait_ns);
		size_t len = exit_msg(buf, sizeof(buf), &ts);
		proctree_parse(&pt, buf, len);
	}
	assert_int_equal(pt.nx, 6);
	/* A message of another family, or cut short, is not taken. */
	((struct nlmsghdr *)buf)->nlmsg_type = FAMILY + 1;
	proctree_parse(&pt, buf, sizeof(buf));
	proctree_parse(&pt, buf, 10);
	assert_int_equal(pt.nx, 6);
	/* The test host (200) was seen alive: its command line comes from /proc. */
	proctree_note_seen(&pt, 200, 100, 5, "dotnet")->cmdline =
		strdup("/usr/bin/dotnet\x1f" "exec\x1f--depsfile\x1fx.json\x1f/b/testhost.dll\x1f--port\x1f" "1");
	proctree_finish(&pt, 100, 10, &out);
	assert_int_equal(out.n, 4);
	assert_null(find(&out, 999));
	assert_string_equal(out.source, "taskstats");
	p = find(&out, 200);
	assert_non_null(p);
	/* The leader's name, not a thread's; the largest peak; CPU and wait of both threads. */
	assert_string_equal(p->comm, "dotnet");
	assert_int_equal(p->ppid, 100);
	assert_int_equal(p->peak_rss_bytes, 99500 * 1024LL);
	assert_int_equal(p->cpu_ns, 8000 * 1000LL);
	assert_int_equal(p->wait_ns, 100);
	assert_string_equal(p->source, "taskstats");
	assert_true(proc_tree_matches(p, "testhost*"));
	assert_false(proc_tree_matches(find(&out, 100), "testhost*"));
	assert_true(proc_tree_matches(find(&out, 100), "dotnet"));
	assert_non_null(find(&out, 300));
	assert_non_null(find(&out, 400));
	/* By pid. */
	assert_int_equal(out.p[0].pid, 100);
	assert_int_equal(out.p[3].pid, 400);
	proc_tree_release(&out);
	proctree_release(&pt);
}

/* Without delay accounting the exit records' wait is unknown: /proc's reading stands in. */
static void test_wait_without_delayacct(void **state)
{
	struct proctree pt = PROCTREE_INIT;
	struct proctree_exit e = { .pid = 100, .tgid = 100, .ppid = 10, .comm = "sh",
				   .rss_kib = 10, .cpu_us = 5, .wait_ns = -1 };
	struct proc_tree out;
	(void)state;

	pt.family = FAMILY;
	proctree_note_exit(&pt, &e);
	proctree_note_seen(&pt, 100, 10, 7, "sh")->wait_ns = 1234;
	proctree_finish(&pt, 100, 10, &out);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.p[0].wait_ns, 1234);
	assert_int_equal(out.p[0].cpu_ns, 5000);
	assert_non_null(strstr(out.note, "task_delayacct"));
	proc_tree_release(&out);
	proctree_release(&pt);
}

/* /proc only: the processes read, a reused pid apart, an exec's new name and command line. */
static void test_proc_only(void **state)
{
	struct proctree pt = PROCTREE_INIT;
	struct proctree_seen *s;
	struct proc_tree out;
	(void)state;

	pt.why_not = "ABEV_TASKSTATS=0 is set";
	s = proctree_note_seen(&pt, 100, 10, 5, "sh");
	s->cmdline = strdup("sh -c x");
	s->rss_kib = 4;
	s->cpu_ns = 10;
	s = proctree_note_seen(&pt, 100, 10, 5, "python3");
	assert_null(s->cmdline);   /* exec: read again */
	assert_int_equal(s->rss_kib, 4);
	proctree_note_seen(&pt, 100, 10, 9, "sh");   /* the pid again, later: another process */
	assert_int_equal(pt.ns, 2);
	proctree_finish(&pt, 100, 10, &out);
	assert_string_equal(out.source, "proc");
	assert_int_equal(out.n, 2);
	assert_string_equal(out.p[0].source, "proc");
	assert_non_null(strstr(out.note, "ABEV_TASKSTATS=0"));
	proc_tree_release(&out);
	proctree_release(&pt);
}

/* A fork bomb: PROC_TREE_MAX kept, those that did the work; the rest counted. */
static void test_cap(void **state)
{
	struct proctree pt = PROCTREE_INIT;
	struct proc_tree out;
	(void)state;

	pt.family = FAMILY;
	for (int i = 0; i < 3 * PROC_TREE_MAX; i++) {
		struct proctree_exit e = { .pid = 1000 + i, .tgid = 1000 + i,
					   .ppid = i ? 1000 + i - 1 : 100, .comm = "bomb",
					   .rss_kib = 1, .cpu_us = i == 150 ? 99999 : 1,
					   .wait_ns = -1 };
		proctree_note_exit(&pt, &e);
	}
	proctree_finish(&pt, 100, 10, &out);
	assert_int_equal(out.n, PROC_TREE_MAX);
	assert_int_equal(out.omitted, 2 * PROC_TREE_MAX);
	assert_non_null(find(&out, 1150));
	proc_tree_release(&out);
	proctree_release(&pt);
}

static void test_parse_stat(void **state)
{
	char comm[16];
	pid_t ppid;
	unsigned long long ticks, start;
	/* A name with spaces and a parenthesis, as a program may choose. */
	const char *line = "4242 (a) b (c)) S 4241 4242 4242 0 -1 4194560 100 0 0 0 "
			   "7 3 0 0 20 0 1 0 123456 1000 100";
	(void)state;

	assert_int_equal(proctree_parse_stat(line, comm, &ppid, &ticks, &start), 0);
	assert_string_equal(comm, "a) b (c)");
	assert_int_equal(ppid, 4241);
	assert_int_equal(ticks, 10);
	assert_int_equal(start, 123456);
	assert_int_equal(proctree_parse_stat("4242 no parens", comm, &ppid, &ticks, &start), -1);
	assert_int_equal(proctree_parse_stat("1 (x) S 2", comm, &ppid, &ticks, &start), -1);
}

/* Writes one exit record into the listener's other end, as the kernel would. */
static void send_exit(int fd, const char *comm, uint32_t pid, uint32_t ppid)
{
	char buf[4096];
	struct taskstats ts = record(comm, pid, pid, ppid, 1000, 100, 10);
	size_t len = exit_msg(buf, sizeof(buf), &ts);

	assert_int_equal(send(fd, buf, len, 0), (ssize_t)len);
}

/*
 * One listener for two runs (abev is 10): the records of the exits
 * between them — a foreign process, and one abev itself ran between the
 * runs, whose parent is abev — are thrown away when a run starts, so each
 * run's tree holds its own root and nothing else; the socket outlives
 * both runs and goes with proctree_listen_stop().
 */
static void test_listener_kept_between_runs(void **state)
{
	struct proctree pt = PROCTREE_INIT;
	struct proc_tree out;
	int sv[2];
	(void)state;

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
	proctree_listen_on(sv[0], FAMILY, "0-1", 1);
	send_exit(sv[1], "cron", 999, 1);
	send_exit(sv[1], "git", 50, 10);
	proctree_start(&pt);
	assert_int_equal(proctree_fd(&pt), sv[0]);
	assert_int_equal(pt.nx, 0);
	send_exit(sv[1], "true", 100, 10);
	send_exit(sv[1], "cron", 998, 1);
	proctree_finish(&pt, 100, 10, &out);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.p[0].pid, 100);
	assert_string_equal(out.source, "taskstats");
	assert_int_equal(pt.x_lost, 0);
	proc_tree_release(&out);
	proctree_release(&pt);
	assert_int_not_equal(fcntl(sv[0], F_GETFD), -1);

	/* Between the runs: a leftover of abev's own that exited late, and a stranger. */
	send_exit(sv[1], "sh", 60, 10);
	send_exit(sv[1], "cron", 997, 1);
	proctree_start(&pt);
	assert_int_equal(proctree_fd(&pt), sv[0]);
	assert_int_equal(pt.nx, 0);
	send_exit(sv[1], "true", 101, 10);
	proctree_finish(&pt, 101, 10, &out);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.p[0].pid, 101);
	proc_tree_release(&out);
	proctree_release(&pt);

	proctree_listen_stop();
	assert_int_equal(fcntl(sv[0], F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	/* A run after it has no taskstats, and says why. */
	proctree_start(&pt);
	assert_int_equal(proctree_fd(&pt), -1);
	assert_non_null(pt.why_not);
	proctree_release(&pt);
	close(sv[1]);
}

/*
 * A copy (what an invocation's record keeps) holds exactly the processes
 * of its source, strings of its own, room for no more, and still grows.
 */
static void test_copy_exact(void **state)
{
	struct proc_tree src = PROC_TREE_INIT, dst;
	struct proc_tree_proc *p;
	(void)state;

	p = proc_tree_add(&src, "sh", "sh\x1f-c\x1ftrue", 10, 1);
	p->peak_rss_bytes = 4096;
	p->cpu_ns = 7;
	p->wait_ns = 3;
	p->source = "taskstats";
	proc_tree_add(&src, "true", NULL, 11, 10);
	src.omitted = 2;
	src.source = "taskstats";
	src.note = strdup("a note");
	proc_tree_copy(&dst, &src);
	assert_int_equal(dst.n, 2);
	assert_int_equal(dst.alloc, 2);
	assert_int_equal(dst.omitted, 2);
	assert_string_equal(dst.source, "taskstats");
	assert_string_equal(dst.note, "a note");
	assert_true(dst.note != src.note);
	assert_string_equal(dst.p[0].comm, "sh");
	assert_true(dst.p[0].comm != src.p[0].comm);
	assert_string_equal(dst.p[0].cmdline, "sh\x1f-c\x1ftrue");
	assert_null(dst.p[1].cmdline);
	assert_int_equal(dst.p[0].peak_rss_bytes, 4096);
	assert_int_equal(dst.p[0].cpu_ns, 7);
	assert_int_equal(dst.p[0].wait_ns, 3);
	assert_string_equal(dst.p[0].source, "taskstats");
	assert_int_equal(dst.p[1].pid, 11);
	assert_int_equal(dst.p[1].ppid, 10);
	assert_non_null(proc_tree_add(&dst, "sleep", NULL, 12, 10));
	assert_int_equal(dst.n, 3);
	proc_tree_release(&dst);
	proc_tree_copy(&dst, &(struct proc_tree)PROC_TREE_INIT);
	assert_int_equal(dst.n, 0);
	assert_null(dst.p);
	proc_tree_release(&dst);
	proc_tree_release(&src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_from_exit_records),
		cmocka_unit_test(test_wait_without_delayacct),
		cmocka_unit_test(test_proc_only),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_listener_kept_between_runs),
		cmocka_unit_test(test_copy_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
