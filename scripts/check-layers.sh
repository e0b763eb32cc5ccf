#!/usr/bin/env bash
# check-layers.sh - dependencies point one way (STYLE.md rule 3):
# capture/ includes neither analyze/ nor tui/; reporters and the TUI include
# no engine internals (flow.h, tcp.h, detectors); the engine includes no reporter.
set -euo pipefail
cd "$(dirname "$0")/.."
T_SUITE=layers
. tests/lib.sh

check() { # description, files glob, forbidden include regex
	local what=$1 pattern=$3 bad
	shift
	# shellcheck disable=SC2086
	bad=$(grep -lE "#include \"($pattern)" $1 2>/dev/null || true)
	if [ -n "$bad" ]; then t_fail "$what: $bad"; else t_pass "$what"; fi
}
check "capture/ does not include analyze/, tui/ or cli/" "capture/*/*.c capture/*/*.h" "analyze/|tui/|cli/"
check "reporters do not include the engine internals" \
	"analyze/report/*.c analyze/report/*.h analyze/detect/*/*_report.c" \
	"analyze/engine/flow.h|analyze/engine/tcp.h"
check "the engine does not include reporters" "analyze/engine/*.c analyze/engine/*.h" \
	"analyze/report/"
check "the TUI sees summaries and events, not the engine internals" "tui/*.c tui/*.h" \
	"analyze/engine/flow.h|analyze/engine/tcp.h|analyze/detect/[a-z]+/[a-z]+\\.h"
t_done
