"""Contention as the kernel measures it: a child pinned to the CPU of a
busy loop waits for that CPU, and abev records the wait, discards the run
and repeats it, keeping the slot's last attempt marked loaded (no slot is
lost to load); pinned to another CPU it is kept. The plans here set
load.max_foreign_cpu far above the machine, so that abev does not wait
for a quieter machine first (test_run.ForeignLoad tests that wait). A multi-threaded child
whose threads wait for each other is kept: only the wait other processes
can have caused counts. Asserts on the recorded figures and statuses,
never on durations."""

import json
import os
import subprocess

from common import AbevTestCase, HELPER, check_foreign_wait, helper_plan, reseal

LIMIT = 25  # percent; a spinner sharing a CPU with another waits about half its wall time


class Pinned(AbevTestCase):
    def setUp(self):
        super().setUp()
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            self.skipTest(f"one CPU available ({cpus}): no CPU to pin away from the busy loop")
        self.busy, self.other = cpus[0], cpus[1]
        # Two minutes of CPU at most, should the test die before tearDown().
        self.burner = subprocess.Popen([HELPER, "spin", "120000"], stdout=subprocess.PIPE,
                                       stdin=subprocess.DEVNULL)
        self.addCleanup(self.stop_burner)
        os.sched_setaffinity(self.burner.pid, {self.busy})
        if not self.burner.stdout.readline().startswith(b"start_mono_ns="):
            self.fail("the busy loop did not start")

    def stop_burner(self):
        if self.burner.poll() is None:
            self.burner.kill()
        self.burner.wait()
        self.burner.stdout.close()

    def run_pinned(self, cpu, repeats, check):
        plan = helper_plan([("x", ["spin", "300"])], runs=1,
                           load={"max_cpu_wait_pct": LIMIT, "max_repeats": repeats,
                                 "max_foreign_cpu": 64})
        plan["variants"][0]["cpus"] = str(cpu)
        cp, res = self.run_plan(plan, check, "--unsigned")
        for inv in res["invocations"]:
            self.assertEqual(inv["cpus"], str(cpu))
            if inv["cpu_wait_pct"] is None:
                self.skipTest(f"no CPU wait measured here: {inv['cpu_wait_note']}")
            self.assertIn(inv["cpu_wait_source"], ("cgroup", "schedstat"))
            # Both figures cover the child's wall time and never more.
            self.assertLessEqual(inv["cpu_wait_ns"], inv["wall_ns"])
            if inv["system_cpu_wait_ns"] is not None:
                self.assertLessEqual(inv["system_cpu_wait_ns"], inv["wall_ns"])
            self.assertEqual(inv["max_cpu_wait_pct"], LIMIT)
            check_foreign_wait(self, inv)
        return cp, res

    def test_same_cpu_as_busy_loop_is_discarded_then_kept_loaded(self):
        cp, res = self.run_pinned(self.busy, 1, 0)
        invs = res["invocations"]
        self.assertEqual([(i["attempt"], i["status"], i["loaded"]) for i in invs],
                         [(1, "discarded", False), (2, "ok", True)])
        for inv in invs:
            self.assertGreater(inv["foreign_wait_pct"], LIMIT)
        self.assertIn("load.max_cpu_wait_pct", invs[0]["reason"])
        self.assertIn("of it on other processes", invs[0]["reason"])
        # The last attempt is kept: its guard passes and says why.
        load = [g for g in invs[1]["guards"] if g["guard"] == "load"][0]
        self.assertEqual(load["verdict"], "pass")
        self.assertIn("kept under load: the slot's last attempt (load.max_repeats 1)",
                      load["reason"])
        self.assertEqual(res["status"], "completed")
        self.assertFalse(any("no measurement" in n for n in res["notes"]), res["notes"])
        # The terminal says how many, and which figure to trust.
        self.assertIn("discarded: 1 run(s) for contention or overlap, each repeated until it "
                      "was kept", cp.stdout)
        self.assertIn("load:     1 of 1 counted run(s) ran under load, kept and marked loaded",
                      cp.stdout)
        self.assertIn("wall_own (wall less that wait) and CPU time (cpu) are not lengthened",
                      cp.stdout)
        self.assertIn("gate them in the plan's gates: wall_own, cpu", cp.stdout)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        self.assertIn(f"| 1 | x | run 1 | {self.busy} |", report)
        self.assertIn("Kept under load (loaded): 1.", report)
        self.assertIn(" | ok, loaded |", report)

    def test_other_cpu_is_kept(self):
        cp, res = self.run_pinned(self.other, 0, None)
        inv = res["invocations"][0]
        if inv["foreign_wait_pct"] > LIMIT:
            self.skipTest(f"CPU {self.other} was busy with other work too: the run waited "
                          f"{inv['foreign_wait_pct']:.1f} % of its wall time on it")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(inv["status"], "ok")
        self.assertIn("cpu wait: runs waited for a CPU", cp.stdout)


    def test_threads_beside_a_busy_loop_on_their_cpu_are_discarded(self):
        # Two threads of one run and the busy loop share a CPU: the run
        # waits for its own threads and for the loop. The loop's fair share
        # is a third of the CPU (its busy time less two ticks: about 25-31 %
        # of a 300 ms run), well over a 10 % limit; the run's own wait is
        # nearly all of it.
        limit = 10
        plan = helper_plan([("x", ["threads", "2", "300"])], runs=1,
                           load={"max_cpu_wait_pct": limit, "max_repeats": 1,
                                 "max_foreign_cpu": 64})
        plan["variants"][0]["cpus"] = str(self.busy)
        _, res = self.run_plan(plan, None, "--unsigned")
        inv = res["invocations"][0]
        if inv["cpu_wait_pct"] is None:
            self.skipTest(f"no CPU wait measured here: {inv['cpu_wait_note']}")
        check_foreign_wait(self, inv)
        self.assertEqual(inv["status"], "discarded", inv)
        self.assertGreater(inv["foreign_busy_ns"], inv["wall_ns"] * limit / 100)
        # The repeat, its last attempt, is kept under load.
        self.assertEqual(res["invocations"][1]["loaded"], True)

    def test_no_slot_is_lost_to_load(self):
        # Pinned beside the busy loop, every attempt of x waits on it far
        # over a 5 % limit: each of its slots is tried twice (1 + 1 repeat)
        # and the second attempt kept, marked loaded; the plan runs to its
        # end and compares (it stopped after x run 1, with no answer, before).
        plan = helper_plan([("x", ["spin", "300"]), ("y", ["exit", "0"])], runs=3,
                           load={"max_cpu_wait_pct": 5, "max_repeats": 1, "max_foreign_cpu": 64})
        plan["variants"][0]["cpus"] = str(self.busy)
        cp, res = self.run_plan(plan, None, "--unsigned")
        invs = res["invocations"]
        if invs[0]["cpu_wait_pct"] is None:
            self.skipTest(f"no CPU wait measured here: {invs[0]['cpu_wait_note']}")
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertEqual(res["status"], "completed")
        xs = [(i["round"], i["attempt"], i["status"], i["loaded"]) for i in invs
              if i["variant"] == "x"]
        self.assertEqual(xs, [(r, a, s, l) for r in (1, 2, 3)
                              for a, s, l in ((1, "discarded", False), (2, "ok", True))])
        # y (a millisecond, on either CPU) may wait on the loop too, now that
        # others' CPU time is counted to the nanosecond: each of its slots still
        # ends with one kept run.
        ys = [(i["round"], i["status"]) for i in invs if i["variant"] == "y"]
        self.assertEqual([r for r, s in ys if s == "ok"], [1, 2, 3], ys)
        self.assertTrue(all(s in ("ok", "discarded") for _, s in ys), ys)
        self.assertNotIn("stopped:", cp.stdout)
        self.assertRegex(cp.stdout, r"load:     [3-6] of 6 counted run\(s\) ran under load")
        # x waited on others: the terminal shows wall_own beside wall.
        self.assertRegex(cp.stdout, r"\n  y +wall_own ")
        wall = {m["name"]: m for m in res["comparison"]["metrics"]}["wall"]
        self.assertEqual([s["n"] for s in wall["variants"]], [3, 3])


