"""Integration tests of a signal while abev finishes a run's evidence: the
walks, the hashing and the pack stop at once, the evidence is sealed from
what abev had read — never read again — and names what it had not read in
result.json's "unsealed"; a second and third signal never leave it without
a seal. Before, a signal while hashing made abev write the evidence again
and hash all of it from the start (12 runs of 1000 MiB kept it running 93 s
after SIGINT), 60,000 directories were walked again after it, and a second
signal left the evidence with no manifest.

strace makes the facts deterministic on a busy machine: it slows abev's
reads so that a signal always comes while the seal hashes, and delivers a
signal at a chosen system call; what abev did after the signal is counted
in the same trace, never timed. Needs strace (skipped with a message
without it)."""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import unittest

from common import ABEV, AbevTestCase, helper_plan
from test_kill_sealing import traced_env

STRACE = shutil.which("strace")
MiB = 1 << 20
# The line strace writes when a traced thread is sent SIGINT.
SIGINT_LINE = re.compile(r"--- SIGINT ")
# abev's seal opens each file beneath the evidence root, read-only.
SEAL_OPEN = re.compile(r'openat2?\(\d+, "(runs/[^"]+)", \{?flags=O_RDONLY')


def manifest_names(ev):
    with open(os.path.join(ev, "SHA256"), encoding="utf-8") as f:
        return {re.match(r"SHA256 \((.*)\) = [0-9a-f]{64}$", l).group(1) for l in f}


def files_in(ev):
    out = set()
    for d, _, files in os.walk(ev):
        for f in files:
            out.add(os.path.relpath(os.path.join(d, f), ev))
    return out - {"SHA256", "SHA256.sig"}


def covered(name, unsealed):
    return any(name == u or name.startswith(u + "/") for u in unsealed)


