#!/bin/sh
# mk/dotnet-build.sh PROJECT_DIR LOG [-p:NAME=VALUE...]: restores and builds one
# .NET project (Release) the way every make target here does — quietly, with no
# build server or MSBuild node left running, from the machine's NuGet folder
# (/opt/nuget/packages, or NUGET_FOLDER) where it has one, else (or when the
# folder lacks a version) from the configured registry — the properties given
# to both steps. On failure it
# prints the log's last lines and exits 1.
set -u
dir=$1 log=$2
shift 2
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0
folder=${NUGET_FOLDER:-/opt/nuget/packages}
# The folder first (offline); should it lack a version, the configured registry.
restored=0
if [ -d "$folder" ] && dotnet restore "$dir" --source "$folder" "$@" >"$log" 2>&1; then
	restored=1
fi
if [ "$restored" = 0 ] && ! dotnet restore "$dir" "$@" >>"$log" 2>&1; then
	echo "building '$dir' failed (dotnet restore, from '$folder' and from the registry):" >&2
	tail -20 "$log" >&2
	exit 1
fi
dotnet build "$dir" -c Release --no-restore "$@" >>"$log" 2>&1 || {
	echo "building '$dir' failed (dotnet build):" >&2
	tail -20 "$log" >&2
	exit 1
}
