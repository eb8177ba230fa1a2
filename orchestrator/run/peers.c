/*
 * peers: the lock directory. A run's file is made under a hidden name,
 * locked, filled and only then renamed to <pid>.run, so that no other
 * run ever finds it unlocked and takes it for a dead one's. Its one line
 * is "<ticket> <W|R> <evidence dir>"; the state byte sits at a fixed
 * offset and is switched with a one-byte pwrite(). flock() locks belong
 * to the open file, not the name, and go when the process dies — however
 * it dies — so a dead run never looks alive.
 */
#define _GNU_SOURCE
#include "peers.h"

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
#include <unistd.h>

#include "util.h"

/* "%20" PRId64 " " then the state byte. */
#define STATE_OFFSET 21
/* Bytes of a peer's file read. */
#define PEER_FILE_MAX 4200
/* Bytes of "events" read at once when it grew. */
#define EVENTS_READ_MAX 4096
/* Peers looked at per look (files past it are ignored). */
#define PEERS_MAX 256

/* A usable lock directory: ours to create, or an existing real directory. */
static int use_dir(const char *dir, char **why)
{
	struct stat sb;

	if (mkdir(dir, 01777) == 0) {
		/* mkdir() is subject to the umask; every user's runs must meet here. */
		if (chmod(dir, 01777) < 0) {
			*why = xasprintf("cannot make '%s' shared: %s", dir, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (errno != EEXIST) {
		*why = xasprintf("cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		*why = xasprintf("'%s' is not a directory", dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		*why = xasprintf("cannot write in '%s': %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static char *pick_dir(char **why)
{
	const char *env = getenv("ABEV_LOCK_DIR");
	const char *tmp = getenv("TMPDIR");
	char *dir;
	struct stat sb;

	if (env && *env) {
		if (use_dir(env, why) < 0)
			return NULL;
		return xstrdup(env);
	}
	if (stat("/run/lock", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/run/lock", W_OK) == 0) {
		char *ignored = NULL;
		if (use_dir("/run/lock/abev", &ignored) == 0)
			return xstrdup("/run/lock/abev");
		free(ignored);
	}
	dir = path_join(tmp && *tmp == '/' ? tmp : "/tmp", "abev-lock");
	if (use_dir(dir, why) < 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

void peers_join(struct peers *p, const char *evidence_dir)
{
	char *why = NULL, *tmp = NULL, *line = NULL;
	int fd = -1;

	*p = (struct peers)PEERS_INIT;
	p->ticket = mono_ns();
	p->dir = pick_dir(&why);
	if (!p->dir)
		goto fail;
	tmp = xasprintf("%s/.%ld.tmp", p->dir, (long)getpid());
	p->path = xasprintf("%s/%ld.run", p->dir, (long)getpid());
	unlink(tmp);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		why = xasprintf("cannot create '%s': %s", tmp, strerror(errno));
		goto fail;
	}
	line = xasprintf("%20" PRId64 " W %s\n", p->ticket, evidence_dir);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || write_all(fd, line, strlen(line)) < 0 ||
	    rename(tmp, p->path) < 0) {
		why = xasprintf("cannot register in '%s': %s", p->dir, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	p->fd = fd;
	free(tmp);
	free(line);
	return;
fail:
	if (fd >= 0)
		close(fd);
	p->note = xasprintf("other abev runs on this host cannot be seen: %s",
			    why ? why : "no lock directory");
	free(why);
	free(tmp);
	free(line);
	free(p->dir);
	free(p->path);
	p->dir = p->path = NULL;
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
	char buf[PEER_FILE_MAX + 1], *path, *end, *nl;
	long pid;
	int fd, ret = -1;
	ssize_t n;

	errno = 0;
	pid = strtol(name, &end, 10);
	if (pid <= 0 || errno || strcmp(end, ".run") != 0 || pid == (long)getpid())
		return -1;
	path = path_join(p->dir, name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		/* Nobody holds it: its run is dead. A sticky directory may refuse: fine. */
		unlink(path);
		ret = 0;
		goto out;
	}
	if (errno != EWOULDBLOCK)
		goto out;
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
	free(path);
	return ret;
}

/* Every other live run; dead ones' files are removed on the way. */
static size_t list_peers(struct peers *p, struct peer_entry **out)
{
	struct peer_entry *list = NULL;
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	*out = NULL;
	if (!p->dir)
		return 0;
	d = opendir(p->dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < PEERS_MAX) {
		struct peer_entry e;
		if (!isdigit((unsigned char)de->d_name[0]) || read_peer(p, de->d_name, &e) != 1)
			continue;
		list = xrealloc(list, (n + 1) * sizeof(*list));
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

static char *events_path(const struct peers *p)
{
	return path_join(p->dir, "events");
}

void peers_start(struct peers *p)
{
	char *path, line[32];
	struct peer_entry *list;
	size_t n;
	int fd;

	if (!p->dir || p->running)
		return;
	p->running = 1;
	if (pwrite(p->fd, "R", 1, STATE_OFFSET) != 1)
		warning("cannot mark '%s' as running: %s", p->path, strerror(errno));
	path = events_path(p);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		free(p->note);
		p->note = xasprintf("cannot append to '%s' (%s): another abev run that starts and "
				    "ends within one invocation is not seen",
				    path, strerror(errno));
		free(path);
		return;
	}
	/* Whoever made it, every user's runs append to it (the umask took 0666 apart). */
	(void)fchmod(fd, 0666);
	/* Alone on the host: nobody compares against the old events; start them afresh. */
	n = list_peers(p, &list);
	free_peers(list, n);
	/* A failure is harmless: only growth is compared, and appending still works. */
	if (!n)
		(void)!ftruncate(fd, 0);
	snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (write_all(fd, line, strlen(line)) < 0)
		warning("cannot append to '%s': %s", path, strerror(errno));
	close(fd);
	free(path);
}

void peers_look_now(struct peers *p, struct peers_look *out)
{
	struct peer_entry *list;
	struct stat sb;
	size_t n;
	char *path;

	*out = (struct peers_look)PEERS_LOOK_INIT;
	if (!p->dir)
		return;
	path = events_path(p);
	if (stat(path, &sb) == 0)
		out->events = (uint64_t)sb.st_size;
	free(path);
	n = list_peers(p, &list);
	for (size_t i = 0; i < n; i++) {
		if (!list[i].running)
			continue;
		out->running = xrealloc(out->running, (out->nrunning + 1) * sizeof(*out->running));
		out->running[out->nrunning++] = peer_hit(&list[i]);
	}
	free_peers(list, n);
}

void peers_look_release(struct peers_look *l)
{
	if (!l)
		return;
	overlap_hits_free(l->running, l->nrunning);
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
	char buf[EVENTS_READ_MAX + 1], *path = events_path(p), *s;
	size_t len = to - from > EVENTS_READ_MAX ? EVENTS_READ_MAX : (size_t)(to - from);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, len, (off_t)from);
	int named = 0;

	if (fd >= 0)
		close(fd);
	free(path);
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
	if (p->path)
		unlink(p->path);
	if (p->fd >= 0)
		close(p->fd);
	free(p->dir);
	free(p->path);
	free(p->note);
	*p = (struct peers)PEERS_INIT;
}
