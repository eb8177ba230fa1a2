#!/bin/sh
# `make check-slurm`: runs examples/multi-host/ as real Slurm jobs. Starts a
# one-node cluster of its own in a temp directory (Debian's munge and
# slurm-wlm: munged on a private socket, slurmctld and slurmd on free
# ports), submits abev-array.sbatch as a two-task array with two host
# labels, waits for both tasks, checks that they ran one after the other
# (--exclusive on one node) and each wrote evidence with its label in
# metadata.json that `abev verify` accepts (signed with a key made here),
# runs combine.sh on the bundles and checks the side-by-side report.
# Whatever happens, it stops the daemons it started by the pids they wrote
# and removes the temp directory (kept with CHECK_SLURM_KEEP=1). Needs
# root (slurmd runs the jobs); runs from the repository root with $ABEV
# (default ./abev) built. Ends with "check-slurm: 1 passed, 0 failed" or
# "check-slurm: 0 passed, 1 failed".
set -u

src=$(pwd)
ABEV=${ABEV:-$src/abev}
NODE_TIMEOUT=${CHECK_SLURM_NODE_TIMEOUT:-60}
JOB_TIMEOUT=${CHECK_SLURM_JOB_TIMEOUT:-300}
LABELS="label-alpha label-beta"

tmp=
jobid=
t_start=$(date +%s)

say() {
	echo "check-slurm: $*"
}

# Prints what the daemons and the tasks logged, for a failure about them.
show_logs() {
	[ -n "$tmp" ] || return 0
	for f in "$tmp/munge/munged.log" "$tmp/slurmctld.log" "$tmp/slurmd.log" "$tmp"/task-*.out; do
		[ -f "$f" ] || continue
		echo "---- last lines of $f"
		tail -n 30 "$f"
	done
}

fail() {
	say "$*" >&2
	exit 1
}

fail_logs() {
	say "$*" >&2
	show_logs >&2
	exit 1
}

# 0 when pid runs the program named comm (a pid file may outlive its daemon).
is_running() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

# Stops the daemon whose pid file is $2 (program $1): SIGTERM, then SIGKILL
# after 10 s. 1 when it is still there.
stop_daemon() {
	[ -f "$2" ] || return 0
	pid=$(cat "$2" 2>/dev/null)
	case $pid in '' | *[!0-9]*) return 0 ;; esac
	is_running "$pid" "$1" || return 0
	kill -TERM "$pid" 2>/dev/null
	i=0
	while is_running "$pid" "$1" && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	if is_running "$pid" "$1"; then
		say "$1 (pid $pid) did not stop on SIGTERM; sending SIGKILL" >&2
		kill -KILL "$pid" 2>/dev/null
		sleep 1
	fi
	if is_running "$pid" "$1"; then
		say "$1 (pid $pid) is still running" >&2
		return 1
	fi
	return 0
}

# Cancels the array if it is still there (a timeout), while slurmctld can.
cancel_jobs() {
	[ -n "$jobid" ] && [ -f "$tmp/slurmctld.pid" ] || return 0
	is_running "$(cat "$tmp/slurmctld.pid")" slurmctld || return 0
	[ -n "$(squeue -h -j "$jobid" -o %i 2>/dev/null)" ] || return 0
	say "cancelling array job $jobid" >&2
	scancel "$jobid" 2>/dev/null
	i=0
	while [ -n "$(squeue -h -j "$jobid" -o %i 2>/dev/null)" ] && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
}

