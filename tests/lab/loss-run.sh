#!/usr/bin/env bash
# loss-run.sh - one lab-peer transfer through a router that drops a given
# share of the sender's data segments at random, with exact ground truth of
# what was dropped (NFLOG copies) and of what the sender did about it (nstat,
# tcp_info), next to captures taken before and after the drop. Not a scenario
# (no verdict; run.sh does not run it): a tool to produce and keep material.
#
#   tests/lab/loss-run.sh OUTDIR LAB_PEER -- [--family 4|6] [--loss PCT]
#       [--cc cubic|bbr|reno] [--bytes N] [--rate RATE|line]
#       [--mode download|rr] [--rounds K] [--resp-size M] [--seed S]
#       [--timeout SECS] [--rps MASK|off]
#
#   LAB_PEER     the lab-peer binary to use
#   --family     4 (10.0.1.1:5001 -> 10.0.2.1:40001, default) or 6
#                ([fd00:1::1]:5001 -> [fd00:2::1]:40001)
#   --loss PCT   share of eligible segments R drops, in % (default 1); a
#                decimal from 0 to 99, fractions allowed (0.1, 2.5): resolved
#                to parts per million
#   --cc         TCP_CONGESTION of both sockets (default cubic: the sysctl
#                cannot be set to cubic in a new namespace)
#   --bytes N    download size (default 2M; lab-peer sizes, K/M/G = x1024)
#   --rate       lab-peer --pacing-rate RATE on the server (SO_MAX_PACING_RATE,
#                bytes/s, K/M/G = x1024; default 4M); line: unpaced (may
#                overflow a veth with both CPUs busy, see the *_dropped keys)
#   --mode       download (default): the server sends --bytes; rr: --rounds K
#                (default 50) request/response rounds, --resp-size M bytes
#                (default 1000) each, 200-byte requests, --nodelay on both
#   --seed S     a reproducible drop pattern instead of numgen random: the
#                k-th eligible segment R sees (k from 0, counted by
#                `numgen inc mod M`, M = 4 x the expected data segments +
#                1000, so the pattern repeats after M) is dropped when k is
#                in a set drawn once from Python's random.Random(S), each k
#                with probability PCT/100. Same seed, same positions; what
#                sits at a position still depends on the run's timing.
#   --timeout    lab-peer --timeout (default 60)
#   --rps MASK   rps_cpus (rx-0) of R's veth from A and of B's veth, default
#                1 (CPU 0); off: leave RPS off. A veth hands each frame to
#                the backlog of the CPU that sent it: a sender (or R)
#                transmitting from both CPUs can reorder frames with no
#                loss at all (see http-run.sh); one RPS CPU per hop keeps
#                each hop a FIFO, so reordering does not blur the loss
#                ground truth (a_TcpExtTCPSACKReorder, b_TcpExtTCPOFOQueue
#                beyond the drops show it if it happens)
#
# Topology: lab_chain (A 10.0.1.1 / fd00:1::1 <-> R <-> B 10.0.2.1 /
# fd00:2::1, R routes), offloads (checksum, TSO, GSO, GRO) off on all four
# veths, RPS as --rps says. The lab-peer server runs in A and sends
# (download: the data; rr: the responses), the client in B. R's forward
# hook (lab_nft_drop_nflog, table inet lab_loss) drops eligible segments and
# copies each to NFLOG group 7: eligible = from A's server port, no
# SYN/FIN/RST, a 32-byte TCP header (Linux's timestamp option) and an IP
# payload over 32 bytes, i.e. every data segment Linux sends here, and
# nothing else (pure ACKs, FIN, SYN are never dropped). A data segment
# with another header length (SACK blocks on data, which A would only send
# if it received B's data out of order) is not eligible: a_data_ineligible
# counts them (0 expected). An integer PCT uses lab_nft_drop_nflog's own
# `numgen random mod 100 < PCT`; a fractional one adds `numgen random mod
# 1000000 < PPM` in front of the helper's `mod 100 < ceil(PCT)` (two
# independent draws, the product is PCT %; nft refuses `mod 100 < 100`, so
# the helper's draw cannot be made always true); --seed writes the same
# table and chain with the set above (the helper has no way to say it), so
# lab_nft_counter counts it the same way.
#
# OUTDIR gets (created; files of an earlier run are overwritten):
#   a.pcap        tcpdump -s 128 on A's veth (before the drop), filter tcp
#   b.pcap        tcpdump -s 128 on B's veth (after the drop), filter tcp
#   dropped.pcap  tcpdump on nflog:7 in R: the first 120 bytes of every
#                 dropped packet (link type NFLOG)
#   server.err, client.err  the lab-peer ends' stderr (tcp_info, summary)
#   server.log, client.log  their --app-log files (CLOCK_REALTIME ns)
#   capture.txt   the three tcpdumps' summary lines
#   nstat_a.txt, nstat_b.txt  every non-zero nstat delta in A / B
#   truth.txt     key=value lines:
#     drops            nft counter of the drop rule (packets dropped in R)
#     nflog_packets    NFLOG copies captured (== drops expected)
#     dropped_data     NFLOG copies that are TCP data segments (payload > 0)
#     dropped_other    NFLOG copies that are not (0 expected)
#     dropped_retx     dropped data segments that were themselves
#                      retransmissions (their bytes overlap an earlier data
#                      segment in a.pcap)
#     dropped_unmatched  dropped data segments not found in a.pcap (matched
#                      on seq, len, TSval and, for IPv4, IP ID; 0 expected)
#     a_COUNTER        nstat deltas in A (the sender): TcpRetransSegs
#                      TcpExtTCPLossProbes TcpExtTCPTimeouts
#                      TcpExtTCPFastRetrans TcpExtTCPSlowStartRetrans
#                      TcpExtTCPDSACKRecv TcpExtTCPSpuriousRTOs
#                      TcpExtTCPSackRecovery TcpExtTCPLostRetransmit
#                      TcpExtTCPSACKReorder TcpExtTCPLossProbeRecovery
#                      TcpOutSegs
#     b_COUNTER        nstat deltas in B: TcpExtTCPOFOQueue
#                      TcpExtTCPDSACKOldSent TcpExtDelayedACKs
#     server_KEY, client_KEY  the "lab-peer tcp_info:" line of each end
#                      (total_retrans lost retrans reordering bytes_retrans
#                      dsack_dups reord_seen data_segs_out ...; the server's
#                      is taken once all it sent was ACKed)
#     a_cap_packets a_cap_drops b_cap_packets b_cap_drops
#     nflog_cap_drops  tcpdump's own counts and kernel drops
#     IF_rx_dropped IF_tx_dropped  for IF in a ra rb b (the four veths)
#     a_data_segments  A's data segments (payload > 0) in a.pcap
#     b_data_segments  A's data segments in b.pcap
#     data_balance     a_data_segments - dropped_data - b_data_segments (0
#                      when both captures and the NFLOG copies are complete)
#     a_data_ineligible  A's data segments in a.pcap the rule could not drop
#     retx_data_segments  data segments in a.pcap whose bytes overlap bytes
#                      of an earlier data segment in a.pcap: the capture's
#                      count of the sender's retransmissions (cross-check of
#                      a_TcpRetransSegs); retx_data_bytes their payload bytes
#     family loss loss_ppm drop_pattern (random|seeded) seed cc bytes rate
#     mode rounds resp_size rps status (the transfer's exit status)
#
# Exit 0 when the transfer succeeded (the files are written in any case as
# far as the run got), 1 when it failed, 2 usage, 77 no root / tools.
# Everything created (namespaces, veths, nft tables, processes, temp dir) is
# removed on exit by the lab_cleanup trap of common.sh.
#
# Examples:
#   tests/lab/loss-run.sh /tmp/loss build/rel/tests/tools/lab-peer -- \
#       --loss 0.1 --cc bbr
#   tests/lab/loss-run.sh /tmp/rr build/rel/tests/tools/lab-peer -- \
#       --mode rr --rounds 50 --resp-size 3000 --loss 5
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

