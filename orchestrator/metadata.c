/*
 * metadata: pins down, once and before the first invocation, what is
 * compared and where — the host, and per variant its git state, the output
 * of the plan's versions commands and every file its assemblies patterns
 * match, with size and SHA-256 — and writes it as metadata.json. It
 * measures nothing and reads no clock of the day: collecting twice on an
 * unchanged machine with unchanged inputs gives the same bytes.
 *
 * Unknown host figures are null, never an error: a container without
 * cpufreq or a kernel without /proc/cpuinfo's "model name" is still a host
 * to benchmark on. What the plan asks for (assemblies) must be found.
 *
 * Matching assemblies. glob(3) has no `**`, so the walk is done here:
 * - a pattern is relative to the variant's cwd unless it starts with '/';
 *   "." and ".." components are resolved lexically before matching;
 * - within a component, *, ? and [..] match as fnmatch(3) with FNM_PERIOD:
 *   as in the shell they do not match a leading '.', which a literal ".x"
 *   or ".*" does;
 * - a component that is exactly `**` matches any number of directories,
 *   none included; like bash's globstar it does not descend into hidden
 *   directories nor through symbolic links to directories (no loops, and no
 *   wandering out of the tree); a trailing `**` matches every file below;
 * - only files are recorded. Directories matching the last component are
 *   left out. A symbolic link to a regular file is recorded under the path
 *   that matched, with the size and hash of its target (resolved with
 *   realpath(3), since hashing refuses to follow links itself); a dangling
 *   link, a FIFO, a device or a socket is an error rather than a guess.
 */
#define _XOPEN_SOURCE 700
#include "metadata.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "hash.h"
#include "proc.h"
#include "util.h"

#ifndef ABEV_VERSION
#error "ABEV_VERSION must be defined (the Makefile does)"
#endif

/* Ceilings for what is read from /proc, /sys and /etc. */
#define SYSFILE_MAX (64u << 10)
#define CPUINFO_MAX (16u << 20)
#define MOUNTINFO_MAX (4u << 20)
/* A version string or a kernel version is a line, not a document. */
#define TEXT_MAX 4096

/* After METADATA_CMD_TIMEOUT_NS (metadata.h) a command gets SIGTERM, then SIGKILL. */
#define CMD_GRACE_NS (1000000000LL)
#define GIT_OUTPUT_MAX (1u << 20)
#define VERSION_OUTPUT_MAX 4096

/* Per pattern: beyond these the pattern is too broad to be an assembly list. */
#define MATCH_MAX 100000
#define WALK_DIRS_MAX 100000
#define WALK_ENTRIES_MAX 5000000
#define WALK_DEPTH_MAX 64

struct md_host {
	char *label;                 /* --host-label, else the hostname */
	char *hostname, *os_release, *kernel, *kernel_version, *arch, *cpu_model;
	long logical_cpus;           /* -1: unknown */
	long physical_cores;         /* -1: unknown */
	char *online_cpus, *governor;
	int boost;                   /* -1: unknown */
	int64_t memory_bytes;        /* -1: unknown */
	const char *cgroup_version;  /* static "2", "hybrid", "1", or NULL */
	int64_t clock_resolution_ns; /* -1: unknown */
};

struct md_git {
	int known;                   /* 0: not a checkout, or git missing */
	char head[SHA256_HEX_LEN + 1];
	int dirty;
};

struct md_version {
	char *name;
	char **argv;
	size_t argc;
	int exit_code;               /* -1: did not exit normally */
	char *output;                /* cleaned and trimmed */
	char *error;                 /* why there is no exit code, or NULL */
};

struct md_file {
	char *path;                  /* as recorded: relative to cwd when under it */
	char *hash_path;             /* what is hashed: the match, or its link target */
	uint64_t size;
	char sha256[SHA256_HEX_LEN + 1];
	size_t job;                  /* index of its hash job */
};

struct md_pattern {
	char *pattern;               /* as in the plan */
	struct md_file *files;
	size_t nfiles;
};

struct md_variant {
	char *name;
	char *cwd;
	const struct plan_env *env;   /* borrowed from the plan, which outlives the metadata */
	size_t nenv;
	struct md_git git;
	struct md_version *versions;
	size_t nversions;
	struct md_pattern *patterns;
	size_t npatterns;
};

struct metadata {
	struct md_host host;
	struct md_variant *variants;
	size_t nvariants;
};

/* ---- text ---- */

/*
 * JSON strings must be UTF-8 and cJSON strings end at NUL: outside text
 * (command output, file names, /proc) gets U+FFFD for each byte that is
 * neither. Caller frees.
 */