class Limits(AbevTestCase):
    """The plan's cpus and the command line's limit, checked and recorded (no busy loop)."""

    def test_bad_cpu_list_is_a_usage_error(self):
        plan = helper_plan([("x", ["exit", "0"])])
        plan["variants"][0]["cpus"] = "1-0"
        cp = self.abev("run", self.write_plan(plan), "--out", self.path("ev"), "--unsigned",
                       check=2)
        self.assertIn("variants[0].cpus: '1-0': the range 1-0 runs backwards", cp.stderr)

    def test_command_line_overrides_plan_limit(self):
        plan = helper_plan([("x", ["exit", "0"])])
        # Whatever the machine's load, the limit in force is recorded: no exit code asserted.
        _, res = self.run_plan(plan, None, "--unsigned", "--max-cpu-wait-pct", "55.5")
        self.assertEqual(res["schedule"]["max_cpu_wait_pct"], 55.5)
        self.assertEqual(res["schedule"]["max_cpu_wait_pct_from"], "--max-cpu-wait-pct")
        self.assertEqual(res["invocations"][0]["max_cpu_wait_pct"], 55.5)
        self.assertIn("--max-cpu-wait-pct 55.5", res["report"]["reproduce"])
        bad = self.abev("run", self.write_plan(plan), "--out", self.path("ev2"), "--unsigned",
                        "--max-cpu-wait-pct", "101", check=2)
        self.assertIn("'--max-cpu-wait-pct' must be a number from 0 to 100", bad.stderr)


