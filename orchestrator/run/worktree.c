/*
 * worktree: git's answers for abev init's per-variant checkouts
 * (worktree.h). Each question is one git command run through proc_run()
 * in capture mode, bounded in time and in output; its stdout is the
 * answer. git's own message is asked for only when it refused, by running
 * the same read-only query again with stderr captured, so that a warning
 * on a query that succeeded never mixes into its answer.
 */
#include "run/worktree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/proc.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/utf8.h"

/* A checkout of a large repository takes time; a git that hangs does not stop init forever. */
#define GIT_TIMEOUT_NS (600LL * 1000000000LL)
#define GIT_GRACE_NS (1000000000LL)
/* The longest answer read: `git worktree list` of a repository with many worktrees. */
#define GIT_OUTPUT_MAX (1u << 20)
/* The longest git message quoted in an error. */
#define GIT_MESSAGE_MAX 400

/* A git command's outcome: its exit code, or -1 after error() when it did not exit. */
static int git_run(const char *cwd, const char *const *argv, int merge, struct strbuf *out)
{
	struct proc_spec spec = {
		.argv = argv,
		.cwd = cwd,
		.timeout_ns = GIT_TIMEOUT_NS,
		.grace_ns = GIT_GRACE_NS,
		.capture = out,
		.capture_max = GIT_OUTPUT_MAX,
		.capture_stderr = merge,
		.as_abev = 1,
	};
	struct proc_result r;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	strbuf_reset(out);
	if (proc_run(&spec, &r) < 0)
		goto out;
	switch (r.outcome) {
	case PROC_EXITED:
		rc = r.exit_code;
		break;
	case PROC_EXEC_FAILED:
		error("%s (git is needed to check out --baseline and --candidate)",
		      r.exec_error ? r.exec_error : "cannot run git");
		break;
	case PROC_SIGNALED:
		error("git was killed by %s", proc_signal_name(r.signal));
		break;
	case PROC_TIMED_OUT:
		if (r.stayed_stopped)
			error("git stayed stopped (SIGSTOP or SIGTSTP) and was ended");
		else
			error("git did not answer within %lld s and was stopped",
			      (long long)(GIT_TIMEOUT_NS / 1000000000LL));
		break;
	case PROC_INTERRUPTED:
		error("stopped: abev received %s", proc_signal_name(r.interrupt_signal));
		break;
	}
out:
	proc_result_release(&r);
	return rc;
}

/* What git said, cleaned, on one line and cut short: for quoting. Caller frees. */
static char *git_message(const struct strbuf *out)
{
	char *msg = utf8_clean_trim(out->buf, out->len);

	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	msg[utf8_cut(msg, strlen(msg), GIT_MESSAGE_MAX)] = '\0';
	return msg;
}

/*
 * argv's answer (its stdout, trimmed) into *answer (caller frees), or, when
 * git refused, its message into *why (caller frees) and WORKTREE_REFUSED.
 */
static enum worktree_status git_query(const char *cwd, const char *const *argv, char **answer,
				      char **why)
{
	struct strbuf out = STRBUF_INIT;
	enum worktree_status st = WORKTREE_FAILED;
	int rc;

	*answer = *why = NULL;
	rc = git_run(cwd, argv, 0, &out);
	if (rc == 0) {
		*answer = utf8_clean_trim(out.buf, out.len);
		st = WORKTREE_OK;
	} else if (rc > 0) {
		rc = git_run(cwd, argv, 1, &out);
		if (rc >= 0) {
			*why = git_message(&out);
			st = WORKTREE_REFUSED;
		}
	}
	strbuf_release(&out);
	return st;
}

static int is_commit_id(const char *s)
{
	size_t n = strlen(s);

	if (n != 40 && n != 64)
		return 0;
	return strspn(s, "0123456789abcdef") == n;
}

enum worktree_status worktree_top(const char *dir, char **top)
{
	const char *argv[] = { "git", "rev-parse", "--show-toplevel", NULL };
	char *why;
	enum worktree_status st = git_query(dir, argv, top, &why);

	if (st == WORKTREE_REFUSED)
		error("--baseline and --candidate are git refs: run abev init inside the "
		      "repository's work tree (git: %s)", why);
	else if (st == WORKTREE_OK && (*top)[0] != '/') {
		error("git named the work tree's top '%s', not an absolute path", *top);
		st = WORKTREE_FAILED;
	}
	if (st != WORKTREE_OK) {
		free(*top);
		*top = NULL;
	}
	free(why);
	return st;
}

