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

# t_agree NAME WHAT REF RC_REF OUT RC: two runs that must agree, one pass or
# fail line: the same exit (RC_REF, RC), stdout (files REF and OUT) and
# stderr (REF.err, OUT.err); WHAT says how the second run differs
# ("--threads 2"), against the first ("--threads 1").
t_agree() {
	local name=$1 what=$2 ref=$3 rc_ref=$4 out=$5 rc=$6 against=$7
	if [ "$rc" != "$rc_ref" ]; then
		t_fail "$name: $what exits $rc, $against $rc_ref"
	elif ! cmp -s "$ref" "$out"; then
		t_fail "$name: $what differs from $against"
		diff "$ref" "$out" | head -5
	elif ! cmp -s "$ref.err" "$out.err"; then
		t_fail "$name: $what says something else on stderr"
	else
		t_pass "$name: $what = $against"
	fi
}

# The public captures (../shared/pcaps/public from the project's root, or
# the machine's copy): the directory, or nothing when neither is here.
t_public_dir() {
	local d
	for d in /work/shared/pcaps/public ../shared/pcaps/public; do
		[ -d "$d" ] && { echo "$d"; return 0; }
	done
	return 1
}
