#!/usr/bin/env bash
# fanout-qm.sh TCPSIFT [LAB_PEER] - `tcpsift capture --fanout 4 --fanout-mode
# qm` on a 4-queue veth pair: every packet the interfaces sent is in the
# file, on the queue the kernel's own per-queue counters say.
#
# lab_pair with 4 TX/RX queues, IPv6 off on both veths (no MLD/ND: only the
# test's TCP crosses the link), offloads off (one skb per wire frame, as the
# interface counters count them), an mq qdisc on both ends so
# `tc -s class show` counts the packets each TX queue sent. A veth delivers
# what its peer sent on TX queue k to RX queue k (veth_xmit() keeps the skb's
# queue_mapping), and PACKET_FANOUT_QM hands it to socket queue_mapping % 4
# (fanout_demux_qm()), so tcpsift's queue ids must match those counters.
# FLOWS paced downloads A -> B on different ports (the sender's flow hash
# picks each one's TX queue), captured on B with tcpsift and, as the
# reference for the identity below, tcpdump (-s 128).
#
# Ground truth: packets on B's veth = A's tx_packets delta (arriving; a veth
# counts only what it delivered) + B's tx_packets delta (B's ACKs, seen on
# the way out by dev_queue_xmit_nit()). Checked against tcpdump when tcpdump
# dropped nothing.
# Checks: tcpsift exits 0 after SIGINT; packets in the file == the identity
# (arriving and leaving separately); queue ids span >= 2 queues; each flow
# direction stays on one queue; packets per queue == the mq class counters
# of A (arriving) and B (leaving); every EPB carries its direction
# (epb_flags: arriving inbound, leaving outbound); the merged file is in
# time order (a step back only where tcpsift counted a packet late, no deeper
# than it said); tshark reads it to the end;
# tcpsift analyze reads it (FLOWS connections, capture_drops not null, an
# ISB per interface); tcpsift's exit summary: written == packets in the file,
# no drops. Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-fanout-qm tshark tcpdump tc ethtool python3 -- "$@"
lab_require_capture
NQ=4 FLOWS=${FANOUT_FLOWS:-8} BYTES=${FANOUT_BYTES:-8M} RATE=${FANOUT_RATE:-4M}

lab_pair cfanout 1500 "$NQ"
# net.core.txrehash=0 (per namespace): Linux gives a socket a new flow hash,
# and so its packets a new TX queue, on an RTO or when it receives a
# spurious retransmission (sk_rethink_txhash(); a loaded host made one flow
# direction of one run change queues): each direction must stay on one.
for x in "$LAB_NS_A:$LAB_IF_A" "$LAB_NS_B:$LAB_IF_B"; do
	ip netns exec "${x%%:*}" sysctl -qw "net.ipv6.conf.${x#*:}.disable_ipv6=1"
	ip netns exec "${x%%:*}" sysctl -qw net.core.txrehash=0
	ip netns exec "${x%%:*}" tc qdisc add dev "${x#*:}" root handle 1: mq
done
lab_pair_offloads_off

cap="$LAB_TMP/fanout.pcapng" ref="$LAB_TMP/ref.pcap" json="$LAB_TMP/fanout.json"
fields="$LAB_TMP/fields.txt"

# mq_sent NS IF: "q pkts" per TX queue (class 1:k is queue k-1).
mq_sent()
{
	ip netns exec "$1" tc -s class show dev "$2" |
		awk '$1 == "class" { split($3, c, ":"); q = c[2] - 1 }
		     $1 == "Sent" { print q, $4 }'
}
counters()
{
	echo "$(lab_link_stat "$LAB_NS_A" "$LAB_IF_A" tx_packets)" \
		"$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" tx_packets)" \
		"$(lab_link_stat "$LAB_NS_A" "$LAB_IF_A" tx_dropped)" \
		"$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" rx_dropped)"
}

lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -B 65536 -s 128 -w "$ref"
td=$LAB_CAP_PID
lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" --fanout "$NQ" --fanout-mode qm -w "$cap" ||
	lab_abort "tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
sleep 0.3
read -r a_tx0 b_tx0 a_drop0 b_drop0 < <(counters)
mq_sent "$LAB_NS_A" "$LAB_IF_A" >"$LAB_TMP/mq_a0"
mq_sent "$LAB_NS_B" "$LAB_IF_B" >"$LAB_TMP/mq_b0"

lab_downloads "$FLOWS" "$BYTES" 20 --pacing-rate "$RATE"
lab_downloads_wait

