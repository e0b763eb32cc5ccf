#!/usr/bin/env bash
# http-run.sh - one HTTP download (python3 -m http.server -> curl
# --limit-rate) on a lab_pair, with curl's, the kernel's and the sending
# socket's own ground truth next to the capture: the reader (curl's rate
# limit, a small receive buffer) is what limits the sender, and the sender's
# tcp_info chrono counters (via ss) say so. Not a scenario (no verdict;
# run.sh does not run it): a tool to produce and keep material.
#
#   tests/lab/http-run.sh OUTDIR -- [--family 4|6] [--bytes N]
#       [--limit-rate R] [--rcvbuf N] [--rps MASK|off]
#
#   --family      4 (server 10.0.0.1:8000, client 10.0.0.2, default) or 6
#                 ([fd00::1]:8000, fd00::2)
#   --bytes N     the file's size (default 50M; K/M/G = x1024)
#   --limit-rate R  curl --limit-rate R (default 20M: bytes/s, K/M/G = x1024)
#   --rcvbuf N    B's net.ipv4.tcp_rmem becomes "4096 N N" (curl has no
#                 socket-buffer option; the sysctl is per namespace and holds
#                 for IPv6 too): N caps the receive buffer, autotuning
#                 included. Default: the namespace's default tcp_rmem.
#   --rps MASK    rps_cpus of B's veth (rx-0), default 1 (CPU 0); off: leave
#                 RPS off. A veth hands each frame to the backlog of the CPU
#                 that sent it: an unpaced sender transmitting from both
#                 CPUs (process context, ACK softirq) reorders its own
#                 frames on the way to B (seen: hundreds of TCPOFOQueue at B
#                 and as many spurious retransmissions, all D-SACKed, with
#                 no drop anywhere); one RPS CPU makes B's input one FIFO.
#
# Topology: lab_pair (A 10.0.0.1 / fd00::1 <-veth-> B 10.0.0.2 / fd00::2),
# offloads (checksum, TSO, GSO, GRO) off on both veths, RPS on B's veth
# (--rps). A file of N zero bytes (sparse) in the lab temp dir;
# `python3 -m http.server 8000 -b ADDR` in A, run from that dir (HTTP/1.0:
# the server closes after the response); in B `curl -s -o /dev/null
# --limit-rate R http://ADDR:8000/file`; tcpdump -s 128 on B's veth (filter
# tcp). While curl runs, `ss -Htin state connected '( sport = :8000 )'`
# samples the server's socket in A every 100 ms. The sockets' congestion
# control is the namespace default (bbr on this kernel: see sender_cc).
#
# OUTDIR gets (created; files of an earlier run are overwritten):
#   cap.pcap       the capture (B side)
#   ss.txt         the ss samples, each after a "sample EPOCH_S" line
#   server.log     http.server's output (one line per request)
#   curl.err       curl's stderr
#   nstat_a.txt, nstat_b.txt  every non-zero nstat delta in A / B
#   capture.txt    tcpdump's own summary lines
#   truth.txt      key=value lines:
#     size_download speed_download time_total  curl's -w values (bytes,
#                    bytes/s, s); client_port: curl's local port
#     curl_status    curl's exit status
#     a_COUNTER      nstat deltas in A (the sender): TcpRetransSegs
#                    TcpExtTCPLossProbes TcpExtTCPTimeouts TcpExtTCPDSACKRecv
#                    TcpExtTCPSACKReorder
#     b_COUNTER      nstat deltas in B (the receiver): TcpExtDelayedACKs
#                    TcpExtTCPToZeroWindowAdv TcpExtTCPFromZeroWindowAdv
#                    TcpExtTCPWantZeroWindowAdv TcpExtTCPOFOQueue
#                    TcpExtTCPZeroWindowDrop TcpExtTCPRcvQDrop
#                    (TCPOFOQueue and TCPSACKReorder without any drop: the
#                    unpaced sender's frames reordered on the veth, sent
#                    from both CPUs; see spray-run.sh)
#     b_tcp_rmem     B's net.ipv4.tcp_rmem during the run (min default max)
#     sender_busy_ms, sender_rwnd_limited_ms, sender_rwnd_limited_pct,
#     sender_sndbuf_limited_ms, sender_sndbuf_limited_pct  the last ss
#                    sample of the server's socket that shows "busy:": the
#                    kernel's tcpi_busy_time / tcpi_rwnd_limited /
#                    tcpi_sndbuf_limited (ss prints the limited ones only
#                    when non-zero: 0 then); up to 100 ms before the end
#     sender_cc      the server socket's congestion control (ss; the
#                    namespace default, bbr here)
#     sender_state   that sample's socket state; sender_sample_t its time
#                    (epoch s); ss_samples: samples that saw the socket
#     cap_packets, cap_drops  tcpdump's count and kernel drops
#     a_rx_dropped a_tx_dropped b_rx_dropped b_tx_dropped  the veths' drops
#     family bytes limit_rate rcvbuf rps status
#
# Exit 0 when curl fetched the whole file (the files are written in any case
# as far as the run got), 1 when it did not, 2 usage, 77 no root / tools.
# Everything created (namespaces, veths, processes, temp dir with the file)
# is removed on exit by the lab_cleanup trap of common.sh.
#
# Example:
#   tests/lab/http-run.sh /tmp/http -- --bytes 20M --limit-rate 5M --rcvbuf 65536
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

