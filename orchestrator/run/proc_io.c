/*
 * proc_io: where a child's output goes. In capture mode stdout (and
 * stderr, if asked) comes back through a pipe into a bounded strbuf; in
 * log mode abev writes each log file itself from a pipe, splice()ing
 * straight into the file while under the cap and reading and dropping
 * the rest, so that the child never blocks on a full pipe and the cap
 * holds whatever it writes; otherwise the child writes its files itself.
 * A log can keep only the stream's head and tail: abev writes the head,
 * holds the last bytes in a ring while the rest passes, and writes a
 * marker line and the tail once the child is gone. A log can also be
 * hashed whole as it passes (its size and SHA-256), so that the evidence
 * says exactly what was printed whatever the file keeps; abev then reads
 * every byte rather than splice() it.
 * The pipes are read by proc.c's wait loop (proc_io_drain()); this module
 * starts and waits for nothing.
 */
#include "run/proc_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/dirat.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

/* Bytes of output read per sink and call, so that a flood cannot keep the caller from its deadline. */
#define DRAIN_BUDGET (1 << 20)
/* The pipe size asked for in log mode: fewer wake-ups, less blocking of a chatty child. */
#define LOG_PIPE_SIZE (1 << 20)

/*
 * Head and tail, past the head: data goes into the ring of the last
 * tail_max bytes; what it pushes out of the ring is left out.
 */
static void sink_tail(struct proc_sink *s, const char *data, size_t n)
{
	size_t out = s->tail_len + n > s->tail_max ? s->tail_len + n - s->tail_max : 0;

	if (n >= s->tail_max) {
		memcpy(s->tail, data + n - s->tail_max, s->tail_max);
		s->tail_pos = 0;
	} else {
		size_t end = (s->tail_pos + s->tail_len) % s->tail_max;
		size_t first = s->tail_max - end < n ? s->tail_max - end : n;

		memcpy(s->tail + end, data, first);
		memcpy(s->tail, data + first, n - first);
		s->tail_pos = (s->tail_pos + out) % s->tail_max;
	}
	s->tail_len = s->tail_len + n - out;
	s->st->bytes_left_out += (int64_t)out;
}

/*
 * Writes n bytes of data to the sink's file, retrying on EINTR; *done:
 * the bytes that reached it, also when a write fails part of the way (a
 * file-size limit lets part of a chunk in), so that the counts say what
 * the file holds. 0 or -1 with errno.
 */
