#!/usr/bin/env bash
# live-drops.sh TCPSIFT [LAB_PEER] - `tcpsift tui -i` shows in its header,
# in colour, the share of packets the capture drops and, while it drops, the
# options that would help.
#
# lab_pair (offloads on: 64 KiB super-frames); in B: tcpsift tui -i B -B 1
# (the smallest ring; in tmux, 160x40); two downloads A -> B at full speed.
# Checks, from the screen while they run: the header's second line reads
# "drops P% (kernel N" with N > 0 and "try ... -B ..." (and -s 128: full
# frames kept); the drops are drawn in a colour (an SGR colour sequence
# before them); after q: exit 0, and the summary line counts the kernel drops.
# Exit 0 pass, 1 fail, 77 skip; one line of what was seen.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"
# shellcheck source=tests/tui/tmux.sh
. "$here/tmux.sh"

lab_scenario_init tui-live-drops tmux -- "$@"
lab_init
tui_init
trap 'tui_cleanup; lab_cleanup' EXIT

lab_pair tuidrops 1500 1
lab_pair_ipv6_off
TUI_BIN=$LAB_BIN
TUI_PREFIX="ip netns exec $LAB_NS_B"
tui_start drops 160 40 -- -i "$LAB_IF_B" -B 1 -Z root tcp
tui_wait drops '\[capturing\]' 10 || lab_abort "the tui did not start: $(tui_screen drops | head -3)"

lab_downloads 2 8G 8 --pacing-rate 0 2>/dev/null || true
line="" esc=""
for _ in $(seq 80); do
	sleep 0.1
	line=$(tui_screen drops | sed -n 2p)
	if [[ $line == *"drops "*"% (kernel "* && $line == *"try "*"-B "* ]]; then
		esc=$(tui_screen_e drops | sed -n 2p)
		break
	fi
done
[[ $line == *"drops "*"% (kernel "* ]] || lab_fail "no drop share in the header: $line"
[[ $line == *"try "*"-B "* ]] || lab_fail "no -B advice in the header: $line"
[[ $line == *"-s 128"* ]] || lab_fail "no -s 128 advice in the header: $line"
# The drops piece follows a colour (SGR 3x/9x or 38;5) set just before it.
grep -qE $'\e\\[[0-9;]*(3[0-7]|9[0-7]|38;5;[0-9]+)m *drops [0-9.]+%' <<<"$esc" ||
	lab_fail "the drops are not coloured: $(sed 's/\x1b/ESC/g' <<<"$esc" | head -c 300)"
# Seen (or given up on): the flood is stopped, not waited out (8 s); the
# drops it caused are counted.
for p in "${LAB_DL_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
for p in "${LAB_DL_PIDS[@]}"; do lab_wait "$p" || true; done
tui_keys drops q
rc=$(tui_wait_exit drops 10) || rc=timeout
lab_check "exit after q: $rc" "$rc" = 0
# the summary line wraps: read the screen joined (3 s for it to show)
summary() { tui_screen drops | tr -d '\n' | grep -qE 'tcpsift tui: ended.*drops kernel [1-9][0-9]*'; }
for _ in $(seq 60); do
	summary && break
	sleep 0.05
done
summary ||
	lab_fail "no kernel drops in the summary line: $(tui_screen drops | tr -d '\n' | grep -o 'tcpsift tui.*' | head -c 300)"
shown=$(sed -n 's/.*\(drops [0-9.]*% (kernel [0-9]*[^)]*)\).*/\1/p' <<<"$line")
advice=$(sed -n 's/.*  try \(.*\)$/\1/p' <<<"$line" | sed 's/  .*//')
lab_verdict "header: ${shown:-?}, try ${advice:-?}; exit $rc"
