#!/usr/bin/env python3
"""`make bench`: abev side by side with the stock tools that do the same job,
on the same machine, in one run, and bench/results.md with the figures.

Every comparison takes BENCH_ROUNDS (5) rounds in which abev and the stock
tools take turns (abev first in one round, last in the next), so that a burst
of other work lands on both sides; the best (lowest) time of each is reported,
and the ratio abev / stock tool of those (the ratio of the medians beside it).
Each is measured at 1x, 10x and 100x a base size (the largest multiple is
BENCH_SCALE, default 100), so that a reader sees how the cost grows; the goal
is judged at the size it names. The goals are issue 41's (bench/ratios.py).

  1. per-invocation overhead: bench/run-overhead.sh (abev run of N x `true`,
     3 warmups, gap 0, against hyperfine -N --warmup 3), base N = 10; goal at
     N = 100: elapsed at most 1.5x hyperfine's, and the wall time abev records
     for `true` within 0.3 ms of hyperfine's mean.
  2. TRX parsing: abev results --json against xmllint --stream --noout on a
     lean TRX from tests/helpers/gen_results.py, base 2,000 results in 1 MiB;
     goal at 200,000 results / 100 MiB: 0.7x xmllint or better, peak RSS
     under 16 MiB.
  3. hashing: bench-hash (bench/hash_files.c: abev's sha256_files(), one
     thread per core) over the files of an evidence directory, against
     openssl dgst -sha256 and sha256sum; base 10.2 MiB in 16 files, half
     random bytes and half log text; judged at 1 GiB: 0.5x openssl.
  4. abev verify against sha256sum -c of the same evidence's SHA256: keep
     0.2x or better (it was 0.12x).
  5. abev pack against tar --zstd -cf of the same evidence; goal at 1 GiB:
     at most 0.7x. Every bundle of a size must have the same bytes.
  6. the growth: per-unit cost at each size.
  7. a long run: `abev bench -N true -r N` for N = 100, 10,000 and 100,000
     (BENCH_SCALE_MAX, default 100,000; gap 0, no warmup): the median time
     between one invocation's end and the next one's start around invocation
     100, 10,000 and 100,000, from result.json's stamps, and abev's peak RSS.
     The 100,000 run takes several minutes.

It rewrites results.md's sections, then appends one dated table of the ratios
of 1-5 (date, commit, machine; each against the table before, a worsening of
more than 10 % marked) to its history, "Ratios by commit", which it never
rewrites.

BENCH_SHORT=1 (make bench-short) is CI's short form: the same ratios at small
sizes (100 invocations, a TRX of 8 MiB, 82 MiB of evidence), best of
BENCH_ROUNDS (3), printed and judged; it writes nothing but temp files and
exits 1 when a ratio is beyond twice its goal (the bias is reported, not
failed on, and hashing with fewer than 2 CPUs, BENCH_CPUS) in each of
BENCH_SHORT_TRIES (3) tries (a ratio beyond it is measured again, the best
try kept), 2 when a stock tool or abev is missing (the Debian package named).

Asserts nothing else about time; exits 2 when a tool is missing, 1 when a tool
gave a wrong answer (abev's counts or digests differ from the generator's or
sha256sum's, or bundles of the same evidence differ). Needs only Python 3's
standard library. Environment: ABEV, BENCH_HASH (set by make), BENCH_SCALE,
BENCH_ROUNDS, BENCH_SCALE_MAX, BENCH_OUT (default bench/results.md), TMPDIR;
BENCH_ONLY=trx runs the TRX part alone and prints its lines of results.md instead
of writing it, BENCH_ONLY=scale likewise part 7. BENCH_FAKE=FILE takes the
ratios' figures from FILE ({"pack": [abev, stock], ...}: seconds, ms for the
bias, MiB for RSS) instead of measuring anything: with BENCH_SHORT=1 it judges
them, without it appends their dated table to BENCH_OUT (the tests' way in).
"""
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no bench/__pycache__: the short form writes nothing in the tree
import ratios  # noqa: E402
from ratios import GOAL

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ABEV = os.environ.get("ABEV", os.path.join(SRC, "abev"))
BENCH_HASH = os.environ.get("BENCH_HASH", os.path.join(SRC, "build/bench/bench-hash"))
OUT = os.environ.get("BENCH_OUT", os.path.join(SRC, "bench/results.md"))
MIB = 1 << 20
# GNU time, for peak RSS: the rusage of a child forked by this Python holds
# Python's own RSS as its high-water mark (it survives the exec); a child
# forked by GNU time starts from time's few hundred KiB.
GNU_TIME = "/usr/bin/time"

# tool -> the Debian package that holds it
TOOLS = {"hyperfine": "hyperfine", "xmllint": "libxml2-utils", "zstd": "zstd", "tar": "tar",
         "openssl": "openssl", "sha256sum": "coreutils"}


def fail(msg, code=2):
    print(f"bench: {msg}", file=sys.stderr)
    sys.exit(code)


def int_env(name, default, lo):
    v = os.environ.get(name, "") or str(default)
    if not v.isdigit() or int(v) < lo:
        fail(f"{name} must be a whole number of at least {lo}, not '{v}'")
    return int(v)


def check_tools():
    missing = [f"{t} (apt-get install {p})" for t, p in TOOLS.items() if not shutil.which(t)]
    if not os.access(GNU_TIME, os.X_OK):
        missing.append(f"{GNU_TIME} (apt-get install time)")
    if missing:
        fail("missing stock tools: " + ", ".join(missing))
    for path, what in ((ABEV, "abev (make)"), (BENCH_HASH, "bench-hash (make bench builds it)")):
        if not os.access(path, os.X_OK):
            fail(f"build {what} first: {path} is missing")


def sh(argv, ok=(0,), **kw):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if p.returncode not in ok:
        fail(f"{' '.join(argv)} exited {p.returncode}:\n{p.stdout.strip()}", 1)
    return p.stdout


def first_line(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True).stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        return "unknown"


