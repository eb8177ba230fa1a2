"""Integration tests of `abev run` against the test helper: what a user
checks in the evidence — measurements, order, gaps, failures, interrupts,
foreign load — driven through the real binary.

The machine is shared and may be busy. Durations and CPU times are compared
with what the helper measured of itself (tests/helpers/helper.c) and with
the window of the abev run, never with the clock on the wall; the
foreign-load tests bring their own load, enough to fill every core whatever
else runs, and skip, saying what they saw, only when the machine stays busier
than their premise allows. How close abev gets to the clock is
bench/clock-accuracy.sh's business."""
import datetime
import glob
import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
import unittest

from common import (ABEV, HELPER, SANITIZED, AbevTestCase, OtherUser, flood_whole, helper_plan, logs_made,
                    recorded)

MiB = 1024 * 1024
MS = 1000 * 1000
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def parse_utc(s):
    return datetime.datetime.fromisoformat(s)


def utc_us(s):
    """A UTC label of the evidence in whole microseconds since the epoch."""
    return (parse_utc(s) - EPOCH) // datetime.timedelta(microseconds=1)


def helper_said(path):
    """The key=value lines the helper wrote (test.log at path), as a dict of str."""
    with open(path) as f:
        return dict(l.split("=", 1) for l in f.read().split())


def machine_busy_seconds():
    """CPU seconds the whole machine has been busy, counted as abev counts
    them (user nice system irq softirq steal of /proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v[0:3]) + sum(v[5:8])) / os.sysconf("SC_CLK_TCK")


class Burners:
    """n helper spinners, each running (it has said so) when this returns;
    stop() kills and reaps them."""

    def __init__(self, n):
        self.procs = []
        try:
            for _ in range(n):
                # Two minutes of CPU at most, should this test die before stop().
                p = subprocess.Popen([HELPER, "spin", "120000"], stdout=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL)
                self.procs.append(p)
            for p in self.procs:
                if not p.stdout.readline().startswith(b"start_mono_ns="):
                    raise RuntimeError("a burner did not start")
        except BaseException:
            self.stop()
            raise

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdout.close()
        self.procs = []


def pid_alive(pid):
    """True when pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except FileNotFoundError:
        return False


def procs_with_marker(marker):
    """PIDs of live processes whose command line contains marker."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd and pid_alive(int(d)):
            found.append(int(d))
    return found


def wait_for_record(ev, inv_dir=None, timeout=60):
    """True once the run writing ev has recorded inv_dir's invocation (common.recorded());
    False after timeout seconds (a watchdog for a hung abev, not a bound)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if recorded(ev, inv_dir):
            return True
        time.sleep(0.02)
    return False


