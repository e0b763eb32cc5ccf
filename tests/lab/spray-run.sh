#!/usr/bin/env bash
# spray-run.sh - one download through lab-relay's multipath spraying (--paths):
# heavy reordering A -> B with the relay's exact ground truth next to captures
# taken before and after it. Not a scenario (no verdict; run.sh does not run
# it): a tool to produce and keep material.
#
#   tests/lab/spray-run.sh OUTDIR RELAY LAB_PEER -- [--family 4|6] [--paths N]
#       [--spread-us S] [--base-us B] [--spray random|rr] [--seed S]
#       [--rate RATE|line] [--bytes N] [--cc cubic|reno|bbr] [--timeout SECS]
#
#   RELAY, LAB_PEER  the lab-relay and lab-peer binaries to use
#   --family     4 (10.0.0.1 -> 10.0.0.2, default) or 6 (fd00::1 -> fd00::2)
#   --paths N    relay paths (default 4); --spread-us S (default 300),
#                --base-us B (default 0), --spray (default random), --seed
#                (default 1): passed to lab-relay
#   --rate       line (default): unpaced; otherwise lab-peer --pacing-rate
#                RATE (SO_MAX_PACING_RATE, bytes/s, K/M/G = x1024)
#   --bytes N    download size (default 20M; lab-peer sizes)
#   --cc         TCP_CONGESTION of both sockets (default cubic: the sysctl
#                cannot be set to cubic in a new namespace)
#   --timeout    lab-peer --timeout (default 60)
#
# Topology: lab_relay_pair (A <-> R <-> B, offloads off on all four veths);
# lab-relay in R with --paths; lab-peer server in A sends BYTES (download),
# the client in B reads them. In A tcp_tso_rtt_log=0 and tcp_min_tso_segs=1
# (segments paced one by one, as in findings-reorder-*.sh). RPS steers what
# R reads from A, and what B reads from R, to CPU 0 (see below).
#
# OUTDIR gets (created; files of an earlier run are overwritten):
#   a.pcap, b.pcap   tcpdump -s 128 on A's veth (before the relay) and on B's
#                    veth (after it), filter tcp
#   relay.log        lab-relay --log (one line per A -> B data segment written)
#   relay.err        lab-relay's stderr (its closing summary line)
#   peer.err         the lab-peer ends' stderr
#   truth.txt        key=value lines:
#     the keys of tests/tools/lab-relay-truth.py on relay.log: late copy data
#       across lanes max_extent max_late_us retx, and how late the relay
#       wrote (lag_us_*), how long frames waited in its socket (read_us_*)
#       and how late it wrote once it had read them (lag_read_us_*)
#     relay_KEY      the relay's summary (late unsprayed max_pending
#                    send_errors socket_drops forwarded_ab ...)
#     a_COUNTER      nstat deltas in A: TcpRetransSegs TcpExtTCPDSACKRecv TcpExtTCPDSACKOfoRecv
#                    TcpExtTCPLossProbes TcpExtTCPSACKReorder TcpExtTCPTimeouts
#                    TcpExtTCPFastRetrans TcpExtTCPSpuriousRTOs
#     b_COUNTER      nstat deltas in B: TcpExtTCPOFOQueue TcpExtTCPDSACKOldSent
#                    TcpExtTCPDSACKOfoSent
#     a_cap_packets a_cap_drops b_cap_packets b_cap_drops  tcpdump's counts
#     IF_rx_dropped IF_tx_dropped  for IF in a ra rb b (the four veths)
#     with tshark:
#     a_data b_data  data segments A -> B in a.pcap / b.pcap; a_tsval_repeats
#                    b_tsval_repeats: those carrying the TSval of the data
#                    segment before them in the file
#     mbit_s         BYTES * 8 / (last - first data segment in b.pcap)
#     pre_relay_late data segments the relay read after one that a.pcap shows
#                    leaving A after them: reordering before the relay (on
#                    the A-R veth, e.g. A sending from both CPUs), which the
#                    relay's truth does not hold (0 expected; without the
#                    RPS below a few in some runs);
#                    pre_relay_unmatched: relay log lines not found in a.pcap
#     b_order_mismatch  positions where b.pcap's data segments differ from
#                    the relay's write order (0: B saw what the relay wrote)
#     family paths spread_us base_us spray seed rate bytes cc
#
# Unpaced (--rate line) the relay is the bottleneck: TCP keeps a standing
# queue in the relay's socket (read_us, typically 0.5-2 ms here), frames are
# overdue when read and go out in due order among those read; pace the
# sender below what the relay carries for the configured delays to hold.
#
# Exit 0 when the transfer succeeded (the files are written in any case as
# far as the run got), 1 when it failed, 2 usage, 77 no root / tools.
# Everything created (namespaces, veths, processes, temp dir) is removed on
# exit by the lab_cleanup trap of common.sh.
#
# Example:
#   tests/lab/spray-run.sh /tmp/spray build/rel/tests/tools/lab-relay \
#       build/rel/tests/tools/lab-peer -- --family 6 --paths 8 --spread-us 500
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

