#!/usr/bin/env bash
# run_unit.sh BUILD_DIR - run every unit test binary built under BUILD_DIR/tests/unit.
set -uo pipefail
cd "$(dirname "$0")/.."
T_SUITE=unit
. tests/lib.sh
dir=${1:?usage: run_unit.sh BUILD_DIR}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "$dir"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d | *.o) continue ;; esac
	if out=$("$t" 2>&1); then
		t_pass "$(basename "$t")"
		echo "$out" | tail -n 1
	else
		t_fail "$(basename "$t")"
		echo "$out" | tail -n 30
	fi
done
t_done
