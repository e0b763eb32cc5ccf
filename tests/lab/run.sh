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
BUDGET=${LAB_BUDGET:-360}    # seconds for all scenarios
PER_SCENARIO=${LAB_TIMEOUT:-40}

why=$(. tests/lab/common.sh && lab_require_root)
if [ $? -eq 77 ]; then
	t_skip "lab: ${why#SKIP: } (run make check as root for the network-namespace lab)"
	t_done
	exit
fi
if [ ! -x "$bin" ] || [ ! -x "$peer" ]; then
	t_skip "lab: needs $bin and $peer (make O=$(dirname "$bin") tests)"
	t_done
	exit
fi

logs=$(mktemp -d /tmp/tcpsift-lab-run.XXXXXX)
trap 'rm -rf "$logs"' EXIT
start=$SECONDS
for s in tests/lab/foundation-*.sh tests/lab/findings-*.sh; do
	[ -f "$s" ] || continue
	n=$(basename "$s" .sh)
	left=$((BUDGET - (SECONDS - start)))
	if [ "$left" -lt 10 ]; then
		t_fail "$n: not run, the lab's ${BUDGET} s budget is spent"
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
		t_skip "$n: ${line:-skipped}"
		;;
	*)
		[ "$rc" -eq 124 ] && line="timed out after $limit s${line:+: $line}"
		t_fail "$n (exit $rc, ${took} s): $line"
		tail -n +2 "$logs/$n.out" | sed 's/^/    /'
		tail -n 20 "$logs/$n.err" | sed 's/^/    stderr: /'
		;;
	esac
done
echo "lab: scenarios took $((SECONDS - start)) s"
t_done
