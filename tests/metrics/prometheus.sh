#!/usr/bin/env bash
# prometheus.sh TCPSIFT [LAB_PEER] - a real Prometheus scrapes `tcpsift
# capture --metrics` every second while downloads with 2 % loss run, and
# what it stored is what tcpsift's own report says at exit.
#
# lab_pair (offloads off, IPv6 off), 2 % random drop at B's ingress so there
# are retransmissions and SACK holes; in B: tcpsift capture -i B --metrics
# 127.0.0.1:0 --analyze-json (no -w: the headless monitor; port 0: the
# system picks one, read from its "metrics at" line), and prometheus on
# 127.0.0.1 (a free port, storage in the scenario's temp dir, a one-job
# config scraping tcpsift every 1 s; ended by pid with the namespace).
# FLOWS paced downloads A -> B; then, once every packet has been captured
# and Prometheus has scraped again, its HTTP API (/api/v1/query) is asked
# and tcpsift is stopped with SIGINT.
# Checks: the endpoint directly (curl): 200 with the Prometheus text
# format, which `promtool check metrics` passes; OpenMetrics with its
# Content-Type and a last line "# EOF" when the Accept header asks; 404 for
# another path, 405 for POST. Prometheus: up == 1 (it parsed the
# OpenMetrics it asks for), tcpsift_packets_total > 0 and equal to the
# report's packets, the sum of tcpsift_tcp_retransmissions_total > 0,
# equal to the report's retransmissions and within what the nft drops
# caused (at least the drops less 2, at most twice them plus 5), kind="fast" and "rto" to its
# fast_retransmissions and rto_retransmissions, SACK holes, stalls and
# zero-window episodes to its findings, tcpsift_tcp_connections_created_total
# to its connections, tcpsift_tcp_packets_sent_total to its connections'
# data_packets.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init metrics-prometheus prometheus promtool curl python3 nft ethtool -- "$@"
lab_require_capture
FLOWS=${METRICS_FLOWS:-3} BYTES=${METRICS_BYTES:-2M} RATE=${METRICS_RATE:-8M}

lab_pair cmetrics 1500 1
lab_pair_ipv6_off
lab_pair_offloads_off
lab_nft_drop "$LAB_NS_B" "ingress:$LAB_IF_B" 2 tcp sport 5001-5099
live="$LAB_TMP/live.json" prom="$LAB_TMP/prom"
mkdir -p "$prom/data"

# in_b CMD...: CMD in B, where tcpsift and Prometheus listen on loopback.
in_b() { ip netns exec "$LAB_NS_B" "$@"; }

lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" --metrics 127.0.0.1:0 --analyze-json --threads 1 \
	>"$live" || lab_abort "tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
target=$(sed -n 's|^tcpsift capture: metrics at http://\([^/]*\)/metrics$|\1|p' "$LAB_TCAP_LOG")
[ -n "$target" ] || lab_abort "no 'metrics at' line: $(head -n 3 "$LAB_TCAP_LOG")"

