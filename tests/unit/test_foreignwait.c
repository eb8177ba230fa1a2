/* Unit tests of the wait on other processes that wall_own takes out
 * (measure/foreignwait.h): scripted runs of one thread, threads side by
 * side, a process tree and a multi-threaded run waiting on itself, each
 * with its thread counters (through taskdelay's formula), the CPU time
 * others ran and the cgroup's figure; the wait taken out and its basis. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "measure/foreignwait.h"
#include "measure/sysstat.h"
#include "measure/taskdelay.h"
#include "util/compiler.h"

#define MS 1000000LL

/* One thread's counters, for a scripted tree. */
struct script_thread {
	int64_t cpu_ms, wait_ms;
};

/* A tree of threads as schedstat read them, beside busy_ms of others' work on cpus CPUs. */
struct script_run {
	const char *what;
	struct script_thread t[4];
	size_t n;
	int64_t wall_ms, busy_ms;
	unsigned cpus;
	int64_t tree_lo_ms, tree_hi_ms;  /* the tree wait, within */
	int64_t foreign_ms;              /* -1: the tree wait itself */
	int ticks_back;                  /* plus the two ticks a CPU given back to one thread */
	enum foreign_wait_basis basis;
};

/* The foreign wait of r; *tree_wait the threads' own. */
static void run_foreign_wait(const struct script_run *r, int64_t *tree_wait,
			     struct foreignwait *out)
{
	struct taskdelay td = TASKDELAY_INIT;
	struct foreignwait_in in;

	for (size_t i = 0; i < r->n; i++)
		taskdelay_note(&td, (pid_t)(100 + i), r->t[i].cpu_ms * MS, r->t[i].wait_ms * MS);
	*tree_wait = taskdelay_lost(&td, r->wall_ms * MS, -1);
	in = (struct foreignwait_in){
		.wall_ns = r->wall_ms * MS, .wait_ns = *tree_wait, .from_threads = 1,
		.active_ns = taskdelay_active(&td, -1), .busy_ns = -1, .set_cpus = r->cpus,
		.busy_fine_ns = r->busy_ms * MS,
	};
	foreignwait_estimate(&in, out);
	taskdelay_release(&td);
}

static void test_shapes(void **state)
{
	static const struct script_run runs[] = {
		/*
		 * Issue 39: a single-threaded run beside busy loops, wall 831 ms,
		 * CPU 40 ms, run_delay 792 ms; the loops ran on both CPUs all the
		 * time it did not. wall_own is its CPU time, 39-40 ms.
		 */
		{ "one thread beside loops", { { 40, 792 } }, 1, 831, 2 * 831 - 40, 2, 791, 792, -1,
		  0, FOREIGN_WAIT_ONE_THREAD },
		/* One thread that sleeps too: only its wait is taken out. */
		{ "one thread that sleeps", { { 100, 50 } }, 1, 1000, 300, 2, 50, 50, -1, 0,
		  FOREIGN_WAIT_ONE_THREAD },
		/*
		 * A dotnet-test-like tree: a parent that waits for its child, and
		 * the child that spins. One thread at a time: the whole wait is on
		 * others, 402 ms, which taskdelay's weighting of shares that differ
		 * puts at 398.
		 */
		{ "process tree", { { 6, 2 }, { 200, 400 } }, 2, 640, 1000, 2, 397, 402, -1, 0,
		  FOREIGN_WAIT_ONE_THREAD },
		/*
		 * Four threads on 2 CPUs, nothing else running: each waits half
		 * its time, on the run's own threads. That is the program's time:
		 * nothing is taken out.
		 */
		{ "threads waiting on each other", { { 400, 400 }, { 400, 400 }, { 400, 400 },
		  { 400, 400 } }, 4, 800, 0, 2, 400, 400, 0, 0, FOREIGN_WAIT_FOREIGN_BUSY },
		/*
		 * The same four threads beside two busy loops, sharing 2 CPUs
		 * fairly (a third of a CPU each): wall 1200 ms, each thread 400 ms
		 * CPU and 800 ms wait, the loops 800 ms. Unloaded the 1600 ms of
		 * CPU take 800 ms on 2 CPUs, and that is what wall_own keeps: the
		 * loops' time spread over the 2 CPUs the run could keep busy, not
		 * the threads' wait, half of which was on each other.
		 */
		{ "threads beside loops", { { 400, 800 }, { 400, 800 }, { 400, 800 }, { 400, 800 } },
		  4, 1200, 800, 2, 800, 800, 400, 0, FOREIGN_WAIT_FOREIGN_BUSY },
		/*
		 * Two threads on 2 CPUs beside one loop: two thirds of a CPU each,
		 * wall 900 ms, 600 ms CPU and 300 ms wait each; the loop ran 600
		 * ms. The threads' own wait is the wall they lost, within the bound.
		 */
		{ "two threads beside a loop", { { 600, 300 }, { 600, 300 } }, 2, 900, 600, 2, 300, 300,
		  -1, 0, FOREIGN_WAIT_THREADS },
		/*
		 * One thread whose wait passed others' time (a counter that missed
		 * work): the bound holds, with what the counters can be off.
		 */
		{ "one thread past the bound", { { 100, 500 } }, 1, 600, 200, 2, 499, 500,
		  200, 1, FOREIGN_WAIT_FOREIGN_BUSY },
		/* Pinned beside a loop: its wait and the loop's time are the same time, a little apart. */
		{ "pinned beside a loop", { { 100, 500 } }, 1, 600, 499, 1, 499, 500, -1, 0,
		  FOREIGN_WAIT_ONE_THREAD },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		const struct script_run *r = &runs[i];
		int64_t tree_wait, want;
		struct foreignwait fw;

		print_message("%s\n", r->what);
		run_foreign_wait(r, &tree_wait, &fw);
		assert_true(tree_wait >= r->tree_lo_ms * MS && tree_wait <= r->tree_hi_ms * MS);
		want = r->foreign_ms < 0 ? tree_wait : r->foreign_ms * MS;
		if (r->ticks_back)
			want += sysstat_set_resolution_ns(r->cpus);
		assert_int_equal(fw.ns, want);
		assert_int_equal(fw.basis, r->basis);
	}
}

