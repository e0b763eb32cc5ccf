#!/usr/bin/env bash
# diskfull.sh TCPSIFT [LAB_PEER] - the output file system fills up: tcpsift
# capture stops with one clear error line and exit status 3, the file it
# leaves is valid, and the packets it could not write are counted.
#
# A 2 MiB tmpfs mounted on a private mktemp directory (unmounted on exit);
# lab_pair (offloads off, IPv6 off); B downloads BYTES from A (paced) while
# tcpsift captures full frames on B's veth into the tmpfs, so the disk is
# full after about 1400 packets.
# Checks: tcpsift ends by itself with exit status 3 (CAPTURE_EXIT_ERROR);
# stderr has exactly one line naming the file and "No space left on
# device"; tshark reads the file to the end; tcpsift analyze reads it (same
# packet count); the file holds what the summary says was written; the loss
# is counted: "not written" > 0 and captured == written + dropped by tcpsift
# + not written. ISBs at the end of the file are reported, not required (the
# disk has no room left for them).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-diskfull tshark python3 ethtool -- "$@"
lab_require_capture
BYTES=${DISKFULL_BYTES:-16M} RATE=${DISKFULL_RATE:-4M}

lab_init
mnt=$(mktemp -d /tmp/tcpsift-diskfull.XXXXXX)
# lab_cleanup first: it ends tcpsift, which may still hold the file open.
# shellcheck disable=SC2317 # called by the trap
diskfull_cleanup()
{
	local rc=$?

	lab_cleanup
	umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
	rmdir "$mnt" 2>/dev/null || true
	exit "$rc"
}
trap diskfull_cleanup EXIT
mount -t tmpfs -o size=2m,mode=0700 tcpsift-diskfull "$mnt" || lab_abort "cannot mount a tmpfs on $mnt"

lab_pair cdisk 1500 1
lab_pair_ipv6_off
lab_pair_offloads_off
cap="$mnt/full.pcapng" json="$LAB_TMP/full.json"

lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -w "$cap" ||
	lab_abort "tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
# The transfer outlives the capture; its own result does not matter.
lab_transfer "$LAB_NS_A" "$LAB_IP4_A:5001" "$LAB_NS_B" "$LAB_IP4_B:40001" 20 download \
	"$BYTES" --pacing-rate "$RATE" 2>>"$LAB_TMP/peers.log" || true
lab_tcpsift_wait
rc=$LAB_TCAP_RC

lab_check "tcpsift exited $rc on a full disk (want 3)" "$rc" -eq 3
nerr=$(grep -c 'No space left on device' "$LAB_TCAP_LOG" || true)
errline=$(grep -m 1 'No space left on device' "$LAB_TCAP_LOG" || true)
lab_check "$nerr error lines saying 'No space left on device' (want 1)" "$nerr" -eq 1
[ -z "$errline" ] || [[ $errline == *"$cap"* ]] ||
	lab_fail "the error line does not name the file: $errline"
[ -s "$cap" ] || lab_abort "no capture file left; tcpsift said: $(tail -n 5 "$LAB_TCAP_LOG")"
size=$(stat -c %s "$cap")

tshark_ok=yes
n=$(lab_pcap_read "$cap") || {
	tshark_ok=no
	lab_fail "tshark could not read $cap to the end"
}
a_pkts="?" isb="?"
if "$LAB_BIN" analyze --json --no-progress "$cap" >"$json" 2>"$LAB_TMP/analyze.err"; then
	read -r a_pkts isb < <(lab_values "$json" inputs.0.packets inputs.0.capture_drops)
	lab_check "analyze read $a_pkts packets, tshark $n" "$a_pkts" -eq "$n"
else
	lab_fail "tcpsift analyze exited non-zero: $(head -n 2 "$LAB_TMP/analyze.err")"
fi
captured=$(lab_tcpsift_count captured) written=$(lab_tcpsift_count written)
ours=$(lab_tcpsift_count ours) unwritten=$(lab_tcpsift_count unwritten)
if [ -z "$captured" ] || [ -z "$written" ] || [ -z "$ours" ]; then
	lab_abort "no exit summary from tcpsift: $(tail -n 5 "$LAB_TCAP_LOG")"
fi
unwritten=${unwritten:-0}
lab_check "packets in the file $n != tcpsift's written $written" "$n" -eq "$written"
lab_check "lost packets not counted: 'not written' $unwritten (want > 0)" "$unwritten" -gt 0
lab_check "captured $captured != written $written + ours $ours + not written $unwritten" \
	"$captured" -eq $((written + ours + unwritten))

lab_verdict "exit $rc (3), error lines $nerr (1): ${errline:-none}; file $size bytes," \
	"$n packets (tshark $tshark_ok, analyze $a_pkts) = written $written; not written" \
	"$unwritten (> 0), captured $captured = $((written + ours + unwritten));" \
	"capture_drops $isb (ISBs: not required)"
