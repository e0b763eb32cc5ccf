#!/usr/bin/env bash
# public/run.sh TCPSIFT - optional tier over the real-world captures in
# ../shared/pcaps/public (read in place, never copied): every file is read
# without a crash, sanitizer report or hang; bad files give one clear line
# and exit 3; good ones give JSON that parses; and the per-connection counts
# agree with tshark (tests/tshark/crosscheck.py) where the MANIFEST says the
# file is a TCP capture. Skipped, with a message, when the folder is absent.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=public
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
pub=${TCPSIFT_PUBLIC:-../shared/pcaps/public}
if [ ! -d "$pub" ]; then
	t_skip "no $pub: optional public-capture tier not run"
	t_done
	exit
fi
out=build/public
mkdir -p "$out"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
for f in "$pub"/*.pcap "$pub"/*.pcapng "$pub"/fuzz/*.pcap*; do
	[ -f "$f" ] || continue
	n=$(basename "$f")
	timeout 60 "$bin" analyze --json --no-progress "$f" >"$out/$n.json" 2>"$out/$n.err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
		t_fail "$n: exit $rc"
		head -5 "$out/$n.err"
		continue
	fi
	if grep -qE 'Sanitizer|runtime error' "$out/$n.err"; then
		t_fail "$n: sanitizer report"
		head -20 "$out/$n.err"
		continue
	fi
	lines=$(wc -l <"$out/$n.err")
	if [ $rc -eq 3 ] && [ "$lines" -ne 1 ]; then
		t_fail "$n: exit 3 but $lines lines of error (want exactly one)"
		continue
	fi
	if [ $rc -eq 3 ] && ! grep -q "$n" "$out/$n.err"; then
		t_fail "$n: the error does not name the file"
		continue
	fi
	# A file that opened at all yields a complete JSON report, as documented.
	if [ -s "$out/$n.json" ] && ! scripts/schema.py validate "$out/$n.json" >"$out/$n.schema"; then
		t_fail "$n: JSON does not match the schema: $(head -3 "$out/$n.schema")"
		continue
	fi
	t_pass "$n (exit $rc)"
done
if [ -x tests/tshark/crosscheck.py ]; then
	if tests/tshark/crosscheck.py --bin "$bin" --known tests/tshark/known-differences.tsv \
		--label public "$pub"/*.pcap "$pub"/*.pcapng; then
		t_pass "tshark cross-check of the public captures"
	else
		t_fail "tshark cross-check of the public captures"
	fi
fi
t_done
