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

Then, issue 39's calibration of wall_own (wall less the wait on CPUs other
processes held), beside 0, 1, 2 and 4 unpinned busy loops:

  5. four shapes, on both CPUs and pinned to CPU 1, BENCH_WALLOWN_RUNS
     recorded runs each (default 15): a single-threaded CPU-bound run
     (abev-helper spin 200), a single thread that sleeps between pieces of
     work (spin-sleep 100), more threads than cores (spin-threads 4 100)
     and a process tree, a parent that runs a spinning child (tree 20 180,
     as dotnet test's CLI runs its test host):
     the median wall_own under load over the median wall (and wall_own)
     with no loop, and over the median CPU time;
  6. beside two busy loops, a true +10 % CPU-bound regression (spin 200
     against spin 220) with a 5 % gate on wall_own, until decided, and an
     A/A (spin 200 against itself), alternately, BENCH_WALLOWN_TRIES times
     each (default 30) or until BENCH_WALLOWN_DEADLINE (a UTC time,
     HH:MM): how often each is rejected.

BENCH_BUSY_SECTIONS picks the parts (default "issue28,wallown"). Prints each
section as Markdown and writes it into bench/results.md under its heading
(before the calibration section; make bench keeps them all).
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
WALLOWN_HEADING = "\n## wall_own on a busy machine (issue 39)\n"
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


def busy_section():
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
    return text


def write_section(heading, text):
    """Puts text in results.md in place of heading's section, else before the calibration."""
    print(text)
    try:
        with open(OUT, encoding="utf-8") as f:
            old = f.read()
    except OSError:
        old = ""
    at = old.find(heading)
    if at >= 0:
        end = old.find("\n## ", at + len(heading))
        old = old[:at] + (old[end:] if end >= 0 else "")
    cal = old.find(CALIBRATION_HEADING)
    new = old[:cal] + text + old[cal:] if cal >= 0 else old + text
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"bench-busy: wrote {OUT}")


# Issue 39's shapes: (name, helper arguments, CPU-bound).
WALLOWN_SHAPES = (
    ("one thread, CPU-bound (`spin 200`)", "spin 200", True),
    ("one thread, sleeps between 10 ms pieces (`spin-sleep 100`)", "spin-sleep 100", False),
    ("4 threads, more than the cores (`spin-threads 4 100`)", "spin-threads 4 100", True),
    ("process tree: parent spins, then runs a spinning child (`tree 20 180`)", "tree 20 180",
     True),
)
WALLOWN_LOOPS = (0, 1, 2, 4)
# Where the shapes run: on every CPU, and pinned to CPU 1 (the loops are never pinned).
WALLOWN_PLACES = (("unpinned", []), ("pinned to CPU 1", ["--cpus", "1"]))
# Runs taken as they come: no wait for a quieter machine, none discarded for load; turns
# taken with other abev runs on the host (others' tests), whose overlap would discard runs.
AS_THEY_COME = ["--max-load-wait", "0", "--max-cpu-wait-pct", "100", "--wait-max", "300",
                "--output", "null"]


def median(v):
    v = sorted(v)
    n = len(v)
    if not n:
        return float("nan")
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def counted_runs(res):
    return [i for i in (res or {}).get("invocations", [])
            if i["phase"] != "warmup" and i["status"] != "discarded"]


def cgroup_wall_own(inv):
    """wall_own as abev took it before issue 39: the cgroup's wait (the smaller of it and the
    threads'), bounded by the nanosecond figure of others' CPU time."""
    waits = [w for w in (inv.get("cgroup_cpu_wait_ns"), inv.get("tree_wait_ns")) if w is not None]
    busy = inv.get("foreign_busy_fine_ns")
    if not waits or busy is None:
        return None
    return inv["wall_ns"] - min(min(waits), busy)


