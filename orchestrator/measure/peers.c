/*
 * peers: the lock directory. A run's file is made under a hidden name,
 * locked, filled and only then renamed to <pid>.run, so that no other
 * run ever finds it unlocked and takes it for a dead one's. Its one line
 * is "<ticket> <W|R> <evidence dir>"; the state byte sits at a fixed
 * offset and is switched with a one-byte pwrite(). flock() locks belong
 * to the open file, not the name, and go when the process dies — however
 * it dies — so a dead run never looks alive.
 *
 * Every local user can write in the lock directory, so whatever stands
 * there may have been planted: the directory is opened once, without
 * following a link, and every file in it is reached from that descriptor,
 * never through a link, and read only when it is a regular file, opened
 * non-blocking (a FIFO named "events" or "<pid>.run" cannot hang a run).
 */
#include "measure/peers.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/clock.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

/* "%20" PRId64 " " then the state byte. */
#define STATE_OFFSET 21
/* Bytes of a peer's file read. */
#define PEER_FILE_MAX 4200
/* Bytes of "events" read at once when it grew. */
#define EVENTS_READ_MAX 4096
/* Peers looked at per look (files past it are ignored). */
#define PEERS_MAX 256
#define ABEV_LOCK_DIR_ENV "ABEV_LOCK_DIR"
/* The file every run appends its pid to when it starts to run. */
#define EVENTS_NAME "events"

/*
 * Why the lock directory dir, open as st describes, may not be shared, or
 * NULL. Anyone who can write in a directory without the sticky bit can
 * remove or replace the files of the runs in it.
 */
static char *unsafe_dir(const char *dir, const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return xasprintf("'%s' is not a directory", dir);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return xasprintf("'%s' (owner uid %ld, mode %04o) lets others write in it without "
				 "the sticky bit, so they could remove or replace this run's files: "
				 "not used (remove it, or chmod 1777 it)",
				 dir, (long)st->st_uid, (unsigned)(st->st_mode & 07777));
	return NULL;
}

/*
 * Opens the lock directory dir, creating it (mode 1777) when it is
 * missing. A descriptor, or -1 with *why set; *found says that something
 * stands at dir that was refused (a symbolic link, a file, a directory
 * others could tamper with), as opposed to a dir that cannot be made.
 */
