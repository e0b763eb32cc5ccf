#!/usr/bin/env bash
# check-banned.sh - no banned C library call in the project's C sources.
#
# Banned everywhere (the program, bench/, tests/tools, tests/fuzz):
#   sprintf vsprintf strcpy strcat stpcpy gets   unbounded writes: snprintf,
#                                                 memcpy of a known length
#   strncpy strncat      leave the string unterminated or take the room left,
#                        not the buffer's size, so they hide truncation:
#                        snprintf (truncation visible in its result)
#   atoi atol atoll atof no error, undefined on overflow: cli_parse_u64,
#                        strtoul/strtod with end and errno checks
#   strtok               hidden global state (threads): strtok_r, strchr
#   system popen         a shell: the capturer runs as root
#   tmpnam tempnam mktemp  name races: mkstemp, O_TMPFILE
#   alloca               unbounded stack (as VLAs, which -Wvla refuses)
# The unit tests (tests/unit) may use system() and popen(): they run tshark,
# editcap and the like to cross-check what the code wrote.
#
# A line may carry "banned-ok: REASON" to allow one call; say why there.
# One line per hit (file:line: call), then the tally; exit 1 on any hit.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
T_SUITE=banned
. tests/lib.sh

all='sprintf|vsprintf|strcpy|strcat|stpcpy|gets|strncpy|strncat|atoi|atol|atoll|atof|strtok|tmpnam|tempnam|mktemp|alloca'
shell='system|popen'

# scan REGEX FILES...: hits of a call (not a member, not a longer name).
scan() {
	local re=$1
	shift
	[ $# -gt 0 ] || return 0
	grep -nHE "(^|[^._>a-zA-Z0-9])($re)[[:space:]]*\(" "$@" | grep -v 'banned-ok:' |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' # comment lines
}

mapfile -t prog < <(git ls-files -- '*.c' '*.h' | grep -v '^tests/unit/')
mapfile -t unit < <(git ls-files -- 'tests/unit/*.c' 'tests/unit/*.h')
hits=$({
	scan "$all|$shell" "${prog[@]}"
	scan "$all" "${unit[@]}"
})
if [ -n "$hits" ]; then
	while IFS= read -r h; do t_fail "banned call: $h"; done <<<"$hits"
else
	t_pass "no banned call in ${#prog[@]} + ${#unit[@]} files"
	echo "check-banned: no banned call in ${#prog[@]} program files and ${#unit[@]} unit-test files"
fi
t_done
