/*
 * dotnet_runtime: reads the startup hook's files of one run and combines
 * a figure over the processes a metric selects (dotnet_runtime.h). The
 * files sit where the program under test writes too, so each is taken as
 * hostile: reached beneath the run directory's descriptor with no link
 * followed, a regular file only, capped in size and number, parsed
 * strictly (exactly the schema's keys, integers in range, a printable
 * name), and one bad file spoils the run's figures with a reason that
 * names it rather than being skipped in silence.
 */
#include "results/dotnet_runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/alloc.h"
#include "util/compiler.h"
#include "util/dirat.h"
#include "util/escape.h"
#include "util/hash.h"
#include "util/json_in.h"
#include "util/readfile.h"
#include "util/strbuf.h"

static const struct {
	const char *name;
	const char *unit;
	int is_max;
} figures[] = {
	[DOTNET_RT_GC_GEN0] = { "gc_gen0", "count", 0 },
	[DOTNET_RT_GC_GEN1] = { "gc_gen1", "count", 0 },
	[DOTNET_RT_GC_GEN2] = { "gc_gen2", "count", 0 },
	[DOTNET_RT_GC_PAUSE_US] = { "gc_pause_us", "us", 0 },
	[DOTNET_RT_ALLOCATED_BYTES] = { "allocated_bytes", "bytes", 0 },
	[DOTNET_RT_PEAK_HEAP_BYTES] = { "peak_heap_bytes", "bytes", 1 },
	[DOTNET_RT_LOCK_CONTENTIONS] = { "lock_contentions", "count", 0 },
	[DOTNET_RT_THREADPOOL_ITEMS] = { "threadpool_items", "count", 0 },
	[DOTNET_RT_JIT_METHODS] = { "jit_methods", "count", 0 },
	[DOTNET_RT_JIT_TIME_US] = { "jit_time_us", "us", 0 },
};

_Static_assert(ARRAY_SIZE(figures) == DOTNET_RT_FIGURES, "figures");

/* The file's keys besides the figures. */
static const char *const head_keys[] = { "schema", "pid", "process" };
#define NAME_PREFIX "dotnet-"
#define NAME_SUFFIX ".json"
/* Room for a quoted piece of input in a reason. */
#define SHOW_LEN 64
/* Process names a reason lists when a glob matches none. */
#define NAMES_SHOWN 8

const char *dotnet_runtime_figure_name(size_t i)
{
	return i < ARRAY_SIZE(figures) ? figures[i].name : NULL;
}

const char *dotnet_runtime_figure_unit(size_t i)
{
	return i < ARRAY_SIZE(figures) ? figures[i].unit : NULL;
}

int dotnet_runtime_figure_is_max(size_t i)
{
	return i < ARRAY_SIZE(figures) && figures[i].is_max;
}

int dotnet_runtime_figure_index(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(figures); i++)
		if (!strcmp(name, figures[i].name))
			return (int)i;
	return -1;
}

void dotnet_runtime_set_release(struct dotnet_rt_set *set)
{
	if (!set)
		return;
	free(set->procs);
	free(set->why);
	set->procs = NULL;
	set->n = 0;
	set->why = NULL;
}

/* Printable ASCII, 1 to DOTNET_RT_NAME_MAX characters: it is shown in reasons and matched by globs. */
static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > DOTNET_RT_NAME_MAX)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

static int parse_fields(const struct json_in *in, const cJSON *root, struct dotnet_rt_proc *out)
{
	const char *known[ARRAY_SIZE(head_keys) + DOTNET_RT_FIGURES];
	char *schema = NULL, *process = NULL;
	size_t before = json_in_count(in), n = 0;
	int64_t pid = 0;

	for (size_t i = 0; i < ARRAY_SIZE(head_keys); i++)
		known[n++] = head_keys[i];
	for (size_t i = 0; i < DOTNET_RT_FIGURES; i++)
		known[n++] = figures[i].name;
	if (json_check_keys(in, root, "", known, n) < 0)
		return -1;
	if (json_get_string(in, root, "", "schema", JSON_REQUIRED, &schema) > 0 &&
	    strcmp(schema, DOTNET_RT_SCHEMA))
		json_in_error(in, "schema", "expected \"" DOTNET_RT_SCHEMA "\"");
	json_get_int(in, root, "", "pid", JSON_REQUIRED, 1, INT32_MAX, &pid);
	if (json_get_string(in, root, "", "process", JSON_REQUIRED, &process) > 0 &&
	    !name_ok(process))
		json_in_error(in, "process", "expected 1 to %d printable ASCII characters",
			      DOTNET_RT_NAME_MAX);
	for (size_t i = 0; i < DOTNET_RT_FIGURES && json_in_count(in) == before; i++)
		json_get_int(in, root, "", figures[i].name, JSON_REQUIRED, 0, JSON_INT_MAX,
			     &out->figures[i]);
	if (json_in_count(in) == before) {
		out->pid = pid;
		memcpy(out->process, process, strlen(process) + 1);
	}
	free(schema);
	free(process);
	return json_in_count(in) == before ? 0 : -1;
}

