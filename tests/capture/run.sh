#!/usr/bin/env bash
# capture/run.sh TCPSIFT - `tcpsift capture` against real traffic in network
# namespaces: fanout over queues, file rotation, SIGINT, SIGTERM in the
# middle of rotations, disk full, an output slower than the traffic, the
# interface going down, stdout, the fanout merge, -D, the privilege drop,
# safe output files (planted links, modes, no way back to root).
#
# Runs every tests/capture/*.sh scenario (this runner excepted) as
# `SCRIPT TCPSIFT LAB_PEER` (lab-peer from $(dirname TCPSIFT)/tests/tools,
# built by `make tests`), each under a timeout (CAPTURE_TIMEOUT, 40 s), all
# within CAPTURE_BUDGET seconds (240). A scenario exits 0 (pass), 77 (skip)
# or anything else (fail) and prints one line of measured vs expected, shown
# here; on failure the end of its stderr is shown too. The scenarios use
# tests/lab/common.sh: only namespaces, veths and tmpfs mounts they create
# carry traffic or files, and each removes everything it made on exit.
# Needs root and `ip netns`; otherwise the suite is skipped with a message.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
T_SUITE=capture
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
peer="$(dirname "$bin")/tests/tools/lab-peer"
. tests/lab/scenarios.sh
scenarios_require capture "$bin" "$peer" "the capture tests"
scripts=()
for s in tests/capture/*.sh; do
	[ "$s" = tests/capture/run.sh ] || scripts+=("$s")
done
scenarios_run capture "capture-" "$bin" "$peer" "${CAPTURE_BUDGET:-240}" "${CAPTURE_TIMEOUT:-40}" "${scripts[@]}"
t_done
