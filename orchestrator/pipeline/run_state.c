/*
 * run_state: the state of `abev run` and its writing as result.json and
 * report.md. result.json is written at the start ("running") and at the
 * end; between the two each finished invocation is appended to the
 * journal (journal.h), so that a run killed at any point leaves evidence
 * that says it is incomplete and what ran, and the work between two
 * invocations does not grow with the run. It starts no process and
 * judges no invocation: the slot loop (run_slot.c) and judge.c do.
 */
#include "pipeline/run_state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <time.h>

#include "seal/signify.h"
#include "pipeline/judge.h"
#include "host/metadata.h"
#include "report/plots.h"
#include "run/proc.h"
#include "report/report.h"
#include "seal/seal.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"

/*
 * Less free space than this on the evidence's file system at the end of
 * a run is a full disk: abev's own writes failed or were about to.
 */
#define DISK_FULL_BYTES (64u * 1024)

void run_state_init(struct run_state *st, const struct plan *plan,
		    const struct runner_options *opt)
{
	memset(st, 0, sizeof(*st));
	st->plan = plan;
	st->opt = opt;
	st->ev = (struct dirat)DIRAT_INIT;
	st->ledger = (struct ledger)LEDGER_INIT;
	st->journal = (struct journal)JOURNAL_INIT;
	st->m = opt->machine ? opt->machine : machine_real();
	/* The report names the signer's key by its fingerprint, the same on every machine. */
	if (opt->key) {
		struct signify_pub pub;
		signify_pub_of(opt->key, &pub);
		signify_fingerprint(&pub, st->key_fp);
	}
}

void run_state_note(struct run_state *st, char *note)
{
	ALLOC_GROW(st->notes, st->nnotes + 1, st->notes_alloc);
	st->notes[st->nnotes++] = note;
}

void run_state_note_cb(void *ctx, char *note)
{
	run_state_note(ctx, note);
}

void run_state_note_tampered(struct run_state *st, char *note)
{
	run_state_note(st, note);
	ALLOC_GROW(st->tampered_notes, st->ntampered_notes + 1, st->tampered_notes_alloc);
	st->tampered_notes[st->ntampered_notes++] = note;
}

void run_state_note_tampered_cb(void *ctx, char *note)
{
	run_state_note_tampered(ctx, note);
}

void run_state_now_utc(const struct run_state *st, char out[UTC_STAMP_LEN])
{
	struct timespec ts;
	st->m->utc(st->m->arg, &ts);
	utc_format(out, &ts);
}

/*
 * abev's own peak RSS. VmHWM belongs to this process's address space
 * alone; ru_maxrss would also carry the high-water mark of whatever
 * process started abev (the kernel keeps it across execve), so it is the
 * fallback only.
 */
static int64_t self_max_rss(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct rusage ru;
	int64_t kib = -1;

	if (read_file_capped(&sb, "/proc/self/status", 64 * 1024) == 0) {
		const char *p = strstr(sb.buf, "\nVmHWM:");
		if (p && sscanf(p + 7, "%" SCNd64, &kib) != 1)
			kib = -1;
	}
	strbuf_release(&sb);
	if (kib >= 0)
		return kib * 1024;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (int64_t)ru.ru_maxrss * 1024;
}

enum run_status run_state_status(const struct run_state *st, int final)
{
	if (!final)
		return RUN_RUNNING;
	if (st->interrupt)
		return RUN_INTERRUPTED;
	if (st->runtime_error || st->lost || st->tampered || st->no_assemblies)
		return RUN_FAILED;
	for (size_t i = 0; i < st->ninvs; i++)
		if (st->invs[i].status != INV_OK && st->invs[i].status != INV_DISCARDED)
			return RUN_FAILED;
	/* A setup that did not end ok ran nothing after it; a cleanup's failure is a note. */
	for (size_t i = 0; i < st->nsteps; i++)
		if (!strcmp(st->steps[i].kind, "setup") && strcmp(st->steps[i].rec->status, "ok"))
			return RUN_FAILED;
	return RUN_COMPLETED;
}

/* The name result.json is written under: staged before sealing (seal.h). */
static const char *result_file(const struct run_state *st, int final)
{
	return final && !st->unsealed ? EVIDENCE_RESULT_FILE EVIDENCE_STAGED_SUFFIX : NULL;
}

