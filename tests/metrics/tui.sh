#!/usr/bin/env bash
# tui.sh TCPSIFT [LAB_PEER] - `tcpsift tui -i --metrics` serves what the
# dashboard sees: after downloads with 2 % loss, a scrape equals tcpsift
# analyze of the file the same dashboard wrote.
#
# lab_pair (offloads off, IPv6 off), 2 % random drop at B's ingress; in B,
# in a private tmux server (tests/tui/tmux.sh): tcpsift tui -i B -w FILE
# --metrics 127.0.0.1:PORT (a free port of B's loopback). FLOWS paced
# downloads A -> B; once every packet has reached the dashboard, curl
# scrapes it; then q. Checks: the scrape passes promtool check metrics;
# its tcpsift_packets_total, retransmissions (sum and kind="fast"), SACK
# holes and connections equal those of analyze --json FILE, and there were
# retransmissions; the capture drops are there (live); the tui exits 0.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"
# shellcheck source=tests/tui/tmux.sh
. "$here/../tui/tmux.sh"

lab_scenario_init metrics-tui tmux promtool curl python3 nft ethtool -- "$@"
FLOWS=${METRICS_FLOWS:-2} BYTES=${METRICS_BYTES:-2M} RATE=${METRICS_RATE:-8M}

lab_pair cmtui 1500 1
lab_pair_ipv6_off
lab_pair_offloads_off
lab_nft_drop "$LAB_NS_B" "ingress:$LAB_IF_B" 2 tcp sport 5001-5099
tui_init
trap 'tui_cleanup; lab_cleanup' EXIT

in_b() { ip netns exec "$LAB_NS_B" "$@"; }
port=$(in_b python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port/metrics" cap="$LAB_TMP/tui.pcapng"
TUI_BIN=$LAB_BIN TUI_PREFIX="ip netns exec $LAB_NS_B" tui_start live 140 30 -- \
	-i "$LAB_IF_B" -Z root -w "$cap" --threads 1 --metrics "127.0.0.1:$port" ||
	lab_abort "the tui did not start"
for _ in $(seq 50); do
	in_b curl -sf -o /dev/null "$url" && break
	sleep 0.1
done
in_b curl -sf -o /dev/null "$url" || lab_abort "nothing at $url: $(tui_screen live | head -n 5)"

lab_downloads "$FLOWS" "$BYTES" 20 --pacing-rate "$RATE"
lab_downloads_wait
sleep 2.5 # the TPACKET_V3 block timer: every packet reaches the dashboard
in_b curl -s -o "$LAB_TMP/metrics.txt" "$url"
promtool check metrics <"$LAB_TMP/metrics.txt" >"$LAB_TMP/promtool.txt" 2>&1 ||
	lab_fail "promtool check metrics: $(head -n 3 "$LAB_TMP/promtool.txt")"
tui_keys live q
rc=$(tui_wait_exit live) || lab_abort "the tui did not exit on q"
lab_check "the tui exited $rc (want 0)" "$rc" -eq 0
"$LAB_BIN" analyze --json --no-progress "$cap" >"$LAB_TMP/file.json" ||
	lab_abort "analyze of the tui's file: exit $?"

out=$(python3 - "$LAB_TMP/metrics.txt" "$LAB_TMP/file.json" <<'EOF'
import json, sys
m = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    name, value = line.rsplit(" ", 1)
    m[name] = float(value)
s = json.load(open(sys.argv[2]))["summary"]
f, c = s["findings"], s["counts"]
retr = sum(v for k, v in m.items() if k.startswith("tcpsift_tcp_retransmissions_total{"))
got = {"packets": (m.get("tcpsift_packets_total"), s["packets"]),
       "retransmissions": (retr, f["retransmissions"]),
       "fast": (m.get('tcpsift_tcp_retransmissions_total{kind="fast"}'), c["fast_retransmissions"]),
       "sack_holes": (m.get("tcpsift_tcp_sack_holes_total"), f["sack_holes"]),
       "connections": (m.get("tcpsift_tcp_connections_created_total"), s["connections"])}
bad = ["%s: scraped %s, analyze %s" % (k, a, b) for k, (a, b) in got.items() if a != b]
if not retr:
    bad.append("no retransmissions (2 % loss)")
if 'tcpsift_capture_drops_total{where="kernel"}' not in m:
    bad.append("no capture drops live")
print(("FAIL " + "; ".join(bad)) if bad else
      "ok scrape = analyze of the tui's file: %d packets, %d retransmissions, %d SACK holes, "
      "%d connections" % (s["packets"], f["retransmissions"], f["sack_holes"], s["connections"]))
EOF
)
case $out in
ok*) ;;
*) lab_fail "${out#FAIL }" ;;
esac
lab_verdict "${out#ok }; promtool passes, exit $rc"
