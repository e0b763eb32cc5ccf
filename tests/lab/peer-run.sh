#!/usr/bin/env bash
# peer-run.sh - one lab-peer transfer on a lab_pair, with the application's
# and the kernel's own ground truth next to the capture. Not a scenario (no
# verdict; run.sh does not run it): a tool to produce and keep material.
#
#   tests/lab/peer-run.sh [-6] [-t SECS] [-a TCPSIFT] OUTDIR LAB_PEER MODE BYTES \
#       [SERVER_OPT...] [-- CLIENT_OPT...]
#
#   -6         IPv6 (server [fd00::2]:7201, client [fd00::1]:40721); default
#              IPv4 (10.0.0.2:7201, 10.0.0.1:40721)
#   -t SECS    lab-peer --timeout (default 30; the client is killed after
#              SECS + 5 s, background processes after SECS + 30 s)
#   -a TCPSIFT also run `TCPSIFT analyze` on the capture: OUTDIR/report.json
#              (--json --no-progress) and OUTDIR/report.txt (text report)
#   MODE BYTES lab-peer -m MODE -n BYTES on both ends (lab_transfer)
#   SERVER_OPTs go to the server, CLIENT_OPTs (after --) to the client; both
#   always get --tcp-info and --app-log.
#
# Topology: lab_pair (A 10.0.0.1 / fd00::1 <-veth-> B 10.0.0.2 / fd00::2),
# offloads off on both veths; the lab-peer server runs in B, the client in A;
# tcpdump -s 128 on B's veth (filter tcp).
#
# OUTDIR gets (it is created; files of an earlier run are overwritten):
#   cap.pcap                 the capture (B side)
#   server.log, client.log   the lab-peer --app-log files (CLOCK_REALTIME ns)
#   server.err, client.err   the lab-peer stderr lines (tcp_info, summary)
#   capture.txt              tcpdump's own summary lines
#   truth.txt                key=value lines:
#     a_COUNTER / b_COUNTER  nstat deltas over the run in namespace A / B for
#                            TcpExtDelayedACKs TcpExtTCPLossProbes
#                            TcpExtTCPTimeouts TcpRetransSegs
#                            TcpExtTCPDSACKRecv TcpExtTCPZeroWindowDrop
#                            TcpExtTCPToZeroWindowAdv
#                            TcpExtTCPFromZeroWindowAdv
#                            TcpExtTCPWantZeroWindowAdv
#     a_rx_dropped ...       the veths' drop counters (a_/b_ rx/tx_dropped)
#     cap_packets, cap_drops tcpdump's count and kernel drops
#     server_KEY, client_KEY the "lab-peer tcp_info:" line of each side
#     mode, bytes, family, server_opts, client_opts, server_addr, client_addr
#   report.json, report.txt  with -a
#
# Exit 0 when both lab-peer ends succeeded (the files are written in any case
# as far as the run got), 1 when the transfer failed, 2 usage, 77 no root /
# tools. Everything created (namespaces, veths, processes, temp dir) is
# removed on exit by the lab_cleanup trap of common.sh.
#
# Examples:
#   tests/lab/peer-run.sh /tmp/rr build/rel/tests/tools/lab-peer rr 0 \
#       --rounds 12 --nodelay -- --rounds 12 --nodelay --think 5,40,200
#   tests/lab/peer-run.sh -t 150 /tmp/slow build/rel/tests/tools/lab-peer \
#       download 8M -- --rcvbuf 16384 --read-size 4096 --read-every 50
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

usage()
{
	echo "usage: peer-run.sh [-6] [-t SECS] [-a TCPSIFT] OUTDIR LAB_PEER MODE BYTES" \
		"[SERVER_OPT...] [-- CLIENT_OPT...]" >&2
	exit 2
}

family=4 secs=30 tcpsift=""
while getopts 6t:a:h opt; do
	case $opt in
	6) family=6 ;;
	t) secs=$OPTARG ;;
	a) tcpsift=$(realpath "$OPTARG") ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 4 ] || usage
outdir=$1 mode=$3 bytes=$4
LAB_PEER=$(realpath "$2")
shift 4
_lab_split_args "$@"
sopts=("${_LAB_HEAD[@]}")
copts=("${_LAB_TAIL[@]}")
[[ $secs =~ ^[0-9]+$ ]] || usage

