#!/bin/sh
# Every header of abev's sources compiles on its own, included twice
# (its include guard holds), with the build's own flags: a header brings
# what it needs and nothing relies on what a .c happened to include first.
# Usage: check-headers.sh CC CFLAGS...   (run from the checkout by make check-headers)
cc=$1; shift
fail=0 n=0
for h in $(sed -n 's/^\([a-z][^#: ]*\).*/\1/p' mk/layers | while read -r d; do ls "$d"/*.h 2>/dev/null; done); do
	n=$((n + 1))
	inc=${h#orchestrator/}
	if ! printf '#include "%s"\n#include "%s"\ntypedef int check_headers_unit;\n' "$inc" "$inc" |
		"$cc" "$@" -fsyntax-only -x c - 2>/tmp/check-headers.$$; then
		echo "$h: does not compile on its own:"
		sed 's/^/    /' /tmp/check-headers.$$
		fail=$((fail + 1))
	fi
done
rm -f /tmp/check-headers.$$
if [ "$fail" -ne 0 ]; then
	echo "check-headers: $fail of $n headers do not compile on their own"
	exit 1
fi
echo "check-headers: $n headers compile on their own"
