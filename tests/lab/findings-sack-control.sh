#!/usr/bin/env bash
# findings-sack-control.sh TCPSIFT [LAB_PEER] - the control of
# findings-sack-loss.sh: the same chain and transfer with no drop rule.
#
# lab_chain A <-> R <-> B; B downloads 3000000 bytes from A (cubic, paced);
# tcpdump -s 128 on A's veth and on B's veth.
# Ground truth: A's nstat TcpRetransSegs == 0 and TcpExtTCPSackRecovery == 0,
# no link or capture drops, and no SACK option in either capture (tshark).
# Checks, for each capture: 0 SACK holes, 0 recoveries, 0 D-SACK, 0 reneging.
# On a loaded 2-core host the router's per-CPU backlogs can reorder a few
# segments: then A's kernel itself counts SACK recovery with no
# retransmission (TcpExtTCPSackRecovery > 0, TcpRetransSegs 0), and the
# control is one of reordering: each capture's holes must all be closed by
# the late original, as many recoveries as A's kernel counted, and still no
# D-SACK or reneging.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init sack-control tcpdump tshark ethtool -- "$@"
BYTES=3000000

lab_chain fsackc
lab_chain_offloads_off
lab_nstat_reset "$LAB_NS_A"
acap="$LAB_TMP/a.pcap" bcap="$LAB_TMP/b.pcap" ajson="$LAB_TMP/a.json" bjson="$LAB_TMP/b.json"
lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$acap" tcp
a_cap=$LAB_CAP_PID
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$bcap" tcp
b_cap=$LAB_CAP_PID

lab_transfer "$LAB_NS_A" "$LAB_IP4_A:5001" "$LAB_NS_B" "$LAB_IP4_B:40001" 30 download "$BYTES" \
	--cc cubic --pacing-rate 10M
lab_capture_analyze "$a_cap" "$acap" "$ajson"
a_drops=$LAB_CAP_DROPS
lab_capture_analyze "$b_cap" "$bcap" "$bjson"
b_drops=$LAB_CAP_DROPS

retrans=$(lab_nstat "$LAB_NS_A" TcpRetransSegs)
sackrec=$(lab_nstat "$LAB_NS_A" TcpExtTCPSackRecovery)
linkdrops=$(lab_chain_link_drops)
sacks=$(tshark -n -r "$bcap" -Y tcp.options.sack_le -T fields -e frame.number 2>/dev/null | wc -l)

paths=(connections.0.sack.holes connections.0.sack.recoveries connections.0.sack.dsack
	connections.0.sack.reneging connections.0.s2c.unique_bytes
	connections.0.sack.closed_by.reordering)
read -r ah arec ads aren auniq areo < <(lab_values "$ajson" "${paths[@]}") ||
	lab_abort "no usable report from tcpsift on A's capture"
read -r bh brec bds bren buniq breo < <(lab_values "$bjson" "${paths[@]}") ||
	lab_abort "no usable report from tcpsift on B's capture"
# The host reordered (see above): the control's truth is that reordering.
host_reorder=0
[ "$retrans" -eq 0 ] && [ "$sackrec" -gt 0 ] && host_reorder=1

lab_harness "tcpdump dropped $a_drops/$b_drops packets" $((a_drops + b_drops)) -eq 0
lab_harness "veth drop counters $linkdrops" "$linkdrops" -eq 0
lab_check "A TcpRetransSegs $retrans != 0" "$retrans" -eq 0
lab_check "unique_bytes $auniq/$buniq != $BYTES" "$auniq$buniq" = "$BYTES$BYTES"
if [ $host_reorder -eq 1 ]; then
	lab_log "sack-control: the host reordered (A: SACK recovery $sackrec, no retransmission)"
	lab_check "holes A $ah B $bh not all closed by the late original ($areo $breo)" \
		"$ah$bh" = "$areo$breo"
	lab_check "recoveries A $arec B $brec != A's kernel $sackrec" "$arec$brec" = "$sackrec$sackrec"
else
	lab_check "A TcpExtTCPSackRecovery $sackrec != 0" "$sackrec" -eq 0
	lab_check "SACK options in B's capture: $sacks" "$sacks" -eq 0
	lab_check "holes A $ah B $bh != 0" $((ah + bh)) -eq 0
	lab_check "recoveries A $arec B $brec != 0" $((arec + brec)) -eq 0
fi
lab_check "D-SACK A $ads B $bds != 0" $((ads + bds)) -eq 0
lab_check "reneging A $aren B $bren != 0" $((aren + bren)) -eq 0

lab_verdict "holes A $ah B $bh (0), recoveries A $arec B $brec (0; TcpExtTCPSackRecovery $sackrec)," \
	"D-SACK A $ads B $bds (0), reneging A $aren B $bren (0); TcpRetransSegs $retrans," \
	"SACK options captured $sacks, link drops $linkdrops"
