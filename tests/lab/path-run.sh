#!/usr/bin/env bash
# path-run.sh - one lab-peer transfer over an emulated path (two lab-relays
# in a row, path mode), captured at three vantage points, with the kernel's,
# the relays' and the applications' own ground truth next to the captures.
# Not a scenario (no verdict): a tool for tests/lab/matrix.py's path cells.
#
#   tests/lab/path-run.sh [-6] [-t SECS] [-s a|b] [-d AB_US/BA_US] [-m MTU]
#       [-I 'M_OPTS'] [-S 'SPRAY_OPTS'] OUTDIR LAB_PEER MODE BYTES
#       [SERVER_OPT...] [-- CLIENT_OPT...]
#
#   -6         IPv6 (fd00::1 / fd00::2); default IPv4 (10.0.0.1 / 10.0.0.2)
#   -t SECS    lab-peer --timeout (default 30; background processes and the
#              relays are bounded by SECS + 30 s)
#   -s a|b     the namespace of the lab-peer server (default a; the client
#              is in the other one). Port 7201 on the server, 40721 on the
#              client.
#   -d AB/BA   one-way delays A -> B and B -> A in us (default 0/0: the
#              relays' own sub-ms latency). Each relay gives half of each
#              direction (R the first half, rounded down; M the rest), so the
#              tap between them sits in the middle of the path both ways.
#   -m MTU     MTU of all six veths (default 1500; up to lab-relay's 9216-byte
#              slots)
#   -I OPTS    more lab-relay path options for M, the half next to B (loss,
#              a bottleneck: "--loss-ab-pct 1", "--rate-ab 20 --queue-pkts
#              50"): downstream of the middle tap, upstream of B. Seeded with
#              --seed 7201 unless OPTS give one.
#   -S OPTS    M sprays A -> B instead (lab-relay paths mode, e.g. "--paths 4
#              --spread-us 500 --spray random"): M's half of A -> B becomes
#              its --base-us, and R carries all of B -> A (paths mode sends
#              B -> A straight through). The reordering happens between the
#              tap and B.
#
# Topology: lab_relay_chain A <-> R <-> M <-> B (common.sh), lab-relay in R
# (-a R's A side, -b R's M side) and in M (-a M's R side, -b M's B side),
# offloads off on all six veths. Captures (tcpdump -s 128 -B 32768, tcp):
#   a.pcap  A's veth             (A's interface: the sender's when -s a and
#                                 the data flows from the server)
#   m.pcap  R's veth towards M    (a tap in the middle of the path)
#   b.pcap  B's veth
#
# OUTDIR gets (created; files of an earlier run are overwritten): the three
# captures; server.log/client.log (lab-peer --app-log), server.err/
# client.err; r.log/r.err, m.log/m.err (the relays' --log and stderr);
# capture.txt; truth.txt, key=value lines:
#   a_COUNTER / b_COUNTER   nstat deltas in A / B (see counters below)
#   server_KEY, client_KEY  each end's "lab-peer tcp_info:" line
#   r_KEY, m_KEY            each relay's closing line (ab_forwarded,
#                           ab_dropped_loss, ab_dropped_queue, ab_max_queue,
#                           ab_max_late_us, ..., late, unscheduled / the
#                           paths mode's late, unsprayed, ...)
#   m_drop_data_ab          data segments A -> B that M's log says it
#                           dropped (loss or queue); m_drop_ab all frames
#   spray_KEY               -S: tests/tools/lab-relay-truth.py on m.log
#                           (late late_orig copy_orig retx max_extent ...)
#   cap_X_packets, cap_X_drops   tcpdump's counts for X in a m b
#   link_drops              rx/tx_dropped summed over the six veths
#   host_steal_ms           CPU time the hypervisor took during the transfer
#   delay_ab_us delay_ba_us rtt_us mtu family server mode bytes status
#   server_opts client_opts m_opts spray_opts
#
# Exit 0 when both lab-peer ends succeeded, 1 when the transfer failed, 2
# usage, 77 no root / tools. Everything created (namespaces, veths,
# processes by pid, the temp dir) is removed on exit by lab_cleanup.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

usage()
{
	echo "usage: path-run.sh [-6] [-t SECS] [-s a|b] [-d AB_US/BA_US] [-m MTU] [-I OPTS]" \
		"[-S OPTS] OUTDIR LAB_PEER MODE BYTES [SERVER_OPT...] [-- CLIENT_OPT...]" >&2
	exit 2
}

family=4 secs=30 server=a delays=0/0 mtu=1500 mopts="" spray=""
while getopts 6t:s:d:m:I:S:h opt; do
	case $opt in
	6) family=6 ;;
	t) secs=$OPTARG ;;
	s) server=$OPTARG ;;
	d) delays=$OPTARG ;;
	m) mtu=$OPTARG ;;
	I) mopts=$OPTARG ;;
	S) spray=$OPTARG ;;
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
[[ $secs =~ ^[0-9]+$ && $mtu =~ ^[0-9]+$ && $delays =~ ^[0-9]+/[0-9]+$ ]] || usage
case $server in a | b) ;; *) usage ;; esac
d_ab=${delays%/*} d_ba=${delays#*/}

