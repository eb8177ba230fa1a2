/*
 * runner: carries out `abev run` as three steps — run_setup() pins down
 * what is compared and opens the evidence directory, run_slot() (one a
 * slot of the schedule) runs and records, run_finish() writes the
 * evidence as final, seals and packs it and prints the end. Because
 * result.json is written at the start and each invocation is journaled as
 * it ends (run_state.c), a run killed at any point leaves evidence whose
 * status ("running", "interrupted") says it is incomplete, and what ran. Judging an invocation is
 * judge.c's, the terminal summary run_summary.c's.
 */
#include "pipeline/runner.h"
#include "record/invocation.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "measure/cgroup.h"
#include "util/dirat.h"
#include "evidence/evidence.h"
#include "evidence/evname.h"
#include "evidence/evidence_read.h"
#include "util/hash.h"
#include "evidence/journal.h"
#include "pipeline/judge.h"
#include "evidence/ledger.h"
#include "host/metadata.h"
#include "run/proc.h"
#include "report/report.h"
#include "pipeline/run_slot.h"
#include "pipeline/run_state.h"
#include "pipeline/run_summary.h"
#include "run/schedule.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"

/*
 * The nearest existing ancestor of path must be a directory abev can
 * write: that is where create_root() will make the rest.
 */
static int check_out_parent(const char *out)
{
	char *dir = xstrdup(out), *slash;
	struct stat sb;
	int ret = -1;

	for (;;) {
		slash = strrchr(dir, '/');
		if (!slash) {
			free(dir);
			dir = xstrdup(".");
		} else if (slash == dir) {
			dir[1] = '\0';
		} else {
			*slash = '\0';
		}
		if (stat(dir, &sb) == 0)
			break;
		if (errno != ENOENT || !slash || slash == dir) {
			error("cannot create '%s': '%s': %s", out, dir, strerror(errno));
			goto out;
		}
	}
	if (!S_ISDIR(sb.st_mode)) {
		error("cannot create '%s': '%s' is not a directory", out, dir);
		goto out;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		error("cannot create '%s' in '%s': %s", out, dir, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(dir);
	return ret;
}

int runner_check_options(const struct runner_options *opt)
{
	struct stat sb;
	size_t n = strlen(opt->out_dir);

	if (!opt->out_made && lstat(opt->out_dir, &sb) == 0)
		return error("'%s' already exists; abev never writes into an existing "
			     "directory: choose a new --out", opt->out_dir);
	if (check_out_parent(opt->out_dir) < 0)
		return -1;
	if (!opt->bundle)
		return 0;
	if (!strncmp(opt->bundle, opt->out_dir, n) && opt->bundle[n] == '/')
		return error("cannot write bundle '%s' inside the evidence directory it packs",
			     opt->bundle);
	return bundle_check_target(opt->bundle);
}

static int create_root(struct run_state *st, enum runner_outcome *why)
{
	const char *out = st->opt->out_dir;
	char resolved[PATH_MAX];
	struct stat sb;

	if (st->opt->out_made) {
		/* Made a moment ago under a name of its own (abev bench's default): opened as made. */
		if (dirat_open_path(&st->ev, out) < 0)
			return error("cannot open '%s': %s", out, strerror(errno));
	} else {
		if (lstat(out, &sb) == 0) {
			*why = RUNNER_USAGE;
			return error("'%s' already exists; abev never writes into an existing "
				     "directory: choose a new --out", out);
		}
		/* From here on the evidence is reached through this descriptor, never by its name. */
		if (dirat_create(&st->ev, out) < 0) {
			if (errno == EEXIST)
				*why = RUNNER_USAGE;
			return -1;
		}
	}
	if (!realpath(out, resolved))
		return error("cannot resolve '%s': %s", out, strerror(errno));
	st->root = xstrdup(resolved);
	free(st->ev.path);
	st->ev.path = xstrdup(resolved);
	return 0;
}

void runner_print_schedule(const struct plan *plan, FILE *f)
{
	struct sched_slot *slots = NULL;
	size_t n = 0;
	char name[PLAN_NAME_TEXT_MAX * 4 + 8];

	schedule_build(plan->set.order, plan->set.seed, plan->nvariants, plan->set.warmups, plan->set.runs, &slots,
		       &n);
	fprintf(f, "# plan '%s': %zu variant(s), %u warmup round(s), %u recorded round(s), order %s, "
	       "seed %llu, gap %g s\n",
	       show_str(name, sizeof(name), plan->name), plan->nvariants, plan->set.warmups, plan->set.runs, run_order_name(plan->set.order),
	       (unsigned long long)plan->set.seed, plan->set.gap_seconds);
	/* Until decided the rounds are a ceiling: say where the run may stop, and why it runs so. */
	if (plan->until_decided) {
		fprintf(f, "# until decided: at most %u rounds, the gates looked at after round", plan->max_rounds);
		for (size_t k = 0; k < plan->nlooks; k++)
			fprintf(f, "%s%u", !k ? plan->nlooks == 1 ? " " : "s " : k + 1 == plan->nlooks ? " and " : ", ",
				plan->looks[k]);
		fprintf(f, ", each at %.4g %%%s\n", plan->look_confidence * 100,
			!strcmp(plan->set.runs_from, RUN_RUNS_FROM_GATES)
				? " (the plan has gates and gives no runs)" : "");
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%4zu  %-6s %3u  %s\n", i + 1, slots[i].warmup ? "warmup" : "run",
		       slots[i].round, plan->variants[slots[i].variant].name);
	free(slots);
}

/* The plan's own report template, kept in the evidence so that `abev report DIR` can use it. */
static int write_template(struct run_state *st, const struct plan *plan)
{
	if (!plan->report_template)
		return 0;
	return ledger_write(&st->ledger, &st->ev, EVIDENCE_TEMPLATE_FILE, plan->report_template,
			    plan->report_template_len);
}

/* The names abev writes again at the end, which a run's changes to do not survive. */
static const char *const final_names[] = { EVIDENCE_RESULT_FILE, EVIDENCE_REPORT_FILE, EVIDENCE_MANIFEST_FILE,
					   EVIDENCE_SIGNATURE_FILE, EVIDENCE_RESERVE_FILE, NULL };

/* Before the check: the directories abev made above the runs given back to abev. */
static void reclaim_root(struct run_state *st)
{
	const struct plan *plan = st->plan;

	for (size_t i = 0; i < plan->nvariants; i++) {
		char *rel = path_join(EVIDENCE_RUNS_DIR, plan->variants[i].name);
		run_slot_reclaim_above(st, rel);
		free(rel);
	}
}

/*
 * Before the evidence is written as final: what a run left in the
 * evidence root that no manifest holds — a symbolic link, a FIFO, a
 * socket, an odd name — outside its own directory (a run of abev's own
 * user can reach the root) is removed or renamed (evname_tidy()), each a
 * note of tampering, so that the evidence is still sealed, never as
 * abev's record. Then: is everything abev wrote
 * still as written, with nothing beside it (ledger.h), and is the
 * evidence directory still where the user named it? Each difference is
 * a note, and makes the run failed: what a run changed is never sealed
 * as abev's record.
 */
static void check_evidence(struct run_state *st)
{
	long n;

	/*
	 * Every run directory was tidied when its invocation ended: what is
	 * to tidy now a run left outside its own, or in one after it.
	 */
	n = evname_tidy(&st->ev, ".", run_state_note_tampered_cb, st);
	/* Stopped by a signal (util/hash.h), it is no error: the seal is made at once. */
	if (n < 0 && !hash_stopped())
		st->runtime_error = 1;
	else if (n > 0)
		st->tampered += n;

	if (!dirat_still_at(&st->ev, st->root)) {
		char *where = NULL, link[64];
		char buf[PATH_MAX];
		ssize_t len;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", st->ev.fd);
		len = readlink(link, buf, sizeof(buf) - 1);
		if (len > 0) {
			buf[len] = '\0';
			where = evname_printable(buf, (size_t)len);
		}
		run_state_note_tampered(st, xasprintf("the evidence directory '%s' was moved or "
						      "replaced during the run; abev went on writing "
						      "only into the directory it had made%s%s%s",
						      st->root, where ? ", now '" : "",
						      where ? where : "", where ? "'" : ""));
		free(where);
		st->tampered++;
		st->root_moved = 1;
	}
	n = ledger_check(&st->ledger, &st->ev, final_names, run_state_note_tampered_cb, st);
	if (n < 0) {
		if (!hash_stopped())
			st->runtime_error = 1;
		return;
	}
	if (n > 0) {
		st->tampered += n;
		run_state_note_tampered(st, xasprintf("the evidence is failed: %ld file(s) were "
						      "changed, removed or added after abev wrote "
						      "them or outside the run directories (above); "
						      "they are not abev's record", n));
	}
}

/*
 * The seal failed with abev alive: the evidence says so in the files a
 * reader opens first. result.json and report.md are written again under
 * their own names, as failed with the reason; the staged copies the seal
 * would have put in place, and whatever part of the seal was written, are
 * removed.
 */
static void unsealed(struct run_state *st)
{
	run_state_note(st, xstrdup("the evidence could not be sealed (the error is above, "
				   "on abev's standard error): it has no SHA256 manifest "
				   "and no signature, and abev verify refuses it"));
	st->unsealed = 1;
	if (run_state_write(st, 1) < 0)
		return;
	for (size_t i = 0; seal_staged_names[i]; i++) {
		char *staged = manifest_staged_name(seal_staged_names[i]);
		if (dirat_unlink(&st->ev, staged, 0) < 0 && errno != ENOENT)
			error("cannot remove '%s/%s': %s", st->root, staged, strerror(errno));
		free(staged);
	}
	if ((dirat_unlink(&st->ev, EVIDENCE_SIGNATURE_FILE, 0) < 0 && errno != ENOENT) ||
	    (dirat_unlink(&st->ev, EVIDENCE_MANIFEST_FILE, 0) < 0 && errno != ENOENT))
		error("cannot remove the seal left by the failed sealing in '%s': %s", st->root,
		      strerror(errno));
}

/* Past this many files of one run directory not read, the directory is named for them. */
#define UNREAD_NAMED_MAX 20

/* A run's file the seal did not read (ledger_files()), in name order. */
struct unread {
	char **names;
	off_t *sizes;
	size_t n, alloc, sizes_alloc;
};

static void collect_unread(void *ctx, const char *rel, const unsigned char *digest, off_t size)
{
	struct unread *u = ctx;
	size_t plen = strlen(EVIDENCE_RUNS_DIR);

	/*
	 * Known, or outside the run directories: a file that appeared there,
	 * recorded so by the check; abev verify names it as not listed.
	 */
	if (digest || strncmp(rel, EVIDENCE_RUNS_DIR, plen) || rel[plen] != '/')
		return;
	ALLOC_GROW(u->names, u->n + 1, u->alloc);
	ALLOC_GROW(u->sizes, u->n + 1, u->sizes_alloc);
	u->names[u->n] = xstrdup(rel);
	u->sizes[u->n++] = size;
}

/* The bytes of rel that name its run directory ("runs/a/run-1"), or 0 when it is in none. */
static size_t run_dir_len(const char *rel)
{
	const char *p = rel;

	for (int i = 0; i < 3; i++) {
		p = strchr(p, '/');
		if (!p)
			return 0;
		p++;
	}
	return (size_t)(p - 1 - rel);
}

/* The run directories that hold a file the ledger knows, sorted (ledger_files()). */
struct held_dirs {
	char **v;
	size_t n, alloc;
};

static void collect_held(void *ctx, const char *rel, const unsigned char *digest, off_t size)
{
	struct held_dirs *h = ctx;
	size_t len = run_dir_len(rel);

	(void)digest;
	(void)size;
	if (!len || (h->n && strlen(h->v[h->n - 1]) == len && !strncmp(h->v[h->n - 1], rel, len)))
		return;
	ALLOC_GROW(h->v, h->n + 1, h->alloc);
	h->v[h->n++] = xstrndup(rel, len);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The directories the runs left empty, removed as the full seal's
 * settling removes them (seal_settle(): an empty directory holds nothing
 * a manifest can list, and abev verify refuses one), but with no walk
 * and nothing opened beneath a run's directory: each invocation's
 * directory that holds no file the ledger knows (a command that printed
 * and wrote nothing has one, its logs being made at the first byte
 * only), then the variants' and runs/. One that is not empty stays.
 */
static void remove_empty_run_dirs(struct run_state *st)
{
	struct held_dirs held = { NULL, 0, 0 };
	char **above = NULL;
	size_t nabove = 0, alloc = 0;

	ledger_files(&st->ledger, collect_held, &held);
	if (held.n)
		qsort(held.v, held.n, sizeof(*held.v), str_cmp);
	for (size_t i = 0; i < st->ninvs; i++) {
		const char *dir = st->invs[i].dir, *slash = dir ? strrchr(dir, '/') : NULL;
		size_t k;

		if (!slash || bsearch(&dir, held.v, held.n, sizeof(*held.v), str_cmp))
			continue;
		(void)dirat_unlink(&st->ev, dir, AT_REMOVEDIR);
		for (k = 0; k < nabove && (strlen(above[k]) != (size_t)(slash - dir) ||
					   strncmp(above[k], dir, (size_t)(slash - dir))); k++)
			;
		if (k == nabove) {
			ALLOC_GROW(above, nabove + 1, alloc);
			above[nabove++] = xstrndup(dir, (size_t)(slash - dir));
		}
	}
	for (size_t k = 0; k < nabove; k++) {
		(void)dirat_unlink(&st->ev, above[k], AT_REMOVEDIR);
		free(above[k]);
	}
	if (nabove)
		(void)dirat_unlink(&st->ev, EVIDENCE_RUNS_DIR, AT_REMOVEDIR);
	for (size_t k = 0; k < held.n; k++)
		free(held.v[k]);
	free(held.v);
	free(above);
}

/*
 * A signal while abev finished the evidence: it is sealed at once from
 * what abev knows (seal_evidence_ledger()), and the runs' files it had
 * not read are named — each file, or its run directory when more than
 * UNREAD_NAMED_MAX of that directory's are — in result.json's
 * "unsealed", where abev verify finds them, and counted in a note.
 */
static void interrupted_while_finishing(struct run_state *st)
{
	struct unread u = { NULL, NULL, 0, 0, 0 };
	uintmax_t bytes = 0;
	int sig = proc_interrupted();

	if (!st->interrupt) {
		st->interrupt = sig;
		run_state_note(st, xasprintf("abev received %s after the last invocation, while "
					     "writing, sealing or packing the evidence; every "
					     "invocation recorded here had finished",
					     proc_signal_name(sig)));
	}
	ledger_files(&st->ledger, collect_unread, &u);
	for (size_t i = 0, j; i < u.n; i = j) {
		size_t dlen = run_dir_len(u.names[i]);

		for (j = i + 1; dlen && j < u.n && run_dir_len(u.names[j]) == dlen &&
				!strncmp(u.names[j], u.names[i], dlen); j++)
			;
		for (size_t k = i; k < j; k++)
			bytes += (uintmax_t)(u.sizes[k] > 0 ? u.sizes[k] : 0);
		ALLOC_GROW(st->unread, st->nunread + (j - i) + 1, st->unread_alloc);
		if (j - i > UNREAD_NAMED_MAX) {
			st->unread[st->nunread++] = xstrndup(u.names[i], dlen);
			for (size_t k = i; k < j; k++)
				free(u.names[k]);
		} else {
			for (size_t k = i; k < j; k++)
				st->unread[st->nunread++] = u.names[k];
		}
	}
	if (u.n)
		run_state_note(st, xasprintf("abev received %s while it sealed the evidence and "
					     "sealed it at once with what it had read: %zu file(s) "
					     "of %ju bytes the runs left were not hashed; they are "
					     "here as the runs left them, not listed in SHA256, and "
					     "named in result.json's \"unsealed\"",
					     proc_signal_name(sig), u.n, bytes));
	free(u.names);
	free(u.sizes);
	remove_empty_run_dirs(st);
}

/* A difference the last seal found (seal.h), which no file of the evidence can record now. */
static void sealed_over(void *ctx, char *line)
{
	(void)ctx;
	error("%s", line);
	free(line);
}

/*
 * The seal found what changed after check_evidence() (seal.h, strict):
 * recorded like what that check found, and the evidence sealed again,
 * once, with a change after that never signed.
 */
static void changed_while_sealing(struct run_state *st, struct seal_watch *w)
{
	st->tampered += w->found;
	run_state_note_tampered(st, xasprintf("the evidence is failed: %ld file(s) were "
					      "changed, removed or added while abev sealed it "
					      "(above); they are not abev's record", w->found));
	w->strict = 0;
	w->note = sealed_over;
	w->ctx = NULL;
}

/*
 * Packs the sealed evidence into opt->bundle, when asked. 0 when a
 * signal stopped the pack (it removes what it wrote), 1 otherwise.
 */
static int pack_evidence(struct run_state *st, int *bundled)
{
	const struct runner_options *opt = st->opt;

	if (!opt->bundle)
		return 1;
	/* Packed by its name: not when that name is no longer the evidence. */
	if (st->root_moved) {
		error("'%s' was not packed: the evidence directory was moved or replaced during "
		      "the run", opt->bundle);
		st->runtime_error = 1;
		return 1;
	}
	if (bundle_pack_until(st->root, opt->bundle, hash_stopped) == 0) {
		*bundled = 1;
		return 1;
	}
	if (hash_stopped())
		return 0;
	st->runtime_error = 1;
	return 1;
}

/*
 * The end of every run: result.json and report.md written as final,
 * sealed, packed. A signal that arrives meanwhile is obeyed at once and
 * not lost: whatever was reading the evidence (a walk, a copy, the
 * hashing, the pack) stops, and the evidence is written again as
 * interrupted and sealed from what abev had read (seal_evidence_ledger():
 * no file is read twice, and none after the signal), naming what it had
 * not; nothing is packed then. That seal reads nothing and no signal
 * stops it, so a second signal never leaves the evidence without one.
 * *final is the status the evidence records.
 */
static void finish_evidence(struct run_state *st, enum run_status *final, int *sealed,
			    int *bundled)
{
	const struct runner_options *opt = st->opt;
	struct seal_watch watch = { &st->ledger, 1, run_state_note_tampered_cb, st, 0 };
	int quick = 0, sr;

	/*
	 * From here on a signal stops whatever reads the evidence (util/hash.h).
	 * One that came before and that no invocation or step took as the run's
	 * interrupt — after the last invocation ended, while it was judged and
	 * journaled, or between the cleanup steps — stops it from the start:
	 * every signal from run_begin() on is either the run's interrupt or is
	 * counted here, never lost. A run already interrupted is still sealed
	 * in full (only a signal after this stops it).
	 */
	hash_stop_on_change_from(proc_interrupt_count, st->interrupt ? proc_interrupt_count() : 0);
	/* Another user's fake or stale file in the lock directory, ignored: the record says so. */
	if (st->peers.ignored_note)
		run_state_note(st, xstrdup(st->peers.ignored_note));
	/* The seal's own settling first, so that what it settles later was changed after the check. */
	reclaim_root(st);
	(void)seal_settle(&st->ev, 0, &st->ledger);
	/* The journal is held to abev's bytes from here on (the ledger's check). */
	run_state_close_journal(st);
	check_evidence(st);
	for (;;) {
		if (!quick && hash_stopped()) {
			quick = 1;
			interrupted_while_finishing(st);
		}
		run_state_now_utc(st, st->ended);
		if (run_state_write(st, 1) < 0)
			st->runtime_error = 1;
		*final = run_state_status(st, 1);
		*sealed = *bundled = 0;
		/* Never a seal over a result.json that still says "running". */
		if (!st->final_written) {
			error("'%s' was not sealed: its final result.json could not be written",
			      st->root);
			unsealed(st);
			break;
		}
		/* Sealed whatever the outcome, an interrupted run included: it says so itself. */
		sr = quick ? seal_evidence_ledger(&st->ev, opt->key, &st->ledger)
			   : seal_evidence_final(&st->ev, opt->key, &watch);
		/* What the first seal found changed is recorded, and the evidence sealed again. */
		if (sr > 0 && watch.strict && watch.found)
			changed_while_sealing(st, &watch);
		if (sr > 0 || (sr < 0 && !quick && hash_stopped()))
			continue;
		if (sr == 0 && watch.found) {
			/* Sealed, but not over what changed the second time: verify fails on it. */
			error("'%s': %ld file(s) changed while abev sealed the evidence again; the "
			      "seal lists abev's bytes for them or leaves them out, and abev verify "
			      "fails on the evidence", st->root, watch.found);
			st->runtime_error = 1;
		}
		if (sr < 0) {
			st->runtime_error = 1;
			unsealed(st);
			break;
		}
		*sealed = 1;
		if (!quick && !pack_evidence(st, bundled))
			continue;
		if (quick || !hash_stopped())
			break;
		/* bundle_pack() made it (it never replaces a file): it is made again. */
		if (*bundled && unlink(opt->bundle) < 0) {
			error("cannot remove '%s' to pack it again: %s", opt->bundle,
			      strerror(errno));
			st->runtime_error = 1;
		}
		*bundled = 0;
	}
	hash_stop_clear();
	*final = run_state_status(st, 1);
	if (quick && opt->bundle && *sealed)
		error("'%s' was not packed: abev received %s while it finished the evidence; "
		      "'abev pack %s --out %s' packs it as sealed", opt->bundle,
		      proc_signal_name(proc_interrupted()), st->root, opt->bundle);
}

/* How often a run under --wait looks whether it may start. */
#define PEERS_POLL_NS (250 * 1000 * 1000LL)

/*
 * Registers with the other abev runs on this host and, under --wait,
 * waits until none runs and no earlier waiter is left — before the git
 * and versions commands, which would disturb a run going on. A signal
 * while waiting is an interrupt like any other: the evidence says so.
 */
static int join_peers(struct run_state *st)
{
	const struct runner_options *opt = st->opt;
	const char *out = opt->out_dir;
	char *cwd = out[0] == '/' ? NULL : getcwd(NULL, 0);
	char *abs = cwd ? path_join(cwd, out) : xstrdup(out);
	struct overlap_hit who;
	long last = 0;
	int64_t t0 = st->m->now(st->m->arg);

	peers_join(&st->peers, abs);
	free(abs);
	free(cwd);
	if (st->peers.note)
		run_state_note(st, xstrdup(st->peers.note));
	st->waited_ns = -1;
	if (opt->refuse_peers) {
		if (!peers_blocker(&st->peers, &who))
			goto start;
		error("another abev run on this host is going on (pid %ld%s%s%s), and --no-wait "
		      "refuses to start beside it; without --no-wait abev waits for it to finish",
		      who.pid, who.evidence ? ", writing '" : "", who.evidence ? who.evidence : "",
		      who.evidence ? "'" : "");
		overlap_hit_release(&who);
		return -1;
	}
	if (!opt->wait)
		goto start;
	while (peers_blocker(&st->peers, &who)) {
		double waited = (double)(st->m->now(st->m->arg) - t0) / 1e9;

		if (opt->wait_max_seconds >= 0 && waited >= opt->wait_max_seconds) {
			run_state_note(st, xasprintf("abev waited %.0f s, its limit (--wait-max), for "
						     "another abev run on this host (pid %ld) and then "
						     "went ahead: runs of either that overlap are "
						     "discarded and repeated", waited, who.pid));
			overlap_hit_release(&who);
			break;
		}
		if (who.pid != last && opt->progress != PROGRESS_QUIET) {
			/* Read from a file any local user can write: shown escaped, like every name. */
			char *shown = who.evidence ? xstrdup_escaped(who.evidence) : NULL;
			char bound[64];

			if (opt->wait_max_seconds >= 0)
				snprintf(bound, sizeof(bound), "at most %.0f s in all (--wait-max)",
					 opt->wait_max_seconds);
			else
				snprintf(bound, sizeof(bound), "without a limit (--wait)");
			fprintf(stderr, "abev: waiting for another abev run on this host to finish "
					"(pid %ld%s%s%s), %s; --no-wait refuses instead\n",
				who.pid, shown ? ", writing '" : "", shown ? shown : "",
				shown ? "'" : "", bound);
			free(shown);
		}
		last = who.pid;
		overlap_hit_release(&who);
		if (st->m->sleep(st->m->arg, PEERS_POLL_NS, NULL, NULL))
			break;
	}
	st->waited_ns = st->m->now(st->m->arg) - t0;
	if (proc_interrupted()) {
		run_state_note(st, xasprintf("abev received %s while waiting for another abev run "
					     "on this host to finish; no invocation ran",
					     proc_signal_name(proc_interrupted())));
		return 0;
	}
start:
	peers_start(&st->peers);
	return 0;
}

/*
 * Before anything is written: signals become interrupts, stale cgroups
 * go, the other abev runs on this host are joined (and waited for under
 * --wait), and metadata.json's content is collected into *md. 0, or -1
 * after error() (a runtime error: an assemblies pattern that matches
 * nothing was refused before, by plan_check()).
 */
static int run_begin(struct run_state *st, struct metadata **md)
{
	const struct plan *plan = st->plan;

	/* From here on a signal is an interrupt, recorded in the evidence. */
	if (proc_setup() < 0)
		return -1;
	cgroup_remove_stale();
	if (run_slot_open_outputs(st) < 0)
		return -1;
	overlap_watch_init(&st->watch, (const char *const *)plan->set.exclusive, plan->set.nexclusive);
	if (join_peers(st) < 0)
		return -1;
	/* A signal while waiting: the note says so (join_peers()). */
	st->interrupt = st->opt->wait ? proc_interrupted() : 0;
	/* What is compared is pinned down before anything runs or is written. */
	/* The assemblies were checked before (plan_check()): what fails now is the machine. */
	*md = metadata_collect(plan, st->opt->host_label, st->opt->passphrase_env);
	if (!*md)
		return -1;
	/* The hook recorded, and hashed, is the one the runs load. */
	if (metadata_dotnet_hook(*md))
		st->dotnet_hook = xstrdup(metadata_dotnet_hook(*md));
	if (!st->interrupt && proc_interrupted()) {
		st->interrupt = proc_interrupted();
		run_state_note(st, xasprintf("abev received %s before the first invocation, while "
					     "collecting metadata.json (git, versions commands); "
					     "no invocation ran",
					     proc_signal_name(st->interrupt)));
	}
	return 0;
}

/*
 * What the evidence directory (create_root()) holds before the first
 * invocation: plan.json, metadata.json, the plan's report template; then
 * the judge. 0, or -1 after error().
 */
static int open_evidence(struct run_state *st, const struct metadata *md)
{
	const struct plan *plan = st->plan;
	char *md_text = NULL, *err = NULL;
	int ret = -1;

	md_text = metadata_text(md);
	if (ledger_write(&st->ledger, &st->ev, EVIDENCE_PLAN_FILE, plan->raw, plan->raw_len) < 0 ||
	    ledger_write(&st->ledger, &st->ev, EVIDENCE_METADATA_FILE, md_text, strlen(md_text)) < 0 ||
	    write_template(st, plan) < 0)
		goto out;
	/* The report shows what metadata.json records, as `abev report DIR` will read it. */
	metadata_environment(md, &st->env);
	st->have_env = 1;
	st->judge = judge_new(plan, &err);
	if (!st->judge) {
		error("%s", err);
		goto out;
	}
	ret = 0;
out:
	free(err);
	free(md_text);
	return ret;
}

/*
 * A command whose output goes to abev's own terminal ("output":
 * "inherit") would be garbled by a line redrawn in place: the live line
 * gives way to one line per finished invocation, printed between runs.
 */
static enum progress_mode live_or_lines(const struct plan *plan, enum progress_mode mode)
{
	for (size_t i = 0; mode == PROGRESS_LIVE && i < plan->nvariants; i++)
		if (plan->variants[i].output == PLAN_OUTPUT_INHERIT)
			return PROGRESS_LINES;
	return mode;
}

/*
 * What the run records about itself, the schedule in *slots, and the
 * first result.json ("running"). 0, or -1 after error().
 */
static int run_setup(struct run_state *st, struct sched_slot **slots, size_t *nslots)
{
	const struct plan *plan = st->plan;
	unsigned char d[SHA256_LEN];

	st->variant_names = xcalloc(plan->nvariants, sizeof(*st->variant_names));
	for (size_t i = 0; i < plan->nvariants; i++)
		st->variant_names[i] = plan->variants[i].name;
	run_state_compare_setup(st);
	st->cwd = getcwd(NULL, 0);
	sha256_buf(plan->raw, plan->raw_len, d);
	sha256_hex(d, st->plan_sha256);
	schedule_build(plan->set.order, plan->set.seed, plan->nvariants, plan->set.warmups, plan->set.runs, slots,
		       nslots);
	st->planned = *nslots;
	run_state_now_utc(st, st->started);
	if (run_state_write(st, 0) < 0)
		return -1;
	progress_init(&st->prog, live_or_lines(plan, st->opt->progress), *nslots, plan->set.gap_seconds);
	return 0;
}

/*
 * The evidence written as final, sealed and packed, the end printed; the
 * outcome main.c maps to an exit code.
 */
static enum runner_outcome run_finish(struct run_state *st, struct runner_result *res)
{
	enum runner_outcome outcome;
	enum run_status final;
	int sealed = 0, bundled = 0;

	progress_clear(&st->prog);
	finish_evidence(st, &final, &sealed, &bundled);
	if (st->interrupt) {
		res->signo = st->interrupt;
		outcome = RUNNER_INTERRUPTED;
	} else if (st->runtime_error) {
		outcome = RUNNER_ERROR;
	} else {
		outcome = final == RUN_COMPLETED ? RUNNER_PASSED : RUNNER_FAILED;
	}
	res->decision = st->cmp.decision;
	run_summary_print(st, final, sealed, bundled);
	/* The run is over and sealed: a closed stdout is worth a message, not a failure. */
	if (fflush(stdout) != 0 || ferror(stdout))
		error("cannot write the summary to standard output: %s (the evidence in '%s' "
		      "is complete)", errno ? strerror(errno) : "write error", st->root);
	return outcome;
}

/*
 * Whether slots[i] ends a recorded round after which schedule.until
 * "decided" looks at the gates.
 */
static int look_due(const struct plan *plan, const struct sched_slot *slots, size_t nslots,
		    size_t i)
{
	unsigned round = slots[i].round;

	if (!plan->until_decided || slots[i].warmup ||
	    (i + 1 < nslots && !slots[i + 1].warmup && slots[i + 1].round == round))
		return 0;
	for (size_t k = 0; k < plan->nlooks; k++)
		if (plan->looks[k] == round)
			return 1;
	return 0;
}

/* The guard that failed inv first, or NULL. */
static const struct guard_result *first_failed_guard(const struct invocation *inv)
{
	for (size_t i = 0; i < inv->nguards; i++)
		if (inv->guards[i].verdict != GUARD_PASS)
			return &inv->guards[i];
	return NULL;
}

/* Whether a and b kept the same failed tests, in the same order, as many past the cap. */
static int same_failed_tests(const struct invocation *a, const struct invocation *b)
{
	if (a->nfailed_tests != b->nfailed_tests ||
	    a->failed_tests_omitted != b->failed_tests_omitted)
		return 0;
	for (size_t i = 0; i < a->nfailed_tests; i++)
		if (strcmp(a->failed_tests[i], b->failed_tests[i]))
			return 0;
	return 1;
}

/*
 * Whether a and b failed the same way, one that does not depend on the
 * moment: both could not start, or both failed the same guard first —
 * exit_code with the same code, min_executed with the same count of
 * tests executed, tests_passed with the same failed tests, test_set —
 * judged from the records, not their words.
 */
static int same_certain_failure(const struct invocation *a, const struct invocation *b)
{
	const struct guard_result *ga = first_failed_guard(a), *gb = first_failed_guard(b);

	if (a->status == INV_EXEC_FAILED || b->status == INV_EXEC_FAILED)
		return a->status == b->status;
	if (a->status != INV_FAILED || b->status != INV_FAILED || !ga || !gb ||
	    ga->kind != gb->kind)
		return 0;
	switch (ga->kind) {
	case GUARD_EXIT_CODE: return a->exit_code == b->exit_code && a->signal == b->signal;
	case GUARD_MIN_EXECUTED: return a->tests.executed == b->tests.executed;
	case GUARD_TESTS_PASSED: return same_failed_tests(a, b);
	case GUARD_TEST_SET: return 1;
	default: return 0;
	}
}

/*
 * Fail fast, once the first or second recorded round is over: a failure
 * that no further slot will mend stops the plan — a variant every run of
 * which (warmups too, two at least) failed the same way, or could not
 * start, or a plan metric whose test glob matched no test name in any run
 * while names near it were read (a typo). The sentence says which and
 * why; NULL: nothing is certain yet.
 */
static char *certain_failure(const struct run_state *st, unsigned round)
{
	const struct plan *plan = st->plan;

	for (size_t v = 0; v < plan->nvariants; v++) {
		const struct invocation *first = NULL;
		size_t n = 0;
		int same = 1;

		for (size_t i = 0; i < st->ninvs && same; i++) {
			const struct invocation *inv = &st->invs[i];
			if (strcmp(inv->variant, plan->variants[v].name))
				continue;
			same = first ? same_certain_failure(first, inv)
				     : same_certain_failure(inv, inv);
			first = first ? first : inv;
			n++;
		}
		/* One run that could not start is enough; a failure, twice the same. */
		if (same && (n >= 2 || (n && first->status == INV_EXEC_FAILED)))
			return xasprintf("abev stopped the plan after round %u: every run of '%s' so far "
					 "(%zu) %s (%s), and the runs left would too", round,
					 plan->variants[v].name, n,
					 first->status == INV_EXEC_FAILED ? "could not start"
									  : "failed the same way",
					 first->status == INV_EXEC_FAILED && first->exec_error
						 ? first->exec_error : first->reason ? first->reason : "?");
	}
	size_t nm = 0;

	/* The plan's metrics, as the recorded runs have them (warmups yield none). */
	for (size_t i = 0; i < st->ninvs; i++)
		if (!st->invs[i].warmup && st->invs[i].nmetrics > nm)
			nm = st->invs[i].nmetrics;
	for (size_t m = 0; m < nm; m++) {
		const struct metric_value *mv = NULL;
		size_t seen = 0, typo = 0;

		for (size_t i = 0; i < st->ninvs; i++) {
			const struct invocation *inv = &st->invs[i];
			if (inv->warmup || m >= inv->nmetrics)
				continue;
			seen++;
			if (inv->metrics[m].no_test && inv->metrics[m].near_names) {
				typo++;
				mv = mv ? mv : &inv->metrics[m];
			}
		}
		if (seen && typo == seen)
			return xasprintf("abev stopped the plan after round %u: metric '%s' matched no "
					 "test in any run (%s), and the runs left would not either",
					 round, mv->name, mv->why ? mv->why : "?");
	}
	return NULL;
}

/*
 * The setup (cleanup 0) or cleanup step of variants [from, to), in the
 * plan's order. A setup that does not end ok stops the plan before the
 * next invocation; set_up[v] says whose ended ok. A cleanup runs for every
 * variant whose setup ended ok (or that had none), unless abev was
 * interrupted. ran: whether invocations ran before (the sequential order
 * sets a variant up after the ones before it ran).
 */
static void run_steps(struct run_state *st, int cleanup, unsigned char *set_up, size_t from,
		      size_t to, int ran)
{
	const struct plan *plan = st->plan;

	for (size_t v = from; v < to && !st->interrupt && !st->runtime_error; v++) {
		const struct plan_variant *pv = &plan->variants[v];
		int r;

		if (cleanup ? !pv->cleanup_len || (pv->setup_len && !set_up[v]) : !pv->setup_len)
			continue;
		if (!cleanup && st->gave_up)
			break;
		r = run_slot_step(st, v, cleanup);
		if (r < 0) {
			st->runtime_error = 1;
			run_state_note(st, xasprintf("abev stopped: the %s command of '%s' could not be "
						     "run or recorded", cleanup ? "cleanup" : "setup",
						     pv->name));
		} else if (!cleanup) {
			set_up[v] = (unsigned char)r;
			if (!r && !st->interrupt) {
				const struct invocation_prepare *rec = st->steps[st->nsteps - 1].rec;
				char *before = ran ? xasprintf("the runs of '%s'", pv->name)
						   : xstrdup("its first invocation");
				st->gave_up = xasprintf("abev stopped the plan before %s: the setup "
							"command of '%s' %s "
							"(" EVIDENCE_RUNS_DIR "/%s/setup.log)", before,
							pv->name,
							rec->reason ? rec->reason : rec->status,
							pv->name);
				free(before);
			}
		}
	}
}

/*
 * The assemblies of the variants with a setup step, which may build them,
 * are matched and hashed once it ended ok, and metadata.json is written
 * again with them; a pattern that still matches nothing stops the plan
 * before its first invocation, as a failed setup does.
 */
static void assemblies_after_setup(struct run_state *st, struct metadata *md,
				   const unsigned char *set_up)
{
	char *why = NULL, *text;
	int n;

	if (st->gave_up || st->interrupt || st->runtime_error || !metadata_assemblies_pending(md))
		return;
	n = metadata_assemblies_after_setup(md, st->plan, set_up, &why);
	if (n < 0) {
		st->gave_up = xasprintf("abev stopped the plan before its first invocation: %s", why);
		st->no_assemblies = 1;
		free(why);
	}
	if (n == 0)
		return;
	text = metadata_text(md);
	if (ledger_rewrite(&st->ledger, &st->ev, EVIDENCE_METADATA_FILE, text, strlen(text)) < 0) {
		st->runtime_error = 1;
		run_state_note(st, xstrdup("abev stopped: metadata.json could not be written again "
					   "with the assemblies matched after setup"));
	} else {
		/* The report shows the files matched after setup, as the file now does. */
		evidence_environment_release(&st->env);
		metadata_environment(md, &st->env);
	}
	free(text);
}

/*
 * Slots [from, to) of the nslots, after the setups of variants [vfrom,
 * vto) and before their cleanups: every slot and every variant, or, in
 * the sequential order, one variant's slots. 1 when schedule.until
 * "decided" decided and no slot is left to run; 0 otherwise.
 */
static int run_block(struct run_state *st, struct metadata *md, const struct sched_slot *slots,
		     size_t nslots, size_t from, size_t to, size_t vfrom, size_t vto,
		     unsigned char *set_up)
{
	const struct plan *plan = st->plan;
	int decided = 0;

	run_steps(st, 0, set_up, vfrom, vto, from > 0);
	assemblies_after_setup(st, md, set_up);
	if (st->gave_up && nslots > from)
		run_state_note(st, xasprintf("%s; the %zu slot(s) %swere not run", st->gave_up,
					     nslots - from, from ? "left " : ""));
	for (size_t i = from; i < to && !st->interrupt && !st->runtime_error && !st->gave_up; i++) {
		run_slot(st, &slots[i]);
		/* A recorded round of the first two is over: stop now what no further round will mend. */
		if (!st->gave_up && !st->interrupt && !st->runtime_error && i + 1 < nslots &&
		    !slots[i].warmup && slots[i].round <= 2 && slots[i + 1].round > slots[i].round)
			st->gave_up = certain_failure(st, slots[i].round);
		if (st->gave_up && i + 1 < nslots)
			run_state_note(st, xasprintf("%s; the %zu slot(s) after it were not run",
						     st->gave_up, nslots - i - 1));
		if (!st->gave_up && !st->interrupt && !st->runtime_error &&
		    look_due(plan, slots, nslots, i) && run_state_look(st, slots[i].round)) {
			if (i + 1 < nslots)
				run_state_note(st, xasprintf("decided after round %u (look %zu of %zu): "
							     "%s; the %zu slot(s) after it were not run",
							     slots[i].round, st->seq.ntaken,
							     plan->nlooks,
							     decision_name(st->looks_taken[st->seq.ntaken - 1].decision),
							     nslots - i - 1));
			decided = 1;
			break;
		}
	}
	/* What was set up is cleaned up, whatever stopped the plan but an interrupt. */
	run_steps(st, 1, set_up, vfrom, vto, 1);
	return decided;
}

/*
 * Every slot, in blocks: one for an order that alternates the variants,
 * whose setups all run before the first slot and cleanups after the last;
 * one a variant for the sequential order, whose slots schedule_build()
 * puts together, so that each variant runs on its own setup's products.
 */
static void run_blocks(struct run_state *st, struct metadata *md, const struct sched_slot *slots,
		       size_t nslots, unsigned char *set_up)
{
	const struct plan *plan = st->plan;
	size_t from = 0;

	if (plan->set.order != RUN_ORDER_SEQUENTIAL) {
		run_block(st, md, slots, nslots, 0, nslots, 0, plan->nvariants, set_up);
		return;
	}
	for (size_t v = 0; v < plan->nvariants; v++) {
		size_t to = from;

		if (st->interrupt || st->runtime_error || st->gave_up)
			break;
		while (to < nslots && slots[to].variant == v)
			to++;
		if (run_block(st, md, slots, nslots, from, to, v, v + 1, set_up))
			break;
		from = to;
	}
}

enum runner_outcome runner_run(const struct plan *plan, const struct runner_options *opt,
			       struct runner_result *res)
{
	struct run_state st;
	struct sched_slot *slots = NULL;
	size_t nslots = 0;
	enum runner_outcome outcome = RUNNER_ERROR;
	struct metadata *md = NULL;
	unsigned char *set_up = NULL;

	run_state_init(&st, plan, opt);
	memset(res, 0, sizeof(*res));
	/*
	 * The evidence directory first: a --out abev cannot make (a file
	 * system that refuses it whatever access() says) fails before abev
	 * queues behind other runs, not after the wait.
	 */
	if (create_root(&st, &outcome) < 0)
		goto out;
	if (run_begin(&st, &md) < 0) {
		/* Refused before anything ran (--no-wait beside another run): nothing is left behind. */
		if (rmdir(st.root) < 0)
			error("cannot remove the empty evidence directory '%s': %s", st.root,
			      strerror(errno));
		goto out;
	}
	if (open_evidence(&st, md) < 0 || run_setup(&st, &slots, &nslots) < 0)
		goto out;
	set_up = xcalloc(plan->nvariants + 1, 1);
	run_blocks(&st, md, slots, nslots, set_up);
	outcome = run_finish(&st, res);
out:
	run_state_release(&st);
	metadata_free(md);
	peers_leave(&st.peers);
	free(slots);
	free(set_up);
	return outcome;
}
