/*
 * proctree: the per-process figures of a run's tree, from taskstats exit
 * records or from /proc (the sources and their limits: proctree.h). The
 * netlink exchange follows the kernel's tools/accounting/getdelays.c.
 * Running the child and deciding when to read are proc.c's.
 */
#include "measure/proctree.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/readfile.h"
#include "util/strbuf.h"

#define NL_BUF 16384
/* Depth of a tree whose members are known only by their exit records' parents. */
#define RESOLVE_PASSES 64

struct nl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[256];
};

static int nl_send(int fd, uint16_t type, uint8_t cmd, uint16_t attr, const void *data,
		   size_t len)
{
	struct nl_req req;
	struct nlattr *na;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (len > sizeof(req.buf) - NLA_HDRLEN)
		return -1;
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.n.nlmsg_pid = 0;
	req.g.cmd = cmd;
	req.g.version = 1;
	na = (struct nlattr *)req.buf;
	na->nla_type = attr;
	na->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)na + NLA_HDRLEN, data, len);
	req.n.nlmsg_len = (uint32_t)(NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len));
	return sendto(fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) ==
			       (ssize_t)req.n.nlmsg_len ? 0 : -1;
}

/* The attributes of a generic netlink payload: calls fn for each, bounded by len. */
#define FOR_ATTR(na, start, len)                                                          \
	for (struct nlattr *na = (struct nlattr *)(start);                                 \
	     (size_t)((char *)na - (char *)(start)) + NLA_HDRLEN <= (len) &&                \
	     na->nla_len >= NLA_HDRLEN &&                                                  \
	     (size_t)((char *)na - (char *)(start)) + na->nla_len <= (len);                 \
	     na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len)))

static void parse_stats(struct proctree *pt, const void *data, size_t len)
{
	struct taskstats ts;
	struct proctree_exit e;

	memset(&ts, 0, sizeof(ts));
	memcpy(&ts, data, len < sizeof(ts) ? len : sizeof(ts));
	memset(&e, 0, sizeof(e));
	e.pid = (pid_t)ts.ac_pid;
	/* ac_tgid came with version 12; before it a record is taken for its own process. */
	e.tgid = ts.version >= 12 && len >= offsetof(struct taskstats, ac_tgid) + 4 && ts.ac_tgid
			 ? (pid_t)ts.ac_tgid : e.pid;
	e.ppid = (pid_t)ts.ac_ppid;
	memcpy(e.comm, ts.ac_comm, sizeof(e.comm) - 1);
	e.comm[sizeof(e.comm) - 1] = '\0';
	e.rss_kib = ts.hiwater_rss > (uint64_t)INT64_MAX / 1024 ? -1 : (int64_t)ts.hiwater_rss;
	e.cpu_us = ts.ac_utime + ts.ac_stime > (uint64_t)INT64_MAX / 1000
			   ? -1 : (int64_t)(ts.ac_utime + ts.ac_stime);
	e.wait_ns = pt->delayacct && ts.cpu_delay_total <= (uint64_t)INT64_MAX
			    ? (int64_t)ts.cpu_delay_total : -1;
	if (e.pid > 0)
		proctree_note_exit(pt, &e);
}

/* One TASKSTATS_CMD_NEW: the per-thread record (AGGR_PID); the group's (AGGR_TGID) carries no comm or RSS. */
static void parse_new(struct proctree *pt, const char *p, size_t len)
{
	FOR_ATTR(na, p, len) {
		if (na->nla_type != TASKSTATS_TYPE_AGGR_PID)
			continue;
		FOR_ATTR(in, (char *)na + NLA_HDRLEN, (size_t)na->nla_len - NLA_HDRLEN)
			if (in->nla_type == TASKSTATS_TYPE_STATS)
				parse_stats(pt, (char *)in + NLA_HDRLEN, (size_t)in->nla_len - NLA_HDRLEN);
	}
}

