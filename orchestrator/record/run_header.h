/*
 * run_header: the run as a whole — what plan ran how, when, on whose
 * behalf, with what result so far — the header of the top-level
 * result.json. One type for every stage: the pipeline fills it from the
 * plan and its own state, evidence/ writes and reads it through one
 * table of fields (evidence/run_fields.h), report/ renders it. Strings
 * and lists are borrowed: from the plan and the run's state when written,
 * from the struct evidence_run that read them back (evidence_read.h).
 */
#ifndef ABEV_RUN_HEADER_H
#define ABEV_RUN_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "record/run_settings.h"

struct invocation_prepare;

/* A variant's setup or cleanup step, run once (the plan's "setup", "cleanup"). */
struct run_step {
	const char *variant;
	const char *kind;                        /* "setup" or "cleanup" (static) */
	const char *log;                         /* runs/<variant>/<kind>.log */
	const struct invocation_prepare *rec;    /* what ran, and how it ended */
};

struct run_header {
	const char *abev_version;
	/* The plan ("plan" in result.json). */
	const char *plan_name;
	const char *plan_description;  /* or NULL */
	const char *plan_path;         /* as given */
	const char *status;            /* invocation_run_status_name() */
	const char *interrupt;         /* "SIGINT"/"SIGTERM" or NULL */
	const char *started_utc;
	const char *ended_utc;         /* NULL or "" while running */
	/*
	 * The schedule and the load limits, the plan's own (plan.h: plan.set):
	 * "schedule" in result.json, but for load.exclusive. order_from is
	 * NULL in evidence before abev recorded it.
	 */
	struct run_settings set;
	/* Other abev runs (peers.h). */
	const char *lock_dir;          /* where they are seen, or NULL */
	int wait;                      /* --wait */
	int64_t waited_ns;             /* time spent waiting for them; -1: not asked to */
	/* The user the commands ran as (run_as), or NULL. */
	const char *run_as_user;
	int64_t run_as_uid, run_as_gid;
	const char *run_as_from;       /* "plan" or "--run-as" */
	const char *const *variant_names; /* in plan order */
	size_t nvariants;
	unsigned planned;              /* slots in the schedule (warmups + runs) */
	uint64_t executed;             /* invocations started, in the record or not */
	int64_t abev_max_rss_bytes;    /* abev's own peak RSS so far */
	const char *const *notes;      /* run-level remarks (e.g. a slot lost to overlaps) */
	size_t nnotes;
	/*
	 * Those of the notes that record a change made to abev's own files or
	 * directories while it ran (a file rewritten, removed or added, a run
	 * directory swapped, the evidence directory moved): the same strings.
	 * Empty when read from evidence of an abev that did not record them.
	 */
	const char *const *tampered;
	size_t ntampered;
	/*
	 * What abev left unhashed when a signal stopped the seal: paths
	 * beneath runs/, each a file or a directory standing for everything
	 * beneath it that SHA256 does not list. Empty when everything was
	 * hashed, and when read from evidence of an abev that did not record
	 * them.
	 */
	const char *const *unsealed;
	size_t nunsealed;
	const struct run_step *steps;  /* setup and cleanup steps, in the order run; written, not read back */
	size_t nsteps;
	/* What `abev report DIR` needs to render report.md again, byte for byte. */
	const char *reproduce;         /* the command line that re-runs this, or NULL */
	const char *reproduce_cwd;     /* the directory it was run from, or NULL */
	const char *plan_sha256;       /* of the plan's bytes (plan.json), hex */
	const char *evidence_dir;      /* as the user named it */
	int signed_evidence;
	const char *pubkey;            /* the signer's public key file, or NULL */
	const char *key_source;        /* "option" (--key), "environment" (ABEV_SIGNING_KEY), or NULL */
	const char *key_fingerprint;   /* the signing key's fingerprint (hex SHA-256 of its public key), or NULL */
	const char *report_template;   /* EVIDENCE_TEMPLATE_FILE when the plan has its own, or NULL */
};

#define RUN_HEADER_INIT { 0 }

#endif