lab_require_root
for t in tcpdump ethtool nstat; do
	command -v "$t" >/dev/null || {
		echo "SKIP: needs $t"
		exit 77
	}
done
[ -x "$LAB_PEER" ] || {
	echo "peer-run: no executable lab-peer at $LAB_PEER" >&2
	exit 2
}
mkdir -p "$outdir"
outdir=$(realpath "$outdir")
rm -f "$outdir"/{cap.pcap,server.log,client.log,server.err,client.err,capture.txt} \
	"$outdir"/{truth.txt,report.json,report.txt}

counters=(TcpExtDelayedACKs TcpExtTCPLossProbes TcpExtTCPTimeouts TcpRetransSegs
	TcpExtTCPDSACKRecv TcpExtTCPZeroWindowDrop TcpExtTCPToZeroWindowAdv
	TcpExtTCPFromZeroWindowAdv TcpExtTCPWantZeroWindowAdv)

lab_pair prun
lab_pair_offloads_off
if [ "$family" = 6 ]; then
	saddr="[$LAB_IP6_B]:7201" caddr="[$LAB_IP6_A]:40721"
else
	saddr="$LAB_IP4_B:7201" caddr="$LAB_IP4_A:40721"
fi

# lab_transfer runs "$LAB_PEER server|client ...": a wrapper keeps each
# side's stderr in its own file.
real_peer=$LAB_PEER
LAB_PEER="$LAB_TMP/lab-peer-wrap"
cat >"$LAB_PEER" <<EOF
#!/bin/sh
exec "$real_peer" "\$@" 2>>"$outdir/\$1.err"
EOF
chmod +x "$LAB_PEER"
: >"$outdir/server.err"
: >"$outdir/client.err"

export LAB_BG_TIMEOUT=$((secs + 30))
lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"
lab_capture_start "$LAB_NS_B" tcpdump -n -i "$LAB_IF_B" -s 128 -w "$outdir/cap.pcap" tcp
rc=0
lab_transfer "$LAB_NS_B" "$saddr" "$LAB_NS_A" "$caddr" "$secs" "$mode" "$bytes" \
	--tcp-info --app-log "$outdir/server.log" "${sopts[@]}" -- \
	--tcp-info --app-log "$outdir/client.log" "${copts[@]}" || rc=$?
[ "$rc" -eq 0 ] || lab_log "lab-peer transfer failed (status $rc)"
# The capture's summary goes to our stderr; keep a copy.
lab_capture_stop "$LAB_CAP_PID" 2>"$outdir/capture.txt" || true
cat "$outdir/capture.txt" >&2

{
	echo "mode=$mode"
	echo "bytes=$bytes"
	echo "family=$family"
	echo "server_addr=$saddr"
	echo "client_addr=$caddr"
	echo "server_opts=${sopts[*]}"
	echo "client_opts=${copts[*]}"
	echo "status=$rc"
	echo "cap_packets=$LAB_CAP_PACKETS"
	echo "cap_drops=$LAB_CAP_DROPS"
	for c in "${counters[@]}"; do
		echo "a_$c=$(lab_nstat "$LAB_NS_A" "$c")"
		echo "b_$c=$(lab_nstat "$LAB_NS_B" "$c")"
	done
	for s in rx_dropped tx_dropped; do
		echo "a_$s=$(lab_link_stat "$LAB_NS_A" "$LAB_IF_A" "$s")"
		echo "b_$s=$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" "$s")"
	done
	for side in server client; do
		sed -n 's/^lab-peer tcp_info: //p' "$outdir/$side.err" | tr ' ' '\n' |
			sed "/=/!d; s/^/${side}_/"
	done
} >"$outdir/truth.txt"

if [ -n "$tcpsift" ]; then
	"$tcpsift" analyze --json --no-progress "$outdir/cap.pcap" >"$outdir/report.json" ||
		lab_log "tcpsift analyze --json exited $?"
	"$tcpsift" analyze --no-progress "$outdir/cap.pcap" >"$outdir/report.txt" ||
		lab_log "tcpsift analyze exited $?"
fi

sed 's/^/  /' "$outdir/server.err" "$outdir/client.err" | grep -v 'tcp_info:' >&2 || true
echo "peer-run: $mode $bytes (IPv$family), status $rc, $LAB_CAP_PACKETS packets -> $outdir"
[ "$rc" -eq 0 ] || exit 1
exit 0