def wait_for_file(path, timeout=60):
    """True once path exists; False after timeout seconds (a watchdog for a
    hung abev, not a bound: a busy machine only makes it slower)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return False


class RunBasics(AbevTestCase):
    def test_evidence_layout_and_records(self):
        _, res = self.run_plan(helper_plan([("a", ["sleep", "10"]), ("b", ["sleep", "10"])],
                                           runs=2, warmups=1))
        out = self.path("ev")
        self.assertEqual(res["schema"], "abev.run/1")
        self.assertEqual(res["status"], "completed")
        self.assertEqual(len(res["invocations"]), 6)
        with open(os.path.join(out, "plan.json"), "rb") as f, \
                open(self.path("plan.json"), "rb") as g:
            self.assertEqual(f.read(), g.read())
        for i, inv in enumerate(res["invocations"]):
            self.assertEqual(inv["seq"], i + 1)
            d = os.path.join(out, inv["dir"])
            # The command's logs that it printed into, and nothing of abev's: the
            # record is result.json's.
            self.assertEqual(sorted(os.listdir(d)), logs_made(inv), d)
            self.assertTrue(logs_made(inv), "the helper printed nothing")
            self.assertEqual(inv["status"], "ok")
            self.assertEqual(inv["exit_code"], 0)
            self.assertIsNone(inv["signal"])
            self.assertEqual(inv["cpu_ns"], inv["user_ns"] + inv["sys_ns"])
            for k in ("load_before", "load_after"):
                self.assertEqual(set(inv[k]), {"1m", "5m", "15m", "runnable", "total"})
            self.assertIsNotNone(inv["foreign_cpu"])
            self.assertTrue(inv["start_utc"].endswith("+00:00"))
            self.assertLessEqual(parse_utc(inv["start_utc"]), parse_utc(inv["end_utc"]))
            if inv["cgroup"] is None:
                self.assertTrue(inv["cgroup_note"])
        phases = [(i["phase"], i["round"]) for i in res["invocations"]]
        self.assertEqual(phases, [("warmup", 1), ("warmup", 1), ("run", 1), ("run", 1),
                                  ("run", 2), ("run", 2)])
        self.assertEqual(res["invocations"][0]["dir"], "runs/a/warmup-1")
        self.assertGreater(res["invocations"][2]["wall_ns"], 0)
        self.assertGreater(res["invocations"][2]["max_rss_bytes"], 0)
        self.assertTrue(os.path.isfile(os.path.join(out, "report.md")))

    def test_placeholders_env_cwd_stdin(self):
        sub = self.path("work")
        os.mkdir(sub)
        plan = {
            "schema": "abev.plan/1", "name": "ph",
            "variants": [{"name": "v1", "cwd": "work",
                          "command": ["sh", "-c",
                                      'echo "dir=$1 var=$2 phase=$3 round=$4"; pwd; '
                                      'echo "X=$X R=$ABEV_ROUND"; cat | wc -c',
                                      "sh", "{run_dir}", "{variant}", "{phase}", "{round}"],
                          "env": {"X": "x-{variant}-{{lit}}"}}],
            "schedule": {"runs": 2},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }
        _, res = self.run_plan(plan)
        out = self.path("ev")
        inv = res["invocations"][1]
        with open(os.path.join(out, inv["dir"], "test.log")) as f:
            lines = f.read().splitlines()
        real_out = os.path.realpath(out)
        self.assertEqual(lines[0], f"dir={real_out}/runs/v1/run-2 var=v1 phase=run round=2")
        self.assertEqual(lines[1], os.path.realpath(sub))
        self.assertEqual(lines[2], "X=x-v1-{lit} R=2")
        self.assertEqual(lines[3].strip(), "0")
        self.assertEqual(inv["cwd"], os.path.realpath(sub))
        self.assertEqual(inv["argv"][4], f"{real_out}/runs/v1/run-2")

    def test_stderr_goes_to_its_own_file(self):
        _, res = self.run_plan(helper_plan([("a", ["stderr", "oops"])]))
        out = self.path("ev")
        d = os.path.join(out, res["invocations"][0]["dir"])
        with open(os.path.join(d, "stderr.log")) as f:
            self.assertIn("oops", f.read())
        # Nothing on stdout: no test.log (a log is made at its stream's first byte).
        self.assertFalse(os.path.exists(os.path.join(d, "test.log")))
        self.assertEqual(res["invocations"][0]["logs"]["stdout"]["bytes_total"], 0)

    def test_refuses_existing_out_dir(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        os.mkdir(self.path("ev"))
        marker = self.path("ev", "keep")
        open(marker, "w").close()
        cp = self.abev("run", p, "--out", self.path("ev"))
        self.assertEqual(cp.returncode, 2)
        self.assertIn("already exists", cp.stderr)
        self.assertEqual(os.listdir(self.path("ev")), ["keep"])

    def test_quiet_prints_only_the_decision_and_the_evidence(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        cp = self.abev("run", p, "--out", self.path("ev"), "--quiet", check=0)
        self.assertEqual(cp.stdout, "decision: no decision: the plan sets no gate\n"
                         f"evidence: {os.path.realpath(self.path('ev'))}\n")
        self.assertEqual(cp.stderr, "")

    def test_one_line_per_invocation_when_not_a_terminal(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])], runs=2))
        cp = self.abev("run", p, "--out", self.path("ev"), check=0)
        lines = [l for l in cp.stderr.splitlines() if l.startswith("abev: [")]
        self.assertEqual(len(lines), 4, cp.stderr)
        self.assertIn("[1/4] a run 1", lines[0])
        self.assertIn("evidence: ", cp.stdout)
        self.assertIn("report.md", cp.stdout)

    def test_dry_run_writes_nothing(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])],
                                        runs=3, order="reverse"))
        cp = self.abev("run", p, "--dry-run", check=0)
        rows = [l.split()[-1] for l in cp.stdout.splitlines() if not l.startswith("#")]
        self.assertEqual(rows, ["a", "b", "b", "a", "a", "b"])
        self.assertFalse(os.path.exists(self.path("ev")))


class VariantsFile(AbevTestCase):
    def test_variants_file_lines_become_variants(self):
        with open(self.path("variants.txt"), "w", newline="") as f:
            f.write("# name|env|args\r\n\r\nfast|MODE=f EXTRA=1|one 'two words'\r\n"
                    "slow||three\r\n")
        plan = {
            "schema": "abev.plan/1", "name": "vf",
            "base": {"command": ["sh", "-c", 'echo "$MODE|$EXTRA|$BASE|$*"', "sh"],
                     "env": {"BASE": "b", "MODE": "base"}},
            "variants_file": "variants.txt",
            "schedule": {"runs": 1},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }
        _, res = self.run_plan(plan)
        self.assertEqual(res["variants"], ["fast", "slow"])
        out = {}
        for inv in res["invocations"]:
            with open(self.path("ev", inv["dir"], "test.log")) as f:
                out[inv["variant"]] = f.read().strip()
        self.assertEqual(out["fast"], "f|1|b|one two words")
        self.assertEqual(out["slow"], "base||b|three")


class Measurements(AbevTestCase):
    def one(self, args, **kw):
        p = self.write_plan(helper_plan([("m", args)], **kw))
        self.abev("run", p, "--out", self.path("ev"), check=0)
        res = self.load("ev", "result.json")
        return res["invocations"][0], res

    def said(self, inv):
        return helper_said(os.path.join(self.path("ev"), inv["dir"], "test.log"))

    def check_touch(self, mib):
        inv, _ = self.one(["touch", str(mib)])
        kv = self.said(inv)
        expected = int(kv["baseline_rss_bytes"]) + mib * MiB
        self.assertAlmostEqual(inv["max_rss_bytes"], expected, delta=expected * 0.05,
                               msg=f"touched {mib} MiB + baseline")

    def test_peak_rss_64_mib(self):
        self.check_touch(64)

    def test_peak_rss_512_mib(self):
        self.check_touch(512)

    def test_orchestrator_memory_does_not_leak_into_child(self):
        if SANITIZED:
            self.skipTest("the sanitizer runtime makes abev's RSS larger than the child's; "
                          "checked in the plain build")
        inv, res = self.one(["touch", "0"])
        kv = self.said(inv)
        # The child's figure is its own high-water mark, not abev's.
        self.assertLess(inv["max_rss_bytes"], int(kv["hwm_bytes"]) + 2 * MiB)

    def test_sleep_wall_time(self):
        t0 = time.monotonic_ns()
        inv, _ = self.one(["sleep", "200"])
        t1 = time.monotonic_ns()
        h = {k: int(v) for k, v in self.said(inv).items()}
        own = h["end_mono_ns"] - h["start_mono_ns"]
        self.assertGreaterEqual(own, 200 * MS, "the helper did not sleep 200 ms")
        # abev's window holds the helper's whole life and lies within the run.
        self.assertGreaterEqual(inv["wall_ns"], own,
                                f"abev's wall time is shorter than the helper's own {own} ns")
        self.assertLessEqual(inv["wall_ns"], t1 - t0, "longer than the whole abev run")
        # The UTC labels frame the helper's own realtime stamps and span the duration.
        start, end = utc_us(inv["start_utc"]), utc_us(inv["end_utc"])
        self.assertLessEqual(start, h["start_real_ns"] // 1000)
        self.assertGreaterEqual(end, h["end_real_ns"] // 1000)
        self.assertGreater((end - start + 1) * 1000, inv["wall_ns"])

    def test_spin_cpu_time(self):
        inv, _ = self.one(["spin", "300"])
        h = {k: int(v) for k, v in self.said(inv).items()}
        msg = (f"abev: user {inv['user_ns']} sys {inv['sys_ns']}; the helper's own: user "
               f"{h['user_ns']} sys {h['sys_ns']}, CPU clock {h['cpu_ns']}")
        self.assertGreaterEqual(h["cpu_ns"], 300 * MS, "the helper did not burn 300 ms")
        self.assertEqual(inv["cpu_ns"], inv["user_ns"] + inv["sys_ns"])
        # All the helper measured of itself, field by field (the kernel never
        # lowers a reported user or system time; 1 ms covers the rounding to
        # microseconds), and little more: its exec and exit.
        self.assertGreaterEqual(inv["user_ns"], h["user_ns"] - MS, msg)
        self.assertGreaterEqual(inv["sys_ns"], h["sys_ns"] - MS, msg)
        self.assertGreaterEqual(inv["cpu_ns"], h["cpu_ns"] - MS, msg)
        self.assertLessEqual(inv["cpu_ns"], h["cpu_ns"] + 50 * MS, msg)
        # A single-threaded child never gets more CPU than its wall time.
        self.assertLessEqual(inv["cpu_ns"], inv["wall_ns"] + 10 * MS, msg)


class Order(AbevTestCase):
    def sequence(self, order, runs=3, seed=1, variants=("A", "B")):
        p = self.write_plan(helper_plan([(v, ["exit", "0"]) for v in variants], runs=runs,
                                        order=order, seed=seed))
        self.count = getattr(self, "count", 0) + 1
        out = self.path(f"ev-{self.count}")
        self.abev("run", p, "--out", out, "--quiet", check=0)
        with open(os.path.join(out, "result.json")) as f:
            res = json.load(f)
        self.assertEqual(res["schedule"]["order"], order or "balanced")
        self.assertEqual(res["schedule"]["seed"], seed)
        return "".join(i["variant"] for i in res["invocations"] if i["phase"] == "run")

    def test_alternate(self):
        self.assertEqual(self.sequence("alternate"), "ABABAB")

    def test_reverse(self):
        self.assertEqual(self.sequence("reverse"), "ABBAAB")

    def test_default_is_balanced(self):
        # No order in the plan: A B, B A, so that drift in time hits both alike.
        self.assertEqual(self.sequence(None, runs=4), "ABBAABBA")

    def test_balanced_three(self):
        # Each row of the Williams square, then its reverse.
        self.assertEqual(self.sequence("balanced", runs=6, variants="ABC"),
                         "ABCCBABCAACBCABBAC")

    def test_shuffle_is_reproducible_by_seed(self):
        a = self.sequence("shuffle", runs=12, seed=7, variants="ABC")
        b = self.sequence("shuffle", runs=12, seed=7, variants="ABC")
        c = self.sequence("shuffle", runs=12, seed=8, variants="ABC")
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        for r in range(12):
            self.assertEqual(sorted(a[3 * r:3 * r + 3]), ["A", "B", "C"])

    def test_gap_between_processes(self):
        p = self.write_plan(helper_plan([("A", ["exit", "0"]), ("B", ["exit", "0"])],
                                        runs=2, warmups=1, gap=0.3))
        self.abev("run", p, "--out", self.path("ev"), check=0)
        invs = self.load("ev", "result.json")["invocations"]
        self.assertEqual(len(invs), 6)
        for prev, cur in zip(invs, invs[1:]):
            gap = parse_utc(cur["start_utc"]) - parse_utc(prev["end_utc"])
            self.assertGreaterEqual(gap.total_seconds(), 0.3, (prev["seq"], cur["seq"]))


class Failures(AbevTestCase):
    def test_segfault_is_recorded_and_schedule_continues(self):
        p = self.write_plan(helper_plan([("crash", ["crash"]), ("fine", ["exit", "0"])], runs=2))
        self.abev("run", p, "--out", self.path("ev"), check=1)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "failed")
        self.assertEqual(len(res["invocations"]), 4)
        for inv in res["invocations"]:
            if inv["variant"] == "crash":
                self.assertEqual(inv["status"], "failed")
                self.assertEqual(inv["signal"], 11)
                self.assertIsNone(inv["exit_code"])
                self.assertIn("SIGSEGV", inv["reason"])
            else:
                self.assertEqual(inv["status"], "ok")

    def test_nonzero_exit_fails(self):
        p = self.write_plan(helper_plan([("a", ["exit", "3"])]))
        self.abev("run", p, "--out", self.path("ev"), check=1)
        inv = self.load("ev", "result.json")["invocations"][0]
        self.assertEqual(inv["status"], "failed")
        self.assertEqual(inv["exit_code"], 3)

    def test_hang_with_grandchild_is_killed_at_timeout(self):
        pidfile = self.path("pids")
        plan = helper_plan([("h", ["hang-with-child", pidfile, "--ignore-term"])], timeout=1)
        plan["schedule"]["kill_grace_seconds"] = 0.5
        p = self.write_plan(plan)
        t0 = time.monotonic()
        self.abev("run", p, "--out", self.path("ev"), check=1)
        # Killed, not waited for: the hang would last until abev's caller gave up.
        self.assertLess(time.monotonic() - t0, 60)
        inv = self.load("ev", "result.json")["invocations"][0]
        self.assertEqual(inv["status"], "timed_out")
        self.assertTrue(inv["timed_out"])
        if not os.path.exists(pidfile):
            # The pids are written once SIGTERM is ignored; not within the timeout.
            self.skipTest(f"the helper was not set up within the 1 s timeout (it ended by "
                          f"signal {inv['signal']}): the machine is too busy for this test")
        self.assertEqual(inv["signal"], 9)
        # Both ignore SIGTERM: only the SIGKILL, a grace period after it, ends them.
        self.assertGreaterEqual(inv["wall_ns"], 1.5e9)
        # The reason names both signals and how the process ended.
        self.assertEqual(inv["reason"], "timed out after 1 s; stopped with SIGTERM, then "
                         "SIGKILL after the grace period; it was killed by SIGKILL")
        with open(pidfile) as f:
            child, grandchild = map(int, f.read().split())
        self.assertFalse(pid_alive(child))
        self.assertFalse(pid_alive(grandchild))

    def test_timeout_reason_names_the_signal_and_how_it_ended(self):
        # A sleeper dies of the SIGTERM; a shell that traps it exits with its own code.
        plan = helper_plan([("s", ["sleep", "60000"]), ("t", ["sleep", "1"])], timeout=1)
        plan["variants"][1]["command"] = [
            "sh", "-c", "trap 'exit 7' TERM; echo ready > trapped; "
            "while :; do sleep 0.05; done"]
        plan["variants"][1]["cwd"] = self.path()
        p = self.write_plan(plan)
        self.abev("run", p, "--out", self.path("ev"), check=1)
        by = {i["variant"]: i for i in self.load("ev", "result.json")["invocations"]}
        self.assertEqual(by["s"]["status"], "timed_out")
        self.assertEqual(by["s"]["signal"], 15)
        self.assertEqual(by["s"]["reason"], "timed out after 1 s; stopped with SIGTERM; it was "
                         "killed by SIGTERM")
        self.assertEqual(by["t"]["status"], "timed_out")
        if not os.path.exists(self.path("trapped")):
            self.skipTest("the shell did not set its trap within the 1 s timeout: the "
                          "machine is too busy for this test")
        self.assertEqual(by["t"]["reason"], "timed out after 1 s; stopped with SIGTERM; it "
                         "exited with code 7")

    def test_missing_program_is_refused_before_any_run(self):
        plan = helper_plan([("a", ["exit", "0"])])
        plan["variants"].append({"name": "b", "command": ["no-such-program-abev"]})
        p = self.write_plan(plan)
        cp = self.abev("run", p, "--out", self.path("ev"), check=2)
        self.assertIn("variants[1].command[0]: program 'no-such-program-abev' is not on the PATH",
                      cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev")))

    def test_missing_program_is_exec_failed(self):
        # A variant with a prepare step may have its program made by it: not
        # checked before the run, and when it is still missing, recorded.
        plan = helper_plan([("a", ["exit", "0"])])
        plan["variants"].append({"name": "b", "command": ["no-such-program-abev"],
                                 "prepare": ["true"]})
        p = self.write_plan(plan)
        self.abev("run", p, "--out", self.path("ev"), check=1)
        invs = self.load("ev", "result.json")["invocations"]
        self.assertEqual(invs[0]["status"], "ok")
        self.assertEqual(invs[1]["status"], "exec_failed")
        self.assertIn("No such file or directory", invs[1]["exec_error"])
        self.assertIn("no-such-program-abev", invs[1]["exec_error"])

    def path_program(self, body):
        """Directories a and b for a PATH of a:b:/usr/bin:/bin, with an
        executable 'prog' in b that runs body (sh); returns (a, b)."""
        a, b = self.path("a"), self.path("b")
        os.mkdir(a)
        os.mkdir(b)
        with open(os.path.join(b, "prog"), "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(os.path.join(b, "prog"), 0o755)
        return a, b

    def test_program_is_found_on_path_once(self):
        # The first run plants a program of the same name in an earlier PATH
        # entry: every run still runs the one the plan started with.
        a, b = self.path_program('printf "#!/bin/sh\\nexit 3\\n" > "$A/prog"\n'
                                 'chmod +x "$A/prog"\nexit 0\n')
        plan = {"schema": "abev.plan/1", "name": "p",
                "variants": [{"name": "v", "command": ["prog"],
                              "env": {"PATH": f"{a}:{b}:/usr/bin:/bin", "A": a}}],
                "schedule": {"runs": 3},
                "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0}}
        _, res = self.run_plan(plan)
        self.assertTrue(os.path.exists(os.path.join(a, "prog")))
        self.assertEqual([i["exit_code"] for i in res["invocations"]], [0, 0, 0])

    def test_program_gone_from_path_is_exec_failed(self):
        _, b = self.path_program('rm -f "$0"\nexit 0\n')
        plan = {"schema": "abev.plan/1", "name": "p",
                "variants": [{"name": "v", "command": ["prog"],
                              "env": {"PATH": f"{self.path('a')}:{b}:/usr/bin:/bin"}}],
                "schedule": {"runs": 2},
                "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0}}
        _, res = self.run_plan(plan, expect=1)
        invs = res["invocations"]
        self.assertEqual([i["status"] for i in invs], ["ok", "exec_failed"])
        self.assertEqual(invs[1]["exec_error"], "cannot execute 'prog': No such file or directory")

    def test_leftover_daemon_is_killed(self):
        pidfile = self.path("daemon")
        p = self.write_plan(helper_plan([("d", ["daemonize", pidfile])]))
        self.abev("run", p, "--out", self.path("ev"), check=0)
        inv = self.load("ev", "result.json")["invocations"][0]
        self.assertGreaterEqual(inv["leftovers_killed"], 1)
        with open(pidfile) as f:
            self.assertFalse(pid_alive(int(f.read().split()[0])))


class Interrupt(AbevTestCase):
    def interrupt(self, sig, expect):
        pidfile = self.path("pids")
        marker = os.path.basename(self.tmp)
        plan = helper_plan([("a", ["hang-with-child", pidfile]), ("b", ["exit", "0"])], runs=3)
        p = self.write_plan(plan)
        proc = subprocess.Popen([ABEV, "run", p, "--out", self.path("ev"), "--unsigned"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        try:
            self.assertTrue(wait_for_file(pidfile), "the child never started")
            time.sleep(0.2)
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        self.assertEqual(proc.returncode, expect, err)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "interrupted")
        self.assertEqual(res["interrupt"], signal.Signals(sig).name)
        self.assertEqual(len(res["invocations"]), 1)
        self.assertEqual(res["invocations"][0]["status"], "interrupted")
        inv = res["invocations"][0]
        self.assertEqual(os.path.isfile(self.path("ev", "runs/a/run-1/test.log")),
                         "test.log" in logs_made(inv))
        self.assertIn("interrupted", open(self.path("ev", "report.md")).read())
        with open(pidfile) as f:
            pids = list(map(int, f.read().split()))
        for pid in pids:
            self.assertFalse(pid_alive(pid), f"process {pid} survived")
        self.assertEqual(procs_with_marker(marker), [])

    def test_sigint_during_gap(self):
        plan = helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])], runs=2, gap=30)
        p = self.write_plan(plan)
        proc = subprocess.Popen([ABEV, "run", p, "--out", self.path("ev"), "--unsigned"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        try:
            self.assertTrue(wait_for_record(self.path("ev"), "runs/a/run-1"))
            time.sleep(0.3)
            t0 = time.monotonic()
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=60)
            # Half the gap: an uncut gap would keep abev another 29 s.
            self.assertLess(time.monotonic() - t0, 15, "the gap was not cut short")
        finally:
            if proc.poll() is None:
                proc.kill()
        self.assertEqual(proc.returncode, 130)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "interrupted")
        self.assertEqual([i["status"] for i in res["invocations"]], ["ok"])
        self.assertEqual(res["planned"], 4)

    def test_sigint(self):
        self.interrupt(signal.SIGINT, 130)

    def test_sigterm(self):
        self.interrupt(signal.SIGTERM, 143)


class Footprint(AbevTestCase):
    def test_flood_of_stdout_keeps_abev_small(self):
        if SANITIZED:
            self.skipTest("sanitizer runtimes inflate abev's own RSS; checked in the plain build")
        p = self.write_plan(helper_plan([("f", ["flood", str(1024 * MiB)])],
                                        limits={"log_keep_bytes": 0}))
        proc = subprocess.Popen([ABEV, "run", p, "--out", self.path("ev"), "--quiet", "--unsigned"],
                                stdin=subprocess.DEVNULL)
        # VmHWM is abev's own high-water mark; wait4's ru_maxrss would also
        # carry this Python process's RSS, which the kernel keeps across exec.
        hwm = 0
        while proc.poll() is None:
            try:
                with open(f"/proc/{proc.pid}/status") as f:
                    for line in f:
                        if line.startswith("VmHWM:"):
                            hwm = max(hwm, int(line.split()[1]) * 1024)
            except (FileNotFoundError, ProcessLookupError, ValueError):
                pass
            time.sleep(0.05)
        self.assertEqual(proc.returncode, 0)
        res = self.load("ev", "result.json")
        # The default limits.max_log_bytes (256 MiB) keeps the start of the flood.
        self.assertEqual(os.path.getsize(self.path("ev", "runs/f/run-1/test.log")), 256 * MiB)
        self.assertEqual(res["invocations"][0]["logs"]["stdout"],
                         {"bytes_written": 256 * MiB, "bytes_dropped": 768 * MiB,
                          "truncated": True, "bytes_left_out": 0, **flood_whole(1024 * MiB)})
        self.assertGreater(hwm, 0)
        self.assertLess(hwm, 20 * MiB)
        self.assertLess(res["abev_max_rss_bytes"], 20 * MiB)


class LogCap(AbevTestCase):
    """limits.max_log_bytes: past it abev reads the stream but keeps none of it."""

    def test_flood_past_the_cap_is_truncated_and_the_run_completes(self):
        p = self.write_plan(helper_plan([("f", ["flood", str(300 * MiB)])], runs=2,
                                        limits={"max_log_bytes": MiB, "log_keep_bytes": 0}))
        r = self.abev("run", p, "--out", self.path("ev"), "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "completed")
        self.assertEqual(len(res["invocations"]), 2)
        for inv in res["invocations"]:
            self.assertEqual(inv["exit_code"], 0)
            log = self.path("ev", inv["dir"], "test.log")
            self.assertEqual(os.path.getsize(log), MiB)
            with open(log, "rb") as f:
                self.assertEqual(f.read(65), b"x" * 64 + b"\n")
            self.assertEqual(inv["logs"]["stdout"],
                             {"bytes_written": MiB, "bytes_dropped": 299 * MiB,
                              "truncated": True, "bytes_left_out": 0, **flood_whole(300 * MiB)})
            self.assertEqual(inv["logs"]["stderr"],
                             {"bytes_written": 0, "bytes_dropped": 0, "truncated": False,
                              "bytes_left_out": 0, **flood_whole(0)})
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        self.assertIn("runs/f/run-1: test.log was truncated at limits.max", report)
        self.assertIn("runs/f/run-2: test.log was truncated at limits.max", report)

    def test_output_under_the_cap_is_kept_whole(self):
        p = self.write_plan(helper_plan([("f", ["flood", "100000"]), ("e", ["stderr", "oops"])],
                                        limits={"max_log_bytes": MiB, "log_keep_bytes": 0}))
        r = self.abev("run", p, "--out", self.path("ev"), "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        by = {i["variant"]: i for i in self.load("ev", "result.json")["invocations"]}
        self.assertEqual(by["f"]["logs"]["stdout"],
                         {"bytes_written": 100000, "bytes_dropped": 0, "truncated": False,
                          "bytes_left_out": 0, **flood_whole(100000)})
        self.assertEqual(os.path.getsize(self.path("ev", by["f"]["dir"], "test.log")), 100000)
        with open(self.path("ev", by["e"]["dir"], "stderr.log"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("oops", text)
        self.assertEqual(by["e"]["logs"]["stderr"]["bytes_written"], len(text.encode()))
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertNotIn("truncated at limits.max", f.read())

    def test_a_cap_of_zero_keeps_nothing(self):
        p = self.write_plan(helper_plan([("f", ["flood", "5000"])], limits={"max_log_bytes": 0, "log_keep_bytes": 0}))
        r = self.abev("run", p, "--out", self.path("ev"), "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        inv = self.load("ev", "result.json")["invocations"][0]
        self.assertEqual(os.path.getsize(self.path("ev", inv["dir"], "test.log")), 0)
        self.assertEqual(inv["logs"]["stdout"],
                         {"bytes_written": 0, "bytes_dropped": 5000, "truncated": True,
                          "bytes_left_out": 0, **flood_whole(5000)})


class LogKeep(AbevTestCase):
    """limits.log_keep_bytes: a log keeps the start and the end of its stream."""

    def test_default_keeps_head_and_tail_and_counts_the_middle(self):
        p = self.write_plan(helper_plan([("f", ["flood", str(3 * MiB)]),
                                         ("s", ["stderr", "oops"])]))
        r = self.abev("run", p, "--out", self.path("ev"), "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        by = {i["variant"]: i for i in self.load("ev", "result.json")["invocations"]}
        keep = 8192
        self.assertEqual(by["f"]["logs"]["stdout"],
                         {"bytes_written": 2 * keep, "bytes_dropped": 0, "truncated": False,
                          "bytes_left_out": 3 * MiB - 2 * keep, **flood_whole(3 * MiB)})
        with open(self.path("ev", by["f"]["dir"], "test.log"), "rb") as f:
            log = f.read()
        mark = b"\n[abev: %d bytes left out here]\n" % (3 * MiB - 2 * keep)
        self.assertEqual(len(log), 2 * keep + len(mark))
        self.assertEqual(log[keep:keep + len(mark)], mark)
        self.assertEqual(log[:65], b"x" * 64 + b"\n")
        # A short stream is kept whole, with no marker.
        with open(self.path("ev", by["s"]["dir"], "stderr.log"), encoding="utf-8") as f:
            self.assertNotIn("left out", f.read())
        self.assertEqual(by["s"]["logs"]["stderr"]["bytes_left_out"], 0)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertNotIn("truncated at limits.max", f.read())

    def test_the_whole_stream_is_sized_and_hashed(self):
        p = self.write_plan(helper_plan([("f", ["flood", str(MiB)]), ("s", ["stderr", "oops"])]))
        r = self.abev("run", p, "--out", self.path("ev"), "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        by = {i["variant"]: i for i in self.load("ev", "result.json")["invocations"]}
        out = by["f"]["logs"]["stdout"]
        self.assertEqual(out["bytes_total"], 1048576)
        self.assertEqual(out["sha256"], flood_whole(MiB)["sha256"])
        self.assertGreater(out["bytes_left_out"], 0)
        self.assertEqual(out["bytes_written"] + out["bytes_left_out"], out["bytes_total"])
        self.assertEqual(by["s"]["logs"]["stderr"]["bytes_total"], 4)
        self.assertEqual(by["s"]["logs"]["stderr"]["sha256"], hashlib.sha256(b"oops").hexdigest())
        self.assertEqual(by["s"]["logs"]["stdout"], {"bytes_written": 0, "bytes_dropped": 0,
                                                     "truncated": False, "bytes_left_out": 0,
                                                     **flood_whole(0)})
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertIn("`logs.stdout.bytes_total`", f.read())

    def test_a_stdout_metric_keeps_the_whole_stream(self):
        p = self.write_plan(helper_plan([("f", ["flood", "300000"])],
                                        metrics=[{"name": "n", "source": "stdout",
                                                  "unit": "ms", "pattern": "([0-9]+)"}]))
        # The flood has no number: the metric is not yielded, which is not what is checked.
        self.abev("run", p, "--out", self.path("ev"), "--quiet")
        inv = self.load("ev", "result.json")["invocations"][0]
        self.assertEqual(inv["logs"]["stdout"]["bytes_written"], 300000)
        self.assertEqual(inv["logs"]["stdout"]["bytes_left_out"], 0)
        self.assertEqual(os.path.getsize(self.path("ev", inv["dir"], "test.log")), 300000)


class ForeignLoad(AbevTestCase):
    """Foreign load the test brings itself: one burner per core keeps every
    core busy whatever else runs, so that a limit of a core under the total
    is always exceeded while they run."""

    ncpu = os.sysconf("SC_NPROCESSORS_ONLN")

    def test_waits_for_a_quieter_machine_then_runs(self):
        # The burners keep every core busy when the recorded run is due:
        # abev waits, saying so; once they stop it runs, not under load.
        if len(os.sched_getaffinity(0)) < self.ncpu:
            self.skipTest(f"this test may run on {len(os.sched_getaffinity(0))} of the "
                          f"{self.ncpu} CPUs: its burners cannot fill them all")
        limit = self.ncpu - 0.5
        plan = helper_plan([("q", ["sleep", "300"])], runs=1,
                           load={"max_foreign_cpu": limit, "max_repeats": 0,
                                 "max_wait_seconds": 20})
        p = self.write_plan(plan)
        burners = Burners(self.ncpu)
        proc, said = None, None
        try:
            proc = subprocess.Popen([ABEV, "run", p, "--out", self.path("ev"), "--unsigned"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    stdin=subprocess.DEVNULL)
            # Without a terminal the wait is said once, on a line of its own.
            for line in proc.stderr:
                if "waiting for a quieter machine" in line:
                    said = line
                    break
            burners.stop()
            out, err = proc.communicate(timeout=300)
        finally:
            burners.stop()
            if proc and proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertIsNotNone(said, f"abev did not wait beside {self.ncpu} burners:\n{err}")
        self.assertRegex(said, r"^abev: \[1/1\] q run 1: waiting for a quieter machine: "
                               r"[0-9.]+ cores busy with other work \(limit "
                               + f"{limit:.2f}" + r"\), ([0-9.]+s|[0-9]+m[0-9]+s)$")
        res = self.load("ev", "result.json")
        inv = res["invocations"][0]
        self.assertEqual(inv["attempt"], 1)
        self.assertGreater(inv["load_wait_ns"], 0)
        self.assertEqual(res["schedule"]["max_wait_seconds"], 20)
        self.assertEqual(res["schedule"]["max_wait_seconds_from"], "plan")
        self.assertIn("load:     waited ", out)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertIn("Waited for a quieter machine before 1 run(s)", f.read())
        if inv["loaded"]:
            # Other work kept the machine busy after the burners stopped: the
            # run went ahead under load, kept for one of abev's two reasons,
            # which its load guard names — the whole wait was spent, or (no
            # repeats) the run itself was loaded and it was the slot's last
            # attempt. Either is abev's rule, not a timing.
            load = [g for g in inv["guards"] if g["guard"] == "load"][0]
            if "stayed busy through the wait" in load["reason"]:
                self.assertGreaterEqual(inv["load_wait_ns"], 20e9)
            else:
                self.assertIn("the slot's last attempt (load.max_repeats 0)", load["reason"])
            self.skipTest(f"the machine stayed busy after the burners stopped (foreign_cpu "
                          f"{inv['foreign_cpu']:.2f}, limit {limit}): the run went ahead "
                          "under load")
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(inv["status"], "ok")

    def test_run_kept_under_load_when_load_never_stops(self):
        # Burners throughout and a one-second budget: abev waits it out, then
        # runs under load and keeps the run, marked; no slot is lost.
        plan = helper_plan([("q", ["sleep", "300"])], runs=1,
                           load={"max_foreign_cpu": 0.3, "max_repeats": 1,
                                 "max_wait_seconds": 1})
        p = self.write_plan(plan)
        burners = Burners(self.ncpu)
        try:
            cp = self.abev("run", p, "--out", self.path("ev"), check=0)
        finally:
            burners.stop()
        res = self.load("ev", "result.json")
        self.assertEqual([(i["status"], i["loaded"]) for i in res["invocations"]], [("ok", True)])
        inv = res["invocations"][0]
        # The whole budget went by before it: abev's own rule, not a timing.
        self.assertGreaterEqual(inv["load_wait_ns"], 1e9)
        self.assertGreater(inv["foreign_cpu"] - inv["foreign_cpu_resolution"], 0.3)
        load = [g for g in inv["guards"] if g["guard"] == "load"][0]
        self.assertEqual(load["verdict"], "pass")
        self.assertIn("kept under load: the machine stayed busy through the wait for a quieter "
                      "one (load.max_wait_seconds 1 s, spent)", load["reason"])
        self.assertEqual(res["status"], "completed")
        self.assertTrue(any(n.startswith("the machine stayed busy: ") for n in res["notes"]),
                        res["notes"])
        self.assertIn("load:     1 of 1 counted run(s) ran under load", cp.stdout)

    def test_command_line_sets_the_wait(self):
        plan = helper_plan([("q", ["exit", "0"])], runs=1)
        p = self.write_plan(plan)
        self.abev("run", p, "--out", self.path("ev"), "--max-load-wait", "7.5", check=0)
        sched = self.load("ev", "result.json")["schedule"]
        self.assertEqual((sched["max_wait_seconds"], sched["max_wait_seconds_from"]),
                         (7.5, "--max-load-wait"))
        for bad in ("-1", "86401", "x", "nan"):
            cp = self.abev("run", p, "--out", self.path("ev2"), "--max-load-wait", bad)
            self.assertEqual(cp.returncode, 2, bad)
            self.assertIn("'--max-load-wait' must be a number of seconds from 0 to 86400",
                          cp.stderr)


class RunAs(OtherUser, AbevTestCase):
    """run_as: as root, every command of the plan runs as another user,
    which can neither read the signing key nor write the evidence outside
    its own run directory; the run itself passes."""

    def setUp(self):
        # The user must reach the plan's directory and the evidence root's run directories.
        self.set_up_as_root_with_nobody("run_as needs abev to run as root")

    def test_commands_run_as_the_user(self):
        self.abev("keygen", "--out", self.path("key"), check=0)
        key = self.path("key.key")
        ev = self.path("ev")
        script = ('if cat "$1" >/dev/null 2>&1; then echo key=read; else echo key=refused; fi; '
                  'if touch "$2/intruder" 2>/dev/null; then echo root=written; '
                  'else echo root=refused; fi; '
                  'if touch "$ABEV_RUN_DIR/own" 2>/dev/null; then echo own=written; '
                  'else echo own=refused; fi; '
                  'echo uid=$(id -u)')
        helper, _ = self.programs_for_user()
        plan = helper_plan([("a", []), ("b", ["fds"])], run_as="nobody", helper=helper)
        plan["variants"][0]["command"] = ["sh", "-c", script, "sh", key, ev]
        plan["variants"][0]["prepare"] = ["sh", "-c", "echo prepare_uid=$(id -u)"]
        plan["versions"] = {"uid": ["id", "-u"]}
        cp, res = self.run_plan(plan, 0, "--key", key)
        self.assertEqual(res["status"], "completed", cp.stderr)
        self.assertEqual(res["run_as"], {"user": "nobody", "uid": self.user.pw_uid,
                                         "gid": self.user.pw_gid, "from": "plan"})
        a = helper_said(self.path("ev", "runs", "a", "run-1", "test.log"))
        self.assertEqual(a, {"key": "refused", "root": "refused", "own": "written",
                             "uid": str(self.user.pw_uid)})
        self.assertFalse(os.path.exists(os.path.join(ev, "intruder")))
        with open(self.path("ev", "runs", "a", "run-1", "prepare.log")) as f:
            self.assertEqual(f.read().strip(), f"prepare_uid={self.user.pw_uid}")
        md = self.load("ev", "metadata.json")
        self.assertEqual(md["variants"][0]["versions"]["uid"]["output"], str(self.user.pw_uid))
        # After the invocation its directory is abev's again.
        self.assertEqual(os.stat(self.path("ev", "runs", "a", "run-1")).st_uid, 0)
        # Nothing of abev's (the key, the evidence) is open in the child.
        self.assertEqual(helper_said(self.path("ev", "runs", "b", "run-1", "test.log")),
                         {"fds": "0,1,2"})
        cp = self.abev("verify", ev, "--pubkey", self.path("key.pub"))
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        # Trusted apart: verify says nothing of runs as abev's own user.
        self.assertNotIn("\nruns:", cp.stdout)

    def test_the_user_reaches_its_run_directory_under_umask_077(self):
        # abev made its directories 0700 under a umask of 077, and the user
        # could not reach its own run directory (silently: its writes failed).
        # Now abev lets it through (search only, o+x) the directories above.
        script = ('if touch "$ABEV_RUN_DIR/own" 2>/dev/null; then echo own=written; '
                  'else echo own=refused; fi')
        helper, _ = self.programs_for_user()
        plan = helper_plan([("a", [])], run_as="nobody", helper=helper)
        plan["variants"][0]["command"] = ["sh", "-c", script]
        p = self.write_plan(plan)
        cp = subprocess.run([ABEV, "run", p, "--out", self.path("ev"), "--unsigned"],
                            capture_output=True, text=True, timeout=300,
                            preexec_fn=lambda: os.umask(0o077))
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertEqual(helper_said(self.path("ev", "runs", "a", "run-1", "test.log")),
                         {"own": "written"})
        for d in (("ev",), ("ev", "runs"), ("ev", "runs", "a")):
            mode = os.stat(self.path(*d)).st_mode & 0o777
            self.assertEqual(mode, 0o701, d)  # others may pass, not list
        self.assertEqual(os.stat(self.path("ev", "runs", "a", "run-1")).st_mode & 0o777, 0o700)

    def test_the_user_reads_no_evidence_under_umask_022(self):
        # Issue 40 §6: under a umask of 022 the user's later runs could read
        # abev's metadata.json and the earlier runs' directories. Now abev
        # writes under 077 while commands run as the user (the commands keep
        # the umask abev was started with), and takes each run back private.
        script = ('for f in "$1/metadata.json" "$1/plan.json" "$1/runs/a/run-1/test.log"; do '
                  'if cat "$f" >/dev/null 2>&1; then echo "$(basename "$f")=read"; '
                  'else echo "$(basename "$f")=refused"; fi; done; '
                  'touch "$ABEV_RUN_DIR/own" && echo umask=$(umask)')
        helper, _ = self.programs_for_user()
        plan = helper_plan([("a", [])], runs=2, run_as="nobody", helper=helper)
        plan["variants"][0]["command"] = ["sh", "-c", script, "sh", self.path("ev")]
        p = self.write_plan(plan)
        cp = subprocess.run([ABEV, "run", p, "--out", self.path("ev"), "--unsigned",
                             "--max-cpu-wait-pct", "100"],
                            capture_output=True, text=True, timeout=300,
                            preexec_fn=lambda: os.umask(0o022))
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        said = helper_said(self.path("ev", "runs", "a", "run-2", "test.log"))
        self.assertEqual(said, {"metadata.json": "refused", "plan.json": "refused",
                                "test.log": "refused", "umask": "0022"})
        self.assertEqual(os.stat(self.path("ev", "metadata.json")).st_mode & 0o077, 0)
        for run in ("run-1", "run-2"):
            self.assertEqual(os.stat(self.path("ev", "runs", "a", run)).st_mode & 0o777, 0o700)
            self.assertEqual(os.stat(self.path("ev", "runs", "a", run, "own")).st_mode & 0o777,
                             0o600)

    def test_option_overrides_the_plan_and_is_recorded(self):
        helper, _ = self.programs_for_user()
        plan = helper_plan([("a", ["ids"])], run_as="root", helper=helper)
        cp, res = self.run_plan(plan, 0, "--run-as", "nobody")
        self.assertEqual(res["run_as"]["user"], "nobody")
        self.assertEqual(res["run_as"]["from"], "--run-as")
        ids = helper_said(self.path("ev", "runs", "a", "run-1", "test.log"))
        self.assertEqual(ids["uid"], str(self.user.pw_uid))
        self.assertEqual(ids["euid"], str(self.user.pw_uid))
        self.assertEqual(ids["gid"], str(self.user.pw_gid))
        self.assertNotIn("0", ids["groups"].split(","), "root's groups were kept")

    def test_unknown_user_is_refused_before_anything_runs(self):
        plan = helper_plan([("a", ["exit", "0"])], run_as="no-such-user-abev")
        cp = self.abev("run", self.write_plan(plan), "--out", self.path("ev"), check=2)
        self.assertIn("run_as: no user 'no-such-user-abev' on this machine", cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev")))
        plan = helper_plan([("a", ["exit", "0"])])
        cp = self.abev("run", self.write_plan(plan), "--out", self.path("ev"), "--run-as",
                       "no-such-user-abev", check=2)
        self.assertIn("run_as (--run-as): no user 'no-such-user-abev'", cp.stderr)

    def test_refused_when_abev_is_not_root(self):
        helper, abev = self.programs_for_user()
        p = self.write_plan(helper_plan([("a", ["exit", "0"])], run_as="nobody", helper=helper))
        os.chmod(p, 0o644)  # this abev reads it as the user, whatever the umask
        cp = subprocess.run([abev, "run", p, "--dry-run"], capture_output=True, text=True,
                            timeout=300, stdin=subprocess.DEVNULL, cwd=self.tmp,
                            preexec_fn=self.become_user)
        self.assertEqual(cp.returncode, 2, cp.stdout + cp.stderr)
        self.assertIn("abev must run as root", cp.stderr)


class NoDescriptorLeaks(AbevTestCase):
    def test_child_has_only_its_standard_streams(self):
        self.abev("keygen", "--out", self.path("key"), check=0)
        plan = helper_plan([("a", ["fds"])])
        plan["schedule"]["prepare"] = [HELPER, "fds"]
        self.run_plan(plan, 0, "--key", self.path("key.key"))
        self.assertEqual(helper_said(self.path("ev", "runs", "a", "run-1", "test.log")),
                         {"fds": "0,1,2"})
        with open(self.path("ev", "runs", "a", "run-1", "prepare.log")) as f:
            self.assertEqual(f.read().strip(), "fds=0,1,2")


if __name__ == "__main__":
    unittest.main()
