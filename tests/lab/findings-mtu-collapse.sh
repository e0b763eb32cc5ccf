#!/usr/bin/env bash
# findings-mtu-collapse.sh TCPSIFT [LAB_PEER] - the seed's pattern on real
# segments: a misaligned MTU together with stalls is one strong finding
# (mtu_findings.collapse), the same stalls on an aligned MTU are not.
#
# lab_pair, veth MTU 63540 (misaligned) or 61492 (aligned control),
# offloads off, timestamps on. lab-peer rr, 8 rounds: A asks 100 bytes
# (--nodelay: no Nagle/delayed-ACK stall on the request side) and B
# answers 200000 bytes with TCP_CORK left set 200 ms after its last write
# (--cork --cork-hold 200), so every response's tail waits ~200 ms: the
# splice/MSG_SENDPAGE_NOTLAST pattern of the seed. tcpdump -s 128 on B's
# veth.
# Ground truth, independent of tcpsift: the rounds (8: one cork hold each),
# and from tshark the pauses >= 150 ms in B's data (the held tails).
# Checks: 63540: misaligned, collapse true; 61492: misaligned false,
# collapse false; both: tshark's pauses == rounds, and when the stall
# detector reported stalls, their count within 10 % of the pauses.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init mtu-collapse tcpdump tshark ethtool python3 -- "$@"
ROUNDS=8
summary=()

for mtu in 63540 61492; do
	lab_reset
	lab_pair mcoll "$mtu"
	lab_pair_offloads_off
	cap="$LAB_TMP/collapse-$mtu.pcap" json="$LAB_TMP/collapse-$mtu.json"
	lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$cap" tcp
	lab_transfer "$LAB_NS_B" "$LAB_IP4_B:5001" "$LAB_NS_A" "$LAB_IP4_A:40001" 20 rr 0 \
		--rounds "$ROUNDS" --req-size 100 --resp-size 200000 --cork --cork-hold 200 \
		-- --rounds "$ROUNDS" --req-size 100 --resp-size 200000 --nodelay ||
		lab_fail "$mtu: transfer failed"
	lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
	[ "$LAB_CAP_DROPS" -eq 0 ] || lab_fail "$mtu: tcpdump dropped $LAB_CAP_DROPS"
	[ -n "${MTU_SAMPLES:-}" ] && cp "$cap" "$MTU_SAMPLES/mtu-$(basename "$cap")"

	# Pauses of >= 150 ms before a data segment from B (the held tails).
	gt_pauses=$(tshark -n -r "$cap" -Y "ip.src == $LAB_IP4_B && tcp.len > 0" \
		-T fields -e frame.time_epoch 2>/dev/null | awk -v b="$(tshark -n -r "$cap" \
		-T fields -e frame.time_epoch 2>/dev/null | tr '\n' ' ')" '
		BEGIN { n = split(b, all, " ") }
		{ t = $1; prev = 0
		  for (i = 1; i <= n && all[i] + 0 < t + 0; i++) prev = all[i]
		  if (prev && t - prev >= 0.150) p++ }
		END { print p + 0 }')
	read -r mis coll by st pl < <(lab_values "$json" connections.0.mtu_findings.misaligned \
		connections.0.mtu_findings.collapse connections.0.mtu_findings.collapse_by \
		connections.0.stalls.count connections.0.mtu_findings.largest_payload.s2c) ||
		lab_abort "$mtu: no usable report"

	lab_check "$mtu: tshark pauses $gt_pauses != rounds $ROUNDS" "$gt_pauses" = "$ROUNDS"
	if [ "$st" != 0 ] && [ "$st" != null ]; then
		lab_check "$mtu: stalls $st not within 10 % of $gt_pauses" \
			$((100 * (st > gt_pauses ? st - gt_pauses : gt_pauses - st))) -le $((10 * gt_pauses))
	fi
	if [ "$mtu" = 63540 ]; then
		lab_check "63540: misaligned $mis" "$mis" = true
		lab_check "63540: collapse $coll" "$coll" = true
	else
		lab_check "61492: misaligned $mis" "$mis" = false
		lab_check "61492: collapse $coll" "$coll" = false
	fi
	summary+=("$mtu: misaligned $mis, collapse $coll (by $by), stalls $st (pauses >= 150 ms $gt_pauses, rounds $ROUNDS), largest_payload $pl")
done
lab_verdict "$(printf '%s; ' "${summary[@]}" | sed 's/; $//')"