static char *clean_text(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0;
	strbuf_grow(&sb, n);
	while (i < n) {
		size_t len = utf8_char_len(s + i, n - i);
		if (len) {
			strbuf_add(&sb, s + i, len);
			i += len;
		} else {
			strbuf_adds(&sb, "\xef\xbf\xbd");
			i++;
		}
	}
	return strbuf_detach(&sb, NULL);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* s[0..n) without surrounding white space, cleaned; caller frees. */
static char *clean_trimmed(const char *s, size_t n)
{
	while (n && is_space(*s)) {
		s++;
		n--;
	}
	while (n && is_space(s[n - 1]))
		n--;
	return clean_text(s, n);
}

/* ---- small files ---- */

/*
 * Reads a /proc, /sys or /etc file of at most max bytes into sb (replacing
 * its contents). Silent: a missing or unreadable file only makes a figure
 * unknown. O_NONBLOCK keeps a FIFO planted under a known name from hanging
 * abev. 0 or -1.
 */
static int read_quiet(struct strbuf *sb, const char *path, size_t max)
{
	struct stat st;
	int fd, ret = -1;

	strbuf_reset(sb);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	if (read_fd_capped(sb, fd, max) < 0)
		goto out;
	ret = 0;
out:
	close(fd);
	if (ret < 0)
		strbuf_reset(sb);
	return ret;
}

/* A one-value file ("performance\n"), trimmed; NULL when absent or empty. */
static char *read_value(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *v = NULL;
	if (read_quiet(&sb, path, SYSFILE_MAX) == 0 && sb.len <= TEXT_MAX) {
		v = clean_trimmed(sb.buf, sb.len);
		if (!*v) {
			free(v);
			v = NULL;
		}
	}
	strbuf_release(&sb);
	return v;
}

/* ---- host ---- */

/*
 * One os-release value, unquoted as the shell would: the file is "a
 * shell-compatible variable assignment" (os-release(5)).
 */
static char *os_release_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len > klen && !strncmp(line, key, klen) && line[klen] == '=') {
			struct strbuf v = STRBUF_INIT;
			const char *p = line + klen + 1, *end = line + len;
			char *out;
			if (p < end && (*p == '"' || *p == '\'')) {
				char q = *p++;
				while (p < end && *p != q) {
					if (q == '"' && *p == '\\' && p + 1 < end &&
					    strchr("\"\\$`", p[1]))
						p++;
					strbuf_addch(&v, *p++);
				}
			} else {
				strbuf_add(&v, p, (size_t)(end - p));
			}
			out = v.len <= TEXT_MAX ? clean_trimmed(v.buf, v.len) : NULL;
			strbuf_release(&v);
			if (out && !*out) {
				free(out);
				out = NULL;
			}
			return out;
		}
		line = nl ? nl + 1 : line + len;
	}
	return NULL;
}

static char *os_release(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *v = NULL;
	/* os-release(5): /etc/os-release, falling back to /usr/lib/os-release. */
	if (read_quiet(&sb, "/etc/os-release", SYSFILE_MAX) == 0 ||
	    read_quiet(&sb, "/usr/lib/os-release", SYSFILE_MAX) == 0)
		v = os_release_value(sb.buf, "PRETTY_NAME");
	strbuf_release(&sb);
	return v;
}

/* "key<blanks>: value" lines of /proc/cpuinfo and /proc/meminfo. */
static int split_field(const char *line, size_t len, const char **key, size_t *key_len,
		       const char **val, size_t *val_len)
{
	const char *colon = memchr(line, ':', len);
	if (!colon)
		return -1;
	*key = line;
	*key_len = (size_t)(colon - line);
	while (*key_len && is_space(line[*key_len - 1]))
		--*key_len;
	*val = colon + 1;
	*val_len = len - (size_t)(colon + 1 - line);
	while (*val_len && is_space(**val)) {
		++*val;
		--*val_len;
	}
	while (*val_len && is_space((*val)[*val_len - 1]))
		--*val_len;
	return 0;
}

static int field_is(const char *key, size_t key_len, const char *want)
{
	return key_len == strlen(want) && !memcmp(key, want, key_len);
}

/* A decimal field value into *out; -1 when it is not one. */
static int field_int(const char *val, size_t len, int64_t *out)
{
	char buf[32];
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, val, len);
	buf[len] = '\0';
	return parse_int64(buf, out);
}

struct core_id {
	int64_t package, core;
};

static int core_cmp(const void *a, const void *b)
{
	const struct core_id *x = a, *y = b;
	if (x->package != y->package)
		return x->package < y->package ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return 0;
}

/*
 * The first "model name", and the number of distinct (physical id, core
 * id) pairs over the processor blocks; -1 when any processor lacks a core
 * id (some architectures do not report topology there). A block without
 * "physical id" counts as package 0.
 */
