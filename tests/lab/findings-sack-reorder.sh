#!/usr/bin/env bash
# findings-sack-reorder.sh TCPSIFT [LAB_PEER] - SACK holes closed by the late
# original (reordering, no loss), seen on both sides of the reordering relay.
#
# lab_relay_pair A <-> R <-> B; tests/tools/lab-relay in R carries every
# frame and holds every 10th A -> B data segment until 2 later ones overtook
# it. B downloads 1000000 bytes from A, paced one segment per slot (as in
# findings-reorder-relay.sh). tcpdump -s 128 on A's veth (before the relay)
# and on B's veth (behind it).
#
# Ground truth: the relay's summary: "reordered" = held segments overtaken by
# >= 1 data segment and by no copy of themselves. Each of those makes B SACK
# the overtakers: one hole, closed when the held original arrives. No drop
# anywhere (veth and capture counters 0).
# Checks: B: holes within 10 % of "reordered" (> 0), and >= 90 % of them
# closed by reordering (the late original); A: the same holes (within 10 %),
# each closed by reordering downstream of the capture point (ACKed with no
# retransmission, in a capture that missed nothing of the direction: A saw
# every original before the hole) or, when A retransmitted too early, by the
# retransmission (those are D-SACKed afterwards), none hedged as "acked";
# A: every hole lost
# downstream (its bytes had passed A's capture point), B: none (the held
# original had not reached B's capture point); no reneging.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init sack-reorder tcpdump ethtool -- "$@"
RELAY=$(dirname "$LAB_PEER")/lab-relay
[ -x "$RELAY" ] || {
	echo "SKIP $LAB_NAME: no lab-relay at $RELAY"
	exit 77
}
BYTES=1000000

within() { [ $((100 * ($1 > $2 ? $1 - $2 : $2 - $1))) -le $(($3 * $2)) ]; }

lab_relay_pair fsackr 1
ip netns exec "$LAB_NS_A" sysctl -qw net.ipv4.tcp_tso_rtt_log=0 net.ipv4.tcp_min_tso_segs=1
acap="$LAB_TMP/a.pcap" bcap="$LAB_TMP/b.pcap" ajson="$LAB_TMP/a.json" bjson="$LAB_TMP/b.json"
rerr="$LAB_TMP/relay.err"
lab_bg "$LAB_NS_R" "$RELAY" -a "$LAB_IF_RA" -b "$LAB_IF_RB" --hold-every 10 --hold-count 2 \
	--timeout 40 2>"$rerr"
relay=$LAB_LAST_PID
lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$acap" tcp
a_cap=$LAB_CAP_PID
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$bcap" tcp
b_cap=$LAB_CAP_PID
lab_nstat_reset "$LAB_NS_A"

lab_transfer "$LAB_NS_A" "$LAB_IP4_A:5001" "$LAB_NS_B" "$LAB_IP4_B:40001" 20 download "$BYTES" \
	--pacing-rate 1M
lab_capture_analyze "$a_cap" "$acap" "$ajson"
a_drops=$LAB_CAP_DROPS
lab_capture_analyze "$b_cap" "$bcap" "$bjson"
b_drops=$LAB_CAP_DROPS
lab_relay_stop "$relay" "$rerr"
gt_held=$(lab_relay_value held) gt_reord=$(lab_relay_value reordered)
gt_senderr=$(lab_relay_value send_errors)
gt_sockdrop=$(lab_relay_value socket_drops)
retrans=$(lab_nstat "$LAB_NS_A" TcpRetransSegs)

paths=(connections.0.sack.holes connections.0.sack.closed_by.reordering
	connections.0.sack.reordered_downstream
	connections.0.sack.closed_by.retransmission connections.0.sack.closed_by.acked
	connections.0.sack.closed_by.open connections.0.sack.lost_downstream
	connections.0.sack.dsack connections.0.sack.reneging summary.connections)
read -r ah areo adn aret aack aopen adown ads aren an < <(lab_values "$ajson" "${paths[@]}") ||
	lab_abort "no usable report from tcpsift on A's capture"
read -r bh breo bdn bret back bopen bdown bds bren bn < <(lab_values "$bjson" "${paths[@]}") ||
	lab_abort "no usable report from tcpsift on B's capture"

lab_harness "tcpdump dropped $a_drops/$b_drops packets" $((a_drops + b_drops)) -eq 0
lab_harness "relay send errors $gt_senderr / socket drops $gt_sockdrop" \
	$((gt_senderr + gt_sockdrop)) -eq 0
lab_check "relay reordered nothing" "$gt_reord" -gt 0
lab_check "connections $an/$bn != 1" "$an$bn" = 11
lab_check "B: holes $bh not within 10 % of the relay's $gt_reord" \
	"$(within "$bh" "$gt_reord" 10 && echo y)" = y
lab_check "B: only $breo of $bh holes closed by reordering" $((10 * breo)) -ge $((9 * bh))
lab_check "A: holes $ah not within 10 % of the relay's $gt_reord" \
	"$(within "$ah" "$gt_reord" 10 && echo y)" = y
lab_check "A: $aack holes hedged as acked (A's capture missed nothing)" "$aack" -eq 0
lab_check "A: reordered downstream $adn + retransmission $aret != holes $ah" \
	$((adn + aret)) -eq "$ah"
lab_check "A: reordering $areo != downstream $adn (A saw every original first)" "$areo" -eq "$adn"
lab_check "B: $bdn holes reordered downstream of B's capture point" "$bdn" -eq 0
lab_check "A: lost downstream $adown != holes $ah" "$adown" -eq "$ah"
# A hole whose bytes B's capture had seen was reordered inside B's host,
# between the capture and the socket (per-CPU backlogs under load): never
# one the relay reordered and B saw closed by the late original.
lab_check "B: $bdown holes had passed B's capture point (more than the $((bh - breo)) the relay does not explain)" \
	"$bdown" -le $((bh - breo))
lab_check "open holes A $aopen B $bopen" $((aopen + bopen)) -eq 0
lab_check "reneging A $aren B $bren" $((aren + bren)) -eq 0

lab_verdict "holes at B $bh (relay reordered $gt_reord of $gt_held held), closed by the late" \
	"original $breo, by retransmission $bret, acked $back, passed the capture point $bdown (0);" \
	"holes at A $ah: reordered downstream $adn, acked $aack (0)," \
	"retransmission $aret (A TcpRetransSegs $retrans), lost downstream $adown;" \
	"D-SACK A $ads B $bds; reneging $aren/$bren (0)"
