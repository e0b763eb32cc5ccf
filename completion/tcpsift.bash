# tcpsift.bash - bash completion for tcpsift: verbs, each verb's options,
# file names, and interface names after -i.
#
# The verbs and options are read from the binary at completion time
# ("tcpsift --help", "tcpsift VERB --help"), once per shell and verb, so
# they are always those of the tcpsift being completed, whatever its version;
# so are an option's values, the words its help line quotes ("pair by
# 'auto' (...), 'tuple', 'endpoint' or 'order'").
# Installed by `make install` as
# $(PREFIX)/share/bash-completion/completions/tcpsift.

# _tcpsift_help BIN [VERB]: the help text, cached in _tcpsift_cache_VERB.
_tcpsift_help()
{
	local var="_tcpsift_cache_${2:-top}"
	if [ -z "${!var+set}" ]; then
		if [ -n "${2:-}" ]; then
			printf -v "$var" '%s' "$("$1" "$2" --help 2>/dev/null)"
		else
			printf -v "$var" '%s' "$("$1" --help 2>/dev/null)"
		fi
	fi
	printf '%s\n' "${!var}"
}

_tcpsift()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local bin=${COMP_WORDS[0]} verb=""
	COMPREPLY=()
	bin=${bin/#\~/$HOME}
	command -v "$bin" >/dev/null 2>&1 || bin=tcpsift

	# "tcpsift help VERB": the verbs again.
	if [ "$COMP_CWORD" -eq 1 ] || { [ "$COMP_CWORD" -eq 2 ] && [ "${COMP_WORDS[1]}" = help ]; }; then
		# "  VERB ..." lines of tcpsift --help, but "tcpsift VERB --help".
		local verbs extra="help --help --version"
		verbs=$(_tcpsift_help "$bin" | awk '/^  [a-z]+ / && $1 != "tcpsift" { print $1 }')
		[ "$COMP_CWORD" -eq 2 ] && extra=""
		mapfile -t COMPREPLY < <(compgen -W "$verbs $extra" -- "$cur")
		return 0
	fi
	verb=${COMP_WORDS[1]}
	case "$verb" in
	-*) return 0 ;;
	esac

	# The option lines of --help: "  -f, --filter EXPR  text" or "      --json  text".
	local help opts value_opt=""
	help=$(_tcpsift_help "$bin" "$verb")
	opts=$(printf '%s\n' "$help" | awk '/^ +-/ {
		for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w); if (w ~ /^--?[A-Za-z0-9]/) print w; else break }
	}')

	# After an option that takes a value: interfaces, files or nothing.
	case "$prev" in
	-i | --interface)
		if [ "$verb" = capture ] || [ "$verb" = tui ]; then
			local ifaces=() f
			for f in /sys/class/net/*; do [ -e "$f" ] && ifaces+=("${f##*/}"); done
			mapfile -t COMPREPLY < <(compgen -W "${ifaces[*]}" -- "$cur")
			return 0
		fi
		;;
	esac
	if [[ $prev == -* ]]; then
		# The word after the option in its --help line names its value.
		value_opt=$(printf '%s\n' "$help" | awk -v o="$prev" '/^ +-/ {
			for (i = 1; i < NF; i++) {
				w = $i; sub(/,$/, "", w)
				if (w == o) { while (i < NF && $(i + 1) ~ /^-/) i++; print $(i + 1); exit }
			}
		}')
		case "$value_opt" in
		FILE | FILE\|* | DIR | PATH)
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return 0
			;;
		[A-Z]*)
			# The values its help line quotes; none: a number, a filter.
			local values
			values=$(printf '%s\n' "$help" | awk -v o="$prev" -v q="'" '/^ +-/ {
				for (i = 1; i < NF; i++) {
					w = $i; sub(/,$/, "", w)
					if (w != o) continue
					line = $0; re = q "[a-z][a-z0-9_-]*" q
					while (match(line, re)) {
						print substr(line, RSTART + 1, RLENGTH - 2)
						line = substr(line, RSTART + RLENGTH)
					}
					exit
				}
			}')
			mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
			return 0
			;;
		esac
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return 0
	fi
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	return 0
}
complete -F _tcpsift tcpsift
