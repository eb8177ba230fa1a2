# bash completion for abev(1): commands, their options, plan files (*.json)
# for run, evidence directories for verify, report, export, compare and pack.
# Installed by `make install` as $(PREFIX)/share/bash-completion/completions/abev;
# or: source completions/abev.bash

_abev_files()
{
	# Files matching any of the globs (none: any file), and directories to walk into.
	local IFS=$'\n' g
	if (($# == 0)); then
		COMPREPLY+=($(compgen -f -- "$cur"))
	fi
	for g in "$@"; do
		COMPREPLY+=($(compgen -f -X "!$g" -- "$cur"))
	done
	COMPREPLY+=($(compgen -d -- "$cur"))
	compopt -o filenames 2>/dev/null
}

_abev_dirs()
{
	local IFS=$'\n'
	COMPREPLY+=($(compgen -d -- "$cur"))
	compopt -o filenames 2>/dev/null
}

_abev()
{
	local cur prev cmd opts i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local commands="run bench init verify keygen pack report compare export results guard help"

	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} != -* ]]; then
			cmd=${COMP_WORDS[i]}
			break
		fi
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands -h --help -V --version" -- "$cur"))
		return 0
	fi

	# Values of options first.
	case $prev in
	--key|-k) _abev_files '*.key'; return 0 ;;
	--pubkey|-p) _abev_files '*.pub'; return 0 ;;
	--passphrase-file|--save-plan|--bundle) _abev_files; return 0 ;;
	--format|-f) COMPREPLY=($(compgen -W "hyperfine csv junit json" -- "$cur")); return 0 ;;
	--order) COMPREPLY=($(compgen -W "alternate reverse shuffle" -- "$cur")); return 0 ;;
	--out|-o)
		case $cmd in
		run|bench) _abev_dirs ;;
		init) _abev_files '*.json' ;;
		*) _abev_files ;;
		esac
		return 0 ;;
	--passphrase-env|--host-label|--max-cpu-wait-pct|--runs|-r|--warmup|-w|--name|-n|\
	--prepare|--gap|--results|--min-executed|--min|--max-regression|--until-decided)
		return 0 ;;
	esac

	case $cmd in
	run) opts="--out --key --unsigned --bundle --passphrase-file --passphrase-env
		   --host-label --max-cpu-wait-pct --quiet --json --dry-run --help" ;;
	bench) opts="--runs --warmup --name --no-shell --prepare --gap --order --results
		     --min-executed --max-regression --until-decided --out --key --unsigned --passphrase-file --passphrase-env
		     --save-plan --bundle --host-label --max-cpu-wait-pct --quiet --json --help" ;;
	init) opts="--dotnet --from-bench --out --runs --warmup --name --no-shell --prepare --gap
		    --order --results --min-executed --max-regression --until-decided --help" ;;
	verify) opts="--pubkey --help" ;;
	keygen) opts="--out --passphrase-file --passphrase-env --help" ;;
	pack) opts="--out --help" ;;
	report) opts="--out --pubkey --help" ;;
	compare) opts="--json --pubkey --help" ;;
	export) opts="--format --out --pubkey --help" ;;
	results) opts="--json --min-executed --help" ;;
	guard) opts="--min --help" ;;
	help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return 0 ;;
	*) return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
	fi

	# Operands.
	case $cmd in
	run) _abev_files '*.json' ;;
	verify) _abev_files '*.tar.zst' '*.tar.gz' ;;
	report|export|compare|pack) _abev_dirs ;;
	results|guard)
		if [[ $cmd == guard && $COMP_CWORD -eq $((i + 1)) ]]; then
			COMPREPLY=($(compgen -W "min-executed" -- "$cur"))
		else
			_abev_files '*.xml' '*.trx'
		fi ;;
	esac
	return 0
}

complete -F _abev abev
