#!/usr/bin/env bash
# summary.sh - add up build/check-results into the closing tally of make check.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/check-results ] || { echo "check: 0 passed, 0 failed"; exit 1; }
# A suite's seconds are its own wall time; the counted suites run two at once.
start=$(cat build/check-start 2>/dev/null || date +%s)
awk -v secs=$(($(date +%s) - start)) '
     {p += $2; f += $3; s += $4
      printf "  %-14s %4d passed %3d failed %3d skipped", $1, $2, $3, $4
      if ($5 != "") printf " %5d s", $5
      printf "\n"}
     END {printf "check: %d passed, %d failed, %d skipped in %d s\n", p, f, s, secs; exit f != 0}' build/check-results