def shape_runs(args, place, runs, tmp):
    """The counted runs of one shape, placed as place says (bench options): (wall ms, wall_own
    ms, cpu ms, cgroup-era wall_own ms, basis) each."""
    rc, out, res, _ = bench(["-N", f"{HELPER} {args}", "-n", "x", "-r", str(runs), *place,
                             *AS_THEY_COME], tmp)
    rows = []
    for i in counted_runs(res):
        if i["foreign_wait_ns"] is None:
            continue
        old = cgroup_wall_own(i)
        rows.append((i["wall_ns"] / 1e6, (i["wall_ns"] - i["foreign_wait_ns"]) / 1e6,
                     i["cpu_ns"] / 1e6, old / 1e6 if old is not None else None,
                     i.get("foreign_wait_basis")))
    if not rows:
        print(f"wall_own: {args}: exit {rc}, no counted run\n{out}", flush=True)
    return rows


def wallown_table(runs, tmp):
    """{(place, shape, loops): rows} over WALLOWN_LOOPS, and the load averages at each start."""
    table, loads = {}, {}
    for n in WALLOWN_LOOPS:
        procs = loops_start(n)
        try:
            time.sleep(1)
            loads[n] = loadavg()
            for where, place in WALLOWN_PLACES:
                for name, args, _ in WALLOWN_SHAPES:
                    table[(where, name, n)] = r = shape_runs(args, place, runs, tmp)
                    print(f"wall_own: {args} {where} beside {n} loop(s): wall "
                          f"{median(x[0] for x in r):.0f} ms, wall_own "
                          f"{median(x[1] for x in r):.0f} ms, cpu "
                          f"{median(x[2] for x in r):.0f} ms", flush=True)
        finally:
            loops_stop(procs)
    return table, loads


def deadline_passed(deadline):
    if not deadline:
        return False
    now = datetime.datetime.now(datetime.timezone.utc)
    hh, mm = (int(x) for x in deadline.split(":"))
    return (now.hour, now.minute) >= (hh, mm)


