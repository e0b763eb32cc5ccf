#!/usr/bin/env bash
# foundation-path-rtt.sh TCPSIFT [LAB_PEER] - round-trip times, a bottleneck and random
# loss on an emulated path (lab-relay's path mode), against truths that do
# not come from tcpsift.
#
# lab_relay_pair A <-> R <-> B; tests/tools/lab-relay in R delays, queues
# and drops (lab_relay_path). tcpdump -s 128 on A's veth and on B's veth for
# the whole scenario; every run is one lab-peer download A -> B on its own
# port, with a fresh relay:
#   rtt2, rtt20, rtt80, asym  one-way delays 1/1, 10/10, 40/40 (jitter 1 ms
#             per direction) and 5/35 ms; 300 kB paced at 4 MB/s. Truth: the
#             sender's kernel min_rtt (TCP_INFO, lab-peer --tcp-info) within
#             10 % + 1 ms of the configured RTT; tcpsift's handshake_rtt_s at
#             A and at B within 10 % + 1 ms of it too.
#   rate      20 Mbit/s A -> B, 50-packet queue, 10/10 ms; 3 MB paced at
#             5 MB/s (so slow start overflows the queue). Truth: goodput at
#             the receiving application (--app-log reads, first to last)
#             within 15 % of 19.1 Mbit/s (20 Mbit/s of 1514-byte frames
#             carrying 1448 payload bytes); the relay's logged data-segment queue
#             drops against A's TcpRetransSegs.
#   loss      1 % of A -> B data segments, 10/10 ms; 2 MB paced at 2 MB/s.
#             Truth: the relay's logged loss drops against A's TcpRetransSegs
#             less its spurious ones (TcpExtTCPLossProbes -
#             TcpExtTCPLossProbeRecovery, TcpExtTCPDSACKRecv).
# Retransmissions vs drops: each dropped data segment costs one
# retransmission (a dropped retransmission is a drop again); spurious ones
# (a probe or RTO for a segment that was not lost) come on top, so
# drops <= retrans - spurious + 2 and retrans - spurious <= drops + 10 % + 2.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init path-rtt tcpdump ethtool python3 -- "$@"
[ -x "$(dirname "$LAB_PEER")/lab-relay" ] || {
	echo "SKIP $LAB_NAME: no lab-relay next to $LAB_PEER"
	exit 77
}

# ms US: microseconds as milliseconds, one decimal.
ms() { printf '%d.%d ms' $(($1 / 1000)) $(($1 % 1000 / 100)); }

# near MEASURED_US EXPECTED_US: within 10 % + 1 ms.
near() { [ $((10 * ($1 > $2 ? $1 - $2 : $2 - $1))) -le $(($2 + 10000)) ]; }

lab_relay_pair fpath 1
capa="$LAB_TMP/a.pcap" capb="$LAB_TMP/b.pcap"
lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$capa" tcp
a_cap=$LAB_CAP_PID
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$capb" tcp
b_cap=$LAB_CAP_PID

declare -A PORT KRTT KSRTT RETX SPUR DROPS GOODPUT CONF CAB CBA

