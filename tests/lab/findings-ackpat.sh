#!/usr/bin/env bash
# findings-ackpat.sh TCPSIFT [LAB_PEER] - how the receiver ACKs (issue 16,
# part 3; the 2009 splice seed): a receiver that ACKs every segment against
# a plain one (the negative control).
#
# lab_pair, offloads off, the receiver B with SO_RCVBUF 256 KiB (its window
# stops growing early: Linux ACKs every segment while it grows, a quick-ACK
# phase tcpsift leaves out). lab-peer bulk A -> B, 1 MiB written one
# full segment (1448 bytes) at a time every W ms with MSG_MORE (so no
# segment carries PSH: Linux ACKs a pushed full segment as soon as it is
# read), swept over W = 0.25 and 0.5; tcpdump on B's veth. Two receivers:
#   quickack  lab-peer --quickack: TCP_QUICKACK after every recv (each read
#             sends the ACK it left pending: an ACK for every segment, as
#             splice() reading one skb per call in the 2009 thread);
#   plain     the same without it: Linux's delayed ACK, every second
#             full-sized segment (__tcp_ack_snd_check()).
# Ground truth: the receiver's TCP_INFO at the end (lab-peer --tcp-info):
# data_segs_in / (segs_out - 2), its data segments per ACK (segs_out less
# its SYN/ACK and FIN); its nstat TcpOutSegs and TcpExtDelayedACKs.
# Checks: quickack: c2s ack_pattern every_segment, one ack_pattern event;
# plain: delayed and zero ack_pattern events; both: segments_per_ack within
# 10 % of the truth.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init ackpat tcpdump ethtool python3 -- "$@"

results=()

# run NAME EVERY_MS EXPECT [SERVER_OPT...]
run()
{
	local name=$1 every=$2 expect=$3 cap json peerlog
	shift 3

	lab_pair "ackp$name"
	lab_pair_offloads_off
	lab_nstat_reset "$LAB_NS_B"
	cap="$LAB_TMP/$name-$every.pcap" json="$LAB_TMP/$name-$every.json"
	peerlog="$LAB_TMP/$name-$every.peer"
	lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$cap" tcp
	lab_transfer "$LAB_NS_B" "$LAB_IP4_B:7301" "$LAB_NS_A" "$LAB_IP4_A:40731" 20 bulk 1M \
		--rcvbuf 256K --tcp-info "$@" -- \
		--write-size 1448 --write-every "$every" --msg-more 2>"$peerlog" ||
		lab_abort "lab-peer bulk failed: $(tail -n 2 "$peerlog")"
	lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
	judge "$name/$every" "$expect" "$json" "$peerlog" \
		"$(lab_nstat "$LAB_NS_B" TcpOutSegs)" "$(lab_nstat "$LAB_NS_B" TcpExtDelayedACKs)"
	lab_reset
}

# judge LABEL EXPECT JSON PEERLOG OUTSEGS DELACKS: the checks of one run.
judge()
{
	local label=$1 expect=$2 json=$3 peerlog=$4 outsegs=$5 delacks=$6
	local dsi so truth dom spa acks events want_ev

	dsi=$(grep -o ' data_segs_in=[0-9]*' "$peerlog" | tail -n 1 | cut -d= -f2)
	so=$(grep -o ' segs_out=[0-9]*' "$peerlog" | tail -n 1 | cut -d= -f2)
	{ [ -n "$dsi" ] && [ -n "$so" ]; } || lab_abort "$label: no TCP_INFO from the receiver"
	truth=$(awk -v d="$dsi" -v s="$so" 'BEGIN { printf "%.3f", d / (s - 2) }')
	read -r dom spa acks events < <(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = d["connections"][0]["c2s"]["ack_pattern"] or {}
ev = sum(1 for e in d["events"] if e["type"] == "ack_pattern")
print(a.get("dominant", "null"), "%.3f" % a.get("segments_per_ack", 0), a.get("acks", 0), ev)
PY
	) || lab_abort "$label: no usable report from tcpsift"
	want_ev=0
	[ "$expect" = delayed ] || want_ev=1
	lab_check "$label: dominant $dom != $expect" "$dom" = "$expect"
	lab_check "$label: ack_pattern events $events != $want_ev" "$events" -eq "$want_ev"
	awk -v a="$spa" -v t="$truth" 'BEGIN { d = a - t; if (d < 0) d = -d; exit !(d <= 0.1 * t) }' ||
		lab_fail "$label: segments_per_ack $spa not within 10 % of the receiver's $truth"
	results+=("$label $dom $spa/ACK ($acks ACKs) events $events | truth $truth" \
		"(data_segs_in $dsi, segs_out $so, TcpOutSegs $outsegs, DelayedACKs $delacks);")
}

for every in 0.25 0.5; do
	run quickack "$every" every_segment --quickack
	run plain "$every" delayed
done
lab_verdict "${results[@]}"
