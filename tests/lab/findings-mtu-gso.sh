#!/usr/bin/env bash
# findings-mtu-gso.sh TCPSIFT [LAB_PEER] - GSO/TSO super-frames in a
# sender-side capture are reported as oversize and kept out of the MTU.
#
# lab_pair with MTU 1500; A sends 4 MiB to B (bulk). tcpdump -s 128 on A's
# veth, i.e. on the sender, where the tap sees what TCP handed to the device:
#   offload   veth TSO/GSO on (the default): super-frames up to 64 KiB;
#   control   ethtool -K tso off gso off gro off tx off on both veths.
# Ground truth (tshark): segments from A with tcp.len above B's MSS (from
# its SYN/ACK), and the largest tcp.len not above it (1448 with timestamps).
# Checks: mtu_findings.oversize.c2s == tshark's count (> 0 with offloads, 0
# without), one oversize_segment event (0 in the control), largest_payload
# == tshark's largest tcp.len <= MSS (1448 in the control; null when every
# data segment was a super-frame, as usual with TSO on: no wire size to
# infer an MTU from), implied_mtu = that + 52, misaligned false.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init mtu-gso tcpdump tshark ethtool python3 -- "$@"
BYTES=4194304
summary=()

for mode in offload control; do
	lab_reset
	lab_pair mgso 1500
	[ "$mode" = control ] && lab_pair_offloads_off
	cap="$LAB_TMP/gso-$mode.pcap" json="$LAB_TMP/gso-$mode.json"
	lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$cap" tcp
	lab_transfer "$LAB_NS_B" "$LAB_IP4_B:5001" "$LAB_NS_A" "$LAB_IP4_A:40001" 20 bulk "$BYTES" \
		-- --pacing-rate 100M || lab_fail "$mode: transfer failed"
	lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
	[ "$LAB_CAP_DROPS" -eq 0 ] || lab_fail "$mode: tcpdump dropped $LAB_CAP_DROPS"
	[ -n "${MTU_SAMPLES:-}" ] && cp "$cap" "$MTU_SAMPLES/mtu-$(basename "$cap")"

	mss=$(tshark -n -r "$cap" -Y "tcp.flags.syn == 1 && tcp.flags.ack == 1" \
		-T fields -e tcp.options.mss_val 2>/dev/null | head -1)
	[ -n "$mss" ] || lab_abort "$mode: no SYN/ACK in $cap"
	read -r gt_over gt_full < <(tshark -n -r "$cap" -Y "ip.src == $LAB_IP4_A && tcp.len > 0" \
		-T fields -e tcp.len 2>/dev/null | awk -v m="$mss" \
		'$1 > m { o++ } $1 <= m && $1 > f { f = $1 } END { print o + 0, f + 0 }')
	read -r over pl impl mis < <(lab_values "$json" connections.0.mtu_findings.oversize.c2s \
		connections.0.mtu_findings.largest_payload.c2s \
		connections.0.mtu_findings.implied_mtu.c2s connections.0.mtu_findings.misaligned) ||
		lab_abort "$mode: no usable report"
	nev=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(sum(e["type"] == "oversize_segment" for e in d["events"]))' "$json")

	if [ "$mode" = offload ]; then
		lab_check "offload: tshark saw no super-frame (TSO/GSO off by default?)" "$gt_over" -gt 0
		lab_check "offload: $nev oversize_segment events != 1" "$nev" = 1
	else
		lab_check "control: tshark saw $gt_over super-frames with offloads off" "$gt_over" = 0
		lab_check "control: $nev oversize_segment events != 0" "$nev" = 0
	fi
	lab_check "$mode: oversize $over != tshark $gt_over" "$over" = "$gt_over"
	# A sender-side capture with TSO/GSO may hold no wire-sized data
	# segment at all (every skb a multiple of the MSS): then there is no
	# MTU to infer, and null is the honest answer.
	if [ "$gt_full" = 0 ]; then
		lab_check "$mode: largest_payload $pl != null (no segment <= MSS)" "$pl" = null
		lab_check "$mode: implied_mtu $impl != null" "$impl" = null
	else
		lab_check "$mode: largest_payload $pl != tshark $gt_full" "$pl" = "$gt_full"
		lab_check "$mode: implied_mtu $impl != $gt_full + 52" "$impl" = $((gt_full + 52))
	fi
	[ "$mode" = control ] && lab_check "control: largest_payload $pl != 1448" "$pl" = 1448
	lab_check "$mode: misaligned $mis" "$mis" = false
	summary+=("$mode: oversize $over (tshark $gt_over above MSS $mss), events $nev, largest_payload $pl ($gt_full), mtu $impl, misaligned $mis (false)")
done
lab_verdict "$(printf '%s; ' "${summary[@]}" | sed 's/; $//')"
