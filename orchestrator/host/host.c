/*
 * host: reads the machine's facts for metadata.json (host.h). Each reader
 * takes a ceiling and is silent; parsing follows the files' own formats
 * (os-release(5), proc(5)). What abev does with the facts is not here.
 */
#include "host/host.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "evidence/metadata_fields.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/number.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/utf8.h"

/* Ceilings for what is read from /proc, /sys and /etc. */
#define SYSFILE_MAX (64u << 10)
#define CPUINFO_MAX (16u << 20)
#define MOUNTINFO_MAX (4u << 20)
/* A value such as a kernel version is a line, not a document. */
#define TEXT_MAX 4096

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * A /proc, /sys or /etc file into sb (replacing its contents), silently:
 * a missing or unreadable file only makes a figure unknown. 0 or -1.
 */
static int read_quiet(struct strbuf *sb, const char *path, size_t max)
{
	strbuf_reset(sb);
	return read_small(sb, path, max, READ_REGULAR) == READ_SMALL_OK ? 0 : -1;
}

/* A one-value file ("performance\n"), trimmed; NULL when absent or empty. */
static char *read_value(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *v = NULL;
	if (read_quiet(&sb, path, SYSFILE_MAX) == 0 && sb.len <= TEXT_MAX) {
		v = utf8_clean_trim(sb.buf, sb.len);
		if (!*v) {
			free(v);
			v = NULL;
		}
	}
	strbuf_release(&sb);
	return v;
}

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
			out = v.len <= TEXT_MAX ? utf8_clean_trim(v.buf, v.len) : NULL;
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
static void cpuinfo(struct host_facts *h)
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
				h->cpu_model = utf8_clean(val, vlen);
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
				ALLOC_GROW(ids, nids + 1, alloc);
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
		h->physical_cores = (int64_t)distinct;
	}
out:
	free(ids);
	strbuf_release(&sb);
}

static void meminfo(struct host_facts *h)
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
static char *cgroup_version(void)
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
	return result ? xstrdup(result) : NULL;
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

void host_collect(struct host_facts *h, const char *label)
{
	char name[HOST_NAME_MAX + 1];
	struct utsname u;
	struct timespec res;
	long n;

	metadata_fields_unset(h);

	/* gethostname() need not terminate a truncated name. */
	if (gethostname(name, sizeof(name)) == 0) {
		name[sizeof(name) - 1] = '\0';
		h->hostname = utf8_clean(name, strlen(name));
	}
	if (label)
		h->label = xstrdup(label);
	else if (h->hostname)
		h->label = xstrdup(h->hostname);
	h->os_release = os_release();
	if (uname(&u) == 0) {
		h->kernel = utf8_clean(u.release, strnlen(u.release, sizeof(u.release)));
		h->kernel_version = utf8_clean(u.version, strnlen(u.version, sizeof(u.version)));
		h->arch = utf8_clean(u.machine, strnlen(u.machine, sizeof(u.machine)));
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