def machine(tmp):
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    df = subprocess.run(["df", "--output=source,fstype", tmp], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True).stdout.split("\n")
    dev = " ".join(df[1].split()) if len(df) > 1 and df[1].strip() else "unknown device"
    return {
        "CPU": model,
        "cores": f"{os.cpu_count()} online",
        "memory": f"{os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30:.1f} GiB",
        "kernel": f"{platform.system()} {platform.release()}",
        "OS": first_line(["sh", "-c", ". /etc/os-release && echo \"$PRETTY_NAME\""]),
        "temp dir": f"{tmp} on {dev}",
        "abev": first_line([ABEV, "--version"]),
        "hyperfine": first_line(["hyperfine", "--version"]),
        "xmllint": first_line(["xmllint", "--version"]),
        "zstd": first_line(["zstd", "--version"]),
        "tar": first_line(["tar", "--version"]),
        "openssl": first_line(["openssl", "version"]),
        "sha256sum": first_line(["sha256sum", "--version"]),
        "libarchive, libzstd (abev pack)": first_line(
            ["sh", "-c", "dpkg-query -W -f '${Package} ${Version}  ' libarchive13 libzstd1 "
             "2>/dev/null || echo unknown"]),
    }


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


class Sample:
    """One timed run of a command: wall, CPU (user + sys of it and its children)."""

    def __init__(self, wall, cpu):
        self.wall, self.cpu = wall, cpu


def measure(argv, cwd=None, ok=(0,)):
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if p.returncode not in ok:
        fail(f"{' '.join(argv)} exited {p.returncode}: {err.strip()}", 1)
    return Sample(wall, ru.ru_utime + ru.ru_stime)


