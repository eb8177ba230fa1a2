#!/bin/sh
# Runs each libFuzzer target named on the command line for FUZZ_SECONDS,
# one after the other, and prints one closing line with the totals.
# Corpus directories, in libFuzzer's order: build-fuzz/corpus/<t> (where
# new inputs are written; kept between runs), then the read-only seeds:
# tests/fuzz/seeds/<t>, tests/hostile/<t> (the regression cases of the
# reader; their .expect and README files are small extra inputs),
# build-fuzz/seeds/<t> (make_seeds) and whatever
# FUZZ_SEEDS_<t> names (e.g. ../shared/corpus/trx, read in place and
# skipped with a message when absent; tests/fuzz/seeds/<t> and
# the other seed folders need not exist for every target). tests/fuzz/fuzz_<t>.dict,
# when there, is the target's libFuzzer dictionary. A crash leaves its input in
# build-fuzz/crashes/ and fails the run.
set -u
B=${FUZZ_B:-build-fuzz}
secs=${FUZZ_SECONDS:-120}
pass=0
fail=0
# A target stopped by a signal leaves its temp directory behind: start afresh.
rm -rf "$B/tmp"
mkdir -p "$B/crashes" "$B/tmp"
for t in "$@"; do
	corpus="$B/corpus/$t"
	mkdir -p "$corpus"
	dirs=""
	eval "extra=\${FUZZ_SEEDS_$t:-}"
	for d in "tests/fuzz/seeds/$t" "tests/hostile/$t" "$B/seeds/$t"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	for d in $extra; do
		if [ -d "$d" ]; then
			dirs="$dirs $d"
		else
			echo "fuzz: $t: no seed directory '$d', skipped"
		fi
	done
	dict=""
	[ -f "tests/fuzz/fuzz_$t.dict" ] && dict="-dict=tests/fuzz/fuzz_$t.dict"
	echo "fuzz: $t for ${secs}s (seeds:$dirs)"
	# Temp files of the target go to a directory of its own under build-fuzz/;
	# stdin is empty, as a plan may name /dev/stdin as a file to read.
	# shellcheck disable=SC2086
	if TMPDIR="$PWD/$B/tmp" "$B/fuzz_$t" -max_total_time="$secs" -timeout=30 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 $dict \
		-artifact_prefix="$B/crashes/$t-" "$corpus" $dirs </dev/null >"$B/fuzz_$t.log" 2>&1; then
		pass=$((pass + 1))
		grep -E '^stat::number_of_executed_units|^Done ' "$B/fuzz_$t.log" | sed "s/^/fuzz: $t: /"
	else
		fail=$((fail + 1))
		tail -n 60 "$B/fuzz_$t.log"
		echo "fuzz: FAILED: $t (full log: $B/fuzz_$t.log; input in $B/crashes/)"
	fi
done
echo "fuzz targets: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
