#!/usr/bin/env python3
"""How long abev takes to exit after SIGINT while it finishes a run's
evidence (issue 40 §3: within 2 s, at any size, the evidence sealed).

Two evidence shapes, each made by a real `abev run` of a plan:
  bytes  12 runs that each leave a 1000 MiB sparse file (12 GiB to hash)
  dirs   12 runs that each leave 5,000 directories of one file each
         (60,000 directories and 60,000 files to walk and hash)
For each, SIGINT is sent at several delays after the last invocation's
record reaches the journal (while abev settles, checks, hashes and seals), and
the time from the signal to abev's exit is measured, with what the
evidence then is: sealed or not, its status, how many paths result.json
names unsealed, and abev verify's exit code. A row with "2nd" sends a
second SIGINT 0.1 s after the first.

Prints a Markdown table. ABEV is the binary (default ./abev); ABEV_OLD, if
set, is measured the same way, row by row after it. SIGNAL_SEAL_DELAYS
(seconds, comma-separated) overrides the delays. Asserts nothing about
time; not run in CI. Needs about 1 GiB of free space under TMPDIR (the
sparse files take none) and a few minutes."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

RUNS = 12
SHAPES = {
    "bytes": 'truncate -s 1000M "$ABEV_RUN_DIR/big.bin"',
    "dirs": ('cd "$ABEV_RUN_DIR" && python3 -c "\nimport os\nfor i in range(5000):\n'
             '    os.mkdir(\'d%d\' % i)\n    open(\'d%d/f\' % i, \'w\').close()\n"'),
}


def plan(path, script):
    p = {"schema": "abev.plan/1", "name": "signal-seal",
         "variants": [{"name": "a", "command": ["sh", "-c", script]}],
         "schedule": {"warmups": 0, "runs": RUNS, "order": "alternate", "seed": 1,
                      "gap_seconds": 0},
         "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0}}
    with open(path, "w") as f:
        json.dump(p, f)


def last_done(out):
    """Whether the last invocation is over: its record is in the journal
    (or, from an abev before issue 41, its own result.json is written)."""
    if os.path.exists(os.path.join(out, "runs", "a", f"run-{RUNS}", "result.json")):
        return True
    try:
        with open(os.path.join(out, "invocations.jsonl"), "rb") as f:
            return f.read().count(b"\n") >= RUNS
    except OSError:
        return False


def one(abev, plan_path, out, delay, second):
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.Popen([abev, "run", plan_path, "--out", out, "--unsigned"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    while p.poll() is None and not last_done(out):
        time.sleep(0.005)
    time.sleep(delay)
    if p.poll() is not None:
        return None
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    if second:
        time.sleep(0.1)
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    p.wait()
    took = time.monotonic() - t0
    sealed = os.path.exists(os.path.join(out, "SHA256"))
    try:
        with open(os.path.join(out, "result.json")) as f:
            res = json.load(f)
        status, unsealed = res.get("status"), len(res.get("unsealed", []))
    except (OSError, ValueError):
        status, unsealed = "?", 0
    v = subprocess.run([abev, "verify", out], capture_output=True).returncode
    return took, p.returncode, sealed, status, unsealed, v


def main():
    abev = os.path.abspath(os.environ.get("ABEV", "./abev"))
    binaries = [("abev", abev)]
    if os.environ.get("ABEV_OLD"):
        binaries.append(("before", os.path.abspath(os.environ["ABEV_OLD"])))
    delays = [float(d) for d in os.environ.get("SIGNAL_SEAL_DELAYS", "0,0.5,1,2,4").split(",")]
    tmp = tempfile.mkdtemp(prefix="abev-signal-seal-")
    print("| evidence | binary | signal after the last invocation | signals | exit after the "
          "signal | exit code | sealed | status | unsealed paths | verify |")
    print("|---|---|---:|---:|---:|---:|---|---|---:|---:|")
    try:
        for shape, script in SHAPES.items():
            plan_path = os.path.join(tmp, shape + ".json")
            plan(plan_path, script)
            for delay in delays:
                for second in (False, True):
                    for label, binary in binaries:
                        r = one(binary, plan_path, os.path.join(tmp, "ev"), delay, second)
                        if r is None:
                            print(f"| {shape} | {label} | {delay} s | {1 + second} | "
                                  "(finished before the signal) | | | | | |")
                            continue
                        took, rc, sealed, status, unsealed, v = r
                        print(f"| {shape} | {label} | {delay} s | {1 + second} | {took:.2f} s | "
                              f"{rc} | {'yes' if sealed else '**no**'} | {status} | {unsealed} | "
                              f"{v} |", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
