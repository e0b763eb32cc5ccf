#!/usr/bin/env bash
# findings-vpair-loss.sh TCPSIFT [LAB_PEER] - two capture points joined
# (analyze --vantage-pair): segments lost between them, against the
# router's own drop counter and its NFLOG copy of every dropped packet.
#
# lab_chain A <-> R <-> B, offloads off; tcpdump -s 128 on A's veth (the
# upstream point of A's data) and on B's veth (downstream). For each drop
# rate of VPAIR_PCTS (default "0 1 5": 0 is the negative control), R's
# forward hook drops that share of A->B data segments (never SYN/FIN/RST or
# pure ACKs) of one server port and copies each to NFLOG; B downloads
# VPAIR_BYTES (1000000) from A on each port in turn, paced at 10 Mbit/s:
# one connection per rate, all in the same two captures.
#
# Ground truth, outside tcpsift: the nft counter (packets dropped), the
# NFLOG copies (which ones: IP ID and sequence), tcpdump's and the veths'
# drop counters (must be 0: the captures and links lost nothing).
# Checks, per rate: one joined connection; s2c (A's data) upstream is A's
# capture; s2c lost == the nft counter exactly; every lost segment tcpsift
# lists (examples.lost: IP ID, sequence) is an NFLOG copy, and as many;
# nothing lost c2s; nothing duplicated or changed either way (TTL falls by
# R's one hop both ways: the norm); reordered == the IP ID inversions at
# each direction's downstream tap (tshark; the kernel's own reordering,
# about one run in three: see below); no capture loss at either point.
# At 0 %: nothing lost.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/common.sh"

lab_scenario_init vpair-loss tcpdump tshark nft ethtool python3 -- "$@"
BYTES=${VPAIR_BYTES:-1000000}
PCTS=${VPAIR_PCTS:-"0 1 5"}
GROUP=11

lab_chain fvpl
lab_chain_offloads_off
# One rule per rate, each on its own server port, each with its counter.
port=5100
for pct in $PCTS; do
	port=$((port + 1))
	lab_nft_drop_nflog "$LAB_NS_R" forward "$pct" "$GROUP" \
		"ip saddr $LAB_IP4_A tcp sport $port tcp flags & (syn | fin | rst) == 0 ip length > 100"
done
acap="$LAB_TMP/a.pcap" bcap="$LAB_TMP/b.pcap" drops="$LAB_TMP/drops.pcap"
json="$LAB_TMP/pair.json"
lab_capture_start "$LAB_NS_R" tcpdump -i "nflog:$GROUP" -w "$drops"
drop_cap=$LAB_CAP_PID
lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$acap" tcp
a_cap=$LAB_CAP_PID
lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w "$bcap" tcp
b_cap=$LAB_CAP_PID
port=5100
for pct in $PCTS; do
	port=$((port + 1))
	lab_transfer "$LAB_NS_A" "$LAB_IP4_A:$port" "$LAB_NS_B" "$LAB_IP4_B:$((port + 100))" 20 \
		download "$BYTES" --cc cubic --pacing-rate 10M
done
# One settle for the three captures (each stop would wait for it otherwise).
sleep 1.5
lab_capture_stop "$a_cap" 0 || true
a_drops=$LAB_CAP_DROPS
lab_capture_stop "$b_cap" 0 || true
b_drops=$LAB_CAP_DROPS
lab_capture_stop "$drop_cap" 0 || true
nflogged=$LAB_CAP_PACKETS
nft_total=$(lab_nft_counter "$LAB_NS_R")
linkdrops=$(lab_chain_link_drops)
"$LAB_BIN" analyze --json --no-progress --vantage-pair "$acap" "$bcap" >"$json" ||
	lab_fail "tcpsift exited $?"