enum worktree_status worktree_commit(const char *top, const char *what, const char *ref,
				     char **commit)
{
	const char *argv[] = { "git", "rev-parse", "--verify", "--end-of-options", NULL, NULL };
	char *rev, *why = NULL;
	enum worktree_status st;

	*commit = NULL;
	if (!*ref || ref[0] == '-') {
		error("%s '%s': expected a git ref (a branch, tag or commit), which does not %s",
		      what, ref, *ref ? "begin with '-'" : "be empty");
		return WORKTREE_REFUSED;
	}
	rev = xasprintf("%s^{commit}", ref);
	argv[4] = rev;
	st = git_query(top, argv, commit, &why);
	if (st == WORKTREE_REFUSED)
		error("%s '%s' is no commit of this repository (git rev-parse: %s)", what, ref, why);
	else if (st == WORKTREE_OK && !is_commit_id(*commit)) {
		error("%s '%s': git rev-parse answered '%s', not a commit id", what, ref, *commit);
		st = WORKTREE_FAILED;
	}
	if (st != WORKTREE_OK) {
		free(*commit);
		*commit = NULL;
	}
	free(rev);
	free(why);
	return st;
}

enum worktree_status worktree_has_dir(const char *top, const char *commit, const char *path)
{
	const char *argv[] = { "git", "cat-file", "-t", NULL, NULL };
	char *object = xasprintf("%s:%s", commit, path), *type, *why;
	enum worktree_status st;

	argv[3] = object;
	st = git_query(top, argv, &type, &why);
	if (st == WORKTREE_OK && strcmp(type, "tree"))
		st = WORKTREE_REFUSED;
	if (st == WORKTREE_REFUSED)
		error("'%s' is no directory of commit %.12s: give --project the test project's "
		      "directory as it is in both commits, relative to the repository's top",
		      path, commit);
	free(object);
	free(type);
	free(why);
	return st;
}

/*
 * Whether real (a real path) is a worktree of top's repository, with its
 * HEAD into *head (caller frees; NULL when it is none): read from `git
 * worktree list --porcelain` in top, so that no git runs in a directory
 * abev did not make.
 */
static enum worktree_status listed_head(const char *top, const char *real, char **head)
{
	const char *argv[] = { "git", "worktree", "list", "--porcelain", NULL };
	char *list, *why, *line, *next;
	int here = 0;
	enum worktree_status st;

	*head = NULL;
	st = git_query(top, argv, &list, &why);
	if (st == WORKTREE_REFUSED) {
		error("git worktree list: %s", why);
		st = WORKTREE_FAILED;
	}
	for (line = list; st == WORKTREE_OK && line && !*head; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "worktree ", 9)) {
			char *p = realpath(line + 9, NULL);
			here = p && !strcmp(p, real);
			free(p);
		} else if (here && !strncmp(line, "HEAD ", 5)) {
			*head = xstrdup(line + 5);
		}
	}
	free(list);
	free(why);
	return st;
}

enum worktree_status worktree_check(const char *top, const char *dir, const char *commit,
				    int *there)
{
	struct stat sb;
	char *real = NULL, *head = NULL;
	enum worktree_status st;

	*there = 0;
	if (lstat(dir, &sb) < 0) {
		if (errno == ENOENT)
			return WORKTREE_OK;
		error("cannot look at '%s': %s", dir, strerror(errno));
		return WORKTREE_FAILED;
	}
	real = realpath(dir, NULL);
	st = real ? listed_head(top, real, &head) : WORKTREE_OK;
	if (st == WORKTREE_OK && head && !strcmp(head, commit)) {
		*there = 1;
	} else if (st == WORKTREE_OK) {
		st = WORKTREE_REFUSED;
		if (head)
			error("'%s' is a worktree of this repository at commit %.12s, not %.12s: "
			      "remove it (git worktree remove '%s') or check out %.12s there",
			      dir, head, commit, dir, commit);
		else
			error("'%s' exists and is no worktree of this repository: abev init leaves "
			      "it as it is; move it away, then run abev init again", dir);
	}
	free(real);
	free(head);
	return st;
}

enum worktree_status worktree_add(const char *top, const char *dir, const char *commit)
{
	const char *argv[] = { "git", "worktree", "add", "--detach", "--", dir, commit, NULL };
	struct strbuf out = STRBUF_INIT;
	int rc = git_run(top, argv, 1, &out);

	if (rc > 0) {
		char *msg = git_message(&out);
		error("git worktree add '%s' %.12s failed: %s", dir, commit, msg);
		free(msg);
	}
	strbuf_release(&out);
	return rc == 0 ? WORKTREE_OK : WORKTREE_FAILED;
}
