#!/bin/sh
# `make demo-dotnet`: the .NET worked example (examples/dotnet-sdk-upgrade/).
# Builds the library at both versions with its xunit suite, once, into
# build/examples/dotnet-sdk-upgrade/{baseline,candidate}/ (dotnet build -c
# Release, from the machine's NuGet folder where it has one), then runs the
# plan: real `dotnet test --no-build`, 1 warmup and 6 alternated rounds,
# signed with the demo's key, and checks the evidence with abev verify and
# with sha256sum. Exits with abev's exit code (0 accepted, 5 rejected, 6
# inconclusive: each is a decision; anything else is an error).
# With --build-only it builds and stops (make check-dotnet runs the plan itself).
# Run from the repository root after ./abev is built.
set -u
build_only=0
[ "${1:-}" = --build-only ] && build_only=1
if ! command -v dotnet >/dev/null 2>&1; then
	echo "demo-dotnet: dotnet is not on PATH: install the .NET SDK (10.0) first" >&2
	exit 3
fi
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0
src=examples/dotnet-sdk-upgrade
out=build/examples/dotnet-sdk-upgrade
for v in baseline candidate; do
	version=1
	[ "$v" = candidate ] && version=2
	rm -rf "${out:?}/$v"
	mkdir -p "$out/$v" || exit 3
	cp -R "$src/Cache" "$src/Cache.Tests" "$out/$v/" || exit 3
	echo "demo-dotnet: building the $v (LookupCache $version.0.0)"
	sh mk/dotnet-build.sh "$out/$v/Cache.Tests" "$out/$v/build.log" -p:CacheVersion=$version ||
		exit 3
done
dotnet build-server shutdown >/dev/null 2>&1
[ "$build_only" = 1 ] && exit 0

mkdir -p build/demo || exit 3
ev=build/demo/dotnet-$(date -u +%Y%m%dT%H%M%SZ)
n=1
while [ -e "$ev" ] && [ "$n" -lt 100 ]; do
	n=$((n + 1))
	ev=build/demo/dotnet-$(date -u +%Y%m%dT%H%M%SZ)-$n
done
key=build/demo/demo-key
if [ ! -f "$key.key" ]; then
	./abev keygen --out "$key" >/dev/null || exit 3
fi
./abev run "$src/plan.json" --out "$ev" --key "$key.key"
rc=$?
echo
if [ -f "$ev/SHA256" ]; then
	./abev verify "$ev" --pubkey "$key.pub" | tail -1
	(cd "$ev" && sha256sum --quiet -c SHA256 >/dev/null 2>&1 && echo "sha256sum -c SHA256: every file matches")
fi
echo "The evidence is in $ev; the full report is $ev/report.md."
case $rc in
0 | 5 | 6) exit 0 ;;
*) exit "$rc" ;;
esac
