/* Unit tests of the pipeline's seam (pipeline/machine.h): the whole runner
 * — plan, schedule, runs, judge, load guard, comparison, decision — driven
 * on a machine whose every effect is scripted: each run's wall time, CPU
 * wait and outcome per variant, what overlapped it, the load averages,
 * the monotonic and UTC clocks and every sleep. What these tests assert —
 * the decision of a gate, which runs were discarded, the order of the
 * spawns, what a run that could not start or timed out does to the plan —
 * cannot move with the machine's load. test_pipeline.c drives the waits
 * for a quieter machine, repeats of balanced rounds and looks. The
 * evidence is real: written, sealed and read back from a scratch
 * directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cJSON.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "measure/overlap.h"
#include "measure/peers.h"
#include "measure/sysstat.h"
#include "pipeline/machine.h"
#include "pipeline/runner.h"
#include "plan/plan.h"
#include "run/proc.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/cpulist.h"
#include "util/dirat.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "testutil.h"

#define MS 1000000LL
#define S (1000 * MS)

/* Where the scripted UTC clock starts: 2030-01-02T03:04:05Z. */
#define UTC_EPOCH 1893553445

/* One run of a variant as the script has it; zero fields: a clean run that exited 0. */
struct scripted_run {
	int64_t wall_ms;
	double wait_pct;          /* share of the wall time it waited on CPUs others held */
	double others_cores;      /* cores other processes kept busy on its CPUs meanwhile */
	enum proc_outcome outcome;
	int spawn_error;          /* abev itself could not run it: run() returns -1 */
	int exclusive;            /* a load.exclusive process ran beside it */
};

/* The two variants of every plan here, and each one's script of recorded runs. */
static const char *const variant_names[] = { "base", "cand" };

struct script {
	const struct scripted_run *runs[2];
	size_t nruns[2];
	size_t next[2];            /* recorded runs of each variant spawned so far */
	int64_t warmup_ms[2];      /* the wall time of each variant's warmups */
	char spawns[128];          /* one letter a spawn: b, c; upper case for a warmup */
	size_t nspawns;
	int exclusive_pending;     /* the run just spawned had a neighbour to report */
	int64_t clock;             /* monotonic, ns */
	double busy_ns;            /* busy time of the CPU set so far, all processes */
	int64_t slept_ns;
	unsigned loadavg_reads;
	int64_t started[64], ended[64]; /* the clock at each spawn's start and end */
};

