"""Integration tests of every way out of `abev run`: each terminating signal
(mid-run, during the versions commands, after the last invocation) ends in
sealed evidence that says "interrupted" with the signal's name and leaves no
process and no cgroup behind; a closed stdout does not stop a run; stale
cgroups of a dead abev are removed; options are refused before anything
runs.

The machine is shared and may be busy: the only time bounds are watchdogs
for a hung abev, far above what a slow machine needs."""
import json
import os
import re
import resource
import signal
import subprocess
import time
import unittest

from common import ABEV, HELPER, AbevTestCase, helper_plan
from test_run import pid_alive, procs_with_marker, wait_for_file, wait_for_record


def cgroup_parent():
    """The directory abev makes its cgroups in (its own cgroup v2 group), or None."""
    mount = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, _, post = line.partition(" - ")
            if post.startswith("cgroup2 "):
                mount = pre.split()[4].replace("\\040", " ")
                break
    if mount is None:
        return None
    with open("/proc/self/cgroup") as f:
        own = next((l.strip()[3:] for l in f if l.startswith("0::")), None)
    if own is None:
        return None
    return mount if own == "/" else mount.rstrip("/") + own


def cgroups_of(pid):
    parent = cgroup_parent()
    if parent is None or not os.path.isdir(parent):
        return []
    return [d for d in os.listdir(parent) if d.startswith(f"abev-{pid}-")]


