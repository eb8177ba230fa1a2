#!/bin/sh
# `make demo`: runs the bundled A/B example (examples/demo/plan.json) into a
# fresh evidence directory under build/demo/ (abev itself ends with the
# decision and one line per metric), says where the evidence is, and exits
# with abev's exit code (0 for the rejection, exit 5, that the demo is built
# to show).
# Run from the repository root after ./abev and the demo suite are built.
set -u
if [ ! -x ./abev ] || [ ! -x build/examples/demo-suite ]; then
	echo "demo: build ./abev and build/examples/demo-suite first (make demo does)" >&2
	exit 3
fi
mkdir -p build/demo || exit 3
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=build/demo/$stamp
# abev refuses an existing --out: a second demo within the same second gets a suffix.
n=1
while [ -e "$out" ] && [ "$n" -lt 100 ]; do
	n=$((n + 1))
	out=build/demo/$stamp-$n
done

# The demo signs its evidence with a key of its own, made once.
key=build/demo/demo-key
if [ ! -f "$key.key" ]; then
	./abev keygen --out "$key" >/dev/null || exit 3
fi

./abev run examples/demo/plan.json --out "$out" --key "$key.key"
rc=$?

echo
[ -f "$out/report.md" ] || echo "demo: no report was written (abev exited $rc)" >&2
echo "The evidence is in $out; the full report is $out/report.md."
echo "Check it: ./abev verify $out --pubkey $key.pub"
# The demo's candidate trades memory for speed on purpose: abev rejecting it (exit 5,
# a failed gate) is the demo working. Anything else is passed on.
if [ "$rc" -eq 5 ]; then
	echo "abev exited 5: the candidate was rejected by a gate, as this demo expects."
	exit 0
fi
exit "$rc"