static const char *env_get(const char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* Which variant spec runs: its command's last word names it. */
static size_t spec_variant(const struct proc_spec *spec)
{
	const char *const *a = spec->argv;

	while (a[1])
		a++;
	for (size_t v = 0; v < ARRAY_SIZE(variant_names); v++)
		if (!strcmp(*a, variant_names[v]))
			return v;
	fail_msg("unknown variant '%s'", *a);
	return 0;
}

/* The empty logs proc would have made. */
static void touch_logs(const struct proc_spec *spec)
{
	for (int i = 0; i < 2; i++) {
		const char *name = i ? spec->stderr_path : spec->stdout_path;
		int fd;

		if (!name)
			continue;
		fd = openat(spec->log_dir->fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			    O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
}

static void utc_at(int64_t mono, struct timespec *ts)
{
	ts->tv_sec = UTC_EPOCH + mono / S;
	ts->tv_nsec = (long)(mono % S);
}

/* Fills res as proc_run() would for r, ending at the script's clock. */
static void fill_result(struct script *sc, const struct scripted_run *r, struct proc_result *res)
{
	int64_t wall = r->wall_ms * MS;
	int64_t cpu = wall - (int64_t)(r->wait_pct / 100 * (double)wall);

	memset(res, 0, sizeof(*res));
	utc_at(sc->clock, &res->start_real);
	res->outcome = r->outcome;
	res->exit_code = -1;
	res->cg_memory_peak_bytes = -1;
	res->cgroup_reason = xstrdup("no cgroup: a scripted run");
	res->system_cpu_wait_ns = -1;
	switch (r->outcome) {
	case PROC_EXEC_FAILED:
		res->exec_error = xstrdup("cannot execute 'cand': No such file or directory");
		return;
	case PROC_TIMED_OUT:
		res->signal = res->stop_signal = SIGTERM;
		break;
	default:
		res->exit_code = 0;
		break;
	}
	res->fig.wall_ns = wall;
	res->fig.user_ns = cpu;
	res->fig.max_rss_bytes = 4 << 20;
	res->cpu_wait_ns = res->tree_wait_ns = wall - cpu;
	res->cpu_wait_source = "schedstat";
	sc->clock += wall;
	sc->busy_ns += (double)cpu + r->others_cores * (double)wall;
	utc_at(sc->clock, &res->end_real);
}

static int m_run(void *arg, const struct proc_spec *spec, struct proc_result *res)
{
	struct script *sc = arg;
	size_t v = spec_variant(spec);
	const char *phase = env_get(spec->envp, "ABEV_PHASE");
	int warmup = phase && !strcmp(phase, "warmup");
	struct scripted_run warm = { sc->warmup_ms[v], 0, 0, PROC_EXITED, 0, 0 };
	const struct scripted_run *r = &warm;

	assert_true(sc->nspawns + 1 < sizeof(sc->spawns));
	sc->spawns[sc->nspawns++] = (char)(warmup ? 'B' + (v ? 1 : 0) : 'b' + (v ? 1 : 0));
	if (!warmup) {
		assert_true(sc->next[v] < sc->nruns[v]);
		r = &sc->runs[v][sc->next[v]++];
	}
	if (r->spawn_error)
		return -1;
	touch_logs(spec);
	assert_true(sc->nspawns <= ARRAY_SIZE(sc->started));
	sc->started[sc->nspawns - 1] = sc->clock;
	fill_result(sc, r, res);
	sc->ended[sc->nspawns - 1] = sc->clock;
	sc->exclusive_pending = r->exclusive;
	return 0;
}

static int m_cpustat(void *arg, const struct cpulist *cpus, struct cpustat *out)
{
	struct script *sc = arg;
	double tick_ns = 1e9 / (double)sysstat_ticks_per_second();

	memset(out, 0, sizeof(*out));
	out->valid = 1;
	out->set_cpus = cpus ? cpus->count : 1;
	out->set_busy_ticks = (uint64_t)(sc->busy_ns / tick_ns);
	out->busy_ticks = out->set_busy_ticks;
	out->total_ticks = (uint64_t)((double)sc->clock * out->set_cpus / tick_ns) + 1;
	return 0;
}

static int64_t m_now(void *arg)
{
	return ((struct script *)arg)->clock;
}

static int m_sleep(void *arg, int64_t ns, void (*tick)(void *, int64_t), void *tick_arg)
{
	struct script *sc = arg;

	(void)tick;
	(void)tick_arg;
	sc->clock += ns;
	sc->slept_ns += ns;
	return 0;
}

static void m_utc(void *arg, struct timespec *out)
{
	utc_at(((struct script *)arg)->clock, out);
}

/* The load averages: 0.25 more at every read, so that each run's pair is known. */
static void m_loadavg(void *arg, struct loadavg *out)
{
	struct script *sc = arg;

	memset(out, 0, sizeof(*out));
	out->valid = 1;
	out->m1 = 0.25 * ++sc->loadavg_reads;
	out->m5 = out->m15 = 1;
	out->runnable = 1;
	out->total = 100;
}

/* The neighbour a scripted run had, seen by the look just after it. */
static void m_overlap_scan(void *arg, struct overlap_watch *w)
{
	struct script *sc = arg;
	struct overlap_hit hit = { OVERLAP_EXCLUSIVE, 4242, NULL, NULL, NULL };

	if (!sc->exclusive_pending)
		return;
	sc->exclusive_pending = 0;
	hit.command = xstrdup("neighbour --busy");
	hit.pattern = xstrdup("neighbour*");
	overlap_watch_add(w, &hit);
}

/* No other abev run, ever. */
static void m_peers_look(void *arg, struct peers *p, struct peers_look *out)
{
	(void)arg;
	(void)p;
	peers_look_release(out);
	*out = (struct peers_look)PEERS_LOOK_INIT;
	out->events = 0;
}

/* A scratch directory for one test: lock directory and evidence. */
struct scratch {
	char *dir;
	char out[96];
	cJSON *result;
	enum runner_outcome outcome;
};

/* The first CPU this process may run on: the variants are pinned to it (one CPU, exact figures). */
static int first_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				return c;
	return 0;
}

/* A plan of base and cand; schedule and load are the inside of their objects; rest, more keys. */
static char *plan_text(const char *schedule, const char *load, const char *rest)
{
	int cpu = first_cpu();

	return xasprintf("{\"schema\": \"abev.plan/1\", \"name\": \"seam\",\n"
			 " \"variants\": [{\"name\": \"base\", \"command\": [\"true\", \"base\"], "
			 "\"cpus\": \"%d\"},\n"
			 "              {\"name\": \"cand\", \"command\": [\"true\", \"cand\"], "
			 "\"cpus\": \"%d\"}],\n"
			 " \"schedule\": {\"seed\": 1, \"gap_seconds\": 1, %s},\n"
			 " \"load\": {%s}%s%s}\n",
			 cpu, cpu, schedule, load, rest ? ", " : "", rest ? rest : "");
}

/* Runs text's plan on sc's script; the outcome and the result.json read back in *sx. */
static void run_scripted(struct scratch *sx, const char *text, struct script *sc)
{
	struct plan plan;
	struct runner_options opt = { 0 };
	struct runner_result res = { 0 };
	struct machine_ops ops = {
		.run = m_run, .cpustat = m_cpustat, .now = m_now, .sleep = m_sleep,
		.utc = m_utc, .loadavg = m_loadavg, .overlap_scan = m_overlap_scan,
		.peers_look = m_peers_look, .arg = sc,
	};
	struct strbuf json = STRBUF_INIT;
	char *path;
	char lock[96];

	sx->dir = tu_tmpdir("seam");
	snprintf(lock, sizeof(lock), "%s/lock", sx->dir);
	assert_int_equal(mkdir(lock, 0700), 0);
	setenv("ABEV_LOCK_DIR", lock, 1);
	snprintf(sx->out, sizeof(sx->out), "%s/ev", sx->dir);
	memset(&plan, 0, sizeof(plan));
	assert_int_equal(plan_parse(&plan, "seam.json", text, strlen(text)), 0);
	opt.out_dir = sx->out;
	opt.progress = PROGRESS_QUIET;
	opt.reproduce = "abev run seam.json";
	opt.wait = 1;
	opt.wait_max_seconds = 0;
	opt.machine = &ops;
	sx->outcome = runner_run(&plan, &opt, &res);
	plan_release(&plan);
	path = xasprintf("%s/result.json", sx->out);
	assert_int_equal(read_file_capped(&json, path, 64 << 20), 0);
	sx->result = cJSON_Parse(json.buf);
	assert_non_null(sx->result);
	strbuf_release(&json);
	free(path);
}

static void scratch_release(struct scratch *sx)
{
	cJSON_Delete(sx->result);
	tu_rm_rf(sx->dir);
	free(sx->dir);
}

static int ninvs(const struct scratch *sx)
{
	return cJSON_GetArraySize(cJSON_GetObjectItem(sx->result, "invocations"));
}

static const cJSON *inv_at(const struct scratch *sx, int i)
{
	const cJSON *inv = cJSON_GetArrayItem(cJSON_GetObjectItem(sx->result, "invocations"), i);

	assert_non_null(inv);
	return inv;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static double num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Whether some run-level note holds what. */
static int has_note(const struct scratch *sx, const char *what)
{
	const cJSON *n;

	cJSON_ArrayForEach(n, cJSON_GetObjectItem(sx->result, "notes"))
		if (cJSON_IsString(n) && strstr(n->valuestring, what))
			return 1;
	return 0;
}

/*
 * Each invocation in order as "<variant letter><status letter>", upper
 * case for a warmup: "bo" base ok, "cd" cand discarded, "Ct" a cand
 * warmup timed out, "ce" could not start.
 */
static void assert_invocations(const struct scratch *sx, const char *want)
{
	char got[256] = "";
	size_t n = 0;

	for (int i = 0; i < ninvs(sx) && n + 3 < sizeof(got); i++) {
		const cJSON *inv = inv_at(sx, i);
		int warm = !strcmp(str_of(inv, "phase"), "warmup");
		const char *status = str_of(inv, "status");
		char s = !strcmp(status, "exec_failed") ? 'e' : status[0];

		got[n++] = (char)(str_of(inv, "variant")[0] - (warm ? 'a' - 'A' : 0));
		got[n++] = (char)(s - (warm ? 'a' - 'A' : 0));
	}
	got[n] = '\0';
	if (strcmp(got, want))
		fail_msg("invocations %s, want %s", got, want);
}

/* Every recorded run of a variant from ms, one a round. */
static void script_runs(struct scripted_run *runs, const int *ms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		runs[i] = (struct scripted_run){ .wall_ms = ms[i], .outcome = PROC_EXITED };
}

/* The gate test_verdict.py's gate_plan() sets: wall ≤ +15 %, seven rounds, alternate. */
static char *gate_plan(void)
{
	return plan_text("\"runs\": 7, \"order\": \"alternate\"",
			 "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64, \"max_repeats\": 0",
			 "\"gates\": {\"wall\": {\"max_regression_pct\": 15}}");
}

/*
 * The gates decide on the scripted figures alone: twice as slow is
 * rejected, +0.5 % accepted, noise straddling the limit inconclusive —
 * the cases test_verdict.py runs on real sleeps.
 */
static void test_gate_decides(void **state)
{
	static const int base[7] = { 200, 200, 200, 200, 200, 200, 200 };
	static const struct {
		int cand[7];
		const char *decision, *verdict;
	} cases[] = {
		{ { 400, 400, 400, 400, 400, 400, 400 }, "rejected", "fail" },
		{ { 201, 201, 201, 201, 201, 201, 201 }, "accepted", "pass" },
		{ { 200, 260, 210, 250, 230, 220, 240 }, "inconclusive", "inconclusive" },
	};
	char *text = gate_plan();
	(void)state;

	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct scripted_run b[7], c[7];
		struct script sc = { .runs = { b, c }, .nruns = { 7, 7 } };
		struct scratch sx;
		const cJSON *cmp, *gate, *iv;

		script_runs(b, base, 7);
		script_runs(c, cases[k].cand, 7);
		run_scripted(&sx, text, &sc);
		cmp = cJSON_GetObjectItem(sx.result, "comparison");
		gate = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp, "gates"), 0);
		iv = cJSON_GetObjectItem(gate, "interval");
		assert_string_equal(str_of(cmp, "decision"), cases[k].decision);
		assert_string_equal(str_of(gate, "verdict"), cases[k].verdict);
		assert_string_equal(str_of(gate, "variant"), "cand");
		assert_string_equal(str_of(sx.result, "status"), "completed");
		assert_int_equal(sx.outcome, RUNNER_PASSED);
		assert_int_equal(cJSON_GetArraySize(iv), 2);
		if (k == 0) {
			/* Every round +100 %: the interval is that one point. */
			assert_true(cJSON_GetArrayItem(iv, 0)->valuedouble > 99.99);
			assert_true(cJSON_GetArrayItem(iv, 1)->valuedouble < 100.01);
		} else if (k == 2) {
			assert_true(cJSON_GetArrayItem(iv, 0)->valuedouble < 15);
			assert_true(cJSON_GetArrayItem(iv, 1)->valuedouble > 15);
		}
		assert_string_equal(sc.spawns, "bcbcbcbcbcbcbc");
		scratch_release(&sx);
	}
	free(text);
}

