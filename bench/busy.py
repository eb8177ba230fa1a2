#!/usr/bin/env python3
"""make bench-busy: what abev answers on a machine that is never quiet.

Starts one busy loop per core (as ../shared/tools/check-busy.sh does), then,
beside them, runs the scenarios of issue 28's "Done when" with the real
binary and counts outcomes, never timings:

  1. the README's quick start (gzip -1 against gzip -9, -r 10): does it answer
     with figures, exit 0?
  2. A/A: the same CPU-bound command (abev-helper spin) against itself with a
     10 % wall gate and --until-decided 24, BENCH_BUSY_TRIES times (default
     20): how often is it rejected? (must be never)
  3. a true 1.5x CPU-bound regression (spin 200 against spin 300), same gate,
     3 times: is it rejected?
  4. where dotnet and the fixtures `make check-dotnet` builds are here
     (build/dotnet/base, or $ABEV_DOTNET_FIXTURES): a real `dotnet test` A/A
     comparison with `abev init --dotnet`'s plan, beside one busy loop (the
     others stopped first): does it decide?

Prints the section as Markdown and writes it into bench/results.md under
BUSY_HEADING (before the calibration section; make bench keeps both).
Needs $ABEV and $ABEV_HELPER (the Makefile sets them).
"""
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ABEV = os.environ.get("ABEV", "")
HELPER = os.environ.get("ABEV_HELPER", "")
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "results.md")
BUSY_HEADING = "\n## Busy machine (issue 28)\n"
CALIBRATION_HEADING = "\n## Gate calibration (simulation)\n"


def loops_start(n):
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(n)]


def loops_stop(procs):
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def bench(args, cwd):
    """Runs abev bench ARGS in cwd; returns (exit code, stdout, result.json, seconds)."""
    out = os.path.join(cwd, "ev-%d" % time.monotonic_ns())
    t0 = time.monotonic()
    cp = subprocess.run([ABEV, "bench", *args, "--out", out, "--unsigned"], cwd=cwd,
                        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=3600)
    took = time.monotonic() - t0
    res = None
    try:
        with open(os.path.join(out, "result.json"), encoding="utf-8") as f:
            res = json.load(f)
    except OSError:
        pass
    shutil.rmtree(out, ignore_errors=True)
    return cp.returncode, cp.stdout, res, took


def figures(res):
    """Counted runs, loaded runs, seconds waited for a quieter machine."""
    invs = [i for i in res["invocations"] if i["phase"] != "warmup"] if res else []
    counted = [i for i in invs if i["status"] != "discarded"]
    return (len(counted), sum(1 for i in counted if i.get("loaded")),
            sum(i.get("load_wait_ns", 0) for i in invs) / 1e9)


def metric_line(stdout, metric):
    for line in stdout.splitlines():
        if re.match(r"\s+\S+\s+%s\s" % re.escape(metric), line):
            return " ".join(line.split()[1:])
    return "-"


def dotnet_fixture():
    """The built xunit suite make check-dotnet leaves, or None."""
    root = os.environ.get("ABEV_DOTNET_FIXTURES") or os.path.join(HERE, "..", "build", "dotnet")
    suite = os.path.join(os.path.abspath(root), "base", "Suite")
    if not shutil.which("dotnet") or not glob.glob(os.path.join(suite, "bin", "Release",
                                                                "net*", "Suite.dll")):
        return None
    return suite


def dotnet_aa(suite, tmp):
    """abev init --dotnet's plan, both variants on suite: (exit code, stdout, result.json)."""
    d = os.path.join(tmp, "dotnet")
    os.mkdir(d)
    subprocess.run([ABEV, "init", "--dotnet"], cwd=d, check=True, capture_output=True)
    with open(os.path.join(d, "plan.json"), encoding="utf-8") as f:
        plan = json.load(f)
    for v in plan["variants"]:
        v["cwd"] = suite
    with open(os.path.join(d, "plan.json"), "w", encoding="utf-8") as f:
        json.dump(plan, f)
    out = os.path.join(d, "ev")
    cp = subprocess.run([ABEV, "run", "plan.json", "--out", out, "--unsigned"], cwd=d,
                        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=3600)
    with open(os.path.join(out, "result.json"), encoding="utf-8") as f:
        res = json.load(f)
    return cp.returncode, cp.stdout, res


def decision(stdout):
    m = re.search(r"^decision: (.*)$", stdout, re.M)
    return m.group(1) if m else "(none)"


