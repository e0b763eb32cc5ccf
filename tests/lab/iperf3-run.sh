#!/usr/bin/env bash
# iperf3-run.sh - one iperf3 TCP test on a lab_pair, with iperf3's and the
# kernel's own ground truth next to the capture. The point of the material:
# iperf3's control connection carries nothing for the S seconds the test
# runs (application think time, not a stall) while its data connection is
# busy. Not a scenario (no verdict; run.sh does not run it): a tool to
# produce and keep material.
#
#   tests/lab/iperf3-run.sh OUTDIR -- [--family 4|6] [--seconds S]
#       [--rps MASK|off]
#
#   --family     4 (client 10.0.0.1 -> server 10.0.0.2:5201, default) or 6
#                (fd00::1 -> [fd00::2]:5201)
#   --seconds S  iperf3 -c -t S (default 3)
#   --rps MASK   rps_cpus of B's veth (rx-0), default 1 (CPU 0); off: leave
#                RPS off. A veth hands each frame to the backlog of the CPU
#                that sent it, so a sender transmitting from both CPUs can
#                reorder its own frames on the way to B (see http-run.sh);
#                one RPS CPU makes B's input one FIFO.
#
# Topology: lab_pair (A 10.0.0.1 / fd00::1 <-veth-> B 10.0.0.2 / fd00::2),
# offloads (checksum, TSO, GSO, GRO) off on both veths, RPS on B's veth
# (--rps). `iperf3 -s -1`
# (one test, then exit) in B bound to B's address; `iperf3 -c -t S -b 200M
# -J` in A bound to A's address: one TCP stream A -> B at 200 Mbit/s
# (iperf3's own pacing; unpaced with offloads off a veth can overflow).
# tcpdump -s 128 on B's veth (filter tcp).
#
# OUTDIR gets (created; files of an earlier run are overwritten):
#   cap.pcap       the capture (B side)
#   iperf3.json    the client's -J output
#   server.log     the server's output (text, --forceflush)
#   client.err     the client's stderr (iperf3 -J puts its errors in the JSON)
#   nstat_a.txt, nstat_b.txt  every non-zero nstat delta in A / B
#   capture.txt    tcpdump's own summary lines
#   truth.txt      key=value lines:
#     ctrl_tuple, data_tuple  CLIENT_IP:PORT>SERVER_IP:5201 of the control
#                    and the data connection (the first and second SYN from
#                    A in the capture; the data one checked against
#                    iperf3.json start.connected[0])
#     ctrl_cport, data_cport  their client ports
#     data_tuple_json  the data connection as iperf3.json says it
#     duration_s     end.sum_sent.seconds (the test's duration)
#     bytes          end.sum_sent.bytes (sent); bytes_received:
#                    end.sum_received.bytes
#     retransmits    end.sum_sent.retransmits (the sender's, from tcp_info)
#     bits_per_second  end.sum_sent.bits_per_second
#     sender_cc      end.sender_tcp_congestion (the namespace default)
#     ctrl_packets, data_packets  packets of each connection in the capture
#     ctrl_max_gap_ms  the longest time between consecutive packets of the
#                    control connection in the capture, ctrl_gap_start its
#                    start (epoch s): the think time, about S * 1000
#     data_first, data_last  epoch s of the data connection's first and
#                    last packet in the capture
#     a_COUNTER / b_COUNTER  nstat deltas in A (sender) / B (receiver):
#                    TcpRetransSegs TcpExtTCPLossProbes TcpExtTCPTimeouts
#                    TcpExtDelayedACKs TcpExtTCPDSACKRecv TcpExtTCPSACKReorder
#                    TcpExtTCPOFOQueue
#     cap_packets, cap_drops  tcpdump's count and kernel drops
#     a_rx_dropped a_tx_dropped b_rx_dropped b_tx_dropped  the veths' drops
#     family seconds rate rps status (iperf3 client's exit status)
#
# Exit 0 when the test succeeded (the files are written in any case as far
# as the run got), 1 when it failed, 2 usage, 77 no root / tools.
# Everything created (namespaces, veths, processes, temp dir) is removed on
# exit by the lab_cleanup trap of common.sh.
#
# Example:
#   tests/lab/iperf3-run.sh /tmp/iperf -- --seconds 5 --family 6
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

usage()
{
	echo "usage: iperf3-run.sh OUTDIR -- [--family 4|6] [--seconds S] [--rps MASK|off]" >&2
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

PORT=5201 RATE=200M

[ $# -ge 1 ] || usage
out=$1
shift
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || usage
	shift
fi
family=4 seconds=3 rps=1
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--family) family=$2 ;;
	--seconds) seconds=$2 ;;
	--rps) rps=$2 ;;
	*) usage ;;
	esac
	shift 2
done
case $family in 4 | 6) ;; *) usage ;; esac
[[ $seconds =~ ^[1-9][0-9]*$ ]] || usage
[ "$rps" = off ] || [[ $rps =~ ^[0-9a-fA-F,]+$ ]] || usage

lab_require_root
for t in tcpdump tshark ethtool nstat iperf3 python3; do
	command -v "$t" >/dev/null || {
		echo "SKIP iperf3-run: needs $t"
		exit 77
	}
done
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/{cap.pcap,iperf3.json,server.log,client.err,capture.txt,truth.txt} \
	"$out"/{nstat_a.txt,nstat_b.txt}
