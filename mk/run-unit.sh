#!/bin/sh
# Runs each cmocka unit-test binary and prints one closing line with the totals.
set -u
pass=0
fail=0
for t in "$@"; do
	if "$t"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "unit: FAILED: $t"
	fi
done
echo "unit test programs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
