#!/usr/bin/env bash
# analyze.sh TCPSIFT [LAB_PEER] - `tcpsift capture --analyze-json` reports what
# `tcpsift analyze` finds in the file the same capture wrote.
#
# lab_pair (offloads off, IPv6 off), 2% random drop at B's ingress (nftables
# numgen) so there is something to find; on B: tcpsift capture -i B -w FILE
# --analyze-json >REPORT; FLOWS paced downloads A -> B; SIGINT.
# Ground truth: tcpsift analyze --json FILE, the offline analysis of the very
# packets the live analyzer was fed.
# Checks: exit 0; the live report is valid JSON; its packet count equals the
# file's (and tcpsift's "written"); every connection is the same in both
# (id, addresses, state, per-direction packets, bytes, retransmissions,
# out-of-order, stalls, SACK holes) and there are FLOWS of them; the live
# report's input is the interface with its drop counters known.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-analyze python3 nft ethtool -- "$@"
lab_require_capture
FLOWS=${ANALYZE_FLOWS:-3} BYTES=${ANALYZE_BYTES:-3M} RATE=${ANALYZE_RATE:-4M}

lab_pair canalyze 1500 1
lab_pair_ipv6_off
lab_pair_offloads_off
lab_nft_drop "$LAB_NS_B" "ingress:$LAB_IF_B" 2 tcp sport 5001-5099
pcap="$LAB_TMP/live.pcapng" live="$LAB_TMP/live.json" file="$LAB_TMP/file.json"

lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -w "$pcap" --analyze-json >"$live" ||
	lab_abort "tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
lab_downloads "$FLOWS" "$BYTES" 20 --pacing-rate "$RATE"
lab_downloads_wait
lab_tcpsift_stop INT 2
lab_check "tcpsift exited $LAB_TCAP_RC after SIGINT (want 0)" "$LAB_TCAP_RC" -eq 0
written=$(sed -n 's/^\([0-9]*\) packets written to .*/\1/p' "$LAB_TCAP_LOG")
"$LAB_BIN" analyze --json --no-progress "$pcap" >"$file" || lab_fail "analyze of the file: exit $?"

out=$(python3 - "$live" "$file" "$FLOWS" "${written:-0}" <<'EOF'
import json, sys
live_path, file_path, flows, written = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
bad = []
try:
    live = json.load(open(live_path))
except Exception as e:
    print("FAIL live report is not JSON: %s" % e)
    sys.exit(0)
fil = json.load(open(file_path))
lp, fp = live["summary"]["packets"], fil["summary"]["packets"]
if lp != fp or lp != written:
    bad.append("packets live %d file %d written %d" % (lp, fp, written))
inp = live["inputs"][0]
if inp.get("format") != "live":
    bad.append("live input %s" % inp)
if inp.get("capture_drops") is None:
    bad.append("live input drops unknown")
lc = {c["id"]: c for c in live["connections"]}
fc = {c["id"]: c for c in fil["connections"]}
if set(lc) != set(fc):
    bad.append("connection ids live %s file %s" % (sorted(lc), sorted(fc)))
data = [c for c in fc.values() if c["s2c"]["payload_bytes"] > 0]
if len(data) != flows:
    bad.append("%d data connections, want %d" % (len(data), flows))
keys = ["packets", "payload_bytes", "retransmissions", "out_of_order", "lost_segments", "dup_acks"]
same = 0
for i, c in fc.items():
    l = lc.get(i)
    if not l:
        continue
    diff = [k for k in ("client", "server", "state") if l[k] != c[k]]
    diff += ["%s.%s" % (d, k) for d in ("c2s", "s2c") for k in keys if l[d][k] != c[d][k]]
    diff += [k for k, a, b in (("stalls", l["stalls"]["count"], c["stalls"]["count"]),
                               ("holes", l["sack"]["holes"], c["sack"]["holes"])) if a != b]
    if diff:
        bad.append("connection %d differs: %s" % (i, ",".join(diff)))
    else:
        same += 1
retr = sum(c["s2c"]["retransmissions"] for c in data)
holes = sum(c["sack"]["holes"] for c in data)
print(("FAIL " + "; ".join(bad)) if bad else
      "ok %d packets live = file = written, %d/%d connections identical, %d retransmissions, %d SACK holes"
      % (lp, same, len(fc), retr, holes))
EOF
)
case $out in
ok*) ;;
*) lab_fail "${out#FAIL }" ;;
esac
lab_verdict "${out#ok }; exit $LAB_TCAP_RC"
