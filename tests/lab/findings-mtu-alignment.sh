#!/usr/bin/env bash
# findings-mtu-alignment.sh TCPSIFT [LAB_PEER] - page alignment of large MTUs
# on real Linux segments (DESIGN.md "MTU / alignment").
#
# For each case a lab_pair whose veths have MTU N (offloads off, so the
# capture holds wire-sized segments), net.ipv4.tcp_timestamps on or off in
# both namespaces, a paced bulk transfer of 1 MiB A -> B, tcpdump -s 128 on
# B's veth:
#   63540 ts  (61492 + 2048: the seed's bad MTU)     -> misaligned
#   20532 ts  (5*4096 + 52)                           -> aligned
#   20532 nots (payload 20492 = 5 pages + 12)         -> misaligned
#   61492 ts  (15*4096 + 52)                          -> aligned
#   1500  ts  (never judged: not above 4096)          -> aligned
# Ground truth, independent of tcpsift: the MTU set on the link and the
# sysctl give the expected payload (MTU - 40, - 12 more with timestamps:
# Linux's mss_cache) and the rule's verdict (MTU > 4096 and payload mod 4096
# != 0); tshark gives the MSS in B's SYN/ACK (what A may send) and the
# largest tcp.len A sent, which must equal that payload.
# Checks per case: tshark's largest payload == expected (the kernel sizes
# segments as assumed), tcpsift's largest_payload/implied_mtu == tshark's,
# misaligned == rule, one mtu_alignment event when misaligned and none
# otherwise, aligned_below/above == n*4096 + header around the payload.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
# With MTU_SAMPLES=DIR the captures are copied there as mtu-N[-nots].pcap.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init mtu-alignment tcpdump tshark ethtool python3 -- "$@"
BYTES=1048576
cases=("63540 1" "20532 1" "20532 0" "61492 1" "1500 1")
summary=()

for c in "${cases[@]}"; do
	read -r mtu ts <<<"$c"
	name="mtu-$mtu$([ "$ts" = 1 ] || echo -nots)"
	lab_reset
	lab_pair malign "$mtu"
	lab_pair_offloads_off
	for ns in "$LAB_NS_A" "$LAB_NS_B"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_timestamps="$ts" >/dev/null
	done
	cap="$LAB_TMP/$name.pcap" json="$LAB_TMP/$name.json"
	lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$cap" tcp
	lab_transfer "$LAB_NS_B" "$LAB_IP4_B:5001" "$LAB_NS_A" "$LAB_IP4_A:40001" 20 bulk "$BYTES" \
		-- --pacing-rate 40M || lab_fail "$name: transfer failed"
	lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
	[ "$LAB_CAP_DROPS" -eq 0 ] || lab_fail "$name: tcpdump dropped $LAB_CAP_DROPS"
	[ -n "${MTU_SAMPLES:-}" ] && cp "$cap" "$MTU_SAMPLES/$name.pcap"

	# Ground truth: the rule applied to what was configured ...
	hdr=$((40 + (ts ? 12 : 0)))
	want_pl=$((mtu - hdr))
	want_mis=false
	[ "$mtu" -gt 4096 ] && [ $((want_pl % 4096)) -ne 0 ] && want_mis=true
	pages=$((want_pl / 4096))
	want_below=$((pages * 4096 + hdr)) want_above=$(((pages + 1) * 4096 + hdr))
	[ $((want_pl % 4096)) -eq 0 ] && want_above=$want_below
	[ "$pages" -eq 0 ] && want_below=null
	# ... and what the kernel really sent (tshark).
	read -r ts_mss ts_max < <(
		tshark -n -r "$cap" -Y "tcp.flags.syn == 1 && tcp.flags.ack == 1" \
			-T fields -e tcp.options.mss_val 2>/dev/null | head -1 | tr '\n' ' '
		tshark -n -r "$cap" -Y "ip.src == $LAB_IP4_A" -T fields -e tcp.len 2>/dev/null |
			sort -n | tail -1
	) || lab_abort "$name: tshark read nothing"

	read -r pl impl mis below above mod nev < <(lab_values "$json" \
		connections.0.mtu_findings.largest_payload.c2s \
		connections.0.mtu_findings.implied_mtu.c2s connections.0.mtu_findings.misaligned \
		connections.0.mtu_findings.aligned_below connections.0.mtu_findings.aligned_above \
		connections.0.mtu_findings.payload_mod_4096 summary.packets) ||
		lab_abort "$name: no usable report"
	nev=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(sum(e["type"] == "mtu_alignment" for e in d["events"]))' "$json")

	lab_check "$name: SYN/ACK MSS $ts_mss != $((mtu - 40))" "$ts_mss" = $((mtu - 40))
	lab_check "$name: tshark largest payload $ts_max != $want_pl" "$ts_max" = "$want_pl"
	lab_check "$name: largest_payload $pl != tshark $ts_max" "$pl" = "$ts_max"
	lab_check "$name: implied_mtu $impl != $mtu" "$impl" = "$mtu"
	lab_check "$name: misaligned $mis != $want_mis" "$mis" = "$want_mis"
	if [ "$mtu" -gt 4096 ]; then
		lab_check "$name: aligned_below $below != $want_below" "$below" = "$want_below"
		lab_check "$name: aligned_above $above != $want_above" "$above" = "$want_above"
		lab_check "$name: payload_mod_4096 $mod != $((want_pl % 4096))" "$mod" = $((want_pl % 4096))
	fi
	want_nev=0
	[ "$want_mis" = true ] && want_nev=1
	lab_check "$name: $nev mtu_alignment events != $want_nev" "$nev" = "$want_nev"
	summary+=("$name: payload $pl ($want_pl), mtu $impl, misaligned $mis ($want_mis), events $nev ($want_nev)")
done
lab_verdict "$(printf '%s; ' "${summary[@]}" | sed 's/; $//')"
