#!/usr/bin/env bash
# findings-vpair-reorder.sh TCPSIFT [LAB_PEER] - two capture points joined
# (analyze --vantage-pair): reordering introduced between them, against the
# reordering relay's own log.
#
# lab_relay_pair A <-> R <-> B; tests/tools/lab-relay in R carries every
# frame and holds every 10th A -> B data segment until 2 later ones
# overtook it. B downloads VPAIR_BYTES (500000) from A paced at 1 MB/s,
# one segment per pacing slot (as findings-reorder-relay.sh). tcpdump -s 128
# on A's veth (before the relay) and on B's veth (behind it).
#
# Ground truth, outside tcpsift: the relay's log and summary ("reordered":
# held segments overtaken by >= 1 data segment and by no copy of
# themselves; "overtaken_by_copy": held ones a retransmission overtook,
# which B's capture also sees arrive after later-sent data; max_extent).
# Checks: one joined connection, A upstream of A's data; s2c reordered
# between the points == the relay's reordered + overtaken_by_copy (> 0);
# max_extent == the relay's (or one more when a copy overtook a held
# segment: tcpsift counts the copy among its overtakers, the relay not);
# nothing lost, duplicated or changed; nothing reordered c2s; no capture
# loss.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init vpair-reorder tcpdump ethtool python3 -- "$@"
RELAY=$(dirname "$LAB_PEER")/lab-relay
[ -x "$RELAY" ] || {
	echo "SKIP $LAB_NAME: no lab-relay at $RELAY"
	exit 77
}
BYTES=${VPAIR_BYTES:-500000}

lab_relay_pair fvpr 1
ip netns exec "$LAB_NS_A" sysctl -qw net.ipv4.tcp_tso_rtt_log=0 net.ipv4.tcp_min_tso_segs=1
acap="$LAB_TMP/a.pcap" bcap="$LAB_TMP/b.pcap" json="$LAB_TMP/pair.json"
log="$LAB_TMP/held.log" rerr="$LAB_TMP/relay.err"
lab_bg "$LAB_NS_R" "$RELAY" -a "$LAB_IF_RA" -b "$LAB_IF_RB" --hold-every 10 --hold-count 2 \
	--log "$log" --timeout 30 2>"$rerr"
relay=$LAB_LAST_PID
lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$acap" tcp
a_cap=$LAB_CAP_PID
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$bcap" tcp
b_cap=$LAB_CAP_PID
lab_transfer "$LAB_NS_A" "$LAB_IP4_A:5001" "$LAB_NS_B" "$LAB_IP4_B:40001" 20 download "$BYTES" \
	--pacing-rate 1M
sleep 1.5
lab_capture_stop "$a_cap" 0 || true
a_drops=$LAB_CAP_DROPS
lab_capture_stop "$b_cap" 0 || true
b_drops=$LAB_CAP_DROPS
lab_relay_stop "$relay" "$rerr"
gt_held=$(lab_relay_value held) gt_reord=$(lab_relay_value reordered)
gt_copy=$(lab_relay_value overtaken_by_copy)
gt_ext=$(lab_relay_value max_extent) gt_senderr=$(lab_relay_value send_errors)
gt_sockdrop=$(lab_relay_value socket_drops)

"$LAB_BIN" analyze --json --no-progress --vantage-pair "$acap" "$bcap" >"$json" ||
	lab_fail "tcpsift exited $?"
"$LAB_SRC/scripts/schema.py" validate "$json" >&2 || lab_fail "not the documented schema"
read -r joined reord ext reord_c2s up other < <(python3 - "$json" "$acap" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
conns = [c for c in doc["connections"] if "between_points" in c and c["input"] == 0]
if not conns:
    print(0, -1, -1, -1, "none", -1)
    sys.exit()
bp = conns[0]["between_points"]
s2c, c2s = bp["s2c"], bp["c2s"]
other = 0
for d in (s2c, c2s):
    other += d["lost"] + d["duplicated"] + sum(d["changed"].values())
    other += d["capture_loss_at"]["upstream"] + d["capture_loss_at"]["downstream"]
    other += d["window_overflow"]
print(doc["vantage_pair"]["joined"], s2c["reordered"], s2c["max_extent"], c2s["reordered"],
      "a" if s2c["upstream"] == sys.argv[2] else "b", other)
PY
) || lab_abort "no usable report"

lab_harness "tcpdump dropped $a_drops/$b_drops" $((a_drops + b_drops)) -eq 0
lab_harness "relay send errors $gt_senderr / socket drops $gt_sockdrop" \
	$((gt_senderr + gt_sockdrop)) -eq 0
lab_check "relay reordered nothing" "$gt_reord" -gt 0
lab_check "joined $joined != 1" "$joined" -eq 1
lab_check "s2c upstream is $up, not A" "$up" = a
lab_check "reordered $reord != relay's $gt_reord + $gt_copy" "$reord" -eq $((gt_reord + gt_copy))
# A held segment its own retransmission overtook was also overtaken by that
# copy, which the relay does not count in its extent.
ext_ok=no
[ "$ext" -eq "$gt_ext" ] && ext_ok=yes
[ "$gt_copy" -gt 0 ] && [ "$ext" -eq $((gt_ext + 1)) ] && ext_ok=yes
lab_check "max_extent $ext != relay's $gt_ext (+1 with $gt_copy overtaken by copy)" "$ext_ok" = yes
lab_check "c2s reordered $reord_c2s" "$reord_c2s" -eq 0
lab_check "lost+duplicated+changed+capture loss+overflow $other" "$other" -eq 0
lab_verdict "reordered between the points $reord (relay: reordered $gt_reord + overtaken by copy" \
	"$gt_copy of $gt_held held), max_extent $ext (relay $gt_ext), c2s $reord_c2s, other $other"
