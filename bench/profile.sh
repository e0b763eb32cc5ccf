#!/usr/bin/env bash
# bench/profile.sh [--threads N] [--top N] [-- ANALYZE-ARGS...] - where
# `tcpsift analyze` spends its time, by function and by source line.
#
# Counted instructions (callgrind, the budget) say what work is done; they
# do not say what waits: a load that misses the caches, a mispredicted
# branch. This samples the time itself: perf's cpu-clock event, a software
# timer, which works in a virtual machine without hardware counters (no
# `perf stat -e cycles` here). It profiles 1 000 000 packets from bench/gen
# with bench/run.sh's parameters (20 000 connections, 2 000 live, seed 1:
# not that capture's first million, gen's streams depend on --packets), with
# the page cache warm, and prints the functions by their share of the
# samples, then the source lines of the heaviest.
#
# Read the lines with care: a sample lands on the instruction after a load
# that waited, and the first load of a connection's block there waits for
# all of that block's lines the CPU fetches at once. Four lines that led
# here were tried (bench/RESULTS.md, seventeenth session): each time the
# wait moved to the next first touch and the time stayed. A function's
# share, and a whole part measured by its absence, say more.
#
# Expects ./tcpsift (or $TCPSIFT), build/rel/bench/gen and perf (Debian's
# linux-perf: scripts/deps.sh bench); root, or kernel.perf_event_paranoid <= 1.
set -euo pipefail
cd "$(dirname "$0")/.."

threads=1 top=12
while [ $# -gt 0 ]; do
	case "$1" in
	--threads) threads=${2:?}; shift 2 ;;
	--top) top=${2:?}; shift 2 ;;
	--) shift; break ;;
	-h | --help) sed -n '2,23s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "profile.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in "$threads" "$top"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "profile.sh: not a positive integer: $v" >&2; exit 2; }
done

tcpsift=${TCPSIFT:-./tcpsift}
gen=build/rel/bench/gen
for b in "$tcpsift" "$gen"; do
	[ -x "$b" ] || { echo "profile.sh: missing $b: run 'make O=build/rel tcpsift $gen'" >&2; exit 3; }
done
command -v perf >/dev/null || { echo "profile.sh: no perf: run 'scripts/deps.sh bench'" >&2; exit 3; }

mkdir -p bench/data
cap=bench/data/profile-1m.pcap
want="gen.c=$(sha256sum bench/gen.c | cut -c1-16) packets=1000000 connections=20000 concurrent=2000 seed=1"
if [ ! -s "$cap" ] || [ "$(head -1 "$cap.stamp" 2>/dev/null)" != "$want" ]; then
	echo "profile.sh: generating $cap" >&2
	timeout 600 "$gen" -o "$cap.tmp" --packets 1000000 --connections 20000 --concurrent 2000 \
		--seed 1 2>/dev/null
	mv "$cap.tmp" "$cap"
	echo "$want" >"$cap.stamp"
fi
cat "$cap" >/dev/null # the page cache warm, as bench/run.sh measures

work=$(mktemp -d "${TMPDIR:-/tmp}/tcpsift-profile.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmd=("$tcpsift" analyze --json --threads "$threads" --no-progress -o /dev/null "$@" "$cap")
timeout 300 perf record -q -e cpu-clock -F 4999 -o "$work/perf.data" -- "${cmd[@]}" 2>"$work/err" ||
	{ echo "profile.sh: perf record failed: $(head -3 "$work/err")" >&2; exit 1; }

echo "# Time profile: ${cmd[*]}"
echo "# (perf cpu-clock samples at 4999 Hz; commit $(git rev-parse --short HEAD 2>/dev/null || echo ?))"
echo
perf report -i "$work/perf.data" --no-children --sort symbol --stdio 2>/dev/null |
	grep -E '^ +[0-9.]+%' >"$work/functions" || true
echo "## Functions (self time)"
head -n "$top" "$work/functions"
echo
echo "## Source lines of the five heaviest functions (share of the function)"
sed -E 's/.*\] ([^ ]+).*/\1/' "$work/functions" | head -5 >"$work/heaviest"
while read -r fn; do
	echo "### $fn"
	perf annotate -i "$work/perf.data" --stdio -l -s "$fn" 2>/dev/null >"$work/annotate" || true
	grep -E '^ +[0-9]+\.[0-9]+ +[A-Za-z0-9_./-]+:[0-9]+' "$work/annotate" | sort -rn | head -8 || true
done <"$work/heaviest"