/*
 * The order of the spawns as the plan sets it — balanced (the default,
 * A B, B A) or alternate — warmups first, in the same order; and warmups
 * do not count: cand's warmups are ten times slower, and the tie is still
 * accepted on the recorded runs alone.
 */
static void test_order_and_warmups(void **state)
{
	static const int same[4] = { 100, 102, 98, 100 };
	static const struct {
		const char *schedule, *spawns, *invs;
	} cases[] = {
		{ "\"warmups\": 2, \"runs\": 4", "BCCBbccbbccb", "BOCOCOBObococobobococobo" },
		{ "\"warmups\": 2, \"runs\": 4, \"order\": \"alternate\"", "BCBCbcbcbcbc",
		  "BOCOBOCObocobocobocoboco" },
	};
	(void)state;

	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct scripted_run b[4], c[4];
		struct script sc = { .runs = { b, c }, .nruns = { 4, 4 },
				     .warmup_ms = { 100, 1000 } };
		struct scratch sx;
		char *text = plan_text(cases[k].schedule,
				       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64",
				       "\"gates\": {\"wall\": {\"max_regression_pct\": 15}}");
		const cJSON *cmp, *metric, *sample;

		script_runs(b, same, 4);
		script_runs(c, same, 4);
		run_scripted(&sx, text, &sc);
		assert_string_equal(sc.spawns, cases[k].spawns);
		assert_invocations(&sx, cases[k].invs);
		cmp = cJSON_GetObjectItem(sx.result, "comparison");
		assert_string_equal(str_of(cmp, "decision"), "accepted");
		/* Each variant's wall sample: the four recorded runs, no warmup. */
		metric = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp, "metrics"), 0);
		assert_string_equal(str_of(metric, "name"), "wall");
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(metric, "variants")), 2);
		cJSON_ArrayForEach(sample, cJSON_GetObjectItem(metric, "variants"))
			assert_int_equal(num_of(sample, "n"), 4);
		free(text);
		scratch_release(&sx);
	}
}