static void cpuinfo(struct md_host *h)
{
	struct strbuf sb = STRBUF_INIT;
	struct core_id *ids = NULL, cur = { 0, -1 };
	size_t nids = 0, alloc = 0;
	int in_block = 0, unknown = 0;
	const char *p;

	if (read_quiet(&sb, "/proc/cpuinfo", CPUINFO_MAX) < 0)
		goto out;
	p = sb.buf;
	for (;;) {
		const char *nl = memchr(p, '\n', sb.len - (size_t)(p - sb.buf));
		size_t len = nl ? (size_t)(nl - p) : sb.len - (size_t)(p - sb.buf);
		const char *key, *val;
		size_t klen, vlen;
		int64_t n;

		if (len && split_field(p, len, &key, &klen, &val, &vlen) == 0) {
			if (field_is(key, klen, "processor"))
				in_block = 1;
			else if (field_is(key, klen, "model name") && !h->cpu_model && vlen &&
				 vlen <= TEXT_MAX)
				h->cpu_model = clean_text(val, vlen);
			else if (field_is(key, klen, "physical id") && field_int(val, vlen, &n) == 0)
				cur.package = n;
			else if (field_is(key, klen, "core id") && field_int(val, vlen, &n) == 0)
				cur.core = n;
		}
		/* A blank line, or the end, closes a processor block. */
		if ((!len || !nl) && in_block) {
			if (cur.core < 0) {
				unknown = 1;
			} else {
				if (nids == alloc) {
					alloc = alloc ? 2 * alloc : 64;
					ids = xrealloc(ids, alloc * sizeof(*ids));
				}
				ids[nids++] = cur;
			}
			in_block = 0;
			cur.package = 0;
			cur.core = -1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (nids && !unknown) {
		size_t distinct = 1;
		qsort(ids, nids, sizeof(*ids), core_cmp);
		for (size_t i = 1; i < nids; i++)
			distinct += core_cmp(&ids[i - 1], &ids[i]) != 0;
		h->physical_cores = (long)distinct;
	}
out:
	free(ids);
	strbuf_release(&sb);
}

static void meminfo(struct md_host *h)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	if (read_quiet(&sb, "/proc/meminfo", SYSFILE_MAX) < 0)
		goto out;
	for (p = sb.buf; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *key, *val;
		size_t klen, vlen;
		int64_t kb;
		if (split_field(p, len, &key, &klen, &val, &vlen) == 0 &&
		    field_is(key, klen, "MemTotal")) {
			if (vlen > 3 && !memcmp(val + vlen - 3, " kB", 3) &&
			    field_int(val, vlen - 3, &kb) == 0 && kb > 0 && kb < INT64_MAX / 1024)
				h->memory_bytes = kb * 1024;
			break;
		}
		p = nl ? nl + 1 : p + len;
	}
out:
	strbuf_release(&sb);
}

/*
 * "2" when the unified hierarchy is mounted at /sys/fs/cgroup, "hybrid"
 * when it is mounted elsewhere beside v1 controllers, "1" with v1 alone.
 */
static const char *cgroup_version(void)
{
	struct strbuf sb = STRBUF_INIT;
	int v2_root = 0, v2_elsewhere = 0, v1 = 0;
	const char *p, *result = NULL;

	if (read_quiet(&sb, "/proc/self/mountinfo", MOUNTINFO_MAX) < 0)
		goto out;
	for (p = sb.buf; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len);
		/* id parent major:minor root mount-point options [optional...] - fstype source super */
		char *sep = strstr(line, " - ");
		if (sep) {
			char *f[5] = { NULL };
			char *q = line, *fstype = sep + 3, *sp;
			*sep = '\0';
			for (size_t i = 0; i < ARRAY_SIZE(f) && q && *q; i++) {
				f[i] = q;
				sp = strchr(q, ' ');
				if (sp)
					*sp = '\0';
				q = sp ? sp + 1 : NULL;
			}
			sp = strchr(fstype, ' ');
			if (sp)
				*sp = '\0';
			if (f[4] && !strcmp(fstype, "cgroup2")) {
				if (!strcmp(f[4], "/sys/fs/cgroup"))
					v2_root = 1;
				else
					v2_elsewhere = 1;
			} else if (f[4] && !strcmp(fstype, "cgroup")) {
				v1 = 1;
			}
		}
		free(line);
		p = nl ? nl + 1 : p + len;
	}
	if (v2_root)
		result = "2";
	else if (v2_elsewhere && v1)
		result = "hybrid";
	else if (v1)
		result = "1";
out:
	strbuf_release(&sb);
	return result;
}

static int boost_state(void)
{
	char *v = read_value("/sys/devices/system/cpu/cpufreq/boost");
	int b = -1;
	if (v) {
		if (!strcmp(v, "0") || !strcmp(v, "1"))
			b = v[0] == '1';
		free(v);
		return b;
	}
	/* intel_pstate says the opposite: no_turbo = 1 means boost is off. */
	v = read_value("/sys/devices/system/cpu/intel_pstate/no_turbo");
	if (v && (!strcmp(v, "0") || !strcmp(v, "1")))
		b = v[0] == '0';
	free(v);
	return b;
}

static void host_collect(struct md_host *h, const char *label)
{
	char name[HOST_NAME_MAX + 1];
	struct utsname u;
	struct timespec res;
	long n;

	h->logical_cpus = h->physical_cores = -1;
	h->boost = -1;
	h->memory_bytes = h->clock_resolution_ns = -1;

	/* gethostname() need not terminate a truncated name. */
	if (gethostname(name, sizeof(name)) == 0) {
		name[sizeof(name) - 1] = '\0';
		h->hostname = clean_text(name, strlen(name));
	}
	if (label)
		h->label = xstrdup(label);
	else if (h->hostname)
		h->label = xstrdup(h->hostname);
	h->os_release = os_release();
	if (uname(&u) == 0) {
		h->kernel = clean_text(u.release, strnlen(u.release, sizeof(u.release)));
		h->kernel_version = clean_text(u.version, strnlen(u.version, sizeof(u.version)));
		h->arch = clean_text(u.machine, strnlen(u.machine, sizeof(u.machine)));
	}
	cpuinfo(h);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n > 0)
		h->logical_cpus = n;
	h->online_cpus = read_value("/sys/devices/system/cpu/online");
	h->governor = read_value("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	h->boost = boost_state();
	meminfo(h);
	h->cgroup_version = cgroup_version();
	if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
		h->clock_resolution_ns = (int64_t)res.tv_sec * 1000000000 + res.tv_nsec;
}

static void host_release(struct md_host *h)
{
	free(h->label);
	free(h->hostname);
	free(h->os_release);
	free(h->kernel);
	free(h->kernel_version);
	free(h->arch);
	free(h->cpu_model);
	free(h->online_cpus);
	free(h->governor);
	memset(h, 0, sizeof(*h));
}

/* ---- commands ---- */

/*
 * Runs argv in cwd with envp (NULL: abev's own) through proc, in capture
 * mode: stdout (and stderr with merge_stderr, else /dev/null) into out,
 * the first cap bytes kept, no cgroup, METADATA_CMD_TIMEOUT_NS then SIGTERM
 * to its group and SIGKILL a grace period later; whatever it leaves behind
 * is killed. An abev interrupt stops it like any child (PROC_INTERRUPTED).
 * Returns 0 with the outcome in *res (exec failure included; release it),
 * -1 after error() when abev could not run anything at all.
 */
