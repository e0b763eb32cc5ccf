#!/usr/bin/env bash
# check-lint.sh [cppcheck|clang-tidy|all] - static analysis of the program's
# C (common capture analyze tui cli tcpsift.c; not tests/, bench/):
#   cppcheck    warning, style, performance, portability; ~20 s on 2 cores:
#               `make check` runs it (check-cppcheck)
#   clang-tidy  the checks in .clang-tidy (clang static analyzer, bugprone,
#               cert); minutes on 2 cores: `make lint` runs both
# LINT_FILES="FILE..." limits either to those files.
# Clean means no finding; each suppression says why where it is: inline
# (/* cppcheck-suppress ID ; why */, NOLINT(check): why) or below with the
# reason. One line per finding (file:line: id: message), then the tally.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
T_SUITE=lint
. tests/lib.sh

what=${1:-all}
mapfile -t src < <(git ls-files -- 'common/*.c' 'capture/*.c' 'analyze/*.c' 'tui/*.c' 'cli/*.c' \
	tcpsift.c)
# LINT_FILES="a.c b.c": only those (a quicker look while fixing).
[ -z "${LINT_FILES:-}" ] || read -r -a src <<<"$LINT_FILES"
defs=(-D_GNU_SOURCE -DTCPSIFT_VERSION='"lint"')
jobs=${LINT_JOBS:-2}

# findings TOOL TEXT: one failure per finding line, or one pass.
findings() {
	local tool=$1 text=$2
	if [ -n "$text" ]; then
		while IFS= read -r l; do t_fail "$tool: $l"; done <<<"$text"
	else
		t_pass "$tool"
		echo "check-lint: $tool: no finding in ${#src[@]} files"
	fi
}

if [ "$what" = cppcheck ] || [ "$what" = all ]; then
	command -v cppcheck >/dev/null || { echo "check-lint: needs cppcheck (scripts/deps.sh check)" >&2; exit 1; }
	# Suppressed for the whole tree, and why:
	#  variableScope: declarations at the top of a block are a style the
	#    code uses on purpose in places (a function's state read at a glance);
	#  missingIncludeSystem: system headers are not given to cppcheck (it
	#    would analyse glibc's), only the project's (-I.);
	#  knownConditionTrueFalse in stall_report.c: cppcheck 2.10 concludes
	#    both "nlines is always true" and "j < nlines is always false" on the
	#    same lines (nlines = min(groups, REP_STALL_MAX_LINES)): its value
	#    flow loses the loop above; the conditions are live.
	out=$(cppcheck -q --std=c11 --enable=warning,style,performance,portability --inline-suppr \
		-j "$jobs" -I. "${defs[@]}" \
		--suppress=variableScope --suppress=missingIncludeSystem \
		--suppress=knownConditionTrueFalse:analyze/detect/stall/stall_report.c \
		--template='{file}:{line}: {id}: {message}' "${src[@]}" 2>&1)
	findings cppcheck "$out"
fi

if [ "$what" = clang-tidy ] || [ "$what" = all ]; then
	command -v clang-tidy >/dev/null || { echo "check-lint: needs clang-tidy (scripts/deps.sh check)" >&2; exit 1; }
	# .clang-tidy holds the checks; the compile flags are the Makefile's.
	out=$(printf '%s\n' "${src[@]}" |
		xargs -P "$jobs" -I{} clang-tidy --quiet {} -- -std=gnu11 -I. "${defs[@]}" -pthread \
			2>/dev/null | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' |
		sed "s|^$PWD/||" | sort -u)
	# Findings listed in scripts/lint-pending.txt (FILE CHECK - why) are skips.
	left=""
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		file=${l%%:*} check=$(grep -oE '\[[^]]+\]$' <<<"$l" | tr -d '[]')
		if grep -qE "^$file $check " scripts/lint-pending.txt; then
			t_skip "clang-tidy (pending, scripts/lint-pending.txt): $l"
		else
			left+="$l"$'\n'
		fi
	done <<<"$out"
	findings clang-tidy "${left%$'\n'}"
fi
t_done
