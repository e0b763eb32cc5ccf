#!/usr/bin/env bash
# lab/matrix.sh TCPSIFT [SUBSET] - the truth matrix (tests/lab/matrix.py) as a
# test suite: every cell a case. SUBSET is "check" (default: the cells `make
# check` runs, a few minutes) or "all" (`make lab-matrix`, which also writes
# tests/lab/MATRIX.md). The lab-peer and lab-relay binaries come from
# $(dirname TCPSIFT)/tests/tools (make tests). Skipped without root or tools.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
T_SUITE=matrix
. tests/lib.sh
bin=${1:?usage: matrix.sh TCPSIFT [check|all]}
subset=${2:-check}
tools="$(dirname "$bin")/tests/tools"
. tests/lab/scenarios.sh
scenarios_require matrix "$bin" "$tools/lab-peer" "the truth matrix"
if [ ! -x "$tools/lab-relay" ]; then
	t_skip "matrix: no $tools/lab-relay (make O=$(dirname "$bin") tests)"
	t_done
	exit 0
fi
args=(--bin "$bin" --tools "$tools" --subset "$subset")
# make check's subset tries a cell whose harness failed once more (the full
# matrix four times more): a harness-only cell is a skip, and the suite's
# time is make check's (on a host whose hypervisor steals seconds of CPU a
# minute, six cells failed their harness in all three tries: 120 s lost).
[ "$subset" = check ] && args+=(--retries 1)
# A failed cell's captures and truth stay for a look (and --reuse).
args+=(--keep-failed "$(dirname "$bin")/matrix-failed")
[ "$subset" = all ] && args+=(--out tests/lab/MATRIX.md)
# One line per cell: "ok NAME (N s): ...", "FAIL NAME ...", "SKIP ...".
while IFS= read -r line; do
	case $line in
	"ok "*)
		t_pass "${line#ok }"
		echo "  $line"
		;;
	"FAIL "*) t_fail "${line#FAIL }" ;;
	"SKIP: "*) t_skip "matrix: ${line#SKIP: }" ;;
	"SKIP "*) t_skip "${line#SKIP }" ;;
	*) echo "$line" ;;
	esac
done < <(python3 tests/lab/matrix.py "${args[@]}" --budget "${MATRIX_BUDGET:-0}" 2>&1)
t_done
