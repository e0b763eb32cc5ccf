#!/usr/bin/env bash
# tshark/run.sh TCPSIFT - per-connection cross-check of tcpsift's counters
# against tshark's TCP analysis flags over every capture in samples/
# (crosscheck.py; differences must be listed with a reason in
# known-differences.tsv). One case per file (per-queue files merged);
# skipped without tshark.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=tshark
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
known=tests/tshark/known-differences.tsv
out=build/tshark
mkdir -p "$out"
if ! command -v tshark >/dev/null 2>&1; then
	t_skip "tshark not installed: cross-check not run"
	t_done
	exit
fi
# One capture split into a file per queue (NAME-q0.pcap, NAME-q1.pcap, ...)
# is only meaningful whole: cross-check the files merged by time.
files=()
for f in samples/*.pcap*; do
	[ -f "$f" ] || continue
	case "$f" in
	*-q0.pcap*)
		merged="$out/$(basename "${f%-q0.pcap*}")-merged.pcap"
		mergecap -F pcap -w "$merged" "${f%-q0.pcap*}"-q[0-9]*.pcap* && files+=("$merged")
		;;
	*-q[0-9]*.pcap*) ;;
	*) files+=("$f") ;;
	esac
done
for f in "${files[@]}"; do
	n=$(basename "$f")
	tests/tshark/crosscheck.py --bin "$bin" --known "$known" --explain "$f" >"$out/$n.txt" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		t_pass "$n"
	else
		t_fail "$n: crosscheck exit $rc (report in $out/$n.txt)"
		sed -n '/difference(s) not in\|stale line\|^ERROR\|^   [^ ]* conn /,$p' "$out/$n.txt" | head -40
	fi
done
t_done
