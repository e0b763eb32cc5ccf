#!/usr/bin/env bash
# golden/run.sh TCPSIFT [--update] - samples/ captures -> expected output under
# tests/golden/expected/, tcpdump TESTLIST style. A case fails on any byte of
# difference in stdout, a different exit status, or stderr other than the
# expected one. --update rewrites the expected files (review the diff!).
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=golden
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT [--update]}
update=${2:-}
export TZ=UTC LC_ALL=C
exp=tests/golden/expected
out=build/golden
mkdir -p "$out"

# Normalize what legitimately differs between builds: the version string.
norm() { sed -E 's/"version": ?"[^"]*"/"version":"V"/; s/^tcpsift [^:]*:/tcpsift V:/'; }

while read -r name sample status args; do
	case "$name" in '' | \#*) continue ;; esac
	[ -f "samples/$sample" ] || { t_fail "$name: samples/$sample missing"; continue; }
	eval "set -- $args" # TESTLIST arguments may be quoted
	"$bin" analyze --no-progress "$@" "samples/$sample" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	norm <"$out/$name.out" >"$out/$name.norm"
	if [ "$update" = --update ]; then
		cp "$out/$name.norm" "$exp/$name.out"
		cp "$out/$name.err" "$exp/$name.err"
		echo "updated $name (exit $rc)"
		[ "$rc" = "$status" ] || echo "  note: exit $rc, TESTLIST says $status"
		continue
	fi
	if [ "$rc" != "$status" ]; then
		t_fail "$name: exit $rc, expected $status"
		sed 's/^/  stderr: /' "$out/$name.err" | head -5
	elif ! diff -u "$exp/$name.out" "$out/$name.norm" >"$out/$name.diff"; then
		t_fail "$name: output differs (diff in $out/$name.diff)"
		head -40 "$out/$name.diff"
	elif ! diff -u "$exp/$name.err" "$out/$name.err" >/dev/null; then
		t_fail "$name: stderr differs:"
		diff -u "$exp/$name.err" "$out/$name.err" | head -10
	else
		t_pass "$name"
	fi
done < <(cat tests/golden/TESTLIST tests/golden/TESTLIST.* 2>/dev/null)

# Every JSON and NDJSON report above against the documented schema
# (man/tcpsift-report.schema.json), and that schema against its parts.
if [ "$update" != --update ]; then
	if scripts/schema.py check >"$out/schema.check"; then t_pass "schema is assembled from its parts"; else
		t_fail "$(cat "$out/schema.check")"
	fi
	mapfile -t reports < <(grep -l '"tcpsift"' "$out"/*.out)
	if [ "${#reports[@]}" -lt 10 ]; then
		t_fail "schema: only ${#reports[@]} JSON reports among the golden outputs"
	elif scripts/schema.py validate "${reports[@]}" >"$out/schema.log"; then
		t_pass "schema: ${#reports[@]} JSON/NDJSON reports valid"
	else
		t_fail "schema: reports do not match man/tcpsift-report.schema.json:"
		head -10 "$out/schema.log"
	fi
fi
t_done
