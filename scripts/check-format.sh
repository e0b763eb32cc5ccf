#!/usr/bin/env bash
# check-format.sh - every tracked C file must be as clang-format leaves it.
set -euo pipefail
cd "$(dirname "$0")/.."
T_SUITE=format
. tests/lib.sh
command -v clang-format >/dev/null || { t_skip "clang-format not installed"; t_done; exit; }
for f in $(git ls-files '*.c' '*.h'); do
	[ -f "$f" ] || continue
	if clang-format "$f" | cmp -s - "$f"; then
		t_pass "$f"
	else
		t_fail "$f is not clang-formatted (run: make format)"
	fi
done
t_done
