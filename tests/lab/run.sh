#!/usr/bin/env bash
# lab/run.sh TCPSIFT - network-namespace lab tier: tcpsift against the real
# Linux TCP stack, every number checked against a ground truth taken outside
# tcpsift (nstat, nft counters, NFLOG copies of drops, tcpdump and interface
# counters, tshark).
#
# Runs every tests/lab/foundation-*.sh and findings-*.sh as `SCRIPT TCPSIFT LAB_PEER` (lab-peer
# from $(dirname TCPSIFT)/tests/tools/lab-peer, built by `make tests`), each
# under a timeout, the whole tier within BUDGET seconds (360). A scenario exits
# 0 (pass), 77 (skip) or anything else (fail) and prints one line of measured
# vs expected, shown here; on failure the end of its stderr is shown too.
# Needs root and `ip netns`; otherwise the tier is skipped with a message.
# Only namespaces the scenarios create (tests/lab/common.sh) carry traffic,
# and each scenario removes everything it made on exit.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
T_SUITE=lab
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
peer="$(dirname "$bin")/tests/tools/lab-peer"
. tests/lab/scenarios.sh
scenarios_require lab "$bin" "$peer" "the network-namespace lab"
scenarios_run lab "" "$bin" "$peer" "${LAB_BUDGET:-360}" "${LAB_TIMEOUT:-40}" tests/lab/foundation-*.sh tests/lab/findings-*.sh
t_done
