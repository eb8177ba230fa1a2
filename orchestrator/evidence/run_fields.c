/*
 * run_fields: the header table of result.json (run_fields.h). The rows
 * are in the order abev has always written them: the bytes of
 * result.json do not depend on the table being new.
 */
#include "evidence/run_fields.h"

#include "evidence/evidence.h"
#include "evidence/invocation_fields.h"
#include "util/json_out.h"
#include "record/layout.h"
#include "util/compiler.h"

#define OFF(f) offsetof(struct run_header, f)
/* FIELD_ENUM reads and writes an enum as an int. */
_Static_assert(sizeof(enum run_order) == sizeof(int), "enum run_order is int-sized");
#define REQ FIELD_REQUIRED
#define RD FIELD_READ
#define NUL FIELD_NULLABLE
/* Read back when present: evidence of older abevs may lack it. */
#define OPT FIELD_OPTIONAL

/* The setup and cleanup steps, each as its variant's prepare step is written; absent without any. */
static void w_steps(json_node *o, const char *key, const void *rec)
{
	const struct run_header *hdr = rec;
	cJSON *a;

	if (!hdr->nsteps)
		return;
	a = jnew_array();
	for (size_t i = 0; i < hdr->nsteps; i++) {
		const struct run_step *s = &hdr->steps[i];
		cJSON *step = jnew_object();

		jadd_str(step, "variant", s->variant);
		jadd_str(step, "step", s->kind);
		jadd_str(step, "log_file", s->log);
		invocation_fields_prepare_add(step, s->rec);
		jpush(a, step);
	}
	jadd(o, key, a);
}

