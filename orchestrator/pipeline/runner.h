/*
 * runner: carries out `abev run` — creates the evidence directory, walks
 * the schedule, runs each invocation through proc, judges its load,
 * repeats discarded slots, waits the gaps, and journals every invocation
 * as it ends (run_state.h) so that whatever stops abev leaves evidence
 * that says how far it got. It decides nothing about exit
 * codes: it reports an outcome and main.c maps it.
 */
#ifndef ABEV_RUNNER_H
#define ABEV_RUNNER_H

#include <stdio.h>

#include "decide/compare.h"
#include "plan/plan.h"
#include "pipeline/progress.h"
#include "seal/seal.h"
#include "util/colour.h"

struct machine_ops;

struct runner_options {
	const char *out_dir;          /* must not exist, unless out_made */
	int out_made;                 /* out_dir was just made, empty, by the caller */
	enum progress_mode progress;
	const char *reproduce;        /* command line to re-run, for the report */
	const struct signify_key *key;   /* signs SHA256 when set; NULL: --unsigned */
	const char *pubkey;           /* the public key file to name in the report, or NULL */
	const char *key_source;       /* where key came from: "option", "environment"; NULL unsigned */
	const char *bundle;           /* also pack the evidence into this archive, or NULL */
	const char *host_label;       /* metadata.json's host.label; NULL: the hostname */
	const char *passphrase_env;   /* --passphrase-env: its value is recorded hashed, or NULL */
	int json;                     /* print the comparison as JSON on stdout */
	int bench;                    /* abev bench: advice names its options, not plan keys */
	enum colour_when colour;      /* --color: colours in the summary (util/colour.h) */
	/*
	 * Other abev runs on this host (peers.h): wait for them to finish
	 * (wait), at most wait_max_seconds (< 0: no limit) and then go ahead,
	 * their overlapping runs discarded and repeated; or refuse to start
	 * while one runs (refuse_peers, --no-wait).
	 */
	int wait;
	int refuse_peers;
	double wait_max_seconds;
	/* What the slots run on (machine.h); NULL: the real machine. Borrowed. */
	const struct machine_ops *machine;
};

struct runner_result {
	int signo;                    /* RUNNER_INTERRUPTED: the signal received */
	enum decision decision;       /* the comparison's, once the run is over */
};

enum runner_outcome {
	RUNNER_PASSED,       /* every invocation ran and passed */
	RUNNER_FAILED,       /* evidence written; an invocation failed or a slot was lost */
	RUNNER_INTERRUPTED,  /* a signal (proc.h), at any point: evidence written, marked interrupted, sealed */
	RUNNER_USAGE,        /* the output directory exists (nothing written) */
	RUNNER_ERROR,        /* runtime error: directory, spawning */
};

/*
 * Checks what can be checked of opt before anything runs: --out does not
 * exist (or was just made: out_made) and its nearest existing ancestor is
 * a writable directory; the
 * bundle's name, absence and directory (bundle_check_target()), and that
 * it is not inside --out. 0, or -1 after error() (a usage error).
 */
int runner_check_options(const struct runner_options *opt);

/*
 * Runs the plan. Prints where the evidence is, its status, the decision
 * and one line per metric and compared variant (see print_end()).
 */
enum runner_outcome runner_run(const struct plan *plan, const struct runner_options *opt,
			       struct runner_result *res);

/* Prints the schedule, one slot a line, to f (for --dry-run). */
void runner_print_schedule(const struct plan *plan, FILE *f);

#endif
