/*
 * cgroup: gives each invocation a cgroup v2 group of its own beside abev
 * (under abev's own group), moves the child into it, reads the whole
 * tree's memory peak and CPU time, kills whatever the run left in it and
 * removes it again (or keeps it, empty, for the next: cgroup_done()). It
 * does not decide what a missing cgroup means: every failure is soft and
 * comes back as a one-line reason, never as an error() message,
 * because a machine without a writable cgroup v2 hierarchy is a fact to
 * record. It knows nothing of processes beyond pids.
 */
#include "measure/cgroup.h"
#include "measure/sysstat.h"
#include "util/name_rule.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/number.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/writefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* mountinfo can be long on container hosts; the cgroup files are tiny. */
#define MOUNTINFO_MAX (4u << 20)
#define CGFILE_MAX (1u << 20)
#define CG_PIDS_MAX 4096
#define RELEASE_WAIT_NS 1000000000LL
#define STALE_SCAN_MAX 100000

static char memory_note[4200];

/*
 * Whether the groups give a memory peak (memory.peak), looked at once:
 * -1 not yet. Every group is made beneath the same parent, and the
 * parent's controllers decide it.
 */
static int has_peak = -1;
/* The group cgroup_done() kept for the next command, by the process that kept it. */
static struct {
	char *path;
	int64_t cpu_ns;   /* its cpu.stat usage when it was kept */
	pid_t owner;
} kept;

static int cgroup_release_checked(struct cgroup *cg);