usage()
{
	echo "usage: loss-run.sh OUTDIR LAB_PEER -- [--family 4|6] [--loss PCT]" \
		"[--cc cubic|bbr|reno] [--bytes N] [--rate RATE|line] [--mode download|rr]" \
		"[--rounds K] [--resp-size M] [--seed S] [--timeout SECS] [--rps MASK|off]" >&2
	exit 2
}

# capture_stop PID [SETTLE]: lab_capture_stop, then LAB_CAP_PACKETS and
# LAB_CAP_DROPS read again from the capture's log: lab_capture_stop's
# patterns miss tcpdump's singular lines ("1 packet captured", "1 packet
# dropped by kernel") and give 0 for them.
capture_stop()
{
	local log=${LAB_CAP_LOG[$1]}

	lab_capture_stop "$@" || true
	LAB_CAP_PACKETS=$(tr '\r' '\n' <"$log" | awk '/packets? captured$/ { n = $1 }
		END { print n + 0 }')
	LAB_CAP_DROPS=$(awk '/packets? dropped by kernel$/ { n += $1 } END { print n + 0 }' "$log")
}

GROUP=7
SPORT=5001 CPORT=40001

[ $# -ge 2 ] || usage
out=$1 peer_bin=$2
shift 2
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || usage
	shift
fi
family=4 loss=1 cc=cubic bytes=2M rate=4M mode=download rounds=50 resp=1000 seed="" secs=60 rps=1
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--family) family=$2 ;;
	--loss) loss=$2 ;;
	--cc) cc=$2 ;;
	--bytes) bytes=$2 ;;
	--rate) rate=$2 ;;
	--mode) mode=$2 ;;
	--rounds) rounds=$2 ;;
	--resp-size) resp=$2 ;;
	--seed) seed=$2 ;;
	--timeout) secs=$2 ;;
	--rps) rps=$2 ;;
	*) usage ;;
	esac
	shift 2