# opt_us NAME OPTION...: the value given to NAME among the OPTIONs, or 0.
opt_us()
{
	local name=$1 v=0
	shift
	while [ $# -gt 1 ]; do
		[ "$1" = "$name" ] && v=$2
		shift
	done
	echo "$v"
}
port=5000
# The relay's own error: the longest it wrote a frame after its due time.
RELAY_LATE=0 RELAY_LATE_RUN=none

# run NAME RTT_US BYTES PACING RELAY_OPTION...: one download A -> B through a
# fresh relay; fills the arrays above for NAME.
run()
{
	local name=$1 rtt=$2 bytes=$3 pace=$4 err="$LAB_TMP/$1.peer" alog="$LAB_TMP/$1.app"
	shift 4

	port=$((port + 1))
	PORT[$name]=$port CONF[$name]=$rtt
	# The configured one-way delays, plus half the jitter (its mean).
	CAB[$name]=$(opt_us --delay-ab-us "$@") CBA[$name]=$(opt_us --delay-ba-us "$@")
	CAB[$name]=$((CAB[$name] + $(opt_us --jitter-us "$@") / 2))
	CBA[$name]=$((CBA[$name] + $(opt_us --jitter-us "$@") / 2))
	lab_relay_path "$LAB_TMP/$name.log" "$LAB_TMP/$name.relay" --seed "$port" "$@"
	lab_nstat_reset "$LAB_NS_A"
	lab_transfer "$LAB_NS_A" "$LAB_IP4_A:$port" "$LAB_NS_B" "$LAB_IP4_B:$((40000 + port))" 20 \
		download "$bytes" --tcp-info --pacing-rate "$pace" -- --app-log "$alog" 2>"$err" ||
		lab_abort "$name: transfer failed: $(tail -n 3 "$err")"
	lab_relay_stop "$LAB_RELAY_PID" "$LAB_TMP/$name.relay"
	KRTT[$name]=$(sed -n 's/.*lab-peer tcp_info:.* min_rtt_us=\([0-9]*\).*/\1/p' "$err")
	KSRTT[$name]=$(sed -n 's/.*lab-peer tcp_info:.* rtt_us=\([0-9]*\).*/\1/p' "$err")
	[ -n "${KRTT[$name]}" ] || lab_abort "$name: no tcp_info from the sender: $(cat "$err")"
	RETX[$name]=$(lab_nstat "$LAB_NS_A" TcpRetransSegs)
	SPUR[$name]=$(($(lab_nstat "$LAB_NS_A" TcpExtTCPLossProbes) -
		$(lab_nstat "$LAB_NS_A" TcpExtTCPLossProbeRecovery) +
		$(lab_nstat "$LAB_NS_A" TcpExtTCPDSACKRecv)))
	DROPS[$name]=$(awk '/^drop / && / dir=ab / && / data=1 / { n++ } END { print n + 0 }' \
		"$LAB_TMP/$name.log")
	GOODPUT[$name]=$(awk '$1 == "read" { split($2, t, "="); split($3, b, "=");
		if (!f) f = t[2]; l = t[2]; n += b[2] }
		END { if (l > f) printf "%d", n * 8 / ((l - f) / 1e9) / 1e6 * 10; else print 0 }' "$alog")
	lab_check "$name: relay send errors / socket drops / unscheduled" \
		"$(($(lab_relay_value send_errors) + $(lab_relay_value socket_drops) +
			$(lab_relay_value unscheduled)))" -eq 0
	lab_check "$name: relay wrote frames out of order (late $(lab_relay_value late))" \
		"$(lab_relay_value late)" -eq 0
	local late
	for late in "$(lab_relay_value ab_max_late_us)" "$(lab_relay_value ba_max_late_us)"; do
		[ "$late" -le "$RELAY_LATE" ] || RELAY_LATE=$late RELAY_LATE_RUN=$name
	done
	lab_log "$name: $LAB_RELAY_LINE"
}

t0=$SECONDS
run rtt2 2000 300000 4M --delay-ab-us 1000 --delay-ba-us 1000
run rtt20 20000 300000 4M --delay-ab-us 10000 --delay-ba-us 10000
run rtt80 80000 300000 4M --delay-ab-us 40000 --delay-ba-us 40000 --jitter-us 1000
run asym 40000 300000 4M --delay-ab-us 5000 --delay-ba-us 35000
run rate 20000 3000000 5M --delay-ab-us 10000 --delay-ba-us 10000 --rate-ab 20 --queue-pkts 50
rate_q=$(lab_relay_value ab_max_queue) rate_qd=$(lab_relay_value ab_dropped_queue)
run loss 20000 2000000 2M --delay-ab-us 10000 --delay-ba-us 10000 --loss-ab-pct 1
loss_d=$(lab_relay_value ab_dropped_loss)
lab_capture_stop "$a_cap" || lab_fail "tcpdump at A dropped $LAB_CAP_DROPS packets"
lab_capture_stop "$b_cap" 0 || lab_fail "tcpdump at B dropped $LAB_CAP_DROPS packets"
lab_analyze "$capa" "$LAB_TMP/a.json"
lab_analyze "$capb" "$LAB_TMP/b.json"