read -r a_tx1 b_tx1 a_drop1 b_drop1 < <(counters)
mq_sent "$LAB_NS_A" "$LAB_IF_A" >"$LAB_TMP/mq_a1"
mq_sent "$LAB_NS_B" "$LAB_IF_B" >"$LAB_TMP/mq_b1"
lab_tcpsift_stop INT 2
lab_capture_stop "$td" 0 || true
td_pkts=$LAB_CAP_PACKETS td_drops=$LAB_CAP_DROPS

a_tx=$((a_tx1 - a_tx0)) b_tx=$((b_tx1 - b_tx0))
want=$((a_tx + b_tx))
link_drops=$((a_drop1 - a_drop0 + b_drop1 - b_drop0))
lab_check "tcpsift capture exited $LAB_TCAP_RC after SIGINT (want 0)" "$LAB_TCAP_RC" -eq 0
[ -s "$cap" ] || lab_abort "no capture file; tcpsift said: $(tail -n 5 "$LAB_TCAP_LOG")"

# The identity itself, by an independent capturer (when it kept everything).
ref_note="tcpdump $td_pkts"
if [ "$td_drops" -eq 0 ]; then
	lab_check "tcpdump captured $td_pkts != A tx $a_tx + B tx $b_tx: ground truth wrong" \
		"$td_pkts" -eq "$want"
else
	ref_note="tcpdump $td_pkts, dropped $td_drops: not used"
fi