static int cmd_run(const char *const *argv, const char *const *envp, const char *cwd,
		   int merge_stderr, size_t cap, struct strbuf *out, struct proc_result *res)
{
	struct proc_spec spec = {
		.argv = argv,
		.envp = envp,
		.cwd = cwd,
		.timeout_ns = METADATA_CMD_TIMEOUT_NS,
		.grace_ns = CMD_GRACE_NS,
		.capture = out,
		.capture_max = cap,
		.capture_stderr = merge_stderr,
	};

	return proc_run(&spec, res);
}

/* ---- git ---- */

static int is_hex_id(const char *s)
{
	size_t n = strlen(s);
	if (n != 40 && n != SHA256_HEX_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/*
 * HEAD and dirtiness, in abev's own environment. Anything short of both
 * answers (no git, not a checkout, no commit yet, a repository git refuses
 * as unsafe) leaves git unknown: the field is a record, not a gate.
 * --no-optional-locks keeps status from rewriting the user's index.
 */
static int git_collect(const char *cwd, struct md_git *g)
{
	const char *head_argv[] = { "git", "-C", cwd, "rev-parse", "HEAD", NULL };
	const char *status_argv[] = { "git", "--no-optional-locks", "-C", cwd, "status",
				      "--porcelain", "--untracked-files=normal", NULL };
	struct strbuf out = STRBUF_INIT;
	struct proc_result r;
	char *head = NULL;
	int ret = -1;

	memset(g, 0, sizeof(*g));
	memset(&r, 0, sizeof(r));
	if (proc_interrupted()) {
		ret = 0;
		goto out;
	}
	if (cmd_run(head_argv, NULL, cwd, 0, GIT_OUTPUT_MAX, &out, &r) < 0)
		goto out;
	if (r.outcome == PROC_EXITED && r.exit_code == 0)
		head = clean_trimmed(out.buf, out.len);
	proc_result_release(&r);
	strbuf_reset(&out);
	if (!head || !is_hex_id(head)) {
		ret = 0;
		goto out;
	}
	if (cmd_run(status_argv, NULL, cwd, 0, GIT_OUTPUT_MAX, &out, &r) < 0)
		goto out;
	if (r.outcome == PROC_EXITED && r.exit_code == 0) {
		g->known = 1;
		memcpy(g->head, head, strlen(head) + 1);
		g->dirty = out.len > 0;
	} else if (r.outcome != PROC_INTERRUPTED) {
		warning("'git status' failed in '%s': its git state is not recorded", cwd);
	}
	ret = 0;
out:
	proc_result_release(&r);
	strbuf_release(&out);
	free(head);
	return ret;
}

/* ---- versions ---- */

/*
 * abev's environment, the variant's additions and ABEV_VARIANT. Nothing
 * has run yet, so {run_dir} and {phase} expand to "" and {round} to 0.
 */
static char **version_env(const struct plan_variant *v)
{
	struct plan_vars vars = { NULL, v->name, NULL, 0 };
	size_t n;
	char **env = plan_variant_env(v, &vars, &n);

	env_set(&env, &n, "ABEV_VARIANT", v->name);
	return env;
}

/* Cuts s back to at most max bytes without splitting a UTF-8 sequence. */
static void cut_utf8(char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return;
	while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	s[max] = '\0';
}

static int version_run(const struct plan_version *pv, const struct plan_variant *v,
		       char *const *envp, struct md_version *mv)
{
	const char **argv = xcalloc(pv->argc + 1, sizeof(*argv));
	struct strbuf out = STRBUF_INIT;
	struct proc_result r;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	mv->name = xstrdup(pv->name);
	mv->argv = xcalloc(pv->argc, sizeof(*mv->argv));
	for (size_t i = 0; i < pv->argc; i++) {
		mv->argv[i] = xstrdup(pv->argv[i]);
		argv[i] = pv->argv[i];
	}
	mv->argc = pv->argc;
	mv->exit_code = -1;
	if (proc_interrupted()) {
		/* The run is over before it began: say so rather than start more. */
		mv->output = xstrdup("");
		mv->error = xasprintf("not run: abev received %s", proc_signal_name(proc_interrupted()));
		ret = 0;
		goto out;
	}
	if (cmd_run(argv, (const char *const *)envp, v->cwd, 1, VERSION_OUTPUT_MAX, &out, &r) < 0)
		goto out;
	/* Cleaning may widen bytes into U+FFFD: cut again to keep the ceiling. */
	mv->output = clean_trimmed(out.buf, out.len);
	cut_utf8(mv->output, VERSION_OUTPUT_MAX);
	switch (r.outcome) {
	case PROC_EXITED:
		mv->exit_code = r.exit_code;
		break;
	case PROC_SIGNALED:
		mv->error = xasprintf("killed by signal %d (%s)", r.signal, proc_signal_name(r.signal));
		break;
	case PROC_TIMED_OUT:
		mv->error = xasprintf("timed out after %lld s (stopped with %s)",
				      (long long)(METADATA_CMD_TIMEOUT_NS / 1000000000),
				      proc_signal_name(r.signal));
		break;
	case PROC_EXEC_FAILED:
		mv->error = xstrdup(r.exec_error ? r.exec_error : "could not be executed");
		break;
	case PROC_INTERRUPTED:
		mv->error = xasprintf("interrupted: abev received %s; the command was stopped",
				      proc_signal_name(r.interrupt_signal));
		break;
	}
	ret = 0;
out:
	proc_result_release(&r);
	strbuf_release(&out);
	free(argv);
	return ret;
}

static void version_release(struct md_version *mv)
{
	free(mv->name);
	for (size_t i = 0; i < mv->argc; i++)
		free(mv->argv[i]);
	free(mv->argv);
	free(mv->output);
	free(mv->error);
	memset(mv, 0, sizeof(*mv));
}

/* ---- assemblies ---- */

struct comp {
	char *s;
	int literal;     /* from the cwd, or without *?[\ : looked up, not matched */
};

struct walk {
	struct comp *comps;
	size_t ncomps;
	struct strbuf path;          /* the directory being read */
	struct md_file *files;
	size_t nfiles, alloc;
	size_t dirs, entries;
	char *err;                   /* why the walk stopped; caller frees */
};

static void comps_push(struct comp **c, size_t *n, const char *s, size_t len, int literal)
{
	*c = xrealloc(*c, (*n + 1) * sizeof(**c));
	(*c)[*n].s = xstrndup(s, len);
	(*c)[*n].literal = literal;
	++*n;
}

/*
 * Splits dir (literal) and then pattern into components, resolving "." and
 * ".." lexically, folding repeated `**` (they would only find the same
 * files again) and completing a trailing `**` with `*`.
 */
static void split_pattern(const char *cwd, const char *pattern, struct comp **out, size_t *nout)
{
	const char *parts[2] = { pattern[0] == '/' ? "" : cwd, pattern };
	*out = NULL;
	*nout = 0;
	for (size_t k = 0; k < 2; k++) {
		const char *p = parts[k];
		while (*p) {
			const char *slash = strchr(p, '/');
			size_t len = slash ? (size_t)(slash - p) : strlen(p);
			int literal = k == 0 || !memchr(p, '*', len) ? 1 : 0;
			if (k == 1 && (memchr(p, '?', len) || memchr(p, '[', len) ||
				       memchr(p, '\\', len)))
				literal = 0;
			if (!len || (len == 1 && p[0] == '.')) {
				/* nothing */
			} else if (len == 2 && p[0] == '.' && p[1] == '.') {
				if (*nout) {
					--*nout;
					free((*out)[*nout].s);
				}
			} else if (!literal && len == 2 && !memcmp(p, "**", 2) && *nout &&
				   !(*out)[*nout - 1].literal && !strcmp((*out)[*nout - 1].s, "**")) {
				/* a second `**` in a row */
			} else {
				comps_push(out, nout, p, len, literal);
			}
			p += len;
			if (*p == '/')
				p++;
		}
	}
	if (*nout && !(*out)[*nout - 1].literal && !strcmp((*out)[*nout - 1].s, "**"))
		comps_push(out, nout, "*", 1, 0);
}

static int is_globstar(const struct comp *c)
{
	return !c->literal && !strcmp(c->s, "**");
}

/* Appends "/name" to the walk's path; returns the length to cut back to. */
static size_t path_push(struct walk *w, const char *name)
{
	size_t old = w->path.len;
	if (!(w->path.len == 1 && w->path.buf[0] == '/'))
		strbuf_addch(&w->path, '/');
	strbuf_adds(&w->path, name);
	return old;
}

static void path_pop(struct walk *w, size_t old)
{
	w->path.len = old;
	w->path.buf[old] = '\0';
}

/* The walk's path matched the last component: record it if it is a file. */
static int consider(struct walk *w)
{
	const char *path = w->path.buf;
	struct stat st;
	char *target;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		w->err = xasprintf("cannot examine '%s': %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st) < 0) {
			w->err = xasprintf("'%s' is a symbolic link whose target cannot be "
					   "hashed: %s", path, strerror(errno));
			return -1;
		}
		if (S_ISDIR(st.st_mode))
			return 0;
		if (!S_ISREG(st.st_mode)) {
			w->err = xasprintf("'%s' links to something that is not a regular file",
					   path);
			return -1;
		}
		target = realpath(path, NULL);
		if (!target) {
			w->err = xasprintf("cannot resolve '%s': %s", path, strerror(errno));
			return -1;
		}
	} else if (!S_ISREG(st.st_mode)) {
		w->err = xasprintf("'%s' is not a regular file", path);
		return -1;
	} else {
		target = xstrdup(path);
	}
	if (w->nfiles >= MATCH_MAX) {
		free(target);
		w->err = xasprintf("matches more than %d files (narrow the pattern)", MATCH_MAX);
		return -1;
	}
	if (w->nfiles == w->alloc) {
		w->alloc = w->alloc ? 2 * w->alloc : 16;
		w->files = xrealloc(w->files, w->alloc * sizeof(*w->files));
	}
	memset(&w->files[w->nfiles], 0, sizeof(w->files[0]));
	w->files[w->nfiles].path = xstrdup(path);
	w->files[w->nfiles].hash_path = target;
	w->nfiles++;
	return 0;
}

/*
 * The names in the walk's directory, without "." and "..", or NULL and 0
 * when it is gone. Read whole so that no directory stays open while the
 * walk descends. -1 with w->err on a read error.
 */
static int list_dir(struct walk *w, char ***names, size_t *n)
{
	DIR *d;
	struct dirent *de;
	size_t alloc = 0;

	*names = NULL;
	*n = 0;
	if (++w->dirs > WALK_DIRS_MAX) {
		w->err = xasprintf("reads more than %d directories (narrow the pattern)",
				   WALK_DIRS_MAX);
		return -1;
	}
	d = opendir(w->path.buf);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		w->err = xasprintf("cannot read directory '%s': %s", w->path.buf, strerror(errno));
		return -1;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				w->err = xasprintf("cannot read directory '%s': %s", w->path.buf,
						   strerror(errno));
				closedir(d);
				return -1;
			}
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++w->entries > WALK_ENTRIES_MAX) {
			w->err = xasprintf("reads more than %d directory entries (narrow the "
					   "pattern)", WALK_ENTRIES_MAX);
			closedir(d);
			return -1;
		}
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			*names = xrealloc(*names, alloc * sizeof(**names));
		}
		(*names)[(*n)++] = xstrdup(de->d_name);
	}
	if (closedir(d) < 0) {
		w->err = xasprintf("cannot read directory '%s': %s", w->path.buf, strerror(errno));
		return -1;
	}
	return 0;
}