/* The decision result.json records: none until the comparison is made. */
static struct evidence_decision decision_of(const struct run_state *st)
{
	return (struct evidence_decision){
		.comparison = st->compared ? &st->cmp : NULL,
		.gate_defs = st->gate_defs,
		.ngate_defs = st->plan->ngates,
	};
}

/* The run's header, from the state as it is now: what result.json and report.md both say. */
static void fill_header(const struct run_state *st, enum run_status status, int final,
			struct run_header *out)
{
	const struct plan *plan = st->plan;

	*out = (struct run_header){
		.plan_name = plan->name,
		.plan_description = plan->description,
		.plan_path = plan->path,
		.status = invocation_run_status_name(status),
		.set = plan->set,
		.lock_dir = st->peers.dir,
		.wait = st->opt->wait,
		.waited_ns = st->waited_ns,
		.run_as_user = proc_run_as_user() ? proc_run_as_user()->name : NULL,
		.run_as_from = plan->run_as_from,
		.run_as_uid = proc_run_as_user() ? (int64_t)proc_run_as_user()->uid : -1,
		.run_as_gid = proc_run_as_user() ? (int64_t)proc_run_as_user()->gid : -1,
		.abev_version = ABEV_VERSION,
		.started_utc = st->started,
		.ended_utc = final ? st->ended : "",
		.variant_names = st->variant_names,
		.nvariants = plan->nvariants,
		.planned = (unsigned)st->planned,
		.executed = st->ninvs,
		.interrupt = st->interrupt ? proc_signal_name(st->interrupt) : NULL,
		.abev_max_rss_bytes = st->max_rss_bytes,
		.notes = (const char *const *)st->notes,
		.nnotes = st->nnotes,
		.tampered = st->tampered_notes,
		.ntampered = st->ntampered_notes,
		.unsealed = (const char *const *)st->unread,
		.nunsealed = st->nunread,
		.steps = st->steps,
		.nsteps = st->nsteps,
		.reproduce = st->opt->reproduce,
		.reproduce_cwd = st->cwd,
		.plan_sha256 = st->plan_sha256,
		.evidence_dir = st->opt->out_dir,
		.signed_evidence = st->opt->key != NULL,
		.pubkey = st->opt->pubkey,
		.key_source = st->opt->key_source,
		.key_fingerprint = st->key_fp[0] ? st->key_fp : NULL,
		.report_template = plan->report_template ? EVIDENCE_TEMPLATE_FILE : NULL,
	};
}

/* report.md's input: the header as result.json has it, and what only the report shows. */
static void fill_report(const struct run_state *st, const struct run_header *hdr, int final,
			struct report_input *out)
{
	*out = (struct report_input){
		.file = final && !st->unsealed ? EVIDENCE_REPORT_FILE EVIDENCE_STAGED_SUFFIX : NULL,
		.run = hdr,
		.invs = st->invs,
		.ninvs = st->ninvs,
		.comparison = st->compared ? &st->cmp : NULL,
		.environment = st->have_env ? &st->env : NULL,
		.template_text = st->plan->report_template,
		.template_len = st->plan->report_template_len,
	};
}

/*
 * The last result.json could not be written whole (the file-size limit,
 * a full disk): a short one without the invocation records, which the
 * journal keeps (it stays in the evidence, held to abev's bytes:
 * run_state_close_journal()) and, past where it stopped, each
 * invocation's own result.json (write_records()), so that the evidence does not say
 * "running" as if abev had been killed, and says what is missing.
 */
