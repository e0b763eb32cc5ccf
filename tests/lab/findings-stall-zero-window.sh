#!/usr/bin/env bash
# findings-stall-zero-window.sh TCPSIFT [LAB_PEER] - a receiver that stops
# reading: one zero_window stall.
#
# lab_pair; lab-peer bulk, the client sends 256 KiB; the server has an 8 KiB
# receive buffer, stops reading after 32 KiB and resumes 1500 ms later
# (--rcvbuf 8K --stop-reading-after 32K --resume-after 1500). Its window
# closes; the client probes (Linux: zero-window probes on the RTO backoff)
# until the server's window update. tcpdump on the server's veth.
#
# Ground truth, independent of tcpsift: the server's nstat
# TcpExtTCPToZeroWindowAdv / TcpExtTCPFromZeroWindowAdv deltas (windows it
# closed and reopened), and from the capture (tshark fields) the time from
# the server's first zero-window advertisement to its first non-zero window
# after it.
# Checks: zero_window stalls == TcpExtTCPFromZeroWindowAdv (>= 1), in c2s,
# the longest within 10 % of the closed period measured by tshark, starting
# at the first zero-window frame; the probes inside it make no other stall
# of their own (no stall of another class overlaps it; delayed_ack ones come
# before it: as the buffer
# fills, the window-limited sender waits for ACKs the receiver delays).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init stall-zero-window tcpdump tshark ethtool python3 -- "$@"

within() { [ $((100 * ($1 > $2 ? $1 - $2 : $2 - $1))) -le $(($3 * $2)) ]; }

lab_pair szw
lab_pair_offloads_off
lab_nstat_reset "$LAB_NS_B"
cap="$LAB_TMP/b.pcap" json="$LAB_TMP/b.json"
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$cap" tcp
lab_transfer "$LAB_NS_B" "$LAB_IP4_B:7103" "$LAB_NS_A" "$LAB_IP4_A:40713" 30 bulk 262144 \
	--rcvbuf 8K --stop-reading-after 32K --resume-after 1500 -- --pacing-rate 20M ||
	lab_abort "lab-peer bulk failed"
lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json"
[ -z "${STALL_KEEP_DIR:-}" ] || cp "$cap" "$json" "$STALL_KEEP_DIR/"
to_zw=$(lab_nstat "$LAB_NS_B" TcpExtTCPToZeroWindowAdv)
from_zw=$(lab_nstat "$LAB_NS_B" TcpExtTCPFromZeroWindowAdv)

# The server's windows in capture order: first zero -> first non-zero after.
read -r zw_ms zw_frame < <(python3 - <(tshark -n -r "$cap" -Y "ip.src == $LAB_IP4_B" \
	-T fields -e frame.number -e frame.time_epoch -e tcp.window_size_value \
	-e tcp.flags.syn 2>/dev/null) <<'PY'
import sys
start = None
for line in open(sys.argv[1]):
    f = line.split("\t")
    if len(f) < 4 or f[3].strip() in ("1", "True"):
        continue
    n, t, w = int(f[0]), float(f[1]), int(f[2])
    if w == 0 and start is None:
        start = (n, t)
    elif w > 0 and start is not None:
        print(int((t - start[1]) * 1000), start[0])
        break
else:
    print(0, 0)
PY
) || lab_abort "no ground truth from tshark"

read -r zw zw_c2s dack other dur first < <(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["events"] if e["type"] == "stall"]
zw = [e for e in ev if e["class"] == "zero_window"]
top = max(zw, key=lambda e: e["duration_s"]) if zw else None
dack = sum(e["class"] == "delayed_ack" for e in ev)
# Other stalls that overlap the zero-window period: the probes inside it
# must not make stalls of their own. (A stall elsewhere, e.g. the sender
# descheduled on a loaded machine, is a different, real event.)
def overlaps(e, z):
    return e["ts"] < z["ts"] + z["duration_s"] and z["ts"] < e["ts"] + e["duration_s"]
other = sum(e["class"] not in ("zero_window", "delayed_ack") and top is not None and
            overlaps(e, top) for e in ev)
print(len(zw), sum(e["dir"] == "c2s" for e in zw), dack, other,
      int(top["duration_s"] * 1000) if top else 0, top["frames"][0] if top else 0)
PY
) || lab_abort "no usable report from tcpsift"

lab_check "server TcpExtTCPToZeroWindowAdv $to_zw: the window never closed" "$to_zw" -gt 0
lab_check "zero_window stalls $zw != TcpExtTCPFromZeroWindowAdv $from_zw" "$zw" -eq "$from_zw"
lab_check "zero_window in c2s $zw_c2s != $zw" "$zw_c2s" -eq "$zw"
lab_check "zero_window stall ${dur} ms not within 10 % of ${zw_ms} ms closed (tshark)" \
	"$(within "$dur" "$zw_ms" 10 && echo y)" = y
lab_check "zero_window stall starts at frame $first, first zero window at $zw_frame" \
	"$first" -eq "$zw_frame"
lab_check "$other stalls inside the zero window neither zero_window nor delayed_ack" \
	"$other" -eq 0
lab_verdict "zero_window stalls $zw (TcpExtTCPFromZeroWindowAdv $from_zw, ToZeroWindowAdv $to_zw)," \
	"${dur} ms from frame $first (tshark: window 0 for ${zw_ms} ms from frame $zw_frame)," \
	"delayed_ack before it $dack, other stalls inside it $other (0)"