void proctree_parse(struct proctree *pt, const void *buf, size_t len)
{
	const struct nlmsghdr *h = buf;

	for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		const struct genlmsghdr *g;
		if (h->nlmsg_type != pt->family || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
			continue;
		g = NLMSG_DATA(h);
		if (g->cmd != TASKSTATS_CMD_NEW)
			continue;
		parse_new(pt, (const char *)g + GENL_HDRLEN, h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	}
}

void proctree_note_exit(struct proctree *pt, const struct proctree_exit *e)
{
	if (pt->nx >= PROCTREE_MAX_EXITS) {
		pt->x_lost++;
		return;
	}
	ALLOC_GROW(pt->x, pt->nx + 1, pt->xalloc);
	pt->x[pt->nx++] = *e;
}

/*
 * Waits (up to a second) for the answer to a request on fd: the family id
 * for CTRL_CMD_GETFAMILY, the acknowledgement otherwise. Exit records that
 * come meanwhile are left for proctree_start() to throw away. 0 or -errno.
 */
static int nl_answer(int fd, uint16_t *family)
{
	char *buf = xmalloc(NL_BUF);
	int ret = -ETIMEDOUT;

	for (int tries = 0; tries < 100 && ret == -ETIMEDOUT; tries++) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN, .revents = 0 };
		ssize_t n;
		size_t len;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		n = recv(fd, buf, NL_BUF, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == ENOBUFS)
				continue;
			ret = -errno;
			break;
		}
		len = (size_t)n;
		for (const struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_ERROR && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
				const struct nlmsgerr *err = NLMSG_DATA(h);
				if (err->error || !family) {
					ret = err->error;
					break;
				}
			} else if (family && h->nlmsg_type == GENL_ID_CTRL &&
				   h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN)) {
				const char *p = (const char *)NLMSG_DATA(h) + GENL_HDRLEN;
				FOR_ATTR(na, p, h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN))
					if (na->nla_type == CTRL_ATTR_FAMILY_ID && na->nla_len >= NLA_HDRLEN + 2) {
						memcpy(family, (char *)na + NLA_HDRLEN, 2);
						ret = 0;
					}
			}
		}
	}
	free(buf);
	return ret;
}

/* Whether abev sees the initial pid namespace, whose pids the exit records give. */
static int init_pid_namespace(void)
{
	char buf[4096];
	const char *p;

	if (read_head("/proc/self/status", buf, sizeof(buf)) < 0 || !(p = strstr(buf, "\nNSpid:")))
		return 1;
	p += 7;
	p += strspn(p, " \t");
	p += strcspn(p, " \t\n");
	return *p != ' ' && *p != '\t';
}

/*
 * The listener: registered once, at the first run's start, and kept for
 * every run after it (none of what it needs changes between runs: the
 * pid namespace, the family, the CPUs, kernel.task_delayacct); a run
 * borrows its descriptor. Closed at exit, or by proctree_listen_stop().
 */
static struct {
	int tried;                  /* listen_exits() was called (or proctree_listen_on()) */
	int fd;
	uint16_t family;
	char mask[32];
	int delayacct;
	const char *why_not;
} lis = { 0, -1, 0, "", 0, NULL };

/* Registers for exit records into lis: NULL, or why not (static). */
static const char *listen_exits(void)
{
	const char *env = getenv(PROCTREE_TASKSTATS_ENV);
	struct sockaddr_nl local = { .nl_family = AF_NETLINK };
	int rcvbuf = 8 << 20, rc;
	char flag[8];
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	if (env && !strcmp(env, "0"))
		return ("ABEV_TASKSTATS=0 is set");
	if (!init_pid_namespace())
		return ("abev runs in a pid namespace of its own, and exit "
					  "records give the pids of the initial one");
	lis.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_GENERIC);
	if (lis.fd < 0)
		return ("no generic netlink socket");
	/* Exit records of the whole machine come in bursts: a large buffer loses none. */
	if (setsockopt(lis.fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		(void)setsockopt(lis.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(lis.fd, (struct sockaddr *)&local, sizeof(local)) < 0)
		return ("cannot bind a generic netlink socket");
	if (nl_send(lis.fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		    TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME)) < 0 ||
	    nl_answer(lis.fd, &lis.family) < 0 || !lis.family)
		return ("the kernel has no taskstats family (in this network "
					  "namespace)");
	snprintf(lis.mask, sizeof(lis.mask), "0-%ld", cpus > 1 ? cpus - 1 : 0);
	if (nl_send(lis.fd, lis.family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
		    lis.mask, strlen(lis.mask) + 1) < 0)
		return ("cannot ask for exit records");
	rc = nl_answer(lis.fd, NULL);
	if (rc == -EPERM || rc == -EACCES)
		return ("registering for exit records needs CAP_NET_ADMIN");
	if (rc < 0)
		return ("the kernel refused to send exit records");
	lis.delayacct = read_head("/proc/sys/kernel/task_delayacct", flag, sizeof(flag)) > 0 &&
			flag[0] == '1';
	return NULL;
}