def main():
    if not ABEV or not HELPER:
        sys.exit("bench-busy: $ABEV and $ABEV_HELPER must be set (run through make bench-busy)")
    tries = int(os.environ.get("BENCH_BUSY_TRIES") or "20")
    ncpu = os.cpu_count() or 1
    tmp = tempfile.mkdtemp(prefix="abev-bench-busy-")
    rows = []
    started = datetime.datetime.now(datetime.timezone.utc)
    procs = loops_start(ncpu)
    try:
        time.sleep(2)
        load0 = loadavg()
        with open(os.path.join(tmp, "big.txt"), "w") as f:
            f.write("".join("%d\n" % i for i in range(1, 2000001)))
        quick = []
        for _ in range(3):
            rc, out, res, took = bench(["gzip -1 -c big.txt", "gzip -9 -c big.txt", "-r", "10"],
                                       tmp)
            quick.append((rc, out, res, took))
            print(f"quick start: exit {rc}, {took:.0f} s, {decision(out)}", flush=True)
        gate = ["--max-regression", "wall=10", "--until-decided", "24"]
        spin = lambda ms: f"{HELPER} spin {ms}"
        aa = []
        for i in range(tries):
            rc, out, res, took = bench(["-N", spin(200), spin(200), "-n", "a", "-n", "b", *gate],
                                       tmp)
            aa.append((rc, out, res, took))
            print(f"A/A {i + 1}/{tries}: exit {rc}, {took:.0f} s, {decision(out)}", flush=True)
        reg = []
        for i in range(3):
            rc, out, res, took = bench(["-N", spin(200), spin(300), "-n", "a", "-n", "b", *gate],
                                       tmp)
            reg.append((rc, out, res, took))
            print(f"1.5x {i + 1}/3: exit {rc}, {took:.0f} s, {decision(out)}", flush=True)
        load1 = loadavg()
        suite = dotnet_fixture()
        net = None
        if suite:
            # One busy loop, as the case has it: the others stop first.
            loops_stop(procs[1:])
            procs = procs[:1]
            net = dotnet_aa(suite, tmp)
            print(f"dotnet A/A: exit {net[0]}, {decision(net[1])}", flush=True)
    finally:
        loops_stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)

    def count(runs, word):
        return sum(1 for _, out, _, _ in runs if decision(out).startswith(word))

    text = BUSY_HEADING + "\n"
    text += (f"Measured {started:%Y-%m-%d} on this {ncpu}-core machine beside {ncpu} busy "
             f"loop(s) (`sh -c 'while :; do :; done'`, one per core), load average {load0} "
             f"at the start and {load1} at the end; `make bench-busy` "
             f"(BENCH_BUSY_TRIES={tries}). Counts of outcomes, not timings.\n\n")
    text += "| Scenario | Tries | Outcome | Counted runs (loaded) | Waited | Wall line | CPU line |\n"
    text += "|---|---:|---|---:|---:|---|---|\n"
    for name, runs in (("quick start: gzip -1 vs gzip -9, -r 10", quick),
                       ("A/A: spin 200 vs spin 200, wall 10 %, until decided 24", aa),
                       ("1.5×: spin 200 vs spin 300, wall 10 %, until decided 24", reg)):
        outcomes = {}
        for rc, out, _, _ in runs:
            key = f"exit {rc}: {decision(out).split(':')[0]}"
            outcomes[key] = outcomes.get(key, 0) + 1
        figs = [figures(res) for _, _, res, _ in runs]
        counted = sum(f[0] for f in figs)
        loaded = sum(f[1] for f in figs)
        waited = sum(f[2] for f in figs) / max(len(figs), 1)
        last = runs[-1][1]
        text += (f"| {name} | {len(runs)} | "
                 + ", ".join(f"{v}× {k}" for k, v in sorted(outcomes.items()))
                 + f" | {counted} ({loaded}) | {waited:.1f} s a try | "
                 f"{metric_line(last, 'wall')} | {metric_line(last, 'cpu')} |\n")
    text += (f"\nA/A rejected {count(aa, 'rejected')} of {len(aa)} times (goal: 0); the 1.5× "
             f"regression rejected {count(reg, 'rejected')} of {len(reg)} (goal: every time); "
             f"the quick start answered with figures (exit 0) {sum(1 for r in quick if r[0] == 0)}"
             f" of {len(quick)} times (goal: every time). The wall and CPU lines are the last "
             "try's, as the terminal printed them.\n")
    if net:
        rc, out, res = net
        counted, loaded, waited = figures(res)
        text += (f"\nA real `dotnet test` A/A comparison with `abev init --dotnet`'s plan (the "
                 "xunit suite `make check-dotnet` builds, both variants on the same build; its "
                 f"gates wall_own 10 %, max_rss 15 %), beside one busy loop: exit {rc}, "
                 f"{decision(out)}; {counted} counted runs ({loaded} loaded), {waited:.1f} s "
                 f"waited. {metric_line(out, 'wall_own')}; {metric_line(out, 'wall')}; "
                 f"{metric_line(out, 'cpu')}.\n")
    else:
        text += ("\nThe `dotnet test` case was skipped: dotnet or the fixtures of `make "
                 "check-dotnet` (build/dotnet) are not here.\n")
    print(text)
    try:
        with open(OUT, encoding="utf-8") as f:
            old = f.read()
    except OSError:
        old = ""
    at = old.find(BUSY_HEADING)
    if at >= 0:
        end = old.find("\n## ", at + len(BUSY_HEADING))
        old = old[:at] + (old[end:] if end >= 0 else "")
    cal = old.find(CALIBRATION_HEADING)
    new = old[:cal] + text + old[cal:] if cal >= 0 else old + text
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"bench-busy: wrote {OUT}")


if __name__ == "__main__":
    main()
