#!/usr/bin/env bash
# sigint.sh TCPSIFT [LAB_PEER] - SIGINT in the middle of heavy traffic: tcpsift
# capture exits 0 and everything it counted is in a valid file.
#
# lab_pair with 2 queues (offloads off, IPv6 off); FLOWS unpaced downloads
# A -> B (as fast as the 2 CPUs go, full frames) captured on B's veth with
# `--fanout 2` (two readers, two hand-off queues to drain). SIGINT arrives
# after SECS s while the flows still run; the flows are ended afterwards.
# The flows end by themselves PEER_SECS s after they start, so a tcpsift that
# does not stop until the traffic does is seen (and the file stays bounded).
# Checks: exit 0 within STOP_MAX s of the signal (the readers retire the open
# TPACKET_V3 block, then drain what the kernel ring and the hand-off queues
# hold: seconds, not until the traffic ends); capinfos (wiretap, as tshark,
# without dissecting millions of packets) reads the file to the end, the last
# record complete and the ISBs after it; the exit summary adds up:
# packets in the file == "written" == "captured" - "dropped by tcpsift" -
# "not written" (nothing taken from the kernel is lost silently on the way
# out); the ISBs written at close carry the final counters: isb_ifrecv summed
# == "received by filter", isb_osdrop summed == "dropped by kernel" +
# "dropped by tcpsift"; tcpsift analyze reads the file (capture_drops not
# null). Drops themselves are allowed here (counted, reported), not checked.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-sigint capinfos python3 ethtool -- "$@"
lab_require_capture
FLOWS=${SIGINT_FLOWS:-4} SECS=${SIGINT_SECS:-2} STOP_MAX=${SIGINT_STOP_MAX:-5}
PEER_SECS=$((SECS + STOP_MAX + 5))

lab_pair csig 1500 2
lab_pair_ipv6_off
lab_pair_offloads_off
cap="$LAB_TMP/sigint.pcapng" json="$LAB_TMP/sigint.json"

lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" --fanout 2 -w "$cap" ||
	lab_abort "tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
lab_downloads "$FLOWS" 64G "$PEER_SECS"
peers=("${LAB_DL_PIDS[@]}")
rx0=$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" rx_packets)
sleep "$SECS"
# SIGINT with the flows still running: count them and the rate at that moment.
running=0
for p in "${peers[@]}"; do
	kill -0 "$p" 2>/dev/null && running=$((running + 1))
done
rx1=$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" rx_packets)
lab_tcpsift_stop INT 0
for p in "${peers[@]}"; do
	lab_kill "$p" || true # (under set -e its failing kill -KILL would end us)
	_lab_forget_pid "$p"
done
rate=$(((rx1 - rx0) / (SECS > 0 ? SECS : 1)))

lab_check "tcpsift exited $LAB_TCAP_RC after SIGINT (want 0)" "$LAB_TCAP_RC" -eq 0
lab_check "tcpsift took $LAB_TCAP_STOP_S s to exit after SIGINT (want <= $STOP_MAX)" \
	"$LAB_TCAP_STOP_S" -le "$STOP_MAX"
lab_check "only $running of $((2 * FLOWS)) lab-peers still ran at SIGINT: not during traffic" \
	"$running" -eq $((2 * FLOWS))
lab_tcpsift_file "$cap"
lab_check "packets in the file $n != tcpsift's written $written" "$n" -eq "$written"
lab_check "captured $captured - dropped by tcpsift $ours - not written $unwritten != written $written" \
	$((captured - ours - unwritten)) -eq "$written"
lab_check "tcpsift wrote no packet" "$written" -gt 0

if lab_tcpsift_isb "$cap" "$json"; then
	lab_check "analyze read $a_pkts packets, the file holds $n" "$a_pkts" -eq "$n"
	lab_check "analyze: capture_drops is null (no ISB read)" "$a_drops" != null
	lab_check "ISBs: isb_ifrecv sum $isb_recv != received by filter ${recv:-?}" \
		"$isb_recv" = "${recv:-?}"
	lab_check "ISBs: isb_osdrop sum $isb_os != kernel $kdrops + tcpsift $ours drops" \
		"$isb_os" = $((kdrops + ours))
else
	lab_fail "tcpsift analyze exited non-zero: $(head -n 2 "$LAB_TMP/analyze.err")"
	a_drops="?" isb_recv="?" isb_os="?"
fi

lab_verdict "exit $LAB_TCAP_RC (0) in $LAB_TCAP_STOP_S s at ~$rate pkt/s; file $n packets" \
	"(valid $valid) = written $written = captured $captured - ours $ours - unwritten" \
	"$unwritten; kernel drops $kdrops; ISB ifrecv $isb_recv (recv ${recv:-?}), osdrop" \
	"$isb_os ($((kdrops + ours))); capture_drops $a_drops (not null)"
