/*
 * overlap: looks through /proc for processes whose command line matches
 * load.exclusive, leaving out abev's own tree. abev is a child subreaper,
 * so whatever the child starts — even a daemon that detaches — stays its
 * descendant, and the parent chain tells the child's processes from
 * foreign ones. A scan reads one cmdline file per process and a stat
 * file per match: it only happens when the plan sets load.exclusive.
 */
#include "measure/overlap.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/escape.h"
#include "util/readfile.h"
#include "util/strbuf.h"

/* Bytes of a command line read to match against. */
#define CMDLINE_READ_MAX 4096
/* Steps up the parent chain before giving up (pid_max is at most 2^22). */
#define ANCESTRY_MAX 4096


void overlap_watch_init(struct overlap_watch *w, const char *const *patterns, size_t n)
{
	*w = (struct overlap_watch)OVERLAP_WATCH_INIT;
	w->patterns = patterns;
	w->npatterns = n;
	w->self = getpid();
}


void overlap_watch_release(struct overlap_watch *w)
{
	if (!w)
		return;
	overlap_hit_list_free(w->hits, w->nhits);
	w->hits = NULL;
	w->nhits = w->hits_alloc = 0;
	w->unnamed = 0;
}

/* The raw cmdline (NUL-separated) with NULs made spaces; its length, or -1. */
static ssize_t read_cmdline(long pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	n = read_head(path, buf, size);
	if (n <= 0)
		return -1;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n' || buf[i] == '\t')
			buf[i] = ' ';
	buf[n] = '\0';
	return n;
}

/*
 * A command line read by read_cmdline() as the evidence keeps it: escaped
 * as every outside name abev shows (control bytes and invalid UTF-8 as
 * \xNN), so that the evidence stays valid JSON text, and cut between
 * characters at OVERLAP_COMMAND_MAX bytes.
 */
static char *command_shown(const char *cmd, size_t n)
{
	char shown[OVERLAP_COMMAND_MAX + 1];

	return xstrdup(show_text(shown, sizeof(shown), cmd, n));
}

char *overlap_command_line(long pid)
{
	char buf[CMDLINE_READ_MAX];
	ssize_t n = read_cmdline(pid, buf, sizeof(buf));

	return n > 0 ? command_shown(buf, (size_t)n) : NULL;
}

/* The parent of pid from /proc/PID/stat (after the last ')'), or -1. */
static long parent_of(long pid)
{
	char path[64], buf[1024];
	const char *p;
	long ppid;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	n = read_head(path, buf, sizeof(buf));
	if (n <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return ppid;
}

/* 1: pid is self or descends from it; 0: it does not; -1: unknown (gone). */
static int in_own_tree(long pid, long self)
{
	for (unsigned i = 0; i < ANCESTRY_MAX; i++) {
		if (pid == self)
			return 1;
		if (pid <= 1)
			return 0;
		pid = parent_of(pid);
		if (pid < 0)
			return -1;
	}
	return -1;
}

/*
 * The pattern cmd matches, as written or with the program's directory
 * left out ("dotnet test*" matches "/usr/bin/dotnet test x.dll").
 */
static const char *match_pattern(const struct overlap_watch *w, const char *cmd)
{
	const char *space = strchr(cmd, ' ');
	const char *slash = NULL;

	for (const char *p = cmd; *p && p != space; p++)
		if (*p == '/')
			slash = p;
	for (size_t i = 0; i < w->npatterns; i++) {
		if (fnmatch(w->patterns[i], cmd, 0) == 0)
			return w->patterns[i];
		if (slash && fnmatch(w->patterns[i], slash + 1, 0) == 0)
			return w->patterns[i];
	}
	return NULL;
}

/* Whether a process of that kind and pid is named already (pid 0 never is). */
static int seen(const struct overlap_watch *w, enum overlap_kind kind, long pid)
{
	for (size_t i = 0; pid && i < w->nhits; i++)
		if (w->hits[i].kind == kind && w->hits[i].pid == pid)
			return 1;
	return 0;
}

void overlap_watch_add(struct overlap_watch *w, struct overlap_hit *hit)
{
	if (seen(w, hit->kind, hit->pid)) {
		overlap_hit_release(hit);
		return;
	}
	if (w->nhits >= OVERLAP_HITS_MAX) {
		w->unnamed++;
		overlap_hit_release(hit);
		return;
	}
	ALLOC_GROW(w->hits, w->nhits + 1, w->hits_alloc);
	w->hits[w->nhits++] = *hit;
	memset(hit, 0, sizeof(*hit));
}

void overlap_watch_scan(struct overlap_watch *w)
{
	char buf[CMDLINE_READ_MAX];
	struct dirent *de;
	DIR *d;

	if (!w->npatterns)
		return;
	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *pattern;
		char *end;
		ssize_t n;
		long pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		errno = 0;
		pid = strtol(de->d_name, &end, 10);
		if (*end || errno || pid <= 0 || pid == (long)w->self || seen(w, OVERLAP_EXCLUSIVE, pid))
			continue;
		n = read_cmdline(pid, buf, sizeof(buf));
		if (n <= 0)
			continue;
		pattern = match_pattern(w, buf);
		if (!pattern || in_own_tree(pid, (long)w->self) != 0)
			continue;
		{
			/* The command line just matched: the one the evidence names. */
			struct overlap_hit hit = {
				.kind = OVERLAP_EXCLUSIVE,
				.pid = pid,
				.command = command_shown(buf, (size_t)n),
				.pattern = xstrdup(pattern),
			};
			overlap_watch_add(w, &hit);
		}
	}
	closedir(d);
}

void overlap_watch_take(struct overlap_watch *w, struct overlap_hit **hits, size_t *n,
			unsigned *unnamed)
{
	*hits = w->hits;
	*n = w->nhits;
	*unnamed = w->unnamed;
	w->hits = NULL;
	w->nhits = w->hits_alloc = 0;
	w->unnamed = 0;
}

char *overlap_describe(const struct overlap_hit *hits, size_t n, unsigned unnamed)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const struct overlap_hit *h = &hits[i];

		strbuf_adds(&sb, i ? "; " : "overlapped ");
		if (h->kind == OVERLAP_EXCLUSIVE) {
			strbuf_addf(&sb, "pid %ld '%s' (load.exclusive '%s')", h->pid,
				    h->command ? h->command : "?", h->pattern ? h->pattern : "?");
		} else if (h->pid) {
			strbuf_addf(&sb, "another abev run on this host (pid %ld", h->pid);
			if (h->evidence)
				strbuf_addf(&sb, ", writing '%s'", h->evidence);
			strbuf_adds(&sb, ")");
		} else {
			strbuf_adds(&sb, "another abev run that started and ended meanwhile");
		}
	}
	if (unnamed)
		strbuf_addf(&sb, "; and %u more", unnamed);
	return strbuf_detach(&sb, NULL);
}
