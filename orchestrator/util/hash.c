/*
 * hash: SHA-256 through libcrypto's EVP interface — of buffers, of one
 * file streamed in 64 KiB reads, and of many files on a pool of threads
 * that take the next file from a shared atomic index, biggest files first
 * so that one large file does not start last and finish alone. It opens
 * only regular files and never follows a symlink. It does not walk
 * directories or know what the digests are for (seal.c does).
 */
#include "util/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "util/dirat.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/path.h"
#include "util/strbuf.h"

/*
 * The size of each read() of a file being hashed: small enough that the
 * buffer stays in the core's L2 cache between the kernel's copy into it
 * and the digest's pass over it. With 1 MiB reads every copy went out to
 * memory and came back, and the copy took a third of the time (perf:
 * _copy_to_iter 38 % of the samples; 14 % at 64 KiB, 9 % for openssl
 * dgst and its 8 KiB reads). The syscalls of 64 KiB reads cost nothing
 * next to the digest.
 */
#define HASH_READ_SIZE (64u * 1024)

/*
 * Read by every worker thread; set by the thread that seals. stop_count
 * is written before stop_armed is set and read only after it is seen set.
 */
static atomic_int stop_armed, stop_base;
static int (*stop_count)(void);

void hash_stop_on_change_from(int (*count)(void), int base)
{
	stop_count = count;
	atomic_store(&stop_base, base);
	atomic_store(&stop_armed, 1);
}

void hash_stop_on_change(int (*count)(void))
{
	hash_stop_on_change_from(count, count());
}

void hash_stop_clear(void)
{
	atomic_store(&stop_armed, 0);
}

int hash_stopped(void)
{
	return atomic_load(&stop_armed) && stop_count() != atomic_load(&stop_base);
}

struct sha256 {
	EVP_MD_CTX *ctx;
};

/*
 * SHA-256 as the default provider implements it (with the SHA extensions
 * where the CPU has them), fetched once per process. EVP_sha256() only
 * names the algorithm: OpenSSL 3 fetches it again at every
 * EVP_DigestInit_ex(), a lookup under the provider store's lock that
 * every hashing thread takes, once per file. Kept until exit, as OpenSSL
 * keeps its own; should the fetch fail, EVP_sha256() is used, and the
 * init reports what is wrong.
 */
static EVP_MD *fetched_md;
static pthread_once_t md_once = PTHREAD_ONCE_INIT;

static void md_fetch(void)
{
#if OPENSSL_VERSION_MAJOR >= 3
	fetched_md = EVP_MD_fetch(NULL, "SHA2-256", NULL);
	ERR_clear_error();
#endif
}

static const EVP_MD *sha256_md(void)
{
	if (pthread_once(&md_once, md_fetch) != 0 || !fetched_md)
		return EVP_sha256();
	return fetched_md;
}

const char *hash_crypto_err(char *buf, size_t len)
{
	unsigned long e = ERR_get_error();
	if (e)
		ERR_error_string_n(e, buf, len);
	else
		snprintf(buf, len, "unknown libcrypto error");
	ERR_clear_error();
	return buf;
}

/*
 * SHA-256 can only fail inside libcrypto when memory or the default
 * provider is gone; the void API below treats that like running out of
 * memory. sha256_file() reports such a failure as an error instead.
 */
ABEV_NORETURN static void crypto_die(const char *what)
{
	char msg[256];
	hash_crypto_err(msg, sizeof(msg));
	fprintf(stderr, "abev: fatal: %s: %s\n", what, msg);
	fflush(stderr);
	abort();
}

struct sha256 *sha256_new(void)
{
	struct sha256 *h = xmalloc(sizeof(*h));
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx)
		die_oom();
	if (EVP_DigestInit_ex(h->ctx, sha256_md(), NULL) != 1)
		crypto_die("cannot start SHA-256");
	return h;
}

void sha256_update(struct sha256 *h, const void *data, size_t len)
{
	if (len && EVP_DigestUpdate(h->ctx, data, len) != 1)
		crypto_die("SHA-256 update failed");
}

void sha256_final(struct sha256 *h, unsigned char out[SHA256_LEN])
{
	unsigned int n = 0;
	if (EVP_DigestFinal_ex(h->ctx, out, &n) != 1 || n != SHA256_LEN)
		crypto_die("SHA-256 final failed");
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

void sha256_buf(const void *data, size_t len, unsigned char out[SHA256_LEN])
{
	struct sha256 *h = sha256_new();
	sha256_update(h, data, len);
	sha256_final(h, out);
}

void sha256_hex(const unsigned char d[SHA256_LEN], char out[SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < SHA256_LEN; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 0xf];
	}
	out[SHA256_HEX_LEN] = '\0';
}

/* What a worker thread reuses across its files: a digest context, the digest, a read buffer. */
struct worker_tools {
	EVP_MD_CTX *ctx;
	const EVP_MD *md;
	unsigned char *buf;
};

static void tools_init(struct worker_tools *t)
{
	t->ctx = EVP_MD_CTX_new();
	if (!t->ctx)
		die_oom();
	t->md = sha256_md();
	t->buf = xmalloc(HASH_READ_SIZE);
}

static void tools_release(struct worker_tools *t)
{
	EVP_MD_CTX_free(t->ctx);
	free(t->buf);
	t->ctx = NULL;
	t->buf = NULL;
}

/* Hashes path with a worker's tools. */
static int hash_one(const struct worker_tools *t, const struct dirat *root,
		    const char *name, unsigned char out[SHA256_LEN], uint64_t *size,
		    struct stat *after, char **err)
{
	char *joined = root ? path_join(root->path, name) : NULL;
	const char *path = joined ? joined : name;
	int fd = -1, ret = -1;
	struct stat st;
	uint64_t total = 0;
	unsigned int n = 0;
	char msg[256];