tshark_ok=yes
lab_pcap_read "$cap" -T fields -E separator=' ' -e ip.src -e tcp.srcport -e tcp.dstport \
	-e frame.interface_queue -e frame.time_epoch -e frame.packet_flags_direction >"$fields" || {
	tshark_ok=no
	lab_fail "tshark could not read $cap to the end"
}
# in out other noqueue queues split: arriving (from A) / leaving (from B) /
# anything else, packets without a queue id, distinct queues, flow directions
# seen on more than one queue, packets earlier than one written before them
# and the largest such step back in us, packets without an epb_flags
# direction, packets with the wrong one (arriving must be inbound, 1, leaving
# outbound, 2); then per queue "in:q:n" and "out:q:n".
stats=$(awk -v a="$LAB_IP4_A" -v b="$LAB_IP4_B" '
	{ q = $4; t = $5 + 0; dir = $6; sub(/^0x0*/, "", dir) }
	dir == "" || dir == "0" { nodir++ }
	$1 == a && dir != "" && dir != "0" && dir != "1" { baddir++ }
	$1 == b && dir != "" && dir != "0" && dir != "2" { baddir++ }
	NR > 1 && t < tmax { nback++; if (tmax - t > back) back = tmax - t }
	t > tmax { tmax = t }
	$1 == a { d = "in"; nin++ } $1 == b { d = "out"; nout++ }
	$1 != a && $1 != b { other++; next }
	q == "" { noq++; next }
	{ n[d ":" q]++; qs[q] = 1; k = $1 " " $2 " " $3
	  if (!(k in fq)) fq[k] = q; else if (fq[k] != q) split_[k] = 1 }
	END { for (q in qs) nq++; for (k in split_) ns++
	      printf "%d %d %d %d %d %d %d %d %d %d", nin, nout, other, noq, nq, ns, nback, back * 1e6,
	          nodir, baddir
	      for (x in n) printf " %s:%d", x, n[x]; print "" }' "$fields")
read -r f_in f_out f_other f_noq f_nq f_split f_nback f_back_us f_nodir f_baddir per_q <<<"$stats"
f_total=$((f_in + f_out + f_other))

lab_check "packets in the file $f_total != A tx $a_tx + B tx $b_tx = $want" "$f_total" -eq "$want"
lab_check "arriving packets in the file $f_in != A tx $a_tx" "$f_in" -eq "$a_tx"
lab_check "leaving packets in the file $f_out != B tx $b_tx" "$f_out" -eq "$b_tx"
lab_check "$f_other packets that are not the test's IPv4 (want 0)" "$f_other" -eq 0
lab_check "$f_noq packets without a queue id (frame.interface_queue)" "$f_noq" -eq 0
lab_check "queue ids span $f_nq queues (want >= 2)" "$f_nq" -ge 2
lab_check "$f_split flow directions seen on more than one queue (want 0)" "$f_split" -eq 0
lab_check "$f_nodir packets without an epb_flags direction (want 0)" "$f_nodir" -eq 0
lab_check "$f_baddir packets with the wrong epb_flags direction (want 0)" "$f_baddir" -eq 0
# Merging the sockets' rings must keep time order: a packet is written once
# no socket can still deliver an older one (a quiet socket's TPACKET_V3
# block comes up to two block timeouts late). The file can step back only
# where the kernel handed a socket a packet stamped before what that socket
# had vouched for: stamped as it entered a busy CPU's backlog and handed
# over tens of ms later (seen here once in five runs, 3.1 ms back), or CPUs
# stamping one socket's packets out of order. tcpsift counts those ("came
# stamped before ..." in its summary, by up to how much): every step back in
# the file must be one of them, and no deeper than it said. A step back it
# did not count is a merge that did not wait (and misleads every analyzer:
# connections split in two).
late=$(lab_tcpsift_count late) late_us=$(lab_tcpsift_count late_us)
late=${late:-0} late_us=${late_us:-0}
lab_check "$f_nback packets earlier than one before them, tcpsift counted $late late (want <= it)" \
	"$f_nback" -le "$late"
lab_check "a step back of $f_back_us us, tcpsift's late packets by up to $late_us us (want <= it)" \
	"$f_back_us" -le $((late_us + 1))

# Second view: the kernel's per-TX-queue counters on both ends.
mq_ok=0 mq_bad=()
for side in in out; do
	if [ $side = in ]; then f0=$LAB_TMP/mq_a0 f1=$LAB_TMP/mq_a1; else f0=$LAB_TMP/mq_b0 f1=$LAB_TMP/mq_b1; fi
	while read -r q n1; do
		n0=$(awk -v q="$q" '$1 == q { print $2 }' "$f0")
		want_q=$((n1 - ${n0:-0}))
		got_q=$(tr ' ' '\n' <<<"$per_q" | awk -F: -v k="$side:$q" '$1 ":" $2 == k { print $3 }')
		if [ "${got_q:-0}" -eq "$want_q" ]; then
			mq_ok=$((mq_ok + 1))
		else
			mq_bad+=("$side q$q ${got_q:-0} (tc $want_q)")
		fi
	done <"$f1"
done
[ ${#mq_bad[@]} -eq 0 ] || lab_fail "per-queue packets differ from tc mq counters: ${mq_bad[*]}"

"$LAB_BIN" analyze --json --no-progress "$cap" >"$json" 2>"$LAB_TMP/analyze.err" ||
	lab_fail "tcpsift analyze exited $?: $(head -n 2 "$LAB_TMP/analyze.err")"
read -r a_conns a_pkts a_drops < <(lab_values "$json" summary.connections inputs.0.packets \
	inputs.0.capture_drops) || lab_abort "no usable report from tcpsift analyze"
read -r n_if n_isb n_conn_q < <(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ifs = d["inputs"][0]["interfaces"]
print(len(ifs), sum(i["isb_ifrecv"] is not None for i in ifs),
      sum(bool(c.get("queues")) for c in d["connections"]))
PY
)
lab_check "analyze: $a_conns connections (want $FLOWS)" "$a_conns" -eq "$FLOWS"
lab_check "analyze: $a_pkts packets (file holds $f_total)" "$a_pkts" -eq "$f_total"
lab_check "analyze: capture_drops is null (no ISB counters read)" "$a_drops" != null
lab_check "analyze: $n_isb of $n_if interfaces have ISB counters" "$n_isb" -eq "$n_if"
lab_check "analyze: $n_conn_q of $a_conns connections list queues" "$n_conn_q" -eq "$a_conns"

written=$(lab_tcpsift_count written) kdrops=$(lab_tcpsift_count kernel)
ours=$(lab_tcpsift_count ours)
lab_check "tcpsift says written ${written:-?}, the file holds $f_total" "${written:--1}" -eq "$f_total"
lab_check "tcpsift says kernel drops ${kdrops:-?} (want 0)" "${kdrops:--1}" -eq 0
lab_check "tcpsift says own drops ${ours:-?} (want 0)" "${ours:--1}" -eq 0

lab_verdict "packets $f_total (A tx $a_tx + B tx $b_tx = $want; $ref_note; link drops" \
	"$link_drops), queues $f_nq (>= 2), per-queue = tc mq $mq_ok/$((mq_ok + ${#mq_bad[@]}))," \
	"time steps back $f_nback, max $f_back_us us (<= late $late, $late_us us), no/wrong direction" \
	"$f_nodir/$f_baddir (0/0)," \
	"split flows $f_split (0), tshark $tshark_ok, analyze $a_conns conns ($FLOWS)" \
	"capture_drops $a_drops (not null), ISBs $n_isb/$n_if, written ${written:-?} kdrops" \
	"${kdrops:-?} ours ${ours:-?} (0)"
