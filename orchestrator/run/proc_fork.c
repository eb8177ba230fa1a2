/*
 * proc_fork: the heap withheld from a fork, and the copy of what the
 * child reads instead. The heap is the brk region: its start is the
 * kernel's start_brk (/proc/self/stat, read once), its end the program
 * break now; both are rounded inwards to pages, so that no page of the
 * program's own data (next to the heap's start) is ever withheld.
 */
#include "run/proc_fork.h"
#include "run/proc.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/usage.h"

/* malloc's ceiling for the heap: anything larger is mapped on its own. */
#define FORK_MMAP_THRESHOLD (32u << 20)
/* /proc/self/stat field of start_brk (proc(5)). */
#define STAT_START_BRK_FIELD 47

static uintptr_t heap_start;   /* 0: unknown, nothing is withheld */

void fork_heap_setup(void)
{
	char buf[2048], *p;
	FILE *f;
	size_t n;
	unsigned long long v = 0;
	int field = 1;

	if (heap_start)
		return;
	(void)mallopt(M_MMAP_THRESHOLD, (int)FORK_MMAP_THRESHOLD);
	f = fopen("/proc/self/stat", "re");
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name (field 2) may hold spaces and parentheses: count from its end. */
	p = strrchr(buf, ')');
	if (!p)
		return;
	field = 2;
	for (; *p && field < STAT_START_BRK_FIELD; p++)
		if (*p == ' ')
			field++;
	if (field == STAT_START_BRK_FIELD && sscanf(p, "%llu", &v) == 1)
		heap_start = (uintptr_t)v;
}

void fork_heap_withhold(int on)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start, end = (uintptr_t)sbrk(0);

	if (!heap_start || end == (uintptr_t)-1)
		return;
	start = (heap_start + page - 1) & ~(page - 1);
	end &= ~(page - 1);
	if (end > start)
		(void)madvise((void *)start, end - start, on ? MADV_DONTFORK : MADV_DOFORK);
}

int fork_heap_holds(const void *p)
{
	uintptr_t end = (uintptr_t)sbrk(0);

	return heap_start && end != (uintptr_t)-1 && (uintptr_t)p >= heap_start &&
	       (uintptr_t)p < end;
}

static size_t strv_bytes(const char *const *v, size_t *n)
{
	size_t bytes = 0;

	*n = 0;
	for (; v && v[*n]; (*n)++)
		bytes += strlen(v[*n]) + 1;
	return bytes;
}

/* Places a copy of v (n strings) at *pos, pointers first; returns the array. */
static char **strv_place(unsigned char **pos, const char *const *v, size_t n)
{
	char **out = (char **)(void *)*pos;

	*pos += (n + 1) * sizeof(char *);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(v[i]) + 1;
		memcpy(*pos, v[i], len);
		out[i] = (char *)*pos;
		*pos += len;
	}
	out[n] = NULL;
	return out;
}

#define ALIGN_UP(x) (((x) + 15) & ~(size_t)15)

int fork_copy_make(struct fork_copy *fc, const char *const *argv, const char *const *envp,
		   const char *const *cands, const char *cwd, const struct proc_user *user)
{
	size_t na, ne, nc, size = 0;
	unsigned char *pos;

	size += ALIGN_UP(strv_bytes(argv, &na) + (na + 1) * sizeof(char *));
	size += ALIGN_UP(strv_bytes(envp, &ne) + (ne + 1) * sizeof(char *));
	size += ALIGN_UP(strv_bytes(cands, &nc) + (nc + 1) * sizeof(char *));
	size += ALIGN_UP(cwd ? strlen(cwd) + 1 : 0);
	if (user)
		size += ALIGN_UP(sizeof(*user)) +
			ALIGN_UP((size_t)(user->ngroups > 0 ? user->ngroups : 0) * sizeof(gid_t));
	fc->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fc->base == MAP_FAILED) {
		fc->base = NULL;
		return error("cannot map %zu bytes for a child's arguments: %s", size,
			     strerror(errno));
	}
	fc->size = size;
	pos = fc->base;
	fc->argv = strv_place(&pos, argv, na);
	pos = (unsigned char *)fc->base + ALIGN_UP((size_t)(pos - (unsigned char *)fc->base));
	fc->envp = strv_place(&pos, envp, ne);
	pos = (unsigned char *)fc->base + ALIGN_UP((size_t)(pos - (unsigned char *)fc->base));
	fc->cands = strv_place(&pos, cands, nc);
	pos = (unsigned char *)fc->base + ALIGN_UP((size_t)(pos - (unsigned char *)fc->base));
	fc->cwd = NULL;
	if (cwd) {
		fc->cwd = (char *)pos;
		memcpy(pos, cwd, strlen(cwd) + 1);
		pos = (unsigned char *)fc->base +
		      ALIGN_UP((size_t)(pos + strlen(cwd) + 1 - (unsigned char *)fc->base));
	}
	fc->user = NULL;
	if (user) {
		fc->user = (struct proc_user *)(void *)pos;
		*fc->user = *user;
		fc->user->name = NULL;
		pos += ALIGN_UP(sizeof(*user));
		fc->user->groups = user->ngroups > 0 ? (gid_t *)(void *)pos : NULL;
		if (user->ngroups > 0)
			memcpy(pos, user->groups, (size_t)user->ngroups * sizeof(gid_t));
	}
	return 0;
}

void fork_copy_release(struct fork_copy *fc)
{
	if (fc->base)
		munmap(fc->base, fc->size);
	*fc = (struct fork_copy)FORK_COPY_INIT;
}
