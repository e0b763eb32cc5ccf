#!/usr/bin/env bash
# findings-stall-nodelay.sh TCPSIFT [LAB_PEER] - control for
# findings-stall-nagle.sh: the same write-write-read rounds with TCP_NODELAY.
#
# lab_pair; lab-peer rr, 60 rounds, requests of 100 + 100 bytes in two
# writes, responses of 1000 bytes, the client with --nodelay: both halves of
# a request leave at once, the server answers at once, its answer carries
# the ACK. tcpdump on the server's veth.
# Ground truth: no sender waits for anything; the server's nstat
# TcpExtDelayedACKs delta is reported (a delayed ACK nobody waited for is
# not a stall).
# Checks: zero stalls of any class; 60 rounds seen (request segments = 120).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init stall-nodelay tcpdump ethtool python3 -- "$@"
ROUNDS=60

lab_pair snodel
lab_pair_offloads_off
lab_nstat_reset "$LAB_NS_B"
cap="$LAB_TMP/b.pcap" json="$LAB_TMP/b.json"
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$cap" tcp
lab_transfer "$LAB_NS_B" "$LAB_IP4_B:7101" "$LAB_NS_A" "$LAB_IP4_A:40711" 30 rr 0 \
	--rounds "$ROUNDS" --req-size 200 --resp-size 1000 -- \
	--rounds "$ROUNDS" --req-size 200 --req-split 100 --resp-size 1000 --nodelay ||
	lab_abort "lab-peer rr failed"
lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
delacks=$(lab_nstat "$LAB_NS_B" TcpExtDelayedACKs)

read -r nconn stalls stall_time c2s_data < <(lab_values "$json" summary.connections \
	connections.0.stalls.count connections.0.stalls.time_s connections.0.c2s.data_packets) ||
	lab_abort "no usable report from tcpsift"

lab_check "connections $nconn != 1" "$nconn" = 1
lab_check "request segments $c2s_data != $((2 * ROUNDS))" "$c2s_data" -eq $((2 * ROUNDS))
lab_check "stalls $stalls != 0" "$stalls" -eq 0
lab_verdict "stalls $stalls (0), stall time ${stall_time} s, request segments $c2s_data" \
	"($((2 * ROUNDS))), server TcpExtDelayedACKs $delacks (ACKs nobody waited for)"
