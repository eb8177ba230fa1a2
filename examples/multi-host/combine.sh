#!/bin/sh
# Combines the evidence of one plan run on several hosts into one
# side-by-side report: `abev report DIR... --out FILE`, which verifies each
# directory (with --pubkey), refuses evidence of different plans, gives
# each host (metadata.json's host.label) its column group and ends with the
# combined decision (rejected if any host rejects). It waits for nothing:
# run it once every host's `abev run` has finished (after the Slurm array,
# or in the workflow's last job).
#
#   sh examples/multi-host/combine.sh [--pubkey KEY.pub] [--out FILE] EVIDENCE...
#
# EVIDENCE is an evidence directory or a bundle (.tar.gz, .tar.zst), as
# `abev run --out` and `--bundle` wrote them. A bundle is first checked with
# `abev verify` (with --pubkey; otherwise only tar's own refusal of absolute
# and ".." names guards the unpacking) and unpacked into a scratch directory
# named after it, which is removed afterwards. FILE defaults to combined.md;
# ABEV names the abev binary (default: abev from PATH). The exit code is
# abev report's: 0 rendered, 5 the combined decision is rejected, 2 usage
# or unreadable evidence, 4 verification failed.
set -u

usage() {
	echo "usage: combine.sh [--pubkey KEY.pub] [--out FILE] EVIDENCE..." >&2
	exit 2
}

abev=${ABEV:-abev}
pubkey=
out=combined.md
while [ $# -gt 0 ]; do
	case $1 in
	--pubkey) [ $# -ge 2 ] || usage; pubkey=$2; shift 2 ;;
	--pubkey=*) pubkey=${1#--pubkey=}; shift ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--out=*) out=${1#--out=}; shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) echo "combine.sh: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage

scratch=
cleanup() {
	[ -n "$scratch" ] && rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Replaces each bundle among the arguments by the directory it unpacks to.
n=$#
while [ "$n" -gt 0 ]; do
	e=$1
	shift
	n=$((n - 1))
	if [ -d "$e" ]; then
		set -- "$@" "$e"
		continue
	fi
	case $e in
	*.tar.gz | *.tgz | *.tar.zst) ;;
	*)
		echo "combine.sh: '$e' is neither an evidence directory nor a bundle" >&2
		exit 2
		;;
	esac
	[ -f "$e" ] || { echo "combine.sh: no bundle at '$e'" >&2; exit 2; }
	if [ -n "$pubkey" ]; then
		# 8: the seal holds, but the run it records did not complete cleanly; the
		# report shows that host's status and notes.
		"$abev" verify "$e" --pubkey "$pubkey" >/dev/null
		rc=$?
		[ "$rc" -eq 0 ] || [ "$rc" -eq 8 ] || {
			echo "combine.sh: '$e' failed verification ($abev verify $e --pubkey $pubkey)" >&2
			exit 4
		}
	fi
	if [ -z "$scratch" ]; then
		scratch=$(mktemp -d "${TMPDIR:-/tmp}/abev-combine.XXXXXX") || exit 2
	fi
	name=$(basename "$e")
	name=${name%.tar.gz}
	name=${name%.tgz}
	name=${name%.tar.zst}
	dir=$scratch/$name
	[ -e "$dir" ] && dir=$scratch/$n-$name
	mkdir "$dir" && tar -xf "$e" -C "$dir" --no-same-owner --no-same-permissions || {
		echo "combine.sh: cannot unpack '$e'" >&2
		exit 2
	}
	set -- "$@" "$dir"
done

if [ -n "$pubkey" ]; then
	set -- "$@" --pubkey "$pubkey"
fi
"$abev" report "$@" --out "$out"
exit $?