/*
 * Issue 39's run: wall 831 ms, CPU 40 ms, cgroup wait 566 ms, thread
 * run_delay 792 ms. wall_own is 39-40 ms from the threads, not the 265 ms
 * the cgroup gave; the cgroup's figure, where no thread could be read, is
 * said to be the cgroup's.
 */
static void test_wall_own_not_the_cgroup(void **state)
{
	static const struct script_run r = { "", { { 40, 792 } }, 1, 831, 2 * 831 - 40, 2, 0, 0,
					     -1, 0, FOREIGN_WAIT_ONE_THREAD };
	struct foreignwait fw;
	int64_t tree_wait, wall_own_ms;
	(void)state;

	run_foreign_wait(&r, &tree_wait, &fw);
	wall_own_ms = (831 * MS - fw.ns) / MS;
	assert_true(wall_own_ms >= 39 && wall_own_ms <= 40);

	foreignwait_estimate(&(struct foreignwait_in){
		.wall_ns = 831 * MS, .wait_ns = 566 * MS, .from_threads = 0, .active_ns = -1,
		.busy_ns = -1, .set_cpus = 2, .busy_fine_ns = (2 * 831 - 40) * MS }, &fw);
	assert_int_equal(fw.ns, 566 * MS);
	assert_int_equal(fw.basis, FOREIGN_WAIT_CGROUP);
	assert_int_equal((831 * MS - fw.ns) / MS, 265);
}

/* Unknown in, unknown out. */
static void test_unknown(void **state)
{
	struct foreignwait fw;
	struct foreignwait_in in = { .wall_ns = 100 * MS, .wait_ns = -1, .from_threads = 1,
				     .active_ns = 100 * MS, .busy_ns = 50 * MS, .set_cpus = 2,
				     .busy_fine_ns = -1 };
	(void)state;

	foreignwait_estimate(&in, &fw);
	assert_int_equal(fw.ns, -1);
	assert_int_equal(fw.basis, FOREIGN_WAIT_UNKNOWN);
	in.wait_ns = 10 * MS;
	in.busy_ns = -1;
	foreignwait_estimate(&in, &fw);
	assert_int_equal(fw.ns, -1);
	assert_int_equal(fw.basis, FOREIGN_WAIT_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_wall_own_not_the_cgroup),
		cmocka_unit_test(test_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
