#!/usr/bin/env bash
# findings-loss-capture.sh TCPSIFT [LAB_PEER] - capture loss: a starved
# capture misses packets that the receiver still ACKs; tcpsift must say the
# capture (not the network) lost them, and estimate how many.
#
# lab_pair A <-> B; B downloads from A, unpaced on a veth with offloads off.
# Two captures on B's veth at once: a reference with a large buffer and the
# tested one, starved (tcpdump -B 1 -s 96 writing through a slow pipe).
# Ground truth: data segments of A present in the reference but missing from
# the starved capture (compared by TCP sequence number) below the highest
# ACK the starved capture holds (above it the data left no trace), the reference's own
# drops (must be 0) and tcpdump's "dropped by kernel" for the starved one.
# Checks: tcpsift's s2c unseen segment estimate (capture_loss_segments) is
# within 10 % of the missing data segments, acked_unseen > 0, and the
# reference capture shows no capture loss at all (control).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init loss-capture tcpdump tshark ethtool python3 -- "$@"
BYTES=$((60 * 1000 * 1000))

lab_pair flc
lab_pair_offloads_off
ref="$LAB_TMP/ref.pcap" starved="$LAB_TMP/starved.pcap"
ref_json="$LAB_TMP/ref.json" json="$LAB_TMP/starved.json"

lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -B 65536 -s 96 -w "$ref" tcp
ref_pid=$LAB_CAP_PID
# The starved capture: the smallest ring libpcap allows and a reader slowed
# by a pipe into a deliberately slow consumer, so the ring overflows.
lab_capture_starved "$LAB_NS_B" "$LAB_IF_B" "$starved"
sink=$LAB_STARVED_SINK
starved_pid=$LAB_CAP_PID

lab_transfer "$LAB_NS_A" "$LAB_IP4_A:5001" "$LAB_NS_B" "$LAB_IP4_B:40001" 30 download "$BYTES"

lab_capture_stop "$starved_pid" || true
st_drops=$LAB_CAP_DROPS st_packets=$LAB_CAP_PACKETS
lab_wait "$sink" || true
lab_capture_stop "$ref_pid" 0 || true
ref_drops=$LAB_CAP_DROPS
lab_analyze "$starved" "$json"
lab_analyze "$ref" "$ref_json"

# Ground truth: A's data segments in the reference missing from the starved
# capture (sequence numbers are unique per original segment; retransmissions
# are counted once, as tcpsift's byte-based estimate does), up to the highest
# ACK from B the starved capture holds. Beyond it the starved capture has no
# trace of the data at all (when it lost the transfer's tail, ACKs and FIN
# included, up to 1 060 segments here), so no passive analyzer can count it;
# those are reported apart ("tail").
read -r missing tail < <(python3 - "$ref" "$starved" <<'PY'
import subprocess, sys
def rows(f, flt, *fields):
    args = ["tshark", "-n", "-r", f, "-Y", flt, "-T", "fields"]
    for x in fields:
        args += ["-e", x]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    return [tuple(int(v) for v in line.split()) for line in out.splitlines() if line.strip()]
data = "tcp.srcport == 5001 && tcp.len > 0"
ref = rows(sys.argv[1], data, "tcp.seq_raw", "tcp.len")
starved = {seq for seq, _ in rows(sys.argv[2], data, "tcp.seq_raw", "tcp.len")}
# Raw numbers relative to the reference's first data byte (mod 2^32: they may wrap).
base = ref[0][0] if ref else 0
rel = lambda v: (v - base) % (1 << 32)
acks = [rel(a) for (a,) in rows(sys.argv[2], "tcp.srcport == 40001 && tcp.flags.ack == 1",
                                  "tcp.ack_raw")]
top = max((a for a in acks if a < (1 << 31)), default=0)
lost = {seq: rel(seq) + n for seq, n in ref if seq not in starved}
known = sum(1 for end in lost.values() if end <= top)
print(known, len(lost) - known)
PY
)

p=connections.0
read -r est au ub < <(lab_values "$json" summary.findings.capture_loss_segments \
	$p.s2c.acked_unseen $p.s2c.unseen_bytes) ||
	lab_abort "no usable report from tcpsift"
read -r ref_est ref_au < <(lab_values "$ref_json" summary.findings.capture_loss_segments \
	$p.s2c.acked_unseen) || lab_abort "no usable report for the reference capture"

lab_harness "reference capture dropped $ref_drops packets" "$ref_drops" -eq 0
lab_check "the starved capture lost nothing (tcpdump: $st_drops dropped)" "$missing" -gt 0
lab_check "reference shows capture loss $ref_est / acked_unseen $ref_au (control)" \
	"$ref_est" -eq 0
lab_check "acked_unseen 0 on the starved capture" "$au" -gt 0
within=$(awk -v a="$est" -v b="$missing" 'BEGIN { d = a - b; if (d < 0) d = -d;
	print (b > 0 && d <= 0.1 * b) ? "yes" : "no" }')
lab_check "capture_loss_segments $est not within 10 % of $missing missing data segments" \
	"$within" = yes
lab_verdict "capture_loss_segments $est (missing data segments $missing below the last ACK" \
	"seen, within 10 %: $within; $tail more in the unseen tail;" \
	"tcpdump dropped $st_drops of $((st_packets + st_drops)) packets), acked_unseen $au," \
	"unseen_bytes $ub; reference: capture loss $ref_est (0), drops $ref_drops (0)"
