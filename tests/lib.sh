# tests/lib.sh - shared helpers for the shell test runners (sourced).
# Each runner counts its own cases and records "suite passed failed skipped"
# in build/check-results so `make check` ends with one tally line.

T_PASS=0
T_FAIL=0
T_SKIP=0
T_SUITE=${T_SUITE:-tests}

t_pass() { T_PASS=$((T_PASS + 1)); [ -n "${T_VERBOSE:-}" ] && echo "ok   $*"; return 0; }
t_fail() { T_FAIL=$((T_FAIL + 1)); echo "FAIL $*"; }
t_skip() { T_SKIP=$((T_SKIP + 1)); echo "SKIP $*"; }

t_done() {
	mkdir -p build
	echo "$T_SUITE $T_PASS $T_FAIL $T_SKIP" >>build/check-results
	echo "$T_SUITE: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ]
}
