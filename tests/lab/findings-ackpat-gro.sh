#!/usr/bin/env bash
# findings-ackpat-gro.sh TCPSIFT [LAB_PEER] - stretch ACKs from GRO at the
# receiver, seen from a capture at the sender (issue 16, part 3).
#
# lab_pair, offloads off on both veths (the sender sends wire-sized frames),
# then GRO on at the receiver's veth (`ethtool -K B gro on`: veth NAPI GRO
# merges the segments of one poll into one skb, and Linux ACKs per skb).
# The receiver has SO_RCVBUF 512 KiB (its window stops growing early).
# lab-peer bulk A -> B paced at 300 MB/s (SO_MAX_PACING_RATE: unpaced, the
# sender overflows the receiving veth and its retransmissions put the
# receiver in quick-ACK mode; TCP's own pacing still sends about 1 ms of data
# at a time, which GRO merges), writes of 45 full segments (65160 bytes: no
# short segment at the end of a write), swept over 32 MiB and 64 MiB;
# tcpdump on A's veth (the sender's side: wire-sized frames, one ACK per
# merged batch).
# Ground truth: the receiver's TCP_INFO: data_segs_in (GRO batches count
# each segment: gso_segs) / (segs_out - 2), and its nstat TcpInSegs (which
# counts a merged skb once: far below data_segs_in shows GRO merged).
# Checks: c2s ack_pattern stretch, one ack_pattern event, segments_per_ack
# within 10 % of the truth, TcpInSegs < data_segs_in / 4 (GRO merged).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init ackpat-gro tcpdump ethtool python3 -- "$@"

results=()
for bytes in 32M 64M; do
	lab_pair ackpgro
	lab_pair_offloads_off
	ip netns exec "$LAB_NS_B" ethtool -K "$LAB_IF_B" gro on >/dev/null 2>&1 ||
		{ echo "SKIP $LAB_NAME: no GRO on veth here"; exit 77; }
	lab_nstat_reset "$LAB_NS_B"
	cap="$LAB_TMP/gro-$bytes.pcap" json="$LAB_TMP/gro-$bytes.json"
	peerlog="$LAB_TMP/gro-$bytes.peer"
	lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$cap" tcp
	lab_transfer "$LAB_NS_B" "$LAB_IP4_B:7311" "$LAB_NS_A" "$LAB_IP4_A:40741" 20 bulk "$bytes" \
		--rcvbuf 512K --tcp-info -- --write-size 65160 --pacing-rate 300M 2>"$peerlog" ||
		lab_abort "lab-peer bulk failed: $(tail -n 2 "$peerlog")"
	lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
	insegs=$(lab_nstat "$LAB_NS_B" TcpInSegs)
	outsegs=$(lab_nstat "$LAB_NS_B" TcpOutSegs)
	dsi=$(grep -o ' data_segs_in=[0-9]*' "$peerlog" | tail -n 1 | cut -d= -f2)
	so=$(grep -o ' segs_out=[0-9]*' "$peerlog" | tail -n 1 | cut -d= -f2)
	{ [ -n "$dsi" ] && [ -n "$so" ]; } || lab_abort "$bytes: no TCP_INFO from the receiver"
	truth=$(awk -v d="$dsi" -v s="$so" 'BEGIN { printf "%.3f", d / (s - 2) }')
	read -r dom spa acks events oversize < <(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["connections"][0]["c2s"]
a = c["ack_pattern"] or {}
ev = sum(1 for e in d["events"] if e["type"] == "ack_pattern")
print(a.get("dominant", "null"), "%.3f" % a.get("segments_per_ack", 0), a.get("acks", 0), ev,
      c["oversize_segments"])
PY
	) || lab_abort "$bytes: no usable report from tcpsift"
	lab_check "$bytes: dominant $dom != stretch" "$dom" = stretch
	lab_check "$bytes: ack_pattern events $events != 1" "$events" -eq 1
	lab_check "$bytes: TcpInSegs $insegs not < data_segs_in $dsi / 4: GRO did not merge" \
		"$((insegs * 4))" -lt "$dsi"
	awk -v a="$spa" -v t="$truth" 'BEGIN { d = a - t; if (d < 0) d = -d; exit !(d <= 0.1 * t) }' ||
		lab_fail "$bytes: segments_per_ack $spa not within 10 % of the receiver's $truth"
	results+=("$bytes $dom $spa/ACK ($acks ACKs, oversize $oversize) events $events | truth $truth" \
		"(data_segs_in $dsi, segs_out $so, TcpInSegs $insegs, TcpOutSegs $outsegs);")
	lab_reset
done
lab_verdict "${results[@]}"