class OwnThreads(AbevTestCase):
    """A runtime's own threads waiting for each other are the workload, not contention."""

    def test_threads_waiting_for_each_other_are_kept(self):
        # Four busy threads pinned to one CPU wait for each other about
        # three quarters of the time. Whatever else runs on the machine
        # (a busy loop beside make check, say) the scheduler keeps it off a
        # CPU so crowded, so the wait others caused stays far below it.
        cpu = sorted(os.sched_getaffinity(0))[-1]
        plan = helper_plan([("x", ["threads", "4", "300"])], runs=3,
                           load={"max_cpu_wait_pct": LIMIT, "max_repeats": 2})
        plan["variants"][0]["cpus"] = str(cpu)
        cp, res = self.run_plan(plan, None, "--unsigned")
        invs = res["invocations"]
        if invs[0]["cpu_wait_pct"] is None:
            self.skipTest(f"no CPU wait measured here: {invs[0]['cpu_wait_note']}")
        for inv in invs:
            check_foreign_wait(self, inv)
            # The run's own wait is far over the limit: the old rule discarded it.
            self.assertGreater(inv["cpu_wait_pct"], LIMIT, inv)
        kept = [i for i in invs if i["status"] == "ok"]
        # A machine so busy that other processes ran on that crowded CPU for a
        # fifth of a core or more (two test suites at once on two cores) made
        # the wait foreign indeed: a discard is then right, and no finding.
        crowded = [i for i in invs if i["status"] == "discarded" and
                   i["foreign_busy_ns"] >= 0.2 * i["run_cpus"] * i["wall_ns"]]
        if len(kept) < 3 and crowded and len(crowded) == len(invs) - len(kept):
            self.skipTest("other processes ran on the pinned CPU for "
                          f"{max(i['foreign_busy_ns'] / i['wall_ns'] for i in crowded):.2f} "
                          "cores: the machine is too busy to tell")
        self.assertEqual(len(kept), 3, [(i["status"], i["reason"]) for i in invs])
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertIn("on other processes (limit 25 %)", cp.stdout)
        self.assertNotIn("slot(s) lost", cp.stdout)

    def test_unpinned_threads_on_every_cpu_are_kept_on_a_quiet_machine(self):
        # Twice as many busy threads as CPUs, not pinned: the run waits for
        # its own threads about half the time. On a quiet machine nothing
        # else ran, and no run is discarded; beside other load (make check
        # in parallel, a busy loop) a run may be, but only for what the
        # others held of its CPUs.
        ncpu = len(os.sched_getaffinity(0))
        if ncpu > 32:
            self.skipTest(f"{ncpu} CPUs: too many threads to start for the test")
        plan = helper_plan([("x", ["threads", str(2 * ncpu), "300"])], runs=3,
                           load={"max_cpu_wait_pct": LIMIT, "max_repeats": 1})
        _, res = self.run_plan(plan, None, "--unsigned")
        invs = res["invocations"]
        if invs[0]["cpu_wait_pct"] is None:
            self.skipTest(f"no CPU wait measured here: {invs[0]['cpu_wait_note']}")
        for inv in invs:
            self.assertEqual(inv["run_cpus"], ncpu)
            check_foreign_wait(self, inv)
            self.assertGreater(inv["cpu_wait_pct"], LIMIT, inv)
        quiet = all(i["foreign_busy_ns"] <= i["wall_ns"] * LIMIT / 100 for i in invs)
        if quiet:
            self.assertEqual([i["status"] for i in invs], ["ok"] * 3)


class Advice(AbevTestCase):
    def test_two_spinners_on_one_cpu_are_the_runs_own_wait(self):
        # The shape that lost every slot before: a run whose own processes
        # wait for each other on the one CPU the plan pins it to. It is
        # kept, and no advice to pin is printed.
        cpu = sorted(os.sched_getaffinity(0))[-1]
        plan = helper_plan([("x", [])], runs=1,
                           load={"max_cpu_wait_pct": LIMIT, "max_repeats": 0,
                                 "max_foreign_cpu": 64})
        plan["variants"][0]["command"] = [
            "sh", "-c", f'"{HELPER}" spin 300 >/dev/null & "{HELPER}" spin 300 >/dev/null; wait']
        plan["variants"][0]["cpus"] = str(cpu)
        cp, res = self.run_plan(plan, None, "--unsigned")
        inv = res["invocations"][0]
        if inv["cpu_wait_pct"] is None:
            self.skipTest(f"no CPU wait measured here: {inv['cpu_wait_note']}")
        check_foreign_wait(self, inv)
        self.assertGreater(inv["cpu_wait_pct"], LIMIT)
        if inv["foreign_wait_pct"] is not None and inv["foreign_wait_pct"] > LIMIT:
            # A shared machine's own load landed on that CPU meanwhile: then the
            # guard is right to judge it over the limit, and says it was others'
            # doing; the slot's only attempt is kept, marked loaded.
            load = [g for g in inv["guards"] if g["guard"] == "load"][0]
            self.assertEqual((inv["status"], inv["loaded"]), ("ok", True), load["reason"])
            self.assertIn("on other processes", load["reason"])
            self.assertIn("kept under load: the slot's last attempt", load["reason"])
            return
        self.assertFalse(inv["loaded"])
        self.assertEqual(inv["status"], "ok", inv["reason"])
        self.assertNotIn("pin the variants to CPUs", cp.stdout)
        self.assertNotIn("slot(s) lost", cp.stdout)


