#!/usr/bin/env bash
# stdout.sh TCPSIFT [LAB_PEER] - `tcpsift capture -i IF -w -` streams pcapng
# that `tcpsift analyze -` and `tshark -r -` read from a pipe, live.
#
# lab_pair (offloads off, IPv6 off); FLOWS paced downloads A -> B on
# different ports; on B: tcpsift capture -i B -w - | tee FIFO | tcpsift
# analyze --json -, and tshark -r - reading FIFO: both read the one stream
# as it is written, and end when tcpsift closes it after SIGINT.
# Ground truth: packets on B's veth = A's tx_packets delta + B's
# tx_packets delta (see fanout-qm.sh).
# Checks: tcpsift exits 0; tshark reads the stream to the end (exit 0, no
# complaint) and counts the identity; tcpsift analyze exits 0 with the same
# packet count, FLOWS connections and capture_drops not null (the ISBs at
# the end of the stream); tcpsift's "written" == that count.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-stdout tshark python3 ethtool -- "$@"
lab_require_capture
FLOWS=${STDOUT_FLOWS:-2} BYTES=${STDOUT_BYTES:-4M} RATE=${STDOUT_RATE:-4M}

lab_pair cstdout 1500 1
lab_pair_ipv6_off
lab_pair_offloads_off
json="$LAB_TMP/stdout.json" tout="$LAB_TMP/tshark.out" terr="$LAB_TMP/tshark.err"
f0="$LAB_TMP/capture.fifo" f1="$LAB_TMP/tshark.fifo"
mkfifo "$f0" "$f1"

# Readers first: opening a FIFO blocks until its other end is opened.
tshark -r - -T fields -e frame.number <"$f1" >"$tout" 2>"$terr" &
tshark_pid=$!
tee "$f1" <"$f0" | "$LAB_BIN" analyze --json --no-progress - >"$json" 2>"$LAB_TMP/analyze.err" &
analyze_pid=$!
LAB_PIDS+=("$tshark_pid" "$analyze_pid")
lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -w - >"$f0" ||
	lab_abort "tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
a_tx0=$(lab_link_stat "$LAB_NS_A" "$LAB_IF_A" tx_packets)
b_tx0=$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" tx_packets)

lab_downloads "$FLOWS" "$BYTES" 20 --pacing-rate "$RATE"
lab_downloads_wait
a_tx=$(($(lab_link_stat "$LAB_NS_A" "$LAB_IF_A" tx_packets) - a_tx0))
b_tx=$(($(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" tx_packets) - b_tx0))
want=$((a_tx + b_tx))

lab_tcpsift_stop INT 2
# The readers end at the end of the stream; give them 10 s.
for _ in $(seq 100); do
	kill -0 "$tshark_pid" 2>/dev/null || kill -0 "$analyze_pid" 2>/dev/null || break
	sleep 0.1
done
t_rc=0 a_rc=0
lab_wait "$tshark_pid" || t_rc=$?
lab_wait "$analyze_pid" || a_rc=$?

lab_check "tcpsift exited $LAB_TCAP_RC after SIGINT (want 0)" "$LAB_TCAP_RC" -eq 0
n_t=$(wc -l <"$tout")
lab_check "tshark -r - exited $t_rc: $(grep -v '^Running as user' "$terr" | head -n 1)" "$t_rc" -eq 0
lab_check "tshark -r - complained: $(grep -v '^Running as user' "$terr" | head -n 1)" \
	-z "$(grep -v '^Running as user' "$terr" || true)"
lab_check "tshark read $n_t packets from the pipe, A tx $a_tx + B tx $b_tx = $want" \
	"$n_t" -eq "$want"
a_pkts="?" a_conns="?" a_drops="?"
if [ "$a_rc" -eq 0 ] && read -r a_pkts a_conns a_drops < <(lab_values "$json" inputs.0.packets \
	summary.connections inputs.0.capture_drops); then
	lab_check "analyze - read $a_pkts packets, tshark - $n_t" "$a_pkts" -eq "$n_t"
	lab_check "analyze -: $a_conns connections (want $FLOWS)" "$a_conns" -eq "$FLOWS"
	lab_check "analyze -: capture_drops null (no ISB at the end of the stream)" "$a_drops" != null
else
	lab_fail "tcpsift analyze - exited $a_rc: $(head -n 2 "$LAB_TMP/analyze.err")"
fi
written=$(lab_tcpsift_count written)
lab_check "tcpsift says written ${written:-?}, tshark read $n_t" "${written:--1}" -eq "$n_t"

lab_verdict "exit $LAB_TCAP_RC (0); tshark -r - $n_t packets (A tx $a_tx + B tx $b_tx =" \
	"$want), exit $t_rc; analyze - $a_pkts packets, $a_conns connections ($FLOWS)," \
	"capture_drops $a_drops (not null), exit $a_rc; written ${written:-?}"
