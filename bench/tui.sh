#!/usr/bin/env bash
# bench/tui.sh [--seconds N] - what the dashboard costs with 10 000 live connections.
#
# Generates (once) bench/data/tui-2000000-c10000.pcap: 2 M packets, 10 000
# connections all live to the end (bench/gen --concurrent 10000). Then, in
# a 160x50 tmux terminal:
#   1. tcpsift tui -r FILE --speed 0.1 for N seconds (default 12): the
#      replay keeps 10 000 connections on screen, the table sorted and
#      redrawn ~10 times a second. CPU of the UI thread (the main thread:
#      keys, sorting, filtering, drawing) and of the engine thread (packets,
#      snapshots), per thread from /proc/PID/task/TID/stat.
#   2. tcpsift tui -r FILE --max until the end: wall time against
#      `tcpsift analyze` on the same file (what the model, the per-segment
#      sink and the snapshots cost the engine).
# Prints a Markdown table; needs tmux and ./tcpsift (or $TCPSIFT).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=12
[ "${1:-}" = --seconds ] && secs=$2
bin=$(realpath "${TCPSIFT:-./tcpsift}")
gen=build/rel/bench/gen
data=bench/data/tui-2000000-c10000.pcap
mkdir -p bench/data
[ -s "$data" ] || "$gen" --packets 2000000 --connections 10000 --concurrent 10000 -o "$data" >/dev/null 2>&1
. tests/tui/tmux.sh
TUI_BIN=$bin
tui_init
trap tui_cleanup EXIT
hz=$(getconf CLK_TCK)

# cpu_of PID: "main_ticks other_ticks" (utime + stime) of its threads.
cpu_of() {
	local pid=$1 main=0 other=0 t v
	for t in /proc/"$pid"/task/*; do
		v=$(awk '{print $14 + $15}' "$t/stat" 2>/dev/null) || continue
		if [ "${t##*/}" = "$pid" ]; then main=$((main + v)); else other=$((other + v)); fi
	done
	echo "$main $other"
}

# The dearest screen: every frame filters 10 000 rows through a BPF program
# and sorts them by throughput.
tui_start paced 160 50 -- -r "$data" --speed 0.1 --conn-filter 'tcp and not port 7'
pid=$(tui_pid paced)
sleep 1
tui_keys paced s s s s
sleep 1 # past the start: the connections are all open by then
read -r m0 o0 < <(cpu_of "$pid")
t0=$(date +%s.%N)
sleep "$secs"
read -r m1 o1 < <(cpu_of "$pid")
t1=$(date +%s.%N)
rows=$(tui_screen paced | sed -n 2p)
foot=$(tui_screen paced | tail -n 1 | sed 's/.*filter:/filter:/')
tui_keys paced q
tui_wait_exit paced 20 >/dev/null
ui=$(python3 -c "print(f'{($m1-$m0)/$hz/($t1-$t0)*100:.1f}')")
eng=$(python3 -c "print(f'{($o1-$o0)/$hz/($t1-$t0)*100:.1f}')")

a0=$(date +%s.%N)
"$bin" analyze "$data" >/dev/null
a1=$(date +%s.%N)
tui_start max 160 50 -- -r "$data" --max
m0=$(date +%s.%N)
tui_wait max '\[ended\]' 120
m1=$(date +%s.%N)
tui_keys max q
tui_wait_exit max 20 >/dev/null
an=$(python3 -c "print(f'{$a1-$a0:.2f}')")
mx=$(python3 -c "print(f'{$m1-$m0:.2f}')")

echo "### tcpsift tui with 10 000 live connections ($(date -u +%Y-%m-%d), $(nproc) CPUs, $(git describe --always --dirty 2>/dev/null))"
echo
echo "Command: \`bench/tui.sh --seconds $secs\`; capture \`$data\` (2 M packets, 10 000 connections, all live)."
echo "Header while paced: \`${rows# }\`; footer: \`$foot\`; sorted by C>S."
echo
echo "| measurement | value |"
echo "|---|---:|"
echo "| UI thread CPU, replay at 0.1x, 160x50, ~10 redraws/s, BPF filter + sort over 10 000 rows | $ui % of one core |"
echo "| engine thread CPU, same run (packets, snapshots of 10 000 rows) | $eng % of one core |"
echo "| tcpsift analyze (text), same file | $an s |"
echo "| tcpsift tui --max to [ended], same file | $mx s |"
