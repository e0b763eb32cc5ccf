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
# collapse false; both: tshark's pauses == rounds; the stalls within 10 %
# of the pauses after an unpushed segment (held data the capture shows);
# every pause a stall, a timer-like stall or think time (a pause after a
# forced PSH hides the held data: CI saw 2 of 8).
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

	# Pauses of >= 150 ms before a data segment from B (the held tails),
	# split by whether B's last data segment before the pause carried PSH:
	# without it the capture shows data held back (a decided sender_idle
	# stall); with it (Linux forces PSH once half a window was written
	# since the last one, forced_push(), so a hold can follow one) the
	# capture cannot show the held data, and a pause is either timer-like
	# (196-216 ms: an undecided stall) or application think time.
	read -r gt_pauses gt_nopsh < <(python3 - <(tshark -n -r "$cap" -T fields -e frame.time_epoch \
		-e ip.src -e tcp.len -e tcp.flags.push 2>/dev/null) "$LAB_IP4_B" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
pauses = nopsh = 0
prev_t = None
last_push = None
for t, src, n, p in rows:
    t = float(t)
    if src == sys.argv[2] and int(n or 0) > 0:
        if prev_t is not None and t - prev_t >= 0.150 and last_push is not None:
            pauses += 1
            nopsh += not last_push
        last_push = p in ("1", "True")
    prev_t = t
print(pauses, nopsh)
PY
) || lab_abort "$mtu: no ground truth from tshark"
	read -r mis coll by st pl < <(lab_values "$json" connections.0.mtu_findings.misaligned \
		connections.0.mtu_findings.collapse connections.0.mtu_findings.collapse_by \
		connections.0.stalls.count connections.0.mtu_findings.largest_payload.s2c) ||
		lab_abort "$mtu: no usable report"
	read -r tl tt < <(lab_values "$json" connections.0.stalls.timer_like \
		connections.0.stalls.think_time) || lab_abort "$mtu: no usable report"

	# On failure the runner shows stderr: the verdicts behind the counts.
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for e in d["events"]:
    if e["type"] == "stall":
        print("  stall", e["dir"], e["class"], e["duration_s"], "timer_like", e["timer_like"], "frames", e["frames"], file=sys.stderr)
' "$json" || true
	lab_check "$mtu: tshark pauses $gt_pauses != rounds $ROUNDS" "$gt_pauses" = "$ROUNDS"
	lab_check "$mtu: stalls $st not within 10 % of the $gt_nopsh pauses after an unpushed segment" \
		$((100 * (st > gt_nopsh ? st - gt_nopsh : gt_nopsh - st))) -le $((10 * gt_nopsh))
	lab_check "$mtu: stalls $st + timer-like $tl + think time $tt < pauses $gt_pauses" \
		$((st + tl + tt)) -ge "$gt_pauses"
	if [ "$mtu" = 63540 ]; then
		lab_check "63540: misaligned $mis" "$mis" = true
		lab_check "63540: collapse $coll" "$coll" = true
	else
		lab_check "61492: misaligned $mis" "$mis" = false
		lab_check "61492: collapse $coll" "$coll" = false
	fi
	summary+=("$mtu: misaligned $mis, collapse $coll (by $by), stalls $st (pauses >= 150 ms $gt_pauses, $gt_nopsh after an unpushed segment; rounds $ROUNDS), timer-like $tl, think time $tt, largest_payload $pl")
done
lab_verdict "$(printf '%s; ' "${summary[@]}" | sed 's/; $//')"