static int sink_write(struct proc_sink *s, const char *data, size_t n, size_t *done)
{
	*done = 0;
	while (*done < n) {
		ssize_t w = write(s->file, data + *done, n - *done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		*done += (size_t)w;
	}
	return 0;
}

/*
 * Log mode: makes the log file at the stream's first byte to keep. The
 * run is going on meanwhile and may have put something at that name: abev
 * writes only a file it made itself (O_EXCL, no link followed, and no
 * FIFO to block on), and otherwise drops the stream, saying so once.
 */
static void sink_open_lazy(struct proc_sink *s)
{
	const struct dirat *dir = s->lazy_dir;
	int fd;

	s->lazy_dir = NULL;
	fd = proc_io_open_high(dir, s->path, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK);
	if (fd >= 0 && fcntl(fd, F_SETFL, 0) == 0) {
		s->file = fd;
		return;
	}
	warning("cannot make '%s': %s; the stream is dropped", s->path,
		errno == EEXIST ? "the run put something at that name first" : strerror(errno));
	if (fd >= 0)
		close(fd);
	s->max = s->st->bytes_written;
	s->tail_max = s->tail_len = 0;
}

/*
 * Keeps what fits of data under the sink's cap; the rest goes to the tail
 * when the sink keeps one, else it is counted as dropped.
 */
static void sink_keep(struct proc_sink *s, const char *data, size_t n)
{
	int64_t room;
	size_t keep, wrote = 0;

	if (s->lazy_dir && n)
		sink_open_lazy(s);
	room = s->max > s->st->bytes_written ? s->max - s->st->bytes_written : 0;
	keep = (int64_t)n < room ? n : (size_t)room;
	if (keep && s->buf) {
		strbuf_add(s->buf, data, keep);
	} else if (keep && s->file >= 0 && sink_write(s, data, keep, &wrote) < 0) {
		/* A full disk is reported once; what could not be written counts as dropped. */
		warning("cannot write '%s': %s; the rest of the stream is dropped", s->path,
			strerror(errno));
		keep = wrote;
		s->max = s->st->bytes_written + (int64_t)wrote;
		s->tail_max = s->tail_len = 0;
	}
	s->st->bytes_written += (int64_t)keep;
	if (s->tail_max && n > keep)
		sink_tail(s, data + keep, n - keep);
	else
		s->st->bytes_dropped += (int64_t)(n - keep);
}

/*
 * Head and tail, once the stream is over: the marker line for the middle
 * left out, then the tail. A write that fails drops the rest, as past
 * the cap.
 */
static void sink_write_tail(struct proc_sink *s)
{
	char mark[PROC_LOG_MARKER_MAX];
	size_t first = s->tail_max - s->tail_pos < s->tail_len ? s->tail_max - s->tail_pos
							       : s->tail_len;
	int n;

	if (s->lazy_dir && s->tail_len)
		sink_open_lazy(s);
	if (!s->tail_max || s->file < 0)
		return;
	if (s->st->bytes_left_out > 0) {
		n = snprintf(mark, sizeof(mark), "\n[abev: %lld bytes left out here]\n",
			     (long long)s->st->bytes_left_out);
		if (n > 0 && (size_t)n < sizeof(mark) && write_all(s->file, mark, (size_t)n) < 0)
			goto fail;
	}
	if (write_all(s->file, s->tail + s->tail_pos, first) < 0 ||
	    write_all(s->file, s->tail, s->tail_len - first) < 0)
		goto fail;
	s->st->bytes_written += (int64_t)s->tail_len;
	s->tail_len = 0;
	return;
fail:
	warning("cannot write '%s': %s; the rest of the stream is dropped", s->path, strerror(errno));
	s->st->bytes_dropped += (int64_t)s->tail_len;
	s->tail_len = 0;
}

/* The whole stream, whatever is kept of it: its size and running hash. */
static void sink_count(struct proc_sink *s, const char *data, size_t n)
{
	if (!s->hash)
		return;
	sha256_update(s->hash, data, n);
	s->st->bytes_total += (int64_t)n;
}

/* Ends the stream's hash into its counts: what was read, to the end or not. */
static void sink_end_hash(struct proc_sink *s)
{
	if (!s->hash)
		return;
	sha256_final(s->hash, s->st->sha256);
	s->hash = NULL;
	s->st->hashed = 1;
}

/*
 * Log mode, under the cap: moves what the pipe holds straight into the
 * file (splice(), no copy through abev), so that abev keeps up with a
 * child that writes as fast as it can and the child does not wait on a
 * full pipe any longer than it would on the file. Returns the bytes
 * moved, 0 at end of file, -1 with errno (EAGAIN: the pipe is empty;
 * EINVAL: the file cannot take a splice, read() instead).
 */
static ssize_t sink_splice(struct proc_sink *s, size_t max)
{
	ssize_t n = splice(s->rd, NULL, s->file, NULL, max, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);

	if (n > 0)
		s->st->bytes_written += n;
	return n;
}

/*
 * Reads what the pipe holds, at most DRAIN_BUDGET bytes. Closes the pipe
 * at end of file. Returns 1 when the budget ran out with more possibly
 * waiting, 0 otherwise.
 */
int proc_io_drain(struct proc_sink *s)
{
	char buf[65536];
	size_t total = 0;

	while (s->rd >= 0) {
		int64_t room = s->max - s->st->bytes_written;
		ssize_t n;
		if (total >= DRAIN_BUDGET)
			return 1;
		if (s->file >= 0 && room > 0 && s->can_splice && !s->tail_len && !s->hash) {
			n = sink_splice(s, room < DRAIN_BUDGET ? (size_t)room : DRAIN_BUDGET);
			if (n > 0) {
				total += (size_t)n;
				continue;
			}
			if (n < 0 && (errno == EINVAL || errno == ENOSYS)) {
				s->can_splice = 0;
				continue;
			}
			if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
				/* The file refused (a full disk): read() and write() say so once. */
				s->can_splice = 0;
				continue;
			}
		} else {
			n = read(s->rd, buf, sizeof(buf));
			if (n > 0) {
				sink_count(s, buf, (size_t)n);
				if (!s->discard)
					sink_keep(s, buf, (size_t)n);
				total += (size_t)n;
				continue;
			}
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		/* End of file, or an unreadable pipe: nothing more will come. */
		close(s->rd);
		s->rd = -1;
	}
	return 0;
}

/*
 * After the child and its leftovers are gone, whatever they wrote is
 * still in the pipes. Reads it to the end, or as far as a process that
 * escaped the kill has written so far (bounded: such a process could
 * write for ever).
 */
void proc_io_drain_rest(struct proc_sink sinks[2])
{
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 64 && proc_io_drain(&sinks[i]); k++)
			;
		sink_write_tail(&sinks[i]);
	}
}