/*
 * Contention scripted on some runs: exactly those are discarded and their
 * slot repeated — cand's second run, which waited 40 % on others' work
 * while its round's base run did not, and base's third, which a
 * load.exclusive process overlapped; every other run counts, unloaded.
 */
static void test_contention_discards_those_runs(void **state)
{
	static const int ms[5] = { 100, 100, 100, 100, 100 };
	struct scripted_run b[5], c[5];
	struct script sc = { .runs = { b, c }, .nruns = { 5, 5 } };
	struct scratch sx;
	char *text = plan_text("\"runs\": 4, \"order\": \"alternate\"",
			       "\"max_cpu_wait_pct\": 10, \"max_repeats\": 2, "
			       "\"exclusive\": [\"neighbour*\"]",
			       NULL);
	(void)state;

	script_runs(b, ms, 5);
	script_runs(c, ms, 5);
	c[1].wait_pct = 40;
	c[1].others_cores = 1;
	b[2].exclusive = 1;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_PASSED);
	assert_string_equal(str_of(sx.result, "status"), "completed");
	assert_invocations(&sx, "bocobocdcobdbocoboco");
	assert_string_equal(sc.spawns, "bcbccbbcbc");
	assert_non_null(strstr(str_of(inv_at(&sx, 3), "reason"), "the slot is repeated"));
	assert_non_null(strstr(str_of(inv_at(&sx, 5), "reason"), "neighbour --busy"));
	assert_int_equal(num_of(inv_at(&sx, 4), "attempt"), 2);
	assert_int_equal(num_of(inv_at(&sx, 6), "attempt"), 2);
	for (int i = 0; i < ninvs(&sx); i++)
		assert_false(cJSON_IsTrue(cJSON_GetObjectItem(inv_at(&sx, i), "loaded")));
	free(text);
	scratch_release(&sx);
}

