#!/usr/bin/env bash
# capture/run.sh TCPSIFT - `tcpsift capture` against real traffic in network
# namespaces: fanout over queues, file rotation, SIGINT, disk full, stdout.
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
BUDGET=${CAPTURE_BUDGET:-240}
PER_SCENARIO=${CAPTURE_TIMEOUT:-40}

why=$(. tests/lab/common.sh && lab_require_root)
if [ $? -eq 77 ]; then
	t_skip "capture: ${why#SKIP: } (run make check as root for the capture tests)"
	t_done
	exit
fi
if [ ! -x "$bin" ] || [ ! -x "$peer" ]; then
	t_skip "capture: needs $bin and $peer (make O=$(dirname "$bin") tests)"
	t_done
	exit
fi

logs=$(mktemp -d /tmp/tcpsift-capture-run.XXXXXX)
trap 'rm -rf "$logs"' EXIT
start=$SECONDS
for s in tests/capture/*.sh; do
	[ "$s" = tests/capture/run.sh ] && continue
	n=capture-$(basename "$s" .sh)
	left=$((BUDGET - (SECONDS - start)))
	if [ "$left" -lt 10 ]; then
		t_fail "$n: not run, the suite's ${BUDGET} s budget is spent"
		continue
	fi
	limit=$((left < PER_SCENARIO ? left : PER_SCENARIO))
	t0=$SECONDS
	timeout -k 5 "$limit" bash "$s" "$bin" "$peer" >"$logs/$n.out" 2>"$logs/$n.err"
	rc=$?
	line=$(head -n 1 "$logs/$n.out")
	took=$((SECONDS - t0))
	case $rc in
	0)
		t_pass "$n"
		echo "  ok   $line (${took} s)"
		;;
	77)
		line=${line#SKIP }
		t_skip "$n: ${line#"$n": }"
		;;
	*)
		[ "$rc" -eq 124 ] && line="timed out after $limit s${line:+: $line}"
		t_fail "$n (exit $rc, ${took} s): $line"
		tail -n +2 "$logs/$n.out" | sed 's/^/    /'
		tail -n 20 "$logs/$n.err" | sed 's/^/    stderr: /'
		;;
	esac
done
echo "capture: scenarios took $((SECONDS - start)) s"
t_done