int proc_io_open_high(const struct dirat *dir, const char *path, int flags)
{
	int fd = dir ? dirat_openat(dir, path, flags, 0644)
		     : open(path, flags | O_CLOEXEC | O_NOCTTY, 0644);
	int hi;
	if (fd < 0 || fd > 2)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return hi;
}

/*
 * The file output FILE names, opened by abev for the child's whole
 * stdout: one name beneath the directory the caller opened before any
 * run, so that a run that swaps a directory on the path for a link
 * cannot move it. Not following a symlink, and refusing a file with
 * another hard link, keeps a run from making abev truncate what the
 * name was made to reach; the file is truncated only once it is known
 * to be a plain one.
 */
static int open_stdout_file(const struct proc_spec *spec)
{
	const char *path = spec->stdout_file;
	int fd = !spec->stdout_file_dir ? -1
		 : proc_io_open_high(spec->stdout_file_dir, spec->stdout_file_name,
				     O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	const char *why = NULL;

	if (!spec->stdout_file_dir)
		return error("output file '%s': its directory was not opened before the run", path);
	if (fd < 0)
		return error("cannot open output file '%s': %s", path,
			     errno == ELOOP ? "it is a symbolic link" : strerror(errno));
	if (fstat(fd, &st) < 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_nlink > 1)
		why = "it has another hard link";
	else if (ftruncate(fd, 0) < 0 || fcntl(fd, F_SETFL, 0) < 0)
		why = strerror(errno);
	if (!why)
		return fd;
	close(fd);
	return error("cannot write output file '%s': %s", path, why);
}

/*
 * An output pipe: its read end non-blocking for the parent, its write
 * end at fd >= 3 for the child's dup2(). size > 0 asks for that pipe
 * size (best effort). 0 or -1 after error().
 */
static int open_pipe(int *rd, int *wr, int size)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return error("cannot create a pipe: %s", strerror(errno));
	/* The child's stdout blocks as a pipe normally does. */
	if (fcntl(p[1], F_SETFL, 0) < 0 ||
	    (*wr = p[1] > 2 ? p[1] : fcntl(p[1], F_DUPFD_CLOEXEC, 3)) < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return error("cannot set up a pipe: %s", strerror(e));
	}
	if (*wr != p[1])
		close(p[1]);
	*rd = p[0];
	if (size > 0)
		(void)fcntl(*rd, F_SETPIPE_SZ, size);
	return 0;
}

/*
 * Log mode, a log file beneath log_dir: capped, maybe head and tail. The
 * file is made at the first byte (sink_open_lazy()): most runs measured
 * print nothing on one stream or both, and making a file is the dearest
 * step of an invocation on some file systems (ext4 without a journal
 * scans past every recently deleted inode). 0, or -1 after error().
 */
static int open_sink_log(const struct proc_spec *spec, struct proc_sink *s, const char *path)
{
	if (spec->log_dir) {
		s->lazy_dir = spec->log_dir;
	} else {
		s->file = proc_io_open_high(NULL, path, O_WRONLY | O_CREAT | O_TRUNC);
		if (s->file < 0)
			return error("cannot open '%s': %s", path, strerror(errno));
	}
	s->path = path;
	s->max = spec->log_max_bytes;
	if (spec->log_keep_bytes > 0 &&
	    spec->log_keep_bytes <= (spec->log_max_bytes - PROC_LOG_MARKER_MAX) / 2) {
		s->max = spec->log_keep_bytes;
		s->tail_max = (size_t)spec->log_keep_bytes;
		s->tail = xmalloc(s->tail_max);
	}
	return 0;
}

