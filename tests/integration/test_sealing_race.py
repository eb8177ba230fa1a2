"""Integration tests of a process outside the run that rewrites abev's files
while abev writes and seals them (issue 40 §1). abev used to write
result.json.sealing, report.md.sealing, the plots and metadata.json, then read
them back from disk to hash them: a racer that rewrote "rejected" as
"accepted" in place in that window had its bytes signed, and abev verify said
"verified". Now every file abev writes is hashed from the bytes it wrote, and
the seal holds what it reads against them: a change found while sealing is
recorded and the evidence sealed again as failed, and one after that is never
signed (abev verify fails on it).

strace widens the window (each rename abev makes waits a moment after it), so
that the racer wins it on any machine; without strace the test is skipped."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import unittest

import hashlib

from common import ABEV, SANITIZED, SRC, AbevTestCase, helper_plan

GEN = os.path.join(SRC, "tests", "helpers", "gen_results.py")

STRACE = shutil.which("strace")
# How many times the racer of abev's own files tries (each run under strace).
TRIES = int(os.environ.get("ABEV_RACE_TRIES", "3"))
RENAMES = "rename,renameat,renameat2"

# Polls the evidence directory and rewrites, in place and with the same length,
# every "rejected" in abev's top-level files and the plots as "accepted"; counts
# its rewrites in argv[2]. A process of abev's user that is no part of the run.
RACER = r'''
import os, sys, time
root, count = sys.argv[1], sys.argv[2]
n = 0
while True:
    names = []
    try:
        names = [n_ for n_ in os.listdir(root) if n_ != "SHA256" and n_ != "SHA256.sig"]
        names += [os.path.join("plots", p) for p in os.listdir(os.path.join(root, "plots"))]
    except OSError:
        pass
    for name in names:
        p = os.path.join(root, name)
        try:
            with open(p, "r+b") as f:
                data = f.read()
                if b"rejected" not in data:
                    continue
                f.seek(0)
                f.write(data.replace(b"rejected", b"accepted"))
            n += 1
            with open(count, "w") as c:
                c.write(str(n))
        except OSError:
            pass
    time.sleep(0.0005)
'''


# Rewrites, in place and with the same length, each of a run's files whose
# name matches argv[3] (a regular expression) once abev has read it for its
# figures: once the run's record is in the journal (its "dir"), which abev
# appends after judging the run and before it notes the run directory as
# final (or, from an abev before issue 41, once the run's own result.json is
# there). argv[4] becomes argv[5] ("t=1" as "t=9": "t=100" reads "t=900").
# Counts its rewrites in argv[2].
RUN_FILE_RACER = r'''
import json, os, re, sys, time
root, count, name, old, new = sys.argv[1:6]
name, old, new = re.compile(name), old.encode(), new.encode()
done, n = set(), 0

def recorded():
    """The run directories the journal has a record of."""
    dirs = set()
    try:
        with open(os.path.join(root, "invocations.jsonl"), "rb") as f:
            for line in f.read().split(b"\n")[:-1]:
                try:
                    dirs.add(os.path.join(root, json.loads(line)["dir"]))
                except (ValueError, KeyError, TypeError):
                    pass
    except OSError:
        pass
    return dirs

while True:
    journaled = recorded()
    for d, _, names in os.walk(os.path.join(root, "runs")):
        if d in done or (d not in journaled and "result.json" not in names):
            continue
        done.add(d)
        for f_ in names:
            if not name.fullmatch(f_):
                continue
            try:
                with open(os.path.join(d, f_), "r+b") as f:
                    data = f.read()
                    if old not in data:
                        continue
                    f.seek(0)
                    f.write(data.replace(old, new))
                n += 1
                with open(count, "w") as c:
                    c.write(str(n))
            except OSError:
                pass
    time.sleep(0.0005)
'''
LOG_RACER = [RUN_FILE_RACER, r"test\.log", "t=1", "t=9"]
# The same for the .NET runtime figure files: 100 collections read 900.
DOTNET_RACER = [RUN_FILE_RACER, r"dotnet-[0-9]+\.json", '"gc_gen0": 1', '"gc_gen0": 9']


def traced_env():
    """LeakSanitizer cannot run under ptrace: leaks are checked by the other tests."""
    env = dict(os.environ)
    if SANITIZED:
        opts = env.get("ASAN_OPTIONS", "")
        env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "detect_leaks=0"
    return env


def echo_round(values):
    vals = " ".join(str(v) for v in values)
    return f'set -- {vals}; shift $((ABEV_ROUND - 1)); echo "t=$1"'


@unittest.skipUnless(STRACE, "strace is not installed (apt-get install strace)")
class RacerWhileSealing(AbevTestCase):
    def setUp(self):
        super().setUp()
        self.abev("keygen", "--out", self.path("k"), check=0)
        # Twice the figure in every round against a 5 % gate: rejected, exit 5.
        self.plan = self.write_plan({
            "schema": "abev.plan/1", "name": "race",
            "variants": [{"name": "base", "command": ["sh", "-c", echo_round([100] * 7)]},
                         {"name": "cand", "command": ["sh", "-c", echo_round([200] * 7)]}],
            "schedule": {"runs": 7, "order": "reverse"},
            "metrics": [{"name": "t", "source": "stdout", "unit": "ms",
                         "pattern": "t=([0-9.]+)"}],
            "gates": {"t": {"max_regression_pct": 5}},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        })

    def run_raced(self, ev, delay_us, racer=(RACER,), plan=None, env=None):
        """abev run of plan (None: the setUp's) under strace, each rename
        followed by delay_us, beside the racer (its source and arguments after
        the evidence directory and its count file); returns (abev's exit code,
        the racer's rewrites)."""
        os.mkdir(ev)
        os.rmdir(ev)
        count = ev + ".count"
        racer = subprocess.Popen([sys.executable, "-c", racer[0], ev, count, *racer[1:]],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        try:
            cmd = [STRACE, "-o", os.devnull, "-e", f"trace={RENAMES}",
                   "-e", f"inject={RENAMES}:delay_exit={delay_us}",
                   ABEV, "run", plan or self.plan, "--out", ev, "--key", self.path("k.key")]
            cp = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=600, env={**traced_env(), **(env or {})})
        finally:
            racer.send_signal(signal.SIGKILL)
            racer.wait()
        try:
            with open(count) as f:
                hits = int(f.read() or 0)
        except OSError:
            hits = 0
        return cp, hits

    def raced(self, ev, delay_us, *args):
        """run_raced(), then abev verify of the evidence against the key:
        (abev's run, the racer's rewrites, verify's run, result.json, and
        the text of all three for an assertion's message)."""
        cp, n = self.run_raced(ev, delay_us, *args)
        v = self.abev("verify", ev, "--pubkey", self.path("k.pub"))
        what = f"racer rewrites: {n}\n{cp.stdout}\n{cp.stderr}\n{v.stdout}{v.stderr}"
        with open(os.path.join(ev, "result.json"), encoding="utf-8") as f:
            return cp, n, v, json.load(f), what

    def test_a_racer_never_gets_its_bytes_signed(self):
        # Three tries by default, one per delay; the measure is 20
        # (ABEV_RACE_TRIES=20), which takes about three minutes.
        hits = 0
        delays = (20000, 100000, 300000)
        for i in range(TRIES):
            delay = delays[i % len(delays)]
            with self.subTest(attempt=i + 1, delay_us=delay):
                ev = self.path(f"ev-{i}")
                cp, n, v, res, what = self.raced(ev, delay)
                hits += n
                self.assertIn(cp.returncode, (1, 3, 5), what)
                decision = (res.get("comparison") or {}).get("decision")
                if "content changed" not in v.stdout:
                    # The signature line says the runs ran as abev's own user.
                    with open(os.path.join(ev, "report.md"), encoding="utf-8") as f:
                        self.assertIn("The runs were not trusted apart: they ran as abev's "
                                      "own user (no `run_as`)", f.read(), what)
                if v.returncode in (0, 8):
                    # As sealed: abev's record, which says rejected, or failed with
                    # each change the racer made named.
                    self.assertNotEqual(decision, "accepted", what)
                    self.assertIn(res["status"], ("completed", "failed"), what)
                    if n:
                        self.assertEqual(v.returncode, 8, what)
                        self.assertEqual(res["status"], "failed", what)
                        self.assertTrue(any("while abev sealed" in t or "changed after abev "
                                            "wrote it" in t for t in res["tampered"]), what)
                else:
                    # Not as sealed: what the racer wrote is named, never "verified".
                    self.assertNotIn("verified", v.stdout, what)
                    self.assertIn("content changed", v.stdout, what)
        # The racer must have had its chance, or this proves nothing.
        self.assertGreater(hits, 0, "the racer never rewrote a file")

    def test_a_log_rewritten_after_its_figures_were_read_is_never_signed(self):
        # A metric's figures come from test.log: the bytes sealed must be the ones
        # read. abev read the log for the metric, and noted the run directory as
        # final only later, by the identity of its files: a rewrite in between was
        # sealed and signed as the run's own output, its figures not what it says.
        hits = 0
        for i, delay in enumerate((20000, 100000)):
            with self.subTest(delay_us=delay):
                ev = self.path(f"ev-{i}")
                cp, n, v, res, what = self.raced(ev, delay, LOG_RACER)
                hits += n
                self.assertIn(cp.returncode, (1, 3, 5), what)
                if v.returncode == 0:
                    # Verified: every figure is what the sealed log says.
                    for inv in res["invocations"]:
                        if not inv.get("metrics"):
                            continue
                        with open(os.path.join(ev, inv["dir"], "test.log"), "rb") as f:
                            said = f.read().decode()
                        got = inv["metrics"].get("t")
                        if got is not None:
                            self.assertEqual(said, f"t={got:g}\n", (inv["dir"], what))
                else:
                    # Not clean: each log rewritten after abev read it is named.
                    self.assertEqual(v.returncode, 8, what)
                    self.assertEqual(res["status"], "failed", what)
                    self.assertTrue(any("test.log: changed after abev read its figures"
                                        in t for t in res["tampered"]), what)
        self.assertGreater(hits, 0, "the racer never rewrote a log")

    def test_a_dotnet_figure_file_rewritten_after_it_was_read_is_never_signed(self):
        # The startup hook's dotnet-<pid>.json are a metric's source as a log is:
        # abev read them for the figures and noted the run directory as final
        # later, by the identity of its files, so a rewrite in between was signed
        # beside figures it does not say. The command writes the file the hook
        # would (no .NET needed); the hook abev adds is any regular file.
        hook = self.path("hook.dll")
        with open(hook, "w") as f:
            f.write("not loaded: no .NET process runs\n")
        figures = {"schema": "abev.dotnet-runtime/1", "pid": "PID", "process": "testhost",
                   "gc_gen0": 0, "gc_gen1": 0, "gc_gen2": 0, "gc_pause_us": 0,
                   "allocated_bytes": 0, "peak_heap_bytes": 0, "lock_contentions": 0,
                   "threadpool_items": 0, "jit_methods": 0, "jit_time_us": 0}

        def writes(gen0):
            # The file as the hook writes it, with the shell's pid.
            tmpl = self.path(f"dotnet-{gen0}.tmpl")
            with open(tmpl, "w", encoding="utf-8") as f:
                json.dump({**figures, "gc_gen0": gen0}, f)
            return ["sh", "-c", f"sed \"s/\\\"PID\\\"/$$/\" '{tmpl}' > "
                    "\"$ABEV_RUN_DIR/dotnet-$$.json\""]
        plan = self.write_plan({
            "schema": "abev.plan/1", "name": "race-dotnet", "dotnet_runtime": True,
            "variants": [{"name": "base", "command": writes(100)},
                         {"name": "cand", "command": writes(200)}],
            "schedule": {"runs": 7, "order": "reverse"},
            "metrics": [{"name": "gen0", "source": "dotnet", "field": "gc_gen0"}],
            "gates": {"gen0": {"max_regression_pct": 5}},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }, name="dotnet.json")
        hits = 0
        for i, delay in enumerate((20000, 100000)):
            with self.subTest(delay_us=delay):
                ev = self.path(f"ev-{i}")
                cp, n, v, res, what = self.raced(ev, delay, DOTNET_RACER, plan,
                                                 {"ABEV_DOTNET_HOOK": hook})
                hits += n
                self.assertIn(cp.returncode, (1, 3, 5), what)
                if v.returncode == 0:
                    # Verified: every figure is what the sealed file says.
                    for inv in res["invocations"]:
                        got = (inv.get("metrics") or {}).get("gen0")
                        if got is None:
                            continue
                        files = glob.glob(os.path.join(ev, inv["dir"], "dotnet-*.json"))
                        self.assertEqual(len(files), 1, (inv["dir"], what))
                        with open(files[0], encoding="utf-8") as f:
                            said = json.load(f)["gc_gen0"]
                        self.assertEqual(said, got, (inv["dir"], what))
                else:
                    # Not clean: each file rewritten after abev read it is named.
                    self.assertEqual(v.returncode, 8, what)
                    self.assertEqual(res["status"], "failed", what)
                    self.assertTrue(any(re.search(r"dotnet-[0-9]+\.json: changed after abev "
                                                  r"read its figures", t)
                                        for t in res["tampered"]), what)
        self.assertGreater(hits, 0, "the racer never rewrote a figure file")

    def test_a_stderr_log_rewritten_after_its_tail_was_read_is_never_signed(self):
        # A run that failed has the end of its stderr.log in result.json
        # (stderr_tail): abev read it before it noted the run directory as final,
        # so a rewrite in between was signed beside a tail it does not end with.
        cmd = ["sh", "-c", "echo 'it broke: code=1234' >&2; exit 3"]
        plan = self.write_plan({
            "schema": "abev.plan/1", "name": "race-stderr",
            "variants": [{"name": "base", "command": cmd}, {"name": "cand", "command": cmd}],
            "schedule": {"runs": 3},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }, name="stderr.json")
        racer = [RUN_FILE_RACER, r"stderr\.log", "code=1", "code=9"]
        hits = 0
        for i, delay in enumerate((20000, 100000)):
            with self.subTest(delay_us=delay):
                ev = self.path(f"ev-{i}")
                cp, n, v, res, what = self.raced(ev, delay, racer, plan)
                hits += n
                self.assertIn(v.returncode, (0, 8), what)
                tails = [inv for inv in res["invocations"] if inv.get("stderr_tail")]
                self.assertTrue(tails, what)
                for inv in tails:
                    with open(os.path.join(ev, inv["dir"], "stderr.log"), "rb") as f:
                        said = f.read().decode().strip()
                    if said == inv["stderr_tail"]:
                        continue
                    # A tail the sealed log does not end with: the change is named.
                    self.assertEqual(v.returncode, 8, (inv["dir"], what))
                    self.assertEqual(res["status"], "failed", what)
                    # Found by the check before the seal, or by the seal itself.
                    self.assertRegex("\n".join(res["tampered"]), re.escape(
                        f"{inv['dir']}/stderr.log: changed ") + "(while abev sealed the "
                        "evidence, )?after abev read", what)
        self.assertGreater(hits, 0, "the racer never rewrote a log")


class ReadOnceSealedAsRead(AbevTestCase):
    def test_a_result_file_is_hashed_in_the_read_its_figures_come_from(self):
        # The figures in result.json and the bytes in the manifest are the same input.
        tmpl = self.path("t.trx")
        subprocess.run([sys.executable, GEN, "trx", tmpl, "--results", "5"], check=True,
                       capture_output=True)
        plan = helper_plan([("a", [])], results={"files": "{run_dir}/*.trx",
                                                 "known_failures": ["*"]})
        plan["variants"][0]["command"] = ["sh", "-c", f"cp '{tmpl}' \"$ABEV_RUN_DIR/a.trx\""]
        _, res = self.run_plan(plan, 0)
        f = res["invocations"][0]["results"][0]
        with open(tmpl, "rb") as t:
            self.assertEqual(f["sha256"], hashlib.sha256(t.read()).hexdigest())
        with open(self.path("ev", "SHA256"), encoding="utf-8") as m:
            self.assertIn(f"SHA256 ({f['path']}) = {f['sha256']}\n", m.read())
        # Unsigned and clean: exit 7, the seal intact.
        cp = self.abev("verify", self.path("ev"))
        self.assertEqual(cp.returncode, 7, cp.stdout + cp.stderr)


if __name__ == "__main__":
    unittest.main()