class Signals(AbevTestCase):
    def keygen(self):
        self.abev("keygen", "--out", self.path("key"), check=0)
        return self.path("key.key"), self.path("key.pub")

    def start(self, plan, *extra):
        p = self.write_plan(plan)
        return subprocess.Popen([ABEV, "run", p, "--out", self.path("ev"), *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)

    def finish(self, proc, sig):
        try:
            proc.send_signal(sig)
            # A watchdog, not a bound.
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        return out.decode(errors="replace"), err.decode(errors="replace")

    def check_sealed_interrupted(self, proc, sig, pub, err):
        self.assertEqual(proc.returncode, 128 + sig, err)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "interrupted")
        self.assertEqual(res["interrupt"], signal.Signals(sig).name)
        self.assert_verifies_as_interrupted(self.path("ev"), pub, sig)
        self.assertEqual(cgroups_of(proc.pid), [], "a cgroup of the run was left behind")
        return res

    def assert_verifies_as_interrupted(self, ev, pub, sig):
        """The seal holds, and verify says what the sealed record says: an
        interrupted run, which is no clean record (exit 8, never 0)."""
        cp = self.abev("verify", ev, "--pubkey", pub)
        self.assertEqual(cp.returncode, 8, cp.stdout + cp.stderr)
        self.assertIn("seal:        intact: the signature is good", cp.stdout)
        self.assertIn(f"status:      interrupted ({signal.Signals(sig).name})\n", cp.stdout)
        # A signal after the last invocation may also leave files the seal had
        # not reached yet: the verdict then says so after the status.
        self.assertRegex(cp.stdout, re.compile(
            r"^verdict:     NOT CLEAN: the evidence is as it was sealed, but it records "
            rf"a run that was interrupted \({signal.Signals(sig).name}\)"
            r"(; abev was interrupted while sealing it and left \d+ paths? out of the seal"
            r" \(result\.json's \"unsealed\"\))?$", re.M))

    def mid_run(self, sig):
        key, pub = self.keygen()
        pidfile = self.path("pids")
        marker = os.path.basename(self.tmp)
        plan = helper_plan([("a", ["hang-with-child", pidfile]), ("b", ["exit", "0"])], runs=2)
        proc = self.start(plan, "--key", key)
        try:
            self.assertTrue(wait_for_file(pidfile), "the child never started")
        finally:
            _, err = self.finish(proc, sig)
        res = self.check_sealed_interrupted(proc, sig, pub, err)
        self.assertEqual([i["status"] for i in res["invocations"]], ["interrupted"])
        with open(pidfile) as f:
            for pid in map(int, f.read().split()):
                self.assertFalse(pid_alive(pid), f"process {pid} survived")
        self.assertEqual(procs_with_marker(marker), [])

    def test_interrupted_run_decides_nothing(self):
        # Issue 39 §3: Ctrl-C after 8 of 20 rounds gave exit 130 and status
        # interrupted, while the terminal, result.json and the top of report.md
        # said "Decision: accepted". Here 7 rounds of 10 pass the gate, and
        # round 8 hangs until SIGINT.
        key, pub = self.keygen()
        pidfile = self.path("pids")
        hang = f'[ "$ABEV_ROUND" = 8 ] && exec "{HELPER}" hang-with-child "{pidfile}"; '
        plan = {
            "schema": "abev.plan/1", "name": "cut",
            "variants": [{"name": "a", "command": ["sh", "-c", hang + "echo t=100"]},
                         {"name": "b", "command": ["sh", "-c", "echo t=100"]}],
            "schedule": {"runs": 10, "order": "alternate", "gap_seconds": 0},
            "metrics": [{"name": "t", "source": "stdout", "unit": "ms",
                         "pattern": "t=([0-9.]+)"}],
            "gates": {"t": {"max_regression_pct": 5}},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }
        proc = self.start(plan, "--key", key)
        try:
            self.assertTrue(wait_for_file(pidfile), "round 8 never started")
        finally:
            out, err = self.finish(proc, signal.SIGINT)
        res = self.check_sealed_interrupted(proc, signal.SIGINT, pub, err)
        cmp = res["comparison"]
        self.assertEqual(cmp["decision"], "no decision")
        self.assertEqual(cmp["no_decision"], {"reason": "interrupted", "rounds_done": 7,
                                              "rounds_planned": 10, "shown": "accepted"})
        self.assertEqual(cmp["gates"][0]["verdict"], "pass")
        words = ("no decision: interrupted after 7 of 10 rounds; what they showed, not a "
                 "decision: accepted: all 1 gate passed")
        self.assertIn("decision: " + words, out)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        self.assertIn("**Decision: " + words, report)
        self.assertNotIn("Decision: accepted", report)
        # A report made later from the evidence says the same.
        cp = self.abev("report", self.path("ev"), check=0)
        self.assertIn("**Decision: " + words, cp.stdout)
        self.assertNotIn("is not the one its invocations give", cp.stderr)

    def test_sighup_mid_run(self):
        self.mid_run(signal.SIGHUP)

    def test_sigquit_mid_run(self):
        self.mid_run(signal.SIGQUIT)

    def test_sigterm_mid_run(self):
        self.mid_run(signal.SIGTERM)

    def test_sigusr1_mid_run(self):
        self.mid_run(signal.SIGUSR1)

    def test_sigint_mid_run(self):
        self.mid_run(signal.SIGINT)

    def test_sigint_during_hanging_versions_command(self):
        key, pub = self.keygen()
        pidfile = self.path("versions-pid")
        plan = helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])])
        plan["versions"] = {"hang": ["sh", "-c", f'echo $$ > "{pidfile}"; exec sleep 600']}
        proc = self.start(plan, "--key", key)
        try:
            self.assertTrue(wait_for_file(pidfile), "the versions command never started")
            t0 = time.monotonic()
        finally:
            _, err = self.finish(proc, signal.SIGINT)
        # Generous: without the interrupt abev would wait out the 10 s timeout.
        self.assertLess(time.monotonic() - t0, 9.5, "the versions command was waited for")
        res = self.check_sealed_interrupted(proc, signal.SIGINT, pub, err)
        self.assertEqual(res["invocations"], [])
        self.assertTrue(any("before the first invocation" in n for n in res["notes"]),
                        res["notes"])
        with open(pidfile) as f:
            self.assertFalse(pid_alive(int(f.read().split()[0])), "the versions command survived")
        md = self.load("ev", "metadata.json")
        hang = md["variants"][0]["versions"]["hang"]
        self.assertIsNone(hang["exit_code"])
        self.assertIn("interrupted", hang["error"])
        self.assertIn("not run", md["variants"][1]["versions"]["hang"]["error"])

    def test_signal_from_a_versions_command_is_not_lost(self):
        # The command signals abev (its parent) and exits 0: the signal lands
        # between processes, where nothing waits for it.
        plan = helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])])
        plan["versions"] = {"v": ["sh", "-c", "kill -USR2 $PPID; echo 1.0"]}
        p = self.write_plan(plan)
        cp = self.abev("run", p, "--out", self.path("ev"), check=128 + signal.SIGUSR2)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "interrupted", cp.stderr)
        self.assertEqual(res["interrupt"], "SIGUSR2")
        self.assertTrue(os.path.isfile(self.path("ev", "SHA256")))

    def test_signal_after_the_last_invocation(self):
        key, pub = self.keygen()
        # A large log keeps abev hashing for a while after the last invocation.
        plan = helper_plan([("a", ["exit", "0"]), ("b", ["flood", str(512 * 1024 * 1024)])])
        proc = self.start(plan, "--key", key, "--bundle", self.path("ev.tar.gz"))
        try:
            self.assertTrue(wait_for_record(self.path("ev"), "runs/b/run-1", timeout=120),
                            "the last invocation never ended")
            if proc.poll() is not None:
                self.skipTest("abev had finished before the signal could be sent")
        finally:
            out, err = self.finish(proc, signal.SIGTERM)
        if proc.returncode == 0:
            self.skipTest("abev finished before the signal reached it")
        res = self.check_sealed_interrupted(proc, signal.SIGTERM, pub, err)
        self.assertEqual([i["status"] for i in res["invocations"]], ["ok", "ok"])
        self.assertTrue(any("after the last invocation" in n for n in res["notes"]),
                        res["notes"])
        self.assertIn("interrupted", out)
        # The bundle holds the evidence as sealed the second time.
        if os.path.exists(self.path("ev.tar.gz")):
            self.assert_verifies_as_interrupted(self.path("ev.tar.gz"), pub, signal.SIGTERM)


