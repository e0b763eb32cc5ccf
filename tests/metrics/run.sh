#!/usr/bin/env bash
# metrics/run.sh TCPSIFT - `tcpsift capture --metrics` scraped by a real
# Prometheus server while traffic runs in network namespaces
# (prometheus.sh), `tcpsift tui -i --metrics` against analyze of the file
# the same dashboard wrote (tui.sh), and the server against clients that
# misbehave (http.sh).
#
# Runs every tests/metrics/*.sh scenario (this runner excepted) as
# `SCRIPT TCPSIFT LAB_PEER` (tests/lab/scenarios.sh), each under a timeout
# (METRICS_TIMEOUT, 60 s), all within METRICS_BUDGET seconds (120). A
# scenario exits 0 (pass), 77 (skip: no prometheus, promtool, curl, tmux) or
# anything else (fail) and prints one line of measured vs expected. Only
# namespaces the scenarios create carry traffic, Prometheus listens on their
# loopback, and each removes everything it made on exit (tests/lab/common.sh).
# Needs root and `ip netns`; otherwise the suite is skipped with a message.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
T_SUITE=metrics
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
peer="$(dirname "$bin")/tests/tools/lab-peer"
. tests/lab/scenarios.sh
scenarios_require metrics "$bin" "$peer" "the metrics test"
scripts=()
for s in tests/metrics/*.sh; do
	[ "$s" = tests/metrics/run.sh ] || scripts+=("$s")
done
scenarios_run metrics "metrics-" "$bin" "$peer" "${METRICS_BUDGET:-120}" "${METRICS_TIMEOUT:-60}" \
	"${scripts[@]}"
t_done
