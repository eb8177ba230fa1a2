/* Unit tests of the wall time a tree lost waiting for a CPU
 * (measure/taskdelay.h): the formula on scripted thread counters, exact where
 * the header says it is, and a reading of a real tree that finds a
 * grandchild and an orphan (facts a busy machine cannot change). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/taskdelay.h"

#define MS 1000000LL

/* One thread that also sleeps: its own wait, however long it slept. */
static void test_one_thread(void **state)
{
	struct taskdelay td = TASKDELAY_INIT;
	(void)state;

	taskdelay_note(&td, 100, 300 * MS, 100 * MS);
	assert_int_equal(taskdelay_lost(&td, 1000 * MS, -1), 100 * MS);
	/* Awake all the time: the same. */
	assert_int_equal(taskdelay_lost(&td, 400 * MS, -1), 100 * MS);
	assert_int_equal(taskdelay_threads(&td), 1);
	taskdelay_release(&td);
}

/* Processes one after another (a script's steps): their waits add up. */
static void test_chain(void **state)
{
	struct taskdelay td = TASKDELAY_INIT;
	(void)state;

	taskdelay_note(&td, 200, 200 * MS, 100 * MS);
	taskdelay_note(&td, 300, 400 * MS, 200 * MS);
	assert_int_equal(taskdelay_lost(&td, 900 * MS, -1), 300 * MS);
	taskdelay_release(&td);
}

/* Threads side by side: the wall lost is one thread's wait, not the sum. */
static void test_parallel(void **state)
{
	struct taskdelay td = TASKDELAY_INIT;
	(void)state;

	for (pid_t tid = 10; tid < 14; tid++)
		taskdelay_note(&td, tid, 300 * MS, 100 * MS);
	assert_int_equal(taskdelay_lost(&td, 400 * MS, -1), 100 * MS);
	taskdelay_release(&td);
}

/*
 * A pool thread that mostly waited and barely ran counts by its CPU time:
 * the worker's share dominates.
 */
static void test_weighted_by_cpu(void **state)
{
	struct taskdelay td = TASKDELAY_INIT;
	int64_t lost;
	(void)state;

	taskdelay_note(&td, 1, 900 * MS, 100 * MS);   /* worker: 10 % waiting */
	taskdelay_note(&td, 2, 1 * MS, 500 * MS);     /* pool thread: 99.8 % waiting */
	lost = taskdelay_lost(&td, 1000 * MS, -1);
	assert_true(lost > 100 * MS && lost < 101 * MS);
	taskdelay_release(&td);
}

/* Later readings replace earlier ones; counters going back mean a new thread. */
static void test_readings_and_reuse(void **state)
{
	struct taskdelay td = TASKDELAY_INIT;
	(void)state;

	taskdelay_note(&td, 7, 100 * MS, 10 * MS);
	taskdelay_note(&td, 7, 300 * MS, 100 * MS);
	assert_int_equal(taskdelay_threads(&td), 1);
	assert_int_equal(taskdelay_lost(&td, 400 * MS, -1), 100 * MS);
	/* tid 7 taken again: the old thread ends at its last reading. */
	taskdelay_note(&td, 7, 150 * MS, 50 * MS);
	assert_int_equal(taskdelay_threads(&td), 2);
	assert_int_equal(taskdelay_lost(&td, 600 * MS, -1), 150 * MS);
	/* Negative counters are not readings. */
	taskdelay_note(&td, 8, -1, 5);
	assert_int_equal(taskdelay_threads(&td), 2);
	/* Sorted insertion keeps each tid once. */
	taskdelay_note(&td, 3, 1, 0);
	taskdelay_note(&td, 9, 1, 0);
	taskdelay_note(&td, 3, 2, 0);
	assert_int_equal(taskdelay_threads(&td), 4);
	taskdelay_release(&td);
}

/*
 * What the readings missed: a parent that waits for a child, whose last
 * reading (100 ms CPU, 200 ms wait) came before its end; wait4() counted
 * 180 ms of CPU time in all. The 80 ms missed waited like the rest (two
 * thirds): the tree lost 360 ms, not the 200 read, and was active 540 ms.
 * wait4()'s figure no larger than the readings' adds nothing.
 */