done
case $family in 4 | 6) ;; *) usage ;; esac
case $mode in download | rr) ;; *) usage ;; esac
[[ $loss =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage
[[ $secs =~ ^[0-9]+$ && $rounds =~ ^[0-9]+$ && $resp =~ ^[0-9]+$ ]] || usage
[ -z "$seed" ] || [[ $seed =~ ^[0-9]+$ ]] || usage
[ "$rps" = off ] || [[ $rps =~ ^[0-9a-fA-F,]+$ ]] || usage
# Parts per million; nft compares integers only.
ppm=$(awk -v p="$loss" 'BEGIN { printf "%d", p * 10000 + 0.5 }')
[ "$ppm" -le 990000 ] || usage

lab_require_root
for t in tcpdump tshark ethtool nft nstat python3 numfmt; do
	command -v "$t" >/dev/null || {
		echo "SKIP loss-run: needs $t"
		exit 77
	}
done
LAB_PEER=$(realpath -m "$peer_bin")
[ -x "$LAB_PEER" ] || {
	echo "loss-run: no executable lab-peer at $peer_bin" >&2
	exit 2
}
nbytes=$(numfmt --from=iec "$bytes") || usage
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/{a.pcap,b.pcap,dropped.pcap,server.err,client.err,server.log,client.log} \
	"$out"/{capture.txt,truth.txt,nstat_a.txt,nstat_b.txt}
export LAB_BG_TIMEOUT=$((secs + 30))

lab_chain loss
lab_chain_offloads_off
if [ "$rps" != off ]; then
	for x in "$LAB_NS_R:$LAB_IF_RA" "$LAB_NS_B:$LAB_IF_B"; do
		ip netns exec "${x%%:*}" sh -c "echo $rps >/sys/class/net/${x#*:}/queues/rx-0/rps_cpus"
	done
fi
if [ "$family" = 4 ]; then
	srv="$LAB_IP4_A:$SPORT" cli="$LAB_IP4_B:$CPORT"
	src_filter="ip.src==$LAB_IP4_A"
	match="ip saddr $LAB_IP4_A ip length > 52"
else
	srv="[$LAB_IP6_A]:$SPORT" cli="[$LAB_IP6_B]:$CPORT"
	src_filter="ipv6.src==$LAB_IP6_A"
	match="ip6 saddr $LAB_IP6_A ip6 length > 32"
fi
# Eligible: A's data segments with Linux's 32-byte header (20 + timestamps),
# i.e. an IP payload beyond it; nft cannot subtract the header length.
match="$match tcp sport $SPORT tcp flags & (syn | fin | rst) == 0 tcp doff 8"

# The drop rule (see the header).
if [ -n "$seed" ]; then
	drop_pattern=seeded
	if [ "$mode" = rr ]; then
		expect=$((rounds * ((resp + 1447) / 1448)))
	else
		expect=$(((nbytes + 1447) / 1448))
	fi
	period=$((4 * expect + 1000))
	set_elems=$(python3 - "$seed" "$ppm" "$period" <<'PY'
import random, sys
seed, ppm, period = (int(a) for a in sys.argv[1:])
rng = random.Random(seed)
print(", ".join(str(k) for k in range(period) if rng.random() < ppm / 1e6))
PY
)
	if [ -z "$set_elems" ]; then
		selector="numgen random mod 100 < 0" # nothing drawn: drop nothing
	else
		selector="numgen inc mod $period { $set_elems }"
	fi
	# lab_nft_drop_nflog's table and chain, with this selector in place of
	# its numgen random.
	ip netns exec "$LAB_NS_R" nft -f - <<EOF
table inet lab_loss {
	chain drop_log_forward {
		type filter hook forward priority 0; policy accept;
		$match $selector counter log group $GROUP snaplen 120 queue-threshold 1 drop
	}
}
EOF
elif [ $((ppm % 10000)) -eq 0 ]; then
	drop_pattern=random
	lab_nft_drop_nflog "$LAB_NS_R" forward $((ppm / 10000)) "$GROUP" "$match"
else
	drop_pattern=random
	whole=$(((ppm + 9999) / 10000))
	lab_nft_drop_nflog "$LAB_NS_R" forward "$whole" "$GROUP" \
		"$match numgen random mod 1000000 < $((ppm * 100 / whole))"
fi

# lab_transfer runs "$LAB_PEER server|client ...": a wrapper keeps each
# end's stderr in its own file.
LAB_PEER="$LAB_TMP/lab-peer-wrap"
cat >"$LAB_PEER" <<EOF
#!/bin/sh
exec "$(realpath -m "$peer_bin")" "\$@" 2>>"$out/\$1.err"
EOF
chmod +x "$LAB_PEER"
: >"$out/server.err"
: >"$out/client.err"

lab_capture_start "$LAB_NS_R" tcpdump -i "nflog:$GROUP" -w "$out/dropped.pcap"
nflog_cap=$LAB_CAP_PID
lab_capture_start "$LAB_NS_A" tcpdump -n -i "$LAB_IF_A" -s 128 -w "$out/a.pcap" tcp
a_cap=$LAB_CAP_PID
lab_capture_start "$LAB_NS_B" tcpdump -n -i "$LAB_IF_B" -s 128 -w "$out/b.pcap" tcp
b_cap=$LAB_CAP_PID
lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"

both=(--cc "$cc" --tcp-info)
[ "$mode" = rr ] && both+=(--rounds "$rounds" --resp-size "$resp" --nodelay)
sopts=("${both[@]}" --app-log "$out/server.log")
[ "$rate" = line ] || sopts+=(--pacing-rate "$rate")
rc=0
lab_transfer "$LAB_NS_A" "$srv" "$LAB_NS_B" "$cli" "$secs" "$mode" "$bytes" "${sopts[@]}" \
	-- "${both[@]}" --app-log "$out/client.log" || rc=$?
[ "$rc" -eq 0 ] || lab_log "lab-peer transfer failed (status $rc)"

{
	capture_stop "$a_cap"
	a_packets=$LAB_CAP_PACKETS a_drops=$LAB_CAP_DROPS
	capture_stop "$b_cap" 0
	b_packets=$LAB_CAP_PACKETS b_drops=$LAB_CAP_DROPS
	capture_stop "$nflog_cap" 0
	nflog_packets=$LAB_CAP_PACKETS nflog_drops=$LAB_CAP_DROPS
} 2>"$out/capture.txt"
cat "$out/capture.txt" >&2
for ns in a b; do
	ns_name=LAB_NS_${ns^^}
	NSTAT_HISTORY="$LAB_TMP/nstat.${!ns_name}" ip netns exec "${!ns_name}" nstat -s \
		>"$out/nstat_$ns.txt" || true
done

# seq syn tcp_hdr_len ip.id tsval ip.len ip.hdr_len ipv6.plen of each A -> B
# segment. The payload length comes from the IP header: tshark's tcp.len of
# an NFLOG copy counts only the 120 bytes copied.
fields=(-T fields -e tcp.seq_raw -e tcp.flags.syn -e tcp.hdr_len -e ip.id
	-e tcp.options.timestamp.tsval -e ip.len -e ip.hdr_len -e ipv6.plen)
for f in a b dropped; do
	tshark -n -r "$out/$f.pcap" -Y "$src_filter && tcp.srcport==$SPORT" "${fields[@]}" \
		2>/dev/null >"$LAB_TMP/$f.tsv" || true
done
nflog_all=$(tshark -n -r "$out/dropped.pcap" -T fields -e frame.number 2>/dev/null | wc -l)

{
	echo "drops=$(lab_nft_counter "$LAB_NS_R")"
	echo "nflog_packets=$nflog_packets"
	python3 - "$LAB_TMP/a.tsv" "$LAB_TMP/b.tsv" "$LAB_TMP/dropped.tsv" "$nflog_all" <<'PY'
# Capture-side truth: A's send order is a.pcap; a data segment is a
# retransmission when its bytes overlap bytes sent before it.
import sys

M = 2**32


def rows(path):
    for line in open(path):
        seq, syn, hl, ipid, tsval, iplen, ihl, plen = (line.rstrip("\n").split("\t")
                                                       + [""] * 8)[:8]
        hl = int(hl)
        ln = int(iplen) - int(ihl) - hl if iplen else int(plen) - hl
        yield int(seq), ln, syn in ("1", "True"), hl, ipid, tsval


def data(path):
    isn, out = None, []
    for seq, ln, syn, hl, ipid, tsval in rows(path):
        if syn:
            isn = seq
        elif ln > 0:
            out.append((seq, ln, hl, ipid, tsval))
    return isn, out


isn, a = data(sys.argv[1])
_, b = data(sys.argv[2])
_, dropped = data(sys.argv[3])
if isn is None and a:
    isn = min(s for s, *_ in a) - 1

covered = []  # merged [lo, hi) ranges of bytes sent so far (relative)
retx = retx_bytes = inel = 0
is_retx = {}  # (seq, len, ipid, tsval) -> retransmission flags, in order
for seq, ln, hl, ipid, tsval in a:
    lo = (seq - isn) % M
    hi = lo + ln
    again = any(x < hi and lo < y for x, y in covered)
    retx += again
    retx_bytes += ln if again else 0
    inel += hl != 32
    is_retx.setdefault((seq, ln, ipid, tsval), []).append(again)
    covered.append([lo, hi])
    covered.sort()
    merged = []
    for x, y in covered:
        if merged and x <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], y)
        else:
            merged.append([x, y])
    covered = merged

d_retx = unmatched = 0
for seq, ln, hl, ipid, tsval in dropped:
    flags = is_retx.get((seq, ln, ipid, tsval))
    if not flags:
        unmatched += 1
        continue
    d_retx += flags.pop(0)
print(f"dropped_data={len(dropped)}")
print(f"dropped_other={int(sys.argv[4]) - len(dropped)}")
print(f"dropped_retx={d_retx}")
print(f"dropped_unmatched={unmatched}")
print(f"a_data_segments={len(a)}")
print(f"b_data_segments={len(b)}")
print(f"data_balance={len(a) - len(dropped) - len(b)}")
print(f"a_data_ineligible={inel}")
print(f"retx_data_segments={retx}")
print(f"retx_data_bytes={retx_bytes}")
PY
	for c in TcpRetransSegs TcpExtTCPLossProbes TcpExtTCPTimeouts TcpExtTCPFastRetrans \
		TcpExtTCPSlowStartRetrans TcpExtTCPDSACKRecv TcpExtTCPSpuriousRTOs \
		TcpExtTCPSackRecovery TcpExtTCPLostRetransmit TcpExtTCPSACKReorder \
		TcpExtTCPLossProbeRecovery TcpOutSegs; do
		echo "a_$c=$(lab_nstat "$LAB_NS_A" "$c")"
	done
	for c in TcpExtTCPOFOQueue TcpExtTCPDSACKOldSent TcpExtDelayedACKs; do
		echo "b_$c=$(lab_nstat "$LAB_NS_B" "$c")"
	done
	for side in server client; do
		sed -n 's/^lab-peer tcp_info: //p' "$out/$side.err" | tr ' ' '\n' |
			sed "/=/!d; s/^/${side}_/"
	done
	echo "a_cap_packets=$a_packets"
	echo "a_cap_drops=$a_drops"
	echo "b_cap_packets=$b_packets"
	echo "b_cap_drops=$b_drops"
	echo "nflog_cap_drops=$nflog_drops"
	for x in "a:$LAB_NS_A:$LAB_IF_A" "ra:$LAB_NS_R:$LAB_IF_RA" "rb:$LAB_NS_R:$LAB_IF_RB" \
		"b:$LAB_NS_B:$LAB_IF_B"; do
		IFS=: read -r tag ns dev <<<"$x"
		for s in rx_dropped tx_dropped; do
			echo "${tag}_$s=$(lab_link_stat "$ns" "$dev" "$s")"
		done
	done
	echo "family=$family"
	echo "loss=$loss"
	echo "loss_ppm=$ppm"
	echo "drop_pattern=$drop_pattern"
	echo "seed=$seed"
	echo "cc=$cc"
	echo "bytes=$bytes"
	echo "rate=$rate"
	echo "mode=$mode"
	echo "rounds=$rounds"
	echo "resp_size=$resp"
	echo "rps=$rps"
	echo "status=$rc"
} >"$out/truth.txt"

grep -hv 'tcp_info:' "$out/server.err" "$out/client.err" | sed 's/^/  /' >&2 || true
echo "loss-run: $mode ${loss}% $cc IPv$family, status $rc -> $out"
[ "$rc" -eq 0 ] || exit 1
exit 0