def wallown_gates(tries, deadline, tmp):
    """Beside two loops: the +10 % regression and the A/A, alternately. ([exit codes] each)."""
    spin = lambda ms: f"{HELPER} spin {ms}"
    gate = ["--max-regression", "wall_own=5", "--until-decided", "32", *AS_THEY_COME]
    reg, aa = [], []
    procs = loops_start(2)
    try:
        time.sleep(1)
        for i in range(tries):
            if deadline_passed(deadline):
                break
            for name, cand, got in (("+10 %", spin(220), reg), ("A/A", spin(200), aa)):
                rc, out, res, took = bench(["-N", spin(200), cand, "-n", "a", "-n", "b", *gate],
                                           tmp)
                counted = counted_runs(res)
                got.append((rc, decision(out), len(counted) // 2, took))
                print(f"{name} {i + 1}/{tries}: exit {rc}, {took:.0f} s, {len(counted)} runs, "
                      f"{decision(out)}", flush=True)
    finally:
        loops_stop(procs)
    return reg, aa


def wallown_section():
    runs = int(os.environ.get("BENCH_WALLOWN_RUNS") or "15")
    tries = int(os.environ.get("BENCH_WALLOWN_TRIES") or "30")
    deadline = os.environ.get("BENCH_WALLOWN_DEADLINE", "")
    ncpu = os.cpu_count() or 1
    tmp = tempfile.mkdtemp(prefix="abev-bench-wallown-")
    started = datetime.datetime.now(datetime.timezone.utc)
    try:
        table, loads = wallown_table(runs, tmp)
        load_mid = loadavg()
        reg, aa = wallown_gates(tries, deadline, tmp)
        load_end = loadavg()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ended = datetime.datetime.now(datetime.timezone.utc)

    text = WALLOWN_HEADING + "\n"
    text += (f"Measured {started:%Y-%m-%d %H:%M}–{ended:%H:%M} UTC on this {ncpu}-core machine "
             "with `make bench-busy` (BENCH_BUSY_SECTIONS=wallown, "
             f"BENCH_WALLOWN_RUNS={runs}), beside 0, 1, 2 and 4 unpinned busy loops "
             "(`sh -c 'while :; do :; done'`), each shape on both CPUs and pinned to CPU 1 "
             "(`--cpus 1`), each `abev bench -r "
             f"{runs}` with its runs taken as they came (`{' '.join(AS_THEY_COME)}`: no wait "
             "for a quieter machine, none discarded for load, turns taken with other abev "
             "runs on the host). "
             "\"Quiet\" is not quiet: other engineers built and tested on this machine "
             "meanwhile, so the 0-loop wall is itself loaded; CPU time is the reference that load "
             "does not lengthen. Load averages (1, 5, 15 min) at the start of each loop count: "
             + "; ".join(f"{n} loop(s) {loads[n]}" for n in WALLOWN_LOOPS)
             + f"; {load_mid} after the table, {load_end} at the end.\n\n")
    text += ("Medians of the counted runs, in ms. *quiet* is the median wall with no loop "
             "(*quiet wall_own* its wall_own: what others' own load left of it); "
             "*cgroup-era* is wall_own as abev took it before (the cgroup's `some` wait, the "
             "smaller of it and the threads' own, bounded by others' CPU time); *basis* counts "
             "`foreign_wait_basis`.\n\n")
    text += ("| Shape | Placed | Loops | n | wall | CPU | wall_own | wall_own ÷ quiet | "
             "÷ quiet wall_own | wall_own ÷ CPU | cgroup-era ÷ quiet | basis |\n")
    text += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
    for where, _ in WALLOWN_PLACES:
        for name, _, cpu_bound in WALLOWN_SHAPES:
            quiet = median(x[0] for x in table[(where, name, 0)])
            quiet_own = median(x[1] for x in table[(where, name, 0)])
            for n in WALLOWN_LOOPS:
                r = table[(where, name, n)]
                wall, own = median(x[0] for x in r), median(x[1] for x in r)
                cpu = median(x[2] for x in r)
                olds = [x[3] for x in r if x[3] is not None]
                old = median(olds) if olds else float("nan")
                bases = {}
                for x in r:
                    bases[x[4]] = bases.get(x[4], 0) + 1
                text += (f"| {name} | {where} | {n} | {len(r)} | {wall:.0f} | {cpu:.0f} | "
                         f"{own:.0f} | {own / quiet:.2f} | {own / quiet_own:.2f} | "
                         + (f"{own / cpu:.2f}" if cpu_bound else "–")
                         + f" | {old / quiet:.2f} | "
                         + ", ".join(f"{v} {k}" for k, v in sorted(bases.items(), key=str))
                         + " |\n")

    def rejected(got):
        return sum(1 for rc, d, _, _ in got if d.startswith("rejected"))

    def outcomes(got):
        o = {}
        for rc, d, _, _ in got:
            key = f"exit {rc}: {d.split(':')[0]}"
            o[key] = o.get(key, 0) + 1
        return ", ".join(f"{v}× {k}" for k, v in sorted(o.items()))

    text += ("\nBeside two busy loops, `abev bench -N 'abev-helper spin 200' CAND "
             f"--max-regression wall_own=5 --until-decided 32 {' '.join(AS_THEY_COME)}` (every "
             "run waits about a third of its wall time here, so with the default load limits "
             "each round's first run would be discarded and repeated twice: the runs are taken "
             "as they come, and the gate judges wall_own alone), the regression and the A/A "
             "taken alternately:\n\n")
    text += "| Comparison | Tries | Rejected | Outcomes | Median rounds | Median seconds |\n"
    text += "|---|---:|---:|---|---:|---:|\n"
    for name, got in (("+10 %: spin 200 vs spin 220", reg), ("A/A: spin 200 vs spin 200", aa)):
        text += (f"| {name} | {len(got)} | {rejected(got)} | {outcomes(got)} | "
                 f"{median(g[2] for g in got):.0f} | {median(g[3] for g in got):.0f} |\n")
    text += (f"\nThe +10 % regression was rejected {rejected(reg)} of {len(reg)} times "
             f"(goal: ≥ 90 %), the A/A {rejected(aa)} of {len(aa)} (goal: ≤ 5 %).\n")
    return text


SECTIONS = (("issue28", BUSY_HEADING, busy_section), ("wallown", WALLOWN_HEADING, wallown_section))


def main():
    if not ABEV or not HELPER:
        sys.exit("bench-busy: $ABEV and $ABEV_HELPER must be set (run through make bench-busy)")
    want = (os.environ.get("BENCH_BUSY_SECTIONS") or "issue28,wallown").split(",")
    for name, heading, section in SECTIONS:
        if name in want:
            write_section(heading, section())


if __name__ == "__main__":
    main()
