#!/bin/sh
# `make check-dotnet`: builds the xunit suite of tests/dotnet/Suite twice
# into build/dotnet/ (as it is, and with -p:AbevDropOne=1, one test
# compiled out), likewise the four twins of tests/dotnet/Twins (xUnit,
# NUnit and MSTest on VSTest, MSTest on Microsoft.Testing.Platform),
# tests/dotnet/Crash and tests/dotnet/Runtime once, the worked example
# (mk/demo-dotnet.sh --build-only), and tests/dotnet/Mtp (MSTest on
# Microsoft.Testing.Platform) from the machine's NuGet packages, then runs
# tests/integration/test_dotnet.py, which runs real `dotnet test` under
# abev: per framework the twins, a failure, a crash, the test host's own
# peak memory and the runtime figures of a known allocation. Without
# dotnet on PATH it says so in one line and skips (exit 0).
# Run from the repository root after ./abev is built.
set -u
if ! command -v dotnet >/dev/null 2>&1; then
	echo "check-dotnet: skipped: dotnet is not on PATH (the .NET SDK is not installed)"
	exit 0
fi
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0
out=build/dotnet
rm -rf "$out"
for v in base cand; do
	mkdir -p "$out/$v" || exit 1
	cp -R tests/dotnet/Suite "$out/$v/Suite" || exit 1
	drop=0
	[ "$v" = cand ] && drop=1
	sh mk/dotnet-build.sh "$out/$v/Suite" "$out/$v/build.log" -p:AbevDropOne=$drop || exit 1
done
# The twins: one suite in xUnit, NUnit, MSTest and MSTest on MTP (Mtp, its global.json
# copied with it), each as it is and with one test left out.
for fw in Xunit NUnit MSTest Mtp; do
	for v in base cand; do
		mkdir -p "$out/twins/$v" || exit 1
		cp -R "tests/dotnet/Twins/$fw" "$out/twins/$v/$fw" || exit 1
		drop=0
		[ "$v" = cand ] && drop=1
		sh mk/dotnet-build.sh "$out/twins/$v/$fw" "$out/twins/$v/$fw.log" \
			-p:AbevDropOne=$drop || exit 1
	done
done
mkdir -p "$out/runtime" || exit 1
cp -R tests/dotnet/Runtime "$out/runtime/Runtime" || exit 1
sh mk/dotnet-build.sh "$out/runtime/Runtime" "$out/runtime/build.log" || exit 1
mkdir -p "$out/crash" || exit 1
cp -R tests/dotnet/Crash "$out/crash/Crash" || exit 1
sh mk/dotnet-build.sh "$out/crash/Crash" "$out/crash/build.log" || exit 1
# The MTP suite, with the global.json beside its project that puts dotnet test in MTP mode.
mkdir -p "$out/mtp" || exit 1
cp -R tests/dotnet/Mtp "$out/mtp/Mtp" || exit 1
sh mk/dotnet-build.sh "$out/mtp/Mtp" "$out/mtp/build.log" || exit 1
dotnet build-server shutdown >/dev/null 2>&1
# The worked example's two builds, which test_dotnet.py runs with fewer rounds.
sh mk/demo-dotnet.sh --build-only || exit 1
ABEV_DOTNET_FIXTURES="$(pwd)/$out" ABEV_TESTS=test_dotnet.py \
	ABEV="$(pwd)/abev" ABEV_SRC="$(pwd)" ABEV_HELPER="$(pwd)/build/helpers/abev-helper" \
	python3 tests/integration/run.py