class DiesWithAbev(AbevTestCase):
    """abev killed with SIGKILL takes its children along: the child by
    PR_SET_PDEATHSIG, the rest of its tree by the watchdog."""

    def wait_gone(self, pids, timeout=30):
        """Polls until none of pids is alive; the bound is a watchdog."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not any(pid_alive(p) for p in pids):
                return True
            time.sleep(0.05)
        return False

    def kill_abev_during(self, plan, pidfile):
        p = self.write_plan(plan)
        proc = subprocess.Popen([ABEV, "run", p, "--out", self.path("ev"), "--unsigned"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL)
        pids = []
        try:
            self.assertTrue(wait_for_file(pidfile), "the child never started")
            with open(pidfile) as f:
                pids = [int(x) for x in f.read().split()]
            proc.kill()
            proc.wait(timeout=60)
            gone = self.wait_gone(pids)
        finally:
            for pid in pids:
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)
        self.assertTrue(gone, f"processes {pids} outlived abev (SIGKILL)")
        # The watchdog also removed the run's cgroups.
        end = time.monotonic() + 30
        while cgroups_of(proc.pid) and time.monotonic() < end:
            time.sleep(0.05)
        self.assertEqual(cgroups_of(proc.pid), [], "a cgroup of the killed abev was left")

    def test_child_and_grandchild_die_with_abev(self):
        pidfile = self.path("pids")
        plan = helper_plan([("a", ["hang-with-child", pidfile])])
        self.kill_abev_during(plan, pidfile)

    def test_prepare_command_and_its_child_die_with_abev(self):
        pidfile = self.path("pids")
        plan = helper_plan([("a", ["exit", "0"])])
        plan["schedule"]["prepare"] = [HELPER, "hang-with-child", pidfile]
        self.kill_abev_during(plan, pidfile)

    def test_versions_command_and_its_child_die_with_abev(self):
        pidfile = self.path("pids")
        plan = helper_plan([("a", ["exit", "0"])])
        plan["versions"] = {"v": [HELPER, "hang-with-child", pidfile]}
        self.kill_abev_during(plan, pidfile)


class SecondInterrupt(AbevTestCase):
    def test_second_sigint_kills_without_the_grace_period(self):
        pidfile = self.path("pids")
        plan = helper_plan([("a", ["hang-with-child", pidfile, "--ignore-term"])])
        plan["schedule"]["kill_grace_seconds"] = 3600
        p = self.write_plan(plan)
        proc = subprocess.Popen([ABEV, "run", p, "--out", self.path("ev"), "--unsigned"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        try:
            self.assertTrue(wait_for_file(pidfile), "the child never started")
            proc.send_signal(signal.SIGINT)
            # The child ignores SIGTERM: abev now waits out the grace period ...
            time.sleep(0.5)
            self.assertIsNone(proc.poll(), "abev did not wait for the child")
            # ... until the second interrupt, which kills the group at once.
            proc.send_signal(signal.SIGINT)
            # A watchdog, not a bound: without the second interrupt it is 3600 s.
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        err = err.decode(errors="replace")
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("without waiting out the grace period", err)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "interrupted")
        self.assertEqual(res["interrupt"], "SIGINT")
        self.assertEqual([i["status"] for i in res["invocations"]], ["interrupted"])
        self.assertEqual(res["invocations"][0]["signal"], signal.SIGKILL)
        self.assertTrue(os.path.isfile(self.path("ev", "SHA256")))
        with open(pidfile) as f:
            for pid in map(int, f.read().split()):
                self.assertFalse(pid_alive(pid), f"process {pid} survived")


class Pauses(AbevTestCase):
    """A run whose window holds a stop (Ctrl-Z of abev, SIGSTOP/SIGTSTP of
    the command) measured the pause too: it is discarded and repeated, and
    its record says why."""

    def run_paused(self, pause):
        pidfile = self.path("pid")
        plan = helper_plan([("a", ["sleep-pid", pidfile, "2000"])],
                           load={"max_cpu_wait_pct": 100, "max_foreign_cpu": 64,
                                 "max_repeats": 1})
        p = self.write_plan(plan)
        proc = subprocess.Popen([ABEV, "run", p, "--out", self.path("ev"), "--unsigned"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        try:
            self.assertTrue(wait_for_file(pidfile), "the command never started")
            with open(pidfile) as f:
                child = int(f.read())
            pause(proc.pid, child)
            out, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGCONT)
                proc.kill()
                proc.communicate()
        err = err.decode(errors="replace")
        self.assertEqual(proc.returncode, 0, err)
        res = self.load("ev", "result.json")
        invs = res["invocations"]
        self.assertEqual([(i["status"], i["attempt"]) for i in invs],
                         [("discarded", 1), ("ok", 2)], err)
        self.assertIn("paused during the run", invs[0]["reason"])
        self.assertIsNone(invs[1]["paused"])
        load = [g for g in invs[0]["guards"] if g["guard"] == "load"][0]
        self.assertEqual(load["verdict"], "fail")
        self.assertIn("its figures include the pause", load["reason"])
        return invs[0]

    def test_abev_stopped_and_continued(self):
        def pause(abev, child):
            # SIGSTOP: a SIGTSTP to a process group without a terminal may be discarded.
            os.kill(abev, signal.SIGSTOP)
            time.sleep(0.3)
            os.kill(abev, signal.SIGCONT)
        inv = self.run_paused(pause)
        self.assertGreaterEqual(inv["paused"]["abev_stops"], 1)
        self.assertIn("abev was stopped and continued", inv["reason"])

    def test_command_stopped_and_continued(self):
        def pause(abev, child):
            os.killpg(child, signal.SIGTSTP)
            time.sleep(0.3)
            os.killpg(child, signal.SIGCONT)
        inv = self.run_paused(pause)
        self.assertGreaterEqual(inv["paused"]["child_stops"], 1)
        self.assertEqual(inv["paused"]["abev_stops"], 0)
        self.assertIn("the command was stopped", inv["reason"])


class Output(AbevTestCase):
    def test_closed_stdout_does_not_stop_the_run(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])], runs=2))
        cmd = f'"{ABEV}" run "{p}" --out "{self.path("ev")}" --unsigned | head -c 10'
        cp = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, timeout=300,
                            stdin=subprocess.DEVNULL)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(len(cp.stdout), 10)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "completed")
        self.assertEqual(len(res["invocations"]), 4)
        self.assertTrue(os.path.isfile(self.path("ev", "SHA256")))

    def test_stdout_closed_before_the_end_is_reported(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])]))
        r, w = os.pipe()
        os.close(r)
        try:
            cp = subprocess.run([ABEV, "run", p, "--out", self.path("ev"), "--unsigned"],
                                stdout=w, stderr=subprocess.PIPE, text=True, timeout=300,
                                stdin=subprocess.DEVNULL)
        finally:
            os.close(w)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertIn("cannot write the summary to standard output: Broken pipe", cp.stderr)
        self.assertEqual(self.load("ev", "result.json")["status"], "completed")
        self.assertTrue(os.path.isfile(self.path("ev", "SHA256")))


class FileSizeLimit(AbevTestCase):
    """ulimit -f: SIGXFSZ is ignored, the failing write is an error, and the
    evidence says what is missing instead of "running"."""

    def run_limited(self, plan, kib):
        def limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (kib * 1024, kib * 1024))
        return subprocess.run([ABEV, "run", self.write_plan(plan), "--out", self.path("ev"),
                               "--unsigned"], capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL, preexec_fn=limit)

    def test_result_json_over_the_limit_leaves_a_short_record(self):
        cp = self.run_limited(helper_plan([("a", ["exit", "0"])], runs=12), 16)
        self.assertEqual(cp.returncode, 3, cp.stdout + cp.stderr)
        self.assertIn("File too large", cp.stderr)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "failed")
        self.assertEqual(res["invocations"], [])
        self.assertEqual(res["executed"], 12)
        self.assertTrue(any("result.json could not be written in full (File too large: the "
                            "file-size limit" in n and "leaves out the 12 invocation" in n
                            for n in res["notes"]), res["notes"])
        # Each invocation's record is there, once: a journal line until the journal
        # stopped, its own result.json in its directory from then on (a directory
        # without one held nothing: the helper prints nothing, so it has no log).
        runs = os.listdir(self.path("ev", "runs", "a"))
        own = [d for d in runs if os.path.isfile(self.path("ev", "runs", "a", d, "result.json"))]
        self.assertEqual(own, runs)
        with open(self.path("ev", "invocations.jsonl"), "rb") as f:
            # Whole lines only: the line the limit cut short is in its own result.json.
            journaled = [json.loads(x)["dir"] for x in f.read().split(b"\n")[:-1]]
        self.assertEqual(sorted(journaled + ["runs/a/" + d for d in own]),
                         sorted(f"runs/a/run-{i}" for i in range(1, 13)))
        cp = subprocess.run(["sha256sum", "--check", "--strict", "--quiet", "SHA256"],
                            cwd=self.path("ev"), capture_output=True, text=True, timeout=300)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_log_over_the_limit_is_noted_as_incomplete(self):
        plan = helper_plan([("a", [])], runs=1, limits={"log_keep_bytes": 0})
        plan["variants"][0]["command"] = ["sh", "-c", "head -c 300000 /dev/zero"]
        cp = self.run_limited(plan, 200)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertIn("File too large; the rest of the stream is dropped", cp.stderr)
        res = self.load("ev", "result.json")
        inv = res["invocations"][0]
        self.assertEqual(inv["logs"]["stdout"]["bytes_written"], 200 * 1024)
        self.assertEqual(inv["logs"]["stdout"]["bytes_dropped"], 300000 - 200 * 1024)
        self.assertIn(f"{inv['dir']}: test.log is incomplete: writing it failed after 204800 "
                      "bytes", "\n".join(res["notes"]))


class StaleCgroups(AbevTestCase):
    def test_group_of_a_dead_abev_is_removed(self):
        parent = cgroup_parent()
        if parent is None:
            self.skipTest("no cgroup v2 group for abev here")
        dead = subprocess.Popen(["true"])
        dead.wait()
        stale = os.path.join(parent, f"abev-{dead.pid}-1")
        try:
            os.mkdir(stale)
        except OSError as e:
            self.skipTest(f"cannot create a cgroup in {parent}: {e}")
        try:
            p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
            self.abev("run", p, "--out", self.path("ev"), check=0)
            self.assertFalse(os.path.exists(stale), "the stale cgroup is still there")
        finally:
            if os.path.isdir(stale):
                os.rmdir(stale)


class OptionsFirst(AbevTestCase):
    def test_bundle_with_a_wrong_extension_is_refused_before_anything_runs(self):
        marker = self.path("ran")
        plan = helper_plan([("a", ["exit", "0"])])
        plan["versions"] = {"v": ["sh", "-c", f'touch "{marker}"']}
        p = self.write_plan(plan)
        cp = self.abev("run", p, "--out", self.path("ev"), "--bundle", self.path("x.zip"),
                       check=2)
        self.assertIn(".tar.zst or .tar.gz", cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev")))
        self.assertFalse(os.path.exists(marker), "the versions command ran")

    def test_bundle_in_a_missing_directory_is_refused(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        cp = self.abev("run", p, "--out", self.path("ev"), "--bundle",
                       self.path("no", "x.tar.zst"), check=2)
        self.assertIn("No such file or directory", cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev")))

    def test_bundle_inside_the_evidence_is_refused(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        self.abev("run", p, "--out", self.path("ev"), "--bundle",
                  self.path("ev", "x.tar.zst"), check=2)
        self.assertFalse(os.path.exists(self.path("ev")))

    def test_out_under_a_file_is_refused(self):
        with open(self.path("f"), "w") as f:
            f.write("x")
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        cp = self.abev("run", p, "--out", self.path("f", "ev"), check=2)
        self.assertIn("not a directory", cp.stderr)


if __name__ == "__main__":
    unittest.main()
