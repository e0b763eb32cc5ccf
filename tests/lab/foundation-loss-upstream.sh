#!/usr/bin/env bash
# foundation-loss-upstream.sh TCPSIFT [LAB_PEER] - loss seen upstream of the
# drop, on the real Linux TCP stack.
#
# lab_chain A <-> R <-> B; B downloads 3000000 bytes from A (cubic, paced);
# R's forward hook drops 2 % of A->B data segments. tcpdump -s 128 on A's own
# veth: every segment A sends passes the capture point before it can be
# dropped, so the capture is the sender's view.
#
# Ground truth: A's nstat TcpRetransSegs (retransmitted segments; with TSO
# and GSO off every one is a segment on the wire) and TcpOutSegs, the nft
# counter. Checks: s2c retransmissions == TcpRetransSegs exactly,
# lost_segments == 0, out_of_order == 0, acked_unseen == 0, unique_bytes ==
# 3000000, and B's duplicate ACKs (with SACK) show on c2s: dup_acks > 0, and
# equal to tshark's tcp.analysis.duplicate_ack (tcpsift uses its rule).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

name=loss-upstream
bin=$(realpath "${1:?usage: $0 TCPSIFT [LAB_PEER]}")
peer=$(realpath "${2:-$(dirname "$bin")/tests/tools/lab-peer}")
BYTES=3000000

lab_require_root
for t in tcpdump tshark nft ethtool python3; do
	command -v "$t" >/dev/null || {
		echo "SKIP $name: needs $t"
		exit 77
	}
done
[ -x "$peer" ] || {
	echo "SKIP $name: no lab-peer at $peer"
	exit 77
}

fails=()
fail() { fails+=("$*"); }

lab_chain fup
lab_offloads_off "$LAB_NS_A" "$LAB_IF_A"
lab_offloads_off "$LAB_NS_R" "$LAB_IF_RA" "$LAB_IF_RB"
lab_offloads_off "$LAB_NS_B" "$LAB_IF_B"
# Data segments only: A's pure ACKs (52 bytes: B sends no data, so no SACK
# blocks) are not dropped, or B would retransmit its FIN; every data segment
# here is over 100 bytes.
lab_nft_drop "$LAB_NS_R" forward 2 \
	"ip saddr $LAB_IP4_A tcp sport 5001 tcp flags & (syn | fin | rst) == 0 ip length > 100"
lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"

cap="$LAB_TMP/a.pcap" json="$LAB_TMP/a.json"
lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$cap" tcp

lab_bg "$LAB_NS_A" "$peer" server --timeout 30 -l "$LAB_IP4_A:5001" -m download \
	-n "$BYTES" --cc cubic --pacing-rate 10M
srv=$LAB_LAST_PID
lab_wait_listen "$LAB_NS_A" 5001
lab_run "$LAB_NS_B" 35 "$peer" client --timeout 30 -c "$LAB_IP4_A:5001" \
	-b "$LAB_IP4_B:40001" -m download -n "$BYTES"
lab_wait "$srv"

cap_ok=1
lab_capture_stop "$LAB_CAP_PID" || cap_ok=0
a_packets=$LAB_CAP_PACKETS a_drops=$LAB_CAP_DROPS

nft=$(lab_nft_counter "$LAB_NS_R")
retrans=$(lab_nstat "$LAB_NS_A" TcpRetransSegs)
outsegs=$(lab_nstat "$LAB_NS_A" TcpOutSegs)
b_out=$(($(lab_nstat "$LAB_NS_B" TcpOutSegs) + $(lab_nstat "$LAB_NS_B" TcpRetransSegs)))
linkdrops=0
for x in "$LAB_NS_A:$LAB_IF_A" "$LAB_NS_R:$LAB_IF_RA" "$LAB_NS_R:$LAB_IF_RB" \
	"$LAB_NS_B:$LAB_IF_B"; do
	for s in rx_dropped tx_dropped; do
		linkdrops=$((linkdrops + $(lab_link_stat "${x%%:*}" "${x#*:}" "$s")))
	done
done
a_from_a=$(tshark -n -r "$cap" -Y "ip.src == $LAB_IP4_A" -T fields -e frame.number 2>/dev/null |
	wc -l)
t_dup=$(tshark -n -r "$cap" -Y "tcp.analysis.duplicate_ack && ip.src == $LAB_IP4_B" \
	-T fields -e frame.number 2>/dev/null | wc -l)

"$bin" analyze --json --no-progress "$cap" >"$json" || fail "tcpsift exited $?"
read -r nconn s_retx s_lost s_ooo s_au s_uniq c_dup c_sack state < <(lab_json "$json" \
	summary.connections connections.0.s2c.retransmissions connections.0.s2c.lost_segments \
	connections.0.s2c.out_of_order connections.0.s2c.acked_unseen \
	connections.0.s2c.unique_bytes connections.0.c2s.dup_acks connections.0.c2s.sack_acks \
	connections.0.state | paste -sd' ') || {
	echo "$name: no usable report from tcpsift: $(lab_json "$json" summary.connections)"
	exit 1
}

# Is the ground truth itself sound?
[ "$cap_ok" -eq 1 ] || fail "tcpdump dropped $a_drops packets"
[ "$linkdrops" -eq 0 ] || fail "veth drop counters $linkdrops (unpaced sender?)"
[ "$nft" -gt 0 ] || fail "nft dropped nothing"
[ "$a_from_a" -eq $((outsegs + retrans)) ] ||
	fail "captured from A $a_from_a != TcpOutSegs $outsegs + TcpRetransSegs $retrans"
[ "$a_packets" -eq $((a_from_a + b_out)) ] ||
	fail "captured $a_packets != from A $a_from_a + B's TcpOutSegs + TcpRetransSegs $b_out"

# tcpsift.
[ "$nconn" = 1 ] || fail "connections $nconn != 1"
[ "$state" = closed ] || fail "state $state != closed"
[ "$s_retx" -eq "$retrans" ] || fail "retransmissions $s_retx != TcpRetransSegs $retrans"
[ "$s_lost" -eq 0 ] || fail "lost_segments $s_lost != 0"
[ "$s_ooo" -eq 0 ] || fail "out_of_order $s_ooo != 0"
[ "$s_au" -eq 0 ] || fail "acked_unseen $s_au != 0"
[ "$s_uniq" -eq "$BYTES" ] || fail "unique_bytes $s_uniq != $BYTES"
[ "$c_dup" -gt 0 ] || fail "c2s dup_acks 0: B's duplicate ACKs not seen"
# tcpsift counts duplicate ACKs by Wireshark's rule.
[ "$c_dup" -eq "$t_dup" ] || fail "c2s dup_acks $c_dup != tshark's duplicate_ack $t_dup"

echo "$name: retransmissions $s_retx (TcpRetransSegs $retrans), lost_segments $s_lost (0)," \
	"out_of_order $s_ooo (0), acked_unseen $s_au (0), unique_bytes $s_uniq ($BYTES)," \
	"c2s dup_acks $c_dup (> 0; tshark $t_dup), c2s sack_acks $c_sack, state $state (closed);" \
	"nft drops $nft, captured $a_packets (kernel drops $a_drops), link drops $linkdrops"
# LAB_KEEP=DIR keeps the captures and reports for a look afterwards.
if [ -n "${LAB_KEEP:-}" ]; then
	mkdir -p "$LAB_KEEP" && cp "$LAB_TMP"/*.pcap "$LAB_TMP"/*.json "$LAB_KEEP"/
fi
if [ ${#fails[@]} -gt 0 ]; then
	printf '  FAIL: %s\n' "${fails[@]}"
	exit 1
fi
exit 0
