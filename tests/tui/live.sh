#!/usr/bin/env bash
# live.sh TCPSIFT [LAB_PEER] - `tcpsift tui -i` on a veth in a namespace shows a
# running transfer's throughput rising above zero, and its connection.
#
# lab_pair (offloads off); in B: tcpsift tui -i N, N being B's number in
# `tcpsift capture -D` (the header must name B) (in tmux, 160x40, with
# --fanout 2 --fanout-mode hash so the live path runs through the fanout
# group); a paced download A -> B (lab-peer, 8 MB at 2 MB/s, ~4 s).
# Checks, from the screen while the transfer runs: the connection's row
# (server A:5001) appears with the server-to-client rate above 1 Mb/s
# (2 MB/s paced is 16 Mb/s); the header counts packets and shows no drops;
# p holds the screen (HELD, packet count frozen) and p again releases it;
# after q: exit 0 and the summary line names 1+ connections; while running
# it was user tcpdump (privileges dropped once the sockets were open).
# Exit 0 pass, 1 fail, 77 skip; one line of what was seen.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"
# shellcheck source=tests/tui/tmux.sh
. "$here/tmux.sh"

lab_scenario_init tui-live tmux python3 ethtool -- "$@"
lab_init
tui_init
trap 'tui_cleanup; lab_cleanup' EXIT

lab_pair tuilive 1500 1
lab_pair_offloads_off
TUI_BIN=$LAB_BIN
TUI_PREFIX="ip netns exec $LAB_NS_B"
# The interface by its number in `capture -D` (as tcpdump -i N), which the
# header must turn back into the name.
ifnum=$(ip netns exec "$LAB_NS_B" "$LAB_BIN" capture -D |
	awk -F'[. ]' -v ifn="$LAB_IF_B" '$2 == ifn { print $1; exit }')
[ -n "$ifnum" ] || lab_abort "$LAB_IF_B is not in capture -D"
tui_start live 160 40 -- -i "$ifnum" --fanout 2 --fanout-mode hash tcp
tui_wait live '\[capturing\]' 10 || lab_abort "the tui did not start: $(tui_screen live | head -3)"
tui_screen live | head -n 2 | grep -q "$LAB_IF_B" ||
	lab_fail "-i $ifnum: the header does not name $LAB_IF_B: $(tui_screen live | head -n 1)"

# Two request/response rounds of 4 MB paced at 2 MB/s (~2 s each) with a
# 6 s pause between them: nothing on the wire while the connection stays open.
lab_bg "$LAB_NS_A" "$LAB_PEER" server --timeout 30 -l "$LAB_IP4_A:5001" -m rr --rounds 2 \
	--resp-size 4M --pacing-rate 2M
srv=$LAB_LAST_PID
lab_wait_listen "$LAB_NS_A" 5001 || lab_abort "server did not listen"
lab_bg "$LAB_NS_B" "$LAB_PEER" client --timeout 30 -c "$LAB_IP4_A:5001" -b "$LAB_IP4_B:40001" \
	-m rr --rounds 2 --resp-size 4M --think 6000
cli=$LAB_LAST_PID

# field HEAD: the field number of HEAD in the table head on screen
field() {
	tui_screen live | awk -v h="$1" '/^ +#.* CLIENT /{for (i = 1; i <= NF; i++) {x = $i; sub(/(▼|▲)$/, "", x); if (x == h) {print i; exit}}}'
}
over1M() {
	python3 - "$1" <<'EOF'
import sys
v = sys.argv[1]
mult = {"k": 1e3, "M": 1e6, "G": 1e9}.get(v[-1:], 1)
try:
    n = float(v.rstrip("kMG")) * mult
except ValueError:
    sys.exit(1)
sys.exit(0 if n > 1e6 else 1)
EOF
}
row() { tui_screen live | awk -v s="$LAB_IP4_A:5001" '$3 == s {print; exit}'; }
pkts() { tui_screen live | awk 'NR == 2 {print $1}'; }
now_s() { date +%s.%N; }

# While round 1 runs: the row's rate now (NOW, both ways) above 1 Mb/s.
fnow=$(field NOW)
[ -n "$fnow" ] || lab_abort "no NOW column: $(tui_screen live | sed -n 4p)"
seen="" rate=""
for _ in $(seq 60); do
	sleep 0.1
	r=$(row)
	[ -n "$r" ] || continue
	seen=$r
	rate=$(awk -v f="$fnow" '{print $f}' <<<"$r")
	over1M "$rate" && break
	rate=""
