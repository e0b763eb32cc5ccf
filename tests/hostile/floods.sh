#!/usr/bin/env bash
# hostile/floods.sh BUILD_DIR - a SYN flood cannot take the memory (issue 13):
# a million distinct SYNs (tests/tools/synflood: a million connections of
# one packet) in --json, --ndjson and text, under --max-memory 64M with one
# thread and under 256M (the default threads), 300 000 under 64M with two
# threads (over five times what 64M holds: make check's time), each run's
# peak RSS measured (/usr/bin/time) and held to what --max-memory promises
# for the whole process: the cap + 10 % + 16 MiB (cli/membudget.h); and
# the SACK-hole flood (tests/scale/sackflood.py: 10 000 connections SACKing
# ever more holes) the same way under 16M and 48M (tests/scale/run.sh runs
# it under --max-flows); and the SYN flood's work linear in packets,
# counted in instructions (callgrind:
# the same on every run, where CPU seconds on a shared machine are not) on
# 4 000 -> 16 000 SYNs under --max-memory 8M (~2 900 live, the rest
# evicted), --json and text: at most 4.4x for 4x the SYNs (quadratic would
# be 16x).
# Ground truth from the generator: N packets, N connections;
# the summary must account for every one (evicted + at end = N, all by
# memory, none resumed) with what the engine held at most within the cap;
# the SACK flood's 10 000 connections all in the report.
# The reports (5 GB of JSON for a million connections) go through a pipe to
# a reader that keeps only their summaries, never to disk.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=floods
. tests/lib.sh
dir=${1:?usage: floods.sh BUILD_DIR}
bin=$dir/tcpsift syn=$dir/tests/tools/synflood
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp

# summary FMT N: read a report on stdin, print "ok|bad evicted at_end
# max_live memory_peak" from its summary.
summary() {
	python3 -c '
import json, sys
fmt, n, cap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) << 20
inp = sys.stdin.buffer
if fmt == "text":
    # The text report starts with its summary: the eviction line, then the rest.
    s = None
    for line in inp:
        if s is None and b"connections evicted by --max-flows" in line:
            w = line.split()
            s = (int(w[0]), int(w[7].lstrip(b"(")))
    ok = s is not None and (n == 10000 or (s[0] == s[1] and s[0] > n // 2))
    print("ok" if ok else "bad", *(s or ()))
    sys.exit()
tail = b""
while True:
    b = inp.read(1 << 20)
    if not b:
        break
    tail = (tail + b)[-65536:]
tail = tail.decode()
if fmt == "--json":
    s = json.JSONDecoder().raw_decode(tail[tail.rindex("\"summary\":") + 10:].lstrip())[0]
else:
    s = json.loads(tail.splitlines()[-1])
f = s["flows"]
if n == 10000:  # the SACK flood: every connection reported, however often evicted
    ok = s["connections"] >= n and f["evicted_by_memory"] > 0 and 0 < f["memory_peak"] <= cap
else:
    ok = (s["packets"] == n and s["connections"] == n and f["evicted"] + f["at_end"] == n
          and f["evicted_by_memory"] == f["evicted"] and f["resumed"] == 0
          and f["evicted"] > n // 2 and 0 < f["memory_peak"] <= cap)
print("ok" if ok else "bad", f["evicted"], f["at_end"], f["max_live"], f["memory_peak"])
' "$@"
}

[ -x "$syn" ] || { t_skip "no $syn (make tests builds it)"; t_done; exit; }
for n in 4000 16000 300000 1000000; do
	"$syn" "$tmp/syn-$n.pcap" $n || { t_fail "synflood $n failed"; t_done; exit; }
done
tests/scale/sackflood.py "$tmp/sack-10000.pcap" 10000 20 || { t_fail "sackflood.py failed"; t_done; exit; }
# flood FMT: every run of one format (cap MiB, threads (0: the default),
# flood); "pass|fail MESSAGE" lines to $tmp/res-FMT. The three formats run
# at once (each run's RSS is its own).
flood() {
	local fmt=$1 opt=$1 run mib thr n kib lim got what thr_opt partial out=$tmp/res-$1
	[ "$fmt" = text ] && opt=
	for run in 64:1:1000000 64:2:300000 256:0:1000000 16:0:10000 48:0:10000; do
		IFS=: read -r mib thr n <<<"$run"
		lim=$((mib + mib / 10 + 16))
		what="$fmt: $n $([ "$n" = 10000 ] && echo "SACKing connections" || echo SYNs) under --max-memory ${mib}M$([ "$thr" = 0 ] || echo ", --threads $thr")"
		thr_opt=()
		[ "$thr" = 0 ] || thr_opt=(--threads "$thr")
		got=$(/usr/bin/time -f '%M' -o "$tmp/time$fmt" "$bin" analyze $opt --no-progress \
			"${thr_opt[@]}" --max-memory "${mib}M" \
			"$tmp/$([ "$n" = 10000 ] && echo sack || echo syn)-$n.pcap" 2>"$tmp/err$fmt" |
			summary "$fmt" "$n" "$mib")
		kib=$(grep -v '^Command exited' "$tmp/time$fmt") || kib=0
		# Packets no connection could take: one line, exit 3 (partial).
		partial=$(grep -c '^tcpsift analyze: the report is partial: ' "$tmp/err$fmt")
		[ "$partial" = 1 ] && [ "$(wc -l <"$tmp/err$fmt")" = 1 ] && got="$got (partial)" &&
			: >"$tmp/err$fmt"
		if [ -s "$tmp/err$fmt" ]; then
			echo "fail $what: $(head -c 300 "$tmp/err$fmt")"
		elif [ "${got%% *}" = ok ] && [ "$kib" -le $((lim * 1024)) ]; then
			echo "pass $what: $got, peak RSS $((kib / 1024)) MiB (<= $lim: the cap + 10 % + 16 MiB)"
		else
			echo "fail $what: $got, peak RSS $((kib / 1024)) MiB (want <= $lim: the cap + 10 % + 16 MiB)"
		fi
	done >"$out"
}

# linear FMT: instructions for 4 000 and 16 000 SYNs (see the top).
linear() {
	local fmt=$1 opt=$1 a b
	[ "$fmt" = text ] && opt=
	a=$(t_instr "$bin" analyze $opt --no-progress --max-memory 8M "$tmp/syn-4000.pcap")
	b=$(t_instr "$bin" analyze $opt --no-progress --max-memory 8M "$tmp/syn-16000.pcap")
	if [ -z "$a" ] || [ -z "$b" ]; then
		echo "fail $fmt: no instruction count (valgrind missing, or the run failed)"
	elif [ "$b" -le $((a * 44 / 10)) ]; then
		echo "pass $fmt: $a -> $b instructions for 4x the SYNs (<= 4.4x: linear)"
	else
		echo "fail $fmt: $a -> $b instructions for 4x the SYNs (want <= 4.4x: linear, not quadratic)"
	fi >"$tmp/res-linear$fmt"
}
for fmt in --json --ndjson text; do
	flood $fmt &
done
wait
linear --json &
linear text &
wait
for res in --json --ndjson text linear--json lineartext; do
	while read -r verdict msg; do
		if [ "$verdict" = pass ]; then t_pass "$msg"; else t_fail "$msg"; fi
	done <"$tmp/res-$res"
done
t_done
