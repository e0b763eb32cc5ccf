#!/usr/bin/env bash
# shard/run.sh TCPSIFT - `analyze --shard K/N` partitions connections: every
# sample (each alone, all merged as one stream) and a generated capture of
# 300 connections (tests/shard/mkcap.py) analysed in one pass and as 4
# shards; tests/shard/check.py compares connections, events and summary
# counters, and places each connection by the hash of tcpsift(1)
# reimplemented in tests/shard/shardhash.py. Then a 4-shard NDJSON job through
# GNU parallel, the text report's shard line and --shard's usage errors.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=shard
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
export TZ=UTC LC_ALL=C
out=build/shard
rm -rf "$out"
mkdir -p "$out"
N=4

# compare NAME FORMAT ARGS...: one pass and N shards of `analyze FORMAT ARGS`.
compare() {
	local name=$1 fmt=$2 k rc krc
	shift 2
	"$bin" analyze --no-progress "--$fmt" "$@" >"$out/$name.one.$fmt" 2>"$out/$name.one.err"
	rc=$?
	for k in $(seq $N); do
		"$bin" analyze --no-progress "--$fmt" --shard "$k/$N" "$@" >"$out/$name.$k.$fmt" \
			2>"$out/$name.$k.err"
		krc=$?
		[ $krc = $rc ] || { t_fail "$name: shard $k/$N exits $krc, one pass $rc"; return; }
	done
	if python3 tests/shard/check.py "$fmt" "$out/$name.one.$fmt" \
		$(for k in $(seq $N); do echo "$out/$name.$k.$fmt"; done) >"$out/$name.check"; then
		t_pass "$name: $N shards = one pass"
	else
		t_fail "$name: $N shards differ from one pass:"
		head -5 "$out/$name.check"
	fi
}

samples=()
for s in samples/*.pcap samples/*.pcapng samples/bad/lying-headers.pcap; do
	samples+=("$s")
	compare "$(basename "$s")" json "$s"
done
# Several inputs merged by time are one stream: connections of one input end
# idle while another's packets come (capture times years apart).
compare all-merged json "${samples[@]}"
compare queues-merged json --queue-per-file samples/reorder-queues-q0.pcap \
	samples/reorder-queues-q1.pcap

python3 tests/shard/mkcap.py "$out/gen.pcap" || t_fail "mkcap.py"
# --idle-timeout 2: connections that pause 3 s end and come back in every shard alike.
compare gen json --frames --idle-timeout 2 "$out/gen.pcap"
compare gen-nd ndjson --idle-timeout 2 "$out/gen.pcap"
# The connections spread over the shards (a hash taking one byte's low bits would not).
for k in $(seq $N); do
	c=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["connections"])' \
		"$out/gen.$k.json")
	[ "$c" -ge 50 ] && t_pass "gen: shard $k has $c connections" ||
		t_fail "gen: shard $k has only $c of 343 connections"
done

# The job as tcpsift(1) shows it: GNU parallel runs the shards.
if command -v parallel >/dev/null; then
	par=$out/parallel
	mkdir -p "$par"
	if parallel --will-cite -j4 "$bin" analyze --no-progress --ndjson --idle-timeout 2 \
		--shard {}/4 "$out/gen.pcap" '>' "$par/shard{}.ndjson" ::: 1 2 3 4 2>"$par/err" &&
		python3 tests/shard/check.py ndjson "$out/gen-nd.one.ndjson" "$par"/shard{1,2,3,4}.ndjson \
			>"$par/check"; then
		t_pass "GNU parallel: 4 shards = one pass"
	else
		t_fail "GNU parallel: $(head -c 300 "$par/err" "$par/check" 2>/dev/null)"
	fi
else
	t_fail "GNU parallel not installed (scripts/deps.sh check installs it)"
fi

# Text: a shard says so (and how many packets it left); one pass does not.
"$bin" analyze --no-progress --shard 3/4 "$out/gen.pcap" >"$out/text.3" 2>&1
grep -qE '^  shard 3 of 4: [0-9]+ packets left to the other shards' "$out/text.3" &&
	t_pass "text: the shard line" || t_fail "text: no shard line: $(head -3 "$out/text.3")"
"$bin" analyze --no-progress "$out/gen.pcap" >"$out/text.one" 2>&1
grep -qE 'shard [0-9]+ of' "$out/text.one" && t_fail "text: one pass mentions shards" ||
	t_pass "text: no shard line without --shard"

for v in 0/4 5/4 1/0 4 /4 1/ 1/65537 a/b -1/4 "1/4/2"; do
	"$bin" analyze --shard "$v" "$out/gen.pcap" >/dev/null 2>"$out/e"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$out/e")" -eq 1 ]; then t_pass "--shard $v: usage error"; else
		t_fail "--shard $v: exit $rc, $(head -c 200 "$out/e")"; fi
done
"$bin" analyze --no-progress --json --shard 65536/65536 "$out/gen.pcap" >/dev/null &&
	t_pass "--shard 65536/65536" || t_fail "--shard 65536/65536"
t_done