const struct field run_fields[] = {
	{ .key = "schema", .type = FIELD_CONST, .flags = REQ | RD, .value = EVIDENCE_RUN_SCHEMA },
	{ .key = "abev_version", .type = FIELD_STRING, .off = OFF(abev_version), .flags = REQ | OPT },
	{ .key = "plan", .type = FIELD_OBJECT, .flags = REQ | RD, .missing = "missing: not abev's result.json" },
	{ .key = "plan.name", .type = FIELD_STRING, .off = OFF(plan_name), .flags = REQ | RD },
	{ .key = "plan.description", .type = FIELD_STRING, .off = OFF(plan_description), .flags = REQ | RD | NUL },
	{ .key = "plan.file", .type = FIELD_CONST, .flags = REQ | OPT, .value = EVIDENCE_PLAN_FILE },
	{ .key = "plan.source", .type = FIELD_STRING, .off = OFF(plan_path), .flags = REQ | RD },
	{ .key = "status", .type = FIELD_STRING, .off = OFF(status), .flags = REQ | RD },
	{ .key = "interrupt", .type = FIELD_STRING, .off = OFF(interrupt), .flags = REQ | RD | NUL },
	{ .key = "started_utc", .type = FIELD_STRING, .off = OFF(started_utc), .flags = REQ | RD },
	{ .key = "ended_utc", .type = FIELD_STRING, .off = OFF(ended_utc), .flags = REQ | RD | NUL | FIELD_NULL_EMPTY },
	{ .key = "schedule", .type = FIELD_OBJECT, .flags = REQ | RD, .missing = "missing: not abev's result.json" },
	{ .key = "schedule.order", .type = FIELD_ENUM, .off = OFF(set.order), .flags = REQ | RD,
	  .names = run_order_names, .nnames = RUN_ORDER_COUNT },
	{ .key = "schedule.order_from", .type = FIELD_STRING, .off = OFF(set.order_from), .flags = REQ | OPT },
	{ .key = "schedule.seed", .type = FIELD_U64, .off = OFF(set.seed), .flags = REQ | RD },
	{ .key = "schedule.warmups", .type = FIELD_UNSIGNED, .off = OFF(set.warmups), .flags = REQ | RD },
	{ .key = "schedule.runs", .type = FIELD_UNSIGNED, .off = OFF(set.runs), .flags = REQ | RD },
	{ .key = "schedule.runs_from", .type = FIELD_STRING, .off = OFF(set.runs_from), .flags = REQ | OPT },
	{ .key = "schedule.gap_seconds", .type = FIELD_NUMBER, .off = OFF(set.gap_seconds), .flags = REQ | RD, .unit = "s" },
	{ .key = "schedule.timeout_seconds", .type = FIELD_NUMBER, .off = OFF(set.timeout_seconds),
	  .flags = REQ | RD | NUL | FIELD_NULL_NONPOSITIVE, .unit = "s" },
	{ .key = "schedule.step_timeout_seconds", .type = FIELD_NUMBER, .off = OFF(set.step_timeout_seconds),
	  .flags = REQ | OPT, .unit = "s" },
	{ .key = "schedule.step_timeout_seconds_from", .type = FIELD_STRING,
	  .off = OFF(set.step_timeout_seconds_from), .flags = REQ | OPT },
	{ .key = "schedule.max_foreign_cpu", .type = FIELD_NUMBER, .off = OFF(set.max_foreign_cpu),
	  .flags = REQ | RD | NUL | FIELD_NULL_NEGATIVE, .unit = "cores" },
	{ .key = "schedule.max_cpu_wait_pct", .type = FIELD_NUMBER, .off = OFF(set.max_cpu_wait_pct), .flags = REQ | RD, .unit = "%" },
	{ .key = "schedule.max_cpu_wait_pct_from", .type = FIELD_STRING, .off = OFF(set.max_cpu_wait_pct_from), .flags = REQ | OPT },
	{ .key = "schedule.cpus", .type = FIELD_STRING, .off = OFF(set.cpus), .flags = REQ | OPT | NUL },
	{ .key = "schedule.max_repeats", .type = FIELD_UNSIGNED, .off = OFF(set.max_repeats), .flags = REQ | RD },
	{ .key = "schedule.max_wait_seconds", .type = FIELD_NUMBER, .off = OFF(set.max_wait_seconds), .flags = REQ | OPT, .unit = "s" },
	{ .key = "schedule.max_wait_seconds_from", .type = FIELD_STRING, .off = OFF(set.max_wait_seconds_from), .flags = REQ | OPT },
	{ .key = "schedule.exclusive", .type = FIELD_STRINGS, .off = OFF(set.exclusive), .count_off = OFF(set.nexclusive), .flags = REQ | OPT },
	{ .key = "peers", .type = FIELD_OBJECT, .flags = REQ },
	{ .key = "peers.lock_dir", .type = FIELD_STRING, .off = OFF(lock_dir), .flags = REQ | OPT | NUL },
	{ .key = "peers.wait", .type = FIELD_BOOL, .off = OFF(wait), .flags = REQ | OPT },
	{ .key = "peers.waited_seconds", .type = FIELD_NS_SECONDS, .off = OFF(waited_ns),
	  .flags = REQ | OPT | NUL | FIELD_NULL_NEGATIVE, .unit = "s" },
	{ .key = "run_as", .type = FIELD_OBJECT, .off = OFF(run_as_user), .flags = REQ | NUL | FIELD_NULL_UNLESS },
	{ .key = "run_as.user", .type = FIELD_STRING, .off = OFF(run_as_user), .flags = REQ | OPT },
	{ .key = "run_as.uid", .type = FIELD_I64, .off = OFF(run_as_uid), .flags = REQ | OPT },
	{ .key = "run_as.gid", .type = FIELD_I64, .off = OFF(run_as_gid), .flags = REQ | OPT },
	{ .key = "run_as.from", .type = FIELD_STRING, .off = OFF(run_as_from), .flags = REQ | OPT },
	{ .key = "variants", .type = FIELD_STRINGS, .off = OFF(variant_names), .count_off = OFF(nvariants), .flags = REQ | RD },
	{ .key = "planned", .type = FIELD_UNSIGNED, .off = OFF(planned), .flags = REQ | OPT },
	{ .key = "executed", .type = FIELD_U64, .off = OFF(executed), .flags = REQ | OPT },
	{ .key = "abev_max_rss_bytes", .type = FIELD_I64, .off = OFF(abev_max_rss_bytes), .flags = REQ | OPT, .unit = "bytes" },
	{ .key = "notes", .type = FIELD_STRINGS, .off = OFF(notes), .count_off = OFF(nnotes), .flags = REQ | RD },
	{ .key = "tampered", .type = FIELD_STRINGS, .off = OFF(tampered), .count_off = OFF(ntampered), .flags = REQ | OPT },
	{ .key = "unsealed", .type = FIELD_STRINGS, .off = OFF(unsealed), .count_off = OFF(nunsealed), .flags = REQ | OPT },
	/* Only when the plan has a setup or cleanup step; the notes say how each ended. */
	{ .key = "steps", .type = FIELD_CUSTOM, .write = w_steps },
	{ .key = "report", .type = FIELD_OBJECT, .flags = RD,
	  .missing = "missing: this evidence was made by an abev that did not record what its report needs" },
	{ .key = "report.reproduce", .type = FIELD_STRING, .off = OFF(reproduce), .flags = REQ | RD | NUL },
	{ .key = "report.cwd", .type = FIELD_STRING, .off = OFF(reproduce_cwd), .flags = REQ | RD | NUL },
	{ .key = "report.plan_sha256", .type = FIELD_STRING, .off = OFF(plan_sha256), .flags = REQ | RD },
	{ .key = "report.evidence_dir", .type = FIELD_STRING, .off = OFF(evidence_dir), .flags = REQ | RD | NUL },
	{ .key = "report.signed", .type = FIELD_BOOL, .off = OFF(signed_evidence), .flags = REQ | RD },
	{ .key = "report.pubkey", .type = FIELD_STRING, .off = OFF(pubkey), .flags = REQ | RD | NUL },
	{ .key = "report.key_source", .type = FIELD_STRING, .off = OFF(key_source), .flags = REQ | OPT | NUL },
	{ .key = "report.key_fingerprint", .type = FIELD_STRING, .off = OFF(key_fingerprint), .flags = OPT | NUL },
	{ .key = "report.template", .type = FIELD_STRING, .off = OFF(report_template), .flags = REQ | RD | NUL },
};
const size_t run_fields_count = ARRAY_SIZE(run_fields);

void run_fields_write(json_node *o, const struct run_header *hdr)
{
	fields_write(o, run_fields, run_fields_count, hdr);
}

void run_fields_unset(struct run_header *hdr)
{
	*hdr = (struct run_header)RUN_HEADER_INIT;
	fields_unset(run_fields, run_fields_count, hdr);
	/* Without a run_as object there is no uid or gid. */
	hdr->run_as_uid = hdr->run_as_gid = -1;
}

int run_fields_read(const struct json_in *rd, const json_node *root, struct run_header *hdr,
		    void (*keep)(void *ctx, void *p), void *ctx)
{
	return fields_read(rd, root, "", run_fields, run_fields_count, hdr, keep, ctx);
}
