#!/usr/bin/env bash
# findings-stall-splice.sh TCPSIFT [LAB_PEER] - the 2013 splice seed on the
# real Linux TCP stack: SPLICE_F_MORE on a response's last piece.
#
# lab_pair; tests/tools/stall-splice (next to lab-peer) answers 10 requests
# of 200 bytes (lab-peer rr client, --nodelay) with 1000 bytes each, moved
# from a pipe by splice() with SPLICE_F_MORE: TCP holds the response (below
# one MSS, nothing in flight) as MSG_MORE asks, until the zero-window probe
# timer (tcp_check_probe_timer, TCP_RTO_MIN = 200 ms) sends it, pushed.
# (A response above one MSS does not stall on this kernel: its full
# segments go out, and their ACK pushes the held tail; the 2013 kernel held
# it, which is the seed's bug.) Then the control: the same server with
# --no-more-last (the flag cleared on the last piece).
# One tcpdump on the server's veth holds both connections.
#
# Ground truth, independent of tcpsift: per connection, from the capture
# (tshark fields), the held responses (server data after > 100 ms of
# silence on the connection) and their delays.
# Checks: connection 1: sender_idle stalls (s2c) == held responses, within
# 10 % of the 10 rounds, lengths within 10 % of the delays, in the 200 ms
# cluster ("timer-like pause at a turn boundary": the request came, the
# small pushed response ~200 ms later), no other class; connection 2
# (control): nothing held, no stall.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init stall-splice tcpdump tshark ethtool python3 -- "$@"
SPLICE=$(dirname "$LAB_PEER")/stall-splice
[ -x "$SPLICE" ] || {
	echo "SKIP $LAB_NAME: no stall-splice at $SPLICE"
	exit 77
}
ROUNDS=10
RESP=${STALL_SPLICE_RESP:-1000}

within() { [ $((100 * ($1 > $2 ? $1 - $2 : $2 - $1))) -le $(($3 * $2)) ]; }

lab_pair ssplice
lab_pair_offloads_off
cap="$LAB_TMP/b.pcap" json="$LAB_TMP/b.json"
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$cap" tcp
port=7104
for more in "" --no-more-last; do
	lab_bg "$LAB_NS_B" "$SPLICE" -l "$LAB_IP4_B:$port" --rounds "$ROUNDS" --req-size 200 \
		--resp-size "$RESP" --timeout 20 $more
	srv=$LAB_LAST_PID
	lab_wait_listen "$LAB_NS_B" "$port" || lab_abort "stall-splice did not listen"
	lab_run "$LAB_NS_A" 25 "$LAB_PEER" client --timeout 20 -c "$LAB_IP4_B:$port" \
		-b "$LAB_IP4_A:$((40000 + port))" -m rr --rounds "$ROUNDS" --req-size 200 \
		--resp-size "$RESP" --nodelay || lab_abort "lab-peer rr client failed"
	lab_wait "$srv" || lab_abort "stall-splice failed"
	port=$((port + 1))
done
lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
[ -z "${STALL_KEEP_DIR:-}" ] || cp "$cap" "$json" "$STALL_KEEP_DIR/"

# Ground truth per connection (tcp.stream 0 = SPLICE_F_MORE, 1 = control):
# a server data segment after more than 100 ms without any packet of its
# connection is a held response, and that silence its delay.
read -r t0 t0min t0max t1 < <(python3 - <(tshark -n -r "$cap" -T fields -e tcp.stream \
	-e frame.time_epoch -e ip.src -e tcp.len 2>/dev/null) "$LAB_IP4_B" <<'PY'
import sys
last, gaps = {}, {0: [], 1: []}
for line in open(sys.argv[1]):
    s, t, src, n = line.rstrip("\n").split("\t")
    s, t = int(s), float(t)
    if s in last and src == sys.argv[2] and int(n) > 0 and t - last[s] > 0.1:
        gaps.setdefault(s, []).append((t - last[s]) * 1000)
    last[s] = t
g0, g1 = gaps[0], gaps[1]
print(len(g0), int(min(g0 or [0])), int(max(g0 or [0]) + 0.999), len(g1))
PY
) || lab_abort "no ground truth from tshark"

read -r nconn si si_s2c other dmin dmax b200 ctl < <(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["events"] if e["type"] == "stall"]
c1 = [e for e in ev if e["conn"] == 1]
si = [e for e in c1 if e["class"] == "sender_idle"]
dur = sorted(e["duration_s"] * 1000 for e in si) or [0]
print(len(d["connections"]), len(si), sum(e["dir"] == "s2c" for e in si), len(c1) - len(si),
      int(dur[0]), int(dur[-1] + 0.999), d["connections"][0]["stalls"]["clusters"]["timer_200ms"],
      sum(e["conn"] == 2 for e in ev))
PY
) || lab_abort "no usable report from tcpsift"

lab_check "connections $nconn != 2" "$nconn" -eq 2
lab_check "held responses $t0 not within 10 % of $ROUNDS rounds" \
	"$(within "$t0" "$ROUNDS" 10 && echo y)" = y
lab_check "control held $t1 tails" "$t1" -eq 0
lab_check "sender_idle stalls $si != held responses $t0" "$si" -eq "$t0"
lab_check "sender_idle in s2c $si_s2c != $si" "$si_s2c" -eq "$si"
lab_check "$other stalls of another class" "$other" -eq 0
lab_check "stall lengths ${dmin}-${dmax} ms not within 10 % of delays ${t0min}-${t0max} ms" \
	"$(within "$dmin" "$t0min" 10 && within "$dmax" "$t0max" 10 && echo y)" = y
lab_check "200 ms cluster $b200 != $si" "$b200" -eq "$si"
lab_check "control: $ctl stalls" "$ctl" -eq 0
lab_verdict "SPLICE_F_MORE: sender_idle stalls $si (held responses $t0, rounds $ROUNDS)," \
	"${dmin}-${dmax} ms (delays ${t0min}-${t0max} ms), 200 ms cluster $b200;" \
	"control (flag cleared on the last piece): stalls $ctl (0), held responses $t1"
