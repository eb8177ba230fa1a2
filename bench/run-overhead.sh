#!/bin/sh
# Benchmarks of the run engine against `hyperfine -N`, side by side on the
# same machine (never timed assertions in tests: the machines are shared).
#
# (a) Window: the median wall time abev records for `true` (result.json's
#     wall_ns: from the go signal to the child's reaping, see proc.h)
#     against hyperfine's mean for `true`. Goal: within 0.3 ms.
# (b) Throughput: the elapsed time of N (default 100) invocations of `true`
#     through one `abev run` against `hyperfine -N --runs N true`, each
#     timed from outside. Goal: abev at most 1.5x hyperfine.
#
# Usage: bench/run-overhead.sh [N]   (from the repository root, after make)
# ABEV=path picks the binary (default ./abev).
set -eu
N=${1:-100}
ABEV=${ABEV:-./abev}
command -v hyperfine >/dev/null 2>&1 || { echo "bench: needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }
[ -x "$ABEV" ] || { echo "bench: build abev first (make)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
TRUE=$(command -v true)

cat > "$work/true.json" <<JSON
{ "schema": "abev.plan/1", "name": "overhead",
  "variants": [ { "name": "true", "command": ["$TRUE"] } ],
  "schedule": { "runs": $N, "gap_seconds": 0 },
  "load": { "max_foreign_cpu": 1000, "max_repeats": 0 } }
JSON

now() { date +%s.%N; }

t0=$(now)
"$ABEV" run "$work/true.json" --out "$work/ev-true" --quiet --unsigned >/dev/null
t1=$(now)
hyperfine -N --runs "$N" --warmup 0 --style none --export-json "$work/hf-true.json" "$TRUE" >/dev/null
t2=$(now)

python3 - "$work" "$N" "$t0" "$t1" "$t2" <<'PY'
import json, statistics, sys
work, n, t0, t1, t2 = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
with open(f"{work}/ev-true/result.json") as f:
    walls = [i["wall_ns"] for i in json.load(f)["invocations"] if not i.get("warmup")]
abev_med = statistics.median(walls) / 1e6
with open(f"{work}/hf-true.json") as f:
    hf_mean = json.load(f)["results"][0]["mean"] * 1e3
d = abev_med - hf_mean
print(f"(a) window:     true: abev median recorded wall {abev_med:.3f} ms, hyperfine mean "
      f"{hf_mean:.3f} ms, difference {d:+.3f} ms, ratio {abev_med / hf_mean:.2f}x  "
      f"(goal: within 0.3 ms) {'met' if abs(d) <= 0.3 else 'MISSED'}")
abev_total, hf_total = t1 - t0, t2 - t1
r = abev_total / hf_total
print(f"(b) throughput: {n} x true: abev run {abev_total * 1e3:.0f} ms "
      f"({abev_total / n * 1e3:.2f} ms each), hyperfine -N {hf_total * 1e3:.0f} ms "
      f"({hf_total / n * 1e3:.2f} ms each), ratio {r:.2f}x  (goal: at most 1.5x) "
      f"{'met' if r <= 1.5 else 'MISSED'}")
PY
