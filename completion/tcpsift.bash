# tcpsift.bash - bash completion for tcpsift: verbs, each verb's options,
# their values where --help lists a fixed set, file names, and interface
# names after -i.
#
# The verbs, options and values are read from the binary at completion time
# ("tcpsift --help", "tcpsift VERB --help"), once per shell and verb, so
# they are always those of the tcpsift being completed, whatever its version.
# An option's values are listed in --help in one of two ways, both printed
# from the tables the verb parses with:
#   "--fanout-mode qm|cpu|hash  ..."      the set as the option's argument;
#   "--sort columns: id, client, ..."     a line of its own after the options
#                                         (a unit in parentheses is not a value).
# --fail-on takes a list of METRIC OP VALUE: the metric is completed after
# the start or a comma.
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

# _tcpsift_values HELP OPT: the values --help lists for OPT (see above), one
# a line; nothing when it lists none.
_tcpsift_values()
{
	printf '%s\n' "$1" | awk -v o="$2" '
		/^ +-/ {
			for (i = 1; i < NF; i++) {
				w = $i; sub(/,$/, "", w)
				if (w != o) continue
				v = $(i + 1)
				if (v ~ /^[a-z0-9_-]+(\|[a-z0-9_-]+)+$/) { n = split(v, a, "|"); for (k = 1; k <= n; k++) print a[k] }
				break
			}
		}
		index($0, o " ") == 1 && $2 ~ /^[a-z]+:$/ {
			sub(/^[^:]*: */, "")
			n = split($0, a, /, */)
			for (k = 1; k <= n; k++) { sub(/ *\(.*$/, "", a[k]); if (a[k] != "") print a[k] }
		}'
}

_tcpsift()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local bin=${COMP_WORDS[0]} verb=""
	# --opt=value: bash splits at '=' (COMP_WORDBREAKS).
	if [ "$cur" = "=" ] && [[ $prev == --* ]]; then
		cur=""
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 2 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
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
	if [[ $prev == --* ]]; then
		local values
		values=$(_tcpsift_values "$help" "$prev")
		if [ -n "$values" ]; then
			if [ "$prev" = --fail-on ]; then
				# METRIC OP VALUE[,...]: the metric of the item being typed.
				local head="" item=$cur
				[[ $cur == *,* ]] && head=${cur%,*}, item=${cur##*,}
				[[ $item =~ [\<\>=!] ]] && return 0
				compopt -o nospace 2>/dev/null
				mapfile -t COMPREPLY < <(compgen -P "$head" -W "$values" -- "$item")
			else
				mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
			fi
			return 0
		fi
	fi
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
			return 0 # a number, a filter, a mode: nothing to offer
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