def verdict(report):
    """The report's verdict section, from its heading to the next one."""
    start = report.index("## Verdict\n")
    return report[start:report.index("\n## ", start)]


class ReportVerdict(AbevTestCase):
    """The report's verdict names the limits the command line set instead of
    the plan, and the contention the runs' records show; both from what
    result.json holds, never from how busy this machine is."""

    def test_command_line_limits_are_named(self):
        plan = helper_plan([("x", ["exit", "0"])])
        self.run_plan(plan, None, "--max-cpu-wait-pct", "100", "--max-load-wait", "0")
        said = ("\n\nSet on the command line, not in the plan: load.max\\_cpu\\_wait\\_pct 100 % "
                "(--max-cpu-wait-pct), load.max\\_wait\\_seconds 0 s (--max-load-wait).\n")
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertIn(said, verdict(f.read()))
        # abev report says it again from result.json.
        cp = self.abev("report", self.path("ev"), check=0)
        self.assertIn(said, verdict(cp.stdout))
        # The plan's own limits are not named.
        self.run_plan(plan, None, out="ev2")
        with open(self.path("ev2", "report.md"), encoding="utf-8") as f:
            self.assertNotIn("Set on the command line", f.read())

    def report_of(self, res):
        """`abev report` of evidence ev once its result.json is res."""
        with open(self.path("ev", "result.json"), "w", encoding="utf-8") as f:
            json.dump(res, f, indent=2)
        reseal(self.path("ev"))
        return self.abev("report", self.path("ev"), check=0)

    def test_contention_from_the_records(self):
        plan = helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])], runs=3)
        _, res = self.run_plan(plan, None)
        invs = res["invocations"]
        self.assertEqual([i["status"] for i in invs], ["ok"] * 6)
        # The records say: two runs kept under load, waiting 30 and 45 % of their
        # wall time on others, one 2 %; 2.25 s and 1.25 s spent waiting for a
        # quieter machine first.
        script = [(0, False, 0), (30, True, 2.25), (2, False, 0), (45, True, 0), (0, False, 1.25),
                  (0, False, 0)]
        for inv, (pct, loaded, wait_s) in zip(invs, script):
            inv["foreign_wait_ns"] = int(inv["wall_ns"] * pct / 100)
            inv["foreign_wait_pct"] = round(inv["foreign_wait_ns"] * 100 / inv["wall_ns"], 4)
            # One thread each: the wait is its own run_delay, wall_own exact.
            inv["foreign_wait_basis"] = "one_thread"
            inv["loaded"] = loaded
            inv["load_wait_ns"] = int(wait_s * 1e9)
        cp = self.report_of(res)
        self.assertIn("\n\n**Contention:** abev waited 3.5 s in all for a quieter machine, before 2 "
                      "run(s) (at most 60 s: load.max\\_wait\\_seconds). 2 of 6 counted run(s) ran "
                      "under load, kept and marked loaded: their wall times include up to 45.0 % "
                      "(median 37.5 %) waiting for CPUs other work held. wall\\_own (wall less that "
                      "wait) and CPU time (cpu) are not lengthened by it: trust them over wall "
                      "here.\n", verdict(cp.stdout))
        # The conditions count the same runs.
        self.assertIn("Kept under load (loaded): 2. Waited for a quieter machine before 2 run(s), "
                      "3.5 s in all.", cp.stdout)

        # No wait, nothing loaded, no run waiting 1 % on others: one line says so.
        for inv in invs:
            inv.update(foreign_wait_ns=0, foreign_wait_pct=0, loaded=False, load_wait_ns=0)
        cp = self.report_of(res)
        self.assertIn("\n\nNo contention: no counted run waited 1 % of its wall time or more for "
                      "CPUs other processes held, none ran under load, and abev did not wait for "
                      "a quieter machine.\n", verdict(cp.stdout))
        self.assertNotIn("**Contention:**", cp.stdout)
