#!/usr/bin/env bash
# check-sizes.sh - files fit in 800 lines and functions in 100 (STYLE.md
# rule 18), on every tracked C file outside tests/. A function is a body
# from a '{' alone at column 0 to the next line starting with '}' at column
# 0 (the kernel style clang-format keeps here), its lines counted brace to
# brace. What is still over sits in the allow-list below with its reason,
# so no new one can appear; an entry that is no longer over fails too, so
# the list only shrinks.
set -euo pipefail
cd "$(dirname "$0")/.."
T_SUITE=sizes
. tests/lib.sh
FILE_MAX=800
FUNC_MAX=100

# PATH or PATH:FUNCTION, then why it is still over.
allowed() {
	cat <<'EOF'
# The TUI's replay driver (pacing, seeks, steps), to split into named steps:
tui/player.c:replay_run           the replay loop: pacing, pauses, seeks and steps in one place
# The tui verb:
cli/cmd_tui.c:tui_main            the tui verb's option handling and start-up, to split with the views
# Hot and always_inline: one function on purpose, watched by tests/budget
# (bench/budget.conf) in instructions a packet; a split must keep them inlined.
analyze/engine/tcp.c:process_data per-segment data path
analyze/engine/tcp.c:process_ack  per-segment ACK path
EOF
}

# Every file over FILE_MAX and every function over FUNC_MAX, one a line:
# "PATH LINES" or "PATH:FUNCTION LINES".
measure() {
	local f
	for f in $(git ls-files '*.c' '*.h' | grep -v '^tests/'); do
		[ -f "$f" ] || continue
		awk -v f="$f" -v fmax=$FILE_MAX -v gmax=$FUNC_MAX '
			{ line[NR] = $0 }
			/^\{$/ { start = NR; next }
			/^}/ && start {
				n = NR - start + 1
				if (n > gmax) {
					# The name: the last identifier before "(" on the
					# nearest line above the brace that has one.
					for (j = start - 1; j > 0 && line[j] !~ /\(/; j--)
						;
					s = line[j]
					gsub(/__attribute__\(\([^)]*\)\)/, "", s)
					name = "?"
					if (match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
						name = substr(s, RSTART, RLENGTH)
						sub(/[ \t]*\($/, "", name)
					}
					print f ":" name, n
				}
				start = 0
			}
			END { if (NR > fmax) print f, NR }' "$f"
	done
}

mapfile -t over < <(measure)
mapfile -t allow < <(allowed | grep -v '^#' | awk 'NF { print $1 }')
declare -A is_allowed=() is_over=()
for a in "${allow[@]}"; do is_allowed[$a]=1; done
for o in "${over[@]}"; do
	what=${o% *} n=${o##* }
	is_over[$what]=1
	if [ -n "${is_allowed[$what]:-}" ]; then
		t_pass "$what: $n lines (allowed for now)"
	elif [[ $what == *:* ]]; then
		t_fail "$what: $n lines, over $FUNC_MAX: split it into named steps"
	else
		t_fail "$what: $n lines, over $FILE_MAX: split it by role"
	fi
done
for a in "${allow[@]}"; do
	[ -n "${is_over[$a]:-}" ] || t_fail "$a is allowed but no longer over: take it off the list"
done
t_pass "sizes measured (${#over[@]} over, ${#allow[@]} allowed)"
t_done