usage()
{
	echo "usage: spray-run.sh OUTDIR RELAY LAB_PEER -- [--family 4|6] [--paths N]" \
		"[--spread-us S] [--base-us B] [--spray random|rr] [--seed S]" \
		"[--rate RATE|line] [--bytes N] [--cc NAME] [--timeout SECS]" >&2
	exit 2
}

[ $# -ge 3 ] || usage
out=$1 relay_bin=$2 peer_bin=$3
shift 3
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || usage
	shift
fi
family=4 paths=4 spread=300 base=0 spray=random seed=1 rate=line bytes=20M cc=cubic secs=60
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--family) family=$2 ;;
	--paths) paths=$2 ;;
	--spread-us) spread=$2 ;;
	--base-us) base=$2 ;;
	--spray) spray=$2 ;;
	--seed) seed=$2 ;;
	--rate) rate=$2 ;;
	--bytes) bytes=$2 ;;
	--cc) cc=$2 ;;
	--timeout) secs=$2 ;;
	*) usage ;;
	esac
	shift 2
done
case $family in 4 | 6) ;; *) usage ;; esac

lab_require_root
for t in tcpdump ethtool python3 nstat; do
	command -v "$t" >/dev/null || {
		echo "SKIP spray-run: needs $t"
		exit 77
	}
done
truth_py=$here/../tools/lab-relay-truth.py
LAB_PEER=$(realpath -m "$peer_bin")
relay_bin=$(realpath -m "$relay_bin")
if [ ! -x "$LAB_PEER" ] || [ ! -x "$relay_bin" ]; then
	echo "spray-run: no executable $peer_bin / $relay_bin" >&2
	exit 2
fi
mkdir -p "$out"
out=$(realpath "$out")
export LAB_BG_TIMEOUT=$((secs + 30))

lab_relay_pair spray
ip netns exec "$LAB_NS_A" sysctl -qw net.ipv4.tcp_tso_rtt_log=0 net.ipv4.tcp_min_tso_segs=1
# A veth delivers each frame through the backlog of the CPU that sent it: A
# sending from both CPUs (process context, pacing timer, ACK softirq) can
# reorder its own frames before the relay reads them (seen: 4-8 segments in
# some 100 Mbit/s runs, pre_relay_late below), and a relay that moves to the
# other CPU could do the same before B. RPS to one CPU on R's side of A's
# pair and on B's veth makes each of them one FIFO.
for x in "$LAB_NS_R:$LAB_IF_RA" "$LAB_NS_B:$LAB_IF_B"; do
	ip netns exec "${x%%:*}" sh -c "echo 1 >/sys/class/net/${x#*:}/queues/rx-0/rps_cpus" ||
		lab_log "no RPS on ${x#*:}: frames may be reordered outside the relay"
done
if [ "$family" = 4 ]; then
	srv="$LAB_IP4_A:5001" cli="$LAB_IP4_B:40001" src_filter="ip.src==$LAB_IP4_A"
else
	srv="[$LAB_IP6_A]:5001" cli="[$LAB_IP6_B]:40001" src_filter="ipv6.src==$LAB_IP6_A"
fi

rm -f "$out/relay.log"
lab_bg "$LAB_NS_R" "$relay_bin" -a "$LAB_IF_RA" -b "$LAB_IF_RB" --paths "$paths" \
	--spread-us "$spread" --base-us "$base" --spray "$spray" --seed "$seed" \
	--log "$out/relay.log" --timeout $((secs + 20)) 2>"$out/relay.err"
relay=$LAB_LAST_PID
# The relay writes the log's first line once its sockets are open.
for _ in $(seq 100); do
	[ -s "$out/relay.log" ] && break
	kill -0 "$relay" 2>/dev/null || break
	sleep 0.05
done
[ -s "$out/relay.log" ] || {
	echo "spray-run: lab-relay did not start: $(cat "$out/relay.err")" >&2
	exit 1
}
lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$out/a.pcap" tcp
a_cap=$LAB_CAP_PID
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$out/b.pcap" tcp
b_cap=$LAB_CAP_PID
lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"

sopts=(--cc "$cc")
[ "$rate" = line ] || sopts+=(--pacing-rate "$rate")
rc=0
lab_transfer "$LAB_NS_A" "$srv" "$LAB_NS_B" "$cli" "$secs" download "$bytes" "${sopts[@]}" \
	-- --cc "$cc" 2>"$out/peer.err" || rc=$?

lab_capture_stop "$a_cap" || true
a_packets=$LAB_CAP_PACKETS a_drops=$LAB_CAP_DROPS
lab_capture_stop "$b_cap" 0 || true
b_packets=$LAB_CAP_PACKETS b_drops=$LAB_CAP_DROPS
lab_kill "$relay"
_lab_forget_pid "$relay"