# port handshake_rtt_us, one line per connection of a report.
hs_rtts()
{
	python3 - "$1" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["connections"]:
    r = c.get("handshake_rtt_s")
    print(c["server"].rsplit(":", 1)[1], -1 if r is None else round(r * 1e6))
PY
}
# port ab_us ba_us: per server port, the median one-way delay of the frames
# both captures hold (same frame: ports, IP ID, seq, ack, flags), A's and
# B's tcpdump stamps being one kernel's clock.
one_way()
{
	python3 - "$1" "$2" <<'PY'
import statistics, struct, sys

def frames(path):
    d = open(path, "rb").read()
    div = 1e9 if struct.unpack("<I", d[:4])[0] == 0xA1B23C4D else 1e6
    off = 24
    while off + 16 <= len(d):
        sec, frac, incl, _ = struct.unpack("<IIII", d[off:off + 16])
        f, off = d[off + 16:off + 16 + incl], off + 16 + incl
        if len(f) < 54 or f[12:14] != b"\x08\x00":
            continue
        th = f[14 + (f[14] & 15) * 4:]
        yield (th[0:4], f[18:20], th[4:14]), sec + frac / div

at_a = {}
for k, t in frames(sys.argv[1]):
    at_a.setdefault(k, t)
ab, ba = {}, {}
for k, t in frames(sys.argv[2]):
    if k in at_a:
        sport, dport = struct.unpack(">HH", k[0])
        if sport < 40000:  # A's server port: A -> B
            ab.setdefault(sport, []).append(t - at_a[k])
        else:
            ba.setdefault(dport, []).append(at_a[k] - t)
for port in sorted(ab):
    print(port, round(statistics.median(ab[port]) * 1e6),
          round(statistics.median(ba.get(port, [0])) * 1e6))
PY
}
declare -A OWAB OWBA
while read -r p x y; do OWAB[$p]=$x OWBA[$p]=$y; done < <(one_way "$capa" "$capb")

declare -A HSA HSB
while read -r p us; do HSA[$p]=$us; done < <(hs_rtts "$LAB_TMP/a.json")
while read -r p us; do HSB[$p]=$us; done < <(hs_rtts "$LAB_TMP/b.json")

table=""
for name in rtt2 rtt20 rtt80 asym; do
	c=${CONF[$name]} k=${KRTT[$name]} a=${HSA[${PORT[$name]}]:--1} b=${HSB[${PORT[$name]}]:--1}
	lab_check "$name: kernel min_rtt $k us not within 10 % + 1 ms of $c" "$(near "$k" "$c" && echo y)" = y
	lab_check "$name: handshake RTT at A $a us not within 10 % + 1 ms of $c" "$(near "$a" "$c" && echo y)" = y
	lab_check "$name: handshake RTT at B $b us not within 10 % + 1 ms of $c" "$(near "$b" "$c" && echo y)" = y
	x=${OWAB[${PORT[$name]}]:--1} y=${OWBA[${PORT[$name]}]:--1}
	lab_check "$name: one-way A -> B $x us not within 10 % + 1 ms of ${CAB[$name]}" \
		"$(near "$x" "${CAB[$name]}" && echo y)" = y
	lab_check "$name: one-way B -> A $y us not within 10 % + 1 ms of ${CBA[$name]}" \
		"$(near "$y" "${CBA[$name]}" && echo y)" = y
	table+="$name $(ms "$c") (one-way $(ms "$x") / $(ms "$y")):"
	table+=" kernel min_rtt $(ms "$k") (srtt $(ms "${KSRTT[$name]}")),"
	table+=" handshake at A $(ms "$a") at B $(ms "$b"); "
done
# The relay's rate counts whole Ethernet frames: 1448 payload bytes of 1514.
g=${GOODPUT[rate]} want=$((200 * 1448 / 1514))
lab_check "rate: goodput $((g / 10)).$((g % 10)) Mbit/s not within 15 % of 19.1" \
	"$(((g > want ? g - want : want - g) * 100 <= 15 * want && 1))" = 1
# retrans_ok NAME: the relay's data drops of NAME against A's retransmissions.
retrans_ok()
{
	local d=${DROPS[$1]} r=$((RETX[$1] - SPUR[$1]))
	[ "$d" -gt 0 ] && [ "$d" -le $((r + 2)) ] && [ "$r" -le $((d + d / 10 + 2)) ]
}
for name in rate loss; do
	lab_check "$name: the relay dropped ${DROPS[$name]} data segments, A retransmitted \
${RETX[$name]} (spurious ${SPUR[$name]})" "$(retrans_ok "$name" && echo y)" = y
done
lab_check "loss: log ${DROPS[loss]} != summary $loss_d" "${DROPS[loss]}" -eq "$loss_d"

lab_verdict "${table}rate 20 Mbit/s: goodput $((g / 10)).$((g % 10)) Mbit/s (19.1), queue drops" \
	"$rate_qd (data ${DROPS[rate]}, max queue $rate_q) vs retrans ${RETX[rate]} - spurious" \
	"${SPUR[rate]}; loss 1 %: drops ${DROPS[loss]} vs retrans ${RETX[loss]} - spurious" \
	"${SPUR[loss]}; relay late by up to $(ms "$RELAY_LATE") ($RELAY_LATE_RUN) ($((SECONDS - t0)) s)"