export LAB_BG_TIMEOUT=$((seconds + 60))

lab_pair iperf
lab_pair_offloads_off
[ "$rps" = off ] ||
	ip netns exec "$LAB_NS_B" sh -c "echo $rps >/sys/class/net/$LAB_IF_B/queues/rx-0/rps_cpus"
if [ "$family" = 4 ]; then
	cip=$LAB_IP4_A sip=$LAB_IP4_B
else
	cip=$LAB_IP6_A sip=$LAB_IP6_B
fi

lab_capture_start "$LAB_NS_B" tcpdump -n -i "$LAB_IF_B" -s 128 -w "$out/cap.pcap" tcp
lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"
lab_bg "$LAB_NS_B" iperf3 -s -1 -B "$sip" -p "$PORT" --forceflush >"$out/server.log" 2>&1
srv=$LAB_LAST_PID
lab_wait_listen "$LAB_NS_B" "$PORT" || exit 1
rc=0
lab_run "$LAB_NS_A" $((seconds + 30)) iperf3 -c "$sip" -B "$cip" -p "$PORT" -t "$seconds" \
	-b "$RATE" -J >"$out/iperf3.json" 2>"$out/client.err" || rc=$?
[ "$rc" -eq 0 ] || lab_log "iperf3 client failed (status $rc)"
lab_wait "$srv" || lab_log "iperf3 server exited $?"
capture_stop "$LAB_CAP_PID" 2>"$out/capture.txt"
cat "$out/capture.txt" >&2
for ns in a b; do
	ns_name=LAB_NS_${ns^^}
	NSTAT_HISTORY="$LAB_TMP/nstat.${!ns_name}" ip netns exec "${!ns_name}" nstat -s \
		>"$out/nstat_$ns.txt" || true
done

{
	python3 - "$out/iperf3.json" <<'PY' || true
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print(f"iperf3-run: no usable {sys.argv[1]}: {e}", file=sys.stderr)
    sys.exit(0)
end = doc.get("end", {})
sent, rcvd = end.get("sum_sent", {}), end.get("sum_received", {})
def host(h):
    return f"[{h}]" if ":" in h else h


for c in doc.get("start", {}).get("connected", [])[:1]:
    print(f"data_tuple_json={host(c['local_host'])}:{c['local_port']}>"
          f"{host(c['remote_host'])}:{c['remote_port']}")
print(f"duration_s={sent.get('seconds', '')}")
print(f"bytes={sent.get('bytes', '')}")
print(f"bytes_received={rcvd.get('bytes', '')}")
print(f"retransmits={sent.get('retransmits', '')}")
print(f"bits_per_second={sent.get('bits_per_second', '')}")
print(f"sender_cc={end.get('sender_tcp_congestion', '')}")
PY
	# time, client port, SYN-only flag of every packet from/to PORT.
	tshark -n -r "$out/cap.pcap" -Y "tcp.port==$PORT" -T fields -e frame.time_epoch \
		-e tcp.srcport -e tcp.dstport -e tcp.flags 2>/dev/null |
		python3 -c '
import sys
port, cip, sip = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if ":" in cip:
    cip, sip = f"[{cip}]", f"[{sip}]"
times, order = {}, []
for line in sys.stdin:
    t, sp, dp, flags = line.split("\t")
    cport = int(sp) if int(dp) == port else int(dp)
    if int(dp) == port and int(flags, 16) & 0x12 == 0x02 and cport not in order:
        order.append(cport)
    times.setdefault(cport, []).append(float(t))
for name, i in (("ctrl", 0), ("data", 1)):
    if i >= len(order):
        continue
    p = order[i]
    ts = sorted(times[p])
    print(f"{name}_tuple={cip}:{p}>{sip}:{port}")
    print(f"{name}_cport={p}")
    print(f"{name}_packets={len(ts)}")
    if name == "ctrl":
        gap, start = max(((b - a, a) for a, b in zip(ts, ts[1:])), default=(0.0, ts[0]))
        print(f"ctrl_max_gap_ms={gap * 1000:.3f}")
        print(f"ctrl_gap_start={start:.6f}")
    else:
        print(f"data_first={ts[0]:.6f}")
        print(f"data_last={ts[-1]:.6f}")
' "$PORT" "$cip" "$sip" || true
	for c in TcpRetransSegs TcpExtTCPLossProbes TcpExtTCPTimeouts TcpExtDelayedACKs \
		TcpExtTCPDSACKRecv TcpExtTCPSACKReorder TcpExtTCPOFOQueue; do
		echo "a_$c=$(lab_nstat "$LAB_NS_A" "$c")"
		echo "b_$c=$(lab_nstat "$LAB_NS_B" "$c")"
	done
	echo "cap_packets=$LAB_CAP_PACKETS"
	echo "cap_drops=$LAB_CAP_DROPS"
	for s in rx_dropped tx_dropped; do
		echo "a_$s=$(lab_link_stat "$LAB_NS_A" "$LAB_IF_A" "$s")"
		echo "b_$s=$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" "$s")"
	done
	echo "family=$family"
	echo "seconds=$seconds"
	echo "rate=$RATE"
	echo "rps=$rps"
	echo "status=$rc"
} >"$out/truth.txt"

echo "iperf3-run: ${seconds}s IPv$family, status $rc -> $out"
[ "$rc" -eq 0 ] || exit 1
exit 0