done
tui_screen live >"$LAB_TMP/screen.txt"

# The pause: the clock runs on without packets. The header's packets/s and
# the row's rate reach 0 within 2 s of the last packet (+0.3 s: the 100 ms
# publication and the screen's poll), the row turns idle, the title says
# how long ago the last packet was.
last_pk=$(pkts) t_last=$(now_s) t_zero="" hdr="" r=""
for _ in $(seq 80); do
	sleep 0.1
	p=$(pkts)
	if [ "$p" != "$last_pk" ]; then
		last_pk=$p t_last=$(now_s)
		continue
	fi
	hdr=$(tui_screen live | awk 'NR == 2 {print $3}')
	r=$(awk -v f="$fnow" '{print $f}' <<<"$(row)")
	if [ "$hdr" = 0 ] && [ "$r" = 0 ]; then
		t_zero=$(now_s)
		break
	fi
done
lab_check "rates never reached 0 in the pause (header '$hdr' pkt/s, row '$r')" -n "$t_zero"
zero_after=$(python3 -c "print('%.1f' % (${t_zero:-0} - $t_last))")
python3 -c "import sys; sys.exit(not ${t_zero:-0} - $t_last <= 2.3)" ||
	lab_fail "rates reached 0 only ${zero_after} s after the last packet"
idle=""
for _ in $(seq 40); do
	sleep 0.1
	r=$(row)
	if [ "$(awk '{print $4}' <<<"$r")" = idle ] && tui_screen live | head -1 | grep -q ' s ago)'; then
		idle=yes
		break
	fi
done
lab_check "the connection never showed idle (and the title 's ago'): $(row) / $(tui_screen live | head -1)" -n "$idle"

# Round 2: p holds the screen while the capture goes on; p again shows it moved on.
p0=$(pkts)
for _ in $(seq 60); do
	sleep 0.1
	[ "$(pkts)" != "$p0" ] && break
done
tui_keys live p
h0=$(pkts)
sleep 0.6
h1=$(pkts)
tui_screen live | grep -q 'HELD' || lab_fail "no HELD mark after p"
lab_check "held screen changed: $h0 -> $h1" "$h0" = "$h1"
# (sent, not tui_keys: a moving screen would hold it 4 s) the count moves on
tui_tmux send-keys -t live p
h2=$h1
for _ in $(seq 60); do
	sleep 0.05
	h2=$(pkts)
	[ "$h2" != "$h1" ] && break
done
lab_check "after p again the count did not move on: $h1 -> $h2" "$h1" != "$h2"
# Started as root without -Z, it runs as tcpdump once the sockets are open.
tui_uid=$(awk '/^Uid:/ {print $2 "/" $3}' "/proc/$(tui_pid live)/status")
want_uid=$(getent passwd tcpdump | cut -d: -f3) || want_uid=0
lab_check "tui uid $tui_uid, want $want_uid/$want_uid" "$tui_uid" = "$want_uid/$want_uid"
lab_wait "$cli" || true
lab_wait "$srv" || true
lab_check "no row for the transfer on screen: $(head -5 "$LAB_TMP/screen.txt")" -n "$seen"
lab_check "throughput never rose above 1 Mb/s: row '$seen'" -n "$rate"
pk=$(awk 'NR == 2 {print $1}' "$LAB_TMP/screen.txt")
lab_check "header packets '$pk'" "${pk:-0}" != 0
grep -q 'drops kernel 0 if 0 us 0' "$LAB_TMP/screen.txt" || lab_fail "drops shown: $(sed -n 2p "$LAB_TMP/screen.txt")"
tui_keys live q
rc=$(tui_wait_exit live 10) || rc=timeout
lab_check "exit after q: $rc" "$rc" = 0
tui_wait live 'tcpsift tui: ended, [0-9]+ packets, [1-9][0-9]* connections' 3 ||
	lab_fail "no summary line: $(tui_screen live | grep 'tcpsift tui' | head -2)"
lab_verdict "rate $rate while the 16 Mb/s transfer ran, 0 ${zero_after} s after it paused, idle, $pk packets, uid $tui_uid, exit $rc"