/*
 * Parses one file's text (len bytes, not NUL-terminated) named name (for
 * messages) into *out: a JSON object of exactly the schema's keys, each
 * figure an integer from 0 to 2^53 - 1, the process name printable ASCII.
 * 0, or -1 with *why set (caller frees).
 */
static int dotnet_rt_parse(const char *name, const char *text, size_t len,
			   struct dotnet_rt_proc *out, char **why)
{
	struct json_in in = { name, NULL, why };
	const char *end = NULL;
	cJSON *root;
	int ret = -1;

	*why = NULL;
	memset(out, 0, sizeof(*out));
	/* A NUL inside would end cJSON's reading early and hide what follows it. */
	if (memchr(text, '\0', len)) {
		*why = xasprintf("%s: holds a NUL byte: not a JSON document", name);
		return -1;
	}
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root) {
		*why = xasprintf("%s: not valid JSON (truncated or not written by abev's hook)", name);
		return -1;
	}
	while (end && end < text + len && strchr(" \t\r\n", *end))
		end++;
	if (end != text + len)
		*why = xasprintf("%s: text after the JSON document", name);
	else if (!cJSON_IsObject(root))
		*why = xasprintf("%s: expected a JSON object, found %s", name, json_kind(root));
	else
		ret = parse_fields(&in, root, out);
	cJSON_Delete(root);
	return ret;
}

/* The pid of a name dotnet-<pid>.json (1 to 10 digits), or -1 for any other name. */
static int64_t name_pid(const char *name)
{
	size_t plen = strlen(NAME_PREFIX), slen = strlen(NAME_SUFFIX), n = strlen(name), digits;
	int64_t pid = 0;

	if (n <= plen + slen || strncmp(name, NAME_PREFIX, plen) ||
	    strcmp(name + n - slen, NAME_SUFFIX))
		return -1;
	digits = n - plen - slen;
	if (digits > 10)
		return -1;
	for (size_t i = plen; i < plen + digits; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		pid = pid * 10 + (name[i] - '0');
	}
	return pid;
}

/*
 * One file beneath d into *p, and p->file: its name, and the hash of its
 * bytes as read, before they are parsed (also when they do not parse).
 * NULL, or why not (caller frees).
 */
static char *read_one(const struct dirat *d, const char *name, int64_t pid,
		      struct dotnet_rt_proc *p)
{
	struct strbuf sb = STRBUF_INIT;
	struct file_read read = { 0 };
	struct stat st;
	char *why = NULL;
	int fd = dirat_openat(d, name, O_RDONLY | O_NONBLOCK, 0);

