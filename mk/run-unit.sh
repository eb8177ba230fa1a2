#!/bin/sh
# Runs each cmocka unit-test binary and prints one closing line with the totals.
# With --valgrind first: each under valgrind (memcheck), where any error or a
# definite or indirect leak fails the program — in forked children too, whose
# reports go to their own log files under build/valgrind/.
set -u
pass=0
fail=0
vg=0
if [ "${1:-}" = --valgrind ]; then
	vg=1
	shift
	logs=build/valgrind
	rm -rf "$logs"
	mkdir -p "$logs"
fi
for t in "$@"; do
	if [ "$vg" = 1 ]; then
		name=$(basename "$t")
		valgrind -q --error-exitcode=1 --leak-check=full \
			--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
			--log-file="$logs/$name.%p.log" "$t"
		rc=$?
		# -q leaves a log empty unless something was wrong, in any process.
		for log in "$logs/$name".*.log; do
			if [ -s "$log" ]; then
				cat "$log"
				rc=1
			fi
		done
	else
		"$t"
		rc=$?
	fi
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "unit: FAILED: $t"
	fi
done
echo "unit test programs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
