/*
 * run_state: what `abev run` knows while it runs — the plan and options,
 * the invocations recorded so far, the run's notes, how it ended, and the
 * comparison made once it is over — and the writing of that knowledge as
 * result.json and report.md (run_state_write()). It runs nothing and
 * decides nothing: runner.c sets the run up and finishes it, run_slot.c
 * fills the invocations, judge.c judges them, run_summary.c prints the
 * end. Internal to the runner: no other module sees struct run_state.
 */
#ifndef ABEV_RUN_STATE_H
#define ABEV_RUN_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "decide/compare.h"
#include "evidence/evidence.h"
#include "evidence/evidence_read.h"
#include "util/dirat.h"
#include "util/clock.h"
#include "util/hash.h"
#include "evidence/ledger.h"
#include "evidence/journal.h"
#include "measure/overlap.h"
#include "measure/peers.h"
#include "plan/plan.h"
#include "pipeline/machine.h"
#include "pipeline/progress.h"
#include "pipeline/runner.h"

struct judge;

struct run_state {
	const struct plan *plan;
	const struct runner_options *opt;
	char *root;                 /* absolute evidence directory, for messages and the runs */
	struct dirat ev;            /* the evidence directory, as abev created it */
	/* Per variant, the directory of its output file (plan.h: PLAN_OUTPUT_FILE), else closed. */
	struct dirat *output_dirs;
	struct ledger ledger;       /* what abev wrote there (ledger.h) */
	long tampered;              /* differences ledger_check() found before sealing */
	int root_moved;             /* root no longer names the directory open as ev */
	struct invocation *invs;
	size_t ninvs, alloc;
	char **notes;
	size_t nnotes, notes_alloc;
	const char **tampered_notes; /* those of notes that record a change to abev's files (borrowed) */
	size_t ntampered_notes, tampered_notes_alloc;
	struct run_step *steps;     /* setup and cleanup steps run (owned: log, rec) */
	size_t nsteps, steps_alloc;
	size_t planned;
	unsigned lost;              /* recorded slots with no valid measurement */
	char *gave_up;              /* why the plan was stopped early (fail fast), or NULL */
	int no_assemblies;          /* stopped before its first invocation: an assemblies
	                               pattern matched nothing after its variant's setup */
	int interrupt;              /* signal number, or 0 */
	int runtime_error;
	char started[UTC_STAMP_LEN];
	char ended[UTC_STAMP_LEN];
	const char **variant_names;
	struct progress prog;
	struct judge *judge;
	/* The comparison, made once when the run is over. */
	struct compare_config ccfg;
	struct metric_value *outputs;   /* the plan's metrics as compared, owned */
	size_t noutputs;
	struct compare_gate_def *gate_defs;
	struct comparison cmp;
	int compared;
	/* schedule.until "decided": the design and the looks taken so far (ccfg.sequential). */
	struct compare_sequential seq;
	struct compare_look *looks_taken;
	char *cwd;                  /* where abev runs, for the reproduce command */
	struct run_environment env; /* metadata.json as written, for the report */
	char *dotnet_hook;          /* the startup hook every run's command loads (dotnet_runtime), or NULL */
	int have_env;
	char plan_sha256[SHA256_HEX_LEN + 1];
	char key_fp[SHA256_HEX_LEN + 1];  /* the signing key's fingerprint, or "" */
	/* The record while the run goes on (see run_state_write()). */
	struct journal journal;
	size_t journaled;           /* invs[0..journaled) are in the journal */
	int opened;                 /* the first result.json is written, the journal open */
	int disk_checked;           /* the final write looked whether the disk is full */
	int unsealed;               /* the seal failed: the final files take their own names */
	/* Files a signal kept the seal from reading: result.json's "unsealed" (owned). */
	char **unread;
	size_t nunread, unread_alloc;
	int final_written;          /* the last write wrote a final result.json (whole or short) */
	int64_t max_rss_bytes;      /* abev's own, read for the final result.json */
	/* The gap: when the next process may start, once one has run. */
	int64_t next_start;
	int have_prev;
	/* What else ran beside each invocation. */
	struct overlap_watch watch; /* load.exclusive */
	struct peers peers;         /* other abev runs on this host */
	int64_t waited_ns;          /* --wait: time spent waiting for them, -1: not asked */
	/* The wait for a quieter machine before recorded runs (quiet.h, run_slot.c). */
	int64_t load_waited_ns;     /* spent so far of load.max_wait_seconds (looks included) */
	int64_t load_wait_next_ns;  /* the wait before the invocation about to run, or 0 */
	int load_spent;             /* the budget is spent: runs go ahead under load, kept */
	/* What the slots run on: opt->machine, else the real machine (machine.h). */
	const struct machine_ops *m;
};

/* Empties *st and borrows plan and opt for its life. */
void run_state_init(struct run_state *st, const struct plan *plan,
		    const struct runner_options *opt);
/* Frees what st owns (not plan, opt or the peers' registration). A second call does nothing. */
void run_state_release(struct run_state *st);

/* Adds a run-level note; takes ownership of note. */
void run_state_note(struct run_state *st, char *note);
/* run_state_note() as a judge_note_fn / evname_tidy() callback; ctx is the run_state. */
void run_state_note_cb(void *ctx, char *note);
/*
 * Adds a run-level note that records a change made to abev's own files or
 * directories while it ran; result.json lists it under "tampered" as well
 * as under "notes", so that `abev verify` can say it. Takes ownership.
 */
void run_state_note_tampered(struct run_state *st, char *note);
/* run_state_note_tampered() as a ledger_check() callback; ctx is the run_state. */
void run_state_note_tampered_cb(void *ctx, char *note);

/* The UTC wall clock now (st's machine, machine.h), as the evidence labels times. */
void run_state_now_utc(const struct run_state *st, char out[UTC_STAMP_LEN]);

/* The run's status: running until final, then interrupted, failed or completed. */
enum run_status run_state_status(const struct run_state *st, int final);

/*
 * What the comparison is made of, from the plan (run_state_compare_setup(),
 * after variant_names is set); made when run_state_write() is first called
 * with final set.
 */
void run_state_compare_setup(struct run_state *st);
/*
 * schedule.until "decided": looks at the gates after round (one of the
 * plan's looks). 1 when every gate is decided: the plan stops there.
 */
int run_state_look(struct run_state *st, unsigned round);

/*
 * Writes the run down. The first call (final 0) writes result.json and
 * report.md as "running" and opens the journal with its reserve
 * (journal.h); each later one with final 0 appends the invocations
 * recorded since to the journal, and nothing else (once the journal has
 * stopped, writes each one's own result.json instead): its cost does not
 * grow with the run, and it makes no file while the journal takes the
 * lines. With final set (the run is over) it gives the
 * reserve back, makes the comparison and its plots, writes result.json
 * with every invocation and report.md, and removes the journal. The
 * final result.json and report.md are staged (seal.h: "result.json.sealing")
 * for seal_evidence_final() to put in place, unless st->unsealed is set.
 * 0, or -1 after error() when a file could not be written.
 */
int run_state_write(struct run_state *st, int final);
/*
 * The run is over, before the check of the evidence (runner.c): the
 * journal takes no more lines, and its digest goes to the ledger, which
 * then holds it to the bytes abev wrote like every file of abev's — a run
 * that changed it is found, and a journal that stays in the evidence
 * (beside a short result.json) is sealed as abev wrote it. The final
 * run_state_write() removes it from both once result.json holds every
 * record.
 */
void run_state_close_journal(struct run_state *st);

#endif