/*
 * A candidate that cannot start: its first run fails to exec, and the plan
 * stops after round 1 (no later run would start either), failed, saying why.
 */
static void test_exec_failure_stops_the_plan(void **state)
{
	static const int ms[4] = { 100, 100, 100, 100 };
	struct scripted_run b[4], c[4];
	struct script sc = { .runs = { b, c }, .nruns = { 4, 4 } };
	struct scratch sx;
	char *text = plan_text("\"runs\": 4, \"order\": \"alternate\"",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64", NULL);
	(void)state;

	script_runs(b, ms, 4);
	script_runs(c, ms, 4);
	for (size_t i = 0; i < 4; i++)
		c[i].outcome = PROC_EXEC_FAILED;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_FAILED);
	assert_string_equal(str_of(sx.result, "status"), "failed");
	assert_string_equal(sc.spawns, "bc");
	assert_invocations(&sx, "boce");
	assert_true(has_note(&sx, "abev stopped the plan after round 1: every run of 'cand' so "
				  "far (1) could not start"));
	free(text);
	scratch_release(&sx);
}

/*
 * A run that times out fails its slot, is neither repeated nor counted,
 * and the plan goes on to its end: the run is failed, and the comparison
 * is made of the rounds left.
 */
static void test_timeout_fails_that_run(void **state)
{
	static const int ms[4] = { 100, 100, 100, 100 };
	struct scripted_run b[4], c[4];
	struct script sc = { .runs = { b, c }, .nruns = { 4, 4 } };
	struct scratch sx;
	char *text = plan_text("\"runs\": 4, \"order\": \"alternate\", \"timeout_seconds\": 5",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64, "
			       "\"max_repeats\": 2",
			       NULL);
	(void)state;

	script_runs(b, ms, 4);
	script_runs(c, ms, 4);
	c[2].outcome = PROC_TIMED_OUT;
	c[2].wall_ms = 5000;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_FAILED);
	assert_string_equal(str_of(sx.result, "status"), "failed");
	assert_string_equal(sc.spawns, "bcbcbcbc");
	assert_invocations(&sx, "bocobocoboctboco");
	assert_string_equal(str_of(inv_at(&sx, 5), "reason"),
			    "timed out after 5 s; stopped with SIGTERM; it was killed by SIGTERM");
	free(text);
	scratch_release(&sx);
}