void proctree_listen_stop(void)
{
	if (lis.fd >= 0) {
		(void)nl_send(lis.fd, lis.family, TASKSTATS_CMD_GET,
			      TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, lis.mask, strlen(lis.mask) + 1);
		close(lis.fd);
	}
	lis.fd = -1;
	lis.family = 0;
	lis.why_not = "the listener was stopped";
}

void proctree_listen_on(int fd, uint16_t family, const char *mask, int delayacct)
{
	proctree_listen_stop();
	lis.tried = 1;
	lis.fd = fd;
	lis.family = family;
	snprintf(lis.mask, sizeof(lis.mask), "%s", mask);
	lis.delayacct = delayacct;
	lis.why_not = NULL;
}

/*
 * Throws away the records waiting: every one is of a process that exited
 * before this run's child existed (abev's own children among them, whose
 * parent would make them look like the run's). A buffer that overflowed
 * meanwhile lost only such records, so it is not counted as a loss of
 * this run's. Each datagram is cut to a byte: none is copied whole.
 */
static void discard_waiting(int fd)
{
	char c;

	for (int i = 0; i < PROCTREE_DISCARD_MAX; i++) {
		ssize_t n = recv(fd, &c, 1, MSG_TRUNC);
		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;
		if (n < 0)
			break;
	}
}

void proctree_start(struct proctree *pt)
{
	if (!lis.tried) {
		const char *why;

		lis.tried = 1;
		why = listen_exits();
		if (why) {
			if (lis.fd >= 0)
				close(lis.fd);
			lis.fd = -1;
			lis.why_not = why;
		} else {
			atexit(proctree_listen_stop);
		}
	}
	pt->why_not = lis.why_not;
	pt->fd = lis.fd;
	if (pt->fd < 0)
		return;
	pt->family = lis.family;
	pt->delayacct = lis.delayacct;
	discard_waiting(pt->fd);
}

int proctree_fd(const struct proctree *pt)
{
	return pt->fd;
}

void proctree_drain(struct proctree *pt)
{
	char *buf;

	if (pt->fd < 0)
		return;
	buf = xmalloc(NL_BUF);
	/* Bounded: at most the buffer's worth of records each call. */
	for (int i = 0; i < 4096; i++) {
		ssize_t n = recv(pt->fd, buf, NL_BUF, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			pt->x_lost++;
			continue;
		}
		if (n <= 0)
			break;
		proctree_parse(pt, buf, (size_t)n);
	}
	free(buf);
}

int proctree_parse_stat(const char *text, char comm[16], pid_t *ppid,
			unsigned long long *ticks, unsigned long long *start)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	unsigned long long utime, stime;
	long pp;
	size_t len;

	if (!open || !close || close < open)
		return -1;
	len = (size_t)(close - open - 1);
	if (len > 15)
		len = 15;
	memcpy(comm, open + 1, len);
	comm[len] = '\0';
	/* After the command: state ppid pgrp session tty tpgid flags minflt cminflt majflt
	 * cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime. */
	if (sscanf(close + 1, " %*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d "
			      "%*d %*d %*d %*d %llu", &pp, &utime, &stime, start) != 4)
		return -1;
	*ppid = (pid_t)pp;
	*ticks = utime + stime;
	return 0;
}

