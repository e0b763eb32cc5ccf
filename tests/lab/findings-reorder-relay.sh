#!/usr/bin/env bash
# findings-reorder-relay.sh TCPSIFT [LAB_PEER] - reordering injected by a
# relay, found by the sender's clock (TSval).
#
# lab_relay_pair A <-> R <-> B; tests/tools/lab-relay in R carries every
# frame. B downloads 1000000 bytes from A (paced at 1 MB/s, one segment per
# pacing slot: tcp_tso_rtt_log=0 and tcp_min_tso_segs=1 in A, so consecutive
# segments leave A more than 1 ms apart and carry different TSvals). The
# relay holds every 10th A -> B data segment until 2 later ones overtook it.
# tcpdump -s 128 on B's veth (behind the relay).
#
# Ground truth, independent of tcpsift: the relay's log, one line per held
# segment; "reordered" counts those overtaken by >= 1 data segment and by no
# copy of themselves (when A's retransmission overtakes the held original,
# B sees the retransmission first and the original as a duplicate). Also
# B's nstat TcpExtTCPOFOQueue (segments B queued out of order: every
# overtaker, so about 2 per held segment) and A's TcpExtTCPSACKReorder.
# Checks: out_of_order (s2c) within 10 % of the relay's "reordered" (> 0);
# >= 90 % of reorder events decided by TSval; max_extent == the relay's
# largest overtaken count; no reorder event the other way (c2s).
#
# With REORDER_CONTROL=1 (findings-reorder-relay-control.sh) the relay holds
# nothing: out_of_order, reorder events and max_extent must all be 0.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

control=${REORDER_CONTROL:-0}
name=reorder-relay
[ "$control" = 1 ] && name=reorder-relay-control
lab_scenario_init "$name" tcpdump ethtool python3 -- "$@"
RELAY=$(dirname "$LAB_PEER")/lab-relay
[ -x "$RELAY" ] || {
	echo "SKIP $LAB_NAME: no lab-relay at $RELAY"
	exit 77
}
BYTES=${REORDER_BYTES:-1000000} # smaller for samples/reorder-relay.pcap
EVERY=10 HOLD=2
[ "$control" = 1 ] && EVERY=0

# within A B PCT: |A - B| <= PCT % of B
within() { [ $((100 * ($1 > $2 ? $1 - $2 : $2 - $1))) -le $(($3 * $2)) ]; }

lab_relay_pair freo 1
# Segments paced one by one: without these, Linux paces bursts of up to
# 64 KiB on a µs-RTT path (tcp_tso_autosize adds gso_max_size >> (min_rtt
# >> tcp_tso_rtt_log)), and a burst shares one 1 ms TSval.
ip netns exec "$LAB_NS_A" sysctl -qw net.ipv4.tcp_tso_rtt_log=0 net.ipv4.tcp_min_tso_segs=1
cap="$LAB_TMP/b.pcap" json="$LAB_TMP/b.json" log="$LAB_TMP/held.log" rerr="$LAB_TMP/relay.err"
hold=()
[ "$EVERY" -gt 0 ] && hold=(--hold-every "$EVERY" --hold-count "$HOLD")
lab_bg "$LAB_NS_R" "$RELAY" -a "$LAB_IF_RA" -b "$LAB_IF_RB" "${hold[@]}" --log "$log" \
	--timeout 40 2>"$rerr"
relay=$LAB_LAST_PID
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$cap" tcp
b_cap=$LAB_CAP_PID
lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"

lab_transfer "$LAB_NS_A" "$LAB_IP4_A:5001" "$LAB_NS_B" "$LAB_IP4_B:40001" 20 download "$BYTES" \
	--pacing-rate 1M
lab_capture_analyze "$b_cap" "$cap" "$json"
b_drops=$LAB_CAP_DROPS
lab_relay_stop "$relay" "$rerr"
gt_held=$(lab_relay_value held) gt_reord=$(lab_relay_value reordered)
gt_copy=$(lab_relay_value overtaken_by_copy)
gt_ext=$(lab_relay_value max_extent) gt_senderr=$(lab_relay_value send_errors)
gt_sockdrop=$(lab_relay_value socket_drops)
gt_log=$(awk '/^held / && / copy=0/ && !/overtaken_by=0 / { n++ } END { print n + 0 }' "$log")
ofo=$(lab_nstat "$LAB_NS_B" TcpExtTCPOFOQueue)
sack_reorder=$(lab_nstat "$LAB_NS_A" TcpExtTCPSACKReorder)

read -r nconn ooo ooo_c2s ev ext retx < <(lab_values "$json" summary.connections \
	connections.0.s2c.out_of_order connections.0.c2s.out_of_order \
	connections.0.reordering.events connections.0.reordering.max_extent \
	connections.0.s2c.retransmissions) ||
	lab_abort "no usable report from tcpsift: $(lab_json "$json" summary.connections)"
read -r by_ts by_other < <(python3 - "$json" <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["events"] if e["type"] == "reorder"]
ts = sum(e["decided_by"] == "tsval" for e in ev)
print(ts, len(ev) - ts)
PY
)

# Is the ground truth sound?
lab_harness "tcpdump dropped $b_drops packets" "$b_drops" -eq 0
lab_harness "relay send errors $gt_senderr / socket drops $gt_sockdrop" \
	$((gt_senderr + gt_sockdrop)) -eq 0
lab_check "relay log $gt_log != its summary $gt_reord" "$gt_log" -eq "$gt_reord"
lab_check "connections $nconn != 1" "$nconn" = 1

if [ "$control" = 1 ]; then
	lab_check "relay held $gt_held" "$gt_held" -eq 0
	lab_check "out_of_order $ooo != 0" "$ooo" -eq 0
	lab_check "reorder events $ev != 0" "$ev" -eq 0
	lab_check "max_extent $ext != 0" "$ext" -eq 0
	lab_verdict "out_of_order $ooo (0), reorder events $ev (0), max_extent $ext (0)," \
		"retransmissions $retx; relay held $gt_held, B TCPOFOQueue $ofo"
fi

lab_check "relay reordered nothing" "$gt_reord" -gt 0
lab_check "out_of_order $ooo not within 10 % of the relay's $gt_reord" \
	"$(within "$ooo" "$gt_reord" 10 && echo y)" = y
lab_check "reorder events $ev != out_of_order $ooo" "$ev" -eq "$ooo"
lab_check "only $by_ts of $ev decided by TSval" $((10 * by_ts)) -ge $((9 * ev))
lab_check "max_extent $ext != relay's $gt_ext" "$ext" -eq "$gt_ext"
lab_check "c2s out_of_order $ooo_c2s != 0" "$ooo_c2s" -eq 0

lab_verdict "out_of_order $ooo (relay reordered $gt_reord of $gt_held held, $gt_copy overtaken by" \
	"their own retransmission), decided by TSval $by_ts / other $by_other, max_extent $ext" \
	"(relay $gt_ext), retransmissions $retx; B TCPOFOQueue $ofo, A TCPSACKReorder $sack_reorder"
