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

lab_scenario_init loss-upstream tcpdump tshark nft ethtool python3 -- "$@"
BYTES=3000000

# Setup.
lab_chain fup
lab_chain_offloads_off
# Data segments only: A's pure ACKs (52 bytes: B sends no data, so no SACK
# blocks) are not dropped, or B would retransmit its FIN; every data segment
# here is over 100 bytes.
lab_nft_drop "$LAB_NS_R" forward 2 \
	"ip saddr $LAB_IP4_A tcp sport 5001 tcp flags & (syn | fin | rst) == 0 ip length > 100"
lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"
cap="$LAB_TMP/a.pcap" json="$LAB_TMP/a.json"
lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$cap" tcp

# Traffic: B downloads from A.
lab_transfer "$LAB_NS_A" "$LAB_IP4_A:5001" "$LAB_NS_B" "$LAB_IP4_B:40001" 30 download "$BYTES" \
	--cc cubic --pacing-rate 10M
lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
a_packets=$LAB_CAP_PACKETS a_drops=$LAB_CAP_DROPS

# Ground truth.
nft=$(lab_nft_counter "$LAB_NS_R")
retrans=$(lab_nstat "$LAB_NS_A" TcpRetransSegs)
outsegs=$(lab_nstat "$LAB_NS_A" TcpOutSegs)
b_out=$(($(lab_nstat "$LAB_NS_B" TcpOutSegs) + $(lab_nstat "$LAB_NS_B" TcpRetransSegs)))
linkdrops=$(lab_chain_link_drops)
a_from_a=$(tshark -n -r "$cap" -Y "ip.src == $LAB_IP4_A" -T fields -e frame.number 2>/dev/null |
	wc -l)
t_dup=$(tshark -n -r "$cap" -Y "tcp.analysis.duplicate_ack && ip.src == $LAB_IP4_B" \
	-T fields -e frame.number 2>/dev/null | wc -l)

read -r nconn s_retx s_up s_lost s_ooo s_au s_uniq c_dup c_sack state < <(lab_values "$json" \
	summary.connections connections.0.s2c.retransmissions connections.0.s2c.lost_upstream \
	connections.0.s2c.lost_segments \
	connections.0.s2c.out_of_order connections.0.s2c.acked_unseen \
	connections.0.s2c.unique_bytes connections.0.c2s.dup_acks connections.0.c2s.sack_acks \
	connections.0.state) ||
	lab_abort "no usable report from tcpsift: $(lab_json "$json" summary.connections)"

# Is the ground truth itself sound?
lab_harness "tcpdump dropped $a_drops packets" "$a_drops" -eq 0
lab_harness "veth drop counters $linkdrops (unpaced sender?)" "$linkdrops" -eq 0
lab_check "nft dropped nothing" "$nft" -gt 0
lab_check "captured from A $a_from_a != TcpOutSegs $outsegs + TcpRetransSegs $retrans" \
	"$a_from_a" -eq $((outsegs + retrans))
lab_check "captured $a_packets != from A $a_from_a + B's TcpOutSegs + TcpRetransSegs $b_out" \
	"$a_packets" -eq $((a_from_a + b_out))

# tcpsift.
lab_check "connections $nconn != 1" "$nconn" = 1
lab_check "state $state != closed" "$state" = closed
lab_check "retransmissions $s_retx != TcpRetransSegs $retrans" "$s_retx" -eq "$retrans"
lab_check "lost_segments $s_lost != 0" "$s_lost" -eq 0
# Captured upstream of the drop: every retransmission re-sends seen bytes.
lab_check "lost_upstream $s_up != 0" "$s_up" -eq 0
lab_check "out_of_order $s_ooo != 0" "$s_ooo" -eq 0
lab_check "acked_unseen $s_au != 0" "$s_au" -eq 0
lab_check "unique_bytes $s_uniq != $BYTES" "$s_uniq" -eq "$BYTES"
lab_check "c2s dup_acks 0: B's duplicate ACKs not seen" "$c_dup" -gt 0
# tcpsift counts duplicate ACKs by Wireshark's rule.
lab_check "c2s dup_acks $c_dup != tshark's duplicate_ack $t_dup" "$c_dup" -eq "$t_dup"

lab_verdict "retransmissions $s_retx (TcpRetransSegs $retrans), lost_segments $s_lost (0)," \
	"out_of_order $s_ooo (0), acked_unseen $s_au (0), unique_bytes $s_uniq ($BYTES)," \
	"c2s dup_acks $c_dup (> 0; tshark $t_dup), c2s sack_acks $c_sack, state $state (closed);" \
	"nft drops $nft, captured $a_packets (kernel drops $a_drops), link drops $linkdrops"
