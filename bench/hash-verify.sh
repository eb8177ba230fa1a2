#!/bin/sh
# Hashing and verification against stock tools on the same files, side by
# side (never a timed assertion in the tests: the machines are shared).
#
# 1. Hashing 1 GiB of assemblies: `abev run` of a plan whose only work is
#    metadata.json (16 files of 64 MiB under bin/**, a `true` command)
#    against `openssl dgst -sha256` and `sha256sum` over the same files.
#    Goal: abev within 1.1x of openssl's time.
# 2. Verifying: `abev verify` of an evidence directory holding those files
#    against `sha256sum -c` of its SHA256. Goal: abev faster.
#
# Usage: bench/hash-verify.sh [FILES] [MIB_EACH]   (from the repository root, after make)
set -eu
N=${1:-16}
MIB=${2:-64}
ABEV=${ABEV:-./abev}
[ -x "$ABEV" ] || { echo "bench: build abev first (make)" >&2; exit 2; }
for t in openssl sha256sum python3; do
	command -v $t >/dev/null 2>&1 || { echo "bench: needs $t" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/w/bin/Release/net8.0"
i=0
while [ $i -lt "$N" ]; do
	head -c $((MIB * 1024 * 1024)) /dev/urandom > "$work/w/bin/Release/net8.0/a$i.dll"
	i=$((i + 1))
done
cat > "$work/plan.json" <<JSON
{ "schema": "abev.plan/1", "name": "hash-bench",
  "variants": [ { "name": "v", "cwd": "w", "command": ["true"],
                  "assemblies": ["bin/**/*.dll"] } ],
  "schedule": { "runs": 1 },
  "load": { "max_foreign_cpu": 1000, "max_repeats": 0 } }
JSON
"$ABEV" keygen --out "$work/k" >/dev/null

now() { date +%s.%N; }
best() { # best of 3 wall times of a command, in seconds
	b=""
	for r in 1 2 3; do
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		b=$(python3 -c "import sys; t=$t1-$t0; b='$b'; print(t if not b else min(t, float(b)))")
	done
	echo "$b"
}
run_abev() { rm -rf "$work/ev"; "$ABEV" run "$work/plan.json" --out "$work/ev" --quiet --unsigned; }

cat "$work"/w/bin/Release/net8.0/*.dll > /dev/null   # warm the page cache for everyone
t_abev=$(best run_abev)
t_openssl=$(best openssl dgst -sha256 "$work"/w/bin/Release/net8.0/*.dll)
t_sum=$(best sha256sum "$work"/w/bin/Release/net8.0/*.dll)

# An evidence directory holding the same bytes, sealed and signed: a run
# whose only work is to copy the files into its own directory.
cat > "$work/plan2.json" <<JSON
{ "schema": "abev.plan/1", "name": "verify-bench",
  "variants": [ { "name": "v", "command": ["sh", "-c", "cp $work/w/bin/Release/net8.0/*.dll \"\$ABEV_RUN_DIR\"/"] } ],
  "schedule": { "runs": 1 },
  "load": { "max_foreign_cpu": 1000, "max_repeats": 0 } }
JSON
rm -rf "$work/ev3"
"$ABEV" run "$work/plan2.json" --out "$work/ev3" --quiet --key "$work/k.key"
t_verify=$(best "$ABEV" verify "$work/ev3" --pubkey "$work/k.pub")
t_check=$(best sh -c "cd '$work/ev3' && sha256sum -c --strict --quiet SHA256")

python3 - "$N" "$MIB" "$t_abev" "$t_openssl" "$t_sum" "$t_verify" "$t_check" <<'PY'
import sys
n, mib = int(sys.argv[1]), int(sys.argv[2])
a, o, s, v, c = map(float, sys.argv[3:])
print(f"input: {n} files of {mib} MiB ({n * mib / 1024:.2f} GiB), page cache warm, best of 3")
print(f"hashing: abev run (metadata.json) {a:.3f} s, openssl dgst {o:.3f} s, sha256sum {s:.3f} s; "
      f"abev/openssl {a / o:.2f}  (goal: within 1.1)")
print(f"verify: abev verify {v:.3f} s, sha256sum -c {c:.3f} s; abev/sha256sum {v / c:.2f}  "
      f"(goal: under 1)")
PY