@unittest.skipUnless(STRACE, "strace is not installed (apt-get install strace)")
class SignalWhileSealing(AbevTestCase):
    def plan(self, script, runs, **extra):
        p = helper_plan([("a", [])], runs=runs, **extra)
        p["variants"][0]["command"] = ["sh", "-c", script]
        return self.write_plan(p)

    def traced(self, plan, strace_args, *extra):
        """abev run of plan under strace (-f: the hashing threads too);
        returns the Popen and the trace's path."""
        trace = self.path("trace")
        cmd = [STRACE, "-f", "-o", trace, *strace_args, ABEV, "run", plan, "--out",
               self.path("ev"), *extra]
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=traced_env())
        return p, trace

    @staticmethod
    def abev_pid(trace):
        """The traced abev: the process of the trace's first line (strace's own
        children include the short-lived ones it tests ptrace with)."""
        for _ in range(3000):
            try:
                with open(trace) as f:
                    first = f.readline()
                if first.endswith("\n"):
                    return int(first.split()[0])
            except OSError:
                pass
            time.sleep(0.01)
        raise AssertionError("strace never started abev")

    @staticmethod
    def wait_for_line(trace, pattern, proc, timeout=600):
        """Waits until a line of the trace matches pattern (a watchdog, not a bound)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with open(trace, errors="replace") as f:
                    if any(pattern.search(l) for l in f):
                        return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    @staticmethod
    def after_signal(trace):
        """The trace's lines after the first SIGINT abev was sent."""
        with open(trace, errors="replace") as f:
            lines = f.readlines()
        at = next(i for i, l in enumerate(lines) if SIGINT_LINE.search(l))
        return lines[at + 1:]

    def finish(self, proc):
        try:
            out, err = proc.communicate(timeout=600)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        return out, err

    def assert_sealed_with_unsealed(self, err):
        """Sealed, interrupted, and every file either listed or named unread."""
        ev = self.path("ev")
        self.assertTrue(os.path.isfile(os.path.join(ev, "SHA256")), err)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "interrupted", res["notes"])
        self.assertEqual(res["interrupt"], "SIGINT")
        listed = manifest_names(ev)
        for name in files_in(ev):
            self.assertTrue(name in listed or covered(name, res["unsealed"]),
                            f"{name}: neither listed in SHA256 nor named unsealed")
        for u in res["unsealed"]:
            # A file named is not listed; a directory stands for what is not.
            self.assertTrue(u.startswith("runs/"), u)
            self.assertNotIn(u, listed)
        cp = self.abev("verify", ev)
        self.assertEqual(cp.returncode, 8, cp.stdout + cp.stderr)
        return res

    def test_a_signal_while_hashing_reads_nothing_more(self):
        # 3 runs of 64 MiB, each read of the seal's slowed to 20 ms: SIGINT as
        # soon as the seal opens a run's file. After it no run's file is opened,
        # and at most one read per hashing thread finishes.
        plan = self.plan('truncate -s 64M "$ABEV_RUN_DIR/big.bin"', 3)
        proc, trace = self.traced(plan, ["-e", "trace=openat,openat2,read",
                                         "-e", "inject=read:delay_exit=20000"], "--unsigned")
        pid = self.abev_pid(trace)
        self.assertTrue(self.wait_for_line(trace, re.compile(r'openat2?\(\d+, "runs/a/run-\d+/'
                                                             r'big\.bin", \{flags=O_RDONLY'),
                                           proc), "the seal never read a run's file")
        os.kill(pid, signal.SIGINT)
        out, err = self.finish(proc)
        self.assertEqual(proc.returncode, 128 + signal.SIGINT, err)
        after = self.after_signal(trace)
        opened = [l for l in after if SEAL_OPEN.search(l)]
        self.assertEqual(opened, [], "abev read the runs' files again after the signal")
        reads = [l for l in after if re.search(r"read\(\d+, .*, 1048576\) = 1048576", l)]
        self.assertLessEqual(len(reads), os.cpu_count(), reads[:5])
        res = self.assert_sealed_with_unsealed(err)
        self.assertTrue(any(u.endswith("big.bin") or u.startswith("runs/a/run-")
                            for u in res["unsealed"]), res["unsealed"])
        self.assertTrue(any("named in result.json's \"unsealed\"" in n for n in res["notes"]),
                        res["notes"])

    def test_more_signals_never_leave_it_unsealed(self):
        # The seal after the first signal, slowed at each rename, gets two more.
        plan = self.plan('truncate -s 64M "$ABEV_RUN_DIR/big.bin"', 2)
        proc, trace = self.traced(plan, ["-e", "trace=openat,openat2,read,rename,renameat,renameat2",
                                         "-e", "inject=read:delay_exit=20000",
                                         "-e", "inject=rename,renameat,renameat2:delay_enter=200000"],
                                  "--unsigned")
        pid = self.abev_pid(trace)
        self.assertTrue(self.wait_for_line(trace, re.compile(r'openat2?\(\d+, "runs/a/run-\d+/'
                                                             r'big\.bin", \{flags=O_RDONLY'),
                                           proc), "the seal never read a run's file")
        for _ in range(3):
            if proc.poll() is not None:
                break
            os.kill(pid, signal.SIGINT)
            time.sleep(0.3)
        out, err = self.finish(proc)
        self.assertEqual(proc.returncode, 128 + signal.SIGINT, err)
        self.assert_sealed_with_unsealed(err)

    def test_a_signal_while_packing_stops_the_pack(self):
        # --bundle: SIGINT once the pack has opened its temporary file. The pack
        # stops and removes it, the evidence is sealed again as interrupted, and
        # nothing is packed then (abev pack packs it as sealed).
        plan = self.plan('truncate -s 64M "$ABEV_RUN_DIR/big.bin"', 1)
        bundle = self.path("ev.tar.zst")
        proc, trace = self.traced(plan, ["-e", "trace=openat,openat2,read",
                                         "-e", "inject=read:delay_exit=20000"],
                                  "--unsigned", "--bundle", bundle)
        pid = self.abev_pid(trace)
        self.assertTrue(self.wait_for_line(trace, re.compile(r"ev\.tar\.zst\.tmp-"), proc),
                        "the pack never started")
        os.kill(pid, signal.SIGINT)
        out, err = self.finish(proc)
        self.assertEqual(proc.returncode, 128 + signal.SIGINT, err)
        self.assertEqual([f for f in os.listdir(self.tmp) if f.startswith("ev.tar.zst")], [])
        self.assertIn("was not packed: abev received SIGINT while it finished the evidence", err)
        self.assert_sealed_with_unsealed(err)
        self.assertEqual(self.load("ev", "result.json")["unsealed"], [])
        cp = self.abev("pack", self.path("ev"), "--out", bundle)
        self.assertEqual(cp.returncode, 0, cp.stderr)

    def test_a_signal_right_after_the_last_invocation_is_not_lost(self):
        # SIGINT delivered as abev appends the last invocation's record to the
        # journal: the invocation is over, and abev has not yet begun to finish
        # the evidence. Before, nothing took that signal — the runs were over
        # and the stop was armed only later, from the count it found — so abev
        # wrote and sealed everything, said "completed" and exited 0.
        runs = 3
        plan = self.plan(': > "$ABEV_RUN_DIR/out.txt"', runs)
        ev = self.path("ev")
        journal = os.path.join(ev, "invocations.jsonl")
        cp = subprocess.run([STRACE, "-o", self.path("trace"), "-P", journal,
                             "-e", "trace=write,pwrite64,writev",
                             "-e", f"inject=write,pwrite64,writev:signal=INT:when={runs}",
                             ABEV, "run", plan, "--out", ev, "--unsigned"],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=600, env=traced_env())
        with open(self.path("trace"), errors="replace") as f:
            self.assertEqual(sum(1 for l in f if SIGINT_LINE.search(l)), 1,
                             "strace did not deliver the signal at the journal's last line")
        self.assertEqual(cp.returncode, 128 + signal.SIGINT, cp.stderr)
        res = self.assert_sealed_with_unsealed(cp.stderr)
        self.assertEqual(len(res["invocations"]), runs)
        self.assertTrue(all(i["status"] == "ok" for i in res["invocations"]),
                        [i["status"] for i in res["invocations"]])
        self.assertTrue(any("after the last invocation" in n for n in res["notes"]),
                        res["notes"])
        self.assertEqual(res["comparison"]["decision"], "no decision")

    def count_calls(self, plan, syscall):
        """The times abev's main thread made syscall in a whole run of plan."""
        trace = self.path("count")
        cp = subprocess.run([STRACE, "-o", trace, "-e", f"trace={syscall}", ABEV, "run", plan,
                             "--out", self.path("counted"), "--unsigned"],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=600, env=traced_env())
        self.assertEqual(cp.returncode, 0, cp.stderr)
        shutil.rmtree(self.path("counted"))
        with open(trace) as f:
            return sum(1 for l in f if l.startswith(syscall + "("))

    def test_a_signal_while_walking_walks_nothing_more(self):
        # 2,000 directories of one file each: SIGINT delivered at a getdents64 of
        # the walks that finish the evidence (the last ones of the run). After
        # it, a walk under way stops and no other starts: a few calls, not the
        # thousands of walking it all again.
        script = ('cd "$ABEV_RUN_DIR" && i=0; while [ $i -lt 2000 ]; do mkdir d$i && '
                  ': > d$i/f; i=$((i+1)); done')
        plan = self.plan(script, 1)
        n = self.count_calls(plan, "getdents64")
        tried = 0
        for k in (n - 5, n * 9 // 10, n * 3 // 4):
            ev = self.path("ev")
            if os.path.exists(ev):
                shutil.rmtree(ev)
            trace = self.path("trace")
            cp = subprocess.run([STRACE, "-o", trace, "-e", "trace=getdents64",
                                 "-e", f"inject=getdents64:signal=INT:when={k}", ABEV, "run",
                                 plan, "--out", ev, "--unsigned"],
                                stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=600, env=traced_env())
            res = self.load("ev", "result.json")
            if not any("after the last invocation" in x for x in res["notes"]):
                continue   # the signal came while the run went on: another test's case
            tried += 1
            self.assertEqual(cp.returncode, 128 + signal.SIGINT, cp.stderr)
            walked = [l for l in self.after_signal(trace) if l.startswith("getdents64(")]
            self.assertLessEqual(len(walked), 8, f"at call {k} of {n}: {len(walked)} more")
            self.assert_sealed_with_unsealed(cp.stderr)
        self.assertGreater(tried, 0, f"no signal of {n} calls came after the last invocation")


if __name__ == "__main__":
    unittest.main()
