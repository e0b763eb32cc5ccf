#!/usr/bin/env bash
# make-samples.sh [-k] [-t] [SAMPLE...] - regenerate the sample captures in samples/.
#
# Every sample is made from scratch by real traffic between network
# namespaces (tests/lab/common.sh): no traffic leaves the namespaces created
# here, everything is removed on exit. Needs root, iproute2, nftables,
# ethtool, tcpdump, dumpcap/tshark/capinfos (wireshark), gcc, and clang (BPF
# target, for vlan-qinq only).
#
# SAMPLE is a file name without extension (demo-http-loss, ipv6-bulk, ...);
# without arguments all are made. A sample's file is replaced only when it
# was made and checked successfully; its ground-truth lines in
# samples/ground-truth.txt and its row in samples/README.md are then updated.
# -k keeps going after a failed sample (exit status 1 at the end); -t only
# regenerates the README table from the existing files.
#
# The shape of every capture is fixed (addresses, ports, MACs, sizes, rounds);
# ISNs, timestamps, and where the random drops of demo-http-loss fall are not.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lab/common.sh
. "$root/tests/lab/common.sh"

ALL=(demo-http-loss ipv6-bulk vlan-qinq sll2-any sll-lo two-ifaces nanosec
	rr-nagle-delack truncated zero-window seq-wrap exact-nagle-20ms-near
	exact-nagle-20ms-far exact-tlp-20ms-far path-app-20ms-receiver)
GT="$here/ground-truth.txt"
README="$here/README.md"
WARN=(-Wall -Wextra -Wshadow -Wformat=2 -Wvla -Wstrict-prototypes -Wmissing-prototypes -Werror)

log() { echo "make-samples: $*" >&2; }
die() {
	log "$*"
	exit 1
}

# --- helpers ---------------------------------------------------------------

ts() { tshark -n -r "$1" "${@:2}" 2>/dev/null; }

# tcount FILE DISPLAY_FILTER [TSHARK_ARGS...]: number of frames matching.
tcount() { ts "$1" -Y "$2" "${@:3}" -T fields -e frame.number | wc -l; }

# gt KEY VALUE: one ground-truth fact for the sample being made.
gt()
{
	printf '%s %s=%s\n' "$SAMPLE" "$1" "$2" >>"$LAB_TMP/gt.$SAMPLE"
	log "  $SAMPLE: $1=$2"
}

# gt_nstat NS LABEL COUNTER...: record nstat deltas as LABEL.COUNTER.
gt_nstat()
{
	local ns=$1 label=$2 c
	shift 2
	for c in "$@"; do
		gt "$label.$c" "$(lab_nstat "$ns" "$c")"
	done
}

# gt_capture: what the capturing tool itself reported.
gt_capture()
{
	gt captured "$LAB_CAP_PACKETS"
	gt capture_drops "$LAB_CAP_DROPS"
}

# check COND_DESCRIPTION A OP B: sanity checks of the ground truth.
check()
{
	local what=$1 a=$2 op=$3 b=$4

	if ! test "$a" "$op" "$b"; then
		die "$SAMPLE: check failed: $what ($a $op $b)"
	fi
}

# tshark's one-conversation view; fails unless exactly N TCP conversations.
check_convs()
{
	local f=$1 want=$2 n

	n=$(ts "$f" -q -z conv,tcp | grep -c '<->' || true)
	check "TCP conversations in $(basename "$f")" "$n" -eq "$want"
}

# install_sample TMPFILE: move into samples/, merge ground truth.
install_sample()
{
	local src=$1 name

	name=$(basename "$src")
	chmod 644 "$src"
	mv -f "$src" "$here/$name"
	touch "$GT"
	{
		grep -v "^$SAMPLE " "$GT" || true
		cat "$LAB_TMP/gt.$SAMPLE"
	} | sort -s -k1,1 >"$LAB_TMP/gt.new"
	cat "$LAB_TMP/gt.new" >"$GT"
	log "$SAMPLE: wrote samples/$name ($(stat -c %s "$here/$name") bytes)"
}

peer() { echo "$LAB_TMP/lab-peer"; }

# start_server NS PORT ARGS...: lab-peer server in the background.
start_server()
{
	local ns=$1 port=$2
	shift 2
	lab_bg "$ns" "$(peer)" server --timeout 60 "$@"
	SRV_PID=$LAB_LAST_PID
	lab_wait_listen "$ns" "$port"
}

client() { lab_run "$1" 90 "$(peer)" client --timeout 60 "${@:2}"; }