usage()
{
	echo "usage: http-run.sh OUTDIR -- [--family 4|6] [--bytes N] [--limit-rate R]" \
		"[--rcvbuf N] [--rps MASK|off]" >&2
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

PORT=8000

[ $# -ge 1 ] || usage
out=$1
shift
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || usage
	shift
fi
family=4 bytes=50M limit=20M rcvbuf="" rps=1
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--family) family=$2 ;;
	--bytes) bytes=$2 ;;
	--limit-rate) limit=$2 ;;
	--rcvbuf) rcvbuf=$2 ;;
	--rps) rps=$2 ;;
	*) usage ;;
	esac
	shift 2
done
case $family in 4 | 6) ;; *) usage ;; esac
[ -z "$rcvbuf" ] || [[ $rcvbuf =~ ^[0-9]+$ ]] || usage
[ "$rps" = off ] || [[ $rps =~ ^[0-9a-fA-F,]+$ ]] || usage

lab_require_root
for t in tcpdump ethtool nstat python3 curl ss numfmt; do
	command -v "$t" >/dev/null || {
		echo "SKIP http-run: needs $t"
		exit 77
	}
done
nbytes=$(numfmt --from=iec "$bytes") || usage
rate=$(numfmt --from=iec "$limit") || usage
[ "$rate" -gt 0 ] || usage
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/{cap.pcap,ss.txt,server.log,curl.err,capture.txt,truth.txt,nstat_a.txt,nstat_b.txt}
# curl's time bound: twice the rate-limited transfer time, plus 30 s.
secs=$((2 * nbytes / rate + 30))
export LAB_BG_TIMEOUT=$((secs + 30))

lab_pair http
lab_pair_offloads_off
if [ "$family" = 4 ]; then
	sip=$LAB_IP4_A url="http://$LAB_IP4_A:$PORT/file"
else
	sip=$LAB_IP6_A url="http://[$LAB_IP6_A]:$PORT/file"
fi
[ -z "$rcvbuf" ] ||
	ip netns exec "$LAB_NS_B" sysctl -qw net.ipv4.tcp_rmem="4096 $rcvbuf $rcvbuf"
[ "$rps" = off ] ||
	ip netns exec "$LAB_NS_B" sh -c "echo $rps >/sys/class/net/$LAB_IF_B/queues/rx-0/rps_cpus"

www="$LAB_TMP/www"
mkdir "$www"
truncate -s "$nbytes" "$www/file"
# shellcheck disable=SC2016 # $1..$3 belong to the inner sh
lab_bg "$LAB_NS_A" sh -c 'cd "$1" && exec python3 -m http.server -b "$2" "$3"' sh \
	"$www" "$sip" "$PORT" >"$out/server.log" 2>&1
srv=$LAB_LAST_PID
lab_wait_listen "$LAB_NS_A" "$PORT" || exit 1

lab_capture_start "$LAB_NS_B" tcpdump -n -i "$LAB_IF_B" -s 128 -w "$out/cap.pcap" tcp
lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"
# shellcheck disable=SC2016 # $1 belongs to the inner sh
lab_bg "$LAB_NS_A" sh -c 'while :; do
		echo "sample $(date +%s.%N)"
		ss -Htin state connected "( sport = :$1 )"
		sleep 0.1
	done' sh "$PORT" >"$out/ss.txt"