static int write_short_state(struct run_state *st, struct run_header *hdr, int err)
{
	struct evidence_decision dec = decision_of(st);
	const char **notes = xcalloc(st->nnotes + 1, sizeof(*notes));
	unsigned kept = st->journal.lines;
	char *rest = kept < st->ninvs
		? xasprintf(", and each later one's own %s in its directory under %s/ the rest",
			    EVIDENCE_RESULT_FILE, EVIDENCE_RUNS_DIR)
		: xstrdup("");
	char *why = xasprintf("result.json could not be written in full (%s%s); this shorter "
			      "one leaves out the %zu invocation record(s): %s, kept in the "
			      "evidence, holds the first %u%s",
			      strerror(err), err == EFBIG ? ": the file-size limit, ulimit -f" : "",
			      st->ninvs, EVIDENCE_JOURNAL_FILE, kept, rest);

	for (size_t i = 0; i < st->nnotes; i++)
		notes[i] = st->notes[i];
	notes[st->nnotes] = why;
	hdr->notes = notes;
	hdr->nnotes = st->nnotes + 1;
	hdr->executed = st->ninvs;   /* none of them in this file */
	if (!strcmp(hdr->status, invocation_run_status_name(RUN_COMPLETED)))
		hdr->status = invocation_run_status_name(RUN_FAILED);
	int ret = evidence_write_run(&st->ev, &st->ledger, result_file(st, 1), hdr, &dec, NULL, 0);

	if (ret == 0)
		error("wrote a shorter result.json without the invocation records instead");
	hdr->notes = (const char *const *)st->notes;
	hdr->nnotes = st->nnotes;
	free(why);
	free(rest);
	free(notes);
	return ret;
}

/*
 * At the end of a run, before the reserve is given back: a full file
 * system is why abev's writes failed (or the child's logs were cut), and
 * the evidence says so and counts as failed.
 */
static void check_disk(struct run_state *st)
{
	struct statvfs sv;
	uint64_t avail;

	if (st->disk_checked)
		return;
	st->disk_checked = 1;
	if (fstatvfs(st->ev.fd, &sv) < 0)
		return;
	/* A file system that counts inodes (f_files) and has none left for new files. */
	if (sv.f_files > 0 && sv.f_favail < JOURNAL_RESERVE_INODES) {
		st->runtime_error = 1;
		run_state_note(st, xasprintf("the file system of the evidence ran out of inodes (%ju "
					     "left for new files at the end of the run): abev gave "
					     "back the %d it had held in reserve and finished and "
					     "sealed this evidence with them; files that could not "
					     "be made are named in abev's error output and in the "
					     "invocations' records", (uintmax_t)sv.f_favail,
					     JOURNAL_RESERVE_INODES));
	}
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (avail >= DISK_FULL_BYTES)
		return;
	st->runtime_error = 1;
	run_state_note(st, xasprintf("the disk is full: the file system of the evidence had %" PRIu64
				     " bytes free at the end of the run; abev stopped, gave back the "
				     "%" PRIu64 " bytes it had held in reserve (%s) and finished "
				     "and sealed this evidence with them; files that could not be "
				     "written, or logs cut short, are named in abev's error output "
				     "and in the invocations' records",
				     avail, st->journal.reserved, EVIDENCE_RESERVE_FILE));
}

/* A reserve that stopped growing is part of the record (journal.h). */
static void note_reserve(struct run_state *st)
{
	if (!st->journal.reserve_problem)
		return;
	run_state_note(st, st->journal.reserve_problem);
	st->journal.reserve_problem = NULL;
}

/* The first write: result.json and report.md say "running"; the journal opens. */
static int write_start(struct run_state *st)
{
	struct run_header hdr;
	struct report_input rin;
	int ret = 0;

	st->opened = 1;
	st->max_rss_bytes = self_max_rss();
	struct evidence_decision dec = decision_of(st);

	fill_header(st, RUN_RUNNING, 0, &hdr);
	fill_report(st, &hdr, 0, &rin);
	if (evidence_write_run(&st->ev, &st->ledger, NULL, &hdr, &dec, st->invs, st->ninvs) < 0 ||
	    report_write(&st->ev, &st->ledger, &rin) < 0 || journal_open(&st->journal, &st->ev) < 0)
		ret = -1;
	note_reserve(st);
	return ret;
}