offloads_all() # NS DEV NS DEV ...
{
	while [ $# -ge 2 ]; do
		lab_offloads_off "$1" "$2"
		shift 2
	done
}

# --- samples ---------------------------------------------------------------

# A ~2 MB HTTP download through a router namespace that drops 2 % of the
# server's data segments (nft forward hook: a real loss for both ends; a drop
# in the sender's output hook would be a local send failure, and one in the
# receiver's input hook happens after the capture tap). Captured with dumpcap
# on the client's (receiver's) veth.
sample_demo-http-loss()
{
	local out="$LAB_TMP/demo-http-loss.pcapng" nft from_srv d

	lab_chain demo
	offloads_all "$LAB_NS_A" "$LAB_IF_A" "$LAB_NS_R" "$LAB_IF_RA" \
		"$LAB_NS_R" "$LAB_IF_RB" "$LAB_NS_B" "$LAB_IF_B"
	lab_nft_drop "$LAB_NS_R" forward 2 \
		"ip saddr $LAB_IP4_A tcp sport 80 tcp flags & (syn | fin | rst) == 0"
	lab_nstat_reset "$LAB_NS_A"
	lab_nstat_reset "$LAB_NS_B"
	lab_capture_start "$LAB_NS_B" dumpcap -i "$LAB_IF_B" -s 128 -f tcp -w "$out"
	start_server "$LAB_NS_A" 80 -l "$LAB_IP4_A:80" -m download -n 2000000 \
		--http --cc cubic --pacing-rate 10M
	client "$LAB_NS_B" -c "$LAB_IP4_A:80" -b "$LAB_IP4_B:40080" -m download \
		-n 2000000 --http
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"

	nft=$(lab_nft_counter "$LAB_NS_R")
	gt nft_drops "$nft"
	gt_capture
	gt_nstat "$LAB_NS_A" server TcpOutSegs TcpRetransSegs TcpExtTCPFastRetrans \
		TcpExtTCPSackRecovery TcpExtTCPLossProbes TcpExtTCPTimeouts TcpExtTCPLostRetransmit
	gt_nstat "$LAB_NS_B" client TcpInSegs TcpOutSegs TcpExtTCPOFOQueue
	d=$(($(lab_link_stat "$LAB_NS_R" "$LAB_IF_RA" rx_dropped) +
		$(lab_link_stat "$LAB_NS_R" "$LAB_IF_RB" tx_dropped) +
		$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" rx_dropped)))
	gt link_drops "$d"
	from_srv=$(tcount "$out" "ip.src == $LAB_IP4_A")
	gt from_server "$from_srv"
	gt tshark.retransmission "$(tcount "$out" tcp.analysis.retransmission)"
	gt tshark.fast_retransmission "$(tcount "$out" tcp.analysis.fast_retransmission)"
	gt tshark.duplicate_ack "$(tcount "$out" tcp.analysis.duplicate_ack)"
	gt tshark.lost_segment "$(tcount "$out" tcp.analysis.lost_segment)"
	gt tshark.acks_with_sack "$(tcount "$out" tcp.options.sack_le)"
	# Every segment the server sent reached the capture except those dropped
	# (Linux's TcpOutSegs leaves out retransmissions: add TcpRetransSegs).
	check "link drops" "$d" -eq 0
	check "nft dropped some" "$nft" -gt 0
	check "captured from server = server TcpOutSegs + TcpRetransSegs - nft drops" \
		"$from_srv" -eq "$(($(lab_nstat "$LAB_NS_A" TcpOutSegs) +
		$(lab_nstat "$LAB_NS_A" TcpRetransSegs) - nft))"
	check_convs "$out" 1
	install_sample "$out"
}

# ~500 KB IPv6 bulk upload, classic pcap (us), snaplen 128, receiver side.
sample_ipv6-bulk()
{
	local out="$LAB_TMP/ipv6-bulk.pcap" want

	lab_pair v6bulk
	offloads_all "$LAB_NS_A" "$LAB_IF_A" "$LAB_NS_B" "$LAB_IF_B"
	lab_nstat_reset "$LAB_NS_A"
	lab_nstat_reset "$LAB_NS_B"
	lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$out" tcp
	start_server "$LAB_NS_B" 5001 -l "[$LAB_IP6_B]:5001" -m bulk -n 500K
	client "$LAB_NS_A" -c "[$LAB_IP6_B]:5001" -b "[$LAB_IP6_A]:40001" -m bulk -n 500K \
		--pacing-rate 20M
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"

	gt_capture
	gt_nstat "$LAB_NS_A" client TcpOutSegs TcpRetransSegs
	gt_nstat "$LAB_NS_B" server TcpOutSegs
	want=$(($(lab_nstat "$LAB_NS_A" TcpOutSegs) + $(lab_nstat "$LAB_NS_B" TcpOutSegs)))
	check "captured = both ends' TcpOutSegs" "$LAB_CAP_PACKETS" -eq "$want"
	check "no retransmissions" "$(lab_nstat "$LAB_NS_A" TcpRetransSegs)" -eq 0
	check_convs "$out" 1
	install_sample "$out"
}

# The kernel here has no 8021q module, so tags are pushed and popped by tc
# BPF programs on the veths (clsact egress: push; ingress: pop, which runs
# after the capture tap). Phase 1: 802.1Q VID 100; phase 2: QinQ, 802.1ad
# S-VID 200 outside 802.1Q C-VID 300. Captured on B's veth: every frame
# carries the tags as a capture on a trunk port would show them.
VLAN_BPF='
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#define SEC(n) __attribute__((section(n), used))
static long (*skb_vlan_push)(struct __sk_buff *, __u16, __u16) = (void *)BPF_FUNC_skb_vlan_push;
static long (*skb_vlan_pop)(struct __sk_buff *) = (void *)BPF_FUNC_skb_vlan_pop;
SEC("tc_push_dot1q") int push_dot1q(struct __sk_buff *skb)
{
	skb_vlan_push(skb, __builtin_bswap16(0x8100), 100);
	return TC_ACT_OK;
}
SEC("tc_push_qinq") int push_qinq(struct __sk_buff *skb)
{
	skb_vlan_push(skb, __builtin_bswap16(0x8100), 300);
	skb_vlan_push(skb, __builtin_bswap16(0x88a8), 200);
	return TC_ACT_OK;
}
SEC("tc_pop_all") int pop_all(struct __sk_buff *skb)
{
	if (skb->vlan_present)
		skb_vlan_pop(skb);
	if (skb->vlan_present)
		skb_vlan_pop(skb);
	return TC_ACT_OK;
}
char _license[] SEC("license") = "GPL";
'

vlan_egress() # SECTION: (re)attach the egress push program on both veths
{
	local ns dev
	for ns in "$LAB_NS_A:$LAB_IF_A" "$LAB_NS_B:$LAB_IF_B"; do
		dev=${ns#*:}
		ns=${ns%%:*}
		ip netns exec "$ns" tc filter del dev "$dev" egress 2>/dev/null || true
		ip netns exec "$ns" tc filter add dev "$dev" egress bpf da \
			obj "$LAB_TMP/vlan.o" sec "$1"
	done
}

sample_vlan-qinq()
{
	local out="$LAB_TMP/vlan-qinq.pcap" ns dev q1 q2

	command -v clang >/dev/null || die "vlan-qinq needs clang (BPF target)"
	printf '%s' "$VLAN_BPF" >"$LAB_TMP/vlan.c"
	clang -O2 -target bpf -I"/usr/include/$(gcc -dumpmachine)" -c "$LAB_TMP/vlan.c" \
		-o "$LAB_TMP/vlan.o"
	lab_pair vlan
	offloads_all "$LAB_NS_A" "$LAB_IF_A" "$LAB_NS_B" "$LAB_IF_B"
	for ns in "$LAB_NS_A:$LAB_IF_A" "$LAB_NS_B:$LAB_IF_B"; do
		dev=${ns#*:}
		ns=${ns%%:*}
		# IPv4 only: no MLD reports in the capture.
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		ip netns exec "$ns" tc qdisc add dev "$dev" clsact
		ip netns exec "$ns" tc filter add dev "$dev" ingress bpf da \
			obj "$LAB_TMP/vlan.o" sec tc_pop_all
	done
	vlan_egress tc_push_dot1q
	lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -w "$out"
	start_server "$LAB_NS_B" 5001 -l "$LAB_IP4_B:5001" -m bulk -n 16K
	client "$LAB_NS_A" -c "$LAB_IP4_B:5001" -b "$LAB_IP4_A:40001" -m bulk -n 16K
	lab_wait "$SRV_PID"
	vlan_egress tc_push_qinq
	start_server "$LAB_NS_B" 5002 -l "$LAB_IP4_B:5002" -m bulk -n 16K
	client "$LAB_NS_A" -c "$LAB_IP4_B:5002" -b "$LAB_IP4_A:40002" -m bulk -n 16K
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"

	gt_capture
	q1=$(tcount "$out" "vlan.id == 100 && tcp.port == 5001 && !ieee8021ad")
	q2=$(tcount "$out" "ieee8021ad.id == 200 && vlan.id == 300 && tcp.port == 5002")
	gt dot1q_vid100_frames "$q1"
	gt qinq_s200_c300_frames "$q2"
	check "every frame tagged" "$((q1 + q2))" -eq "$LAB_CAP_PACKETS"
	check "both phases" "$((q1 > 0 && q2 > 0))" -eq 1
	check_convs "$out" 2
	install_sample "$out"
}

# tcpdump -i any -y LINUX_SLL2 inside client namespace A: a request/response
# exchange over the veth to B, then one over lo inside A (so two interface
# indexes appear). lo keeps TX checksum offload (fixed): its packets carry
# partial checksums.
sample_sll2-any()
{
	local out="$LAB_TMP/sll2-any.pcap"

	lab_pair sll2
	offloads_all "$LAB_NS_A" "$LAB_IF_A" "$LAB_NS_B" "$LAB_IF_B" "$LAB_NS_A" lo
	lab_capture_start "$LAB_NS_A" tcpdump -i any -y LINUX_SLL2 -w "$out" tcp
	start_server "$LAB_NS_B" 7000 -l "$LAB_IP4_B:7000" -m rr --req-size 64 --resp-size 256
	client "$LAB_NS_A" -c "$LAB_IP4_B:7000" -b "$LAB_IP4_A:40700" -m rr --rounds 3 \
		--req-size 64 --resp-size 256 --nodelay
	lab_wait "$SRV_PID"
	start_server "$LAB_NS_A" 7001 -l 127.0.0.1:7001 -m rr --req-size 64 --resp-size 256
	client "$LAB_NS_A" -c 127.0.0.1:7001 -b 127.0.0.1:40701 -m rr --rounds 2 \
		--req-size 64 --resp-size 256 --nodelay
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"

	gt_capture
	gt veth_frames "$(tcount "$out" "tcp.port == 7000")"
	gt lo_frames "$(tcount "$out" "tcp.port == 7001")"
	gt ifindexes "$(ts "$out" -T fields -e sll.ifindex | sort -u | paste -sd/)"
	check_convs "$out" 2
	install_sample "$out"
}

# tcpdump -i any -y LINUX_SLL in a namespace with only lo: a short exchange.
sample_sll-lo()
{
	local out="$LAB_TMP/sll-lo.pcap" rcv

	lab_netns slllo
	lab_offloads_off "$LAB_NS" lo
	lab_capture_start "$LAB_NS" tcpdump -i any -y LINUX_SLL -w "$out" tcp
	start_server "$LAB_NS" 7002 -l 127.0.0.1:7002 -m rr --req-size 100 --resp-size 300
	client "$LAB_NS" -c 127.0.0.1:7002 -b 127.0.0.1:40702 -m rr --rounds 3 \
		--req-size 100 --resp-size 300 --nodelay
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"

	gt_capture
	rcv=$(sed -n 's/^\([0-9]*\) packets received by filter$/\1/p' "${LAB_CAP_LOG[$LAB_CAP_PID]}")
	gt received_by_filter "$rcv"
	check "lo: received by filter = 2 x captured" "$rcv" -eq "$((2 * LAB_CAP_PACKETS))"
	check_convs "$out" 1
	install_sample "$out"
}

# dumpcap on both of the router's veths: one pcapng, two IDBs, the same
# connection seen before and after forwarding (TTL, MACs differ).
sample_two-ifaces()
{
	local out="$LAB_TMP/two-ifaces.pcapng" i0 i1

	lab_chain two
	offloads_all "$LAB_NS_A" "$LAB_IF_A" "$LAB_NS_R" "$LAB_IF_RA" \
		"$LAB_NS_R" "$LAB_IF_RB" "$LAB_NS_B" "$LAB_IF_B"
	lab_capture_start "$LAB_NS_R" dumpcap -f tcp -i "$LAB_IF_RA" -i "$LAB_IF_RB" -w "$out"
	start_server "$LAB_NS_B" 5001 -l "$LAB_IP4_B:5001" -m bulk -n 20K
	client "$LAB_NS_A" -c "$LAB_IP4_B:5001" -b "$LAB_IP4_A:40001" -m bulk -n 20K
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"

	gt_capture
	i0=$(tcount "$out" "frame.interface_id == 0")
	i1=$(tcount "$out" "frame.interface_id == 1")
	gt iface0_frames "$i0"
	gt iface1_frames "$i1"
	check "same packets at both points" "$i0" -eq "$i1"
	check_convs "$out" 1
	install_sample "$out"
}

# tcpdump --time-stamp-precision=nano: classic pcap with the ns magic.
sample_nanosec()
{
	local out="$LAB_TMP/nanosec.pcap"

	lab_pair nano
	offloads_all "$LAB_NS_A" "$LAB_IF_A" "$LAB_NS_B" "$LAB_IF_B"
	lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" --time-stamp-precision=nano \
		-w "$out" tcp
	start_server "$LAB_NS_B" 7000 -l "$LAB_IP4_B:7000" -m rr --req-size 100 --resp-size 500
	client "$LAB_NS_A" -c "$LAB_IP4_B:7000" -b "$LAB_IP4_A:40700" -m rr --rounds 3 \
		--req-size 100 --resp-size 500 --nodelay
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"

	gt_capture
	check "ns magic" "$(od -An -tx1 -N4 "$out" | tr -d ' ')" = 4d3cb2a1
	check_convs "$out" 1
	install_sample "$out"
}

# 20 request/response rounds, each request written in two writes, Nagle on:
# after the first (quick-ACK) rounds every second write waits for the
# server's delayed ACK (~40 ms). Captured on the server side.
sample_rr-nagle-delack()
{
	local out="$LAB_TMP/rr-nagle-delack.pcap" stalls

	lab_pair rr
	offloads_all "$LAB_NS_A" "$LAB_IF_A" "$LAB_NS_B" "$LAB_IF_B"
	lab_nstat_reset "$LAB_NS_A"
	lab_nstat_reset "$LAB_NS_B"
	lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -w "$out" tcp
	start_server "$LAB_NS_B" 8000 -l "$LAB_IP4_B:8000" -m rr --req-size 200 \
		--resp-size 1000 --rounds 20
	client "$LAB_NS_A" -c "$LAB_IP4_B:8000" -b "$LAB_IP4_A:40800" -m rr --rounds 20 \
		--req-size 200 --req-split 100 --resp-size 1000
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"

	gt_capture
	gt_nstat "$LAB_NS_B" server TcpExtDelayedACKs
	gt_nstat "$LAB_NS_A" client TcpExtDelayedACKs
	# A stall: the second half of a request arriving >= 30 ms after the first.
	stalls=$(ts "$out" -Y "ip.src == $LAB_IP4_A && tcp.len == 100" \
		-T fields -e frame.time_relative |
		awk 'NR % 2 == 1 { t = $1 } NR % 2 == 0 && $1 - t >= 0.030 { n++ }
		     END { print n + 0 }')
	gt nagle_stalls_ge_30ms "$stalls"
	gt request_segments "$(tcount "$out" "ip.src == $LAB_IP4_A && tcp.len == 100")"
	check "stalls seen" "$stalls" -ge 10
	check_convs "$out" 1
	install_sample "$out"
}

# A copy of rr-nagle-delack.pcap cut in the middle of its last record.
sample_truncated()
{
	local src="$here/rr-nagle-delack.pcap" out="$LAB_TMP/truncated.pcap" size last cut

	if [ ! -s "$src" ]; then
		log "truncated: making rr-nagle-delack first"
		run_sample rr-nagle-delack
		SAMPLE=truncated
	fi
	size=$(stat -c %s "$src")
	last=$(ts "$src" -T fields -e frame.cap_len | tail -n 1)
	cut=$((size - last + last / 2))
	head -c "$cut" "$src" >"$out"
	gt source rr-nagle-delack.pcap
	gt source_bytes "$size"
	gt cut_at_byte "$cut"
	gt last_record_caplen "$last"
	gt complete_records "$(($(ts "$src" -T fields -e frame.number | wc -l) - 1))"
	install_sample "$out"
}

# The receiver (small SO_RCVBUF) stops reading after 32 KiB for 1.5 s: its
# window closes, the sender probes, then a window update reopens it.
sample_zero-window()
{
	local out="$LAB_TMP/zero-window.pcap" zw

	lab_pair zwin
	offloads_all "$LAB_NS_A" "$LAB_IF_A" "$LAB_NS_B" "$LAB_IF_B"
	lab_nstat_reset "$LAB_NS_A"
	lab_nstat_reset "$LAB_NS_B"
	lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$out" tcp
	start_server "$LAB_NS_B" 5003 -l "$LAB_IP4_B:5003" -m bulk -n 128K --rcvbuf 8K \
		--stop-reading-after 32K --resume-after 1500
	client "$LAB_NS_A" -c "$LAB_IP4_B:5003" -b "$LAB_IP4_A:40003" -m bulk -n 128K
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"

	gt_capture
	gt_nstat "$LAB_NS_B" receiver TcpExtTCPWantZeroWindowAdv TcpExtTCPToZeroWindowAdv \
		TcpExtTCPFromZeroWindowAdv TcpExtTCPDSACKOldSent TcpExtTCPRcvQDrop
	gt_nstat "$LAB_NS_A" sender TcpExtTCPWinProbe TcpRetransSegs TcpExtTCPLossProbes
	zw=$(tcount "$out" tcp.analysis.zero_window)
	gt tshark.zero_window "$zw"
	# Linux probes a zero window with a bare ACK at snd_una - 1, which tshark
	# calls a keep-alive, not a zero-window probe (that needs 1 byte of data).
	gt tshark.keep_alive "$(tcount "$out" tcp.analysis.keep_alive)"
	gt tshark.zero_window_probe "$(tcount "$out" tcp.analysis.zero_window_probe)"
	gt tshark.window_full "$(tcount "$out" tcp.analysis.window_full)"
	gt tshark.window_update "$(tcount "$out" tcp.analysis.window_update)"
	check "zero-window advertisements" "$zw" -gt 0
	check_convs "$out" 1
	install_sample "$out"
}

# A real 40 KiB IPv4 upload, full snaplen, rewritten by lab-seqshift so the
# client's sequence numbers wrap past 2^32 20000 bytes into the stream.
sample_seq-wrap()
{
	local raw="$LAB_TMP/seq-wrap-raw.pcap" out="$LAB_TMP/seq-wrap.pcap" f0 f1 bad mono
	local wrapped

	lab_pair wrap
	offloads_all "$LAB_NS_A" "$LAB_IF_A" "$LAB_NS_B" "$LAB_IF_B"
	lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -w "$raw" tcp
	start_server "$LAB_NS_B" 5004 -l "$LAB_IP4_B:5004" -m bulk -n 40K
	client "$LAB_NS_A" -c "$LAB_IP4_B:5004" -b "$LAB_IP4_A:40004" -m bulk -n 40K \
		--pacing-rate 20M
	lab_wait "$SRV_PID"
	lab_capture_stop "$LAB_CAP_PID"
	"$LAB_TMP/lab-seqshift" -w 20000 "$raw" "$out"

	gt_capture
	f0=$(tcount "$raw" tcp.analysis.flags)
	f1=$(tcount "$out" tcp.analysis.flags)
	gt analysis_flags_before "$f0"
	gt analysis_flags_after "$f1"
	bad=$(tcount "$out" "tcp.checksum.status != 1" -o tcp.check_checksum:TRUE)
	gt bad_checksums "$bad"
	# Client data: relative seq must grow, raw seq must wrap exactly once.
	mono=$(ts "$out" -Y "ip.src == $LAB_IP4_A && tcp.len > 0" -T fields -e tcp.seq \
		-e tcp.seq_raw | awk 'NR > 1 && $1 <= p { bad++ } NR > 1 && $2 < q { w++ }
			{ p = $1; q = $2 } END { print bad + 0, w + 0 }')
	gt relative_seq_decreases "${mono% *}"
	wrapped=${mono#* }
	gt raw_seq_wraps "$wrapped"
	gt first_data_seq_raw "$(ts "$out" -Y "ip.src == $LAB_IP4_A && tcp.len > 0" \
		-T fields -e tcp.seq_raw | head -n 1)"
	check "analysis flags unchanged" "$f1" -eq "$f0"
	check "no analysis flags" "$f1" -eq 0
	check "checksums" "$bad" -eq 0
	check "relative seq increasing" "${mono% *}" -eq 0
	check "raw seq wraps once" "$wrapped" -eq 1
	check_convs "$out" 1
	install_sample "$out"
}

# exact_sample CASE VANTAGE: one run of tests/exact's CASE on a 20 ms path
# (10 ms each way) through the scripted peer; VANTAGE near (the kernel
# host's wire) or far (the peer's); the kernel's nstat as ground truth.
exact_sample()
{
	local case=$1 vantage=$2 keep="$LAB_TMP/exact" out c bin="$root/build/rel/tcpsift"

	[ -x "$bin" ] || bin="$root/tcpsift"
	[ -x "$bin" ] || die "$SAMPLE: build tcpsift first (make): tests/exact judges with it"
	rm -rf "$keep"
	EXACT_CASES=$case EXACT_RTTS=10:10 EXACT_ASYM= EXACT_KEEP=$keep \
		"$root/tests/exact/run.sh" "$bin" >&2 ||
		die "$SAMPLE: tests/exact/run.sh failed"
	out="$LAB_TMP/$SAMPLE.pcap"
	cp "$keep/$case-10-10/$vantage.pcap" "$out"
	for c in TcpExtTCPLossProbes TcpExtTCPTimeouts TcpExtDelayedACKs TcpRetransSegs; do
		gt "kernel.$c" "$(/usr/bin/python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["nstat"].get(sys.argv[2], 0))' \
			"$keep/$case-10-10/kernel.json" "$c")"
	done
	check_convs "$out" 1
	install_sample "$out"
}

sample_exact-nagle-20ms-near() { exact_sample nagle-delack near; }
sample_exact-nagle-20ms-far() { exact_sample nagle-delack far; }
sample_exact-tlp-20ms-far() { exact_sample tlp far; }

# An application writing 4 KiB every 3 ms on a 20 ms path (10 ms each way,
# tests/lab/path-run.sh), captured at the receiver (B), its first 0.8 s;
# the sender's own TCP_INFO chrono counters as ground truth.
sample_path-app-20ms-receiver()
{
	local keep="$LAB_TMP/path" out="$LAB_TMP/$SAMPLE.pcap" k t0

	"$root/tests/lab/path-run.sh" -t 30 -d 10000/10000 "$keep" \
		"$root/build/rel/tests/tools/lab-peer" download 4M --cc cubic --write-size 4K \
		--write-every 3 -- >&2 || die "$SAMPLE: path-run.sh failed"
	t0=$(ts "$keep/b.pcap" -c 1 -T fields -e frame.time_epoch)
	editcap -A "$t0" -B "$(/usr/bin/python3 -c "print($t0 + 0.8)")" "$keep/b.pcap" "$out"
	for k in busy_time_us rwnd_limited_us sndbuf_limited_us; do
		gt "sender.$k" "$(sed -n "s/^server_$k=//p" "$keep/truth.txt")"
	done
	gt sender.TcpRetransSegs "$(sed -n 's/^a_TcpRetransSegs=//p' "$keep/truth.txt")"
	check_convs "$out" 1
	install_sample "$out"
}

# --- README table ------------------------------------------------------------
# (Markdown: the backticks in single quotes are literal.)
# shellcheck disable=SC2016

declare -A HOW=(
	[demo-http-loss]='lab_chain A-R-B; `lab-peer download --http -n 2000000 --cc cubic --pacing-rate 10M` A:80 → B; R forward hook drops 2 % of A→B data segments (`numgen random mod 100 < 2`); `dumpcap -s 128 -f tcp` on B'"'"'s veth; offloads off'
	[ipv6-bulk]='lab_pair; `lab-peer bulk -n 500K --pacing-rate 20M` [fd00::1] → [fd00::2]:5001; `tcpdump -s 128` on receiver veth'
	[vlan-qinq]='lab_pair; tc BPF pushes/pops tags on both veths (no 8021q in this kernel); bulk 16 KiB :5001 with 802.1Q VID 100, then 16 KiB :5002 with 802.1ad S-VID 200 + 802.1Q C-VID 300; `tcpdump` on B'"'"'s veth'
	[sll2-any]='lab_pair; `tcpdump -i any -y LINUX_SLL2` in A; rr 3 rounds (64 B/256 B, nodelay) A → B:7000 over veth, then rr 2 rounds over lo :7001 in A'
	[sll-lo]='lab_netns (lo only); `tcpdump -i any -y LINUX_SLL`; rr 3 rounds (100 B/300 B, nodelay) over 127.0.0.1:7002'
	[two-ifaces]='lab_chain A-R-B; `dumpcap -f tcp -i two-ra -i two-rb` in R (a -f before the -i options applies to both); bulk 20 KiB A → B:5001'
	[nanosec]='lab_pair; `tcpdump --time-stamp-precision=nano` on B'"'"'s veth; rr 3 rounds (100 B/500 B, nodelay) A → B:7000'
	[rr-nagle-delack]='lab_pair; rr 20 rounds, request 200 B in two writes (100+100), response 1000 B, Nagle on; `tcpdump` on server (B) veth'
	[truncated]='`head -c` of rr-nagle-delack.pcap ending in the middle of the last record'"'"'s data'
	[zero-window]='lab_pair; bulk 128 KiB A → B:5003, server `--rcvbuf 8K --stop-reading-after 32K --resume-after 1500`; `tcpdump -s 128` on B'"'"'s veth'
	[seq-wrap]='lab_pair; bulk 40 KiB A → B:5004 full snaplen on B'"'"'s veth, then `lab-seqshift -w 20000` (client seq +delta, server ack/SACK +delta, TCP checksums recomputed)'
	[exact-nagle-20ms-near]='tests/exact nagle-delack on a 20 ms path (10 ms each way): the kernel client without TCP_NODELAY writes 100+100 B, the scripted peer delays its ACKs 40 ms; the kernel host'"'"'s wire (sender side)'
	[exact-nagle-20ms-far]='the same run at the scripted peer (receiver side)'
	[path-app-20ms-receiver]='tests/lab/path-run.sh on a 20 ms path (10 ms each way): `lab-peer download` from A writing 4 KiB every 3 ms (`--write-size 4K --write-every 3`), the first 0.8 s of B'"'"'s capture (the receiver'"'"'s veth)'
	[exact-tlp-20ms-far]='tests/exact tlp on a 20 ms path: the kernel sends 10 segments, the peer drops the last; at the peer (receiver side, the loss upstream of it)'
)
declare -A WHAT=(
	[demo-http-loss]='pcapng reader, loss: gaps before retransmissions (receiver view), dup ACKs with SACK, fast retransmit, snaplen-cut payload'
	[ipv6-bulk]='IPv6 decode, bulk throughput, classic pcap µs, snaplen cut'
	[vlan-qinq]='802.1Q and 802.1ad+802.1Q decoding (two conversations)'
	[sll2-any]='LINKTYPE_LINUX_SLL2 (276), several ifindexes, lo partial checksums'
	[sll-lo]='LINKTYPE_LINUX_SLL (113)'
	[two-ifaces]='pcapng with 2 IDBs, same flow at two points (TTL/MAC differ, duplicates per interface)'
	[nanosec]='classic pcap with ns magic (a1b23c4d)'
	[rr-nagle-delack]='request/response timing, Nagle + delayed-ACK stalls (~40 ms), quick-ACK at start'
	[truncated]='file ending inside a record (SF_ERR_TRUNCATED after the complete records)'
	[zero-window]='zero window, window probes, window update/reopen, small window scale'
	[seq-wrap]='sequence numbers crossing 2^32 mid-stream'
	[exact-nagle-20ms-near]='Nagle x delayed ACK at 20 ms from the sender: 60 ms gaps, 40 ms ACK delay after the path'
	[exact-nagle-20ms-far]='the same from the receiver: 40 ms gaps, the path between ACK and answer; limits the sender cannot be seen for'
	[path-app-20ms-receiver]='an application-limited sender seen from the receiver: its ACK turnaround (microseconds) is no path queue; the sender'"'"'s limits cannot be told apart from here'
	[exact-tlp-20ms-far]='tail loss before a receiver-side capture: the probe arrives as new data, the IP ID skips'
)

readme_row()
{
	local s=$1 f info enc fmt pk facts snap

	f=""
	for f in "$s.pcap" "$s.pcapng" ""; do
		[ -f "$here/$f" ] && break
	done
	[ -n "$f" ] || return 0
	info=$(capinfos -t -E -c -M "$here/$f" 2>&1 || true)
	fmt=$(capinfos -t "$here/$f" 2>/dev/null | sed -n 's/^File type: .* - //p' | head -n 1 || true)
	snap=$(capinfos -l "$here/$f" 2>/dev/null | grep -o '[0-9]* bytes' | head -n 1 || true)
	fmt="$fmt${snap:+, snaplen $snap}"
	enc=$(sed -n 's/^File encapsulation: *//p' <<<"$info" | head -n 1)
	case $enc in
	ether) enc="Ethernet (LINKTYPE 1)" ;;
	linux-sll) enc="Linux SLL (LINKTYPE 113)" ;;
	linux-sll2) enc="Linux SLL2 (LINKTYPE 276)" ;;
	esac
	pk=$(sed -n 's/^Number of packets: *//p' <<<"$info" | head -n 1)
	if [ "$s" = truncated ]; then
		pk="$pk (capinfos: cut short)"
	fi
	facts=$(awk -v s="$s" '$1 == s { printf "%s%s", sep, $2; sep = ", " }' "$GT" 2>/dev/null)
	# shellcheck disable=SC2016
	printf '| `%s` | %s | %s | %s | %s | %s | %s |\n' "$f" "${HOW[$s]}" "$enc" "$fmt" \
		"$pk" "${WHAT[$s]}" "$facts"
}

update_readme()
{
	local s table

	[ -f "$README" ] || return 0
	grep -q '<!-- BEGIN GENERATED TABLE -->' "$README" || return 0
	table="$LAB_TMP/table.md"
	{
		echo '| File | How it was made | Link type | Format | Packets | Exercises | Ground truth (this run) |'
		echo '|---|---|---|---|---|---|---|'
		for s in "${ALL[@]}"; do
			readme_row "$s"
		done
	} >"$table"
	awk -v t="$table" '
		/<!-- BEGIN GENERATED TABLE -->/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
		/<!-- END GENERATED TABLE -->/ { skip = 0 }
		!skip' "$README" >"$LAB_TMP/README.new"
	cat "$LAB_TMP/README.new" >"$README"
}

# --- main --------------------------------------------------------------------

run_sample()
{
	SAMPLE=$1
	: >"$LAB_TMP/gt.$SAMPLE"
	log "== $SAMPLE"
	"sample_$SAMPLE"
	lab_reset
}

main()
{
	local keep_going=0 s failed=0 want=() c

	while getopts kt c; do
		case $c in
		k) keep_going=1 ;;
		t)
			lab_init
			update_readme
			return 0
			;;
		*) die "usage: $0 [-k] [-t] [SAMPLE...]" ;;
		esac
	done
	shift $((OPTIND - 1))
	want=("$@")
	[ ${#want[@]} -eq 0 ] && want=("${ALL[@]}")
	for s in "${want[@]}"; do
		declare -F "sample_$s" >/dev/null || die "unknown sample '$s' (have: ${ALL[*]})"
	done
	for c in ip nft ethtool nstat ss tcpdump dumpcap tshark capinfos gcc; do
		command -v "$c" >/dev/null || die "missing tool: $c"
	done
	lab_require_root
	lab_init
	gcc -std=gnu11 -O2 "${WARN[@]}" -o "$LAB_TMP/lab-peer" "$root/tests/tools/lab-peer.c"
	gcc -std=gnu11 -O2 "${WARN[@]}" -o "$LAB_TMP/lab-seqshift" "$root/tests/tools/lab-seqshift.c"

	for s in "${want[@]}"; do
		if [ $keep_going -eq 1 ]; then
			# A subshell keeps going after a failure; its trap cleans up
			# what it created, the parent's temp dir stays.
			# errexit must stay on inside: not in an if/&&/|| context.
			set +e
			(
				set -e
				trap 'lab_reset' EXIT
				run_sample "$s"
			)
			c=$?
			set -e
			if [ $c -ne 0 ]; then
				log "$s FAILED"
				failed=1
			fi
		else
			run_sample "$s"
		fi
	done
	update_readme
	log "samples/ total: $(du -cb "$here"/*.pcap "$here"/*.pcapng 2>/dev/null | tail -n 1 | cut -f1) bytes"
	return $failed
}

main "$@"