lab_require_root
for t in tcpdump ethtool nstat python3; do
	command -v "$t" >/dev/null || {
		echo "SKIP: needs $t"
		exit 77
	}
done
RELAY=$(dirname "$LAB_PEER")/lab-relay
[ -x "$LAB_PEER" ] && [ -x "$RELAY" ] || {
	echo "path-run: no lab-peer / lab-relay at $LAB_PEER" >&2
	exit 2
}
mkdir -p "$outdir"
outdir=$(realpath "$outdir")
rm -f "$outdir"/{a,m,b}.pcap "$outdir"/{server,client}.{log,err} "$outdir"/{r,m}.{log,err} \
	"$outdir"/{capture.txt,truth.txt}

counters=(TcpExtDelayedACKs TcpExtTCPLossProbes TcpExtTCPLossProbeRecovery TcpExtTCPTimeouts
	TcpRetransSegs TcpOutSegs TcpExtTCPFastRetrans TcpExtTCPSlowStartRetrans
	TcpExtTCPDSACKRecv TcpExtTCPDSACKOfoRecv TcpExtTCPSpuriousRTOs TcpExtTCPSackRecovery
	TcpExtTCPSACKReorder TcpExtTCPOFOQueue TcpExtTCPDSACKOldSent TcpExtTCPZeroWindowDrop
	TcpExtTCPToZeroWindowAdv TcpExtTCPFromZeroWindowAdv TcpExtTCPWantZeroWindowAdv
	TcpExtTCPWinProbe TcpExtTCPKeepAlive)

export LAB_BG_TIMEOUT=$((secs + 30))
lab_relay_chain ppath "$mtu"

# R: the first half of each direction; M: the rest, plus -I (or -S).
r_ab=$((d_ab / 2)) r_ba=$((d_ba / 2))
m_ab=$((d_ab - r_ab)) m_ba=$((d_ba - r_ba))
if [ -n "$spray" ]; then
	r_ba=$d_ba
	# shellcheck disable=SC2206 # the options are words
	m_args=(--base-us "$m_ab" $spray)
else
	# shellcheck disable=SC2206
	m_args=(--delay-ab-us "$m_ab" --delay-ba-us "$m_ba" $mopts)
	[[ " $mopts " == *" --seed "* ]] || m_args+=(--seed 7201)
fi
# relay_start NS IF_A IF_B NAME ARGS...: lab-relay in NS, log NAME.log,
# stderr NAME.err; waits until its log has its header (sockets open).
relay_start()
{
	local ns=$1 ia=$2 ib=$3 name=$4 i
	shift 4
	# --rt: the emulated path keeps its schedule however busy the
	# transfer it carries keeps the two cores (truth: max_late_us).
	lab_bg "$ns" "$RELAY" -a "$ia" -b "$ib" --log "$outdir/$name.log" \
		--timeout "$((secs + 25))" --rt 50 "$@" 2>"$outdir/$name.err"
	RELAY_PID=$LAB_LAST_PID
	for i in $(seq 100); do
		grep -q '^# lab-relay' "$outdir/$name.log" 2>/dev/null && return 0
		kill -0 "$RELAY_PID" 2>/dev/null || break
		sleep 0.02
	done
	lab_abort "lab-relay $name did not start: $(cat "$outdir/$name.err")"
}
relay_start "$LAB_NS_R" "$LAB_IF_RA" "$LAB_IF_RM" r --delay-ab-us "$r_ab" --delay-ba-us "$r_ba"
r_pid=$RELAY_PID
relay_start "$LAB_NS_M" "$LAB_IF_MR" "$LAB_IF_MB" m "${m_args[@]}"
m_pid=$RELAY_PID

if [ "$family" = 6 ]; then
	ip_a="[$LAB_IP6_A]" ip_b="[$LAB_IP6_B]"
else
	ip_a=$LAB_IP4_A ip_b=$LAB_IP4_B
fi
if [ "$server" = a ]; then
	sns=$LAB_NS_A saddr="$ip_a:7201" cns=$LAB_NS_B caddr="$ip_b:40721"
else
	sns=$LAB_NS_B saddr="$ip_b:7201" cns=$LAB_NS_A caddr="$ip_a:40721"
fi

# Each side's stderr in its own file (lab_transfer runs "$LAB_PEER server|client").
real_peer=$LAB_PEER
LAB_PEER="$LAB_TMP/lab-peer-wrap"
cat >"$LAB_PEER" <<EOF
#!/bin/sh
exec "$real_peer" "\$@" 2>>"$outdir/\$1.err"
EOF
chmod +x "$LAB_PEER"
: >"$outdir/server.err"
: >"$outdir/client.err"

lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"
lab_capture_start "$LAB_NS_A" tcpdump -n -i "$LAB_IF_A" -s 128 -B 32768 -w "$outdir/a.pcap" tcp
cap_a=$LAB_CAP_PID
lab_capture_start "$LAB_NS_R" tcpdump -n -i "$LAB_IF_RM" -s 128 -B 32768 -w "$outdir/m.pcap" tcp
cap_m=$LAB_CAP_PID
lab_capture_start "$LAB_NS_B" tcpdump -n -i "$LAB_IF_B" -s 128 -B 32768 -w "$outdir/b.pcap" tcp
cap_b=$LAB_CAP_PID
# The host's steal time (lab_steal_ms): a virtual machine whose CPUs the
# hypervisor took away delivers late however the relays are scheduled;
# matrix.py names it when a relay was late.
steal0=$(lab_steal_ms)
rc=0
lab_transfer "$sns" "$saddr" "$cns" "$caddr" "$secs" "$mode" "$bytes" \
	--tcp-info --app-log "$outdir/server.log" "${sopts[@]}" -- \
	--tcp-info --app-log "$outdir/client.log" "${copts[@]}" || rc=$?
[ "$rc" -eq 0 ] || lab_log "lab-peer transfer failed (status $rc)"
steal1=$(lab_steal_ms)
# nstat before the captures settle: the counters are the transfer's.
declare -A NS_VAL
for c in "${counters[@]}"; do
	NS_VAL[a_$c]=$(lab_nstat "$LAB_NS_A" "$c")
	NS_VAL[b_$c]=$(lab_nstat "$LAB_NS_B" "$c")
done
: >"$outdir/capture.txt"
declare -A CAPN CAPD
for x in a:$cap_a m:$cap_m b:$cap_b; do
	# The first stop waits for every capture's tail (TPACKET_V3's timer).
	settle=0
	[ "${x%%:*}" = a ] && settle=2
	lab_capture_stop "${x#*:}" "$settle" 2>>"$outdir/capture.txt" || true
	CAPN[${x%%:*}]=$LAB_CAP_PACKETS CAPD[${x%%:*}]=$LAB_CAP_DROPS
done
lab_relay_stop "$r_pid" "$outdir/r.err"
r_line=$LAB_RELAY_LINE
lab_relay_stop "$m_pid" "$outdir/m.err"
m_line=$LAB_RELAY_LINE
_lab_forget_pid "$r_pid"
_lab_forget_pid "$m_pid"

linkdrops=0
for x in "$LAB_NS_A:$LAB_IF_A" "$LAB_NS_R:$LAB_IF_RA" "$LAB_NS_R:$LAB_IF_RM" \
	"$LAB_NS_M:$LAB_IF_MR" "$LAB_NS_M:$LAB_IF_MB" "$LAB_NS_B:$LAB_IF_B"; do
	for s in rx_dropped tx_dropped; do
		linkdrops=$((linkdrops + $(lab_link_stat "${x%%:*}" "${x#*:}" "$s")))
	done
done

{
	echo "mode=$mode"
	echo "bytes=$bytes"
	echo "family=$family"
	echo "server=$server"
	echo "mtu=$mtu"
	echo "delay_ab_us=$d_ab"
	echo "delay_ba_us=$d_ba"
	echo "rtt_us=$((d_ab + d_ba))"
	echo "server_opts=${sopts[*]}"
	echo "client_opts=${copts[*]}"
	echo "m_opts=$mopts"
	echo "spray_opts=$spray"
	echo "status=$rc"
	echo "link_drops=$linkdrops"
	echo "host_steal_ms=$((steal1 - steal0))"
	for x in a m b; do
		echo "cap_${x}_packets=${CAPN[$x]}"
		echo "cap_${x}_drops=${CAPD[$x]}"
	done
	for k in "${!NS_VAL[@]}"; do
		echo "$k=${NS_VAL[$k]}"
	done
	for side in server client; do
		sed -n 's/^lab-peer tcp_info: //p' "$outdir/$side.err" | tr ' ' '\n' |
			sed "/=/!d; s/^/${side}_/"
	done
	tr ' ' '\n' <<<"${r_line#lab-relay: }" | sed '/=/!d; s/^/r_/'
	tr ' ' '\n' <<<"${m_line#lab-relay: }" | sed '/=/!d; s/^/m_/'
	echo "m_drop_ab=$(awk '/^drop / && / dir=ab / { n++ } END { print n + 0 }' "$outdir/m.log")"
	echo "m_drop_data_ab=$(awk '/^drop / && / dir=ab / && / data=1 / { n++ } END { print n + 0 }' \
		"$outdir/m.log")"
	if [ -n "$spray" ]; then
		python3 "$here/../tools/lab-relay-truth.py" "$outdir/m.log" | tr ' ' '\n' |
			sed '/=/!d; s/^/spray_/'
	fi
} >"$outdir/truth.txt"

sed 's/^/  /' "$outdir/server.err" "$outdir/client.err" | grep -v 'tcp_info:' >&2 || true
echo "path-run: $mode $bytes (IPv$family) over ${d_ab}/${d_ba} us, status $rc," \
	"captured ${CAPN[a]}/${CAPN[m]}/${CAPN[b]} -> $outdir"
[ "$rc" -eq 0 ] || exit 1
exit 0
