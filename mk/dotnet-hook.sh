#!/bin/sh
# mk/dotnet-hook.sh OUT: builds abev's .NET startup hook (dotnet-hook/) into
# OUT/AbevStartupHook.dll, its intermediate files under OUT/obj, quietly and
# with no build server or MSBuild node left running. The hook needs no
# package; restoring it fetches only the net8.0 reference pack where the SDK
# lacks it. On failure it prints the log's last lines and exits 1.
set -u
out=$1
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0
mkdir -p "$out" || exit 1
log=$out/build.log
dotnet build dotnet-hook/AbevStartupHook.csproj -c Release --artifacts-path "$out/obj" \
	-o "$out" >"$log" 2>&1 || {
	echo "building the .NET startup hook failed (dotnet build; log: $log):" >&2
	tail -20 "$log" >&2
	exit 1
}
