#!/usr/bin/env bash
# findings-vpair-capture.sh TCPSIFT [LAB_PEER] - two capture points joined
# (analyze --vantage-pair): a starved capture at one point is that
# capture's loss, not the network's.
#
# lab_pair A <-> B, offloads off, no drop anywhere; B downloads VPAIR_BYTES
# (20000000) from A. A's veth is captured with a large buffer (the
# reference, upstream of A's data); B's veth by a starved tcpdump (the
# smallest ring, writing through a slow pipe: findings-loss-capture.sh).
#
# Ground truth, outside tcpsift: A's data segments (IP ID, sequence) missing
# from B's capture (tshark) between B's capture's first and last packet,
# with tcpdump's and the veths' drop counters (A's capture and the link
# lost nothing, B's capture did).
# Checks: one joined connection, A upstream of A's data; lost == 0 both
# ways; s2c capture_loss_at.downstream (B) == the missing data segments
# (> 0: the receiver's ACKs, seen at A when B's capture missed them, prove
# those segments passed B);
# capture_loss_at.upstream (A) == 0 for s2c; B's missing pure ACKs are its
# loss too (c2s capture_loss_at.upstream, B being upstream of its ACKs).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init vpair-capture tcpdump tshark ethtool python3 -- "$@"
BYTES=${VPAIR_BYTES:-20000000}

lab_pair fvpc
lab_pair_offloads_off
acap="$LAB_TMP/a.pcap" bcap="$LAB_TMP/b.pcap" json="$LAB_TMP/pair.json"
lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -B 65536 -s 96 -w "$acap" tcp
a_cap=$LAB_CAP_PID
lab_capture_starved "$LAB_NS_B" "$LAB_IF_B" "$bcap"
sink=$LAB_STARVED_SINK
b_cap=$LAB_CAP_PID
lab_transfer "$LAB_NS_A" "$LAB_IP4_A:5001" "$LAB_NS_B" "$LAB_IP4_B:40001" 30 download "$BYTES"
lab_capture_stop "$b_cap" 1.5 || true
b_drops=$LAB_CAP_DROPS
lab_wait "$sink" || true
lab_capture_stop "$a_cap" 0 || true
a_drops=$LAB_CAP_DROPS
linkdrops=0
for x in "$LAB_NS_A:$LAB_IF_A" "$LAB_NS_B:$LAB_IF_B"; do
	for s in rx_dropped tx_dropped; do
		linkdrops=$((linkdrops + $(lab_link_stat "${x%%:*}" "${x#*:}" "$s")))
	done
done

"$LAB_BIN" analyze --json --no-progress --vantage-pair "$acap" "$bcap" >"$json" ||
	lab_fail "tcpsift exited $?"
"$LAB_SRC/scripts/schema.py" validate "$json" >&2 || lab_fail "not the documented schema"
# A's data segments B's capture missed, within the span B's capture has
# packets (before its first and after its last one, tcpsift cannot tell
# whether that capture ran: no verdict, counted as "outside").
fields=(-T fields -e frame.time_epoch -e ip.id -e tcp.seq_raw)
read -r missing < <(python3 - <(tshark -n -r "$acap" -Y "ip.src == $LAB_IP4_A && tcp.len > 0" \
	"${fields[@]}" 2>/dev/null) <(tshark -n -r "$bcap" -Y "ip.src == $LAB_IP4_A && tcp.len > 0" \
	"${fields[@]}" 2>/dev/null) <(tshark -n -r "$bcap" -T fields -e frame.time_epoch 2>/dev/null) <<'PY'
import sys
def rows(p):
    return {(int(i, 0), int(s)): float(t) for t, i, s in (l.split("\t") for l in open(p) if l.strip())}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
span = [float(l) for l in open(sys.argv[3]) if l.strip()]
lo, hi = min(span), max(span)
print(sum(1 for k, t in a.items() if k not in b and lo <= t <= hi))
PY
)
read -r joined lost lost_c2s cl_down cl_up cl_up_c2s up < <(python3 - "$json" "$acap" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
conns = [c for c in doc["connections"] if "between_points" in c and c["input"] == 0]
if not conns:
    print(0, -1, -1, -1, -1, -1, "none")
    sys.exit()
bp = conns[0]["between_points"]
s2c, c2s = bp["s2c"], bp["c2s"]
print(doc["vantage_pair"]["joined"], s2c["lost"], c2s["lost"],
      s2c["capture_loss_at"]["downstream"], s2c["capture_loss_at"]["upstream"],
      c2s["capture_loss_at"]["upstream"], "a" if s2c["upstream"] == sys.argv[2] else "b")
PY
) || lab_abort "no usable report"

lab_harness "A's capture dropped $a_drops" "$a_drops" -eq 0
lab_harness "veth drops $linkdrops" "$linkdrops" -eq 0
lab_check "B's starved capture missed no data segment (tcpdump: $b_drops dropped)" "$missing" -gt 0
lab_check "joined $joined != 1" "$joined" -eq 1
lab_check "s2c upstream is $up, not A" "$up" = a
lab_check "capture loss at B $cl_down != missing $missing" "$cl_down" -eq "$missing"
lab_check "lost $lost" "$lost" -eq 0
lab_check "c2s lost $lost_c2s" "$lost_c2s" -eq 0
lab_check "capture loss at A (s2c) $cl_up" "$cl_up" -eq 0
lab_verdict "capture_loss_at B $cl_down, lost $lost (A's data segments missing from B's" \
	"capture: $missing; B's tcpdump dropped $b_drops); B's pure ACKs missed by B: $cl_up_c2s;" \
	"c2s lost $lost_c2s, capture loss at A $cl_up (0)"
