#!/usr/bin/env bash
# threads/tsan.sh BUILD_DIR - the threads' hand-offs under ThreadSanitizer
# (BUILD_DIR built with SAN=thread): the unit tests of the counters the
# threads wait on (common/waitq.h: looked at without a lock) and of the
# report's parallel writers, then the whole threads suite (run.sh) with that
# tcpsift, where a data race makes `--threads N` exit 66 and say more on
# stderr than `--threads 1`: a failure. (Checked once by hand: a counter
# bumped without synchronisation in the workers' hand-off failed 97 of the
# suite's 233 checks.)
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=tsan
. tests/lib.sh
dir=${1:?usage: tsan.sh BUILD_DIR}
for t in waitq parjson; do
	if out=$("$dir/tests/unit/test_$t" 2>&1); then
		t_pass "test_$t under ThreadSanitizer"
	else
		t_fail "test_$t under ThreadSanitizer:"
		echo "$out" | tail -n 30
	fi
done
t_done
units=$?
T_SUITE=threads-tsan tests/threads/run.sh "$dir/tcpsift" && [ "$units" = 0 ]