static void test_missed_end(void **state)
{
	struct taskdelay td = TASKDELAY_INIT;
	(void)state;

	taskdelay_note(&td, 1, 0, 0);
	taskdelay_note(&td, 2, 100 * MS, 200 * MS);
	assert_int_equal(taskdelay_lost(&td, 600 * MS, -1), 200 * MS);
	assert_int_equal(taskdelay_lost(&td, 600 * MS, 180 * MS), 360 * MS);
	assert_int_equal(taskdelay_active(&td, 180 * MS), 540 * MS);
	assert_int_equal(taskdelay_active(&td, -1), 300 * MS);
	assert_int_equal(taskdelay_lost(&td, 600 * MS, 100 * MS), 200 * MS);
	assert_int_equal(taskdelay_lost(&td, 600 * MS, 90 * MS), 200 * MS);
	/* Still never more than the wall time. */
	assert_int_equal(taskdelay_lost(&td, 400 * MS, 180 * MS), 266666666);
	taskdelay_release(&td);
}

static void test_bounds(void **state)
{
	struct taskdelay td = TASKDELAY_INIT;
	(void)state;

	assert_int_equal(taskdelay_lost(&td, 1000 * MS, -1), -1);
	taskdelay_note(&td, 1, 0, 0);
	assert_int_equal(taskdelay_lost(&td, 1000 * MS, -1), 0);
	taskdelay_release(&td);
	/* Never more than the wall time. */
	taskdelay_note(&td, 1, 100 * MS, 900 * MS);
	assert_int_equal(taskdelay_lost(&td, 500 * MS, -1), 450 * MS);
	taskdelay_note(&td, 2, 100 * MS, 900 * MS);
	assert_true(taskdelay_lost(&td, 500 * MS, -1) <= 500 * MS);
	assert_int_equal(taskdelay_lost(&td, 0, -1), 0);
	taskdelay_release(&td);
	taskdelay_release(&td);
}

/*
 * A real tree: a child in its own process group, a grandchild, and a
 * great-grandchild orphaned to this process (a subreaper, as abev is).
 * Every one of them is read while the child is a zombie.
 */
static void test_sample_tree(void **state)
{
	struct taskdelay td = TASKDELAY_INIT;
	int ready[2], hold[2], status;
	char c;
	pid_t child;
	(void)state;

	if (access("/proc/self/task", R_OK) != 0 || access("/proc/self/schedstat", R_OK) != 0)
		skip();
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(hold), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		setpgid(0, 0);
		close(ready[0]);
		close(hold[1]);
		/* Grandchild: starts the orphan-to-be, then stays until released. */
		if (fork() == 0) {
			if (fork() == 0) {
				/* Great-grandchild: its parent exits, it is reparented to us. */
				(void)!write(ready[1], "o", 1);
				(void)!read(hold[0], &c, 1);
				_exit(0);
			}
			_exit(0);
		}
		if (fork() == 0) {
			(void)!write(ready[1], "g", 1);
			(void)!read(hold[0], &c, 1);
			_exit(0);
		}
		(void)!write(ready[1], "c", 1);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	for (int i = 0; i < 3; i++)
		assert_int_equal(read(ready[0], &c, 1), 1);
	/* The middle one has exited: wait until its orphan is ours (bound: 30 s at least). */
	for (int tries = 0; tries < 30000; tries++) {
		taskdelay_release(&td);
		taskdelay_sample(&td, child);
		if (taskdelay_threads(&td) >= 4)
			break;
		usleep(1000);
	}
	/*
	 * The child, the middle one (a zombie the child never reaps), the
	 * grandchild, and the orphan, found among our own children.
	 */
	assert_int_equal(taskdelay_threads(&td), 4);
	assert_true(taskdelay_lost(&td, 1000 * MS, -1) >= 0);
	assert_true(td.samples >= 1);
	close(hold[1]);
	while (waitpid(-1, &status, 0) > 0)
		;
	close(ready[0]);
	taskdelay_release(&td);
	/* Nothing there: no reading. */
	taskdelay_sample(&td, 0x7ffffff0);
	assert_int_equal(taskdelay_threads(&td), 0);
	taskdelay_release(&td);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_thread),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_parallel),
		cmocka_unit_test(test_weighted_by_cpu),
		cmocka_unit_test(test_readings_and_reuse),
		cmocka_unit_test(test_missed_end),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_sample_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
