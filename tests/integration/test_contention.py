"""Contention as the kernel measures it: a child pinned to the CPU of a
busy loop waits for that CPU, and abev records the wait, discards the run
and repeats it; pinned to another CPU it is kept. Asserts on the recorded
figures and statuses, never on durations."""

import os
import subprocess

from common import AbevTestCase, HELPER, helper_plan

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
                           load={"max_cpu_wait_pct": LIMIT, "max_repeats": repeats})
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
            # The guard's verdict and the recorded figure agree.
            self.assertEqual(inv["status"] == "discarded", inv["cpu_wait_pct"] > LIMIT, inv)
        return cp, res

    def test_same_cpu_as_busy_loop_is_discarded_and_repeated(self):
        cp, res = self.run_pinned(self.busy, 1, 1)
        invs = res["invocations"]
        self.assertEqual([(i["attempt"], i["status"]) for i in invs],
                         [(1, "discarded"), (2, "discarded")])
        for inv in invs:
            self.assertGreater(inv["cpu_wait_pct"], LIMIT)
            self.assertIn("load.max_cpu_wait_pct", inv["reason"])
        self.assertEqual(res["status"], "failed")
        self.assertTrue(any("no measurement" in n for n in res["notes"]), res["notes"])
        # The terminal says how many, why, and what to change.
        self.assertIn("discarded: 2 run(s) for contention or overlap; 1 slot(s) lost", cp.stdout)
        # The plan pins already: the advice says so instead of suggesting it.
        for hint in ("pins its variants already", "CPUs other work does not use",
                     "max_cpu_wait_pct", "--max-cpu-wait-pct", "quiet the machine"):
            self.assertIn(hint, cp.stdout)
        self.assertNotIn('"cpus": "1" in the plan', cp.stdout)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertIn(f"| 1 | x | run 1 | {self.busy} |", f.read())

    def test_other_cpu_is_kept(self):
        cp, res = self.run_pinned(self.other, 0, None)
        inv = res["invocations"][0]
        if inv["cpu_wait_pct"] > LIMIT:
            self.skipTest(f"CPU {self.other} was busy with other work too: the run waited "
                          f"{inv['cpu_wait_pct']:.1f} % of its wall time")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(inv["status"], "ok")
        self.assertIn("cpu wait: runs waited for a CPU", cp.stdout)


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


class Advice(AbevTestCase):
    def test_advice_when_slots_are_lost_never_repeats_what_the_plan_does(self):
        # Two spinners pinned to one CPU wait for each other: slots are lost
        # to the run's own waiting. The plan pins already, so "pin the
        # variants" is never the advice; with no foreign load it says the
        # wait was the runs' own threads.
        cpu = sorted(os.sched_getaffinity(0))[0]
        plan = helper_plan([("x", [])], runs=1,
                           load={"max_cpu_wait_pct": 5, "max_repeats": 0})
        plan["variants"][0]["command"] = [
            "sh", "-c", f'"{HELPER}" spin 300 >/dev/null & "{HELPER}" spin 300 >/dev/null; wait']
        plan["variants"][0]["cpus"] = str(cpu)
        cp, res = self.run_plan(plan, None, "--unsigned")
        inv = res["invocations"][0]
        if inv["status"] != "discarded":
            self.skipTest(f"the two spinners did not wait for each other: {inv['status']}, "
                          f"cpu wait {inv.get('cpu_wait_pct')} %")
        self.assertIn("slot(s) lost", cp.stdout)
        self.assertNotIn("pin the variants to CPUs", cp.stdout)
        if inv["foreign_cpu"] is not None and inv["foreign_cpu"] < 0.25:
            self.assertIn("the wait was the runs' own threads waiting for each other", cp.stdout)
        else:
            self.assertIn("The plan pins its variants already", cp.stdout)


class FailFast(AbevTestCase):
    def test_a_variant_without_a_counted_run_stops_the_plan_at_once(self):
        # Pinned beside its own second spinner, every attempt of x waits far
        # over a 5 % limit: after its first slot's attempts (1 + 1 repeat) the
        # plan stops instead of running the 4 slots left.
        cpu = sorted(os.sched_getaffinity(0))[0]
        plan = helper_plan([("x", []), ("y", ["exit", "0"])], runs=3,
                           load={"max_cpu_wait_pct": 5, "max_repeats": 1})
        plan["variants"][0]["command"] = [
            "sh", "-c", f'"{HELPER}" spin 300 >/dev/null & "{HELPER}" spin 300 >/dev/null; wait']
        plan["variants"][0]["cpus"] = str(cpu)
        cp, res = self.run_plan(plan, None, "--unsigned")
        invs = res["invocations"]
        if invs[0]["status"] != "discarded":
            self.skipTest(f"the two spinners did not wait for each other: {invs[0]['status']}")
        self.assertEqual(cp.returncode, 1)
        self.assertEqual(res["status"], "failed")
        # x run 1, twice, and nothing after it.
        self.assertEqual([(i["variant"], i["round"]) for i in invs], [("x", 1), ("x", 1)])
        self.assertIn("stopped:  abev stopped the plan after x run 1: all 2 attempt(s) were "
                      "discarded and x has no counted run yet", cp.stdout)
        self.assertTrue(any("the 5 slot(s) after it were not run" in n for n in res["notes"]),
                        res["notes"])
