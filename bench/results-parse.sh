#!/bin/sh
# Benchmark of the result-file reader against libxml2's own streaming parser,
# run side by side on the same machine (never a timed assertion in tests).
#
# Generates a 100 MB VSTest TRX holding 200 000 results (with captured stdout,
# data-driven rows and every outcome abev counts) with
# tests/helpers/gen_results.py in a temporary directory, then times
# `abev results FILE` against `xmllint --stream --noout FILE` (which only
# checks well-formedness: the least any streaming reader must do).
# Goal: abev not slower than xmllint --stream. Also prints abev's peak RSS
# (goal: under 30 MiB, the bound tests/integration/test_results_hostile.py
# checks) and that abev's counts are the generator's.
#
# Uses hyperfine when present (hyperfine -N --warmup 1 --runs 5), else a loop
# of 5 timed runs after one warmup. Peak RSS from /usr/bin/time -v when
# present, else by polling VmHWM in /proc/<pid>/status.
#
# Usage: bench/results-parse.sh [RESULTS] [SIZE]   (from the repository root,
#        after make; defaults 200000 and 100M)
set -eu
RESULTS=${1:-200000}
SIZE=${2:-100M}
RUNS=5
ABEV=${ABEV:-./abev}
PYTHON=${PYTHON:-python3}
GEN=tests/helpers/gen_results.py
command -v xmllint >/dev/null 2>&1 || { echo "bench: needs xmllint (apt-get install libxml2-utils)" >&2; exit 2; }
command -v "$PYTHON" >/dev/null 2>&1 || { echo "bench: needs python3" >&2; exit 2; }
[ -x "$ABEV" ] || { echo "bench: build abev first (make)" >&2; exit 2; }
[ -f "$GEN" ] || { echo "bench: run from the repository root" >&2; exit 2; }
case $ABEV in /*) ;; *) ABEV=$(pwd)/$ABEV ;; esac
XMLLINT=$(command -v xmllint)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
f="$work/big.trx"

"$PYTHON" "$GEN" trx "$f" --results "$RESULTS" --size "$SIZE" --shape lean --data-driven 500 \
	> "$work/expect.json"
"$ABEV" results "$f" --json > "$work/abev.json"

if command -v hyperfine >/dev/null 2>&1; then
	timer=hyperfine
	hyperfine -N --warmup 1 --runs "$RUNS" --style none --export-json "$work/hf.json" \
		"$ABEV results $f" "$XMLLINT --stream --noout $f" >/dev/null
else
	timer="loop of $RUNS runs"
	now() { date +%s.%N; }
	for which in abev xmllint; do
		if [ "$which" = abev ]; then set -- "$ABEV" results "$f"; else set -- "$XMLLINT" --stream --noout "$f"; fi
		"$@" >/dev/null
		i=0
		while [ "$i" -lt "$RUNS" ]; do
			t0=$(now); "$@" >/dev/null; t1=$(now)
			echo "$t0 $t1" >> "$work/$which.times"
			i=$((i + 1))
		done
	done
fi

peak_rss() {   # prints the peak RSS of "$@" in KiB
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p'
	else
		"$PYTHON" - "$@" <<'PY'
import os, re, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
name, peak = os.path.basename(sys.argv[1])[:15], 0
while p.poll() is None:
    try:
        s = open(f"/proc/{p.pid}/status").read()
        if re.search(rf"^Name:\s*{re.escape(name)}$", s, re.M):
            peak = max(peak, int(re.search(r"^VmHWM:\s*(\d+)", s, re.M).group(1)))
    except (OSError, AttributeError):
        pass
    time.sleep(0.002)
print(peak)
PY
	fi
}
if [ -x /usr/bin/time ]; then rss_how="/usr/bin/time -v"; else rss_how="VmHWM polling"; fi
abev_rss=$(peak_rss "$ABEV" results "$f")
xmllint_rss=$(peak_rss "$XMLLINT" --stream --noout "$f")

"$PYTHON" - "$work" "$timer" "$rss_how" "$abev_rss" "$xmllint_rss" <<'PY'
import json, os, statistics, sys
work, timer, rss_how = sys.argv[1:4]
abev_rss, xmllint_rss = int(sys.argv[4]) / 1024, int(sys.argv[5]) / 1024
with open(f"{work}/expect.json") as f:
    expect = json.load(f)
with open(f"{work}/abev.json") as f:
    got = json.load(f)["files"][0]
keys = ("total", "executed", "passed", "failed", "errors", "skipped", "other")
if os.path.exists(f"{work}/hf.json"):
    with open(f"{work}/hf.json") as f:
        a, x = (r["median"] * 1e3 for r in json.load(f)["results"])
else:
    def med(name):
        with open(f"{work}/{name}.times") as f:
            return statistics.median(float(b) - float(a) for a, b in (l.split() for l in f)) * 1e3
    a, x = med("abev"), med("xmllint")
mb = expect["bytes"] / 1e6
print(f"input: TRX of {expect['total']} results, {mb:.1f} MB ({expect['bytes'] / 2**20:.1f} MiB); timed with {timer}")
print(f"parse: median abev results {a:.1f} ms ({mb / a * 1e3:.0f} MB/s), "
      f"xmllint --stream --noout {x:.1f} ms ({mb / x * 1e3:.0f} MB/s), ratio abev/xmllint {a / x:.2f}  "
      f"(goal: abev not slower than xmllint --stream)")
print(f"memory: peak RSS abev {abev_rss:.1f} MiB, xmllint --stream {xmllint_rss:.1f} MiB ({rss_how})  "
      f"(goal: abev under 30 MiB)")
same = all(got[k] == expect[k] for k in keys)
print("counts: " + " ".join(f"{k}={got[k]}" for k in keys) +
      ("  (as generated)" if same else "  DIFFER from the generator's: " +
       " ".join(f"{k}={expect[k]}" for k in keys)))
sys.exit(0 if same else 1)
PY