def peak_rss_mib(argv, ok=(0,)):
    """The peak RSS of one run of argv, as GNU time reports it."""
    p = subprocess.run([GNU_TIME, "-f", "%x %M", "--"] + argv, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    last = p.stderr.strip().splitlines()[-1].split() if p.stderr.strip() else []
    if len(last) != 2 or not last[1].isdigit() or int(last[0]) not in ok:
        fail(f"{' '.join(argv)} under {GNU_TIME}: {p.stderr.strip()}", 1)
    return int(last[1]) / 1024


class Side:
    """The samples of one contender."""

    def __init__(self, label, argv, cwd=None, ok=(0,), before=None, after=None):
        self.label, self.argv, self.cwd, self.ok = label, argv, cwd, ok
        self.before, self.after, self.samples, self.rss = before, after, [], None

    def run(self):
        if self.before:
            self.before()
        s = measure(self.argv, self.cwd, self.ok)
        if self.after:
            s.wall += self.after()
        self.samples.append(s)

    def wall(self):
        """The best (lowest) wall time of the rounds: the one least disturbed
        by other work on the machine."""
        return min(s.wall for s in self.samples)

    def wall_median(self):
        return statistics.median(s.wall for s in self.samples)

    def cpu(self):
        return statistics.median(s.cpu for s in self.samples)

    def rss_mib(self):
        if self.rss is None:
            self.rss = max(peak_rss_mib(self.argv, self.ok) for _ in range(2))
        return self.rss


def side_by_side(sides, rounds):
    """Rounds of every side in turn; even rounds forwards, odd rounds backwards."""
    for r in range(rounds):
        for s in (sides if r % 2 == 0 else list(reversed(sides))):
            s.run()
    return sides


def fmt_s(x):
    return f"{x * 1e3:.1f} ms" if x < 10 else f"{x:.2f} s"


def size_label(nbytes):
    if nbytes >= 1 << 30:
        return f"{nbytes / 2**30:.2f} GiB"
    return f"{nbytes / MIB:.1f} MiB" if nbytes < 100 * MIB else f"{nbytes / MIB:.0f} MiB"


# --- 1. per-invocation overhead --------------------------------------------

# Each figure is the best of the rounds; the median follows in brackets.
OVERHEAD_RE = {
    "create_ms": r"a file create under \S+ costs ([0-9.]+) ms",
    "window_ms": r"abev median recorded wall ([0-9.]+) ms \(([0-9.]+)",
    "hf_mean_ms": r"hyperfine mean ([0-9.]+) ms \(([0-9.]+)",
    "abev_ms": r"abev run ([0-9.]+) ms \(([0-9.]+)",
    "hf_ms": r"hyperfine -N ([0-9.]+) ms \(([0-9.]+)",
}


def overhead(n, rounds, tmp):
    out = sh(["sh", os.path.join(SRC, "bench/run-overhead.sh"), str(n), str(rounds)], cwd=SRC,
             env={**os.environ, "ABEV": ABEV, "TMPDIR": tmp})
    got = {}
    for k, rx in OVERHEAD_RE.items():
        m = re.search(rx, out)
        if not m:
            fail(f"cannot read '{k}' in run-overhead.sh's output:\n{out}", 1)
        got[k] = float(m.group(1))
        if m.lastindex == 2:
            got[k + "_median"] = float(m.group(2))
    got["n"] = n
    got["bias_ms"] = got["window_ms"] - got["hf_mean_ms"]
    got["bias_ms_median"] = got["window_ms_median"] - got["hf_mean_ms_median"]
    got["ratio"] = got["abev_ms"] / got["hf_ms"]
    got["ratio_median"] = got["abev_ms_median"] / got["hf_ms_median"]
    return got


# --- 7. scale: the time between invocations as a run grows ----------------------

SCALE_SIZES = (100, 10_000, 100_000)
SCALE_WINDOW = 50
STAMP_RE = re.compile(r'"(start|end)_utc":\s*"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6})\+00:00"')


def stamp_s(text):
    t = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f")
    return t.replace(tzinfo=datetime.timezone.utc).timestamp()


def invocation_gaps(result_json):
    """The time from each invocation's end_utc to the next one's start_utc, in
    seconds, read line by line (a result.json of 100,000 invocations is too
    large to parse whole in Python)."""
    starts, ends = [], []
    with open(result_json) as f:
        for line in f:
            m = STAMP_RE.search(line)
            if m:
                (starts if m.group(1) == "start" else ends).append(stamp_s(m.group(2)))
    return [starts[i + 1] - ends[i] for i in range(min(len(starts) - 1, len(ends)))]


def scale(n, tmp):
    """`abev bench -N true -r N` (gap 0, no warmup) under GNU time: the median
    time between invocations around invocation 100, 10,000 and 100,000 (the
    SCALE_WINDOW gaps before it), abev's elapsed time and peak RSS."""
    out = os.path.join(tmp, f"scale-{n}")
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.monotonic()
    # No slot is repeated for CPU wait; one discarded for foreign load on a busy
    # machine is repeated (exit 1 when a slot is lost): each is an invocation too.
    p = subprocess.run([GNU_TIME, "-f", "%x %M", "--", ABEV, "bench", "-N", "true", "-r", str(n),
                        "--max-cpu-wait-pct", "100", "--out", out, "--quiet"],
                       stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - t0
    last = p.stderr.strip().splitlines()[-1].split() if p.stderr.strip() else []
    # Exit 3 with a result.json: the run was recorded, but not sealed (a
    # manifest holds at most 1,000,000 files, five per invocation); said
    # beside the figures.
    errs = [x for x in p.stderr.splitlines() if x.startswith("abev: error:")]
    if len(last) != 2 or last[0] not in ("0", "1", "3") or not last[1].isdigit() or \
            (last[0] == "3" and not os.path.isfile(os.path.join(out, "result.json"))):
        fail(f"abev bench -r {n} under {GNU_TIME}: {p.stderr.strip()}", 1)
    gaps = invocation_gaps(os.path.join(out, "result.json"))
    if len(gaps) < n - 1:
        fail(f"abev bench -r {n}: result.json holds {len(gaps) + 1} invocations", 1)
    at, mean_at = {}, {}
    for k in SCALE_SIZES:
        if k <= n:
            w = gaps[max(0, k - 1 - SCALE_WINDOW):k - 1]
            at[k] = statistics.median(w) * 1e3
            # The mean over the 10 % of the run before K: a rewrite of the whole
            # record now and then shows here, not in the median.
            w = gaps[max(0, k - 1 - max(SCALE_WINDOW, k // 10)):k - 1]
            mean_at[k] = statistics.fmean(w) * 1e3
    shutil.rmtree(out, ignore_errors=True)
    return {"n": n, "elapsed": elapsed, "rss_mib": int(last[1]) / 1024, "gap_ms": at,
            "error": errs[-1][len("abev: error: "):] if last[0] == "3" and errs else None,
            "mean_gap_ms": mean_at, "max_gap_ms": max(gaps) * 1e3 if gaps else 0.0,
            "median_gap_ms": statistics.median(gaps) * 1e3 if gaps else 0.0}


def scale_line(x):
    at = ", ".join(f"at {k:,}: {v:.2f} ms (mean {x['mean_gap_ms'][k]:.2f} ms)"
                   for k, v in x["gap_ms"].items())
    return (f"7. {x['n']:,} x true: between invocations {at} (median {x['median_gap_ms']:.2f} ms, "
            f"max {x['max_gap_ms']:.1f} ms); elapsed {fmt_s(x['elapsed'])}, abev peak RSS "
            f"{x['rss_mib']:.1f} MiB" + (f"; not sealed: {x['error']}" if x["error"] else ""))


def scale_table(sc):
    rows = [[f"{x['n']:,}"] + [f"{x['gap_ms'][k]:.2f} / {x['mean_gap_ms'][k]:.2f} ms"
                               if k in x["gap_ms"] else "" for k in SCALE_SIZES] +
            [f"{x['median_gap_ms']:.2f} ms", f"{x['max_gap_ms']:.1f} ms", fmt_s(x["elapsed"]),
             f"{x['rss_mib']:.1f} MiB" + (" (not sealed: exit 3)" if x["error"] else "")]
            for x in sc]
    return table(["invocations"] + [f"gap at {k:,}: median / mean" for k in SCALE_SIZES] +
                 ["median gap", "max gap", "elapsed", "abev peak RSS"], rows)


def scale_only(tmp):
    """BENCH_ONLY=scale: the scale part alone (BENCH_SCALE_MAX invocations at
    most, default 100,000), printed; results.md is not written."""
    top = int_env("BENCH_SCALE_MAX", SCALE_SIZES[-1], 2)
    sc = []
    for n in sorted({k for k in SCALE_SIZES if k <= top} | {top}):
        sc.append(scale(n, tmp))
        print(scale_line(sc[-1]), flush=True)
    print(f"load average {loadavg()}\n")
    print(scale_table(sc))


# --- 8. the child's own peak RSS ----------------------------------------------

CHILD_RSS_RUNS = 100


def child_rss(tmp):
    """`abev bench -N true -r 100`: the peak RSS abev records for each invocation
    (wait4's ru_maxrss of the child), against GNU time's figure for `true`; the
    figure must be the child's own: flat over the run, and within 10 % of GNU
    time's (goal)."""
    out = os.path.join(tmp, "child-rss")
    shutil.rmtree(out, ignore_errors=True)
    sh([ABEV, "bench", "-N", "true", "-r", str(CHILD_RSS_RUNS), "--max-cpu-wait-pct", "100",
        "--out", out, "--quiet"], ok=(0, 1))
    with open(os.path.join(out, "result.json")) as f:
        invs = [i for i in json.load(f)["invocations"] if i["phase"] == "run"]
    rss = [i["max_rss_bytes"] / 1024 for i in invs]
    shutil.rmtree(out, ignore_errors=True)
    gnu = statistics.median(peak_rss_mib(["true"]) * 1024 for _ in range(9))
    first, last = statistics.median(rss[:10]), statistics.median(rss[-10:])
    return {"n": len(rss), "first_kib": first, "last_kib": last, "max_kib": max(rss),
            "gnu_kib": gnu, "ratio": statistics.median(rss) / gnu}


def child_rss_line(c):
    return (f"8. peak RSS of true over {c['n']} invocations: first 10 {c['first_kib']:.0f} KiB, "
            f"last 10 {c['last_kib']:.0f} KiB (max {c['max_kib']:.0f}); GNU time "
            f"{c['gnu_kib']:.0f} KiB; ratio {c['ratio']:.2f} (goal: flat, within 10 %)")


# --- 2. TRX parsing ----------------------------------------------------------

def dso_profile(argv, tmp):
    """Percent of cycles per shared object in a perf profile of argv; {} without perf."""
    if not shutil.which("perf"):
        return {}
    data = os.path.join(tmp, "perf.data")
    rec = subprocess.run(["perf", "record", "-q", "-o", data, "--"] + argv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso", "-q",
                          "-g", "none"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True) if rec.returncode in (0, 1) else None
    if os.path.exists(data):
        os.unlink(data)
    prof = {}
    for line in (rep.stdout.splitlines() if rep and rep.returncode == 0 else []):
        f = line.split()
        if len(f) >= 2 and f[0].endswith("%"):
            name = os.path.basename(f[1])
            prof[name] = prof.get(name, 0.0) + float(f[0][:-1])
    return prof


def trx(scale, rounds, tmp, profile=False):
    results, size = 2000 * scale, MIB * scale
    path = os.path.join(tmp, f"results-{scale}.trx")
    expect = json.loads(sh([sys.executable, os.path.join(SRC, "tests/helpers/gen_results.py"),
                            "trx", path, "--results", str(results), "--size", str(size),
                            "--shape", "lean", "--data-driven", "500"]))
    got = json.loads(sh([ABEV, "results", path, "--json"]))["files"][0]
    keys = ("total", "executed", "passed", "failed", "errors", "skipped", "other")
    if any(got[k] != expect[k] for k in keys):
        fail(f"abev results counted {[got[k] for k in keys]}, the generator wrote "
             f"{[expect[k] for k in keys]}", 1)
    a, x = side_by_side([Side("abev results --json", [ABEV, "results", path, "--json"],
                              ok=(0, 1)),
                         Side("xmllint --stream", ["xmllint", "--stream", "--noout", path])],
                        rounds)
    a.rss_mib(), x.rss_mib()
    prof = dso_profile([ABEV, "results", path, "--json"], tmp) if profile else {}
    os.unlink(path)
    return {"scale": scale, "results": results, "bytes": expect["bytes"], "abev": a, "xmllint": x,
            "ratio": a.wall() / x.wall(), "profile": prof}


# --- 3-5. evidence: hashing, verify, pack -----------------------------------

def write_text(path, nbytes, seed):
    """Benchmark-log text, distinct per seed, compressible about 5:1 by zstd -3."""
    with open(path, "w") as f:
        n, k = 0, seed * 10**8
        while n < nbytes:
            s = "".join(f"[{k + j:010d}] iteration {j}: {(k + j) * 7919 % 100003} ns/op, "
                        f"alloc {(k + j) * 31 % 977} B, gc {(k + j) % 7}\n" for j in range(4096))
            f.write(s)
            n += len(s)
            k += 4096
    os.truncate(path, nbytes)


def make_evidence(scale, tmp, key):
    """An evidence directory of 16 files (half random, half log text), 1 GiB x scale / 100."""
    src = os.path.join(tmp, f"src-{scale}")
    os.mkdir(src)
    each = (1 << 30) * scale // 1600 // 4096 * 4096
    with open("/dev/urandom", "rb") as r:
        for i in range(16):
            p = os.path.join(src, f"f{i:02d}.{'log' if i % 2 else 'bin'}")
            if i % 2:
                write_text(p, each, scale * 100 + i)
            else:
                with open(p, "wb") as f:
                    left = each
                    while left:
                        left -= f.write(r.read(min(left, 8 * MIB)))
    plan = os.path.join(tmp, f"plan-{scale}.json")
    with open(plan, "w") as f:
        f.write('{ "schema": "abev.plan/1", "name": "bench-evidence",\n'
                '  "variants": [ { "name": "v", "command": ["sh", "-c", '
                f'"cp {src}/* \\"$ABEV_RUN_DIR\\"/"] }} ],\n'
                '  "schedule": { "runs": 1 },\n'
                '  "load": { "max_foreign_cpu": 1000, "max_cpu_wait_pct": 100, "max_repeats": 0 } }\n')
    ev = os.path.join(tmp, f"ev-{scale}")
    sh([ABEV, "run", plan, "--out", ev, "--quiet", "--key", key + ".key"])
    shutil.rmtree(src)
    files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(ev, "runs"))
                   for f in fs if f.startswith("f"))
    if len(files) != 16:
        fail(f"the evidence {ev} holds {len(files)} of the 16 files", 1)
    for p in files:   # warm the page cache for everyone
        with open(p, "rb") as f:
            while f.read(8 * MIB):
                pass
    return ev, files


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(8 * MIB), b""):
            h.update(block)
    return h.hexdigest()


def evidence(scale, rounds, tmp, key):
    ev, files = make_evidence(scale, tmp, key)
    nbytes = sum(os.path.getsize(p) for p in files)
    if sh([BENCH_HASH] + files) != sh(["sha256sum"] + files):
        fail("bench-hash and sha256sum disagree on the evidence's files", 1)
    hashing = side_by_side([Side("abev (sha256_files, all cores)", [BENCH_HASH] + files),
                            Side("abev (one thread)", [BENCH_HASH, "--threads", "1"] + files),
                            Side("openssl dgst -sha256", ["openssl", "dgst", "-sha256"] + files),
                            Side("sha256sum", ["sha256sum"] + files)], rounds)
    verify = side_by_side([Side("abev verify", [ABEV, "verify", ev, "--pubkey", key + ".pub"]),
                           Side("sha256sum -c", ["sha256sum", "-c", "--strict", "--quiet",
                                                 "SHA256"], cwd=ev)], rounds)
    bundle, tarball, digests = (os.path.join(tmp, f"b-{scale}.tar.zst"),
                                os.path.join(tmp, f"t-{scale}.tar.zst"), set())
    sizes = {}

    def clear(path):
        def f():
            if os.path.exists(path):
                sizes[path] = os.path.getsize(path)
                if path == bundle:
                    digests.add(file_sha256(path))
                os.unlink(path)
        return f

    def tar_fsync():
        t0 = time.monotonic()
        fd = os.open(tarball, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
        fsync_times.append(time.monotonic() - t0)
        return 0.0

    fsync_times = []
    pack = side_by_side([Side("abev pack", [ABEV, "pack", ev, "--out", bundle], before=clear(bundle)),
                         Side("tar --zstd -cf", ["tar", "--zstd", "-cf", tarball, "-C", ev, "."],
                              before=clear(tarball), after=tar_fsync)], rounds)
    clear(bundle)()
    clear(tarball)()
    if len(digests) != 1:
        fail(f"{rounds} bundles of the same evidence have {len(digests)} different contents", 1)
    shutil.rmtree(ev)
    return {"scale": scale, "bytes": nbytes, "hash": hashing, "verify": verify, "pack": pack,
            "bundle_bytes": sizes[bundle], "tar_bytes": sizes[tarball],
            "tar_fsync": statistics.median(fsync_times), "bundle_sha256": digests.pop()}


# --- report ----------------------------------------------------------------

def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if i else "---"
                                                           for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def trx_profile(t):
    """A sentence on where `abev results` spent its cycles at the largest size, or ""."""
    prof = t.get("profile")
    if not prof:
        return ""
    xml = sum(v for k, v in prof.items() if k.startswith("libxml2"))
    own = prof.get("abev", 0.0)
    libc = sum(v for k, v in prof.items() if k.startswith("libc"))
    kern = sum(v for k, v in prof.items() if "kernel" in k)
    return (f"A perf profile of `abev results` on the {t['bytes'] / 1e6:.0f} MB file puts "
            f"{xml:.0f}% of its cycles in libxml2, {own:.0f}% in abev's own code, {libc:.0f}% "
            f"in libc and {kern:.0f}% in the kernel (reading the file).")


def trx_why(t):
    """The paragraph for a missed TRX goal: by how much, and what the profile says."""
    goal = GOAL["trx"]["goal"]
    return (f"**2. TRX parsing**: {t['ratio']:.2f}x xmllint --stream against {goal}x, "
            f"{(t['ratio'] / goal - 1) * 100:.0f}% over. abev reads result files with "
            "libxml2's SAX2 push parser, which builds no node; `xmllint --stream` drives "
            "xmlTextReader, which builds a node per element on the same parser, so the "
            "difference between them is the node building abev does not do, less abev's "
            "interpretation of each result (attributes, outcome) and the machine's noise. "
            f"{trx_profile(t)} Peak RSS: abev {t['abev'].rss_mib():.1f} MiB, xmllint "
            f"{t['xmllint'].rss_mib():.1f} MiB.")


def trx_ratio_rows(t):
    size = f"{t['results']:,} results, {t['bytes'] / 1e6:.0f} MB"
    return [ratios.row("trx", t["abev"].wall(), t["xmllint"].wall(),
                       t["abev"].wall_median() / t["xmllint"].wall_median(), size=size),
            ratios.row("trx-rss", t["abev"].rss_mib(), t["xmllint"].rss_mib(), size=size)]


def trx_table(tr):
    return table(["results", "size", "abev results", "ms per MB", "xmllint --stream", "ms per MB",
                  "ratio", "peak RSS abev", "peak RSS xmllint", "abev CPU"],
                 [[f"{x['results']:,}", f"{x['bytes'] / 1e6:.1f} MB", fmt_s(x["abev"].wall()),
                   f"{x['abev'].wall() * 1e9 / x['bytes']:.2f}", fmt_s(x["xmllint"].wall()),
                   f"{x['xmllint'].wall() * 1e9 / x['bytes']:.2f}", f"{x['ratio']:.2f}x",
                   f"{x['abev'].rss_mib():.1f} MiB", f"{x['xmllint'].rss_mib():.1f} MiB",
                   fmt_s(x["abev"].cpu())] for x in tr])


def misses(oh, tr, evs, o, t, e, load0, load1):
    """A paragraph for each goal missed: by how much, and what the figures say of why."""
    out = []
    busy = f"The load average was {load0} before and {load1} after, on {os.cpu_count()} cores."
    if not ratios.met("overhead", o["ratio"]):
        goal = GOAL["overhead"]["goal"]
        out.append(
            f"**1. Per-invocation overhead**: {o['ratio']:.2f}x against {goal}x, "
            f"{(o['ratio'] / goal - 1) * 100:.0f}% over; {o['abev_ms'] / o['n']:.2f} ms per "
            f"invocation against hyperfine's {o['hf_ms'] / o['n']:.2f} ms. hyperfine writes "
            "nothing per run; abev makes one directory per invocation of `true` (a log only "
            "for a stream that prints), and a create in the temp dir, made as abev meets it "
            f"(right after the earlier rounds' evidence was deleted), cost "
            f"{o['create_ms']:.3f} ms in this run (on an ext4 without a journal the inode "
            "allocator scans past the recently deleted inodes; on tmpfs a create costs about "
            "0.01 ms). The largest part of abev's own work per invocation is clone3() (the "
            "kernel copies abev's address space); then the samples of /proc for the "
            "per-process figures, the directory walks that hold what the run left, and the "
            "record's JSON. docs/performance.md has the detail. " + busy)
    if not ratios.met("bias", o["bias_ms"]):
        out.append(
            f"**1. Timing bias**: {o['bias_ms']:+.3f} ms against {GOAL['bias']['goal']} ms. The window abev "
            "records runs from the go byte that releases the child to its reaping; waking "
            "the child on another core is part of it, and a busy machine lengthens that "
            "wake-up. " + busy)
    if not ratios.met("trx", t["ratio"]):
        out.append(trx_why(t))
    h, p = e["hash"], e["pack"]
    if not ratios.met("hash", h[0].wall() / h[2].wall()):
        out.append(
            f"**3. Hashing**: {h[0].wall() / h[2].wall():.2f}x openssl, against a goal of "
            f"{GOAL['hash']['goal']}x (0.44x before). sha256_files() hashes the 16 files on one thread per online core; on "
            f"one thread it takes {h[1].wall() / h[2].wall():.2f}x openssl's time (the same "
            "libcrypto SHA-256), so the gain of the second core is what is missing: "
            f"abev's CPU time was {fmt_s(h[0].cpu())} for {fmt_s(h[0].wall())} of wall time, "
            "which a second core left to it would make about half. " + busy)
    pr = p[0].wall() / p[1].wall()
    if not ratios.met("pack", pr):
        goal = GOAL["pack"]["goal"]
        out.append(
            f"**5. Pack**: {pr:.2f}x tar --zstd against {goal}x, {(pr / goal - 1) * 100:.0f}% "
            "over. "
            f"abev pack used {fmt_s(p[0].cpu())} of CPU for {fmt_s(p[0].wall())} of wall time "
            f"(zstd level 1 on two worker threads); tar and its zstd process (level 3, one "
            f"thread) used {fmt_s(p[1].cpu())} for {fmt_s(p[1].wall())}. Where abev's wall "
            "time is well above its CPU time it waited for the disk (it fsyncs the bundle "
            f"before linking it into place; tar does not: an fsync of the tarball afterwards "
            f"took {fmt_s(e['tar_fsync'])}) or for a core. " + busy)
    return out


def overhead_ratio_rows(o):
    return [ratios.row("overhead", o["abev_ms"] / 1e3, o["hf_ms"] / 1e3, o["ratio_median"],
                       n=o["n"]),
            ratios.row("bias", o["window_ms"], o["hf_mean_ms"], o["bias_ms_median"])]


def evidence_ratio_rows(e):
    h, v, p = e["hash"], e["verify"], e["pack"]
    size = size_label(e["bytes"])

    def of_medians(a, b):
        return a.wall_median() / b.wall_median()
    return [ratios.row("hash", h[0].wall(), h[2].wall(), of_medians(h[0], h[2]), size=size),
            ratios.row("pack", p[0].wall(), p[1].wall(), of_medians(p[0], p[1]), size=size),
            ratios.row("verify", v[0].wall(), v[1].wall(), of_medians(v[0], v[1]), size=size)]


def ratio_rows(o, t, e):
    """Issue 41's ratios, each at the size it names (or the largest measured)."""
    return overhead_ratio_rows(o) + trx_ratio_rows(t) + evidence_ratio_rows(e)


def context_rows(e):
    """Figures reported beside the ratios, with no goal of their own."""
    h, p = e["hash"], e["pack"]
    size = size_label(e["bytes"])
    hs = h[3].wall() / h[0].wall()
    return [[f"hashing {size} (16 files) vs `sha256sum`", fmt_s(h[0].wall()), fmt_s(h[3].wall()),
             f"{1 / hs:.2f}x ({hs:.1f}x faster; was 6x)"],
            ["same on one thread vs `openssl dgst -sha256`", fmt_s(h[1].wall()),
             fmt_s(h[2].wall()), f"{h[1].wall() / h[2].wall():.2f}x"],
            ["`abev pack` (fsyncs its bundle) vs `tar --zstd -cf` + fsync of the tarball",
             fmt_s(p[0].wall()), fmt_s(p[1].wall() + e["tar_fsync"]),
             f"{p[0].wall() / (p[1].wall() + e['tar_fsync']):.2f}x"]]


def at_goal_size(oh, tr, evs):
    """The overhead figures at 100 invocations (or the last), the largest TRX and evidence."""
    return next((x for x in oh if x["n"] == 100), oh[-1]), tr[-1], evs[-1]


def report(m, oh, tr, evs, sc, rounds, scales, started, elapsed, load0, load1, cr):
    L = []
    add = L.append
    add("# abev performance: `make bench`\n")
    add(f"Written by `make bench` (bench/bench.py) on {started:%Y-%m-%d %H:%M} UTC in "
        f"{elapsed:.0f} s. Best of {rounds} rounds in which abev and the stock tools "
        "take turns (the ratio of the medians beside it in the summary; the CPU times are "
        "medians); ratios are abev / stock tool (below 1: abev is "
        f"faster). Sizes: {', '.join(f'{s}x' for s in scales)} of each base. Page cache warm. "
        "Timed from outside: fork to reaping, as `os.wait4()` in the driver sees it; peak RSS "
        f"from GNU time ({GNU_TIME} -f %M), the larger of two runs apart from the timed ones.\n")
    add("## Machine\n")
    add(table(["", ""], [[k, v] for k, v in m.items()] +
              [["load average before", load0], ["load average after", load1]]))
    add("")

    add("## Summary\n")
    o, t, e = at_goal_size(oh, tr, evs)
    add(ratios.render(ratio_rows(o, t, e)))
    add("")
    add("Also reported, with no goal of their own:\n")
    add(table(["measure", "abev", "stock tool", "ratio"], context_rows(e)))
    add("")

    why = misses(oh, tr, evs, o, t, e, load0, load1)
    if why:
        add("## Where a goal is missed, and why\n")
        add("\n\n".join(why))
        add("")
    add("## 6. Growth with size\n")
    add("Per-unit cost at each size: a flat column is linear cost.\n")
    add("### Per-invocation overhead (`bench/run-overhead.sh N`)\n")
    add(table(["N x `true`", "abev run", "per invocation", "hyperfine -N", "per run", "ratio",
               "bias on `true`", "file create"],
              [[str(x["n"]), f"{x['abev_ms']:.0f} ms", f"{x['abev_ms'] / x['n']:.2f} ms",
                f"{x['hf_ms']:.0f} ms", f"{x['hf_ms'] / x['n']:.2f} ms", f"{x['ratio']:.2f}x",
                f"{x['bias_ms']:+.3f} ms", f"{x['create_ms']:.3f} ms"] for x in oh]))
    add("")
    add("### TRX parsing\n")
    add(trx_table(tr))
    add("")
    if trx_profile(tr[-1]):
        add(trx_profile(tr[-1]) + "\n")
    add("### Evidence: hashing, verify, pack\n")
    add("16 files, half random bytes (binaries, dumps), half benchmark-log text, in an "
        "evidence directory made and signed by `abev run`; times in ms per MiB.\n")
    rows = []
    for x in evs:
        mib = x["bytes"] / MIB
        h, v, p = x["hash"], x["verify"], x["pack"]
        rows.append([size_label(x["bytes"]),
                     " / ".join(f"{s.wall() * 1e3 / mib:.2f}" for s in h),
                     f"{h[0].wall() / h[2].wall():.2f}x",
                     " / ".join(f"{s.wall() * 1e3 / mib:.2f}" for s in v),
                     f"{v[0].wall() / v[1].wall():.2f}x",
                     " / ".join(f"{s.wall() * 1e3 / mib:.2f}" for s in p),
                     f"{p[0].wall() / p[1].wall():.2f}x",
                     f"{x['bundle_bytes'] / x['bytes']:.3f} / {x['tar_bytes'] / x['bytes']:.3f}"])
    add(table(["size", "hash: abev / abev 1 thread / openssl / sha256sum", "abev/openssl",
               "verify: abev / sha256sum -c", "ratio", "pack: abev / tar --zstd", "ratio",
               "compressed size: bundle / tarball"], rows))
    add("")
    add("Every bundle of the same evidence had the same bytes across the rounds "
        f"(at {size_label(evs[-1]['bytes'])}: sha256 {evs[-1]['bundle_sha256'][:16]}...). "
        "abev's CPU time (user + system, median): " +
        "; ".join(f"{size_label(x['bytes'])}: hash {fmt_s(x['hash'][0].cpu())}, verify "
                  f"{fmt_s(x['verify'][0].cpu())}, pack {fmt_s(x['pack'][0].cpu())} (tar + zstd "
                  f"{fmt_s(x['pack'][1].cpu())})" for x in evs) + ".\n")
    add("## 7. A long run: the time between invocations, abev's memory\n")
    add("`abev bench -N true -r N` (gap 0, no warmup), once per N under GNU time. \"gap at "
        f"K\" is the time from one invocation's `end_utc` to the next one's `start_utc` "
        f"(result.json): the median of the {SCALE_WINDOW} gaps before invocation K, and the "
        "mean of the gaps over the tenth of the run before K (where a rewrite of the whole "
        "record now and then shows); neither may grow with K. Peak RSS is abev's own.\n")
    add(scale_table(sc))
    add("")
    add("## 8. The child's own peak RSS\n")
    add(f"`abev bench -N true -r {cr['n']}`: the `max_rss_bytes` abev records for each "
        "invocation (the child's `ru_maxrss` from wait4, forked without abev's heap and the "
        "libraries it does not run) against "
        "GNU time's figure for `true` (median of 9). The "
        "figure must not grow with the run, nor with abev's size, and must be within 10 % of "
        "GNU time's.\n")
    ok = abs(cr["ratio"] - 1) <= 0.10 and cr["last_kib"] <= cr["first_kib"] * 1.10
    add(table(["first 10 (median)", "last 10 (median)", "max", "GNU time", "ratio", "goal"],
              [[f"{cr['first_kib']:.0f} KiB", f"{cr['last_kib']:.0f} KiB",
                f"{cr['max_kib']:.0f} KiB", f"{cr['gnu_kib']:.0f} KiB", f"{cr['ratio']:.2f}",
                "flat, within 10 %: " + ("met" if ok else "MISSED")]]))
    add("")
    return "\n".join(L)


def trx_only(scales, rounds, tmp):
    """BENCH_ONLY=trx: the TRX part alone, printed as the lines of results.md it
    gives (summary rows, the growth table, the profile, the paragraph if the
    goal is missed), for an update of those lines; results.md is not written."""
    tr = [trx(s, rounds, tmp, profile=s == scales[-1]) for s in scales]
    t = tr[-1]
    print(f"load average {loadavg()}\n")
    print(ratios.render(trx_ratio_rows(t)) + "\n")
    print(trx_table(tr) + "\n")
    print(trx_profile(t) + "\n")
    if not ratios.met("trx", t["ratio"]):
        print(trx_why(t))


# The short form's sizes: the overhead at the goal's 100 invocations; 8x the
# base TRX (16,000 results, 8 MiB) and evidence (16 files, 82 MiB).
SHORT_INVOCATIONS = 100
SHORT_SCALE = 8


def git_describe():
    return first_line(["git", "-C", SRC, "describe", "--always", "--dirty"]) \
        if os.path.isdir(os.path.join(SRC, ".git")) or os.path.isfile(os.path.join(SRC, ".git")) \
        else "unknown commit"


def one_liner(m, load0, load1, rounds):
    return (f"{m['CPU']}, {m['cores']}, {m['memory']}, {m['kernel']}, {m['OS']}, temp dir "
            f"{m['temp dir']}; load average {load0} before, {load1} after; best of {rounds} "
            "rounds.")


def fake_rows(path):
    """BENCH_FAKE: the ratio rows from scripted figures, {key: [abev, stock]}
    (seconds; ms for the bias; MiB for RSS), instead of measured ones."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"BENCH_FAKE: cannot read '{path}': {e}")
    unknown = [k for k in doc if k not in GOAL]
    if unknown:
        fail(f"BENCH_FAKE: no ratio named {', '.join(unknown)} (ratios.py: GOALS)")
    return [ratios.row(k, float(doc[k][0]), float(doc[k][1]), n=SHORT_INVOCATIONS,
                       size="scripted") for k in GOAL if k in doc]


def short_cpus():
    return int_env("BENCH_CPUS", len(os.sched_getaffinity(0)), 1)


def judge_short(rows):
    """The short form's verdict: 1 when a ratio that fails is beyond twice its goal."""
    cpus = short_cpus()
    print(ratios.render(rows, cpus=cpus))
    bad = ratios.failures(rows, cpus)
    for r in rows:
        if r["gross"]:
            k = r["key"]
            if not ratios.fails(k, cpus):
                how = f"; reported, not failed (on {cpus} CPU{'s' if cpus > 1 else ''})"
            elif not r["slipped"]:
                how = (f"; fails beyond {ratios.fail_line(k):.2f}x, "
                       f"{ratios.GOAL[k]['fail_why']}")
            else:
                how = ""
            print(f"bench-short: {k}: {ratios.fmt_value(k, r['value'])}, over "
                  f"twice its goal ({ratios.fmt_goal(k)}){how}")
    print(f"bench-short: {'FAILED' if bad else 'passed'}: {len(bad)} of {len(rows)} ratios "
          f"beyond their fail line")
    return 1 if bad else 0


def short_form(rounds, groups):
    """BENCH_SHORT=1: issue 41's ratios of groups (ratios.GROUPS) at small
    sizes, best of BENCH_ROUNDS (3 through make bench-short); nothing written
    but temp files."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="abev-bench-short-") as tmp:
        if "overhead" in groups:
            rows += overhead_ratio_rows(overhead(SHORT_INVOCATIONS, rounds, tmp))
        if "trx" in groups:
            rows += trx_ratio_rows(trx(SHORT_SCALE, rounds, tmp))
        if "evidence" in groups:
            sh([ABEV, "keygen", "--out", os.path.join(tmp, "k")])
            rows += evidence_ratio_rows(evidence(SHORT_SCALE, rounds, tmp,
                                                 os.path.join(tmp, "k")))
    return rows


def short_tries(rounds, cpus):
    """The short form, its gross slips measured again: a ratio fails only
    when it is beyond twice its goal in each of BENCH_SHORT_TRIES (3) tries,
    a slip of one try being as likely a burst of other work as abev's."""
    tries = int_env("BENCH_SHORT_TRIES", 3, 1)
    rows = short_form(rounds, ratios.GROUPS)
    for n in range(2, tries + 1):
        bad = ratios.failures(rows, cpus)
        if not bad:
            break
        groups = {ratios.GOAL[r["key"]]["group"] for r in bad}
        print(f"bench-short: {', '.join(r['key'] for r in bad)} beyond their fail line; "
              f"measuring {', '.join(sorted(groups))} again (try {n} of {tries}; load "
              f"{loadavg()})", flush=True)
        rows = ratios.best_of(rows, short_form(rounds, groups))
    return rows


def record(rows, started, commit, line):
    """Appends the dated table to BENCH_OUT's history and prints it, with the
    ratios more than 10 % worse than the table before."""
    text, worse, label = ratios.append_history(OUT, rows, started, commit, line)
    print("\n" + text)
    for r in worse:
        print(f"bench: {r['key']} is more than 10 % worse than at {label}: say why in the "
              "stop's note")
    print(f"bench: appended the dated table to {OUT}")


def main():
    short = os.environ.get("BENCH_SHORT", "") == "1"
    fake = os.environ.get("BENCH_FAKE", "")
    rounds = int_env("BENCH_ROUNDS", 3 if short else 5, 1)
    started, commit = datetime.datetime.now(datetime.timezone.utc), git_describe()
    if fake:
        rows = fake_rows(fake)
        if short:
            sys.exit(judge_short(rows))
        record(rows, started, commit, "Scripted figures (BENCH_FAKE), not measured.")
        return
    check_tools()
    if short:
        t0 = time.monotonic()
        print(f"bench-short: {ABEV} ({first_line([ABEV, '--version'])}), {rounds} rounds each, "
              f"in {tempfile.gettempdir()}; load {loadavg()}", flush=True)
        rows = short_tries(rounds, short_cpus())
        print(f"bench-short: {time.monotonic() - t0:.0f} s; load {loadavg()}")
        sys.exit(judge_short(rows))
    scale_max = int_env("BENCH_SCALE", 100, 1)
    scales = sorted({s for s in (1, 10, 100) if s <= scale_max} | {scale_max})
    tmp_root = tempfile.gettempdir()
    t0, load0 = time.monotonic(), loadavg()
    print(f"bench: sizes {scales} x base, {rounds} rounds each, in {tmp_root}; load {load0}")
    if os.environ.get("BENCH_ONLY") == "trx":
        with tempfile.TemporaryDirectory(prefix="abev-bench-") as tmp:
            trx_only(scales, rounds, tmp)
        return
    if os.environ.get("BENCH_ONLY") == "child_rss":
        with tempfile.TemporaryDirectory(prefix="abev-bench-") as tmp:
            print(child_rss_line(child_rss(tmp)))
        return
    if os.environ.get("BENCH_ONLY") == "scale":
        with tempfile.TemporaryDirectory(prefix="abev-bench-") as tmp:
            scale_only(tmp)
        return
    with tempfile.TemporaryDirectory(prefix="abev-bench-") as tmp:
        m = machine(tmp_root)
        sh([ABEV, "keygen", "--out", os.path.join(tmp, "k")])
        oh = []
        for s in scales:
            oh.append(overhead(10 * s, rounds, tmp))
            x = oh[-1]
            print(f"1. {x['n']} x true: abev run {x['abev_ms']:.0f} ms, hyperfine -N "
                  f"{x['hf_ms']:.0f} ms, {x['ratio']:.2f}x; bias {x['bias_ms']:+.3f} ms", flush=True)
        tr = []
        for s in scales:
            tr.append(trx(s, rounds, tmp, profile=s == scales[-1]))
            x = tr[-1]
            print(f"2. {x['results']} results, {x['bytes'] / 1e6:.1f} MB: abev results "
                  f"{fmt_s(x['abev'].wall())} ({x['abev'].rss_mib():.1f} MiB), xmllint --stream "
                  f"{fmt_s(x['xmllint'].wall())} ({x['xmllint'].rss_mib():.1f} MiB), "
                  f"{x['ratio']:.2f}x", flush=True)
        evs = []
        for s in scales:
            evs.append(evidence(s, rounds, tmp, os.path.join(tmp, "k")))
            x = evs[-1]
            print(f"3-5. {size_label(x['bytes'])}: " + "; ".join(
                f"{s.label} {fmt_s(s.wall())}" for s in x["hash"] + x["verify"] + x["pack"]) +
                f"; tar's fsync {fmt_s(x['tar_fsync'])}", flush=True)
        sc = []
        top = int_env("BENCH_SCALE_MAX", SCALE_SIZES[-1], 2)
        for n in sorted({k for k in SCALE_SIZES if k <= top} | {top}):
            sc.append(scale(n, tmp))
            print(scale_line(sc[-1]), flush=True)
        cr = child_rss(tmp)
        print(child_rss_line(cr), flush=True)
    load1 = loadavg()
    text = report(m, oh, tr, evs, sc, rounds, scales, started, time.monotonic() - t0, load0,
                  load1, cr)
    text += kept_calibration()
    with open(OUT, "w") as f:
        f.write(text)
    print(f"bench: wrote {OUT}")
    record(ratio_rows(*at_goal_size(oh, tr, evs)), started, commit,
           one_liner(m, load0, load1, rounds))


CALIBRATION_HEADING = "\n## Gate calibration (simulation)\n"
BUSY_HEADING = "\n## Busy machine (issue 28)\n"
HISTORY_HEADING = "\n" + ratios.HISTORY_HEADING + "\n"


def kept_calibration():
    """The sections of the results.md being replaced that other targets
    write (make bench-busy's, then make bench-calibration's table), which
    this script does not rerun, and the history of ratios, which it only
    appends to, or ""."""
    try:
        with open(OUT, encoding="utf-8") as f:
            old = f.read()
    except OSError:
        return ""
    found = [at for at in (old.find(h) for h in (BUSY_HEADING, CALIBRATION_HEADING,
                                                  HISTORY_HEADING)) if at >= 0]
    return old[min(found):] if found else ""


if __name__ == "__main__":
    main()