static int is_dir(const char *path, int follow)
{
	struct stat st;
	return (follow ? stat(path, &st) : lstat(path, &st)) == 0 && S_ISDIR(st.st_mode);
}

/* Matches comps[ci..] below the walk's path, which is a directory. */
static int walk_dir(struct walk *w, size_t ci, unsigned depth)
{
	const struct comp *c = &w->comps[ci];
	int last = ci + 1 == w->ncomps;
	char **names = NULL;
	size_t n = 0, old;
	int ret = -1;

	if (c->literal) {
		old = path_push(w, c->s);
		if (last)
			ret = consider(w);
		else
			ret = is_dir(w->path.buf, 1) ? walk_dir(w, ci + 1, depth) : 0;
		path_pop(w, old);
		return ret;
	}
	if (list_dir(w, &names, &n) < 0)
		goto out;
	if (is_globstar(c)) {
		/* `**` is never last (split_pattern saw to it). None first, then one more. */
		if (walk_dir(w, ci + 1, depth) < 0)
			goto out;
		for (size_t i = 0; i < n; i++) {
			int r = 0;
			if (names[i][0] == '.')
				continue;
			old = path_push(w, names[i]);
			if (is_dir(w->path.buf, 0)) {
				if (depth >= WALK_DEPTH_MAX) {
					w->err = xasprintf("'**' goes deeper than %d directories at "
							   "'%s'", WALK_DEPTH_MAX, w->path.buf);
					r = -1;
				} else {
					r = walk_dir(w, ci, depth + 1);
				}
			}
			path_pop(w, old);
			if (r < 0)
				goto out;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			int r = 0;
			if (fnmatch(c->s, names[i], FNM_PERIOD))
				continue;
			old = path_push(w, names[i]);
			if (last)
				r = consider(w);
			else if (is_dir(w->path.buf, 1))
				r = walk_dir(w, ci + 1, depth);
			path_pop(w, old);
			if (r < 0)
				goto out;
		}
	}
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int file_cmp(const void *a, const void *b)
{
	const struct md_file *x = a, *y = b;
	return strcmp(x->path, y->path);
}

static void file_release(struct md_file *f)
{
	free(f->path);
	free(f->hash_path);
	memset(f, 0, sizeof(*f));
}

/*
 * All files pattern (already expanded) matches from cwd, sorted and
 * without repeats, their paths relative to cwd when under it. 0, or -1
 * with *err (caller frees); no match at all is 0 with nfiles == 0.
 */
static int match_pattern(const char *cwd, const char *pattern, struct md_pattern *mp,
			 char **err)
{
	struct walk w;
	size_t cwd_len = strlen(cwd), kept = 0;
	int ret = -1;

	memset(&w, 0, sizeof(w));
	strbuf_init(&w.path);
	split_pattern(cwd, pattern, &w.comps, &w.ncomps);
	strbuf_addch(&w.path, '/');
	if (w.ncomps && walk_dir(&w, 0, 0) < 0) {
		*err = w.err;
		w.err = NULL;
		goto out;
	}
	for (size_t i = 0; i < w.nfiles; i++) {
		char *p = w.files[i].path;
		if (!strcmp(cwd, "/")) {
			memmove(p, p + 1, strlen(p));
		} else if (!strncmp(p, cwd, cwd_len) && p[cwd_len] == '/') {
			memmove(p, p + cwd_len + 1, strlen(p + cwd_len + 1) + 1);
		}
	}
	if (w.nfiles)
		qsort(w.files, w.nfiles, sizeof(*w.files), file_cmp);
	for (size_t i = 0; i < w.nfiles; i++) {
		if (kept && !strcmp(w.files[kept - 1].path, w.files[i].path))
			file_release(&w.files[i]);
		else
			w.files[kept++] = w.files[i];
	}
	mp->files = w.files;
	mp->nfiles = kept;
	w.files = NULL;
	w.nfiles = 0;
	ret = 0;
out:
	for (size_t i = 0; i < w.nfiles; i++)
		file_release(&w.files[i]);
	free(w.files);
	for (size_t i = 0; i < w.ncomps; i++)
		free(w.comps[i].s);
	free(w.comps);
	strbuf_release(&w.path);
	free(w.err);
	return ret;
}

static void pattern_release(struct md_pattern *mp)
{
	free(mp->pattern);
	for (size_t i = 0; i < mp->nfiles; i++)
		file_release(&mp->files[i]);
	free(mp->files);
	memset(mp, 0, sizeof(*mp));
}

int metadata_match_count(const char *cwd, const char *pattern, size_t *n, char **err)
{
	struct md_pattern mp;
	int ret;

	memset(&mp, 0, sizeof(mp));
	ret = match_pattern(cwd, pattern, &mp, err);
	*n = mp.nfiles;
	pattern_release(&mp);
	return ret;
}

/* ---- collect ---- */

static void variant_release(struct md_variant *mv)
{
	free(mv->name);
	free(mv->cwd);
	for (size_t i = 0; i < mv->nversions; i++)
		version_release(&mv->versions[i]);
	free(mv->versions);
	for (size_t i = 0; i < mv->npatterns; i++)
		pattern_release(&mv->patterns[i]);
	free(mv->patterns);
	memset(mv, 0, sizeof(*mv));
}

/*
 * Variants from a variants file share the base's cwd: git is asked once
 * per directory, not once per variant. (versions are not shared: each
 * variant's environment differs, which is often the point.)
 */
static int variant_collect(const struct plan *plan, size_t vi, struct metadata *md)
{
	const struct plan_variant *v = &plan->variants[vi];
	struct md_variant *mv = &md->variants[vi];
	struct plan_vars vars = { NULL, v->name, NULL, 0 };
	char **envp = NULL;
	size_t same;
	int ret = -1;

	mv->name = xstrdup(v->name);
	mv->cwd = xstrdup(v->cwd);
	mv->env = v->env;
	mv->nenv = v->env_len;
	for (same = 0; same < vi; same++)
		if (!strcmp(md->variants[same].cwd, v->cwd))
			break;
	if (same < vi)
		mv->git = md->variants[same].git;
	else if (git_collect(v->cwd, &mv->git) < 0)
		goto out;
	if (plan->nversions) {
		envp = version_env(v);
		mv->versions = xcalloc(plan->nversions, sizeof(*mv->versions));
		for (size_t i = 0; i < plan->nversions; i++) {
			if (version_run(&plan->versions[i], v, envp, &mv->versions[i]) < 0) {
				mv->nversions = i + 1;
				goto out;
			}
		}
		mv->nversions = plan->nversions;
	}
	mv->patterns = xcalloc(v->assemblies_len ? v->assemblies_len : 1, sizeof(*mv->patterns));
	for (size_t k = 0; k < v->assemblies_len; k++) {
		struct md_pattern *mp = &mv->patterns[k];
		char *expanded = plan_expand(v->assemblies[k], &vars), *err = NULL;
		int r;
		mv->npatterns = k + 1;
		mp->pattern = xstrdup(v->assemblies[k]);
		if (!expanded) /* plan_load() refuses what plan_expand() would */
			goto out;
		r = match_pattern(v->cwd, expanded, mp, &err);
		free(expanded);
		if (r < 0) {
			error("%s: variants[%zu].assemblies[%zu]: '%s': %s", plan->path, vi, k,
			      v->assemblies[k], err);
			free(err);
			goto out;
		}
		if (!mp->nfiles) {
			error("%s: variants[%zu].assemblies[%zu]: '%s' matches no file in '%s'",
			      plan->path, vi, k, v->assemblies[k], v->cwd);
			goto out;
		}
	}
	ret = 0;
out:
	strv_free(envp);
	return ret;
}

static int hash_path_cmp(const void *a, const void *b)
{
	const struct md_file *const *x = a, *const *y = b;
	return strcmp((*x)->hash_path, (*y)->hash_path);
}

/*
 * Every distinct file of every variant in one sha256_files() call, so that
 * every core hashes and a file several variants match is read once.
 */
static int hash_all(const struct plan *plan, struct metadata *md)
{
	struct md_file **all;
	struct hash_job *jobs;
	size_t n = 0, i = 0, njobs = 0, failed;
	int ret = 0;

	for (size_t v = 0; v < md->nvariants; v++)
		for (size_t k = 0; k < md->variants[v].npatterns; k++)
			n += md->variants[v].patterns[k].nfiles;
	if (!n)
		return 0;
	all = xcalloc(n, sizeof(*all));
	for (size_t v = 0; v < md->nvariants; v++)
		for (size_t k = 0; k < md->variants[v].npatterns; k++)
			for (size_t f = 0; f < md->variants[v].patterns[k].nfiles; f++)
				all[i++] = &md->variants[v].patterns[k].files[f];
	qsort(all, n, sizeof(*all), hash_path_cmp);
	jobs = xcalloc(n, sizeof(*jobs));
	for (i = 0; i < n; i++) {
		if (!i || strcmp(all[i - 1]->hash_path, all[i]->hash_path))
			jobs[njobs++].path = all[i]->hash_path;
		all[i]->job = njobs - 1;
	}
	failed = sha256_files(jobs, njobs, 0);
	for (size_t v = 0; v < md->nvariants; v++) {
		for (size_t k = 0; k < md->variants[v].npatterns; k++) {
			struct md_pattern *mp = &md->variants[v].patterns[k];
			for (size_t f = 0; f < mp->nfiles; f++) {
				const struct hash_job *j = &jobs[mp->files[f].job];
				if (j->err) {
					/* The first failure in plan order; the others say the same. */
					if (!ret)
						ret = error("%s: variants[%zu].assemblies[%zu]: '%s': %s",
							    plan->path, v, k, mp->pattern, j->err);
					continue;
				}
				mp->files[f].size = j->size;
				sha256_hex(j->digest, mp->files[f].sha256);
			}
		}
	}
	if (failed && !ret)
		ret = error("hashing %zu assemblies file(s) failed", failed);
	for (i = 0; i < njobs; i++)
		free(jobs[i].err);
	free(jobs);
	free(all);
	return ret;
}

int metadata_label_valid(const char *label)
{
	size_t n = strlen(label);
	if (!n || n > METADATA_LABEL_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = label[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

struct metadata *metadata_collect(const struct plan *plan, const char *host_label)
{
	struct metadata *md = xcalloc(1, sizeof(*md));

	host_collect(&md->host, host_label);
	md->variants = xcalloc(plan->nvariants ? plan->nvariants : 1, sizeof(*md->variants));
	for (size_t i = 0; i < plan->nvariants; i++) {
		md->nvariants = i + 1;
		if (variant_collect(plan, i, md) < 0)
			goto fail;
	}
	if (hash_all(plan, md) < 0)
		goto fail;
	return md;
fail:
	metadata_free(md);
	return NULL;
}

void metadata_free(struct metadata *md)
{
	if (!md)
		return;
	host_release(&md->host);
	for (size_t i = 0; i < md->nvariants; i++)
		variant_release(&md->variants[i]);
	free(md->variants);
	free(md);
}

/* ---- JSON ---- */

/* Allocation failures in cJSON are out of memory, which aborts. */
static cJSON *jcheck(cJSON *j)
{
	if (!j)
		die_oom();
	return j;
}

static void jadd(cJSON *obj, const char *key, cJSON *val)
{
	if (!val || !cJSON_AddItemToObject(obj, key, val))
		die_oom();
}

static void jpush(cJSON *arr, cJSON *val)
{
	if (!val || !cJSON_AddItemToArray(arr, val))
		die_oom();
}

/* Outside text: cleaned to UTF-8 here, whatever its origin. NULL is null. */
static cJSON *jtext(const char *s)
{
	cJSON *j;
	char *c;
	if (!s)
		return jcheck(cJSON_CreateNull());
	c = clean_text(s, strlen(s));
	j = jcheck(cJSON_CreateString(c));
	free(c);
	return j;
}

/* Integers travel as doubles in cJSON; all of these are far below 2^53. */
static cJSON *jint(int64_t v, int known)
{
	return jcheck(known ? cJSON_CreateNumber((double)v) : cJSON_CreateNull());
}

static cJSON *host_json(const struct md_host *h)
{
	cJSON *o = jcheck(cJSON_CreateObject());
	jadd(o, "label", jtext(h->label));
	jadd(o, "hostname", jtext(h->hostname));
	jadd(o, "os_release", jtext(h->os_release));
	jadd(o, "kernel", jtext(h->kernel));
	jadd(o, "kernel_version", jtext(h->kernel_version));
	jadd(o, "arch", jtext(h->arch));
	jadd(o, "cpu_model", jtext(h->cpu_model));
	jadd(o, "logical_cpus", jint(h->logical_cpus, h->logical_cpus > 0));
	jadd(o, "physical_cores", jint(h->physical_cores, h->physical_cores > 0));
	jadd(o, "online_cpus", jtext(h->online_cpus));
	jadd(o, "governor", jtext(h->governor));
	jadd(o, "boost", jcheck(h->boost < 0 ? cJSON_CreateNull() : cJSON_CreateBool(h->boost)));
	jadd(o, "memory_bytes", jint(h->memory_bytes, h->memory_bytes > 0));
	jadd(o, "cgroup_version", jtext(h->cgroup_version));
	jadd(o, "clock_resolution_ns", jint(h->clock_resolution_ns, h->clock_resolution_ns > 0));
	return o;
}

static cJSON *variant_json(const struct md_variant *v)
{
	cJSON *o = jcheck(cJSON_CreateObject()), *vers, *asm_arr, *env;

	jadd(o, "name", jtext(v->name));
	jadd(o, "cwd", jtext(v->cwd));
	/* What the plan or the variants file set, as written (placeholders unexpanded). */
	env = jcheck(cJSON_CreateObject());
	for (size_t i = 0; i < v->nenv; i++)
		jadd(env, v->env[i].key, jtext(v->env[i].value));
	jadd(o, "env", env);
	if (v->git.known) {
		cJSON *g = jcheck(cJSON_CreateObject());
		jadd(g, "head", jtext(v->git.head));
		jadd(g, "dirty", jcheck(cJSON_CreateBool(v->git.dirty)));
		jadd(o, "git", g);
	} else {
		jadd(o, "git", jcheck(cJSON_CreateNull()));
	}
	vers = jcheck(cJSON_CreateObject());
	for (size_t i = 0; i < v->nversions; i++) {
		const struct md_version *mv = &v->versions[i];
		cJSON *e = jcheck(cJSON_CreateObject()), *argv = jcheck(cJSON_CreateArray());
		for (size_t a = 0; a < mv->argc; a++)
			jpush(argv, jtext(mv->argv[a]));
		jadd(e, "argv", argv);
		jadd(e, "exit_code", jint(mv->exit_code, mv->exit_code >= 0));
		jadd(e, "output", jtext(mv->output ? mv->output : ""));
		jadd(e, "error", jtext(mv->error));
		jadd(vers, mv->name, e);
	}
	jadd(o, "versions", vers);
	asm_arr = jcheck(cJSON_CreateArray());
	for (size_t k = 0; k < v->npatterns; k++) {
		const struct md_pattern *mp = &v->patterns[k];
		cJSON *p = jcheck(cJSON_CreateObject()), *files = jcheck(cJSON_CreateArray());
		jadd(p, "pattern", jtext(mp->pattern));
		for (size_t f = 0; f < mp->nfiles; f++) {
			cJSON *fo = jcheck(cJSON_CreateObject());
			jadd(fo, "path", jtext(mp->files[f].path));
			jadd(fo, "size", jint((int64_t)mp->files[f].size, 1));
			jadd(fo, "sha256", jtext(mp->files[f].sha256));
			jpush(files, fo);
		}
		jadd(p, "files", files);
		jpush(asm_arr, p);
	}
	jadd(o, "assemblies", asm_arr);
	return o;
}

int metadata_write(const char *root, const struct metadata *md)
{
	cJSON *o = jcheck(cJSON_CreateObject()), *vars = jcheck(cJSON_CreateArray());
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(root, "metadata.json"), *text;
	int ret;

	jadd(o, "schema", jtext(METADATA_SCHEMA));
	jadd(o, "abev_version", jtext(ABEV_VERSION));
	jadd(o, "host", host_json(&md->host));
	for (size_t i = 0; i < md->nvariants; i++)
		jpush(vars, variant_json(&md->variants[i]));
	jadd(o, "variants", vars);
	text = cJSON_Print(o);
	if (!text)
		die_oom();
	strbuf_adds(&sb, text);
	strbuf_addch(&sb, '\n');
	cJSON_free(text);
	cJSON_Delete(o);
	ret = write_file_atomic(path, sb.buf, sb.len);
	strbuf_release(&sb);
	free(path);
	return ret;
}
