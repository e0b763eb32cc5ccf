#!/usr/bin/env bash
# findings-stall-cork.sh TCPSIFT [LAB_PEER] - TCP_CORK left set: the sender
# holds the tail of each response.
#
# lab_pair; lab-peer rr, 10 rounds of 200-byte requests (client --nodelay)
# and 3000-byte responses; the server sets TCP_CORK around each response and
# leaves it set 500 ms (--cork --cork-hold 500). Corked, Linux sends the two
# full segments and holds the 104-byte tail; with nothing in flight and data
# queued it arms the zero-window probe timer (tcp_check_probe_timer, base
# TCP_RTO_MIN = 200 ms), whose expiry sends the tail (tcp_write_wakeup
# ignores the cork): the "200 ms cork ceiling" of tcp(7).
# tcpdump on the server's veth.
#
# Ground truth, independent of tcpsift: from the capture alone (tshark
# fields), per response the time between its last full-size segment without
# PSH and the pushed tail; and the rounds the application made (10).
# Checks: one sender_idle stall per round in s2c, each within 10 % of the
# tail delay measured from the capture, all near 200 ms (150-250 ms bucket,
# named timer_200ms), the held tail's round count within 10 % of the rounds,
# no stall in c2s (the client uses TCP_NODELAY).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init stall-cork tcpdump tshark ethtool python3 -- "$@"
ROUNDS=10

within() { [ $((100 * ($1 > $2 ? $1 - $2 : $2 - $1))) -le $(($3 * $2)) ]; }

lab_pair scork
lab_pair_offloads_off
cap="$LAB_TMP/b.pcap" json="$LAB_TMP/b.json"
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$cap" tcp
lab_transfer "$LAB_NS_B" "$LAB_IP4_B:7102" "$LAB_NS_A" "$LAB_IP4_A:40712" 30 rr 0 \
	--rounds "$ROUNDS" --req-size 200 --resp-size 3000 --cork --cork-hold 500 -- \
	--rounds "$ROUNDS" --req-size 200 --resp-size 3000 --nodelay ||
	lab_abort "lab-peer rr failed"
lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
[ -z "${STALL_KEEP_DIR:-}" ] || cp "$cap" "$json" "$STALL_KEEP_DIR/"

# Ground truth from the capture: server data segments in order; a segment
# shorter than the full size that follows a full-size one by more than
# 100 ms is a held tail (Linux pushes the second full segment: PSH says
# nothing here, the length and the wait do).
read -r tails tmin tmax < <(python3 - <(tshark -n -r "$cap" -Y "ip.src == $LAB_IP4_B && tcp.len > 0" \
	-T fields -e frame.time_epoch -e tcp.len -e tcp.flags.push 2>/dev/null) <<'PY'
import sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()]
rows = [(float(t), int(n), p in ("1", "True")) for t, n, p in rows]
big = max(n for _, n, _ in rows)
gaps = [(rows[k][0] - rows[k - 1][0]) * 1000 for k in range(1, len(rows))
        if rows[k][1] < big and rows[k - 1][1] == big and rows[k][0] - rows[k - 1][0] > 0.1]
print(len(gaps), int(min(gaps or [0])), int(max(gaps or [0]) + 0.999))
PY
) || lab_abort "no ground truth from tshark"

read -r si si_s2c other dmin dmax b200 others < <(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["events"] if e["type"] == "stall"]
si = [e for e in ev if e["class"] == "sender_idle"]
dur = sorted(e["duration_s"] * 1000 for e in si) or [0]
# The others named, for a failure to be read: class@frames:duration.
others = ",".join("%s@%d-%d:%.1fms" % (e["class"], e["frames"][0], e["frames"][1],
                                        e["duration_s"] * 1000) for e in ev if e["class"] != "sender_idle")
print(len(si), sum(e["dir"] == "s2c" for e in si), len(ev) - len(si), int(dur[0]),
      int(dur[-1] + 0.999), d["connections"][0]["stalls"]["clusters"]["timer_200ms"], others or "-")
PY
) || lab_abort "no usable report from tcpsift"

lab_check "held tails in the capture $tails not within 10 % of $ROUNDS rounds" \
	"$(within "$tails" "$ROUNDS" 10 && echo y)" = y
lab_check "sender_idle stalls $si != held tails $tails" "$si" -eq "$tails"
lab_check "sender_idle in s2c $si_s2c != $si" "$si_s2c" -eq "$si"
lab_check "$other stalls of another class ($others)" "$other" -eq 0
lab_check "stall lengths ${dmin}-${dmax} ms not within 10 % of tail delays ${tmin}-${tmax} ms" \
	"$(within "$dmin" "$tmin" 10 && within "$dmax" "$tmax" 10 && echo y)" = y
lab_check "200 ms cluster $b200 != $si" "$b200" -eq "$si"
lab_verdict "sender_idle stalls $si (held tails in the capture $tails, rounds $ROUNDS)," \
	"${dmin}-${dmax} ms (tail delays ${tmin}-${tmax} ms), 200 ms cluster $b200, other classes $other (0)"