/* The last write, once the run is over: everything in result.json, the journal gone. */
static int write_final(struct run_state *st)
{
	enum run_status status;
	struct run_header hdr;
	struct report_input rin;
	struct evidence_decision dec;
	int ret = 0;

	check_disk(st);
	journal_release_reserve(&st->journal);
	status = run_state_status(st, 1);
	/*
	 * An interrupted run decides nothing, whatever its rounds showed —
	 * also when the signal came after the comparison, while sealing.
	 */
	if (st->compared && !st->ccfg.interrupted && st->interrupt) {
		compare_release(&st->cmp);
		st->compared = 0;
	}
	st->ccfg.interrupted = st->interrupt != 0;
	if (!st->compared) {
		compare_compute(&st->ccfg, st->invs, st->ninvs, &st->cmp);
		st->compared = 1;
		if (plots_write(&st->ev, &st->ledger, &st->cmp, st->invs, st->ninvs) < 0)
			ret = -1;
	}
	st->max_rss_bytes = self_max_rss();
	fill_header(st, status, 1, &hdr);
	dec = decision_of(st);
	st->final_written = 0;
	if (evidence_write_run(&st->ev, &st->ledger, result_file(st, 1), &hdr, &dec, st->invs, st->ninvs) < 0) {
		ret = -1;
		st->final_written = write_short_state(st, &hdr, errno) == 0;
	} else {
		st->final_written = 1;
		/* Still there, it is sealed as abev wrote it. */
		if (journal_remove(&st->journal) < 0)
			ret = -1;
		else
			ledger_forget(&st->ledger, EVIDENCE_JOURNAL_FILE);
	}
	/* A short result.json says failed (write_short_state()): the report says the same. */
	fill_report(st, &hdr, 1, &rin);
	if (report_write(&st->ev, &st->ledger, &rin) < 0)
		ret = -1;
	return ret;
}

/*
 * The invocations recorded since the last call, each a line of the
 * journal. A journal that cannot be written (ulimit -f, a full disk)
 * stops the journal, not the run: from then on each invocation's record
 * is written as its own result.json in its directory — a small file,
 * which a file-size limit lets through — so that none is lost should the
 * final result.json be cut short too (write_short_state()).
 */
static int write_records(struct run_state *st)
{
	int ret = 0;

	for (; st->journaled < st->ninvs; st->journaled++) {
		const struct invocation *inv = &st->invs[st->journaled];

		if (!journal_stopped(&st->journal)) {
			if (journal_append(&st->journal, inv) == 0)
				continue;
			run_state_note(st, xasprintf("%s stops after %u invocation record(s): it "
						     "could not be written (%s); each later "
						     "invocation's record is its own %s in its "
						     "directory, from %s on",
						     EVIDENCE_JOURNAL_FILE, st->journal.lines,
						     strerror(errno), EVIDENCE_RESULT_FILE, inv->dir));
		}
		if (evidence_write_invocation(&st->ledger, &st->ev, inv) < 0)
			ret = -1;
	}
	note_reserve(st);
	return ret;
}

void run_state_close_journal(struct run_state *st)
{
	unsigned char digest[SHA256_LEN];
	uint64_t size;

	if (journal_close(&st->journal, digest, &size))
		ledger_written(&st->ledger, EVIDENCE_JOURNAL_FILE, digest, (off_t)size);
}

int run_state_write(struct run_state *st, int final)
{
	if (final)
		return write_final(st);
	if (!st->opened)
		return write_start(st);
	return write_records(st);
}

/* What the comparison is made of, from the plan: borrowed names, owned arrays. */
void run_state_compare_setup(struct run_state *st)
{
	const struct plan *plan = st->plan;
	struct compare_metric_def *defs;

	metrics_defs_outputs(plan->metrics, plan->nmetrics, &st->outputs, &st->noutputs);
	defs = xcalloc(st->noutputs + 1, sizeof(*defs));
	for (size_t i = 0, k = 0; i < plan->nmetrics; i++) {
		const struct metric_def *d = &plan->metrics[i];
		for (size_t j = 0; j < 1u + !!d->derive_rate; j++, k++) {
			defs[k].name = st->outputs[k].name;
			defs[k].unit = st->outputs[k].unit;
			defs[k].better_higher = st->outputs[k].better_higher;
			defs[k].source = j ? "derived" : metric_def_source_name(d->source);
		}
	}
	st->gate_defs = xcalloc(plan->ngates + 1, sizeof(*st->gate_defs));
	for (size_t i = 0; i < plan->ngates; i++) {
		st->gate_defs[i].metric = plan->gates[i].metric;
		st->gate_defs[i].kind = plan->gates[i].kind;
		st->gate_defs[i].limit = plan->gates[i].limit;
	}
	st->ccfg = (struct compare_config){
		.variants = st->variant_names,
		.nvariants = plan->nvariants,
		.reference = plan->reference,
		.metrics = defs,
		.nmetrics = st->noutputs,
		.gates = st->gate_defs,
		.ngates = plan->ngates,
		.confidence = plan->confidence,
		.resamples = plan->resamples,
		.seed = plan->set.seed,
		.acceptance = plan->acceptance,
		.inconclusive_fails = plan->inconclusive_fails,
		.order = run_order_name(plan->set.order),
		.rounds_planned = plan->set.runs,
	};
	if (plan->until_decided) {
		st->looks_taken = xcalloc(plan->nlooks + 1, sizeof(*st->looks_taken));
		st->seq = (struct compare_sequential){
			.confidence = plan->confidence,
			.look_confidence = plan->look_confidence,
			.min_rounds = plan->min_rounds,
			.max_rounds = plan->max_rounds,
			.looks = plan->looks,
			.nlooks = plan->nlooks,
			.taken = st->looks_taken,
		};
		st->ccfg.sequential = &st->seq;
		st->ccfg.confidence = plan->look_confidence;
	}
}

