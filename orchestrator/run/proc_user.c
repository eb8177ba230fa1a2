/*
 * proc_user: `run_as` for proc. The user is looked up once (getpwnam,
 * getgrouplist: its groups as initgroups() would set them) and kept here
 * for every child proc_run() starts; the child switches to it with raw
 * system calls before exec (proc_user_switch()). It also hands a run
 * directory to that user and back, the only place abev changes an owner.
 * It decides nothing about plans: the plan names the user, the runner
 * says which directories its children may write.
 */
#include "run/proc.h"
#include "run/proc_user.h"
#include "util/alloc.h"
#include "util/dirat.h"
#include "util/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Supplementary groups of one user: the kernel's own limit (NGROUPS_MAX) is 65536. */
#define USER_GROUPS_MAX 65536

static struct proc_user run_as = PROC_USER_INIT;
static int run_as_set;

int proc_user_lookup(struct proc_user *u, const char *name)
{
	struct passwd *pw;
	int n = 64;

	proc_user_release(u);
	if (!name || !*name)
		return -1;
	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		return -1;
	u->name = xstrdup(name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	for (;;) {
		int want = n;
		u->groups = xrealloc(u->groups, (size_t)n * sizeof(*u->groups));
		if (getgrouplist(name, pw->pw_gid, u->groups, &n) >= 0)
			break;
		if (n <= want)
			n = want * 2;
		if (n > USER_GROUPS_MAX) {
			n = 1;
			u->groups[0] = pw->pw_gid;
			break;
		}
	}
	u->ngroups = n;
	return 0;
}

void proc_user_release(struct proc_user *u)
{
	if (!u)
		return;
	free(u->name);
	free(u->groups);
	*u = (struct proc_user)PROC_USER_INIT;
}

int proc_run_as(const struct proc_user *u)
{
	if (!u) {
		if (run_as_set)
			umask(run_as.umask);
		proc_user_release(&run_as);
		run_as_set = 0;
		return 0;
	}
	if (geteuid() != 0)
		return error("run_as '%s': abev must run as root to run its commands as another "
			     "user (it runs as uid %ld); drop run_as, or start abev as root",
			     u->name, (long)geteuid());
	{
		mode_t mask = run_as.umask;

		proc_user_release(&run_as);
		run_as.umask = mask;
	}
	run_as.name = xstrdup(u->name);
	run_as.uid = u->uid;
	run_as.gid = u->gid;
	run_as.ngroups = u->ngroups;
	run_as.groups = xcalloc(u->ngroups > 0 ? (size_t)u->ngroups : 1, sizeof(*run_as.groups));
	if (u->ngroups > 0)
		memcpy(run_as.groups, u->groups, (size_t)u->ngroups * sizeof(*u->groups));
	/* What abev writes meanwhile is not the user's to read; the user's children keep theirs. */
	run_as.umask = run_as_set ? run_as.umask : umask(077);
	run_as_set = 1;
	return 0;
}

const struct proc_user *proc_run_as_user(void)
{
	return run_as_set ? &run_as : NULL;
}

/* The owner of the directory open as fd set to uid:gid; dir names it in messages. */
static int chown_dir(int fd, const char *dir, uid_t uid, gid_t gid)
{
	if (fchown(fd, uid, gid) < 0)
		return error("cannot give '%s' to uid %ld: %s", dir, (long)uid, strerror(errno));
	return 0;
}

int proc_run_as_grant(int fd, const char *dir)
{
	if (!run_as_set)
		return 0;
	return chown_dir(fd, dir, run_as.uid, run_as.gid);
}

/* S_IXOTH on the directory open as fd, when abev owns it. 0 or -1 after error(). */
static int let_through(int fd, const char *name)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return error("cannot stat '%s': %s", name, strerror(errno));
	if (st.st_uid != geteuid() || (st.st_mode & S_IXOTH))
		return 0;
	if (fchmod(fd, (st.st_mode & 07777) | S_IXOTH) < 0)
		return error("cannot let user '%s' through '%s': %s", run_as.name, name,
			     strerror(errno));
	return 0;
}

int proc_run_as_reach(const struct dirat *root, const char *rel)
{
	char *path, *part, *slash;
	int fd, ret = -1;

	if (!run_as_set)
		return 0;
	if (let_through(root->fd, root->path) < 0)
		return -1;
	fd = dup(root->fd);
	if (fd < 0)
		return error("cannot open '%s': %s", root->path, strerror(errno));
	path = xstrdup(rel);
	/* Every component but the last: the run directory itself is granted, not passed. */
	for (part = path; (slash = strchr(part, '/')) != NULL; part = slash + 1) {
		int next;
		if (slash == part)
			continue;
		*slash = '\0';
		next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			error("cannot open '%s/%s': %s", root->path, path, strerror(errno));
			goto out;
		}
		close(fd);
		fd = next;
		if (let_through(fd, path) < 0)
			goto out;
		*slash = '/';
	}
	ret = 0;
out:
	close(fd);
	free(path);
	return ret;
}

int proc_run_as_revoke(int fd, const char *dir)
{
	if (!run_as_set)
		return 0;
	return chown_dir(fd, dir, geteuid(), getegid());
}

int proc_user_switch(const struct proc_user *u)
{
	/* Groups first: after setuid() the process may no longer change them. */
	if (syscall(SYS_setgroups, (size_t)u->ngroups, u->groups) < 0)
		return -1;
	if (syscall(SYS_setresgid, u->gid, u->gid, u->gid) < 0)
		return -1;
	if (syscall(SYS_setresuid, u->uid, u->uid, u->uid) < 0)
		return -1;
	umask(u->umask);
	return 0;
}
