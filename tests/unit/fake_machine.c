/*
 * fake_machine: the scripted machine_ops and the scratch evidence of the
 * pipeline's unit tests (fake_machine.h). A scripted run stands in for
 * proc_run(): it makes the empty logs proc would have made, moves the
 * clock by its wall time and the CPU set's busy time by its own CPU time
 * and what others kept busy beside it, and fills the result as proc_run()
 * would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_machine.h"
#include "measure/overlap.h"
#include "measure/peers.h"
#include "measure/sysstat.h"
#include "plan/plan.h"
#include "util/alloc.h"
#include "util/compiler.h"
#include "util/cpulist.h"
#include "util/dirat.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "testutil.h"

static const char *env_get(const char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* Which of m's variants spec runs: $ABEV_VARIANT, else its command's last word names it. */
static size_t spec_variant(const struct fm_machine *m, const struct proc_spec *spec)
{
	const char *const *a = spec->argv;
	const char *name = spec->envp ? env_get(spec->envp, "ABEV_VARIANT") : NULL;

	for (size_t v = 0; name && v < FM_VARIANTS; v++)
		if (m->variants[v] && !strcmp(name, m->variants[v]))
			return v;
	while (a[1])
		a++;
	for (size_t v = 0; v < FM_VARIANTS; v++)
		if (m->variants[v] && !strcmp(*a, m->variants[v]))
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

void fm_utc_at(int64_t mono, struct timespec *ts)
{
	ts->tv_sec = FM_UTC_EPOCH + mono / S;
	ts->tv_nsec = (long)(mono % S);
}

/* Fills res as proc_run() would for r, a run of variant v, ending at the script's clock. */
static void fill_result(struct fm_machine *m, size_t v, const struct fm_run *r,
			struct proc_result *res)
{
	int64_t wall = r->wall_ns;
	int64_t cpu = wall - (int64_t)(r->wait_pct / 100 * (double)wall);

	memset(res, 0, sizeof(*res));
	fm_utc_at(m->clock, &res->start_real);
	res->outcome = r->outcome;
	res->exit_code = -1;
	res->cg_memory_peak_bytes = -1;
	res->cgroup_reason = xstrdup("no cgroup: a scripted run");
	res->system_cpu_wait_ns = -1;
	switch (r->outcome) {
	case PROC_EXEC_FAILED:
		res->exec_error = xasprintf("cannot execute '%s': No such file or directory",
					    m->variants[v]);
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
	res->tree_active_ns = wall;     /* one thread, runnable throughout */
	res->cgroup_cpu_wait_ns = -1;
	res->cpu_wait_source = "schedstat";
	res->stops_child = r->child_stops;
	m->clock += wall;
	m->busy_ns += (double)cpu + r->others_cores * (double)wall;
	fm_utc_at(m->clock, &res->end_real);
}

/* The script's next recorded run of variant v. */
static const struct fm_run *next_run(struct fm_machine *m, size_t v)
{
	size_t list = m->in_spawn_order ? 0 : v;

	assert_true(m->next[list] < m->nruns[list]);
	return &m->runs[list][m->next[list]++];
}

/*
 * A setup, cleanup or prepare step of variant v: recorded, one line of
 * output, 1 ms, exiting with the script's step_exit[v].
 */
static int run_step(struct fm_machine *m, size_t v, const struct proc_spec *spec,
		    struct proc_result *res)
{
	assert_true(m->nsteps + 2 < sizeof(m->steps));
	m->steps[m->nsteps++] = spec->cgroup_name[0];
	m->steps[m->nsteps++] = m->variants[v][0];
	strbuf_addf(spec->capture, "scripted %s of %s\n", spec->cgroup_name, m->variants[v]);
	memset(res, 0, sizeof(*res));
	fm_utc_at(m->clock, &res->start_real);
	res->outcome = PROC_EXITED;
	res->exit_code = m->step_exit[v];
	res->fig.wall_ns = 1 * MS;
	m->clock += 1 * MS;
	fm_utc_at(m->clock, &res->end_real);
	return 0;
}

static int m_run(void *arg, const struct proc_spec *spec, struct proc_result *res)
{
	struct fm_machine *m = arg;
	size_t v = spec_variant(m, spec);
	const char *phase = env_get(spec->envp, "ABEV_PHASE");
	int warmup = phase && !strcmp(phase, "warmup");
	struct fm_run warm = { .wall_ns = m->warmup_ns[v], .outcome = PROC_EXITED };
	const struct fm_run *r;
	char letter = m->variants[v][0];

	if (spec->capture)
		return run_step(m, v, spec, res);
	r = warmup ? &warm : next_run(m, v);

	assert_true(m->nspawns + 1 < sizeof(m->spawns));
	assert_true(m->nspawns < ARRAY_SIZE(m->started));
	m->spawns[m->nspawns++] = (char)(warmup ? toupper((unsigned char)letter) : letter);
	if (r->spawn_error)
		return -1;
	touch_logs(spec);
	m->started[m->nspawns - 1] = m->clock;
	fill_result(m, v, r, res);
	m->ended[m->nspawns - 1] = m->clock;
	m->exclusive_pending = r->exclusive;
	return 0;
}

static int m_cpustat(void *arg, const struct cpulist *cpus, struct cpustat *out)
{
	struct fm_machine *m = arg;
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
	return ((struct fm_machine *)arg)->clock;
}

static int m_sleep(void *arg, int64_t ns, void (*tick)(void *, int64_t), void *tick_arg)
{
	struct fm_machine *m = arg;

	(void)tick;
	(void)tick_arg;
	m->clock += ns;
	m->busy_ns += m->idle_load * (double)ns;
	m->slept_ns += ns;
	return 0;
}

static void m_utc(void *arg, struct timespec *out)
{
	fm_utc_at(((struct fm_machine *)arg)->clock, out);
}

/* The load averages: 0.25 more at every read, so that each run's pair is known. */
static void m_loadavg(void *arg, struct loadavg *out)
{
	struct fm_machine *m = arg;

	memset(out, 0, sizeof(*out));
	out->valid = 1;
	out->m1 = 0.25 * ++m->loadavg_reads;
	out->m5 = out->m15 = 1;
	out->runnable = 1;
	out->total = 100;
}

/* The neighbour a scripted run had, seen by the look just after it. */
static void m_overlap_scan(void *arg, struct overlap_watch *w)
{
	struct fm_machine *m = arg;
	struct overlap_hit hit = { OVERLAP_EXCLUSIVE, 4242, NULL, NULL, NULL };

	if (!m->exclusive_pending)
		return;
	m->exclusive_pending = 0;
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

struct machine_ops fm_machine_ops(struct fm_machine *m)
{
	struct machine_ops ops = {
		.run = m_run, .cpustat = m_cpustat, .now = m_now, .sleep = m_sleep,
		.utc = m_utc, .loadavg = m_loadavg, .overlap_scan = m_overlap_scan,
		.peers_look = m_peers_look, .arg = m,
	};
	return ops;
}

int fm_first_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				return c;
	return 0;
}

char *fm_plan_text(const char *a, const char *b, const char *schedule, const char *load,
		   const char *rest)
{
	int cpu = fm_first_cpu();

	return xasprintf("{\"schema\": \"abev.plan/1\", \"name\": \"scripted\",\n"
			 " \"variants\": [{\"name\": \"%s\", \"command\": [\"true\", \"%s\"], "
			 "\"cpus\": \"%d\"},\n"
			 "              {\"name\": \"%s\", \"command\": [\"true\", \"%s\"], "
			 "\"cpus\": \"%d\"}],\n"
			 " \"schedule\": {\"seed\": 1, \"gap_seconds\": 1, %s},\n"
			 " \"load\": {%s}%s%s}\n",
			 a, a, cpu, b, b, cpu, schedule, load, rest ? ", " : "", rest ? rest : "");
}

void fm_scratch_run(struct fm_scratch *sx, const char *tag, const char *text,
		    struct fm_machine *m)
{
	struct plan plan;
	struct runner_options opt = { 0 };
	struct runner_result res = { 0 };
	struct machine_ops ops = fm_machine_ops(m);
	struct strbuf json = STRBUF_INIT;
	char *path;
	char lock[96];

	sx->dir = tu_tmpdir(tag);
	assert_true((size_t)snprintf(lock, sizeof(lock), "%s/lock", sx->dir) < sizeof(lock));
	assert_int_equal(mkdir(lock, 0700), 0);
	setenv("ABEV_LOCK_DIR", lock, 1);
	assert_true((size_t)snprintf(sx->out, sizeof(sx->out), "%s/ev", sx->dir) <
		    sizeof(sx->out));
	memset(&plan, 0, sizeof(plan));
	assert_int_equal(plan_parse(&plan, "scripted.json", text, strlen(text)), 0);
	opt.out_dir = sx->out;
	opt.progress = PROGRESS_QUIET;
	opt.reproduce = "abev run scripted.json";
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

void fm_scratch_release(struct fm_scratch *sx)
{
	cJSON_Delete(sx->result);
	tu_rm_rf(sx->dir);
	free(sx->dir);
}

int fm_ninvs(const struct fm_scratch *sx)
{
	return cJSON_GetArraySize(cJSON_GetObjectItem(sx->result, "invocations"));
}

const cJSON *fm_inv_at(const struct fm_scratch *sx, int i)
{
	const cJSON *inv = cJSON_GetArrayItem(cJSON_GetObjectItem(sx->result, "invocations"), i);

	assert_non_null(inv);
	return inv;
}

const char *fm_str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

double fm_num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

int fm_has_note(const struct fm_scratch *sx, const char *what)
{
	const cJSON *n;

	cJSON_ArrayForEach(n, cJSON_GetObjectItem(sx->result, "notes"))
		if (cJSON_IsString(n) && strstr(n->valuestring, what))
			return 1;
	return 0;
}