/*
 * A look of schedule.until "decided" after round: the comparison of what
 * is recorded so far, at each look's confidence. Returns 1 when it
 * decides every gate (pass or fail, or a failed test guard rejects), and
 * then records that the run stops there.
 */
int run_state_look(struct run_state *st, unsigned round)
{
	struct comparison c;
	int decided;

	compare_compute(&st->ccfg, st->invs, st->ninvs, &c);
	decided = c.decision == DECISION_ACCEPTED || c.decision == DECISION_REJECTED;
	st->looks_taken[st->seq.ntaken++] = (struct compare_look){ round, c.decision };
	if (decided)
		st->seq.decided_round = round;
	compare_release(&c);
	return decided;
}

static void release_comparison(struct run_state *st)
{
	compare_release(&st->cmp);
	free((void *)st->ccfg.metrics);
	st->ccfg.metrics = NULL;
	metric_def_values_free(st->outputs, st->noutputs);
	st->outputs = NULL;
	st->noutputs = 0;
	free(st->gate_defs);
	st->gate_defs = NULL;
}

void run_state_release(struct run_state *st)
{
	for (size_t i = 0; i < st->ninvs; i++)
		invocation_release(&st->invs[i]);
	unforked_free(st->invs, st->alloc, sizeof(*st->invs));
	st->invs = NULL;
	free(st->gave_up);
	st->gave_up = NULL;
	free(st->looks_taken);
	st->looks_taken = NULL;
	st->ninvs = st->alloc = 0;
	for (size_t i = 0; i < st->nnotes; i++)
		free(st->notes[i]);
	free(st->notes);
	st->notes = NULL;
	st->nnotes = st->notes_alloc = 0;
	free(st->tampered_notes);
	st->tampered_notes = NULL;
	for (size_t i = 0; i < st->nunread; i++)
		free(st->unread[i]);
	free(st->unread);
	st->unread = NULL;
	st->nunread = st->unread_alloc = 0;
	st->ntampered_notes = st->tampered_notes_alloc = 0;
	for (size_t i = 0; i < st->nsteps; i++) {
		free((char *)st->steps[i].log);
		invocation_prepare_free((struct invocation_prepare *)st->steps[i].rec);
	}
	free(st->steps);
	st->steps = NULL;
	st->nsteps = st->steps_alloc = 0;
	free(st->variant_names);
	st->variant_names = NULL;
	judge_free(st->judge);
	st->judge = NULL;
	progress_release(&st->prog);
	release_comparison(st);
	free(st->cwd);
	st->cwd = NULL;
	evidence_environment_release(&st->env);
	free(st->dotnet_hook);
	st->dotnet_hook = NULL;
	overlap_watch_release(&st->watch);
	journal_release(&st->journal);
	free(st->root);
	st->root = NULL;
	dirat_release(&st->ev);
	for (size_t i = 0; st->output_dirs && i < st->plan->nvariants; i++)
		dirat_release(&st->output_dirs[i]);
	free(st->output_dirs);
	st->output_dirs = NULL;
	ledger_release(&st->ledger);
}