struct proctree_seen *proctree_note_seen(struct proctree *pt, pid_t pid, pid_t ppid,
					 unsigned long long start, const char *comm)
{
	struct proctree_seen *s = NULL;

	for (size_t i = pt->ns; i-- > 0;)
		if (pt->s[i].pid == pid && pt->s[i].start == start) {
			s = &pt->s[i];
			break;
		}
	if (!s) {
		if (pt->ns >= PROCTREE_MAX_SEEN) {
			pt->s_over++;
			return NULL;
		}
		ALLOC_GROW(pt->s, pt->ns + 1, pt->salloc);
		s = &pt->s[pt->ns++];
		*s = (struct proctree_seen){ .pid = pid, .start = start, .rss_kib = -1,
					     .cpu_ns = -1, .wait_ns = -1 };
	}
	if (strcmp(s->comm, comm)) {
		/* An exec: the command line is read again. */
		snprintf(s->comm, sizeof(s->comm), "%s", comm);
		free(s->cmdline);
		s->cmdline = NULL;
	}
	s->ppid = ppid;
	return s;
}

/* The command line of pid, at most PROC_TREE_CMDLINE_MAX bytes. */
static char *read_cmdline(pid_t pid)
{
	char path[64], buf[PROC_TREE_CMDLINE_MAX + 1];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	n = read_head(path, buf, sizeof(buf));
	if (n <= 0)
		return NULL;
	/* Arguments apart by PROC_TREE_ARG_SEP, any control character in them a space. */
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = PROC_TREE_ARG_SEP;
		else if ((unsigned char)buf[i] < 0x20)
			buf[i] = ' ';
	while (n > 0 && buf[n - 1] == PROC_TREE_ARG_SEP)
		n--;
	buf[n] = '\0';
	return xstrdup(buf);
}

/* VmHWM of pid in KiB, or -1 (a zombie has none). */
static int64_t read_hwm(pid_t pid)
{
	char path[64], buf[4096];
	const char *p;
	long long kib;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if (read_head(path, buf, sizeof(buf)) < 0 || !(p = strstr(buf, "\nVmHWM:")) ||
	    sscanf(p + 7, "%lld", &kib) != 1 || kib < 0)
		return -1;
	return kib;
}

void proctree_sample(struct proctree *pt, pid_t pid, int64_t threads_wait_ns)
{
	char path[64], buf[1024], comm[16];
	unsigned long long ticks, start;
	long hz = sysconf(_SC_CLK_TCK);
	struct proctree_seen *s;
	pid_t ppid;
	int64_t hwm;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (read_head(path, buf, sizeof(buf)) < 0 ||
	    proctree_parse_stat(buf, comm, &ppid, &ticks, &start) < 0 || hz <= 0)
		return;
	s = proctree_note_seen(pt, pid, ppid, start, comm);
	if (!s)
		return;
	if (!s->cmdline)
		s->cmdline = read_cmdline(pid);
	hwm = read_hwm(pid);
	if (hwm > s->rss_kib)
		s->rss_kib = hwm;
	if (ticks < (unsigned long long)INT64_MAX / 1000000000ULL)
		s->cpu_ns = (int64_t)(ticks * (1000000000ULL / (unsigned long long)hz));
	if (threads_wait_ns > s->wait_ns)
		s->wait_ns = threads_wait_ns;
}

/* Sorted set of pids, for membership. */
struct pidset {
	pid_t *v;
	size_t n, alloc;
};

