#!/usr/bin/env bash
# hostile/times.sh BINARY - absurd capture times and libtrace garbage, under ASan+UBSan.
#
# tests/hostile/gen_times.py writes the cases into a scratch folder with a
# MANIFEST (what each is, what to expect); each is analysed with --json
# (--threads 1 and 2: the stream clock lives in a different place) and:
#  - no sanitizer report, no signal: exit 0, or 3 for libtrace garbage;
#  - exit 3 comes with exactly one stderr line naming the input;
#  - summary.timestamps_clamped is the number of packets whose time lies
#    outside 1970..2262 (the generator computes it exactly), with exactly
#    one warning line on stderr when it is not 0 and none otherwise;
#  - the JSON document is valid (scripts/schema.py validate).
# Run it on the sanitizer tree: `make O=build/san SAN=1 tests`, then
# tests/hostile/times.sh build/san/tcpsift (make check-hostile-times does).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
T_SUITE=hostile-times
. tests/lib.sh
bin=${1:?usage: times.sh BINARY}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TZ=UTC LC_ALL=C
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! python3 tests/hostile/gen_times.py "$work/in"; then
	t_fail "gen_times.py failed"
	t_done
	exit 1
fi

while read -r name prefix expect clamped; do
	path=$work/in/$name
	[ "$prefix" = - ] || path=$prefix$path
	for threads in 1 2; do
		case_=$name/threads=$threads
		"$bin" analyze --json --threads "$threads" "$path" >"$work/out.json" 2>"$work/err"
		rc=$?
		if grep -qE 'runtime error|Sanitizer|ERROR: ' "$work/err"; then
			t_fail "$case_: sanitizer report"
			grep -E 'runtime error|SUMMARY' "$work/err" | head -3
			continue
		fi
		if [ "$expect" = abort ]; then
			if [ "$rc" -eq 3 ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
				grep -q 'libtrace failed after 2 records (killed by signal 6' "$work/err" &&
				grep -q '^ "packets": 2,' "$work/out.json"; then
				t_pass "$case_: libtrace aborted, 2 packets kept, one line"
			else
				t_fail "$case_: exit $rc, expected 3 with libtrace's abort in one line"
				head -3 "$work/err"
			fi
			continue
		fi
		if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 3 ] && [ "$expect" = any ]; }; then
			t_fail "$case_: exit $rc (expected ${expect/any/0 or 3})"
			head -3 "$work/err"
			continue
		fi
		if ! python3 scripts/schema.py validate "$work/out.json" >/dev/null 2>&1; then
			t_fail "$case_: the JSON document does not validate"
			continue
		fi
		got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["timestamps_clamped"])' "$work/out.json")
		warn=$(grep -c 'warning: .* timed before 1970 or after 2262' "$work/err")
		errl=$(grep -c "^tcpsift analyze: $prefix.*: " "$work/err")
		nerr=$(wc -l <"$work/err")
		# stderr: the error line when exit 3, the warning when clamped, nothing else
		want=$(((rc == 3) + (got > 0)))
		if [ "$clamped" != - ] && [ "$got" != "$clamped" ]; then
			t_fail "$case_: timestamps_clamped $got, expected $clamped"
		elif [ "$warn" -ne $((got > 0)) ]; then
			t_fail "$case_: $got clamped, $warn warning lines"
		elif [ "$rc" -eq 3 ] && [ "$errl" -ne 1 ]; then
			t_fail "$case_: exit 3 without one error line naming the input"
		elif [ "$nerr" -ne "$want" ]; then
			t_fail "$case_: $nerr stderr lines, expected $want"
			head -3 "$work/err"
		else
			t_pass "$case_: exit $rc, $got clamped"
		fi
	done
done <"$work/in/MANIFEST"

t_done
