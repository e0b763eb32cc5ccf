#!/usr/bin/env bash
# summary.sh - add up build/check-results into the closing tally of make check.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/check-results ] || { echo "check: 0 passed, 0 failed"; exit 1; }
awk '{p += $2; f += $3; s += $4; printf "  %-10s %4d passed %3d failed %3d skipped\n", $1, $2, $3, $4}
     END {printf "check: %d passed, %d failed, %d skipped\n", p, f, s; exit f != 0}' build/check-results
