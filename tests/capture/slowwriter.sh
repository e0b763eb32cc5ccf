#!/usr/bin/env bash
# slowwriter.sh TCPSIFT [LAB_PEER] - an output slower than the traffic:
# `tcpsift capture -w -` into a pipe that is read at RATE bytes a second
# while FLOWS unpaced downloads run far faster. The writer blocks on the
# pipe, the hand-off queues and the kernel ring fill, and packets are
# dropped: counted, never written half, never a corrupt block.
#
# lab_pair (1 queue, offloads off, IPv6 off); on B: tcpsift capture -i B
# -B 2 (a 2 MiB ring: it fills in a fraction of a second) -w - | a reader
# that copies RATE bytes a second to a file until tcpsift has been signalled,
# then reads to the end at full speed (what tcpsift holds is flushed, not
# waited out at RATE).
# Checks: exit 0 after SIGINT within STOP_MAX s of the reader speeding up;
# the reader fell behind (drops > 0: kernel or tcpsift's own, else the test
# tested nothing); capinfos reads the file to the end; packets in it ==
# "written" == "captured" - "dropped by tcpsift" - "not written"; the ISBs
# at the end carry the drops: isb_osdrop summed == kernel + tcpsift drops,
# isb_ifrecv == "received by filter"; tcpsift analyze reads it with
# capture_drops == that sum.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-slowwriter capinfos python3 ethtool -- "$@"
lab_require_capture
FLOWS=${SLOW_FLOWS:-2} SECS=${SLOW_SECS:-2} RATE=${SLOW_RATE:-262144} STOP_MAX=${SLOW_STOP_MAX:-10}
PEER_SECS=$((SECS + 8))

lab_pair cslow 1500 1
lab_pair_ipv6_off
lab_pair_offloads_off
cap="$LAB_TMP/slow.pcapng" json="$LAB_TMP/slow.json" fifo="$LAB_TMP/out.fifo"
fast="$LAB_TMP/fast" rlog="$LAB_TMP/reader.log"
mkfifo "$fifo"

# The slow reader: RATE bytes a second in 16 KiB reads until $fast exists.
python3 - "$fifo" "$cap" "$fast" "$RATE" >"$rlog" 2>&1 <<'PY' &
import os, sys, time
src, dst, fast, rate = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
n = 0
with open(src, "rb", buffering=0) as i, open(dst, "wb") as o:
    t0 = time.monotonic()
    while True:
        b = i.read(16384)
        if not b:
            break
        o.write(b)
        n += len(b)
        if not os.path.exists(fast):
            late = n / rate - (time.monotonic() - t0)
            if late > 0:
                time.sleep(late)
print("read", n)
PY
reader=$!
LAB_PIDS+=("$reader")
lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -B 2 -w - >"$fifo" ||
	lab_abort "tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
lab_downloads "$FLOWS" 64G "$PEER_SECS"
peers=("${LAB_DL_PIDS[@]}")
sleep "$SECS"
# SIGINT while the writer is blocked on the pipe, then let the reader run.
kill -INT "$LAB_TCAP_PID" 2>/dev/null || true
sleep 0.5
: >"$fast"
lab_tcpsift_stop INT 0
for p in "${peers[@]}"; do
	lab_kill "$p" || true
	_lab_forget_pid "$p"
done
lab_wait "$reader" || lab_fail "the reader failed: $(tail -n 2 "$rlog")"

lab_check "tcpsift exited $LAB_TCAP_RC after SIGINT (want 0)" "$LAB_TCAP_RC" -eq 0
lab_check "tcpsift took $LAB_TCAP_STOP_S s to exit once read at full speed (want <= $STOP_MAX)" \
	"$LAB_TCAP_STOP_S" -le "$STOP_MAX"
lab_tcpsift_file "$cap"
drops=$((kdrops + ours))
lab_check "no packet dropped: the pipe at $RATE B/s kept up, nothing was tested" "$drops" -gt 0
lab_check "packets in the file $n != tcpsift's written $written" "$n" -eq "$written"
lab_check "captured $captured - dropped by tcpsift $ours - not written $unwritten != written $written" \
	$((captured - ours - unwritten)) -eq "$written"

a_drops="?" isb_recv="?" isb_os="?"
if lab_tcpsift_isb "$cap" "$json"; then
	lab_check "analyze read $a_pkts packets, the file holds $n" "$a_pkts" -eq "$n"
	lab_check "analyze: capture_drops $a_drops != $drops" "$a_drops" = "$drops"
	lab_check "ISBs: isb_ifrecv sum $isb_recv != received by filter ${recv:-?}" \
		"$isb_recv" = "${recv:-?}"
	lab_check "ISBs: isb_osdrop sum $isb_os != kernel $kdrops + tcpsift $ours drops" \
		"$isb_os" = "$drops"
else
	lab_fail "tcpsift analyze exited non-zero: $(head -n 2 "$LAB_TMP/analyze.err")"
fi

lab_verdict "exit $LAB_TCAP_RC (0) in $LAB_TCAP_STOP_S s; pipe read at $RATE B/s: file $n" \
	"packets (valid $valid) = written $written = captured $captured - ours $ours - unwritten" \
	"$unwritten; drops kernel $kdrops + tcpsift $ours (> 0); ISB ifrecv $isb_recv (${recv:-?})," \
	"osdrop $isb_os; capture_drops $a_drops"