{
	relay_line=$(grep '^lab-relay:' "$out/relay.err" || true)
	for kv in ${relay_line#lab-relay:}; do
		echo "relay_$kv"
	done
	python3 "$truth_py" "$out/relay.log" | tr ' ' '\n' || true
	for c in TcpRetransSegs TcpExtTCPDSACKRecv TcpExtTCPDSACKOfoRecv TcpExtTCPLossProbes TcpExtTCPSACKReorder \
		TcpExtTCPTimeouts TcpExtTCPFastRetrans TcpExtTCPSpuriousRTOs; do
		echo "a_$c=$(lab_nstat "$LAB_NS_A" "$c")"
	done
	for c in TcpExtTCPOFOQueue TcpExtTCPDSACKOldSent TcpExtTCPDSACKOfoSent; do
		echo "b_$c=$(lab_nstat "$LAB_NS_B" "$c")"
	done
	echo "a_cap_packets=$a_packets"
	echo "a_cap_drops=$a_drops"
	echo "b_cap_packets=$b_packets"
	echo "b_cap_drops=$b_drops"
	for x in "a:$LAB_NS_A:$LAB_IF_A" "ra:$LAB_NS_R:$LAB_IF_RA" "rb:$LAB_NS_R:$LAB_IF_RB" \
		"b:$LAB_NS_B:$LAB_IF_B"; do
		IFS=: read -r tag ns dev <<<"$x"
		for s in rx_dropped tx_dropped; do
			echo "${tag}_$s=$(lab_link_stat "$ns" "$dev" "$s")"
		done
	done
	if command -v tshark >/dev/null; then
		for side in a b; do
			# time seq len ip.id tsval flags of each data segment A -> B
			tshark -r "$out/$side.pcap" -Y "tcp.len>0 and $src_filter" -T fields \
				-e frame.time_epoch -e tcp.seq_raw -e tcp.len -e ip.id \
				-e tcp.options.timestamp.tsval -e tcp.flags 2>/dev/null >"$LAB_TMP/$side.tsv"
			awk -F'\t' -v side="$side" -v bytes="$(numfmt --from=iec "$bytes")" '
				NR == 1 { t0 = $1 }
				{ n++; rep += NR > 1 && $5 == prev; prev = $5; t1 = $1 }
				END {
					printf "%s_data=%d\n%s_tsval_repeats=%d\n", side, n, side, rep
					if (side == "b" && t1 > t0)
						printf "mbit_s=%.1f\n", bytes * 8 / (t1 - t0) / 1e6
				}' "$LAB_TMP/$side.tsv" || true
		done
		python3 - "$LAB_TMP/a.tsv" "$LAB_TMP/b.tsv" "$out/relay.log" <<'PY' || true
# The relay's truth holds if A's capture shows the order it read in, and
# B's capture the order it wrote in. Segments are matched on seq, len, IP ID
# (IPv4) and TSval, and the how-manieth copy of those.
import sys


def keyed(rows):
    seen, out = {}, []
    for k in rows:
        seen[k] = seen.get(k, 0) + 1
        out.append(k + (seen[k],))
    return out


def pcap(path):
    rows = []
    for line in open(path):
        t, seq, ln, ipid, tsval, flags = line.rstrip("\n").split("\t")
        if int(flags, 16) & 0x07:  # FIN, SYN, RST: not in the relay's log
            continue
        rows.append((int(seq), int(ln), str(int(ipid, 16)) if ipid else "-", int(tsval or 0)))
    return keyed(rows)


sent = []
for line in open(sys.argv[3]):
    if line.startswith("sent "):
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        sent.append((int(f["order"]), int(f["d"]),
                     (int(f["seq"]), int(f["len"]), f["ipid"], int(f["tsval"]))))
a, b = pcap(sys.argv[1]), pcap(sys.argv[2])
arrived = keyed([k for _, _, k in sorted(sent, key=lambda s: s[1])])
written = keyed([k for _, _, k in sorted(sent)])
pos = {k: i for i, k in enumerate(a)}
late = top = 0
for k in arrived:
    i = pos.get(k, -1)
    late += 0 <= i < top
    top = max(top, i)
print(f"pre_relay_late={late}")
print(f"pre_relay_unmatched={sum(k not in pos for k in arrived)}")
print(f"b_order_mismatch={sum(x != y for x, y in zip(b, written)) + abs(len(b) - len(written))}")
PY
	fi
	echo "family=$family"
	echo "paths=$paths"
	echo "spread_us=$spread"
	echo "base_us=$base"
	echo "spray=$spray"
	echo "seed=$seed"
	echo "rate=$rate"
	echo "bytes=$bytes"
	echo "cc=$cc"
} >"$out/truth.txt"

[ "$rc" -eq 0 ] || {
	echo "spray-run: the transfer failed ($rc): $(tail -n 3 "$out/peer.err")" >&2
	exit 1
}
exit 0