static int open_dir(const char *dir, char **why, int *found)
{
	struct stat sb;
	int created = 0, fd;

	*found = 0;
	if (mkdir(dir, 01777) == 0)
		created = 1;
	else if (errno != EEXIST) {
		*why = xasprintf("cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	/* Not followed: in a shared /run/lock anyone could plant a link where the directory goes. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		*found = e == ELOOP || e == ENOTDIR;
		if (lstat(dir, &sb) == 0 && S_ISLNK(sb.st_mode))
			*why = xasprintf("'%s' is a symbolic link (owner uid %ld), not a directory: not "
					 "followed, as anyone could have planted it (remove it, or set "
					 ABEV_LOCK_DIR_ENV ")", dir, (long)sb.st_uid);
		else if (e == ENOTDIR)
			*why = xasprintf("'%s' is not a directory", dir);
		else
			*why = xasprintf("cannot open '%s': %s", dir, strerror(e));
		return -1;
	}
	if (fstat(fd, &sb) < 0) {
		*why = xasprintf("cannot stat '%s': %s", dir, strerror(errno));
		goto fail;
	}
	/* mkdir() is subject to the umask; every user's runs must meet here. */
	if (created && sb.st_uid == geteuid() && fchmod(fd, 01777) == 0)
		sb.st_mode |= 01777;
	*why = unsafe_dir(dir, &sb);
	if (*why) {
		*found = 1;
		goto fail;
	}
	if (faccessat(fd, ".", W_OK | X_OK, 0) < 0) {
		*why = xasprintf("cannot write in '%s': %s", dir, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * The lock directory's descriptor and its path in *dir (caller frees), or
 * -1 with *why. /run/lock/abev, when something is refused there, is not
 * traded for the fallback: the runs that use the fallback would not see
 * the others, and the note says why neither are seen.
 */
static int pick_dir(char **dir, char **why)
{
	const char *env = getenv(ABEV_LOCK_DIR_ENV);
	const char *tmp = getenv("TMPDIR");
	struct stat sb;
	int fd, found;

	*dir = NULL;
	if (env && *env) {
		fd = open_dir(env, why, &found);
		if (fd >= 0)
			*dir = xstrdup(env);
		return fd;
	}
	if (stat("/run/lock", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/run/lock", W_OK) == 0) {
		fd = open_dir("/run/lock/abev", why, &found);
		if (fd >= 0) {
			*dir = xstrdup("/run/lock/abev");
			return fd;
		}
		if (found)
			return -1;
		free(*why);
		*why = NULL;
	}
	*dir = path_join(tmp && *tmp == '/' ? tmp : "/tmp", "abev-lock");
	fd = open_dir(*dir, why, &found);
	if (fd < 0) {
		free(*dir);
		*dir = NULL;
	}
	return fd;
}

/*
 * "events", opened once for appending and reading: a regular file only
 * (not followed, never blocking on a FIFO) with no other name (a hard
 * link planted there would have abev append to, and truncate, whatever
 * file it names). Made 0666 only when this run created it: an existing
 * file's mode is never changed. -1 with *why set.
 */
static int open_events(struct peers *p, char **why)
{
	struct stat sb;
	int created = 1;
	int fd = openat(p->dfd, EVENTS_NAME, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_NONBLOCK | O_CLOEXEC, 0666);

	if (fd < 0 && errno == EEXIST) {
		created = 0;
		fd = openat(p->dfd, EVENTS_NAME, O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
			    O_CLOEXEC);
	}

	if (fd < 0 && errno == ELOOP) {
		*why = xasprintf("'%s/" EVENTS_NAME "' is a symbolic link: not followed", p->dir);
		return -1;
	}
	if (fd < 0) {
		*why = xasprintf("cannot open '%s/" EVENTS_NAME "': %s", p->dir, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) < 0) {
		*why = xasprintf("cannot stat '%s/" EVENTS_NAME "': %s", p->dir, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		*why = xasprintf("'%s/" EVENTS_NAME "' is not a regular file (owner uid %ld): not used",
				 p->dir, (long)sb.st_uid);
		close(fd);
		return -1;
	}
	if (sb.st_nlink != 1) {
		*why = xasprintf("'%s/" EVENTS_NAME "' has %lu names (a hard link, owner uid %ld): "
				 "not used, as it could be anyone's file (remove it)",
				 p->dir, (unsigned long)sb.st_nlink, (long)sb.st_uid);
		close(fd);
		return -1;
	}
	/* Every user's runs append to it (the umask took 0666 apart): only when made here. */
	if (created)
		(void)fchmod(fd, 0666);
	p->events_own = sb.st_uid == geteuid();
	return fd;
}

void peers_join(struct peers *p, const char *evidence_dir)
{
	char *why = NULL, *line = NULL;
	char tmp[32], name[32];
	int fd = -1;

	*p = (struct peers)PEERS_INIT;
	p->ticket = mono_ns();
	p->dfd = pick_dir(&p->dir, &why);
	if (p->dfd < 0)
		goto fail;
	snprintf(tmp, sizeof(tmp), ".%ld.tmp", (long)getpid());
	snprintf(name, sizeof(name), "%ld.run", (long)getpid());
	p->path = path_join(p->dir, name);
	unlinkat(p->dfd, tmp, 0);
	fd = openat(p->dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		why = xasprintf("cannot create '%s/%s': %s", p->dir, tmp, strerror(errno));
		goto fail;
	}
	line = xasprintf("%20" PRId64 " W %s\n", p->ticket, evidence_dir);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || write_all(fd, line, strlen(line)) < 0 ||
	    renameat(p->dfd, tmp, p->dfd, name) < 0) {
		why = xasprintf("cannot register in '%s': %s", p->dir, strerror(errno));
		unlinkat(p->dfd, tmp, 0);
		goto fail;
	}
	p->fd = fd;
	free(line);
	p->events_fd = open_events(p, &why);
	if (p->events_fd < 0) {
		p->note = xasprintf("another abev run that starts and ends within one invocation "
				    "is not seen: %s", why);
		warning("%s", p->note);
		free(why);
	}
	return;
fail:
	if (fd >= 0)
		close(fd);
	if (p->dfd >= 0)
		close(p->dfd);
	p->note = xasprintf("other abev runs on this host cannot be seen: %s",
			    why ? why : "no lock directory");
	warning("%s", p->note);
	free(why);
	free(line);
	free(p->dir);
	free(p->path);
	p->dir = p->path = NULL;
	p->dfd = -1;
}

/*
 * Whether the file sb (in the lock directory, another user's) is what it
 * says: a live run of abev (its process's name) of the file's owner (the
 * process's effective uid), holding the file's lock (/proc/locks names
 * the process and the file's device and inode). Another user's file is
 * trusted no further: without this, any local user could hold a lock on
 * a fake <pid>.run and stall every other user's abev. A process that
 * calls itself abev and holds such a lock still passes: --wait-max
 * bounds the wait.
 */
static int foreign_peer_verified(long pid, const struct stat *sb)
{
	char path[64], line[256];
	unsigned long uid[4];
	int uid_ok = 0, name_ok = 0, lock_ok = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu %lu %lu %lu", &uid[0], &uid[1], &uid[2], &uid[3]) == 4)
			uid_ok = uid[1] == (unsigned long)sb->st_uid;
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	f = fopen(path, "re");
	if (f && fgets(line, sizeof(line), f))
		name_ok = !strncmp(line, "abev", 4);
	if (f)
		fclose(f);
	/* "1: FLOCK  ADVISORY  WRITE 4711 00:2c:123456 0 EOF": the lock's process, device, inode. */
	f = fopen("/proc/locks", "re");
	while (f && !lock_ok && fgets(line, sizeof(line), f)) {
		char kind[16];
		long holder;
		unsigned maj, min;
		unsigned long long ino;

		if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", kind, &holder, &maj, &min,
			   &ino) == 5)
			lock_ok = !strcmp(kind, "FLOCK") && holder == pid &&
				  ino == (unsigned long long)sb->st_ino &&
				  makedev(maj, min) == sb->st_dev;
	}
	if (f)
		fclose(f);
	return uid_ok && name_ok && lock_ok;
}

/* What another user's file that is no verified peer made this run ignore: said once. */
static void ignored(struct peers *p, const char *name, const struct stat *sb)
{
	if (p->ignored++)
		return;
	free(p->ignored_note);
	p->ignored_note = xasprintf("the lock directory '%s' holds '%s' of uid %ld, which is no "
				    "abev run of that user holding the file's lock (its process "
				    "is another program, another user's, or gone): ignored, as is "
				    "every such file", p->dir, name, (long)sb->st_uid);
	warning("%s", p->ignored_note);
}

/* One other run's file, read while it is locked. */
struct peer_entry {
	long pid;
	int64_t ticket;
	int running;
	char *evidence;
};

/*
 * Reads the peer file name (in p->dir): 1 alive (e filled), 0 dead (the
 * file is removed), -1 not a peer file or unreadable.
 */
static int read_peer(struct peers *p, const char *name, struct peer_entry *e)
{
	char buf[PEER_FILE_MAX + 1], *end, *nl;
	struct stat sb;
	long pid;
	int fd, ret = -1;
	ssize_t n;

	errno = 0;
	pid = strtol(name, &end, 10);
	if (pid <= 0 || errno || strcmp(end, ".run") != 0 || pid == (long)getpid())
		return -1;
	/* Anyone can put a file here: a link is not followed, and only a regular file is read. */
	fd = openat(p->dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))
		goto out;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		/* Nobody holds it: its run is dead. A sticky directory may refuse: fine. */
		unlinkat(p->dfd, name, 0);
		ret = 0;
		goto out;
	}
	if (errno != EWOULDBLOCK)
		goto out;
	if (sb.st_uid != geteuid() && !foreign_peer_verified(pid, &sb)) {
		ignored(p, name, &sb);
		goto out;
	}
	n = pread(fd, buf, PEER_FILE_MAX, 0);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	/* Unreadable or half-written: taken as running, the safe side. */
	e->running = 1;
	if (n > STATE_OFFSET + 1) {
		e->running = buf[STATE_OFFSET] != 'W';
		if (sscanf(buf, "%" SCNd64, &e->ticket) != 1)
			e->ticket = 0;
		nl = strchr(buf + STATE_OFFSET + 2, '\n');
		if (nl)
			*nl = '\0';
		e->evidence = xstrdup(buf + STATE_OFFSET + 2);
	}
	ret = 1;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Every other live run; dead ones' files are removed on the way. */
static size_t list_peers(struct peers *p, struct peer_entry **out)
{
	struct peer_entry *list = NULL;
	struct dirent *de;
	size_t n = 0, alloc = 0;
	DIR *d;
	int fd;

	*out = NULL;
	if (p->dfd < 0)
		return 0;
	fd = openat(p->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)) && n < PEERS_MAX) {
		struct peer_entry e;
		if (!isdigit((unsigned char)de->d_name[0]) || read_peer(p, de->d_name, &e) != 1)
			continue;
		ALLOC_GROW(list, n + 1, alloc);
		list[n++] = e;
	}
	closedir(d);
	*out = list;
	return n;
}

