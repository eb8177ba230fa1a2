/*
 * journal: appending invocation records to invocations.jsonl and holding
 * the reserve (journal.h). Each line is written with one write() on a
 * descriptor opened O_APPEND, so that a reader sees whole lines, and at
 * most the last one cut short when abev was killed in the middle of it
 * (or when a write failed: the journal then stops). What is written is
 * hashed as it is written, so that a journal that stays in the evidence
 * is held to abev's bytes, not to what a run may have made of the file.
 * The lines are evidence.c's; this file only keeps them.
 */
#include "evidence/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/dirat.h"
#include "evidence/evidence.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* Created beneath the evidence root, no link followed (dirat.h); path names it in messages. */
static int create(const struct dirat *root, const char *name, const char *path)
{
	int fd = dirat_openat(root, name, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644);

	if (fd < 0)
		error("cannot create '%s': %s", path, strerror(errno));
	return fd;
}

/*
 * The reserve holds at least JOURNAL_RESERVE_BASE + 2 x the journal. When
 * the file system cannot give that, the reserve keeps what it has, and
 * reserve_problem says why (once): the run goes on, as it would have
 * without a reserve.
 */
static void grow_reserve(struct journal *j)
{
	uint64_t want = JOURNAL_RESERVE_BASE + 2 * j->bytes;
	int rc;

	if (want <= j->reserved || j->reserve_stuck || j->reserve_fd < 0)
		return;
	want = (want + JOURNAL_RESERVE_BASE - 1) / JOURNAL_RESERVE_BASE * JOURNAL_RESERVE_BASE;
	rc = posix_fallocate(j->reserve_fd, 0, (off_t)want);
	if (!rc) {
		j->reserved = want;
		return;
	}
	j->reserve_stuck = 1;
	j->reserve_problem = xasprintf("abev could hold back only %llu of the %llu bytes it keeps "
				       "in reserve (%s) to finish the evidence with should the disk "
				       "fill up: %s%s",
				       (unsigned long long)j->reserved, (unsigned long long)want,
				       EVIDENCE_RESERVE_FILE, strerror(rc),
				       rc == EFBIG ? " (the file-size limit, ulimit -f)" : "");
	warning("%s", j->reserve_problem);
}

/*
 * Holds JOURNAL_RESERVE_INODES inodes. Where the file system has no
 * O_TMPFILE there is no inode reserve (the byte reserve still is); where
 * it has no inodes left, reserve_problem says so.
 */
static void hold_inodes(struct journal *j)
{
	for (size_t i = 0; i < JOURNAL_RESERVE_INODES; i++) {
		j->inode_fd[i] = openat(j->root->fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (j->inode_fd[i] >= 0)
			continue;
		if (errno == ENOSPC && !j->reserve_problem)
			j->reserve_problem = xasprintf("abev could hold back only %zu of the %d inodes "
						       "it keeps to finish the evidence with: the "
						       "file system of '%s' has no more",
						       i, JOURNAL_RESERVE_INODES, j->root->path);
		break;
	}
}

int journal_open(struct journal *j, const struct dirat *root)
{
	*j = (struct journal)JOURNAL_INIT;
	j->root = root;
	j->path = path_join(root->path, EVIDENCE_JOURNAL_FILE);
	j->reserve_path = path_join(root->path, EVIDENCE_RESERVE_FILE);
	j->fd = create(root, EVIDENCE_JOURNAL_FILE, j->path);
	if (j->fd < 0) {
		free(j->path);
		j->path = NULL;
		journal_release(j);
		return -1;
	}
	j->reserve_fd = create(root, EVIDENCE_RESERVE_FILE, j->reserve_path);
	if (j->reserve_fd < 0) {
		int saved = errno;
		journal_remove(j);
		errno = saved;
		return -1;
	}
	j->sum = sha256_new();
	grow_reserve(j);
	hold_inodes(j);
	return 0;
}

/*
 * All of line, hashed as far as it was written: a write that fails part
 * way leaves that part in the file, and the digest says so. 0 or -1 (errno).
 */
static int write_line(struct journal *j, const char *line, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(j->fd, line + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			j->cut = done;
			return -1;
		}
		sha256_update(j->sum, line + done, (size_t)n);
		done += (size_t)n;
	}
	return 0;
}

int journal_append(struct journal *j, const struct invocation *inv)
{
	char *line;
	size_t len;
	int ret = 0;

	if (journal_stopped(j))
		return 0;
	line = evidence_invocation_line(inv);
	len = strlen(line);
	if (write_line(j, line, len) < 0) {
		int saved = errno;
		ret = error("cannot write '%s': %s", j->path, strerror(errno));
		close(j->fd);
		j->fd = -1;
		errno = saved;
	} else {
		j->bytes += len;
		j->lines++;
		grow_reserve(j);
	}
	free(line);
	return ret;
}

int journal_stopped(const struct journal *j)
{
	return j->fd < 0 || !j->sum;
}

int journal_close(struct journal *j, unsigned char digest[SHA256_LEN], uint64_t *size)
{
	if (!j->path || !j->sum)
		return 0;
	sha256_final(j->sum, digest);
	j->sum = NULL;
	*size = j->bytes + j->cut;
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	return 1;
}

uint64_t journal_release_reserve(struct journal *j)
{
	uint64_t freed = j->reserved;

	for (size_t i = 0; i < JOURNAL_RESERVE_INODES; i++) {
		if (j->inode_fd[i] >= 0)
			close(j->inode_fd[i]);
		j->inode_fd[i] = -1;
	}
	if (j->reserve_fd >= 0)
		close(j->reserve_fd);
	j->reserve_fd = -1;
	if (j->reserve_path && dirat_unlink(j->root, EVIDENCE_RESERVE_FILE, 0) < 0 &&
	    errno != ENOENT)
		warning("cannot remove '%s': %s", j->reserve_path, strerror(errno));
	free(j->reserve_path);
	j->reserve_path = NULL;
	j->reserved = 0;
	return freed;
}

/* The running digest, no longer wanted. */
static void drop_sum(struct journal *j)
{
	unsigned char unused[SHA256_LEN];

	if (j->sum)
		sha256_final(j->sum, unused);
	j->sum = NULL;
}

int journal_remove(struct journal *j)
{
	int ret = 0;

	journal_release_reserve(j);
	drop_sum(j);
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	if (j->path && dirat_unlink(j->root, EVIDENCE_JOURNAL_FILE, 0) < 0 && errno != ENOENT)
		ret = error("cannot remove '%s': %s", j->path, strerror(errno));
	free(j->path);
	j->path = NULL;
	return ret;
}

void journal_release(struct journal *j)
{
	journal_release_reserve(j);
	free(j->reserve_problem);
	j->reserve_problem = NULL;
	drop_sum(j);
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	free(j->path);
	j->path = NULL;
}