/* Writes s to an existing control file; 0 or -1 with errno. */
static int write_quiet(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	int e;
	if (fd < 0)
		return -1;
	if (write_all(fd, s, strlen(s)) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (close(fd) < 0)
		return -1;
	return 0;
}

/* Undoes mountinfo's octal escapes (\040 for a blank and so on) in place. */
static void unescape_octal(char *s)
{
	char *w = s;
	for (char *r = s; *r; ) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/*
 * Finds the first cgroup2 mount point in /proc/self/mountinfo. A line is
 * "id parent maj:min root mountpoint opts [optional...] - fstype source super".
 */
static char *find_cgroup2_mount(char **reason)
{
	struct strbuf sb = STRBUF_INIT;
	char *found = NULL;
	char *line, *next;

	if (read_small(&sb, "/proc/self/mountinfo", MOUNTINFO_MAX, 0) < 0) {
		*reason = xasprintf("cannot read /proc/self/mountinfo: %s", strerror(errno));
		goto out;
	}
	for (line = sb.buf; line && *line && !found; line = next) {
		char *fields[6];
		char *p = line, *sep;
		size_t i;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		if (strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		*sep = '\0';
		for (i = 0; i < ARRAY_SIZE(fields) && p && *p; i++) {
			fields[i] = p;
			p = strchr(p, ' ');
			if (p)
				*p++ = '\0';
		}
		if (i < 5)
			continue;
		unescape_octal(fields[4]);
		found = xstrdup(fields[4]);
	}
	if (!found)
		*reason = xstrdup("no cgroup v2 hierarchy is mounted");
out:
	strbuf_release(&sb);
	return found;
}

/* abev's own group: the "0::/path" line of /proc/self/cgroup. */
static char *find_own_group(char **reason)
{
	struct strbuf sb = STRBUF_INIT;
	char *found = NULL;
	char *line, *next;

	if (read_small(&sb, "/proc/self/cgroup", CGFILE_MAX, 0) < 0) {
		*reason = xasprintf("cannot read /proc/self/cgroup: %s", strerror(errno));
		goto out;
	}
	for (line = sb.buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "0::", 3) == 0 && line[3] == '/') {
			found = xstrdup(line + 3);
			break;
		}
	}
	if (!found)
		*reason = xstrdup("abev is not in a cgroup v2 group (no 0:: line in /proc/self/cgroup)");
	else if (strstr(found, "/..") || strstr(found, " (deleted)")) {
		*reason = xasprintf("abev's own cgroup '%s' cannot be used", found);
		free(found);
		found = NULL;
	}
out:
	strbuf_release(&sb);
	return found;
}

/* The directory abev's groups are made in: abev's own group. Caller frees. */
static char *find_groups_parent(char **reason)
{
	char *mount = find_cgroup2_mount(reason), *own = NULL, *parent = NULL;

	if (!mount)
		goto out;
	own = find_own_group(reason);
	if (!own)
		goto out;
	if (strcmp(own, "/") == 0)
		parent = xstrdup(mount);
	else
		parent = xasprintf("%s%s", strcmp(mount, "/") == 0 ? "" : mount, own);
out:
	free(mount);
	free(own);
	return parent;
}

/*
 * find_groups_parent() once per process: mountinfo and abev's own group do
 * not change while it runs, and reading them for every invocation was
 * most of the work between two of them. Caller frees.
 */
static char *groups_parent(char **reason)
{
	static int looked;
	static char *parent, *why;

	if (!looked) {
		parent = find_groups_parent(&why);
		looked = 1;
	}
	if (!parent) {
		*reason = xstrdup(why ? why : "no cgroup v2 hierarchy");
		return NULL;
	}
	return xstrdup(parent);
}

/* The owner's pid of a group named "abev-<pid>-<name>", or 0 for any other name. */
static pid_t group_owner(const char *name)
{
	const char *p = name + 5, *dash;
	int64_t pid;
	char digits[24];

	if (strncmp(name, "abev-", 5) != 0)
		return 0;
	dash = strchr(p, '-');
	if (!dash || dash == p || (size_t)(dash - p) >= sizeof(digits))
		return 0;
	memcpy(digits, p, (size_t)(dash - p));
	digits[dash - p] = '\0';
	if (parse_int64(digits, &pid) < 0 || pid <= 0 || pid > INT32_MAX)
		return 0;
	return (pid_t)pid;
}

/*
 * Kills and removes the groups "abev-<pid>-*" in abev's parent group whose
 * owner is `owner`, or, when owner is 0, whose owner process is gone.
 * Returns how many were removed.
 */
static int remove_groups(pid_t owner)
{
	char *reason = NULL, *parent = groups_parent(&reason);
	struct dirent *de;
	unsigned seen = 0;
	int removed = 0;
	DIR *d;

	free(reason);
	if (!parent)
		return 0;
	d = opendir(parent);
	while (d && (de = readdir(d)) != NULL && seen++ < STALE_SCAN_MAX) {
		pid_t pid = group_owner(de->d_name);
		struct cgroup cg = CGROUP_INIT;

		if (!pid)
			continue;
		if (owner && pid != owner)
			continue;
		/* A live owner (EPERM: alive, someone else's) keeps its groups. */
		if (!owner && (pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		cg.path = path_join(parent, de->d_name);
		cgroup_kill_all(&cg);
		if (cgroup_release_checked(&cg) == 0)
			removed++;
	}
	if (d)
		closedir(d);
	free(parent);
	return removed;
}

int cgroup_remove_stale(void)
{
	return remove_groups(0);
}

int cgroup_remove_owned(pid_t owner)
{
	return owner > 0 ? remove_groups(owner) : 0;
}

int cgroup_create(struct cgroup *cg, const char *name, char **reason)
{
	char *comp = NULL, *parent = NULL, *path = NULL;
	char *dummy = NULL;
	int ret = -1;

	if (!reason)
		reason = &dummy;
	*reason = NULL;
	cg->path = NULL;
	cg->cpu_base_ns = 0;
	cg->killed = 0;
	if (kept.path && kept.owner == getpid()) {
		cg->path = kept.path;
		cg->cpu_base_ns = kept.cpu_ns;
		kept.path = NULL;
		return 0;
	}

	parent = groups_parent(reason);
	if (!parent)
		goto out;
	comp = name_rule_sanitize(name ? name : "run", 128);
	path = xasprintf("%s/abev-%ld-%s", parent, (long)getpid(), comp);

	if (mkdir(path, 0755) < 0) {
		/* A group of ours left over from an earlier run in this process: reuse it if empty. */
		if (errno == EEXIST && rmdir(path) == 0 && mkdir(path, 0755) == 0)
			goto made;
		*reason = xasprintf("cannot create cgroup '%s': %s", path, strerror(errno));
		goto out;
	}
made:
	cg->path = path;
	path = NULL;
	ret = 0;
out:
	free(dummy);
	free(comp);
	free(parent);
	free(path);
	return ret;
}

int cgroup_add(struct cgroup *cg, pid_t pid, char **reason)
{
	char buf[32];
	char *procs;
	int ret = 0;

	if (reason)
		*reason = NULL;
	if (!cg || !cg->path) {
		if (reason)
			*reason = xstrdup("no cgroup was created");
		return -1;
	}
	procs = path_join(cg->path, "cgroup.procs");
	snprintf(buf, sizeof(buf), "%ld\n", (long)pid);
	if (write_quiet(procs, buf) < 0) {
		if (reason)
			*reason = xasprintf("cannot move process %ld into cgroup '%s': %s",
					    (long)pid, cg->path, strerror(errno));
		ret = -1;
	}
	free(procs);
	return ret;
}

/* Reads a file holding one non-negative integer; -1 when it cannot. */
static int64_t read_int_file(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(dir, name);
	int64_t v = -1;
	char *end;

	if (read_small(&sb, path, 256, 0) == 0) {
		long long x;
		errno = 0;
		x = strtoll(sb.buf, &end, 10);
		if (!errno && end != sb.buf && (*end == '\n' || *end == '\0') && x >= 0)
			v = x;
	}
	free(path);
	strbuf_release(&sb);
	return v;
}

static int64_t read_cpu_usage_ns(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(dir, "cpu.stat");
	int64_t v = -1;

	if (read_small(&sb, path, CGFILE_MAX, 0) == 0) {
		char *line, *next;
		for (line = sb.buf; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (strncmp(line, "usage_usec ", 11) == 0) {
				int64_t us;
				if (parse_int64(line + 11, &us) == 0 && us >= 0 &&
				    us <= INT64_MAX / 1000)
					v = us * 1000;
				break;
			}
		}
	}
	free(path);
	strbuf_release(&sb);
	return v;
}

int64_t cgroup_cpu_pressure_us(const struct cgroup *cg)
{
	char *path;
	int64_t us;

	if (!cg || !cg->path)
		return -1;
	path = path_join(cg->path, "cpu.pressure");
	us = sysstat_psi_read_some_total(path);
	free(path);
	return us;
}

static int file_exists(const char *dir, const char *name)
{
	char *path = path_join(dir, name);
	int ok = access(path, F_OK) == 0;
	free(path);
	return ok;
}

/* Whether the groups give a memory peak, looked at in cg the first time. */
static int gives_peak(const struct cgroup *cg)
{
	if (has_peak < 0)
		has_peak = file_exists(cg->path, "memory.peak");
	return has_peak;
}

void cgroup_read(const struct cgroup *cg, struct cgroup_stats *st)
{
	st->memory_peak_bytes = -1;
	st->cpu_usage_ns = -1;
	if (!cg || !cg->path)
		return;
	if (gives_peak(cg))
		st->memory_peak_bytes = read_int_file(cg->path, "memory.peak");
	st->cpu_usage_ns = read_cpu_usage_ns(cg->path);
	if (st->cpu_usage_ns >= 0)
		st->cpu_usage_ns = st->cpu_usage_ns >= cg->cpu_base_ns
				   ? st->cpu_usage_ns - cg->cpu_base_ns : -1;
}

const char *cgroup_memory_note(const struct cgroup *cg)
{
	static int noted;
	char *parent, *slash;

	if (!cg || !cg->path || gives_peak(cg))
		return NULL;
	/* The same for every group beneath the one parent: worked out once. */
	if (noted)
		return memory_note;
	noted = 1;
	if (file_exists(cg->path, "memory.current")) {
		snprintf(memory_note, sizeof(memory_note),
			 "memory.peak unavailable: this kernel predates Linux 5.19");
		return memory_note;
	}
	/*
	 * The controller must be enabled in the parent's subtree_control for a
	 * child group to get memory.* files; name that parent.
	 */
	parent = xstrdup(cg->path);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	if (snprintf(memory_note, sizeof(memory_note),
		     "memory controller not enabled in %s (memory.peak unavailable)",
		     parent) >= (int)sizeof(memory_note))
		snprintf(memory_note, sizeof(memory_note),
			 "memory controller not enabled (memory.peak unavailable)");
	free(parent);
	return memory_note;
}

/* Parses cgroup.procs into pids; returns how many (at most max) or -1. */
static int read_pids(const char *dir, pid_t *pids, int max)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(dir, "cgroup.procs");
	int n = -1;

	if (read_small(&sb, path, CGFILE_MAX, 0) == 0) {
		char *line, *next;
		n = 0;
		for (line = sb.buf; line && *line && n < max; line = next) {
			int64_t v;
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (parse_int64(line, &v) == 0 && v > 0 && v <= INT32_MAX)
				pids[n++] = (pid_t)v;
		}
	}
	free(path);
	strbuf_release(&sb);
	return n;
}

int cgroup_pids(const struct cgroup *cg, pid_t *pids, int max)
{
	if (!cg || !cg->path || max < 0)
		return -1;
	return read_pids(cg->path, pids, max);
}

int cgroup_kill_all(struct cgroup *cg)
{
	pid_t *pids;
	char *killf;
	int n, i;

	if (!cg || !cg->path)
		return -1;
	pids = xmalloc(sizeof(*pids) * CG_PIDS_MAX);
	n = read_pids(cg->path, pids, CG_PIDS_MAX);
	if (n < 0)
		goto out;
	if (n == 0)
		goto out;
	killf = path_join(cg->path, "cgroup.kill");
	cg->killed = 1;
	/* cgroup.kill (Linux 5.14) also catches processes forked while we kill. */
	if (write_quiet(killf, "1") < 0) {
		for (i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
	}
	free(killf);
out:
	free(pids);
	return n;
}

/* Removes the directory, retrying briefly while it empties: 0, or -1 with errno. */
static int cgroup_release_checked(struct cgroup *cg)
{
	int64_t deadline;
	int ret = 0;

	if (!cg || !cg->path)
		return 0;
	deadline = mono_ns() + RELEASE_WAIT_NS;
	/*
	 * A group whose last process was just killed stays busy until the
	 * kernel has finished tearing that process down: retry briefly.
	 */
	while ((ret = rmdir(cg->path)) < 0) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		if (errno != EBUSY || mono_ns() >= deadline)
			break;
		nanosleep(&ts, NULL);
	}
	free(cg->path);
	cg->path = NULL;
	return ret;
}

void cgroup_release(struct cgroup *cg)
{
	(void)cgroup_release_checked(cg);
}

/* Removes the kept group at exit (in the process that kept it: not in a child's exit()). */
static void drop_kept(void)
{
	struct cgroup cg = CGROUP_INIT;

	if (!kept.path || kept.owner != getpid())
		return;
	cg.path = kept.path;
	kept.path = NULL;
	cgroup_kill_all(&cg);
	(void)cgroup_release_checked(&cg);
}

void cgroup_done(struct cgroup *cg, int empty)
{
	static int registered;
	int64_t ns;

	if (!cg || !cg->path)
		return;
	if (!empty || cg->killed || kept.path || gives_peak(cg) ||
	    (ns = read_cpu_usage_ns(cg->path)) < 0) {
		cgroup_release(cg);
		return;
	}
	if (!registered && atexit(drop_kept) != 0) {
		cgroup_release(cg);
		return;
	}
	registered = 1;
	kept.path = cg->path;
	kept.cpu_ns = ns;
	kept.owner = getpid();
	cg->path = NULL;
}
