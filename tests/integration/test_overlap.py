"""What else ran beside a recorded run: processes matching load.exclusive,
and other abev runs on the host (the lock directory, --wait). Each test
gives its runs their own lock directory, so that nothing else on the
machine takes part; the tests assert what abev recorded, never how long
anything took."""
import os
import signal
import subprocess
import time
import unittest

from common import ABEV, HELPER, AbevTestCase, helper_plan


def foreign(*argv):
    """Starts argv as an orphan: not a descendant of this test, nor of any
    abev it starts. Returns its pid."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            if os.fork() == 0:
                os.setsid()
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                os.write(w, str(os.getpid()).encode())
                os.close(w)
                os.execv(argv[0], list(argv))
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    with os.fdopen(r) as f:
        return int(f.read())


def kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def wait_for(cond, what, timeout=60):
    """A watchdog, not a bound: polls cond until it holds."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)


def overlaps(inv):
    return inv["overlaps"]["processes"]


class Exclusive(AbevTestCase):
    def test_matching_process_discards_and_is_named(self):
        pid = foreign(HELPER, "sleep", "600000")
        self.addCleanup(kill, pid)
        wait_for(lambda: b"600000" in open(f"/proc/{pid}/cmdline", "rb").read(),
                 "the foreign process to exec")
        plan = helper_plan([("a", ["sleep", "1"]), ("b", ["sleep", "1"])], runs=1,
                           load={"max_cpu_wait_pct": 100, "max_repeats": 1,
                                 "exclusive": ["nothing-like-this*",
                                               os.path.basename(HELPER) + " sleep 600000"]})
        cp = self.abev("run", self.write_plan(plan), "--out", self.path("ev"))
        self.assertEqual(cp.returncode, 1, cp.stdout + cp.stderr)
        # a's slot is lost (1 + 1 repeat), and the plan stops there: fail fast.
        self.assertIn("a process matching load.exclusive overlapped 2 run(s)", cp.stdout)
        self.assertIn("stopped:  abev stopped the plan after a run 1", cp.stdout)
        self.assertIn("stop it first, or let abev take turns", cp.stdout)
        self.assertNotIn("pin the variants", cp.stdout)
        res = self.load("ev", "result.json")
        self.assertEqual(res["schedule"]["exclusive"][1],
                         os.path.basename(HELPER) + " sleep 600000")
        self.assertEqual(len(res["invocations"]), 2)
        for inv in res["invocations"]:
            self.assertEqual(inv["status"], "discarded")
            hits = overlaps(inv)
            self.assertEqual([h["pid"] for h in hits], [pid])
            self.assertEqual(hits[0]["kind"], "exclusive")
            self.assertEqual(hits[0]["pattern"], os.path.basename(HELPER) + " sleep 600000")
            self.assertEqual(hits[0]["command"], f"{HELPER} sleep 600000")
            self.assertIn(f"overlapped pid {pid}", inv["reason"])
            self.assertIn("load.exclusive", inv["reason"])

    def test_own_processes_never_match(self):
        # The variant itself matches the pattern: it is the run. (The helper's
        # full path: other suites on the machine run their own helpers.)
        plan = helper_plan([("a", ["sleep", "150"])], runs=2,
                           load={"max_cpu_wait_pct": 100, "max_repeats": 0,
                                 "exclusive": [HELPER + " sleep*"]})
        cp, res = self.run_plan(plan)
        for inv in res["invocations"]:
            self.assertEqual(inv["status"], "ok", inv["reason"])
            self.assertEqual(overlaps(inv), [])
        self.assertNotIn("overlap:", cp.stdout)

    def test_bad_patterns_are_plan_errors(self):
        for bad, word in (([""], "load.exclusive[0]"), ("dotnet*", "load.exclusive"),
                          ([3], "load.exclusive[0]"), (["a\tb"], "load.exclusive[0]")):
            with self.subTest(bad=bad):
                plan = helper_plan([("a", ["exit", "0"])],
                                   load={"max_cpu_wait_pct": 100, "exclusive": bad})
                cp = self.abev("run", self.write_plan(plan), "--out", self.path("ev"), check=2)
                self.assertIn(word, cp.stderr)
                self.assertFalse(os.path.exists(self.path("ev")))


