/*
 * proc_fork: the heap and the libraries withheld from a fork, and the
 * copy of what the child reads instead. The heap is the brk region: its
 * start is the kernel's start_brk (/proc/self/stat, read once), its end
 * the program break now; both are rounded inwards to pages, so that no
 * page of the program's own data (next to the heap's start) is ever
 * withheld. The libraries are the shared objects loaded with abev
 * (dl_iterate_phdr(), once), each as the span of its PT_LOAD segments,
 * but for the ones the child runs: the C library and the loader, the
 * objects that define the calls of child_main() (dladdr(): a library
 * preloaded to intercept one of them stays), sanitizer runtimes and
 * valgrind's preloads. Each withheld object is made never to be
 * unloaded (RTLD_NODELETE), so that its span stays its own. They are
 * withheld only when abev was linked for immediate binding (DF_BIND_NOW,
 * -z now): the child then never asks the loader for a symbol, which would
 * read the withheld objects' tables.
 */
#include "run/proc_fork.h"
#include "run/proc.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/usage.h"

/* malloc's ceiling for the heap: anything larger is mapped on its own. */
#define FORK_MMAP_THRESHOLD (32u << 20)
/* /proc/self/stat field of start_brk (proc(5)). */
#define STAT_START_BRK_FIELD 47

static uintptr_t heap_start;   /* 0: unknown, nothing is withheld */

/* The spans of the libraries withheld, [start, end) in pages. */
struct lib_span {
	uintptr_t start, end;
	const char *name;      /* the loader's, for dlopen() */
};
static struct lib_span *lib_spans;
static size_t lib_nspans, lib_alloc;

/*
 * What child_main() and proc_user_switch() call between fork() and
 * execve(): the objects that define them stay in the child. Keep in step
 * with them.
 */
typedef void (*child_fn)(void);
static const child_fn child_calls[] = {
	(child_fn)sigaction, (child_fn)sigemptyset, (child_fn)sigprocmask, (child_fn)setpgid,
	(child_fn)close, (child_fn)fcntl, (child_fn)chdir, (child_fn)dup2,
	(child_fn)sched_setaffinity, (child_fn)prctl, (child_fn)getppid, (child_fn)syscall,
	(child_fn)read, (child_fn)execve, (child_fn)write, (child_fn)_exit,
	(child_fn)__errno_location, (child_fn)memset, (child_fn)memcpy, (child_fn)umask,
};

/* Objects kept by name: the C library, the loader, the vDSO, sanitizer and valgrind runtimes. */
static const char *const kept_names[] = {
	"libc.so", "ld-linux", "linux-vdso", "libasan", "libubsan", "liblsan", "libtsan",
	"libgcc_s", "vgpreload", "libclang_rt",
};

struct lib_scan {
	uintptr_t keep[ARRAY_SIZE(child_calls)];   /* the load bases of the child's objects */
	int bind_now;                              /* the program was linked with -z now */
};

static int kept_by_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < ARRAY_SIZE(kept_names); i++)
		if (!strncmp(base, kept_names[i], strlen(kept_names[i])))
			return 1;
	return 0;
}

/* Whether the dynamic section at dyn asks for immediate binding. */
static int dyn_bind_now(const ElfW(Dyn) *dyn)
{
	for (; dyn && dyn->d_tag != DT_NULL; dyn++)
		if ((dyn->d_tag == DT_FLAGS && (dyn->d_un.d_val & DF_BIND_NOW)) ||
		    (dyn->d_tag == DT_FLAGS_1 && (dyn->d_un.d_val & DF_1_NOW)) ||
		    dyn->d_tag == DT_BIND_NOW)
			return 1;
	return 0;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct lib_scan *scan = data;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start = UINTPTR_MAX, end = 0;
	int first = !info->dlpi_name || !*info->dlpi_name;
	(void)size;

	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

		if (first && ph->p_type == PT_DYNAMIC && !scan->bind_now)
			scan->bind_now = dyn_bind_now((const ElfW(Dyn) *)s);
		if (ph->p_type != PT_LOAD || !ph->p_memsz)
			continue;
		if ((s & ~(page - 1)) < start)
			start = s & ~(page - 1);
		if (((s + ph->p_memsz + page - 1) & ~(page - 1)) > end)
			end = (s + ph->p_memsz + page - 1) & ~(page - 1);
	}
	/* The program itself (the first object, unnamed) and the objects the child runs stay. */
	if (first || start >= end || kept_by_name(info->dlpi_name))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(scan->keep); i++)
		if (scan->keep[i] == (uintptr_t)info->dlpi_addr)
			return 0;
	ALLOC_GROW(lib_spans, lib_nspans + 1, lib_alloc);
	lib_spans[lib_nspans++] = (struct lib_span){ start, end, info->dlpi_name };
	return 0;
}

