/* Unit tests of the whole runner (pipeline/runner.h) on a scripted
 * machine (pipeline/machine.h): each run's figures, the load on the CPUs,
 * the clock and every sleep come from a script, so that repeats, discards,
 * balanced rounds, waits for a quieter machine, fail-fast, looks and the
 * run's status are exact — facts no busy machine can change. The evidence
 * is real: written, sealed and read back from a scratch directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cJSON.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipeline/machine.h"
#include "pipeline/runner.h"
#include "plan/plan.h"
#include "run/proc.h"
#include "measure/sysstat.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/cpulist.h"
#include "util/dirat.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "testutil.h"

#define MS 1000000LL
#define S (1000 * MS)

/* One run as the script has it. */
struct scripted_run {
	int64_t wall_ns;
	double wait_pct;       /* share of the wall time it waited on CPUs others held */
	double others_cores;   /* cores other processes kept busy on its CPUs meanwhile */
	unsigned child_stops;  /* SIGSTOPs of its group: a paused run */
};

struct machine {
	const struct scripted_run *runs;
	size_t nruns, next;
	double idle_load;      /* cores others keep busy while abev sleeps */
	int64_t clock;
	double busy_ns;        /* busy time of the CPU set so far, all processes */
	unsigned sleeps;
	int64_t slept_ns;
	char variants[64];     /* the variant of each run call, by its command's last word */
};