static size_t pidset_find(const struct pidset *ps, pid_t pid, int *found)
{
	size_t lo = 0, hi = ps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->v[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < ps->n && ps->v[lo] == pid;
	return lo;
}

static int pidset_has(const struct pidset *ps, pid_t pid)
{
	int found;
	pidset_find(ps, pid, &found);
	return found;
}

static int pidset_add(struct pidset *ps, pid_t pid)
{
	int found;
	size_t i = pidset_find(ps, pid, &found);

	if (found)
		return 0;
	ALLOC_GROW(ps->v, ps->n + 1, ps->alloc);
	memmove(&ps->v[i + 1], &ps->v[i], (ps->n - i) * sizeof(*ps->v));
	ps->v[i] = pid;
	ps->n++;
	return 1;
}

/*
 * The thread groups of the tree among the exit records: root's, those of
 * processes /proc showed in it, then (pass after pass, children exit
 * before their parents) those whose parent is a member or abev.
 */
static void resolve_members(const struct proctree *pt, pid_t root, pid_t self,
			    struct pidset *members)
{
	int changed = 1;

	pidset_add(members, root);
	for (size_t i = 0; i < pt->ns; i++)
		pidset_add(members, pt->s[i].pid);
	for (int pass = 0; changed && pass < RESOLVE_PASSES; pass++) {
		changed = 0;
		for (size_t i = 0; i < pt->nx; i++) {
			const struct proctree_exit *e = &pt->x[i];
			if (e->tgid != self && !pidset_has(members, e->tgid) &&
			    (pidset_has(members, e->ppid) || e->ppid == self))
				changed |= pidset_add(members, e->tgid);
		}
	}
}

/* The last /proc reading of pid (the latest start), or NULL. */
static struct proctree_seen *seen_of(const struct proctree *pt, pid_t pid)
{
	for (size_t i = pt->ns; i-- > 0;)
		if (pt->s[i].pid == pid)
			return &pt->s[i];
	return NULL;
}

/* One process's figures, from its threads' exit records. */
struct agg {
	pid_t tgid, ppid;
	char comm[16];
	int leader;              /* comm and ppid are the group leader's */
	int64_t rss_kib, cpu_us, wait_ns;
	const struct proctree_seen *seen;
};

static int by_tgid(const void *a, const void *b)
{
	pid_t x = ((const struct agg *)a)->tgid, y = ((const struct agg *)b)->tgid;
	return (x > y) - (x < y);
}

static int64_t agg_cpu_ns(const struct agg *a)
{
	if (a->cpu_us >= 0)
		return a->cpu_us * 1000;
	return a->seen ? a->seen->cpu_ns : -1;
}

/* Most CPU time first; then by pid, so that the cut is the same every time. */
static int by_cpu(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;
	int64_t cx = agg_cpu_ns(x), cy = agg_cpu_ns(y);

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

static void agg_exit(struct agg *a, const struct proctree_exit *e)
{
	if (!a->leader && (e->pid == e->tgid || !a->comm[0])) {
		memcpy(a->comm, e->comm, sizeof(a->comm));
		a->ppid = e->ppid;
		a->leader = e->pid == e->tgid;
	}
	if (e->rss_kib > a->rss_kib)
		a->rss_kib = e->rss_kib;
	if (e->cpu_us >= 0)
		a->cpu_us = (a->cpu_us < 0 ? 0 : a->cpu_us) + e->cpu_us;
	if (e->wait_ns >= 0)
		a->wait_ns = (a->wait_ns < 0 ? 0 : a->wait_ns) + e->wait_ns;
}

/* The processes of the tree: exit records grouped by process, then /proc's for the rest. */
static struct agg *gather(const struct proctree *pt, const struct pidset *members, size_t *nout)
{
	struct agg *a = NULL;
	size_t n = 0, alloc = 0;

	for (size_t i = 0; i < pt->nx; i++) {
		const struct proctree_exit *e = &pt->x[i];
		size_t k;
		if (!pidset_has(members, e->tgid))
			continue;
		for (k = 0; k < n && a[k].tgid != e->tgid; k++)
			;
		if (k == n) {
			ALLOC_GROW(a, n + 1, alloc);
			a[n++] = (struct agg){ .tgid = e->tgid, .rss_kib = -1, .cpu_us = -1,
					       .wait_ns = -1 };
		}
		agg_exit(&a[k], e);
	}
	for (size_t k = 0; k < n; k++)
		a[k].seen = seen_of(pt, a[k].tgid);
	for (size_t i = 0; i < pt->ns; i++) {
		const struct proctree_seen *s = &pt->s[i];
		int found = 0;
		for (size_t k = 0; k < n && !found; k++)
			found = a[k].tgid == s->pid && a[k].cpu_us >= 0;
		if (found)
			continue;
		ALLOC_GROW(a, n + 1, alloc);
		a[n] = (struct agg){ .tgid = s->pid, .ppid = s->ppid, .rss_kib = -1, .cpu_us = -1,
				     .wait_ns = -1, .seen = s };
		memcpy(a[n].comm, s->comm, sizeof(a[n].comm));
		n++;
	}
	*nout = n;
	return a;
}

static void add_proc(struct proc_tree *out, const struct agg *a)
{
	const struct proctree_seen *s = a->seen;
	struct proc_tree_proc *p = proc_tree_add(out, a->comm, s ? s->cmdline : NULL, a->tgid,
						 a->ppid);

	if (!p)
		return;
	if (a->cpu_us >= 0) {
		p->source = "taskstats";
		p->peak_rss_bytes = a->rss_kib >= 0 ? a->rss_kib * 1024 : -1;
		p->cpu_ns = a->cpu_us * 1000;
		p->wait_ns = a->wait_ns >= 0 ? a->wait_ns : s ? s->wait_ns : -1;
		return;
	}
	p->peak_rss_bytes = s && s->rss_kib >= 0 ? s->rss_kib * 1024 : -1;
	p->cpu_ns = s ? s->cpu_ns : -1;
	p->wait_ns = s ? s->wait_ns : -1;
}

static char *make_note(const struct proctree *pt, const struct proc_tree *out)
{
	const char *lost = pt->x_lost ? "; some exit records were lost (buffer full): their "
					"processes are as /proc last showed them" : "";
	const char *over = pt->s_over ? "; the tree had more processes than abev follows" : "";

	if (pt->family && !pt->why_not)
		return xasprintf("taskstats exit records%s%s%s",
				 pt->delayacct ? "" : " (kernel.task_delayacct is 0: wait_ns "
				 "is the run_delay of each process's threads read from /proc "
				 "every 0.1 s)", lost, over);
	if (!out->n)
		return xasprintf("no taskstats exit records (%s), and /proc showed no process",
				 pt->why_not ? pt->why_not : "not asked for");
	return xasprintf("no taskstats exit records (%s): each process as /proc showed it, "
			 "read every 0.1 s and at the root's exit; one that lived less is "
			 "missed, and CPU time and peak RSS stop at the last reading%s",
			 pt->why_not ? pt->why_not : "not asked for", over);
}

void proctree_finish(struct proctree *pt, pid_t root, pid_t self, struct proc_tree *out)
{
	struct pidset members = { NULL, 0, 0 };
	struct agg *a;
	size_t n;
	/* Registered (or, in the unit tests, records handed in): the exit records count. */
	int listened = pt->family && !pt->why_not;

	*out = (struct proc_tree)PROC_TREE_INIT;
	proctree_drain(pt);
	resolve_members(pt, root, self, &members);
	a = gather(pt, &members, &n);
	/* The cap keeps the processes that did the work (qsort() of NULL is undefined). */
	if (n)
		qsort(a, n, sizeof(*a), by_cpu);
	if (n > PROC_TREE_MAX) {
		out->omitted = (unsigned)(n - PROC_TREE_MAX);
		n = PROC_TREE_MAX;
	}
	if (n)
		qsort(a, n, sizeof(*a), by_tgid);
	for (size_t i = 0; i < n; i++)
		add_proc(out, &a[i]);
	out->source = listened ? "taskstats" : out->n ? "proc" : NULL;
	out->note = make_note(pt, out);
	free(a);
	free(members.v);
	/* The listener stays registered for the next run: only this run's borrow ends. */
	pt->fd = -1;
}

void proctree_release(struct proctree *pt)
{
	for (size_t i = 0; i < pt->ns; i++)
		free(pt->s[i].cmdline);
	free(pt->s);
	free(pt->x);
	*pt = (struct proctree)PROCTREE_INIT;
}