	/*
	 * O_NONBLOCK keeps open() from waiting for a writer when path names a
	 * FIFO; fstat() then refuses it. It changes nothing for regular files.
	 */
	fd = root ? dirat_openat(root, name, O_RDONLY | O_NONBLOCK, 0)
		  : open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ELOOP)
			*err = xasprintf("cannot hash '%s': is a symbolic link", path);
		else
			*err = xasprintf("cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		*err = xasprintf("cannot stat '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("cannot hash '%s': not a regular file", path);
		goto out;
	}
	/* Advice only: a failure costs speed, not correctness. */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (EVP_DigestInit_ex(t->ctx, t->md, NULL) != 1) {
		hash_crypto_err(msg, sizeof(msg));
		*err = xasprintf("cannot hash '%s': %s", path, msg);
		goto out;
	}
	for (;;) {
		ssize_t r;
		if (hash_stopped()) {
			*err = xasprintf("stopped hashing '%s': abev received a signal", path);
			goto out;
		}
		r = read(fd, t->buf, HASH_READ_SIZE);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*err = xasprintf("cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		if (EVP_DigestUpdate(t->ctx, t->buf, (size_t)r) != 1) {
			hash_crypto_err(msg, sizeof(msg));
			*err = xasprintf("cannot hash '%s': %s", path, msg);
			goto out;
		}
		total += (uint64_t)r;
	}
	if (EVP_DigestFinal_ex(t->ctx, out, &n) != 1 || n != SHA256_LEN) {
		hash_crypto_err(msg, sizeof(msg));
		*err = xasprintf("cannot hash '%s': %s", path, msg);
		goto out;
	}
	/* Its identity once read: a write meanwhile shows in its times (ledger.h). */
	if (after && fstat(fd, after) < 0) {
		*err = xasprintf("cannot stat '%s': %s", path, strerror(errno));
		goto out;
	}
	if (size)
		*size = total;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(joined);
	return ret;
}

int sha256_file(const char *path, unsigned char out[SHA256_LEN], uint64_t *size, char **err)
{
	struct worker_tools t;
	int ret;
	*err = NULL;
	tools_init(&t);
	ret = hash_one(&t, NULL, path, out, size, NULL, err);
	tools_release(&t);
	return ret;
}

struct pool {
	struct hash_job *jobs;
	const size_t *order;   /* indexes into jobs, biggest file first */
	size_t n;
	atomic_size_t next;
	atomic_size_t failed;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	struct worker_tools t;

	tools_init(&t);
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		struct hash_job *j;
		if (i >= p->n)
			break;
		j = &p->jobs[p->order[i]];
		j->err = NULL;
		if (hash_stopped()) {
			j->err = xasprintf("stopped before hashing '%s': abev received a signal",
					   j->path);
			j->stopped = 1;
			atomic_fetch_add(&p->failed, 1);
			continue;
		}
		if (hash_one(&t, j->root, j->path, j->digest, &j->size, &j->st, &j->err) < 0) {
			j->stopped = hash_stopped();
			atomic_fetch_add(&p->failed, 1);
		}
	}
	tools_release(&t);
	return NULL;
}

struct size_index {
	off_t size;
	size_t i;
};

static int by_size_desc(const void *a, const void *b)
{
	const struct size_index *x = a, *y = b;
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The order in which the pool takes the jobs. With more jobs than
 * threads, a stat() each (a hint only: the file is stat'ed again once
 * open) lets the biggest files start first. A job beneath a root is
 * stat'ed beneath the root's descriptor, as its path is relative to it;
 * that a link on the way would be followed here moves only the order,
 * never what is read (hash_one() opens through dirat_openat()).
 */
static size_t *schedule(const struct hash_job *jobs, size_t n, unsigned threads)
{
	size_t *order = xcalloc(n, sizeof(*order));
	if (threads > 1 && n > threads) {
		struct size_index *s = xcalloc(n, sizeof(*s));
		for (size_t i = 0; i < n; i++) {
			struct stat st;
			int r = jobs[i].root ? fstatat(jobs[i].root->fd, jobs[i].path, &st,
						       AT_SYMLINK_NOFOLLOW)
					     : lstat(jobs[i].path, &st);
			s[i].i = i;
			s[i].size = r == 0 ? st.st_size : 0;
		}
		qsort(s, n, sizeof(*s), by_size_desc);
		for (size_t i = 0; i < n; i++)
			order[i] = s[i].i;
		free(s);
	} else {
		for (size_t i = 0; i < n; i++)
			order[i] = i;
	}
	return order;
}

size_t sha256_files(struct hash_job *jobs, size_t n, unsigned threads)
{
	struct pool p;
	pthread_t *tids = NULL;
	size_t *order;
	unsigned started = 0;

	if (!n)
		return 0;
	if (!threads) {
		/* Not POSIX, but glibc, musl and the BSDs all declare it. */
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cpus > 0 && cpus < 1024 ? (unsigned)cpus : 1;
	}
	if (threads > n)
		threads = (unsigned)n;

	order = schedule(jobs, n, threads);
	p.jobs = jobs;
	p.order = order;
	p.n = n;
	atomic_init(&p.next, 0);
	atomic_init(&p.failed, 0);

	/*
	 * The calling thread is one of the workers, so every job is done
	 * even if no extra thread could be started.
	 */
	if (threads > 1) {
		tids = xcalloc(threads - 1, sizeof(*tids));
		for (unsigned i = 0; i < threads - 1; i++) {
			if (pthread_create(&tids[i], NULL, worker, &p) != 0)
				break;
			started++;
		}
	}
	worker(&p);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	free(order);
	return atomic_load(&p.failed);
}
