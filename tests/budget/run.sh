#!/usr/bin/env bash
# budget/run.sh BUILD_DIR - the cost budget (bench/budget.conf): the
# instructions `analyze --json --threads 1` executes a packet, every
# detector on, on fixed generated captures (bench/gen, seed 1):
#   1k    200 000 packets, 1 000 connections, all live at once
#   20k   300 000 packets, 20 000 connections, all live at once
# counted by callgrind: the same on every run whatever the machine's load,
# where seconds on a shared machine are not. Over the budget fails; more
# than 10 % under it fails too, so a speed-up lowers the budget in its own
# commit and the next slowdown cannot spend it unseen. (The bytes a live
# connection holds are tests/scale/run.sh's, against the same file.) The
# 200 000-live capture of bench/run.sh takes 4 minutes under callgrind:
# make bench measures it; make check keeps to these two (30 s).
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=budget
. tests/lib.sh
dir=${1:?usage: run.sh BUILD_DIR}
bin=$dir/tcpsift gen=$dir/bench/gen
. bench/budget.conf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v valgrind >/dev/null || { t_skip "no valgrind"; t_done; exit; }
[ -x "$gen" ] || { t_fail "no $gen (make O=$dir $gen)"; t_done; exit; }

# case NAME PACKETS CONNECTIONS BUDGET
case_run() {
	local name=$1 packets=$2 conns=$3 budget=$4 instr per
	"$gen" -o "$tmp/$name.pcap" --packets "$packets" --connections "$conns" \
		--concurrent "$conns" --seed 1 2>/dev/null || { t_fail "$name: gen failed"; return; }
	instr=$(t_instr "$bin" analyze --json --threads 1 --no-progress "$tmp/$name.pcap")
	if [ -z "$instr" ]; then
		t_fail "$name: analyze failed under callgrind"
		return
	fi
	per=$((instr / packets))
	if [ "$per" -gt "$budget" ]; then
		t_fail "$name: $per instructions a packet, over the budget of $budget" \
			"(bench/budget.conf: a feature that needs more raises it in a commit of its own)"
	elif [ $((per * 10)) -lt $((budget * 9)) ]; then
		t_fail "$name: $per instructions a packet, more than 10 % under the budget of $budget:" \
			"lower it in bench/budget.conf"
	else
		t_pass "$name: $per instructions a packet (budget $budget)"
	fi
	rm -f "$tmp/$name.pcap"
}

case_run 1k 200000 1000 "$INSTR_PER_PACKET_1K"
case_run 20k 300000 20000 "$INSTR_PER_PACKET_20K"
t_done