"$LAB_SRC/scripts/schema.py" validate "$json" >&2 || lab_fail "not the documented schema"
lab_harness "tcpdump dropped $a_drops/$b_drops" $((a_drops + b_drops)) -eq 0
lab_harness "veth drops $linkdrops" "$linkdrops" -eq 0
lab_check "NFLOG copies $nflogged != nft $nft_total" "$nflogged" -eq "$nft_total"
verdict=()
port=5100
for pct in $PCTS; do
	port=$((port + 1))
	# This rate's rule: its counter.
	nft=$(ip netns exec "$LAB_NS_R" nft list ruleset |
		awk -v p="sport $port " 'index($0, p) { for (i = 1; i < NF; i++)
			if ($i == "packets") n = $(i + 1) } END { print n + 0 }')
	# tcpsift's lost segments against the NFLOG copies, by (IP ID, sequence).
	# Reordering the kernel itself does between the taps (veth delivers
	# through per-CPU backlogs: now and then one segment is overtaken) is
	# real, so it is counted from the packets, not assumed 0: at each
	# direction's downstream tap, a segment whose IP ID (Linux: one
	# counter per connection) is below one that arrived before it.
	inv=$(python3 -c '
import sys
n = 0
for path in sys.argv[1:]:
    hi = -1
    for l in open(path):
        if not l.strip():
            continue
        i = int(l, 0)
        if i < hi and hi - i < 32768:
            n += 1
        hi = max(hi, i)
print(n)' <(tshark -n -r "$bcap" -Y "tcp.srcport == $port" -T fields -e ip.id 2>/dev/null) \
		<(tshark -n -r "$acap" -Y "tcp.dstport == $port" -T fields -e ip.id 2>/dev/null))
	read -r joined lost nfl_match lost_c2s up other reord < <(python3 - "$json" "$port" "$acap" \
		<(tshark -n -r "$drops" -Y "tcp.srcport == $port" -T fields -e ip.id -e tcp.seq_raw \
			2>/dev/null) <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
port, acap = sys.argv[2], sys.argv[3]
nflog = {(int(i, 0), int(s)) for i, s in (l.split("\t") for l in open(sys.argv[4]) if l.strip())}
# The connection at A whose server port is this rate's.
conns = [c for c in doc["connections"] if c["server"].endswith(":" + port) and c["input"] == 0]
if not conns or "between_points" not in conns[0]:
    print(len(conns), -1, -1, -1, "none", -1, -1)
    sys.exit()
bp = conns[0]["between_points"]
s2c, c2s = bp["s2c"], bp["c2s"]
listed = {(e["ip_id"], e["seq"]) for e in s2c["examples"]["lost"]}
other = reord = 0
for d in (s2c, c2s):
    reord += d["reordered"]
    other += d["duplicated"] + sum(d["changed"].values())
    other += d["capture_loss_at"]["upstream"] + d["capture_loss_at"]["downstream"]
    other += d["window_overflow"]
ok = len(listed & nflog) if len(listed) == s2c["lost"] else -1
print(1, s2c["lost"], ok, c2s["lost"], "a" if s2c["upstream"] == acap else "b", other, reord)
PY
	) || lab_abort "no usable report for $pct %"
	lab_check "$pct %: joined $joined != 1" "$joined" -eq 1
	lab_check "$pct %: s2c upstream is $up, not A" "$up" = a
	lab_check "$pct %: lost $lost != nft drops $nft" "$lost" -eq "$nft"
	lab_check "$pct %: lost segments found in NFLOG $nfl_match != $nft" "$nfl_match" -eq "$nft"
	lab_check "$pct %: c2s lost $lost_c2s" "$lost_c2s" -eq 0
	lab_check "$pct %: duplicated+changed+capture loss+overflow $other" "$other" -eq 0
	lab_check "$pct %: reordered $reord != IP ID inversions at the downstream taps $inv" \
		"$reord" -eq "$inv"
	if [ "$pct" = 0 ]; then
		lab_check "0 %: nft dropped $nft" "$nft" -eq 0
	else
		lab_check "$pct %: nft dropped nothing" "$nft" -gt 0
	fi
	verdict+=("$pct %: lost $lost (nft $nft, in NFLOG $nfl_match), c2s lost $lost_c2s, reordered $reord (IP ID inversions $inv), other $other;")
done
lab_verdict "${verdict[@]}" "NFLOG $nflogged = nft $nft_total"