finish() {
	rc=$?
	trap - EXIT INT TERM
	if [ -n "$tmp" ]; then
		t_stop=$(date +%s)
		cancel_jobs
		stop_daemon slurmd "$tmp/slurmd.pid" || rc=1
		stop_daemon slurmctld "$tmp/slurmctld.pid" || rc=1
		stop_daemon munged "$tmp/munge/munged.pid" || rc=1
		say "stopped slurmd, slurmctld and munged ($(($(date +%s) - t_stop)) s)"
		if [ "${CHECK_SLURM_KEEP:-}" = 1 ]; then
			say "kept $tmp (CHECK_SLURM_KEEP=1)"
		else
			rm -rf "$tmp"
		fi
	fi
	if [ "$rc" -eq 0 ]; then
		say "1 passed, 0 failed"
	else
		say "0 passed, 1 failed"
	fi
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- what the check needs ----
[ "$(id -u)" = 0 ] || fail "must run as root: slurmd runs the jobs (sudo make check-slurm)"
for cmd in munged runuser slurmctld slurmd sbatch squeue sinfo scontrol scancel python3; do
	command -v "$cmd" >/dev/null 2>&1 ||
		fail "'$cmd' not found: apt-get install -y --no-install-recommends slurm-wlm munge"
done
[ -x "$ABEV" ] || fail "'$ABEV' is not built (make abev)"
id munge >/dev/null 2>&1 || fail "no user 'munge' (apt-get install munge)"
if [ ! -s /etc/munge/munge.key ]; then
	say "creating /etc/munge/munge.key"
	mkdir -p /etc/munge
	if command -v mungekey >/dev/null 2>&1; then
		mungekey --create --keyfile=/etc/munge/munge.key || fail "mungekey failed"
	else
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null ||
			fail "cannot write /etc/munge/munge.key"
	fi
	chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key ||
		fail "cannot give /etc/munge/munge.key to munge"
fi

# ---- the cluster ----
tmp=$(mktemp -d /tmp/abev-check-slurm.XXXXXX) || fail "cannot create a temp directory"
# munged runs as munge and wants its socket directory executable by all.
chmod 0755 "$tmp"
mkdir "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/out" || fail "cannot populate $tmp"
chown munge:munge "$tmp/munge" && chmod 0711 "$tmp/munge" || fail "cannot give $tmp/munge to munge"

host=$(hostname -s)
cpus=$(nproc)
# Two free ports, so that a system Slurm or an earlier run's sockets are no obstacle.
ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])') || fail "cannot find free ports"
set -- $ports
ctld_port=$1
slurmd_port=$2

export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=abevcheck
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

runuser -u munge -- munged --socket="$tmp/munge/munge.socket" \
	--pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
	--seed-file="$tmp/munge/munged.seed" || fail_logs "munged did not start"
i=0
while [ ! -S "$tmp/munge/munge.socket" ] && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
[ -S "$tmp/munge/munge.socket" ] || fail_logs "munged made no socket within 10 s"
slurmctld -f "$SLURM_CONF" || fail_logs "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail_logs "slurmd did not start"

state=
i=0
while [ $i -lt $((NODE_TIMEOUT * 5)) ]; do
	state=$(sinfo -h -n "$host" -o %T 2>/dev/null)
	[ "$state" = idle ] && break
	sleep 0.2
	i=$((i + 1))
done
[ "$state" = idle ] ||
	fail_logs "node $host is not idle after ${NODE_TIMEOUT}s (sinfo says '${state:-nothing}')"
t_up=$(date +%s)
say "one-node cluster up: $host, $cpus CPUs, slurmctld pid $(cat "$tmp/slurmctld.pid"), slurmd pid $(cat "$tmp/slurmd.pid"), munged pid $(cat "$tmp/munge/munged.pid") ($((t_up - t_start)) s)"

# ---- the array ----
"$ABEV" keygen --out "$tmp/key" >/dev/null || fail "abev keygen failed"
jobid=$(env -u ABEV_UNSIGNED -u ABEV_PASSPHRASE_FILE ABEV="$ABEV" \
	ABEV_PLAN="$src/examples/multi-host/plan.json" ABEV_OUT="$tmp/out" \
	ABEV_HOST_LABELS="$LABELS" ABEV_KEY="$tmp/key.key" \
	sbatch --parsable --array=1-2 --chdir="$tmp" --output="$tmp/task-%A_%a.out" \
	"$src/examples/multi-host/abev-array.sbatch") || fail_logs "sbatch refused the array"
jobid=${jobid%%;*}
say "submitted examples/multi-host/abev-array.sbatch as array job $jobid (labels: $LABELS)"
i=0
while [ -n "$(squeue -h -j "$jobid" -o %i 2>/dev/null)" ] && [ $i -lt $((JOB_TIMEOUT * 5)) ]; do
	sleep 0.2
	i=$((i + 1))