	if (fd < 0)
		why = xasprintf("%s: cannot open: %s", name, strerror(errno));
	else if (fstat(fd, &st) < 0)
		why = xasprintf("%s: cannot stat: %s", name, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		why = xasprintf("%s: not a regular file", name);
	else if (read_fd_capped(&sb, fd, DOTNET_RT_FILE_MAX) < 0)
		why = errno == EFBIG ? xasprintf("%s: larger than %d bytes", name, DOTNET_RT_FILE_MAX)
				     : xasprintf("%s: cannot read: %s", name, strerror(errno));
	else {
		sha256_buf(sb.buf, sb.len, read.sha256);
		read.bytes = sb.len;
		read.hashed = 1;
		if (dotnet_rt_parse(name, sb.buf, sb.len, p, &why) == 0 && p->pid != pid)
			why = xasprintf("%s: gives pid %lld, not the pid of its name", name,
					(long long)p->pid);
	}
	/* After the parse, which starts *p afresh. */
	p->file.read = read;
	memcpy(p->file.name, name, strlen(name) + 1);
	if (fd >= 0)
		close(fd);
	strbuf_release(&sb);
	return why;
}

static int by_pid(const void *a, const void *b)
{
	const struct dotnet_rt_proc *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The names of the hook's files in d, their pids in procs[].pid; NULL, or why not. */
static char *list_files(const struct dirat *d, struct dotnet_rt_set *set)
{
	struct dirent *de;
	size_t alloc = 0;
	int fd = dup(d->fd);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	char *why = NULL;

	if (!dir) {
		why = xasprintf("cannot list the run directory: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return why;
	}
	while ((de = readdir(dir))) {
		int64_t pid = name_pid(de->d_name);
		if (pid < 0)
			continue;
		if (set->n == DOTNET_RT_FILES_MAX) {
			why = xasprintf("more than %d dotnet-<pid>.json files", DOTNET_RT_FILES_MAX);
			break;
		}
		ALLOC_GROW(set->procs, set->n + 1, alloc);
		memset(&set->procs[set->n], 0, sizeof(set->procs[0]));
		set->procs[set->n++].pid = pid;
	}
	closedir(dir);
	return why;
}

void dotnet_runtime_read(const struct dirat *dir, const char *rel, struct dotnet_rt_set *set)
{
	struct dirat d = DIRAT_INIT;
	int r;

	dotnet_runtime_set_release(set);
	r = dir ? dirat_sub(dir, rel, &d) : dirat_open_path(&d, rel);
	if (r < 0) {
		if (errno != ENOENT)
			set->why = xasprintf("cannot open the run directory: %s", strerror(errno));
		goto out;
	}
	set->why = list_files(&d, set);
	if (set->why)
		goto out;
	if (set->n)   /* qsort() of NULL, even of nothing, is undefined */
		qsort(set->procs, set->n, sizeof(*set->procs), by_pid);
	for (size_t i = 0; i < set->n && !set->why; i++) {
		char name[FILE_READ_NAME_MAX + 1];
		int64_t pid = set->procs[i].pid;
		snprintf(name, sizeof(name), NAME_PREFIX "%lld" NAME_SUFFIX, (long long)pid);
		set->why = read_one(&d, name, pid, &set->procs[i]);
	}
out:
	dirat_release(&d);
}

/* "no .NET process ... (read: a, b)": the names a glob could have matched. */
static char *no_process(const struct dotnet_rt_set *set, const char *glob)
{
	struct strbuf sb = STRBUF_INIT;
	char b[SHOW_LEN];
	size_t shown = 0;

	strbuf_addf(&sb, "no .NET process named like '%s' wrote runtime figures (read: ",
		    show_str(b, sizeof(b), glob));
	for (size_t i = 0; i < set->n; i++) {
		int seen = 0;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(set->procs[k].process, set->procs[i].process);
		if (seen)
			continue;
		if (shown++ == NAMES_SHOWN) {
			strbuf_adds(&sb, ", ...");
			break;
		}
		strbuf_addf(&sb, "%s%s", shown > 1 ? ", " : "", set->procs[i].process);
	}
	strbuf_adds(&sb, ")");
	return strbuf_detach(&sb, NULL);
}

int dotnet_runtime_combine(const struct dotnet_rt_set *set, size_t i, const char *glob, double *value,
			   char **why)
{
	size_t matched = 0;
	double v = 0;

	*why = NULL;
	if (i >= DOTNET_RT_FIGURES) {
		*why = xstrdup("unknown runtime figure");
		return -1;
	}
	if (set->why) {
		*why = xasprintf("the runtime figures are not used: %s", set->why);
		return -1;
	}
	if (!set->n) {
		*why = xstrdup("no .NET process wrote runtime figures (no dotnet-<pid>.json in the "
			       "run directory: did a .NET process run, and exit normally?)");
		return -1;
	}
	for (size_t k = 0; k < set->n; k++) {
		double x = (double)set->procs[k].figures[i];
		if (glob && fnmatch(glob, set->procs[k].process, 0))
			continue;
		if (figures[i].is_max)
			v = !matched || x > v ? x : v;
		else
			v += x;
		matched++;
	}
	if (!matched) {
		*why = no_process(set, glob);
		return -1;
	}
	*value = v;
	return 0;
}