/*
 * abev itself could not run a process (the spawn failed, not the
 * command): it stops at once with a runtime error, and the evidence says
 * which slot it could not start.
 */
static void test_spawn_error_stops_abev(void **state)
{
	static const int ms[2] = { 100, 100 };
	struct scripted_run b[2], c[2];
	struct script sc = { .runs = { b, c }, .nruns = { 2, 2 } };
	struct scratch sx;
	char *text = plan_text("\"runs\": 2, \"order\": \"alternate\"",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64", NULL);
	(void)state;

	script_runs(b, ms, 2);
	script_runs(c, ms, 2);
	c[0].spawn_error = 1;
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_ERROR);
	assert_string_equal(sc.spawns, "bc");
	assert_invocations(&sx, "bo");
	assert_true(has_note(&sx, "abev stopped: could not start cand run 1"));
	free(text);
	scratch_release(&sx);
}

/* The label the UTC clock gives the monotonic time mono. */
static void assert_utc(const char *got, int64_t mono)
{
	struct timespec ts;
	char want[UTC_STAMP_LEN];

	utc_at(mono, &ts);
	utc_format(want, &ts);
	assert_string_equal(got, want);
}

/*
 * The times the evidence records are the machine's clocks: the run starts
 * at the scripted UTC epoch and ends when the script's clock says, each
 * invocation starts and ends when it was spawned and ended, and its load
 * averages are those read around it.
 */
static void test_clocks_and_samples_recorded(void **state)
{
	static const int ms[2] = { 1500, 2500 };
	struct scripted_run b[2], c[2];
	struct script sc = { .runs = { b, c }, .nruns = { 2, 2 } };
	struct scratch sx;
	char *text = plan_text("\"runs\": 2, \"order\": \"alternate\"",
			       "\"max_cpu_wait_pct\": 100, \"max_foreign_cpu\": 64", NULL);
	(void)state;

	script_runs(b, ms, 2);
	script_runs(c, ms, 2);
	run_scripted(&sx, text, &sc);
	assert_int_equal(sx.outcome, RUNNER_PASSED);
	assert_string_equal(str_of(sx.result, "started_utc"), "2030-01-02T03:04:05.000000+00:00");
	assert_utc(str_of(sx.result, "ended_utc"), sc.clock);
	assert_int_equal(sc.nspawns, 4);
	for (int i = 0; i < 4; i++) {
		const cJSON *inv = inv_at(&sx, i);

		assert_utc(str_of(inv, "start_utc"), sc.started[i]);
		assert_utc(str_of(inv, "end_utc"), sc.ended[i]);
		assert_int_equal(sc.ended[i] - sc.started[i], ms[i / 2] * MS);
		assert_true(num_of(cJSON_GetObjectItem(inv, "load_before"), "1m") == 0.5 * i + 0.25);
		assert_true(num_of(cJSON_GetObjectItem(inv, "load_after"), "1m") == 0.5 * i + 0.5);
	}
	/* Three gaps of 1 s and the 0.2 s look before the first recorded run. */
	assert_int_equal(sc.slept_ns, 3 * S + 200 * MS);
	free(text);
	scratch_release(&sx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_decides),
		cmocka_unit_test(test_order_and_warmups),
		cmocka_unit_test(test_contention_discards_those_runs),
		cmocka_unit_test(test_exec_failure_stops_the_plan),
		cmocka_unit_test(test_timeout_fails_that_run),
		cmocka_unit_test(test_spawn_error_stops_abev),
		cmocka_unit_test(test_clocks_and_samples_recorded),
	};
	if (proc_setup() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