sampler=$LAB_LAST_PID

crc=0
res=$(lab_run "$LAB_NS_B" "$secs" curl -s -o /dev/null --limit-rate "$limit" \
	-w '%{size_download} %{speed_download} %{time_total} %{local_port}\n' "$url" \
	2>"$out/curl.err") || crc=$?
read -r size speed ttotal cport <<<"${res:-"0 0 0 0"}"
# One more sample after the end (the socket may be gone by then).
sleep 0.2
lab_kill "$sampler"
_lab_forget_pid "$sampler"
lab_kill "$srv"
_lab_forget_pid "$srv"
capture_stop "$LAB_CAP_PID" 2>"$out/capture.txt"
cat "$out/capture.txt" >&2

rc=0
if [ "$crc" -ne 0 ] || [ "$size" != "$nbytes" ]; then
	rc=1
fi
for ns in a b; do
	ns_name=LAB_NS_${ns^^}
	NSTAT_HISTORY="$LAB_TMP/nstat.${!ns_name}" ip netns exec "${!ns_name}" nstat -s \
		>"$out/nstat_$ns.txt" || true
done
{
	echo "size_download=$size"
	echo "speed_download=$speed"
	echo "time_total=$ttotal"
	echo "client_port=$cport"
	echo "curl_status=$crc"
	for c in TcpRetransSegs TcpExtTCPLossProbes TcpExtTCPTimeouts TcpExtTCPDSACKRecv \
		TcpExtTCPSACKReorder; do
		echo "a_$c=$(lab_nstat "$LAB_NS_A" "$c")"
	done
	for c in TcpExtDelayedACKs TcpExtTCPToZeroWindowAdv TcpExtTCPFromZeroWindowAdv \
		TcpExtTCPWantZeroWindowAdv TcpExtTCPOFOQueue TcpExtTCPZeroWindowDrop \
		TcpExtTCPRcvQDrop; do
		echo "b_$c=$(lab_nstat "$LAB_NS_B" "$c")"
	done
	# The last sample with "busy:" (ss -i prints the tcp_info chrono
	# counters as busy:Nms rwnd_limited:Nms(P%) sndbuf_limited:Nms(P%)).
	awk '
		/^sample / { t = $2; next }
		/^[A-Z][A-Z0-9-]+ / { state = $1; next }
		/busy:/ {
			n++; lt = t; ls = state; busy = rw = rwp = sb = sbp = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^busy:/) { v = $i; sub(/^busy:/, "", v); busy = v + 0 }
				if ($i ~ /^rwnd_limited:/) {
					split(substr($i, 14), a, /ms\(|%\)/); rw = a[1] + 0; rwp = a[2] + 0
				}
				if ($i ~ /^sndbuf_limited:/) {
					split(substr($i, 16), a, /ms\(|%\)/); sb = a[1] + 0; sbp = a[2] + 0
				}
			}
		}
		END {
			printf "sender_busy_ms=%s\nsender_rwnd_limited_ms=%s\n", n ? busy : "", n ? rw : ""
			printf "sender_rwnd_limited_pct=%s\n", n ? rwp : ""
			printf "sender_sndbuf_limited_ms=%s\nsender_sndbuf_limited_pct=%s\n", n ? sb : "", n ? sbp : ""
			printf "sender_state=%s\nsender_sample_t=%s\nss_samples=%d\n", ls, lt, n
		}' "$out/ss.txt"
	echo "sender_cc=$(awk '/busy:/ { cc = $1 } END { print cc }' "$out/ss.txt")"
	echo "b_tcp_rmem=$(ip netns exec "$LAB_NS_B" sysctl -n net.ipv4.tcp_rmem | tr -s '\t ' ' ')"
	echo "cap_packets=$LAB_CAP_PACKETS"
	echo "cap_drops=$LAB_CAP_DROPS"
	for s in rx_dropped tx_dropped; do
		echo "a_$s=$(lab_link_stat "$LAB_NS_A" "$LAB_IF_A" "$s")"
		echo "b_$s=$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" "$s")"
	done
	echo "family=$family"
	echo "bytes=$bytes"
	echo "limit_rate=$limit"
	echo "rcvbuf=$rcvbuf"
	echo "rps=$rps"
	echo "status=$rc"
} >"$out/truth.txt"

echo "http-run: $bytes at $limit IPv$family, curl $crc, $size bytes -> $out"
exit "$rc"
