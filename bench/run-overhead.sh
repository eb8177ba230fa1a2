#!/bin/sh
# Benchmarks of the run engine against hyperfine, run side by side on the
# same machine (never timed assertions in tests: the machines are shared).
#
# 1. Overhead: N invocations of a trivial command (`true`) through
#    `abev run` versus `hyperfine -N --runs N true`. Reports the total
#    time per invocation of each and the ratio. abev does more per
#    invocation by design (a cgroup, a /proc scan for leftovers, two
#    samples of /proc, four fsync'd evidence files); the goal is that this
#    stays small next to any real test run: under 25 ms per invocation.
# 2. Accuracy: the median wall time abev records for `sleep 0.2` versus
#    hyperfine's median for the same command. Goal: within 2 ms.
#
# Usage: bench/run-overhead.sh [N]   (from the repository root, after make)
set -eu
N=${1:-50}
ABEV=${ABEV:-./abev}
command -v hyperfine >/dev/null 2>&1 || { echo "bench: needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }
[ -x "$ABEV" ] || { echo "bench: build abev first (make)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
TRUE=$(command -v true)
SLEEP=$(command -v sleep)

cat > "$work/true.json" <<JSON
{ "schema": "abev.plan/1", "name": "overhead",
  "variants": [ { "name": "true", "command": ["$TRUE"] } ],
  "schedule": { "runs": $N },
  "load": { "max_foreign_cpu": 1000, "max_repeats": 0 } }
JSON
cat > "$work/sleep.json" <<JSON
{ "schema": "abev.plan/1", "name": "accuracy",
  "variants": [ { "name": "sleep", "command": ["$SLEEP", "0.2"] } ],
  "schedule": { "runs": 10 },
  "load": { "max_foreign_cpu": 1000, "max_repeats": 0 } }
JSON

now() { date +%s.%N; }

t0=$(now)
"$ABEV" run "$work/true.json" --out "$work/ev-true" --quiet --unsigned
t1=$(now)
hyperfine -N --runs "$N" --warmup 0 --style none --export-json "$work/hf-true.json" "$TRUE" >/dev/null
t2=$(now)

"$ABEV" run "$work/sleep.json" --out "$work/ev-sleep" --quiet --unsigned
hyperfine -N --runs 10 --style none --export-json "$work/hf-sleep.json" "$SLEEP 0.2" >/dev/null

python3 - "$work" "$N" "$t0" "$t1" "$t2" <<'PY'
import json, statistics, sys
work, n, t0, t1, t2 = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
abev_per = (t1 - t0) / n * 1e3
hf_per = (t2 - t1) / n * 1e3
print(f"overhead: abev {abev_per:.2f} ms/invocation, hyperfine {hf_per:.2f} ms/run, "
      f"ratio {abev_per / hf_per:.1f}x  (goal: abev under 25 ms/invocation)")
with open(f"{work}/ev-sleep/result.json") as f:
    abev_med = statistics.median(i["wall_ns"] for i in json.load(f)["invocations"]) / 1e6
with open(f"{work}/hf-sleep.json") as f:
    hf_med = json.load(f)["results"][0]["median"] * 1e3
print(f"accuracy: sleep 0.2 median wall: abev {abev_med:.2f} ms, hyperfine {hf_med:.2f} ms, "
      f"difference {abev_med - hf_med:+.2f} ms  (goal: within 2 ms)")
PY