# A free port in B for Prometheus (the namespace is ours: nothing takes it after).
pport=$(in_b python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$prom/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tcpsift
    static_configs:
      - targets: ['$target']
EOF
LAB_BG_TIMEOUT=60 lab_bg "$LAB_NS_B" prometheus --config.file="$prom/prometheus.yml" \
	--storage.tsdb.path="$prom/data" --web.listen-address="127.0.0.1:$pport" \
	--log.level=warn 2>"$prom/prometheus.log"
api="http://127.0.0.1:$pport"
for _ in $(seq 100); do
	in_b curl -sf "$api/-/ready" >/dev/null 2>&1 && break
	sleep 0.2
done
in_b curl -sf "$api/-/ready" >/dev/null 2>&1 ||
	lab_abort "prometheus not ready after 20 s: $(tail -n 3 "$prom/prometheus.log")"

lab_downloads "$FLOWS" "$BYTES" 20 --pacing-rate "$RATE"
lab_downloads_wait
sleep 2.5 # the TPACKET_V3 block timer: every packet reaches tcpsift

# The endpoint itself.
url="http://$target/metrics"
code=$(in_b curl -s -o "$LAB_TMP/metrics.txt" -D "$LAB_TMP/metrics.hdr" -w '%{http_code}' "$url")
lab_check "GET /metrics: HTTP $code (want 200)" "$code" = 200
grep -qi '^content-type: text/plain; version=0.0.4' "$LAB_TMP/metrics.hdr" ||
	lab_fail "text format Content-Type: $(grep -i '^content-type' "$LAB_TMP/metrics.hdr")"
promtool check metrics <"$LAB_TMP/metrics.txt" >"$LAB_TMP/promtool.txt" 2>&1 ||
	lab_fail "promtool check metrics: $(head -n 3 "$LAB_TMP/promtool.txt")"
in_b curl -s -o "$LAB_TMP/metrics.om" -D "$LAB_TMP/om.hdr" \
	-H 'Accept: application/openmetrics-text; version=1.0.0' "$url"
grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$LAB_TMP/om.hdr" ||
	lab_fail "OpenMetrics Content-Type: $(grep -i '^content-type' "$LAB_TMP/om.hdr")"
[ "$(tail -n 1 "$LAB_TMP/metrics.om")" = "# EOF" ] || lab_fail "OpenMetrics does not end with # EOF"
code=$(in_b curl -s -o /dev/null -w '%{http_code}' "http://$target/")
lab_check "GET /: HTTP $code (want 404)" "$code" = 404
code=$(in_b curl -s -o /dev/null -w '%{http_code}' -X POST "$url")
lab_check "POST /metrics: HTTP $code (want 405)" "$code" = 405

# q EXPR: the value of an instant query (one series), "none" without one.
q()
{
	in_b curl -s "$api/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "none")'
}
# Wait for a scrape that began after the last packet (its packets stay put).
t_after=$(date +%s.%N)
for _ in $(seq 50); do
	ts=$(in_b curl -s "$api/api/v1/query" --data-urlencode 'query=timestamp(up{job="tcpsift"})' |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
	python3 -c "import sys; sys.exit(0 if float('$ts') > $t_after + 0.2 else 1)" && break
	sleep 0.2
done
up=$(q 'up{job="tcpsift"}')
pkts=$(q tcpsift_packets_total)
retr=$(q 'sum(tcpsift_tcp_retransmissions_total)')
fast=$(q 'tcpsift_tcp_retransmissions_total{kind="fast"}')
rto=$(q 'tcpsift_tcp_retransmissions_total{kind="rto"}')
holes=$(q tcpsift_tcp_sack_holes_total)
stalls=$(q 'sum(tcpsift_tcp_stalls_total)')
zw=$(q tcpsift_tcp_zero_windows_total)
conns=$(q tcpsift_tcp_connections_created_total)
sent=$(q tcpsift_tcp_packets_sent_total)
drops=$(q 'sum(tcpsift_capture_drops_total)')

nft_drops=$(lab_nft_counter "$LAB_NS_B")

lab_tcpsift_stop INT 0.5
lab_check "tcpsift exited $LAB_TCAP_RC after SIGINT (want 0)" "$LAB_TCAP_RC" -eq 0
out=$(python3 - "$live" "$up" "$pkts" "$retr" "$fast" "$rto" "$holes" "$stalls" "$zw" "$conns" "$drops" "$sent" "$nft_drops" <<'EOF'
import json, sys
path, up, pkts, retr, fast, rto, holes, stalls, zw, conns, drops, sent, nft = sys.argv[1:]
try:
    doc = json.load(open(path))
    s = doc["summary"]
except Exception as e:
    print("FAIL the report at exit is not JSON: %s" % e)
    sys.exit(0)
data = sum(c[d]["data_packets"] for c in doc["connections"] for d in ("c2s", "s2c"))
f, c = s["findings"], s["counts"]
want = {"packets": (pkts, s["packets"]), "retransmissions": (retr, f["retransmissions"]),
        "fast": (fast, c["fast_retransmissions"]), "rto": (rto, c["rto_retransmissions"]),
        "sack_holes": (holes, f["sack_holes"]), "stalls": (stalls, f["stalls"]),
        "zero_windows": (zw, c["zero_window_episodes"]), "connections": (conns, s["connections"]),
        "packets_sent": (sent, data)}
bad = ["up %s (want 1)" % up] if up != "1" else []
for k, (got, exp) in want.items():
    if got == "none" or float(got) != exp:
        bad.append("%s: Prometheus %s, report %s" % (k, got, exp))
if pkts == "none" or float(pkts) <= 0:
    bad.append("no packets")
if retr == "none" or float(retr) <= 0:
    bad.append("no retransmissions (2 %% loss)")
# The run's truth: every data segment nft dropped at B (after the capture
# tap) is sent again, a lost retransmission again too; a drop of the
# SYN/ACK or FIN alone may be no data retransmission.
elif not int(nft) - 2 <= float(retr) <= 2 * int(nft) + 5:
    bad.append("retransmissions %s for %s segments nft dropped" % (retr, nft))
print(("FAIL " + "; ".join(bad)) if bad else
      "ok Prometheus = report: %d packets, %d retransmissions (%d fast, %d rto), %d SACK holes, "
      "%d stalls, %d connections; %s capture drops; nft dropped %s" % (s["packets"], f["retransmissions"],
      c["fast_retransmissions"], c["rto_retransmissions"], f["sack_holes"], f["stalls"],
      s["connections"], drops, nft))
EOF
)
case $out in
ok*) ;;
*) lab_fail "${out#FAIL }" ;;
esac
lab_verdict "${out#ok }; promtool passes, OpenMetrics ends with # EOF"