done
[ -z "$(squeue -h -j "$jobid" -o %i 2>/dev/null)" ] ||
	fail_logs "array job $jobid is not done after ${JOB_TIMEOUT}s: $(squeue -h -j "$jobid")"
t_jobs=$(date +%s)

# A field of `scontrol -o show job` output.
field() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

task=0
for label in $LABELS; do
	task=$((task + 1))
	info=$(scontrol -o show job "${jobid}_$task") || fail_logs "Slurm knows no task ${jobid}_$task"
	st=$(field "$info" JobState)
	ec=$(field "$info" ExitCode)
	node=$(field "$info" NodeList)
	[ "$st" = COMPLETED ] && [ "$ec" = 0:0 ] ||
		fail_logs "task ${jobid}_$task: JobState=$st ExitCode=$ec"
	ev=$tmp/out/$jobid/$task-$label
	grep -q "^abev-array: task $task of array job $jobid on $node: host label $label\$" \
		"$tmp/task-${jobid}_$task.out" ||
		fail_logs "task ${jobid}_$task's output does not say it ran on $node as $label"
	[ -f "$ev/metadata.json" ] && [ -f "$ev.tar.gz" ] ||
		fail_logs "task ${jobid}_$task wrote no evidence at $ev and $ev.tar.gz"
	got=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["host"]["label"])' "$ev/metadata.json") ||
		fail "cannot read host.label from $ev/metadata.json"
	[ "$got" = "$label" ] || fail "$ev/metadata.json: host.label is '$got', not '$label'"
	for e in "$ev" "$ev.tar.gz"; do
		"$ABEV" verify "$e" --pubkey "$tmp/key.pub" >"$tmp/verify.out" 2>&1 || {
			cat "$tmp/verify.out" >&2
			fail "abev verify $e failed"
		}
	done
	say "task ${jobid}_$task: COMPLETED on $node, evidence with host.label $label, verified"
done
# --exclusive: on one node the second task starts only once the first is over.
# Prints a task's start and end, in seconds.
span() {
	info=$(scontrol -o show job "$1")
	echo "$(date -d "$(field "$info" StartTime)" +%s) $(date -d "$(field "$info" EndTime)" +%s)"
}
# shellcheck disable=SC2046 # two numbers each
set -- $(span "${jobid}_1") $(span "${jobid}_2")
[ $# -eq 4 ] || fail "cannot read the tasks' start and end times"
if [ "$3" -lt "$2" ] && [ "$1" -lt "$4" ]; then
	fail "the two --exclusive tasks overlapped on $host"
fi

# ---- the combining step ----
set --
for label in $LABELS; do
	set -- "$@" "$tmp/out/$jobid/"*"-$label.tar.gz"
done
ABEV="$ABEV" sh "$src/examples/multi-host/combine.sh" --pubkey "$tmp/key.pub" \
	--out "$tmp/combined.md" "$@" >"$tmp/combine.out" 2>"$tmp/combine.err"
crc=$?
t_end=$(date +%s)
say "timings: cluster up $((t_up - t_start)) s, array done $((t_jobs - t_up)) s, combined and checked $((t_end - t_jobs)) s, total $((t_end - t_start)) s"
if [ "$crc" -eq 2 ] && grep -q "unexpected argument" "$tmp/combine.err"; then
	fail "abev report DIR1 DIR2 is not built yet"
fi
if [ "$crc" -ne 0 ] && [ "$crc" -ne 5 ]; then
	cat "$tmp/combine.err" >&2
	fail "combine.sh exited $crc (expected 0, or 5 for a rejection)"
fi
[ -f "$tmp/combined.md" ] || fail "combine.sh wrote no combined report"
for label in $LABELS; do
	grep -qF -- "$label" "$tmp/combined.md" ||
		fail "the combined report does not name host $label"
done
grep -q '^\*\*Combined decision: ' "$tmp/combined.md" ||
	fail "the combined report has no line starting with '**Combined decision: '"
say "combined report: $(grep '^\*\*Combined decision: ' "$tmp/combined.md" | head -n 1)"
exit 0