static void free_peers(struct peer_entry *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i].evidence);
	free(list);
}

static struct overlap_hit peer_hit(const struct peer_entry *e)
{
	struct overlap_hit h = { .kind = OVERLAP_ABEV, .pid = e->pid };

	h.command = overlap_command_line(e->pid);
	h.evidence = e->evidence && *e->evidence ? xstrdup(e->evidence) : NULL;
	return h;
}

int peers_blocker(struct peers *p, struct overlap_hit *who)
{
	struct peer_entry *list;
	size_t n = list_peers(p, &list);
	int found = 0;

	for (size_t i = 0; i < n && !found; i++) {
		const struct peer_entry *e = &list[i];
		if (e->running || e->ticket < p->ticket ||
		    (e->ticket == p->ticket && e->pid < (long)getpid())) {
			*who = peer_hit(e);
			found = 1;
		}
	}
	free_peers(list, n);
	return found;
}

void peers_start(struct peers *p)
{
	struct peer_entry *list;
	char line[32];
	size_t n;

	if (!p->dir || p->running)
		return;
	p->running = 1;
	if (pwrite(p->fd, "R", 1, STATE_OFFSET) != 1)
		warning("cannot mark '%s' as running: %s", p->path, strerror(errno));
	if (p->events_fd < 0)
		return;
	/* Alone on the host: nobody compares against the old events; start them afresh. */
	n = list_peers(p, &list);
	free_peers(list, n);
	/* A failure is harmless: only growth is compared, and appending still works. */
	if (!n && p->events_own)
		(void)!ftruncate(p->events_fd, 0);
	snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (write_all(p->events_fd, line, strlen(line)) < 0)
		warning("cannot append to '%s/" EVENTS_NAME "': %s", p->dir, strerror(errno));
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/*
 * Whether a look can stand on the last one without listing the lock
 * directory (twice per invocation otherwise): that look found no other
 * run at all, no file came or went since (the directory's times), and
 * no run started since (every run appends to "events" as it starts, in
 * peers_start(), which leaves the directory's times alone). dir: the
 * directory's stat now.
 */
static int still_quiet(const struct peers *p, const struct stat *dir, uint64_t events)
{
	return p->quiet && events != UINT64_MAX && events == p->quiet_events &&
	       same_time(&dir->st_mtim, &p->quiet_mtime) &&
	       same_time(&dir->st_ctim, &p->quiet_ctime);
}

void peers_look_now(struct peers *p, struct peers_look *out)
{
	struct peer_entry *list;
	struct stat sb, dir;
	int have_dir;
	size_t n;

	*out = (struct peers_look)PEERS_LOOK_INIT;
	if (!p->dir)
		return;
	if (p->events_fd >= 0 && fstat(p->events_fd, &sb) == 0)
		out->events = (uint64_t)sb.st_size;
	have_dir = fstat(p->dfd, &dir) == 0;
	if (have_dir && still_quiet(p, &dir, out->events))
		return;
	n = list_peers(p, &list);
	for (size_t i = 0; i < n; i++) {
		if (!list[i].running)
			continue;
		ALLOC_GROW(out->running, out->nrunning + 1, out->running_alloc);
		out->running[out->nrunning++] = peer_hit(&list[i]);
	}
	free_peers(list, n);
	/*
	 * Alone: no other run at all, so no waiting one that could start, nor
	 * a dead one's file for the next listing to remove. The times are
	 * from before the listing: a change during it is a change since.
	 */
	p->quiet = have_dir && !n && out->events != UINT64_MAX;
	if (p->quiet) {
		p->quiet_mtime = dir.st_mtim;
		p->quiet_ctime = dir.st_ctim;
		p->quiet_events = out->events;
	}
}

void peers_look_release(struct peers_look *l)
{
	if (!l)
		return;
	overlap_hit_list_free(l->running, l->nrunning);
	*l = (struct peers_look)PEERS_LOOK_INIT;
}

static void add_copy(struct overlap_watch *w, const struct overlap_hit *h)
{
	struct overlap_hit c = *h;

	c.command = h->command ? xstrdup(h->command) : NULL;
	c.pattern = NULL;
	c.evidence = h->evidence ? xstrdup(h->evidence) : NULL;
	overlap_watch_add(w, &c);
}

/* The pids appended to "events" between offsets from and to. */
static void events_between(struct peers *p, uint64_t from, uint64_t to, struct overlap_watch *w)
{
	char buf[EVENTS_READ_MAX + 1], *s;
	size_t len = to - from > EVENTS_READ_MAX ? EVENTS_READ_MAX : (size_t)(to - from);
	ssize_t n = p->events_fd < 0 ? -1 : pread(p->events_fd, buf, len, (off_t)from);
	int named = 0;

	buf[n > 0 ? n : 0] = '\0';
	for (s = buf; n > 0 && *s;) {
		char *end;
		long pid = strtol(s, &end, 10);
		if (end == s)
			break;
		if (pid > 0 && pid != (long)getpid()) {
			struct overlap_hit h = { .kind = OVERLAP_ABEV, .pid = pid };
			h.command = overlap_command_line(pid);
			overlap_watch_add(w, &h);
			named = 1;
		}
		s = end + (*end == '\n');
	}
	if (!named) {
		/* It grew, yet names nobody else (truncated meanwhile, or unreadable). */
		struct overlap_hit h = { .kind = OVERLAP_ABEV, .pid = 0 };
		overlap_watch_add(w, &h);
	}
}

void peers_overlap(struct peers *p, const struct peers_look *before,
		   const struct peers_look *after, struct overlap_watch *w)
{
	for (size_t i = 0; i < before->nrunning; i++)
		add_copy(w, &before->running[i]);
	for (size_t i = 0; i < after->nrunning; i++)
		add_copy(w, &after->running[i]);
	if (before->events == after->events || before->events == UINT64_MAX ||
	    after->events == UINT64_MAX)
		return;
	if (after->events < before->events) {
		struct overlap_hit h = { .kind = OVERLAP_ABEV, .pid = 0 };
		overlap_watch_add(w, &h);
		return;
	}
	events_between(p, before->events, after->events, w);
}

void peers_leave(struct peers *p)
{
	if (!p)
		return;
	if (p->path && p->dfd >= 0)
		unlinkat(p->dfd, strrchr(p->path, '/') + 1, 0);
	if (p->fd >= 0)
		close(p->fd);
	if (p->events_fd >= 0)
		close(p->events_fd);
	if (p->dfd >= 0)
		close(p->dfd);
	free(p->dir);
	free(p->path);
	free(p->note);
	free(p->ignored_note);
	*p = (struct peers)PEERS_INIT;
}
