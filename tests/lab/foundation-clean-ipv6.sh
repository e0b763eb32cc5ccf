#!/usr/bin/env bash
# foundation-clean-ipv6.sh TCPSIFT [LAB_PEER] - control: a clean IPv6 bulk
# transfer analyzed live from a pipe.
#
# lab_pair A <-> B; A uploads 2 MiB to [fd00::2]:5001 (paced, offloads off).
# tcpdump -s 128 -w - on B's veth feeds `tee SAVED | tcpsift analyze --json -`
# through a FIFO; tcpdump is stopped with SIGTERM (after the TPACKET_V3
# settle time), flushes and exits, so tee and tcpsift see a clean EOF.
#
# Ground truth: A's TcpRetransSegs == 0 and captured == both ends' TcpOutSegs
# (nothing lost or retransmitted), tshark on the saved copy: 0 frames with
# tcp.analysis.flags (but window_update / window_full). Checks: tcpsift exits 0 and read every captured packet,
# 1 connection, state closed, retransmissions/out_of_order/lost_segments/
# acked_unseen 0 both ways, c2s unique_bytes == 2 MiB.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init clean-ipv6 tcpdump tshark ethtool python3 -- "$@"
BYTES=$((2 * 1024 * 1024))

# Setup.
lab_pair fv6
lab_pair_offloads_off
lab_nstat_reset "$LAB_NS_A"
lab_nstat_reset "$LAB_NS_B"
fifo="$LAB_TMP/cap.fifo" saved="$LAB_TMP/b.pcap" json="$LAB_TMP/b.json"
err="$LAB_TMP/tcpsift.err"
mkfifo "$fifo"
# The reader opens the FIFO itself (an open for reading blocks until tcpdump
# opens it for writing, so not in this shell).
# shellcheck disable=SC2016 # expanded by the inner sh
lab_bg "$LAB_NS_B" sh -c 'tee "$1" <"$2" | "$3" analyze --json --no-progress - >"$4" 2>"$5"' \
	sh "$saved" "$fifo" "$LAB_BIN" "$json" "$err"
reader=$LAB_LAST_PID
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w - tcp >"$fifo"
capture=$LAB_CAP_PID

# Traffic: A uploads to B over IPv6.
lab_transfer "$LAB_NS_B" "[$LAB_IP6_B]:5001" "$LAB_NS_A" "[$LAB_IP6_A]:40001" 30 bulk "$BYTES" \
	-- --pacing-rate 20M
lab_capture_stop "$capture" || true
b_packets=$LAB_CAP_PACKETS b_drops=$LAB_CAP_DROPS
# tcpdump is gone: its end of the pipe is closed, the reader must finish.
rrc=0
lab_wait "$reader" || rrc=$?
# (The message is only made on failure: it reads the reader's stderr.)
[ "$rrc" -eq 0 ] || lab_fail "tee | tcpsift exited $rrc: $(head -c 300 "$err")"

# Ground truth.
retrans=$(lab_nstat "$LAB_NS_A" TcpRetransSegs)
want_pk=$(($(lab_nstat "$LAB_NS_A" TcpOutSegs) + $(lab_nstat "$LAB_NS_B" TcpOutSegs)))
saved_pk=$(tshark -n -r "$saved" -T fields -e frame.number 2>/dev/null | wc -l)
# Loss, retransmission and reordering flags; tshark's window_update and
# window_full are flow control, which a clean transfer may show once (a
# receiver's late read on this loaded host: seen once in make check).
t_flagged=$(tshark -n -r "$saved" -Y \
	"tcp.analysis.flags && !tcp.analysis.window_update && !tcp.analysis.window_full" \
	-T fields -e frame.number -e _ws.expert.message 2>/dev/null | tr '\t\n' ': ')
t_flags=$(printf '%s' "$t_flagged" | wc -w)

p=connections.0
read -r nconn pk state c_retx c_ooo c_lost c_au c_uniq s_retx s_ooo s_lost s_au < <(
	lab_values "$json" summary.connections summary.packets $p.state \
		$p.c2s.retransmissions $p.c2s.out_of_order $p.c2s.lost_segments $p.c2s.acked_unseen \
		$p.c2s.unique_bytes $p.s2c.retransmissions $p.s2c.out_of_order $p.s2c.lost_segments \
		$p.s2c.acked_unseen) ||
	lab_abort "no usable JSON from tcpsift (exit $rrc): $(head -c 300 "$err")"

# Is the ground truth itself sound?
lab_harness "tcpdump dropped $b_drops packets" "$b_drops" -eq 0
lab_check "A's TcpRetransSegs $retrans: not a clean transfer" "$retrans" -eq 0
lab_check "captured $b_packets != both ends' TcpOutSegs $want_pk" "$b_packets" -eq "$want_pk"
lab_check "tee's copy has $saved_pk packets, tcpdump $b_packets" "$saved_pk" -eq "$b_packets"

# tcpsift.
lab_check "tcpsift read $pk packets, tcpdump captured $b_packets" "$pk" -eq "$b_packets"
lab_check "connections $nconn != 1" "$nconn" = 1
lab_check "state $state != closed" "$state" = closed
for v in c_retx c_ooo c_lost c_au s_retx s_ooo s_lost s_au; do
	lab_check "$v ${!v} != 0" "${!v}" -eq 0
done
lab_check "c2s unique_bytes $c_uniq != $BYTES" "$c_uniq" -eq "$BYTES"
lab_check "tshark: $t_flags frames with tcp.analysis.flags ($t_flagged)" "$t_flags" -eq 0

lab_verdict "retransmissions $c_retx/$s_retx (TcpRetransSegs $retrans)," \
	"out_of_order $c_ooo/$s_ooo (0), lost_segments $c_lost/$s_lost (0)," \
	"acked_unseen $c_au/$s_au (0), unique_bytes $c_uniq ($BYTES), state $state (closed)," \
	"packets read $pk (tcpdump $b_packets, both ends' TcpOutSegs $want_pk, kernel drops $b_drops)," \
	"tshark analysis flags $t_flags (0), tcpsift exit $rrc"
