#!/bin/sh
# Benchmarks of the run engine against `hyperfine -N`, side by side on the
# same machine (never timed assertions in tests: the machines are shared).
#
# (a) Window: the median wall time abev records for `true` (result.json's
#     wall_ns: from the go byte to the child's reaping, see proc.h)
#     against hyperfine's mean (and median) for `true`. Goal: within 0.3 ms.
# (b) Throughput: the elapsed time of N (default 100) invocations of `true`
#     through one `abev run` against `hyperfine -N --runs N true`, each
#     timed from outside. Goal: abev at most 1.5x hyperfine.
#
# Both are measured ROUNDS times (default 5), abev and hyperfine taking
# turns, and the median of each figure is printed, so that a burst of
# other work on the machine does not land on one side only. The evidence
# goes under TMPDIR (default /tmp): abev creates a directory and two logs
# per invocation (before issue 41 also result.json, resource.log and
# guard.log), so the file system's cost of a create shows in (b); it is
# printed too.
#
# Usage: bench/run-overhead.sh [N [ROUNDS]]   (from the repository root, after make)
# ABEV=path picks the binary (default ./abev).
set -eu
N=${1:-100}
ROUNDS=${2:-5}
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
  "load": { "max_cpu_wait_pct": 100, "max_repeats": 0 } }
JSON

now() { date +%s.%N; }

: > "$work/times"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	t0=$(now)
	"$ABEV" run "$work/true.json" --out "$work/ev-$r" --quiet --unsigned >/dev/null
	t1=$(now)
	hyperfine -N --runs "$N" --warmup 0 --style none --export-json "$work/hf-$r.json" \
		"$TRUE" >/dev/null 2>&1
	t2=$(now)
	echo "$r $t0 $t1 $t2" >> "$work/times"
	r=$((r + 1))
done

python3 - "$work" "$N" <<'PY'
import json, os, shutil, statistics as st, sys, time
work, n = sys.argv[1], int(sys.argv[2])
med_a, hf_mean, hf_med, abev_t, hf_t = [], [], [], [], []
for line in open(f"{work}/times"):
    r, t0, t1, t2 = line.split()
    t0, t1, t2 = float(t0), float(t1), float(t2)
    with open(f"{work}/ev-{r}/result.json") as f:
        med_a.append(st.median(i["wall_ns"] for i in json.load(f)["invocations"]) / 1e6)
    with open(f"{work}/hf-{r}.json") as f:
        res = json.load(f)["results"][0]
    hf_mean.append(res["mean"] * 1e3)
    hf_med.append(res["median"] * 1e3)
    abev_t.append(t1 - t0)
    hf_t.append(t2 - t1)
# A create as abev meets it: right after the rounds' evidence was deleted (on
# ext4 the inode allocator then scans the recently deleted inodes), as many
# as one run made before issue 41 (a directory and six files per invocation;
# now a directory and two), the same for either binary.
for r in {line.split()[0] for line in open(f"{work}/times")}:
    shutil.rmtree(f"{work}/ev-{r}", ignore_errors=True)
d = os.path.join(work, "creates")
os.mkdir(d)
c0 = time.perf_counter()
for i in range(n):
    os.mkdir(os.path.join(d, str(i)))
    for k in range(6):
        os.close(os.open(os.path.join(d, str(i), str(k)), os.O_CREAT | os.O_WRONLY, 0o644))
create_ms = (time.perf_counter() - c0) / (7 * n) * 1e3
a, m, md = st.median(med_a), st.median(hf_mean), st.median(hf_med)
print(f"rounds: {len(med_a)}, medians over them; load average now {open('/proc/loadavg').read().split()[0]}; "
      f"a file create under {os.path.dirname(work)} costs {create_ms:.3f} ms")
print(f"(a) window:     true: abev median recorded wall {a:.3f} ms; hyperfine mean {m:.3f} ms "
      f"(median {md:.3f} ms); difference to the mean {a - m:+.3f} ms  (goal: within 0.3 ms) "
      f"{'met' if abs(a - m) <= 0.3 else 'MISSED'}")
at, ht = st.median(abev_t), st.median(hf_t)
print(f"(b) throughput: {n} x true: abev run {at * 1e3:.0f} ms ({at / n * 1e3:.2f} ms each), "
      f"hyperfine -N {ht * 1e3:.0f} ms ({ht / n * 1e3:.2f} ms each), ratio {at / ht:.2f}x  "
      f"(goal: at most 1.5x) {'met' if at / ht <= 1.5 else 'MISSED'}")
PY