class Peers(AbevTestCase):
    def setUp(self):
        super().setUp()
        self.env = dict(os.environ, ABEV_LOCK_DIR=self.path("lock"))

    def start(self, out, ms, runs, *extra):
        plan = helper_plan([("a", ["sleep", str(ms)]), ("b", ["sleep", str(ms)])], runs=runs,
                           load={"max_cpu_wait_pct": 100, "max_repeats": 0})
        p = self.write_plan(plan, name=out + ".json")
        proc = subprocess.Popen([ABEV, "run", p, "--out", self.path(out), "--unsigned", *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL, env=self.env)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        return proc

    def registered(self, proc):
        return os.path.exists(self.path("lock", f"{proc.pid}.run"))

    def test_two_runs_at_once_discard_what_overlapped(self):
        # Registered, the first run is running: the second starts while the first
        # has all its 8 x 300 ms ahead of it, however slow the machine.
        first = self.start("one", 300, 4)
        wait_for(lambda: self.registered(first) or first.poll() is not None, "the first run")
        # --wait-max 0: no turn taken, the two runs go on side by side.
        second = self.start("two", 50, 2, "--wait-max", "0")
        out2, err2 = second.communicate(timeout=300)
        out1, err1 = first.communicate(timeout=300)
        one, two = self.load("one", "result.json"), self.load("two", "result.json")
        self.assertEqual(one["peers"]["lock_dir"], self.path("lock"))
        # Nobody ran before it: it waited only for the look (a few ms at most).
        self.assertIsNotNone(one["peers"]["waited_seconds"])
        self.assertLess(one["peers"]["waited_seconds"], 1)
        hit = [h for inv in two["invocations"] for h in overlaps(inv)]
        self.assertTrue(hit, "the second run saw nothing of the first")
        self.assertEqual({h["kind"] for h in hit}, {"abev"})
        self.assertEqual({h["pid"] for h in hit}, {first.pid})
        self.assertEqual({h["evidence"] for h in hit}, {self.path("one")})
        for inv in two["invocations"]:
            self.assertEqual(inv["status"], "discarded")
            self.assertIn("another abev run on this host", inv["reason"])
        self.assertEqual(second.returncode, 1, out2 + err2)
        self.assertIn("abev takes turns by default (--wait-max 0 does not)", out2)
        # The first run saw the second while it ran: those runs are discarded too.
        seen = [inv for inv in one["invocations"] if overlaps(inv)]
        self.assertTrue(seen, "the first run saw nothing of the second")
        for inv in seen:
            self.assertEqual(inv["status"], "discarded")
            self.assertIn(second.pid, [h["pid"] for h in overlaps(inv)])
        self.assertEqual(os.listdir(self.path("lock")), ["events"])

    def test_runs_take_turns_by_default(self):
        # No option, no terminal: the second waits for the first (at most an hour).
        first = self.start("one", 100, 2)
        wait_for(lambda: self.registered(first) or first.poll() is not None, "the first run")
        second = self.start("two", 50, 2)
        out2, err2 = second.communicate(timeout=300)
        out1, err1 = first.communicate(timeout=300)
        self.assertEqual(first.returncode, 0, out1 + err1)
        self.assertEqual(second.returncode, 0, out2 + err2)
        self.assertIn(f"waiting for another abev run on this host to finish (pid {first.pid}",
                      err2)
        self.assertIn("at most 3600 s in all (--wait-max); --no-wait refuses instead", err2)
        one, two = self.load("one", "result.json"), self.load("two", "result.json")
        for inv in one["invocations"] + two["invocations"]:
            self.assertEqual(inv["status"], "ok")
            self.assertEqual(overlaps(inv), [])
        self.assertTrue(two["peers"]["wait"])
        self.assertGreater(two["peers"]["waited_seconds"], 0)
        # UTC stamps of one clock: the second's first run began after the first's last ended.
        self.assertLessEqual(one["invocations"][-1]["end_utc"], two["invocations"][0]["start_utc"])

    def test_no_wait_refuses_while_another_runs(self):
        first = self.start("one", 300, 4)
        wait_for(lambda: self.registered(first) or first.poll() is not None, "the first run")
        second = self.start("two", 50, 1, "--no-wait")
        out2, err2 = second.communicate(timeout=300)
        self.assertEqual(second.returncode, 3, out2 + err2)
        self.assertIn(f"another abev run on this host is going on (pid {first.pid}", err2)
        self.assertIn("--no-wait refuses to start beside it", err2)
        self.assertFalse(os.path.exists(self.path("two")))
        first.communicate(timeout=300)
        self.assertEqual(first.returncode, 0)

    def test_wait_max_goes_ahead_with_a_note(self):
        first = self.start("one", 400, 6)
        wait_for(lambda: self.registered(first) or first.poll() is not None, "the first run")
        second = self.start("two", 50, 1, "--wait-max", "1")
        out2, err2 = second.communicate(timeout=300)
        first.communicate(timeout=300)
        two = self.load("two", "result.json")
        self.assertGreaterEqual(two["peers"]["waited_seconds"], 1)
        self.assertTrue(any("its limit (--wait-max)" in n and "went ahead" in n
                            for n in two["notes"]), two["notes"])

    def test_signal_while_waiting_is_recorded(self):
        first = self.start("one", 400, 6)
        wait_for(lambda: self.registered(first) or first.poll() is not None, "the first run")
        second = self.start("two", 50, 2, "--wait")
        wait_for(lambda: self.registered(second) or second.poll() is not None, "the second run")
        second.send_signal(signal.SIGTERM)
        out2, err2 = second.communicate(timeout=300)
        self.assertEqual(second.returncode, 128 + signal.SIGTERM, out2 + err2)
        two = self.load("two", "result.json")
        self.assertEqual(two["status"], "interrupted")
        self.assertEqual(two["invocations"], [])
        self.assertTrue(any("while waiting for another abev run" in n for n in two["notes"]),
                        two["notes"])
        first.communicate(timeout=300)
        one = self.load("one", "result.json")
        for inv in one["invocations"]:
            self.assertEqual(overlaps(inv), [], "a waiting run counted as an overlap")

    def test_dead_runs_are_not_peers(self):
        # A run killed outright leaves its file; its lock went with it.
        os.makedirs(self.path("lock"))
        dead = subprocess.Popen(["true"])
        dead.wait()
        with open(self.path("lock", f"{dead.pid}.run"), "w") as f:
            f.write(f"{1:20d} R /nowhere\n")
        plan = helper_plan([("a", ["exit", "0"])], runs=2)
        _, res = self.run_plan(plan, env=self.env)
        for inv in res["invocations"]:
            self.assertEqual(overlaps(inv), [])
        self.assertFalse(os.path.exists(self.path("lock", f"{dead.pid}.run")))

    def test_unusable_lock_dir_is_a_note(self):
        with open(self.path("lock"), "w"):
            pass
        plan = helper_plan([("a", ["exit", "0"])], runs=1)
        _, res = self.run_plan(plan, env=self.env)
        self.assertIsNone(res["peers"]["lock_dir"])
        self.assertTrue(any("other abev runs on this host cannot be seen" in n and "not a directory" in n
                            for n in res["notes"]), res["notes"])


if __name__ == "__main__":
    unittest.main()