/*
 * Log mode, no log: the stream read and discarded (log_discard), or
 * stdout whole into the stdout_file. 0 or -1 after error().
 */
static int open_sink_instead(const struct proc_spec *spec, struct proc_sink *s)
{
	if (spec->log_discard) {
		s->discard = 1;
		return 0;
	}
	s->file = open_stdout_file(spec);
	if (s->file < 0)
		return -1;
	s->path = spec->stdout_file;
	s->max = INT64_MAX;
	return 0;
}

int proc_io_open_streams(const struct proc_spec *spec, struct proc_sink sinks[2],
			 struct proc_result *res, int *fd_out, int *fd_err)
{
	const char *out_path = spec->stdout_path ? spec->stdout_path : "/dev/null";
	const char *err_path = spec->stderr_path ? spec->stderr_path : "/dev/null";
	const char *paths[2] = { spec->stdout_path, spec->stderr_path };
	int *ends[2] = { fd_out, fd_err };
	struct proc_stream *counts[2] = { &res->out, &res->err };
	/* One file for both: share the offset (or the pipe), or each stream overwrites the other. */
	int shared = spec->capture ? spec->capture_stderr
		     : !spec->log_discard && !spec->inherit_output && strcmp(err_path, out_path) == 0;

	if (spec->capture) {
		struct proc_sink *s = &sinks[0];
		s->buf = spec->capture;
		s->max = (int64_t)spec->capture_max;
		s->st = counts[0];
		if (open_pipe(&s->rd, fd_out, 0) < 0)
			return -1;
	}
	for (int i = spec->capture ? 1 : 0; i < 2 && !(i == 1 && shared); i++) {
		const char *path = paths[i] ? paths[i] : "/dev/null";
		struct proc_sink *s = &sinks[i];

		if (spec->inherit_output) {
			*ends[i] = fcntl(i ? STDERR_FILENO : STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
			if (*ends[i] < 0)
				return error("cannot pass abev's %s on: %s", i ? "stderr" : "stdout",
					     strerror(errno));
			continue;
		}
		if (!spec->log_capped || (!paths[i] && !spec->log_discard)) {
			*ends[i] = proc_io_open_high(paths[i] ? spec->log_dir : NULL, path,
						     O_WRONLY | O_CREAT | O_TRUNC);
			if (*ends[i] < 0)
				return error("cannot open '%s': %s", path, strerror(errno));
			continue;
		}
		s->st = counts[i];
		if (spec->log_discard || (i == 0 && spec->stdout_file)) {
			if (open_sink_instead(spec, s) < 0)
				return -1;
		} else if (open_sink_log(spec, s, path) < 0) {
			return -1;
		}
		if (spec->log_hash)
			s->hash = sha256_new();
		if (open_pipe(&s->rd, ends[i], LOG_PIPE_SIZE) < 0)
			return -1;
	}
	if (shared) {
		*fd_err = fcntl(*fd_out, F_DUPFD_CLOEXEC, 3);
		if (*fd_err < 0)
			return error("cannot open '%s': %s", err_path, strerror(errno));
	}
	return 0;
}

void proc_io_close(struct proc_sink sinks[2], int report)
{
	for (int i = 0; i < 2; i++) {
		if (sinks[i].rd >= 0)
			close(sinks[i].rd);
		sinks[i].rd = -1;
		if (sinks[i].file >= 0 && close(sinks[i].file) < 0 && report)
			warning("cannot close '%s': %s", sinks[i].path, strerror(errno));
		sinks[i].file = -1;
		sinks[i].lazy_dir = NULL;
		sink_end_hash(&sinks[i]);
		free(sinks[i].tail);
		sinks[i].tail = NULL;
		sinks[i].tail_max = sinks[i].tail_len = 0;
	}
}
