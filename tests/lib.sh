# tests/lib.sh - shared helpers for the shell test runners (sourced).
# Each runner counts its own cases and records "suite passed failed skipped"
# in build/check-results so `make check` ends with one tally line (with the
# suite's seconds: make check has a time bound to keep).

T_PASS=0
T_FAIL=0
T_SKIP=0
T_SUITE=${T_SUITE:-tests}

t_pass() { T_PASS=$((T_PASS + 1)); [ -n "${T_VERBOSE:-}" ] && echo "ok   $*"; return 0; }
t_fail() { T_FAIL=$((T_FAIL + 1)); echo "FAIL $*"; }
t_skip() { T_SKIP=$((T_SKIP + 1)); echo "SKIP $*"; }

t_done() {
	mkdir -p build
	echo "$T_SUITE $T_PASS $T_FAIL $T_SKIP $SECONDS" >>build/check-results
	echo "$T_SUITE: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ]
}

# t_instr CMD...: the instructions CMD executes (valgrind's callgrind, its
# output discarded): counted work, the same on every run whatever the
# machine's load, where CPU seconds on a shared 2-core machine are not.
# Prints the count, or nothing when valgrind is missing or CMD fails.
t_instr() {
	command -v valgrind >/dev/null || return 1
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
}