static int m_run(void *arg, const struct proc_spec *spec, struct proc_result *res)
{
	struct machine *m = arg;
	const struct scripted_run *r;
	int64_t cpu;
	int fd;

	assert_true(m->next < m->nruns);
	r = &m->runs[m->next];
	if (m->next < sizeof(m->variants) - 1) {
		const char *const *a = spec->argv;
		while (a[1])
			a++;
		m->variants[m->next] = (*a)[0];
	}
	m->next++;
	/* The logs proc would have made, empty. */
	for (int i = 0; i < 2; i++) {
		const char *name = i ? spec->stderr_path : spec->stdout_path;
		if (!name)
			continue;
		fd = openat(spec->log_dir->fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			    O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
	memset(res, 0, sizeof(*res));
	clock_gettime(CLOCK_REALTIME, &res->start_real);
	cpu = r->wall_ns - (int64_t)(r->wait_pct / 100 * (double)r->wall_ns);
	res->outcome = PROC_EXITED;
	res->fig.wall_ns = r->wall_ns;
	res->fig.user_ns = cpu;
	res->fig.max_rss_bytes = 4 << 20;
	res->cg_memory_peak_bytes = -1;
	res->cgroup_reason = xstrdup("no cgroup: a scripted run");
	res->cpu_wait_ns = res->tree_wait_ns = r->wall_ns - cpu;
	res->cpu_wait_source = "schedstat";
	res->system_cpu_wait_ns = -1;
	res->stops_child = r->child_stops;
	m->clock += r->wall_ns;
	m->busy_ns += (double)cpu + r->others_cores * (double)r->wall_ns;
	clock_gettime(CLOCK_REALTIME, &res->end_real);
	return 0;
}

static int m_cpustat(void *arg, const struct cpulist *cpus, struct cpustat *out)
{
	struct machine *m = arg;
	double tick_ns = 1e9 / (double)sysstat_ticks_per_second();

	memset(out, 0, sizeof(*out));
	out->valid = 1;
	out->set_cpus = cpus ? cpus->count : 1;
	out->set_busy_ticks = (uint64_t)(m->busy_ns / tick_ns);
	out->busy_ticks = out->set_busy_ticks;
	out->total_ticks = (uint64_t)((double)m->clock * out->set_cpus / tick_ns) + 1;
	return 0;
}

static int64_t m_now(void *arg)
{
	return ((struct machine *)arg)->clock;
}

static int m_sleep(void *arg, int64_t ns, void (*tick)(void *, int64_t), void *tick_arg)
{
	struct machine *m = arg;

	(void)tick;
	(void)tick_arg;
	m->clock += ns;
	m->busy_ns += m->idle_load * (double)ns;
	m->sleeps++;
	m->slept_ns += ns;
	return 0;
}

/* A scratch directory for one test: plan, lock directory, evidence. */
struct scratch {
	char *dir;
	char out[96];
	cJSON *result;
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

static const char *plan_text(int runs, double max_wait, const char *extra)
{
	static char text[2048];
	int cpu = first_cpu();

	snprintf(text, sizeof(text),
		 "{\"schema\": \"abev.plan/1\", \"name\": \"scripted\",\n"
		 " \"variants\": [{\"name\": \"a\", \"command\": [\"true\", \"a\"], \"cpus\": \"%d\"},\n"
		 "              {\"name\": \"b\", \"command\": [\"true\", \"b\"], \"cpus\": \"%d\"}],\n"
		 " \"schedule\": {\"warmups\": 0, \"runs\": %d, \"order\": \"alternate\", \"seed\": 1,\n"
		 "              \"gap_seconds\": 1%s},\n"
		 " \"load\": {\"max_cpu_wait_pct\": 10, \"max_repeats\": 2, \"max_wait_seconds\": %g}}\n",
		 cpu, cpu, runs, extra ? extra : "", max_wait);
	return text;
}

/* Takes what out of text (which must hold it). */
static void drop(char *text, const char *what)
{
	char *p = strstr(text, what);

	assert_non_null(p);
	memmove(p, p + strlen(what), strlen(p + strlen(what)) + 1);
}

/* Sets the plan text's gates (text has room, ending as plan_text() ends it). */
static void set_gates(char *text, size_t size, const char *gates)
{
	char *p = strstr(text, "}}\n");

	assert_non_null(p);
	snprintf(p, size - (size_t)(p - text), "}, \"gates\": %s}\n", gates);
}

/* Runs text's plan on m; *outcome is the runner's; the result.json read back. */
static void run_scripted(struct scratch *sc, const char *text, struct machine *m,
			 enum runner_outcome *outcome)
{
	struct plan plan;
	struct runner_options opt = { 0 };
	struct runner_result res = { 0 };
	struct machine_ops ops = *machine_real();
	struct strbuf json = STRBUF_INIT;
	char *path;
	char lock[96];

	sc->dir = tu_tmpdir("pipeline");
	snprintf(lock, sizeof(lock), "%s/lock", sc->dir);
	assert_int_equal(mkdir(lock, 0700), 0);
	setenv("ABEV_LOCK_DIR", lock, 1);
	snprintf(sc->out, sizeof(sc->out), "%s/ev", sc->dir);
	memset(&plan, 0, sizeof(plan));
	assert_int_equal(plan_parse(&plan, "scripted.json", text, strlen(text)), 0);
	opt.out_dir = sc->out;
	opt.progress = PROGRESS_QUIET;
	opt.reproduce = "abev run scripted.json";
	opt.wait = 1;
	opt.wait_max_seconds = 0;
	/* Runs, CPU load, clock and sleep scripted; the other samples the real ones. */
	ops.run = m_run;
	ops.cpustat = m_cpustat;
	ops.now = m_now;
	ops.sleep = m_sleep;
	ops.arg = m;
	opt.machine = &ops;
	*outcome = runner_run(&plan, &opt, &res);
	plan_release(&plan);
	path = xasprintf("%s/result.json", sc->out);
	assert_int_equal(read_file_capped(&json, path, 64 << 20), 0);
	sc->result = cJSON_Parse(json.buf);
	assert_non_null(sc->result);
	strbuf_release(&json);
	free(path);
}

static void scratch_release(struct scratch *sc)
{
	cJSON_Delete(sc->result);
	tu_rm_rf(sc->dir);
	free(sc->dir);
}

static const cJSON *inv_at(const struct scratch *sc, int i)
{
	const cJSON *invs = cJSON_GetObjectItem(sc->result, "invocations");
	const cJSON *inv = cJSON_GetArrayItem(invs, i);

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

/* The reason of an invocation's load guard. */
static const char *load_reason(const cJSON *inv)
{
	const cJSON *g;

	cJSON_ArrayForEach(g, cJSON_GetObjectItem(inv, "guards"))
		if (!strcmp(str_of(g, "guard"), "load"))
			return str_of(g, "reason");
	fail_msg("no load guard");
	return "";
}

static int ninvs(const struct scratch *sc)
{
	return cJSON_GetArraySize(cJSON_GetObjectItem(sc->result, "invocations"));
}

/* Statuses in order, one letter each: o(k), d(iscarded), f(ailed); L after a loaded one. */
static void assert_statuses(const struct scratch *sc, const char *want)
{
	char got[128] = "";
	size_t n = 0;

	for (int i = 0; i < ninvs(sc) && n + 3 < sizeof(got); i++) {
		const cJSON *inv = inv_at(sc, i);
		got[n++] = str_of(inv, "status")[0];
		if (cJSON_IsTrue(cJSON_GetObjectItem(inv, "loaded")))
			got[n++] = 'L';
	}
	got[n] = '\0';
	if (strcmp(got, want))
		fail_msg("statuses %s, want %s", got, want);
}

#define CLEAN { 10 * S, 0, 0, 0 }
#define HIT { 10 * S, 40, 1, 0 }

/* A quiet machine: one look before the first recorded run, nothing discarded. */
static void test_quiet(void **state)
{
	static const struct scripted_run runs[] = { CLEAN, CLEAN, CLEAN, CLEAN };
	struct machine m = { .runs = runs, .nruns = 4 };
	struct scratch sc;
	enum runner_outcome out;
	(void)state;

	run_scripted(&sc, plan_text(2, 60, NULL), &m, &out);
	assert_int_equal(out, RUNNER_PASSED);
	assert_string_equal(str_of(sc.result, "status"), "completed");
	assert_statuses(&sc, "oooo");
	assert_string_equal(m.variants, "abab");
	/* The look (0.2 s) found the machine quiet: no run records a wait. */
	for (int i = 0; i < 4; i++)
		assert_true(num_of(inv_at(&sc, i), "load_wait_ns") == 0);
	/* Three gaps of 1 s and one 0.2 s look: all the sleeping there was. */
	assert_int_equal(m.slept_ns, 3 * S + 200 * MS);
	scratch_release(&sc);
}

/* A run hit where its round's other run was not is repeated; the repeat counts. */
static void test_one_sided_hit_repeated(void **state)
{
	static const struct scripted_run runs[] = { CLEAN, CLEAN, CLEAN, HIT, CLEAN };
	struct machine m = { .runs = runs, .nruns = 5 };
	struct scratch sc;
	enum runner_outcome out;
	(void)state;

	run_scripted(&sc, plan_text(2, 60, NULL), &m, &out);
	assert_int_equal(out, RUNNER_PASSED);
	assert_statuses(&sc, "ooodo");
	assert_string_equal(m.variants, "ababb");
	assert_non_null(strstr(str_of(inv_at(&sc, 3), "reason"), "the slot is repeated"));
	assert_int_equal(num_of(inv_at(&sc, 4), "attempt"), 2);
	scratch_release(&sc);
}

/*
 * A round loaded alike: the first run is repeated while over the limit,
 * then kept on its last attempt; the second, loaded like it, is kept at
 * once, the guard saying why.
 */
static void test_balanced_round_kept(void **state)
{
	static const struct scripted_run runs[] = { CLEAN, CLEAN, HIT, HIT, HIT, HIT };
	struct machine m = { .runs = runs, .nruns = 6 };
	struct scratch sc;
	enum runner_outcome out;
	(void)state;

	run_scripted(&sc, plan_text(2, 60, NULL), &m, &out);
	assert_int_equal(out, RUNNER_PASSED);
	assert_statuses(&sc, "ooddoLoL");
	assert_string_equal(m.variants, "abaaab");
	assert_non_null(strstr(load_reason(inv_at(&sc, 4)), "kept under load: the slot's last "
							    "attempt"));
	assert_non_null(strstr(load_reason(inv_at(&sc, 5)), "kept under load: its round is "
							    "balanced: a run 2 waited 40.0 %"));
	scratch_release(&sc);
}

/*
 * A machine never quiet: abev waits out its budget once (backing off), then
 * runs go ahead under load, kept and marked loaded; no slot is lost.
 */
static void test_never_quiet(void **state)
{
	static const struct scripted_run runs[] = { HIT, HIT, HIT, HIT };
	struct machine m = { .runs = runs, .nruns = 4, .idle_load = 64 };
	struct scratch sc;
	enum runner_outcome out;
	const cJSON *inv;
	char *notes;
	(void)state;

	run_scripted(&sc, plan_text(2, 10, NULL), &m, &out);
	assert_int_equal(out, RUNNER_PASSED);
	assert_statuses(&sc, "oLoLoLoL");
	assert_string_equal(m.variants, "abab");
	inv = inv_at(&sc, 0);
	/* The whole budget, spent before the first run, no more. */
	assert_true(num_of(inv, "load_wait_ns") >= 10 * S);
	assert_true(num_of(inv, "load_wait_ns") <= 10 * S + 200 * MS);
	for (int i = 1; i < 4; i++)
		assert_true(num_of(inv_at(&sc, i), "load_wait_ns") == 0);
	notes = cJSON_PrintUnformatted(cJSON_GetObjectItem(sc.result, "notes"));
	assert_non_null(strstr(notes, "the machine stayed busy"));
	free(notes);
	scratch_release(&sc);
}

/*
 * Fail fast: every attempt of a's first slot was paused (stopped); a has no
 * counted run, so the plan stops there, failed, with the reason.
 */
static void test_fail_fast(void **state)
{
	static const struct scripted_run runs[] = {
		{ 10 * S, 0, 0, 1 }, { 10 * S, 0, 0, 1 }, { 10 * S, 0, 0, 1 },
	};
	struct machine m = { .runs = runs, .nruns = 3 };
	struct scratch sc;
	enum runner_outcome out;
	char *notes;
	(void)state;

	run_scripted(&sc, plan_text(3, 60, NULL), &m, &out);
	assert_int_equal(out, RUNNER_FAILED);
	assert_string_equal(str_of(sc.result, "status"), "failed");
	assert_statuses(&sc, "ddd");
	assert_string_equal(m.variants, "aaa");
	notes = cJSON_PrintUnformatted(cJSON_GetObjectItem(sc.result, "notes"));
	assert_non_null(strstr(notes, "abev stopped the plan after a run 1"));
	free(notes);
	scratch_release(&sc);
}

/* schedule.until "decided": identical runs pass the gate at the first look, and the plan stops. */
static void test_until_decided(void **state)
{
	static struct scripted_run runs[64];
	struct machine m = { .runs = runs, .nruns = 64 };
	struct scratch sc;
	enum runner_outcome out;
	char text[2048];
	(void)state;

	for (size_t i = 0; i < 64; i++)
		runs[i] = (struct scripted_run)CLEAN;
	snprintf(text, sizeof(text), "%s", plan_text(0, 60, ", \"until\": \"decided\", "
						     "\"min_rounds\": 8, \"max_rounds\": 32"));
	/* "runs": 0 is not a count "until" accepts: drop it. */
	drop(text, "\"runs\": 0, ");
	set_gates(text, sizeof(text), "{\"wall\": {\"max_regression_pct\": 5}}");
	run_scripted(&sc, text, &m, &out);
	assert_int_equal(out, RUNNER_PASSED);
	/* The first look, after 8 rounds: 16 runs, no more. */
	assert_int_equal(m.next, 16);
	assert_int_equal(ninvs(&sc), 16);
	scratch_release(&sc);
}

/*
 * Two identical variants on a machine whose every run takes 0.5 % longer
 * than the one before (1 % a round). A plan that names no order runs them
 * A B, B A: the drift lands on each alike and an A/A gate at 0 % cannot
 * fail, its interval holding 0. In alternate order the later run is always
 * b's, every round's ratio is above 1, and the gate fails the same two
 * programs.
 */
static void test_default_order_drift_aa(void **state)
{
	enum { ROUNDS = 8 };
	static struct scripted_run runs[2 * ROUNDS];
	static const struct {
		int keep_order;      /* the plan says "alternate"; else it names no order */
		const char *verdict; /* the gate's */
		const char *variants;
	} cases[] = {
		{ 0, "inconclusive", "abbaabbaabbaabba" },
		{ 1, "fail", "abababababababab" },
	};
	(void)state;

	for (size_t i = 0; i < 2 * ROUNDS; i++)
		runs[i] = (struct scripted_run){ (int64_t)(10 * S * (1 + 0.005 * (double)i)), 0, 0,
						 0 };
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct machine m = { .runs = runs, .nruns = 2 * ROUNDS };
		struct scratch sc;
		enum runner_outcome out;
		const cJSON *cmp, *gate, *iv;
		char text[2048];

		snprintf(text, sizeof(text), "%s", plan_text(ROUNDS, 60, NULL));
		if (!cases[k].keep_order)
			drop(text, "\"order\": \"alternate\", ");
		set_gates(text, sizeof(text), "{\"wall\": {\"max_regression_pct\": 0}}");
		run_scripted(&sc, text, &m, &out);
		cmp = cJSON_GetObjectItem(sc.result, "comparison");
		gate = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp, "gates"), 0);
		iv = cJSON_GetObjectItem(gate, "interval");
		assert_string_equal(str_of(gate, "verdict"), cases[k].verdict);
		assert_int_equal(cJSON_GetArraySize(iv), 2);
		if (!cases[k].keep_order) {
			assert_true(cJSON_GetArrayItem(iv, 0)->valuedouble < 0);
			assert_true(cJSON_GetArrayItem(iv, 1)->valuedouble > 0);
		} else {
			assert_string_equal(str_of(cmp, "decision"), "rejected");
		}
		assert_string_equal(m.variants, cases[k].variants);
		scratch_release(&sc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_one_sided_hit_repeated),
		cmocka_unit_test(test_balanced_round_kept),
		cmocka_unit_test(test_never_quiet),
		cmocka_unit_test(test_fail_fast),
		cmocka_unit_test(test_until_decided),
		cmocka_unit_test(test_default_order_drift_aa),
	};
	if (proc_setup() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
