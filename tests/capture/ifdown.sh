#!/usr/bin/env bash
# ifdown.sh TCPSIFT [LAB_PEER] - the interface goes away under a running
# capture: tcpsift stops with one clear error line and exit 3, and the file
# it leaves is complete and holds every packet it says it wrote.
#
# lab_pair (offloads off, IPv6 off), a paced download A -> B running, two
# cases captured on B's end:
#   down:    one socket; `ip link set B down` after 1.5 s. libpcap 1.10
#            swallows the kernel's ENETDOWN (the socket is unhooked and
#            would silently see nothing), so this is tcpsift's own check.
#   deleted: --fanout 2 --fanout-mode hash (two readers must both end);
#            `ip link del` on B's end after 1.5 s (the kernel first takes it
#            down, so "went down" or "disappeared" are both right; the
#            latter is libpcap's wording, capitalised).
# Checks, for each: exit 3 within 5 s; exactly one "capture stopped: ...
# IF: the interface (went down|disappeared)" line; tshark reads the file to
# the end without complaint; its count = tcpsift's "written" > 0; analyze
# finds the download's connection.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-ifdown tshark python3 ethtool -- "$@"
lab_require_capture
RATE=${IFDOWN_RATE:-4M}

# ifdown_case NAME ACTION [CAPTURE_ARGS...]: one capture, ended by ACTION
# ("down" or "del") on B's end. Appends "NAME: ..." to RESULT.
RESULT=()
ifdown_case()
{
	local name=$1 action=$2 cap rc t0 dt nerr n written conns
	shift 2

	lab_pair "cdn$name" 1500 1
	lab_pair_ipv6_off
	lab_pair_offloads_off
	cap="$LAB_TMP/$name.pcapng"
	lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -w "$cap" "$@" ||
		lab_abort "$name: tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
	# Longer than the capture lives; killed by the cleanup.
	lab_downloads 1 64M 30 --pacing-rate "$RATE"
	sleep 1.5
	t0=$(date +%s.%N)
	if [ "$action" = down ]; then
		ip -n "$LAB_NS_B" link set "$LAB_IF_B" down
	else
		ip -n "$LAB_NS_B" link del "$LAB_IF_B"
	fi
	lab_tcpsift_wait
	rc=$LAB_TCAP_RC
	dt=$(python3 -c "import time; print(f'{time.time() - $t0:.1f}')")

	lab_check "$name: tcpsift exited $rc (want 3)" "$rc" -eq 3
	lab_check "$name: it took $dt s to stop (want < 5)" \
		"$(python3 -c "print(int($dt < 5))")" -eq 1
	nerr=$(grep -ciE "capture stopped: $LAB_IF_B: the interface (went down|disappeared)" \
		"$LAB_TCAP_LOG" || true)
	lab_check "$name: $nerr 'interface went down' lines (want 1): $(grep -i 'tcpsift capture:' \
		"$LAB_TCAP_LOG" | head -n 2 | tr '\n' ' ')" "$nerr" -eq 1
	n=$(lab_pcap_read "$cap") || lab_fail "$name: tshark could not read the file to its end"
	written=$(lab_tcpsift_count written)
	lab_check "$name: tshark read $n packets, tcpsift wrote ${written:-?}" "$n" -eq "${written:--1}"
	lab_check "$name: no packet written" "$n" -gt 0
	conns="?"
	"$LAB_BIN" analyze --json --no-progress "$cap" >"$LAB_TMP/$name.json" 2>/dev/null &&
		conns=$(lab_json "$LAB_TMP/$name.json" summary.connections 2>/dev/null)
	lab_check "$name: analyze found $conns connections (want 1)" "$conns" = 1
	RESULT+=("$name: exit $rc (3) after $dt s, error lines $nerr (1), file $n packets = written ${written:-?}, $conns connection")
	lab_reset
}

ifdown_case down down
ifdown_case deleted del --fanout 2 --fanout-mode hash

lab_verdict "${RESULT[0]}; ${RESULT[1]}"
