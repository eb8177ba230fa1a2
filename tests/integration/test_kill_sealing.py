"""Integration tests of abev killed while it writes and seals the evidence at
the end of a run. strace stops abev with SIGKILL at each of its renames in
turn (every file abev writes is put in place by a rename), and at each the
evidence must say what it is: a final status (completed, failed) in
result.json or report.md only in evidence that verifies, and "UNFINISHED"
from abev verify, with the files left named, when abev stopped between
writing the seal and putting the final files in place. Before the final
files were staged, a kill just before SHA256 left result.json "completed"
and report.md "Signed:" in evidence without a manifest.

Needs strace (skipped with a message without it)."""
import json
import os
import re
import shutil
import subprocess
import unittest

from common import ABEV, SANITIZED, AbevTestCase

STRACE = shutil.which("strace")


def traced_env():
    """The environment of an abev run under strace: LeakSanitizer cannot run
    under ptrace (it stops with a fatal error), so leaks are checked by every
    other test of an ASan build, not these."""
    env = dict(os.environ)
    if SANITIZED:
        opts = env.get("ASAN_OPTIONS", "")
        env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "detect_leaks=0"
    return env
RENAMES = "rename,renameat,renameat2"
# One run of each command, none discarded and repeated for load, nor waited
# for: the k-th rename must be the same one in every run, also on a busy host.
BENCH = ["-r", "1", "-n", "a", "-n", "b", "--max-cpu-wait-pct", "100", "--max-load-wait", "0"]
FINAL = {"completed", "failed", "interrupted"}


@unittest.skipUnless(STRACE, "strace is not installed (apt-get install strace)")
class KillWhileSealing(AbevTestCase):
    def setUp(self):
        super().setUp()
        self.abev("keygen", "--out", self.path("key"), check=0)
        self.key, self.pub = self.path("key.key"), self.path("key.pub")

    def bench(self, out, *strace_args):
        """abev bench of two tiny commands under strace (abev's own process
        only: its children are not traced); returns the exit code."""
        cmd = [STRACE, "-o", os.devnull, *strace_args, ABEV, "bench", *BENCH, "--key",
               self.key, "--out", out, "true", "true"]
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=300,
                              env=traced_env()).returncode

    def count_renames(self):
        trace = self.path("trace")
        out = self.path("counted")
        cmd = [STRACE, "-o", trace, "-e", f"trace={RENAMES}", ABEV, "bench", *BENCH,
               "--key", self.key, "--out", out, "true", "true"]
        cp = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=300, env=traced_env())
        self.assertEqual(cp.returncode, 0, cp.stderr)
        with open(trace) as f:
            calls = [l for l in f if re.match(r"rename(at2?)?\(", l)]
        self.assertTrue(any('"SHA256"' in l for l in calls), calls[-5:])
        shutil.rmtree(out)
        return len(calls)

    @staticmethod
    def status_of(ev):
        try:
            with open(os.path.join(ev, "result.json"), encoding="utf-8") as f:
                return json.load(f)["status"]
        except OSError:
            return None

    @staticmethod
    def report_status(ev):
        try:
            with open(os.path.join(ev, "report.md"), encoding="utf-8") as f:
                m = re.search(r"^- Status: ([a-z]+)", f.read(), re.M)
            return m.group(1) if m else None
        except OSError:
            return None

    def test_a_kill_at_any_rename_never_leaves_a_final_status_unsealed(self):
        n = self.count_renames()
        unfinished = 0
        for k in range(1, n + 1):
            ev = self.path(f"ev-{k}")
            rc = self.bench(ev, "-e", f"trace={RENAMES}",
                            "-e", f"inject={RENAMES}:signal=KILL:when={k}")
            self.assertNotEqual(rc, 0, f"abev was not killed at rename {k} of {n}")
            if not os.path.isdir(ev):
                continue
            v = self.abev("verify", ev, "--pubkey", self.pub)
            what = (f"killed at rename {k} of {n}: result.json {self.status_of(ev)}, "
                    f"report.md {self.report_status(ev)}\n{v.stdout}")
            left = sorted(f for f in os.listdir(ev) if f.endswith(".sealing"))
            if self.status_of(ev) in FINAL:
                self.assertEqual(v.returncode, 0, what)
            if self.report_status(ev) in FINAL and v.returncode != 0:
                # Between the last two renames only: report.md is in place,
                # result.json (the record) is not, and verify says why.
                self.assertEqual(left, ["result.json.sealing"], what)
            if left:
                unfinished += 1
                self.assertEqual(v.returncode, 4, what)
                self.assertIn("verdict:     UNFINISHED", v.stdout, what)
                for name in left:
                    self.assertIn(f"problem:     {name}: left by abev stopped while sealing",
                                  v.stdout, what)
                self.assertEqual(self.status_of(ev), "running", what)
                # Nothing renders evidence cut short after its seal was written;
                # before, it renders as never sealed, and says so.
                r = self.abev("report", ev)
                if os.path.exists(os.path.join(ev, "SHA256")):
                    self.assertEqual(r.returncode, 4, r.stderr)
                    self.assertIn("is unfinished: abev stopped while sealing it", r.stderr)
                else:
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertIn("was never sealed", r.stderr)
            if v.returncode != 0:
                self.assertNotIn(self.status_of(ev), FINAL, what)
            shutil.rmtree(ev)
        # The kills at the seal's own renames and the staged files' left it unfinished.
        self.assertGreaterEqual(unfinished, 2)

    def test_a_seal_that_fails_with_abev_alive_says_failed_in_place(self):
        n = self.count_renames()
        # The rename that puts SHA256 in place (third from last: then report.md, result.json)
        # fails; abev is alive to say so.
        ev = self.path("ev")
        rc = self.bench(ev, "-e", f"trace={RENAMES}",
                        "-e", f"inject={RENAMES}:error=EIO:when={n - 3}")
        self.assertEqual(rc, 3)
        self.assertEqual(self.status_of(ev), "failed")
        self.assertEqual(self.report_status(ev), "failed")
        self.assertEqual(sorted(f for f in os.listdir(ev) if f.endswith(".sealing")), [])
        self.assertFalse(os.path.exists(os.path.join(ev, "SHA256")))
        self.assertFalse(os.path.exists(os.path.join(ev, "SHA256.sig")))
        with open(os.path.join(ev, "result.json"), encoding="utf-8") as f:
            self.assertIn("the evidence could not be sealed", f.read())
        v = self.abev("verify", ev, "--pubkey", self.pub)
        self.assertEqual(v.returncode, 4)
        self.assertIn("never sealed (result.json status: failed)", v.stdout)


if __name__ == "__main__":
    unittest.main()