/* Finds the spans of the libraries the child does not run. */
static void libs_setup(void)
{
	struct lib_scan scan;

	memset(&scan, 0, sizeof(scan));
	for (size_t i = 0; i < ARRAY_SIZE(child_calls); i++) {
		struct link_map *lm = NULL;
		Dl_info di;
		void *addr;

		/* A function's address as an object pointer, as dladdr() takes it (POSIX). */
		memcpy(&addr, &child_calls[i], sizeof(addr));
		/* A call whose object is not found keeps every library. */
		if (!dladdr1(addr, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
			return;
		scan.keep[i] = (uintptr_t)lm->l_addr;
	}
	dl_iterate_phdr(scan_object, &scan);
	if (!scan.bind_now) {
		lib_nspans = 0;
		return;
	}
	/*
	 * A span must stay the object's: each is made never to be unloaded
	 * (its memory could otherwise be mapped again for something the child
	 * reads). One that cannot be is not withheld.
	 */
	for (size_t i = 0; i < lib_nspans;) {
		if (dlopen(lib_spans[i].name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE)) {
			i++;
			continue;
		}
		lib_spans[i] = lib_spans[--lib_nspans];
	}
}

void proc_fork_heap_setup(void)
{
	char buf[2048], *p;
	FILE *f;
	size_t n;
	unsigned long long v = 0;
	int field = 1;

	static int done;

	if (done)
		return;
	done = 1;
	libs_setup();
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

/* The heap's pages (brk) marked, or given back. */
static void heap_mark(int on)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start, end = (uintptr_t)sbrk(0);

	if (heap_start && end != (uintptr_t)-1) {
		start = (heap_start + page - 1) & ~(page - 1);
		end &= ~(page - 1);
		if (end > start)
			(void)madvise((void *)start, end - start,
				      on ? MADV_DONTFORK : MADV_DOFORK);
	}
}

void proc_fork_heap_withhold(int on)
{
	static int libs_withheld;

	/*
	 * The heap around each child: marked before it and given back after
	 * it (proc_fork_heap_give_back()). Left marked, the pages brk adds
	 * later became a mapping of their own that merged with nothing, one
	 * more for every child (760 after 3,000 invocations), and every
	 * clone3() copied them all: the time between invocations grew with
	 * the run.
	 */
	heap_mark(on);
	/* The libraries' spans never change (RTLD_NODELETE): marked once, they stay marked. */
	if (libs_withheld == on)
		return;
	libs_withheld = on;
	/* A gap in a span (none is expected) fails with ENOMEM, the rest is withheld still. */
	for (size_t i = 0; i < lib_nspans; i++)
		(void)madvise((void *)lib_spans[i].start, lib_spans[i].end - lib_spans[i].start,
			      on ? MADV_DONTFORK : MADV_DOFORK);
}

void proc_fork_heap_give_back(void)
{
	heap_mark(0);
}

size_t proc_fork_libs_withheld(void)
{
	return lib_nspans;
}

int proc_fork_heap_holds(const void *p)
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

int proc_fork_copy_make(struct fork_copy *fc, const char *const *argv, const char *const *envp,
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

void proc_fork_copy_release(struct fork_copy *fc)
{
	if (fc->base)
		munmap(fc->base, fc->size);
	*fc = (struct fork_copy)FORK_COPY_INIT;
}
