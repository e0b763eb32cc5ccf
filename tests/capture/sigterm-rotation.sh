#!/usr/bin/env bash
# sigterm-rotation.sh TCPSIFT [LAB_PEER] - SIGTERM while the file ring turns
# over hundreds of times a second: every file left is complete.
#
# lab_pair (1 queue, offloads off, IPv6 off); FLOWS unpaced downloads A -> B
# captured on B's veth with -s 128 -C 1: a 1 MiB file fills in a few
# milliseconds, so a signal lands in or next to a rotation (closing one
# file with its ISBs, opening the next, naming it); RUNS runs, the signal
# after a different delay each, the second half with -W 4 (removing the
# oldest file is part of the rotation then).
# Checks per run: exit 0 after SIGTERM; more than 10 rotations happened;
# every file left is read to the end by capinfos (no cut record) and has an
# ISB for its interface; sequence numbers consecutive; without -W, the
# packets over all files == tcpsift's "written" (nothing lost on the way
# out), with -W at most 4 files left, the newest.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-sigterm-rotation capinfos python3 ethtool -- "$@"
lab_require_capture
FLOWS=${ROT_FLOWS:-2} RUNS=${ROT_RUNS:-4}

lab_pair csrot 1500 1
lab_pair_ipv6_off
lab_pair_offloads_off

total_files=0 min_files=999999 bad=0
for run in $(seq "$RUNS"); do
	dir="$LAB_TMP/r$run"
	mkdir -p "$dir"
	extra=()
	[ "$run" -le $((RUNS / 2)) ] || extra=(-W 4)
	lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -s 128 -C 1 "${extra[@]}" -w "$dir/rot.pcapng" ||
		lab_abort "run $run: tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
	lab_downloads "$FLOWS" 64G 12
	peers=("${LAB_DL_PIDS[@]}")
	# 1.0, 1.13, 1.26, ... s: a different phase of the ring each run.
	lab_tcpsift_stop TERM "1.$(((run - 1) * 13 % 100))"
	for p in "${peers[@]}"; do
		lab_kill "$p" || true
		_lab_forget_pid "$p"
	done
	lab_check "run $run: tcpsift exited $LAB_TCAP_RC after SIGTERM (want 0)" "$LAB_TCAP_RC" -eq 0
	mapfile -t files < <(find "$dir" -name 'rot*.pcapng' | sort)
	nf=${#files[@]}
	total_files=$((total_files + nf))
	[ "$nf" -ge "$min_files" ] || min_files=$nf
	pkts=0 prev="" first=""
	for f in "${files[@]}"; do
		b=$(basename "$f")
		if ! out=$(capinfos -M -c "$f" 2>"$dir/ci.err") ||
			grep -v '^Running as user' "$dir/ci.err" | grep -q .; then
			lab_fail "run $run: $b: capinfos could not read it to the end: $(head -n 1 "$dir/ci.err")"
			bad=$((bad + 1))
			continue
		fi
		n=$(awk '/^Number of packets/ { print $NF }' <<<"$out")
		pkts=$((pkts + ${n:-0}))
		isb=$(capinfos "$f" 2>/dev/null | awk '/Number of stat entries/ { s += ($NF > 0) } END { print s + 0 }')
		[ "$isb" -ge 1 ] || {
			lab_fail "run $run: $b: no ISB"
			bad=$((bad + 1))
		}
		[[ $b =~ _([0-9]{5})_ ]] || {
			lab_fail "run $run: $b: no sequence number"
			continue
		}
		seq=$((10#${BASH_REMATCH[1]}))
		[ -n "$first" ] || first=$seq
		[ -z "$prev" ] || [ "$seq" -eq $((prev + 1)) ] ||
			lab_fail "run $run: $b: sequence $seq follows $prev"
		prev=$seq
	done
	last=${prev:-0}
	lab_check "run $run: $last files written (want > 10 rotations)" "$last" -gt 10
	if [ ${#extra[@]} -eq 0 ]; then
		written=$(lab_tcpsift_count written)
		lab_check "run $run: packets over all files $pkts != tcpsift's written ${written:-?}" \
			"$pkts" -eq "${written:--1}"
	else
		lab_check "run $run: $nf files left with -W 4" "$nf" -le 4
		lab_check "run $run: the files left are not the newest ($first..$last)" \
			"$first" -eq $((last - nf + 1))
	fi
done

lab_verdict "$RUNS SIGTERMs during -C 1 rotation: exit 0 each, $total_files files left" \
	"(fewest $min_files a run), $bad incomplete or without ISB (0)"
