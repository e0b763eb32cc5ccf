#!/usr/bin/env bash
# findings-mtu-pmtu.sh TCPSIFT [LAB_PEER] - path MTU: ICMP fragmentation
# needed tied to the connection, and a PMTU black hole.
#
# lab_chain A <-> R <-> B, MTU 1500 everywhere except R's link towards B
# (1400; B's own veth stays 1500, so B still announces MSS 1460). Offloads
# off. A sends 256 KiB to B with DF (Linux's default PMTU discovery);
# tcpdump -s 128 "tcp or icmp" on A's veth, the first link.
#   icmp       R answers each too-big packet with ICMP type 3 code 4,
#              next-hop MTU 1400 (RFC 1191); A lowers its MSS.
#   blackhole  R's output hook drops those ICMPs (nft counter), A has
#              net.ipv4.tcp_mtu_probing=1: A re-sends its first full-size
#              segment by RTO until tcp_mtu_probing lowers the MSS
#              (RFC 4821 black-hole detection after tcp_retries1 timeouts).
# Ground truth, independent of tcpsift: tshark's ICMP frag-needed count and
# MTU in the capture and R's nstat IcmpOutDestUnreachs (icmp); the nft
# counter of suppressed ICMPs, and from tshark the sequence A sent full-size
# (1448) more than twice before re-sending it smaller (blackhole).
# Checks: icmp: icmp_too_big == tshark count == R's counter (> 0), icmp_mtu
# 1400, one pmtu event (pmtu_kind icmp_too_big) per ICMP, no black hole;
# blackhole: pmtu_blackhole, one blackhole event whose retransmissions ==
# tshark's RTO re-sends of that segment and whose mtu == the shrunk segment's
# IP length, icmp_too_big 0.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init mtu-pmtu tcpdump tshark nft nstat ethtool python3 -- "$@"
BYTES=262144
summary=()

for mode in icmp blackhole; do
	lab_reset
	lab_chain mpmtu 1500
	lab_chain_offloads_off
	ip -n "$LAB_NS_R" link set dev "$LAB_IF_RB" mtu 1400
	if [ "$mode" = blackhole ]; then
		# Every one (lab_nft_drop's numgen takes 0-99 %): table lab_loss,
		# so lab_nft_counter reads it.
		ip netns exec "$LAB_NS_R" nft -f - <<-'NFT'
			table inet lab_loss {
				chain drop_output {
					type filter hook output priority 0; policy accept;
					icmp type destination-unreachable counter drop
				}
			}
		NFT
		ip netns exec "$LAB_NS_A" sysctl -qw net.ipv4.tcp_mtu_probing=1 >/dev/null
	fi
	lab_nstat_reset "$LAB_NS_R"
	cap="$LAB_TMP/pmtu-$mode.pcap" json="$LAB_TMP/pmtu-$mode.json"
	lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$cap" tcp or icmp
	lab_transfer "$LAB_NS_B" "$LAB_IP4_B:5001" "$LAB_NS_A" "$LAB_IP4_A:40001" 25 bulk "$BYTES" \
		-- --pacing-rate 20M || lab_fail "$mode: transfer failed"
	lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
	[ "$LAB_CAP_DROPS" -eq 0 ] || lab_fail "$mode: tcpdump dropped $LAB_CAP_DROPS"
	[ -n "${MTU_SAMPLES:-}" ] && cp "$cap" "$MTU_SAMPLES/mtu-$(basename "$cap")"

	# Ground truth.
	r_unreach=$(lab_nstat "$LAB_NS_R" IcmpOutDestUnreachs)
	read -r gt_icmp gt_icmp_mtu < <(tshark -n -r "$cap" -Y "icmp.type == 3 && icmp.code == 4" \
		-T fields -e icmp.mtu 2>/dev/null | awk '{ n++; m = $1 } END { print n + 0, m + 0 }')
	read -r gt_bh gt_rto gt_small < <(tshark -n -r "$cap" \
		-Y "ip.src == $LAB_IP4_A && tcp.len > 0" -T fields -e tcp.seq -e tcp.len 2>/dev/null |
		python3 -c '
import sys
big = {}; first = None
for line in sys.stdin:
    seq, ln = map(int, line.split())
    if ln == 1448:
        big[seq] = big.get(seq, 0) + 1
    elif seq in big and big[seq] >= 3 and first is None:
        first = (big[seq] - 1, ln)
print(1 if first else 0, first[0] if first else 0, first[1] + 52 if first else 0)')
	read -r ptb pmtu bh nbh pl < <(lab_values "$json" connections.0.mtu_findings.icmp_too_big \
		connections.0.mtu_findings.icmp_mtu connections.0.mtu_findings.pmtu_blackhole \
		connections.0.mtu_findings.pmtu_blackholes connections.0.mtu_findings.largest_payload.c2s) ||
		lab_abort "$mode: no usable report"
	read -r ev_icmp ev_bh ev_rtx ev_mtu < <(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["events"] if e["type"] == "pmtu"]
bh = [e for e in ev if e.get("pmtu_kind") == "blackhole"]
print(sum(e.get("pmtu_kind") == "icmp_too_big" for e in ev), len(bh),
      bh[0]["retransmissions"] if bh else 0, bh[0]["mtu"] if bh else 0)' "$json")

	if [ "$mode" = icmp ]; then
		lab_check "icmp: tshark saw no ICMP frag-needed" "$gt_icmp" -gt 0
		lab_check "icmp: R sent $r_unreach ICMP unreachables, capture has $gt_icmp" \
			"$r_unreach" -eq "$gt_icmp"
		lab_check "icmp: icmp_too_big $ptb != $gt_icmp" "$ptb" = "$gt_icmp"
		lab_check "icmp: icmp_mtu $pmtu != 1400 (tshark $gt_icmp_mtu)" "$pmtu" = 1400
		lab_check "icmp: $ev_icmp pmtu events != $gt_icmp" "$ev_icmp" = "$gt_icmp"
		lab_check "icmp: black hole reported" "$bh" = false
		summary+=("icmp: icmp_too_big $ptb (tshark $gt_icmp, R sent $r_unreach), icmp_mtu $pmtu (1400), events $ev_icmp, blackhole $bh (false)")
	else
		nft=$(lab_nft_counter "$LAB_NS_R")
		lab_check "blackhole: nft suppressed no ICMP" "$nft" -gt 0
		lab_check "blackhole: ICMP reached the capture" "$gt_icmp" = 0
		lab_check "blackhole: tshark: no full-size segment re-sent >= 2 times then smaller" \
			"$gt_bh" = 1
		lab_check "blackhole: pmtu_blackhole $bh != true" "$bh" = true
		lab_check "blackhole: $nbh episodes, $ev_bh events != 1" "$nbh$ev_bh" = 11
		lab_check "blackhole: event retransmissions $ev_rtx != tshark $gt_rto" "$ev_rtx" = "$gt_rto"
		lab_check "blackhole: event mtu $ev_mtu != tshark $gt_small" "$ev_mtu" = "$gt_small"
		lab_check "blackhole: icmp_too_big $ptb != 0" "$ptb" = 0
		summary+=("blackhole: pmtu_blackhole $bh (true; nft suppressed $nft ICMPs), episodes $nbh (1), RTO re-sends $ev_rtx (tshark $gt_rto), shrunk to MTU $ev_mtu (tshark $gt_small), largest_payload $pl")
	fi
done
lab_verdict "$(printf '%s; ' "${summary[@]}" | sed 's/; $//')"
