/*
 * proc_io: the child's output streams for proc (see proc_io.c). Internal
 * to proc.
 */
#ifndef ABEV_PROC_IO_H
#define ABEV_PROC_IO_H

#include <stdint.h>

#include "run/proc.h"

/*
 * Where one of the child's output pipes goes: into a strbuf (capture
 * mode) or into a log file (log mode), at most max bytes either way.
 */
struct proc_sink {
	int rd;                 /* read end of the pipe, or -1 once at end of file */
	int file;               /* log mode: the log file, else -1 */
	const char *path;       /* log mode, for messages (borrowed) */
	struct strbuf *buf;     /* capture mode (borrowed) */
	int64_t max;
	struct proc_stream *st; /* counts, in the caller's proc_result */
	int can_splice;         /* log mode: splice() into the file works */
	int discard;            /* proc_spec.log_discard: counted and hashed, not kept */
	/*
	 * Head and tail (proc_spec.log_keep_bytes): past max, the last
	 * tail_max bytes of the stream, a ring starting at tail_pos, written
	 * after the marker line by proc_io_drain_rest(). NULL otherwise.
	 */
	char *tail;
	size_t tail_max, tail_len, tail_pos;
	/* proc_spec.log_hash: the whole stream's running SHA-256, else NULL */
	struct sha256 *hash;
	/*
	 * Log mode: the log file is made at the stream's first byte, beneath
	 * this directory (borrowed), at path; an empty stream leaves no file.
	 * NULL once made, or when there is none to make.
	 */
	const struct dirat *lazy_dir;
};

#define PROC_SINK_INIT { -1, -1, NULL, NULL, 0, NULL, 1, 0, NULL, 0, 0, 0, NULL, NULL }

/*
 * Opens what the child's stdout and stderr go to: its ends in *fd_out and
 * *fd_err (proc closes them after fork), abev's ends in sinks (counting
 * into res->out and res->err). In capture mode stdout is a pipe into
 * spec->capture; in log mode each log file is fed by abev from a pipe, so
 * that the cap holds whatever the child writes; otherwise the child
 * writes the files itself. 0 or -1 after error().
 */
int proc_io_open_streams(const struct proc_spec *spec, struct proc_sink sinks[2],
			 struct proc_result *res, int *fd_out, int *fd_err);
/*
 * Reads what s's pipe holds, at most a budget of bytes, and keeps what
 * fits under its cap. Closes the pipe at end of file. Returns 1 when the
 * budget ran out with more possibly waiting, 0 otherwise.
 */
int proc_io_drain(struct proc_sink *s);
/*
 * After the child and its leftovers are gone: reads the pipes to the end,
 * or as far as a process that escaped the kill has written so far, then
 * writes each head-and-tail log's marker line and tail.
 */
void proc_io_drain_rest(struct proc_sink sinks[2]);
/*
 * Closes the pipes and files, frees the tails and ends each hash into its
 * proc_stream (what was read so far); report: warn when a log file's
 * close fails.
 */
void proc_io_close(struct proc_sink sinks[2], int report);
/*
 * Opens path (beneath dir when dir is set, no link followed) with fd >= 3,
 * so that dup2() onto 0/1/2 in the child never collides.
 */
struct dirat;
int proc_io_open_high(const struct dirat *dir, const char *path, int flags);

#endif
