#!/usr/bin/env bash
# findings-stall-nagle.sh TCPSIFT [LAB_PEER] - Nagle + delayed ACK stalls on
# the real Linux TCP stack.
#
# lab_pair; lab-peer rr, 60 rounds: the client writes each 200-byte request
# in two writes (100 + 100, write-write-read) with Nagle on; the server
# answers 1000 bytes. Nagle holds the second 100 bytes until the first is
# ACKed, and the server delays that ACK (Linux: 40 ms minimum). tcpdump on
# the server's veth.
#
# Ground truth, independent of tcpsift: the server's nstat TcpExtDelayedACKs
# delta (delayed-ACK timer expiries: each one is an ACK the client waited
# for). Linux quick-ACKs at the start of a connection, so the first rounds
# do not stall (LAB-NOTES).
# Checks: delayed_ack stalls within 10 % of TcpExtDelayedACKs (and > 0), no
# other class, every ACK delay 30-60 ms (the 40 ms cluster: the histogram's
# delack_40ms bucket holds them all), all in c2s (the client's data).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init stall-nagle tcpdump ethtool python3 -- "$@"
ROUNDS=60

within() { [ $((100 * ($1 > $2 ? $1 - $2 : $2 - $1))) -le $(($3 * $2)) ]; }

lab_pair snagle
lab_pair_offloads_off
lab_nstat_reset "$LAB_NS_B"
cap="$LAB_TMP/b.pcap" json="$LAB_TMP/b.json"
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$cap" tcp
lab_transfer "$LAB_NS_B" "$LAB_IP4_B:7100" "$LAB_NS_A" "$LAB_IP4_A:40710" 30 rr 0 \
	--rounds "$ROUNDS" --req-size 200 --resp-size 1000 -- \
	--rounds "$ROUNDS" --req-size 200 --req-split 100 --resp-size 1000 ||
	lab_abort "lab-peer rr failed"
lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
delacks=$(lab_nstat "$LAB_NS_B" TcpExtDelayedACKs)

read -r n dack other c2s dmin dmed dmax bucket40 < <(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["events"] if e["type"] == "stall"]
da = [e for e in ev if e["class"] == "delayed_ack"]
delays = sorted(e["ack_delay_s"] * 1000 for e in da) or [0]
c = d["connections"][0]["stalls"]
print(len(ev), len(da), len(ev) - len(da), sum(e["dir"] == "c2s" for e in da),
      "%.1f" % delays[0], "%.1f" % delays[len(delays) // 2], "%.1f" % delays[-1],
      c["clusters"]["delack_40ms"])
PY
) || lab_abort "no usable report from tcpsift"

lab_check "server TcpExtDelayedACKs is 0: no delayed ACK to find" "$delacks" -gt 0
lab_check "delayed_ack stalls $dack not within 10 % of TcpExtDelayedACKs $delacks" \
	"$(within "$dack" "$delacks" 10 && echo y)" = y
lab_check "$other stalls of another class" "$other" -eq 0
lab_check "delayed_ack stalls in c2s $c2s != $dack" "$c2s" -eq "$dack"
lab_check "ACK delays ${dmin}-${dmax} ms outside 30-60 ms" \
	"$(python3 -c "print('y' if 30 <= $dmin and $dmax <= 60 else 'n')")" = y
lab_check "40 ms cluster $bucket40 != $dack" "$bucket40" -eq "$dack"
lab_verdict "delayed_ack stalls $dack (server TcpExtDelayedACKs $delacks, $ROUNDS rounds)," \
	"ACK delay min/median/max $dmin/$dmed/$dmax ms, 40 ms cluster $bucket40, other classes $other (0)"
